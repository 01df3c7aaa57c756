//===- GraphView.cpp - The kernels' graph layout from an edge list --------===//
//
// Two stable counting sorts (by source, then by destination) give the
// destination-major edge numbering with sources ascending within a
// destination and parallel edges in input order; one more counting pass over
// that numbering lists each source's out-edges in ascending edge id (and their
// destinations alongside). All
// passes are O(numSrc + numEdges), so the layout depends on the edge list
// alone. A caller that already has the destination-major CSR (the sampler's
// blocks) skips the sorts: fromCsr checks it and runs the last pass only.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/GraphView.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <string>

namespace gnnrt {
namespace {

/// "graph: <message>", the prefix Graph::fromEdges uses too.
[[noreturn]] void throwGraphError(const std::string &message) {
  throwDataError("graph", 0, message);
}

void checkNodeCounts(int64_t numSrc, int64_t numDst) {
  // Edge sources are stored as int32 local ids.
  if (numSrc >= (int64_t(1) << 31))
    throwGraphError(std::to_string(numSrc) +
                    " nodes do not fit 32-bit local ids (limit 2^31 - 1)");
  // With self loops, destination v reads source row v: destinations must be
  // a prefix of the sources.
  if (numDst < 0 || numSrc < numDst)
    throwGraphError(std::to_string(numDst) + " destinations but " +
                    std::to_string(numSrc) +
                    " sources (destinations must be the first sources)");
}

void checkEdgeList(int64_t numSrc, int64_t numDst,
                   const std::vector<int64_t> &src,
                   const std::vector<int64_t> &dst) {
  if (src.size() != dst.size())
    throwGraphError(std::to_string(src.size()) + " sources but " +
                    std::to_string(dst.size()) + " destinations");
  checkNodeCounts(numSrc, numDst);
  auto outOfRange = [](int64_t id, int64_t limit) {
    return id < 0 || id >= limit;
  };
  for (size_t e = 0; e < src.size(); ++e) {
    if (outOfRange(src[e], numSrc))
      throwGraphError("edge " + std::to_string(e) + ": source id " +
                      std::to_string(src[e]) + " out of range [0, " +
                      std::to_string(numSrc) + ")");
    if (outOfRange(dst[e], numDst))
      throwGraphError("edge " + std::to_string(e) + ": destination id " +
                      std::to_string(dst[e]) + " out of range [0, " +
                      std::to_string(numDst) + ")");
  }
}

/// numNodes + 1 offsets of the runs of equal keys in key-sorted order.
std::vector<int64_t> runOffsets(int64_t numNodes,
                                const std::vector<int64_t> &key) {
  std::vector<int64_t> offsets(size_t(numNodes) + 1, 0);
  for (int64_t k : key)
    ++offsets[size_t(k) + 1];
  for (int64_t v = 0; v < numNodes; ++v)
    offsets[v + 1] += offsets[v];
  return offsets;
}

/// Checks a destination-major CSR as fromCsr takes it.
void checkCsr(int64_t numSrc, int64_t numDst,
              const std::vector<int64_t> &inOffsets,
              const std::vector<int32_t> &edgeSrc) {
  checkNodeCounts(numSrc, numDst);
  if (int64_t(inOffsets.size()) != numDst + 1)
    throwGraphError(std::to_string(inOffsets.size()) + " in-offsets for " +
                    std::to_string(numDst) + " destinations (expected " +
                    std::to_string(numDst + 1) + ")");
  if (inOffsets[0] != 0 || inOffsets[numDst] != int64_t(edgeSrc.size()))
    throwGraphError("in-offsets run from " + std::to_string(inOffsets[0]) +
                    " to " + std::to_string(inOffsets[numDst]) +
                    ", not from 0 to the " + std::to_string(edgeSrc.size()) +
                    " edges");
  for (int64_t v = 0; v < numDst; ++v)
    if (inOffsets[v + 1] < inOffsets[v])
      throwGraphError("in-offsets decrease at destination " +
                      std::to_string(v));
  for (size_t k = 0; k < edgeSrc.size(); ++k)
    if (edgeSrc[k] < 0 || edgeSrc[k] >= numSrc)
      throwGraphError("edge " + std::to_string(k) + ": source id " +
                      std::to_string(edgeSrc[k]) + " out of range [0, " +
                      std::to_string(numSrc) + ")");
}

} // namespace

void GraphStorage::buildTranspose() {
  // outOffsets[u + 1] counts u's out-edges, then (prefix sums) ends u's
  // run; the scatter advances outOffsets[u] through u's run, leaving it at
  // the run's end, and the final shift restores the starts. Visiting edges
  // in id order keeps each source's list ascending.
  outOffsets.assign(size_t(nSrc) + 1, 0);
  for (int32_t u : edgeSrc)
    ++outOffsets[size_t(u) + 1];
  for (int64_t u = 0; u < nSrc; ++u)
    outOffsets[u + 1] += outOffsets[u];
  const int64_t numEdges = this->numEdges();
  outEdges.resize(size_t(numEdges));
  outDst.resize(size_t(numEdges));
  for (int64_t k = 0; k < numEdges; ++k) {
    const int64_t i = outOffsets[edgeSrc[k]]++;
    outEdges[i] = k;
    outDst[i] = edgeDst[k];
  }
  std::copy_backward(outOffsets.begin(), outOffsets.end() - 1,
                     outOffsets.end());
  outOffsets[0] = 0;
}

GraphStorage GraphStorage::build(int64_t numSrc, int64_t numDst,
                                 const std::vector<int64_t> &src,
                                 const std::vector<int64_t> &dst) {
  return build(numSrc, numDst, src, dst, {}, 0);
}

GraphStorage GraphStorage::build(int64_t numSrc, int64_t numDst,
                                 const std::vector<int64_t> &src,
                                 const std::vector<int64_t> &dst,
                                 const std::vector<int32_t> &edgeType,
                                 int32_t numRelations) {
  return build(numSrc, numDst, src, dst, edgeType, numRelations, {});
}

GraphStorage GraphStorage::build(int64_t numSrc, int64_t numDst,
                                 const std::vector<int64_t> &src,
                                 const std::vector<int64_t> &dst,
                                 const std::vector<int32_t> &edgeType,
                                 int32_t numRelations,
                                 const std::vector<int64_t> &sourceRank) {
  checkEdgeList(numSrc, numDst, src, dst);
  if (!sourceRank.empty() && int64_t(sourceRank.size()) != numSrc)
    throwGraphError("source order has " + std::to_string(sourceRank.size()) +
                    " entries for " + std::to_string(numSrc) + " sources");
  const int64_t numEdges = int64_t(src.size());
  const bool typed = numRelations > 0;
  if (typed && int64_t(edgeType.size()) != numEdges)
    throwGraphError("edge type list has " + std::to_string(edgeType.size()) +
                    " entries for " + std::to_string(numEdges) + " edges");
  for (int64_t i = 0; typed && i < numEdges; ++i)
    if (edgeType[i] < 0 || edgeType[i] >= numRelations)
      throwGraphError("edge " + std::to_string(i) + ": relation " +
                      std::to_string(edgeType[i]) + " out of range [0, " +
                      std::to_string(numRelations) + ")");

  GraphStorage g;
  g.nSrc = numSrc;
  g.nDst = numDst;
  // inputEdgeAt[k]: the input edge that becomes edge k.
  std::vector<int64_t> bySource;
  if (sourceRank.empty()) {
    bySource = countingSortOrder(numSrc, src);
  } else {
    std::vector<int64_t> rank(src.size());
    for (size_t i = 0; i < src.size(); ++i) {
      rank[i] = sourceRank[size_t(src[i])];
      if (rank[i] < 0 || rank[i] >= numSrc)
        throwGraphError("source order: rank " + std::to_string(rank[i]) +
                        " out of range [0, " + std::to_string(numSrc) + ")");
    }
    bySource = countingSortOrder(numSrc, rank);
  }
  std::vector<int64_t> inputEdgeAt =
      countingSortOrder(numDst, dst, bySource);
  g.inOffsets = runOffsets(numDst, dst);
  g.edgeSrc.resize(size_t(numEdges));
  g.edgeDst.resize(size_t(numEdges));
  for (int64_t k = 0; k < numEdges; ++k) {
    g.edgeSrc[k] = int32_t(src[inputEdgeAt[k]]);
    g.edgeDst[k] = int32_t(dst[inputEdgeAt[k]]);
  }
  if (typed) {
    g.numRelations = numRelations;
    g.edgeType.resize(size_t(numEdges));
    for (int64_t k = 0; k < numEdges; ++k)
      g.edgeType[k] = edgeType[inputEdgeAt[k]];
  }
  g.buildTranspose();
  g.indexRelations();
  return g;
}

GraphStorage GraphStorage::fromCsr(int64_t numSrc, int64_t numDst,
                                   const std::vector<int64_t> &inOffsets,
                                   const std::vector<int32_t> &edgeSrc) {
  GraphStorage g;
  g.assignCsr(numSrc, numDst, inOffsets, edgeSrc);
  return g;
}

void GraphStorage::assignCsr(int64_t numSrc, int64_t numDst,
                             const std::vector<int64_t> &inOffsets,
                             const std::vector<int32_t> &edgeSrc,
                             bool outEdges) {
  checkCsr(numSrc, numDst, inOffsets, edgeSrc);
  edgeType.clear();
  numRelations = 0;
  relationIndex = RelationIndex();
  nSrc = numSrc;
  nDst = numDst;
  this->inOffsets.assign(inOffsets.begin(), inOffsets.end());
  this->edgeSrc.assign(edgeSrc.begin(), edgeSrc.end());
  edgeDst.resize(edgeSrc.size());
  for (int64_t v = 0; v < numDst; ++v)
    std::fill(edgeDst.begin() + inOffsets[v],
              edgeDst.begin() + inOffsets[v + 1], int32_t(v));
  if (outEdges) {
    buildTranspose();
  } else {
    // Emptied, capacity kept: a recycled block may need them again.
    this->outOffsets.clear();
    this->outEdges.clear();
    outDst.clear();
  }
}

void GraphStorage::setEdgeTypes(std::vector<int32_t> types,
                                int32_t relations) {
  if (int64_t(types.size()) != numEdges())
    throwGraphError("edge type list has " + std::to_string(types.size()) +
                    " entries for " + std::to_string(numEdges()) + " edges");
  for (size_t k = 0; k < types.size(); ++k)
    if (types[k] < 0 || types[k] >= relations)
      throwGraphError("edge " + std::to_string(k) + ": relation " +
                      std::to_string(types[k]) + " out of range [0, " +
                      std::to_string(relations) + ")");
  edgeType = std::move(types);
  numRelations = relations;
  indexRelations();
}

void GraphStorage::indexRelations() {
  relationIndex = edgeType.empty() ? RelationIndex()
                                   : buildRelationIndex(view());
}

GraphView GraphStorage::view() const {
  GraphView v;
  v.numSrc = nSrc;
  v.numDst = nDst;
  v.numEdges = numEdges();
  v.inOffsets = inOffsets.data();
  v.edgeSrc = edgeSrc.data();
  v.edgeDst = edgeDst.data();
  // outOffsets has numSrc + 1 entries unless the out-edges were left out.
  const bool out = !outOffsets.empty();
  v.outOffsets = out ? outOffsets.data() : nullptr;
  v.outEdges = out ? outEdges.data() : nullptr;
  v.outDst = out ? outDst.data() : nullptr;
  v.edgeType = edgeType.empty() ? nullptr : edgeType.data();
  v.numRelations = numRelations;
  // describes() turns the index down for a moved-from or copied storage's
  // arrays, which it was not built for.
  v.relationIndex = edgeType.empty() ? nullptr : &relationIndex;
  return v;
}

GraphStorage relationSubgraph(const GraphView &g, int32_t relation) {
  if (!g.edgeType || relation < 0 || relation >= g.numRelations)
    throwGraphError("relation " + std::to_string(relation) + " of a graph " +
                    (g.edgeType ? "with " + std::to_string(g.numRelations) +
                                      " relations"
                                : std::string("without relations")));
  std::vector<int64_t> offsets(size_t(g.numDst) + 1, 0);
  std::vector<int32_t> sources;
  if (g.relationIndex && g.relationIndex->describes(g)) {
    // The index lists the relation's (destination, relation) pairs by
    // ascending destination: O(its edges + destinations), not O(all edges).
    const RelationPairs &pairs = g.relationIndex->byDst;
    for (int64_t i = pairs.relationBegin[size_t(relation)];
         i < pairs.relationBegin[size_t(relation) + 1]; ++i) {
      const int64_t p = pairs.relationPairs[size_t(i)];
      for (int64_t e = pairs.edgeBegin[p]; e < pairs.edgeBegin[p + 1]; ++e)
        sources.push_back(g.edgeSrc[pairs.edges[e]]);
      offsets[size_t(pairs.pairNode[p]) + 1] = pairs.count(p);
    }
    for (int64_t v = 0; v < g.numDst; ++v)
      offsets[size_t(v) + 1] += offsets[size_t(v)];
  } else {
    for (int64_t v = 0; v < g.numDst; ++v) {
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k)
        if (g.edgeType[k] == relation)
          sources.push_back(g.edgeSrc[k]);
      offsets[size_t(v) + 1] = int64_t(sources.size());
    }
  }
  // A destination's sources keep g's order (a partition's is by global
  // id; a pair keeps its edges in CSR order).
  return GraphStorage::fromCsr(g.numSrc, g.numDst, offsets, sources);
}

GraphView relationView(const GraphView &g, int32_t relation,
                       GraphStorage &scratch) {
  if (g.relationIndex && g.relationIndex->describes(g) &&
      g.relationIndex->subgraphs)
    return g.relationIndex->subgraphs->get(g, relation).view();
  scratch = relationSubgraph(g, relation);
  return scratch.view();
}

} // namespace gnnrt
