//===- EmitEdges.cpp - gathers, scatters, edge softmax, gnn.edge_map ------===//
//
// The unfused edge ops are kernel calls over the graph's CSR:
//
//   %e = gnn.gather %g, %h src : tensor<?x8xf32> -> tensor<?x8xf32>
//   // kernels::gather<T>(g, Side::Src, h, 8, e);
//
// A gnn.edge_map (gnn-fuse-edges) reads node rows in place through the
// edge's endpoints `u` and `v`. Without a reduction it runs one row per edge
// in edge-id order; with one it runs a row per destination, looping over the
// in-edges and combining into the output row, so per-edge values are never
// stored:
//
//   %s = gnn.edge_map %g, %a src, %b dst reduce sum { ... gnn.sub ... }
//   // for (int64_t i0 = 0; i0 < g.numDst; ++i0) {
//   //   const int64_t v = i0;
//   //   std::fill((s + i0 * 4), (s + i0 * 4) + 4, T(0));
//   //   for (int64_t e = g.inOffsets[i0]; e < g.inOffsets[i0 + 1]; ++e) {
//   //     const int64_t u = g.edgeSrc[e];
//   //     for (int64_t i1 = 0; i1 < 4; ++i1) {
//   //       const T a0 = a[i1 + u * 4];
//   //       const T a1 = b[i1 + v * 4];
//   //       const T v0 = a0 - a1;
//   //       s[(i0) * 4 + i1] = s[(i0) * 4 + i1] + v0;
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;

/// A row per edge (or, reducing, per destination) of a gnn.edge_map.
LogicalResult gnn::cpp::emitEdgeMapLoop(FunctionEmitter &e, EdgeMapOp em) {
  SmallVector<Value> results(em->getResults());
  const Dims &out = e.dims(results.front());
  SmallVector<std::string> yielded;
  std::string code = fusedBodyCode(em, yielded);
  // Node operands are read at the edge's endpoint, edge operands at it.
  SmallVector<LoopOperand> operands;
  for (auto [in, side] : llvm::zip(em.getInputs(), em.getSides())) {
    StringRef s = cast<StringAttr>(side).getValue();
    operands.push_back(
        {e.name(in), e.dims(in), s == "src" ? "u" : (s == "dst" ? "v" : "e")});
  }
  Value g = em.getGraph();
  std::string edgeSrc = e.member(g, rt::graph::edgeSrc),
              edgeDst = e.member(g, rt::graph::edgeDst),
              inOffsets = e.member(g, rt::graph::inOffsets);
  LoopNest loop;
  loop.rowEnd = out[0];
  if (!em.getReduce()) {
    // One row per edge, in edge-id order.
    for (auto [res, value] : llvm::zip(results, yielded))
      code += e.name(res) + "[@] = " + value + ";\n";
    loop.rowPrologue = "const int64_t e = i0, u = " + edgeSrc +
                       "[e], v = " + edgeDst + "[e];\n(void)u;\n(void)v;\n";
    e.emitLoop(out, operands, code, loop);
    return success();
  }
  // A row per destination: reduce over its in-edges, never storing the
  // per-edge values.
  ReduceKind kind = *em.getReduce();
  std::string res = e.name(results.front());
  std::string width = product(ArrayRef<std::string>(out).drop_front());
  std::string row = "(" + res + " + i0 * " + width + ")";
  const char *identity =
      kind == ReduceKind::max   ? "-std::numeric_limits<T>::infinity()"
      : kind == ReduceKind::min ? "std::numeric_limits<T>::infinity()"
                                : "T(0)";
  std::string combine =
      kind == ReduceKind::max   ? "std::max(" + res + "[@], " + yielded[0] + ")"
      : kind == ReduceKind::min ? "std::min(" + res + "[@], " + yielded[0] + ")"
                                : res + "[@] + " + yielded[0];
  code += res + "[@] = " + combine + ";\n";
  loop.rowPrologue = "const int64_t v = i0;\n(void)v;\nstd::fill(" + row +
                     ", " + row + " + " + width + ", " + identity + ");\n";
  loop.innerOpen = "for (int64_t e = " + inOffsets + "[i0]; e < " + inOffsets +
                   "[i0 + 1]; ++e) {\n  const int64_t u = " + edgeSrc +
                   "[e];\n  (void)u;";
  loop.innerClose = "}";
  // A destination without in-edges gets 0, not the identity of max or min.
  std::string degree = "(" + inOffsets + "[i0 + 1] - " + inOffsets + "[i0])";
  if (kind == ReduceKind::mean)
    loop.rowEpilogue = "if (" + degree + " > 0)\n  for (int64_t j = 0; j < " +
                       width + "; ++j)\n    " + row + "[j] /= T(" + degree +
                       ");\n";
  else if (kind != ReduceKind::sum)
    loop.rowEpilogue = "if (" + degree + " == 0)\n  std::fill(" + row + ", " +
                       row + " + " + width + ", T(0));\n";
  e.emitLoop(out, operands, code, loop);
  return success();
}

LogicalResult gnn::cpp::emitEdgeOp(FunctionEmitter &e, Operation *op) {
  std::string out = e.name(op->getResult(0));
  std::string call =
      llvm::TypeSwitch<Operation *, std::string>(op)
          .Case<GatherOp>([&](GatherOp g) {
            return e.kernelStmt(
                rt::kernels::gather,
                {e.graph(g.getGraph()), rt::side(g.getSide()).str(),
                 e.name(g.getInput()), e.width(g.getInput()), out});
          })
          .Case<GatherGradOp>([&](GatherGradOp g) {
            return e.kernelStmt(
                rt::kernels::gatherGrad,
                {e.graph(g.getGraph()), rt::side(g.getSide()).str(),
                 e.name(g.getGrad()), e.width(g.getGrad()), out});
          })
          .Case<ScatterOp>([&](ScatterOp s) {
            return e.kernelStmt(
                rt::kernels::scatter,
                {e.graph(s.getGraph()), rt::reduce(s.getReduce()).str(),
                 e.name(s.getInput()), e.width(s.getInput()), out});
          })
          .Case<ScatterGradOp>([&](ScatterGradOp s) {
            return e.kernelStmt(
                rt::kernels::scatterGrad,
                {e.graph(s.getGraph()), rt::reduce(s.getReduce()).str(),
                 e.name(s.getGrad()), e.name(s.getInput()),
                 e.name(s.getOutput()), e.width(s.getInput()), out});
          })
          .Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) {
            return e.kernelStmt(rt::kernels::edgeSoftmax,
                                {e.graph(s.getGraph()), e.name(s.getScores()),
                                 e.width(s.getScores()), out});
          })
          .Case<EdgeSoftmaxGradOp>([&](EdgeSoftmaxGradOp s) {
            return e.kernelStmt(rt::kernels::edgeSoftmaxGrad,
                                {e.graph(s.getGraph()), e.name(s.getGrad()),
                                 e.name(s.getOutput()), e.width(s.getOutput()),
                                 out});
          })
          .Case<GatherRelationOp>([&](GatherRelationOp g) {
            return e.kernelStmt(rt::kernels::gatherRelation,
                                {e.graph(g.getGraph()), e.name(g.getTable()),
                                 e.dims(g.getTable())[0], e.width(g.getTable()),
                                 out});
          })
          .Case<GatherRelationGradOp>([&](GatherRelationGradOp g) {
            return e.kernelStmt(rt::kernels::gatherRelationGrad,
                                {e.graph(g.getGraph()), e.name(g.getGrad()),
                                 e.dims(g.getTable())[0], e.width(g.getGrad()),
                                 out});
          })
          .Default([](Operation *) { return ""; });
  if (call.empty())
    return unsupported(op);
  e.os << call;
  return success();
}
