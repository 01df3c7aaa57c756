//===- Predictions.cpp - The --predict CSV file ---------------------------===//

#include "Predictions.h"

#include "Metrics.h"
#include "gnnrt/io/AtomicFile.h"

#include <cstring>

namespace gnnrt {

namespace {

/// The CSV of one predicted class per node (or graph: `idColumn`).
void writeClasses(const std::string &path, const std::vector<int64_t> &cls,
                  const char *idColumn = "node") {
  AtomicFile out(path);
  std::fprintf(out.stream(), "%s,prediction\n", idColumn);
  for (size_t v = 0; v < cls.size(); ++v)
    std::fprintf(out.stream(), "%lld,%lld\n", (long long)v,
                 (long long)cls[v]);
  out.commit();
}

} // namespace

void writePredictions(const std::string &path, const float *logits,
                      int64_t rows, int64_t classes) {
  std::vector<int64_t> cls(static_cast<size_t>(rows));
  for (int64_t v = 0; v < rows; ++v)
    cls[size_t(v)] = argmaxRow(logits + v * classes, classes);
  writeClasses(path, cls);
}

void writeGatheredPredictions(const std::string &path, const float *logits,
                              int64_t rows, int64_t classes,
                              const int64_t *nodeIds, int64_t numGlobalNodes,
                              Communicator &comm, const char *idColumn) {
  // (global id, class) pairs, all sent to rank 0.
  std::vector<int64_t> pairs(size_t(2 * rows));
  for (int64_t v = 0; v < rows; ++v) {
    pairs[size_t(2 * v)] = nodeIds[v];
    pairs[size_t(2 * v + 1)] = argmaxRow(logits + v * classes, classes);
  }
  std::vector<char> bytes = gatherToRoot(
      comm, pairs.data(), int64_t(pairs.size() * sizeof(int64_t)));
  if (comm.rank() != 0)
    return;
  std::vector<int64_t> all(bytes.size() / sizeof(int64_t));
  std::memcpy(all.data(), bytes.data(), bytes.size());
  std::vector<int64_t> cls(size_t(numGlobalNodes), -1);
  for (size_t k = 0; k + 1 < all.size(); k += 2)
    if (all[k] >= 0 && all[k] < numGlobalNodes)
      cls[size_t(all[k])] = all[k + 1];
  writeClasses(path, cls, idColumn);
}

} // namespace gnnrt
