//===- EdgesToDestinations.cpp - a source-assigned part made trainable ----===//
//
// GraphLearn-for-PyTorch stores each edge with its source's owner when asked
// (`edge_assign_strategy='by_src'`; `gnn-partition --edge-assign src`).
// Training aggregates each owned node's in-edges, so at start-up every rank
// sends the edges whose destination another part owns to that part, in one
// all-to-all, and rebuilds its halo from the sources that arrive -- each
// owned by the rank that sent it, since a source-assigned part holds only
// edges of its own sources. The result is, field for field, the part that
// `--edge-assign dst` writes for the same node assignment: the same halo
// (grouped by owner, by global id within one), the same send lists, and
// the in-edges in the same order, so training is the same to the bit.
//
//===----------------------------------------------------------------------===//

#include "PartitionCsr.h"

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <array>

namespace gnnrt {

namespace {

/// One edge in global ids, as it travels: source, destination, dataset edge
/// id, relation (-1 in a homogeneous graph).
using RoutedEdge = std::array<int64_t, 4>;

/// Index of `id` in the ascending `ids[begin, end)`; it must be there.
int64_t positionOf(const std::vector<int64_t> &ids, int64_t begin, int64_t end,
                   int64_t id) {
  auto it = std::lower_bound(ids.begin() + begin, ids.begin() + end, id);
  return int64_t(it - ids.begin());
}

} // namespace

int64_t assignEdgesToDestinations(Partition &part, Communicator &comm) {
  if (part.edgeAssign == EdgeAssign::Dst)
    return 0;
  const int numParts = comm.size();
  if (part.numParts != numParts)
    throw DataError("partition " + std::to_string(part.part) + " is one of " +
                    std::to_string(part.numParts) + " parts, but " +
                    std::to_string(numParts) + " ranks run");
  const int64_t owned = part.numOwned();
  const bool typed = !part.edgeTypes.empty();

  // The edges whose destination is mine stay; the others go to their
  // destination's owner. Every source is owned here.
  std::vector<RoutedEdge> kept;
  std::vector<std::vector<RoutedEdge>> outgoing(static_cast<size_t>(numParts));
  for (int64_t v = 0; v < part.numLocal(); ++v)
    for (int64_t k = part.indptr[size_t(v)]; k < part.indptr[size_t(v) + 1];
         ++k) {
      int64_t u = part.indices[size_t(k)];
      if (u >= owned)
        throw DataError("partition " + std::to_string(part.part) +
                        " is stored with edges assigned to their sources, "
                        "but an edge's source is not one of its nodes");
      RoutedEdge edge = {part.ownedNodes[size_t(u)],
                         v < owned ? part.ownedNodes[size_t(v)]
                                   : part.haloNodes[size_t(v - owned)],
                         part.edgeIds[size_t(k)],
                         typed ? part.edgeTypes[size_t(k)] : -1};
      if (v < owned)
        kept.push_back(edge);
      else
        outgoing[size_t(part.haloOwners[size_t(v - owned)])].push_back(edge);
    }

  // One all-to-all of the counts, one of the edges.
  std::vector<int64_t> sendCounts(static_cast<size_t>(numParts)),
      recvCounts(static_cast<size_t>(numParts));
  std::vector<int64_t> countOffsets(static_cast<size_t>(numParts) + 1);
  for (int q = 0; q < numParts; ++q) {
    sendCounts[size_t(q)] = int64_t(outgoing[size_t(q)].size());
    countOffsets[size_t(q) + 1] = int64_t(sizeof(int64_t)) * (q + 1);
  }
  comm.allToAllV(sendCounts.data(), countOffsets, recvCounts.data(),
                 countOffsets);
  std::vector<RoutedEdge> sendBuffer, received;
  std::vector<int64_t> sendBytes(size_t(numParts) + 1, 0),
      recvBytes(size_t(numParts) + 1, 0);
  for (int q = 0; q < numParts; ++q) {
    sendBuffer.insert(sendBuffer.end(), outgoing[size_t(q)].begin(),
                      outgoing[size_t(q)].end());
    sendBytes[size_t(q) + 1] = int64_t(sendBuffer.size() * sizeof(RoutedEdge));
    recvBytes[size_t(q) + 1] =
        recvBytes[size_t(q)] +
        recvCounts[size_t(q)] * int64_t(sizeof(RoutedEdge));
  }
  received.resize(size_t(recvBytes.back()) / sizeof(RoutedEdge));
  comm.allToAllV(sendBuffer.data(), sendBytes, received.data(), recvBytes);
  std::vector<RoutedEdge>().swap(sendBuffer);

  // The halo: the sources that arrived, grouped by sender (their owner),
  // ascending within one.
  part.haloNodes.clear();
  part.haloOwners.clear();
  part.recvOffsets.assign(size_t(numParts) + 1, 0);
  for (int q = 0; q < numParts; ++q) {
    std::vector<int64_t> sources;
    for (int64_t i = recvBytes[size_t(q)] / int64_t(sizeof(RoutedEdge));
         i < recvBytes[size_t(q) + 1] / int64_t(sizeof(RoutedEdge)); ++i)
      sources.push_back(received[size_t(i)][0]);
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    part.haloNodes.insert(part.haloNodes.end(), sources.begin(), sources.end());
    part.haloOwners.insert(part.haloOwners.end(), sources.size(), int32_t(q));
    part.recvOffsets[size_t(q) + 1] = int64_t(part.haloNodes.size());
  }
  // The send lists: my sources in each part's halo, in its order.
  part.sendNodes.clear();
  part.sendOffsets.assign(size_t(numParts) + 1, 0);
  for (int q = 0; q < numParts; ++q) {
    std::vector<int64_t> sources;
    for (const RoutedEdge &edge : outgoing[size_t(q)])
      sources.push_back(edge[0]);
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (int64_t s : sources)
      part.sendNodes.push_back(positionOf(part.ownedNodes, 0, owned, s));
    part.sendOffsets[size_t(q) + 1] = int64_t(part.sendNodes.size());
  }

  // The in-edges in local ids, in dataset edge order before the CSR's
  // stable sort (as extractPartition lists them).
  std::vector<RoutedEdge> edges = std::move(kept);
  std::vector<int32_t> senderOf(edges.size(), -1);
  for (int q = 0; q < numParts; ++q)
    for (int64_t i = recvBytes[size_t(q)] / int64_t(sizeof(RoutedEdge));
         i < recvBytes[size_t(q) + 1] / int64_t(sizeof(RoutedEdge)); ++i) {
      edges.push_back(received[size_t(i)]);
      senderOf.push_back(int32_t(q));
    }
  std::vector<size_t> order(edges.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return edges[a][2] < edges[b][2]; });
  std::vector<int64_t> src, dst, ids;
  std::vector<int32_t> types;
  for (size_t i : order) {
    const RoutedEdge &edge = edges[i];
    int32_t sender = senderOf[i];
    src.push_back(sender < 0
                      ? positionOf(part.ownedNodes, 0, owned, edge[0])
                      : owned + positionOf(part.haloNodes,
                                           part.recvOffsets[size_t(sender)],
                                           part.recvOffsets[size_t(sender) + 1],
                                           edge[0]));
    dst.push_back(positionOf(part.ownedNodes, 0, owned, edge[1]));
    ids.push_back(edge[2]);
    types.push_back(int32_t(edge[3]));
  }
  fillPartitionCsr(part, src, dst, ids, typed ? types : std::vector<int32_t>());
  part.edgeAssign = EdgeAssign::Dst;
  int64_t moved = int64_t(received.size());
  comm.allReduceSum(&moved, 1);
  return moved;
}

} // namespace gnnrt
