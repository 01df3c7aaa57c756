//===- GraphCommands.cpp - gnn-data's graph-collection commands -----------===//
//
// See GraphCommands.h.
//
//===----------------------------------------------------------------------===//

#include "GraphCommands.h"

#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/data/MoleculeGenerator.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace gnnrt;

namespace gnntools {

namespace {

/// "122747 (per graph min 3, max 111, mean 29.87)".
std::string perGraph(int64_t total, const std::vector<int64_t> &offsets) {
  int64_t lo = INT64_MAX, hi = 0;
  for (size_t g = 0; g + 1 < offsets.size(); ++g) {
    lo = std::min(lo, offsets[g + 1] - offsets[g]);
    hi = std::max(hi, offsets[g + 1] - offsets[g]);
  }
  char text[160];
  std::snprintf(text, sizeof(text),
                "%lld (per graph min %lld, max %lld, "
                "mean %.2f)",
                (long long)total, (long long)lo, (long long)hi,
                double(total) / double(offsets.size() - 1));
  return text;
}

std::string taskText(const GraphCollection &graphs) {
  if (graphs.task == GraphTask::Regression) {
    const auto [lo, hi] =
        std::minmax_element(graphs.targets.begin(), graphs.targets.end());
    double sum = 0;
    for (float t : graphs.targets)
      sum += t;
    char text[160];
    std::snprintf(text, sizeof(text),
                  "regression (targets min %g, max %g, mean %g)", *lo, *hi,
                  sum / double(graphs.targets.size()));
    return text;
  }
  std::vector<int64_t> sizes(size_t(graphs.numClasses), 0);
  for (int64_t c : graphs.classes)
    ++sizes[size_t(c)];
  std::string text =
      "classification, " + std::to_string(graphs.numClasses) + " classes (";
  for (size_t c = 0; c < sizes.size(); ++c)
    text += (c ? ", " : "") + std::to_string(sizes[c]);
  return text + " graphs)";
}

} // namespace

int graphCollectionInfo(const std::string &dir) {
  GraphCollectionFormat format = GraphCollectionFormat::Tu;
  isGraphCollection(dir, &format);
  auto start = std::chrono::steady_clock::now();
  const GraphCollection graphs = loadGraphCollection(dir);
  const double loadTime = secondsSince(start);

  std::printf("dataset     %s (%s)\n", dir.c_str(),
              graphCollectionFormatName(format));
  std::printf("graphs      %lld\n", (long long)graphs.numGraphs());
  std::printf("nodes       %s\n",
              perGraph(graphs.numNodes(), graphs.nodeOffsets).c_str());
  std::printf("edges       %s\n",
              perGraph(graphs.numEdges(), graphs.edgeOffsets).c_str());
  std::printf("task        %s\n", taskText(graphs).c_str());
  std::printf("features    %lld\n", (long long)graphs.numFeatures);
  std::printf("edge feat.  %lld\n", (long long)graphs.numEdgeFeatures);
  if (graphs.folds.empty()) {
    std::printf("folds       none\n");
  } else {
    std::printf("folds       %zu from %s\n", graphs.folds.size(),
                graphs.foldSource.c_str());
    for (const GraphFold &fold : graphs.folds)
      std::printf("  %-9s train %zu, valid %zu, test %zu\n", fold.name.c_str(),
                  fold.train.size(), fold.valid.size(), fold.test.size());
  }
  std::printf("load        %.1f ms\n", loadTime * 1e3);
  // As a node dataset's empty train split: a fold that trains on nothing.
  for (const GraphFold &fold : graphs.folds)
    if (fold.train.empty())
      throw DataError(graphs.foldSource + ": fold '" + fold.name +
                      "' has no train graphs: nothing to train on");
  return 0;
}

int generateMolecules(const Args &args) {
  for (const char *option :
       {"--nodes", "--edges", "--features", "--classes", "--format", "--test",
        "--p-in", "--p-out", "--rmat", "--signal", "--homophily"})
    if (args.has(option))
      throw UsageError(std::string(option) +
                       " does not apply to --kind molecules");
  MoleculeOptions o;
  args.required("--graphs");
  o.numGraphs = args.integer("--graphs", 0, 1);
  o.seed = uint64_t(args.integer("--seed", 0, 0));
  o.trainFraction = args.real("--train", o.trainFraction);
  o.validFraction = args.real("--valid", o.validFraction);
  const std::string out = args.required("--out");
  auto start = std::chrono::steady_clock::now();
  const MoleculeCounts c = writeMoleculeCollection(o, out);
  std::printf("wrote %s (ogb-graph): %lld graphs, %lld nodes, %lld edges "
              "(bonds, each once), %lld features, 2 classes (%lld graphs with "
              "a ring of 6+ atoms); split %lld/%lld/%lld; in %.2f s\n",
              out.c_str(), (long long)c.graphs, (long long)c.nodes,
              (long long)c.edges, (long long)kNumAtomTypes,
              (long long)c.positives, (long long)c.train, (long long)c.valid,
              (long long)c.test, secondsSince(start));
  return 0;
}

} // namespace gnntools
