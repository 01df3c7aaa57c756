//===- Graph.cpp - CSR construction by counting sort ----------------------===//
//
// Builds both compressed layouts with three stable counting-sort passes over
// the edges: by source, then by destination (giving the destination-major
// order sorted by source within a row), then by source again (giving the
// source-major order sorted by destination). Each pass is O(N + E) and
// stable, so the result depends only on the edge list.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/Graph.h"

#include "gnnrt/support/Error.h"

#include <string>

namespace gnnrt {

std::vector<int64_t> countingSortOrder(int64_t numNodes,
                                       const std::vector<int64_t> &key,
                                       const std::vector<int64_t> &order) {
  const int64_t numEdges = int64_t(key.size());
  std::vector<int64_t> start(size_t(numNodes) + 1, 0);
  for (int64_t k : key)
    ++start[size_t(k) + 1];
  for (int64_t v = 0; v < numNodes; ++v)
    start[v + 1] += start[v];
  std::vector<int64_t> result(static_cast<size_t>(numEdges));
  if (order.empty()) {
    for (int64_t e = 0; e < numEdges; ++e)
      result[start[key[e]]++] = e;
  } else {
    for (int64_t e : order)
      result[start[key[e]]++] = e;
  }
  return result;
}

Graph Graph::fromEdges(int64_t numNodes, const std::vector<int64_t> &src,
                       const std::vector<int64_t> &dst) {
  if (src.size() != dst.size())
    throw DataError("graph: " + std::to_string(src.size()) + " sources but " +
                    std::to_string(dst.size()) + " destinations");
  if (numNodes < 0 || numNodes >= (int64_t(1) << 31))
    throw DataError("graph: " + std::to_string(numNodes) +
                    " nodes do not fit 32-bit local ids (limit 2^31 - 1)");
  const int64_t numEdges = int64_t(src.size());
  for (int64_t e = 0; e < numEdges; ++e) {
    if (src[e] < 0 || src[e] >= numNodes || dst[e] < 0 || dst[e] >= numNodes)
      throw DataError("graph: edge " + std::to_string(e) + " (" +
                      std::to_string(src[e]) + " -> " + std::to_string(dst[e]) +
                      ") has a node id out of " + "range [0, " +
                      std::to_string(numNodes) + ")");
  }

  Graph g;
  g.nodes = numNodes;
  // Destination-major, sources ascending within a row.
  g.inEid = countingSortOrder(numNodes, dst, countingSortOrder(numNodes, src));
  // Source-major, destinations ascending: re-sort the dst-major order.
  g.outEid = countingSortOrder(numNodes, src, g.inEid);

  auto offsets = [&](const std::vector<int64_t> &key) {
    std::vector<int64_t> off(size_t(numNodes) + 1, 0);
    for (int64_t k : key)
      ++off[size_t(k) + 1];
    for (int64_t v = 0; v < numNodes; ++v)
      off[v + 1] += off[v];
    return off;
  };
  g.inOff = offsets(dst);
  g.outOff = offsets(src);
  g.inSrc.resize(size_t(numEdges));
  g.outDst.resize(size_t(numEdges));
  for (int64_t k = 0; k < numEdges; ++k) {
    g.inSrc[k] = int32_t(src[g.inEid[k]]);
    g.outDst[k] = int32_t(dst[g.outEid[k]]);
  }
  return g;
}

std::vector<int64_t> Graph::inDegrees() const {
  std::vector<int64_t> deg(static_cast<size_t>(nodes));
  for (int64_t v = 0; v < nodes; ++v)
    deg[v] = inDegree(v);
  return deg;
}

std::vector<int64_t> Graph::outDegrees() const {
  std::vector<int64_t> deg(static_cast<size_t>(nodes));
  for (int64_t u = 0; u < nodes; ++u)
    deg[u] = outDegree(u);
  return deg;
}

} // namespace gnnrt
