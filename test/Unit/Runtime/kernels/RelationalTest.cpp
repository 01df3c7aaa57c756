//===- RelationalTest.cpp - aggregate_relations and its adjoints ----------===//
//
// The relation-batched aggregation against a float64 reference written the
// slow way (one [N, in] aggregation per relation, then one matrix product
// each, summed), for sum and mean, on typed graphs with parallel edges,
// destinations without edges, relations without edges and a block; its two
// adjoints by finite differences of a random linear functional; and the
// thread-count independence the kernels promise.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Relational.h"

#include "KernelTestUtil.h"
#include "gnnrt/support/Error.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <stdexcept>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

struct TypedGraph {
  std::string name;
  GraphStorage storage;
};

/// Typed versions of the corner-case graphs plus a larger random one: a
/// relation per edge from a fixed pattern, relation 3 of 5 never used.
std::vector<TypedGraph> typedGraphs() {
  std::vector<TypedGraph> graphs;
  auto typed = [](int64_t numSrc, int64_t numDst, std::vector<int64_t> src,
                  std::vector<int64_t> dst, int32_t numRelations,
                  uint64_t seed) {
    CounterRng rng(seed, 11);
    std::vector<int32_t> type(src.size());
    for (int32_t &t : type) {
      t = int32_t(rng.nextBelow(uint32_t(numRelations - 1)));
      if (t == 3)
        t = numRelations - 1; // relation 3 stays empty
    }
    return GraphStorage::build(numSrc, numDst, src, dst, type, numRelations);
  };
  graphs.push_back({"square", typed(7, 7, {2, 2, 1, 0, 4, 3, 4, 0, 1, 6, 3},
                                    {0, 0, 0, 1, 1, 3, 3, 2, 4, 4, 6}, 5, 1)});
  graphs.push_back(
      {"bipartite", typed(9, 4, {5, 8, 0, 7, 3, 6, 1, 8, 4, 2, 6, 0, 8},
                          {0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 0, 3, 3}, 5, 2)});
  {
    CounterRng rng(7, 5);
    const int64_t n = 300, m = 2500;
    std::vector<int64_t> src(m), dst(m);
    for (int64_t e = 0; e < m; ++e) {
      src[e] = rng.nextBelow(uint32_t(n));
      dst[e] = rng.nextBelow(uint32_t(n)) % (n - n / 8);
    }
    graphs.push_back({"random", typed(n, n, src, dst, 5, 3)});
  }
  return graphs;
}

/// sum_r (A_r x) @ w[r], each relation's aggregation done on its own.
Vec reference(const GraphView &g, Reduce reduce, const Vec &x, int64_t in,
              const Vec &w, int64_t out) {
  Vec y(size_t(g.numDst * out), 0.0);
  for (int32_t r = 0; r < g.numRelations; ++r) {
    for (int64_t v = 0; v < g.numDst; ++v) {
      Vec agg(size_t(in), 0.0);
      int64_t count = 0;
      for (int64_t k = 0; k < g.numEdges; ++k) {
        if (g.edgeDst[k] != v || g.edgeType[k] != r)
          continue;
        ++count;
        for (int64_t a = 0; a < in; ++a)
          agg[a] += x[g.edgeSrc[k] * in + a];
      }
      if (count == 0)
        continue;
      for (int64_t a = 0; a < in; ++a) {
        double s = reduce == Reduce::Mean ? agg[a] / double(count) : agg[a];
        for (int64_t b = 0; b < out; ++b)
          y[v * out + b] += s * w[(r * in + a) * out + b];
      }
    }
  }
  return y;
}

class RelationalTest : public ::testing::TestWithParam<Reduce> {};

TEST_P(RelationalTest, ForwardMatchesPerRelationReference) {
  const Reduce reduce = GetParam();
  for (const TypedGraph &tg : typedGraphs()) {
    GraphView g = tg.storage.view();
    for (auto [in, out] : {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {17, 4}}) {
      const int64_t R = g.numRelations;
      Vec x = randomVector(g.numSrc * in, 1), w = randomVector(R * in * out, 2);
      Vec expected = reference(g, reduce, x, in, w, out);
      std::vector<float> y(size_t(g.numDst * out), -7.0f);
      kernels::aggregateRelations<float>(g, reduce, cast<float>(x).data(), in,
                                         cast<float>(w).data(), out, y.data());
      expectNear(toDouble(y), expected, 1e-5,
                 tg.name + " in " + std::to_string(in));
      std::vector<double> yd(size_t(g.numDst * out), -7.0);
      kernels::aggregateRelations<double>(g, reduce, x.data(), in, w.data(),
                                          out, yd.data());
      expectNear(yd, expected, 1e-12, tg.name + " (double)");
    }
  }
}

TEST_P(RelationalTest, AdjointsMatchFiniteDifferences) {
  const Reduce reduce = GetParam();
  for (const TypedGraph &tg : typedGraphs()) {
    GraphView g = tg.storage.view();
    if (g.numEdges > 100)
      continue; // finite differences on the small graphs only
    const int64_t in = 3, out = 2, R = g.numRelations;
    Vec x = randomVector(g.numSrc * in, 4), w = randomVector(R * in * out, 5);
    // loss = <c, y>, so dy = c.
    Vec c = randomVector(g.numDst * out, 6);
    auto loss = [&] {
      Vec y(size_t(g.numDst * out));
      kernels::aggregateRelations<double>(g, reduce, x.data(), in, w.data(),
                                          out, y.data());
      return dot(c, y);
    };
    Vec dx(x.size()), dw(w.size());
    kernels::aggregateRelationsGradInput<double>(g, reduce, c.data(), w.data(),
                                                 in, out, dx.data());
    kernels::aggregateRelationsGradWeight<double>(g, reduce, c.data(), x.data(),
                                                  in, out, dw.data());
    expectGradient(x, dx, loss, tg.name + " dx");
    expectGradient(w, dw, loss, tg.name + " dw");
  }
}

TEST_P(RelationalTest, ResultsDoNotDependOnTheThreadCount) {
  const Reduce reduce = GetParam();
  // Large enough that the kernels go parallel.
  CounterRng rng(9, 1);
  const int64_t n = 4000, m = 60000, in = 16, out = 8;
  const int32_t R = 7;
  std::vector<int64_t> src(m), dst(m);
  std::vector<int32_t> type(m);
  for (int64_t e = 0; e < m; ++e) {
    src[e] = rng.nextBelow(uint32_t(n));
    dst[e] = rng.nextBelow(uint32_t(n));
    type[e] = int32_t(rng.nextBelow(uint32_t(R)));
  }
  GraphStorage storage = GraphStorage::build(n, n, src, dst, type, R);
  GraphView g = storage.view();
  std::vector<float> x = cast<float>(randomVector(n * in, 1)),
                     w = cast<float>(randomVector(R * in * out, 2)),
                     dy = cast<float>(randomVector(n * out, 3));
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    std::vector<float> y(size_t(n * out)), dx(size_t(n * in)),
        dw(size_t(R * in * out));
    kernels::aggregateRelations<float>(g, reduce, x.data(), in, w.data(), out,
                                       y.data());
    kernels::aggregateRelationsGradInput<float>(g, reduce, dy.data(), w.data(),
                                                in, out, dx.data());
    kernels::aggregateRelationsGradWeight<float>(g, reduce, dy.data(), x.data(),
                                                 in, out, dw.data());
    y.insert(y.end(), dx.begin(), dx.end());
    y.insert(y.end(), dw.begin(), dw.end());
    return y;
  };
  const int saved = omp_get_max_threads();
  std::vector<float> one = run(1), two = run(2);
  omp_set_num_threads(saved);
  EXPECT_EQ(one, two);
}

/// A typed storage indexes its relations once and its views carry the
/// index; a view the index does not describe (another graph's index, a copy
/// of the storage, none at all) gets the same results from an index built
/// for it.
TEST_P(RelationalTest, StorageIndexAndRebuiltIndexAgree) {
  const Reduce reduce = GetParam();
  std::vector<TypedGraph> graphs = typedGraphs();
  const GraphStorage &storage = graphs[2].storage, &other = graphs[0].storage;
  const GraphView g = storage.view();
  ASSERT_NE(g.relationIndex, nullptr);
  EXPECT_TRUE(g.relationIndex->describes(g));
  const int64_t in = 5, out = 3;
  std::vector<float> x = cast<float>(randomVector(g.numSrc * in, 4)),
                     w = cast<float>(randomVector(g.numRelations * in * out, 5)),
                     dy = cast<float>(randomVector(g.numDst * out, 6));
  auto run = [&](const GraphView &view) {
    std::vector<float> y(size_t(view.numDst * out)),
        dx(size_t(view.numSrc * in)), dw(size_t(view.numRelations * in * out));
    kernels::aggregateRelations<float>(view, reduce, x.data(), in, w.data(),
                                       out, y.data());
    kernels::aggregateRelationsGradInput<float>(view, reduce, dy.data(),
                                                w.data(), in, out, dx.data());
    kernels::aggregateRelationsGradWeight<float>(view, reduce, dy.data(),
                                                 x.data(), in, out, dw.data());
    y.insert(y.end(), dx.begin(), dx.end());
    y.insert(y.end(), dw.begin(), dw.end());
    return y;
  };
  const std::vector<float> indexed = run(g);
  GraphView none = g, stale = g;
  none.relationIndex = nullptr;
  stale.relationIndex = other.view().relationIndex;
  EXPECT_FALSE(stale.relationIndex->describes(stale));
  EXPECT_EQ(run(none), indexed);
  EXPECT_EQ(run(stale), indexed);
  const GraphStorage copy = storage;
  EXPECT_EQ(run(copy.view()), indexed);
}

/// aggregateRelationRows is aggregateRelations on one-hot inputs: with x the
/// identity over the table's rows (through nodeIds) and w the table.
TEST_P(RelationalTest, RelationRowsAreOneHotAggregation) {
  const Reduce reduce = GetParam();
  for (const TypedGraph &tg : typedGraphs()) {
    GraphView g = tg.storage.view();
    const int64_t R = g.numRelations, rows = g.numSrc + 3, width = 3;
    // Sources map to table rows in reverse, leaving 3 rows unread.
    std::vector<int64_t> ids(size_t(g.numSrc));
    for (int64_t u = 0; u < g.numSrc; ++u)
      ids[size_t(u)] = rows - 1 - u;
    Vec table = randomVector(R * rows * width, 7);
    Vec onehot(size_t(g.numSrc * rows), 0.0);
    for (int64_t u = 0; u < g.numSrc; ++u)
      onehot[size_t(u * rows + ids[size_t(u)])] = 1.0;
    Vec expected = reference(g, reduce, onehot, rows, table, width);
    Vec y(size_t(g.numDst * width));
    kernels::aggregateRelationRows<double>(g, reduce, table.data(), rows, width,
                                           ids.data(), y.data());
    expectNear(y, expected, 1e-12, tg.name);
    if (g.numEdges > 100)
      continue;
    Vec c = randomVector(g.numDst * width, 8), dtable(table.size());
    kernels::aggregateRelationRowsGrad<double>(g, reduce, c.data(), rows, width,
                                               ids.data(), dtable.data());
    expectGradient(
        table, dtable,
        [&] {
          Vec out(size_t(g.numDst * width));
          kernels::aggregateRelationRows<double>(g, reduce, table.data(), rows,
                                                 width, ids.data(), out.data());
          return dot(c, out);
        },
        tg.name + " dtable");
  }
}

TEST(RelationalErrors, RelationRowsCheckTheTableSize) {
  GraphStorage typed = GraphStorage::build(3, 3, {0, 2}, {1, 0}, {0, 1}, 2);
  std::vector<float> table(2 * 2 * 1), y(3);
  EXPECT_THROW(kernels::aggregateRelationRows<float>(typed.view(), Reduce::Sum,
                                                     table.data(), 2, 1,
                                                     nullptr, y.data()),
               std::out_of_range);
}

INSTANTIATE_TEST_SUITE_P(Reductions, RelationalTest,
                         ::testing::Values(Reduce::Sum, Reduce::Mean),
                         [](const auto &info) { return reduceName(info.param); });

TEST(RelationalErrors, MaxAndUntypedGraphsAreRejected) {
  GraphStorage plain = GraphStorage::build(2, 2, {0}, {1});
  std::vector<float> x(2), w(1), y(2);
  EXPECT_THROW(kernels::aggregateRelations<float>(plain.view(), Reduce::Sum,
                                                  x.data(), 1, w.data(), 1,
                                                  y.data()),
               std::invalid_argument);
  GraphStorage typed = GraphStorage::build(2, 2, {0}, {1}, {0}, 1);
  EXPECT_THROW(kernels::aggregateRelations<float>(typed.view(), Reduce::Max,
                                                  x.data(), 1, w.data(), 1,
                                                  y.data()),
               std::invalid_argument);
}

TEST(RelationalErrors, RelationIdsAreChecked) {
  EXPECT_THROW(GraphStorage::build(2, 2, {0, 1}, {1, 0}, {0, 2}, 2),
               DataError);
  EXPECT_THROW(GraphStorage::build(2, 2, {0, 1}, {1, 0}, {0}, 2), DataError);
}

} // namespace
