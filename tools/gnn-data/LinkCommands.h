//===- LinkCommands.h - gnn-data's link-prediction commands -----*- C++ -*-===//
//
// The knowledge-graph `info`, `link-split` (a random edge split written as
// pair files, for a peer to score the same pairs), `link-metrics` (AUC, AP,
// MRR of a scores file) and `kg-rank` (the filtered ranking of saved DistMult
// embeddings): what a user checks a link-prediction dataset or result with, and
// what the tests compare with independent Python references.
//
//===----------------------------------------------------------------------===//

#ifndef GNNDATA_LINKCOMMANDS_H
#define GNNDATA_LINKCOMMANDS_H

#include <cstdint>
#include <string>

namespace gnntools {

/// `gnn-data info DIR` for a directory of train/valid/test.txt[.gz].
int knowledgeGraphInfo(const std::string &dir);
/// Reads split directory `dir`'s link pair files against `numNodes` nodes
/// (every row checked, DataError at the first bad one) and prints their
/// pair counts.
void linkPairsInfo(const std::string &dir, int64_t numNodes);
int linkMetrics(int argc, char **argv);
int linkSplit(int argc, char **argv);
int kgRank(int argc, char **argv);

} // namespace gnntools

#endif // GNNDATA_LINKCOMMANDS_H
