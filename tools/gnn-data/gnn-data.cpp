//===- gnn-data.cpp - Generate and inspect graph datasets -----------------===//
//
// `gnn-data generate` writes a deterministic synthetic node-classification
// dataset (SBM, RMAT or the heterogeneous ogbn-mag shape, see
// gnnrt/data/Generator.h) in the OGB raw layout or as .npy arrays, SBM and
// RMAT in chunks (a dataset larger than memory);
// `gnn-data convert` turns an OGB-layout dataset (csv or csv.gz) into .npy
// arrays in one pass, a chunk of rows at a time (larger than memory, the
// layout whose rows can be read in place and in slices);
// `gnn-data info` loads any dataset directory the runtime understands and
// prints its sizes, split and degree statistics, and for a heterogeneous
// one its node types and relations (a knowledge graph: its entities,
// relations and triples; a collection of small graphs, TU or OGB graph
// property: its graphs, classes and folds); `link-split`,
// `link-metrics` and `kg-rank` are the link-prediction commands of
// LinkCommands.cpp, `generate --kind molecules` and the collections'
// info those of GraphCommands.cpp. Every
// failure prints `gnn-data: error: <message>` on stderr and exits 1, so
// scripts and tests can rely on both.
//
//===----------------------------------------------------------------------===//

#include "GraphCommands.h"
#include "LinkCommands.h"
#include "ToolArgs.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetFormat.h"
#include "gnnrt/data/DatasetStream.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnntools;

namespace {

const char *kUsage = R"(usage:
  gnn-data generate --kind sbm|rmat --nodes N --edges E --out DIR [options]
  gnn-data generate --kind mag --nodes N [--edges E] --out DIR [options]
  gnn-data generate --kind molecules --graphs N --out DIR [--seed S]
                    [--train F --valid F]
  gnn-data convert [--split NAME] DIR --out OUT
  gnn-data info [--no-cache] [--reverse] [--self-loops] [--dedupe]
                [--split NAME] [--links PAIRS] DIR
  gnn-data link-split DIR --out OUT [--train F --valid F --test F]
                [--seed S] [--directed] [--require-train-edges]
  gnn-data link-metrics [--k K] SCORES
  gnn-data kg-rank DIR --entities E.npy --relations R.npy [--split test]
                [--entity-block N] [--query-block N]

generate options:
  --kind sbm|rmat|mag stochastic block model (homophilous), R-MAT (power law)
                      or an ogbn-mag-shaped heterogeneous graph (node types
                      author, field_of_study, institution, paper; relations
                      affiliated_with, writes, cites, has_topic)
  --nodes N           number of nodes (required; mag: all types together)
  --edges E           number of directed edges written (required; mag:
                      default ogbn-mag's density, about 10.9 per node)
  --features F        feature width (default 16; mag: 128, on papers)
  --classes C         number of classes (default 4; mag: 349, of papers)
  --seed S            random seed; same seed, same bytes (default 0)
  --out DIR           output directory (required)
  --format ogb|npy    OGB raw layout with gzip csv, or .npy arrays (default:
                      ogb up to 2M edges and 50M feature values, else npy);
                      sbm and rmat are written in chunks as they are drawn,
                      so a dataset may be larger than memory; mag as npy
                      adds edge_type.npy and types.json
  --train F --valid F --test F
                      split fractions (default 0.6 0.2 0.2)
  --p-in P --p-out P  SBM relative edge propensity within / across classes
                      (default 1.0 0.05)
  --rmat A,B,C,D      R-MAT quadrant probabilities (default 0.57,0.19,0.19,0.05)
  --signal S          distance between class feature means, in noise standard
                      deviations (default 3.0)
  --homophily H       mag: probability that an edge's endpoints share a class
                      (default 0.8)
  --graphs N          molecules: number of graphs (10-50 atoms each, rings
                      and chains, atom-type one-hot features, label 1 when a
                      ring has 6+ atoms), written in OGB's graph-property
                      layout graph by graph (any number in bounded memory);
                      split "random" by --train and --valid (default 0.8 0.1,
                      the rest test)

convert: DIR in the OGB homogeneous layout (raw/*.csv[.gz], split/NAME/)
becomes the .npy layout in OUT (edge_index.npy, features.npy, labels.npy,
train/valid/test_idx.npy), as stored (no load options); --split NAME picks
the split (default: public, else the first). Each table is parsed once, a
chunk of rows at a time; OUT appears only when complete. A dataset in the
OGB heterogeneous layout is read whole and written with its types
(edge_type.npy, types.json: the typed .npy layout, docs/data.md).

info on a graph collection (TU's DS_*.txt or OGB's raw/graph-label.csv)
prints its graphs, nodes, edges, classes, feature widths and folds.

info options:
  --no-cache          neither read nor write the binary cache
  --reverse --self-loops --dedupe --split NAME
                      load options, as a trainer would apply them
  --links PAIRS       read the link pair files of directory PAIRS
                      ({train,valid,test}_{pos,neg}.csv[.gz], as link-split
                      writes them) against DIR's nodes; without it, those
                      of DIR's chosen split/<name>/, if it has any. A link
                      dataset needs no node labels or node train split.
A knowledge graph (DIR/{train,valid,test}.txt[.gz], head<TAB>relation<TAB>
tail per line) prints its entities, relations and triples per split.

link-split: a random edge split of DIR's graph with PyG RandomLinkSplit's
semantics (default 0.85 / 0.05 / 0.10, undirected pairs split together,
valid and test negatives never edges) written to OUT as
{train,valid,test}_pos.csv and {valid,test}_neg.csv (src,dst rows).

link-metrics: SCORES is a csv of `label,score` rows (1 positive, 0
negative): prints AUC and AP; with --k K, rows of a positive's score then
its K negatives' scores: prints MRR and Hits@1/3/10 (OGB's tie rule).

kg-rank: the filtered ranking (every entity as head and as tail, known
triples removed) of the valid or test triples of knowledge graph DIR under
DistMult embeddings: E.npy [entities, D] and R.npy [relations, D] float32,
entity and relation ids in order of first appearance in train, valid, test.
)";

/// "train 140, valid 500, test 1000"; an absent split reads "valid none".
std::string splitSizes(const Dataset &ds) {
  const std::vector<int64_t> *ids[3] = {&ds.trainIdx, &ds.validIdx,
                                        &ds.testIdx};
  std::string text;
  for (size_t k = 0; k < 3; ++k)
    text += std::string(k ? ", " : "") + kSplitNames[k] + " " +
            (ds.hasSplits[k] ? std::to_string(ids[k]->size()) : "none");
  return text;
}

/// A heterogeneous dataset's node types (global id ranges, features,
/// labels) and relations (endpoints, edge counts).
void printTypes(const Dataset &ds) {
  std::vector<int64_t> labeled(ds.nodeTypes.size(), 0);
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    const NodeType &type = ds.nodeTypes[t];
    labeled[t] = std::count_if(ds.labels.begin() + type.offset,
                               ds.labels.begin() + type.offset + type.count,
                               [](int64_t l) { return l >= 0; });
  }
  std::printf("node types  %zu, target %s\n", ds.nodeTypes.size(),
              ds.targetType >= 0
                  ? ds.nodeTypes[size_t(ds.targetType)].name.c_str()
                  : "(none)");
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    const NodeType &type = ds.nodeTypes[t];
    std::printf("  %-3zu %-24s %10lld nodes  ids [%lld, %lld)  %s", t,
                type.name.c_str(), (long long)type.count,
                (long long)type.offset, (long long)(type.offset + type.count),
                type.hasFeatures ? "features" : "no features");
    if (labeled[t])
      std::printf(", %lld labeled", (long long)labeled[t]);
    std::printf("\n");
  }
  std::vector<int64_t> edges(ds.relations.size(), 0);
  for (int32_t r : ds.edgeType)
    ++edges[size_t(r)];
  std::printf("relations   %zu\n", ds.relations.size());
  auto typeName = [&](int32_t t) {
    return t < 0 ? std::string("*") : ds.nodeTypes[size_t(t)].name;
  };
  for (size_t r = 0; r < ds.relations.size(); ++r) {
    const RelationType &rel = ds.relations[r];
    std::string triplet =
        typeName(rel.srcType) + " -" + rel.name + "-> " + typeName(rel.dstType);
    std::printf("  %-3zu %-50s %10lld edges", r, triplet.c_str(),
                (long long)edges[r]);
    if (rel.inverseOf >= 0)
      std::printf("  (inverse of %d)", rel.inverseOf);
    std::printf("\n");
  }
}

int generate(int argc, char **argv) {
  Args args(argc, argv, 2, {},
            {"--kind", "--nodes", "--edges", "--features", "--classes",
             "--seed", "--out", "--format", "--train", "--valid", "--test",
             "--p-in", "--p-out", "--rmat", "--signal", "--homophily",
             "--graphs"});
  if (!args.positional.empty())
    throw UsageError("unexpected argument '" + args.positional[0] + "'");
  GeneratorOptions o;
  std::string kind = args.required("--kind");
  if (kind == "molecules")
    return generateMolecules(args);
  if (args.has("--graphs"))
    throw UsageError("--graphs applies to --kind molecules only");
  if (kind == "sbm")
    o.kind = GraphKind::Sbm;
  else if (kind == "rmat")
    o.kind = GraphKind::Rmat;
  else if (kind == "mag")
    o.kind = GraphKind::Mag;
  else
    throw UsageError("--kind must be sbm, rmat, mag or molecules, found '" +
                     kind + "'");
  const bool mag = o.kind == GraphKind::Mag;
  args.required("--nodes");
  if (!mag)
    args.required("--edges");
  o.numNodes = args.integer("--nodes", 0);
  o.numEdges = args.integer("--edges", mag ? -1 : 0);
  // The mag defaults are ogbn-mag's paper features and venues.
  o.numFeatures = args.integer("--features", mag ? 128 : 16);
  o.numClasses = args.integer("--classes", mag ? 349 : 4);
  o.homophily = args.real("--homophily", o.homophily);
  o.seed = uint64_t(args.integer("--seed", 0));
  o.trainFraction = args.real("--train", o.trainFraction);
  o.validFraction = args.real("--valid", o.validFraction);
  o.testFraction = args.real("--test", o.testFraction);
  o.pIn = args.real("--p-in", o.pIn);
  o.pOut = args.real("--p-out", o.pOut);
  o.signal = args.real("--signal", o.signal);
  if (args.has("--rmat")) {
    std::string text = args.get("--rmat");
    std::vector<double> p;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t comma = std::min(text.find(',', pos), text.size());
      p.push_back(Args::parseReal("--rmat", text.substr(pos, comma - pos)));
      pos = comma + 1;
    }
    if (p.size() != 4)
      throw UsageError("--rmat expects 4 comma-separated probabilities, "
                       "found '" +
                       text + "'");
    o.a = p[0], o.b = p[1], o.c = p[2], o.d = p[3];
  }
  std::string out = args.required("--out");
  std::string format = args.get("--format");
  if (format.empty())
    format =
        mag || (o.numEdges <= 2000000 && o.numNodes * o.numFeatures <= 50000000)
            ? "ogb"
            : "npy";
  if (format != "ogb" && format != "npy")
    throw UsageError("--format must be ogb or npy, found '" + format + "'");

  // Features and edges are drawn in chunks as they are written: the
  // dataset may be larger than memory.
  auto start = std::chrono::steady_clock::now();
  const Dataset ds = writeGeneratedDataset(o, out, format == "npy");
  std::printf("wrote %s (%s): %lld nodes, %lld edges, %lld features, %lld "
              "classes; split %zu/%zu/%zu; in %.2f s\n",
              out.c_str(), format.c_str(), (long long)ds.numNodes,
              (long long)(mag ? ds.numEdges() : o.numEdges),
              (long long)ds.numFeatures, (long long)ds.numClasses,
              ds.trainIdx.size(), ds.validIdx.size(), ds.testIdx.size(),
              secondsSince(start));
  if (ds.isHeterogeneous())
    printTypes(ds);
  return 0;
}

int convert(int argc, char **argv) {
  Args args(argc, argv, 2, {}, {"--out", "--split"});
  if (args.positional.size() != 1)
    throw UsageError("convert expects one dataset directory");
  const std::string dir = args.positional[0], out = args.get("--out");
  if (out.empty())
    throw UsageError("convert needs --out OUT");
  const DatasetFormatInfo &format = datasetFormat(dir);
  if (!format.convertToNpy && format.format != DatasetFormat::OgbHetero)
    throw DataError(dir +
                    ": convert reads the OGB layouts (raw/*.csv[.gz]), "
                    "found " +
                    format.name);
  LoadOptions options;
  options.splitName = args.get("--split");
  auto start = std::chrono::steady_clock::now();
  if (format.convertToNpy) {
    format.convertToNpy(dir, out, options);
  } else {
    // A typed graph whole (a few bytes per edge more than the arrays):
    // written whole or not at all.
    const Dataset ds = format.read(dir, options);
    writeDirectoryWhole(
        out, [&](const std::string &temp) { writeNpyDataset(temp, ds); });
  }
  std::printf("wrote %s (npy) from %s in %.2f s\n", out.c_str(), dir.c_str(),
              secondsSince(start));
  return 0;
}

void printDegrees(const char *name, const std::vector<int64_t> &deg,
                  int64_t numEdges) {
  int64_t lo = deg.empty() ? 0 : *std::min_element(deg.begin(), deg.end());
  int64_t hi = deg.empty() ? 0 : *std::max_element(deg.begin(), deg.end());
  int64_t zero = std::count(deg.begin(), deg.end(), 0);
  std::printf("%-11s min %lld, max %lld, mean %.2f, zero %lld\n", name,
              (long long)lo, (long long)hi,
              deg.empty() ? 0.0 : double(numEdges) / double(deg.size()),
              (long long)zero);
}

int info(int argc, char **argv) {
  Args args(argc, argv, 2,
            {"--no-cache", "--reverse", "--self-loops", "--dedupe"},
            {"--split", "--links"});
  if (args.positional.size() != 1)
    throw UsageError("info expects one dataset directory");
  std::string dir = args.positional[0];
  const bool knowledgeGraph = isKnowledgeGraphDirectory(dir);
  const bool collection = !knowledgeGraph && isGraphCollection(dir);
  if ((knowledgeGraph || collection) && args.has("--links"))
    throw UsageError(
        "--links reads pair files against a node dataset, not "
        "the " +
        std::string(knowledgeGraph ? "knowledge graph " : "graph collection ") +
        dir);
  if (knowledgeGraph)
    return knowledgeGraphInfo(dir);
  if (collection) {
    if (args.has("--reverse") || args.has("--self-loops") ||
        args.has("--dedupe") || args.has("--split"))
      throw UsageError("--reverse, --self-loops, --dedupe and --split apply "
                       "to node datasets, not to the graph collection " +
                       dir);
    return graphCollectionInfo(dir);
  }
  LoadOptions options;
  options.useCache = !args.has("--no-cache");
  options.addReverseEdges = args.has("--reverse");
  options.addSelfLoops = args.has("--self-loops");
  options.dedupe = args.has("--dedupe");
  options.splitName = args.get("--split");
  const char *format = datasetFormat(dir).name;

  auto start = std::chrono::steady_clock::now();
  bool fromCache = false;
  Dataset ds = loadDataset(dir, options, &fromCache);
  double loadTime = secondsSince(start);

  int64_t labeled = std::count_if(ds.labels.begin(), ds.labels.end(),
                                  [](int64_t l) { return l >= 0; });
  std::vector<int64_t> inDeg(size_t(ds.numNodes)), outDeg(size_t(ds.numNodes));
  for (int64_t e = 0; e < ds.numEdges(); ++e) {
    ++outDeg[ds.src[e]];
    ++inDeg[ds.dst[e]];
  }
  int64_t isolated = 0;
  for (int64_t v = 0; v < ds.numNodes; ++v)
    isolated += inDeg[v] == 0 && outDeg[v] == 0;

  std::printf("dataset     %s (%s)\n", dir.c_str(), format);
  std::printf("nodes       %lld\n", (long long)ds.numNodes);
  std::printf("edges       %lld\n", (long long)ds.numEdges());
  std::printf("features    %lld\n", (long long)ds.numFeatures);
  std::printf("classes     %lld\n", (long long)ds.numClasses);
  std::printf("labeled     %lld\n", (long long)labeled);
  std::printf("split       %s\n", splitSizes(ds).c_str());
  printDegrees("in-degree", inDeg, ds.numEdges());
  printDegrees("out-degree", outDeg, ds.numEdges());
  std::printf("isolated    %lld\n", (long long)isolated);
  if (ds.isHeterogeneous())
    printTypes(ds);
  std::printf("load        %.1f ms (%s)\n", loadTime * 1e3,
              fromCache ? "from cache" : "parsed");
  // Link pairs: given, or in the split directory the loader chose.
  std::string links = args.get("--links");
  if (links.empty() && ds.splitSource != dir &&
      hasLinkPairFiles(ds.splitSource))
    links = ds.splitSource;
  if (!links.empty()) {
    linkPairsInfo(links, ds.numNodes);
    return 0;
  }
  // What the trainer refuses after loading: said here too, so that info's
  // exit status tells whether the directory can be trained on.
  if (ds.numClasses <= 0)
    throw DataError(dir + ": no labeled nodes: the trainer has nothing to "
                          "train on");
  if (ds.trainIdx.empty())
    throw DataError(dir + ": the train split is empty (no node ids in "
                          "split/<name>/train.csv[.gz] or train_idx.npy): "
                          "the trainer refuses it (--eval-only aside)");
  requireLabeledTrainNodes(ds, dir);
  // Learned input rows (embed = D) stand in for the features of typed
  // nodes only: an untyped graph without features leaves every model's
  // first weight empty, which the trainer refuses.
  if (!ds.isHeterogeneous() && ds.numFeatures == 0)
    throw DataError(dir + ": no node features (raw/node-feat.csv[.gz] or "
                          "features.npy): a weight sized by the input width "
                          "would be empty, which the trainer refuses "
                          "(learned inputs, embed = D, need node types)");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "generate")
      return generate(argc, argv);
    if (command == "convert")
      return convert(argc, argv);
    if (command == "info")
      return info(argc, argv);
    if (command == "link-split")
      return linkSplit(argc, argv);
    if (command == "link-metrics")
      return linkMetrics(argc, argv);
    if (command == "kg-rank")
      return kgRank(argc, argv);
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    throw UsageError(command.empty()
                         ? "missing command (generate, convert or info)"
                         : "unknown command '" + command + "'");
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "gnn-data: error: %s\n(run 'gnn-data --help' for "
                 "usage)\n",
                 e.what());
  } catch (const DataError &e) {
    std::fprintf(stderr, "gnn-data: error: %s\n", e.what());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "gnn-data: error: out of memory\n");
  } catch (const std::length_error &) {
    // A vector asked for more elements than it can hold: a count in the
    // data (num-node-list, num-node-dict) that no memory could.
    std::fprintf(stderr, "gnn-data: error: out of memory (a count in the "
                         "data is too large to hold)\n");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gnn-data: error: %s\n", e.what());
  }
  return 1;
}
