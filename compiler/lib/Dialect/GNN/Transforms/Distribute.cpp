//===- Distribute.cpp - the per-rank program of a partitioned graph -------===//
//
// The gnn-distribute pass. On a rank holding one partition, a node tensor
// lives in one of two row spaces: the source space (the rank's owned nodes,
// then its halo nodes) or the destination space (owned nodes only, a prefix
// of the source space). Aggregations read source rows and produce
// destination rows. Single-process code never notices the difference, since
// the two spaces coincide; this pass makes it explicit so that the same
// program runs on every rank:
//
//  - a destination-space value that feeds a source-space reader (the next
//    layer's aggregation, a gather of sources) goes through
//    gnn.halo_exchange, which fetches the halo rows from their owners
//    (once per value: later readers share it);
//  - an elementwise op mixing the two spaces reads the source-space operand
//    through gnn.dst (its owned prefix, a view);
//  - the input features are owned rows: the first layer transforms them
//    locally and exchanges the product;
//  - link prediction's pairs (`pairs(g)`: those whose destination the rank
//    owns) read their sources through an exchange of their own: a gather
//    of the pairs' sources widens its input by a gnn.halo_exchange over
//    the pairs graph (the trainer fills the pairs' halo), and the output
//    has a row per pair;
//  - an unweighted sum or mean of a destination-space value becomes
//    gnn.halo_aggregate: the exchange overlapped with the owned rows'
//    reduction, one-shot or, with `aggregation = sequential` (or
//    sequential_remat), one remote part at a time (SAR); without a setting
//    the runtime picks from the halo buffer's size. Linear aggregations
//    need no forward rows in their backward, so there is nothing to keep or
//    rematerialize. A weighted one (GAT's attention) does read them there,
//    for its weight gradient: under sequential_remat it joins the ring too
//    and its backward fetches the remote rows again; otherwise it reads
//    them through gnn.halo_exchange, which keeps them.
//
// Autodiff then turns each exchange into its adjoint, which returns halo
// gradients to their owners. Users write no communication.
//
//===----------------------------------------------------------------------===//

#include "OutputRows.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace gnn {
#define GEN_PASS_DEF_DISTRIBUTE
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

enum class Space { None, Src, Dst, Edge };

class RowSpaces {
public:
  /// `pairRows`: the model returns a row per pair (link prediction).
  RowSpaces(func::FuncOp f, bool pairRows) : f(f), pairRows(pairRows) {}

  /// Places every value; fails (after an error at the model) if the model
  /// returns a value with one row per edge.
  LogicalResult run() {
    Block &body = f.getBody().front();
    switch (TrainAttr::of(f).getAggregation()) {
    case AggregationMode::automatic:
      mode = HaloMode::automatic;
      break;
    case AggregationMode::one_shot:
      mode = HaloMode::one_shot;
      break;
    case AggregationMode::sequential:
      mode = HaloMode::sequential;
      break;
    case AggregationMode::sequential_remat:
      mode = HaloMode::sequential;
      remat = true;
      break;
    }
    for (BlockArgument arg : body.getArguments())
      if (isa<GraphType>(arg.getType())) {
        if (!graph)
          graph = arg;
      } else if (isa<RankedTensorType>(arg.getType())) {
        // The input features: a rank holds its owned rows only. The first
        // layer transforms them there and exchanges the (usually narrower)
        // product, rather than fetching and transforming halo features.
        spaces[arg] = Space::Dst;
      }
    if (!graph)
      return success();
    for (Operation &op : llvm::make_early_inc_range(body))
      visit(&op);
    return failure(returnsEdgeRows);
  }

private:
  Space of(Value v) { return spaces.lookup(v); }

  /// `v` moved from space `from` to `to` by an `OpTy %g, %v` placed right
  /// after the later of v's and g's definitions (a block `g[i]` may be made
  /// after the rows it will read), made once per value and shared by later
  /// readers.
  template <typename OpTy>
  Value convert(Value v, Value g, Space from, Space to,
                DenseMap<Value, Value> &made) {
    if (of(v) != from)
      return v;
    auto it = made.find(v);
    if (it != made.end())
      return it->second;
    OpBuilder b(v.getContext());
    Operation *def = v.getDefiningOp();
    if (Operation *graphDef = g.getDefiningOp();
        graphDef && (!def || (graphDef->getBlock() == def->getBlock() &&
                              def->isBeforeInBlock(graphDef))))
      def = graphDef;
    if (def)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(v.getParentBlock());
    Value converted = b.create<OpTy>(v.getLoc(), v.getType(), g, v);
    spaces[converted] = to;
    made[v] = converted;
    return converted;
  }

  /// `v` in the source space of `g`: widened by a halo exchange if needed
  /// (the graph's or, for the pairs, theirs: one per value and graph).
  Value asSrc(Value g, Value v) {
    return convert<HaloExchangeOp>(v, g, Space::Dst, Space::Src,
                                   exchanged[g]);
  }

  /// `v` in the destination space: its owned prefix if it is a source one.
  Value asDst(Value v) {
    return convert<DstOp>(v, graph, Space::Src, Space::Dst, narrowed);
  }

  void set(Operation *op, Space s) {
    for (Value r : op->getResults())
      spaces[r] = s;
  }

  static Space spaceOf(GraphRows rows) {
    switch (rows) {
    case GraphRows::SrcNodes:
      return Space::Src;
    case GraphRows::DstNodes:
      return Space::Dst;
    case GraphRows::Edges:
      return Space::Edge;
    }
    llvm_unreachable("unknown GraphRows");
  }

  void visit(Operation *op) {
    // Graph ops that read source rows get them widened by a halo exchange
    // (or, for a linear aggregation, fused with one); every graph op's
    // result lives where its GraphOpInterface says.
    if (auto a = dyn_cast<AggregateOp>(op)) {
      bool linear = a.getReduce() == ReduceKind::sum ||
                    a.getReduce() == ReduceKind::mean;
      // A weighted one's weight gradient reads the source rows: it joins
      // the ring only where its backward fetches them again.
      Value weight = a.getWeight();
      bool fusable = !weight || (remat && a.getGraph() == graph &&
                                 of(weight) == Space::Edge);
      if (linear && fusable && of(a.getInput()) == Space::Dst) {
        // The exchange fused with the aggregation: it overlaps the
        // owned rows' reduction and can go one remote part at a time.
        OpBuilder b(op);
        Value h = b.create<HaloAggregateOp>(
            a.getLoc(), a.getType(), a.getGraph(), a.getInput(), weight,
            a.getReduceAttr(), a.getSelfLoopsAttr(),
            HaloModeAttr::get(b.getContext(),
                              weight ? HaloMode::sequential : mode));
        spaces[h] = Space::Dst;
        a.replaceAllUsesWith(h);
        a.erase();
        return;
      }
      a.getInputMutable().assign(asSrc(a.getGraph(), a.getInput()));
    }
    // The destinations of owned rows are those rows: dst(x) of a
    // destination-space x is x itself (and so is its adjoint, which would
    // otherwise pad the gradient to the halo rows).
    if (auto d = dyn_cast<DstOp>(op); d && of(d.getInput()) == Space::Dst &&
                                       d.getType() == d.getInput().getType()) {
      d.replaceAllUsesWith(d.getInput());
      d.erase();
      return;
    }
    // Each relation's messages come from any source, halo ones included.
    if (auto a = dyn_cast<AggregateRelationsOp>(op))
      a.getInputMutable().assign(asSrc(a.getGraph(), a.getInput()));
    // Destinations are the owned prefix of the sources, so a gather of
    // destinations reads either space.
    if (auto g = dyn_cast<GatherOp>(op); g && g.getSide() == EdgeSide::src)
      g.getInputMutable().assign(asSrc(g.getGraph(), g.getInput()));
    if (auto graphOp = dyn_cast<GraphOpInterface>(op))
      return set(op, spaceOf(graphOp.getResultRows()));
    TypeSwitch<Operation *>(op)
        .Case<MatmulOp>([&](MatmulOp m) { set(op, of(m.getLhs())); })
        .Case<func::ReturnOp>([&](func::ReturnOp r) {
          // The logits: one row per owned node. A value with one row per
          // edge (a gather, an edge softmax) is not logits: the trainer
          // would read E rows as N and die, so it is an error here. A link
          // program's scores are rows of the pairs: they stay.
          for (OpOperand &operand : r->getOpOperands()) {
            if (of(operand.get()) == Space::Edge && pairRows)
              continue;
            if (of(operand.get()) == Space::Edge) {
              f.emitError(kEdgeRowsOutputError);
              returnsEdgeRows = true;
              continue;
            }
            operand.set(asDst(operand.get()));
          }
        })
        .Default([&](Operation *other) {
          // Row-wise ops (elementwise, dropout, reshape, softmax, concat...)
          // keep the space of their node-row operands; a mix of source and
          // destination rows is computed on destination rows.
          bool src = false, dst = false, edge = false;
          for (Value v : other->getOperands()) {
            src |= of(v) == Space::Src;
            dst |= of(v) == Space::Dst;
            edge |= of(v) == Space::Edge;
          }
          if (src && dst)
            for (OpOperand &operand : other->getOpOperands())
              operand.set(asDst(operand.get()));
          set(other, edge  ? Space::Edge
                     : dst ? Space::Dst
                     : src ? Space::Src
                           : Space::None);
        });
  }

  func::FuncOp f;
  bool pairRows;
  /// `aggregation = sequential_remat`.
  bool remat = false;
  Value graph;
  /// How halo_aggregate fetches remote rows: the train block's
  /// `aggregation` (sequential_remat is sequential: see above), or "auto".
  HaloMode mode = HaloMode::automatic;
  DenseMap<Value, Space> spaces;
  /// The exchanges made, per graph (the message-passing graph, a pairs
  /// graph), and the owned prefixes.
  DenseMap<Value, DenseMap<Value, Value>> exchanged;
  DenseMap<Value, Value> narrowed;
  bool returnsEdgeRows = false;
};

struct DistributePass : gnn::impl::DistributeBase<DistributePass> {
  void runOnOperation() override {
    // Sampled training fetches remote rows while building its blocks
    // (gnn-sample-blocks bound the forward to them): nothing to exchange.
    if (getOperation()->hasAttr("gnn.blocks"))
      return;
    // Graph-level training is data-parallel: each rank holds whole graphs
    // of the batch, and only the gradients are summed across ranks.
    TrainAttr train = TrainAttr::of(getOperation());
    if (train.getGraphBatches())
      return;
    if (failed(RowSpaces(getOperation(), bool(train.getLinks())).run()))
      signalPassFailure();
  }
};

} // namespace
