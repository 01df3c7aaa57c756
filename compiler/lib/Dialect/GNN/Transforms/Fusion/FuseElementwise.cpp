//===- FuseElementwise.cpp - chains of elementwise ops into gnn.map -------===//
//
// The gnn-fuse-elementwise pass. Walks a function body once, growing groups
// of elementwise ops of one result type along def-use edges: an op starts a
// group and absorbs the groups of its operands' producers. The fused gnn.map
// is placed right after the group's latest external input, so a producer
// group may join only if every use of the merged group outside it comes
// after that input. Each group of two or more ops becomes one gnn.map whose
// results are the group's values that are used outside it.
//
//===----------------------------------------------------------------------===//

#include "FusedBody.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace gnn {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

class Grouping {
public:
  explicit Grouping(Block &block) : block(block) {}

  void run() {
    for (Operation &op : block)
      if (isFusibleElementwise(&op))
        visit(&op);
    for (auto &[id, members] : groups)
      if (members.size() >= 2)
        fuse(members);
  }

private:
  void visit(Operation *op) {
    int id = nextId++;
    groupOf[op] = id;
    groups[id].push_back(op);
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !groupOf.count(producer))
        continue;
      int other = groupOf[producer];
      if (other == id || operand.getType() != op->getResult(0).getType())
        continue;
      SmallVector<Operation *> merged(groups[id]);
      llvm::append_range(merged, groups[other]);
      if (!placeable(merged))
        continue;
      for (Operation *m : groups[other])
        groupOf[m] = id;
      groups[id] = std::move(merged);
      groups.erase(other);
    }
  }

  bool contains(ArrayRef<Operation *> group, Operation *op) {
    return llvm::is_contained(group, op);
  }

  /// The op defining the group's latest external input (null: all inputs
  /// are block arguments). The fused op goes right after it.
  Operation *latestInput(ArrayRef<Operation *> group) {
    Operation *latest = nullptr;
    for (Operation *m : group)
      for (Value v : m->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && !contains(group, def) &&
            (!latest || latest->isBeforeInBlock(def)))
          latest = def;
      }
    return latest;
  }

  /// Whether one op can compute the whole group: every use of a member
  /// outside the group comes after the group's latest input.
  bool placeable(ArrayRef<Operation *> group) {
    Operation *latest = latestInput(group);
    for (Operation *m : group)
      for (Operation *user : m->getUsers()) {
        Operation *u = block.findAncestorOpInBlock(*user);
        if (contains(group, u))
          continue;
        if (!u || (latest && !latest->isBeforeInBlock(u)))
          return false;
      }
    return true;
  }

  bool usedOutside(Operation *m, ArrayRef<Operation *> group) {
    return llvm::any_of(m->getUsers(), [&](Operation *user) {
      return !contains(group, block.findAncestorOpInBlock(*user));
    });
  }

  void fuse(SmallVector<Operation *> &members) {
    llvm::sort(members,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    SmallVector<Value> inputs, results;
    for (Operation *m : members) {
      for (Value v : m->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!(def && contains(members, def)) && !llvm::is_contained(inputs, v))
          inputs.push_back(v);
      }
      if (usedOutside(m, members))
        results.push_back(m->getResult(0));
    }
    Operation *last = members.back();
    if (results.empty())
      results.push_back(last->getResult(0));
    OpBuilder b(block.getParentOp()->getContext());
    if (Operation *latest = latestInput(members))
      b.setInsertionPointAfter(latest);
    else
      b.setInsertionPointToStart(&block);
    SmallVector<Type> types(results.size(), last->getResult(0).getType());
    auto map = b.create<MapOp>(last->getLoc(), types, inputs);
    buildFusedBody(map.getBody(), inputs, members, results);
    for (auto [from, to] : llvm::zip(results, map.getResults()))
      from.replaceAllUsesWith(to);
    for (Operation *m : llvm::reverse(members))
      m->erase();
  }

  Block &block;
  DenseMap<Operation *, int> groupOf;
  std::map<int, SmallVector<Operation *>> groups;
  int nextId = 0;
};

struct FuseElementwisePass
    : gnn::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    for (Block &block : getOperation().getBody())
      Grouping(block).run();
  }
};

} // namespace
