//===- CpuIsa.h - Which instruction set the CPU loops run --------*- C++ -*-===//
//
// Loops that have an AVX-512 version (compiled under a target pragma beside
// the baseline x86-64 one, with contraction into FMA off, so that both give
// the same bits) choose it here: the aggregation walks, dropout and bf16
// rounding and the cross-entropy's rows (kernels/cpu), and the optimizer's
// update.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_SUPPORT_CPUISA_H
#define GNNRT_SUPPORT_CPUISA_H

#include <cstdlib>
#include <cstring>

namespace gnnrt {

/// Whether loops with an AVX-512 version run it: where the CPU has AVX-512
/// F, BW and VL, unless $GNNRT_CPU_ISA=baseline asks for the baseline (read
/// on every call, so that a test can compare the two).
inline bool useAvx512() {
  static const bool cpuHasIt = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  }();
  const char *isa = std::getenv("GNNRT_CPU_ISA");
  return cpuHasIt && !(isa && std::strcmp(isa, "baseline") == 0);
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_CPUISA_H
