//===- MoleculeGenerator.h - Synthetic molecule collections -----*- C++ -*-===//
//
// `gnn-data generate --kind molecules` writes a graph collection of any size
// for graph-level training and its benchmarks (PCQM4M has 3.8M molecules):
// molecule-like graphs of 10 to 50 atoms, each a few rings (3 to 8 atoms)
// joined by branching chains, atoms typed (one-hot features over
// kAtomTypes, carbon most often), and a label that is a function of the
// structure alone: 1 when the graph has a ring of 6 or more atoms, else 0
// (about half the graphs are 1). Every graph draws from its own counter range
// of the seed (support/Random.h), so the collection is a pure function of
// (graphs, seed) and graph g is the same whatever the count.
//
// The output is OGB's graph-property layout (gzip csv, docs/data.md), each
// bond stored once as ogbg-mol* stores it, written graph by graph: memory
// does not grow with the number of graphs.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_MOLECULEGENERATOR_H
#define GNNRT_DATA_MOLECULEGENERATOR_H

#include <cstdint>
#include <string>

namespace gnnrt {

/// The atom types, in one-hot column order.
inline constexpr const char *kAtomTypes[] = {"C",  "N",  "O", "F", "S",
                                             "Cl", "Br", "P", "I"};
inline constexpr int64_t kNumAtomTypes = 9;

struct MoleculeOptions {
  int64_t numGraphs = 0;
  uint64_t seed = 0;
  /// The "random" split's fractions, drawn per graph.
  double trainFraction = 0.8, validFraction = 0.1;
};

/// What was written.
struct MoleculeCounts {
  int64_t graphs = 0, nodes = 0, edges = 0, positives = 0;
  int64_t train = 0, valid = 0, test = 0;
};

/// Writes the collection to `dir` (written as `dir.partial` and renamed
/// when complete; an existing non-empty `dir` is an error, nothing is
/// written). Throws DataError for numGraphs < 1 or bad fractions.
MoleculeCounts writeMoleculeCollection(const MoleculeOptions &options,
                                       const std::string &dir);

} // namespace gnnrt

#endif // GNNRT_DATA_MOLECULEGENERATOR_H
