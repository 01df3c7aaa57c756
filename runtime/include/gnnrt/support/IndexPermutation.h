//===- IndexPermutation.h - a shuffled order, one index at a time -*- C++ -*-//
//
// Shuffling n items for an epoch usually means writing a permutation of all
// n (Fisher-Yates): O(n) time and memory before the first batch, whatever
// the batches take. A link epoch's train links are tens of millions, and a
// run may train only the first batches of each epoch (--steps-per-epoch).
// IndexPermutation is a keyed pseudo-random bijection of [0, n) evaluated
// per index instead: a 4-round Feistel network over the smallest domain of
// an even number of bits that holds n, walking the cycle of an index until
// it lands below n (cycle walking keeps it a bijection of [0, n)). A batch
// of positions then costs what it holds; the expected walk is under four
// rounds of the network, since the domain is less than 4n.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_INDEXPERMUTATION_H
#define GNNRT_SUPPORT_INDEXPERMUTATION_H

#include "gnnrt/support/Random.h"

#include <array>
#include <cstdint>

namespace gnnrt {

class IndexPermutation {
public:
  /// The permutation of [0, n) keyed by (seed, stream, counter).
  IndexPermutation(int64_t n, uint64_t seed, uint64_t stream, uint64_t counter)
      : n(n) {
    while ((uint64_t(1) << (2 * halfBits)) < uint64_t(n))
      ++halfBits;
    mask = (uint64_t(1) << halfBits) - 1;
    for (int r = 0; r < kRounds; ++r) {
      const std::array<uint32_t, 4> bits =
          randomBits(seed, stream, counter * kRounds + uint64_t(r));
      keys[size_t(r)] = (uint64_t(bits[0]) << 32) | bits[1];
    }
  }

  int64_t size() const { return n; }

  /// The item at position i (0 <= i < n).
  int64_t operator()(int64_t i) const {
    uint64_t x = uint64_t(i);
    do
      x = network(x);
    while (x >= uint64_t(n));
    return int64_t(x);
  }

private:
  static constexpr int kRounds = 4;

  /// One pass of the Feistel network over [0, 4^halfBits).
  uint64_t network(uint64_t x) const {
    uint64_t left = x >> halfBits, right = x & mask;
    for (int r = 0; r < kRounds; ++r) {
      const uint64_t next = left ^ (mix(right ^ keys[size_t(r)]) & mask);
      left = right;
      right = next;
    }
    return (left << halfBits) | right;
  }

  /// A 64-bit finalizer (SplitMix64's): every input bit reaches every
  /// output bit.
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  int64_t n;
  int halfBits = 0;
  uint64_t mask = 0;
  std::array<uint64_t, kRounds> keys{};
};

} // namespace gnnrt

#endif // GNNRT_SUPPORT_INDEXPERMUTATION_H
