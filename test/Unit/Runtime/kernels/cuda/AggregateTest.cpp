//===- CudaAggregateTest.cpp - CUDA aggregation against the CPU kernel ----===//
//
// kernels::cuda::aggregate implements the declaration of
// gnnrt/kernels/Aggregate.h on a device: these tests compare it with a
// float64 host loop (to rounding) and with the CPU kernel (bit for bit,
// which Aggregate.h's order of operations promises) for every reduction,
// with and without weights and self loops. Built only with CUDA; the tests
// that launch kernels skip when no device is visible (CI machines have
// none), and run on GPU machines.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Aggregate.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Device.h"
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

namespace {

/// A device copy of a host array, freed at scope exit.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(const std::vector<T> &host) : n(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr, std::max<size_t>(1, n) * sizeof(T)),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), n * sizeof(T),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  T *get() const { return ptr; }
  std::vector<T> toHost() const {
    std::vector<T> host(n);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr, n * sizeof(T),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    return host;
  }

private:
  size_t n;
  T *ptr = nullptr;
};

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

template <typename T> std::vector<T> randomValues(int64_t n, uint64_t seed) {
  CounterRng rng(seed, 3);
  std::vector<T> v(static_cast<size_t>(n));
  for (T &x : v)
    x = T(rng.nextUniform() * 2 - 1);
  return v;
}

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
  if (kernels::cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
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
        double acc = reduce == Reduce::Max
                         ? -std::numeric_limits<double>::infinity()
                     : reduce == Reduce::Min
                         ? std::numeric_limits<double>::infinity()
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
    const std::vector<T> weight =
        randomValues<T>(TestGraph::kEdges * std::max<int64_t>(1, weightWidth),
                        4);
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
              << " weightWidth " << weightWidth << " accumulate "
              << accumulate << ": first difference at "
              << (std::mismatch(expected.begin(), expected.end(),
                                actual.begin())
                      .first -
                  expected.begin());
        }
  }
}

TEST(CudaAggregate, SameBitsAsCpuFloat) {
  if (kernels::cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  expectSameBitsAsCpu<float>();
}

TEST(CudaAggregate, SameBitsAsCpuDouble) {
  if (kernels::cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  expectSameBitsAsCpu<double>();
}

// The argument check comes before any CUDA call, so it runs without a
// device too.
TEST(CudaAggregate, OnlySumAccumulates) {
  GraphView g;
  float x = 0, out = 0;
  try {
    kernels::cuda::aggregate(g, Reduce::Max, false, &x, 1, (const float *)nullptr,
                             1, &out, /*accumulate=*/true);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "aggregate: only a sum can accumulate");
  }
}

} // namespace
