//===- GatherStorage.cpp - The precision gathers read rows in -------------===//

#include "gnnrt/kernels/GatherStorage.h"

#include "gnnrt/support/HugePages.h"

#include "Common.h"

#include <atomic>
#include <new>

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

void setBFloat16Table(const float *rows, const BFloat16 *copy, int64_t values) {
  declaredTable =
      rows && copy ? DeclaredTable{rows, copy, values} : DeclaredTable{};
}

BFloat16Buffer::~BFloat16Buffer() { release(); }

void BFloat16Buffer::release() {
  if (values)
    ::operator delete(values, std::align_val_t(alignment));
  values = nullptr;
  capacity = 0;
}

void BFloat16Buffer::reserve(int64_t n) {
  if (n <= capacity)
    return;
  release();
  const size_t bytes = size_t(n) * sizeof(BFloat16);
  alignment = bytes >= kHugePageMinBytes ? size_t(2) << 20 : 64;
  values = static_cast<BFloat16 *>(
      ::operator new(bytes, std::align_val_t(alignment)));
  adviseHugePages(values, bytes);
  capacity = n;
}

namespace {

void roundBaseline(const float *src, BFloat16 *dst, int64_t n) {
  const bool threaded = detail::worthThreads(n);
#pragma omp parallel for simd schedule(static) if (threaded)
  for (int64_t i = 0; i < n; ++i)
    dst[i] = toBFloat16(src[i]);
}

// The same loop in 16-lane vectors where the CPU has AVX-512 (the integer
// rounding of toBFloat16, not AVX512-BF16's conversion, which flushes
// subnormals): 38M values, 2 threads, 33 -> 8 ms.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
void roundAvx512(const float *src, BFloat16 *dst, int64_t n) {
  const bool threaded = detail::worthThreads(n);
#pragma omp parallel for simd schedule(static) if (threaded)
  for (int64_t i = 0; i < n; ++i)
    dst[i] = toBFloat16(src[i]);
}
#pragma GCC pop_options

} // namespace

void roundToBFloat16(const float *src, BFloat16 *dst, int64_t n) {
  if (detail::useAvx512())
    roundAvx512(src, dst, n);
  else
    roundBaseline(src, dst, n);
}

const BFloat16 *bfloat16Rows(const float *rows, int64_t values) {
  if (rows == declaredTable.rows && values <= declaredTable.values)
    return declaredTable.copy;
  // A gather runs on one thread at a time per caller; the buffer only grows
  // (a run's largest activation, in bf16).
  thread_local BFloat16Buffer scratch;
  scratch.reserve(values);
  roundToBFloat16(rows, scratch.data(), values);
  return scratch.data();
}

} // namespace gnnrt::kernels
