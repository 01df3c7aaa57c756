//===- ShapeRules.cpp - the dims of every value as C++ expressions --------===//
//
// One rule per op, from its operands' dims: the symbolic counterpart of the
// type inference in the dialect, but with dataset and graph sizes named
// instead of `?`. Graph ops count rows from their graph (`g.numDst` rows for
// an aggregation, `g.numEdges` for a gather); dense ops follow numpy. Where
// the result type fixes a dim statically, the literal wins: it gives better
// code and checks the rule's rank.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/Prepare.h"

#include "gnn/Target/Common/RuntimeNames.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::target;

std::string PreparedFunction::numNodes(Value g, EdgeSide side) const {
  // A relation's subgraph has its graph's nodes: name them the same way, so
  // that tensors on both have equal dims.
  while (auto rel = g.getDefiningOp<RelationOp>())
    g = rel.getGraph();
  return (graph(g) + "." +
          (side == EdgeSide::src ? rt::graph::numSrc : rt::graph::numDst))
      .str();
}

LogicalResult PreparedFunction::computeDims(Operation *op,
                                            const ParameterTable &params) {
  Value res = op->getResult(0);
  auto rows = [&](std::string first, Value featuresOf) {
    Dims d{first};
    d.append(features(featuresOf));
    return d;
  };
  auto broadcast = [&](Value a, Value b) {
    return broadcastDims(dims(a), dims(b));
  };
  std::optional<Dims> computed =
      llvm::TypeSwitch<Operation *, std::optional<Dims>>(op)
          // Values that are not computed.
          .Case<ParamOp>([&](ParamOp p) {
            return std::optional<Dims>(params.dims.lookup(p.getName()));
          })
          .Case<ConstantOp, CrossEntropyOp>([&](auto) { return Dims{}; })
          // Graph ops: rows from the graph.
          .Case<GatherOp>([&](GatherOp g) {
            return rows((graph(g.getGraph()) + "." + rt::graph::numEdges).str(),
                        g.getInput());
          })
          .Case<ScatterOp, AggregateOp, DstOp>([&](auto o) {
            return rows(numNodes(o.getGraph(), EdgeSide::dst), o.getInput());
          })
          .Case<AggregateRelationRowsOp>([&](AggregateRelationRowsOp a) {
            return Dims{numNodes(a.getGraph(), EdgeSide::dst),
                        dims(a.getTable())[2]};
          })
          .Case<AggregateRelationRowsGradOp>(
              [&](AggregateRelationRowsGradOp o) { return dims(o.getTable()); })
          .Case<AggregateRelationsOp>([&](AggregateRelationsOp a) {
            return Dims{numNodes(a.getGraph(), EdgeSide::dst),
                        dims(a.getWeight())[2]};
          })
          .Case<DegreeOp>([&](DegreeOp d) {
            return Dims{numNodes(d.getGraph(), d.getSide()), "1"};
          })
          .Case<NodeTypeOp>([&](NodeTypeOp t) {
            return Dims{numNodes(t.getGraph(), EdgeSide::src), "1"};
          })
          .Case<EdgeSoftmaxOp>(
              [&](EdgeSoftmaxOp s) { return dims(s.getScores()); })
          .Case<HaloExchangeOp>([&](HaloExchangeOp h) {
            return rows(numNodes(h.getGraph(), EdgeSide::src), h.getInput());
          })
          .Case<HaloAggregateOp>([&](HaloAggregateOp h) {
            return rows(numNodes(h.getGraph(), EdgeSide::dst), h.getInput());
          })
          .Case<ScaledAggregateOp>([&](ScaledAggregateOp h) {
            return rows(numNodes(h.getGraph(), EdgeSide::dst), h.getInput());
          })
          // Dense ops.
          .Case<MatmulOp>([&](MatmulOp m) {
            const Dims &a = dims(m.getLhs()), &b = dims(m.getRhs());
            return Dims{m.getTransposeLhs() ? a[1] : a[0],
                        m.getTransposeRhs() ? b[0] : b[1]};
          })
          .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp>([&](Operation *b) {
            return broadcast(b->getOperand(0), b->getOperand(1));
          })
          .Case<NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReluOp, SigmoidOp, TanhOp,
                AbsOp, LeakyReluOp, EluOp, SoftmaxOp, LogSoftmaxOp, DropoutOp>(
              [&](Operation *u) { return dims(u->getOperand(0)); })
          .Case<ConcatOp>([&](ConcatOp c) {
            Dims d = dims(c.getInputs().front());
            Dims along;
            for (Value in : c.getInputs())
              along.push_back(dims(in)[c.getAxis()]);
            d[c.getAxis()] = sum(along);
            return d;
          })
          .Case<ReshapeOp>([&](ReshapeOp r) -> std::optional<Dims> {
            // Reshapes keep the row dim (Sema resolves `-1` to the input's
            // rows), so a dynamic leading dim is the input's; at most one
            // other dim may be dynamic, and it is what the rest leaves.
            auto type = cast<RankedTensorType>(r.getType());
            const Dims &in = dims(r.getInput());
            Dims d;
            int dynamicAt = -1;
            SmallVector<std::string> known;
            for (int64_t i = 0; i < type.getRank(); ++i) {
              if (!type.isDynamicDim(i))
                d.push_back(std::to_string(type.getDimSize(i)));
              else if (i == 0 && !in.empty())
                d.push_back(in[0]);
              else if (dynamicAt >= 0)
                return std::nullopt;
              else {
                dynamicAt = i;
                d.push_back("");
                continue;
              }
              known.push_back(d.back());
            }
            if (dynamicAt >= 0)
              d[dynamicAt] =
                  "(" + numel(r.getInput()) + " / " + product(known) + ")";
            return d;
          })
          .Case<BlockDiagonalOp>([&](BlockDiagonalOp b) {
            const Dims &q = dims(b.getInput());
            return Dims{q[0], product({q[1], q[2]}), product({q[1], q[3]})};
          })
          .Case<DiagonalBlocksOp>(
              [&](DiagonalBlocksOp b) { return dims(b.getBlocks()); })
          .Case<ReduceOp>([&](ReduceOp r) {
            Dims d = dims(r.getInput());
            d.erase(d.begin() + r.getAxis());
            return d;
          })
          .Case<SliceOp>([&](SliceOp s) {
            Dims d = dims(s.getInput());
            d[s.getAxis()] = std::to_string(s.getSize());
            return d;
          })
          // Adjoints: most have their primal's (or its input's) dims.
          .Case<MaximumGradOp, UnaryGradOp, EdgeSoftmaxGradOp, SoftmaxGradOp,
                LogSoftmaxGradOp>([&](Operation *o) {
            Value grad =
                isa<EdgeSoftmaxGradOp>(o) ? o->getOperand(1) : o->getOperand(0);
            return dims(grad);
          })
          .Case<UnbroadcastOp>([&](UnbroadcastOp u) {
            auto type = cast<RankedTensorType>(u.getType());
            const Dims &in = dims(u.getInput());
            size_t offset = in.size() - type.getRank();
            Dims d;
            for (int64_t i = 0; i < type.getRank(); ++i)
              d.push_back(type.isDynamicDim(i)
                              ? in[offset + i]
                              : std::to_string(type.getDimSize(i)));
            return d;
          })
          .Case<AggregateGradOp, ScatterGradOp, ReduceGradOp>(
              [&](auto o) { return dims(o.getInput()); })
          .Case<AggregateWeightGradOp>(
              [&](AggregateWeightGradOp o) { return dims(o.getWeight()); })
          .Case<AggregateRelationsGradOp>([&](AggregateRelationsGradOp o) {
            return Dims{numNodes(o.getGraph(), EdgeSide::src),
                        dims(o.getWeight())[1]};
          })
          .Case<AggregateRelationsWeightGradOp>(
              [&](AggregateRelationsWeightGradOp o) {
                // The weight's dims are the parameter's: [R, In, Out].
                auto type = cast<RankedTensorType>(o.getType());
                Dims d{rt::local::relations.str(), dims(o.getInput())[1],
                       dims(o.getGrad())[1]};
                for (int64_t i = 0; i < 3; ++i)
                  if (!type.isDynamicDim(i))
                    d[i] = std::to_string(type.getDimSize(i));
                return d;
              })
          .Case<GatherGradOp>([&](GatherGradOp g) {
            return rows(numNodes(g.getGraph(), g.getSide()), g.getGrad());
          })
          .Case<DstGradOp>([&](DstGradOp d) {
            return rows(numNodes(d.getGraph(), EdgeSide::src), d.getGrad());
          })
          .Case<HaloAggregateGradOp>([&](HaloAggregateGradOp h) {
            return rows(numNodes(h.getGraph(), EdgeSide::dst), h.getGrad());
          })
          .Case<HaloExchangeGradOp>([&](HaloExchangeGradOp h) {
            return rows(numNodes(h.getGraph(), EdgeSide::dst), h.getGrad());
          })
          .Case<CrossEntropyGradOp>(
              [&](CrossEntropyGradOp c) { return dims(c.getLogits()); })
          .Case<GatherRelationOp>([&](GatherRelationOp g) {
            return rows((graph(g.getGraph()) + "." + rt::graph::numEdges).str(),
                        g.getTable());
          })
          .Case<GatherRelationGradOp>(
              [&](GatherRelationGradOp g) { return dims(g.getTable()); })
          .Default([](Operation *) { return std::nullopt; });
  if (!computed)
    return op->emitOpError("is not supported by the C++ code generator");
  // A dim the type knows statically is a literal: better code, and a check.
  auto type = cast<RankedTensorType>(res.getType());
  if (int64_t(computed->size()) != type.getRank())
    return op->emitOpError("internal error: shape rule gives rank ")
           << computed->size() << " for " << type;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!type.isDynamicDim(i))
      (*computed)[i] = std::to_string(type.getDimSize(i));
  dimsOf[res] = *computed;
  return success();
}

/// A fused op's results share one shape: the broadcast of a map's inputs, a
/// product's, or an edge_map's rows (one per edge, or per destination when
/// it reduces) by the broadcast of its inputs' feature dims.
LogicalResult PreparedFunction::computeFusedDims(Operation *op) {
  Dims d;
  if (auto map = dyn_cast<MapOp>(op)) {
    for (Value in : map.getInputs())
      d = broadcastDims(d, dims(in));
  } else if (auto mm = dyn_cast<MatmulMapOp>(op)) {
    const Dims &a = dims(mm.getLhs()), &b = dims(mm.getRhs());
    d = Dims{mm.getTransposeLhs() ? a[1] : a[0],
             mm.getTransposeRhs() ? b[0] : b[1]};
  } else {
    auto em = cast<EdgeMapOp>(op);
    Dims featureDims;
    for (Value in : em.getInputs())
      featureDims = broadcastDims(featureDims, features(in));
    d = Dims{(graph(em.getGraph()) + "." +
              (em.getReduce() ? rt::graph::numDst : rt::graph::numEdges))
                 .str()};
    d.append(featureDims);
  }
  for (Value res : op->getResults()) {
    auto type = cast<RankedTensorType>(res.getType());
    if (int64_t(d.size()) != type.getRank())
      return op->emitOpError("internal error: fused shape has rank ")
             << d.size() << " for " << type;
    Dims typed = d;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (!type.isDynamicDim(i))
        typed[i] = std::to_string(type.getDimSize(i));
    dimsOf[res] = typed;
  }
  return success();
}
