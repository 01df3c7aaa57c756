//===- Warp.h - Warp shuffles and votes -------------------------*- C++ -*-===//
//
// __shfl*_sync and __ballot/__any/__all_sync as warp collectives: a lane
// posts its value and waits until every lane of its mask has posted (to the
// same operation, with the same mask); the scheduler then computes each
// lane's result at once, as the warp's lanes would in lockstep. A lane of
// the mask that exits, waits elsewhere or names a different mask fails the
// launch, and so does a shuffle that reads a lane outside the mask (its
// value is undefined on a device). Values are up to 8 bytes, as on a device.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_WARP_H
#define GNNRT_CUDAEMU_WARP_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gnnrt::cudaemu {

enum class WarpOp : uint8_t {
  Sync,
  Shfl,
  ShflUp,
  ShflDown,
  ShflXor,
  Ballot,
  Any,
  All
};

/// The one entry point of every warp collective: posts `value` (and the
/// lane or offset `param` of a shuffle, within sections of `width` lanes),
/// waits for the lanes of `mask`, and returns this lane's result.
uint64_t warpCollective(WarpOp op, unsigned mask, uint64_t value, int param,
                        int width, const char *file, int line);

template <typename T> uint64_t toBits(T value) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                "warp shuffles move values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T> T fromBits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T>
T shuffle(WarpOp op, const char *file, int line, unsigned mask, T var,
          int param, int width = 32) {
  return fromBits<T>(
      warpCollective(op, mask, toBits(var), param, width, file, line));
}

inline unsigned ballot(const char *file, int line, unsigned mask,
                       int predicate) {
  return unsigned(
      warpCollective(WarpOp::Ballot, mask, predicate != 0, 0, 32, file, line));
}

inline int vote(WarpOp op, const char *file, int line, unsigned mask,
                int predicate) {
  return int(warpCollective(op, mask, predicate != 0, 0, 32, file, line));
}

} // namespace gnnrt::cudaemu

#define __shfl_sync(mask, var, ...)                                            \
  ::gnnrt::cudaemu::shuffle(::gnnrt::cudaemu::WarpOp::Shfl, __FILE__,          \
                            __LINE__, mask, var, __VA_ARGS__)
#define __shfl_up_sync(mask, var, ...)                                         \
  ::gnnrt::cudaemu::shuffle(::gnnrt::cudaemu::WarpOp::ShflUp, __FILE__,        \
                            __LINE__, mask, var, __VA_ARGS__)
#define __shfl_down_sync(mask, var, ...)                                       \
  ::gnnrt::cudaemu::shuffle(::gnnrt::cudaemu::WarpOp::ShflDown, __FILE__,      \
                            __LINE__, mask, var, __VA_ARGS__)
#define __shfl_xor_sync(mask, var, ...)                                        \
  ::gnnrt::cudaemu::shuffle(::gnnrt::cudaemu::WarpOp::ShflXor, __FILE__,       \
                            __LINE__, mask, var, __VA_ARGS__)
#define __ballot_sync(mask, predicate)                                         \
  ::gnnrt::cudaemu::ballot(__FILE__, __LINE__, mask, predicate)
#define __any_sync(mask, predicate)                                            \
  ::gnnrt::cudaemu::vote(::gnnrt::cudaemu::WarpOp::Any, __FILE__, __LINE__,    \
                         mask, predicate)
#define __all_sync(mask, predicate)                                            \
  ::gnnrt::cudaemu::vote(::gnnrt::cudaemu::WarpOp::All, __FILE__, __LINE__,    \
                         mask, predicate)

#endif // GNNRT_CUDAEMU_WARP_H
