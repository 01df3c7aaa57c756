//===- Program.h - The contract between generated code and gnnrt -*- C++ -*-===//
//
// gnnc compiles a train block into a CompiledProgram: the model's parameters
// (with their shapes as functions of the dataset's sizes), the train block's
// settings, and two entry points per scalar type, `forward` (evaluation:
// dropout is the identity) and `trainStep` (forward, loss and backward in one
// function, so that memory planning and fusion see both). The generated
// `main` fills a CompiledProgram and hands it to gnnrt::trainMain, which owns
// everything else: the command line, data loading, parameter initialization,
// the optimizer, the epoch loop, metrics, checkpoints and predictions.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_PROGRAM_H
#define GNNRT_TRAIN_PROGRAM_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/comm/HaloExchange.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"
#include "gnnrt/support/Error.h" // generated code throws DataError
#include "gnnrt/support/HugePages.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnnrt {

namespace kernels::cuda {
class DeviceWorkspace;
} // namespace kernels::cuda
class DeviceHaloExchange;

class Optimizer;
class ParameterResidence; // gnnrt/train/ParameterResidence.h
class DeviceBatchSource;  // gnnrt/train/DeviceBatchSource.h
struct Adjacency;         // gnnrt/sample/Sampler.h
struct ParamInfo;

/// Allocates on cache-line boundaries, so that rows of 16 floats (and
/// every multiple) start on a line of their own.
template <typename T> struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U> CacheLineAllocator(const CacheLineAllocator<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const CacheLineAllocator &) const { return true; }
  bool operator!=(const CacheLineAllocator &) const { return false; }
};

/// Scratch buffers of one entry point, numbered by the slots of gnnc's memory
/// plan: values whose lifetimes do not overlap share a slot. Buffers grow on
/// demand and are kept across calls, so steady-state steps allocate nothing
/// and touch no fresh page (a page the kernel must clear first).
///
/// A slot's buffer holds the value that was last placed in it; placing a new
/// value (get) ends the old one's lifetime, so growing a buffer neither
/// copies nor clears it.
///
/// Entry points that never run at the same time (a program's trainStep and
/// its forward) share their buffers (shareBuffersWith): the process then
/// holds, per slot, the larger of the two plans' buffers, about the larger
/// plan rather than their sum, and an evaluation between epochs costs the
/// next epoch no page faults.
///
/// Kept buffers hold what an entry point computes alike on every call
/// (gnnc's gnn-hoist-invariants: values of the graph and the input features
/// alone, such as GCN's aggregated features): the generated code asks
/// keptStale() and computes them only on the first call with those inputs,
/// or after release(). A kept value is named by a key of its computation,
/// so the forward and the train step, which compute some of the same
/// values, hold one copy of each (shared buffers).
template <typename T> class Workspace {
public:
  Workspace() : buffers(std::make_shared<Buffers>()) {}

  /// The buffer of `slot` with room for at least `elements` values.
  T *get(int slot, int64_t elements) {
    if (slot >= int(planned.size()))
      planned.resize(size_t(slot) + 1, 0);
    if (planned[size_t(slot)] < elements) {
      plannedBytes += (elements - planned[size_t(slot)]) * int64_t(sizeof(T));
      planned[size_t(slot)] = elements;
      most = std::max(most, plannedBytes);
    }
    return buffers->get(slot, elements);
  }
  /// Draws the buffers from `other`'s from now on (this workspace's own go).
  /// Only for entry points that never run at the same time.
  void shareBuffersWith(const Workspace &other) { buffers = other.buffers; }
  /// Places buffers under kHugePageMinBytes on shared huge pages from now
  /// on (HugePageArena): for plans of many small values, such as a batch of
  /// small graphs'. Buffers of workspaces sharing these follow.
  void useHugePageArena() { buffers->useArena(); }
  /// The kept value `key` (gnnc's hash of its computation) of entry point
  /// `entry` (0: forward, 1: trainStep), with room for `elements` values.
  /// Growing it makes every entry's kept values stale.
  T *kept(int entry, uint64_t key, int64_t elements) {
    (void)entry;
    return buffers->kept(key, elements);
  }
  /// Whether entry point `entry` must compute its kept values now: true on
  /// its first call, after release(), after a kept buffer grew, or when
  /// `features` or `graph` differ from the last call's; then the values
  /// count as computed.
  bool keptStale(int entry, const T *features, const GraphView &graph) {
    return buffers->keptStale(entry, features, graph);
  }
  /// Frees every buffer, shared ones included (the next call allocates them
  /// again).
  void release() {
    buffers->release();
    planned.clear();
    plannedBytes = 0;
  }
  /// The most bytes this entry point's slots asked for at once (its planned
  /// footprint).
  int64_t bytes() const { return most; }
  /// The bytes the buffers hold now (shared ones included).
  int64_t heldBytes() const { return buffers->held(); }

private:
  class Buffers {
  public:
    Buffers() = default;
    Buffers(const Buffers &) = delete;
    Buffers &operator=(const Buffers &) = delete;
    ~Buffers() { release(); }
    T *get(int slot, int64_t elements) {
      if (slot >= int(slots.size()))
        slots.resize(size_t(slot) + 1);
      Slot &s = slots[size_t(slot)];
      if (s.size < elements) {
        // A slot that grows a second time holds values whose size varies
        // (sampled batches): an eighth more room spares refaulting it for
        // every batch a little larger than the largest so far.
        const int64_t size = s.size > 0 ? elements + elements / 8 : elements;
        // The old value is dead: free it first, so that the peak is the
        // new buffer alone.
        free(s);
        allocate(s, size);
      }
      return s.data;
    }
    T *kept(uint64_t key, int64_t elements) {
      Slot &s = keptSlots[key];
      if (s.size < elements) {
        free(s);
        allocate(s, elements);
        for (Entry &e : entries)
          e.computed = false;
      }
      return s.data;
    }
    bool keptStale(int entry, const T *features, const GraphView &graph) {
      Entry &e = entries[size_t(entry)];
      const Inputs now{features, graph.inOffsets, graph.edgeSrc,
                       graph.numSrc, graph.numDst, graph.numEdges};
      const bool stale = !e.computed || !(e.inputs == now);
      e.computed = true;
      e.inputs = now;
      return stale;
    }
    void useArena() {
      if (!arena)
        arena = std::make_unique<HugePageArena>();
    }
    void release() {
      for (Slot &s : slots)
        free(s);
      slots.clear();
      for (auto &[key, s] : keptSlots)
        free(s);
      keptSlots.clear();
      for (Entry &e : entries)
        e = Entry();
      if (arena)
        arena->release();
    }
    int64_t held() const {
      int64_t bytes = 0;
      for (const Slot &s : slots)
        bytes += s.size * int64_t(sizeof(T));
      for (const auto &[key, s] : keptSlots)
        bytes += s.size * int64_t(sizeof(T));
      return bytes;
    }

  private:
    struct Slot {
      T *data = nullptr;
      int64_t size = 0;
      bool fromArena = false;
    };
    void allocate(Slot &s, int64_t elements) {
      size_t bytes = size_t(elements) * sizeof(T);
      if (arena && HugePageArena::serves(bytes)) {
        s.data = static_cast<T *>(arena->allocate(bytes));
        s.size = int64_t(bytes / sizeof(T)); // a reused block may be larger
        s.fromArena = true;
        return;
      }
      s.data = CacheLineAllocator<T>().allocate(size_t(elements));
      s.size = elements;
    }
    void free(Slot &s) {
      if (s.fromArena)
        arena->deallocate(s.data, size_t(s.size) * sizeof(T));
      else if (s.data)
        CacheLineAllocator<T>().deallocate(s.data, size_t(s.size));
      s = Slot();
    }
    /// What kept values were computed from: the same arrays (by address)
    /// and sizes give the same values.
    struct Inputs {
      const T *features = nullptr;
      const int64_t *inOffsets = nullptr;
      const int32_t *edgeSrc = nullptr;
      int64_t numSrc = 0, numDst = 0, numEdges = 0;
      bool operator==(const Inputs &o) const {
        return features == o.features && inOffsets == o.inOffsets &&
               edgeSrc == o.edgeSrc && numSrc == o.numSrc &&
               numDst == o.numDst && numEdges == o.numEdges;
      }
    };
    /// Whether an entry point's kept values are computed, and from what.
    struct Entry {
      Inputs inputs;
      bool computed = false;
    };
    std::vector<Slot> slots;
    std::map<uint64_t, Slot> keptSlots;
    /// Small buffers' huge pages, once useArena() was called.
    std::unique_ptr<HugePageArena> arena;
    /// forward, trainStep
    Entry entries[2];
  };

  std::shared_ptr<Buffers> buffers;
  std::vector<int64_t> planned;
  int64_t plannedBytes = 0, most = 0;
};

/// Everything an entry point reads and writes.
template <typename T> struct ExecContext {
  GraphView graph;
  /// Input features [graph.numDst, numFeatures] (a single process: every
  /// node; a rank of a distributed run: its owned nodes).
  const T *features = nullptr;
  int64_t numFeatures = 0, numClasses = 0;
  /// A heterogeneous graph's relation count (0: homogeneous), and the whole
  /// graph's node count (a rank's or a batch's rows are fewer).
  int64_t numRelations = 0, numGlobalNodes = 0;
  /// Labels of the destination nodes (-1: unlabeled) and the loss mask
  /// (non-zero: the row counts in the loss; null: every labeled row).
  const int64_t *labels = nullptr;
  const uint8_t *lossMask = nullptr;
  /// Parameter values and gradients, in CompiledProgram::params order.
  /// trainStep accumulates (+=) into grads; the caller zeroes them.
  std::vector<T *> params, grads;
  /// Learned input rows (`embed`): trainStep adds d(loss)/d(features) here
  /// ([rows of features, numFeatures]) when non-null.
  T *inputGrad = nullptr;
  /// Dropout masks are a function of (seed, step, dropout op): the same step
  /// reproduces the same masks.
  uint64_t seed = 0, step = 0;
  Workspace<T> *workspace = nullptr;
  /// Device entry points (gnnc --target=cuda): every pointer above and
  /// below is a device pointer (the GraphViews' arrays included), and the
  /// memory plan is laid out in this one device allocation instead of
  /// `workspace` (gnnrt/train/DeviceProgram.h).
  kernels::cuda::DeviceWorkspace *deviceWorkspace = nullptr;
  /// Sampled programs: the batch's blocks, layer 0 first (CompiledProgram::
  /// numBlocks of them). The input features have a row per source of
  /// blocks[0]; the output and labels a row per seed (the last block's
  /// destinations).
  const GraphView *blocks = nullptr;
  /// A device trainer's host context of a batch whose input rows were
  /// gathered into device memory (gnnrt/train/DeviceBatchSource.h): the
  /// entry points read them there, and `features` is null.
  const T *deviceFeatures = nullptr;
  /// Sampled programs that read their input rows in place
  /// (CompiledProgram::inputRowsInPlace), in a single process: the
  /// dataset's feature rows, and blocks[0] with each edge's source the row
  /// of `inputTable` it reads. The first aggregation gathers from there, and
  /// `features` holds only blocks[0]'s destinations' rows (the root term's).
  /// Null: `features` holds a row per source of blocks[0].
  const T *inputTable = nullptr;
  const GraphView *inputTableBlock = nullptr;
  /// Graph-level programs (TrainSettings::graphBatches): the readout graph
  /// of the batch, one edge from each node of `graph` (numSrc ==
  /// graph.numDst) to its graph's position in the batch (numDst: the
  /// batch's graphs), which `readout(g)` names. The output and `labels`
  /// then have a row per graph of the batch.
  GraphView readout;
  /// The same programs: each graph's id in the whole collection
  /// ([readout.numDst]), for dropout masks on rows per graph that do not
  /// depend on how a batch is split between ranks (as nodeIds for nodes).
  const int64_t *graphIds = nullptr;
  /// Link-prediction programs (TrainSettings::links): the pairs of nodes
  /// the step scores, as a graph over `graph`'s nodes (numSrc == numDst ==
  /// graph.numSrc; a rank of a full-graph run: its owned nodes as
  /// destinations, then the sources' halo, see pairHalo) with one edge per
  /// pair (its source and destination),
  /// which `pairs(g)` names: a train step's positive pairs and their
  /// negatives, an evaluation's split. The output and `labels` then have a
  /// row per pair, in edge order (label 1: a link, 0: a negative).
  GraphView pairs;
  /// forward writes the model output [graph.numDst, numClasses] here
  /// ([readout.numDst, numClasses] for a graph-level program; for a
  /// link-prediction program [pairs.numEdges, 2], the logits [0, s] of
  /// each pair's score s, so that their cross-entropy is the binary
  /// cross-entropy of s and their difference is s).
  T *output = nullptr;
  /// CompiledProgram::rankFactorsF32 copies the factors of the score here
  /// (an array of rankFactorCount vectors).
  std::vector<T> *rankFactors = nullptr;
  /// Bytes the entry point would use with one buffer per value (set by the
  /// generated code on every call; for reporting the memory plan).
  int64_t unplannedBytes = 0;

  /// A heterogeneous graph's relations and node types (relation(g, "name")
  /// looks a relation up by name; the trainer checked the program's names
  /// beforehand).
  const std::vector<RelationType> *relations = nullptr;
  const std::vector<NodeType> *nodeTypes = nullptr;
  int32_t relationId(const char *name) const {
    // Generated code asks with the same literal in every step: the answer
    // is remembered per (literal, relations), not searched by name again.
    for (const ResolvedRelation &known : resolvedRelations)
      if (known.name == name && known.relations == relations)
        return known.id;
    static const std::vector<RelationType> noRelations;
    static const std::vector<NodeType> noTypes;
    const int32_t id = findRelation(relations ? *relations : noRelations,
                                    nodeTypes ? *nodeTypes : noTypes, name);
    resolvedRelations.push_back({name, relations, id});
    return id;
  }
  struct ResolvedRelation {
    const char *name;
    const std::vector<RelationType> *relations;
    int32_t id;
  };
  mutable std::vector<ResolvedRelation> resolvedRelations;
  /// Device entry points: the subgraphs of the relations the program
  /// selects by name, of each graph it runs on (the graph, a batch's
  /// blocks), built on the host and copied (gnnrt/train/DeviceProgram.h);
  /// `inOffsets` names the device graph a subgraph is of.
  struct RelationGraph {
    const int64_t *inOffsets;
    int32_t relation;
    GraphView view;
  };
  const std::vector<RelationGraph> *relationGraphs = nullptr;
  /// relation(g, "name") in a device entry point: that copy.
  GraphView relationGraph(const GraphView &g, int32_t relation) const {
    if (relationGraphs)
      for (const RelationGraph &r : *relationGraphs)
        if (r.inOffsets == g.inOffsets && r.relation == relation)
          return r.view;
    throw std::logic_error("relation " + std::to_string(relation) +
                           " of this graph is not on the device");
  }
  /// The ids of node type `name` (node_type(g, "name")); the trainer
  /// checked the program's names beforehand.
  IdRange nodeType(const char *name) const {
    const NodeType &t = findNodeType(nodeTypes ? *nodeTypes : noNodeTypes(),
                                     name);
    return {t.offset, t.offset + t.count};
  }

  /// Distributed runs (null / defaults in a single process):
  /// the halo exchange of this rank's partition (gnn.halo_exchange);
  const HaloExchange *halo = nullptr;
  /// device entry points: the same exchange over device rows, in place of
  /// `halo` (gnnrt/comm/DeviceHaloExchange.h);
  const DeviceHaloExchange *deviceHalo = nullptr;
  /// full-graph link prediction: the exchange of `pairs`' own halo (the
  /// remote sources of the pairs whose destination the rank owns), which
  /// gathers over `pairs(g)` read (gnn.halo_exchange of the pairs graph);
  const HaloExchange *pairHalo = nullptr;
  /// device entry points: the same over device rows, in place of
  /// `pairHalo` (rebuilt for every call, as the pairs change);
  const DeviceHaloExchange *devicePairHalo = nullptr;
  /// the global id of each local node, for dropout masks that do not depend
  /// on the partitioning ([graph.numSrc]);
  const int64_t *nodeIds = nullptr;
  /// the whole graph's id of each local edge (its position in the
  /// single-process CSR), for dropout on edges ([graph.numEdges]);
  const int64_t *edgeIds = nullptr;
  /// global out-degrees of the source nodes (a partition sees only its own
  /// edges) and in-degrees of the destinations, for gnn.degree;
  const T *srcDegree = nullptr, *dstDegree = nullptr;
  /// local loss rows / global loss rows: the loss is a mean over all ranks'
  /// rows, which the all-reduce of the rank losses completes.
  double lossScale = 1.0;
};

/// How a parameter is initialized (gnn.parameter's `init`).
enum class Init : int {
  Zeros = 0, Ones = 1, Glorot = 2, Kaiming = 3, Uniform = 4, Normal = 5,
  Constant = 6
};

struct ParamInfo {
  /// Dotted path of the parameter in the model: `c1.w`.
  std::string name;
  std::vector<int64_t> shape;
  Init init = Init::Glorot;
  std::vector<double> initArgs;
  /// A running statistic (batch_norm's running mean and variance), not a
  /// weight: no gradient reaches it; a train step writes its change into
  /// its gradient slot, and the optimizer adds that change, averaged over
  /// the ranks, instead of taking a step. Checkpoints hold it like a weight.
  bool buffer = false;
};

/// The dataset sizes parameter shapes may depend on.
struct DataDims {
  int64_t features = 0, classes = 0;
  /// A heterogeneous dataset's relations (inverses and self loops included).
  int64_t relations = 0;
  /// The whole graph's nodes (tables with a row per node).
  int64_t nodes = 0;
};

/// The train block's settings, as written (defaults filled in by gnnc). The
/// trainer runs on a copy with the command line's overrides applied once
/// (parseCommandLine): the effective settings every part of a run reads.
struct TrainSettings {
  std::string dataset;      ///< dataset name, e.g. "cora"
  std::string source; ///< "ogb", "npy", "generate", "tu" or "ogbg"
  std::string split;        ///< split directory ("" = default)
  bool addReverseEdges = false, addSelfLoops = false;
  /// Scale each feature row to sum 1 after loading.
  bool normalizeFeatures = false;
  /// Heterogeneous data: the node types without features get a learned
  /// input row of this width each (0: none), trained with sparse Adam.
  int64_t embedDim = 0;
  /// The settings declared in TrainSettings.def (GNN_TRAIN_FIELD), one
  /// field each: the optimizer (one of its GNN_TRAIN_OPTIMIZERs) and its
  /// hyperparameters, and the settings only the trainer reads. The
  /// trainer's flags override those with a FLAG.
#define GNN_TRAIN_FIELD(NAME, FIELD, TYPE, DEFAULT, FLAG, METAVAR, HELP)       \
  TYPE FIELD = DEFAULT;
#include "gnnrt/train/TrainSettings.def"
  std::vector<std::string> evaluate; ///< subset of {"train", "valid", "test"}
  int64_t evaluateEvery = 1;
  /// How a distributed run without a partition directory partitions the
  /// graph at start-up: "metis" or "random", and METIS's constraints
  /// ("nodes", "edges", "train").
  std::string partition = "metis";
  std::vector<std::string> partitionBalance;
  /// For source "generate": the synthetic dataset (used unless --data).
  GeneratorOptions generator;
  /// `batches = neighbor(fanout = [...], batch = N, replace?, shuffle?)`:
  /// sampled neighbours per layer (layer 0, the input side, first; -1 =
  /// all), seeds per batch. Empty fanouts: full-graph training.
  std::vector<int64_t> fanouts;
  int64_t batchSize = 0;
  bool replace = false, shuffle = true;
  /// `per_relation = true` (typed graphs): each relation of a destination
  /// draws its own fanout, rather than the fanout over all its in-edges.
  bool perRelation = false;
  /// `relation_fanout = [relation("cites", [5, 5]), ...]` (with
  /// perRelation): relations that draw fanouts of their own, one per layer
  /// as `fanouts`; the others draw `fanouts`. Checked against the data at
  /// start-up, errors prefixed with `location` ("m.gnn:9:40").
  struct RelationFanout {
    std::string relation;
    std::vector<int64_t> fanouts;
    std::string location;
  };
  std::vector<RelationFanout> relationFanouts;
  /// `batches = graphs(batch = N, shuffle?)`, for a collection of many
  /// small graphs (source "tu" or "ogbg"): N graphs per step, packed into
  /// one block-diagonal graph, and a label per graph (0: not graph-level).
  struct GraphBatches {
    int64_t batchSize = 0;
    bool shuffle = true;
  };
  GraphBatches graphBatches;
  /// Link prediction (`loss = bce` with `pairs(g)`): the edges split into
  /// train / valid / test links (`link_split = split(valid = V, test = T)`,
  /// PyG RandomLinkSplit semantics: message passing over the train links
  /// only), `negatives` uniform negatives per positive link each step.
  struct Links {
    bool enabled = false;
    double valid = 0.05, test = 0.10;
    int64_t negatives = 1;
    /// `negatives = all` (knowledge graphs): each train triple's logits
    /// are its score against every entity, as tail and as head, and the
    /// loss their softmax cross-entropy (1vsAll); `negatives` is unused.
    bool oneVsAll = false;
  };
  Links links;
  /// `partition = frequency(cache = R)`: the share of a rank's node count
  /// whose hottest remote features it caches.
  double cacheRatio = 0;
  /// `lr_schedule = step(size = N, gamma = G)` or `cosine(min_lr = X)`:
  /// how the learning rate moves over the epochs after the warm-up
  /// (learningRateAt). `kind` "" keeps it constant.
  struct LrSchedule {
    std::string kind;
    int64_t stepSize = 0; ///< step: epochs between decays
    double gamma = 0.1;   ///< step: the factor of each decay
    double minLr = 0;     ///< cosine: the floor, at the block's lr
  };
  LrSchedule lrSchedule;
  /// `early_stopping = patience(N, monitor = valid_loss | valid_acc)`: stop
  /// once the metric has not improved for `patience` epochs and keep the best
  /// epoch's weights (0: train every epoch, keep the last).
  struct EarlyStopping {
    int64_t patience = 0;
    std::string monitor = "valid_loss";
  };
  EarlyStopping earlyStopping;
  /// `param_groups = [group(c1, weight_decay = 5e-4), ...]`: parameters
  /// with their own learning rate and weight decay (absent: the
  /// optimizer's), or frozen (never updated). A parameter takes the first
  /// group whose `pattern` (gnnrt/support/Glob.h) matches its name.
  struct ParamGroup {
    std::string name;    ///< as the program names it: `c1`, `"convs*"`
    std::string pattern; ///< over parameter names: `c1.*`, `convs*`
    std::optional<double> lr, weightDecay;
    bool frozen = false;
    std::string location; ///< "model.gnn:12:9", for messages
  };
  std::vector<ParamGroup> paramGroups;
};

/// A relation or node type the model selects by name (relation(g, "name"),
/// node_type(g, "name")), and where.
struct NameUse {
  std::string name;
  std::string location; ///< "model.gnn:12:9", for error messages
};
using RelationUse = NameUse;

/// Bytes a device trainer copied between host and device so far, by what
/// they were (--stats).
struct DeviceTransfers {
  /// Full-graph arrays (graph, features, labels, masks), copied once.
  int64_t onceBytes = 0;
  /// Sampled batches' blocks and rows, learned input rows' gradients.
  int64_t batchBytes = 0;
  /// Parameters, gradients and optimizer state, either way.
  int64_t parameterBytes = 0;
  /// Logits of evaluations and predictions.
  int64_t evaluationBytes = 0;
  /// float32 train steps run, and those whose batch had been copied
  /// while the step before ran (CompiledProgram::stageBatch).
  int64_t trainSteps = 0, stagedSteps = 0;
};

/// One compiled train block.
struct CompiledProgram {
  std::string model;      ///< the model's name, e.g. "GCN"
  std::string sourceFile; ///< the .gnn file it was compiled from
  TrainSettings settings;
  std::vector<ParamInfo> (*params)(const DataDims &) = nullptr;
  /// Whether the entry points read ExecContext::edgeIds (dropout on edges).
  bool needsEdgeIds = false;
  /// The relations selected by name, each of which the data must have.
  std::vector<RelationUse> relationUses;
  /// The node types selected by name, each of which the data must have.
  std::vector<NameUse> nodeTypeUses;
  /// Sampled training: the entry points run on this many blocks
  /// (ExecContext::blocks); 0: on the whole graph (or partition).
  int numBlocks = 0;
  /// Sampled programs whose entry points read the input rows only through
  /// the first aggregation (sum or mean over blocks[0], no self loops) and
  /// as blocks[0]'s destinations' rows (gnn.dst): a single process may then
  /// pass them in place (ExecContext::inputTable) instead of a copy of every
  /// source's row.
  bool inputRowsInPlace = false;
  /// Sampled programs: the blocks (bit l: block l) whose out-edge lists
  /// (GraphView::outOffsets, outEdges, outDst) no entry point reads, which
  /// a CPU trainer's sampler then does not build.
  uint64_t blocksWithoutOutEdges = 0;
  /// Columns per node of the forward's result (the logits).
  int64_t (*outputColumns)(const DataDims &) = nullptr;
  void (*forwardF32)(ExecContext<float> &) = nullptr;
  float (*trainStepF32)(ExecContext<float> &) = nullptr;
  void (*forwardF64)(ExecContext<double> &) = nullptr;
  double (*trainStepF64)(ExecContext<double> &) = nullptr;
  /// Knowledge-graph programs whose score is trilinear,
  /// sum(a[src] * r[rel] * b[dst], 1), or a dot product (gnn-rank-factors):
  /// computes a, r, b (a, b for a dot product; rankFactorCount of them)
  /// from the context's graph and weights, as the forward would, into
  /// ExecContext::rankFactors, without reading the pairs. A filtered
  /// ranking then scores blocks of candidates as matrix products. Null:
  /// every pair goes through the forward.
  void (*rankFactorsF32)(ExecContext<float> &) = nullptr;
  int rankFactorCount = 0;
  /// Programs compiled for a CUDA device (gnnc --target=cuda): the entry
  /// points above take host contexts and run on the device selected by
  /// this call, before the first of them (gnnrt/train/DeviceProgram.h):
  /// `device` (--device N), or with -1 the rank's node-local rank modulo
  /// the node's devices. Collective over `comm`; with several ranks it
  /// returns the communicator the trainer uses instead of `comm`, whose
  /// collectives run between the devices (NCCL). Null: the entry points
  /// run on the CPU.
  std::unique_ptr<Communicator> (*useDevice)(int device,
                                             Communicator &comm) = nullptr;
  /// The same programs: the bytes of the device workspace (--stats).
  int64_t (*deviceWorkspaceBytes)() = nullptr;
  /// The same programs: the residence that keeps the parameters, their
  /// gradients and the optimizer state on the device between steps (the
  /// float32 entry points then train them in place; under several ranks
  /// the gradients are all-reduced there).
  /// `values` are the host's buffers of `params` (what the residence reads
  /// first and refreshes in toHost); `optimizer` holds the state.
  std::unique_ptr<ParameterResidence> (*makeDeviceResidence)(
      const std::vector<ParamInfo> &params, const std::vector<float *> &values,
      Optimizer &optimizer) = nullptr;
  /// The same programs: starts copying the batch of `next` (a sampled
  /// context) to the device while the current step runs; the train step
  /// on `next` then uses that copy. The sampled schedule calls it with
  /// each epoch's batch b + 1 before step b.
  void (*stageBatch)(const ExecContext<float> &next) = nullptr;
  /// The same programs: the host<->device copies so far (--stats).
  DeviceTransfers (*deviceTransfers)() = nullptr;
  /// The same programs, sampled: the device side of the batches (draws
  /// and input rows on the device, gnnrt/train/DeviceBatchSource.h) for
  /// this rank's adjacency `adj` (untyped), on the selected device.
  std::unique_ptr<DeviceBatchSource> (*makeDeviceBatchSource)(
      const Adjacency &adj, int64_t numGlobalNodes, bool replace) = nullptr;
};

/// The generated program's main: parses the command line, trains, and
/// returns the process exit code (errors are printed, never thrown).
int trainMain(int argc, char **argv, const CompiledProgram &program);

} // namespace gnnrt

#endif // GNNRT_TRAIN_PROGRAM_H
