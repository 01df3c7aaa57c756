//===- NormTest.cpp - Batch normalization on CUDA against the CPU ---------===//
//
// Batch normalization, its adjoint, evaluation with running statistics and
// a step's change of them on a device against the CPU kernels
// (gnnrt/kernels/Norm.h, themselves checked against float64 and finite
// differences), on shapes with a long axis (300, longer than a block), an
// empty one, a single row and 257 columns: the same bits.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Norm.h"
#include "kernels/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

using kerneltest::AxisShape;

const AxisShape kShapes[] = {{1, 1, 1}, {3, 7, 5},   {2, 300, 3},
                         {4, 0, 3}, {1, 5, 257}, {6, 33, 1}};

template <typename T> void batchNorms() {
  for (const AxisShape &s : kShapes) {
    const std::string what = "batchNorm " + s.name();
    const auto x = randomValues<T>(s.size(), 5, -3, 3);
    std::vector<T> y(x.size());
    kernels::batchNorm<T>(s.outer, s.n, s.inner, 1e-5, x.data(), y.data());
    DeviceArray<T> dX(x), dY(x.size());
    kernels::cuda::batchNorm<T>(s.outer, s.n, s.inner, 1e-5, dX.get(),
                                dY.get());
    expectSameBits(dY.toHost(), y, what);

    const auto dy = randomValues<T>(s.size(), 6);
    std::vector<T> dx(x.size());
    kernels::batchNormGrad<T>(s.outer, s.n, s.inner, 1e-5, dy.data(),
                              x.data(), y.data(), dx.data());
    DeviceArray<T> dDy(dy), dDx(x.size());
    kernels::cuda::batchNormGrad<T>(s.outer, s.n, s.inner, 1e-5, dDy.get(),
                                    dX.get(), dY.get(), dDx.get());
    expectSameBits(dDx.toHost(), dx, what + " grad");

    // Running statistics: evaluation with them, a step's change of them.
    const int64_t columns = s.outer * s.inner;
    const auto mean = randomValues<T>(columns, 7, -1, 1);
    const auto var = randomValues<T>(columns, 8, 0.5, 2);
    std::vector<T> z(x.size());
    kernels::batchNormInference<T>(s.outer, s.n, s.inner, 1e-5, x.data(),
                                   mean.data(), var.data(), z.data());
    DeviceArray<T> dMean(mean), dVar(var), dZ(x.size());
    kernels::cuda::batchNormInference<T>(s.outer, s.n, s.inner, 1e-5, dX.get(),
                                         dMean.get(), dVar.get(), dZ.get());
    expectSameBits(dZ.toHost(), z, what + " inference");
    for (bool variance : {false, true}) {
      std::vector<T> change(static_cast<size_t>(columns));
      const T *running = variance ? var.data() : mean.data();
      kernels::batchNormRunningChange<T>(s.outer, s.n, s.inner, variance, 0.1,
                                         x.data(), running, change.data());
      DeviceArray<T> dChange(change.size());
      kernels::cuda::batchNormRunningChange<T>(
          s.outer, s.n, s.inner, variance, 0.1, dX.get(),
          variance ? dVar.get() : dMean.get(), dChange.get());
      expectSameBits(dChange.toHost(), change,
                     what + (variance ? " running variance" : " running mean"));
    }
  }
}

TEST(CudaNorm, BatchNormAndItsAdjointSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  batchNorms<float>();
  batchNorms<double>();
}

} // namespace
