//===- EmitGraph.cpp - aggregations, degrees, halo exchanges --------------===//
//
// Message passing over in-edges is the runtime's aggregate kernel (and its
// adjoints), with optional per-edge weights and self loops:
//
//   %a = gnn.aggregate mean %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
//   // kernels::aggregate<T>(g, Reduce::Mean, false, h, 16, nullptr, 1, a);
//
// In a distributed run the graph is the rank's partition, and a few values
// come from the context instead: the global degrees, and the HaloExchange
// that moves halo rows. Each halo op falls back to its single-process
// meaning when `ctx.halo` is null, so one trainer runs both ways:
//
//   %s = gnn.halo_aggregate sum %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
//   // if (ctx.halo)
//   //   ctx.halo->aggregate(Reduce::Sum, false, h, 16, s, HaloMode::Auto);
//   // else
//   //   kernels::aggregate<T>(g, Reduce::Sum, false, h, 16, nullptr, 1, s);
//
// gnn.scaled_aggregate (a kept `A(norm * X)`) reads X's rows scaled as it
// gathers them: kernels::aggregateScaledRows, no [N, F] product.
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"
#include "Unit/TrainerUnit.h"

#include "gnn/Target/Common/Naming.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;

namespace {

/// The exchange that fills the halo of `graph`'s sources: the target's
/// (ctx.halo, or ctx.deviceHalo) for the graph the rank holds, the pairs'
/// own (ctx.pairHalo, or ctx.devicePairHalo) for link prediction's pairs.
llvm::StringRef exchangeOf(const FunctionEmitter &e, Value graph) {
  return graph.getDefiningOp<PairsOp>() ? e.pairHaloExchange()
                                        : e.haloExchange();
}

/// `ctx.halo-><member>(args...);` (or the graph's exchange) and a newline.
std::string haloStmt(llvm::StringRef exchange, llvm::StringRef member,
                     ArrayRef<std::string> args) {
  return (exchange + "->" + member + "(").str() + llvm::join(args, ", ") +
         ");\n";
}
std::string haloStmt(const FunctionEmitter &e, llvm::StringRef member,
                     ArrayRef<std::string> args) {
  return haloStmt(e.haloExchange(), member, args);
}

/// `if (ctx.halo)\n  <distributed>`.
std::string ifHalo(llvm::StringRef exchange, const std::string &distributed) {
  return "if (" + exchange.str() + ")\n  " + distributed;
}
std::string ifHalo(const FunctionEmitter &e, const std::string &distributed) {
  return ifHalo(e.haloExchange(), distributed);
}

/// `else\n  <single>` after ifHalo.
std::string elseSingle(const std::string &single) {
  return "else\n  " + single;
}

/// An edge weight's width (1: scalar weights or none).
std::string edgeWeightWidth(const FunctionEmitter &e, Value w) {
  return w ? product(e.features(w)) : std::string("1");
}

/// Whether `graph` is one relation's subgraph (`relation(g, name)`).
bool isRelation(Value graph) {
  return graph.getDefiningOp<RelationOp>() != nullptr;
}

/// The halo exchanges and the aggregations over them (with the
/// single-process fallback of each); empty for any other op.
std::string haloCode(FunctionEmitter &e, Operation *op) {
  Value res = op->getResult(0);
  std::string out = e.name(res);
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<HaloExchangeOp>([&](HaloExchangeOp h) {
        std::string owned = product(
            {e.member(h.getGraph(), rt::graph::numDst), e.width(h.getInput())});
        llvm::StringRef exchange = exchangeOf(e, h.getGraph());
        return e.copyStmt(e.name(h.getInput()), owned, out) +
               ifHalo(exchange, haloStmt(exchange, rt::halo::forward,
                                         {out, e.width(h.getInput())}));
      })
      .Case<HaloExchangeGradOp>([&](HaloExchangeGradOp h) {
        std::string owned = product(
            {e.member(h.getGraph(), rt::graph::numDst), e.width(h.getGrad())});
        llvm::StringRef exchange = exchangeOf(e, h.getGraph());
        return e.copyStmt(e.name(h.getGrad()), owned, out) +
               ifHalo(exchange,
                      haloStmt(exchange, rt::halo::backward,
                               {e.name(h.getGrad()), e.width(h.getGrad()),
                                out}));
      })
      .Case<HaloAggregateOp>([&](HaloAggregateOp h) {
        // In a single process the sources are the destinations.
        std::string reduce = rt::reduce(h.getReduce()).str(),
                    selfLoops = cppBool(h.getSelfLoops()),
                    input = e.name(h.getInput()), width = e.width(h.getInput());
        if (Value w = h.getWeight()) {
          // Weighted: SAR's ring over the rank's graph (Distribute makes
          // no weighted one over a relation's subgraph).
          std::string weight = e.name(w), weightWidth = edgeWeightWidth(e, w);
          return ifHalo(e, haloStmt(e, rt::halo::aggregateWeighted,
                                    {reduce, selfLoops, input, width, weight,
                                     weightWidth, out})) +
                 elseSingle(
                     e.kernelStmt(rt::kernels::aggregate,
                                  {e.graph(h.getGraph()), reduce, selfLoops,
                                   input, width, weight, weightWidth, out}));
        }
        // A relation's subgraph is not the partition the exchange was
        // split for: the halo comes whole, the subgraph reduces it.
        std::string distributed =
            isRelation(h.getGraph())
                ? haloStmt(e, rt::halo::aggregateOver,
                           {e.graph(h.getGraph()), reduce, selfLoops, input,
                            width, out})
                : haloStmt(e, rt::halo::aggregate,
                           {reduce, selfLoops, input, width, out,
                            rt::haloMode(h.getMode()).str()});
        return ifHalo(e, distributed) +
               elseSingle(
                   e.kernelStmt(rt::kernels::aggregate,
                                {e.graph(h.getGraph()), reduce, selfLoops,
                                 input, width, "nullptr", "1", out}));
      })
      .Case<ScaledAggregateOp>([&](ScaledAggregateOp h) {
        // One process reads each row scaled as it gathers it. A rank's
        // halo exchange sends rows, so it scales a copy first (once: the
        // op is kept).
        std::string reduce = rt::reduce(h.getReduce()).str(),
                    selfLoops = cppBool(h.getSelfLoops()),
                    input = e.name(h.getInput()), scale = e.name(h.getScale()),
                    width = e.width(h.getInput()),
                    rows = e.member(h.getGraph(), rt::graph::numDst);
        std::string distributed =
            "if (" + e.haloExchange().str() + ") {\n" +
            "  std::vector<T> scaled(size_t(" + e.numel(h.getInput()) +
            "));\n  for (int64_t i = 0; i < " + rows +
            "; ++i)\n    for (int64_t j = 0; j < " + width +
            "; ++j)\n      scaled[i * " + width + " + j] = " + scale +
            "[i] * " + input + "[i * " + width + " + j];\n  " +
            haloStmt(e, rt::halo::aggregate,
                     {reduce, selfLoops, "scaled.data()", width, out,
                      rt::haloMode(h.getMode()).str()}) +
            "} ";
        return distributed +
               elseSingle(e.kernelStmt(rt::kernels::aggregateScaledRows,
                                       {e.graph(h.getGraph()), reduce,
                                        selfLoops, input, scale, width, out}));
      })
      .Case<HaloAggregateGradOp>([&](HaloAggregateGradOp h) {
        std::string reduce = rt::reduce(h.getReduce()).str(),
                    selfLoops = cppBool(h.getSelfLoops()),
                    grad = e.name(h.getGrad()), width = e.width(h.getGrad());
        if (Value w = h.getWeight()) {
          std::string weight = e.name(w), weightWidth = edgeWeightWidth(e, w);
          return ifHalo(e, haloStmt(e, rt::halo::aggregateWeightedGrad,
                                    {reduce, selfLoops, grad, width, weight,
                                     weightWidth, out})) +
                 elseSingle(e.kernelStmt(rt::kernels::aggregateGradInput,
                                         {e.graph(h.getGraph()), reduce,
                                          selfLoops, grad, "nullptr", "nullptr",
                                          width, weight, weightWidth, out}));
        }
        std::string distributed =
            isRelation(h.getGraph())
                ? haloStmt(e, rt::halo::aggregateGradOver,
                           {e.graph(h.getGraph()), reduce, selfLoops, grad,
                            width, out})
                : haloStmt(e, rt::halo::aggregateGrad,
                           {reduce, selfLoops, grad, width, out,
                            rt::haloMode(h.getMode()).str()});
        return ifHalo(e, distributed) +
               elseSingle(e.kernelStmt(rt::kernels::aggregateGradInput,
                                       {e.graph(h.getGraph()), reduce,
                                        selfLoops, grad, "nullptr", "nullptr",
                                        width, "nullptr", "1", out}));
      })
      .Case<HaloAggregateWeightGradOp>([&](HaloAggregateWeightGradOp h) {
        // The forward's output is read by max and min only: not here.
        std::string reduce = rt::reduce(h.getReduce()).str(),
                    selfLoops = cppBool(h.getSelfLoops()),
                    grad = e.name(h.getGrad()), input = e.name(h.getInput()),
                    width = e.width(h.getInput()),
                    weight = e.name(h.getWeight()),
                    weightWidth = edgeWeightWidth(e, h.getWeight());
        return ifHalo(e, haloStmt(e, rt::halo::aggregateWeightGrad,
                                  {reduce, selfLoops, grad, input, width,
                                   weight, weightWidth, out})) +
               elseSingle(e.kernelStmt(rt::kernels::aggregateGradWeight,
                                       {e.graph(h.getGraph()), reduce,
                                        selfLoops, grad, input, "nullptr",
                                        width, weight, weightWidth, out}));
      })
      .Default([](Operation *) { return ""; });
}

} // namespace

llvm::StringRef FunctionEmitter::haloExchange() const { return rt::ctx::halo; }

llvm::StringRef FunctionEmitter::pairHaloExchange() const {
  return rt::ctx::pairHalo;
}

LogicalResult gnn::cpp::emitGraphOp(FunctionEmitter &e, Operation *op) {
  Value res = op->getResult(0);
  std::string out = e.name(res);
  auto weightWidth = [&](Value w) { return edgeWeightWidth(e, w); };
  std::string code =
      llvm::TypeSwitch<Operation *, std::string>(op)
          .Case<AggregateOp>([&](AggregateOp a) {
            // The first aggregation of a program that reads its input rows
            // in place gathers them from the dataset's rows when the
            // trainer passes them (InputRowsInPlace.cpp).
            std::string graph = e.graph(a.getGraph()),
                        input = e.name(a.getInput());
            if (e.readsInputRowsInPlace() && aggregatesInputInPlace(a)) {
              const std::string table = rt::ctx::inputTable.str();
              graph = table + " ? *" + rt::ctx::inputTableBlock.str() + " : " +
                      graph;
              input = table + " ? " + table + " : " + input;
            }
            return e.kernelStmt(
                rt::kernels::aggregate,
                {graph, rt::reduce(a.getReduce()).str(),
                 cppBool(a.getSelfLoops()), input, e.width(a.getInput()),
                 e.ptrOrNull(a.getWeight()), weightWidth(a.getWeight()), out});
          })
          .Case<AggregateGradOp, AggregateWeightGradOp>([&](auto a) {
            return e.kernelStmt(
                isa<AggregateGradOp>(op) ? rt::kernels::aggregateGradInput
                                         : rt::kernels::aggregateGradWeight,
                {e.graph(a.getGraph()), rt::reduce(a.getReduce()).str(),
                 cppBool(a.getSelfLoops()), e.name(a.getGrad()),
                 e.name(a.getInput()), e.name(a.getOutput()),
                 e.width(a.getInput()), e.ptrOrNull(a.getWeight()),
                 weightWidth(a.getWeight()), out});
          })
          .Case<AggregateRelationRowsOp>([&](AggregateRelationRowsOp a) {
            // Table rows are the sources' whole-graph ids (ctx.nodeIds; null
            // in a single full-graph process, where ids are rows).
            return e.kernelStmt(rt::kernels::aggregateRelationRows,
                                {e.graph(a.getGraph()),
                                 rt::reduce(a.getReduce()).str(),
                                 e.name(a.getTable()), e.dims(a.getTable())[1],
                                 e.width(res), rt::ctx::nodeIds.str(), out});
          })
          .Case<AggregateRelationRowsGradOp>(
              [&](AggregateRelationRowsGradOp a) {
                return e.kernelStmt(
                    rt::kernels::aggregateRelationRowsGrad,
                    {e.graph(a.getGraph()), rt::reduce(a.getReduce()).str(),
                     e.name(a.getGrad()), e.dims(a.getTable())[1],
                     e.width(a.getGrad()), rt::ctx::nodeIds.str(), out});
              })
          .Case<AggregateRelationsOp>([&](AggregateRelationsOp a) {
            return e.kernelStmt(rt::kernels::aggregateRelations,
                                {e.graph(a.getGraph()),
                                 rt::reduce(a.getReduce()).str(),
                                 e.name(a.getInput()), e.width(a.getInput()),
                                 e.name(a.getWeight()), e.width(res), out});
          })
          .Case<AggregateRelationsGradOp>([&](AggregateRelationsGradOp a) {
            return e.kernelStmt(rt::kernels::aggregateRelationsGradInput,
                                {e.graph(a.getGraph()),
                                 rt::reduce(a.getReduce()).str(),
                                 e.name(a.getGrad()), e.name(a.getWeight()),
                                 e.width(res), e.width(a.getGrad()), out});
          })
          .Case<AggregateRelationsWeightGradOp>(
              [&](AggregateRelationsWeightGradOp a) {
                return e.kernelStmt(
                    rt::kernels::aggregateRelationsGradWeight,
                    {e.graph(a.getGraph()), rt::reduce(a.getReduce()).str(),
                     e.name(a.getGrad()), e.name(a.getInput()),
                     e.width(a.getInput()), e.width(a.getGrad()), out});
              })
          .Case<DegreeOp>([&](DegreeOp d) {
            std::string local = e.kernelStmt(
                rt::kernels::degree,
                {e.graph(d.getGraph()), rt::side(d.getSide()).str(), out});
            // A relation's in-degrees are local (a partition holds its
            // nodes' in-edges); its out-degrees span the whole graph.
            if (isRelation(d.getGraph())) {
              if (d.getSide() == EdgeSide::dst)
                return local;
              return ifHalo(e,
                            "throw DataError(" +
                                cppString(target::describeLocation(d.getLoc()) +
                                          ": degree(relation(g, ...), "
                                          "src) needs the relation's "
                                          "out-degrees over the whole "
                                          "graph: one process only so "
                                          "far") +
                                ");\n") +
                     local;
            }
            // A partition sees only its own edges: distributed runs pass
            // the global degrees.
            std::string given =
                (d.getSide() == EdgeSide::src ? rt::ctx::srcDegree
                                              : rt::ctx::dstDegree)
                    .str();
            return "if (" + given + ")\n  " +
                   e.copyStmt(given, e.numel(res), out) + "else\n  " +
                   e.kernelStmt(rt::kernels::degree,
                                {e.graph(d.getGraph()),
                                 rt::side(d.getSide()).str(), out});
          })
          .Case<NodeTypeOp>([&](NodeTypeOp t) {
            // The sources' whole-graph ids are ctx.nodeIds (a partition's,
            // halo included, or a batch's), or their rows.
            return e.kernelStmt(
                rt::kernels::nodeTypeIndicator,
                {e.graph(t.getGraph()), rt::ctx::nodeIds.str(),
                 (rt::ctx::nodeType + "(" + cppString(t.getName()) + ")").str(),
                 out});
          })
          .Case<DstGradOp>([&](DstGradOp d) {
            // The destinations are the leading sources; the rest get 0.
            std::string dstElems =
                product({e.member(d.getGraph(), rt::graph::numDst),
                         e.width(d.getGrad())});
            return e.copyStmt(e.name(d.getGrad()), dstElems, out) +
                   e.zeroStmt(out, dstElems, e.numel(res));
          })
          .Default([&](Operation *op) { return haloCode(e, op); });
  if (code.empty())
    return unsupported(op);
  e.os << code;
  return success();
}
