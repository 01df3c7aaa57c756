//===- TrainingData.h - the dataset as the entry points read it -*- C++ -*-===//
//
// One rank's view of the training data. A single process holds the whole
// graph (source and destination nodes coincide). A rank of a distributed
// run holds one partition: its owned nodes are the destinations, and the
// sources are the owned nodes followed by the halo; features, labels and
// splits have a row per owned node.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_TRAININGDATA_H
#define GNNRT_LIB_TRAIN_TRAININGDATA_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/comm/HaloExchange.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/train/Program.h"
#include "offload/MappedFeatureRows.h"

#include <memory>
#include <vector>

namespace gnnrt {

struct TrainingData {
  /// numNodes: the destination (owned) nodes, one feature row each. The
  /// edges are in `graph` only (data.src and data.dst are empty).
  Dataset data;
  GraphStorage graph;
  std::vector<uint8_t> trainMask;
  /// Distributed runs only (empty / null in a single process).
  std::unique_ptr<HaloExchange> halo;
  std::vector<int64_t> nodeIds, edgeIds;
  std::vector<float> srcDegree, dstDegree;
  /// This rank's training rows over all ranks' (1 in a single process).
  double lossScale = 1.0;
  /// Nodes of the whole graph (numNodes in a single process).
  int64_t numGlobalNodes = 0;
  /// How a single process numbered the nodes (graph/Reorder.h): the
  /// order's name, and the modeled share of gathered rows that miss the
  /// last-level cache in the original order and in this one (both 0 when
  /// the order was not chosen by the model). Renumbered data keeps the
  /// original id of each node in nodeIds.
  std::string nodeOrder = "original";
  double originalMissRate = 0, missRate = 0;
  /// Frequency partitioning's feature cache: remote nodes (global ids,
  /// ascending) whose feature rows this rank holds anyway.
  std::vector<int64_t> cachedNodes;
  std::vector<float> cachedFeatures;
  /// The owned rows read where they are (a partition whose manifest says
  /// features_in_place), instead of data.features, which is then empty.
  MappedFeatureRows mappedFeatures;

  /// The owned nodes' feature rows, wherever they are.
  const float *featureRows() const {
    return mappedFeatures ? mappedFeatures.data() : data.features.data();
  }
};

/// The whole dataset, for one process, its nodes renumbered by `nodeOrder`:
/// "auto" (chooseNodeOrder), or a NodeOrder's name. Renumbering keeps
/// the original ids in TrainingData::nodeIds, so dropout masks and
/// predictions do not change with the order. A program that reads edge
/// ids (dropout on edges) keeps the original order.
TrainingData prepareWholeGraph(Dataset ds,
                               const std::string &nodeOrder = "original",
                               bool readsEdgeIds = false);

/// One rank's partition: features of the owned rows; the global degrees
/// come from the other ranks (collective: every rank calls it).
/// `normalizeFeatures` scales each feature row to sum 1.
/// `withEdgeIds`: number the local edges as the whole graph does (for
/// dropout on edges; collective). A part whose rows are in the dataset's
/// file (Partition::featuresFile) maps them read-only if `mapFeatureRows`
/// (the full-graph programs' entry points read them through
/// featureRows()), else reads them into data.features (and normalizes
/// them there). `trainsNodes` false (a link program's pairs): the nodes
/// need no training split or labels.
TrainingData preparePartition(Partition part, Communicator &comm,
                              bool normalizeFeatures, bool withEdgeIds,
                              bool mapFeatureRows = false,
                              bool trainsNodes = true);

/// Points an entry point's context at `t`.
ExecContext<float> makeContext(const TrainingData &t, uint64_t seed,
                               Workspace<float> &workspace);

/// Scales each feature row to sum 1 (PyG's NormalizeFeatures; Kipf &
/// Welling's preprocessing). All-zero rows stay zero.
void normalizeRows(std::vector<float> &features, int64_t width);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_TRAININGDATA_H
