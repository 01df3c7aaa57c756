//===- RelationIndex.cpp - A typed graph's (destination, relation) pairs --===//
//
// See RelationIndex.h. Built in O(E): a stable counting sort of each
// destination's in-edges by relation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/RelationIndex.h"

#include "gnnrt/graph/GraphView.h"

#include <algorithm>

namespace gnnrt {

namespace {

/// Below this many edges the index is built on one thread.
constexpr int64_t kParallelEdges = 1 << 16;
/// Destinations per dynamically scheduled chunk (degrees vary widely).
constexpr int kDestinationChunk = 256;

} // namespace

bool RelationIndex::describes(const GraphView &g) const {
  return inOffsets == g.inOffsets && edgeType == g.edgeType &&
         numDst == g.numDst && numEdges == g.numEdges;
}

RelationIndex buildRelationIndex(const GraphView &g) {
  RelationIndex pairs;
  const int64_t numDst = g.numDst, R = g.numRelations;
  // Pass 1: how many pairs each destination has.
  std::vector<int64_t> pairCount(size_t(numDst) + 1, 0);
#pragma omp parallel if (g.numEdges > kParallelEdges)
  {
    std::vector<int64_t> seen(size_t(std::max<int64_t>(R, 1)), -1);
#pragma omp for schedule(dynamic, kDestinationChunk)
    for (int64_t v = 0; v < numDst; ++v) {
      int64_t n = 0;
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
        int32_t r = g.edgeType[k];
        if (seen[r] != v) {
          seen[r] = v;
          ++n;
        }
      }
      pairCount[v + 1] = n;
    }
  }
  pairs.dstPairs.assign(size_t(numDst) + 1, 0);
  for (int64_t v = 0; v < numDst; ++v)
    pairs.dstPairs[v + 1] = pairs.dstPairs[v] + pairCount[v + 1];
  const int64_t P = pairs.dstPairs[numDst];
  pairs.relation.resize(size_t(P));
  pairs.edgeBegin.resize(size_t(P) + 1);
  pairs.edges.resize(size_t(g.numEdges));
  pairs.edgeBegin[P] = g.numEdges;
  // Pass 2: each destination's edges, stably sorted by relation (a pair's
  // edges keep edge order). A destination's edges stay in its own CSR
  // range, so its pairs' edge offsets start at inOffsets[v].
#pragma omp parallel if (g.numEdges > kParallelEdges)
  {
    std::vector<int64_t> slot(size_t(std::max<int64_t>(R, 1)), -1);
    std::vector<int32_t> rels;
#pragma omp for schedule(dynamic, kDestinationChunk)
    for (int64_t v = 0; v < numDst; ++v) {
      const int64_t begin = g.inOffsets[v], end = g.inOffsets[v + 1];
      rels.clear();
      for (int64_t k = begin; k < end; ++k) {
        int32_t r = g.edgeType[k];
        if (slot[r] < 0) {
          slot[r] = 0;
          rels.push_back(r);
        }
        ++slot[r];
      }
      std::sort(rels.begin(), rels.end());
      int64_t p = pairs.dstPairs[v], offset = begin;
      for (int32_t r : rels) {
        pairs.relation[p] = r;
        pairs.edgeBegin[p] = offset;
        int64_t n = slot[r];
        slot[r] = offset; // now the next write position of relation r
        offset += n;
        ++p;
      }
      for (int64_t k = begin; k < end; ++k)
        pairs.edges[slot[g.edgeType[k]]++] = k;
      for (int32_t r : rels)
        slot[r] = -1;
    }
  }
  // Pairs by relation (a counting sort; destinations stay ascending).
  pairs.relationBegin.assign(size_t(R) + 1, 0);
  for (int64_t p = 0; p < P; ++p)
    ++pairs.relationBegin[pairs.relation[p] + 1];
  for (int64_t r = 0; r < R; ++r)
    pairs.relationBegin[r + 1] += pairs.relationBegin[r];
  pairs.relationPairs.resize(size_t(P));
  std::vector<int64_t> next(pairs.relationBegin.begin(),
                            pairs.relationBegin.end() - 1);
  for (int64_t p = 0; p < P; ++p)
    pairs.relationPairs[next[pairs.relation[p]]++] = p;
  pairs.pairSizeOfEdge.resize(size_t(g.numEdges));
  for (int64_t p = 0; p < P; ++p)
    for (int64_t i = pairs.edgeBegin[p]; i < pairs.edgeBegin[p + 1]; ++i)
      pairs.pairSizeOfEdge[pairs.edges[i]] = int32_t(pairs.count(p));
  pairs.inOffsets = g.inOffsets;
  pairs.edgeType = g.edgeType;
  pairs.numDst = g.numDst;
  pairs.numEdges = g.numEdges;
  return pairs;
}


} // namespace gnnrt
