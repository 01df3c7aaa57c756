//===- RelationIndex.cpp - A typed graph's (destination, relation) pairs --===//
//
// See RelationIndex.h. Built in O(E): a stable counting sort of each
// destination's in-edges by relation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/RelationIndex.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/graph/GraphView.h"

#include <algorithm>
#include <stdexcept>

namespace gnnrt {

namespace {

/// Below this many edges the index is built on one thread.
constexpr int64_t kParallelEdges = 1 << 16;
/// Nodes per dynamically scheduled chunk (degrees vary widely).
constexpr int kNodeChunk = 256;

} // namespace

bool RelationIndex::describes(const GraphView &g) const {
  return inOffsets == g.inOffsets && outOffsets == g.outOffsets &&
         edgeType == g.edgeType && numSrc == g.numSrc && numDst == g.numDst &&
         numEdges == g.numEdges;
}

namespace {

/// Groups each node's edges by relation: node v's edges are the ids
/// edgeAt(i) for i in [offsets[v], offsets[v + 1]) (its CSR range, which
/// its pairs' edges keep), stably sorted by relation.
template <typename EdgeAt>
RelationPairs groupByRelation(int64_t numNodes, const int64_t *offsets,
                              const EdgeAt &edgeAt, const int32_t *edgeType,
                              int32_t R, int64_t numEdges) {
  RelationPairs pairs;
  // Pass 1: how many pairs each node has.
  std::vector<int64_t> pairCount(size_t(numNodes) + 1, 0);
#pragma omp parallel if (numEdges > kParallelEdges)
  {
    std::vector<int64_t> seen(size_t(std::max<int32_t>(R, 1)), -1);
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < numNodes; ++v) {
      int64_t n = 0;
      for (int64_t i = offsets[v]; i < offsets[v + 1]; ++i) {
        const int32_t r = edgeType[edgeAt(i)];
        if (seen[r] != v) {
          seen[r] = v;
          ++n;
        }
      }
      pairCount[v + 1] = n;
    }
  }
  pairs.nodePairs.assign(size_t(numNodes) + 1, 0);
  for (int64_t v = 0; v < numNodes; ++v)
    pairs.nodePairs[v + 1] = pairs.nodePairs[v] + pairCount[v + 1];
  const int64_t P = pairs.nodePairs[numNodes];
  pairs.relation.resize(size_t(P));
  pairs.pairNode.resize(size_t(P));
  pairs.edgeBegin.resize(size_t(P) + 1);
  pairs.edges.resize(size_t(numEdges));
  pairs.edgeBegin[P] = numEdges;
  // Pass 2: each node's edges, stably sorted by relation (a pair's edges
  // keep their CSR order).
#pragma omp parallel if (numEdges > kParallelEdges)
  {
    std::vector<int64_t> slot(size_t(std::max<int32_t>(R, 1)), -1);
    std::vector<int32_t> rels;
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < numNodes; ++v) {
      const int64_t begin = offsets[v], end = offsets[v + 1];
      rels.clear();
      for (int64_t i = begin; i < end; ++i) {
        const int32_t r = edgeType[edgeAt(i)];
        if (slot[r] < 0) {
          slot[r] = 0;
          rels.push_back(r);
        }
        ++slot[r];
      }
      std::sort(rels.begin(), rels.end());
      int64_t p = pairs.nodePairs[v], offset = begin;
      for (int32_t r : rels) {
        pairs.relation[p] = r;
        pairs.pairNode[p] = v;
        pairs.edgeBegin[p] = offset;
        const int64_t n = slot[r];
        slot[r] = offset; // now the next write position of relation r
        offset += n;
        ++p;
      }
      for (int64_t i = begin; i < end; ++i) {
        const int64_t k = edgeAt(i);
        pairs.edges[slot[edgeType[k]]++] = k;
      }
      for (int32_t r : rels)
        slot[r] = -1;
    }
  }
  // Pairs by relation (a stable counting sort: nodes stay ascending).
  pairs.relationPairs = countingSortOrder(
      R, std::vector<int64_t>(pairs.relation.begin(), pairs.relation.end()));
  pairs.relationBegin.assign(size_t(R) + 1, 0);
  for (int32_t r : pairs.relation)
    ++pairs.relationBegin[size_t(r) + 1];
  for (int32_t r = 0; r < R; ++r)
    pairs.relationBegin[r + 1] += pairs.relationBegin[r];
  return pairs;
}

} // namespace

RelationIndex buildRelationIndex(const GraphView &g) {
  RelationIndex index;
  index.byDst = groupByRelation(
      g.numDst, g.inOffsets, [](int64_t i) { return i; }, g.edgeType,
      g.numRelations, g.numEdges);
  index.bySrc = groupByRelation(
      g.numSrc, g.outOffsets, [&](int64_t i) { return g.outEdges[i]; },
      g.edgeType, g.numRelations, g.numEdges);
  const RelationPairs &dst = index.byDst;
  index.pairSizeOfEdge.resize(size_t(g.numEdges));
  for (int64_t p = 0; p < dst.size(); ++p)
    for (int64_t i = dst.edgeBegin[p]; i < dst.edgeBegin[p + 1]; ++i)
      index.pairSizeOfEdge[dst.edges[i]] = int32_t(dst.count(p));
  index.inOffsets = g.inOffsets;
  index.outOffsets = g.outOffsets;
  index.edgeType = g.edgeType;
  index.numSrc = g.numSrc;
  index.numDst = g.numDst;
  index.numEdges = g.numEdges;
  index.subgraphs = std::make_shared<RelationSubgraphs>(g.numRelations);
  return index;
}

RelationSubgraphs::RelationSubgraphs(int32_t numRelations)
    : built(size_t(std::max(0, numRelations))) {}

RelationSubgraphs::~RelationSubgraphs() = default;

const GraphStorage &RelationSubgraphs::get(const GraphView &g,
                                           int32_t relation) {
  if (relation < 0 || size_t(relation) >= built.size()) {
    relationSubgraph(g, relation); // throws, naming the relation
    throw std::logic_error("RelationSubgraphs: relation out of range");
  }
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<GraphStorage> &subgraph = built[size_t(relation)];
  if (!subgraph)
    subgraph = std::make_unique<GraphStorage>(relationSubgraph(g, relation));
  return *subgraph;
}

} // namespace gnnrt
