//===- EmitTensor.cpp - axis ops, concat/slice, block diagonals, loss -----===//
//
// Dense ops that are kernel calls rather than loops. Ops along one axis see
// their operand as [outer, axis, inner] (the products of the dims before and
// after the axis), so one kernel serves every rank:
//
//   %p = gnn.softmax %s {axis = 1} : tensor<?x8x4xf32> -> tensor<?x8x4xf32>
//   // kernels::softmax<T>(g.numDst, 8, 4, s, p);
//
// Dropout draws its mask from (seed, step, the op's stream, row id), so the
// adjoint replays it and a partitioned run draws what a single process
// would; rows that are nodes or edges are keyed by the whole graph's ids:
//
//   %d = gnn.dropout %h {p = 0.5, stream = 2} : tensor<?x64xf32> -> ...
//   // kernels::dropoutRows<T>(ctx.seed, (ctx.step << 16) + 2, 0.5,
//   //                         g.numDst, 64, ctx.nodeIds, h, d);
//
// The loss is a scalar, scaled so that a rank's mean is its share of the
// global mean.
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

#include "Unit/EmitSettings.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;

namespace {

/// The dims before `axis`, at it, and after it, as `outer, axis, inner`.
std::string axisView(const Dims &d, uint64_t axis) {
  return product(ArrayRef<std::string>(d).take_front(axis)) + ", " + d[axis] +
         ", " + product(ArrayRef<std::string>(d).drop_front(axis + 1));
}

/// `T(weight * lossScale / max(rows, 1))`: a norm penalty's factor, the
/// mean over the step's pairs of this rank's share.
std::string penaltyScale(const std::string &rows, const llvm::APFloat &weight) {
  return "T(" + cppDouble(weight.convertToDouble()) + " * " +
         rt::ctx::lossScale.str() + " / double(std::max<int64_t>(" + rows +
         ", 1)))";
}

/// `ctx.lossMask`, or `nullptr` for a loss over every row.
std::string maskOrNull(Value mask) {
  return mask ? rt::ctx::lossMask.str() : "nullptr";
}

} // namespace

LogicalResult gnn::cpp::emitTensorOp(FunctionEmitter &e, Operation *op) {
  Value res = op->getResult(0);
  std::string out = e.name(res);
  auto axisOf = [&](Value v, uint64_t axis) {
    return axisView(e.dims(v), axis);
  };
  std::string code =
      llvm::TypeSwitch<Operation *, std::string>(op)
          .Case<SoftmaxOp, LogSoftmaxOp>([&](auto s) {
            return e.kernelStmt(
                isa<SoftmaxOp>(op) ? rt::kernels::softmax
                                   : rt::kernels::logSoftmax,
                {axisOf(s.getInput(), s.getAxis()), e.name(s.getInput()), out});
          })
          .Case<SoftmaxGradOp, LogSoftmaxGradOp>([&](auto s) {
            return e.kernelStmt(
                isa<SoftmaxGradOp>(op) ? rt::kernels::softmaxGrad
                                       : rt::kernels::logSoftmaxGrad,
                {axisOf(s.getOutput(), s.getAxis()), e.name(s.getGrad()),
                 e.name(s.getOutput()), out});
          })
          .Case<BatchNormOp>([&](BatchNormOp b) {
            std::string eps = cppDouble(b.getEps().convertToDouble());
            // Evaluation with running statistics normalizes with them; a
            // train step always with the batch's.
            if (b.hasRunningStatistics() && !e.fn.isTraining())
              return e.kernelStmt(rt::kernels::batchNormInference,
                                  {axisOf(b.getInput(), 0), eps,
                                   e.name(b.getInput()),
                                   e.name(b.getRunning()[0]),
                                   e.name(b.getRunning()[1]), out});
            return e.kernelStmt(rt::kernels::batchNorm,
                                {axisOf(b.getInput(), 0), eps,
                                 e.name(b.getInput()), out});
          })
          .Case<BatchNormRunningOp>([&](BatchNormRunningOp b) {
            return e.kernelStmt(
                rt::kernels::batchNormRunningChange,
                {axisOf(b.getInput(), 0), b.getVariance() ? "true" : "false",
                 cppDouble(b.getMomentum().convertToDouble()),
                 e.name(b.getInput()), e.name(b.getRunning()), out});
          })
          .Case<BatchNormGradOp>([&](BatchNormGradOp b) {
            return e.kernelStmt(
                rt::kernels::batchNormGrad,
                {axisOf(b.getInput(), 0), cppDouble(b.getEps().convertToDouble()),
                 e.name(b.getGrad()), e.name(b.getInput()),
                 e.name(b.getOutput()), out});
          })
          .Case<ReduceOp>([&](ReduceOp r) {
            return e.kernelStmt(rt::kernels::reduceAxis,
                                {rt::reduce(r.getKind()).str(),
                                 axisOf(r.getInput(), r.getAxis()),
                                 e.name(r.getInput()), out});
          })
          .Case<ReduceGradOp>([&](ReduceGradOp r) {
            return e.kernelStmt(rt::kernels::reduceAxisGrad,
                                {rt::reduce(r.getKind()).str(),
                                 axisOf(r.getInput(), r.getAxis()),
                                 e.name(r.getGrad()), e.name(r.getInput()),
                                 e.name(r.getOutput()), out});
          })
          .Case<ConcatOp>([&](ConcatOp c) {
            // Each input is copied into its range of the axis.
            std::string code;
            const Dims &d = e.dims(res);
            uint64_t axis = c.getAxis();
            std::string outer =
                product(ArrayRef<std::string>(d).take_front(axis));
            std::string inner =
                product(ArrayRef<std::string>(d).drop_front(axis + 1));
            std::string offset = "0";
            for (Value in : c.getInputs()) {
              const std::string &along = e.dims(in)[axis];
              code += e.kernelStmt(
                  rt::kernels::copyIntoAxis,
                  {outer, along, inner, e.name(in), d[axis], offset, out});
              offset = offset == "0" ? along : offset + " + " + along;
            }
            return code;
          })
          .Case<SliceOp>([&](SliceOp s) {
            return e.kernelStmt(rt::kernels::sliceAxis,
                                {axisOf(s.getInput(), s.getAxis()),
                                 e.name(s.getInput()),
                                 std::to_string(s.getOffset()),
                                 std::to_string(s.getSize()), out});
          })
          .Case<BlockDiagonalOp>([&](BlockDiagonalOp b) {
            const Dims &q = e.dims(b.getInput());
            return e.kernelStmt(
                rt::kernels::blockDiagonal,
                {q[0], q[1], q[2], q[3], e.name(b.getInput()), out});
          })
          .Case<DiagonalBlocksOp>([&](DiagonalBlocksOp b) {
            const Dims &q = e.dims(b.getBlocks());
            return e.kernelStmt(
                rt::kernels::diagonalBlocks,
                {q[0], q[1], q[2], q[3], e.name(b.getInput()), out});
          })
          .Case<UnbroadcastOp>([&](UnbroadcastOp u) {
            // The sum over the broadcast dims, from the input's shape to the
            // result's.
            const Dims &in = e.dims(u.getInput()), &d = e.dims(res);
            return "{\n  const int64_t from[] = {" + llvm::join(in, ", ") +
                   "}, to[] = {" + (d.empty() ? "1" : llvm::join(d, ", ")) +
                   "};\n  " +
                   e.kernelStmt(rt::kernels::unbroadcast,
                                {e.name(u.getInput()), "from",
                                 std::to_string(in.size()), out, "to",
                                 std::to_string(d.size())}) +
                   "}\n";
          })
          .Case<DropoutOp>([&](DropoutOp d) {
            // Evaluation's dropout is a view; this is training's.
            Value in = d.getInput();
            std::string stream = "(" + rt::ctx::step.str() + " << 16) + " +
                                 std::to_string(d.getStream().value_or(0));
            std::string p = cppDouble(d.getP().convertToDouble());
            target::RowSpace rows = e.fn.rowSpace(in);
            if (rows == target::RowSpace::Other)
              return e.kernelStmt(rt::kernels::dropout,
                                  {rt::ctx::seed.str(), stream, p, e.numel(res),
                                   e.name(in), out});
            // Rows are keyed by their whole-graph (or collection) ids, so
            // masks do not depend on how the rows are split over ranks.
            StringRef ids = rows == target::RowSpace::Edges ? rt::ctx::edgeIds
                            : rows == target::RowSpace::Graphs
                                ? rt::ctx::graphIds
                                : rt::ctx::nodeIds;
            return e.kernelStmt(rt::kernels::dropoutRows,
                                {rt::ctx::seed.str(), stream, p, e.dims(in)[0],
                                 e.width(in), ids.str(), e.name(in), out});
          })
          .Case<CrossEntropyOp>([&](CrossEntropyOp ce) {
            // A scalar: declared here, not in the workspace.
            const Dims &l = e.dims(ce.getLogits());
            return "const T " + out + "[1] = {" +
                   e.kernelCall(rt::kernels::crossEntropy,
                                {l[0], l[1], e.name(ce.getLogits()),
                                 rt::ctx::labels.str(),
                                 maskOrNull(ce.getMask())}) +
                   " * T(" + rt::ctx::lossScale.str() + ")};\n";
          })
          .Case<CrossEntropyGradOp>([&](CrossEntropyGradOp c) {
            const Dims &l = e.dims(c.getLogits());
            return e.kernelStmt(rt::kernels::crossEntropyGrad,
                                {l[0], l[1], e.name(c.getLogits()),
                                 rt::ctx::labels.str(), maskOrNull(c.getMask()),
                                 e.name(c.getGrad()) + "[0] * T(" +
                                     rt::ctx::lossScale.str() + ")",
                                 out});
          })
          .Case<NormPenaltyOp>([&](NormPenaltyOp n) {
            // A scalar like the cross-entropy it adds to; the mean over the
            // pairs, scaled as the loss is.
            const Dims &r = e.dims(n.getRows());
            return "const T " + out + "[1] = {" + e.name(n.getLoss()) +
                   "[0] + " + penaltyScale(r[0], n.getWeight()) + " * " +
                   e.kernelCall(rt::kernels::normPenalty,
                                {r[0], r[1], e.name(n.getRows()),
                                 std::to_string(n.getPower())}) +
                   "};\n";
          })
          .Case<NormPenaltyGradOp>([&](NormPenaltyGradOp n) {
            const Dims &r = e.dims(n.getRows());
            return e.kernelStmt(rt::kernels::normPenaltyGrad,
                                {r[0], r[1], e.name(n.getRows()),
                                 std::to_string(n.getPower()),
                                 e.name(n.getGrad()) + "[0] * " +
                                     penaltyScale(r[0], n.getWeight()),
                                 out});
          })
          .Default([](Operation *) { return ""; });
  if (code.empty())
    return unsupported(op);
  e.os << code;
  return success();
}
