//===- Optimizer.h - Optimizer updates on CUDA devices ----------*- C++ -*-===//
//
// The elementwise updates of gnnrt::Optimizer (train/Optimizer.h) on device
// parameters, gradients and state: Adam, AdamW and SGD with PyTorch's
// semantics, in the same float operations in the same order, with the
// per-step scalars computed on the host in double as the CPU does, so one
// step gives the CPU optimizer's bits.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_OPTIMIZER_H
#define GNNRT_KERNELS_CUDA_OPTIMIZER_H

#include <cstdint>

namespace gnnrt::kernels::cuda {

/// The hyper-parameters of an update (train/Optimizer.h's OptimizerConfig).
struct UpdateConfig {
  double lr = 0.01, weightDecay = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
         momentum = 0;
};

/// Step `step` (1 for the first) of Adam (decoupled: AdamW) on n values:
/// p, m (exp_avg) and v (exp_avg_sq) are updated in place from g.
void adamUpdate(const UpdateConfig &config, bool decoupled, int64_t step,
                int64_t n, float *p, const float *g, float *m, float *v);

/// Step `step` of SGD; `buffer` (the momentum buffer) may be null when
/// config.momentum is 0.
void sgdUpdate(const UpdateConfig &config, int64_t step, int64_t n, float *p,
               const float *g, float *buffer);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_OPTIMIZER_H
