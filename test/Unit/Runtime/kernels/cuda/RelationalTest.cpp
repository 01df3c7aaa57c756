//===- RelationalTest.cpp - Relational kernels against float64 ------------===//
//
// cuda::aggregateRelations, its two adjoints, aggregateRelationRows and its
// adjoint against the CPU kernels computed in double (an independent
// implementation: pairs reduced first, then one GEMM per relation), for sum
// and mean, on a typed graph with ragged rows (a destination with more
// in-edges than a block has threads), destinations without in-edges,
// parallel edges and relations without edges; float to rounding, double to
// 1e-12.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Relational.h"
#include "gnnrt/support/Random.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

constexpr int32_t kRelations = 6; // relation 5 gets no edge

/// raggedGraph's edges with relations 0..4 drawn per edge.
GraphStorage typedGraph(int64_t numSrc, int64_t numDst, int64_t m) {
  GraphStorage g = raggedGraph(numSrc, numDst, m, 11);
  CounterRng rng(12, 5);
  std::vector<int32_t> types(size_t(g.numEdges()));
  for (int32_t &t : types)
    t = int32_t(rng.nextBelow(kRelations - 1));
  g.setEdgeTypes(types, kRelations);
  return g;
}

template <typename T> std::vector<double> toDouble(const std::vector<T> &v) {
  return std::vector<double>(v.begin(), v.end());
}

template <typename T> std::vector<T> fromDouble(const std::vector<double> &v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T> void relationalCases() {
  const int64_t numSrc = 90, numDst = 70, inWidth = 7, outWidth = 33;
  const GraphStorage storage = typedGraph(numSrc, numDst, 500);
  const GraphView g = storage.view();
  DeviceGraph device(g);
  DeviceArray<int32_t> types(g.edgeType, size_t(g.numEdges));
  GraphView d = device.view;
  d.edgeType = types.get();
  d.relationIndex = nullptr;

  const auto x = randomValues<T>(numSrc * inWidth, 1);
  const auto w = randomValues<T>(kRelations * inWidth * outWidth, 2);
  const auto dy = randomValues<T>(numDst * outWidth, 3);
  // A table row per node of a larger graph, reached through ids.
  const int64_t tableRows = numSrc + 5;
  std::vector<int64_t> ids(static_cast<size_t>(numSrc));
  std::iota(ids.begin(), ids.end(), int64_t(5));
  const auto table = randomValues<T>(kRelations * tableRows * outWidth, 4);
  DeviceArray<T> dx(x), dw(w), ddy(dy), dtable(table);
  DeviceArray<int64_t> dids(ids);
  const double tol = tolerance<T>() * 4 * inWidth;

  for (Reduce reduce : {Reduce::Sum, Reduce::Mean}) {
    const std::string what = reduce == Reduce::Sum ? "sum" : "mean";
    std::vector<double> ref(size_t(numDst * outWidth));
    kernels::aggregateRelations<double>(g, reduce, toDouble(x).data(), inWidth,
                                        toDouble(w).data(), outWidth,
                                        ref.data());
    DeviceArray<T> out(std::vector<T>(ref.size(), T(7)));
    kernels::cuda::aggregateRelations<T>(d, reduce, dx.get(), inWidth, dw.get(),
                                         outWidth, out.get());
    expectClose(out.toHost(), fromDouble<T>(ref), tol, "forward " + what);

    std::vector<double> refDx(size_t(numSrc * inWidth));
    kernels::aggregateRelationsGradInput<double>(
        g, reduce, toDouble(dy).data(), toDouble(w).data(), inWidth, outWidth,
        refDx.data());
    DeviceArray<T> gx(std::vector<T>(refDx.size(), T(7)));
    kernels::cuda::aggregateRelationsGradInput<T>(
        d, reduce, ddy.get(), dw.get(), inWidth, outWidth, gx.get());
    expectClose(gx.toHost(), fromDouble<T>(refDx), tol, "input adjoint " + what);

    std::vector<double> refDw(size_t(kRelations * inWidth * outWidth));
    kernels::aggregateRelationsGradWeight<double>(
        g, reduce, toDouble(dy).data(), toDouble(x).data(), inWidth, outWidth,
        refDw.data());
    DeviceArray<T> gw(std::vector<T>(refDw.size(), T(7)));
    kernels::cuda::aggregateRelationsGradWeight<T>(
        d, reduce, ddy.get(), dx.get(), inWidth, outWidth, gw.get());
    expectClose(gw.toHost(), fromDouble<T>(refDw), tol * 40,
                "weight adjoint " + what);

    std::vector<double> refRows(size_t(numDst * outWidth));
    kernels::aggregateRelationRows<double>(g, reduce, toDouble(table).data(),
                                           tableRows, outWidth, ids.data(),
                                           refRows.data());
    DeviceArray<T> rows(std::vector<T>(refRows.size(), T(7)));
    kernels::cuda::aggregateRelationRows<T>(d, reduce, dtable.get(), tableRows,
                                            outWidth, dids.get(), rows.get());
    expectClose(rows.toHost(), fromDouble<T>(refRows), tol, "rows " + what);

    std::vector<double> refTable(table.size());
    kernels::aggregateRelationRowsGrad<double>(g, reduce, toDouble(dy).data(),
                                               tableRows, outWidth, ids.data(),
                                               refTable.data());
    DeviceArray<T> gtable(std::vector<T>(refTable.size(), T(7)));
    kernels::cuda::aggregateRelationRowsGrad<T>(d, reduce, ddy.get(), tableRows,
                                                outWidth, dids.get(),
                                                gtable.get());
    expectClose(gtable.toHost(), fromDouble<T>(refTable), tol,
                "rows adjoint " + what);
  }
}

TEST(CudaRelational, MatchesFloat64) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  relationalCases<float>();
  relationalCases<double>();
}

TEST(CudaRelational, RejectsMaxAndUntypedGraphs) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage untyped = raggedGraph(10, 10, 30, 1);
  EXPECT_THROW(kernels::cuda::aggregateRelations<float>(
                   untyped.view(), Reduce::Sum, nullptr, 1, nullptr, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::cuda::aggregateRelations<float>(
                   untyped.view(), Reduce::Max, nullptr, 1, nullptr, 1, nullptr),
               std::invalid_argument);
}

} // namespace
