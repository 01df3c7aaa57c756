//===- MoleculeGenerator.cpp - Synthetic molecule-like collections --------===//
//
// See gnnrt/data/MoleculeGenerator.h. A graph is drawn whole (at most 50
// atoms) and written at once, so the memory is one graph and the table
// writers' buffers whatever the number of graphs.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/MoleculeGenerator.h"

#include "gnnrt/io/TableWriter.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/io/AtomicFile.h"

#include <filesystem>
#include <memory>
#include <vector>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

constexpr uint64_t kMoleculeStream = 0x6d6f6c; // "mol"
constexpr uint64_t kMoleculeSplitStream = 0x6d6f6c73; // "mols"
/// Blocks (4 words each) reserved per graph; a graph uses at most about
/// 160 words, so graph g's draws never reach graph g + 1's.
constexpr uint64_t kBlocksPerGraph = 64;
constexpr int64_t kMinAtoms = 10, kMaxAtoms = 50;
constexpr int64_t kMinRing = 3, kMaxRing = 8, kLabelRing = 6;

/// Cumulative per-mille frequencies of kAtomTypes (carbon 70%, nitrogen and
/// oxygen 10% each, the rest rarer).
constexpr uint32_t kAtomCumulative[kNumAtomTypes] = {700, 800, 900, 930, 955,
                                                     975, 985, 995, 1000};

struct Molecule {
  std::vector<int> atoms;        // atom type per node
  std::vector<int64_t> src, dst; // bonds, each once, local ids
  bool label = false;            // has a ring of >= kLabelRing atoms
};

/// Graph g: rings of kMinRing..kMaxRing atoms first (consecutive ids), each
/// ring after the first bonded to an earlier atom, then chain atoms, each
/// bonded to the previous atom (70%) or to any earlier one (a branch). The
/// only cycles are the rings.
Molecule drawMolecule(uint64_t seed, int64_t g) {
  CounterRng rng(seed, kMoleculeStream, uint64_t(g) * kBlocksPerGraph);
  Molecule m;
  const int64_t n = kMinAtoms + rng.nextBelow(kMaxAtoms - kMinAtoms + 1);
  const uint32_t rings = rng.nextBelow(4);
  int64_t used = 0;
  for (uint32_t r = 0; r < rings; ++r) {
    const int64_t size = kMinRing + rng.nextBelow(kMaxRing - kMinRing + 1);
    if (used + size > n - 2)
      continue; // keeps a chain on every molecule
    for (int64_t k = 0; k < size; ++k) {
      m.src.push_back(used + k);
      m.dst.push_back(used + (k + 1) % size);
    }
    if (used > 0) {
      m.src.push_back(used);
      m.dst.push_back(rng.nextBelow(uint32_t(used)));
    }
    m.label = m.label || size >= kLabelRing;
    used += size;
  }
  for (int64_t t = used; t < n; ++t) {
    if (t == 0)
      continue;
    const bool extend = t > used && rng.nextBelow(10) < 7;
    m.src.push_back(t);
    m.dst.push_back(extend ? t - 1 : int64_t(rng.nextBelow(uint32_t(t))));
  }
  m.atoms.resize(size_t(n));
  for (int &atom : m.atoms) {
    const uint32_t w = rng.nextBelow(1000);
    atom = 0;
    while (w >= kAtomCumulative[atom])
      ++atom;
  }
  return m;
}

} // namespace

MoleculeCounts writeMoleculeCollection(const MoleculeOptions &options,
                                       const std::string &dir) {
  if (options.numGraphs < 1)
    throwDataError(dir, 0,
                   "--graphs must be at least 1, found " +
                       std::to_string(options.numGraphs));
  if (!(options.trainFraction >= 0 && options.validFraction >= 0 &&
        options.trainFraction + options.validFraction <= 1))
    throwDataError(dir, 0,
                   "split fractions must be non-negative and sum to at most "
                   "1");
  // Written whole or not at all: an error or SIGTERM leaves nothing.
  MoleculeCounts counts;
  writeDirectoryWhole(dir, [&](const std::string &temp) {
    std::error_code ec;
    const std::string raw = temp + "/raw", split = temp + "/split/random";
    for (const std::string &d : {raw, split}) {
      fs::create_directories(d, ec);
      if (ec)
        throwDataError(d, 0, "cannot create directory: " + ec.message());
    }
    TableWriter edges(raw + "/edge.csv.gz", true),
        nodeCounts(raw + "/num-node-list.csv.gz", true),
        edgeCounts(raw + "/num-edge-list.csv.gz", true),
        features(raw + "/node-feat.csv.gz", true),
        labels(raw + "/graph-label.csv.gz", true),
        train(split + "/train.csv.gz", true),
        valid(split + "/valid.csv.gz", true),
        test(split + "/test.csv.gz", true);
    // The one-hot rows, formatted once.
    std::vector<std::string> oneHot(kNumAtomTypes);
    for (int64_t a = 0; a < kNumAtomTypes; ++a)
      for (int64_t c = 0; c < kNumAtomTypes; ++c)
        oneHot[a] += std::string(c ? "," : "") + (c == a ? "1" : "0");

    for (int64_t g = 0; g < options.numGraphs; ++g) {
      const Molecule m = drawMolecule(options.seed, g);
      nodeCounts.integer(int64_t(m.atoms.size()));
      nodeCounts.endRow();
      edgeCounts.integer(int64_t(m.src.size()));
      edgeCounts.endRow();
      for (size_t e = 0; e < m.src.size(); ++e) {
        edges.integer(m.src[e]);
        edges.put(',');
        edges.integer(m.dst[e]);
        edges.endRow();
      }
      for (int atom : m.atoms) {
        features.text(oneHot[size_t(atom)]);
        features.endRow();
      }
      labels.integer(m.label);
      labels.endRow();
      const float u = uniform(options.seed, kMoleculeSplitStream, uint64_t(g));
      TableWriter &list = u < options.trainFraction ? train
                          : u < options.trainFraction + options.validFraction
                              ? valid
                              : test;
      (&list == &train   ? counts.train
       : &list == &valid ? counts.valid
                         : counts.test)++;
      list.integer(g);
      list.endRow();
      ++counts.graphs;
      counts.nodes += int64_t(m.atoms.size());
      counts.edges += int64_t(m.src.size());
      counts.positives += m.label;
    }
    for (TableWriter *table : {&edges, &nodeCounts, &edgeCounts, &features,
                               &labels, &train, &valid, &test})
      table->close();
  });
  return counts;
}

} // namespace gnnrt
