//===- EdgeTest.cpp - Per-edge CUDA kernels against the CPU's -------------===//
//
// gather, scatter, the edge softmax, degrees and their adjoints on a
// device, against the CPU kernels (gnnrt/kernels/Edge.h) on a ragged block
// (empty destinations, a destination with more in-edges than a block has
// threads, parallel edges) at widths 1 to 257: the same bits in float and
// double, except the softmax, whose exponentials a device computes with
// its own libm (to rounding).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Edge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

const Reduce kAllReduces[] = {Reduce::Sum, Reduce::Mean, Reduce::Max,
                              Reduce::Min};

/// The graph every test runs on, on the host and on the device.
struct EdgeFixture {
  GraphStorage storage = raggedGraph(80, 48, 500, 7);
  GraphView host = storage.view();
  DeviceGraph device{host};
};

template <typename T> void gatherAndGrad(const EdgeFixture &f) {
  const GraphView &g = f.host;
  for (int64_t width : testWidths())
    for (Side side : {Side::Src, Side::Dst}) {
      const std::string what = "width " + std::to_string(width) + " side " +
                               std::to_string(int(side));
      const int64_t rows = side == Side::Src ? g.numSrc : g.numDst;
      const auto x = randomValues<T>(rows * width, 1);
      std::vector<T> expected(size_t(g.numEdges * width));
      kernels::gather(g, side, x.data(), width, expected.data());
      DeviceArray<T> dx(x), out(expected.size());
      kernels::cuda::gather(f.device.view, side, dx.get(), width, out.get());
      expectSameBits(out.toHost(), expected, "gather " + what);

      const auto de = randomValues<T>(g.numEdges * width, 2);
      std::vector<T> expectedGrad(size_t(rows * width));
      kernels::gatherGrad(g, side, de.data(), width, expectedGrad.data());
      DeviceArray<T> dde(de), grad(expectedGrad.size());
      kernels::cuda::gatherGrad(f.device.view, side, dde.get(), width,
                                grad.get());
      expectSameBits(grad.toHost(), expectedGrad, "gatherGrad " + what);
    }
}

TEST(CudaEdge, GatherAndItsAdjointSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const EdgeFixture f;
  gatherAndGrad<float>(f);
  gatherAndGrad<double>(f);
}

template <typename T> void scatterAndGrad(const EdgeFixture &f) {
  const GraphView &g = f.host;
  for (int64_t width : testWidths())
    for (Reduce reduce : kAllReduces) {
      const std::string what = "width " + std::to_string(width) + " reduce " +
                               std::to_string(int(reduce));
      const auto e = randomValues<T>(g.numEdges * width, 3);
      std::vector<T> expected(size_t(g.numDst * width));
      kernels::scatter(g, reduce, e.data(), width, expected.data());
      DeviceArray<T> de(e), out(expected.size());
      kernels::cuda::scatter(f.device.view, reduce, de.get(), width, out.get());
      expectSameBits(out.toHost(), expected, "scatter " + what);

      const auto dy = randomValues<T>(g.numDst * width, 4);
      std::vector<T> expectedGrad(size_t(g.numEdges * width));
      kernels::scatterGrad(g, reduce, dy.data(), e.data(), expected.data(),
                           width, expectedGrad.data());
      DeviceArray<T> ddy(dy), grad(expectedGrad.size());
      kernels::cuda::scatterGrad(f.device.view, reduce, ddy.get(), de.get(),
                                 out.get(), width, grad.get());
      expectSameBits(grad.toHost(), expectedGrad, "scatterGrad " + what);
    }
}

TEST(CudaEdge, ScatterAndItsAdjointSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const EdgeFixture f;
  scatterAndGrad<float>(f);
  scatterAndGrad<double>(f);
}

template <typename T> void softmaxAndGrad(const EdgeFixture &f) {
  const GraphView &g = f.host;
  for (int64_t width : testWidths()) {
    const std::string what = "width " + std::to_string(width);
    const auto s = randomValues<T>(g.numEdges * width, 5, -4, 4);
    std::vector<T> expected(size_t(g.numEdges * width));
    kernels::edgeSoftmax(g, s.data(), width, expected.data());
    DeviceArray<T> ds(s), out(expected.size());
    kernels::cuda::edgeSoftmax(f.device.view, ds.get(), width, out.get());
    expectClose(out.toHost(), expected, tolerance<T>(), "edgeSoftmax " + what);

    const auto dy = randomValues<T>(g.numEdges * width, 6);
    std::vector<T> expectedGrad(expected.size());
    kernels::edgeSoftmaxGrad(g, dy.data(), expected.data(), width,
                             expectedGrad.data());
    DeviceArray<T> ddy(dy), y(expected), grad(expected.size());
    kernels::cuda::edgeSoftmaxGrad(f.device.view, ddy.get(), y.get(), width,
                                   grad.get());
    expectSameBits(grad.toHost(), expectedGrad, "edgeSoftmaxGrad " + what);
  }
}

TEST(CudaEdge, EdgeSoftmaxAndItsAdjointMatchCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const EdgeFixture f;
  softmaxAndGrad<float>(f);
  softmaxAndGrad<double>(f);
}

TEST(CudaEdge, DegreesAreEdgeCounts) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const EdgeFixture f;
  for (Side side : {Side::Src, Side::Dst}) {
    const int64_t n = side == Side::Src ? f.host.numSrc : f.host.numDst;
    DeviceArray<float> out{size_t(n)};
    kernels::cuda::degree(f.device.view, side, out.get());
    const std::vector<float> degrees = out.toHost();
    std::vector<float> expected(size_t(n), 0.0f);
    for (int64_t k = 0; k < f.host.numEdges; ++k)
      expected[side == Side::Src ? f.host.edgeSrc[k] : f.host.edgeDst[k]] += 1;
    expectSameBits(degrees, expected, "degree");
    if (side == Side::Dst) {
      EXPECT_EQ(degrees[0], float(f.host.inOffsets[1])); // the hub: >= 300
    }
  }
}

/// node_type(g, "name"): 1 for the sources whose whole-graph id is in the
/// type's range, from the ids a block or partition passes or the rows
/// themselves.
template <typename T> void nodeTypeIndicators(const EdgeFixture &f) {
  const int64_t n = f.host.numSrc;
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t u = 0; u < n; ++u)
    ids[size_t(u)] = (u * 37 + 11) % 200; // a batch's scattered ids
  const IdRange type{30, 95};
  DeviceArray<int64_t> dIds(ids);
  for (const bool withIds : {true, false}) {
    const std::string what = withIds ? "with ids" : "rows as ids";
    std::vector<T> expected(static_cast<size_t>(n));
    kernels::nodeTypeIndicator<T>(f.host, withIds ? ids.data() : nullptr, type,
                                  expected.data());
    DeviceArray<T> out{size_t(n)};
    kernels::cuda::nodeTypeIndicator<T>(
        f.device.view, withIds ? dIds.get() : nullptr, type, out.get());
    const std::vector<T> column = out.toHost();
    expectSameBits(column, expected, "nodeTypeIndicator " + what);
    for (int64_t u = 0; u < n; ++u) {
      const int64_t id = withIds ? ids[size_t(u)] : u;
      EXPECT_EQ(column[size_t(u)], T(id >= 30 && id < 95))
          << what << " source " << u;
    }
  }
}

TEST(CudaEdge, NodeTypeIndicatorMarksTheTypesIds) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const EdgeFixture f;
  nodeTypeIndicators<float>(f);
  nodeTypeIndicators<double>(f);
}

} // namespace
