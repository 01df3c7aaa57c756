//===- GeneratorParts.cpp - Draws the synthetic generators share ----------===//
//
// Every random draw is indexed: node i's class uses counter i of its
// stream, edge e uses its own block range of the edge stream, feature
// (i, f) uses block (i * paddedF + f) / 4. Loops are therefore parallel
// (OpenMP when available) without changing a single output bit.
//
//===----------------------------------------------------------------------===//

#include "GeneratorParts.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gnnrt::generator {

std::vector<int64_t> uniformClasses(int64_t count, int64_t classes,
                                    uint64_t seed, uint64_t stream) {
  std::vector<int64_t> classOf(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    classOf[size_t(i)] =
        i < classes ? i
                    : int64_t((uint64_t(randomBits(seed, stream, i)[0]) *
                               uint64_t(classes)) >>
                              32);
  return classOf;
}

std::vector<int64_t> classSizes(const std::vector<int64_t> &classOf,
                                int64_t classes) {
  std::vector<int64_t> sizes(static_cast<size_t>(classes), 0);
  for (int64_t k : classOf)
    ++sizes[size_t(k)];
  return sizes;
}

ClassAffineEdges::ClassAffineEdges(const std::vector<int64_t> &srcClasses,
                                   const std::vector<int64_t> &dstClasses,
                                   std::vector<double> sameClass,
                                   int64_t classes, bool noSelfLoops,
                                   uint64_t seed, uint64_t stream)
    : srcClasses(srcClasses), dstClasses(dstClasses),
      sameClass(std::move(sameClass)), noSelfLoops(noSelfLoops), seed(seed),
      stream(stream) {
  // Members of each class, contiguous, via a counting sort of the classes.
  members = countingSortOrder(classes, dstClasses);
  start.assign(size_t(classes) + 1, 0);
  for (int64_t k : dstClasses)
    ++start[size_t(k) + 1];
  for (int64_t k = 0; k < classes; ++k)
    start[size_t(k) + 1] += start[size_t(k)];
}

void ClassAffineEdges::draw(int64_t first, int64_t count, int64_t *src,
                            int64_t *dst) const {
  const int64_t numSrc = int64_t(srcClasses.size());
  const int64_t numDst = int64_t(dstClasses.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t e = uint64_t(first + i);
    CounterRng rng(seed, stream, e * kBlocksPerEdge);
    int64_t u = int64_t(rng.nextBelow64(uint64_t(numSrc)));
    int64_t k = srcClasses[size_t(u)];
    int64_t size = start[size_t(k) + 1] - start[size_t(k)];
    int64_t v = u;
    bool redraw = true;
    for (int attempt = 0; attempt < 64 && redraw; ++attempt) {
      if (rng.nextUniform() < sameClass[size_t(k)]) {
        v = members[size_t(start[size_t(k)] +
                           int64_t(rng.nextBelow64(uint64_t(size))))];
      } else {
        // Rejection: expected tries numDst / (numDst - size), small unless
        // one class holds nearly every node (then sameClass[k] is close to
        // 1 anyway).
        do
          v = int64_t(rng.nextBelow64(uint64_t(numDst)));
        while (dstClasses[size_t(v)] == k);
      }
      redraw = noSelfLoops && v == u;
    }
    src[i] = u;
    dst[i] = v;
  }
}

void classAffineEdges(const std::vector<int64_t> &srcClasses,
                      const std::vector<int64_t> &dstClasses,
                      const std::vector<double> &sameClass, int64_t classes,
                      bool noSelfLoops, uint64_t seed, uint64_t stream,
                      std::vector<int64_t> &src, std::vector<int64_t> &dst) {
  ClassAffineEdges(srcClasses, dstClasses, sameClass, classes, noSelfLoops,
                   seed, stream)
      .draw(0, int64_t(src.size()), src.data(), dst.data());
}

void classFeatures(const std::vector<int64_t> &classOf, int64_t classes,
                   int64_t width, double signal, uint64_t seed, float *out) {
  classFeatureRows(classOf, 0, int64_t(classOf.size()), classes, width, signal,
                   seed, out);
}

void classFeatureRows(const std::vector<int64_t> &classOf, int64_t first,
                      int64_t count, int64_t classes, int64_t width,
                      double signal, uint64_t seed, float *out) {
  const int64_t f = width;
  if (f == 0)
    return;
  const int64_t paddedF = (f + 3) / 4 * 4;
  // E|m_a - m_b|^2 = 2 F s^2, so s = signal / sqrt(2F) puts the means
  // `signal` noise standard deviations apart.
  const float scale = float(signal / std::sqrt(2.0 * double(f)));
  auto gaussians = [](std::array<uint32_t, 4> r, float out[4]) {
    for (int pair = 0; pair < 2; ++pair) {
      double u1 = (double(r[2 * pair]) + 0.5) * (1.0 / 4294967296.0);
      double u2 = (double(r[2 * pair + 1]) + 0.5) * (1.0 / 4294967296.0);
      double radius = std::sqrt(-2.0 * std::log(u1));
      out[2 * pair] = float(radius * std::cos(6.283185307179586 * u2));
      out[2 * pair + 1] = float(radius * std::sin(6.283185307179586 * u2));
    }
  };
  std::vector<float> means(size_t(classes * paddedF));
  for (int64_t b = 0; b < classes * paddedF / 4; ++b) {
    gaussians(randomBits(seed, kMeanStream, uint64_t(b)), &means[4 * b]);
    for (int j = 0; j < 4; ++j)
      means[4 * b + j] *= scale;
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < count; ++r) {
    const int64_t i = first + r;
    const float *mean = &means[size_t(classOf[size_t(i)] * paddedF)];
    float *row = out + r * f;
    float noise[4];
    for (int64_t j = 0; j < f; j += 4) {
      gaussians(randomBits(seed, kFeatureStream, uint64_t(i * paddedF + j) / 4),
                noise);
      for (int64_t k = j; k < std::min(j + 4, f); ++k)
        row[k] = mean[k] + noise[k - j];
    }
  }
}

void randomSplits(int64_t n, double train, double valid, double test,
                  uint64_t seed, std::vector<int64_t> &trainIdx,
                  std::vector<int64_t> &validIdx,
                  std::vector<int64_t> &testIdx) {
  std::vector<std::pair<uint64_t, int64_t>> keyed(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto r = randomBits(seed, kSplitStream, uint64_t(i));
    keyed[size_t(i)] = {(uint64_t(r[0]) << 32) | r[1], i};
  }
  std::sort(keyed.begin(), keyed.end());
  // Rounding each fraction separately may overshoot n by one: clamp.
  int64_t nTrain = std::min<int64_t>(n, std::llround(train * double(n)));
  int64_t nValid =
      std::min<int64_t>(n - nTrain, std::llround(valid * double(n)));
  int64_t nTest =
      std::min<int64_t>(n - nTrain - nValid, std::llround(test * double(n)));
  auto take = [&](int64_t from, int64_t count, std::vector<int64_t> &out) {
    for (int64_t k = from; k < from + count; ++k)
      out.push_back(keyed[size_t(k)].second);
    std::sort(out.begin(), out.end());
  };
  take(0, nTrain, trainIdx);
  take(nTrain, nValid, validIdx);
  take(nTrain + nValid, nTest, testIdx);
}

} // namespace gnnrt::generator
