//===- AxisTest.cpp - Axis CUDA kernels against the CPU's -----------------===//
//
// Softmaxes, reductions, concatenation, slicing and the adjoint of
// broadcasting on a device against the CPU kernels (gnnrt/kernels/Axis.h,
// themselves checked against naive loops and finite differences), on
// shapes with a long axis (300, longer than a block), an empty one, and
// 257 columns: the same bits, but for the exponentials and logarithms a
// device takes from its own libm (to rounding).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Axis.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

struct Shape {
  int64_t outer, n, inner;
  int64_t size() const { return outer * n * inner; }
  std::string name() const {
    return "[" + std::to_string(outer) + ", " + std::to_string(n) + ", " +
           std::to_string(inner) + "]";
  }
};

const Shape kShapes[] = {{1, 1, 1}, {3, 7, 5},   {2, 300, 3},
                         {4, 0, 3}, {1, 5, 257}, {6, 33, 1}};

const Reduce kAllReduces[] = {Reduce::Sum, Reduce::Mean, Reduce::Max,
                              Reduce::Min};

template <typename T> void softmaxes() {
  for (const Shape &s : kShapes) {
    const auto x = randomValues<T>(s.size(), 1, -3, 3);
    const auto dy = randomValues<T>(s.size(), 2);
    for (bool log : {false, true}) {
      const std::string what = (log ? "logSoftmax " : "softmax ") + s.name();
      std::vector<T> y(x.size()), dx(x.size());
      (log ? kernels::logSoftmax<T>
           : kernels::softmax<T>)(s.outer, s.n, s.inner, x.data(), y.data());
      DeviceArray<T> dX(x), dY(x.size());
      (log ? kernels::cuda::logSoftmax<T>
           : kernels::cuda::softmax<T>)(s.outer, s.n, s.inner, dX.get(),
                                        dY.get());
      expectClose(dY.toHost(), y, tolerance<T>(), what);

      (log ? kernels::logSoftmaxGrad<T>
           : kernels::softmaxGrad<T>)(s.outer, s.n, s.inner, dy.data(),
                                      y.data(), dx.data());
      DeviceArray<T> dDy(dy), dYExact(y), dDx(x.size());
      (log ? kernels::cuda::logSoftmaxGrad<T>
           : kernels::cuda::softmaxGrad<T>)(s.outer, s.n, s.inner, dDy.get(),
                                            dYExact.get(), dDx.get());
      if (log) // exp(y)
        expectClose(dDx.toHost(), dx, tolerance<T>(), what + " grad");
      else
        expectSameBits(dDx.toHost(), dx, what + " grad");
    }
  }
}

TEST(CudaAxis, SoftmaxesAndTheirAdjointsMatchCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  softmaxes<float>();
  softmaxes<double>();
}

template <typename T> void reductions() {
  for (const Shape &s : kShapes)
    for (Reduce kind : kAllReduces) {
      const std::string what =
          "reduce " + std::to_string(int(kind)) + " " + s.name();
      const auto x = randomValues<T>(s.size(), 3);
      std::vector<T> y(size_t(s.outer * s.inner));
      kernels::reduceAxis(kind, s.outer, s.n, s.inner, x.data(), y.data());
      DeviceArray<T> dX(x), dY(y.size());
      kernels::cuda::reduceAxis(kind, s.outer, s.n, s.inner, dX.get(),
                                dY.get());
      expectSameBits(dY.toHost(), y, what);

      const auto dy = randomValues<T>(s.outer * s.inner, 4);
      std::vector<T> dx(x.size());
      kernels::reduceAxisGrad(kind, s.outer, s.n, s.inner, dy.data(), x.data(),
                              y.data(), dx.data());
      DeviceArray<T> dDy(dy), dDx(x.size());
      kernels::cuda::reduceAxisGrad(kind, s.outer, s.n, s.inner, dDy.get(),
                                    dX.get(), dY.get(), dDx.get());
      expectSameBits(dDx.toHost(), dx, what + " grad");
    }
}

TEST(CudaAxis, ReductionsAndTheirAdjointsSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  reductions<float>();
  reductions<double>();
}

TEST(CudaAxis, ConcatAndSliceMoveTheSameElements) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const int64_t outer = 3, total = 10, inner = 257, offset = 4, n = 5;
  const auto x = randomValues<float>(outer * n * inner, 5);
  const auto base = randomValues<float>(outer * total * inner, 6);
  std::vector<float> expected = base;
  kernels::copyIntoAxis(outer, n, inner, x.data(), total, offset,
                        expected.data());
  DeviceArray<float> dX(x), dOut(base);
  kernels::cuda::copyIntoAxis(outer, n, inner, dX.get(), total, offset,
                              dOut.get());
  expectSameBits(dOut.toHost(), expected, "copyIntoAxis");

  std::vector<float> slice(x.size());
  kernels::sliceAxis(outer, total, inner, base.data(), offset, n, slice.data());
  DeviceArray<float> dBase(base), dSlice(x.size());
  kernels::cuda::sliceAxis(outer, total, inner, dBase.get(), offset, n,
                           dSlice.get());
  expectSameBits(dSlice.toHost(), slice, "sliceAxis");
}

TEST(CudaAxis, UnbroadcastSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  struct Case {
    std::vector<int64_t> dy, out;
  };
  const Case cases[] = {
      {{4, 300}, {300}},
      {{4, 300}, {4, 1}},
      {{2, 3, 5, 7}, {3, 1, 7}},
      {{2, 1, 257}, {1, 1, 1}},
      {{5, 6}, {5, 6}},
      {{0, 3}, {3}},
      {{3, 4, 5}, {}},
      // Bias gradients over more than one block of rows (families/Axis.def):
      // the rows leading, in the middle, with dims of size 1 between.
      {{1000, 37}, {37}},
      {{600, 3, 5}, {3, 5}},
      {{2, 700, 9}, {2, 1, 9}},
      {{700, 1, 33}, {1, 33}},
      {{3, 1, 300, 1, 4}, {1, 4}}};
  for (const Case &c : cases) {
    int64_t dySize = 1, outSize = 1;
    for (int64_t d : c.dy)
      dySize *= d;
    for (int64_t d : c.out)
      outSize *= d;
    const auto dy = randomValues<double>(dySize, 7);
    std::vector<double> expected(static_cast<size_t>(outSize));
    kernels::unbroadcast(dy.data(), c.dy.data(), int(c.dy.size()),
                         expected.data(), c.out.data(), int(c.out.size()));
    DeviceArray<double> dDy(dy), dOut{size_t(outSize)};
    kernels::cuda::unbroadcast(dDy.get(), c.dy.data(), int(c.dy.size()),
                               dOut.get(), c.out.data(), int(c.out.size()));
    expectSameBits(dOut.toHost(), expected,
                   "unbroadcast to rank " + std::to_string(c.out.size()));
  }
  const int64_t dyShape[] = {4, 3}, outShape[] = {2, 3};
  try {
    kernels::cuda::unbroadcast<float>(nullptr, dyShape, 2, nullptr, outShape,
                                      2);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(),
                 "unbroadcast: dimension 0 of size 4 cannot be reduced to 2");
  }
}

/// R-GCN's block-diagonal matrices from their blocks and back: the CPU's
/// bits, zeros off the blocks, and diagonalBlocks(blockDiagonal(q)) == q.
template <typename T> void blockDiagonals() {
  struct Blocks {
    int64_t matrices, blocks, rows, cols;
  };
  for (const Blocks &b : {Blocks{3, 2, 4, 3}, Blocks{1, 1, 1, 1},
                          Blocks{2, 4, 1, 5}, Blocks{0, 2, 2, 2},
                          Blocks{2, 3, 33, 40}}) {
    const std::string what =
        "[" + std::to_string(b.matrices) + ", " + std::to_string(b.blocks) +
        ", " + std::to_string(b.rows) + ", " + std::to_string(b.cols) + "]";
    const int64_t blockSize = b.matrices * b.blocks * b.rows * b.cols;
    const int64_t denseSize =
        b.matrices * b.blocks * b.rows * b.blocks * b.cols;
    const auto q = randomValues<T>(blockSize, 3);
    std::vector<T> w(static_cast<size_t>(denseSize));
    kernels::blockDiagonal<T>(b.matrices, b.blocks, b.rows, b.cols, q.data(),
                              w.data());
    DeviceArray<T> dQ(q), dW(w.size());
    kernels::cuda::blockDiagonal<T>(b.matrices, b.blocks, b.rows, b.cols,
                                    dQ.get(), dW.get());
    const std::vector<T> dense = dW.toHost();
    expectSameBits(dense, w, "blockDiagonal " + what);
    int64_t nonzero = 0;
    for (T v : dense)
      nonzero += v != T(0);
    EXPECT_LE(nonzero, blockSize) << what;

    const auto dy = randomValues<T>(denseSize, 4);
    std::vector<T> dq(static_cast<size_t>(blockSize));
    kernels::diagonalBlocks<T>(b.matrices, b.blocks, b.rows, b.cols, dy.data(),
                               dq.data());
    DeviceArray<T> dDy(dy), dDq(dq.size());
    kernels::cuda::diagonalBlocks<T>(b.matrices, b.blocks, b.rows, b.cols,
                                     dDy.get(), dDq.get());
    expectSameBits(dDq.toHost(), dq, "diagonalBlocks " + what);
    DeviceArray<T> back(q.size());
    kernels::cuda::diagonalBlocks<T>(b.matrices, b.blocks, b.rows, b.cols,
                                     dW.get(), back.get());
    expectSameBits(back.toHost(), q, "diagonalBlocks(blockDiagonal) " + what);
  }
}

TEST(CudaAxis, BlockDiagonalAndItsAdjointSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  blockDiagonals<float>();
  blockDiagonals<double>();
}

} // namespace
