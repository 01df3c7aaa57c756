//===- Aggregate.cu - CSR aggregation kernels -----------------------------===//
//
// One warp per destination row: lanes stride over the feature columns, so
// each gathered source row is read with coalesced loads, and the neighbor
// list is walked once per row. Empty rows produce zeros (as PyG's scatter).
//
//===----------------------------------------------------------------------===//
#include "gnnrt/kernels/CudaAggregate.h"

#include <cuda_runtime.h>

#include <cfloat>

namespace gnnrt::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 8;

template <Reduce R>
__global__ void aggregateKernel(int64_t numDst, const int64_t *__restrict__ offsets,
                                const int32_t *__restrict__ sources,
                                int64_t numFeatures, const float *__restrict__ x,
                                float *__restrict__ out) {
  int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  int lane = threadIdx.x % kWarp;
  if (row >= numDst)
    return;
  int64_t begin = offsets[row], end = offsets[row + 1];
  for (int64_t f = lane; f < numFeatures; f += kWarp) {
    float acc = R == Reduce::Max ? -FLT_MAX : 0.0f;
    for (int64_t e = begin; e < end; ++e) {
      float v = x[static_cast<int64_t>(sources[e]) * numFeatures + f];
      acc = R == Reduce::Max ? fmaxf(acc, v) : acc + v;
    }
    if (R == Reduce::Mean && end > begin)
      acc /= static_cast<float>(end - begin);
    if (end == begin)
      acc = 0.0f;
    out[row * numFeatures + f] = acc;
  }
}

/// Frees device buffers on every exit path.
struct DeviceBuffers {
  void *ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
  ~DeviceBuffers() {
    for (void *p : ptrs)
      if (p)
        cudaFree(p);
  }
};

} // namespace

int deviceCount() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string aggregateHost(Reduce reduce, int64_t numDst, const int64_t *offsets,
                          const int32_t *sources, int64_t numEdges,
                          int64_t numSrc, int64_t numFeatures, const float *x,
                          float *out) {
  DeviceBuffers buf;
  size_t offsetBytes = (numDst + 1) * sizeof(int64_t);
  size_t sourceBytes = numEdges * sizeof(int32_t);
  size_t xBytes = numSrc * numFeatures * sizeof(float);
  size_t outBytes = numDst * numFeatures * sizeof(float);
  cudaError_t err = cudaSuccess;
  auto check = [&](cudaError_t e) {
    if (err == cudaSuccess)
      err = e;
    return err == cudaSuccess;
  };
  if (!check(cudaMalloc(&buf.ptrs[0], offsetBytes)) ||
      !check(cudaMalloc(&buf.ptrs[1], sourceBytes > 0 ? sourceBytes : 1)) ||
      !check(cudaMalloc(&buf.ptrs[2], xBytes > 0 ? xBytes : 1)) ||
      !check(cudaMalloc(&buf.ptrs[3], outBytes > 0 ? outBytes : 1)) ||
      !check(cudaMemcpy(buf.ptrs[0], offsets, offsetBytes, cudaMemcpyHostToDevice)) ||
      !check(cudaMemcpy(buf.ptrs[1], sources, sourceBytes, cudaMemcpyHostToDevice)) ||
      !check(cudaMemcpy(buf.ptrs[2], x, xBytes, cudaMemcpyHostToDevice)))
    return cudaGetErrorString(err);
  int threads = kWarp * kWarpsPerBlock;
  int64_t blocks = (numDst + kWarpsPerBlock - 1) / kWarpsPerBlock;
  auto *o = static_cast<const int64_t *>(buf.ptrs[0]);
  auto *s = static_cast<const int32_t *>(buf.ptrs[1]);
  auto *xd = static_cast<const float *>(buf.ptrs[2]);
  auto *od = static_cast<float *>(buf.ptrs[3]);
  if (blocks > 0) {
    switch (reduce) {
    case Reduce::Sum:
      aggregateKernel<Reduce::Sum><<<blocks, threads>>>(numDst, o, s, numFeatures, xd, od);
      break;
    case Reduce::Mean:
      aggregateKernel<Reduce::Mean><<<blocks, threads>>>(numDst, o, s, numFeatures, xd, od);
      break;
    case Reduce::Max:
      aggregateKernel<Reduce::Max><<<blocks, threads>>>(numDst, o, s, numFeatures, xd, od);
      break;
    }
  }
  if (!check(cudaGetLastError()) ||
      !check(cudaMemcpy(out, od, outBytes, cudaMemcpyDeviceToHost)))
    return cudaGetErrorString(err);
  return {};
}

} // namespace gnnrt::cuda
