//===- Predictions.cpp - The --predict CSV file ---------------------------===//

#include "Predictions.h"

#include "AtomicFile.h"
#include "Metrics.h"

namespace gnnrt {

void writePredictions(const std::string &path, const float *logits,
                      int64_t rows, int64_t classes) {
  AtomicFile out(path);
  std::fputs("node,prediction\n", out.stream());
  for (int64_t v = 0; v < rows; ++v)
    std::fprintf(out.stream(), "%lld,%lld\n", (long long)v,
                 (long long)argmaxRow(logits + v * classes, classes));
  out.commit();
}

} // namespace gnnrt
