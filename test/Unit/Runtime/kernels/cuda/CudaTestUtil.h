//===- CudaTestUtil.h - What the CUDA kernel tests share --------*- C++ -*-===//
//
// The CUDA kernel tests compile twice: natively into RuntimeTests (they skip
// without a device) and over the emulation layer into CudaEmulatedTests and
// CudaEmulatedAsanTests, where the emulated device always exists. They hold
// device copies of host data in DeviceArray, graphs in DeviceGraph, and
// build graphs with the shapes the kernels must get right: ragged and empty
// rows, and a row longer than a block of threads.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_KERNELS_CUDA_CUDATESTUTIL_H
#define GNNRT_TEST_KERNELS_CUDA_CUDATESTUTIL_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Device.h"
#include "gnnrt/support/Random.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(GNNRT_CUDA_EMULATION) && defined(_OPENMP)
#include <omp.h>
#endif

namespace gnnrt::cudatest {

#if defined(GNNRT_CUDA_EMULATION) && defined(_OPENMP)
/// The emulated device runs on the test's one host thread; the OpenMP
/// workers of the CPU reference kernels would only spin beside it, taking
/// the cores it needs (their results do not depend on the thread count).
inline const bool kReferenceKernelsSingleThreaded = [] {
  omp_set_num_threads(1);
  return true;
}();
#endif

#if defined(GNNRT_CUDA_EMULATION) && defined(__SANITIZE_ADDRESS__)
/// The AddressSanitizer build runs the threads of each block in the other
/// order (gnnrt/cudaemu/Launch.h): every kernel test passes under two
/// schedules, which a shared-memory race would not.
inline const bool kReverseThreadOrder = [] {
  cudaemu::setThreadOrder(cudaemu::ThreadOrder::Reverse);
  return true;
}();
#endif

#define GNNRT_REQUIRE_CUDA_DEVICE()                                            \
  if (::gnnrt::kernels::cuda::deviceCount() == 0)                              \
  GTEST_SKIP() << "no CUDA device"

/// A device array, freed at scope exit; from host values or zeroed.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(size_t n) : n(n) {
    EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemset(ptr, 0, n * sizeof(T)), cudaSuccess);
  }
  explicit DeviceArray(const std::vector<T> &host) : n(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice),
        cudaSuccess);
  }
  template <typename U>
  DeviceArray(const U *host, size_t n)
      : DeviceArray(std::vector<T>(host, host + n)) {}
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  T *get() const { return ptr; }
  size_t size() const { return n; }
  std::vector<T> toHost() const {
    std::vector<T> host(n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost),
        cudaSuccess);
    return host;
  }

private:
  size_t n;
  T *ptr = nullptr;
};

/// A device copy of every array of a host GraphView.
class DeviceGraph {
public:
  explicit DeviceGraph(const GraphView &g)
      : inOffsets(g.inOffsets, size_t(g.numDst + 1)),
        edgeSrc(g.edgeSrc, size_t(g.numEdges)),
        edgeDst(g.edgeDst, size_t(g.numEdges)),
        outOffsets(g.outOffsets, size_t(g.numSrc + 1)),
        outEdges(g.outEdges, size_t(g.numEdges)), outDst(outDstOf(g)) {
    view = g;
    view.inOffsets = inOffsets.get();
    view.edgeSrc = edgeSrc.get();
    view.edgeDst = edgeDst.get();
    view.outOffsets = outOffsets.get();
    view.outEdges = outEdges.get();
    view.outDst = outDst.get();
  }
  GraphView view;

private:
  static std::vector<int32_t> outDstOf(const GraphView &g) {
    std::vector<int32_t> d(size_t(g.numEdges));
    for (int64_t i = 0; i < g.numEdges; ++i)
      d[i] = g.edgeDst[g.outEdges[i]];
    return d;
  }
  DeviceArray<int64_t> inOffsets;
  DeviceArray<int32_t> edgeSrc, edgeDst;
  DeviceArray<int64_t> outOffsets, outEdges;
  DeviceArray<int32_t> outDst;
};

/// A block (numSrc >= numDst) with ragged rows: destination 0 has more
/// in-edges (300) than a block has threads, the last eighth of the
/// destinations have none, and sources repeat (parallel edges).
inline GraphStorage raggedGraph(int64_t numSrc, int64_t numDst, int64_t m,
                                uint64_t seed) {
  CounterRng rng(seed, 9);
  std::vector<int64_t> src, dst;
  for (int64_t e = 0; e < 300; ++e) {
    src.push_back(rng.nextBelow(uint32_t(numSrc)));
    dst.push_back(0);
  }
  const int64_t filled = numDst - numDst / 8;
  for (int64_t e = 0; e < m; ++e) {
    src.push_back(rng.nextBelow(uint32_t(numSrc)));
    // Squared: low ids get many edges, high ids few.
    const double u = rng.nextUniform();
    dst.push_back(std::min<int64_t>(filled - 1, int64_t(u * u * filled)));
  }
  return GraphStorage::build(numSrc, numDst, src, dst);
}

/// n values uniform in [lo, hi) as T.
template <typename T>
std::vector<T> randomValues(int64_t n, uint64_t seed, double lo = -1,
                            double hi = 1) {
  CounterRng rng(seed, 3);
  std::vector<T> v(static_cast<size_t>(n));
  for (T &x : v)
    x = T(lo + (hi - lo) * rng.nextUniform());
  return v;
}

/// The widths the tests sweep: 1 to 257, the warp and block edges among
/// them, and 513 (past the aggregations' rows in registers, Messages.h). Under
/// AddressSanitizer, which looks for memory errors rather than wrong values and
/// runs several times slower, only the edges.
inline std::vector<int64_t> testWidths() {
#if defined(__SANITIZE_ADDRESS__)
  return {1, 31, 33, 257};
#else
  return {1, 2, 3, 7, 16, 31, 32, 33, 64, 100, 128, 255, 256, 257, 513};
#endif
}

} // namespace gnnrt::cudatest

#endif // GNNRT_TEST_KERNELS_CUDA_CUDATESTUTIL_H
