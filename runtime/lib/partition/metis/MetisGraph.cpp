//===- MetisGraph.cpp - Symmetrizing a dataset's edges for METIS ----------===//
//
// Every directed edge u -> v (u != v) enters both adjacency rows, u's and
// v's; rows are then sorted and repeats merged, counting how many directed
// edges each undirected pair stands for. With reverse edges added (the
// trainer's default) every pair counts 2, so the weights carry no
// information and are dropped; on a directed dataset some pairs count 1 and
// others 2, and the weights make METIS minimize the directed edge cut that
// decides communication. Rows are independent, so they sort in parallel
// with the same result for any thread count.
//
//===----------------------------------------------------------------------===//

#include "MetisGraph.h"

#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace gnnrt {

namespace {
constexpr int64_t kMaxIdx = std::numeric_limits<int32_t>::max();

[[noreturn]] void fail(const std::string &message) {
  throw DataError("partition: " + message);
}
} // namespace

MetisGraph buildMetisGraph(const Dataset &ds,
                           const std::vector<BalanceConstraint> &balance,
                           EdgeAssign assign) {
  if (balance.empty())
    fail("METIS needs at least one balance constraint");
  for (size_t i = 0; i < balance.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (balance[i] == balance[j])
        fail(std::string("balance constraint '") +
             balanceConstraintName(balance[i]) + "' is given twice");
  const int64_t n = ds.numNodes;
  if (n > kMaxIdx)
    fail("METIS takes at most 2^31 - 1 nodes (got " + std::to_string(n) + ")");

  MetisGraph g;
  g.numVertices = n;
  const std::vector<std::string> columns = constraintColumns(ds, balance);
  g.ncon = int(columns.size());

  // Vertex weights, one column per constraint (per node type for a typed
  // dataset's nodes); each column must sum to a positive value that METIS's
  // 32-bit arithmetic can hold. Unit node weights are METIS's default.
  if (!(columns.size() == 1 && balance[0] == BalanceConstraint::Nodes)) {
    std::vector<int64_t> weights = constraintWeights(ds, balance, assign);
    for (size_t c = 0; c < columns.size(); ++c) {
      int64_t total = 0;
      for (int64_t v = 0; v < n; ++v)
        total += weights[size_t(v) * columns.size() + c];
      if (total == 0)
        fail("cannot balance '" + columns[c] + "': every node has weight 0 (" +
             (columns[c] == "train" ? "the dataset has no training nodes)"
                                    : "the dataset has no edges)"));
      if (total > kMaxIdx)
        fail("the total weight of '" + columns[c] +
             "' exceeds METIS's 2^31 - 1");
    }
    g.vwgt.assign(weights.begin(), weights.end());
  }

  // Row lengths with every non-loop edge counted in both rows.
  std::vector<int64_t> offsets(size_t(n) + 1, 0);
  const int64_t m = ds.numEdges();
  for (int64_t e = 0; e < m; ++e) {
    int64_t u = ds.src[size_t(e)], v = ds.dst[size_t(e)];
    if (u == v)
      continue;
    ++offsets[size_t(u) + 1];
    ++offsets[size_t(v) + 1];
  }
  for (int64_t v = 0; v < n; ++v)
    offsets[size_t(v) + 1] += offsets[size_t(v)];
  if (offsets.back() > kMaxIdx)
    fail("METIS takes at most 2^31 - 1 adjacency entries (the graph has " +
         std::to_string(offsets.back()) + ")");

  std::vector<int32_t> adj(size_t(offsets.back()));
  {
    std::vector<int64_t> cursor(offsets.begin(), offsets.end() - 1);
    for (int64_t e = 0; e < m; ++e) {
      int64_t u = ds.src[size_t(e)], v = ds.dst[size_t(e)];
      if (u == v)
        continue;
      adj[size_t(cursor[size_t(u)]++)] = int32_t(v);
      adj[size_t(cursor[size_t(v)]++)] = int32_t(u);
    }
  }

  // Sort each row and merge repeats in place; a row's merged entries stay at
  // its start, with their multiplicities beside them.
  std::vector<int32_t> count(adj.size());
  std::vector<int64_t> length(static_cast<size_t>(n));
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t v = 0; v < n; ++v) {
    int32_t *row = adj.data() + offsets[size_t(v)];
    int32_t *mult = count.data() + offsets[size_t(v)];
    int64_t len = offsets[size_t(v) + 1] - offsets[size_t(v)];
    std::sort(row, row + len);
    int64_t out = 0;
    for (int64_t i = 0; i < len; ++i) {
      if (out > 0 && row[out - 1] == row[i]) {
        ++mult[out - 1];
      } else {
        row[out] = row[i];
        mult[out++] = 1;
      }
    }
    length[size_t(v)] = out;
  }

  // Compact rows to the front (moving left never overwrites unread data).
  g.xadj.resize(size_t(n) + 1);
  g.xadj[0] = 0;
  int64_t write = 0;
  bool uniform = true;
  for (int64_t v = 0; v < n; ++v) {
    int64_t from = offsets[size_t(v)];
    for (int64_t i = 0; i < length[size_t(v)]; ++i, ++write) {
      adj[size_t(write)] = adj[size_t(from + i)];
      count[size_t(write)] = count[size_t(from + i)];
      uniform = uniform && count[size_t(write)] == count[0];
    }
    g.xadj[size_t(v) + 1] = int32_t(write);
  }
  adj.resize(size_t(write));
  adj.shrink_to_fit();
  g.adjncy = std::move(adj);
  if (!uniform) {
    count.resize(size_t(write));
    count.shrink_to_fit();
    g.adjwgt = std::move(count);
  }
  return g;
}

} // namespace gnnrt
