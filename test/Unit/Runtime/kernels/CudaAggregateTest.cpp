//===- CudaAggregateTest.cpp - CUDA aggregation against a host reference --===//
//
// Built only with CUDA; skipped when no device is visible (CI machines have
// none), run on GPU machines. The reference is a float64 host loop.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/kernels/CudaAggregate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

TEST(CudaAggregate, MatchesFloat64Reference) {
  if (gnnrt::cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  const int64_t n = 300, f = 37;
  std::vector<int64_t> src, dst;
  gnnrt::CounterRng rng(7, 0);
  for (int64_t e = 0; e < 4000; ++e) {
    src.push_back(rng.nextBelow(n));
    dst.push_back(rng.nextBelow(n));
  }
  gnnrt::Graph g = gnnrt::Graph::fromEdges(n, src, dst);
  std::vector<float> x(n * f);
  for (float &v : x)
    v = rng.nextUniform() * 2 - 1;
  for (auto reduce : {gnnrt::cuda::Reduce::Sum, gnnrt::cuda::Reduce::Mean,
                      gnnrt::cuda::Reduce::Max}) {
    std::vector<float> out(n * f);
    std::string err = gnnrt::cuda::aggregateHost(
        reduce, n, g.inOffsets().data(), g.inSources().data(), g.numEdges(), n, f,
        x.data(), out.data());
    ASSERT_EQ(err, "");
    for (int64_t v = 0; v < n; ++v)
      for (int64_t c = 0; c < f; ++c) {
        double acc = reduce == gnnrt::cuda::Reduce::Max
                         ? -std::numeric_limits<double>::infinity()
                         : 0.0;
        int64_t deg = g.inOffsets()[v + 1] - g.inOffsets()[v];
        for (int64_t e = g.inOffsets()[v]; e < g.inOffsets()[v + 1]; ++e) {
          double xv = x[g.inSources()[e] * f + c];
          acc = reduce == gnnrt::cuda::Reduce::Max ? std::max(acc, xv) : acc + xv;
        }
        if (reduce == gnnrt::cuda::Reduce::Mean && deg)
          acc /= deg;
        if (!deg)
          acc = 0;
        EXPECT_NEAR(out[v * f + c], acc, 1e-4) << "row " << v << " col " << c;
      }
  }
}

} // namespace
