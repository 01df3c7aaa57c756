//===- Predictions.h - The --predict CSV file -------------------*- C++ -*-===//
//
// Internal to gnnrt. One row per node, `node,prediction`, the argmax class
// of its logits, under a header line (a graph-level program's rows are
// graphs: `graph,prediction`); written atomically so a consumer never reads
// a partial file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PREDICTIONS_H
#define GNNRT_LIB_TRAIN_PREDICTIONS_H

#include "gnnrt/comm/Communicator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// Writes the predictions for logits [rows, classes]. Throws DataError if
/// the file cannot be written.
void writePredictions(const std::string &path, const float *logits,
                      int64_t rows, int64_t classes);

/// A distributed run's predictions: every rank's logits [rows, classes] of
/// its own nodes (global ids `nodeIds`) go to rank 0, which writes one row
/// per node of the whole graph (`numGlobalNodes`). `idColumn` names the
/// rows in the header ("node", or "graph" for a graph-level program's).
/// Collective.
void writeGatheredPredictions(const std::string &path, const float *logits,
                              int64_t rows, int64_t classes,
                              const int64_t *nodeIds, int64_t numGlobalNodes,
                              Communicator &comm,
                              const char *idColumn = "node");

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PREDICTIONS_H
