//===- TrainAttributes.cpp - a train block as #gnn.train ------------------===//
//
// Builds the typed `#gnn.train` attribute (GNNTrainAttrs.td) of a checked
// train block and its dataset's source. Sema has validated every value, so
// this only reads them; the language's defaults are resolved here, once,
// and the passes and emitters read typed fields. A choice written as a bare
// name (`optimizer = sgd`, `partition = random`) means the call with no
// arguments.
//
//===----------------------------------------------------------------------===//

#include "TrainAttributes.h"

#include "gnn/Dialect/GNN/GNNAttrs.h"
#include "gnnrt/support/ByteSize.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Path.h"

using namespace gnn::lang;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;

namespace {

/// Reads the values of one train block's expressions.
class SettingReader {
public:
  SettingReader(const SemaResult &sema, mlir::Builder &b) : sema(sema), b(b) {}

  /// The function a setting names, called or bare (`adam(...)`, `sgd`).
  static std::string choice(const Expr *e) {
    if (auto *call = dyn_cast_or_null<CallExpr>(e))
      e = call->callee.get();
    if (auto *name = dyn_cast_or_null<NameExpr>(e))
      return name->name;
    return "";
  }

  /// The argument bound to the builtin's parameter `param` of a call
  /// (null for a bare name or a defaulted argument).
  const Expr *argument(const Expr *e, llvm::StringRef param) const {
    auto *call = dyn_cast_or_null<CallExpr>(e);
    if (!call)
      return nullptr;
    auto it = sema.builtinCalls.find(call);
    if (it == sema.builtinCalls.end())
      return nullptr;
    const BuiltinCall &info = it->second;
    for (size_t i = 0; i < info.args.size(); ++i)
      if (info.builtin->params[i].name == param)
        return info.args[i];
    return nullptr;
  }

  static std::optional<double> number(const Expr *e) {
    if (!e)
      return std::nullopt;
    if (auto *neg = dyn_cast<NegExpr>(e)) {
      std::optional<double> v = number(neg->operand.get());
      return v ? std::optional<double>(-*v) : std::nullopt;
    }
    if (auto *i = dyn_cast<IntExpr>(e))
      return double(i->value);
    if (auto *f = dyn_cast<FloatExpr>(e))
      return f->value;
    return std::nullopt;
  }
  static std::optional<int64_t> integer(const Expr *e) {
    if (auto *neg = dyn_cast_or_null<NegExpr>(e)) {
      std::optional<int64_t> v = integer(neg->operand.get());
      return v ? std::optional<int64_t>(-*v) : std::nullopt;
    }
    if (auto *i = dyn_cast_or_null<IntExpr>(e))
      return i->value;
    return std::nullopt;
  }
  static bool flag(const Expr *e, bool fallback) {
    auto *v = dyn_cast_or_null<BoolExpr>(e);
    return v ? v->value : fallback;
  }
  static std::string string(const Expr *e, llvm::StringRef fallback) {
    if (auto *s = dyn_cast_or_null<StringExpr>(e))
      return s->value;
    if (auto *n = dyn_cast_or_null<NameExpr>(e))
      return n->name;
    return fallback.str();
  }
  /// A name or a list of names as an array of strings.
  mlir::ArrayAttr names(const Expr *e) const {
    llvm::SmallVector<mlir::Attribute> out;
    auto add = [&](const Expr *item) {
      out.push_back(b.getStringAttr(string(item, "")));
    };
    if (auto *list = dyn_cast_or_null<ListExpr>(e)) {
      for (const ExprPtr &item : list->elements)
        add(item.get());
    } else if (e) {
      add(e);
    }
    return b.getArrayAttr(out);
  }

private:
  const SemaResult &sema;
  mlir::Builder &b;
};

/// `penalty = n3(weight)` / `l2(weight)`: the norm's power; 0 without one.
int64_t penaltyPower(const Expr *penalty) {
  const std::string norm = SettingReader::choice(penalty);
  return norm == "n3" ? 3 : norm == "l2" ? 2 : 0;
}

} // namespace

/// `batches = neighbor(...)` as its attribute; null for anything else
/// (`full_graph`, `graphs(...)`, nothing).
static gnn::SamplerAttr
samplerAttribute(const Expr *batches, const SettingReader &read,
                 mlir::MLIRContext *ctx,
                 llvm::function_ref<std::string(SourceLoc)> sourceLocation) {
  if (SettingReader::choice(batches) != "neighbor")
    return {};
  mlir::Builder b(ctx);
  llvm::SmallVector<int64_t> fanouts;
  if (auto *list = dyn_cast_or_null<ListExpr>(read.argument(batches, "fanout")))
    for (const ExprPtr &f : list->elements)
      if (std::optional<int64_t> n = SettingReader::integer(f.get()))
        fanouts.push_back(*n);
  // `relation_fanout = [relation("cites", [5, 5]), ...]`: relations with
  // fanouts of their own, which means sampling per relation.
  mlir::ArrayAttr relationFanouts;
  if (auto *entries = dyn_cast_or_null<ListExpr>(
          read.argument(batches, "relation_fanout"))) {
    llvm::SmallVector<mlir::Attribute> list;
    for (const ExprPtr &entry : entries->elements) {
      llvm::SmallVector<int64_t> own;
      if (auto *f = dyn_cast_or_null<ListExpr>(
              read.argument(entry.get(), "fanout")))
        for (const ExprPtr &n : f->elements)
          if (std::optional<int64_t> v = SettingReader::integer(n.get()))
            own.push_back(*v);
      list.push_back(gnn::RelationFanoutAttr::get(
          ctx, SettingReader::string(read.argument(entry.get(), "name"), ""),
          own, sourceLocation(entry->loc)));
    }
    relationFanouts = b.getArrayAttr(list);
  }
  return gnn::SamplerAttr::get(
      ctx, fanouts,
      SettingReader::integer(read.argument(batches, "batch")).value_or(0),
      SettingReader::flag(read.argument(batches, "replace"), false),
      SettingReader::flag(read.argument(batches, "shuffle"), true),
      relationFanouts ||
          SettingReader::flag(read.argument(batches, "per_relation"), false),
      relationFanouts);
}

gnn::TrainAttr gnn::mlirgen::trainAttributes(const TrainInfo &train,
                                             const SemaResult &sema,
                                             const SourceManager &sources,
                                             mlir::Builder &b) {
  mlir::MLIRContext *ctx = b.getContext();
  SettingReader read(sema, b);
  // `file.gnn:line:col`, as the trainer prints the locations of ops.
  auto sourceLocation = [&](SourceLoc l) {
    return (llvm::sys::path::filename(sources.name(l.fileId)) + ":" +
            llvm::Twine(l.line) + ":" + llvm::Twine(l.column))
        .str();
  };
  auto setting = [&](llvm::StringRef key) -> const TrainSetting * {
    auto it = train.settings.find(key.str());
    return it == train.settings.end() ? nullptr : it->second;
  };
  auto value = [&](llvm::StringRef key) -> const Expr * {
    const TrainSetting *s = setting(key);
    return s ? s->value.get() : nullptr;
  };
  auto every = [&](llvm::StringRef key, int64_t fallback) {
    const TrainSetting *s = setting(key);
    return s ? SettingReader::integer(s->every.get()).value_or(fallback)
             : fallback;
  };

  // The dataset and its source.
  std::string dataset = train.dataset ? train.dataset->name : "";
  const Expr *source = train.dataset ? train.dataset->source.get() : nullptr;
  DataSourceKind sourceKind =
      symbolizeDataSourceKind(SettingReader::choice(source))
          .value_or(DataSourceKind::ogb);
  GeneratorAttr generator;
  if (sourceKind == DataSourceKind::generate) {
    auto count = [&](llvm::StringRef param) {
      return SettingReader::integer(read.argument(source, param)).value_or(0);
    };
    generator = GeneratorAttr::get(
        ctx,
        symbolizeGraphKind(
            SettingReader::string(read.argument(source, "graph"), "sbm"))
            .value_or(GraphKind::sbm),
        count("nodes"), count("edges"), count("features"), count("classes"),
        SettingReader::integer(read.argument(source, "seed")));
  }

  // The optimizer, with the weight decay its record defaults to.
  const Expr *optimizer = value("optimizer");
  OptimizerKind optimizerKind =
      symbolizeOptimizerKind(SettingReader::choice(optimizer))
          .value_or(OptimizerKind{}); // the first record: the default
  auto hyper = [&](llvm::StringRef param, double fallback) {
    return llvm::APFloat(SettingReader::number(read.argument(optimizer, param))
                             .value_or(fallback));
  };

  // `batches = neighbor(...)`; `full_graph` (or nothing) has no sampler.
  SamplerAttr sampler = samplerAttribute(value("batches"), read, ctx,
                                         sourceLocation);

  // `batches = graphs(batch = N, shuffle?)`: graph-level training.
  GraphBatchesAttr graphBatches;
  if (const Expr *batches = value("batches");
      SettingReader::choice(batches) == "graphs")
    graphBatches = GraphBatchesAttr::get(
        ctx,
        SettingReader::integer(read.argument(batches, "batch")).value_or(0),
        SettingReader::flag(read.argument(batches, "shuffle"), true));

  // `loss = bce` or `negatives = all`: link prediction, with its split and
  // negatives.
  LinksAttr links;
  const bool oneVsAll = SettingReader::choice(value("negatives")) == "all";
  if (SettingReader::string(value("loss"), "") == "bce" || oneVsAll) {
    const Expr *split = value("link_split");
    auto share = [&](llvm::StringRef param, double fallback) {
      return llvm::APFloat(SettingReader::number(read.argument(split, param))
                               .value_or(fallback));
    };
    links = LinksAttr::get(
        ctx, share("valid", 0.05), share("test", 0.10),
        oneVsAll
            ? 1
            : SettingReader::integer(read.argument(value("negatives"), "k"))
                  .value_or(1),
        oneVsAll, penaltyPower(value("penalty")),
        llvm::APFloat(
            SettingReader::number(read.argument(value("penalty"), "weight"))
                .value_or(0.0)));
  }

  PartitionAttr partition;
  if (const Expr *p = value("partition")) {
    mlir::FloatAttr cache;
    if (std::optional<double> c =
            SettingReader::number(read.argument(p, "cache")))
      cache = b.getF64FloatAttr(*c);
    const Expr *balance = read.argument(p, "balance");
    partition = PartitionAttr::get(
        ctx,
        symbolizePartitionKind(SettingReader::choice(p))
            .value_or(PartitionKind::metis),
        cache, balance ? read.names(balance) : mlir::ArrayAttr());
  }

  // The settings only the trainer reads, each as the block gives it.
  llvm::SmallVector<mlir::NamedAttribute> given;
  for (const TrainSettingRecord &record : trainSettingRecords()) {
    const Expr *e = value(record.key);
    if (!e || (record.emission != SettingEmission::Always &&
               record.emission != SettingEmission::IfGiven))
      continue;
    mlir::Attribute v;
    switch (record.carrier) {
    case SettingCarrier::Integer:
      v = b.getI64IntegerAttr(SettingReader::integer(e).value_or(0));
      break;
    case SettingCarrier::Number:
      v = b.getF64FloatAttr(SettingReader::number(e).value_or(0));
      break;
    case SettingCarrier::String:
      v = b.getStringAttr(SettingReader::string(e, ""));
      break;
    case SettingCarrier::Bytes:
      v = b.getI64IntegerAttr(
          gnnrt::parseByteSize(SettingReader::string(e, "")).value_or(0));
      break;
    case SettingCarrier::None:
      continue;
    }
    given.push_back(b.getNamedAttr(record.key, v));
  }

  // `lr_schedule = step(...)` or `cosine(...)`, and `early_stopping =
  // patience(...)`.
  LrScheduleAttr lrSchedule;
  if (const Expr *schedule = value("lr_schedule")) {
    auto number = [&](llvm::StringRef param, double fallback) {
      return llvm::APFloat(SettingReader::number(read.argument(schedule, param))
                               .value_or(fallback));
    };
    lrSchedule = LrScheduleAttr::get(
        ctx, SettingReader::choice(schedule),
        SettingReader::integer(read.argument(schedule, "size")).value_or(0),
        number("gamma", 0.1), number("min_lr", 0.0));
  }
  EarlyStoppingAttr earlyStopping;
  if (const Expr *stopping = value("early_stopping"))
    earlyStopping = EarlyStoppingAttr::get(
        ctx,
        SettingReader::integer(read.argument(stopping, "epochs")).value_or(0),
        SettingReader::string(read.argument(stopping, "monitor"),
                              "valid_loss"));

  // `param_groups`, as Sema resolved them against the model.
  mlir::ArrayAttr paramGroups;
  if (!train.paramGroups.empty()) {
    llvm::SmallVector<mlir::Attribute> groups;
    for (const ParamGroupInfo &g : train.paramGroups) {
      auto number = [&](llvm::StringRef param) -> mlir::FloatAttr {
        std::optional<double> v =
            SettingReader::number(read.argument(g.call, param));
        return v ? b.getF64FloatAttr(*v) : mlir::FloatAttr();
      };
      groups.push_back(ParamGroupAttr::get(
          ctx, g.name, g.pattern, number("lr"), number("weight_decay"),
          SettingReader::flag(read.argument(g.call, "frozen"), false),
          sourceLocation(g.call->loc)));
    }
    paramGroups = b.getArrayAttr(groups);
  }

  const Expr *evaluate = value("evaluate");
  const Expr *checkpoint = value("checkpoint");
  return TrainAttr::get(
      ctx, dataset, sourceKind,
      SettingReader::string(read.argument(source, "split"), ""),
      // A collection's edge lists are symmetric already (TU, OGB's
      // molecules): reverse edges only when asked for.
      SettingReader::flag(read.argument(source, "add_reverse_edges"),
                          sourceKind != DataSourceKind::tu &&
                              sourceKind != DataSourceKind::ogbg &&
                              sourceKind != DataSourceKind::kg),
      SettingReader::flag(read.argument(source, "self_loops"), false),
      SettingReader::flag(read.argument(source, "normalize_features"), false),
      SettingReader::integer(read.argument(source, "embed")).value_or(0),
      generator, optimizerKind, hyper("lr", 0.01),
      hyper("weight_decay", optimizers()[uint32_t(optimizerKind)].weightDecay),
      hyper("beta1", 0.9), hyper("beta2", 0.999), hyper("eps", 1e-8),
      hyper("momentum", 0.0), sampler, partition,
      symbolizeAggregationMode(
          SettingReader::string(value("aggregation"), "auto"))
          .value_or(AggregationMode::automatic),
      evaluate ? read.names(evaluate) : mlir::ArrayAttr(), every("evaluate", 1),
      checkpoint ? b.getStringAttr(SettingReader::string(checkpoint, ""))
                 : mlir::StringAttr(),
      every("checkpoint", 0),
      given.empty() ? mlir::DictionaryAttr() : b.getDictionaryAttr(given),
      lrSchedule, earlyStopping, paramGroups, graphBatches, links);
}
