//===- WorkspaceTest.cpp - Device workspace and streams -------------------===//
//
// The device workspace carves gnnc's memory-plan slots out of one
// allocation and never allocates for a plan that fits; kernels queue on
// the stream a StreamScope makes current.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Workspace.h"

#include "CudaTestUtil.h"
#include "gnnrt/kernels/cuda/Kernels.h"
#include "gnnrt/kernels/cuda/Stream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

TEST(CudaWorkspace, OneAllocationHoldsEverySlot) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  kernels::cuda::DeviceWorkspace ws;
  ws.plan({1000, 4, 0, 4096});
  EXPECT_EQ(ws.allocations(), 1);
  EXPECT_EQ(ws.bytes(), 1024 + 256 + 0 + 4096);
  float *a = ws.get<float>(0, 250);
  int64_t *b = ws.get<int64_t>(3, 512);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<char *>(b) - reinterpret_cast<char *>(a),
            1024 + 256);
  // Steps with a plan that fits (a smaller batch) allocate nothing.
  for (int step = 0; step < 5; ++step)
    ws.plan({900, 4, 0, 4000});
  EXPECT_EQ(ws.allocations(), 1);
  ws.plan({8000});
  EXPECT_EQ(ws.allocations(), 2);
  EXPECT_EQ(ws.bytes(), 8192); // 8000 rounded up to 256 bytes
}

TEST(CudaWorkspace, ASlotSmallerThanAskedIsAnError) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  kernels::cuda::DeviceWorkspace ws;
  ws.plan({400});
  try {
    ws.get<float>(0, 101);
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range &e) {
    EXPECT_STREQ(e.what(), "DeviceWorkspace: slot 0 of 404 bytes, but the "
                           "plan has 400 bytes for it");
  }
  EXPECT_THROW(ws.get<float>(1, 1), std::out_of_range);
}

TEST(CudaStream, KernelsRunOnTheCurrentStream) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage storage = raggedGraph(20, 10, 50, 3);
  const DeviceGraph g(storage.view());
  kernels::cuda::Stream stream;
  EXPECT_EQ(kernels::cuda::currentStream(), nullptr);
  DeviceArray<float> degrees(10);
  {
    kernels::cuda::StreamScope scope(stream);
    EXPECT_EQ(kernels::cuda::currentStream(), stream.get());
    kernels::cuda::degree(g.view, Side::Dst, degrees.get());
    stream.synchronize();
  }
  EXPECT_EQ(kernels::cuda::currentStream(), nullptr);
  EXPECT_EQ(degrees.toHost()[0], float(storage.view().inOffsets[1]));
}

} // namespace
