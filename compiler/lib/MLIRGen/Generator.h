//===- Generator.h - The AST-to-gnn generator's state ------------*- C++
//-*-===//
//
// Private to GNNMLIRGen: the Generator (MLIRGen.cpp) and the lowering of the
// forward builtins (BuiltinLowering.cpp) share it.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LIB_MLIRGEN_GENERATOR_H
#define GNN_LIB_MLIRGEN_GENERATOR_H

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/lang/Frontend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gnn::mlirgen::detail {
using namespace gnn::lang;
using mlir::Location;
using mlir::Value;
} // namespace gnn::mlirgen::detail

namespace gnn::mlirgen::detail {

/// The bindings under which one layer or model body is emitted.
struct Env {
  const ModuleInfo *module = nullptr;
  const Env *parent = nullptr;
  /// Symbol prefix of this instance's parameters: `GCN.c1`.
  std::string prefix;
  /// Integer parameters as dimensions in global terms (constants or
  /// dataset symbols).
  std::map<std::string, Dim> dims;
  /// Argument expressions of the module's parameters, evaluated in `parent`.
  std::map<std::string, const Expr *> args;
  /// SSA values of the forward's parameters and locals.
  std::map<std::string, Value> values;
  /// Call site of an inlined body, for locations.
  std::optional<Location> callSite;
};

class Generator {
public:
  Generator(mlir::MLIRContext &context, Compilation &compilation)
      : context(context), compilation(compilation), sema(compilation.sema()),
        builder(&context) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  /// Emits `@<name>.forward` for `model` with the given parameter arguments.
  /// `train` (may be null) is attached as the `#gnn.train` attribute.
  /// Link prediction: the forward's scores s ([pairs] or [pairs, 1])
  /// become the logits [0, s] of each pair, whose cross-entropy over labels
  /// 1 and 0 is the binary cross-entropy of s (the trainer reads s back as
  /// their difference).
  void emitPairLogits(mlir::func::FuncOp forward);
  mlir::func::FuncOp emitModel(const ModuleDecl &model,
                               const std::vector<const Expr *> &args,
                               const std::string &name);
  Value emitForwardBody(Env &env);
  /// Emits `body` under `env`; true when it reached a `return` (whose value,
  /// null on failure, is `result`) or failed.
  bool emitStatements(const std::vector<Stmt> &body, Env &env, Value &result);
  /// Unrolls `for VAR in range(...)`: the body once per value of VAR, bound
  /// as a constant dimension. False on failure.
  bool emitLoop(const Stmt &loop, Env &env);
  Value emitExpr(const Expr *expr, Env &env);
  Value emitCall(const CallExpr *call, Env &env);
  /// A forward builtin's call as its gnn op (BuiltinLowering.cpp): one
  /// method per family of BuiltinOps.def.
  Value emitBuiltin(const CallExpr *call, const BuiltinCall &info, Env &env);
  Value emitGraphBuiltin(const CallExpr *call, const BuiltinCall &info,
                         mlir::Type type, Env &env);
  Value emitElementwiseBuiltin(const CallExpr *call, const BuiltinCall &info,
                               mlir::Type type, Env &env);
  Value emitAxisBuiltin(const CallExpr *call, const BuiltinCall &info,
                        mlir::Type type, Env &env);
  Value emitStructuralBuiltin(const CallExpr *call, const BuiltinCall &info,
                              mlir::Type type, Env &env);
  /// The located error for a builtin its family's lowering has no case for.
  Value noLowering(const CallExpr *call, const BuiltinCall &info);
  /// The reduction a builtin's argument `arg` names (sum when absent).
  gnn::ReduceKindAttr reduceKind(const Expr *arg, Env &env);
  /// Inlines a call of sub-layer `member`, or of layer `element` of the list
  /// `member`.
  Value emitLayerCall(const CallExpr *call, const std::string &member,
                      Env &env, std::optional<int64_t> element = std::nullopt);
  Value emitWeight(const std::string &name, const Expr *use, Env &env);
  /// Declares a module parameter (before the functions, in order); a
  /// `buffer` is a running statistic rather than a weight.
  void declareParameter(const std::string &symbol, mlir::RankedTensorType type,
                        gnn::InitKind init, llvm::ArrayRef<double> initArgs,
                        llvm::ArrayRef<mlir::Attribute> dims,
                        mlir::Location where, bool buffer);
  /// A running statistic of the batch_norm `call` in this layer instance
  /// (declared on first use): `<instance>.<name>`, shaped like a row of
  /// `of`.
  Value emitRunningStatistic(const std::string &name, gnn::InitKind init,
                             const Expr *of, const CallExpr *call, Env &env);
  Value scalar(double value, Location loc);
  /// A tensor operand: scalars (int or float values) become constants.
  Value operand(const Expr *expr, Env &env);

  Location loc(SourceLoc l, const Env &env);
  mlir::RankedTensorType tensorType(const Type &type, const Env &env);
  Dim globalDim(const Dim &dim, const Env &env);
  double evalFloat(const Expr *expr, const Env &env);
  int64_t evalInt(const Expr *expr, const Env &env);
  std::string evalSymbol(const Expr *expr, const Env &env);
  /// Evaluates an argument-bound name: the expression bound to a parameter.
  std::pair<const Expr *, const Env *> resolveParam(const std::string &name,
                                                    const Env &env);

  void fail(SourceLoc l, const std::string &message) {
    if (!failed)
      compilation.diagnostics().error(l, "cannot lower to MLIR: " + message +
                                             iterationContext());
    failed = true;
  }
  /// An error after which the IR is still well formed: generation goes on
  /// (its values are valid) and its result is dropped at the end.
  void reportError(SourceLoc l, const std::string &message) {
    compilation.diagnostics().error(l, "cannot lower to MLIR: " + message +
                                           iterationContext());
    hasErrors = true;
  }
  /// " (in iteration i = 3)" while unrolling loops, so that an error in a
  /// body names the iteration it is about.
  std::string iterationContext() const {
    std::string text;
    for (const auto &[var, value] : iterations)
      text += (text.empty() ? "" : ", ") + var + " = " + std::to_string(value);
    return text.empty() ? text : " (in iteration " + text + ")";
  }

  mlir::MLIRContext &context;
  Compilation &compilation;
  const SemaResult &sema;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  std::set<std::string> declaredParameters;
  /// Each dropout draws its masks from its own random stream.
  int64_t nextDropoutStream = 0;
  /// batch_norm calls with running statistics: which of an instance's
  /// statistics of one name each call's are, and how many each name has.
  std::map<std::pair<std::string, const CallExpr *>, int64_t>
      runningStatisticCalls;
  std::map<std::string, int64_t> runningStatisticCount;
  /// The loops being unrolled, outermost first: variable and value.
  std::vector<std::pair<std::string, int64_t>> iterations;
  bool failed = false, hasErrors = false;
};

} // namespace gnn::mlirgen::detail

#endif // GNN_LIB_MLIRGEN_GENERATOR_H
