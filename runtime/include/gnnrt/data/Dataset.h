//===- Dataset.h - Node-classification datasets and their loaders -*- C++ -*-=//
//
// A Dataset is everything a node-classification trainer needs from disk: the
// edge list, a dense float32 feature matrix, one int64 label per node and the
// train/valid/test node ids. It is read from the OGB raw node-property layout
// (csv or csv.gz, as unpacked from an OGB download), OGB's raw heterogeneous
// layout (ogbn-mag's) or a directory of NumPy arrays, validated (every id in
// range, every row the right width) so that the kernels downstream never
// bounds-check, post-processed by LoadOptions (reverse edges, self loops,
// dedupe) and cached in a binary file next to the data so that the next run
// skips parsing text entirely.
//
// A heterogeneous dataset is stored as its *homogeneous view*: node types
// occupy consecutive ranges of global ids (in raw/num-node-dict order), every
// array indexed by node (features, labels, splits, src/dst) uses global ids,
// and edgeType gives each edge its relation. Code that ignores the types sees
// an ordinary graph; code that needs them reads nodeTypes and relations.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASET_H
#define GNNRT_DATA_DATASET_H

#include "gnnrt/data/DatasetFormat.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// A node type of a heterogeneous dataset: global node ids
/// [offset, offset + count).
struct NodeType {
  std::string name;
  int64_t offset = 0, count = 0;
  bool hasFeatures = false; ///< rows of a featureless type are zero
};

/// A relation (edge type) from srcType nodes to dstType nodes. Names need
/// not be unique (aifb has a `name` relation from four node types): a
/// relation is identified by its id, or by its (src, name, dst) triplet.
struct RelationType {
  std::string name;                   ///< "cites", "writes_inv", "self", ...
  int32_t srcType = -1, dstType = -1; ///< -1: any type (the self loops)
  int32_t inverseOf =
      -1; ///< for an added reverse relation: the one it reverses
};

/// The node splits, in the order of Dataset's trainIdx, validIdx, testIdx.
inline constexpr std::array<const char *, 3> kSplitNames = {"train", "valid",
                                                            "test"};

/// The largest class id a label may have: a label is a row of the model's
/// last layer, so a stray huge value (a node id in the label column, say)
/// would ask the trainer for that many output columns.
inline constexpr int64_t kMaxClassId = (int64_t(1) << 20) - 1;

/// "label 2000000 is above the largest class id 1048575 (...)".
inline std::string classIdTooLarge(int64_t label) {
  return "label " + std::to_string(label) + " is above the largest class id " +
         std::to_string(kMaxClassId) +
         " (labels are class ids 0, 1, ...; at most 2^20 classes)";
}

/// A loaded node-classification dataset. Node ids are 0..numNodes-1.
struct Dataset {
  int64_t numNodes = 0;
  int64_t numFeatures = 0; ///< 0 when the dataset has no features
  int64_t numClasses = 0;  ///< max label + 1 (0 when nothing is labeled)
  /// numNodes x numFeatures, row-major.
  std::vector<float> features;
  /// One per node; -1 marks an unlabeled node.
  std::vector<int64_t> labels;
  /// Node ids of each split, in file order, without duplicates.
  std::vector<int64_t> trainIdx, validIdx, testIdx;
  /// Edge e goes from src[e] to dst[e] (messages flow src -> dst).
  std::vector<int64_t> src, dst;

  /// Which splits the data has (kSplitNames order): false when the split's
  /// file is absent, as aifb's `rdf` split has no valid.csv, which differs
  /// from a present, empty one. Generated datasets have all three.
  std::array<bool, 3> hasSplits = {true, true, true};
  /// Where the splits were read from (e.g. "DIR/split/rdf/Personen"), for
  /// messages about them.
  std::string splitSource;

  /// Heterogeneous datasets only (homogeneous ones leave them empty).
  std::vector<NodeType> nodeTypes; ///< in raw/num-node-dict.csv order
  /// In raw/triplet-type-list.csv order, then the added inverses, then the
  /// added `self` relation.
  std::vector<RelationType> relations;
  std::vector<int32_t> edgeType; ///< one relation id per edge
  int32_t targetType = -1; ///< the node type that carries labels and splits

  int64_t numEdges() const { return int64_t(src.size()); }
  bool isHeterogeneous() const { return !nodeTypes.empty(); }
  /// Whether the split named "train", "valid" or "test" is present.
  bool hasSplit(const std::string &name) const;
  /// The node type of global node id `v` (heterogeneous datasets only).
  int32_t nodeTypeOf(int64_t v) const;
};

/// Throws DataError unless `ds` has every split in `names` ("train",
/// "valid", "test"), e.g. "split 'valid' is not in DIR/split/rdf/Personen:
/// the dataset has train, test". A trainer calls it with the splits its
/// program evaluates, so that a missing one fails at load time.
void requireSplits(const Dataset &ds, const std::vector<std::string> &names);

/// Throws DataError("<where>: none of the 12 train nodes has a label ...")
/// when every node of a non-empty train split is unlabeled (-1): the loss
/// would be 0 and training would "succeed" on nothing. An empty split
/// passes (its callers say so in their own words).
void requireLabeledTrainNodes(const Dataset &ds, const std::string &where);

/// "none of the 12 train nodes has a label ...", without the location.
std::string noLabeledTrainNodes(int64_t trainNodes);

/// The id of the relation `name` selects among `relations` (whose endpoint
/// types index `nodeTypes`): a relation name the data uses once ("cites"),
/// or, for a name several relations share (AIFB's "name"), OGB's
/// `SRC___REL___DST` spelling of one of them ("Personen___name___literal").
/// Throws DataError saying which relations exist or which spellings tell
/// the shared ones apart.
int32_t findRelation(const std::vector<RelationType> &relations,
                     const std::vector<NodeType> &nodeTypes,
                     const std::string &name);

/// The node type called `name`. Throws DataError saying which types exist
/// (or that the dataset is homogeneous).
const NodeType &findNodeType(const std::vector<NodeType> &nodeTypes,
                             const std::string &name);
/// An empty list of node types (a homogeneous dataset's).
const std::vector<NodeType> &noNodeTypes();

/// How to post-process and cache a dataset. Edge options apply in the order
/// listed: reverse edges, then self loops, then dedupe.
struct LoadOptions {
  /// Append (v, u) for every edge (u, v), as OGB's add_inverse_edge does:
  /// the result has 2E edges, the reversed copies after the originals.
  /// Heterogeneous: relation R (S -> D) gains an inverse `R_inv` (D -> S)
  /// with id R + (number of relations), as DGL adds them.
  bool addReverseEdges = false;
  /// Append (v, v) for every node. Heterogeneous: as one more relation,
  /// `self`, whose endpoint types are -1 (every type).
  bool addSelfLoops = false;
  /// Remove repeated (src, dst) pairs; the result is sorted by (src, dst).
  /// Heterogeneous: repeated (src, dst, relation) triples; the result is
  /// sorted by (relation, src, dst).
  bool dedupe = false;
  /// The split directory under split/ (OGB layout). Empty: "public" if it
  /// exists, else the first directory in name order, else no split.
  std::string splitName;
  /// If > 0, labels must lie in [0, numClasses) and the dataset reports this
  /// many classes even if the largest class is absent.
  int64_t numClasses = 0;
  /// Read and write the binary cache.
  bool useCache = true;
  /// Where cache files go; empty means the dataset directory itself.
  std::string cacheDir;
};

/// Loads a dataset of any layout (DatasetFormat.h), through the cache when
/// enabled. Throws DataError with a user-facing message for any problem. If
/// `fromCache` is given, it is set to whether the cache served the load.
Dataset loadDataset(const std::string &dir, const LoadOptions &options = {},
                    bool *fromCache = nullptr);

/// Parses the OGB raw layout without cache or post-processing: raw/edge.csv,
/// raw/node-feat.csv (optional), raw/node-label.csv (optional),
/// raw/num-node-list.csv, raw/num-edge-list.csv (optional, checked) and
/// split/<name>/{train,valid,test}.csv; each file may also be .csv.gz.
/// Labels may be -1 or nan for unlabeled nodes.
Dataset readOgbDataset(const std::string &dir, const LoadOptions &options);

/// Parses OGB's raw heterogeneous layout (ogbn-mag's) without cache or
/// post-processing, into the homogeneous view described above:
///   raw/num-node-dict.csv      a header of node type names, a row of counts
///   raw/triplet-type-list.csv  rows src_type,relation,dst_type
///   raw/relations/S___R___D/{edge,num-edge-list}.csv  ids local to each type
///   raw/node-feat/<type>/node-feat.csv     optional, one width for all types
///   raw/node-label/<type>/node-label.csv   optional; -1 or nan unlabeled
///   split/<name>/<type>/{train,valid,test}.csv  local ids of the target type
/// each file also .csv.gz. The target type is the one directory under the
/// split (else the one type with labels); only its labels are kept.
Dataset readOgbHeteroDataset(const std::string &dir,
                             const LoadOptions &options);

/// Parses a directory of .npy arrays without cache or post-processing:
/// edge_index.npy ([2, E]) or src.npy + dst.npy ([E]), integer typed;
/// features.npy ([N, F] float32/float64, optional); labels.npy ([N], integer,
/// or float with NaN for unlabeled; optional); train_idx.npy, valid_idx.npy,
/// test_idx.npy (optional). N is the row count of features or labels, or
/// else max node id + 1.
/// Labels are checked against options.numClasses when it is set.
Dataset readNpyDataset(const std::string &dir, const LoadOptions &options);

/// Applies the edge options of `options` to `ds` in place and sets
/// ds.numClasses (options.numClasses, or else max label + 1).
void finalizeDataset(Dataset &ds, const LoadOptions &options);

/// The relations a typed dataset stored with `stored` has once `options`'
/// edge steps ran (finalizeDataset's): with addReverseEdges each relation R
/// gains `R_inv` (id R + stored.size()), then with addSelfLoops `self`.
std::vector<RelationType>
relationsAfterLoad(const std::vector<RelationType> &stored,
                   const LoadOptions &options);

/// Writes `ds` in the OGB raw layout with split name `splitName`; gzip
/// compresses every file (.csv.gz) unless `gzip` is false (.csv). Output is
/// a deterministic function of `ds` (floats in shortest round-trip form).
/// Only the splits `ds` has are written. A heterogeneous `ds` is written in
/// the heterogeneous layout (readOgbHeteroDataset), without the relations a
/// load added (inverses, self loops: they are load options).
void writeOgbDataset(const std::string &dir, const Dataset &ds,
                     const std::string &splitName = "random", bool gzip = true);

/// Writes `ds` as edge_index.npy (int64 [2, E]), features.npy (float32
/// [N, F]), labels.npy (int64 [N]) and {train,valid,test}_idx.npy (int64,
/// the splits `ds` has); a heterogeneous `ds` also as edge_type.npy and
/// types.json (writeNpyHeteroTypes). Throws DataError for a heterogeneous
/// `ds` with relations a load added.
void writeNpyDataset(const std::string &dir, const Dataset &ds);

/// The typed NumPy layout (lib/data/NpyHeteroDataset.cpp): the NumPy
/// layout's arrays over global ids plus edge_type.npy (int32 [E]) and
/// types.json (node types with counts and whether they have features,
/// relations with their endpoint types, the target type). Whether `dir`
/// has it; reading it (errors name the file and, for edge_type.npy, the
/// edge); and writing the typed part of a heterogeneous `ds`.
bool isNpyHeteroDirectory(const std::string &dir);
Dataset readNpyHeteroDataset(const std::string &dir,
                             const LoadOptions &options);
void writeNpyHeteroTypes(const std::string &dir, const Dataset &ds);

} // namespace gnnrt

#endif // GNNRT_DATA_DATASET_H
