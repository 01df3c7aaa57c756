//===- Atomics.h - CUDA's atomic functions on the host ----------*- C++ -*-===//
//
// atomicAdd/Sub/Exch/Min/Max/CAS/And/Or/Xor with CUDA's signatures (they
// return the old value). Emulated threads switch only at barriers, so a
// read-modify-write is never interleaved with another emulated thread's;
// the GCC __atomic builtins keep it atomic against other host threads too
// (two launches from two host threads). Floating-point adds go through a
// compare-and-swap of the bits, as CUDA code without native atomics does.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_ATOMICS_H
#define GNNRT_CUDAEMU_ATOMICS_H

#include <cstring>

namespace gnnrt::cudaemu {

/// *address = update(*address) atomically; returns the old value.
template <typename T, typename Update>
T atomicUpdate(T *address, Update update) {
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(address, &old, update(old), false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

/// The same for a floating-point value, through its bits.
template <typename T, typename Bits, typename Update>
T atomicUpdateFloat(T *address, Update update) {
  static_assert(sizeof(T) == sizeof(Bits), "bit pattern size");
  Bits *bits = reinterpret_cast<Bits *>(address);
  Bits oldBits = __atomic_load_n(bits, __ATOMIC_RELAXED), newBits;
  T old;
  do {
    std::memcpy(&old, &oldBits, sizeof(T));
    const T updated = update(old);
    std::memcpy(&newBits, &updated, sizeof(T));
  } while (!__atomic_compare_exchange_n(bits, &oldBits, newBits, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

} // namespace gnnrt::cudaemu

#define GNNRT_CUDAEMU_INTEGER_ATOMICS(T)                                       \
  inline T atomicAdd(T *a, T v) {                                              \
    return __atomic_fetch_add(a, v, __ATOMIC_RELAXED);                         \
  }                                                                            \
  inline T atomicSub(T *a, T v) {                                              \
    return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED);                         \
  }                                                                            \
  inline T atomicExch(T *a, T v) {                                             \
    return __atomic_exchange_n(a, v, __ATOMIC_RELAXED);                        \
  }                                                                            \
  inline T atomicAnd(T *a, T v) {                                              \
    return __atomic_fetch_and(a, v, __ATOMIC_RELAXED);                         \
  }                                                                            \
  inline T atomicOr(T *a, T v) {                                               \
    return __atomic_fetch_or(a, v, __ATOMIC_RELAXED);                          \
  }                                                                            \
  inline T atomicXor(T *a, T v) {                                              \
    return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED);                         \
  }                                                                            \
  inline T atomicMin(T *a, T v) {                                              \
    return ::gnnrt::cudaemu::atomicUpdate(a,                                   \
                                          [v](T x) { return v < x ? v : x; }); \
  }                                                                            \
  inline T atomicMax(T *a, T v) {                                              \
    return ::gnnrt::cudaemu::atomicUpdate(a,                                   \
                                          [v](T x) { return v > x ? v : x; }); \
  }                                                                            \
  inline T atomicCAS(T *a, T compare, T v) {                                   \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED,       \
                                __ATOMIC_RELAXED);                             \
    return compare;                                                            \
  }

GNNRT_CUDAEMU_INTEGER_ATOMICS(int)
GNNRT_CUDAEMU_INTEGER_ATOMICS(unsigned int)
GNNRT_CUDAEMU_INTEGER_ATOMICS(long long int)
GNNRT_CUDAEMU_INTEGER_ATOMICS(unsigned long long int)

#undef GNNRT_CUDAEMU_INTEGER_ATOMICS

inline float atomicAdd(float *a, float v) {
  return ::gnnrt::cudaemu::atomicUpdateFloat<float, unsigned int>(
      a, [v](float x) { return x + v; });
}
inline double atomicAdd(double *a, double v) {
  return ::gnnrt::cudaemu::atomicUpdateFloat<double, unsigned long long>(
      a, [v](double x) { return x + v; });
}
inline float atomicExch(float *a, float v) {
  return ::gnnrt::cudaemu::atomicUpdateFloat<float, unsigned int>(
      a, [v](float) { return v; });
}

#endif // GNNRT_CUDAEMU_ATOMICS_H
