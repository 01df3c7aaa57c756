//===- KernelTestUtil.h - What the kernel tests share -----------*- C++ -*-===//
//
// The kernel tests compare forward kernels with naive double-precision
// references written from the documented semantics (the family headers),
// in double and in float, on small graphs with the layout's corner cases: a
// bipartite block, a destination without in-edges, parallel edges, a self
// edge. Every adjoint is checked by central finite differences of
// loss = sum(r * forward) in double, i.e. against the forward kernel it
// differentiates. This header holds the data, the graphs, the reduction
// reference and the finite-difference check every family's test uses.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_KERNELS_KERNELTESTUTIL_H
#define GNNRT_TEST_KERNELS_KERNELTESTUTIL_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"
#include "gnnrt/support/Random.h"

#include "ScopedEnv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt::kerneltest {

using Vec = std::vector<double>;

const Reduce kAllReduces[] = {Reduce::Sum, Reduce::Mean, Reduce::Max,
                              Reduce::Min};

inline std::string reduceName(Reduce r) {
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

/// n values uniform in [lo, hi) with 53 random bits, so ties are unlikely.
inline Vec randomVector(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
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

inline double dot(const Vec &a, const Vec &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

inline void expectNear(const Vec &actual, const Vec &expected, double relTol,
                const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_LE(std::abs(actual[i] - expected[i]),
              relTol * std::max(1.0, std::abs(expected[i])))
        << what << " element " << i << ": " << actual[i] << " vs "
        << expected[i];
}

struct TestGraph {
  std::string name;
  GraphStorage storage;
};

/// Small graphs with every corner case of the layout.
inline std::vector<TestGraph> testGraphs() {
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
inline GraphStorage randomGraph(int64_t numSrc, int64_t numDst, int64_t m,
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
inline std::vector<std::vector<int64_t>> inEdgeLists(const GraphView &g) {
  std::vector<std::vector<int64_t>> lists(static_cast<size_t>(g.numDst));
  for (int64_t k = 0; k < g.numEdges; ++k)
    lists[g.edgeDst[k]].push_back(k);
  return lists;
}

/// The reduction of message rows (zeros if there are none).
inline Vec reduceRows(const std::vector<Vec> &rows, Reduce reduce, int64_t width) {
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

constexpr int64_t kWidth = 6;

/// A tensor viewed as [outer, n, inner] for the axis operations.
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

/// The shapes the axis and normalization kernels are tested on: more inner
/// columns than one tile (64), a single slice, a single column.
inline const AxisShape kAxisShapes[] = {
    {3, 5, 1}, {2, 4, 3}, {1, 6, 70}, {4, 1, 2}};

/// Elements of a shape.
inline int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A broadcast: dy's shape, and the shape it was broadcast from.
struct BroadcastCase {
  std::vector<int64_t> dyShape, outShape;
};

inline std::string shapeName(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

using test::ScopedEnv;

} // namespace gnnrt::kerneltest

#endif // GNNRT_TEST_KERNELS_KERNELTESTUTIL_H
