//===- AggregateTest.cpp - CUDA aggregation against the CPU kernel --------===//
//
// kernels::cuda::aggregate implements the declaration of
// gnnrt/kernels/Aggregate.h on a device: these tests compare it with a
// float64 host loop (to rounding) and with the CPU kernel (bit for bit,
// which Aggregate.h's order of operations promises) for every reduction,
// with and without weights and self loops, and the adjoints against the
// CPU's on ragged rows, empty rows, a row longer than a block and widths 1
// to 257; in a bf16 run (GatherStorage.h) the same against the CPU's bf16
// gathers. Natively the tests that launch kernels skip when no device is
// visible; over the emulation (CudaEmulatedTests) they always run.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/Device.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/support/Random.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

/// A random multigraph with self edges, parallel edges and (with 4000
/// edges over 300 nodes, a few) nodes without in-edges.
struct TestGraph {
  static constexpr int64_t kNodes = 300, kEdges = 4000;
  GraphStorage storage;
  std::vector<int64_t> inOffsets;
  std::vector<int32_t> edgeSrc;

  TestGraph() {
    std::vector<int64_t> src, dst;
    CounterRng rng(7, 0);
    for (int64_t e = 0; e < kEdges; ++e) {
      src.push_back(int64_t(rng.nextBelow(kNodes)));
      dst.push_back(int64_t(rng.nextBelow(kNodes)));
    }
    // Node 0 receives nothing: an empty row.
    for (int64_t &d : dst)
      if (d == 0)
        d = 1;
    storage = GraphStorage::build(kNodes, kNodes, src, dst);
    const GraphView g = storage.view();
    inOffsets.assign(g.inOffsets, g.inOffsets + g.numDst + 1);
    edgeSrc.assign(g.edgeSrc, g.edgeSrc + g.numEdges);
  }
};

/// cuda::aggregate on device copies of the inputs; `out` holds out's
/// initial rows (what accumulate adds to) and receives the result.
template <typename T>
void runOnDevice(const TestGraph &tg, Reduce reduce, bool selfLoops,
                 const std::vector<T> &x, int64_t width,
                 const std::vector<T> *weight, int64_t weightWidth,
                 bool accumulate, std::vector<T> &out) {
  DeviceArray<int64_t> offsets(tg.inOffsets);
  DeviceArray<int32_t> sources(tg.edgeSrc);
  DeviceArray<T> dx(x), dout(out);
  std::unique_ptr<DeviceArray<T>> dweight;
  if (weight)
    dweight = std::make_unique<DeviceArray<T>>(*weight);
  GraphView g;
  g.numSrc = g.numDst = TestGraph::kNodes;
  g.numEdges = int64_t(tg.edgeSrc.size());
  g.inOffsets = offsets.get();
  g.edgeSrc = sources.get();
  kernels::cuda::aggregate(g, reduce, selfLoops, dx.get(), width,
                           dweight ? dweight->get() : nullptr, weightWidth,
                           dout.get(), accumulate);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  out = dout.toHost();
}

const Reduce kAllReduces[] = {Reduce::Sum, Reduce::Mean, Reduce::Max,
                              Reduce::Min};

TEST(CudaAggregate, MatchesFloat64Reference) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const TestGraph tg;
  const int64_t n = TestGraph::kNodes, f = 37;
  const std::vector<float> x = randomValues<float>(n * f, 1);
  for (Reduce reduce : kAllReduces) {
    std::vector<float> out(size_t(n * f));
    runOnDevice<float>(tg, reduce, /*selfLoops=*/false, x, f, nullptr, 1,
                       /*accumulate=*/false, out);
    for (int64_t v = 0; v < n; ++v)
      for (int64_t c = 0; c < f; ++c) {
        const int64_t begin = tg.inOffsets[v], end = tg.inOffsets[v + 1];
        double acc =
            reduce == Reduce::Max   ? -std::numeric_limits<double>::infinity()
            : reduce == Reduce::Min ? std::numeric_limits<double>::infinity()
                                    : 0.0;
        for (int64_t e = begin; e < end; ++e) {
          const double xv = x[tg.edgeSrc[e] * f + c];
          acc = reduce == Reduce::Max   ? std::max(acc, xv)
                : reduce == Reduce::Min ? std::min(acc, xv)
                                        : acc + xv;
        }
        if (reduce == Reduce::Mean && end > begin)
          acc /= double(end - begin);
        if (end == begin)
          acc = 0;
        EXPECT_NEAR(out[v * f + c], acc, 1e-4)
            << "reduce " << int(reduce) << " row " << v << " col " << c;
      }
  }
}

/// Every reduction, with and without self loops, unweighted, one weight
/// per edge and four weight groups, and a sum accumulating into out: the
/// device result equals the CPU kernel's bit for bit.
template <typename T> void expectSameBitsAsCpu() {
  const TestGraph tg;
  const GraphView cpuGraph = tg.storage.view();
  const int64_t n = TestGraph::kNodes, width = 40;
  const std::vector<T> x = randomValues<T>(n * width, 2);
  const std::vector<T> initial = randomValues<T>(n * width, 3);
  for (int64_t weightWidth : {int64_t(0), int64_t(1), int64_t(4)}) {
    const std::vector<T> weight = randomValues<T>(
        TestGraph::kEdges * std::max<int64_t>(1, weightWidth), 4);
    const std::vector<T> *w = weightWidth ? &weight : nullptr;
    for (Reduce reduce : kAllReduces)
      for (bool selfLoops : {false, true})
        for (bool accumulate : {false, true}) {
          if (accumulate && reduce != Reduce::Sum)
            continue;
          std::vector<T> expected = initial, actual = initial;
          kernels::aggregate(cpuGraph, reduce, selfLoops, x.data(), width,
                             w ? w->data() : nullptr, weightWidth,
                             expected.data(), accumulate);
          runOnDevice(tg, reduce, selfLoops, x, width, w, weightWidth,
                      accumulate, actual);
          EXPECT_EQ(std::memcmp(expected.data(), actual.data(),
                                expected.size() * sizeof(T)),
                    0)
              << "reduce " << int(reduce) << " selfLoops " << selfLoops
              << " weightWidth " << weightWidth << " accumulate " << accumulate
              << ": first difference at "
              << (std::mismatch(expected.begin(), expected.end(),
                                actual.begin())
                      .first -
                  expected.begin());
        }
  }
}

TEST(CudaAggregate, SameBitsAsCpuFloat) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  expectSameBitsAsCpu<float>();
}

TEST(CudaAggregate, SameBitsAsCpuDouble) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  expectSameBitsAsCpu<double>();
}

// The argument check comes before any CUDA call, so it runs without a
// device too.
TEST(CudaAggregate, OnlySumAccumulates) {
  GraphView g;
  float x = 0, out = 0;
  try {
    kernels::cuda::aggregate(g, Reduce::Max, false, &x, 1,
                             (const float *)nullptr, 1, &out,
                             /*accumulate=*/true);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "aggregate: only a sum can accumulate");
  }
}

//===--- Ragged rows, every width, and the adjoints -----------------------===//

/// One configuration of aggregate: the widths 1..257 with every reduction
/// (self loops and one weight per edge), and every combination of self
/// loops and weights (none, one per edge, two groups) at two widths.
struct AggregateCase {
  int64_t width;
  Reduce reduce;
  bool selfLoops;
  int64_t weightWidth; // 0: unweighted
  std::string name() const {
    return "width " + std::to_string(width) + " reduce " +
           std::to_string(int(reduce)) + " selfLoops " +
           std::to_string(selfLoops) + " weightWidth " +
           std::to_string(weightWidth);
  }
};

std::vector<AggregateCase> aggregateCases(bool everyWidth = true) {
  std::vector<AggregateCase> cases;
  for (int64_t width : testWidths())
    for (Reduce reduce : kAllReduces)
      if (everyWidth)
        cases.push_back({width, reduce, true, 1});
  for (int64_t width : {int64_t(6), int64_t(66)})
    for (Reduce reduce : kAllReduces)
      for (bool selfLoops : {false, true})
        for (int64_t weightWidth : {0, 1, 2})
          cases.push_back({width, reduce, selfLoops, weightWidth});
  return cases;
}

/// Runs `cpu` and `gpu` (each filling its output from the same inputs) for
/// every case on a ragged block and compares: bits where `sameBits`, else
/// to rounding.
template <typename T, typename Run>
void compareWithCpu(bool sameBits, Run run, bool everyWidth = true) {
  const GraphStorage storage = raggedGraph(96, 64, 700, 5);
  const GraphView host = storage.view();
  const DeviceGraph device(host);
  for (const AggregateCase &c : aggregateCases(everyWidth)) {
    const std::vector<T> x = randomValues<T>(host.numSrc * c.width, 1);
    const std::vector<T> dy = randomValues<T>(host.numDst * c.width, 2);
    const std::vector<T> weight = randomValues<T>(
        host.numEdges * std::max<int64_t>(1, c.weightWidth), 3, 0.5, 2);
    std::vector<T> out(size_t(host.numDst * c.width));
    kernels::aggregate(host, c.reduce, c.selfLoops, x.data(), c.width,
                       c.weightWidth ? weight.data() : nullptr, c.weightWidth,
                       out.data());
    std::vector<T> expected, actual;
    run(host, device.view, c, x, dy, weight, out, expected, actual);
    if (sameBits)
      expectSameBits(actual, expected, c.name());
    else
      expectClose(actual, expected, tolerance<T>(), c.name());
  }
}

TEST(CudaAggregate, RaggedRowsAndEveryWidthSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  compareWithCpu<float>(true, [](const GraphView &host, const GraphView &dev,
                                 const AggregateCase &c, const auto &x,
                                 const auto &, const auto &weight,
                                 const auto &out, auto &expected,
                                 auto &actual) {
    expected = out;
    DeviceArray<float> dx(x), dw(weight), dout(out.size());
    kernels::cuda::aggregate(dev, c.reduce, c.selfLoops, dx.get(), c.width,
                             c.weightWidth ? dw.get() : nullptr, c.weightWidth,
                             dout.get());
    actual = dout.toHost();
  });
}

template <typename T> void gradInputCase(bool sameBits) {
  compareWithCpu<T>(sameBits, [](const GraphView &host, const GraphView &dev,
                                 const AggregateCase &c, const auto &x,
                                 const auto &dy, const auto &weight,
                                 const auto &out, auto &expected,
                                 auto &actual) {
    const T *w = c.weightWidth ? weight.data() : nullptr;
    expected.assign(size_t(host.numSrc * c.width), T(0));
    kernels::aggregateGradInput(host, c.reduce, c.selfLoops, dy.data(),
                                x.data(), out.data(), c.width, w, c.weightWidth,
                                expected.data());
    DeviceArray<T> dx(x), ddy(dy), dw(weight), dout(out),
        result(expected.size());
    kernels::cuda::aggregateGradInput(
        dev, c.reduce, c.selfLoops, ddy.get(), dx.get(), dout.get(), c.width,
        c.weightWidth ? dw.get() : nullptr, c.weightWidth, result.get());
    actual = result.toHost();
  });
}

TEST(CudaAggregate, GradInputSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  gradInputCase<float>(true);
  gradInputCase<double>(true);
}

/// The weight adjoint sums with warp shuffles, the slowest thing to
/// emulate: the width sweep runs in float only.
template <typename T> void gradWeightCase() {
  compareWithCpu<T>(
      false,
      [](const GraphView &host, const GraphView &dev, const AggregateCase &c,
         const auto &x, const auto &dy, const auto &weight, const auto &out,
         auto &expected, auto &actual) {
        const int64_t ww = std::max<int64_t>(1, c.weightWidth);
        expected.assign(size_t(host.numEdges * ww), T(0));
        if (!c.weightWidth) { // the adjoint of a weight only exists with one
          actual = expected;
          return;
        }
        kernels::aggregateGradWeight(
            host, c.reduce, c.selfLoops, dy.data(), x.data(), out.data(),
            c.width, weight.data(), c.weightWidth, expected.data());
        DeviceArray<T> dx(x), ddy(dy), dw(weight), dout(out),
            result(expected.size());
        kernels::cuda::aggregateGradWeight(
            dev, c.reduce, c.selfLoops, ddy.get(), dx.get(), dout.get(),
            c.width, dw.get(), c.weightWidth, result.get());
        actual = result.toHost();
      },
      sizeof(T) == 4);
}

TEST(CudaAggregate, GradWeightMatchesCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  gradWeightCase<float>();
  gradWeightCase<double>();
}

// precision = bf16: the sum and mean forward and input adjoint read bf16
// rows, and give the CPU's bf16 gathers bit for bit (max and min, and the
// weight adjoint, stay fp32 on both). That the storage took effect shows in
// the results differing from the fp32 ones.
TEST(CudaAggregate, BFloat16GathersSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  // Every case forward on the device, against the CPU's result under the
  // storage in force; `visit` sees each case's device result.
  auto forwardCases = [](const auto &visit) {
    compareWithCpu<float>(
        true, [&](const GraphView &, const GraphView &dev,
                  const AggregateCase &c, const auto &x, const auto &,
                  const auto &weight, const auto &out, auto &expected,
                  auto &actual) {
          expected = out;
          DeviceArray<float> dx(x), dw(weight), dout(out.size());
          kernels::cuda::aggregate(dev, c.reduce, c.selfLoops, dx.get(),
                                   c.width, c.weightWidth ? dw.get() : nullptr,
                                   c.weightWidth, dout.get());
          actual = dout.toHost();
          visit(c, actual);
        });
  };
  std::vector<std::vector<float>> fp32;
  forwardCases([&](const AggregateCase &, const std::vector<float> &actual) {
    fp32.push_back(actual);
  });
  kernels::ScopedGatherStorage bf16(kernels::GatherStorage::BFloat16);
  size_t i = 0;
  int64_t changed = 0;
  forwardCases([&](const AggregateCase &c, const std::vector<float> &actual) {
    const bool linear = c.reduce == Reduce::Sum || c.reduce == Reduce::Mean;
    if (linear && actual != fp32[i])
      ++changed;
    if (!linear) {
      EXPECT_EQ(actual, fp32[i]) << "max/min stay fp32: " << c.name();
    }
    ++i;
  });
  EXPECT_GT(changed, 0) << "no sum or mean read bf16 rows";
  gradInputCase<float>(true);
}

} // namespace
