//===- DistributedMultilevel.cpp - Multilevel partitioning across ranks ---===//
//
// See DistributedMultilevel.h.
//
//===----------------------------------------------------------------------===//

#include "DistributedMultilevel.h"

#include "DistributedBalance.h"
#include "GhostValues.h"
#include "RankCollectives.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"
#include "metis/MetisGraph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace gnnrt {

namespace {

/// Coarsening stops below max(this, kCoarsestPerPart x parts) vertices.
constexpr int64_t kCoarsestVertices = 20000;
constexpr int64_t kCoarsestPerPart = 100;
/// A level that keeps more than this share of its vertices ends coarsening.
constexpr double kMinShrink = 0.9;
constexpr int kMaxLevels = 32;
/// Label propagation rounds per level, and the share of moved vertices
/// below which a level's rounds stop early.
constexpr int kLabelRounds = 5;
constexpr double kSettled = 0.01;
constexpr uint64_t kOrderStream = 0x6d6c7076; // "mlpv"

/// One coarse level: its graph, distributed as the level below it, and its
/// adjacency entries over all ranks. `refined`: the graph is kept for the
/// refinement on the way back (not past the budget in multilevelPartition).
struct Level {
  std::vector<int64_t> vtxdist;
  DistributedMetisGraph graph;
  int64_t entries = 0;
  bool refined = true;
};

/// The local clusters of a level: cluster[v] for every local vertex, in
/// [0, numClusters), numbered in the order of their first member.
struct Clustering {
  std::vector<int32_t> cluster;
  int32_t numClusters = 0;
};

/// Size-constrained label propagation over the rank's own vertices, then
/// the two-hop grouping of the vertices left alone (DistributedMultilevel.h).
Clustering clusterLocally(const DistributedMetisGraph &g, int64_t begin,
                          const std::vector<int32_t> &weight, int64_t maxWeight,
                          uint64_t seed, int level) {
  const int64_t n = g.numLocal;
  std::vector<int32_t> label(static_cast<size_t>(n));
  std::vector<int64_t> clusterWeight(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) {
    label[size_t(v)] = int32_t(v);
    clusterWeight[size_t(v)] = weight[size_t(v)];
  }
  // A seeded visiting order (Fisher-Yates): the seed of a try changes it.
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v)
    order[size_t(v)] = int32_t(v);
  CounterRng rng(seed, kOrderStream, uint64_t(level) << 40);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[size_t(i)],
              order[size_t(rng.nextBelow64(uint64_t(i + 1)))]);

  std::vector<int64_t> rating(size_t(n), 0);
  std::vector<int32_t> touched;
  for (int round = 0; round < kLabelRounds; ++round) {
    int64_t moved = 0;
    for (int32_t v : order) {
      for (int32_t i = g.xadj[size_t(v)]; i < g.xadj[size_t(v) + 1]; ++i) {
        const int64_t u = int64_t(g.adjncy[size_t(i)]) - begin;
        if (u < 0 || u >= n)
          continue;
        const int32_t l = label[size_t(u)];
        if (rating[size_t(l)] == 0)
          touched.push_back(l);
        rating[size_t(l)] += g.edgeWeight(size_t(i));
      }
      const int32_t from = label[size_t(v)];
      int32_t best = from;
      int64_t bestRating = rating[size_t(from)];
      for (int32_t l : touched)
        if (l != from && rating[size_t(l)] > bestRating &&
            clusterWeight[size_t(l)] + weight[size_t(v)] <= maxWeight) {
          best = l;
          bestRating = rating[size_t(l)];
        }
      for (int32_t l : touched)
        rating[size_t(l)] = 0;
      touched.clear();
      if (best == from)
        continue;
      clusterWeight[size_t(from)] -= weight[size_t(v)];
      clusterWeight[size_t(best)] += weight[size_t(v)];
      label[size_t(v)] = best;
      ++moved;
    }
    if (double(moved) < kSettled * double(n))
      break;
  }

  // Vertices still alone join others alone with the same heaviest
  // neighbour (local or remote), or, without neighbours, each other.
  std::vector<int32_t> members(size_t(n), 0);
  for (int32_t l : label)
    ++members[size_t(l)];
  std::unordered_map<int64_t, int32_t> open;
  for (int32_t v : order) {
    if (members[size_t(label[size_t(v)])] != 1)
      continue;
    int64_t favourite = -1, heaviest = 0;
    for (int32_t i = g.xadj[size_t(v)]; i < g.xadj[size_t(v) + 1]; ++i) {
      const int64_t w = g.edgeWeight(size_t(i));
      if (w > heaviest || (w == heaviest && g.adjncy[size_t(i)] < favourite)) {
        heaviest = w;
        favourite = g.adjncy[size_t(i)];
      }
    }
    auto [at, fresh] = open.try_emplace(favourite, label[size_t(v)]);
    const int32_t into = at->second;
    if (fresh || into == label[size_t(v)])
      continue;
    if (clusterWeight[size_t(into)] + weight[size_t(v)] > maxWeight) {
      at->second = label[size_t(v)]; // full: v opens the next group
      continue;
    }
    clusterWeight[size_t(label[size_t(v)])] -= weight[size_t(v)];
    clusterWeight[size_t(into)] += weight[size_t(v)];
    label[size_t(v)] = into;
  }

  Clustering c;
  std::vector<int32_t> number(size_t(n), -1);
  c.cluster.resize(size_t(n));
  for (int64_t v = 0; v < n; ++v) {
    int32_t &k = number[size_t(label[size_t(v)])];
    if (k < 0)
      k = c.numClusters++;
    c.cluster[size_t(v)] = k;
  }
  return c;
}

/// The coarse graph of one level's clustering, distributed as it is: rank
/// r's coarse vertices are its clusters. Collective.
Level contract(Communicator &comm, const std::vector<int64_t> &vtxdist,
               const DistributedMetisGraph &g, const Clustering &c) {
  const size_t ncon = size_t(g.ncon);
  Level coarse;
  const std::vector<int64_t> counts = allGather(comm, c.numClusters);
  coarse.vtxdist.assign(counts.size() + 1, 0);
  for (size_t r = 0; r < counts.size(); ++r)
    coarse.vtxdist[r + 1] = coarse.vtxdist[r] + counts[r];
  const int64_t first = coarse.vtxdist[size_t(comm.rank())];

  // Every neighbour's coarse id, from its owner.
  GhostValues ghosts(comm, vtxdist, g);
  std::vector<int32_t> coarseId(static_cast<size_t>(g.numLocal));
  for (int64_t v = 0; v < g.numLocal; ++v)
    coarseId[size_t(v)] = int32_t(first + c.cluster[size_t(v)]);
  ghosts.refresh(coarseId);

  // The members of every cluster, by a counting sort.
  std::vector<int64_t> start(size_t(c.numClusters) + 1, 0);
  for (int32_t k : c.cluster)
    ++start[size_t(k) + 1];
  for (size_t k = 0; k < size_t(c.numClusters); ++k)
    start[k + 1] += start[k];
  std::vector<int32_t> members(static_cast<size_t>(g.numLocal));
  {
    std::vector<int64_t> at(start.begin(), start.end() - 1);
    for (int64_t v = 0; v < g.numLocal; ++v)
      members[size_t(at[size_t(c.cluster[size_t(v)])]++)] = int32_t(v);
  }

  // A slot per neighbouring coarse vertex: the rank's clusters, then the
  // distinct remote ones its ghosts belong to (per rank memory follows its
  // clusters and ghosts, not the whole coarse graph).
  const int32_t own = c.numClusters;
  std::vector<int32_t> remote(ghosts.numGhosts());
  for (size_t h = 0; h < remote.size(); ++h)
    remote[h] = ghosts.ghostValue(h);
  std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
  std::vector<int32_t> ghostSlot(ghosts.numGhosts());
  for (size_t h = 0; h < ghostSlot.size(); ++h)
    ghostSlot[h] = own + int32_t(std::lower_bound(remote.begin(), remote.end(),
                                                  ghosts.ghostValue(h)) -
                                 remote.begin());
  auto slotOf = [&](size_t i) {
    const int32_t s = ghosts.neighbourSlot(i);
    return s < g.numLocal ? c.cluster[size_t(s)]
                          : ghostSlot[size_t(s - g.numLocal)];
  };
  auto idOf = [&](int32_t s) {
    return s < own ? int32_t(first + s) : remote[size_t(s - own)];
  };

  DistributedMetisGraph &cg = coarse.graph;
  cg.numLocal = c.numClusters;
  cg.ncon = g.ncon;
  cg.totals = g.totals;
  cg.vwgt.assign(size_t(c.numClusters) * ncon, 0);
  cg.xadj.assign(size_t(c.numClusters) + 1, 0);
  std::vector<int64_t> sum(size_t(own) + remote.size(), 0);
  std::vector<int32_t> touched;
  for (int32_t k = 0; k < c.numClusters; ++k) {
    for (int64_t m = start[size_t(k)]; m < start[size_t(k) + 1]; ++m) {
      const int32_t v = members[size_t(m)];
      for (size_t q = 0; q < ncon; ++q)
        cg.vwgt[size_t(k) * ncon + q] += g.vwgt[size_t(v) * ncon + q];
      for (int32_t i = g.xadj[size_t(v)]; i < g.xadj[size_t(v) + 1]; ++i) {
        const int32_t to = slotOf(size_t(i));
        if (to == k)
          continue; // inside the cluster
        if (sum[size_t(to)] == 0)
          touched.push_back(to);
        sum[size_t(to)] += g.edgeWeight(size_t(i));
      }
    }
    for (int32_t to : touched) {
      if (sum[size_t(to)] > std::numeric_limits<int32_t>::max())
        throw DataError("partition: a coarse edge weighs more than 2^31 - 1");
      cg.adjncy.push_back(idOf(to));
      cg.adjwgt.push_back(int32_t(sum[size_t(to)]));
      sum[size_t(to)] = 0;
    }
    touched.clear();
    if (cg.adjncy.size() > size_t(std::numeric_limits<int32_t>::max()))
      throw DataError("partition: a rank's coarse graph passes 2^31 entries");
    cg.xadj[size_t(k) + 1] = int32_t(cg.adjncy.size());
  }
  return coarse;
}

/// METIS on the coarsest graph, on rank 0; every rank gets the parts of
/// its vertices. Collective.
std::vector<int32_t> partitionOnRankZero(Communicator &comm,
                                         const std::vector<int64_t> &vtxdist,
                                         const DistributedMetisGraph &g,
                                         int numParts, int64_t ufactor,
                                         uint64_t seed) {
  const size_t ncon = size_t(g.ncon);
  auto toZero = [](int64_t) { return 0; };
  std::vector<int32_t> degree =
      exchangeRecords<int32_t>(comm, g.numLocal, toZero, [&](int64_t v) {
        return g.xadj[size_t(v) + 1] - g.xadj[size_t(v)];
      });
  std::vector<int32_t> adjncy =
      exchangeRecords<int32_t>(comm, int64_t(g.adjncy.size()), toZero,
                               [&](int64_t i) { return g.adjncy[size_t(i)]; });
  std::vector<int32_t> adjwgt = exchangeRecords<int32_t>(
      comm, int64_t(g.adjncy.size()), toZero,
      [&](int64_t i) { return int32_t(g.edgeWeight(size_t(i))); });
  std::vector<int64_t> vwgt =
      exchangeRecords<int64_t>(comm, int64_t(g.vwgt.size()), toZero,
                               [&](int64_t i) { return g.vwgt[size_t(i)]; });

  std::vector<int32_t> part;
  agreeOnFailure(comm, [&] {
    if (comm.rank() != 0)
      return;
    MetisGraph whole;
    whole.numVertices = int64_t(degree.size());
    whole.ncon = int(ncon);
    whole.xadj.assign(degree.size() + 1, 0);
    for (size_t v = 0; v < degree.size(); ++v)
      whole.xadj[v + 1] = whole.xadj[v] + degree[v];
    whole.adjncy = std::move(adjncy);
    whole.adjwgt = std::move(adjwgt);
    whole.vwgt.resize(vwgt.size());
    for (size_t i = 0; i < vwgt.size(); ++i) {
      if (vwgt[i] > std::numeric_limits<int32_t>::max())
        throw DataError("partition: a coarse vertex weighs more than METIS's "
                        "2^31 - 1");
      whole.vwgt[i] = int32_t(vwgt[i]);
    }
    part = partitionMetisGraph(whole, numParts, ufactor, seed,
                               /*widenTolerances=*/true, nullptr);
  });
  // Rank 0's parts, each to the owner of its vertex.
  return exchangeRecords<int32_t>(
      comm, int64_t(part.size()),
      [&](int64_t v) { return blockOwner(vtxdist, v); },
      [&](int64_t v) { return part[size_t(v)]; });
}

} // namespace

std::vector<int32_t>
multilevelPartition(Communicator &comm, const std::vector<int64_t> &vtxdist,
                    const DistributedMetisGraph &g, int numParts,
                    int64_t ufactor, uint64_t seed, MultilevelReport *report) {
  MultilevelReport local;
  MultilevelReport &r = report ? *report : local;
  r = MultilevelReport{};
  if (numParts == 1)
    return std::vector<int32_t>(size_t(g.numLocal), 0);

  // The clusters' bound, in the folded weight: a share of a part small
  // enough for METIS to balance the coarsest graph within the ufactor,
  // and for the clusters to coarsen down to the target size.
  const int64_t target =
      std::max(kCoarsestVertices, kCoarsestPerPart * int64_t(numParts));
  int64_t total = 0, heaviest = 0;
  {
    const std::vector<int32_t> folded = foldedVertexWeights(g);
    for (int32_t w : folded) {
      total += w;
      heaviest = std::max<int64_t>(heaviest, w);
    }
    comm.allReduceSum(&total, 1);
    std::vector<int64_t> each = allGather(comm, heaviest);
    heaviest = *std::max_element(each.begin(), each.end());
  }
  const double share =
      double(ufactor) / 1000.0 / (2.0 * double(numParts) * double(g.ncon));
  const int64_t maxWeight = std::max<int64_t>(
      heaviest,
      std::min<int64_t>(int64_t(double(total) * share), 2 * total / target));
  const double average =
      double(total) / double(std::max<int64_t>(1, vtxdist.back()));

  // Coarsen.
  std::vector<Level> levels;
  std::vector<std::vector<int32_t>> clusterOf; // level l's vertices -> l + 1
  auto graphOf = [&](size_t l) -> const DistributedMetisGraph & {
    return l == 0 ? g : levels[l - 1].graph;
  };
  auto vtxdistOf = [&](size_t l) -> const std::vector<int64_t> & {
    return l == 0 ? vtxdist : levels[l - 1].vtxdist;
  };
  // The coarse graphs kept for refinement hold at most as many entries as
  // the finest graph: past that, the finest kept level is dropped (a dense
  // graph's entries shrink far slower than its vertices: the 8 levels of
  // the 2M-node mag graph held 5x the finest graph's entries).
  int64_t budget = int64_t(g.adjncy.size()), kept = 0;
  comm.allReduceSum(&budget, 1);
  while (int(levels.size()) < kMaxLevels) {
    const size_t l = levels.size();
    const DistributedMetisGraph &fine = graphOf(l);
    const std::vector<int64_t> &fineDist = vtxdistOf(l);
    const int64_t n = fineDist.back();
    if (n <= target)
      break;
    // Clusters of level l weigh at most 2^(l + 1) average vertices: each
    // level about halves the graph, as METIS's matchings do (one level of
    // clusters up to the final bound cut 1.7x METIS's cut on an SBM graph).
    const int64_t cap = std::max<int64_t>(
        heaviest,
        std::min<double>(double(maxWeight), std::ldexp(average, int(l) + 1)));
    Clustering c = clusterLocally(fine, fineDist[size_t(comm.rank())],
                                  foldedVertexWeights(fine), cap, seed, int(l));
    int64_t clusters = c.numClusters;
    comm.allReduceSum(&clusters, 1);
    if (double(clusters) > kMinShrink * double(n))
      break;
    levels.push_back(contract(comm, fineDist, fine, c));
    clusterOf.push_back(std::move(c.cluster));
    Level &added = levels.back();
    added.entries = int64_t(added.graph.adjncy.size());
    comm.allReduceSum(&added.entries, 1);
    kept += added.entries;
    for (Level &level : levels) {
      if (kept <= budget || &level == &added)
        break;
      if (!level.refined)
        continue;
      kept -= level.entries;
      level.refined = false;
      level.graph = DistributedMetisGraph();
    }
  }
  r.levels = int(levels.size());

  // The coarsest graph on one process.
  const size_t coarsest = levels.size();
  const DistributedMetisGraph &cg = graphOf(coarsest);
  r.coarsestVertices = vtxdistOf(coarsest).back();
  r.coarsestEdges = int64_t(cg.adjncy.size());
  comm.allReduceSum(&r.coarsestEdges, 1);
  r.coarsestEdges /= 2;
  std::vector<int32_t> part = partitionOnRankZero(comm, vtxdistOf(coarsest), cg,
                                                  numParts, ufactor, seed);

  // Uncoarsen: project, then balance and refine every level but the finest.
  for (size_t l = coarsest; l-- > 0;) {
    const std::vector<int32_t> &cluster = clusterOf[l];
    std::vector<int32_t> fine(cluster.size());
    for (size_t v = 0; v < cluster.size(); ++v)
      fine[v] = part[size_t(cluster[v])];
    part = std::move(fine);
    levels.pop_back();
    clusterOf.pop_back();
    if (l > 0 && levels[l - 1].refined)
      balanceParts(comm, vtxdistOf(l), graphOf(l), numParts, ufactor, part);
  }
  return part;
}

} // namespace gnnrt
