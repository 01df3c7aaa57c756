//===- SemaImpl.h - Sema's internal state -----------------------*- C++ -*-===//
//
// Shared by Sema.cpp (declarations, modules, train blocks) and SemaExpr.cpp
// (expressions, builtin calls, shapes). Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_SEMAIMPL_H
#define GNN_LANG_SEMAIMPL_H

#include "gnn/lang/Sema.h"

namespace gnn::lang {

/// A number written as a literal (negated or not), or none (SemaTrain.cpp).
std::optional<double> literalNumber(const Expr *e);

/// Symbols of a forward signature that are inferred from use: a free name is
/// bound to the first dimension it is unified with.
class Unifier {
public:
  void addFlexible(const std::string &name) { flexible.insert(name); }
  bool isFlexible(const std::string &name) const {
    return flexible.count(name);
  }
  Dim resolve(const Dim &dim) const;
  Type resolve(const Type &type) const;
  /// Makes `a` and `b` equal by binding a free symbol, or returns false.
  bool unify(const Dim &a, const Dim &b);

private:
  std::set<std::string> flexible;
  std::map<std::string, Dim> bound;
};

/// The names visible inside one module (and its forward, when checking it).
struct Scope {
  ModuleInfo *module = nullptr;
  bool inForward = false;
  /// True while resolving a forward signature: unknown dimension names
  /// become free symbols instead of errors.
  bool inSignature = false;
  std::map<std::string, Type> locals;
  std::map<std::string, SourceLoc> localLocs;
  Unifier unifier;
  std::vector<Expr *> typedExprs;
  /// Names of graph values in scope (for dst(x)).
  std::vector<std::string> graphs;
  unsigned freshCounter = 0;
  /// The variables of the for loops being checked, innermost last.
  std::set<std::string> loopVariables;
  unsigned loopDepth = 0;
};

class Sema {
public:
  Sema(SemaResult &result, DiagnosticEngine &diags,
       const std::vector<std::string> &importAliases)
      : result(result), diags(diags), importAliases(importAliases) {}

  void run(const std::vector<Program *> &programs);

  // Declarations (Sema.cpp).
  void declareGlobals(const std::vector<Program *> &programs);
  void checkDataset(const DatasetDecl &decl);
  /// A dataset source's counts (nodes, edges, embed, ...) in range.
  void checkDatasetCounts(const CallExpr *call, const Builtin &builtin);
  ModuleInfo &checkModule(const ModuleDecl &decl);
  void checkForward(ModuleInfo &info, Scope &scope);
  /// A forward's statements; `returned` is set by a top-level return.
  void checkStatements(const std::vector<Stmt> &body, ModuleInfo &info,
                       Scope &scope, const std::optional<Type> &declared,
                       bool &returned);

  // Compile-time repetition (SemaLoops.cpp).
  /// A forward `for`: its body is checked once, with the loop variable a
  /// symbol, so it holds for every iteration; the variables it reassigns
  /// must keep their shapes.
  void checkFor(const Stmt &loop, ModuleInfo &info, Scope &scope,
                const std::optional<Type> &declared);
  /// The bounds of `range(...)`: integers known at compile time. Declares
  /// nothing; returns false after reporting.
  bool checkLoopRange(const LoopRange &range, Scope &scope);
  /// Reports a loop variable that would hide a name of the module or scope.
  bool checkLoopVariable(const LoopRange &range, Scope &scope);
  /// A member `convs = [Layer(...) for i in range(n)]`.
  void checkLayerList(const SubLayerDecl &decl, const ComprehensionExpr &list,
                      ModuleInfo &info, Scope &scope);
  /// A call `convs[i](...)` of one layer of a list.
  Type checkLayerListCall(CallExpr *expr, IndexExpr *callee,
                          const std::string &member, Scope &scope);
  void checkTrain(const TrainDecl &decl);
  void checkTrainSetting(const TrainSetting &setting, TrainInfo &info);
  void checkGraphLevel(const TrainInfo &info);
  void checkLinkPrediction(const TrainInfo &info);
  void checkKnowledgeGraph(const TrainInfo &info, bool links,
                           const TrainSetting *linkSplit);
  void checkSampler(const CallExpr *call);
  void checkOffloadSettings(const TrainInfo &info);
  void checkScheduleSettings(const TrainInfo &info);
  /// `param_groups = [group(...), ...]` (SemaParamGroups.cpp): each group
  /// names a layer of the model or matches some of its parameters, takes
  /// parameters no earlier group took, and sets valid values.
  void checkParamGroups(const TrainSetting &setting, TrainInfo &info);
  /// The dotted names of `module`'s parameters under `prefix`, in
  /// declaration order (as the trainer's ParamInfo names them); `ints` are
  /// the values of its integer parameters that are known (lists' lengths).
  void collectParameterNames(const ModuleDecl &module,
                             const std::string &prefix,
                             const std::map<std::string, int64_t> &ints,
                             std::vector<std::string> &names);
  Type resolveTypeRef(const TypeRef &ref, Scope &scope);
  Type scalarTypeNamed(const std::string &name, SourceLoc loc);
  /// Whether a value of type `actual` may bind a parameter of type `expected`.
  static bool isAssignable(const Type &expected, const Type &actual);
  /// Binds call arguments to parameter names; reports arity errors.
  /// Returns false when binding failed. `bound` gets one slot per param.
  bool bindArgs(const std::string &callee, SourceLoc loc,
                const std::vector<std::string> &paramNames,
                const std::vector<bool> &required, const std::vector<Arg> &args,
                std::vector<const Expr *> &bound);
  /// The same for a layer's, model's or forward's own parameters (required
  /// when they have no default).
  bool bindArgs(const std::string &callee, SourceLoc loc,
                const std::vector<FormalParam> &params,
                const std::vector<Arg> &args, std::vector<const Expr *> &bound);
  void checkSubLayer(const SubLayerDecl &decl, ModuleInfo &info, Scope &scope);
  /// One layer instance `Layer(args)` named `name`; null after reporting.
  std::optional<SubLayerInfo> checkLayerInstance(const Expr *value,
                                                 const std::string &name,
                                                 SourceLoc loc, Scope &scope);
  /// Reports (at `loc`) a parameter of `layer` sized by a quotient of its
  /// arguments that do not divide (`in / blocks` with 18 and 4).
  bool checkQuotientDims(const ModuleDecl &layer, const ModuleInfo &callee,
                         const SubLayerInfo &sub, SourceLoc loc);
  /// A dropout probability `value` (of type `type`) bound to a parameter
  /// used as one at `use`: reports a constant outside [0, 1) at `value`, and
  /// records a parameter of the enclosing module as one in turn.
  void checkDropoutArgument(const Expr *value, const Type &type, SourceLoc use,
                            Scope &scope);

  // Expressions (SemaExpr.cpp).
  Type checkExpr(Expr *expr, Scope &scope);
  Type checkName(NameExpr *expr, Scope &scope);
  Type checkMember(MemberExpr *expr, Scope &scope);
  Type checkCall(CallExpr *expr, Scope &scope);
  Type checkBinary(BinaryExpr *expr, Scope &scope);
  Type checkBuiltinCall(CallExpr *expr, const Builtin &builtin, Scope &scope);
  /// The result type of a forward builtin whose arguments have been bound
  /// and kind-checked (SemaBuiltins.cpp: one rule per BuiltinOp).
  Type builtinResultType(CallExpr *expr, const Builtin &builtin,
                         BuiltinCall &call, const std::vector<Type> &types,
                         Scope &scope);
  Type checkLayerCall(CallExpr *expr, const std::string &member, Scope &scope);
  /// Outside a forward, `log(x)` (and the other one-argument maths of
  /// foldScalarBuiltin) of a number is a number computed at compile time, as
  /// a layer's argument `log(lambda / (i + 1) + 1)`; null where it does not
  /// apply (the builtin's own rule then does).
  std::optional<Type> checkScalarMath(CallExpr *expr, const Builtin &builtin,
                                      Scope &scope);
  /// Evaluates a dimension expression (`in`, `heads * out`, `g.dst`).
  std::optional<Dim> resolveDim(Expr *expr, Scope &scope);
  Type broadcast(const Type &a, const Type &b, SourceLoc loc, const char *what,
                 Scope &scope);
  bool expectSymbol(const Expr *expr, SymbolCategory category,
                    const char *paramName, const char *callee, Scope &scope);
  void unifyOrError(const Dim &actual, const Dim &expected, SourceLoc loc,
                    const std::string &what, Scope &scope);
  std::string show(const Type &type, Scope &scope) {
    return scope.unifier.resolve(type).str();
  }
  std::string show(const Dim &dim, Scope &scope) {
    return scope.unifier.resolve(dim).str();
  }
  /// Resolves a callee that names a layer or model (plain or `nn.Name`).
  const ModuleDecl *lookupModuleName(const Expr *callee);
  void noteDefinition(const ModuleDecl *decl);
  std::vector<std::string> visibleNames(Scope &scope);

  SemaResult &result;
  DiagnosticEngine &diags;
  const std::vector<std::string> &importAliases;
};

} // namespace gnn::lang

#endif // GNN_LANG_SEMAIMPL_H
