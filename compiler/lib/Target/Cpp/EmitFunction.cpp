//===- EmitFunction.cpp - an entry point's skeleton and op dispatch -------===//
//
// Each entry point becomes a function template over the scalar type. Its
// preamble binds the locals the prepared dims mention (`ws`, `features`,
// `classes`, `g`, `x`); then every op gets a comment with its source
// position, a declaration of its result (a workspace slot from the memory
// plan, a view of another buffer, a parameter, or a scalar), and the code of
// its family's emitter. The forward copies the returned logits to
// `ctx.output`; the train step returns the loss. For example
//
//   %w = gnn.param @GCN.c1.w : tensor<?x16xf32>
//   %h = gnn.matmul %x, %w : ... -> tensor<?x16xf32>
//   gnn.param_grad @GCN.c1.w, %dw : tensor<?x16xf32>
//
// becomes
//
//   // conv.gnn:13:38 <- gcn_cora.gnn:11:14
//   const T *c1_w = ctx.params[0];
//   // conv.gnn:13:31 <- gcn_cora.gnn:11:14
//   T *h = ws.get(0, (16 * g.numDst));
//   kernels::gemm<T>(false, false, g.numDst, 16, features, x, c1_w, h);
//   ...
//   {
//     T *grad = ctx.grads[0]; // c1.w
//     #pragma omp parallel for simd if ((16 * features) > 16384)
//     for (int64_t i = 0; i < (16 * features); ++i)
//       grad[i] += d_w[i];
//   }
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

#include "Unit/EmitSettings.h"

#include "gnn/Target/Common/Naming.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;
using target::Storage;

const llvm::StringSet<> &FunctionEmitter::reservedNames() {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> set;
    // Names the generated code itself uses, and C++ keywords a .gnn
    // variable could be called.
    for (llvm::StringRef reserved :
         {rt::local::graph, rt::local::input, rt::local::workspace,
          rt::local::context, rt::local::features, rt::local::classes,
          rt::local::relations, rt::local::nodes})
      set.insert(reserved);
    for (const char *reserved :
         {"i", "labels", "mask", "grad", "from", "to", "T", "int", "double",
          "float", "new", "delete", "class", "return", "default", "auto",
          "char", "long", "this"})
      set.insert(reserved);
    // Loop variables and element temporaries of fused loops.
    for (const char *reserved : {"u", "v", "e", "j", "r0", "r1"})
      set.insert(reserved);
    for (int k = 0; k < 64; ++k)
      for (const char *prefix : {"a", "v", "i"})
        set.insert(prefix + std::to_string(k));
    return set;
  }();
  return names;
}

LogicalResult gnn::cpp::unsupported(Operation *op) {
  return op->emitOpError("is not supported by the C++ code generator");
}

LogicalResult FunctionEmitter::emit(StringRef cppName) {
  Block &body = fn.getBody();
  os << "template <typename T>\n"
     << (fn.isTraining() ? "T " : "void ") << cppName << "(" << rt::execContext
     << "<T> &" << rt::local::context << ") {\n";
  os.indent();
  emitWorkspaceBinding();
  os << "const int64_t " << rt::local::features << " = " << rt::ctx::numFeatures
     << ", " << rt::local::classes << " = " << rt::ctx::numClasses << ";\n";
  os << "(void)" << rt::local::features << ";\n(void)" << rt::local::classes
     << ";\n";
  // Relation matrices and their gradients are sized by the relations.
  bool relational = params.uses(rt::local::relations);
  body.walk([&](AggregateRelationsWeightGradOp) { relational = true; });
  if (relational)
    os << "const int64_t " << rt::local::relations << " = "
       << rt::ctx::numRelations << ";\n(void)" << rt::local::relations
       << ";\n";
  if (params.uses(rt::local::nodes))
    os << "const int64_t " << rt::local::nodes << " = " << rt::ctx::numGlobalNodes
       << ";\n(void)" << rt::local::nodes << ";\n";
  os << "const " << rt::graphView << " &" << graph(body.getArgument(0)) << " = "
     << rt::ctx::graph << ";\n";
  os << "const T *" << name(body.getArgument(1)) << " = " << rt::ctx::features
     << ";\n";
  emitAfterBindings();
  for (Operation &op : body) {
    if (op.hasAttr(kStepInvariantAttrName)) {
      // The section of gnn-hoist-invariants: emitted once, at its first op.
      if (&op == fn.invariantOps().front() && failed(emitInvariantSection()))
        return failure();
      continue;
    }
    if (failed(emitOp(&op)))
      return failure();
  }
  os.unindent();
  os << "}\n\n";
  return success();
}

/// The step-invariant section (gnn-hoist-invariants): the kept values'
/// buffers, the views of them later ops read, then the section's ops, run
/// only when the entry point sees these inputs for the first time:
///
///   T *h = ws.kept(1, 0x9c0e5b1f2a44d7e3u, (g.numDst * features));
///   if (ws.keptStale(1, x, g)) {
///     T *t = ws.get(0, (g.numDst * features));
///     ...
///     kernels::aggregate<T>(g, Reduce::Sum, true, t, features, nullptr, 1, h);
///   }
LogicalResult FunctionEmitter::emitInvariantSection() {
  const int entry = fn.isTraining() ? 1 : 0;
  os << "// What every call computes alike (gnn-hoist-invariants): computed "
        "on the\n// first call with these inputs, kept across calls.\n";
  SmallVector<Operation *> inside;
  for (Operation *op : fn.invariantOps()) {
    for (Value r : op->getResults())
      if (fn.storage(r) == Storage::Kept)
        os << "T *" << name(r) << " = " << rt::local::workspace << "."
           << rt::workspaceKept << "(" << entry << ", 0x"
           << llvm::format_hex_no_prefix(fn.keptKey(r), 16) << "u, "
           << numel(r) << ");\n";
    // A view of a kept value (or of an argument) is declared out here, for
    // the ops after the section.
    Value res = op->getNumResults() ? op->getResult(0) : Value();
    if (res && fn.storage(res) == Storage::View &&
        fn.storage(fn.root(res)) != Storage::Slot) {
      if (failed(emitOp(op)))
        return failure();
      continue;
    }
    inside.push_back(op);
  }
  Block &body = fn.getBody();
  os << "if (" << rt::local::workspace << "." << rt::workspaceKeptStale << "("
     << entry << ", " << name(body.getArgument(1)) << ", "
     << graph(body.getArgument(0)) << ")) {\n";
  os.indent();
  for (Operation *op : inside)
    if (failed(emitOp(op)))
      return failure();
  os.unindent();
  os << "}\n";
  return success();
}

void FunctionEmitter::emitWorkspaceBinding() {
  os << rt::workspace << "<T> &" << rt::local::workspace << " = *"
     << rt::ctx::workspace << ";\n";
}

std::string FunctionEmitter::slotBuffer(Value v) {
  return (rt::local::workspace + "." + rt::workspaceGet + "(").str() +
         std::to_string(fn.slot(v)) + ", " + numel(v) + ")";
}

std::string FunctionEmitter::copyStmt(const std::string &from,
                                      const std::string &count,
                                      const std::string &to) const {
  return "std::copy(" + from + ", " + from + " + " + count + ", " + to + ");\n";
}

std::string FunctionEmitter::zeroStmt(const std::string &buffer,
                                      const std::string &begin,
                                      const std::string &end) const {
  return "std::fill(" + buffer + " + " + begin + ", " + buffer + " + " + end +
         ", T(0));\n";
}

void FunctionEmitter::emitAccumulate(Value g) {
  os << "  #pragma omp parallel for simd if (" << numel(g) << " > 16384)\n";
  os << "  for (int64_t i = 0; i < " << numel(g) << "; ++i)\n";
  os << "    grad[i] += " << name(g) << "[i];\n";
}

LogicalResult FunctionEmitter::emitElementwise(Operation *op) {
  return emitElementwiseOp(*this, op);
}

LogicalResult FunctionEmitter::emitEdgeMap(EdgeMapOp op) {
  return emitEdgeMapLoop(*this, op);
}

LogicalResult FunctionEmitter::emitMatmulMap(MatmulMapOp op) {
  return emitMatmulMapLoop(*this, op);
}

void FunctionEmitter::emitReturn(func::ReturnOp ret) {
  Value v = ret.getOperand(0);
  ArrayRef<std::string> buffered = fn.bufferedElements();
  os << rt::ctx::unplannedBytes << " = int64_t(sizeof(T)) * ("
     << (buffered.empty() ? "0" : llvm::join(buffered, " + ")) << ");\n";
  if (fn.isTraining())
    os << "return " << name(v) << "[0];\n";
  else if (ret.getNumOperands() > 1) // the rank factors, each copied whole
    for (auto [k, factor] : llvm::enumerate(ret.getOperands()))
      os << rt::ctx::rankFactors << "[" << k << "].assign(" << name(factor)
         << ", " << name(factor) << " + " << numel(factor) << ");\n";
  else
    os << copyStmt(name(v), numel(v), rt::ctx::output.str());
}

std::string FunctionEmitter::relationGraphStmt(
    const std::string &id, const std::string &graph,
    const std::string &relation) const {
  return (rt::graphStorage + " " + id + "_storage;\nconst " + rt::graphView +
          " " + id + " = " + rt::relationView + "(" + graph + ", " + relation +
          ", " + id + "_storage);\n")
      .str();
}

LogicalResult FunctionEmitter::emitOp(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    emitReturn(ret);
    return success();
  }
  if (std::string location = target::describeLocation(op->getLoc());
      !location.empty())
    os << "// " << location << "\n";

  // Declare the results: slots and views here, parameters and scalars in
  // their ops' cases below. A graph value is only a name (a sampled block),
  // or a relation's subgraph, which its graph's relation index keeps from
  // the first step on (the local storage holds it only for a graph without
  // an index).
  if (op->getNumResults() > 0) {
    Value res = op->getResult(0);
    if (isa<GraphType>(res.getType())) {
      if (auto rel = dyn_cast<RelationOp>(op))
        os << relationGraphStmt(fn.graph(res).str(),
                                fn.graph(rel.getGraph()).str(),
                                (rt::ctx::relationId + "(" +
                                 cppString(rel.getName()) + ")")
                                    .str());
      return success();
    }
    switch (fn.storage(res)) {
    case Storage::View:
      os << "const T *" << name(res) << " = " << name(fn.viewOf(res))
         << "; // view\n";
      return success();
    case Storage::Slot:
    case Storage::Kept: // declared before the invariant section
      for (Value r : op->getResults())
        if (fn.storage(r) == Storage::Slot)
          os << "T *" << name(r) << " = " << slotBuffer(r) << ";\n";
      break;
    case Storage::External:
    case Storage::Scalar:
      break;
    }
  }

  return dispatchGNNVisitor(op);
}

// Parameters, their gradients and constants: here.
LogicalResult FunctionEmitter::visitStorageOp(ParamOp p) {
  os << "const T *" << name(p) << " = " << rt::ctx::params << "["
     << params.index.lookup(p.getName()) << "];\n";
  return success();
}

LogicalResult FunctionEmitter::visitStorageOp(InputGradOp ig) {
  // Learned input rows: the trainer passes a buffer when it wants it.
  Value g = ig.getGrad();
  os << "if (T *grad = " << rt::ctx::inputGrad << ") {\n";
  emitAccumulate(g);
  os << "}\n";
  return success();
}

LogicalResult FunctionEmitter::visitStorageOp(ParamGradOp pg) {
  // Accumulated: a parameter read several times has one param_grad per read.
  Value g = pg.getGrad();
  os << "{\n  T *grad = " << rt::ctx::grads << "["
     << params.index.lookup(pg.getName()) << "]; // "
     << pg.getName().drop_front(pg.getName().find('.') + 1) << "\n";
  emitAccumulate(g);
  os << "}\n";
  return success();
}

LogicalResult FunctionEmitter::visitStorageOp(ConstantOp c) {
  os << "const T " << name(c) << "[1] = {T("
     << cppDouble(c.getValue().convertToDouble()) << ")};\n";
  return success();
}

// Elementwise ops, alone or fused into gnn.map: EmitElementwise.cpp.
LogicalResult FunctionEmitter::visitElementwiseOp(Operation *op) {
  return emitElementwise(op);
}

// Gathers, scatters, edge softmax and gnn.edge_map: EmitEdges.cpp.
LogicalResult FunctionEmitter::visitEdgeOp(Operation *op) {
  if (auto edgeMap = dyn_cast<EdgeMapOp>(op))
    return emitEdgeMap(edgeMap);
  return emitEdgeOp(*this, op);
}

// Products and gnn.matmul_map: EmitMatmul.cpp.
LogicalResult FunctionEmitter::visitMatmulOp(Operation *op) {
  if (auto matmulMap = dyn_cast<MatmulMapOp>(op))
    return emitMatmulMap(matmulMap);
  return emitMatmulOp(*this, op);
}

// Aggregations, degrees, halo exchanges: EmitGraph.cpp.
LogicalResult FunctionEmitter::visitGraphOp(Operation *op) {
  return emitGraphOp(*this, op);
}

// Axis ops, dropout and the loss: EmitTensor.cpp.
LogicalResult FunctionEmitter::visitTensorOp(Operation *op) {
  return emitTensorOp(*this, op);
}

LogicalResult FunctionEmitter::visitStructureOp(Operation *op) {
  return unsupported(op);
}

LogicalResult FunctionEmitter::visitInvalidOp(Operation *op) {
  return unsupported(op);
}
