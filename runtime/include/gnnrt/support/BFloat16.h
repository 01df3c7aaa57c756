//===- BFloat16.h - bf16 storage: rounding and widening ---------*- C++ -*-===//
//
// The storage half of mixed precision (issue 32): features and activations
// that aggregations gather are kept as bfloat16 (the top 16 bits of an IEEE
// float) to halve the bytes a gather reads, and are widened back to float
// before any arithmetic, so every sum accumulates in fp32. Rounding is to
// nearest, ties to even, as PyTorch and the AVX512-BF16 conversions do; NaN
// stays a (quiet) NaN. Header-only and dependency-free so that kernels and
// generated code can both use it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_BFLOAT16_H
#define GNNRT_SUPPORT_BFLOAT16_H

#include <cstdint>
#include <cstring>

namespace gnnrt {

/// A bfloat16 value as stored: the high half of a float's bits.
struct BFloat16 {
  uint16_t bits = 0;
};

/// Rounds x to the nearest bfloat16, ties to even. Overflow rounds to
/// infinity as IEEE rounding does; a NaN keeps its sign and becomes quiet
/// (setting the top mantissa bit keeps a NaN whose payload lies only in the
/// dropped low bits from turning into infinity).
inline BFloat16 toBFloat16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return BFloat16{static_cast<uint16_t>((u >> 16) | 0x0040u)};
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}

/// The float a bfloat16 stands for (exact: every bf16 is a float).
inline float toFloat(BFloat16 b) {
  uint32_t u = static_cast<uint32_t>(b.bits) << 16;
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// Rounds n floats to bf16 (the storage copy made where a buffer is handed
/// to a bf16 gather).
inline void toBFloat16(const float *src, BFloat16 *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = toBFloat16(src[i]);
}

/// Widens n bf16 values to float (exact).
inline void toFloat(const BFloat16 *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = toFloat(src[i]);
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_BFLOAT16_H
