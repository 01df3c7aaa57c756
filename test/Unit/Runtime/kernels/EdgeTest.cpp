//===- EdgeTest.cpp - gather, scatter, edge softmax, degree ---------------===//
//
// The per-edge kernels against references, and their adjoints by finite
// differences.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Edge.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

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

} // namespace
