//===- Generator.cpp - SBM and RMAT synthetic datasets --------------------===//
//
// Validates the options, and builds SBM and RMAT graphs from the shared
// class-conditioned draws of GeneratorParts.h (the mag kind has its own
// file, MagGenerator.cpp). Every feature row and edge draws from its own
// counters (RMAT's edge e from its own block range of the edge stream), so
// the loops are parallel, and writeGeneratedDataset draws a dataset larger
// than memory chunk by chunk as it writes it, without changing a bit.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Generator.h"

#include "GeneratorParts.h"
#include "gnnrt/data/DatasetStream.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <memory>
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

/// An SBM or RMAT dataset's draws: the node tables (labels, splits) held,
/// the features and edges drawn by range, each row and edge from its own
/// counters, so drawing in chunks gives the same values as drawing whole.
class HomogeneousDraws {
public:
  explicit HomogeneousDraws(const GeneratorOptions &o) : o(o) {
    nodes.numNodes = o.numNodes;
    nodes.numClasses = o.numClasses;
    nodes.numFeatures = o.numFeatures;
    if (o.kind == GraphKind::Sbm) {
      nodes.labels =
          uniformClasses(o.numNodes, o.numClasses, o.seed, kLabelStream);
      sbm = std::make_unique<ClassAffineEdges>(
          nodes.labels, nodes.labels, sbmSameClass(), o.numClasses,
          /*noSelfLoops=*/true, o.seed, kEdgeStream);
    } else {
      // RMAT communities: contiguous id blocks, i.e. the recursion's top
      // quadrants, where a + d > b + c concentrates the edges.
      nodes.labels.resize(size_t(o.numNodes));
      for (int64_t i = 0; i < o.numNodes; ++i)
        nodes.labels[size_t(i)] = i * o.numClasses / o.numNodes;
    }
    randomSplits(o.numNodes, o.trainFraction, o.validFraction, o.testFraction,
                 o.seed, nodes.trainIdx, nodes.validIdx, nodes.testIdx);
  }
  HomogeneousDraws(const HomogeneousDraws &) = delete;
  HomogeneousDraws &operator=(const HomogeneousDraws &) = delete;

  /// Feature rows [first, first + count) into rows[count x numFeatures].
  void featureRows(int64_t first, int64_t count, float *rows) const {
    classFeatureRows(nodes.labels, first, count, o.numClasses, o.numFeatures,
                     o.signal, o.seed, rows);
  }

  /// Edges [first, first + count).
  void edges(int64_t first, int64_t count, int64_t *src, int64_t *dst) const {
    if (sbm)
      sbm->draw(first, count, src, dst);
    else
      rmatEdges(first, count, src, dst);
  }

  /// numNodes, numFeatures, numClasses, labels and splits (no features,
  /// no edges).
  Dataset nodes;

private:
  /// SBM: pIn and pOut are per-pair propensities, so the chance that a
  /// destination is in its source's class is that class's share of the
  /// pIn-weighted candidates.
  std::vector<double> sbmSameClass() const {
    const int64_t n = o.numNodes, c = o.numClasses;
    std::vector<int64_t> sizes = classSizes(nodes.labels, c);
    std::vector<double> intra(static_cast<size_t>(c));
    for (int64_t k = 0; k < c; ++k) {
      double inside = double(sizes[size_t(k)]) * o.pIn;
      double outside = double(n - sizes[size_t(k)]) * o.pOut;
      intra[size_t(k)] =
          inside + outside > 0 ? inside / (inside + outside) : 1.0;
    }
    return intra;
  }

  void rmatEdges(int64_t first, int64_t count, int64_t *src,
                 int64_t *dst) const {
    const int64_t n = o.numNodes;
    int scale = 1;
    while ((int64_t(1) << scale) < n)
      ++scale;
    double sum = o.a + o.b + o.c + o.d;
    // Cumulative quadrant thresholds: a = (0,0), b = (0,1), c = (1,0),
    // d = (1,1).
    float ta = float(o.a / sum), tb = float((o.a + o.b) / sum),
          tc = float((o.a + o.b + o.c) / sum);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) {
      CounterRng rng(o.seed, kEdgeStream, uint64_t(first + i) * kBlocksPerEdge);
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
      src[i] = u;
      dst[i] = v;
    }
  }

  const GeneratorOptions &o;
  std::unique_ptr<ClassAffineEdges> sbm;
};

} // namespace

Dataset generateDataset(const GeneratorOptions &options) {
  validate(options);
  if (options.kind == GraphKind::Mag)
    return generateMagDataset(options);
  HomogeneousDraws draws(options);
  Dataset ds;
  ds.src.resize(size_t(options.numEdges));
  ds.dst.resize(size_t(options.numEdges));
  draws.edges(0, options.numEdges, ds.src.data(), ds.dst.data());
  ds.features.resize(size_t(options.numNodes * options.numFeatures));
  draws.featureRows(0, options.numNodes, ds.features.data());
  // Everything is drawn: the node tables the draws referenced may go.
  ds.numNodes = draws.nodes.numNodes;
  ds.numClasses = draws.nodes.numClasses;
  ds.numFeatures = draws.nodes.numFeatures;
  ds.labels = std::move(draws.nodes.labels);
  ds.trainIdx = std::move(draws.nodes.trainIdx);
  ds.validIdx = std::move(draws.nodes.validIdx);
  ds.testIdx = std::move(draws.nodes.testIdx);
  return ds;
}

Dataset writeGeneratedDataset(const GeneratorOptions &options,
                              const std::string &dir, bool npy) {
  validate(options);
  if (options.kind == GraphKind::Mag) {
    Dataset ds = generateMagDataset(options);
    if (npy)
      writeNpyDataset(dir, ds);
    else
      writeOgbDataset(dir, ds, "random");
    return ds;
  }
  HomogeneousDraws draws(options);
  DatasetStream stream;
  stream.nodes = &draws.nodes;
  stream.numEdges = options.numEdges;
  stream.featureRows = [&](int64_t first, int64_t count, float *rows) {
    draws.featureRows(first, count, rows);
  };
  stream.edges = [&](int64_t first, int64_t count, int64_t *src, int64_t *dst) {
    draws.edges(first, count, src, dst);
  };
  if (npy)
    writeNpyDataset(dir, stream);
  else
    writeOgbDataset(dir, stream, "random");
  return std::move(draws.nodes);
}

} // namespace gnnrt
