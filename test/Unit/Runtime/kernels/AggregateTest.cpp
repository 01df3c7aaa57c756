//===- AggregateTest.cpp - aggregate and its adjoints ---------------------===//
//
// aggregate against a reference for every reduction, with and without self
// loops and weights (one per edge or per head), accumulating sums, and its
// two adjoints by finite differences, at every width the linear gather
// specializes.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Aggregate.h"

#include "KernelTestUtil.h"
#include "gnnrt/kernels/Axis.h"
#include "gnnrt/kernels/Edge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

/// weightWidth 0: no weight.
Vec aggregateRef(const GraphView &g, Reduce reduce, bool selfLoops,
                 const Vec &x, int64_t width, const Vec &weight,
                 int64_t weightWidth) {
  auto lists = inEdgeLists(g);
  Vec out;
  for (int64_t v = 0; v < g.numDst; ++v) {
    std::vector<Vec> messages;
    for (int64_t k : lists[v]) {
      Vec m(static_cast<size_t>(width));
      for (int64_t j = 0; j < width; ++j) {
        double w = weightWidth == 0
                       ? 1.0
                       : weight[k * weightWidth + j / (width / weightWidth)];
        m[j] = x[g.edgeSrc[k] * width + j] * w;
      }
      messages.push_back(m);
    }
    if (selfLoops)
      messages.emplace_back(x.begin() + v * width, x.begin() + (v + 1) * width);
    Vec row = reduceRows(messages, reduce, width);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

/// The aggregate configurations: every reduce, with and without self loops,
/// unweighted (weightWidth 0), one weight per edge, or one per head.
struct AggregateCase {
  Reduce reduce;
  bool selfLoops;
  int64_t weightWidth;
  std::string name() const {
    return reduceName(reduce) + (selfLoops ? " selfLoops" : "") +
           " weightWidth " + std::to_string(weightWidth);
  }
};

std::vector<AggregateCase> aggregateCases() {
  std::vector<AggregateCase> cases;
  for (Reduce r : kAllReduces)
    for (bool selfLoops : {false, true})
      for (int64_t weightWidth : {0, 1, 2})
        cases.push_back({r, selfLoops, weightWidth});
  return cases;
}

template <typename T> void checkAggregate(double tol) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (const AggregateCase &c : aggregateCases()) {
      Vec x = roundTo<T>(randomVector(g.numSrc * kWidth, 1));
      Vec w = roundTo<T>(randomVector(g.numEdges * c.weightWidth, 2, 0.5, 1.5));
      std::vector<T> xt = cast<T>(x), wt = cast<T>(w);
      std::vector<T> out(g.numDst * kWidth, T(-99));
      kernels::aggregate<T>(g, c.reduce, c.selfLoops, xt.data(), kWidth,
                            c.weightWidth ? wt.data() : nullptr,
                            std::max<int64_t>(c.weightWidth, 1), out.data());
      expectNear(
          toDouble(out),
          aggregateRef(g, c.reduce, c.selfLoops, x, kWidth, w, c.weightWidth),
          tol, tg.name + " aggregate " + c.name());
    }
  }
}

TEST(KernelsForward, Aggregate) {
  checkAggregate<double>(1e-12);
  checkAggregate<float>(1e-5);
}

// A sum with accumulate adds to the output's rows (what a partitioned
// aggregation does with each remote part's share), at widths that take the
// register, vector and in-place accumulators.
TEST(KernelsForward, AggregateAccumulates) {
  const GraphStorage storage = randomGraph(300, 200, 2000, 11);
  const GraphView g = storage.view();
  for (int64_t width : {3, 16, 40, 300}) {
    std::vector<float> x(size_t(g.numSrc * width)), base(size_t(g.numDst * width));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(int64_t(i * 37 % 101) - 50) / 8.f;
    for (size_t i = 0; i < base.size(); ++i)
      base[i] = float(int64_t(i * 13 % 29) - 14) / 4.f;
    std::vector<float> sum(base.size()), acc = base;
    kernels::aggregate<float>(g, Reduce::Sum, true, x.data(), width, nullptr, 1,
                              sum.data());
    kernels::aggregate<float>(g, Reduce::Sum, true, x.data(), width, nullptr, 1,
                              acc.data(), /*accumulate=*/true);
    for (size_t i = 0; i < acc.size(); ++i)
      ASSERT_NEAR(acc[i], base[i] + sum[i], 1e-4) << "width " << width;
  }
  std::vector<float> x(size_t(g.numSrc)), out(size_t(g.numDst));
  EXPECT_THROW(kernels::aggregate<float>(g, Reduce::Mean, false, x.data(), 1,
                                         nullptr, 1, out.data(), true),
               std::invalid_argument);
}

TEST(KernelsGrad, Aggregate) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (const AggregateCase &c : aggregateCases()) {
      const std::string what = tg.name + " aggregate " + c.name();
      const int64_t weightWidth = std::max<int64_t>(c.weightWidth, 1);
      Vec x = randomVector(g.numSrc * kWidth, 12);
      Vec w = randomVector(g.numEdges * c.weightWidth, 13, 0.5, 1.5);
      const Vec r = randomVector(g.numDst * kWidth, 14);
      const double *weight = c.weightWidth ? w.data() : nullptr;
      auto forward = [&] {
        Vec out(g.numDst * kWidth);
        kernels::aggregate<double>(g, c.reduce, c.selfLoops, x.data(), kWidth,
                                   weight, weightWidth, out.data());
        return out;
      };
      auto loss = [&] { return dot(r, forward()); };
      const Vec out = forward();

      Vec dx(x.size(), -99);
      kernels::aggregateGradInput<double>(g, c.reduce, c.selfLoops, r.data(),
                                          x.data(), out.data(), kWidth, weight,
                                          weightWidth, dx.data());
      expectGradient(x, dx, loss, what + " d/dx");
      if (c.weightWidth == 0)
        continue;
      Vec dw(w.size(), -99);
      kernels::aggregateGradWeight<double>(g, c.reduce, c.selfLoops, r.data(),
                                           x.data(), out.data(), kWidth, weight,
                                           weightWidth, dw.data());
      expectGradient(w, dw, loss, what + " d/dweight");
    }
  }
}

// Finite differences cannot tell which of two equal messages takes the
// gradient; the documented rule is the first in edge order, self loop last.
TEST(KernelsGrad, MaxAndMinTiesGoToTheFirstMessage) {
  // Destination 0 receives 2->0 and 1->0 (edge order: source 1 first) and
  // its self loop; all three rows are equal.
  GraphStorage storage = GraphStorage::build(3, 1, {2, 1}, {0, 0});
  const GraphView g = storage.view();
  const Vec x = {0.5, 0.5, 0.5}, dy = {2.0};
  for (Reduce r : {Reduce::Max, Reduce::Min}) {
    Vec out(1), dx(3), de(2);
    kernels::aggregate<double>(g, r, true, x.data(), 1, nullptr, 1, out.data());
    kernels::aggregateGradInput<double>(g, r, true, dy.data(), x.data(),
                                        out.data(), 1, nullptr, 1, dx.data());
    EXPECT_EQ(dx, (Vec{0.0, 2.0, 0.0})) << reduceName(r);
    const Vec e = {0.5, 0.5};
    kernels::scatterGrad<double>(g, r, dy.data(), e.data(), out.data(), 1,
                                 de.data());
    EXPECT_EQ(de, (Vec{2.0, 0.0})) << reduceName(r);
    kernels::reduceAxisGrad<double>(r, 1, 3, 1, dy.data(), x.data(), out.data(),
                                    dx.data());
    EXPECT_EQ(dx, (Vec{2.0, 0.0, 0.0})) << reduceName(r);
  }
}

// Sum and mean have width-specialized gather loops (16, 32, 64 and 128
// values), a general one that accumulates up to 256 values locally, and one
// that accumulates wider rows in place: check each against the float64
// reference, and the input adjoint by <aggregate(x), r> == <x, adjoint(r)>.
template <typename T> void checkLinearAggregateWidths(double tol) {
  GraphStorage block = randomGraph(300, 200, 3000, 11);
  GraphStorage square = randomGraph(250, 250, 2000, 12);
  for (const GraphStorage *storage : {&block, &square}) {
    const GraphView g = storage->view();
    for (int64_t width : {1, 4, 8, 16, 24, 32, 64, 128, 200, 300})
      for (Reduce r : {Reduce::Sum, Reduce::Mean})
        for (bool selfLoops : {false, true})
          for (int64_t weightWidth : {0, 1, 2, 4}) {
            if (weightWidth > 0 && width % weightWidth != 0)
              continue;
            const std::string what =
                "width " + std::to_string(width) + " " +
                AggregateCase{r, selfLoops, weightWidth}.name();
            const int64_t ww = std::max<int64_t>(weightWidth, 1);
            Vec x = roundTo<T>(randomVector(g.numSrc * width, 21));
            Vec w = roundTo<T>(
                randomVector(g.numEdges * weightWidth, 22, 0.5, 1.5));
            Vec dy = roundTo<T>(randomVector(g.numDst * width, 23));
            std::vector<T> xt = cast<T>(x), wt = cast<T>(w), dyt = cast<T>(dy);
            const T *weight = weightWidth ? wt.data() : nullptr;
            std::vector<T> out(g.numDst * width, T(-99));
            kernels::aggregate<T>(g, r, selfLoops, xt.data(), width, weight, ww,
                                  out.data());
            expectNear(toDouble(out),
                       aggregateRef(g, r, selfLoops, x, width, w, weightWidth),
                       tol, what);
            std::vector<T> dx(g.numSrc * width, T(-99));
            kernels::aggregateGradInput<T>(g, r, selfLoops, dyt.data(),
                                           xt.data(), out.data(), width, weight,
                                           ww, dx.data());
            const double lhs = dot(toDouble(out), dy);
            const double rhs = dot(x, toDouble(dx));
            EXPECT_NEAR(lhs, rhs, 100 * tol * std::max(1.0, std::abs(lhs)))
                << what << " adjoint";
          }
  }
}

TEST(KernelsGrad, LinearAggregateAtEveryWidth) {
  checkLinearAggregateWidths<double>(1e-12);
  checkLinearAggregateWidths<float>(1e-5);
}

/// A block whose rows are ragged: destination 0 receives an edge from every
/// source, destinations 1..9 one each, every third of the rest a few, the
/// others none; sources past numDst receive nothing back. Its widths cross
/// every accumulator (registers, local buffer, in place) and the prefetch
/// walk runs past row, chunk and list ends.
GraphStorage raggedBlock() {
  const int64_t numSrc = 220, numDst = 150;
  std::vector<int64_t> src, dst;
  for (int64_t u = 0; u < numSrc; ++u)
    src.push_back(u), dst.push_back(0);
  for (int64_t v = 1; v < 10; ++v)
    src.push_back((v * 37) % numSrc), dst.push_back(v);
  for (int64_t v = 12; v < numDst; v += 3)
    for (int64_t k = 0; k < v % 7; ++k)
      src.push_back((v * 13 + k * 29) % numSrc), dst.push_back(v);
  return GraphStorage::build(numSrc, numDst, src, dst);
}

/// dx of aggregate's input adjoint in float64: source u collects
/// c(v) * dy[v] from each out-edge u -> v and c(u) * dy[u] from its self
/// loop, where c is 1 for sum and 1 / (messages of v) for mean.
Vec aggregateGradInputRef(const GraphView &g, Reduce reduce, bool selfLoops,
                          const Vec &dy, int64_t width) {
  auto scale = [&](int64_t v) {
    const int64_t count =
        g.inOffsets[v + 1] - g.inOffsets[v] + (selfLoops ? 1 : 0);
    return reduce == Reduce::Mean && count > 0 ? 1.0 / double(count) : 1.0;
  };
  Vec dx(size_t(g.numSrc * width), 0.0);
  for (int64_t k = 0; k < g.numEdges; ++k)
    for (int64_t j = 0; j < width; ++j)
      dx[g.edgeSrc[k] * width + j] +=
          scale(g.edgeDst[k]) * dy[g.edgeDst[k] * width + j];
  if (selfLoops)
    for (int64_t v = 0; v < g.numDst; ++v)
      for (int64_t j = 0; j < width; ++j)
        dx[v * width + j] += scale(v) * dy[v * width + j];
  return dx;
}

// Every width from 1 to 257 (the specialized ones, and the ones on either
// side of them) on ragged and empty rows, forward and transpose, in float
// against float64: an empty destination gets zeros, a source without
// out-edges zeros or its self loop's row.
TEST(KernelsGrad, LinearAggregateRaggedRowsAtWidths1To257) {
  const GraphStorage storage = raggedBlock();
  const GraphView g = storage.view();
  // Sum without self loops leaves empty rows at zero; mean with them takes
  // the scaled path and divides rows of one message.
  const std::pair<Reduce, bool> configs[] = {{Reduce::Sum, false},
                                             {Reduce::Mean, true}};
  for (int64_t width = 1; width <= 257; ++width)
    for (auto [r, selfLoops] : configs) {
      const std::string what = "width " + std::to_string(width) + " " +
                               reduceName(r) + (selfLoops ? " selfLoops" : "");
      const Vec x = roundTo<float>(randomVector(g.numSrc * width, 31));
      const Vec dy = roundTo<float>(randomVector(g.numDst * width, 32));
      const std::vector<float> xf = cast<float>(x), dyf = cast<float>(dy);
      std::vector<float> out(size_t(g.numDst * width), -99.f);
      kernels::aggregate<float>(g, r, selfLoops, xf.data(), width, nullptr, 1,
                                out.data());
      expectNear(toDouble(out), aggregateRef(g, r, selfLoops, x, width, {}, 0),
                 1e-5, what + " forward");
      std::vector<float> dx(size_t(g.numSrc * width), -99.f);
      kernels::aggregateGradInput<float>(g, r, selfLoops, dyf.data(), xf.data(),
                                         out.data(), width, nullptr, 1,
                                         dx.data());
      expectNear(toDouble(dx),
                 aggregateGradInputRef(g, r, selfLoops, dy, width), 1e-5,
                 what + " transpose");
      if (HasFailure())
        return; // one width's report, not 257
    }
}

// Rows wider than 64 floats of a source matrix larger than the last-level
// cache are gathered in column tiles (GNNRT_CACHE_BYTES models a small
// cache): each value gets the same terms in the same order, so the results
// are the bits of whole-row walks, and match float64 references, at widths
// whose last tile is whole, narrower, or one column; on a graph with empty
// rows, forward and transpose, unweighted and with per-edge weights.
TEST(KernelsGrad, LinearAggregateColumnTilesMatchWholeRows) {
  // 3000 x 100+ floats: over 1 MiB, so the cache size decides.
  GraphStorage storage = randomGraph(3000, 2000, 3000, 41);
  const GraphView g = storage.view();
  const std::pair<Reduce, bool> configs[] = {{Reduce::Sum, false},
                                             {Reduce::Mean, true}};
  for (int64_t width : {100, 128, 200, 257})
    for (auto [r, selfLoops] : configs)
      for (bool weighted : {false, true}) {
        const std::string what = "width " + std::to_string(width) + " " +
                                 reduceName(r) +
                                 (selfLoops ? " selfLoops" : "") +
                                 (weighted ? " weighted" : "");
        const Vec x = roundTo<float>(randomVector(g.numSrc * width, 42));
        const Vec dy = roundTo<float>(randomVector(g.numDst * width, 43));
        const Vec w = roundTo<float>(randomVector(g.numEdges, 44, 0.5, 1.5));
        const std::vector<float> xf = cast<float>(x), dyf = cast<float>(dy),
                                 wf = cast<float>(w);
        const float *weight = weighted ? wf.data() : nullptr;
        auto run = [&](int64_t cacheBytes, std::vector<float> &out,
                       std::vector<float> &dx) {
          ScopedEnv cache("GNNRT_CACHE_BYTES", std::to_string(cacheBytes));
          out.assign(size_t(g.numDst * width), -99.f);
          dx.assign(size_t(g.numSrc * width), -99.f);
          kernels::aggregate<float>(g, r, selfLoops, xf.data(), width, weight,
                                    1, out.data());
          kernels::aggregateGradInput<float>(g, r, selfLoops, dyf.data(),
                                             xf.data(), out.data(), width,
                                             weight, 1, dx.data());
        };
        std::vector<float> tiledOut, tiledDx, wholeOut, wholeDx;
        run(int64_t(64) << 10, tiledOut, tiledDx);
        run(int64_t(1) << 40, wholeOut, wholeDx);
        EXPECT_EQ(tiledOut, wholeOut) << what << " forward";
        EXPECT_EQ(tiledDx, wholeDx) << what << " transpose";
        expectNear(toDouble(tiledOut),
                   aggregateRef(g, r, selfLoops, x, width, w, weighted ? 1 : 0),
                   1e-5, what + " forward");
        if (!weighted)
          expectNear(toDouble(tiledDx),
                     aggregateGradInputRef(g, r, selfLoops, dy, width), 1e-5,
                     what + " transpose");
        if (HasFailure())
          return;
      }
}

// aggregateScaledRows is aggregate over a copy of x with row u scaled by
// s[u]: the same bits as that copy's aggregate (each term is the same
// rounded product), near the float64 reference, at widths of every
// accumulator, in whole rows and in column tiles.
TEST(KernelsForward, AggregateScaledRowsIsAggregateOfScaledCopy) {
  GraphStorage storage = randomGraph(3000, 2000, 6000, 51);
  const GraphView g = storage.view();
  for (int64_t width : {3, 16, 128, 200})
    for (Reduce r : {Reduce::Sum, Reduce::Mean})
      for (bool selfLoops : {false, true})
        for (int64_t cacheBytes : {int64_t(64) << 10, int64_t(1) << 40}) {
          const std::string what = "width " + std::to_string(width) + " " +
                                   reduceName(r) +
                                   (selfLoops ? " selfLoops" : "") +
                                   " cache " + std::to_string(cacheBytes);
          ScopedEnv cache("GNNRT_CACHE_BYTES", std::to_string(cacheBytes));
          const Vec x = roundTo<float>(randomVector(g.numSrc * width, 52));
          const Vec s = roundTo<float>(randomVector(g.numSrc, 53, 0.1, 2.0));
          const std::vector<float> xf = cast<float>(x), sf = cast<float>(s);
          std::vector<float> scaled(xf.size());
          Vec scaledRef(x.size());
          for (int64_t u = 0; u < g.numSrc; ++u)
            for (int64_t j = 0; j < width; ++j) {
              scaled[size_t(u * width + j)] =
                  sf[size_t(u)] * xf[size_t(u * width + j)];
              scaledRef[size_t(u * width + j)] =
                  s[size_t(u)] * x[size_t(u * width + j)];
            }
          std::vector<float> fused(size_t(g.numDst * width), -99.f),
              copied(size_t(g.numDst * width), -99.f);
          kernels::aggregateScaledRows<float>(g, r, selfLoops, xf.data(),
                                              sf.data(), width, fused.data());
          kernels::aggregate<float>(g, r, selfLoops, scaled.data(), width,
                                    nullptr, 1, copied.data());
          EXPECT_EQ(fused, copied) << what;
          expectNear(toDouble(fused),
                     aggregateRef(g, r, selfLoops, scaledRef, width, {}, 0),
                     1e-5, what);
          std::vector<double> fusedDouble(size_t(g.numDst * width));
          kernels::aggregateScaledRows<double>(g, r, selfLoops, x.data(),
                                               s.data(), width,
                                               fusedDouble.data());
          expectNear(fusedDouble,
                     aggregateRef(g, r, selfLoops, scaledRef, width, {}, 0),
                     1e-12, what + " (double)");
          if (HasFailure())
            return;
        }
  std::vector<float> x(4), s(2), out(2);
  EXPECT_THROW(kernels::aggregateScaledRows<float>(g, Reduce::Max, false,
                                                   x.data(), s.data(), 1,
                                                   out.data()),
               std::invalid_argument);
}

// A view without GraphView::outDst (built by hand) gives the same bits.
TEST(KernelsGrad, AggregateGradInputWithoutOutDst) {
  GraphStorage storage = randomGraph(300, 200, 3000, 13);
  const GraphView g = storage.view();
  GraphView bare = g;
  bare.outDst = nullptr;
  for (int64_t width : {16, 24})
    for (Reduce r : kAllReduces)
      for (bool weighted : {false, true}) {
        const std::vector<float> x =
            cast<float>(randomVector(g.numSrc * width, 24));
        const std::vector<float> w =
            cast<float>(randomVector(g.numEdges, 25, 0.5, 1.5));
        const std::vector<float> dy =
            cast<float>(randomVector(g.numDst * width, 26));
        const float *weight = weighted ? w.data() : nullptr;
        std::vector<float> out(g.numDst * width), a(x.size()), b(x.size());
        kernels::aggregate<float>(g, r, true, x.data(), width, weight, 1,
                                  out.data());
        kernels::aggregateGradInput<float>(g, r, true, dy.data(), x.data(),
                                           out.data(), width, weight, 1,
                                           a.data());
        kernels::aggregateGradInput<float>(bare, r, true, dy.data(), x.data(),
                                           out.data(), width, weight, 1,
                                           b.data());
        EXPECT_EQ(a, b) << reduceName(r) << " width " << width
                        << (weighted ? " weighted" : "");
      }
}

} // namespace
