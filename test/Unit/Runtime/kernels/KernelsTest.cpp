//===- KernelsTest.cpp - CPU kernels against references and derivatives ---===//
//
// Forward kernels are compared with naive double-precision references
// written here from the documented semantics (Kernels.h), in double and in
// float, on small graphs with the layout's corner cases: a bipartite block,
// a destination without in-edges, parallel edges, a self edge. Every adjoint
// is checked by central finite differences of loss = sum(r * forward) in
// double, i.e. against the forward kernel it differentiates. Further tests
// check that results do not depend on the thread count, and the dropout
// mask.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Kernels.h"

#include "gnnrt/support/Random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt;

namespace {

using Vec = std::vector<double>;

const Reduce kAllReduces[] = {Reduce::Sum, Reduce::Mean, Reduce::Max,
                              Reduce::Min};

std::string reduceName(Reduce r) {
  switch (r) {
  case Reduce::Sum:
    return "sum";
  case Reduce::Mean:
    return "mean";
  case Reduce::Max:
    return "max";
  case Reduce::Min:
    return "min";
  }
  return "?";
}

//===--- Data -------------------------------------------------------------===//

/// n values uniform in [lo, hi) with 53 random bits, so ties are unlikely.
Vec randomVector(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  CounterRng rng(seed, 11);
  Vec v(static_cast<size_t>(n));
  for (double &x : v)
    x = lo + (hi - lo) * double(rng.nextBelow64(uint64_t(1) << 53)) *
                 (1.0 / 9007199254740992.0);
  return v;
}

template <typename T> std::vector<T> cast(const Vec &v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T> Vec toDouble(const std::vector<T> &v) {
  return Vec(v.begin(), v.end());
}

/// v rounded to T's precision, so a reference sees a kernel's exact inputs.
template <typename T> Vec roundTo(const Vec &v) { return toDouble(cast<T>(v)); }

double dot(const Vec &a, const Vec &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

void expectNear(const Vec &actual, const Vec &expected, double relTol,
                const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_LE(std::abs(actual[i] - expected[i]),
              relTol * std::max(1.0, std::abs(expected[i])))
        << what << " element " << i << ": " << actual[i] << " vs "
        << expected[i];
}

//===--- Graphs -----------------------------------------------------------===//

struct TestGraph {
  std::string name;
  GraphStorage storage;
};

/// Small graphs with every corner case of the layout.
std::vector<TestGraph> testGraphs() {
  std::vector<TestGraph> graphs;
  // 7 nodes: parallel edges 2->0, a self edge 3->3, node 5 without any
  // edges (so no messages unless selfLoops).
  graphs.push_back(
      {"square", GraphStorage::build(7, 7, {2, 2, 1, 0, 4, 3, 4, 0, 1, 6, 3},
                                     {0, 0, 0, 1, 1, 3, 3, 2, 4, 4, 6})});
  // A block: 9 sources, the first 4 of them destinations; destination 2
  // has no in-edges, 8->3 is doubled.
  graphs.push_back(
      {"bipartite",
       GraphStorage::build(9, 4, {5, 8, 0, 7, 3, 6, 1, 8, 4, 2, 6, 0, 8},
                           {0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 0, 3, 3})});
  return graphs;
}

/// A random block with skewed destinations (empty and heavy rows).
GraphStorage randomGraph(int64_t numSrc, int64_t numDst, int64_t m,
                         uint64_t seed) {
  CounterRng rng(seed, 5);
  std::vector<int64_t> src(m), dst(m);
  for (int64_t e = 0; e < m; ++e) {
    src[e] = rng.nextBelow(uint32_t(numSrc));
    dst[e] = rng.nextBelow(uint32_t(numDst)) % (numDst - numDst / 8);
  }
  return GraphStorage::build(numSrc, numDst, src, dst);
}

/// Each destination's in-edges in edge order, found from edgeDst alone.
std::vector<std::vector<int64_t>> inEdgeLists(const GraphView &g) {
  std::vector<std::vector<int64_t>> lists(static_cast<size_t>(g.numDst));
  for (int64_t k = 0; k < g.numEdges; ++k)
    lists[g.edgeDst[k]].push_back(k);
  return lists;
}

//===--- References -------------------------------------------------------===//

/// The reduction of message rows (zeros if there are none).
Vec reduceRows(const std::vector<Vec> &rows, Reduce reduce, int64_t width) {
  Vec out(static_cast<size_t>(width), 0.0);
  if (rows.empty())
    return out;
  for (int64_t j = 0; j < width; ++j) {
    double acc = rows[0][j];
    for (size_t i = 1; i < rows.size(); ++i) {
      if (reduce == Reduce::Max)
        acc = std::max(acc, rows[i][j]);
      else if (reduce == Reduce::Min)
        acc = std::min(acc, rows[i][j]);
      else
        acc += rows[i][j];
    }
    out[j] = reduce == Reduce::Mean ? acc / double(rows.size()) : acc;
  }
  return out;
}

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

Vec scatterRef(const GraphView &g, Reduce reduce, const Vec &e, int64_t width) {
  auto lists = inEdgeLists(g);
  Vec out;
  for (int64_t v = 0; v < g.numDst; ++v) {
    std::vector<Vec> messages;
    for (int64_t k : lists[v])
      messages.emplace_back(e.begin() + k * width, e.begin() + (k + 1) * width);
    Vec row = reduceRows(messages, reduce, width);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

Vec edgeSoftmaxRef(const GraphView &g, const Vec &s, int64_t width) {
  Vec out(s.size());
  for (const auto &edges : inEdgeLists(g))
    for (int64_t j = 0; j < width; ++j) {
      double mx = -INFINITY, sum = 0;
      for (int64_t k : edges)
        mx = std::max(mx, s[k * width + j]);
      for (int64_t k : edges)
        sum += std::exp(s[k * width + j] - mx);
      for (int64_t k : edges)
        out[k * width + j] = std::exp(s[k * width + j] - mx) / sum;
    }
  return out;
}

struct AxisShape {
  int64_t outer, n, inner;
  int64_t size() const { return outer * n * inner; }
  int64_t at(int64_t o, int64_t t, int64_t i) const {
    return (o * n + t) * inner + i;
  }
  std::string name() const {
    return "[" + std::to_string(outer) + ", " + std::to_string(n) + ", " +
           std::to_string(inner) + "]";
  }
};

/// Includes more inner columns than one tile (64) and a single slice.
const AxisShape kAxisShapes[] = {{3, 5, 1}, {2, 4, 3}, {1, 6, 70}, {4, 1, 2}};

Vec softmaxRef(const AxisShape &s, const Vec &x, bool logarithm) {
  Vec y(x.size());
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t t = 0; t < s.n; ++t)
        mx = std::max(mx, x[s.at(o, t, i)]);
      for (int64_t t = 0; t < s.n; ++t)
        sum += std::exp(x[s.at(o, t, i)] - mx);
      for (int64_t t = 0; t < s.n; ++t) {
        double z = x[s.at(o, t, i)] - mx;
        y[s.at(o, t, i)] = logarithm ? z - std::log(sum) : std::exp(z) / sum;
      }
    }
  return y;
}

Vec reduceAxisRef(Reduce kind, const AxisShape &s, const Vec &x) {
  Vec y;
  for (int64_t o = 0; o < s.outer; ++o) {
    std::vector<Vec> rows;
    for (int64_t t = 0; t < s.n; ++t)
      rows.emplace_back(x.begin() + s.at(o, t, 0),
                        x.begin() + s.at(o, t, 0) + s.inner);
    Vec row = reduceRows(rows, kind, s.inner);
    y.insert(y.end(), row.begin(), row.end());
  }
  return y;
}

double crossEntropyRef(int64_t rows, int64_t classes, const Vec &logits,
                       const std::vector<int64_t> &labels,
                       const uint8_t *mask) {
  double total = 0;
  int64_t count = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (labels[i] < 0 || (mask && !mask[i]))
      continue;
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      mx = std::max(mx, logits[i * classes + c]);
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(logits[i * classes + c] - mx);
    total += mx + std::log(sum) - logits[i * classes + labels[i]];
    ++count;
  }
  return count ? total / double(count) : 0.0;
}

/// Broadcasting: index of the out element that dy element `linear` comes
/// from (trailing dims aligned; size-1 and missing dims repeat).
int64_t broadcastSource(const std::vector<int64_t> &dyShape,
                        const std::vector<int64_t> &outShape, int64_t linear) {
  const int lead = int(dyShape.size() - outShape.size());
  int64_t index = 0, stride = 1;
  for (int d = int(dyShape.size()) - 1; d >= 0; --d) {
    const int64_t coord = linear % dyShape[d];
    linear /= dyShape[d];
    if (d < lead)
      continue;
    const int64_t size = outShape[d - lead];
    index += (size == 1 ? 0 : coord) * stride;
    stride *= size;
  }
  return index;
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Vec broadcastRef(const Vec &a, const std::vector<int64_t> &outShape,
                 const std::vector<int64_t> &dyShape) {
  Vec y(static_cast<size_t>(numel(dyShape)));
  for (int64_t i = 0; i < int64_t(y.size()); ++i)
    y[i] = a[broadcastSource(dyShape, outShape, i)];
  return y;
}

Vec unbroadcastRef(const Vec &dy, const std::vector<int64_t> &dyShape,
                   const std::vector<int64_t> &outShape) {
  Vec out(static_cast<size_t>(numel(outShape)), 0.0);
  for (int64_t i = 0; i < int64_t(dy.size()); ++i)
    out[broadcastSource(dyShape, outShape, i)] += dy[i];
  return out;
}

struct BroadcastCase {
  std::vector<int64_t> dyShape, outShape;
};

const BroadcastCase kBroadcastCases[] = {
    {{4, 3}, {3}},          {{4, 3}, {4, 1}},
    {{4, 3}, {1, 1}},       {{4, 3}, {}},
    {{4, 3}, {4, 3}},       {{2, 3, 4}, {3, 1}},
    {{2, 1, 4}, {1, 4}},    {{5, 70}, {70}},
    {{3, 2, 5}, {3, 1, 5}}, {{2, 3, 1, 2, 2, 1, 3, 2}, {3, 1, 2, 1, 1, 3, 1}},
    {{2, 0, 3}, {3}},
};

std::string shapeName(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

//===--- Finite differences -----------------------------------------------===//

/// Checks analytic = d(loss)/d(theta) by central differences; loss() reads
/// theta. The step is small so that max/min stay on one side of every kink.
template <typename Loss>
void expectGradient(Vec &theta, const Vec &analytic, Loss loss,
                    const std::string &what) {
  ASSERT_EQ(theta.size(), analytic.size()) << what;
  const double h = 1e-7;
  for (size_t i = 0; i < theta.size(); ++i) {
    const double saved = theta[i];
    theta[i] = saved + h;
    const double up = loss();
    theta[i] = saved - h;
    const double down = loss();
    theta[i] = saved;
    const double numeric = (up - down) / (2 * h);
    EXPECT_LE(std::abs(numeric - analytic[i]),
              1e-6 * std::max(1.0, std::abs(numeric)))
        << what << " element " << i << ": analytic " << analytic[i]
        << ", numeric " << numeric;
  }
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

constexpr int64_t kWidth = 6;

//===--- Forward kernels against references -------------------------------===//

template <typename T> void checkGemm(double tol) {
  const int64_t M = 5, N = 3, K = 4;
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (bool accumulate : {false, true}) {
        Vec a = roundTo<T>(randomVector(M * K, 1));
        Vec b = roundTo<T>(randomVector(K * N, 2));
        Vec c0 = roundTo<T>(randomVector(M * N, 3));
        Vec expected(M * N);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = accumulate ? c0[i * N + j] : 0;
            for (int64_t k = 0; k < K; ++k)
              s += (transA ? a[k * M + i] : a[i * K + k]) *
                   (transB ? b[j * K + k] : b[k * N + j]);
            expected[i * N + j] = s;
          }
        std::vector<T> at = cast<T>(a), bt = cast<T>(b), c = cast<T>(c0);
        kernels::gemm<T>(transA, transB, M, N, K, at.data(), bt.data(),
                         c.data(), accumulate);
        expectNear(toDouble(c), expected, tol,
                   "gemm transA " + std::to_string(transA) + " transB " +
                       std::to_string(transB) + " accumulate " +
                       std::to_string(accumulate));
      }
  // K == 0: an empty sum.
  std::vector<T> c(6, T(7));
  kernels::gemm<T>(false, false, 2, 3, 0, nullptr, nullptr, c.data());
  EXPECT_EQ(c, std::vector<T>(6, T(0)));
}

TEST(KernelsForward, Gemm) {
  checkGemm<double>(1e-12);
  checkGemm<float>(1e-5);
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

TEST(KernelsForward, GatherAndDegree) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (Side side : {Side::Src, Side::Dst}) {
      const int64_t rows = side == Side::Src ? g.numSrc : g.numDst;
      Vec x = randomVector(rows * kWidth, 4);
      Vec out(g.numEdges * kWidth), expected;
      kernels::gather<double>(g, side, x.data(), kWidth, out.data());
      for (int64_t k = 0; k < g.numEdges; ++k) {
        int64_t node = side == Side::Src ? g.edgeSrc[k] : g.edgeDst[k];
        expected.insert(expected.end(), x.begin() + node * kWidth,
                        x.begin() + (node + 1) * kWidth);
      }
      EXPECT_EQ(out, expected) << tg.name;

      Vec degrees(rows), expectedDegrees(rows, 0.0);
      kernels::degree<double>(g, side, degrees.data());
      for (int64_t k = 0; k < g.numEdges; ++k)
        expectedDegrees[side == Side::Src ? g.edgeSrc[k] : g.edgeDst[k]] += 1;
      EXPECT_EQ(degrees, expectedDegrees) << tg.name;
    }
  }
}

template <typename T> void checkScatter(double tol) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (Reduce r : kAllReduces) {
      Vec e = roundTo<T>(randomVector(g.numEdges * kWidth, 5));
      std::vector<T> et = cast<T>(e), out(g.numDst * kWidth, T(-99));
      kernels::scatter<T>(g, r, et.data(), kWidth, out.data());
      expectNear(toDouble(out), scatterRef(g, r, e, kWidth), tol,
                 tg.name + " scatter " + reduceName(r));
    }
  }
}

TEST(KernelsForward, Scatter) {
  checkScatter<double>(1e-12);
  checkScatter<float>(1e-5);
}

template <typename T> void checkEdgeSoftmax(double tol) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    Vec s = roundTo<T>(randomVector(g.numEdges * kWidth, 6, -5, 5));
    std::vector<T> st = cast<T>(s), out(s.size());
    kernels::edgeSoftmax<T>(g, st.data(), kWidth, out.data());
    expectNear(toDouble(out), edgeSoftmaxRef(g, s, kWidth), tol,
               tg.name + " edgeSoftmax");
  }
}

TEST(KernelsForward, EdgeSoftmax) {
  checkEdgeSoftmax<double>(1e-12);
  checkEdgeSoftmax<float>(1e-5);
}

template <typename T> void checkAxisOps(double tol) {
  for (const AxisShape &s : kAxisShapes) {
    Vec x = roundTo<T>(randomVector(s.size(), 7, -5, 5));
    std::vector<T> xt = cast<T>(x), y(x.size());
    kernels::softmax<T>(s.outer, s.n, s.inner, xt.data(), y.data());
    expectNear(toDouble(y), softmaxRef(s, x, false), tol,
               "softmax " + s.name());
    kernels::logSoftmax<T>(s.outer, s.n, s.inner, xt.data(), y.data());
    expectNear(toDouble(y), softmaxRef(s, x, true), tol,
               "logSoftmax " + s.name());
    for (Reduce r : kAllReduces) {
      std::vector<T> reduced(s.outer * s.inner, T(-99));
      kernels::reduceAxis<T>(r, s.outer, s.n, s.inner, xt.data(),
                             reduced.data());
      expectNear(toDouble(reduced), reduceAxisRef(r, s, x), tol,
                 "reduceAxis " + reduceName(r) + " " + s.name());
    }
  }
}

TEST(KernelsForward, AxisSoftmaxAndReduce) {
  checkAxisOps<double>(1e-12);
  checkAxisOps<float>(1e-5);
}

TEST(KernelsForward, ReduceEmptyAxisGivesZeros) {
  Vec y(6, -1.0);
  kernels::reduceAxis<double>(Reduce::Max, 2, 0, 3, nullptr, y.data());
  EXPECT_EQ(y, Vec(6, 0.0));
}

TEST(KernelsForward, ConcatAndSlice) {
  // [2, 3, 4] and [2, 1, 4] concatenated along the middle axis.
  const Vec a = randomVector(24, 8), b = randomVector(8, 9);
  Vec joined(32, -99);
  kernels::copyIntoAxis<double>(2, 3, 4, a.data(), 4, 0, joined.data());
  kernels::copyIntoAxis<double>(2, 1, 4, b.data(), 4, 3, joined.data());
  Vec expected;
  for (int o = 0; o < 2; ++o) {
    expected.insert(expected.end(), a.begin() + o * 12,
                    a.begin() + o * 12 + 12);
    expected.insert(expected.end(), b.begin() + o * 4, b.begin() + o * 4 + 4);
  }
  EXPECT_EQ(joined, expected);
  Vec sliceA(24), sliceB(8);
  kernels::sliceAxis<double>(2, 4, 4, joined.data(), 0, 3, sliceA.data());
  kernels::sliceAxis<double>(2, 4, 4, joined.data(), 3, 1, sliceB.data());
  EXPECT_EQ(sliceA, a);
  EXPECT_EQ(sliceB, b);
}

template <typename T> void checkUnbroadcast(double tol) {
  for (const BroadcastCase &c : kBroadcastCases) {
    Vec dy = roundTo<T>(randomVector(numel(c.dyShape), 10));
    std::vector<T> dyt = cast<T>(dy), out(numel(c.outShape), T(-99));
    kernels::unbroadcast<T>(dyt.data(), c.dyShape.data(), int(c.dyShape.size()),
                            out.data(), c.outShape.data(),
                            int(c.outShape.size()));
    expectNear(toDouble(out), unbroadcastRef(dy, c.dyShape, c.outShape), tol,
               "unbroadcast " + shapeName(c.dyShape) + " to " +
                   shapeName(c.outShape));
  }
}

TEST(KernelsForward, Unbroadcast) {
  checkUnbroadcast<double>(1e-12);
  checkUnbroadcast<float>(1e-5);
}

TEST(KernelsForward, UnbroadcastRejectsIncompatibleShapes) {
  const int64_t dyShape[] = {4, 3}, outShape[] = {2};
  Vec dy(12), out(2);
  EXPECT_THROW(kernels::unbroadcast<double>(dy.data(), dyShape, 2, out.data(),
                                            outShape, 1),
               std::invalid_argument);
}

/// Rows 2 (label -1) and 4 (masked out) do not count.
const std::vector<int64_t> kLabels = {0, 4, -1, 2, 1, 3, 0};
const uint8_t kLossMask[] = {1, 1, 1, 1, 0, 1, 1};
constexpr int64_t kRows = 7, kClasses = 5;

template <typename T> void checkCrossEntropy(double tol) {
  Vec logits = roundTo<T>(randomVector(kRows * kClasses, 11, -4, 4));
  std::vector<T> lt = cast<T>(logits);
  for (const uint8_t *mask : {static_cast<const uint8_t *>(nullptr),
                              static_cast<const uint8_t *>(kLossMask)}) {
    double loss = kernels::crossEntropy<T>(kRows, kClasses, lt.data(),
                                           kLabels.data(), mask);
    double expected = crossEntropyRef(kRows, kClasses, logits, kLabels, mask);
    EXPECT_NEAR(loss, expected, tol * std::abs(expected));
  }
  // No selected row.
  const uint8_t none[kRows] = {};
  EXPECT_EQ(kernels::crossEntropy<T>(kRows, kClasses, lt.data(), kLabels.data(),
                                     none),
            T(0));
}

TEST(KernelsForward, CrossEntropy) {
  checkCrossEntropy<double>(1e-12);
  checkCrossEntropy<float>(1e-5);
}

//===--- Adjoints by finite differences (double) --------------------------===//

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

TEST(KernelsGrad, Gather) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (Side side : {Side::Src, Side::Dst}) {
      const int64_t rows = side == Side::Src ? g.numSrc : g.numDst;
      Vec x = randomVector(rows * kWidth, 15);
      const Vec r = randomVector(g.numEdges * kWidth, 16);
      auto loss = [&] {
        Vec out(g.numEdges * kWidth);
        kernels::gather<double>(g, side, x.data(), kWidth, out.data());
        return dot(r, out);
      };
      Vec dx(x.size(), -99);
      kernels::gatherGrad<double>(g, side, r.data(), kWidth, dx.data());
      expectGradient(x, dx, loss,
                     tg.name + (side == Side::Src ? " src" : " dst"));
    }
  }
}

TEST(KernelsGrad, Scatter) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    for (Reduce reduce : kAllReduces) {
      Vec e = randomVector(g.numEdges * kWidth, 17);
      const Vec r = randomVector(g.numDst * kWidth, 18);
      auto forward = [&] {
        Vec out(g.numDst * kWidth);
        kernels::scatter<double>(g, reduce, e.data(), kWidth, out.data());
        return out;
      };
      const Vec out = forward();
      Vec de(e.size(), -99);
      kernels::scatterGrad<double>(g, reduce, r.data(), e.data(), out.data(),
                                   kWidth, de.data());
      expectGradient(
          e, de, [&] { return dot(r, forward()); },
          tg.name + " scatter " + reduceName(reduce));
    }
  }
}

TEST(KernelsGrad, EdgeSoftmax) {
  for (const TestGraph &tg : testGraphs()) {
    const GraphView g = tg.storage.view();
    Vec s = randomVector(g.numEdges * kWidth, 19, -3, 3);
    const Vec r = randomVector(s.size(), 20);
    auto forward = [&] {
      Vec y(s.size());
      kernels::edgeSoftmax<double>(g, s.data(), kWidth, y.data());
      return y;
    };
    const Vec y = forward();
    Vec ds(s.size(), -99);
    kernels::edgeSoftmaxGrad<double>(g, r.data(), y.data(), kWidth, ds.data());
    expectGradient(
        s, ds, [&] { return dot(r, forward()); }, tg.name);
  }
}

TEST(KernelsGrad, AxisSoftmax) {
  for (const AxisShape &s : kAxisShapes)
    for (bool logarithm : {false, true}) {
      Vec x = randomVector(s.size(), 21, -3, 3);
      const Vec r = randomVector(s.size(), 22);
      auto forward = [&] {
        Vec y(x.size());
        if (logarithm)
          kernels::logSoftmax<double>(s.outer, s.n, s.inner, x.data(),
                                      y.data());
        else
          kernels::softmax<double>(s.outer, s.n, s.inner, x.data(), y.data());
        return y;
      };
      const Vec y = forward();
      Vec dx(x.size(), -99);
      if (logarithm)
        kernels::logSoftmaxGrad<double>(s.outer, s.n, s.inner, r.data(),
                                        y.data(), dx.data());
      else
        kernels::softmaxGrad<double>(s.outer, s.n, s.inner, r.data(), y.data(),
                                     dx.data());
      expectGradient(
          x, dx, [&] { return dot(r, forward()); },
          (logarithm ? "logSoftmax " : "softmax ") + s.name());
    }
}

TEST(KernelsGrad, ReduceAxis) {
  for (const AxisShape &s : kAxisShapes)
    for (Reduce kind : kAllReduces) {
      Vec x = randomVector(s.size(), 23);
      const Vec r = randomVector(s.outer * s.inner, 24);
      auto forward = [&] {
        Vec y(s.outer * s.inner);
        kernels::reduceAxis<double>(kind, s.outer, s.n, s.inner, x.data(),
                                    y.data());
        return y;
      };
      const Vec y = forward();
      Vec dx(x.size(), -99);
      kernels::reduceAxisGrad<double>(kind, s.outer, s.n, s.inner, r.data(),
                                      x.data(), y.data(), dx.data());
      expectGradient(
          x, dx, [&] { return dot(r, forward()); },
          reduceName(kind) + " " + s.name());
    }
}

TEST(KernelsGrad, CrossEntropy) {
  const double dloss = 0.7;
  for (const uint8_t *mask : {static_cast<const uint8_t *>(nullptr),
                              static_cast<const uint8_t *>(kLossMask)}) {
    Vec logits = randomVector(kRows * kClasses, 25, -4, 4);
    Vec dlogits(logits.size(), -99);
    kernels::crossEntropyGrad<double>(kRows, kClasses, logits.data(),
                                      kLabels.data(), mask, dloss,
                                      dlogits.data());
    expectGradient(
        logits, dlogits,
        [&] {
          return dloss * kernels::crossEntropy<double>(kRows, kClasses,
                                                       logits.data(),
                                                       kLabels.data(), mask);
        },
        mask ? "masked" : "unmasked");
  }
}

TEST(KernelsGrad, UnbroadcastIsAdjointOfBroadcast) {
  for (const BroadcastCase &c : kBroadcastCases) {
    const Vec a = randomVector(numel(c.outShape), 26);
    const Vec b = randomVector(numel(c.dyShape), 27);
    Vec unbroadcastB(a.size(), -99);
    kernels::unbroadcast<double>(b.data(), c.dyShape.data(),
                                 int(c.dyShape.size()), unbroadcastB.data(),
                                 c.outShape.data(), int(c.outShape.size()));
    // <broadcast(a), b> == <a, unbroadcast(b)>
    const double lhs = dot(broadcastRef(a, c.outShape, c.dyShape), b);
    const double rhs = dot(a, unbroadcastB);
    EXPECT_NEAR(lhs, rhs, 1e-12 * std::max(1.0, std::abs(lhs)))
        << shapeName(c.dyShape) << " to " << shapeName(c.outShape);
  }
}

//===--- Thread-count independence ----------------------------------------===//

#ifdef _OPENMP

/// Every OpenMP kernel's float result, by name, on a graph and shapes large
/// enough for the kernels to use threads.
std::map<std::string, std::vector<float>> runAllKernels(const GraphView &g) {
  const int64_t width = 24, heads = 3;
  std::map<std::string, std::vector<float>> results;
  auto input = [](int64_t n, uint64_t seed) {
    return cast<float>(randomVector(n, seed));
  };
  const std::vector<float> x = input(g.numSrc * width, 30),
                           weight = input(g.numEdges * heads, 31),
                           dy = input(g.numDst * width, 32),
                           e = input(g.numEdges * width, 33);
  for (Reduce r : kAllReduces)
    for (bool selfLoops : {false, true}) {
      const std::string name = reduceName(r) + (selfLoops ? "+self" : "");
      std::vector<float> out(g.numDst * width), dx(x.size()), dw(weight.size()),
          de(e.size()), scattered(out.size());
      kernels::aggregate<float>(g, r, selfLoops, x.data(), width, weight.data(),
                                heads, out.data());
      kernels::aggregateGradInput<float>(g, r, selfLoops, dy.data(), x.data(),
                                         out.data(), width, weight.data(),
                                         heads, dx.data());
      kernels::aggregateGradWeight<float>(g, r, selfLoops, dy.data(), x.data(),
                                          out.data(), width, weight.data(),
                                          heads, dw.data());
      kernels::scatter<float>(g, r, e.data(), width, scattered.data());
      kernels::scatterGrad<float>(g, r, dy.data(), e.data(), scattered.data(),
                                  width, de.data());
      results["aggregate " + name] = out;
      results["aggregateGradInput " + name] = dx;
      results["aggregateGradWeight " + name] = dw;
      results["scatter " + name] = scattered;
      results["scatterGrad " + name] = de;
    }
  for (Side side : {Side::Src, Side::Dst}) {
    const std::string name = side == Side::Src ? "src" : "dst";
    const int64_t rows = side == Side::Src ? g.numSrc : g.numDst;
    std::vector<float> gathered(e.size()), dx(rows * width), deg(rows);
    kernels::gather<float>(g, side, x.data(), width, gathered.data());
    kernels::gatherGrad<float>(g, side, e.data(), width, dx.data());
    kernels::degree<float>(g, side, deg.data());
    results["gather " + name] = gathered;
    results["gatherGrad " + name] = dx;
    results["degree " + name] = deg;
  }
  const std::vector<float> dyEdges = input(g.numEdges * width, 38);
  std::vector<float> y(e.size()), ds(e.size());
  kernels::edgeSoftmax<float>(g, e.data(), width, y.data());
  kernels::edgeSoftmaxGrad<float>(g, dyEdges.data(), y.data(), width,
                                  ds.data());
  results["edgeSoftmax"] = y;
  results["edgeSoftmaxGrad"] = ds;

  for (const AxisShape &s : {AxisShape{3000, 7, 5}, AxisShape{1, 50, 700}}) {
    const std::vector<float> ax = input(s.size(), 34),
                             ady = input(s.size(), 35);
    std::vector<float> ay(ax.size()), adx(ax.size()), red(s.outer * s.inner),
        rdx(ax.size());
    kernels::softmax<float>(s.outer, s.n, s.inner, ax.data(), ay.data());
    kernels::softmaxGrad<float>(s.outer, s.n, s.inner, ady.data(), ay.data(),
                                adx.data());
    results["softmax " + s.name()] = ay;
    results["softmaxGrad " + s.name()] = adx;
    kernels::logSoftmax<float>(s.outer, s.n, s.inner, ax.data(), ay.data());
    kernels::logSoftmaxGrad<float>(s.outer, s.n, s.inner, ady.data(), ay.data(),
                                   adx.data());
    results["logSoftmax " + s.name()] = ay;
    results["logSoftmaxGrad " + s.name()] = adx;
    for (Reduce r : kAllReduces) {
      kernels::reduceAxis<float>(r, s.outer, s.n, s.inner, ax.data(),
                                 red.data());
      kernels::reduceAxisGrad<float>(r, s.outer, s.n, s.inner, ady.data(),
                                     ax.data(), red.data(), rdx.data());
      results["reduceAxis " + reduceName(r) + " " + s.name()] = red;
      results["reduceAxisGrad " + reduceName(r) + " " + s.name()] = rdx;
    }
    std::vector<float> joined(s.outer * (s.n + 2) * s.inner, 0.0f);
    kernels::copyIntoAxis<float>(s.outer, s.n, s.inner, ax.data(), s.n + 2, 1,
                                 joined.data());
    results["copyIntoAxis " + s.name()] = joined;
  }
  for (const BroadcastCase &c : {BroadcastCase{{500, 200}, {200}},
                                 BroadcastCase{{3000, 40}, {3000, 1}}}) {
    const std::vector<float> b = input(numel(c.dyShape), 36);
    std::vector<float> out(numel(c.outShape));
    kernels::unbroadcast<float>(b.data(), c.dyShape.data(),
                                int(c.dyShape.size()), out.data(),
                                c.outShape.data(), int(c.outShape.size()));
    results["unbroadcast " + shapeName(c.dyShape)] = out;
  }

  const int64_t rows = 5000, classes = 7;
  const std::vector<float> logits = input(rows * classes, 37);
  std::vector<int64_t> labels(rows);
  for (int64_t i = 0; i < rows; ++i)
    labels[i] = i % 11 == 0 ? -1 : i % classes;
  std::vector<float> dlogits(logits.size()), dropped(logits.size());
  results["crossEntropy"] = {kernels::crossEntropy<float>(
      rows, classes, logits.data(), labels.data(), nullptr)};
  kernels::crossEntropyGrad<float>(rows, classes, logits.data(), labels.data(),
                                   nullptr, 1.0f, dlogits.data());
  results["crossEntropyGrad"] = dlogits;
  kernels::dropout<float>(1, 2, 0.4, int64_t(logits.size()), logits.data(),
                          dropped.data());
  results["dropout"] = dropped;
  return results;
}

TEST(KernelsThreads, ResultsDoNotDependOnThreadCount) {
  GraphStorage storage = randomGraph(3000, 2000, 30000, 3);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = runAllKernels(storage.view());
  omp_set_num_threads(2);
  auto two = runAllKernels(storage.view());
  omp_set_num_threads(saved);
  ASSERT_EQ(one.size(), two.size());
  for (const auto &[name, values] : one) {
    const std::vector<float> &other = two.at(name);
    ASSERT_EQ(values.size(), other.size()) << name;
    EXPECT_EQ(
        std::memcmp(values.data(), other.data(), values.size() * sizeof(float)),
        0)
        << name << " differs between 1 and 2 threads";
  }
}

#endif // _OPENMP

//===--- Dropout ----------------------------------------------------------===//

TEST(KernelsDropout, SameSeedAndStreamGiveSameMask) {
  const int64_t n = 10000;
  const std::vector<float> x = cast<float>(randomVector(n, 40, 0.5, 1.5));
  const std::vector<float> dy = cast<float>(randomVector(n, 41, 0.5, 1.5));
  std::vector<float> a(n), b(n), adjoint(n), otherStream(n);
  kernels::dropout<float>(7, 3, 0.5, n, x.data(), a.data());
  kernels::dropout<float>(7, 3, 0.5, n, x.data(), b.data());
  kernels::dropout<float>(7, 3, 0.5, n, dy.data(), adjoint.data());
  kernels::dropout<float>(7, 4, 0.5, n, x.data(), otherStream.data());
  EXPECT_EQ(a, b);
  int64_t sameAsOtherStream = 0;
  for (int64_t i = 0; i < n; ++i) {
    // The backward (same seed and stream on dy) drops the same elements.
    EXPECT_EQ(a[i] == 0, adjoint[i] == 0) << i;
    sameAsOtherStream += (a[i] == 0) == (otherStream[i] == 0);
  }
  EXPECT_LT(sameAsOtherStream, n * 6 / 10);
}

TEST(KernelsDropout, MaskIsTheDocumentedFunctionOfSeedStreamAndIndex) {
  const int64_t n = 1003; // not a multiple of the 8 lanes of a block
  const double p = 0.3;
  const Vec x = randomVector(n, 42, 0.5, 1.5);
  Vec y(n);
  kernels::dropout<double>(5, 9, p, n, x.data(), y.data());
  const uint32_t threshold = uint32_t(std::ceil(p * 65536.0));
  for (int64_t i = 0; i < n; ++i) {
    const std::array<uint32_t, 4> bits = randomBits(5, 9, uint64_t(i / 8));
    const uint32_t lane = (bits[(i % 8) / 2] >> (16 * (i % 2))) & 0xFFFFu;
    EXPECT_EQ(y[i], lane >= threshold ? x[i] * (1.0 / (1.0 - p)) : 0.0) << i;
  }
}

TEST(KernelsDropout, KeepsOneMinusPAndRescales) {
  const int64_t n = 200000;
  const std::vector<double> ones(n, 1.0);
  for (double p : {0.1, 0.5, 0.8}) {
    std::vector<double> y(n);
    kernels::dropout<double>(11, 0, p, n, ones.data(), y.data());
    int64_t kept = 0;
    for (double v : y) {
      if (v != 0) {
        ++kept;
        EXPECT_DOUBLE_EQ(v, 1.0 / (1.0 - p));
      }
    }
    // Binomial standard deviation is at most 0.0012 here.
    EXPECT_NEAR(double(kept) / double(n), 1.0 - p, 0.006) << "p = " << p;
  }
  std::vector<double> y(n);
  kernels::dropout<double>(11, 0, 0.0, n, ones.data(), y.data());
  EXPECT_EQ(y, ones);
}

} // namespace
