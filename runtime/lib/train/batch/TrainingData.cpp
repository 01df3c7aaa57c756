//===- TrainingData.cpp - the dataset as the entry points read it ---------===//

#include "TrainingData.h"

#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/graph/Reorder.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace gnnrt {

void normalizeRows(std::vector<float> &features, int64_t width) {
  const int64_t rows = width > 0 ? int64_t(features.size()) / width : 0;
  for (int64_t v = 0; v < rows; ++v) {
    float *row = features.data() + v * width;
    double sum = 0;
    for (int64_t j = 0; j < width; ++j)
      sum += row[j];
    if (sum != 0)
      for (int64_t j = 0; j < width; ++j)
        row[j] = float(row[j] / sum);
  }
}

namespace {

/// Node i of the result is node newToOld[i] of `ds`: its feature row, its
/// label, and its ids in the edges and the splits (which keep their order).
/// These are all of Dataset's per-node fields; a per-node field added to
/// Dataset must be permuted here too (per-edge ones keep their order). A
/// dataset whose node types are id ranges must not be renumbered.
void renumberNodes(Dataset &ds, const std::vector<int64_t> &newToOld) {
  const int64_t n = ds.numNodes, f = ds.numFeatures;
  std::vector<int64_t> oldToNew(size_t(n), 0);
  for (int64_t i = 0; i < n; ++i)
    oldToNew[size_t(newToOld[size_t(i)])] = i;
  if (f > 0) {
    std::vector<float> features(ds.features.size());
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
      std::copy_n(ds.features.data() + newToOld[size_t(i)] * f, f,
                  features.data() + i * f);
    ds.features.swap(features);
  }
  std::vector<int64_t> labels(ds.labels.size());
  for (int64_t i = 0; i < n; ++i)
    labels[size_t(i)] = ds.labels[size_t(newToOld[size_t(i)])];
  ds.labels.swap(labels);
  for (std::vector<int64_t> *ids :
       {&ds.src, &ds.dst, &ds.trainIdx, &ds.validIdx, &ds.testIdx})
    for (int64_t &v : *ids)
      v = oldToNew[size_t(v)];
}

/// Rows of the width the order is chosen for: a common hidden width, 128
/// floats, where the gathers cost most.
constexpr int64_t kOrderRowBytes = 128 * sizeof(float);

} // namespace

TrainingData prepareWholeGraph(Dataset ds, const std::string &nodeOrder,
                               bool readsEdgeIds) {
  if (ds.numClasses <= 0)
    throw DataError("the dataset has no labeled nodes to train on");
  TrainingData t;
  // A heterogeneous graph's edges keep their relations; its node types stay
  // contiguous id ranges (not renumbered).
  auto build = [&] {
    return ds.isHeterogeneous()
               ? GraphStorage::build(ds.numNodes, ds.numNodes, ds.src, ds.dst,
                                     ds.edgeType, int32_t(ds.relations.size()))
               : GraphStorage::build(ds.numNodes, ds.numNodes, ds.src, ds.dst);
  };
  t.graph = build();
  const bool renumber = !readsEdgeIds && !ds.isHeterogeneous();
  std::vector<int64_t> newToOld;
  if (nodeOrder == "auto" && renumber) {
    NodeOrderChoice choice = chooseNodeOrder(t.graph.view(), kOrderRowBytes);
    t.nodeOrder = nodeOrderName(choice.order);
    t.originalMissRate = choice.originalMissRate;
    t.missRate = choice.missRate;
    newToOld = std::move(choice.newToOld);
  } else if (nodeOrder != "auto" && renumber) {
    const NodeOrder order =
        nodeOrderFromName(nodeOrder).value_or(NodeOrder::Original);
    t.nodeOrder = nodeOrderName(order);
    if (order != NodeOrder::Original)
      newToOld = computeNodeOrder(t.graph.view(), order, kOrderRowBytes);
  }
  if (!newToOld.empty()) {
    t.graph = GraphStorage();
    renumberNodes(ds, newToOld);
    t.graph = build();
    t.nodeIds = std::move(newToOld);
  }
  // The graph has the edges now: the lists (16 bytes an edge, 640 MB of a
  // 40M-edge graph) would only add to the peak of every epoch.
  std::vector<int64_t>().swap(ds.src);
  std::vector<int64_t>().swap(ds.dst);
  t.trainMask.assign(size_t(ds.numNodes), 0);
  for (int64_t v : ds.trainIdx)
    t.trainMask[size_t(v)] = 1;
  t.numGlobalNodes = ds.numNodes;
  t.data = std::move(ds);
  return t;
}

namespace {

/// Each local edge's position in the whole graph's destination-major CSR,
/// which is what a single process numbers edges by. A partition lists a
/// node's in-edges in the whole graph's order (by global source id), so the
/// k-th in-edge of a node is its k-th there too.
std::vector<int64_t> globalEdgeIds(const GraphView &g,
                                   const std::vector<int64_t> &nodeIds,
                                   int64_t numGlobalNodes,
                                   Communicator &comm) {
  std::vector<int64_t> offsets(size_t(numGlobalNodes) + 1, 0);
  for (int64_t v = 0; v < g.numDst; ++v)
    offsets[size_t(nodeIds[size_t(v)]) + 1] =
        g.inOffsets[v + 1] - g.inOffsets[v];
  comm.allReduceSum(offsets.data() + 1, numGlobalNodes);
  for (int64_t v = 0; v < numGlobalNodes; ++v)
    offsets[size_t(v) + 1] += offsets[size_t(v)];
  std::vector<int64_t> ids(size_t(g.numEdges));
  for (int64_t v = 0; v < g.numDst; ++v) {
    const int64_t first = offsets[size_t(nodeIds[size_t(v)])];
    for (int64_t e = g.inOffsets[v]; e < g.inOffsets[v + 1]; ++e)
      ids[size_t(e)] = first + (e - g.inOffsets[v]);
  }
  return ids;
}

} // namespace

TrainingData preparePartition(Partition part, Communicator &comm,
                              bool normalizeFeatures, bool withEdgeIds,
                              bool mapFeatureRows, bool trainsNodes) {
  if (part.numClasses <= 0)
    throw DataError("the dataset has no labeled nodes to train on");
  // A part stored with its edges by source gets its owned nodes' in-edges
  // from the other ranks first (and its halo changes with them).
  const bool bySource = part.edgeAssign == EdgeAssign::Src;
  const int64_t storedEdges = part.numEdges();
  if (int64_t moved = assignEdgesToDestinations(part, comm);
      bySource && comm.rank() == 0)
    std::fprintf(stderr,
                 "note: the partitions store edges by source; %lld edges "
                 "moved to their destinations' ranks (part 0 stored %lld)\n",
                 static_cast<long long>(moved),
                 static_cast<long long>(storedEdges));
  const int64_t owned = part.numOwned(), local = part.numLocal();
  const int64_t f = part.numFeatures;
  TrainingData t;
  t.numGlobalNodes = part.numGlobalNodes;
  t.halo = std::make_unique<HaloExchange>(comm, owned, part.recvOffsets,
                                          part.sendOffsets, part.sendNodes);

  // The local graph: in-edges of the owned nodes, sources over all local
  // nodes (edges are assigned to their destination's owner).
  // Degrees over the whole graph: in-degrees are complete locally; each
  // rank counts out-edges of its local sources, the owners sum the counts,
  // and the halo copies come back.
  t.dstDegree.assign(size_t(owned), 0.f);
  for (int64_t v = 0; v < owned; ++v)
    t.dstDegree[size_t(v)] = float(part.indptr[v + 1] - part.indptr[v]);
  std::vector<float> counts(size_t(local), 0.f);
  for (int32_t s : part.indices)
    counts[size_t(s)] += 1.f;
  {
    // The part's own edge arrays go as soon as the local graph has them:
    // they would otherwise set the peak memory of the load.
    std::vector<int64_t> src, dst;
    src.reserve(part.indices.size());
    dst.reserve(part.indices.size());
    for (int64_t v = 0; v < owned; ++v)
      for (int64_t k = part.indptr[v]; k < part.indptr[v + 1]; ++k) {
        src.push_back(part.indices[size_t(k)]);
        dst.push_back(v);
      }
    std::vector<int32_t>().swap(part.indices);
    std::vector<int64_t>().swap(part.edgeIds);
    // A node's in-edges are listed by global source id, as the whole
    // graph lists them (local ids put the halo after the owned nodes), so
    // the k-th in-edge a sampler draws is one process's. A heterogeneous
    // graph's edges keep their relations.
    std::vector<int64_t> byGlobalId(static_cast<size_t>(local));
    std::iota(byGlobalId.begin(), byGlobalId.end(), int64_t(0));
    auto globalOf = [&](int64_t u) {
      return u < owned ? part.ownedNodes[size_t(u)]
                       : part.haloNodes[size_t(u - owned)];
    };
    std::sort(byGlobalId.begin(), byGlobalId.end(),
              [&](int64_t a, int64_t b) { return globalOf(a) < globalOf(b); });
    std::vector<int64_t> sourceRank(static_cast<size_t>(local));
    for (int64_t i = 0; i < local; ++i)
      sourceRank[size_t(byGlobalId[size_t(i)])] = i;
    t.graph = GraphStorage::build(local, owned, src, dst, part.edgeTypes,
                                  int32_t(part.edgeTypes.empty()
                                              ? 0
                                              : part.relations.size()),
                                  sourceRank);
    std::vector<int32_t>().swap(part.edgeTypes);
  }
  t.srcDegree = counts;
  std::fill(t.srcDegree.begin() + owned, t.srcDegree.end(), 0.f);
  t.halo->backward(counts.data(), 1, t.srcDegree.data());
  t.halo->forward(t.srcDegree.data(), 1);
  t.halo->splitBySourceOwner(t.graph.view(), t.dstDegree);

  // Features of the owned rows only: programs exchange what they compute
  // from them (gnn-distribute).
  Dataset &ds = t.data;
  ds.nodeTypes = std::move(part.nodeTypes);
  ds.relations = std::move(part.relations);
  ds.targetType = part.targetType;
  ds.numNodes = owned;
  ds.numFeatures = f;
  ds.numClasses = part.numClasses;
  ds.features = std::move(part.features);
  if (!part.featuresFile.empty() && owned > 0 && f > 0) {
    // Consecutive ids (PartitionReader checked): one slice of the file.
    const int64_t first = part.ownedNodes.front();
    if (mapFeatureRows && !normalizeFeatures)
      t.mappedFeatures = MappedFeatureRows(
          part.featuresFile, part.numGlobalNodes, f, first, owned);
    else {
      ds.features =
          readNpySlice(part.featuresFile, first * f, owned * f).toFloat32();
      checkFiniteRows(part.featuresFile, ds.features.data(), owned * f, f,
                      first);
    }
  }
  if (normalizeFeatures)
    normalizeRows(ds.features, f);
  ds.labels = std::move(part.labels);
  ds.trainIdx = std::move(part.trainIdx);
  ds.validIdx = std::move(part.validIdx);
  ds.testIdx = std::move(part.testIdx);
  t.trainMask.assign(size_t(owned), 0);
  for (int64_t v : ds.trainIdx)
    t.trainMask[size_t(v)] = 1;

  // The feature cache holds input rows too: scaled like the owned ones.
  t.cachedNodes = std::move(part.cachedNodes);
  t.cachedFeatures = std::move(part.cachedFeatures);
  if (normalizeFeatures)
    normalizeRows(t.cachedFeatures, f);

  t.nodeIds = std::move(part.ownedNodes);
  t.nodeIds.insert(t.nodeIds.end(), part.haloNodes.begin(),
                   part.haloNodes.end());

  if (withEdgeIds)
    t.edgeIds = globalEdgeIds(t.graph.view(), t.nodeIds, part.numGlobalNodes,
                              comm);

  // A link program trains on pairs: its nodes carry no labels or splits.
  if (!trainsNodes)
    return t;
  int64_t train[2] = {int64_t(ds.trainIdx.size()), 0};
  train[1] = train[0];
  comm.allReduceSum(&train[1], 1);
  if (train[1] == 0)
    throw DataError("the training split is empty on every rank");
  // As a whole-graph start: train nodes all unlabeled would train at loss 0.
  int64_t labeled = 0;
  for (int64_t v : ds.trainIdx)
    labeled += ds.labels[size_t(v)] >= 0;
  comm.allReduceSum(&labeled, 1);
  if (labeled == 0)
    throw DataError(noLabeledTrainNodes(train[1]) + " (on every rank)");
  t.lossScale = double(train[0]) / double(train[1]);
  return t;
}

ExecContext<float> makeContext(const TrainingData &t, uint64_t seed,
                               Workspace<float> &workspace) {
  ExecContext<float> ctx;
  ctx.graph = t.graph.view();
  ctx.features = t.featureRows();
  ctx.numFeatures = t.data.numFeatures;
  ctx.numClasses = t.data.numClasses;
  ctx.numRelations = int64_t(t.data.relations.size());
  ctx.numGlobalNodes = t.numGlobalNodes;
  if (!t.data.relations.empty()) {
    ctx.relations = &t.data.relations;
    ctx.nodeTypes = &t.data.nodeTypes;
  }
  ctx.labels = t.data.labels.data();
  ctx.lossMask = t.trainMask.data();
  ctx.seed = seed;
  ctx.workspace = &workspace;
  ctx.halo = t.halo.get();
  if (!t.nodeIds.empty())
    ctx.nodeIds = t.nodeIds.data();
  if (!t.edgeIds.empty())
    ctx.edgeIds = t.edgeIds.data();
  if (t.halo) {
    ctx.srcDegree = t.srcDegree.data();
    ctx.dstDegree = t.dstDegree.data();
  }
  ctx.lossScale = t.lossScale;
  return ctx;
}

} // namespace gnnrt
