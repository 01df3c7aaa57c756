//===- ParamInit.h - Initial values of model parameters ---------*- C++ -*-===//
//
// A parameter's initial values are a pure function of (seed, parameter
// index, element index) through the counter-based RNG (Random.h), so a run
// is reproducible on any thread count. Weights are laid out [in, out]
// (`x @ w`), so the fans come from the last two dims the way PyG's glorot
// reads them: fan_in = size(-2), fan_out = size(-1); a vector [n] counts
// as [1, n] and a scalar as [1, 1].
//  - glorot:  uniform(-a, a), a = sqrt(6 / (fan_in + fan_out))
//  - kaiming: uniform(-b, b), b = sqrt(6 / fan_in) (He et al. for ReLU; what
//             torch.nn.init.kaiming_uniform_ gives with a = 0)
//  - uniform(low, high), normal(mean, std), constant(value), zeros, ones
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_PARAMINIT_H
#define GNNRT_TRAIN_PARAMINIT_H

#include "gnnrt/train/Program.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// The half-width a of glorot's uniform(-a, a) for `shape`.
double glorotBound(const std::vector<int64_t> &shape);
/// The half-width b of kaiming's uniform(-b, b) for `shape`.
double kaimingBound(const std::vector<int64_t> &shape);

/// The Philox stream of parameter `index`: a tag in the high word keeps
/// initialization independent of the dropout and sampling streams.
uint64_t paramInitStream(int64_t index);

/// Fills `values` (numElements(info.shape) floats) as `info` says, drawing
/// element i from (seed, stream, i). Throws DataError if info.initArgs has
/// the wrong count for its Init.
void initParameter(const ParamInfo &info, uint64_t seed, uint64_t stream,
                   float *values);

} // namespace gnnrt

#endif // GNNRT_TRAIN_PARAMINIT_H
