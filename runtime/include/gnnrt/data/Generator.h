//===- Generator.h - Deterministic synthetic graph datasets -----*- C++ -*-===//
//
// Synthetic node-classification datasets for tests and benchmarks at any
// scale. Everything is drawn with the counter-based RNG (Random.h) from the
// seed and the element's index, so the output is identical for a given seed
// on any machine and thread count. Two models:
//  - SBM (stochastic block model): each node gets a random class; an edge's
//    source is uniform and its destination is in the same class with
//    probability proportional to pIn (times the class size) and elsewhere
//    proportionally to pOut, so labels are homophilous.
//  - RMAT (Chakrabarti et al., SDM'04): recursive quadrant choice with
//    probabilities a, b, c, d gives a power-law degree distribution; labels
//    are the contiguous id blocks of the recursion (the communities that
//    a + d > b + c makes denser inside).
//  - Mag: a heterogeneous graph shaped like ogbn-mag (Hu et al., NeurIPS
//    2020) at any scale: node types author, field_of_study, institution and
//    paper in ogbn-mag's proportions, relations affiliated_with
//    (author -> institution), writes (author -> paper), cites
//    (paper -> paper) and has_topic (paper -> field_of_study) with its
//    per-relation edge densities, in ogbn-mag's file order. Papers carry the
//    labels, the features and the split. Every node has a latent class
//    (papers: their label) and an edge's endpoints share it with
//    probability `homophily`: citations are homophilous, an author writes
//    mostly in one class, at institutions and on topics of that class.
// Features are class-correlated in all: a per-class Gaussian mean vector
// plus unit Gaussian noise, scaled so that `signal` is the expected distance
// between two class means in noise standard deviations. Accuracy above
// chance therefore needs the features, and above a feature-only model needs
// the (homophilous) graph.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GENERATOR_H
#define GNNRT_DATA_GENERATOR_H

#include "gnnrt/data/Dataset.h"

#include <cstdint>
#include <string>

namespace gnnrt {

enum class GraphKind { Sbm, Rmat, Mag };

/// Parameters of a synthetic dataset.
struct GeneratorOptions {
  GraphKind kind = GraphKind::Sbm;
  int64_t numNodes = 1000; ///< Mag: all types together
  /// Directed edges written (duplicates possible). Mag: -1 for ogbn-mag's
  /// density at this node count, else split between the relations in
  /// ogbn-mag's proportions.
  int64_t numEdges = 10000;
  int64_t numFeatures = 16;
  int64_t numClasses = 4;
  uint64_t seed = 0;
  /// SBM relative edge propensities within and across classes.
  double pIn = 1.0, pOut = 0.05;
  /// RMAT quadrant probabilities (normalized to sum to 1).
  double a = 0.57, b = 0.19, c = 0.19, d = 0.05;
  /// Expected distance between class means, in noise standard deviations.
  double signal = 3.0;
  /// Mag: the probability that an edge's endpoints share a class.
  double homophily = 0.8;
  /// Split fractions; nodes (Mag: papers) are shuffled and cut in this
  /// order, the rest (1 - train - valid - test) belongs to no split.
  double trainFraction = 0.6, validFraction = 0.2, testFraction = 0.2;
};

/// Generates a dataset (Mag: heterogeneous, see Dataset.h). Throws
/// DataError for invalid options (non-positive sizes, more classes than
/// nodes or papers, fractions outside [0, 1] or summing above 1, negative
/// probabilities).
Dataset generateDataset(const GeneratorOptions &options);

/// Writes the dataset generateDataset(options) returns to `dir`, as
/// writeNpyDataset (`npy`) or writeOgbDataset (split "random") would, the
/// same bytes, without holding its features or edges: SBM and RMAT
/// datasets are drawn in chunks of feature rows and edges as the files
/// are written, in memory that does not grow with the edges or the
/// feature width (the node tables: labels, splits and the classes'
/// members, about 40 bytes a node, and one chunk). Mag datasets are
/// generated whole. Returns the node tables (numNodes, numFeatures,
/// numClasses, labels, splits; Mag: the whole dataset). Throws DataError
/// as generateDataset, or naming a file that cannot be written.
Dataset writeGeneratedDataset(const GeneratorOptions &options,
                              const std::string &dir, bool npy);

} // namespace gnnrt

#endif // GNNRT_DATA_GENERATOR_H
