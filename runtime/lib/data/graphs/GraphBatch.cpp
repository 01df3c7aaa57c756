//===- GraphBatch.cpp - Graphs packed into one block-diagonal graph -------===//
//
// See gnnrt/data/GraphBatch.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphBatch.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Prefetch.h"

#include <algorithm>

namespace gnnrt {

GraphBatch packGraphs(const GraphCollection &graphs, const int64_t *ids,
                      size_t count) {
  GraphBatch batch;
  batch.graphIds.assign(ids, ids + count);
  int64_t numNodes = 0, numEdges = 0;
  for (int64_t g : batch.graphIds) {
    if (g < 0 || g >= graphs.numGraphs())
      throwDataError("batch", 0,
                     "graph id " + std::to_string(g) + " out of range [0, " +
                         std::to_string(graphs.numGraphs()) + ")");
    numNodes += graphs.nodeCount(g);
    numEdges += graphs.edgeCount(g);
  }
  // A shuffled batch's graphs lie anywhere in the collection: request their
  // edges and rows now, so that the copies below find them in cache instead
  // of missing on every graph in turn (most of the packing's time).
  for (int64_t g : batch.graphIds) {
    const int64_t e0 = graphs.edgeOffsets[g], edges = graphs.edgeCount(g);
    prefetchLines(graphs.src.data() + e0, size_t(edges) * sizeof(int64_t));
    prefetchLines(graphs.dst.data() + e0, size_t(edges) * sizeof(int64_t));
    prefetchLines(graphs.features.data() +
                      graphs.nodeOffsets[g] * graphs.numFeatures,
                  size_t(graphs.nodeCount(g) * graphs.numFeatures) *
                      sizeof(float));
  }

  const int64_t width = graphs.numFeatures, edgeWidth = graphs.numEdgeFeatures;
  batch.numFeatures = width;
  batch.numEdgeFeatures = edgeWidth;
  batch.nodeOffsets.reserve(count + 1);
  batch.nodeGraph.reserve(size_t(numNodes));
  batch.features.reserve(size_t(numNodes * width));
  batch.edgeFeatures.reserve(size_t(numEdges * edgeWidth));
  std::vector<int64_t> src, dst;
  src.reserve(size_t(numEdges));
  dst.reserve(size_t(numEdges));
  const bool classified = graphs.task == GraphTask::Classification;

  for (size_t b = 0; b < count; ++b) {
    const int64_t g = batch.graphIds[b];
    const int64_t first = graphs.nodeOffsets[g], nodes = graphs.nodeCount(g);
    // Global id v of graph g becomes v - first + shift in the batch.
    const int64_t shift = batch.nodeOffsets.back() - first;
    for (int64_t e = graphs.edgeOffsets[g]; e < graphs.edgeOffsets[g + 1];
         ++e) {
      src.push_back(graphs.src[e] + shift);
      dst.push_back(graphs.dst[e] + shift);
    }
    batch.nodeGraph.insert(batch.nodeGraph.end(), size_t(nodes), int64_t(b));
    batch.features.insert(batch.features.end(),
                          graphs.features.begin() + first * width,
                          graphs.features.begin() + (first + nodes) * width);
    batch.edgeFeatures.insert(
        batch.edgeFeatures.end(),
        graphs.edgeFeatures.begin() + graphs.edgeOffsets[g] * edgeWidth,
        graphs.edgeFeatures.begin() + graphs.edgeOffsets[g + 1] * edgeWidth);
    if (classified)
      batch.classes.push_back(graphs.classes[g]);
    else
      batch.targets.push_back(graphs.targets[g]);
    batch.nodeOffsets.push_back(batch.nodeOffsets.back() + nodes);
  }
  batch.graph = Graph::fromEdges(numNodes, src, dst);
  return batch;
}

} // namespace gnnrt
