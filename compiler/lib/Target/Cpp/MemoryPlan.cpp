//===- MemoryPlan.cpp - buffer liveness and reuse -------------------------===//
//
// Linear-scan slot assignment over a single block: a value is live from its
// defining op to the last op that uses it or any view of it. Walking the ops
// in order, each op's buffered results take a free slot (the most recently
// freed first, whose buffer is warm in cache), and the slots of values whose
// last use is this op are freed after its results are placed, so an op never
// writes into a buffer it is still reading.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cpp/MemoryPlan.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace gnn::cpp;

Value MemoryPlan::root(Value v) const {
  while (storages.lookup(v) == Storage::View)
    v = aliases.lookup(v);
  return v;
}

MemoryPlan::MemoryPlan(Block &body, function_ref<Storage(Value)> storageOf,
                       function_ref<Value(Value)> aliasOf) {
  // Number the ops and classify every result.
  DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body) {
    position[&op] = index++;
    for (Value result : op.getResults()) {
      Storage s = storageOf(result);
      storages[result] = s;
      if (s == Storage::View)
        aliases[result] = aliasOf(result);
    }
  }
  for (BlockArgument arg : body.getArguments())
    storages[arg] = Storage::External;

  // The last use of each buffered value, through its views.
  DenseMap<Value, unsigned> lastUse;
  for (Operation &op : body)
    for (Value operand : op.getOperands()) {
      Value r = root(operand);
      if (storages.lookup(r) == Storage::Slot)
        lastUse[r] = std::max(lastUse.lookup(r), position[&op]);
    }

  // Values dying at each position.
  DenseMap<unsigned, SmallVector<Value>> dying;
  for (auto &[value, last] : lastUse)
    dying[last].push_back(value);

  SmallVector<int> freeSlots;
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      if (storages.lookup(result) != Storage::Slot)
        continue;
      ++bufferedCount;
      int s;
      if (!freeSlots.empty()) {
        s = freeSlots.pop_back_val();
      } else {
        s = slotCount++;
      }
      slots[result] = s;
      // A result nobody reads dies at once.
      if (!lastUse.count(result))
        freeSlots.push_back(s);
    }
    auto it = dying.find(position[&op]);
    if (it == dying.end())
      continue;
    // Deterministic order: by slot number.
    SmallVector<int> freed;
    for (Value v : it->second)
      freed.push_back(slots.lookup(v));
    llvm::sort(freed, std::greater<int>());
    freeSlots.append(freed.begin(), freed.end());
  }
}
