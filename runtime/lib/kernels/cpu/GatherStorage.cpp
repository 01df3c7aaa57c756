//===- GatherStorage.cpp - The precision gathers read rows in -------------===//

#include "gnnrt/kernels/GatherStorage.h"

#include "Common.h"

#include <atomic>
#include <vector>

namespace gnnrt::kernels {

namespace {

std::atomic<GatherStorage> processStorage{GatherStorage::Float32};

struct DeclaredTable {
  const float *rows = nullptr;
  const BFloat16 *copy = nullptr;
  int64_t values = 0;
};
DeclaredTable declaredTable;

} // namespace

void setGatherStorage(GatherStorage storage) { processStorage = storage; }

GatherStorage gatherStorage() { return processStorage; }

void setBFloat16Table(const float *rows, const BFloat16 *copy,
                      int64_t values) {
  declaredTable = rows && copy ? DeclaredTable{rows, copy, values}
                               : DeclaredTable{};
}

void roundToBFloat16(const float *src, BFloat16 *dst, int64_t n) {
  const bool threaded = detail::worthThreads(n);
#pragma omp parallel for simd schedule(static) if (threaded)
  for (int64_t i = 0; i < n; ++i)
    dst[i] = toBFloat16(src[i]);
}

const BFloat16 *bfloat16Rows(const float *rows, int64_t values) {
  if (rows == declaredTable.rows && values <= declaredTable.values)
    return declaredTable.copy;
  // A gather runs on one thread at a time per caller; the buffer only grows
  // (a run's largest activation, in bf16).
  thread_local std::vector<BFloat16> scratch;
  if (int64_t(scratch.size()) < values)
    scratch.resize(size_t(values));
  roundToBFloat16(rows, scratch.data(), values);
  return scratch.data();
}

} // namespace gnnrt::kernels
