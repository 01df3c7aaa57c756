//===- FunctionEmitter.h - one entry point as a C++ template ----*- C++ -*-===//
//
// Internal to the C++ target. A FunctionEmitter prints one prepared entry
// point (Target/Common/Prepare.h): the function skeleton, the declaration
// of each value's buffer, and then, per op, the code its family's emitter
// writes. Families live one per file, each with an IR-to-C++ example in its
// opening comment:
//   EmitFunction.cpp    the skeleton, buffers and views, parameters and
//                       constants, the op dispatch
//   EmitElementwise.cpp elementwise ops, alone or fused into gnn.map
//   LoopNest.cpp        the OpenMP loop nests elementwise code runs in
//   EmitEdges.cpp       gather, scatter, edge softmax and gnn.edge_map
//   EmitMatmul.cpp      gnn.matmul and gnn.matmul_map (GEMM + epilogue)
//   EmitGraph.cpp       aggregations, degrees, halo exchanges
//   EmitTensor.cpp      axis ops, concat/slice/unbroadcast, dropout, loss
// A family emitter is called after the op's result buffers are declared
// and writes the code that fills them.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CPP_FUNCTIONEMITTER_H
#define GNN_TARGET_CPP_FUNCTIONEMITTER_H

#include "gnn/Dialect/GNN/GNNVisitor.h"
#include "gnn/Target/Common/Prepare.h"
#include "gnn/Target/Common/RuntimeNames.h"

#include "Unit/EmitSettings.h"
#include "SharedLoops.h"

#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/StringExtras.h"

#include <string>

namespace gnn::cpp {

using target::Dims;
using target::product;

/// An operand of a loop nest: its buffer and dims, and the C++ expression
/// of the row it is read at (empty: numpy broadcasting over all dims, rows
/// included).
struct LoopOperand {
  std::string buffer;
  Dims dims;
  std::string row;
};

/// How a loop nest iterates over its output's rows. The feature dims are
/// always inner loops from 0.
struct LoopNest {
  /// The rows `[rowBegin, rowEnd)` (loop variable `i0`).
  std::string rowBegin = "0", rowEnd;
  /// An OpenMP parallel loop over rows (else the caller's thread runs it).
  bool parallel = true;
  /// Statements at the start and end of each row iteration.
  std::string rowPrologue, rowEpilogue;
  /// An inner loop between the row and the feature loops (the in-edges of
  /// a destination row): its opening and closing text.
  std::string innerOpen, innerClose;
};

/// Prints entry points for the CPU. A target that runs elsewhere (the CUDA
/// emitter, Target/Cuda) derives from it and overrides the hooks below:
/// everything else -- declarations, the op dispatch, the kernel-call
/// families -- is the same text with its own kernel names.
class FunctionEmitter
    : public GNNVisitor<FunctionEmitter, mlir::LogicalResult> {
public:
  FunctionEmitter(const target::PreparedFunction &fn,
                  const target::ParameterTable &params,
                  mlir::raw_indented_ostream &os)
      : fn(fn), params(params), os(os) {}
  virtual ~FunctionEmitter() = default;

  /// Writes `template <typename T> ... cppName(ExecContext<T> &ctx)`.
  mlir::LogicalResult emit(llvm::StringRef cppName);

  /// The identifiers the generated functions use themselves (locals, loop
  /// variables, temporaries, C++ keywords a .gnn variable could be called),
  /// which the prepare stage must give no value.
  static const llvm::StringSet<> &reservedNames();

  /// The program's first aggregation reads the input rows in place when
  /// the trainer passes them (CompiledProgram::inputRowsInPlace).
  void readInputRowsInPlace() { inputRowsInPlace = true; }
  bool readsInputRowsInPlace() const { return inputRowsInPlace; }

  /// Loop nests go through `shared` (SharedLoops.h): counted on the unit's
  /// first run, shared on its second. Without it every nest is inline.
  void shareLoopNests(SharedLoopNests &shared) { sharedLoops = &shared; }

  //===--------------------------------------------------------------------===//
  // For the family emitters
  //===--------------------------------------------------------------------===//

  const target::PreparedFunction &fn;
  const target::ParameterTable &params;
  mlir::raw_indented_ostream &os;

  std::string name(mlir::Value v) const { return fn.name(v).str(); }
  const Dims &dims(mlir::Value v) const { return fn.dims(v); }
  Dims features(mlir::Value v) const { return fn.features(v); }
  std::string width(mlir::Value v) const { return fn.width(v); }
  std::string numel(mlir::Value v) const { return fn.numel(v); }
  std::string graph(mlir::Value g) const { return fn.graph(g).str(); }
  /// A nullable pointer argument: the value's buffer or `nullptr`.
  std::string ptrOrNull(mlir::Value v) const { return v ? name(v) : "nullptr"; }
  /// A graph size, `g.numDst`.
  std::string member(mlir::Value g, llvm::StringRef member) const {
    return graph(g) + "." + member.str();
  }

  /// Writes a loop nest over `out` (LoopNest.cpp). In `body`, `$k` stands
  /// for operand k's element and `@` for the output element's flat index.
  void emitLoop(const Dims &out, llvm::ArrayRef<LoopOperand> operands,
                llvm::StringRef body, const LoopNest &loop);
  /// Writes a whole loop nest's text: inline, or as a call of the shared
  /// function of its kind.
  void writeLoopNest(llvm::StringRef text);

  //===--------------------------------------------------------------------===//
  // Target hooks: what the CPU writes, overridden by other targets
  //===--------------------------------------------------------------------===//

  /// How this target calls the runtime kernel `name` (RuntimeNames.h spells
  /// the CPU's, `kernels::gemm`).
  virtual std::string kernelName(llvm::StringRef name) const {
    return name.str();
  }
  /// `<kernel><T>(args...)`: a kernel call as an expression.
  std::string kernelCall(llvm::StringRef kernel,
                         llvm::ArrayRef<std::string> args) const {
    return kernelName(kernel) + "<T>(" + llvm::join(args, ", ") + ")";
  }
  /// The same call as a statement, with its newline.
  std::string kernelStmt(llvm::StringRef kernel,
                         llvm::ArrayRef<std::string> args) const {
    return kernelCall(kernel, args) + ";\n";
  }
  /// A statement copying `count` elements from `from` to `to`.
  virtual std::string copyStmt(const std::string &from,
                               const std::string &count,
                               const std::string &to) const;
  /// The context member holding the rank's halo exchange, null in a
  /// single process (`ctx.halo`; the CUDA target's works on device rows).
  virtual llvm::StringRef haloExchange() const;
  /// The context member holding the exchange of link prediction's pairs
  /// (`ctx.pairHalo`; the CUDA target's works on device rows).
  virtual llvm::StringRef pairHaloExchange() const;
  /// A statement setting elements [begin, end) of `buffer` to 0.
  virtual std::string zeroStmt(const std::string &buffer,
                               const std::string &begin,
                               const std::string &end) const;
  /// The statements declaring `id`, the view of relation `relation` (an id
  /// expression) of `graph`: the CPU's relationView, whose storage local
  /// `<id>_storage` holds it when the graph keeps no relation index.
  virtual std::string relationGraphStmt(const std::string &id,
                                        const std::string &graph,
                                        const std::string &relation) const;

protected:
  /// The first line of the body: the local `ws` for the memory plan.
  virtual void emitWorkspaceBinding();
  /// After the locals (`g`, `x`, the dataset sizes) are bound.
  virtual void emitAfterBindings() {}
  /// The buffer of a Slot value: `ws.get(slot, elements)`.
  virtual std::string slotBuffer(mlir::Value v);
  /// `grad[i] += g[i]` over `g`'s elements (param_grad, input_grad), where
  /// the local `grad` points at the destination.
  virtual void emitAccumulate(mlir::Value g);
  /// Elementwise ops alone and gnn.map, gnn.edge_map, gnn.matmul_map.
  virtual mlir::LogicalResult emitElementwise(mlir::Operation *op);
  virtual mlir::LogicalResult emitEdgeMap(EdgeMapOp op);
  virtual mlir::LogicalResult emitMatmulMap(MatmulMapOp op);
  /// The forward's copy of the logits to ctx.output; the train step's
  /// return of the loss.
  virtual void emitReturn(mlir::func::ReturnOp ret);
  /// The ops gnn-hoist-invariants marked, run only for new inputs, their
  /// read values kept across calls.
  virtual mlir::LogicalResult emitInvariantSection();

  friend class GNNVisitor<FunctionEmitter, mlir::LogicalResult>;
  /// The families of GNNVisitor.h (EmitFunction.cpp): the storage ops
  /// here, every other family in its file.
  mlir::LogicalResult visitStorageOp(ParamOp op);
  mlir::LogicalResult visitStorageOp(InputGradOp op);
  mlir::LogicalResult visitStorageOp(ParamGradOp op);
  mlir::LogicalResult visitStorageOp(ConstantOp op);
  mlir::LogicalResult visitElementwiseOp(mlir::Operation *op);
  mlir::LogicalResult visitEdgeOp(mlir::Operation *op);
  mlir::LogicalResult visitMatmulOp(mlir::Operation *op);
  mlir::LogicalResult visitGraphOp(mlir::Operation *op);
  mlir::LogicalResult visitTensorOp(mlir::Operation *op);
  /// Graphs and views are declared, not computed: one reaching the dispatch
  /// is an error, as is an op of another dialect.
  mlir::LogicalResult visitStructureOp(mlir::Operation *op);
  mlir::LogicalResult visitInvalidOp(mlir::Operation *op);

private:
  mlir::LogicalResult emitOp(mlir::Operation *op);

  bool inputRowsInPlace = false;
  SharedLoopNests *sharedLoops = nullptr;
};

//===----------------------------------------------------------------------===//
// Code fragments
//===----------------------------------------------------------------------===//

/// Operand `o`'s element index in a loop nest over `out` (loop variables
/// `i0`, `i1`, ...): its row times its row width plus the numpy index of its
/// feature dims; dims stretched from 1 contribute nothing, and an operand
/// without a row expression broadcasts over all dims, rows included.
std::string loopOperandIndex(const LoopOperand &o, const Dims &out);

/// The C++ expression of an elementwise op over its operands' elements `$0`,
/// `$1`, ...; "" if `op` is not elementwise (EmitElementwise.cpp).
std::string elementwiseExpression(mlir::Operation *op);

/// The per-element code of a fused op's region (EmitElementwise.cpp): each
/// block argument k is loaded once as `const T ak = $k;` (before any result
/// is written: a matmul_map overwrites its accumulator in place), then one
/// `const T vN = ...;` per op. Sets `yielded` to the yielded values' names.
std::string fusedBodyCode(mlir::Operation *op,
                          llvm::SmallVectorImpl<std::string> &yielded);

//===----------------------------------------------------------------------===//
// The op families: each writes the computation of one op of its family into
// the result buffers already declared, or fails with an error on the op.
//===----------------------------------------------------------------------===//

mlir::LogicalResult emitElementwiseOp(FunctionEmitter &e, mlir::Operation *op);
/// gather, scatter and edge softmax (gnn.edge_map: emitEdgeMapLoop).
mlir::LogicalResult emitEdgeOp(FunctionEmitter &e, mlir::Operation *op);
/// gnn.matmul (gnn.matmul_map: emitMatmulMapLoop).
mlir::LogicalResult emitMatmulOp(FunctionEmitter &e, mlir::Operation *op);
/// The CPU's fused loops of gnn.edge_map and gnn.matmul_map.
mlir::LogicalResult emitEdgeMapLoop(FunctionEmitter &e, EdgeMapOp op);
mlir::LogicalResult emitMatmulMapLoop(FunctionEmitter &e, MatmulMapOp op);
/// The GEMM's leading arguments of a matmul or matmul_map: transposes, the
/// result's dims, the inner dim, and the operands.
llvm::SmallVector<std::string> gemmArgs(FunctionEmitter &e, mlir::Operation *op,
                                        const Dims &out);
mlir::LogicalResult emitGraphOp(FunctionEmitter &e, mlir::Operation *op);
mlir::LogicalResult emitTensorOp(FunctionEmitter &e, mlir::Operation *op);

/// The error every family gives for an op it has no code for.
mlir::LogicalResult unsupported(mlir::Operation *op);

} // namespace gnn::cpp

#endif // GNN_TARGET_CPP_FUNCTIONEMITTER_H
