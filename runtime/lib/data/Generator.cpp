//===- Generator.cpp - SBM and RMAT synthetic datasets --------------------===//
//
// Every random draw is indexed: node i's label uses counter i of the label
// stream, edge e uses its own block range of the edge stream, feature
// (i, f) uses block (i * paddedF + f) / 4. Loops are therefore parallel
// (OpenMP when available) without changing a single output bit.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Generator.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gnnrt {

namespace {
// Independent streams of one seed, so changing e.g. the edge count does not
// change the labels or features.
enum Stream : uint64_t {
  kLabelStream = 1,
  kMeanStream = 2,
  kFeatureStream = 3,
  kEdgeStream = 4,
  kSplitStream = 5,
};
/// Blocks reserved per edge (each 4 words): retries beyond this are
/// astronomically unlikely and just continue into the next edge's range,
/// which stays deterministic.
constexpr uint64_t kBlocksPerEdge = 64;

[[noreturn]] void invalid(const std::string &message) {
  throw DataError("generator: " + message);
}

void validate(const GeneratorOptions &o) {
  auto count = [](const char *name, int64_t v, int64_t min) {
    if (v < min)
      invalid(std::string(name) + " must be >= " + std::to_string(min) +
              " (got " + std::to_string(v) + ")");
  };
  count("nodes", o.numNodes, 1);
  count("edges", o.numEdges, 0);
  count("features", o.numFeatures, 0);
  count("classes", o.numClasses, 1);
  if (o.numNodes >= (int64_t(1) << 31))
    invalid("nodes must be < 2^31 (got " + std::to_string(o.numNodes) + ")");
  if (o.numClasses > o.numNodes)
    invalid("classes (" + std::to_string(o.numClasses) +
            ") must not exceed nodes (" + std::to_string(o.numNodes) + ")");
  for (double f : {o.trainFraction, o.validFraction, o.testFraction})
    if (!(f >= 0 && f <= 1))
      invalid("split fractions must lie in [0, 1]");
  if (o.trainFraction + o.validFraction + o.testFraction > 1 + 1e-9)
    invalid("split fractions sum to more than 1");
  if (!(o.pIn >= 0 && o.pOut >= 0 && o.pIn + o.pOut > 0))
    invalid("p-in and p-out must be >= 0 and not both 0");
  if (!(o.a >= 0 && o.b >= 0 && o.c >= 0 && o.d >= 0 &&
        o.a + o.b + o.c + o.d > 0))
    invalid("rmat probabilities must be >= 0 and not all 0");
  if (!(o.signal >= 0))
    invalid("signal must be >= 0");
}

/// SBM labels: the first C nodes take classes 0..C-1 (so every class
/// exists), the rest are uniform.
void sbmLabels(const GeneratorOptions &o, Dataset &ds) {
  ds.labels.resize(size_t(o.numNodes));
  for (int64_t i = 0; i < o.numNodes; ++i)
    ds.labels[i] =
        i < o.numClasses
            ? i
            : int64_t((uint64_t(randomBits(o.seed, kLabelStream, i)[0]) *
                       uint64_t(o.numClasses)) >>
                      32);
}

void sbmEdges(const GeneratorOptions &o, Dataset &ds) {
  const int64_t n = o.numNodes, c = o.numClasses;
  // Members of each class, contiguous, via a counting sort of the labels.
  std::vector<int64_t> members = countingSortOrder(c, ds.labels);
  std::vector<int64_t> start(size_t(c) + 1, 0);
  for (int64_t label : ds.labels)
    ++start[label + 1];
  for (int64_t k = 0; k < c; ++k)
    start[k + 1] += start[k];
  // P(destination in the source's class): the class's share of pIn-weighted
  // candidates, so pIn/pOut act as per-pair edge propensities.
  std::vector<double> intra(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; ++k) {
    double inside = double(start[k + 1] - start[k]) * o.pIn;
    double outside = double(n - (start[k + 1] - start[k])) * o.pOut;
    intra[k] = inside + outside > 0 ? inside / (inside + outside) : 1.0;
  }
  ds.src.resize(size_t(o.numEdges));
  ds.dst.resize(size_t(o.numEdges));
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < o.numEdges; ++e) {
    CounterRng rng(o.seed, kEdgeStream, uint64_t(e) * kBlocksPerEdge);
    int64_t u = int64_t(rng.nextBelow64(uint64_t(n)));
    int64_t k = ds.labels[u];
    int64_t size = start[k + 1] - start[k];
    int64_t v = u;
    for (int attempt = 0; attempt < 64 && (v == u); ++attempt) {
      if (rng.nextUniform() < intra[k]) {
        v = members[start[k] + int64_t(rng.nextBelow64(uint64_t(size)))];
      } else {
        // Rejection: expected tries n / (n - size), small unless one class
        // holds nearly every node (then intra[k] is close to 1 anyway).
        do
          v = int64_t(rng.nextBelow64(uint64_t(n)));
        while (ds.labels[v] == k);
      }
    }
    ds.src[e] = u;
    ds.dst[e] = v;
  }
}

void rmatEdges(const GeneratorOptions &o, Dataset &ds) {
  const int64_t n = o.numNodes;
  int scale = 1;
  while ((int64_t(1) << scale) < n)
    ++scale;
  double sum = o.a + o.b + o.c + o.d;
  // Cumulative quadrant thresholds: a = (0,0), b = (0,1), c = (1,0), d = (1,1).
  float ta = float(o.a / sum), tb = float((o.a + o.b) / sum),
        tc = float((o.a + o.b + o.c) / sum);
  ds.src.resize(size_t(o.numEdges));
  ds.dst.resize(size_t(o.numEdges));
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < o.numEdges; ++e) {
    CounterRng rng(o.seed, kEdgeStream, uint64_t(e) * kBlocksPerEdge);
    int64_t u, v;
    // Reject ids beyond n (when n is not a power of two) and self loops.
    for (int attempt = 0;; ++attempt) {
      u = v = 0;
      for (int level = 0; level < scale; ++level) {
        float r = rng.nextUniform();
        int row = r >= tb, col = (r >= ta && r < tb) || r >= tc;
        u = (u << 1) | row;
        v = (v << 1) | col;
      }
      if (u < n && v < n && (u != v || n == 1 || attempt > 1000))
        break;
    }
    ds.src[e] = u;
    ds.dst[e] = v;
  }
}

/// Class-correlated Gaussian features (see Generator.h).
void features(const GeneratorOptions &o, Dataset &ds) {
  const int64_t n = o.numNodes, f = o.numFeatures;
  if (f == 0)
    return;
  const int64_t paddedF = (f + 3) / 4 * 4;
  // E|m_a - m_b|^2 = 2 F s^2, so s = signal / sqrt(2F) puts the means
  // `signal` noise standard deviations apart.
  const float scale = float(o.signal / std::sqrt(2.0 * double(f)));
  auto gaussians = [](std::array<uint32_t, 4> r, float out[4]) {
    for (int pair = 0; pair < 2; ++pair) {
      double u1 = (double(r[2 * pair]) + 0.5) * (1.0 / 4294967296.0);
      double u2 = (double(r[2 * pair + 1]) + 0.5) * (1.0 / 4294967296.0);
      double radius = std::sqrt(-2.0 * std::log(u1));
      out[2 * pair] = float(radius * std::cos(6.283185307179586 * u2));
      out[2 * pair + 1] = float(radius * std::sin(6.283185307179586 * u2));
    }
  };
  std::vector<float> means(size_t(o.numClasses * paddedF));
  for (int64_t b = 0; b < o.numClasses * paddedF / 4; ++b) {
    gaussians(randomBits(o.seed, kMeanStream, uint64_t(b)), &means[4 * b]);
    for (int j = 0; j < 4; ++j)
      means[4 * b + j] *= scale;
  }
  ds.numFeatures = f;
  ds.features.resize(size_t(n * f));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float *mean = &means[size_t(ds.labels[i] * paddedF)];
    float *row = &ds.features[size_t(i * f)];
    float noise[4];
    for (int64_t j = 0; j < f; j += 4) {
      gaussians(
          randomBits(o.seed, kFeatureStream, uint64_t(i * paddedF + j) / 4),
          noise);
      for (int64_t k = j; k < std::min(j + 4, f); ++k)
        row[k] = mean[k] + noise[k - j];
    }
  }
}

/// Shuffles nodes by a random 64-bit key per node and cuts the order.
void splits(const GeneratorOptions &o, Dataset &ds) {
  const int64_t n = o.numNodes;
  std::vector<std::pair<uint64_t, int64_t>> keyed(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto r = randomBits(o.seed, kSplitStream, uint64_t(i));
    keyed[i] = {(uint64_t(r[0]) << 32) | r[1], i};
  }
  std::sort(keyed.begin(), keyed.end());
  // Rounding each fraction separately may overshoot n by one: clamp.
  int64_t nTrain = std::min<int64_t>(n, std::llround(o.trainFraction * n));
  int64_t nValid =
      std::min<int64_t>(n - nTrain, std::llround(o.validFraction * n));
  int64_t nTest =
      std::min<int64_t>(n - nTrain - nValid, std::llround(o.testFraction * n));
  auto take = [&](int64_t from, int64_t count, std::vector<int64_t> &out) {
    for (int64_t k = from; k < from + count; ++k)
      out.push_back(keyed[k].second);
    std::sort(out.begin(), out.end());
  };
  take(0, nTrain, ds.trainIdx);
  take(nTrain, nValid, ds.validIdx);
  take(nTrain + nValid, nTest, ds.testIdx);
}
} // namespace

Dataset generateDataset(const GeneratorOptions &options) {
  validate(options);
  Dataset ds;
  ds.numNodes = options.numNodes;
  ds.numClasses = options.numClasses;
  if (options.kind == GraphKind::Sbm) {
    sbmLabels(options, ds);
    sbmEdges(options, ds);
  } else {
    // RMAT communities: contiguous id blocks, i.e. the recursion's top
    // quadrants, where a + d > b + c concentrates the edges.
    ds.labels.resize(size_t(options.numNodes));
    for (int64_t i = 0; i < options.numNodes; ++i)
      ds.labels[i] = i * options.numClasses / options.numNodes;
    rmatEdges(options, ds);
  }
  features(options, ds);
  splits(options, ds);
  return ds;
}

} // namespace gnnrt
