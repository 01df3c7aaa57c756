//===- Optimizer.cu - Optimizer updates on CUDA devices -------------------===//
//
// The CUDA half of gnnrt/kernels/cuda/Optimizer.h: lib/train/Optimizer.cpp's
// update, one thread per value, with the same per-step scalars (computed
// here on the host in double, then rounded to float as there) and the same
// float operations in the same order, each explicitly rounded so that nvcc
// fuses no multiply-add the CPU does not.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Optimizer.h"

#include "Common.h"

#include <cmath>
#include <cstdint>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// One Adam/AdamW step's scalars, as torch (and the CPU) compute them.
struct AdamStep {
  bool decoupled;
  float wd, b2, oneMinusB1, oneMinusB2, eps, stepSize, bias2Sqrt, decay;
};

__global__ void adamKernel(const AdamStep s, int64_t n, float *p,
                           const float *g, float *m, float *v) {
  const int64_t i = globalThread();
  if (i >= n)
    return;
  float d = g[i];
  if (s.decoupled)
    p[i] = mul(p[i], s.decay);
  else if (s.wd != 0)
    d = add(d, mul(s.wd, p[i]));
  m[i] = add(m[i], mul(sub(d, m[i]), s.oneMinusB1)); // torch's lerp_
  v[i] = add(mul(s.b2, v[i]), mul(mul(s.oneMinusB2, d), d));
  const float denom = add(div(sqrtOf(v[i]), s.bias2Sqrt), s.eps);
  p[i] = sub(p[i], div(mul(s.stepSize, m[i]), denom));
}

__global__ void sgdKernel(float lr, float wd, float mu, bool firstStep,
                          int64_t n, float *p, const float *g, float *buf) {
  const int64_t i = globalThread();
  if (i >= n)
    return;
  float d = g[i];
  if (wd != 0)
    d = add(d, mul(wd, p[i]));
  if (mu != 0) {
    buf[i] = firstStep ? d : add(mul(mu, buf[i]), d);
    d = buf[i];
  }
  p[i] = sub(p[i], mul(lr, d));
}

} // namespace

void adamUpdate(const UpdateConfig &c, bool decoupled, int64_t step, int64_t n,
                float *p, const float *g, float *m, float *v) {
  if (n == 0)
    return;
  // Like torch, 1 - beta in double before rounding to float.
  const AdamStep s{decoupled,
                   float(c.weightDecay),
                   float(c.beta2),
                   float(1 - c.beta1),
                   float(1 - c.beta2),
                   float(c.eps),
                   float(c.lr / (1 - std::pow(c.beta1, double(step)))),
                   float(std::sqrt(1 - std::pow(c.beta2, double(step)))),
                   float(1 - c.lr * c.weightDecay)};
  GNNRT_LAUNCH(blocksFor(n), kBlock, 0, stream(), adamKernel)(s, n, p, g, m, v);
  checkLaunch("adamUpdate launch");
}

void sgdUpdate(const UpdateConfig &c, int64_t step, int64_t n, float *p,
               const float *g, float *buffer) {
  if (n == 0)
    return;
  GNNRT_LAUNCH(blocksFor(n), kBlock, 0, stream(), sgdKernel)
  (float(c.lr), float(c.weightDecay), float(c.momentum), step == 1, n, p, g,
   buffer);
  checkLaunch("sgdUpdate launch");
}

} // namespace gnnrt::kernels::cuda
