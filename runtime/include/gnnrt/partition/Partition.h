//===- Partition.h - Graph partitioning for distributed training -*- C++
//-*-===//
//
// Distributed full-graph training runs one rank per part of the graph. This
// header is the whole pipeline from a loaded Dataset to what one rank holds:
//
//   1. node ownership: `partitionNodes` assigns every node to a part, with
//      METIS (multi-constraint k-way, balancing any of nodes, edges and
//      training nodes, as DistDGL's --balance_edges --balance_train), at
//      random (a seeded balanced shuffle, as GLT's RandomPartitioner), by
//      access frequency (GLT's FrequencyPartitioner: each part pre-samples
//      an epoch from its share of the training nodes and keeps the nodes its
//      batches read most), or from an external assignment file (gpmetis's
//      output format);
//   2. the plan: `buildPartitionPlan` places each edge with the owner of its
//      destination (default: aggregation at a destination is local once the
//      remote source rows have arrived) or of its source (GLT's
//      edge_assign_strategy), and derives every part's halo (the remote
//      endpoints of its edges) and the halo-exchange tables; optionally
//      (`addFeatureCache`) every part's feature cache: the hottest remote
//      nodes of its pre-sampled epoch, whose input rows it also stores;
//   3. one part: `extractPartition` materializes part p alone (local CSR,
//      halo tables, owned rows of features, labels and splits, cached
//      rows), which is what `writePartitions` stores per directory and what
//      `readPartition` gives back to a rank without reading the rest.
//
// Local node ids of a part are [owned nodes..., halo nodes...]: owned nodes
// in ascending global id, then halo nodes grouped by owning part (ascending)
// and by global id within an owner. Because every part orders its halo the
// same way, the rows part a sends to part b are exactly b's halo rows owned
// by a, in the same order, and no ids travel during an exchange.
//
// On disk (docs/partitioning.md): OUT/manifest.json, OUT/node_owner.npy (the
// partition book: the owner of every global node) and OUT/part<k>/*.npy
// (with cached_nodes.npy and cached_features.npy when there is a cache).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITION_H
#define GNNRT_PARTITION_PARTITION_H

#include "gnnrt/data/Dataset.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnnrt {

struct PartitionPlan;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// How nodes are assigned to parts.
enum class PartitionMethod {
  Metis,  ///< METIS_PartGraphKway on the symmetrized graph
  Random, ///< a seeded random permutation cut into equal chunks
  File,   ///< read from an assignment file (one part id per line)
  /// GLT's FrequencyPartitioner: every node goes to the part whose
  /// pre-sampled training batches access it most (needs fanouts)
  Frequency
};

/// Which endpoint's owner stores an edge (GLT's edge_assign_strategy).
enum class EdgeAssign {
  Dst, ///< with its destination: halo nodes are remote sources
  Src  ///< with its source: halo nodes are remote destinations
};

/// A quantity METIS keeps balanced across parts; each selected one is one
/// METIS constraint (vertex weight column).
enum class BalanceConstraint {
  Nodes, ///< weight 1 per node
  Edges, ///< the node's edges in its part: in-degree (Dst) or out-degree (Src)
  Train  ///< 1 for a training node, else 0
};

const char *partitionMethodName(PartitionMethod method); ///< "metis", ...
const char *edgeAssignName(EdgeAssign assign);           ///< "dst" or "src"
const char *balanceConstraintName(BalanceConstraint c);  ///< "nodes", ...
/// The inverses of the name functions; nullopt for an unknown name.
std::optional<PartitionMethod> partitionMethodFromName(std::string_view name);
std::optional<EdgeAssign> edgeAssignFromName(std::string_view name);
std::optional<BalanceConstraint>
balanceConstraintFromName(std::string_view name);

struct PartitionOptions {
  PartitionMethod method = PartitionMethod::Metis;
  int numParts = 1;
  /// METIS constraints, in this order; at least one, no repeats.
  std::vector<BalanceConstraint> balance = {BalanceConstraint::Nodes};
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  /// METIS's seed (taken modulo 2^31) or the random permutation's seed.
  uint64_t seed = 0;
  /// METIS's load imbalance tolerance in thousandths: every part's weight of
  /// every constraint stays at most (1 + ufactor / 1000) x the mean (METIS's
  /// k-way default, and gpmetis's, is 30).
  int64_t ufactor = 30;
  /// For PartitionMethod::File: the assignment file.
  std::string assignmentFile;
  /// Pre-sampling (Frequency, the feature cache and estimateRemoteRows): the
  /// training fanouts, layer 0 (the input side) first as in SamplerOptions,
  /// each > 0 or -1 (all in-neighbours), and the batch size. Frequency also
  /// reads `ufactor` (a part holds at most ceil(N / P) x (1 + ufactor /
  /// 1000) nodes) and `seed` (the training split and the sampling).
  std::vector<int64_t> fanouts;
  int64_t batchSize = 1024;
  /// The feature cache (any method; needs fanouts): every part also holds
  /// the feature rows of its floor(cacheRatio x owned nodes) hottest remote
  /// nodes. In [0, 1]; 0 = no cache.
  double cacheRatio = 0;
};

//===----------------------------------------------------------------------===//
// Node ownership
//===----------------------------------------------------------------------===//

/// Each node's weight per constraint, row-major [numNodes x balance.size()]
/// (METIS's vwgt layout).
std::vector<int64_t>
constraintWeights(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance,
                  EdgeAssign assign);

/// GLT's RandomPartitioner: a random permutation of the nodes (Philox,
/// stream-separated from every other use of `seed`) cut into numParts
/// contiguous chunks whose sizes differ by at most one. Deterministic.
std::vector<int32_t> randomPartition(int64_t numNodes, int numParts,
                                     uint64_t seed);

/// METIS_PartGraphKway on the dataset's edges made undirected, without self
/// loops or repeats, with one vertex-weight column per options.balance and
/// options.ufactor / options.seed. An undirected edge is weighted by how
/// many directed edges it stands for, unless all weigh the same (the usual
/// symmetric graph), when METIS gets unit weights. `objective`, if given,
/// receives METIS's edge cut of that graph (what gpmetis prints).
/// Throws DataError if a constraint has zero total weight (e.g. balancing
/// training nodes of a dataset without any) or METIS fails.
std::vector<int32_t> metisPartition(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *objective = nullptr);

/// Dispatches on options.method. Throws DataError for numParts < 1 or
/// numParts > numNodes, or invalid sampling options
/// (checkSamplingOptions).
std::vector<int32_t> partitionNodes(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *metisObjective = nullptr);

/// Writes the graph metisPartition would partition, in METIS's graph file
/// format (1-based, "n m fmt ncon" header), for running gpmetis on it.
void writeMetisGraph(const std::string &path, const Dataset &ds,
                     const std::vector<BalanceConstraint> &balance,
                     EdgeAssign assign);

/// Reads an assignment in gpmetis's output format: numNodes lines, line i
/// the part of node i-1, each in [0, numParts). Errors name file and line.
std::vector<int32_t> readPartitionAssignment(const std::string &path,
                                             int64_t numNodes, int numParts);

//===----------------------------------------------------------------------===//
// Pre-sampling: access frequency, GLT's FrequencyPartitioner, remote rows
//===----------------------------------------------------------------------===//

/// Throws DataError unless the sampling options make sense: every fanout
/// > 0 or -1, batchSize >= 1, cacheRatio in [0, 1], and fanouts given when
/// the method is Frequency or cacheRatio > 0.
void checkSamplingOptions(const PartitionOptions &options);

/// How often each part's sampled training batches read each node's input
/// row over one epoch: the batches of part p whose level-0 nodes (the
/// nodes whose features a batch gathers) include v. GLT's access
/// probability, as a count.
struct AccessCounts {
  int numParts = 0;
  int64_t numNodes = 0;
  int64_t batches = 0; ///< sampled batches, all parts together
  /// counts[p * numNodes + v]: part p's batches that read node v.
  std::vector<int32_t> counts;

  int32_t at(int part, int64_t node) const {
    return counts[size_t(part) * size_t(numNodes) + size_t(node)];
  }
};

/// Pre-samples one epoch per part: part p's seeds are the training nodes
/// that `owner` puts in p (other nodes' entries are not read), shuffled and
/// cut into batches of options.batchSize, each sampled over the whole graph
/// with options.fanouts (without replacement), as distributed sampled
/// training would. Deterministic in options.seed; parts are sampled in
/// parallel, with the same result for any thread count.
AccessCounts sampleAccessCounts(const Dataset &ds,
                                const std::vector<int32_t> &owner, int numParts,
                                const PartitionOptions &options);

/// GLT's FrequencyPartitioner. The training nodes are split among the parts
/// at random (balanced, seeded); each part pre-samples an epoch from its
/// share (sampleAccessCounts). Training nodes stay with the part that
/// sampled them; every other node, hottest first, goes to the part that
/// accessed it most among those below the capacity ceil(N / P) x (1 +
/// ufactor / 1000); ties and never-accessed nodes go to the least loaded
/// part. Deterministic in options.seed. `hotness`, if given, receives the
/// access counts (valid for the returned assignment: its training nodes
/// are where the counts sampled them).
std::vector<int32_t> frequencyPartition(const Dataset &ds,
                                        const PartitionOptions &options,
                                        AccessCounts *hotness = nullptr);

/// Remote input rows of one epoch of distributed sampled training.
struct RemoteRowEstimate {
  int64_t batches = 0;   ///< sampled batches, all parts together
  int64_t inputRows = 0; ///< level-0 nodes of all batches
  /// Of those, nodes the batch's part does not own: rows fetched remotely.
  int64_t remoteRows = 0;
  int64_t cacheHits = 0; ///< of the remote rows, those in the part's cache
};

/// Estimates the remote feature rows an epoch of sampled training fetches
/// under `plan`: part p trains on the training nodes it owns, in batches of
/// options.batchSize sampled with options.fanouts; each level-0 node of its
/// batches that p does not own is a remote row, served by p's feature
/// cache if the plan has one. The epoch is sampled from its own random
/// stream, not the one that chose the assignment or the cache, so a cache
/// is not credited for the very draws it was chosen from.
RemoteRowEstimate estimateRemoteRows(const Dataset &ds,
                                     const PartitionPlan &plan,
                                     const PartitionOptions &options);

//===----------------------------------------------------------------------===//
// The plan: edges, halos and counts of every part
//===----------------------------------------------------------------------===//

/// Sizes of one part, as the manifest records them.
struct PartCounts {
  int64_t ownedNodes = 0;
  int64_t edges = 0;                      ///< edges stored in this part
  int64_t haloNodes = 0;                  ///< remote endpoints of those edges
  int64_t sendNodes = 0;                  ///< sum of the send lists' lengths
  int64_t train = 0, valid = 0, test = 0; ///< owned nodes of each split
  int64_t cutEdges = 0;    ///< stored edges whose other endpoint is a halo node
  int64_t cachedNodes = 0; ///< remote nodes whose feature rows it caches

  bool operator==(const PartCounts &o) const;
};

/// A partitioning of a whole graph: who owns each node, which edges each part
/// stores and which remote nodes each part needs. Built once (from the full
/// dataset) and then used to extract parts one at a time.
struct PartitionPlan {
  int numParts = 0;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  /// Per global node: its part, and its position among that part's nodes.
  std::vector<int32_t> owner;
  std::vector<int64_t> localId;
  /// Global node ids grouped by part, ascending within a part: part p owns
  /// partNodes[nodeOffsets[p] .. nodeOffsets[p + 1]).
  std::vector<int64_t> nodeOffsets, partNodes;
  /// Edge ids (positions in the dataset's edge list) grouped by part,
  /// ascending within a part.
  std::vector<int64_t> edgeOffsets, partEdges;
  /// Halo global ids grouped by part; within a part sorted by (owner, id).
  std::vector<int64_t> haloOffsets, haloNodes;
  std::vector<PartCounts> counts;
  /// Edges whose endpoints have different owners (the sum of cutEdges).
  int64_t edgeCut = 0;
  /// The feature cache (selectFeatureCache; without one every part's list
  /// is empty): part p also holds the feature rows of the remote nodes
  /// cachedNodes[cacheOffsets[p] .. cacheOffsets[p + 1]), ascending within
  /// a part.
  double cacheRatio = 0;
  std::vector<int64_t> cacheOffsets, cachedNodes;
};

/// Builds the plan for the node assignment `owner` (one entry per node, in
/// [0, numParts)). Throws DataError for a wrong length or an entry out of
/// range.
PartitionPlan buildPartitionPlan(const Dataset &ds, std::vector<int32_t> owner,
                                 int numParts, EdgeAssign assign);

/// Gives every part of `plan` a feature cache of its floor(cacheRatio x
/// owned nodes) remote nodes with the highest access counts in `hotness`
/// (ties: lower id first); never-accessed nodes are not cached, so a part
/// whose batches touch fewer remote nodes caches fewer. cacheRatio 0
/// clears the cache.
void selectFeatureCache(PartitionPlan &plan, const AccessCounts &hotness,
                        double cacheRatio);

/// selectFeatureCache with options.cacheRatio, the hotness pre-sampled
/// over plan.owner (sampleAccessCounts). Throws DataError for invalid
/// sampling options.
void addFeatureCache(PartitionPlan &plan, const Dataset &ds,
                     const PartitionOptions &options);

//===----------------------------------------------------------------------===//
// One part
//===----------------------------------------------------------------------===//

/// Everything one rank holds. Local ids: [0, numOwned()) are owned nodes,
/// [numOwned(), numLocal()) the halo.
struct Partition {
  int part = 0, numParts = 1;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  int64_t numGlobalNodes = 0, numFeatures = 0, numClasses = 0;
  /// Global ids of the owned nodes (ascending) and of the halo nodes.
  std::vector<int64_t> ownedNodes, haloNodes;
  /// The part that owns each halo node.
  std::vector<int32_t> haloOwners;
  /// Local CSR by destination over all local nodes: the in-edges of local
  /// node v are [indptr[v], indptr[v + 1]), sources (local ids) ascending in
  /// `indices`. Under EdgeAssign::Dst only owned rows have edges (a halo row
  /// is empty); under Src every source is owned.
  std::vector<int64_t> indptr;
  std::vector<int32_t> indices;
  /// The dataset edge id of each local edge (to index per-edge data).
  std::vector<int64_t> edgeIds;
  /// The halo exchange. recvOffsets (numParts + 1): the halo rows owned by
  /// part q are halo positions [recvOffsets[q], recvOffsets[q + 1]), i.e.
  /// local ids numOwned() + that. sendNodes[sendOffsets[q] ..
  /// sendOffsets[q + 1]) are the owned local ids whose rows part q holds as
  /// halo, in q's halo order. Forward (Dst): send those rows, receive the
  /// halo rows; the reverse direction (gradients, or Src partial sums) sends
  /// halo rows back and adds them into the send-list rows.
  std::vector<int64_t> recvOffsets, sendOffsets, sendNodes;
  /// Owned rows: features [numOwned x numFeatures] and labels (-1 =
  /// unlabeled); the splits as ascending owned local ids.
  std::vector<float> features;
  std::vector<int64_t> labels;
  std::vector<int64_t> trainIdx, validIdx, testIdx;
  /// The feature cache: global ids of remote nodes (ascending) whose feature
  /// rows this part holds too, and those rows [numCached x numFeatures].
  std::vector<int64_t> cachedNodes;
  std::vector<float> cachedFeatures;

  int64_t numOwned() const { return int64_t(ownedNodes.size()); }
  int64_t numCached() const { return int64_t(cachedNodes.size()); }
  int64_t numHalo() const { return int64_t(haloNodes.size()); }
  int64_t numLocal() const { return numOwned() + numHalo(); }
  int64_t numEdges() const { return int64_t(indices.size()); }
};

/// Materializes part `part` of the plan. Only that part's rows are copied.
Partition extractPartition(const Dataset &ds, const PartitionPlan &plan,
                           int part);

//===----------------------------------------------------------------------===//
// On disk
//===----------------------------------------------------------------------===//

/// The contents of manifest.json.
struct PartitionManifest {
  int64_t version = 1;
  PartitionMethod method = PartitionMethod::Metis;
  int numParts = 1;
  /// METIS constraints (empty for other methods).
  std::vector<BalanceConstraint> balance;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  uint64_t seed = 0;
  int64_t ufactor = 30;
  /// METIS's objective (undirected edge cut of its input graph); -1 when
  /// the method is not METIS.
  int64_t metisObjective = -1;
  /// Pre-sampling: the training fanouts (layer 0 first) and batch size the
  /// frequency assignment or the cache was computed with (empty / 0 when
  /// none), and the cache ratio (0: no cache files).
  std::vector<int64_t> fanouts;
  int64_t batchSize = 0;
  double cacheRatio = 0;
  /// How the dataset was loaded (what the trainer must load identically).
  std::string dataset, split, assignmentFile;
  bool addReverseEdges = true, addSelfLoops = false, dedupe = true;
  int64_t numNodes = 0, numEdges = 0, numFeatures = 0, numClasses = 0;
  int64_t numTrain = 0, numValid = 0, numTest = 0;
  int64_t edgeCut = 0;
  std::vector<PartCounts> parts;
};

/// The directory of part k inside a partition directory: "part<k>".
std::string partDirectoryName(int part);

/// Fills the count fields of `manifest` (global sizes, edge cut, per-part
/// counts) and the cache ratio from the dataset and the plan; the other
/// fields are kept.
void fillManifestCounts(PartitionManifest &manifest, const Dataset &ds,
                        const PartitionPlan &plan);

/// Writes manifest.json, node_owner.npy and one directory per part to
/// `outDir`, atomically: everything is written into a temporary sibling
/// directory that replaces `outDir` only once complete, so an error leaves
/// no partial output (and an earlier partitioning there intact). Refuses to
/// replace an existing non-empty directory that is not a partitioning.
/// `manifest` must already hold the plan's counts and cache ratio
/// (fillManifestCounts; DataError otherwise). Each part directory gets the
/// cache files when the plan has a cache (cache ratio > 0).
void writePartitions(const std::string &outDir, const Dataset &ds,
                     const PartitionPlan &plan,
                     const PartitionManifest &manifest);

/// Serializes / parses manifest.json. The reader checks the format tag,
/// version, every field's type and the per-part list's length; errors name
/// `file`.
std::string manifestToJson(const PartitionManifest &manifest);
PartitionManifest manifestFromJson(const std::string &file,
                                   const std::string &text);

/// Reads DIR/manifest.json. Throws DataError if it is missing or corrupt.
PartitionManifest readPartitionManifest(const std::string &dir);

/// Reads part `rank` for a run of `numRanks` ranks: the manifest and that
/// part's files only. Throws DataError if the manifest's part count differs
/// from numRanks, or a part file is missing, truncated, of the wrong dtype
/// or shape, or holds an id out of range. When the manifest has a cache
/// ratio, the part's cache files are read too (cached_nodes.npy: ascending
/// ids, none owned by the part; cached_features.npy). `manifest`, if given,
/// receives the manifest.
Partition readPartition(const std::string &dir, int rank, int numRanks,
                        PartitionManifest *manifest = nullptr);

/// Reads DIR/node_owner.npy: the part of every global node.
std::vector<int32_t> readPartitionBook(const std::string &dir);

/// One balance figure: the largest part's total over the mean part's.
struct BalanceStat {
  std::string name; ///< "nodes", "edges", "train" or "halo"
  int64_t max = 0;
  double mean = 0;
  double ratio() const { return mean > 0 ? double(max) / mean : 1.0; }
};

/// Balance of owned nodes, edges, training nodes and halo nodes over the
/// parts of a manifest (each max / mean).
std::vector<BalanceStat> partitionBalance(const PartitionManifest &manifest);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITION_H
