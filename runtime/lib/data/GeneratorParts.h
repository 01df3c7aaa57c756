//===- GeneratorParts.h - Draws the synthetic generators share --*- C++ -*-===//
//
// The SBM/RMAT generator (Generator.cpp) and the ogbn-mag-shaped one
// (MagGenerator.cpp) build their graphs from the same class-conditioned
// draws: uniform classes, edges whose endpoints share a class with a given
// probability, Gaussian features around a per-class mean, and a shuffled
// split. Each is a pure function of (seed, stream, index) through the
// counter-based RNG, so loops run in parallel without changing a bit.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GENERATORPARTS_H
#define GNNRT_DATA_GENERATORPARTS_H

#include <cstdint>
#include <vector>

namespace gnnrt {
struct Dataset;
struct GeneratorOptions;
} // namespace gnnrt

namespace gnnrt::generator {

/// Independent streams of one seed, so that changing e.g. the edge count
/// does not change the labels or features.
enum Stream : uint64_t {
  kLabelStream = 1,
  kMeanStream = 2,
  kFeatureStream = 3,
  kEdgeStream = 4,
  kSplitStream = 5,
  /// The mag generator: node type t's classes, relation r's edges.
  kTypeClassStream = 16,
  kRelationEdgeStream = 32,
};

/// Blocks reserved per edge (each 4 words): retries beyond this are
/// astronomically unlikely and just continue into the next edge's range,
/// which stays deterministic.
constexpr uint64_t kBlocksPerEdge = 64;

/// Classes of `count` nodes: the first min(count, classes) take classes
/// 0, 1, ... (so every class exists when it can), the rest are uniform,
/// node i drawing with counter i of `stream`.
std::vector<int64_t> uniformClasses(int64_t count, int64_t classes,
                                    uint64_t seed, uint64_t stream);

/// Edges whose source is uniform over srcClasses' nodes and whose
/// destination is among dstClasses' nodes of the source's class k with
/// probability sameClass[k], else uniform over the others. With
/// `noSelfLoops` (one node set) a destination equal to its source is
/// redrawn. sameClass[k] must be 0 when no destination has class k and 1
/// when all have. Edge e draws from its own block range of `stream`, so a
/// range of edges can be drawn alone (in chunks) with the same result.
class ClassAffineEdges {
public:
  /// Keeps references to both class vectors.
  ClassAffineEdges(const std::vector<int64_t> &srcClasses,
                   const std::vector<int64_t> &dstClasses,
                   std::vector<double> sameClass, int64_t classes,
                   bool noSelfLoops, uint64_t seed, uint64_t stream);
  /// Edges [first, first + count) into src[0, count) and dst[0, count).
  void draw(int64_t first, int64_t count, int64_t *src, int64_t *dst) const;

private:
  const std::vector<int64_t> &srcClasses, &dstClasses;
  std::vector<double> sameClass;
  /// The destinations of each class, contiguous: class k's are
  /// members[start[k], start[k + 1]).
  std::vector<int64_t> members, start;
  bool noSelfLoops;
  uint64_t seed, stream;
};

/// Draws edges [0, src.size()) of `stream` (ClassAffineEdges).
void classAffineEdges(const std::vector<int64_t> &srcClasses,
                      const std::vector<int64_t> &dstClasses,
                      const std::vector<double> &sameClass, int64_t classes,
                      bool noSelfLoops, uint64_t seed, uint64_t stream,
                      std::vector<int64_t> &src, std::vector<int64_t> &dst);

/// How many of `classes` nodes have each class.
std::vector<int64_t> classSizes(const std::vector<int64_t> &classOf,
                                int64_t classes);

/// Writes row i of `out` ([classOf.size(), width], allocated by the
/// caller): the Gaussian mean of class classOf[i] plus unit Gaussian noise;
/// means are `signal` noise standard deviations apart in expectation.
void classFeatures(const std::vector<int64_t> &classOf, int64_t classes,
                   int64_t width, double signal, uint64_t seed, float *out);

/// Rows [first, first + count) of classFeatures' matrix into `out`
/// ([count, width]): the same values, drawn for those rows alone.
void classFeatureRows(const std::vector<int64_t> &classOf, int64_t first,
                      int64_t count, int64_t classes, int64_t width,
                      double signal, uint64_t seed, float *out);

/// Shuffles ids [0, n) by a random key per id and cuts the order into
/// train, valid and test by the fractions (the rest is in no split); each
/// list sorted.
void randomSplits(int64_t n, double train, double valid, double test,
                  uint64_t seed, std::vector<int64_t> &trainIdx,
                  std::vector<int64_t> &validIdx,
                  std::vector<int64_t> &testIdx);

/// The ogbn-mag-shaped heterogeneous dataset (GraphKind::Mag) for options
/// generateDataset has validated.
Dataset generateMagDataset(const GeneratorOptions &options);

} // namespace gnnrt::generator

#endif // GNNRT_DATA_GENERATORPARTS_H
