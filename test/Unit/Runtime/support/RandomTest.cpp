//===- RandomTest.cpp - Philox4x32-10 known answers and helpers -----------===//
//
// The block function is checked against Random123's published known-answer
// vectors (kat_vectors, philox4x32_10), so gnnrt's streams are the standard
// Philox streams; the helpers are checked for range, determinism and
// (coarsely) distribution.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/Random.h"
#include "gnnrt/support/IndexPermutation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

using namespace gnnrt;

TEST(Random, PhiloxKnownAnswerZero) {
  auto r = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
                                        0x9b00dbd8u}));
}

TEST(Random, PhiloxKnownAnswerOnes) {
  auto r = philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                      {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u,
                                        0x6d5451fdu}));
}

TEST(Random, PhiloxKnownAnswerPi) {
  auto r = philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                      {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u,
                                        0x24126ea1u}));
}

TEST(Random, CounterLayout) {
  // seed -> key, counter -> low words, stream -> high words.
  auto r = randomBits(0x299f31d0a4093822ull, 0x0370734413198a2eull,
                      0x85a308d3243f6a88ull);
  EXPECT_EQ(r, philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}));
}

TEST(Random, UniformIsDeterministicAndInRange) {
  std::set<float> distinct;
  for (uint64_t i = 0; i < 10000; ++i) {
    float u = uniform(42, 7, i);
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    EXPECT_EQ(u, uniform(42, 7, i));
    distinct.insert(u);
  }
  EXPECT_GT(distinct.size(), 9990u);
  EXPECT_NE(uniform(42, 7, 0), uniform(42, 8, 0)); // streams differ
  EXPECT_NE(uniform(42, 7, 0), uniform(43, 7, 0)); // seeds differ
  EXPECT_EQ(bitsToUniform(0xffffffffu), 16777215.0f / 16777216.0f);
}

TEST(Random, CounterRngWalksConsecutiveBlocks) {
  CounterRng rng(5, 6, 10);
  for (uint64_t block = 10; block < 13; ++block) {
    auto expected = randomBits(5, 6, block);
    for (uint32_t word : expected)
      EXPECT_EQ(rng.next(), word);
  }
}

TEST(Random, NormalMoments) {
  double sum = 0, sumSq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double x = normal(1, 2, uint64_t(i));
    sum += x;
    sumSq += x * x;
  }
  double mean = sum / n, var = sumSq / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.02);
}

TEST(Random, NextBelowCoversRangeUniformly) {
  CounterRng rng(9, 9);
  int counts[7] = {};
  for (int i = 0; i < 70000; ++i)
    ++counts[rng.nextBelow(7)];
  for (int c : counts)
    EXPECT_NEAR(c, 10000, 500);
  for (int i = 0; i < 1000; ++i)
    EXPECT_LT(rng.nextBelow64(3), 3u);
}

// IndexPermutation is a bijection of [0, n) for every n, depends on its key,
// and puts each item first about equally often over keys.
TEST(IndexPermutation, IsAKeyedUniformBijection) {
  for (int64_t n : {1, 2, 3, 5, 16, 17, 1000, 4099}) {
    const IndexPermutation p(n, 7, 1, 3);
    std::vector<uint8_t> seen(size_t(n), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = p(i);
      ASSERT_GE(v, 0) << n;
      ASSERT_LT(v, n) << n;
      ASSERT_EQ(seen[size_t(v)], 0) << "n " << n << " repeats " << v;
      seen[size_t(v)] = 1;
    }
  }
  const IndexPermutation a(1000, 7, 1, 3), b(1000, 7, 1, 4);
  int64_t same = 0, fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    same += a(i) == b(i);
    fixed += a(i) == i;
  }
  EXPECT_LT(same, 10);
  EXPECT_LT(fixed, 10);
  // Over 4000 keys, each of 10 items comes first 400 +- 5 sigma times.
  std::vector<int64_t> first(10, 0);
  for (uint64_t key = 0; key < 4000; ++key)
    ++first[size_t(IndexPermutation(10, 11, 2, key)(0))];
  for (int64_t count : first)
    EXPECT_NEAR(double(count), 400.0, 5 * std::sqrt(400.0 * 0.9));
}
