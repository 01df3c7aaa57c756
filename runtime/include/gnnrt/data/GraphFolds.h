//===- GraphFolds.h - Cross-validation folds of graphs ----------*- C++ -*-===//
//
// Graph classification benchmarks are reported as mean +- std test accuracy
// over k folds. Errica et al. (ICLR 2020, "A Fair Comparison of Graph Neural
// Networks for Graph Classification") published their 10 folds of the TU
// datasets as JSON; readErricaFolds reads them. A dataset without folds gets
// stratified ones from a seed (stratifiedFolds), deterministically.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GRAPHFOLDS_H
#define GNNRT_DATA_GRAPHFOLDS_H

#include "gnnrt/data/GraphCollection.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// Reads an Errica et al. fold file: a JSON list of folds, each an object
/// {"test": [ids], "model_selection": [{"train": [ids], "validation":
/// [ids]}]} (the first model-selection split is the fold's train/valid;
/// "validation" may also be spelled "valid"). Ids are 0-based graph ids in
/// [0, numGraphs). Fold k is named "fold<k>". Throws DataError naming the
/// file, the fold and the list for a malformed file, an id outside the
/// collection or an id listed twice in one fold.
std::vector<GraphFold> readErricaFolds(const std::string &path,
                                       int64_t numGraphs);

/// k stratified folds of a classification collection, a pure function of
/// (classes, k, seed): each class's graphs are shuffled by the seed and
/// dealt round-robin to the folds' test sets, continuing from fold to fold
/// across classes, so that every fold's test set holds floor or ceil of
/// (class size / k) graphs of each class and the test sizes differ by at
/// most one. The rest of the graphs are the fold's training graphs, of
/// which round(validFraction x the class's count) per class, in shuffled
/// order, become its valid set. A regression collection (no classes) is
/// dealt as one class. Fold k is named "fold<k>"; each list is sorted.
/// Throws DataError unless 2 <= k <= numGraphs and 0 <= validFraction < 1.
std::vector<GraphFold> stratifiedFolds(const GraphCollection &graphs, int k,
                                       uint64_t seed,
                                       double validFraction = 0.1);

} // namespace gnnrt

#endif // GNNRT_DATA_GRAPHFOLDS_H
