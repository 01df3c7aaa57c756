//===- Predictions.h - The --predict CSV file -------------------*- C++ -*-===//
//
// Internal to gnnrt. One row per node, `node,prediction`, the argmax class
// of its logits, under a header line; written atomically so a consumer
// never reads a partial file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PREDICTIONS_H
#define GNNRT_LIB_PREDICTIONS_H

#include <cstdint>
#include <string>

namespace gnnrt {

/// Writes the predictions for logits [rows, classes]. Throws DataError if
/// the file cannot be written.
void writePredictions(const std::string &path, const float *logits,
                      int64_t rows, int64_t classes);

} // namespace gnnrt

#endif // GNNRT_LIB_PREDICTIONS_H
