//===- Builtins.h - The language's builtin functions and names --*- C++ -*-===//
//
// One table describes every builtin function: its parameters (names, kinds,
// defaults) and the rule that computes its result type from its arguments.
// Sema checks calls against it and MLIRGen reads the bound arguments, so a
// builtin's signature is written once. Builtin names used as plain values
// (sum, mean, src, glorot, valid, full_graph...) are listed by category.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_BUILTINS_H
#define GNN_LANG_BUILTINS_H

#include "gnn/lang/Type.h"

#include <optional>
#include <string>
#include <vector>

namespace gnn::lang {

/// What a builtin parameter accepts.
enum class ParamKind {
  Graph,
  Tensor, ///< A tensor, or an int/float scalar (rank 0).
  TensorList,
  Int,
  Float, ///< A float or int.
  Bool,
  String,
  DimList, ///< A list of dimension expressions (reshape).
  Reduce,  ///< sum | mean | max | min
  Side,    ///< src | dst
  /// A list of `relation("name", [f0, f1, ...])` entries (neighbor's
  /// relation_fanout), checked by the sampler's own rule.
  RelationFanouts,
  Metric, ///< valid_loss | valid_acc (early stopping's)
  /// A layer member of the model or a "glob" over its parameter names
  /// (group's first argument), checked by Sema::checkParamGroups.
  ParamSelector,
  Any,
};

struct BuiltinParam {
  const char *name;
  ParamKind kind;
  bool required;
};

/// Where a builtin may be called.
enum class BuiltinContext { Forward, Initializer, DatasetSource, TrainSetting };

/// The builtins a forward calls, each lowered to a gnn op (BuiltinOps.def).
enum class BuiltinOp {
  None, ///< not a forward builtin (an initializer, a dataset source, ...)
#define GNN_BUILTIN_OP(ID, NAME, FAMILY) ID,
#include "gnn/lang/BuiltinOps.def"
};

/// The groups of BuiltinOps.def, one rule file and one lowering file each.
enum class BuiltinFamily { None, Graph, Elementwise, Axis, Structural };

/// The name programs call `op` by, and its family.
const char *builtinOpName(BuiltinOp op);
/// A one-argument elementwise builtin applied to a number known at compile
/// time (relu, sigmoid, tanh, exp, log, sqrt, rsqrt, abs); null for the
/// others.
std::optional<double> foldScalarBuiltin(BuiltinOp op, double x);
bool isScalarFoldable(BuiltinOp op);
BuiltinFamily builtinFamily(BuiltinOp op);

struct Builtin {
  const char *name;
  BuiltinContext context;
  std::vector<BuiltinParam> params;
  const char *summary;
  /// What a Forward builtin lowers to; None for the other contexts.
  BuiltinOp op = BuiltinOp::None;
};

/// Every builtin function, in one table.
const std::vector<Builtin> &builtins();
/// The builtin callable as `name` in `context`, or null.
const Builtin *lookupBuiltin(const std::string &name, BuiltinContext context);

/// Symbol categories for names that stand for themselves.
enum class SymbolCategory {
  Reduce,      ///< sum mean max min
  Side,        ///< src dst
  Initializer, ///< zeros ones glorot kaiming
  Split,       ///< train valid test
  Balance,     ///< nodes edges train
  Batches,     ///< full_graph
  Loss,        ///< cross_entropy
  Aggregation, ///< one_shot sequential sequential_remat
  Generator,   ///< sbm rmat
  Metric,      ///< valid_loss valid_acc
};
/// The names of one category, in the order messages list them.
const std::vector<std::string> &builtinSymbols(SymbolCategory category);
/// The keys a `train` block accepts (partition, batches, loss, ...).

/// What a train setting's value is: TrainSettings.def's KIND, which says
/// how Sema checks it.
enum class TrainValueKind {
  PositiveInteger,
  Count,     ///< a non-negative integer
  Seconds,   ///< a non-negative number
  File,      ///< a string; takes `every N epochs`
  Directory, ///< a non-empty string
  ByteSize,  ///< a size string, "1G"
  Symbol,    ///< one of `choices`, a bare name
  Call,      ///< a call or a bare name of one of `choices`
  Optimizer, ///< one of the optimizers, called or bare
  Splits,    ///< a split or a list of splits; takes `every N epochs`
  Batches,   ///< full_graph, or a call of one of `choices`' samplers
  /// A list of calls of `choices`' one function (`group(...)`), checked
  /// against the model's parameters (Sema::checkParamGroups).
  ParamGroups,
};

/// One key of a train block (gnnrt/train/TrainSettings.def).
struct TrainSettingInfo {
  std::string key;
  TrainValueKind kind;
  /// The names a Symbol, Call, Optimizer or Batches value takes.
  std::vector<std::string> choices;
  /// The error for a bad value (a list of choices is appended).
  std::string expected;
};

/// An optimizer `optimizer = NAME(...)` names: its hyperparameters in
/// positional order and the weight decay it defaults to.
struct TrainOptimizerInfo {
  std::string name;
  std::vector<std::string> hyperparameters;
  double weightDecay;
  std::string summary;
};

/// Every train setting, in TrainSettings.def's order.
const std::vector<TrainSettingInfo> &trainSettings();
const TrainSettingInfo *lookupTrainSetting(const std::string &key);
const std::vector<TrainOptimizerInfo> &trainOptimizers();
/// The keys of trainSettings(), in the same order.
const std::vector<std::string> &trainSettingKeys();
/// gather's third side, `gather(p, r, rel)`: each pair's relation (a
/// knowledge graph's pairs), reading rows of a per-relation table.
inline constexpr const char *kRelationSide = "rel";
/// True when `name` is a builtin symbol of `category`.
bool isBuiltinSymbol(const std::string &name, SymbolCategory category);
/// The names of one category, for "expected one of" messages.
std::string builtinSymbolList(SymbolCategory category);
/// "a, b or c".
std::string alternativesList(const std::vector<std::string> &names);

/// Edit distance for "did you mean" suggestions.
unsigned editDistance(const std::string &a, const std::string &b);
/// The closest candidate within a small distance, or empty.
std::string closestMatch(const std::string &name,
                         const std::vector<std::string> &candidates);
/// `message` followed by "; did you mean 'x'?" when a candidate is close.
std::string withSuggestion(std::string message, const std::string &name,
                           const std::vector<std::string> &candidates);

} // namespace gnn::lang

#endif // GNN_LANG_BUILTINS_H
