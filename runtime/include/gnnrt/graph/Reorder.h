//===- Reorder.h - Node orders that make gathers hit the cache ---*- C++
//-*-===//
//
// An aggregation walks the destinations in id order and gathers one source
// row per in-edge. When a node's neighbours have ids near its own, the rows
// they gather were fetched a moment ago and are still in the last-level
// cache; in a randomly numbered graph almost every gathered row comes from
// memory. Renumbering the nodes once, at load time, so that neighbours get
// near ids is what DGL and PyG leave to the user; here the loader measures
// candidate orders with a model of the cache and keeps the best
// (chooseNodeOrder).
//
// An order is a permutation `newToOld`: node i of the renumbered graph is
// node newToOld[i] of the original. Everything the user sees stays in the
// original ids: the trainer keeps newToOld as its node ids
// (ExecContext::nodeIds), so dropout masks and predictions follow the
// original numbering.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_GRAPH_REORDER_H
#define GNNRT_GRAPH_REORDER_H

#include "gnnrt/graph/GraphView.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

enum class NodeOrder {
  /// The ids as loaded.
  Original,
  /// Communities found by label propagation, one after another: the order
  /// for graphs with community structure (social, citation, SBM).
  Community,
  /// Reverse Cuthill-McKee: breadth-first levels, for meshes and roads.
  Rcm,
  /// In-degree, highest first: the hubs' rows, gathered most often, share
  /// a few cache lines' worth of pages.
  Degree,
};

/// "original", "community", "rcm", "degree".
const char *nodeOrderName(NodeOrder order);
std::optional<NodeOrder> nodeOrderFromName(const std::string &name);

/// newToOld of `order` over the nodes of a full graph (numSrc == numDst;
/// the in-edges are taken as the adjacency). Original gives the identity.
/// Communities hold at most half the rows of `rowBytes` the last-level
/// cache holds. Deterministic: the same graph gives the same order on any
/// thread count.
std::vector<int64_t> computeNodeOrder(const GraphView &g, NodeOrder order,
                                      int64_t rowBytes = 512);

/// The share of gathered rows (one per edge; self loops are streamed and
/// not counted) that come from memory when an aggregation over `g`,
/// renumbered by `newToOld` (empty: as it is), walks its destinations in
/// order through a 16-way LRU cache of `cacheBytes` holding rows of
/// `rowBytes`.
double gatherMissRate(const GraphView &g, const std::vector<int64_t> &newToOld,
                      int64_t rowBytes, int64_t cacheBytes);

/// The last-level cache of this machine: $GNNRT_CACHE_BYTES if set, else
/// the L3 CPU 0 shares (sysfs), else 32 MiB.
int64_t lastLevelCacheBytes();

struct NodeOrderChoice {
  NodeOrder order = NodeOrder::Original;
  /// Empty for Original.
  std::vector<int64_t> newToOld;
  /// gatherMissRate of the original order and of the chosen one (0 when
  /// the graph was not scored).
  double originalMissRate = 0, missRate = 0;
};

/// Scores every order with gatherMissRate (rows of `rowBytes`, the
/// last-level cache) and returns the best, or the original unless the best
/// saves at least a tenth of its misses (a renumbering costs load time and
/// changes the order of floating-point sums). A graph whose rows all fit
/// in the cache keeps the original order unscored.
NodeOrderChoice chooseNodeOrder(const GraphView &g, int64_t rowBytes);

} // namespace gnnrt

#endif // GNNRT_GRAPH_REORDER_H
