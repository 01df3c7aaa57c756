//===- LossArithmetic.h - The loss's arithmetic on every device -*- C++ -*-===//
//
// What the loss computes alike on the CPU (lib/kernels/cpu/Loss.cpp) and on
// CUDA (lib/kernels/cuda/Loss.cu), so that its value and gradient are the
// same bits on both: the cross-entropy's exponential and the number of
// lanes a row's exponentials are summed in, and the norm penalty's float64
// sum and gradient (gnn.norm_penalty). Each operation is rounded on its
// own: on the device by the _rn intrinsics (nvcc would otherwise fuse a
// multiply and an add), on the host by the includer's -ffp-contract=off (or
// an x86-64 baseline without FMA).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_LOSSARITHMETIC_H
#define GNNRT_KERNELS_LOSSARITHMETIC_H

#include "gnnrt/support/HostDevice.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define GNNRT_LOSS_INLINE __forceinline__
#else
#define GNNRT_LOSS_INLINE [[gnu::always_inline]] inline
#endif

namespace gnnrt::kernels {

/// Lanes of a row's sum of exponentials: lane l sums the classes c = l
/// (mod 16) in ascending order, then the lanes are added in order. A fixed
/// number, so the sum is the same in vectors, in scalars and on a warp.
constexpr int64_t kSoftmaxSumLanes = 16;

/// Products and sums rounded one at a time, on every device.
namespace rounded {
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
} // namespace rounded

/// exp(x) for float, as a loop can vectorize it (std::exp stays a scalar
/// call: a 1vsAll step's softmax over 41k entities spent 40% of its time
/// there). Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a degree-7
/// polynomial for exp(r) (relative error about 1e-7), then 2^n in the
/// exponent bits; x is clamped to [-87.3, 88] (exp(x) of a softmax's
/// shifted logits below -87.3 reads as 1.2e-38 instead of 0, which no sum
/// with the row's maximum, exp(0) = 1, can tell).
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE float expPolynomial(float x) {
  using rounded::add;
  using rounded::mul;
  using rounded::sub;
  // Selects of values, not std::min/max's references: those stay branches.
  x = x < -87.33654f ? -87.33654f : x;
  x = x > 88.0f ? 88.0f : x; // 2^n stays finite (n <= 127)
  // n = floor(t) by truncation (t is within the int range), which SSE2
  // vectorizes too.
  const float t = add(mul(x, 1.44269504088896341f), 0.5f);
  const int32_t truncated = int32_t(t);
  const float n = float(truncated - (float(truncated) > t ? 1 : 0));
  float r = sub(x, mul(n, 0.693359375f));
  r = sub(r, mul(n, -2.12194440e-4f));
  float p = 1.9875691500e-4f;
  p = add(mul(p, r), 1.3981999507e-3f);
  p = add(mul(p, r), 8.3334519073e-3f);
  p = add(mul(p, r), 4.1665795894e-2f);
  p = add(mul(p, r), 1.6666665459e-1f);
  p = add(mul(p, r), 5.0000001201e-1f);
  p = add(add(mul(p, mul(r, r)), r), 1.0f);
  const int32_t bits = (int32_t(n) + 127) << 23;
#if defined(__CUDA_ARCH__)
  const float scale = __int_as_float(bits);
#else
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
#endif
  return mul(p, scale);
}

/// Double rows (gradient checks) use the library's exp.
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE double expPolynomial(double x) {
  return exp(x);
}

/// sum of |x[k]|^power (power 2: the squared L2 norm, 3: N3) over k in
/// [begin, end), in order, in float64: a chunk of gnn.norm_penalty's sum.
template <typename T>
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE double
normPenaltySum(const T *x, int64_t begin, int64_t end, int64_t power) {
  double sum = 0;
  for (int64_t k = begin; k < end; ++k) {
    const double v = double(x[k]);
    const double square = rounded::mul(v, v);
    sum = rounded::add(sum, power == 3 ? rounded::mul(v < 0 ? -v : v, square)
                                       : square);
  }
  return sum;
}

/// factor * d(|x|^power)/dx / power: factor * x|x| for N3, factor * x for
/// the squared L2 norm (the caller folds the power into factor). Products
/// only, so no contraction can change them.
template <typename T>
GNNRT_HOST_DEVICE GNNRT_LOSS_INLINE T normPenaltyDerivative(T x, T factor,
                                                            int64_t power) {
  return power == 3 ? factor * x * (x < T(0) ? -x : x) : factor * x;
}

} // namespace gnnrt::kernels

#undef GNNRT_LOSS_INLINE

#endif // GNNRT_KERNELS_LOSSARITHMETIC_H
