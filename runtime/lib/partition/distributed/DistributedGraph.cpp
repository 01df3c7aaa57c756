//===- DistributedGraph.cpp - Edges by source block, ParMETIS's input -----===//
//
// Two all_to_alls turn the ranks' stripes of the edge file into the
// partitioner's input. The first sends every edge (and its reverse) to the
// owner of its source; a local sort then gives each rank a contiguous run
// of the loaded edge list. The second sends each non-loop edge to the owner
// of its destination, which completes every row of the symmetrized graph
// (a row holds the node's out- and in-neighbours, repeats merged and
// counted, as MetisGraph.cpp does in one process) and counts in-degrees.
//
//===----------------------------------------------------------------------===//

#include "DistributedGraph.h"

#include "RankCollectives.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <limits>

namespace gnnrt {

namespace {
struct EdgeKey {
  int64_t src, dst;
  bool operator<(const EdgeKey &o) const {
    return src != o.src ? src < o.src : dst < o.dst;
  }
  bool operator==(const EdgeKey &o) const {
    return src == o.src && dst == o.dst;
  }
};

/// An edge and its relation (-1 untyped): repeats are whole triples.
struct TypedEdgeKey {
  int64_t src, dst;
  int32_t type;
  bool operator<(const TypedEdgeKey &o) const {
    return src != o.src   ? src < o.src
           : dst != o.dst ? dst < o.dst
                          : type < o.type;
  }
  bool operator==(const TypedEdgeKey &o) const {
    return src == o.src && dst == o.dst && type == o.type;
  }
};

constexpr int64_t kMaxParmetisIdx = std::numeric_limits<int32_t>::max();
} // namespace

int blockOwner(const std::vector<int64_t> &vtxdist, int64_t v) {
  return int(std::upper_bound(vtxdist.begin(), vtxdist.end(), v) -
             vtxdist.begin()) -
         1;
}

namespace {

/// The first all_to_all: record i < m (slice edge i) and, with
/// addReverseEdges, record m + i (its reverse) go to the owner of their
/// source's block, which adds its nodes' self loops (record -1) and sorts
/// them without repeats. `key(src, dst, record)` makes a record's key (16
/// bytes untyped, 24 with a relation: untyped graphs do not pay for one).
/// Fills out's src, dst, firstEdgeId and numEdges; returns the keys.
template <typename Key, typename MakeKey>
std::vector<Key> sortedBySource(Communicator &comm, DatasetSlice &slice,
                                const LoadOptions &options,
                                DistributedEdges &out, MakeKey key) {
  const int p = comm.size(), rank = comm.rank();
  const int64_t m = int64_t(slice.src.size());
  const int64_t records = options.addReverseEdges ? 2 * m : m;
  std::vector<Key> edges = exchangeRecords<Key>(
      comm, records,
      [&](int64_t i) {
        return out.blockOwner(i < m ? slice.src[size_t(i)]
                                    : slice.dst[size_t(i - m)]);
      },
      [&](int64_t i) {
        return i < m
                   ? key(slice.src[size_t(i)], slice.dst[size_t(i)], i)
                   : key(slice.dst[size_t(i - m)], slice.src[size_t(i - m)], i);
      });
  slice.src = {};
  slice.dst = {};
  slice.edgeType = {};
  if (options.addSelfLoops)
    for (int64_t v = out.vtxdist[size_t(rank)];
         v < out.vtxdist[size_t(rank) + 1]; ++v)
      edges.push_back(key(v, v, -1));
  // Sorted by (src, dst) without repeats: loadDataset's order with dedupe
  // (a typed one's repeats are whole triples).
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  out.src.resize(edges.size());
  out.dst.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    out.src[e] = edges[e].src;
    out.dst[e] = edges[e].dst;
  }
  std::vector<int64_t> counts = allGather(comm, int64_t(edges.size()));
  for (int r = 0; r < p; ++r) {
    if (r < rank)
      out.firstEdgeId += counts[size_t(r)];
    out.numEdges += counts[size_t(r)];
  }
  return edges;
}

/// The ranks' node blocks: each holds about the same number of nodes plus
/// loaded edges (by source, as sortedBySource sends them), so that a
/// skewed graph's edges do not pile up on one rank (equal node blocks of
/// the 2M-node mag graph gave the papers' rank 71% of the edges, and that
/// rank twice the other's memory). Blocks are cut at multiples of a grain
/// of ids, from a histogram of the slices' edges every rank adds to; each
/// rank gets at least one grain. Collective.
std::vector<int64_t> balancedBlocks(Communicator &comm,
                                    const DatasetSlice &slice,
                                    const LoadOptions &options) {
  const int64_t p = comm.size(), n = slice.numNodes;
  std::vector<int64_t> vtxdist(size_t(p) + 1, n);
  for (int64_t r = 0; r < p; ++r)
    vtxdist[size_t(r)] = nodeBlock(n, int(r), int(p)).first;
  const int64_t grain = std::min<int64_t>(1024, n / (16 * p));
  if (grain < 1)
    return vtxdist; // a tiny graph: equal node blocks
  const int64_t buckets = (n + grain - 1) / grain;
  std::vector<int64_t> weight(size_t(buckets), 0);
  for (int64_t v : slice.src)
    ++weight[size_t(v / grain)];
  if (options.addReverseEdges)
    for (int64_t v : slice.dst)
      ++weight[size_t(v / grain)];
  comm.allReduceSum(weight.data(), buckets);
  const int64_t perNode = options.addSelfLoops ? 2 : 1;
  int64_t total = 0;
  for (int64_t b = 0; b < buckets; ++b) {
    weight[size_t(b)] += perNode * (std::min(n, (b + 1) * grain) - b * grain);
    total += weight[size_t(b)];
  }
  // Rank r's block ends after the bucket that brings the running sum to
  // r / p of the total, leaving every rank a bucket at least.
  int64_t sum = 0, b = 0; // buckets [0, b) belong to the ranks before r
  for (int64_t r = 1; r < p; ++r) {
    const int64_t least = b + 1, most = buckets - (p - r);
    while (b < most && (b < least || sum + weight[size_t(b)] <= total * r / p))
      sum += weight[size_t(b++)];
    vtxdist[size_t(r)] = b * grain;
  }
  return vtxdist;
}

} // namespace

DistributedEdges distributeEdges(Communicator &comm, DatasetSlice &slice,
                                 const LoadOptions &options) {
  const int p = comm.size(), rank = comm.rank();
  DistributedEdges out;
  out.numNodes = slice.numNodes;
  out.vtxdist = balancedBlocks(comm, slice, options);
  if (!slice.isTyped()) {
    sortedBySource<EdgeKey>(comm, slice, options, out,
                            [](int64_t src, int64_t dst, int64_t) {
                              return EdgeKey{src, dst};
                            });
    return out;
  }
  // A reversed edge takes its relation's inverse (id R + stored
  // relations), a self loop `self` (the last), as finalizeDataset has them.
  const int64_t m = int64_t(slice.src.size());
  const int32_t stored = int32_t(slice.relations.size());
  const int32_t numRelations =
      int32_t(relationsAfterLoad(slice.relations, options).size());
  std::vector<TypedEdgeKey> edges = sortedBySource<TypedEdgeKey>(
      comm, slice, options, out, [&](int64_t src, int64_t dst, int64_t i) {
        const int32_t type = i < 0   ? numRelations - 1
                             : i < m ? slice.edgeType[size_t(i)]
                                     : slice.edgeType[size_t(i - m)] + stored;
        return TypedEdgeKey{src, dst, type};
      });
  // A typed load's edge list runs by (relation, src, dst): relation t's
  // edges start after every lower relation's, and within t the ranks'
  // (src, dst) runs follow one another, blocks of sources being in order.
  std::vector<int64_t> perRelation(size_t(numRelations) * size_t(p), 0);
  for (const TypedEdgeKey &e : edges)
    ++perRelation[size_t(e.type) * size_t(p) + size_t(rank)];
  comm.allReduceSum(perRelation.data(), int64_t(perRelation.size()));
  std::vector<int64_t> next(size_t(numRelations), 0);
  int64_t before = 0;
  for (int32_t t = 0; t < numRelations; ++t) {
    next[size_t(t)] = before;
    for (int r = 0; r < p; ++r) {
      if (r < rank)
        next[size_t(t)] += perRelation[size_t(t) * size_t(p) + size_t(r)];
      before += perRelation[size_t(t) * size_t(p) + size_t(r)];
    }
  }
  out.type.resize(edges.size());
  out.ids.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    out.type[e] = edges[e].type;
    out.ids[e] = next[size_t(edges[e].type)]++;
  }
  return out;
}

DistributedMetisGraph
buildDistributedMetisGraph(Communicator &comm, const DistributedEdges &edges,
                           const std::vector<int64_t> &trainIdx,
                           const std::vector<BalanceConstraint> &balance,
                           EdgeAssign assign) {
  const int rank = comm.rank();
  const int64_t begin = edges.nodeBegin(rank),
                end = edges.vtxdist[size_t(rank) + 1], n = end - begin;
  DistributedMetisGraph g;
  g.numLocal = n;
  g.ncon = int(balance.size());
  if (edges.numNodes > kMaxParmetisIdx)
    throw DataError("partition: ParMETIS takes at most 2^31 - 1 nodes (got " +
                    std::to_string(edges.numNodes) + ")");

  // Every non-loop edge u -> v enters row u here and row v at v's owner.
  const int64_t m = int64_t(edges.src.size());
  std::vector<EdgeKey> incoming = exchangeRecords<EdgeKey>(
      comm, m,
      [&](int64_t e) {
        return edges.src[size_t(e)] == edges.dst[size_t(e)]
                   ? -1
                   : edges.blockOwner(edges.dst[size_t(e)]);
      },
      [&](int64_t e) {
        return EdgeKey{edges.dst[size_t(e)], edges.src[size_t(e)]};
      });

  // Constraint weights: the edges a node places are its in-edges (the
  // incoming records plus its self loop) under Dst, its out-edges under Src.
  std::vector<int64_t> placed(static_cast<size_t>(n), 0);
  if (assign == EdgeAssign::Dst) {
    for (const EdgeKey &r : incoming)
      ++placed[size_t(r.src - begin)];
    for (int64_t e = 0; e < m; ++e)
      if (edges.src[size_t(e)] == edges.dst[size_t(e)])
        ++placed[size_t(edges.src[size_t(e)] - begin)];
  } else {
    for (int64_t e = 0; e < m; ++e)
      ++placed[size_t(edges.src[size_t(e)] - begin)];
  }
  const size_t ncon = balance.size();
  g.vwgt.assign(size_t(n) * ncon, 0);
  for (size_t c = 0; c < ncon; ++c) {
    for (int64_t v = 0; v < n; ++v)
      g.vwgt[size_t(v) * ncon + c] = balance[c] == BalanceConstraint::Nodes ? 1
                                     : balance[c] == BalanceConstraint::Edges
                                         ? placed[size_t(v)]
                                         : 0;
    if (balance[c] == BalanceConstraint::Train)
      for (int64_t v : trainIdx)
        if (v >= begin && v < end)
          g.vwgt[size_t(v - begin) * ncon + c] = 1;
  }
  g.totals.assign(ncon, 0);
  for (int64_t v = 0; v < n; ++v)
    for (size_t c = 0; c < ncon; ++c)
      g.totals[c] += g.vwgt[size_t(v) * ncon + c];
  comm.allReduceSum(g.totals.data(), int64_t(ncon));
  for (size_t c = 0; c < ncon; ++c)
    if (g.totals[c] == 0)
      throw DataError(std::string("partition: cannot balance '") +
                      balanceConstraintName(balance[c]) +
                      "': every node has weight 0 (" +
                      (balance[c] == BalanceConstraint::Train
                           ? "the dataset has no training nodes)"
                           : "the dataset has no edges)"));

  // Rows: counting sort of (row, neighbour) by row, then sort and merge
  // each row, counting how many directed edges every pair stands for.
  std::vector<int64_t> offsets(size_t(n) + 1, 0);
  for (int64_t e = 0; e < m; ++e)
    if (edges.src[size_t(e)] != edges.dst[size_t(e)])
      ++offsets[size_t(edges.src[size_t(e)] - begin) + 1];
  for (const EdgeKey &r : incoming)
    ++offsets[size_t(r.src - begin) + 1];
  for (int64_t v = 0; v < n; ++v)
    offsets[size_t(v) + 1] += offsets[size_t(v)];
  std::vector<int64_t> adj(size_t(offsets[size_t(n)]));
  {
    std::vector<int64_t> cursor(offsets.begin(), offsets.end() - 1);
    for (int64_t e = 0; e < m; ++e)
      if (edges.src[size_t(e)] != edges.dst[size_t(e)])
        adj[size_t(cursor[size_t(edges.src[size_t(e)] - begin)]++)] =
            edges.dst[size_t(e)];
    for (const EdgeKey &r : incoming)
      adj[size_t(cursor[size_t(r.src - begin)]++)] = r.dst;
  }
  incoming = {};
  std::vector<int32_t> count(adj.size());
  std::vector<int64_t> length(static_cast<size_t>(n));
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t v = 0; v < n; ++v) {
    int64_t *row = adj.data() + offsets[size_t(v)];
    int32_t *mult = count.data() + offsets[size_t(v)];
    int64_t len = offsets[size_t(v) + 1] - offsets[size_t(v)], out = 0;
    std::sort(row, row + len);
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
  int64_t entries = 0;
  for (int64_t v = 0; v < n; ++v)
    entries += length[size_t(v)];
  // ParMETIS (PT-Scotch's build) counts adjacency entries in 32 bits too.
  const std::vector<int64_t> perRank = allGather(comm, entries);
  int64_t total = 0;
  for (int64_t c : perRank)
    total += c;
  if (total > kMaxParmetisIdx)
    throw DataError("partition: PT-Scotch takes at most 2^31 - 1 adjacency "
                    "entries (the graph has " +
                    std::to_string(total) + ")");
  g.xadj.resize(size_t(n) + 1);
  g.xadj[0] = 0;
  g.adjncy.resize(size_t(entries));
  g.adjwgt.resize(size_t(entries));
  int64_t write = 0, lowest = kMaxParmetisIdx, highest = 0;
  for (int64_t v = 0; v < n; ++v) {
    for (int64_t i = 0; i < length[size_t(v)]; ++i, ++write) {
      const int64_t from = offsets[size_t(v)] + i;
      g.adjncy[size_t(write)] = int32_t(adj[size_t(from)]);
      g.adjwgt[size_t(write)] = count[size_t(from)];
      lowest = std::min<int64_t>(lowest, count[size_t(from)]);
      highest = std::max<int64_t>(highest, count[size_t(from)]);
    }
    g.xadj[size_t(v) + 1] = int32_t(write);
  }
  // Uniform weights carry no information; METIS then gets unit weights.
  const std::vector<int64_t> lows = allGather(comm, lowest),
                             highs = allGather(comm, highest);
  if (total == 0 || *std::min_element(lows.begin(), lows.end()) ==
                        *std::max_element(highs.begin(), highs.end()))
    g.adjwgt = {};
  return g;
}

std::vector<int32_t> foldedVertexWeights(const DistributedMetisGraph &g) {
  const size_t ncon = size_t(g.ncon);
  const int64_t largest = *std::max_element(g.totals.begin(), g.totals.end());
  std::vector<int64_t> scale(ncon);
  int64_t total = 0;
  for (size_t c = 0; c < ncon; ++c) {
    scale[c] = std::max<int64_t>(1, (largest + g.totals[c] / 2) / g.totals[c]);
    total += scale[c] * g.totals[c];
  }
  if (total > std::numeric_limits<int32_t>::max())
    throw DataError("partition: the combined vertex weights exceed "
                    "2^31 - 1 (balance fewer constraints)");
  std::vector<int32_t> w(size_t(g.numLocal), 0);
  for (int64_t v = 0; v < g.numLocal; ++v) {
    int64_t sum = 0;
    for (size_t c = 0; c < ncon; ++c)
      sum += scale[c] * g.vwgt[size_t(v) * ncon + c];
    w[size_t(v)] = int32_t(sum);
  }
  return w;
}

} // namespace gnnrt
