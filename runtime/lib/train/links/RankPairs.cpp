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
#include <numeric>

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

void sortUnique(std::vector<int64_t> &ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

/// Installs the pairs' halo: `fetch[q]` (ascending ids) are the remote
/// sources this rank reads from rank q, placed at rows owned + k in (owner,
/// id) order (out.haloSlot, which the caller has made -1 for every node
/// but these); `sendRows` (runs per rank, `sendCounts`) are this rank's
/// rows each rank reads, in that rank's order. Returns the halo's size.
int64_t installPairHalo(const std::vector<std::vector<int64_t>> &fetch,
                        const std::vector<int64_t> &sendCounts,
                        std::vector<int64_t> sendRows,
                        const NodeOwners &owners, Communicator &comm,
                        RankPairs &out) {
  const int ranks = comm.size();
  const int64_t owned = owners.numOwned();
  std::vector<int64_t> recvOffsets(size_t(ranks) + 1, 0),
      sendOffsets(size_t(ranks) + 1, 0);
  int64_t halo = 0;
  for (int r = 0; r < ranks; ++r) {
    for (int64_t u : fetch[size_t(r)])
      out.haloSlot[size_t(u)] = owned + halo++;
    recvOffsets[size_t(r) + 1] = halo;
    sendOffsets[size_t(r) + 1] = sendOffsets[size_t(r)] + sendCounts[size_t(r)];
  }
  out.halo = std::make_unique<HaloExchange>(comm, owned, std::move(recvOffsets),
                                            std::move(sendOffsets),
                                            std::move(sendRows));
  return halo;
}

/// The pairs' halo of a batch every rank holds whole (`g`, global ids).
/// Each rank fetches the remote sources of its pairs; what it sends rank r
/// is its own nodes among r's halo, in r's order: both derived without
/// communicating.
int64_t makePairHalo(const GraphView &g, const NodeOwners &owners,
                     Communicator &comm, RankPairs &out) {
  const int ranks = comm.size();
  std::vector<std::vector<int64_t>> fetch(static_cast<size_t>(ranks)),
      send(static_cast<size_t>(ranks));
  for (int64_t v = 0; v < g.numDst; ++v)
    for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
      const int64_t u = g.edgeSrc[k];
      const int32_t srcOwner = owners.owner(u), dstOwner = owners.owner(v);
      if (srcOwner == dstOwner)
        continue;
      if (owners.mine(v))
        fetch[size_t(srcOwner)].push_back(u);
      else if (owners.mine(u))
        send[size_t(dstOwner)].push_back(u);
    }
  std::vector<int64_t> sendCounts(size_t(ranks), 0), sendRows;
  for (int r = 0; r < ranks; ++r) {
    sortUnique(fetch[size_t(r)]);
    sortUnique(send[size_t(r)]);
    for (int64_t u : send[size_t(r)])
      sendRows.push_back(owners.row(u));
    sendCounts[size_t(r)] = int64_t(send[size_t(r)].size());
  }
  out.haloSlot.assign(size_t(owners.numGlobalNodes()), -1);
  return installPairHalo(fetch, sendCounts, std::move(sendRows), owners, comm,
                         out);
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
  const int64_t halo = makePairHalo(g, owners, comm, out);
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

void drawRankPairs(const LinkSplitData &links, int64_t epoch,
                   const NodeOwners &owners, Communicator &comm,
                   RankPairs &out) {
  const int ranks = comm.size(), rank = comm.rank();
  const LinkPairs &train = links.trainLinks();
  const int64_t total = int64_t(train.size());
  // This rank's range of train links, and their negatives.
  const int64_t begin = total * rank / ranks,
                end = total * (rank + 1) / ranks;
  std::vector<int64_t> drawn(size_t(end - begin));
  std::iota(drawn.begin(), drawn.end(), begin);
  const LinkPairs negatives = links.trainNegativesOf(epoch, drawn);
  int64_t bytes = 0;
  // Every pair to its destination's owner: positives, then negatives.
  LinkPairs mine[2];
  for (int which : {0, 1}) {
    const LinkPairs &pairs = which == 0 ? train : negatives;
    const int64_t first = which == 0 ? begin : 0,
                  last = which == 0 ? end : int64_t(negatives.size());
    std::vector<int64_t> counts(static_cast<size_t>(ranks), 0);
    for (int64_t i = first; i < last; ++i)
      ++counts[size_t(owners.owner(pairs.dst[size_t(i)]))];
    std::vector<int64_t> at = byteOffsets(counts, 2), send(size_t(at.back()));
    for (int64_t i = first; i < last; ++i) {
      int64_t &k = at[size_t(owners.owner(pairs.dst[size_t(i)]))];
      send[size_t(k++)] = pairs.src[size_t(i)];
      send[size_t(k++)] = pairs.dst[size_t(i)];
    }
    const std::vector<int64_t> received = exchange(
        comm, send, counts, exchangeCounts(comm, counts, bytes), 2, bytes);
    mine[which].src.reserve(received.size() / 2);
    mine[which].dst.reserve(received.size() / 2);
    for (size_t k = 0; k + 1 < received.size(); k += 2) {
      mine[which].src.push_back(received[k]);
      mine[which].dst.push_back(received[k + 1]);
    }
  }
  // The remote sources, asked of their owners, who answer with rows. Each
  // is listed once (haloSlot marks the seen ones, which installPairHalo
  // then gives their slots) before the lists sort.
  std::vector<std::vector<int64_t>> fetch(static_cast<size_t>(ranks));
  out.haloSlot.assign(size_t(owners.numGlobalNodes()), -1);
  for (const LinkPairs &pairs : mine)
    for (int64_t u : pairs.src)
      if (!owners.mine(u) && out.haloSlot[size_t(u)] < 0) {
        out.haloSlot[size_t(u)] = 0;
        fetch[size_t(owners.owner(u))].push_back(u);
      }
  std::vector<int64_t> askCounts(static_cast<size_t>(ranks), 0), asked;
  for (int r = 0; r < ranks; ++r) {
    sortUnique(fetch[size_t(r)]);
    askCounts[size_t(r)] = int64_t(fetch[size_t(r)].size());
    asked.insert(asked.end(), fetch[size_t(r)].begin(), fetch[size_t(r)].end());
  }
  const std::vector<int64_t> sendCounts =
      exchangeCounts(comm, askCounts, bytes);
  std::vector<int64_t> sendRows =
      exchange(comm, asked, askCounts, sendCounts, 1, bytes);
  for (int64_t &u : sendRows)
    u = owners.row(u);
  const int64_t halo = installPairHalo(fetch, sendCounts, std::move(sendRows),
                                       owners, comm, out);
  for (LinkPairs &pairs : mine)
    for (size_t i = 0; i < pairs.size(); ++i) {
      pairs.src[i] = localRow(owners, out, pairs.src[i]);
      pairs.dst[i] = owners.row(pairs.dst[i]);
    }
  fillPairBatch(owners.numOwned() + halo, owners.numOwned(), mine[0], mine[1],
                out.batch);
  out.pairOf.clear();
  out.globalPairs = total * (1 + links.negativesPerTrainLink());
  out.routedBytes = bytes;
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
  // One process holds every node's row, in id order.
  if (comm.size() == 1) {
    writeEmbeddingRows(path, rows, numGlobalNodes);
    return;
  }
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
