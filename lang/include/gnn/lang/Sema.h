//===- Sema.h - Semantic analysis of .gnn programs --------------*- C++ -*-===//
//
// Sema resolves names across the main file and its imports, checks arity and
// named arguments of every call, and checks tensor shapes symbolically. Each
// layer and model is checked once, generically: its integer parameters are
// symbols, a graph parameter `g` brings the symbols g.src, g.dst and g.edges,
// and free names in a forward signature (`x: [N, in]`) are inferred from
// their first use. A call to a sub-layer substitutes the sub-layer's bindings
// into its signature, so shapes are checked at every call site without
// re-checking bodies. The result tables feed MLIRGen.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_SEMA_H
#define GNN_LANG_SEMA_H

#include "gnn/lang/AST.h"
#include "gnn/lang/Builtins.h"
#include "gnn/lang/Diagnostics.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gnn::lang {

/// A sub-layer member `c1 = GCNConv(cora.features, hidden)`.
struct SubLayerInfo {
  const ModuleDecl *layer = nullptr;
  /// The argument of each of the layer's parameters, in declaration order
  /// (its default value when the call left it out).
  std::vector<const Expr *> args;
  /// Integer parameters as dimensions in the enclosing module's symbols.
  std::map<std::string, Dim> dimBindings;
  /// For a list of layers `[Layer(...) for i in range(n)]`, its loop: the
  /// arguments may use the loop variable, except for sizes (the layers of a
  /// list share their shapes). Null for a single layer.
  const LoopRange *list = nullptr;
};

/// What Sema learned about one layer or model.
struct ModuleInfo {
  const ModuleDecl *decl = nullptr;
  std::vector<Type> paramTypes;
  std::map<std::string, Type> weightTypes;
  std::map<std::string, SubLayerInfo> subLayers;
  /// The forward's parameters and result, in the module's own symbols.
  std::vector<Type> forwardParamTypes;
  Type forwardResult;
  /// Free names of the forward signature (inferred per call site).
  std::set<std::string> freeSymbols;
  /// Parameters that are a dropout probability (`dropout(x, p)` in the
  /// forward, or passed on to such a parameter of a layer), with that use:
  /// their values, known only where the module is instantiated, and their
  /// defaults are checked to be in [0, 1).
  std::map<std::string, SourceLoc> dropoutParams;
  /// Where its forward first gathers by relation (`gather(p, r, rel)`),
  /// which needs pairs with relations (a kg(...) dataset).
  std::optional<SourceLoc> relationGather;
  enum class State { Unchecked, InProgress, Done } state = State::Unchecked;
};

/// A resolved call of a builtin function.
struct BuiltinCall {
  const Builtin *builtin = nullptr;
  /// One entry per builtin parameter; null where the default applies.
  std::vector<const Expr *> args;
};

/// One entry of a train block's `param_groups`, resolved against the model.
struct ParamGroupInfo {
  const CallExpr *call = nullptr; ///< the `group(...)` entry
  /// How the program names the group: a layer member (`c1`) or a pattern
  /// (`"convs*"`, with its quotes).
  std::string name;
  /// The glob over parameter names it stands for: `c1.*` for a layer, the
  /// parameter itself for a member parameter, a pattern as written.
  std::string pattern;
};

/// A checked `train` block.
struct TrainInfo {
  const TrainDecl *decl = nullptr;
  const ModuleDecl *model = nullptr;
  const DatasetDecl *dataset = nullptr;
  /// The argument of each model parameter (default when not given).
  std::vector<const Expr *> modelArgs;
  std::map<std::string, const TrainSetting *> settings;
  /// `param_groups`, in order (a parameter takes the first that matches).
  std::vector<ParamGroupInfo> paramGroups;
};

struct SemaResult {
  std::map<std::string, const ModuleDecl *> modules;
  std::map<std::string, const DatasetDecl *> datasets;
  std::map<const ModuleDecl *, ModuleInfo> moduleInfo;
  std::map<const CallExpr *, BuiltinCall> builtinCalls;
  std::vector<TrainInfo> trains;
};

/// Checks `programs` (the main file first, then its imports) and fills
/// `result`. Returns false when any error was reported.
bool runSema(const std::vector<Program *> &programs,
             const std::vector<std::string> &importAliases, SemaResult &result,
             DiagnosticEngine &diags);

} // namespace gnn::lang

#endif // GNN_LANG_SEMA_H
