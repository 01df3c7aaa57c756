//===- GraphView.cpp - The kernels' graph layout from an edge list --------===//
//
// Two stable counting sorts (by source, then by destination) give the
// destination-major edge numbering with sources ascending within a
// destination and parallel edges in input order; one more counting pass over
// that numbering lists each source's out-edges in ascending edge id (and their
// destinations alongside). All
// passes are O(numSrc + numEdges), so the layout depends on the edge list
// alone.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/GraphView.h"

#include "gnnrt/Error.h"
#include "gnnrt/Graph.h"

#include <string>

namespace gnnrt {
namespace {

/// "graph: <message>", the prefix Graph::fromEdges uses too.
[[noreturn]] void throwGraphError(const std::string &message) {
  throwDataError("graph", 0, message);
}

void checkEdgeList(int64_t numSrc, int64_t numDst,
                   const std::vector<int64_t> &src,
                   const std::vector<int64_t> &dst) {
  if (src.size() != dst.size())
    throwGraphError(std::to_string(src.size()) + " sources but " +
                    std::to_string(dst.size()) + " destinations");
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

} // namespace

GraphStorage GraphStorage::build(int64_t numSrc, int64_t numDst,
                                 const std::vector<int64_t> &src,
                                 const std::vector<int64_t> &dst) {
  checkEdgeList(numSrc, numDst, src, dst);
  const int64_t numEdges = int64_t(src.size());

  GraphStorage g;
  g.nSrc = numSrc;
  g.nDst = numDst;
  // inputEdgeAt[k]: the input edge that becomes edge k.
  std::vector<int64_t> inputEdgeAt =
      countingSortOrder(numDst, dst, countingSortOrder(numSrc, src));
  g.inOffsets = runOffsets(numDst, dst);
  g.edgeSrc.resize(size_t(numEdges));
  g.edgeDst.resize(size_t(numEdges));
  for (int64_t k = 0; k < numEdges; ++k) {
    g.edgeSrc[k] = int32_t(src[inputEdgeAt[k]]);
    g.edgeDst[k] = int32_t(dst[inputEdgeAt[k]]);
  }

  // Visiting edges in id order keeps each source's list ascending.
  g.outOffsets = runOffsets(numSrc, src);
  std::vector<int64_t> next(g.outOffsets.begin(), g.outOffsets.end() - 1);
  g.outEdges.resize(size_t(numEdges));
  g.outDst.resize(size_t(numEdges));
  for (int64_t k = 0; k < numEdges; ++k) {
    const int64_t i = next[g.edgeSrc[k]]++;
    g.outEdges[i] = k;
    g.outDst[i] = g.edgeDst[k];
  }
  return g;
}

GraphView GraphStorage::view() const {
  GraphView v;
  v.numSrc = nSrc;
  v.numDst = nDst;
  v.numEdges = numEdges();
  v.inOffsets = inOffsets.data();
  v.edgeSrc = edgeSrc.data();
  v.edgeDst = edgeDst.data();
  v.outOffsets = outOffsets.data();
  v.outEdges = outEdges.data();
  v.outDst = outDst.data();
  return v;
}

} // namespace gnnrt
