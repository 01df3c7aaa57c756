//===- EdgeSetTest.cpp - Known links by binary search ---------------------===//
//
// Membership, the sorted dst range of one (src, relation), degrees, and the
// relations kept apart, against a std::set of the same triples.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/EdgeSet.h"

#include "gnnrt/support/Random.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace gnnrt;

TEST(EdgeSet, AnswersAsASetOfTriples) {
  const int64_t n = 30;
  std::vector<int64_t> src, dst;
  std::vector<int32_t> rel;
  std::set<std::tuple<int64_t, int32_t, int64_t>> reference;
  CounterRng rng(4, 0);
  for (int i = 0; i < 400; ++i) { // with repeats
    src.push_back(rng.nextBelow(n));
    dst.push_back(rng.nextBelow(n));
    rel.push_back(int32_t(rng.nextBelow(3)));
    reference.insert({src.back(), rel.back(), dst.back()});
  }
  const EdgeSet set(n, src, dst, rel);
  EXPECT_EQ(set.size(), reference.size());
  for (int64_t u = 0; u < n; ++u)
    for (int32_t r = 0; r < 3; ++r) {
      std::vector<int64_t> expected;
      for (int64_t v = 0; v < n; ++v) {
        const bool known = reference.count({u, r, v}) != 0;
        ASSERT_EQ(set.contains(u, v, r), known) << u << " " << r << " " << v;
        if (known && v >= 7 && v < 19)
          expected.push_back(v);
      }
      auto [first, last] = set.dsts(u, r, 7, 19);
      EXPECT_EQ(std::vector<int64_t>(first, last), expected);
      int64_t degree = 0;
      for (int64_t v = 0; v < n; ++v)
        degree += reference.count({u, r, v}) != 0;
      EXPECT_EQ(set.degree(u, r), degree);
    }
  // degrees() is relation 0's degree of every node.
  const std::vector<int64_t> all = set.degrees();
  ASSERT_EQ(all.size(), size_t(n));
  for (int64_t u = 0; u < n; ++u)
    EXPECT_EQ(all[size_t(u)], set.degree(u, 0)) << u;
  // Untyped edges are relation 0.
  const EdgeSet plain(n, {1, 2}, {2, 1});
  EXPECT_TRUE(plain.contains(2, 1));
  EXPECT_FALSE(plain.contains(1, 1));
}
