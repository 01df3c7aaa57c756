//===- LinkCommands.cpp - gnn-data's link-prediction commands -------------===//
//
// See LinkCommands.h. Errors are DataErrors or UsageErrors, which gnn-data's
// main prints and turns into exit status 1.
//
//===----------------------------------------------------------------------===//

#include "LinkCommands.h"

#include "ToolArgs.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/links/EdgeSplit.h"
#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/train/FilteredRanking.h"
#include "gnnrt/train/LinkMetrics.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace gnnrt;

namespace gnntools {

namespace {

void printRanking(const char *name, const RankingMetrics &m) {
  std::printf("%-6s mrr %.10f  hits@1 %.10f  hits@3 %.10f  hits@10 %.10f  "
              "(%lld ranks)\n",
              name, m.mrr, m.hits1, m.hits3, m.hits10, (long long)m.count);
}

/// A float32 .npy matrix of `rows` rows; returns its width.
int64_t readMatrix(const std::string &path, int64_t rows,
                   std::vector<float> &out) {
  NpyArray array = readNpy(path);
  const std::vector<int64_t> &shape = array.header.shape;
  if (shape.size() != 2 || shape[0] != rows)
    throw DataError(
        path + ": expected a [" + std::to_string(rows) + ", D] matrix, found " +
        std::to_string(shape.size()) + " dimensions" +
        (shape.empty() ? "" : " with " + std::to_string(shape[0]) + " rows"));
  out = array.toFloat32();
  // A nan would surface as a ranking error naming no file.
  for (size_t k = 0; k < out.size(); ++k)
    if (!std::isfinite(out[k]))
      throw DataError(path + ": row " + std::to_string(k / size_t(shape[1])) +
                      ", column " + std::to_string(k % size_t(shape[1])) +
                      " is " + (std::isnan(out[k]) ? "nan" : "inf") +
                      " (embeddings must be finite numbers)");
  return shape[1];
}

} // namespace

int knowledgeGraphInfo(const std::string &dir) {
  const KnowledgeGraph kg = readKnowledgeGraph(dir);
  std::printf("dataset     %s (knowledge graph)\n", dir.c_str());
  std::printf("entities    %lld\n", (long long)kg.numEntities());
  std::printf("relations   %d\n", kg.numRelations());
  std::printf("triples     train %zu, valid %zu, test %zu\n", kg.train.size(),
              kg.valid.size(), kg.test.size());
  const TripleList *splits[3] = {&kg.train, &kg.valid, &kg.test};
  std::vector<std::array<int64_t, 3>> perRelation(size_t(kg.numRelations()));
  for (size_t s = 0; s < 3; ++s)
    for (int32_t r : splits[s]->relation)
      ++perRelation[size_t(r)][s];
  for (size_t r = 0; r < perRelation.size(); ++r)
    std::printf("  %-3zu %-32s train %7lld  valid %6lld  test %6lld\n", r,
                kg.relations[r].c_str(), (long long)perRelation[r][0],
                (long long)perRelation[r][1], (long long)perRelation[r][2]);
  return 0;
}

void linkPairsInfo(const std::string &dir, int64_t numNodes) {
  const FixedLinkSplit split = readFixedLinkSplit(dir, numNodes);
  std::printf("link pairs  %s\n", dir.c_str());
  auto count = [](bool has, const LinkPairs &pairs) {
    return has ? std::to_string(pairs.size()) : std::string("none");
  };
  for (size_t k = 0; k < 3; ++k)
    std::printf("  %-9s positive %s, negative %s\n", kSplitNames[k],
                count(split.hasPos[k], split.pos[k]).c_str(),
                count(split.hasNeg[k], split.neg[k]).c_str());
}

int linkMetrics(int argc, char **argv) {
  Args args(argc, argv, 2, {}, {"--k"});
  if (args.positional.size() != 1)
    throw UsageError("link-metrics expects one scores file");
  const int64_t k = args.integer("--k", 0, 1);
  CsvReader in(args.positional[0]);
  std::vector<std::string_view> fields;
  std::vector<float> positive, negative;
  // A score that is not a finite number is this row's error, not a
  // metric's later, without a row.
  auto score = [&](std::string_view field) {
    const float value = in.floatField(field);
    if (!std::isfinite(value))
      in.fail("expected a finite score, found " + quoteToken(field));
    return value;
  };
  while (in.nextLine()) {
    if (k == 0) {
      // label,score
      in.split(fields, 2);
      const int64_t label = in.intField(fields[0]);
      if (label != 0 && label != 1)
        in.fail("expected a label 0 or 1, found " + quoteToken(fields[0]));
      (label ? positive : negative).push_back(score(fields[1]));
    } else {
      // positive,negative_1,...,negative_k
      in.split(fields, size_t(k + 1));
      positive.push_back(score(fields[0]));
      for (int64_t j = 1; j <= k; ++j)
        negative.push_back(score(fields[size_t(j)]));
    }
  }
  try {
    if (k == 0) {
      const double auc = rocAuc(positive, negative);
      std::printf("auc %.10f\n", auc);
      std::printf("ap  %.10f\n", averagePrecision(positive, negative));
    } else {
      printRanking("ranked", rankAgainstNegatives(positive, negative, k));
    }
  } catch (const DataError &e) {
    // "AUC needs positive and negative scores, ...": say of which file.
    throw DataError(in.path() + ": " + e.what());
  }
  return 0;
}

int linkSplit(int argc, char **argv) {
  Args args(argc, argv, 2, {"--directed", "--require-train-edges"},
            {"--out", "--train", "--valid", "--test", "--seed"});
  if (args.positional.size() != 1)
    throw UsageError("link-split expects one dataset directory");
  const std::string dir = args.positional[0], out = args.required("--out");
  EdgeSplitOptions o;
  o.train = args.real("--train", o.train);
  o.valid = args.real("--valid", o.valid);
  o.test = args.real("--test", o.test);
  o.seed = uint64_t(args.integer("--seed", 0, 0));
  o.undirected = !args.has("--directed");
  o.requireTrainEdges = args.has("--require-train-edges");
  LoadOptions load;
  load.useCache = false;
  const Dataset ds = loadDataset(dir, load);
  const EdgeSplit split = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o);
  writeFixedLinkSplit(out, split);
  std::printf("wrote %s: train %zu, valid %zu + %zu negative, test %zu + %zu "
              "negative pairs; %zu message-passing edges, %lld nodes with "
              "edges but no train edge\n",
              out.c_str(), split.trainPos.size(), split.validPos.size(),
              split.validNeg.size(), split.testPos.size(), split.testNeg.size(),
              split.graph.size(), (long long)split.nodesWithoutTrainEdge);
  return 0;
}

int kgRank(int argc, char **argv) {
  Args args(argc, argv, 2, {},
            {"--entities", "--relations", "--split", "--entity-block",
             "--query-block"});
  if (args.positional.size() != 1)
    throw UsageError("kg-rank expects one knowledge-graph directory");
  const KnowledgeGraph kg = readKnowledgeGraph(args.positional[0]);
  std::vector<float> entities, relations;
  const int64_t dim =
      readMatrix(args.required("--entities"), kg.numEntities(), entities);
  if (readMatrix(args.required("--relations"), kg.numRelations(), relations) !=
      dim)
    throw DataError(args.get("--relations") +
                    ": the relation vectors' width differs from the "
                    "entities' (" +
                    std::to_string(dim) + ")");
  const std::string split = args.get("--split", "test");
  if (split != "valid" && split != "test")
    throw UsageError("--split must be valid or test, found '" + split + "'");
  FilteredRankingOptions options;
  options.entityBlock = args.integer("--entity-block", options.entityBlock, 1);
  options.queryBlock = args.integer("--query-block", options.queryBlock, 1);

  // DistMult: sum_d e_h[d] * w_r[d] * e_t[d], over d in order, so a score
  // is the same in any block.
  auto distMult = [&](RankSide side, const int64_t *anchors, int64_t count,
                      int32_t relation, int64_t begin, int64_t end,
                      float *out) {
    const float *w = relations.data() + relation * dim;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i)
      for (int64_t c = begin; c < end; ++c) {
        const int64_t h = side == RankSide::Tail ? anchors[i] : c;
        const int64_t t = side == RankSide::Tail ? c : anchors[i];
        float s = 0;
        for (int64_t d = 0; d < dim; ++d)
          s += entities[size_t(h * dim + d)] * w[d] *
               entities[size_t(t * dim + d)];
        out[i * (end - begin) + (c - begin)] = s;
      }
  };
  const FilteredRankingResult result = filteredRanking(
      kg, split == "valid" ? kg.valid : kg.test, distMult, options);
  std::printf("filtered %s ranking, %lld entities\n", split.c_str(),
              (long long)kg.numEntities());
  printRanking("both", result.both);
  printRanking("tail", result.tail);
  printRanking("head", result.head);
  return 0;
}

} // namespace gnntools
