//===- BFloat16Test.cpp - bf16 rounding against a float64 reference -------===//
//
// toBFloat16 (bit arithmetic) is checked against an independent reference:
// float64 arithmetic that rounds to bf16's 8-bit significand with
// std::nearbyint (ties to even), bf16's subnormal quantum 2^-133 and
// overflow to infinity; over random bit patterns and the edge cases.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/BFloat16.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace gnnrt;

namespace {

float fromBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// x rounded to bf16 in float64: spacing 2^(e-8) for |x| in [2^(e-1), 2^e),
/// never below the subnormal spacing 2^-133; beyond bf16's largest finite
/// value (2 - 2^-7) * 2^127 the result is infinite.
double referenceRound(double x) {
  if (x == 0 || std::isinf(x))
    return x;
  int e;
  std::frexp(x, &e);
  double quantum = std::ldexp(1.0, std::max(e - 8, -133));
  double r = std::nearbyint(x / quantum) * quantum;
  double maxFinite = (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127);
  if (std::fabs(r) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

} // namespace

TEST(BFloat16, RoundsLikeFloat64ReferenceOnRandomBits) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::mt19937 gen(32);
  for (int i = 0; i < 200000; ++i) {
    float x = fromBits(gen());
    if (std::isnan(x))
      continue;
    double expected = referenceRound(x);
    float got = toFloat(toBFloat16(x));
    ASSERT_EQ(static_cast<double>(got), expected) << "x = " << x;
  }
}

TEST(BFloat16, TiesGoToEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: even (1) wins.
  EXPECT_EQ(toFloat(toBFloat16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: even wins.
  EXPECT_EQ(toFloat(toBFloat16(1.0f + 3 * std::ldexp(1.0f, -8))),
            1.0f + std::ldexp(1.0f, -6));
  // Just above the tie rounds up.
  EXPECT_EQ(
      toFloat(toBFloat16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f))),
      1.0f + std::ldexp(1.0f, -7));
}

TEST(BFloat16, EdgeCases) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(toFloat(toBFloat16(std::numeric_limits<float>::max())), inf);
  EXPECT_EQ(toFloat(toBFloat16(-inf)), -inf);
  EXPECT_TRUE(std::signbit(toFloat(toBFloat16(-0.0f))));
  // A NaN whose payload is only in the dropped bits stays a NaN.
  EXPECT_TRUE(std::isnan(toFloat(toBFloat16(fromBits(0x7f800001u)))));
  EXPECT_TRUE(std::isnan(toFloat(toBFloat16(fromBits(0xff800001u)))));
  // Widening is exact: every bf16 round-trips.
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    float x = fromBits(b << 16);
    if (!std::isnan(x)) {
      ASSERT_EQ(toBFloat16(x).bits, b);
    }
  }
}

TEST(BFloat16, ArrayConversionsMatchScalar) {
  float src[5] = {0.1f, -3.75f, 1e-40f, 65504.f, 1.0f / 3};
  BFloat16 mid[5];
  float back[5];
  toBFloat16(src, mid, 5);
  toFloat(mid, back, 5);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(static_cast<double>(back[i]), referenceRound(src[i]));
}
