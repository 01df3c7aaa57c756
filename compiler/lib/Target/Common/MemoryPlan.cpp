//===- MemoryPlan.cpp - buffer liveness and reuse -------------------------===//
//
// Linear-scan slot assignment over a single block: a value is live from its
// defining op to the last op that uses it or any view of it. Walking the ops
// in order, each op's buffered results take a free slot (best fit by
// estimated size; among equals the most recently freed, whose buffer is warm
// in cache), and the slots of values whose last use is this op are freed
// after its results are placed, so an op never writes into a buffer it is
// still reading.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/MemoryPlan.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace gnn::target;

namespace {

/// A size estimate for choosing slots: elements, with a dynamic leading dim
/// counted as a large row count and any other dynamic dim as a narrow width
/// (class counts, feature widths are usually static or small).
double estimatedElements(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  if (!type || !type.hasRank())
    return 1;
  double elements = 1;
  for (int64_t i = 0; i < type.getRank(); ++i)
    elements *= type.isDynamicDim(i) ? (i == 0 ? 1e6 : 16.0)
                                     : double(type.getDimSize(i));
  return elements;
}

} // namespace

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
  SmallVector<double> capacity; // per slot: the largest estimate it held
  // The free slot for `need` elements: the smallest that holds it, else the
  // largest (growing it least); ties go to the most recently freed.
  auto choose = [&](double need) -> int {
    if (freeSlots.empty()) {
      capacity.push_back(need);
      return slotCount++;
    }
    int best = -1;
    for (int i = int(freeSlots.size()) - 1; i >= 0; --i) {
      double c = capacity[freeSlots[i]];
      if (best < 0) {
        best = i;
        continue;
      }
      double b = capacity[freeSlots[best]];
      bool fits = c >= need, bestFits = b >= need;
      if ((fits && (!bestFits || c < b)) || (!fits && !bestFits && c > b))
        best = i;
    }
    int s = freeSlots[best];
    freeSlots.erase(freeSlots.begin() + best);
    capacity[s] = std::max(capacity[s], need);
    return s;
  };
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      if (storages.lookup(result) != Storage::Slot)
        continue;
      ++bufferedCount;
      int s = choose(estimatedElements(result));
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
