//===- GatherStorage.h - The precision gathers read rows in -----*- C++ -*-===//
//
// Mixed precision (`precision = bf16`, issue 32) on the CPU: the sum and
// mean gathers of float rows (aggregate, aggregateScaledRows and the input
// adjoint of aggregate: the bulk of a GNN's memory traffic) can read their
// rows as bfloat16, half the bytes, widening each value back to float
// before it is used, so every sum still accumulates in fp32 in the same
// order. The result is exactly the float gather over the rows rounded to
// bf16 (support/BFloat16.h), whatever the thread count or rank count.
// GEMMs round their operands the same way (Gemm.h). The rows a fused halo
// aggregation fetches from other ranks travel as bf16 for the same reason
// (HaloExchange::aggregate: the receiving gather would round them anyway).
// What stays fp32: elementwise ops, max/min gathers, the edge kernels, other
// halo messages (plain exchanges and every adjoint's partial sums),
// parameters and optimizer state.
//
// The storage is a property of the run, not of a call, so it is set once
// per process (the trainer does, from TrainSettings::precision, before its
// first step) and every caller of the kernels (generated code, the halo
// exchange, the samplers' blocks) gets it alike. Double gathers (gradient
// checks) always read doubles.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_GATHERSTORAGE_H
#define GNNRT_KERNELS_GATHERSTORAGE_H

#include "gnnrt/support/BFloat16.h"

#include <cstdint>

namespace gnnrt::kernels {

/// How the sum and mean gathers of float rows read their rows.
enum class GatherStorage { Float32, BFloat16 };

void setGatherStorage(GatherStorage storage);
GatherStorage gatherStorage();

/// Sets the process's gather storage for a scope and restores the one
/// before it (tests, and tools that compare precisions in one process).
class ScopedGatherStorage {
public:
  explicit ScopedGatherStorage(GatherStorage storage)
      : previous(gatherStorage()) {
    setGatherStorage(storage);
  }
  ScopedGatherStorage(const ScopedGatherStorage &) = delete;
  ScopedGatherStorage &operator=(const ScopedGatherStorage &) = delete;
  ~ScopedGatherStorage() { setGatherStorage(previous); }

private:
  GatherStorage previous;
};

/// Declares `copy` the bf16 rounding of the `values` floats at `rows`
/// (a table gathers read in place, such as a sampled trainer's feature
/// table), so that a gather over `rows` reads it instead of rounding the
/// rows again; nullptr forgets it. The caller keeps both alive meanwhile.
void setBFloat16Table(const float *rows, const BFloat16 *copy, int64_t values);

/// The first `values` floats of `rows` in bf16: the declared table's copy,
/// or a rounding into this thread's scratch buffer (valid until its next
/// call on this thread).
const BFloat16 *bfloat16Rows(const float *rows, int64_t values);

/// bf16 rows to gather from: on cache-line boundaries and, when large, on
/// 2 MiB boundaries advised to be huge pages, as the workspaces' float rows
/// are (measured on 300k random rows of 16 values, one thread: 0.154 s from
/// a malloc'd vector, 0.066 s from such a buffer; fp32 0.067 s).
class BFloat16Buffer {
public:
  BFloat16Buffer() = default;
  BFloat16Buffer(const BFloat16Buffer &) = delete;
  BFloat16Buffer &operator=(const BFloat16Buffer &) = delete;
  ~BFloat16Buffer();
  /// At least n values; growing does not keep the contents.
  void reserve(int64_t n);
  BFloat16 *data() const { return values; }
  bool empty() const { return capacity == 0; }

private:
  void release();
  BFloat16 *values = nullptr;
  int64_t capacity = 0;
  size_t alignment = 0;
};

/// Rounds n floats to bf16 in parallel (OpenMP).
void roundToBFloat16(const float *src, BFloat16 *dst, int64_t n);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_GATHERSTORAGE_H
