//===- MagGenerator.cpp - An ogbn-mag-shaped heterogeneous graph ----------===//
//
// GraphKind::Mag (see Generator.h): ogbn-mag's node types, relations and
// their sizes scaled to the requested node count, built from the shared
// class-conditioned draws (GeneratorParts.h). Each node type draws its
// classes and each relation its edges from a stream of its own, so the
// output is a pure function of the options on any machine and thread count.
//
//===----------------------------------------------------------------------===//

#include "GeneratorParts.h"

#include "gnnrt/data/Generator.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gnnrt::generator {

namespace {
/// ogbn-mag's node types, in its raw/num-node-dict order, and their counts.
enum MagType { kAuthor, kFieldOfStudy, kInstitution, kPaper, kNumMagTypes };
struct MagTypeShape {
  const char *name;
  int64_t count;
};
constexpr MagTypeShape kMagTypes[kNumMagTypes] = {{"author", 1134649},
                                                  {"field_of_study", 59965},
                                                  {"institution", 8740},
                                                  {"paper", 736389}};
constexpr int64_t kMagNodes = 1134649 + 59965 + 8740 + 736389;

/// ogbn-mag's relations, in its raw/triplet-type-list order, and their edge
/// counts.
struct MagRelationShape {
  MagType src;
  const char *name;
  MagType dst;
  int64_t count;
};
constexpr MagRelationShape kMagRelations[] = {
    {kAuthor, "affiliated_with", kInstitution, 1043998},
    {kAuthor, "writes", kPaper, 7145660},
    {kPaper, "cites", kPaper, 5416271},
    {kPaper, "has_topic", kFieldOfStudy, 7505078}};
constexpr int64_t kMagEdges = 1043998 + 7145660 + 5416271 + 7505078;
constexpr size_t kNumMagRelations = std::size(kMagRelations);

/// Node counts in ogbn-mag's proportions summing to `total`: every type but
/// paper rounded (at least 1), paper the rest.
std::vector<int64_t> typeCounts(int64_t total) {
  std::vector<int64_t> counts(kNumMagTypes);
  int64_t others = 0;
  for (int t = 0; t < kNumMagTypes; ++t)
    if (t != kPaper) {
      counts[t] = std::max<int64_t>(
          1, std::llround(double(total) * double(kMagTypes[t].count) /
                          double(kMagNodes)));
      others += counts[t];
    }
  counts[kPaper] = total - others;
  return counts;
}

/// Edge counts per relation: ogbn-mag's density at `nodes` nodes, or
/// `edges` split in ogbn-mag's proportions (the last takes the rounding).
std::vector<int64_t> relationCounts(int64_t nodes, int64_t edges) {
  std::vector<int64_t> counts(kNumMagRelations);
  int64_t assigned = 0;
  for (size_t r = 0; r < kNumMagRelations; ++r) {
    double full = double(kMagRelations[r].count);
    if (edges < 0)
      counts[r] = std::llround(full * double(nodes) / double(kMagNodes));
    else if (r + 1 < kNumMagRelations)
      counts[r] = std::llround(full * double(edges) / double(kMagEdges));
    else
      counts[r] = edges - assigned;
    assigned += counts[r];
  }
  return counts;
}
} // namespace

Dataset generateMagDataset(const GeneratorOptions &o) {
  const int64_t classes = o.numClasses, width = o.numFeatures;
  const std::vector<int64_t> counts = typeCounts(o.numNodes);
  if (counts[kPaper] < classes)
    throw DataError("generator: classes (" + std::to_string(classes) +
                    ") must not exceed papers (" +
                    std::to_string(counts[kPaper]) + " of " +
                    std::to_string(o.numNodes) + " nodes)");

  Dataset ds;
  ds.numNodes = o.numNodes;
  ds.numClasses = classes;
  ds.targetType = kPaper;
  // Latent classes; the papers' are their labels (and keep the label
  // stream, as the SBM generator's labels do).
  std::vector<std::vector<int64_t>> classOf(kNumMagTypes);
  int64_t offset = 0;
  for (int t = 0; t < kNumMagTypes; ++t) {
    ds.nodeTypes.push_back({kMagTypes[t].name, offset, counts[size_t(t)],
                            t == kPaper && width > 0});
    offset += counts[size_t(t)];
    classOf[size_t(t)] = uniformClasses(
        counts[size_t(t)], classes, o.seed,
        t == kPaper ? uint64_t(kLabelStream) : kTypeClassStream + uint64_t(t));
  }

  const std::vector<int64_t> edgeCounts =
      relationCounts(o.numNodes, o.numEdges);
  int64_t totalEdges = 0;
  for (int64_t count : edgeCounts)
    totalEdges += count;
  ds.src.reserve(size_t(totalEdges));
  ds.dst.reserve(size_t(totalEdges));
  ds.edgeType.reserve(size_t(totalEdges));
  for (size_t r = 0; r < kNumMagRelations; ++r) {
    const MagRelationShape &shape = kMagRelations[r];
    ds.relations.push_back({shape.name, shape.src, shape.dst, -1});
    const std::vector<int64_t> &dstClasses = classOf[shape.dst];
    const std::vector<int64_t> sizes = classSizes(dstClasses, classes);
    std::vector<double> sameClass(static_cast<size_t>(classes));
    for (int64_t k = 0; k < classes; ++k)
      sameClass[size_t(k)] = sizes[size_t(k)] == 0 ? 0.0
                             : sizes[size_t(k)] == int64_t(dstClasses.size())
                                 ? 1.0
                                 : o.homophily;
    std::vector<int64_t> src(size_t(edgeCounts[r])), dst(src.size());
    classAffineEdges(classOf[shape.src], dstClasses, sameClass, classes,
                     /*noSelfLoops=*/shape.src == shape.dst, o.seed,
                     kRelationEdgeStream + r, src, dst);
    const int64_t srcOffset = ds.nodeTypes[shape.src].offset;
    const int64_t dstOffset = ds.nodeTypes[shape.dst].offset;
    for (size_t e = 0; e < src.size(); ++e) {
      ds.src.push_back(srcOffset + src[e]);
      ds.dst.push_back(dstOffset + dst[e]);
    }
    ds.edgeType.resize(ds.src.size(), int32_t(r));
  }

  // Papers: labels, features (the other types' rows stay zero), split.
  const NodeType &paper = ds.nodeTypes[kPaper];
  ds.labels.assign(size_t(o.numNodes), -1);
  std::copy(classOf[kPaper].begin(), classOf[kPaper].end(),
            ds.labels.begin() + paper.offset);
  ds.numFeatures = width;
  ds.features.assign(size_t(o.numNodes * width), 0.f);
  classFeatures(classOf[kPaper], classes, width, o.signal, o.seed,
                ds.features.data() + paper.offset * width);
  randomSplits(paper.count, o.trainFraction, o.validFraction, o.testFraction,
               o.seed, ds.trainIdx, ds.validIdx, ds.testIdx);
  for (std::vector<int64_t> *ids : {&ds.trainIdx, &ds.validIdx, &ds.testIdx})
    for (int64_t &id : *ids)
      id += paper.offset;
  return ds;
}

} // namespace gnnrt::generator
