//===- Prepare.h - what an emitter knows before it writes -------*- C++ -*-===//
//
// The target-independent stage of emission. For one entry point (a model's
// forward or train step, after gnnc's pipeline) it decides everything that
// does not depend on the language written:
//  - the dims of every tensor value, as C++ expressions built by each op's
//    shape rule from its operands' dims (graph sizes such as `g.numDst`, the
//    dataset's `features` and `classes`, literals), so the generated code
//    does no shape bookkeeping when it runs;
//  - the graph each graph value stands for (`g`, or a sampled block
//    `ctx.blocks[1]`);
//  - the name of every value, after the .gnn variable it holds, unique in
//    the function and distinct from the target's own identifiers;
//  - the memory plan: which values are views, which share a buffer.
// The C++ emitter (Target/Cpp) prints from a PreparedFunction; a CUDA
// emitter is meant to print from the same one.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_COMMON_PREPARE_H
#define GNN_TARGET_COMMON_PREPARE_H

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Target/Common/MemoryPlan.h"
#include "gnn/Target/Common/SymbolicDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace gnn::target {

/// The module's parameters in declaration order (the order of the
/// runtime's parameter list), and the dims of each as C++ expressions over
/// `features` and `classes` (MLIRGen's `cora.features` becomes `features`).
struct ParameterTable {
  llvm::SmallVector<ParameterOp> params;
  /// A parameter's symbol to its position in `params`.
  llvm::StringMap<unsigned> index;
  llvm::StringMap<Dims> dims;

  /// Fills the table from `module`. Fails, with an error on the parameter,
  /// on a dim that is not a polynomial in literals and dataset sizes.
  mlir::LogicalResult build(mlir::ModuleOp module);
  /// Whether some parameter's shape mentions the dataset size whose local
  /// name is `size` (rt::local::relations or nodes); the generated code
  /// binds those only where used.
  bool uses(llvm::StringRef size) const;
};

/// What a value's leading dim counts, which decides how row-wise random
/// streams (dropout's masks) are keyed.
enum class RowSpace {
  Nodes,  ///< rows are nodes (a graph's sources or destinations)
  Edges,  ///< rows are edges
  Graphs, ///< rows are the graphs of a batch (a readout's destinations)
  Other, ///< anything else (a parameter, a scalar, a class axis...)
};

/// One entry point, ready to print. Built by `prepare`; read-only after.
class PreparedFunction {
public:
  /// Prepares `func`. `training` says whether it is a train step (dropout
  /// draws masks) or an evaluation forward (dropout is a view of its
  /// input). `reservedNames` are identifiers the target's code uses itself;
  /// no value gets one. Fails with an error on the first op the stage
  /// cannot handle (no shape rule, several results, a heterogeneous
  /// relation).
  static mlir::FailureOr<PreparedFunction>
  prepare(mlir::func::FuncOp func, bool training, const ParameterTable &params,
          const llvm::StringSet<> &reservedNames);

  mlir::func::FuncOp getFunc() const { return func; }
  mlir::Block &getBody() const {
    // Op handles are not const-correct in MLIR 16: copy the handle.
    mlir::func::FuncOp f = func;
    return f.getBody().front();
  }
  /// A train step, as opposed to an evaluation forward.
  bool isTraining() const { return training; }
  /// Whether the function runs on sampled blocks (gnn-sample-blocks).
  bool isSampled() const {
    mlir::func::FuncOp f = func;
    return f->hasAttr("gnn.blocks");
  }

  /// The identifier of a tensor value (a result or the features argument).
  llvm::StringRef name(mlir::Value v) const { return stored(names, v); }
  /// The C++ expression of a graph value.
  llvm::StringRef graph(mlir::Value g) const { return stored(graphs, g); }
  /// The dims of a tensor value.
  const Dims &dims(mlir::Value v) const;
  /// The dims after the leading (row) dim.
  Dims features(mlir::Value v) const;
  /// The product of the feature dims: a row's elements.
  std::string width(mlir::Value v) const { return product(features(v)); }
  /// The product of all dims.
  std::string numel(mlir::Value v) const { return product(dims(v)); }
  /// What the leading dim of `v` counts.
  RowSpace rowSpace(mlir::Value v) const;

  /// How `v` is materialized, and for a Slot value, its slot.
  Storage storage(mlir::Value v) const { return plan->storage(v); }
  int slot(mlir::Value v) const { return plan->slot(v); }
  /// The value `v` aliases through its views (itself if not a View).
  mlir::Value root(mlir::Value v) const { return plan->root(v); }
  /// A Kept value's key: a hash of what computes it (its op, attributes,
  /// types and regions, and its operands' keys; not its location). A
  /// program's forward and train step compute some of the same values: the
  /// same key shares one kept buffer.
  uint64_t keptKey(mlir::Value v) const { return kept.lookup(v); }
  /// The ops gnn-hoist-invariants marked, in program order: the section
  /// computed only when the inputs are new.
  llvm::ArrayRef<mlir::Operation *> invariantOps() const { return invariant; }
  /// The value a View result reads through: its op's input (for gnn.dst,
  /// the sources it takes the leading rows of).
  mlir::Value viewOf(mlir::Value v) const;
  /// The element count of every Slot value, in program order: what one
  /// buffer per value would take, which the plan is measured against.
  llvm::ArrayRef<std::string> bufferedElements() const { return buffered; }

  /// A forward's returned value's columns per node (the logits' width).
  llvm::StringRef outputWidth() const { return returnedWidth; }
  /// Whether the code reads the whole graph's edge ids (dropout on edges).
  bool readsEdgeIds() const { return edgeIds; }

private:
  PreparedFunction(mlir::func::FuncOp func, bool training)
      : func(func), training(training) {}

  // Shape rules (ShapeRules.cpp).
  mlir::LogicalResult computeDims(mlir::Operation *op,
                                  const ParameterTable &params);
  std::string numNodes(mlir::Value graph, EdgeSide side) const;

  Storage storageOf(mlir::Value v) const;
  /// Whether an op outside the invariant section reads `v` (directly or
  /// through views).
  static bool readAfterInvariants(mlir::Value v);
  /// The string `map` holds for `v` (empty if none), as a reference into
  /// the map: DenseMap::lookup returns a copy, which a StringRef would
  /// outlive.
  static llvm::StringRef
  stored(const llvm::DenseMap<mlir::Value, std::string> &map, mlir::Value v) {
    auto it = map.find(v);
    return it == map.end() ? llvm::StringRef() : llvm::StringRef(it->second);
  }
  void nameResult(mlir::Value res, mlir::Location loc,
                  llvm::StringSet<> &usedNames);

  mlir::func::FuncOp func;
  bool training;
  llvm::DenseMap<mlir::Value, std::string> names;
  llvm::DenseMap<mlir::Value, std::string> graphs;
  llvm::DenseMap<mlir::Value, Dims> dimsOf;
  std::optional<MemoryPlan> plan;
  llvm::DenseMap<mlir::Value, uint64_t> kept;
  llvm::SmallVector<mlir::Operation *> invariant;
  llvm::SmallVector<std::string> buffered;
  std::string returnedWidth;
  bool edgeIds = false;
};

} // namespace gnn::target

#endif // GNN_TARGET_COMMON_PREPARE_H
