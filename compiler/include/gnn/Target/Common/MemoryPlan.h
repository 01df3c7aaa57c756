//===- MemoryPlan.h - buffer liveness and reuse for one function *- C++ -*-===//
//
// Plans the scratch memory of one gnn function (a forward or a train step)
// before it is emitted. Every value that needs its own buffer gets a slot
// number; values whose lifetimes do not overlap share a slot. Sizes are
// symbolic at compile time (they depend on the dataset), so the plan fixes
// only the sharing: a slot's buffer is as large as its largest value, which
// the generated code learns when it runs (gnnrt::Workspace grows on demand).
// To choose among free slots it estimates sizes from the types (a dynamic
// leading dim counts as many rows, any other as a narrow width): a value
// takes the smallest free slot that already holds that much, else grows the
// largest, so a wide node tensor does not enlarge a slot that held a column.
//
// Views do not get buffers: a parameter read, a reshape, `dst` (the leading
// rows of its input) and, in evaluation, dropout, all alias another value and
// extend that value's lifetime to their own last use.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_COMMON_MEMORYPLAN_H
#define GNN_TARGET_COMMON_MEMORYPLAN_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace gnn::target {

/// How the emitter materializes a value.
enum class Storage {
  Slot,     ///< a planned workspace buffer
  View,     ///< aliases another value (see MemoryPlan::viewOf)
  External, ///< owned by the caller: arguments, parameters
  Scalar,   ///< a local rank-0 value (constants, the loss)
  Kept,     ///< step-invariant, read after its section: kept across calls
            ///< outside the plan (gnn-hoist-invariants, Workspace::kept)
};

class MemoryPlan {
public:
  /// Plans `body`. `storageOf` classifies each op result; for View results,
  /// `aliasOf` names the value they alias.
  MemoryPlan(mlir::Block &body,
             llvm::function_ref<Storage(mlir::Value)> storageOf,
             llvm::function_ref<mlir::Value(mlir::Value)> aliasOf);

  Storage storage(mlir::Value v) const { return storages.lookup(v); }
  /// The slot of a Slot value.
  int slot(mlir::Value v) const { return slots.lookup(v); }
  /// The value a View aliases (itself a Slot, External or Scalar value).
  mlir::Value root(mlir::Value v) const;
  int numSlots() const { return slotCount; }
  int numBufferedValues() const { return bufferedCount; }

private:
  llvm::DenseMap<mlir::Value, Storage> storages;
  llvm::DenseMap<mlir::Value, mlir::Value> aliases;
  llvm::DenseMap<mlir::Value, int> slots;
  int slotCount = 0, bufferedCount = 0;
};

} // namespace gnn::target

#endif // GNN_TARGET_COMMON_MEMORYPLAN_H
