//===- Gemm.h - Dense matrix products ---------------------------*- C++ -*-===//
//
// Dense matrix products through BLAS on the CPU: the family's CPU kernels,
// declared from its one list gnnrt/kernels/families/Gemm.def (which documents
// each kernel) in gnnrt::kernels, as templates instantiated for float and
// double in lib/kernels/cpu/Gemm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_GEMM_H
#define GNNRT_KERNELS_GEMM_H

#include <cstdint>
#include <functional>

namespace gnnrt::kernels {

/// Called with a range of rows [r0, r1) of a GEMM's C as soon as they are
/// final, on the thread that computed them: a fused epilogue.
using GemmEpilogue = std::function<void(int64_t r0, int64_t r1)>;

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Gemm.def"
#include "gnnrt/kernels/DeclareKernels.inc"

/// gemm<float> under `precision = bf16` (setGatherStorage(BFloat16)): op(A)
/// and op(B) rounded to bf16 (ties to even), products accumulated in fp32,
/// blocked as gemm blocks. With AVX512-BF16 (gemmHasNativeBFloat16) each
/// element of C is, from C (accumulate) or 0, the K pairs in order folded
/// by dotBFloat16Pairs; elsewhere the rounded operands go through SGEMM.
void gemmBFloat16(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
                  const float *A, const float *B, float *C, bool accumulate,
                  const GemmEpilogue &epilogue = nullptr);
/// Whether gemmBFloat16 runs the AVX512-BF16 kernel (the CPU has it, and
/// $GNNRT_CPU_ISA does not ask for the baseline).
bool gemmHasNativeBFloat16();
/// One lane of VDPBF16PS: `acc` plus the products of the bf16 pairs packed
/// in `a` and `b` (the element of even k in the low half), the odd pair's
/// added first, each sum rounded to nearest, subnormal inputs and results
/// flushed to zero. The native kernel's arithmetic, for tests.
float dotBFloat16Pairs(float acc, uint32_t a, uint32_t b);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_GEMM_H
