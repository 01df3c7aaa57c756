//===- SampleBlocks.cpp - layers bound to sampled message-flow blocks ------===//
//
// The gnn-sample-blocks pass. A sampled mini-batch is a chain of bipartite
// blocks: block i maps the nodes of level i to those of level i+1, level 0
// being the input nodes and level L the seeds, and each level is a prefix of
// the one below it. A model written against the whole graph `g` says
// nothing about blocks; this pass derives them from the dataflow, so that
// the same source trains on the full graph or on samples by changing only
// `batches = ...`:
//
//  - every node tensor has a level: the input features are level 0, an
//    aggregation (scatter, dst) of level d gives level d+1, a gather of
//    level d is an edge tensor of block d, row-wise ops keep the level;
//  - a graph operation over `g` at level d is bound to `gnn.block %g layer=d`
//    (an explicit `g[i]` in the source must agree);
//  - an op mixing levels is computed at the deepest (smallest) one, reading
//    the others through `gnn.dst` chains (their prefixes);
//  - a degree column belongs to no level until it meets one: degree(g, src)
//    used at level d is block d's out-degree, degree(g, dst) block d-1's
//    in-degree. Its computation is re-created per level where it is used.
//
// The number of blocks is the level of the output; the train block's
// fanout list must have that many entries. The forward gets `gnn.blocks`.
//
// A link-prediction model scores pairs: gathers over `pairs(g)` read node
// rows of the seeds (the pairs' endpoints, the last level) and give pair
// rows, one per scored pair, which row-wise ops keep and the output may
// be. Such a gather's input is narrowed to the last level once the output
// fixes it.
//
//===----------------------------------------------------------------------===//

#include "OutputRows.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/GNNVisitor.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace gnn {
#define GEN_PASS_DEF_SAMPLEBLOCKS
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// Where a value's rows live. Node: the nodes of `level`; Edge: the edges
/// of block `level`; Deferred: node rows of a level not yet known (degree
/// and node type columns); Pair: the pairs of pairs(g) (`level`: the
/// deepest level a pair gather read); None: no graph rows (parameters,
/// constants, scalars).
struct Rows {
  enum Kind { None, Node, Edge, Deferred, Pair } kind = None;
  int level = 0;
  /// Edge rows of a destination gather whose block is still open: a
  /// tensor of level k holds the destinations of block k-1 and the first
  /// sources of block k, so gather(g, x, dst) may mean either. The first
  /// edge tensor of a known block it is combined with decides; otherwise it
  /// is block k (`level`), and the gather then reads x's destination prefix.
  Operation *openGather = nullptr;
};

/// Binds the graph ops to blocks, dispatching by GNNVisitor's families: a
/// new op lands in its family's method, where it is row-wise unless that
/// family's switch says otherwise.
class BlockBinder : public GNNVisitor<BlockBinder, LogicalResult> {
public:
  explicit BlockBinder(func::FuncOp f) : f(f) {}

  LogicalResult run() {
    Block &body = f.getBody().front();
    if (body.getNumArguments() < 2 || !isa<GraphType>(body.getArgument(0).getType()))
      return f.emitOpError("a sampled model's forward must take (graph, "
                           "features)");
    graph = body.getArgument(0);
    rows[body.getArgument(1)] = {Rows::Node, 0};
    for (Operation &op : llvm::make_early_inc_range(body))
      if (failed(dispatchGNNVisitor(&op)))
        return failure();
    // The original degree computations, now re-created per level.
    SmallVector<Operation *> dead;
    for (Operation &op : body)
      if (llvm::any_of(op.getResults(), [&](Value v) {
            return rows.lookup(v).kind == Rows::Deferred;
          }))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
    return success();
  }

  int numBlocks() const { return blocks; }

private:
  Rows of(Value v) { return rows.lookup(v); }

  /// `gnn.block %g layer = i`, once per layer, at the top of the body.
  Value block(int layer) {
    auto it = blockValues.find(layer);
    if (it != blockValues.end())
      return it->second;
    OpBuilder b(f.getContext());
    b.setInsertionPointToStart(&f.getBody().front());
    Value v = b.create<BlockOp>(f.getLoc(), graph.getType(), graph,
                                b.getI64IntegerAttr(layer));
    blockValues[layer] = v;
    return v;
  }

  /// The layer a graph operand names explicitly (`g[i]`), if it does.
  std::optional<int> explicitLayer(Value g) {
    if (auto b = g.getDefiningOp<BlockOp>())
      return int(b.getLayer());
    return std::nullopt;
  }

  /// `v` (a node tensor) at level `target`: itself, or its prefix through a
  /// chain of gnn.dst, placed before `user`.
  FailureOr<Value> nodeAt(Value v, int target, Operation *user) {
    Rows r = of(v);
    if (r.kind == Rows::Deferred)
      return materialize(v, target, user);
    if (r.kind != Rows::Node || r.level == target)
      return v;
    if (r.level > target)
      return user->emitError()
             << "reads the output of layer " << r.level - 1
             << " as the input of layer " << target
             << ": a sampled block's sources are the previous layer's "
                "output nodes";
    OpBuilder b(user);
    for (int level = r.level; level < target; ++level) {
      auto key = std::make_pair(v, level + 1);
      auto it = narrowed.find(key);
      if (it != narrowed.end()) {
        v = it->second;
        continue;
      }
      Value d = b.create<DstOp>(user->getLoc(), v.getType(), block(level), v);
      rows[d] = {Rows::Node, level + 1};
      narrowed[key] = d;
      v = d;
    }
    return v;
  }

  /// A deferred (degree-derived) value re-created for node rows of `level`.
  FailureOr<Value> materialize(Value v, int level, Operation *user) {
    if (of(v).kind != Rows::Deferred)
      return v;
    auto key = std::make_pair(v, level);
    if (Value done = made.lookup(key))
      return done;
    Operation *def = v.getDefiningOp();
    OpBuilder b(user);
    Value result;
    if (auto d = dyn_cast<DegreeOp>(def)) {
      int layer = d.getSide() == EdgeSide::src ? level : level - 1;
      if (layer < 0)
        return d.emitError("degree(g, dst) is used with the input nodes, "
                           "which are no block's destinations");
      result = b.create<DegreeOp>(d.getLoc(), d.getType(), d.getSideAttr(),
                                  block(layer));
    } else if (auto t = dyn_cast<NodeTypeOp>(def)) {
      // Level 0 is block 0's sources; level k > 0 the destinations of block
      // k - 1, the prefix of its sources.
      const int layer = std::max(level - 1, 0);
      result = b.create<NodeTypeOp>(t.getLoc(), t.getType(), block(layer),
                                    t.getNameAttr());
      if (level > 0)
        result = b.create<DstOp>(t.getLoc(), t.getType(), block(layer), result);
    } else {
      IRMapping mapping;
      for (Value operand : def->getOperands()) {
        FailureOr<Value> m = materialize(operand, level, user);
        if (failed(m))
          return failure();
        mapping.map(operand, *m);
      }
      Operation *clone = b.clone(*def, mapping);
      result = clone->getResult(cast<OpResult>(v).getResultNumber());
      for (Value r : clone->getResults())
        rows[r] = {Rows::Node, level};
    }
    rows[result] = {Rows::Node, level};
    made[key] = result;
    return result;
  }

  /// Rebinds `op`'s graph operand to block `layer`, checking an explicit
  /// `g[i]` agrees.
  LogicalResult bind(Operation *op, MutableOperandRange graphOperand,
                     int layer) {
    Value g = OperandRange(graphOperand).front();
    if (std::optional<int> fixed = explicitLayer(g); fixed && *fixed != layer)
      return op->emitError() << "uses g[" << *fixed
                             << "] on the rows of layer " << layer
                             << "'s input";
    graphOperand.assign(block(layer));
    return success();
  }

  /// The layer an op over graph operand `g` with node input `in` runs in.
  int layerOf(Value g, Value in) {
    if (std::optional<int> fixed = explicitLayer(g))
      return *fixed;
    return of(in).kind == Rows::Node ? of(in).level : 0;
  }

  bool isOpen(Rows r) const {
    return r.openGather && !decided.count(r.openGather);
  }

  /// The block of edge rows `r`. An open destination gather is decided
  /// here: for `wanted` when it can be that block, else for its default.
  int edgeBlock(Rows r, int wanted = -1) {
    if (!r.openGather)
      return r.level;
    auto it = decided.find(r.openGather);
    if (it != decided.end())
      return it->second;
    int layer = wanted == r.level - 1 ? wanted : r.level;
    decided[r.openGather] = layer;
    auto gather = cast<GatherOp>(r.openGather);
    gather.getGraphMutable().assign(block(layer));
    // Block `level` reads the prefix of its input that are its destinations.
    if (layer == r.level) {
      FailureOr<Value> dst = nodeAt(gather.getInput(), layer + 1, gather);
      if (succeeded(dst))
        gather.getInputMutable().assign(*dst);
    }
    return layer;
  }

  void set(Operation *op, Rows r) {
    for (Value v : op->getResults())
      rows[v] = r;
  }

  LogicalResult narrowOperand(OpOperand &operand, int level, Operation *op) {
    FailureOr<Value> v = nodeAt(operand.get(), level, op);
    if (failed(v))
      return failure();
    operand.set(*v);
    return success();
  }
  LogicalResult narrowOperand(MutableOperandRange operand, int level,
                              Operation *op) {
    FailureOr<Value> v = nodeAt(OperandRange(operand).front(), level, op);
    if (failed(v))
      return failure();
    operand.assign(*v);
    return success();
  }

  friend class GNNVisitor<BlockBinder, LogicalResult>;

  // Parameters, constants and their kin have no rows; elementwise ops and
  // products are row-wise.
  template <class StorageOp> LogicalResult visitStorageOp(StorageOp op) {
    return visitRowWise(op);
  }
  LogicalResult visitElementwiseOp(Operation *op) { return visitRowWise(op); }
  LogicalResult visitMatmulOp(Operation *op) { return visitRowWise(op); }

  /// Whether `g` is the pairs of a link-prediction step (pairs(g)).
  static bool isPairs(Value g) { return g.getDefiningOp<PairsOp>() != nullptr; }

  /// A gather over pairs(g): pair rows from the seeds' rows (narrowed to
  /// the last level at the return), or from a per-relation table.
  LogicalResult visitPairGather(GatherOp g) {
    Rows in = of(g.getInput());
    if (in.kind == Rows::Edge || in.kind == Rows::Pair)
      return g.emitError("gathers over pairs(g) read node rows (or a "
                         "relation's row), not edge or pair rows");
    if (in.kind == Rows::Deferred) {
      FailureOr<Value> v = materialize(g.getInput(), 0, g);
      if (failed(v))
        return failure();
      g.getInputMutable().assign(*v);
      in = of(*v);
    }
    if (in.kind == Rows::Node)
      pairGathers.push_back(g);
    set(g, {Rows::Pair, in.kind == Rows::Node ? in.level : 0});
    return success();
  }

  LogicalResult visitEdgeOp(Operation *op) {
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case<GatherOp>([&](GatherOp g) -> LogicalResult {
          if (isPairs(g.getGraph()))
            return visitPairGather(g);
          int layer = layerOf(g.getGraph(), g.getInput());
          Rows in = of(g.getInput());
          if (g.getSide() == EdgeSide::dst && !explicitLayer(g.getGraph()) &&
              in.kind == Rows::Node && in.level > 0) {
            // Block `level` or `level - 1`: decided where it is used.
            set(op, {Rows::Edge, in.level, op});
            return bind(op, g.getGraphMutable(), in.level);
          }
          // A destination gather reads the destinations' rows (level
          // layer + 1), so that its adjoint has their shape too.
          int level = g.getSide() == EdgeSide::dst ? layer + 1 : layer;
          if (failed(narrowOperand(g.getInputMutable(), level, op)))
            return failure();
          set(op, {Rows::Edge, layer});
          return bind(op, g.getGraphMutable(), layer);
        })
        .Case<ScatterOp>([&](ScatterOp s) -> LogicalResult {
          if (isPairs(s.getGraph()))
            return s.emitError("a sampled link model reads pairs(g) only "
                               "through gathers of its endpoints' rows");
          Rows in = of(s.getInput());
          int layer = explicitLayer(s.getGraph()).value_or(
              in.kind == Rows::Edge ? edgeBlock(in) : 0);
          set(op, {Rows::Node, layer + 1});
          return bind(op, s.getGraphMutable(), layer);
        })
        .Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) -> LogicalResult {
          Rows in = of(s.getScores());
          int layer = explicitLayer(s.getGraph()).value_or(
              in.kind == Rows::Edge ? edgeBlock(in) : 0);
          set(op, {Rows::Edge, layer});
          return bind(op, s.getGraphMutable(), layer);
        })
        // Adjoints and fused edge maps come after this pass.
        .Default([&](Operation *other) { return visitRowWise(other); });
  }

  LogicalResult visitGraphOp(Operation *op) {
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case<AggregateOp>([&](AggregateOp a) -> LogicalResult {
          int layer = layerOf(a.getGraph(), a.getInput());
          if (failed(narrowOperand(a.getInputMutable(), layer, op)))
            return failure();
          if (Value w = a.getWeight())
            if (of(w).kind == Rows::Edge && edgeBlock(of(w), layer) != layer)
              return op->emitError("weights edges of block ")
                     << edgeBlock(of(w)) << " but aggregates over block "
                     << layer;
          set(op, {Rows::Node, layer + 1});
          return bind(op, a.getGraphMutable(), layer);
        })
        .Case<AggregateRelationRowsOp>(
            [&](AggregateRelationRowsOp a) -> LogicalResult {
              // The input layer: its table is indexed by node ids, not rows.
              int layer = explicitLayer(a.getGraph()).value_or(0);
              set(op, {Rows::Node, layer + 1});
              return bind(op, a.getGraphMutable(), layer);
            })
        .Case<AggregateRelationsOp>(
            [&](AggregateRelationsOp a) -> LogicalResult {
              int layer = layerOf(a.getGraph(), a.getInput());
              if (failed(narrowOperand(a.getInputMutable(), layer, op)))
                return failure();
              set(op, {Rows::Node, layer + 1});
              return bind(op, a.getGraphMutable(), layer);
            })
        .Case<NodeTypeOp>([&](NodeTypeOp t) -> LogicalResult {
          if (std::optional<int> fixed = explicitLayer(t.getGraph()))
            set(op, {Rows::Node, *fixed});
          else
            set(op, {Rows::Deferred, 0});
          return success();
        })
        .Case<DegreeOp>([&](DegreeOp d) -> LogicalResult {
          if (std::optional<int> fixed = explicitLayer(d.getGraph())) {
            set(op, {Rows::Node,
                     d.getSide() == EdgeSide::src ? *fixed : *fixed + 1});
            return success();
          }
          set(op, {Rows::Deferred, 0});
          return success();
        })
        // Adjoints and halo ops come after this pass.
        .Default([&](Operation *other) { return visitRowWise(other); });
  }

  LogicalResult visitTensorOp(Operation *op) {
    // A reduction over the rows leaves no rows; over columns it keeps them.
    if (auto red = dyn_cast<ReduceOp>(op)) {
      Rows in = of(red.getInput());
      set(op, red.getAxis() == 0 && in.kind != Rows::Deferred ? Rows{} : in);
      return success();
    }
    return visitRowWise(op);
  }

  LogicalResult visitStructureOp(Operation *op) {
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case<BlockOp>([&](BlockOp b) -> LogicalResult {
          blocks = std::max(blocks, int(b.getLayer()) + 1);
          return success();
        })
        .Case<DstOp>([&](DstOp d) -> LogicalResult {
          int layer = layerOf(d.getGraph(), d.getInput());
          if (failed(narrowOperand(d.getInputMutable(), layer, op)))
            return failure();
          set(op, {Rows::Node, layer + 1});
          return bind(op, d.getGraphMutable(), layer);
        })
        .Default([&](Operation *other) { return visitRowWise(other); });
  }

  /// Ops of other dialects: the return gives the number of blocks.
  LogicalResult visitInvalidOp(Operation *op) {
    auto r = dyn_cast<func::ReturnOp>(op);
    if (!r)
      return visitRowWise(op);
    Rows out = of(r.getOperand(0));
    if (out.kind == Rows::Pair)
      return finishPairs(out);
    if (out.kind == Rows::Edge)
      return r.emitError(kEdgeRowsOutputError);
    if (out.kind != Rows::Node)
      return r.emitError("a sampled model must return one row per "
                         "seed node, computed from the input features");
    blocks = std::max(blocks, out.level);
    return narrowOperand(r->getOpOperand(0), blocks, op);
  }

  /// A model returning pair scores: its blocks end at the deepest level a
  /// pair gather read, and every pair gather reads that level's rows (the
  /// seeds, which the pairs index).
  LogicalResult finishPairs(Rows out) {
    for (GatherOp g : pairGathers)
      blocks = std::max(blocks, of(g.getInput()).level);
    blocks = std::max(blocks, out.level);
    for (GatherOp g : pairGathers)
      if (failed(narrowOperand(g.getInputMutable(), blocks, g)))
        return failure();
    return success();
  }

  /// Elementwise and other row-wise ops: computed at the deepest level among
  /// their node operands; with pair operands, pair rows.
  LogicalResult visitRowWise(Operation *op) {
    int level = -1, known = -1, pairLevel = -1;
    bool deferred = false, edges = false;
    Rows open;
    for (Value v : op->getOperands()) {
      Rows r = of(v);
      if (r.kind == Rows::Pair)
        pairLevel = std::max(pairLevel, r.level);
      else if (r.kind == Rows::Node)
        level = std::max(level, r.level);
      else if (r.kind == Rows::Deferred)
        deferred = true;
      else if (r.kind == Rows::Edge) {
        edges = true;
        if (isOpen(r)) {
          open = r;
          continue;
        }
        if (known >= 0 && known != edgeBlock(r))
          return op->emitError("combines edges of blocks ")
                 << known << " and " << edgeBlock(r);
        known = edgeBlock(r);
      }
    }
    if (pairLevel >= 0) {
      if (level >= 0 || deferred || edges)
        return op->emitError("combines the rows of pairs(g) with node or "
                             "edge rows");
      set(op, {Rows::Pair, pairLevel});
      return success();
    }
    if (edges) {
      if (level >= 0 || deferred)
        return op->emitError("combines edge rows with node rows");
      // Open destination gathers join the known block; with none known the
      // result stays open.
      for (Value v : op->getOperands())
        if (of(v).kind == Rows::Edge && isOpen(of(v)))
          if (known >= 0 && edgeBlock(of(v), known) != known)
            return op->emitError("combines edges of blocks ")
                   << known << " and " << edgeBlock(of(v));
      set(op, known >= 0 ? Rows{Rows::Edge, known} : open);
      return success();
    }
    if (level < 0) {
      set(op, deferred ? Rows{Rows::Deferred, 0} : Rows{});
      return success();
    }
    for (OpOperand &operand : op->getOpOperands())
      if (failed(narrowOperand(operand, level, op)))
        return failure();
    set(op, {Rows::Node, level});
    return success();
  }

  func::FuncOp f;
  Value graph;
  int blocks = 0;
  DenseMap<Value, Rows> rows;
  DenseMap<int, Value> blockValues;
  DenseMap<std::pair<Value, int>, Value> narrowed, made;
  DenseMap<Operation *, int> decided;
  /// Gathers of node rows over pairs(g), narrowed at the return.
  SmallVector<GatherOp> pairGathers;
};

struct SampleBlocksPass : gnn::impl::SampleBlocksBase<SampleBlocksPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    SamplerAttr sampler = TrainAttr::of(f).getSampler();
    if (!sampler)
      return;
    BlockBinder binder(f);
    if (failed(binder.run()))
      return signalPassFailure();
    int blocks = binder.numBlocks();
    int64_t given = int64_t(sampler.getFanouts().size());
    if (given != blocks) {
      // Point at `batches = ...` when MLIRGen recorded where it is.
      Location loc = f.getLoc();
      if (auto at = f->getAttrOfType<LocationAttr>("gnn.batches_loc"))
        loc = at;
      StringRef model = f.getSymName().split('.').first;
      emitError(loc) << "neighbor sampling gives " << given << " fanout"
                     << (given == 1 ? "" : "s") << ", but model " << model
                     << " has " << blocks << " layer" << (blocks == 1 ? "" : "s")
                     << " of message passing: give one fanout per layer";
      return signalPassFailure();
    }
    f->setAttr("gnn.blocks",
               IntegerAttr::get(IntegerType::get(f.getContext(), 64), blocks));
  }
};

} // namespace
