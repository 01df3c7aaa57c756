//===- Generator.cpp - SBM and RMAT synthetic datasets --------------------===//
//
// Validates the options, and builds SBM and RMAT graphs from the shared
// class-conditioned draws of GeneratorParts.h (the mag kind has its own
// file, MagGenerator.cpp). RMAT's edge e draws from its own block range of
// the edge stream, so its loop is parallel without changing a bit.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Generator.h"

#include "GeneratorParts.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gnnrt {

using namespace generator;

namespace {
[[noreturn]] void invalid(const std::string &message) {
  throw DataError("generator: " + message);
}

void validate(const GeneratorOptions &o) {
  auto count = [](const char *name, int64_t v, int64_t min) {
    if (v < min)
      invalid(std::string(name) + " must be >= " + std::to_string(min) +
              " (got " + std::to_string(v) + ")");
  };
  const bool mag = o.kind == GraphKind::Mag;
  count("nodes", o.numNodes, mag ? 10 : 1); // mag: every type present
  if (!(mag && o.numEdges == -1))
    count("edges", o.numEdges, 0);
  count("features", o.numFeatures, 0);
  count("classes", o.numClasses, 1);
  if (o.numNodes >= (int64_t(1) << 31))
    invalid("nodes must be < 2^31 (got " + std::to_string(o.numNodes) + ")");
  if (!mag && o.numClasses > o.numNodes)
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
  if (!(o.homophily >= 0 && o.homophily <= 1))
    invalid("homophily must lie in [0, 1]");
}

/// SBM edges: pIn and pOut are per-pair propensities, so the chance that
/// a destination is in its source's class is that class's share of the
/// pIn-weighted candidates.
void sbmEdges(const GeneratorOptions &o, Dataset &ds) {
  const int64_t n = o.numNodes, c = o.numClasses;
  std::vector<int64_t> sizes = classSizes(ds.labels, c);
  std::vector<double> intra(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; ++k) {
    double inside = double(sizes[size_t(k)]) * o.pIn;
    double outside = double(n - sizes[size_t(k)]) * o.pOut;
    intra[size_t(k)] = inside + outside > 0 ? inside / (inside + outside) : 1.0;
  }
  ds.src.resize(size_t(o.numEdges));
  ds.dst.resize(size_t(o.numEdges));
  classAffineEdges(ds.labels, ds.labels, intra, c, /*noSelfLoops=*/true, o.seed,
                   kEdgeStream, ds.src, ds.dst);
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

} // namespace

Dataset generateDataset(const GeneratorOptions &options) {
  validate(options);
  if (options.kind == GraphKind::Mag)
    return generateMagDataset(options);
  Dataset ds;
  ds.numNodes = options.numNodes;
  ds.numClasses = options.numClasses;
  if (options.kind == GraphKind::Sbm) {
    ds.labels = uniformClasses(options.numNodes, options.numClasses,
                               options.seed, kLabelStream);
    sbmEdges(options, ds);
  } else {
    // RMAT communities: contiguous id blocks, i.e. the recursion's top
    // quadrants, where a + d > b + c concentrates the edges.
    ds.labels.resize(size_t(options.numNodes));
    for (int64_t i = 0; i < options.numNodes; ++i)
      ds.labels[i] = i * options.numClasses / options.numNodes;
    rmatEdges(options, ds);
  }
  ds.numFeatures = options.numFeatures;
  ds.features.resize(size_t(options.numNodes * options.numFeatures));
  classFeatures(ds.labels, options.numClasses, options.numFeatures,
                options.signal, options.seed, ds.features.data());
  randomSplits(options.numNodes, options.trainFraction, options.validFraction,
               options.testFraction, options.seed, ds.trainIdx, ds.validIdx,
               ds.testIdx);
  return ds;
}

} // namespace gnnrt
