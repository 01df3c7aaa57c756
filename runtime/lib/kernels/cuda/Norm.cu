//===- Norm.cu - Batch normalization on CUDA devices ----------------------===//
//
// The CUDA half of gnnrt/kernels/families/Norm.def: each column of [outer,
// n, inner] to one thread, which walks the rows in the CPU kernel's order
// with IEEE operations rounded one at a time, so the results are the CPU's
// bits.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// The CPU's columnStatistics for the column at `base`: its mean and
/// 1 / sqrt(variance + eps), each sum in row order times 1/n.
template <typename T>
__device__ void columnStatistics(const T *x, int64_t base, int64_t n,
                                 int64_t inner, T eps, T &mean, T &rstd,
                                 T *biasedVariance = nullptr) {
  const T scale = div(T(1), T(n));
  T sum = x[base];
  for (int64_t t = 1; t < n; ++t)
    sum = add(sum, x[base + t * inner]);
  mean = mul(sum, scale);
  const T d0 = sub(x[base], mean);
  T variance = mul(d0, d0);
  for (int64_t t = 1; t < n; ++t) {
    const T d = sub(x[base + t * inner], mean);
    variance = add(variance, mul(d, d));
  }
  const T biased = mul(variance, scale);
  rstd = div(T(1), sqrtOf(add(biased, eps)));
  if (biasedVariance)
    *biasedVariance = biased;
}

template <typename T>
__global__ void batchNormKernel(int64_t outer, int64_t n, int64_t inner,
                                T eps, const T *x, T *y) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  T mean, rstd;
  columnStatistics(x, base, n, inner, eps, mean, rstd);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    y[at] = mul(sub(x[at], mean), rstd);
  }
}

template <typename T>
__global__ void batchNormGradKernel(int64_t outer, int64_t n, int64_t inner,
                                    T eps, const T *dy, const T *x, const T *y,
                                    T *dx) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  T mean, rstd;
  columnStatistics(x, base, n, inner, eps, mean, rstd);
  // Sums from their first term, as the CPU adds them.
  T sumDy = dy[base], sumDyY = mul(dy[base], y[base]);
  for (int64_t t = 1; t < n; ++t) {
    const int64_t at = base + t * inner;
    sumDy = add(sumDy, dy[at]);
    sumDyY = add(sumDyY, mul(dy[at], y[at]));
  }
  const T scale = div(T(1), T(n));
  const T meanDy = mul(sumDy, scale), meanDyY = mul(sumDyY, scale);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    dx[at] = mul(rstd, sub(sub(dy[at], meanDy), mul(y[at], meanDyY)));
  }
}

template <typename T>
__global__ void batchNormInferenceKernel(int64_t outer, int64_t n,
                                         int64_t inner, T eps, const T *x,
                                         const T *mean, const T *var, T *y) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  const int64_t column = globalThread();
  const T m = mean[column], rstd = div(T(1), sqrtOf(add(var[column], eps)));
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    y[at] = mul(sub(x[at], m), rstd);
  }
}

template <typename T>
__global__ void batchNormRunningChangeKernel(int64_t outer, int64_t n,
                                             int64_t inner, bool variance,
                                             T momentum, const T *x,
                                             const T *running, T *change) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  const int64_t column = globalThread();
  if (n == 0 || (variance && n < 2)) {
    change[column] = T(0);
    return;
  }
  T mean, rstd, biased;
  columnStatistics(x, base, n, inner, T(0), mean, rstd, &biased);
  // The CPU's arithmetic: the unbiased variance from the biased one.
  const T batch = variance ? div(mul(biased, T(n)), T(n - 1)) : mean;
  change[column] = mul(momentum, sub(batch, running[column]));
}

} // namespace

template <typename T>
void batchNorm(int64_t outer, int64_t n, int64_t inner, double eps, const T *x,
               T *y) {
  if (n > 0)
    launchColumns("batchNorm launch", outer * inner, batchNormKernel<T>, outer,
                  n, inner, T(eps), x, y);
}

template <typename T>
void batchNormGrad(int64_t outer, int64_t n, int64_t inner, double eps,
                   const T *dy, const T *x, const T *y, T *dx) {
  if (n > 0)
    launchColumns("batchNormGrad launch", outer * inner,
                  batchNormGradKernel<T>, outer, n, inner, T(eps), dy, x, y,
                  dx);
}

template <typename T>
void batchNormInference(int64_t outer, int64_t n, int64_t inner, double eps,
                        const T *x, const T *mean, const T *var, T *y) {
  if (n > 0)
    launchColumns("batchNormInference launch", outer * inner,
                  batchNormInferenceKernel<T>, outer, n, inner, T(eps), x,
                  mean, var, y);
}

template <typename T>
void batchNormRunningChange(int64_t outer, int64_t n, int64_t inner,
                            bool variance, double momentum, const T *x,
                            const T *running, T *change) {
  launchColumns("batchNormRunningChange launch", outer * inner,
                batchNormRunningChangeKernel<T>, outer, n, inner, variance,
                T(momentum), x, running, change);
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Norm.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
