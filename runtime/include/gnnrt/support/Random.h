//===- Random.h - Counter-based random numbers (Philox4x32-10) --*- C++ -*-===//
//
// Every random choice in gnnrt (generated graphs, splits, dropout masks,
// sampling) is a pure function of (seed, stream, counter) computed with the
// Philox4x32-10 block cipher of Salmon et al., "Parallel Random Numbers: As
// Easy as 1, 2, 3" (SC'11). Counter-based generation is what makes results
// independent of thread and rank counts: element i draws with counter i no
// matter who computes it, so there is no generator state to split or share.
// Streams separate independent uses of one seed (labels vs. features, ...).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_RANDOM_H
#define GNNRT_SUPPORT_RANDOM_H

#include "gnnrt/support/HostDevice.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace gnnrt {

/// The Philox4x32 block function with 10 rounds: a bijection of the 128-bit
/// counter keyed by a 64-bit key. Matches Random123's philox4x32_R(10, ...).
GNNRT_HOST_DEVICE inline std::array<uint32_t, 4>
philox4x32(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    uint64_t p0 = uint64_t(kMul0) * ctr[0];
    uint64_t p1 = uint64_t(kMul1) * ctr[2];
    ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1),
           uint32_t(p0 >> 32) ^ ctr[3] ^ key[1], uint32_t(p0)};
  }
  return ctr;
}

/// Four independent 32-bit words for (seed, stream, counter). The seed is the
/// key; the counter fills the low and the stream the high half of the block.
GNNRT_HOST_DEVICE inline std::array<uint32_t, 4>
randomBits(uint64_t seed, uint64_t stream, uint64_t counter) {
  return philox4x32({uint32_t(counter), uint32_t(counter >> 32),
                     uint32_t(stream), uint32_t(stream >> 32)},
                    {uint32_t(seed), uint32_t(seed >> 32)});
}

/// Maps 32 random bits to a float uniform in [0, 1) (24 bits of precision,
/// so 1.0f is never returned).
inline float bitsToUniform(uint32_t bits) {
  return float(bits >> 8) * (1.0f / 16777216.0f);
}

/// A float uniform in [0, 1) determined by (seed, stream, counter) alone.
inline float uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  return bitsToUniform(randomBits(seed, stream, counter)[0]);
}

/// A standard normal N(0, 1) sample for (seed, stream, counter), by the
/// Box-Muller transform of two words of the same block.
inline float normal(uint64_t seed, uint64_t stream, uint64_t counter) {
  std::array<uint32_t, 4> r = randomBits(seed, stream, counter);
  // (bits + 0.5) / 2^32 lies in (0, 1): log() never sees zero.
  double u1 = (double(r[0]) + 0.5) * (1.0 / 4294967296.0);
  double u2 = (double(r[1]) + 0.5) * (1.0 / 4294967296.0);
  return float(std::sqrt(-2.0 * std::log(u1)) *
               std::cos(6.283185307179586 * u2));
}

/// A sequential view of one (seed, stream): consecutive calls consume the
/// words of blocks startCounter, startCounter + 1, ... in order. Two
/// generators built with the same arguments produce the same sequence, on
/// the host or on a device (the GPU sampler's draws are the CPU's).
class CounterRng {
public:
  GNNRT_HOST_DEVICE CounterRng(uint64_t seed, uint64_t stream,
                               uint64_t startCounter = 0)
      : seed(seed), stream(stream), counter(startCounter) {}

  /// The next 32 random bits.
  GNNRT_HOST_DEVICE uint32_t next() {
    if (used == 4) {
      block = randomBits(seed, stream, counter++);
      used = 0;
    }
    return block[used++];
  }
  /// A float uniform in [0, 1).
  float nextUniform() { return bitsToUniform(next()); }
  /// An integer uniform in [0, n) for 0 < n < 2^32 (Lemire's multiply-shift;
  /// its bias below 2^-32 * n is irrelevant for graph generation).
  GNNRT_HOST_DEVICE uint32_t nextBelow(uint32_t n) {
    return uint32_t((uint64_t(next()) * n) >> 32);
  }
  /// An integer uniform in [0, n) for any n > 0, from 64 random bits.
  GNNRT_HOST_DEVICE uint64_t nextBelow64(uint64_t n) {
    uint64_t hi = next(), lo = next();
    return uint64_t(((unsigned __int128)((hi << 32) | lo) * n) >> 64);
  }

private:
  uint64_t seed, stream, counter;
  std::array<uint32_t, 4> block{};
  int used = 4;
};

} // namespace gnnrt

#endif // GNNRT_SUPPORT_RANDOM_H
