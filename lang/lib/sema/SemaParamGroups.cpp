//===- SemaParamGroups.cpp - A train block's parameter groups -------------===//
//
// `param_groups = [group(c1, weight_decay = 5e-4), group("convs*", lr =
// 0.005), group(c2, frozen = true)]`: each group selects parameters of the
// model -- a layer member (all of its parameters), a parameter member, or a
// glob over the dotted parameter names (gnnrt/support/Glob.h, the trainer's
// meaning) -- and gives them their own learning rate and weight decay, or
// freezes them. A parameter takes the first group that matches it, the
// others the optimizer's values. The checks here make every group mean
// something: it selects parameters that exist, takes at least one that no
// earlier group took (and a layer all of its own), and sets valid values.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "gnnrt/support/Glob.h"

#include <set>

using namespace gnn::lang;

void Sema::collectParameterNames(const ModuleDecl &module,
                                 const std::string &prefix,
                                 const std::map<std::string, int64_t> &ints,
                                 std::vector<std::string> &names) {
  for (const WeightDecl &w : module.weights)
    names.push_back(prefix + w.name);
  auto info = result.moduleInfo.find(&module);
  if (info == result.moduleInfo.end())
    return;
  // A constant integer: a literal, or a parameter of `module` whose value
  // this instance knows.
  auto constant = [&](const Expr *e) -> std::optional<int64_t> {
    if (auto *i = dyn_cast<IntExpr>(e))
      return i->value;
    if (auto *n = dyn_cast<NameExpr>(e))
      if (auto it = ints.find(n->name); it != ints.end())
        return it->second;
    return std::nullopt;
  };
  for (const SubLayerDecl &s : module.subLayers) {
    auto sub = info->second.subLayers.find(s.name);
    if (sub == info->second.subLayers.end() || !sub->second.layer)
      continue;
    const ModuleDecl &layer = *sub->second.layer;
    // The layer's own integer parameters, as far as they are constants.
    std::map<std::string, int64_t> inner;
    for (size_t i = 0; i < layer.params.size(); ++i) {
      const Expr *arg =
          i < sub->second.args.size() ? sub->second.args[i] : nullptr;
      if (std::optional<int64_t> v = arg ? constant(arg) : std::nullopt)
        inner[layer.params[i].name] = *v;
    }
    const LoopRange *list = sub->second.list;
    if (!list) {
      collectParameterNames(layer, prefix + s.name + ".", inner, names);
      continue;
    }
    // A list of layers: `convs.0.w`, `convs.1.w`, ... as MLIRGen names
    // them; a range this instance cannot count stands for its first.
    std::optional<int64_t> begin =
        list->begin ? constant(list->begin.get()) : std::optional<int64_t>(0);
    std::optional<int64_t> end = constant(list->end.get());
    if (!begin || !end)
      end = (begin ? *begin : 0) + 1;
    for (int64_t i = begin.value_or(0); i < *end; ++i)
      collectParameterNames(
          layer, prefix + s.name + "." + std::to_string(i) + ".", inner, names);
  }
}

namespace {

/// "a, b, c" with at most `limit` names, then ", ...".
std::string nameList(const std::vector<std::string> &names, size_t limit = 8) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i)
    out += (i ? ", " : "") + names[i];
  return names.size() > limit ? out + ", ..." : out;
}

} // namespace

void Sema::checkParamGroups(const TrainSetting &setting, TrainInfo &info) {
  const std::string &expected = lookupTrainSetting(setting.key)->expected;
  auto *list = dyn_cast<ListExpr>(setting.value.get());
  if (!list || list->elements.empty()) {
    diags.error(setting.value->loc, expected);
    return;
  }
  // The model's parameters; none when the model is unknown (reported).
  std::vector<std::string> parameters;
  std::set<std::string> members;
  if (info.model) {
    // The model's integer parameters, as this block sets them.
    std::map<std::string, int64_t> ints;
    for (size_t i = 0;
         i < info.model->params.size() && i < info.modelArgs.size(); ++i)
      if (auto *v = dyn_cast<IntExpr>(info.modelArgs[i]))
        ints[info.model->params[i].name] = v->value;
    collectParameterNames(*info.model, "", ints, parameters);
    for (const WeightDecl &w : info.model->weights)
      members.insert(w.name);
    for (const SubLayerDecl &s : info.model->subLayers)
      members.insert(s.name);
  }
  // Which group (by its entry) took each parameter so far.
  std::map<std::string, const CallExpr *> takenBy;

  for (const ExprPtr &e : list->elements) {
    auto *call = dyn_cast<CallExpr>(e.get());
    auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
    if (!callee || callee->name != "group") {
      diags.error(e->loc, expected);
      continue;
    }
    Scope scope;
    const Builtin &group =
        *lookupBuiltin("group", BuiltinContext::TrainSetting);
    if (checkBuiltinCall(call, group, scope).isError())
      continue;
    const BuiltinCall &bound = result.builtinCalls[call];
    auto argument = [&](const char *param) -> const Expr * {
      for (size_t i = 0; i < bound.args.size(); ++i)
        if (std::string(group.params[i].name) == param)
          return bound.args[i];
      return nullptr;
    };

    // The values: non-negative literals; frozen excludes the others.
    const Expr *lr = argument("lr");
    const Expr *decay = argument("weight_decay");
    const auto *frozen = dyn_cast<BoolExpr>(argument("frozen"));
    bool valuesOk = true;
    for (auto [value, what] :
         {std::pair{lr, "lr"}, std::pair{decay, "weight_decay"}}) {
      if (!value)
        continue;
      std::optional<double> v = literalNumber(value);
      if (!v || *v < 0) {
        diags.error(value->loc, std::string("a group's ") + what +
                                    " must be a non-negative number");
        valuesOk = false;
      } else if (frozen && frozen->value) {
        diags.error(value->loc, std::string("a frozen group's parameters are "
                                            "not updated: it takes no ") +
                                    what);
        valuesOk = false;
      }
    }
    if (valuesOk && !lr && !decay && !(frozen && frozen->value)) {
      diags.error(call->loc, "this group sets nothing: give it lr, "
                             "weight_decay or frozen = true");
      valuesOk = false;
    }
    // A group in error takes no parameters: later groups are checked as if
    // it were not there, so its mistake is reported once.
    if (!valuesOk)
      continue;

    // The selector: a member of the model, or a pattern.
    const Expr *selector = argument("params");
    ParamGroupInfo entry;
    entry.call = call;
    bool isLayer = false;
    if (auto *name = dyn_cast<NameExpr>(selector)) {
      entry.name = name->name;
      if (!info.model)
        continue;
      if (!members.count(name->name)) {
        diags.error(name->loc,
                    withSuggestion("unknown layer '" + name->name +
                                       "' of model '" + info.model->name + "'",
                                   name->name,
                                   {members.begin(), members.end()}));
        continue;
      }
      isLayer = result.moduleInfo[info.model].subLayers.count(name->name);
      entry.pattern = isLayer ? name->name + ".*" : name->name;
    } else if (auto *pattern = dyn_cast<StringExpr>(selector)) {
      entry.name = "\"" + pattern->value + "\"";
      entry.pattern = pattern->value;
    } else {
      diags.error(selector ? selector->loc : call->loc,
                  "group expects a layer of the model or a \"pattern\" over "
                  "its parameter names");
      continue;
    }
    if (!info.model)
      continue;

    // The parameters it matches, and which of them it takes.
    std::vector<std::string> matched, taken;
    for (const std::string &p : parameters)
      if (gnnrt::globMatch(entry.pattern, p))
        matched.push_back(p);
    if (matched.empty()) {
      diags.error(selector->loc,
                  "pattern " + entry.name + " matches no parameter of model '" +
                      info.model->name +
                      "' (its parameters: " + nameList(parameters) + ")");
      continue;
    }
    const CallExpr *earlier = nullptr;
    for (const std::string &p : matched) {
      auto [at, inserted] = takenBy.emplace(p, call);
      if (inserted)
        taken.push_back(p);
      else if (!earlier)
        earlier = at->second;
      if (!inserted && isLayer) {
        diags.error(selector->loc,
                    "parameter '" + p + "' of layer '" + entry.name +
                        "' is already in an earlier group: a layer's group "
                        "takes all of its parameters (a parameter takes the "
                        "first group that matches it)");
        diags.note(at->second->loc, "the earlier group is here");
        break;
      }
    }
    if (isLayer && earlier)
      continue;
    if (taken.empty()) {
      diags.error(selector->loc,
                  "group " + entry.name +
                      " takes no parameter: each one it matches (" +
                      nameList(matched) +
                      ") is in an earlier group (a parameter takes the first "
                      "group that matches it)");
      diags.note(earlier->loc, "the earlier group is here");
      continue;
    }
    info.paramGroups.push_back(std::move(entry));
  }
}
