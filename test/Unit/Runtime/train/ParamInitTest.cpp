//===- ParamInitTest.cpp - Parameter initializers -------------------------===//

#include "gnnrt/train/ParamInit.h"

#include "TestUtil.h"
#include "gnnrt/support/Shape.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

std::vector<float> init(Init kind, std::vector<int64_t> shape,
                        std::vector<double> args = {}, uint64_t seed = 0,
                        uint64_t stream = paramInitStream(0)) {
  ParamInfo info;
  info.name = "p";
  info.shape = std::move(shape);
  info.init = kind;
  info.initArgs = std::move(args);
  std::vector<float> values(size_t(numElements(info.shape)));
  initParameter(info, seed, stream, values.data());
  return values;
}

double mean(const std::vector<float> &v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

} // namespace

TEST(ParamInit, Bounds) {
  // PyG's glorot: sqrt(6 / (size(-2) + size(-1))).
  EXPECT_DOUBLE_EQ(glorotBound({1433, 16}), std::sqrt(6.0 / 1449));
  EXPECT_DOUBLE_EQ(glorotBound({8, 1, 16}), std::sqrt(6.0 / 17));
  EXPECT_DOUBLE_EQ(glorotBound({16}), std::sqrt(6.0 / 17));
  EXPECT_DOUBLE_EQ(glorotBound({}), std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(kaimingBound({64, 16}), std::sqrt(6.0 / 64));
  EXPECT_DOUBLE_EQ(kaimingBound({16}), std::sqrt(6.0));
}

TEST(ParamInit, GlorotFillsItsInterval) {
  std::vector<float> w = init(Init::Glorot, {100, 50});
  double a = std::sqrt(6.0 / 150);
  auto [lo, hi] = std::minmax_element(w.begin(), w.end());
  EXPECT_GE(*lo, -a);
  EXPECT_LE(*hi, a);
  // 5000 draws come within 1% of both ends and average near zero.
  EXPECT_LT(*lo, -0.99 * a);
  EXPECT_GT(*hi, 0.99 * a);
  EXPECT_NEAR(mean(w), 0.0, 0.02 * a);
}

TEST(ParamInit, KaimingUniformAndNormal) {
  std::vector<float> k = init(Init::Kaiming, {24, 100});
  double b = std::sqrt(6.0 / 24);
  EXPECT_LE(*std::max_element(k.begin(), k.end()), b);
  EXPECT_GE(*std::min_element(k.begin(), k.end()), -b);

  std::vector<float> u = init(Init::Uniform, {4000}, {2.0, 3.0});
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 2.0f);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 3.0f);
  EXPECT_NEAR(mean(u), 2.5, 0.02);

  std::vector<float> n = init(Init::Normal, {20000}, {1.0, 0.5});
  double m = mean(n), var = 0;
  for (float x : n)
    var += (x - m) * (x - m);
  EXPECT_NEAR(m, 1.0, 0.02);
  EXPECT_NEAR(std::sqrt(var / double(n.size())), 0.5, 0.02);
}

TEST(ParamInit, Constants) {
  EXPECT_EQ(init(Init::Zeros, {3}), std::vector<float>(3, 0.0f));
  EXPECT_EQ(init(Init::Ones, {2, 2}), std::vector<float>(4, 1.0f));
  EXPECT_EQ(init(Init::Constant, {2}, {0.25}), std::vector<float>(2, 0.25f));
}

TEST(ParamInit, DeterministicPerSeedAndStream) {
  EXPECT_EQ(init(Init::Glorot, {8, 8}, {}, 3),
            init(Init::Glorot, {8, 8}, {}, 3));
  EXPECT_NE(init(Init::Glorot, {8, 8}, {}, 3),
            init(Init::Glorot, {8, 8}, {}, 4));
  EXPECT_NE(init(Init::Glorot, {8, 8}, {}, 3, paramInitStream(0)),
            init(Init::Glorot, {8, 8}, {}, 3, paramInitStream(1)));
}

TEST(ParamInit, WrongArgumentCount) {
  EXPECT_EQ(dataErrorOf([] { init(Init::Uniform, {2}, {1.0}); }),
            "parameter 'p': uniform takes 2 arguments, got 1");
  EXPECT_EQ(dataErrorOf([] { init(Init::Glorot, {2}, {1.0}); }),
            "parameter 'p': glorot takes 0 arguments, got 1");
}
