//===- NegativeSampling.h - Negatives drawn per positive link ---*- C++ -*-===//
//
// Link-prediction training contrasts each positive edge with k negatives.
// Every negative here is a pure function of (seed, epoch, positive index,
// j < k): it draws from the Philox block at that counter, never from a
// generator's state. So a rank that draws the negatives of positives
// [begin, end) gets exactly what one process drawing all of them gets for
// those positives, and a resumed run draws what the uninterrupted one drew.
//
// Uniform sampling corrupts the tail, (u, v) -> (u, v') with v' uniform
// over the nodes (DGL's `Uniform(k)`). Triples corrupt the head or the tail,
// the side drawn by a fair coin, keeping the relation; the new entity is
// drawn from the relation's node type on that side when types exist. With
// known positives to exclude, a candidate that is one is redrawn from the
// next counter, a bounded number of times, then it is an error.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_LINKS_NEGATIVESAMPLING_H
#define GNNRT_DATA_LINKS_NEGATIVESAMPLING_H

#include "gnnrt/data/links/EdgeSplit.h"
#include "gnnrt/data/links/KnowledgeGraph.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

class EdgeSet;
struct Dataset;

/// The node ids a corrupted head or tail of one relation is drawn from:
/// [headBegin, headEnd) and [tailBegin, tailEnd).
struct CorruptionRange {
  int64_t headBegin = 0, headEnd = 0, tailBegin = 0, tailEnd = 0;
};

/// Each relation's ranges from a typed dataset's node types: its source
/// and destination type's id ranges (all nodes for an endpoint of any
/// type, as `self` has).
std::vector<CorruptionRange> corruptionRanges(const Dataset &ds);

struct NegativeSamplerOptions {
  uint64_t seed = 0;
  /// Negatives per positive.
  int64_t k = 1;
  /// Node ids are drawn from [0, numNodes) unless a range says otherwise.
  int64_t numNodes = 0;
  /// Known positives a negative must not be (null: no exclusion). For an
  /// undirected graph, put both directions in the set. Pairs are looked up
  /// with relation 0.
  const EdgeSet *exclude = nullptr;
  /// Draws per negative before giving up (at most kMaxNegativeAttempts).
  int maxAttempts = 32;
};

/// The counters reserved per negative: maxAttempts may not exceed it, so
/// that a negative's first draws do not depend on maxAttempts.
constexpr int kMaxNegativeAttempts = 256;

class NegativeSampler {
public:
  /// Throws DataError for k < 1, no nodes, or maxAttempts out of
  /// [1, kMaxNegativeAttempts].
  explicit NegativeSampler(const NegativeSamplerOptions &options);

  /// The negatives of positives [begin, end): negative j of positive e at
  /// (e - begin) * k + j, with src = positives.src[e] and a uniform dst.
  LinkPairs sampleTails(int64_t epoch, const LinkPairs &positives,
                        int64_t begin, int64_t end) const;
  /// The negatives of positives links[0..n) (any indices): negative j of
  /// links[i] at i * k + j, the same draws sampleTails makes for it.
  LinkPairs sampleTailsOf(int64_t epoch, const LinkPairs &positives,
                          const std::vector<int64_t> &links) const;
  /// sampleTails(epoch, positives, 0, all) into `out`, its memory reused.
  void sampleTailsInto(int64_t epoch, const LinkPairs &positives,
                       LinkPairs &out) const;

  /// The negatives of triples [begin, end), laid out as sampleTails': head
  /// or tail replaced, relation kept. `ranges` (one per relation) bound
  /// the replacement; empty: all nodes.
  TripleList
  corruptTriples(int64_t epoch, const TripleList &positives, int64_t begin,
                 int64_t end,
                 const std::vector<CorruptionRange> &ranges = {}) const;

private:
  /// Negative j's tail of positive e: the first draw from (seed, epoch,
  /// e * k + j)'s attempts that is not a known positive.
  int64_t tailOf(int64_t epoch, const LinkPairs &positives, int64_t e,
                 int64_t j) const;
  NegativeSamplerOptions options;
};

} // namespace gnnrt

#endif // GNNRT_DATA_LINKS_NEGATIVESAMPLING_H
