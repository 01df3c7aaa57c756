//===- Aggregate.cu - aggregate on CUDA devices ---------------------------===//
//
// kernels::cuda::aggregate, the CUDA half of gnnrt/kernels/Aggregate.h. One
// warp per destination row: lanes stride over the feature columns, so each
// gathered source row is read with coalesced loads, and the neighbour list
// is walked once per row. Each lane reduces its column over the messages in
// the order Aggregate.h fixes (edge order, self loop last, mean as a
// multiply by the reciprocal), with round-to-nearest intrinsics that nvcc
// never fuses into a multiply-add, so the result has the CPU kernel's bits.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Aggregate.h"

#include "CudaCheck.h"
#include "gnnrt/kernels/cuda/Launch.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

namespace gnnrt::kernels::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 8;

// IEEE multiply and add, each rounded on its own: what the CPU computes
// for `acc += a * v` without FMA.
__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add(double a, double b) { return __dadd_rn(a, b); }

/// The arguments of one aggregate call, by value into the kernel.
template <typename T> struct AggregateArgs {
  int64_t numDst;
  const int64_t *offsets;
  const int32_t *sources;
  Reduce reduce;
  bool selfLoops;
  const T *x;
  int64_t width;
  const T *weight;
  int64_t weightWidth;
  bool accumulate;
  T *out;
};

template <typename T>
__global__ void aggregateKernel(const AggregateArgs<T> p) {
  const int64_t row =
      (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (row >= p.numDst)
    return;
  const int64_t begin = p.offsets[row], end = p.offsets[row + 1];
  const int64_t count = end - begin + (p.selfLoops ? 1 : 0);
  const int64_t groupWidth = p.width / p.weightWidth;
  const bool linear = p.reduce == Reduce::Sum || p.reduce == Reduce::Mean;
  for (int64_t j = lane; j < p.width; j += kWarp) {
    T *o = p.out + row * p.width + j;
    const int64_t group = j / groupWidth;
    T acc = p.accumulate ? *o : T(0);
    bool first = true;
    // Message m of edge e (or of the self loop): combined as the CPU's
    // linear gather (sum, mean) or reduceMessages (max, min) does.
    auto combine = [&](T m) {
      if (linear)
        acc = add(acc, m);
      else if (first)
        acc = m;
      else if (p.reduce == Reduce::Max)
        acc = m > acc ? m : acc;
      else
        acc = m < acc ? m : acc;
      first = false;
    };
    for (int64_t e = begin; e < end; ++e) {
      const T v = p.x[static_cast<int64_t>(p.sources[e]) * p.width + j];
      combine(p.weight ? mul(p.weight[e * p.weightWidth + group], v) : v);
    }
    if (p.selfLoops)
      combine(p.x[row * p.width + j]);
    if (p.reduce == Reduce::Mean && count > 0)
      acc = mul(acc, T(1) / T(count));
    *o = acc;
  }
}

} // namespace

template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate) {
  if (accumulate && reduce != Reduce::Sum)
    throw std::invalid_argument("aggregate: only a sum can accumulate");
  if (g.numDst == 0 || width == 0)
    return;
  const AggregateArgs<T> args{g.numDst,  g.inOffsets, g.edgeSrc,
                              reduce,    selfLoops,   x,
                              width,     weight,      weight ? weightWidth : 1,
                              accumulate, out};
  const int64_t blocks = (g.numDst + kWarpsPerBlock - 1) / kWarpsPerBlock;
  GNNRT_LAUNCH(static_cast<unsigned>(blocks), kWarp * kWarpsPerBlock, 0, 0,
               aggregateKernel<T>)(args);
  detail::check(cudaGetLastError(), "aggregate launch");
}

template void aggregate<float>(const GraphView &, Reduce, bool, const float *,
                               int64_t, const float *, int64_t, float *, bool);
template void aggregate<double>(const GraphView &, Reduce, bool,
                                const double *, int64_t, const double *,
                                int64_t, double *, bool);

} // namespace gnnrt::kernels::cuda
