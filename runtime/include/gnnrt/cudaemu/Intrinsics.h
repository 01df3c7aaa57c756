//===- Intrinsics.h - CUDA's math and bit intrinsics on the host -*- C++
//-*-===//
//
// The explicitly rounded arithmetic (__fmul_rn, ...) is plain IEEE arithmetic
// on the host; the emulated build compiles with -ffp-contract=off so that no
// multiply-add is fused behind the kernels' back, which keeps results equal
// to the CPU kernels' where the kernels promise that. The fast-math
// intrinsics (__expf, ...) are the precise host functions: the emulation
// does not model their device error.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_INTRINSICS_H
#define GNNRT_CUDAEMU_INTRINSICS_H

#include <cmath>
#include <cstdint>
#include <cstring>

inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline double __fma_rn(double a, double b, double c) {
  return std::fma(a, b, c);
}

inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __saturatef(float x) { return x < 0 ? 0.0f : x > 1 ? 1.0f : x; }

/// __ldg reads through the read-only cache on a device: a plain load here.
template <typename T> inline T __ldg(const T *p) { return *p; }

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }

inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline unsigned int __float_as_uint(float x) {
  unsigned int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline float __int_as_float(int i) {
  float x;
  std::memcpy(&x, &i, 4);
  return x;
}
inline float __uint_as_float(unsigned int i) {
  float x;
  std::memcpy(&x, &i, 4);
  return x;
}
inline long long __double_as_longlong(double x) {
  long long i;
  std::memcpy(&i, &x, 8);
  return i;
}
inline double __longlong_as_double(long long i) {
  double x;
  std::memcpy(&x, &i, 8);
  return x;
}

#endif // GNNRT_CUDAEMU_INTRINSICS_H
