//===- GNNTrainAttrs.td - a train block as typed attributes -*- tablegen -*-===//
//
// `#gnn.train<...>`: what a .gnn train block says, attached to the model's
// forward as `gnn.train` by MLIRGen with every default resolved there, so
// that the passes (sampling, distribution, reordering) and the emitters read
// typed fields instead of looking keys up in a dictionary. The nested
// attributes are the settings whose presence matters: a sampler
// (`batches = neighbor(...)`; absent: full-graph training), a partitioner
// (absent: the runtime's default) and a synthetic-graph generator.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNTRAINATTRS_TD
#define GNN_DIALECT_GNNTRAINATTRS_TD

include "gnn/Dialect/GNN/GNNDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums of the train block
//===----------------------------------------------------------------------===//

def GNN_DataSourceKind : I32EnumAttr<"DataSourceKind", "where a dataset comes from", [
  I32EnumAttrCase<"ogb", 0>,
  I32EnumAttrCase<"npy", 1>,
  I32EnumAttrCase<"generate", 2>,
  I32EnumAttrCase<"tu", 3>,
  I32EnumAttrCase<"ogbg", 4>,
  I32EnumAttrCase<"kg", 5>
]> {
  let cppNamespace = "::gnn";
  let genSpecializedAttr = 0;
}

def GNN_GraphKind : I32EnumAttr<"GraphKind", "a synthetic graph model", [
  I32EnumAttrCase<"sbm", 0>,
  I32EnumAttrCase<"rmat", 1>
]> {
  let cppNamespace = "::gnn";
  let genSpecializedAttr = 0;
}

def GNN_PartitionKind : I32EnumAttr<"PartitionKind", "a partitioner", [
  I32EnumAttrCase<"metis", 0>,
  I32EnumAttrCase<"random", 1>,
  I32EnumAttrCase<"frequency", 2>
]> {
  let cppNamespace = "::gnn";
  let genSpecializedAttr = 0;
}

/// The train block's `aggregation`; gnn-distribute turns it into each
/// halo_aggregate's HaloMode (sequential_remat computes as sequential).
def GNN_AggregationMode : I32EnumAttr<"AggregationMode", "aggregation over partitions", [
  I32EnumAttrCase<"automatic", 0, "auto">,
  I32EnumAttrCase<"one_shot", 1>,
  I32EnumAttrCase<"sequential", 2>,
  I32EnumAttrCase<"sequential_remat", 3>
]> {
  let cppNamespace = "::gnn";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Parameters MLIR has no parser for
//===----------------------------------------------------------------------===//

/// A double, held as an APFloat (which MLIR can hash and compare).
class GNN_DoubleParameter<string value, string desc>
    : DefaultValuedParameter<"::llvm::APFloat", "::llvm::APFloat(" # value # ")",
                             desc> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double v;
    if ($_parser.parseFloat(v))
      return ::mlir::failure();
    return ::llvm::APFloat(v);
  }() }];
  // Exact: the emitter prints these back as C++ literals.
  let printer = [{ $_printer.printFloat($_self); }];
}

class GNN_BoolParameter<string value, string desc>
    : DefaultValuedParameter<"bool", value, desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<bool> {
    if (succeeded($_parser.parseOptionalKeyword("true")))
      return true;
    if (succeeded($_parser.parseOptionalKeyword("false")))
      return false;
    return $_parser.emitError($_parser.getCurrentLocation(),
                              "expected true or false");
  }() }];
  let printer = [{ $_printer << ($_self ? "true" : "false"); }];
}

/// A list of integers written in brackets, `[10, -1]`.
class GNN_IntListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> values;
    if ($_parser.parseCommaSeparatedList(
            ::mlir::AsmParser::Delimiter::Square, [&]() {
              return $_parser.parseInteger(values.emplace_back());
            }))
      return ::mlir::failure();
    return values;
  }() }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

class GNN_StringParameter<string value, string desc>
    : StringRefParameter<desc> {
  let defaultValue = "\"" # value # "\"";
  // Escaped (`"` as \22), so that a string with quotes reads back.
  let printer = [{
    $_printer << '"';
    ::llvm::printEscapedString($_self, $_printer.getStream());
    $_printer << '"';
  }];
  let parser = [{ [&]() -> ::mlir::FailureOr<std::string> {
    std::string s;
    if ($_parser.parseString(&s))
      return ::mlir::failure();
    return s;
  }() }];
}

/// An optimizer of gnnrt/train/TrainSettings.def, written by its name
/// (GNNTrainSettings.h).
def GNN_OptimizerParameter
    : DefaultValuedParameter<"::gnn::OptimizerKind",
                             "::gnn::OptimizerKind{}",
                             "an optimizer (default: the first)"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::gnn::OptimizerKind> {
    ::llvm::SMLoc loc = $_parser.getCurrentLocation();
    ::llvm::StringRef name;
    if ($_parser.parseKeyword(&name))
      return ::mlir::failure();
    if (std::optional<::gnn::OptimizerKind> kind =
            ::gnn::symbolizeOptimizerKind(name))
      return *kind;
    return $_parser.emitError(loc, "invalid an optimizer specification: ")
           << name;
  }() }];
  let printer = [{ $_printer << ::gnn::stringifyOptimizerKind($_self); }];
}

class GNN_TrainAttrDef<string name, string attrMnemonic>
    : AttrDef<GNN_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def GNN_GeneratorAttr : GNN_TrainAttrDef<"Generator", "generate"> {
  let summary = "a deterministic synthetic graph (`generate(...)`)";
  let description = [{
    ```mlir
    #gnn.generate<graph = sbm, nodes = 1000, edges = 8000, features = 16, classes = 4, seed = 3>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::gnn::GraphKind", "::gnn::GraphKind::sbm">:$graph,
    "int64_t":$nodes, "int64_t":$edges, "int64_t":$features,
    "int64_t":$classes,
    OptionalParameter<"std::optional<int64_t>", "the generator's seed">:$seed);
}

def GNN_RelationFanoutAttr : GNN_TrainAttrDef<"RelationFanout",
                                               "relation_fanout"> {
  let summary = "one relation's own fanouts (`relation(\"name\", [...])`)";
  let description = [{
    The relation as the program names it (checked against the data when
    the trainer starts, which reports `where`, the entry's source location),
    and its fanout per layer, layer 0 first.

    ```mlir
    #gnn.relation_fanout<name = "cites", fanouts = [5, -1], where = "m.gnn:9:40">
    ```
  }];
  let parameters = (ins
    GNN_StringParameter<"", "the relation's name">:$name,
    GNN_IntListParameter<"sampled neighbours per layer">:$fanouts,
    GNN_StringParameter<"", "source location, for start-up errors">:$where);
}

def GNN_SamplerAttr : GNN_TrainAttrDef<"Sampler", "neighbor"> {
  let summary = "neighbor-sampled mini-batches (`neighbor(...)`)";
  let description = [{
    One fanout per layer of message passing, layer 0 (the input side) first;
    -1 takes every neighbour. With `per_relation`, a node of a typed graph
    draws that many of each relation's in-neighbours; `relation_fanouts`
    (which implies `per_relation`) gives some relations counts of their own.

    ```mlir
    #gnn.neighbor<fanouts = [10, 10], batch = 64>
    #gnn.neighbor<fanouts = [10, 10], batch = 64, per_relation = true,
                  relation_fanouts = [#gnn.relation_fanout<name = "cites",
                                      fanouts = [5, 5], where = "m.gnn:9:40">]>
    ```
  }];
  let parameters = (ins
    GNN_IntListParameter<"sampled neighbours per layer">:$fanouts,
    "int64_t":$batch,
    GNN_BoolParameter<"false", "sample with replacement">:$replace,
    GNN_BoolParameter<"true", "shuffle the seeds every epoch">:$shuffle,
    GNN_BoolParameter<"false", "each relation of a node draws its own "
                      "fanout (typed graphs)">:$per_relation,
    OptionalParameter<"::mlir::ArrayAttr",
        "#gnn.relation_fanout entries: relations with fanouts of their "
        "own">:$relation_fanouts);
  let genVerifyDecl = 1;
}

def GNN_PartitionAttr : GNN_TrainAttrDef<"Partition", "partition"> {
  let summary = "how a distributed run partitions the graph at start-up";
  let description = [{
    ```mlir
    #gnn.partition<kind = metis, balance = ["nodes", "train"]>
    #gnn.partition<kind = frequency, cache = 2.000000e-01>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::gnn::PartitionKind",
                           "::gnn::PartitionKind::metis">:$kind,
    OptionalParameter<"::mlir::FloatAttr", "cached share of remote rows">:$cache,
    OptionalParameter<"::mlir::ArrayAttr", "METIS constraints">:$balance);
}

def GNN_LrScheduleAttr : GNN_TrainAttrDef<"LrSchedule", "lr_schedule"> {
  let summary = "how the learning rate moves over the epochs (`lr_schedule`)";
  let description = [{
    `step(size = N, gamma = G)` multiplies the rate by G every N epochs;
    `cosine(min_lr = M)` anneals it to M over the epochs after the warm-up
    (gnnrt's LearningRate.h has the formulas).

    ```mlir
    #gnn.lr_schedule<kind = "step", step_size = 50, gamma = 5.000000e-01>
    #gnn.lr_schedule<kind = "cosine", min_lr = 1.000000e-04>
    ```
  }];
  let parameters = (ins
    GNN_StringParameter<"", "step or cosine">:$kind,
    DefaultValuedParameter<"int64_t", "0", "step: epochs per decay">:$step_size,
    GNN_DoubleParameter<"0.1", "step: the factor of a decay">:$gamma,
    GNN_DoubleParameter<"0.0", "cosine: the final rate">:$min_lr);
}

def GNN_EarlyStoppingAttr : GNN_TrainAttrDef<"EarlyStopping",
                                              "early_stopping"> {
  let summary = "stop when validation stops improving (`early_stopping`)";
  let description = [{
    `patience(N, monitor = valid_loss | valid_acc)`: training stops once the
    metric has not improved for `patience` epochs, and the best epoch's
    weights are kept.

    ```mlir
    #gnn.early_stopping<patience = 100, monitor = "valid_loss">
    ```
  }];
  let parameters = (ins
    "int64_t":$patience,
    GNN_StringParameter<"valid_loss", "the watched metric">:$monitor);
}

def GNN_ParamGroupAttr : GNN_TrainAttrDef<"ParamGroup", "param_group"> {
  let summary = "parameters with their own lr and weight decay, or frozen";
  let description = [{
    One entry of a train block's `param_groups`: the group as the program
    names it (a layer member, or a pattern with its quotes), the glob over
    parameter names it stands for (a layer `c1`: `c1.*`), the learning rate
    and weight decay it sets (absent: the optimizer's), whether it is
    frozen, and its source location (for the trainer's messages). A
    parameter takes the first group whose pattern matches its name.

    ```mlir
    #gnn.param_group<name = "c1", pattern = "c1.*", weight_decay = 5.000000e-04 : f64, where = "m.gnn:9:19">
    #gnn.param_group<name = "c2", pattern = "c2.*", frozen = true, where = "m.gnn:9:50">
    ```
  }];
  let parameters = (ins
    GNN_StringParameter<"", "the group as the program names it">:$name,
    GNN_StringParameter<"", "glob over parameter names">:$pattern,
    OptionalParameter<"::mlir::FloatAttr", "learning rate">:$lr,
    OptionalParameter<"::mlir::FloatAttr", "weight decay">:$weight_decay,
    GNN_BoolParameter<"false", "no updates">:$frozen,
    GNN_StringParameter<"", "source location, for the trainer">:$where);
}

def GNN_GraphBatchesAttr : GNN_TrainAttrDef<"GraphBatches", "graphs"> {
  let summary = "batches of whole graphs (`graphs(...)`)";
  let description = [{
    Graph-level training on a collection of small graphs: `batch` graphs
    per step, packed into one block-diagonal graph, with a label per graph.

    ```mlir
    #gnn.graphs<batch = 32>
    #gnn.graphs<batch = 128, shuffle = false>
    ```
  }];
  let parameters = (ins
    "int64_t":$batch,
    GNN_BoolParameter<"true", "shuffle the graphs every epoch">:$shuffle);
}

def GNN_LinksAttr : GNN_TrainAttrDef<"Links", "links"> {
  let summary = "link prediction (`loss = bce`, or `negatives = all`)";
  let description = [{
    The graph's links split at random into train, valid and test
    (`link_split = split(valid = V, test = T)`), and `negatives` uniform
    negative pairs per positive link each step (`negatives = uniform(k)`).
    With `one_vs_all` (`negatives = all`, knowledge graphs) each train
    triple is a query whose logits are its score against every entity, and
    the loss their softmax cross-entropy (gnn-autodiff builds them). A
    `penalty` (`n3(weight)` or `l2(weight)`) adds the norm of the rows the
    score multiplies to the loss (gnn.norm_penalty).

    ```mlir
    #gnn.links<valid = 5.000000e-02, test = 1.000000e-01, negatives = 1>
    #gnn.links<valid = 5.000000e-02, test = 1.000000e-01, negatives = 1, one_vs_all = true>
    #gnn.links<valid = 5.000000e-02, test = 1.000000e-01, negatives = 1, one_vs_all = true, penalty_power = 3, penalty_weight = 1.000000e-01>
    ```
  }];
  let parameters = (ins
    GNN_DoubleParameter<"0.05", "share of the links kept for validation">:$valid,
    GNN_DoubleParameter<"0.10", "share of the links kept for test">:$test,
    DefaultValuedParameter<"int64_t", "1",
                           "negatives per positive link">:$negatives,
    GNN_BoolParameter<"false", "every entity a negative (1vsAll)">:$one_vs_all,
    DefaultValuedParameter<"int64_t", "0",
                           "the score's rows' norm penalty: 2 (l2), 3 (n3), "
                           "0 none">:$penalty_power,
    GNN_DoubleParameter<"0.0", "the penalty's weight">:$penalty_weight);
}

def GNN_TrainAttr : GNN_TrainAttrDef<"Train", "train"> {
  let summary = "a train block, with its defaults resolved";
  let description = [{
    The dataset and its source, the optimizer, batching, partitioning,
    aggregation mode, evaluation and checkpointing of one train block, as
    typed parameters (what passes read, or structured); `settings` holds
    the rest (loss, epochs, seed, sampler ranks, out-of-core training,
    communication timeout: gnnrt/train/TrainSettings.def), only the ones
    the block gives. Parameters left out take the language's defaults.

    ```mlir
    func.func @GCN.forward(...) attributes {gnn.train = #gnn.train<
        dataset = "cora", optimizer = adam, lr = 1.000000e-02,
        sampler = #gnn.neighbor<fanouts = [10, 10], batch = 64>,
        settings = {epochs = 200 : i64}>}
    ```
  }];
  let parameters = (ins
    GNN_StringParameter<"", "the dataset's name">:$dataset,
    DefaultValuedParameter<"::gnn::DataSourceKind",
                           "::gnn::DataSourceKind::ogb">:$source,
    GNN_StringParameter<"", "the split directory">:$split,
    GNN_BoolParameter<"true", "add each edge's reverse">:$add_reverse_edges,
    GNN_BoolParameter<"false", "add self loops">:$self_loops,
    GNN_BoolParameter<"false", "rows scaled to sum 1">:$normalize_features,
    DefaultValuedParameter<"int64_t", "0",
        "heterogeneous data: width of the learned rows of featureless node "
        "types (0: none)">:$embed,
    OptionalParameter<"::gnn::GeneratorAttr">:$generator,
    GNN_OptimizerParameter:$optimizer,
    GNN_DoubleParameter<"0.01", "learning rate">:$lr,
    GNN_DoubleParameter<"0.0", "weight decay">:$weight_decay,
    GNN_DoubleParameter<"0.9", "Adam's beta1">:$beta1,
    GNN_DoubleParameter<"0.999", "Adam's beta2">:$beta2,
    GNN_DoubleParameter<"1e-8", "Adam's epsilon">:$eps,
    GNN_DoubleParameter<"0.0", "SGD's momentum">:$momentum,
    OptionalParameter<"::gnn::SamplerAttr", "absent: full graph">:$sampler,
    OptionalParameter<"::gnn::PartitionAttr">:$partition,
    DefaultValuedParameter<"::gnn::AggregationMode",
                           "::gnn::AggregationMode::automatic">:$aggregation,
    OptionalParameter<"::mlir::ArrayAttr", "evaluated splits">:$evaluate,
    DefaultValuedParameter<"int64_t", "1">:$evaluate_every,
    OptionalParameter<"::mlir::StringAttr", "checkpoint file">:$checkpoint,
    DefaultValuedParameter<"int64_t", "0">:$checkpoint_every,
    OptionalParameter<"::mlir::DictionaryAttr",
        "the settings only the trainer reads, as the block gives them "
        "(TrainSettings.def's Always and IfGiven ones: i64, f64 or string "
        "values by key)">:$settings,
    OptionalParameter<"::gnn::LrScheduleAttr", "absent: constant">:$lr_schedule,
    OptionalParameter<"::gnn::EarlyStoppingAttr",
                      "absent: every epoch">:$early_stopping,
    OptionalParameter<"::mlir::ArrayAttr",
        "#gnn.param_group entries, in order (absent: every parameter "
        "takes the optimizer's values)">:$param_groups,
    OptionalParameter<"::gnn::GraphBatchesAttr",
                      "absent: node-level training">:$graph_batches,
    OptionalParameter<"::gnn::LinksAttr",
                      "absent: not link prediction">:$links);
  let extraClassDeclaration = [{
    /// The name of the attribute on a model's forward (and train step).
    static constexpr ::llvm::StringLiteral getAttrName() { return "gnn.train"; }
    /// The train block `op` carries, or every default when it has none (a
    /// function written by hand).
    static TrainAttr of(::mlir::Operation *op);
  }];
}

#endif // GNN_DIALECT_GNNTRAINATTRS_TD
