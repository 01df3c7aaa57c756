//===- SchedulerTest.cu - The emulation runs CUDA as a device would -------===//
//
// Kernels written here as CUDA, compiled by the host compiler over the
// emulation layer (only there: they test the emulation itself). Correct
// kernels check what the built-ins, __shared__, barriers, warp shuffles,
// votes and atomics compute; deliberately wrong ones check that the
// emulation reports them: a barrier that some threads skip, a warp
// collective a lane never reaches, a shuffle from a lane outside the mask,
// and (in the AddressSanitizer build) an out-of-bounds read of device
// memory.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Launch.h"
#include "kernels/cuda/CudaTestUtil.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

using gnnrt::cudatest::DeviceArray;

namespace {

/// The last error's code and text, cleared (and the sticky error reset) for
/// the next test.
struct LaunchResult {
  cudaError_t error;
  std::string message;
};
LaunchResult lastLaunch() {
  const cudaError_t error = cudaGetLastError();
  LaunchResult r{error, cudaGetErrorString(error)};
  cudaDeviceReset();
  return r;
}

//===--- Correct kernels --------------------------------------------------===//

__global__ void writeIndices(unsigned *out) {
  const unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned perBlock = blockDim.x * blockDim.y * blockDim.z;
  out[block * perBlock + thread] = block * 1000 + thread;
}

TEST(CudaEmulation, BuiltinsNumberEveryThreadOfA3dGrid) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const unsigned n = 12 * 24;
  DeviceArray<unsigned> out(n);
  GNNRT_LAUNCH(grid, block, 0, 0, writeIndices)(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned> host = out.toHost();
  for (unsigned b = 0; b < 12; ++b)
    for (unsigned t = 0; t < 24; ++t)
      EXPECT_EQ(host[b * 24 + t], b * 1000 + t);
}

/// Block sums through shared memory: a tree with a barrier per level.
__global__ void blockSum(const int *x, int n, int *sums) {
  __shared__ int partial[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = partial[0];
}

TEST(CudaEmulation, BarriersOrderSharedMemory) {
  const int n = 1000;
  std::vector<int> x(n);
  std::iota(x.begin(), x.end(), 1);
  DeviceArray<int> dx(x), sums(4);
  GNNRT_LAUNCH(4, 256, 0, 0, blockSum)(dx.get(), n, sums.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> host = sums.toHost();
  for (int b = 0; b < 4; ++b) {
    int expected = 0;
    for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i)
      expected += x[i];
    EXPECT_EQ(host[b], expected) << "block " << b;
  }
}

/// Per lane: the warp's sum by xor butterfly, a broadcast of lane 5, the
/// inclusive prefix sum by shuffles up, the value of the lane below
/// (shuffle down within sections of 8), and ballot/any/all of odd lanes.
__global__ void warpOps(const float *x, float *sum, float *lane5, int *prefix,
                        float *down8, unsigned *ballot, int *any, int *all) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = x[i];
  for (int offset = 16; offset > 0; offset /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, offset);
  sum[i] = s;
  lane5[i] = __shfl_sync(0xffffffffu, x[i], 5);
  int p = int(lane) + 1;
  for (int offset = 1; offset < 32; offset *= 2) {
    const int below = __shfl_up_sync(0xffffffffu, p, offset);
    if (int(lane) >= offset)
      p += below;
  }
  prefix[i] = p;
  down8[i] = __shfl_down_sync(0xffffffffu, x[i], 1, 8);
  ballot[i] = __ballot_sync(0xffffffffu, lane % 2 == 1);
  any[i] = __any_sync(0xffffffffu, lane == 31);
  all[i] = __all_sync(0xffffffffu, lane % 2 == 1);
}

TEST(CudaEmulation, WarpShufflesAndVotes) {
  const int n = 64;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i * i % 17);
  DeviceArray<float> dx(x), sum(n), lane5(n), down8(n);
  DeviceArray<int> prefix(n), any(n), all(n);
  DeviceArray<unsigned> ballot(n);
  GNNRT_LAUNCH(1, 64, 0, 0, warpOps)
  (dx.get(), sum.get(), lane5.get(), prefix.get(), down8.get(), ballot.get(),
   any.get(), all.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto hSum = sum.toHost(), hLane5 = lane5.toHost(),
             hDown8 = down8.toHost();
  const auto hPrefix = prefix.toHost(), hAny = any.toHost(),
             hAll = all.toHost();
  const auto hBallot = ballot.toHost();
  for (int i = 0; i < n; ++i) {
    const int warp = i / 32, lane = i % 32;
    float expectedSum = 0;
    for (int l = 0; l < 32; ++l)
      expectedSum += x[warp * 32 + l];
    EXPECT_EQ(hSum[i], expectedSum) << i;
    EXPECT_EQ(hLane5[i], x[warp * 32 + 5]) << i;
    EXPECT_EQ(hPrefix[i], (lane + 1) * (lane + 2) / 2) << i;
    EXPECT_EQ(hDown8[i], lane % 8 == 7 ? x[i] : x[i + 1]) << i;
    EXPECT_EQ(hBallot[i], 0xaaaaaaaau) << i;
    EXPECT_EQ(hAny[i], 1) << i;
    EXPECT_EQ(hAll[i], 0) << i;
  }
}

__global__ void atomics(float *fsum, int *isum, int *imax, unsigned *cas,
                        int *swaps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(fsum, 0.5f);
  atomicAdd(isum, i);
  atomicMax(imax, (i * 37) % 1000);
  // Only the first thread to find 0 (whichever it is) swaps in its id + 1.
  if (atomicCAS(cas, 0u, unsigned(i) + 1) == 0u)
    atomicAdd(swaps, 1);
}

TEST(CudaEmulation, AtomicsSeeEveryThread) {
  DeviceArray<float> fsum(1);
  DeviceArray<int> isum(1), imax(1), swaps(1);
  DeviceArray<unsigned> cas(1);
  GNNRT_LAUNCH(8, 128, 0, 0, atomics)
  (fsum.get(), isum.get(), imax.get(), cas.get(), swaps.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(fsum.toHost()[0], 512.0f);
  EXPECT_EQ(isum.toHost()[0], 1023 * 1024 / 2);
  int expectedMax = 0;
  for (int i = 0; i < 1024; ++i)
    expectedMax = std::max(expectedMax, (i * 37) % 1000);
  EXPECT_EQ(imax.toHost()[0], expectedMax);
  EXPECT_EQ(swaps.toHost()[0], 1);
  EXPECT_GE(cas.toHost()[0], 1u);
  EXPECT_LE(cas.toHost()[0], 1024u);
}

//===--- Deliberately wrong kernels ---------------------------------------===//

constexpr int kEarlyReturnBarrierLine = __LINE__ + 9;
/// The classic bug: threads past the end return before a barrier the others
/// wait at.
__global__ void earlyReturn(const float *x, int n, float *out) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  tile[threadIdx.x] = x[i];
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

TEST(CudaEmulation, ReportsABarrierSomeThreadsSkip) {
  DeviceArray<float> x(100), out(100);
  GNNRT_LAUNCH(1, 128, 0, 0, earlyReturn)(x.get(), 100, out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorLaunchFailure);
  EXPECT_EQ(r.message,
            "unspecified launch failure (emulated: kernel 'earlyReturn' block "
            "(0,0,0) of (1,1,1): __syncthreads() at SchedulerTest.cu:" +
                std::to_string(kEarlyReturnBarrierLine) +
                " reached by 100 of 128 threads; threads 100-127 exited "
                "without reaching it)");
}

TEST(CudaEmulation, AKernelLaunchedWithoutBarriersRunsEveryThread) {
  const dim3 grid(3, 2, 1), block(8, 4, 1);
  const unsigned n = 6 * 32;
  DeviceArray<unsigned> out(n);
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, block, 0, 0, writeIndices)(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned> host = out.toHost();
  for (unsigned b = 0; b < 6; ++b)
    for (unsigned t = 0; t < 32; ++t)
      ASSERT_EQ(host[b * 32 + t], b * 1000 + t)
          << "block " << b << " thread " << t;
}

TEST(CudaEmulation, ReportsABarrierInAKernelLaunchedWithoutBarriers) {
  // The promise is broken: the launch fails at the first thread that
  // reaches the barrier, naming it, rather than hanging or running on.
  DeviceArray<float> x(100), out(100);
  GNNRT_LAUNCH_WITHOUT_BARRIERS(1, 128, 0, 0, earlyReturn)
  (x.get(), 100, out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorLaunchFailure);
  EXPECT_EQ(r.message,
            "unspecified launch failure (emulated: kernel 'earlyReturn' block "
            "(0,0,0): thread " +
                std::string(gnnrt::cudaemu::threadOrder() ==
                                    gnnrt::cudaemu::ThreadOrder::Reverse
                                ? "99"
                                : "0") +
                " reached __syncthreads() at SchedulerTest.cu:" +
                std::to_string(kEarlyReturnBarrierLine) +
                ", but the kernel was launched without barriers "
                "(GNNRT_LAUNCH_WITHOUT_BARRIERS): launch it with "
                "GNNRT_LAUNCH)");
}

constexpr int kFirstBarrierLine = __LINE__ + 4;
/// Two barriers in the two branches of a divergent if.
__global__ void divergentBarriers(int *out) {
  if (threadIdx.x < 16)
    __syncthreads();
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}

TEST(CudaEmulation, ReportsThreadsAtDifferentBarriers) {
  DeviceArray<int> out(32);
  GNNRT_LAUNCH(2, 32, 0, 0, divergentBarriers)(out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorLaunchFailure);
  EXPECT_NE(r.message.find(
                "kernel 'divergentBarriers' block (0,0,0) of (2,1,1): its "
                "threads wait at different __syncthreads(): SchedulerTest.cu:" +
                std::to_string(kFirstBarrierLine) +
                " (threads 0-15) "
                "SchedulerTest.cu:" +
                std::to_string(kFirstBarrierLine + 2) + " (threads 16-31)"),
            std::string::npos)
      << r.message;
}

/// A warp reduction that lanes past the end of the row skip.
__global__ void partialWarpShuffle(const float *x, int n, float *out) {
  const int lane = threadIdx.x;
  if (lane >= n)
    return;
  float v = x[lane];
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  out[lane] = v;
}

TEST(CudaEmulation, ReportsAShuffleALaneNeverReaches) {
  DeviceArray<float> x(32), out(32);
  GNNRT_LAUNCH(1, 32, 0, 0, partialWarpShuffle)(x.get(), 20, out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorLaunchFailure);
  EXPECT_NE(r.message.find("kernel 'partialWarpShuffle' block (0,0,0) of "
                           "(1,1,1): __shfl_xor_sync at SchedulerTest.cu:"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("with mask 0xffffffff waits for lane 20 of warp 0 "
                           "(thread 20), which exited without reaching it"),
            std::string::npos)
      << r.message;
}

/// Lanes 0-15 shuffle among themselves but read lane 16.
__global__ void shuffleOutsideMask(float *out) {
  if (threadIdx.x < 16)
    out[threadIdx.x] = __shfl_sync(0x0000ffffu, 1.0f, 16);
}

TEST(CudaEmulation, ReportsAShuffleFromALaneOutsideTheMask) {
  DeviceArray<float> out(32);
  GNNRT_LAUNCH(1, 32, 0, 0, shuffleOutsideMask)(out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorLaunchFailure);
  EXPECT_NE(r.message.find("lane 0 of warp 0 (thread 0) reads lane 16, which "
                           "is not in the mask 0x0000ffff"),
            std::string::npos)
      << r.message;
}

TEST(CudaEmulation, AFailedLaunchIsStickyUntilReset) {
  DeviceArray<float> x(100), out(100);
  GNNRT_LAUNCH(1, 128, 0, 0, earlyReturn)(x.get(), 100, out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(CudaEmulation, RejectsABadConfiguration) {
  DeviceArray<unsigned> out(1);
  GNNRT_LAUNCH(1, 2048, 0, 0, writeIndices)(out.get());
  const LaunchResult r = lastLaunch();
  EXPECT_EQ(r.error, cudaErrorInvalidConfiguration);
  EXPECT_EQ(r.message, "invalid configuration argument (emulated: kernel "
                       "'writeIndices': block (2048,1,1) (at most "
                       "(1024,1024,64) and 1024 threads, none 0))");
}

/// Each thread reads the value its neighbour wrote to shared memory, but
/// the barrier between the write and the read is missing: a race.
__global__ void missingBarrier(const int *x, int *out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = x[threadIdx.x];
  // __syncthreads() belongs here.
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

TEST(CudaEmulation, TheTwoThreadOrdersExposeAMissingBarrier) {
  std::vector<int> x(64);
  std::iota(x.begin(), x.end(), 100);
  auto run = [&](gnnrt::cudaemu::ThreadOrder order) {
    const gnnrt::cudaemu::ThreadOrder saved = gnnrt::cudaemu::threadOrder();
    gnnrt::cudaemu::setThreadOrder(order);
    DeviceArray<int> zeros(64), dx(x), out(64);
    // Shared memory keeps what the last block left: start from zeros.
    GNNRT_LAUNCH(1, 64, 0, 0, missingBarrier)(zeros.get(), out.get());
    GNNRT_LAUNCH(1, 64, 0, 0, missingBarrier)(dx.get(), out.get());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    gnnrt::cudaemu::setThreadOrder(saved);
    return out.toHost();
  };
  // Forward, thread t reads tile[t + 1] before thread t + 1 writes it;
  // reversed, after. (Thread 63 reads tile[0], the other way round.)
  const std::vector<int> forward = run(gnnrt::cudaemu::ThreadOrder::Forward);
  const std::vector<int> reverse = run(gnnrt::cudaemu::ThreadOrder::Reverse);
  for (int t = 0; t < 63; ++t) {
    EXPECT_EQ(reverse[t], x[t + 1]) << t;
    EXPECT_EQ(forward[t], 0) << t;
  }
}

#if defined(__SANITIZE_ADDRESS__)
/// Reads one element past the end of x.
__global__ void readPastTheEnd(const float *x, int n, float *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) // should be i < n
    out[0] += x[i];
}

void launchReadPastTheEnd() {
  DeviceArray<float> x(50), out(1);
  GNNRT_LAUNCH(1, 64, 0, 0, readPastTheEnd)(x.get(), 50, out.get());
}
#endif

TEST(CudaEmulation, AddressSanitizerCatchesAnOutOfBoundsRead) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(launchReadPastTheEnd(), "heap-buffer-overflow.*READ of size 4");
#else
  GTEST_SKIP() << "out-of-bounds reads are caught in the AddressSanitizer "
                  "build (CudaEmulatedAsanTests)";
#endif
}

} // namespace
