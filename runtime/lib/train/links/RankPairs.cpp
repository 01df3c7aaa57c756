//===- RankPairs.cpp - a rank's share of the pairs a step scores ----------===//
//
// See RankPairs.h.
//
//===----------------------------------------------------------------------===//

#include "RankPairs.h"

#include "LinkSchedule.h"
#include "batch/MiniBatch.h"

#include <algorithm>
#include <cstring>

namespace gnnrt {

namespace {

/// The float's bits as an int64 (gatherAll moves int64 values).
int64_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return int64_t(bits);
}

float floatOf(int64_t bits) {
  const uint32_t b = uint32_t(bits);
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

} // namespace

NodeOwners::NodeOwners(const std::vector<int64_t> &nodeIds, int64_t numOwned,
                       int64_t numGlobalNodes, Communicator &comm)
    : ownerOf(size_t(numGlobalNodes), -1), rowOf(size_t(numGlobalNodes), -1),
      me(comm.rank()), owned(numOwned) {
  const std::vector<int64_t> mineIds(nodeIds.begin(),
                                     nodeIds.begin() + ptrdiff_t(numOwned));
  const std::vector<int64_t> counts = gatherCounts(comm, numOwned);
  const std::vector<int64_t> all = gatherAll(comm, mineIds);
  size_t at = 0;
  for (size_t r = 0; r < counts.size(); ++r)
    for (int64_t k = 0; k < counts[r]; ++k, ++at) {
      ownerOf[size_t(all[at])] = int32_t(r);
      rowOf[size_t(all[at])] = k;
    }
}

namespace {

/// The pairs' halo (the remote sources of this rank's pairs, by owner and
/// id, at rows owned + k) and its exchange: `visit(f)` calls f(u, v) for
/// every pair of the batch, every rank's. Each rank fetches the remote
/// sources of its pairs; what it sends rank r is its own nodes among r's
/// halo, in r's order. Returns the halo's size.
template <typename VisitPairs>
int64_t makePairHalo(VisitPairs visit, const NodeOwners &owners,
                     Communicator &comm, RankPairs &out) {
  const int ranks = comm.size();
  const int64_t owned = owners.numOwned();
  std::vector<std::vector<int64_t>> fetch(static_cast<size_t>(ranks)),
      send(static_cast<size_t>(ranks));
  visit([&](int64_t u, int64_t v) {
    const int32_t srcOwner = owners.owner(u), dstOwner = owners.owner(v);
    if (srcOwner == dstOwner)
      return;
    if (owners.mine(v))
      fetch[size_t(srcOwner)].push_back(u);
    else if (owners.mine(u))
      send[size_t(dstOwner)].push_back(u);
  });
  auto sortUnique = [](std::vector<int64_t> &ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  };
  std::vector<int64_t> recvOffsets(size_t(ranks) + 1, 0),
      sendOffsets(size_t(ranks) + 1, 0), sendNodes;
  out.haloSlot.assign(size_t(owners.numGlobalNodes()), -1);
  int64_t halo = 0;
  for (int r = 0; r < ranks; ++r) {
    sortUnique(fetch[size_t(r)]);
    sortUnique(send[size_t(r)]);
    for (int64_t u : fetch[size_t(r)])
      out.haloSlot[size_t(u)] = owned + halo++;
    recvOffsets[size_t(r) + 1] = halo;
    for (int64_t u : send[size_t(r)])
      sendNodes.push_back(owners.row(u));
    sendOffsets[size_t(r) + 1] = int64_t(sendNodes.size());
  }
  out.halo = std::make_unique<HaloExchange>(comm, owned, std::move(recvOffsets),
                                            std::move(sendOffsets),
                                            std::move(sendNodes));
  return halo;
}

/// Pair endpoint u's row on this rank: owned, or its halo slot.
int64_t localRow(const NodeOwners &owners, const RankPairs &out, int64_t u) {
  return owners.mine(u) ? owners.row(u) : out.haloSlot[size_t(u)];
}

} // namespace

void selectRankPairs(const PairBatch &whole, const NodeOwners &owners,
                     Communicator &comm, RankPairs &out) {
  const GraphView g = whole.graph.view();
  const int64_t owned = owners.numOwned();
  const int64_t halo = makePairHalo(
      [&](auto &&f) {
        for (int64_t v = 0; v < g.numDst; ++v)
          for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k)
            f(int64_t(g.edgeSrc[k]), v);
      },
      owners, comm, out);
  // The rank's pairs in the whole batch's order: owned destinations ascend
  // with their ids, so the rows stay grouped by destination.
  PairBatch &local = out.batch;
  local.starts.assign(size_t(owned) + 1, 0);
  local.sources.clear();
  local.labels.clear();
  out.pairOf.clear();
  local.positives = local.negatives = 0;
  for (int64_t v = 0; v < g.numDst; ++v) {
    if (!owners.mine(v))
      continue;
    for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
      local.sources.push_back(int32_t(localRow(owners, out, g.edgeSrc[k])));
      const int64_t label = whole.labels[size_t(k)];
      local.labels.push_back(label);
      ++(label == 1 ? local.positives : local.negatives);
      out.pairOf.push_back(k);
    }
    local.starts[size_t(owners.row(v)) + 1] = int64_t(local.sources.size());
  }
  local.graph.assignCsr(owned + halo, owned, local.starts, local.sources,
                        /*outEdges=*/true);
  out.globalPairs = g.numEdges;
}

void selectRankPairs(const LinkPairs &positive, const LinkPairs &negative,
                     const NodeOwners &owners, Communicator &comm,
                     RankPairs &out) {
  const int64_t halo = makePairHalo(
      [&](auto &&f) {
        for (const LinkPairs *pairs : {&positive, &negative})
          for (size_t i = 0; i < pairs->size(); ++i)
            f(pairs->src[i], pairs->dst[i]);
      },
      owners, comm, out);
  // This rank's pairs over its rows, sorted as fillPairBatch sorts.
  LinkPairs mine[2];
  for (int which : {0, 1}) {
    const LinkPairs &pairs = which == 0 ? positive : negative;
    for (size_t i = 0; i < pairs.size(); ++i)
      if (owners.mine(pairs.dst[i])) {
        mine[which].src.push_back(localRow(owners, out, pairs.src[i]));
        mine[which].dst.push_back(owners.row(pairs.dst[i]));
      }
  }
  fillPairBatch(owners.numOwned() + halo, owners.numOwned(), mine[0], mine[1],
                out.batch);
  out.pairOf.clear();
  out.globalPairs = int64_t(positive.size() + negative.size());
}

std::vector<float> gatherPairRows(Communicator &comm, int64_t numPairs,
                                  const std::vector<int64_t> &pairOf,
                                  const std::vector<float> &rows) {
  std::vector<int64_t> scored; // (pair, logit 0 bits, logit 1 bits)
  scored.reserve(3 * pairOf.size());
  for (size_t r = 0; r < pairOf.size(); ++r) {
    scored.push_back(pairOf[r]);
    scored.push_back(bitsOf(rows[2 * r]));
    scored.push_back(bitsOf(rows[2 * r + 1]));
  }
  const std::vector<int64_t> everyone = gatherAll(comm, scored);
  std::vector<float> all(size_t(2 * numPairs), 0.0f);
  for (size_t i = 0; i + 2 < everyone.size(); i += 3) {
    all[size_t(2 * everyone[i])] = floatOf(everyone[i + 1]);
    all[size_t(2 * everyone[i] + 1)] = floatOf(everyone[i + 2]);
  }
  return all;
}

void writeGatheredEmbeddings(Communicator &comm, const std::string &path,
                             const std::vector<int64_t> &nodes,
                             const std::vector<float> &rows,
                             int64_t numGlobalNodes) {
  // Rank 0 gathers every rank's rows (node id, then the row's float bits)
  // and writes them in id order.
  int64_t width =
      nodes.empty() ? 0 : int64_t(rows.size()) / int64_t(nodes.size());
  for (int64_t w : gatherCounts(comm, width))
    width = std::max(width, w);
  std::vector<int64_t> mine;
  mine.reserve(nodes.size() * size_t(width + 1));
  for (size_t i = 0; i < nodes.size(); ++i) {
    mine.push_back(nodes[i]);
    for (int64_t c = 0; c < width; ++c)
      mine.push_back(bitsOf(rows[i * size_t(width) + size_t(c)]));
  }
  const std::vector<int64_t> all = gatherAll(comm, mine);
  if (comm.rank() != 0)
    return;
  std::vector<float> table(size_t(numGlobalNodes * width), 0.0f);
  for (size_t at = 0; at + size_t(width) < all.size(); at += size_t(width) + 1)
    for (int64_t c = 0; c < width; ++c)
      table[size_t(all[at] * width + c)] = floatOf(all[at + 1 + size_t(c)]);
  writeEmbeddingRows(path, table, numGlobalNodes);
}

} // namespace gnnrt
