//===- SemaTrain.cpp - Train blocks ---------------------------------------===//
//
// A train block names a model and a dataset and sets how training runs: each
// key and value is checked against its record in gnnrt/train/TrainSettings.def
// (checkTrainSetting), the sampler's arguments against the model's depth, and
// out-of-core settings against each other.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "gnnrt/support/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace gnn::lang;

/// The argument a builtin call binds to its parameter `param`, or null.
static const Expr *boundArgument(const BuiltinCall &call, const char *param) {
  for (size_t i = 0; i < call.args.size(); ++i)
    if (std::string(call.builtin->params[i].name) == param)
      return call.args[i];
  return nullptr;
}

std::optional<double> gnn::lang::literalNumber(const Expr *e) {
  if (auto *neg = dyn_cast<NegExpr>(e)) {
    std::optional<double> v = literalNumber(neg->operand.get());
    return v ? std::optional<double>(-*v) : std::nullopt;
  }
  if (auto *i = dyn_cast<IntExpr>(e))
    return double(i->value);
  if (auto *f = dyn_cast<FloatExpr>(e))
    return f->value;
  return std::nullopt;
}

/// What `batches = ...` names: `full_graph`, `neighbor`, `graphs` (the
/// callee of a call), or "" for anything else.
static std::string batchesKind(const Expr *value) {
  if (!value)
    return "";
  if (auto *call = dyn_cast<CallExpr>(value))
    value = call->callee.get();
  auto *name = dyn_cast<NameExpr>(value);
  return name ? name->name : std::string();
}

/// The source a dataset is read from (`ogb`, `tu`, ...), or "".
static std::string datasetSource(const DatasetDecl *dataset) {
  auto *call = dataset && dataset->source
                   ? dyn_cast<CallExpr>(dataset->source.get())
                   : nullptr;
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  return callee ? callee->name : std::string();
}

/// The trained model when its forward takes a graph and returns rows (what
/// the task checks compare: a row per node, graph or pair), else null.
static const ModuleInfo *taskForward(const TrainInfo &info,
                                     SemaResult &result) {
  if (!info.model || info.model->poisoned)
    return nullptr;
  const ModuleInfo &model = result.moduleInfo[info.model];
  if (model.forwardParamTypes.empty() || !model.forwardParamTypes[0].graph ||
      !model.forwardResult.isTensor() || model.forwardResult.rank() < 1)
    return nullptr;
  return &model;
}

/// Where the trained model's forward is, for notes.
static SourceLoc forwardLoc(const TrainInfo &info) {
  return info.model->forward ? info.model->forward->loc : info.model->loc;
}

//===----------------------------------------------------------------------===//
// Train blocks
//===----------------------------------------------------------------------===//

void Sema::checkTrain(const TrainDecl &decl) {
  TrainInfo info;
  info.decl = &decl;
  auto mit = result.modules.find(decl.model);
  if (mit == result.modules.end()) {
    std::vector<std::string> names;
    for (const auto &[n, m] : result.modules)
      if (m->isModel)
        names.push_back(n);
    diags.error(decl.modelLoc,
                withSuggestion("unknown model '" + decl.model + "'", decl.model,
                               names));
  } else if (!mit->second->isModel) {
    diags.error(decl.modelLoc,
                "'" + decl.model + "' is a layer; train needs a model");
    noteDefinition(mit->second);
  } else {
    info.model = mit->second;
  }
  auto dit = result.datasets.find(decl.dataset);
  if (dit == result.datasets.end()) {
    std::vector<std::string> names;
    for (const auto &[n, d] : result.datasets)
      names.push_back(n);
    diags.error(decl.datasetLoc,
                withSuggestion("unknown dataset '" + decl.dataset + "'",
                               decl.dataset, names));
  } else {
    info.dataset = dit->second;
  }

  if (info.model && !info.model->poisoned) {
    const ModuleInfo &model = result.moduleInfo[info.model];
    const std::vector<FormalParam> &params = info.model->params;
    Scope scope;
    if (bindArgs(info.model->name, decl.modelLoc, params, decl.modelArgs,
                 info.modelArgs)) {
      for (size_t i = 0; i < info.modelArgs.size(); ++i) {
        if (!info.modelArgs[i]) {
          info.modelArgs[i] = info.model->params[i].defaultValue.get();
          continue;
        }
        Type actual = checkExpr(const_cast<Expr *>(info.modelArgs[i]), scope);
        const Type &expected = model.paramTypes[i];
        bool compatible = actual.isError() || expected.isError() ||
                          isAssignable(expected, actual);
        if (!compatible)
          diags.error(info.modelArgs[i]->loc,
                      "argument '" + params[i].name + "' of '" +
                          info.model->name + "' expects " + expected.str() +
                          ", got " + actual.str());
        else if (expected.kind == TypeKind::Int && actual.intValue &&
                 !actual.intValue->isConstant())
          diags.error(info.modelArgs[i]->loc,
                      "argument '" + params[i].name + "' of '" +
                          info.model->name + "' must be a constant integer");
        else if (auto use = model.dropoutParams.find(params[i].name);
                 use != model.dropoutParams.end())
          checkDropoutArgument(info.modelArgs[i], actual, use->second, scope);
      }
    }
  }

  for (const TrainSetting &s : decl.settings) {
    auto [it, inserted] = info.settings.emplace(s.key, &s);
    if (!inserted) {
      diags.error(s.loc, "setting '" + s.key + "' is given more than once");
      diags.note(it->second->loc, "previous setting is here");
      continue;
    }
    checkTrainSetting(s, info);
  }
  // Sampler ranks serve mini-batches: a full-graph program has none.
  if (auto samplers = info.settings.find("samplers");
      samplers != info.settings.end()) {
    auto batches = info.settings.find("batches");
    const std::string how = batches == info.settings.end()
                                ? std::string("full_graph")
                                : batchesKind(batches->second->value.get());
    if (how != "neighbor")
      diags.error(samplers->second->loc,
                  "'samplers' needs sampled mini-batches (batches = "
                  "neighbor(...)); this train block trains on " +
                      std::string(how == "graphs" ? "batches of graphs"
                                                  : "the full graph"));
  }
  checkOffloadSettings(info);
  checkScheduleSettings(info);
  checkGraphLevel(info);
  checkLinkPrediction(info);
  result.trains.push_back(std::move(info));
}

/// `offload = "DIR"` and `memory_budget = "SIZE"` go together, as the
/// trainer's flags do, and train full-graph programs only (a sampled
/// program's working set is one batch).
void Sema::checkOffloadSettings(const TrainInfo &info) {
  auto offload = info.settings.find("offload");
  auto budget = info.settings.find("memory_budget");
  const bool hasOffload = offload != info.settings.end();
  const bool hasBudget = budget != info.settings.end();
  if (hasOffload && !hasBudget)
    diags.error(offload->second->loc,
                "'offload' needs 'memory_budget' (e.g. memory_budget = "
                "\"1G\"): the partition count follows from it");
  if (hasBudget && !hasOffload)
    diags.error(budget->second->loc,
                "'memory_budget' needs 'offload = \"DIR\"': the directory "
                "where the partitions that do not fit live");
  if (!hasOffload)
    return;
  auto batches = info.settings.find("batches");
  if (batches != info.settings.end() &&
      isa<CallExpr>(batches->second->value.get()))
    diags.error(offload->second->loc,
                std::string("'offload' trains full-graph programs; this "
                            "train block ") +
                    (batchesKind(batches->second->value.get()) == "graphs"
                         ? "trains on batches of graphs (batches = "
                           "graphs(...))"
                         : "samples mini-batches (batches = neighbor(...))") +
                    ", whose working set is one batch");
}

/// `lr_schedule = step(size = N, gamma = G)` or `cosine(min_lr = M)`, and
/// `early_stopping = patience(N, monitor = M)`: epoch counts positive, gamma
/// positive, min_lr not negative; early stopping needs the validation split
/// evaluated. The call's arguments' types were checked with the call.
void Sema::checkScheduleSettings(const TrainInfo &info) {
  // The call a setting's value makes (null: absent, a bare name, or a call
  // Sema rejected already).
  auto callOf = [&](const char *key,
                    const Expr *&value) -> const BuiltinCall * {
    auto it = info.settings.find(key);
    value = it == info.settings.end() ? nullptr : it->second->value.get();
    auto *call = dyn_cast<CallExpr>(value);
    auto bound =
        call ? result.builtinCalls.find(call) : result.builtinCalls.end();
    return bound == result.builtinCalls.end() || !bound->second.builtin
               ? nullptr
               : &bound->second;
  };
  // `param` of `call`, a literal number checked by `valid`.
  auto checkNumber = [&](const BuiltinCall &call, const char *param,
                         bool (*valid)(double), const std::string &expected) {
    const Expr *arg = boundArgument(call, param);
    std::optional<double> v = literalNumber(arg);
    if (arg && v && !valid(*v)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", *v);
      diags.error(arg->loc, std::string("'") + param + "' of '" +
                                call.builtin->name + "' must be " + expected +
                                ", got " + text);
    }
  };
  auto positive = [](double v) { return v > 0; };
  const Expr *value = nullptr;
  if (const BuiltinCall *schedule = callOf("lr_schedule", value)) {
    checkNumber(*schedule, "size", positive, "a positive number of epochs");
    checkNumber(*schedule, "gamma", positive, "a positive number");
    checkNumber(
        *schedule, "min_lr", [](double v) { return v >= 0; },
        "a non-negative number");
  } else if (auto *bare = dyn_cast<NameExpr>(value);
             bare && bare->name == "step") {
    diags.error(value->loc, "step needs its period: lr_schedule = "
                            "step(size = N) decays every N epochs");
  }
  const BuiltinCall *stopping = callOf("early_stopping", value);
  if (stopping) {
    checkNumber(*stopping, "epochs", positive, "a positive number of epochs");
  } else if (auto *bare = dyn_cast<NameExpr>(value);
             bare && bare->name == "patience") {
    diags.error(value->loc, "patience needs its number of epochs: "
                            "early_stopping = patience(N)");
  }
  // Early stopping watches the validation split: `evaluate` must name it.
  auto evaluate = info.settings.find("evaluate");
  if (!stopping || evaluate == info.settings.end())
    return;
  std::vector<const Expr *> splits;
  if (auto *list = dyn_cast<ListExpr>(evaluate->second->value.get()))
    for (const ExprPtr &e : list->elements)
      splits.push_back(e.get());
  else
    splits.push_back(evaluate->second->value.get());
  if (std::none_of(splits.begin(), splits.end(), [](const Expr *e) {
        auto *n = dyn_cast<NameExpr>(e);
        return n && n->name == "valid";
      })) {
    diags.error(value->loc, "early_stopping watches the validation split, "
                            "which 'evaluate' leaves out: add valid to it");
    diags.note(evaluate->second->loc, "evaluate is set here");
  }
}

/// `neighbor(fanout = [...], batch = N, relation_fanout = [...])`: one
/// positive fanout (or -1, all neighbours) per layer, and a positive batch
/// size; each relation given its own fanouts gives one per layer too, once.
/// Whether there is one fanout per layer is checked once the model's layers
/// are known (gnn-sample-blocks); whether the relations exist, once the
/// data is (the trainer, at start-up).
void Sema::checkSampler(const CallExpr *call) {
  auto resolved =
      call ? result.builtinCalls.find(call) : result.builtinCalls.end();
  if (resolved == result.builtinCalls.end() || resolved->second.args.size() < 2)
    return;
  const BuiltinCall &sampler = resolved->second;
  auto argument = boundArgument;
  // The fanouts of a list, one per layer; nullopt after an error.
  auto fanoutList = [&](const Expr *fanout) -> std::optional<size_t> {
    auto *list = dyn_cast<ListExpr>(fanout);
    if (!list || list->elements.empty()) {
      diags.error(fanout->loc, "fanout expects a non-empty list of integers, "
                               "one per layer (layer 0 first)");
      return std::nullopt;
    }
    bool ok = true;
    for (const ExprPtr &e : list->elements) {
      std::optional<int64_t> v;
      if (auto *i = dyn_cast<IntExpr>(e.get()))
        v = i->value;
      else if (auto *neg = dyn_cast<NegExpr>(e.get()))
        if (auto *i = dyn_cast<IntExpr>(neg->operand.get()))
          v = -i->value;
      if (!v || (*v <= 0 && *v != -1)) {
        diags.error(e->loc, "a fanout is a positive number of neighbours, "
                            "or -1 for all of them");
        ok = false;
      }
    }
    return ok ? std::optional<size_t>(list->elements.size()) : std::nullopt;
  };
  std::optional<size_t> layers;
  if (const Expr *fanout = argument(sampler, "fanout"))
    layers = fanoutList(fanout);
  const Expr *batch = argument(sampler, "batch");
  if (auto *n = batch ? dyn_cast<IntExpr>(batch) : nullptr)
    if (n->value <= 0)
      diags.error(batch->loc, "the batch size must be positive, got " +
                                  std::to_string(n->value));

  const Expr *overrides = argument(sampler, "relation_fanout");
  if (!overrides)
    return;
  if (const Expr *perRelation = argument(sampler, "per_relation"))
    if (auto *flag = dyn_cast<BoolExpr>(perRelation); flag && !flag->value)
      diags.error(flag->loc, "per_relation = false contradicts "
                             "relation_fanout, which samples each relation "
                             "on its own");
  const char *expected = "relation_fanout expects a list of "
                         "relation(\"name\", [f0, f1, ...]) entries";
  auto *list = dyn_cast<ListExpr>(overrides);
  if (!list || list->elements.empty()) {
    diags.error(overrides->loc, expected);
    return;
  }
  std::map<std::string, const Expr *> seen;
  for (const ExprPtr &e : list->elements) {
    auto *entry = dyn_cast<CallExpr>(e.get());
    auto *callee = entry ? dyn_cast<NameExpr>(entry->callee.get()) : nullptr;
    if (!callee || callee->name != "relation") {
      diags.error(e->loc, expected);
      continue;
    }
    Scope scope;
    if (checkBuiltinCall(
            entry, *lookupBuiltin("relation", BuiltinContext::TrainSetting),
            scope)
            .isError())
      continue;
    const BuiltinCall &relation = result.builtinCalls[entry];
    const auto *name = dyn_cast<StringExpr>(argument(relation, "name"));
    const Expr *fanout = argument(relation, "fanout");
    if (!name || !fanout)
      continue;
    if (auto [at, inserted] = seen.emplace(name->value, name); !inserted) {
      diags.error(name->loc, "relation '" + name->value +
                                 "' is given its fanouts more than once");
      diags.note(at->second->loc, "previous fanouts are here");
    }
    std::optional<size_t> own = fanoutList(fanout);
    if (own && layers && *own != *layers)
      diags.error(fanout->loc, "relation '" + name->value + "' gives " +
                                   std::to_string(*own) +
                                   " fanouts, but fanout gives " +
                                   std::to_string(*layers) +
                                   ": give one per layer (layer 0 first)");
  }
}

void Sema::checkTrainSetting(const TrainSetting &setting, TrainInfo &info) {
  const std::string &key = setting.key;
  Expr *value = setting.value.get();
  Scope scope;
  const TrainSettingInfo *known = lookupTrainSetting(key);
  if (!known) {
    diags.error(setting.loc,
                withSuggestion("unknown train setting '" + key + "'", key,
                               trainSettingKeys()));
    return;
  }
  using K = TrainValueKind;
  const K kind = known->kind;
  if (setting.every && kind != K::Splits && kind != K::File)
    diags.error(setting.every->loc, "'every' applies only to evaluate and "
                                    "checkpoint, not to '" +
                                        key + "'");
  if (setting.every) {
    auto *n = dyn_cast<IntExpr>(setting.every.get());
    if (!n || n->value <= 0)
      diags.error(setting.every->loc,
                  "'every' needs a positive integer number of epochs");
  }

  // A call to one of `functions`, or a bare name of one of them.
  auto checkChoice = [&](const std::vector<std::string> &functions,
                         const std::string &what) {
    std::string name;
    CallExpr *call = dyn_cast<CallExpr>(value);
    if (auto *n = dyn_cast<NameExpr>(call ? call->callee.get() : value))
      name = n->name;
    if (std::find(functions.begin(), functions.end(), name) ==
        functions.end()) {
      std::string list;
      for (size_t i = 0; i < functions.size(); ++i)
        list += (i ? ", " : "") + functions[i] + "(...)";
      diags.error(value->loc, "expected " + what + ": " + list);
      return;
    }
    if (call)
      checkBuiltinCall(call, *lookupBuiltin(name, BuiltinContext::TrainSetting),
                       scope);
  };
  const std::string &expected = known->expected;

  switch (kind) {
  case K::Call:
  case K::Optimizer:
    checkChoice(known->choices, expected);
    break;
  case K::Batches: {
    // `full_graph`, or a sampler (the choices after it).
    auto *n = dyn_cast<NameExpr>(value);
    if (!(n && n->name == known->choices.front())) {
      checkChoice({known->choices.begin() + 1, known->choices.end()}, expected);
      checkSampler(dyn_cast<CallExpr>(value));
    }
    break;
  }
  case K::Symbol: {
    auto *n = dyn_cast<NameExpr>(value);
    const std::vector<std::string> &names = known->choices;
    if (!n || std::find(names.begin(), names.end(), n->name) == names.end())
      diags.error(value->loc,
                  expected + "; expected " + alternativesList(names));
    break;
  }
  case K::PositiveInteger:
  case K::Count: {
    auto *n = dyn_cast<IntExpr>(value);
    if (!n || n->value < (kind == K::PositiveInteger ? 1 : 0))
      diags.error(value->loc, expected);
    break;
  }
  case K::Splits: {
    std::vector<const Expr *> splits;
    if (auto *list = dyn_cast<ListExpr>(value)) {
      for (const ExprPtr &e : list->elements)
        splits.push_back(e.get());
    } else {
      splits.push_back(value);
    }
    for (const Expr *e : splits) {
      auto *n = dyn_cast<NameExpr>(e);
      if (!n || !isBuiltinSymbol(n->name, SymbolCategory::Split))
        diags.error(e->loc,
                    expected + ": " + builtinSymbolList(SymbolCategory::Split));
    }
    break;
  }
  case K::File:
    if (!isa<StringExpr>(value))
      diags.error(value->loc, expected);
    break;
  case K::Directory: {
    auto *dir = dyn_cast<StringExpr>(value);
    if (!dir || dir->value.empty())
      diags.error(value->loc, expected);
    break;
  }
  case K::ByteSize: {
    auto *size = dyn_cast<StringExpr>(value);
    if (!size || !gnnrt::parseByteSize(size->value))
      diags.error(value->loc,
                  expected + (size ? ", got \"" + size->value + "\"" : ""));
    break;
  }
  case K::Seconds:
    // As the trainer's flag takes them; a negative number is NegExpr.
    if (!isa<IntExpr>(value) && !isa<FloatExpr>(value))
      diags.error(value->loc, expected);
    break;
  case K::ParamGroups:
    checkParamGroups(setting, info);
    break;
  }
}

/// Graph-level training: a collection of graphs (`tu`, `ogbg`) trains on
/// batches of whole graphs and nothing else, and then the model returns a
/// row per graph of the batch (`[g.graphs, ...]`, a readout's rows); a
/// model that returns a row per graph trains on nothing else.
void Sema::checkGraphLevel(const TrainInfo &info) {
  auto batches = info.settings.find("batches");
  const Expr *value =
      batches == info.settings.end() ? nullptr : batches->second->value.get();
  const std::string how = value ? batchesKind(value) : "full_graph";
  const std::string source = datasetSource(info.dataset);
  const bool collection = source == "tu" || source == "ogbg";
  const SourceLoc where = value ? value->loc : info.decl->loc;
  if (collection && how != "graphs" && !how.empty()) {
    diags.error(where, "dataset '" + info.dataset->name +
                           "' is a collection of graphs (" + source +
                           "(...)): train it with batches = graphs(batch = "
                           "N), not " + how);
    return;
  }
  if (how == "graphs" && info.dataset && !collection && !source.empty()) {
    diags.error(where, "batches = graphs(...) needs a collection of graphs "
                       "(a dataset from tu(...) or ogbg(...)); '" +
                           info.dataset->name + "' comes from " + source +
                           "(...)");
    return;
  }
  const ModuleInfo *forward = taskForward(info, result);
  if (!forward)
    return;
  const ModuleInfo &model = *forward;
  const Dim &rows = model.forwardResult.shape[0];
  const Dim &graphs = model.forwardParamTypes[0].graph->graphs;
  const bool perGraph = rows == graphs;
  if (how == "graphs" && !perGraph) {
    diags.error(where, "batches = graphs(...) trains a label per graph, but "
                       "model '" + info.model->name + "' returns " +
                           model.forwardResult.str() +
                           ", not a row per graph: pool its rows with "
                           "aggregate(readout(g), h) into [" +
                           graphs.str() + ", ...]");
    diags.note(forwardLoc(info), "the forward is here");
  } else if (how != "graphs" && perGraph) {
    diags.error(where, "model '" + info.model->name + "' returns a row per "
                       "graph (" + model.forwardResult.str() +
                           "): train it on a collection of graphs with "
                           "batches = graphs(batch = N)");
    diags.note(forwardLoc(info), "the forward is here");
  }
}

/// The first `gather(p, r, rel)` in `module` or its layers, if any.
static std::optional<SourceLoc>
relationGatherIn(const ModuleDecl *module, SemaResult &result, int depth = 0) {
  auto it = result.moduleInfo.find(module);
  if (!module || depth > 64 || it == result.moduleInfo.end())
    return std::nullopt;
  if (it->second.relationGather)
    return it->second.relationGather;
  for (const auto &[name, sub] : it->second.subLayers)
    if (std::optional<SourceLoc> loc =
            relationGatherIn(sub.layer, result, depth + 1))
      return loc;
  return std::nullopt;
}

/// A knowledge graph (`kg(...)`) is link prediction on its own split
/// files, and only its pairs carry relations: `gather(p, r, rel)` on
/// another dataset's pairs is an error at the gather.
void Sema::checkKnowledgeGraph(const TrainInfo &info, bool links,
                               const TrainSetting *linkSplit) {
  const bool kg = datasetSource(info.dataset) == "kg";
  auto loss = info.settings.find("loss");
  const SourceLoc where =
      loss == info.settings.end() ? info.decl->loc : loss->second->value->loc;
  if (kg && !links)
    diags.error(where, "dataset '" + info.dataset->name +
                           "' is a knowledge graph (kg(...)): train it with "
                           "loss = bce on a score per pair of pairs(g), or "
                           "with negatives = all");
  if (kg && linkSplit)
    diags.error(linkSplit->loc,
                "dataset '" + info.dataset->name +
                    "' is a knowledge graph: its splits are its train, "
                    "valid and test files, not link_split");
  if (auto batch = info.settings.find("link_batch");
      !kg && info.dataset && batch != info.settings.end())
    diags.error(batch->second->loc,
                "'link_batch' cuts a knowledge graph's train triples into "
                "steps: dataset '" +
                    info.dataset->name + "' is not one (kg(...))");
  if (kg || !info.dataset || !info.model || info.model->poisoned)
    return;
  if (std::optional<SourceLoc> at = relationGatherIn(info.model, result)) {
    diags.error(*at, "gather(..., rel) reads each pair's relation, but "
                     "dataset '" +
                         info.dataset->name + "' (" +
                         datasetSource(info.dataset) +
                         "(...)) has pairs without relations: train on a "
                         "kg(...) dataset");
    diags.note(info.decl->loc, "model '" + info.model->name +
                                   "' is trained on '" + info.dataset->name +
                                   "' here");
  }
}

/// Link prediction: `loss = bce` (or, on a knowledge graph, `negatives =
/// all` with the cross-entropy) scores the pairs of `pairs(g)`, so the
/// model returns a score per pair ([g.pairs] or [g.pairs, 1]) and no model
/// that does trains with another loss; the split and the negatives belong
/// to it; and it trains on the full graph or on sampled link batches
/// (a knowledge graph on the full graph only).
void Sema::checkLinkPrediction(const TrainInfo &info) {
  auto setting = [&](const char *key) -> const TrainSetting * {
    auto it = info.settings.find(key);
    return it == info.settings.end() ? nullptr : it->second;
  };
  const TrainSetting *loss = setting("loss");
  auto *lossName = loss ? dyn_cast<NameExpr>(loss->value.get()) : nullptr;
  const bool bce = lossName && lossName->name == "bce";
  // `negatives = all` (1vsAll) trains the pairs' score with the softmax
  // cross-entropy over every entity instead.
  const TrainSetting *negatives = setting("negatives");
  const bool allNegatives =
      negatives && batchesKind(negatives->value.get()) == "all";
  const bool links = bce || allNegatives;
  if (allNegatives && bce)
    diags.error(loss->value->loc,
                "negatives = all scores each triple's true entity against "
                "every entity with the softmax cross-entropy: set loss = "
                "cross_entropy (or leave 'loss' out)");
  if (allNegatives && info.dataset && datasetSource(info.dataset) != "kg")
    diags.error(negatives->value->loc,
                "negatives = all ranks every entity of a knowledge graph, but "
                "dataset '" +
                    info.dataset->name + "' (" + datasetSource(info.dataset) +
                    "(...)) is not one (kg(...)): use negatives = uniform(k)");
  for (const char *key : {"link_split", "negatives", "penalty"})
    if (const TrainSetting *s = setting(key); s && !links)
      diags.error(s->loc, std::string("'") + key +
                              "' belongs to link prediction: set loss = bce "
                              "and score pairs(g) in the model");
  // The shares of the split, and the negatives per link.
  auto literal = [&](const TrainSetting *s, const char *param) {
    auto *call = s ? dyn_cast<CallExpr>(s->value.get()) : nullptr;
    auto bound =
        call ? result.builtinCalls.find(call) : result.builtinCalls.end();
    const Expr *arg = bound == result.builtinCalls.end()
                          ? nullptr
                          : boundArgument(bound->second, param);
    return std::make_pair(arg, arg ? literalNumber(arg) : std::nullopt);
  };
  if (const TrainSetting *split = setting("link_split")) {
    double total = 0;
    for (const char *param : {"valid", "test"}) {
      auto [arg, v] = literal(split, param);
      if (arg && v && (*v < 0 || *v >= 1))
        diags.error(arg->loc, std::string("'") + param +
                                  "' of 'split' must be a share in [0, 1)");
      total += v ? *v : (std::string(param) == "valid" ? 0.05 : 0.10);
    }
    if (total >= 1)
      diags.error(split->value->loc,
                  "split leaves no train links: valid and test take all of "
                  "them");
  }
  if (auto [arg, w] = literal(setting("penalty"), "weight");
      arg && (!w || !std::isfinite(*w) || *w < 0))
    diags.error(arg->loc, "the penalty's 'weight' must be a non-negative "
                          "number");
  if (auto [arg, k] = literal(setting("negatives"), "k"); arg && k && *k < 1)
    diags.error(arg->loc, "'k' of 'uniform' must be a positive number of "
                          "negatives per link");
  if (const TrainSetting *batches = setting("batches"); batches && links) {
    // Sampled link batches: `batch` positive links per step, blocks sampled
    // around their endpoints and their negatives'.
    const std::string how = batchesKind(batches->value.get());
    const bool kg = info.dataset && datasetSource(info.dataset) == "kg";
    if (how == "neighbor" && kg)
      diags.error(batches->value->loc,
                  "a knowledge graph trains on the full graph so far (its "
                  "steps take link_batch triples), not on batches = "
                  "neighbor(...)");
    else if (how != "full_graph" && how != "neighbor" && !how.empty())
      diags.error(batches->value->loc,
                  "link prediction (loss = bce) trains on the full graph or "
                  "on sampled link batches (neighbor(...)), not on batches = " +
                      how + "(...)");
  }
  checkKnowledgeGraph(info, links, setting("link_split"));
  const ModuleInfo *forward = taskForward(info, result);
  if (!forward)
    return;
  const ModuleInfo &model = *forward;
  const Type &out = model.forwardResult;
  const Dim &pairs = model.forwardParamTypes[0].graph->pairs;
  const bool perPair = out.shape[0] == pairs;
  const bool scores =
      perPair && (out.rank() == 1 ||
                  (out.rank() == 2 && out.shape[1] == Dim::constant(1)));
  const SourceLoc where = loss           ? loss->value->loc
                          : allNegatives ? negatives->value->loc
                                         : info.decl->loc;
  if (links && !scores) {
    diags.error(where, std::string(bce ? "loss = bce" : "negatives = all") +
                           " scores pairs of nodes, but model '" +
                           info.model->name + "' returns " + out.str() +
                           ": return one score per pair of pairs(g), [" +
                           pairs.str() + "] or [" + pairs.str() + ", 1]");
    diags.note(forwardLoc(info), "the forward is here");
  } else if (!links && perPair) {
    diags.error(where, "model '" + info.model->name +
                           "' scores pairs of nodes (" + out.str() +
                           "): train it with loss = bce");
    diags.note(forwardLoc(info), "the forward is here");
  }
}
