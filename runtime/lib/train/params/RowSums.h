//===- RowSums.h - Gradient rows summed by key, in arrival order -*- C++ -*-===//
//
// A learned input row read by several trainers (or ranks) gets one gradient
// per reader; its owner adds them in the order they arrive, which the
// callers fix (slice order, rank order), so the sum does not depend on
// timing.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_ROWSUMS_H
#define GNNRT_TRAIN_ROWSUMS_H

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace gnnrt {

/// Adds `row` (width floats) to key's sum in `sums`, one row per key in the
/// order the keys first came (`slotOf` maps a key to its row). Returns
/// whether the key is new: its sum is then `row` itself.
inline bool addToRowSum(std::unordered_map<int64_t, int64_t> &slotOf,
                        std::vector<float> &sums, int64_t key,
                        const float *row, int64_t width) {
  auto [it, fresh] = slotOf.try_emplace(key, int64_t(slotOf.size()));
  if (fresh) {
    sums.insert(sums.end(), row, row + width);
    return true;
  }
  float *sum = sums.data() + it->second * width;
  for (int64_t j = 0; j < width; ++j)
    sum[j] += row[j];
  return false;
}

} // namespace gnnrt

#endif // GNNRT_TRAIN_ROWSUMS_H
