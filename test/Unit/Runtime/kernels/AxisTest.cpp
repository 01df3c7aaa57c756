//===- AxisTest.cpp - Axis operations and unbroadcast ---------------------===//
//
// Softmax, log-softmax and reductions along an axis, concat and slice,
// block-diagonal matrices and unbroadcast, against references (shapes wider
// than one column tile included), and their adjoints by finite differences.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Axis.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

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

const BroadcastCase kBroadcastCases[] = {
    {{4, 3}, {3}},          {{4, 3}, {4, 1}},
    {{4, 3}, {1, 1}},       {{4, 3}, {}},
    {{4, 3}, {4, 3}},       {{2, 3, 4}, {3, 1}},
    {{2, 1, 4}, {1, 4}},    {{5, 70}, {70}},
    {{3, 2, 5}, {3, 1, 5}}, {{2, 3, 1, 2, 2, 1, 3, 2}, {3, 1, 2, 1, 1, 3, 1}},
    {{2, 0, 3}, {3}},       {{2, 3, 4, 5}, {3, 1, 5}},
};

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

TEST(KernelsForward, BlockDiagonalAndItsAdjoint) {
  // [matrices, blocks, rows, cols]; the last one is big enough for threads.
  struct Case {
    int64_t m, b, i, o;
  };
  for (Case c : {Case{1, 1, 2, 3}, Case{3, 4, 2, 1}, Case{2, 3, 1, 5},
                 Case{5, 8, 16, 16}}) {
    const int64_t rows = c.b * c.i, cols = c.b * c.o;
    const Vec q = randomVector(c.m * c.b * c.i * c.o, 11);
    Vec w(c.m * rows * cols, -99);
    kernels::blockDiagonal<double>(c.m, c.b, c.i, c.o, q.data(), w.data());
    // By definition: entry (r, k) of matrix m is in block r / i, and is
    // zero unless its column is in the same block.
    Vec expected(w.size());
    for (int64_t m = 0; m < c.m; ++m)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          expected[(m * rows + r) * cols + k] =
              r / c.i == k / c.o
                  ? q[((m * c.b + r / c.i) * c.i + r % c.i) * c.o + k % c.o]
                  : 0.0;
    EXPECT_EQ(w, expected);

    // The adjoint: <blockDiagonal(q), dw> == <q, diagonalBlocks(dw)>, and
    // the diagonal blocks of blockDiagonal(q) are q.
    const Vec dw = randomVector(w.size(), 12);
    Vec dq(q.size(), -99), back(q.size(), -99);
    kernels::diagonalBlocks<double>(c.m, c.b, c.i, c.o, dw.data(), dq.data());
    kernels::diagonalBlocks<double>(c.m, c.b, c.i, c.o, w.data(), back.data());
    double lhs = 0, rhs = 0;
    for (size_t k = 0; k < w.size(); ++k)
      lhs += w[k] * dw[k];
    for (size_t k = 0; k < q.size(); ++k)
      rhs += q[k] * dq[k];
    EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(lhs)));
    EXPECT_EQ(back, q);
  }
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

/// A bias gradient adds its rows in blocks of kUnbroadcastBlockRows, then
/// the blocks (families/Axis.def): with 2^24 first and ones after it, each
/// one added to 2^24 is lost to rounding, but the second block's ones are
/// summed before they meet it. Row by row the column would sum to 2^24.
TEST(KernelsForward, UnbroadcastAddsBiasRowsInBlocks) {
  const int64_t rows = 2 * kUnbroadcastBlockRows;
  const int64_t dyShape[] = {rows, 33}, outShape[] = {33};
  std::vector<float> dy(size_t(rows * 33), 1.0f), out(33);
  std::fill(dy.begin(), dy.begin() + 33, 16777216.0f);
  kernels::unbroadcast<float>(dy.data(), dyShape, 2, out.data(), outShape, 1);
  for (float column : out)
    EXPECT_EQ(column, 16777216.0f + float(kUnbroadcastBlockRows));
}

TEST(KernelsForward, UnbroadcastRejectsIncompatibleShapes) {
  const int64_t dyShape[] = {4, 3}, outShape[] = {2};
  Vec dy(12), out(2);
  EXPECT_THROW(kernels::unbroadcast<double>(dy.data(), dyShape, 2, out.data(),
                                            outShape, 1),
               std::invalid_argument);
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

} // namespace
