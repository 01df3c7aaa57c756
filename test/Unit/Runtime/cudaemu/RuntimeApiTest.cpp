//===- RuntimeApiTest.cpp - The emulated CUDA runtime and cuBLAS ----------===//
//
// What the emulation checks where a device would fault later or not at all
// (a host pointer passed as device memory, a copy past an allocation, a
// destroyed stream), each as the located error a user reads, and that
// cuBLAS GEMM through OpenBLAS computes column-major products as cuBLAS
// does (against a float64 loop).
//
//===----------------------------------------------------------------------===//

#include "cudaemu/StreamWork.h"
#include "kernels/cuda/CudaTestUtil.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using gnnrt::cudatest::DeviceArray;

namespace {

std::string lastMessage(cudaError_t error) {
  cudaGetLastError();
  return cudaGetErrorString(error);
}

TEST(CudaEmulationRuntime, CopiesCheckDirectionAndBounds) {
  float *d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 16), cudaSuccess);
  std::vector<float> host(8, 1.0f);
  // Past the end of the 16-byte allocation.
  EXPECT_EQ(cudaMemcpy(d, host.data(), 20, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("cudaMemcpy(HostToDevice, 20 bytes): the destination "),
            std::string::npos);
  EXPECT_NE(std::string(cudaGetErrorString(cudaErrorInvalidValue))
                .find(" runs 4 bytes past the end of the 16-byte allocation"),
            std::string::npos);
  // A host pointer where device memory belongs, and the reverse.
  std::vector<float> other(8);
  EXPECT_EQ(cudaMemcpy(other.data(), host.data(), 16, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("is not device memory (no cudaMalloc allocation "
                      "holds it)"),
            std::string::npos);
  EXPECT_EQ(cudaMemcpy(d, host.data(), 16, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("is device memory, not host memory"),
            std::string::npos);
  // A good round trip.
  EXPECT_EQ(cudaMemcpy(d, host.data(), 16, cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_EQ(cudaMemcpy(other.data(), d, 16, cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(other[3], 1.0f);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("is not a pointer cudaMalloc returned (or was freed)"),
            std::string::npos);
}

// Zero-copy: a mapped pinned allocation has a device address kernels read;
// one allocated without cudaHostAllocMapped, or plain host memory, has none.
TEST(CudaEmulationRuntime, MappedPinnedMemoryHasADevicePointer) {
  void *mapped = nullptr, *unmapped = nullptr, *device = nullptr;
  ASSERT_EQ(cudaHostAlloc(&mapped, 64, cudaHostAllocMapped), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(&unmapped, 64, cudaHostAllocDefault), cudaSuccess);
  ASSERT_EQ(cudaHostGetDevicePointer(&device, mapped, 0), cudaSuccess);
  EXPECT_EQ(device, mapped);
  EXPECT_EQ(cudaHostGetDevicePointer(&device, unmapped, 0),
            cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("was allocated without cudaHostAllocMapped"),
            std::string::npos);
  std::vector<char> plain(64);
  EXPECT_EQ(cudaHostGetDevicePointer(&device, plain.data(), 0),
            cudaErrorInvalidValue);
  EXPECT_NE(lastMessage(cudaErrorInvalidValue)
                .find("is not a pointer cudaHostAlloc returned"),
            std::string::npos);
  EXPECT_EQ(cudaHostGetDevicePointer(&device, mapped, 1),
            cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFreeHost(mapped), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(unmapped), cudaSuccess);
}

TEST(CudaEmulationRuntime, StreamsAndEventsAreCheckedHandles) {
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  DeviceArray<int> d(4);
  const std::vector<int> host = {1, 2, 3, 4};
  EXPECT_EQ(cudaEventRecord(start, stream), cudaSuccess);
  EXPECT_EQ(
      cudaMemcpyAsync(d.get(), host.data(), 16, cudaMemcpyHostToDevice, stream),
      cudaSuccess);
  EXPECT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(d.toHost()[3], 4);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(
      cudaMemcpyAsync(d.get(), host.data(), 16, cudaMemcpyHostToDevice, stream),
      cudaErrorInvalidResourceHandle);
  EXPECT_NE(lastMessage(cudaErrorInvalidResourceHandle)
                .find("cudaMemcpyAsync: the stream was destroyed or never "
                      "created"),
            std::string::npos);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
}

// The NCCL stand-in's collectives complete later, as a device's do: until
// its work is done a stream is not, nor any event recorded after it, nor a
// stream made to wait for such an event; work behind it does not start.
TEST(CudaEmulationRuntime, WorkThatCompletesLaterHoldsItsStreamAndEvents) {
  cudaStream_t stream, other;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  cudaEvent_t before, after;
  ASSERT_EQ(cudaEventCreate(&before), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&after), cudaSuccess);
  EXPECT_EQ(cudaEventRecord(before, stream), cudaSuccess);
  bool peerArrived = false, nextStarted = false;
  gnnrt::cudaemu::enqueueStreamWork(stream, [&] { return peerArrived; });
  gnnrt::cudaemu::enqueueStreamWork(stream, [&] {
    nextStarted = true;
    return true;
  });
  EXPECT_EQ(cudaEventRecord(after, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(other, after, 0), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(before), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(after), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(other), cudaErrorNotReady);
  EXPECT_FALSE(nextStarted);
  peerArrived = true;
  EXPECT_EQ(cudaEventQuery(after), cudaSuccess);
  EXPECT_TRUE(nextStarted);
  EXPECT_EQ(cudaStreamQuery(other), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "not ready is no error";
  EXPECT_EQ(cudaEventDestroy(before), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(after), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

TEST(CudaEmulationRuntime, CublasGemmIsColumnMajor) {
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  // C (m x n) = A^T (A stored k x m) * B (k x n), column-major.
  const int m = 5, n = 3, k = 4;
  const auto a = gnnrt::cudatest::randomValues<double>(k * m, 1);
  const auto b = gnnrt::cudatest::randomValues<double>(k * n, 2);
  DeviceArray<double> da(a), db(b), dc(size_t(m * n));
  const double one = 1, zero = 0;
  ASSERT_EQ(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one,
                        da.get(), k, db.get(), k, &zero, dc.get(), m),
            CUBLAS_STATUS_SUCCESS);
  const std::vector<double> c = dc.toHost();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double expected = 0;
      for (int l = 0; l < k; ++l)
        expected += a[size_t(i * k + l)] * b[size_t(j * k + l)];
      EXPECT_NEAR(c[size_t(j * m + i)], expected, 1e-12);
    }
  // cuBLAS's argument checks, and the emulation's check of the matrices.
  EXPECT_EQ(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one,
                        da.get(), k - 1, db.get(), k, &zero, dc.get(), m),
            CUBLAS_STATUS_INVALID_VALUE);
  std::vector<double> hostC(size_t(m * n));
  EXPECT_EQ(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one,
                        da.get(), k, db.get(), k, &zero, hostC.data(), m),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS);
}

} // namespace
