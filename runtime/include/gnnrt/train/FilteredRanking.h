//===- FilteredRanking.h - Filtered full ranking of KG triples --*- C++ -*-===//
//
// Knowledge-graph completion is reported as the *filtered* ranking of
// Bordes et al. (2013), as Dettmers et al. (2018) report WN18RR: for each
// test triple (h, r, t), the true tail t is ranked among all entities e as
// the tail of (h, r, e), and the true head among all entities as the head
// of (e, r, t); every other candidate that makes a known true triple
// (train, valid or test) is removed first. The metrics average both
// directions. Ties count as in LinkMetrics.h: rank = 1 + #higher + #equal/2.
//
// A model scores candidates through a callback, a block of entities at a
// time, so the memory is queryBlock x entityBlock scores whatever the
// number of entities. Queries are batched with others of the same relation
// whose answers lie in the same entity block, which is scored first: the
// answer's score is the one its own block's call gives. The blocks are
// fixed ([k * entityBlock, (k + 1) * entityBlock)); a candidate's score
// should not depend on the queries it is batched with (score each (anchor,
// relation, candidate) from its own vectors). Ranks are integers counted
// per query and summed in query order, so the numbers do not depend on the
// thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_FILTEREDRANKING_H
#define GNNRT_TRAIN_FILTEREDRANKING_H

#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/train/LinkMetrics.h"

#include <cstdint>
#include <functional>

namespace gnnrt {

/// Which end of a triple is being predicted.
enum class RankSide { Tail, Head };

/// Scores candidates [begin, end) for `count` anchors of one relation:
/// out[i * (end - begin) + (c - begin)] is the score of (anchors[i],
/// relation, c) for RankSide::Tail and of (c, relation, anchors[i]) for
/// RankSide::Head.
using BlockScorer = std::function<void(RankSide side, const int64_t *anchors,
                                       int64_t count, int32_t relation,
                                       int64_t begin, int64_t end, float *out)>;

struct FilteredRankingOptions {
  /// Candidates per callback and anchors per callback.
  int64_t entityBlock = 4096, queryBlock = 128;
};

struct FilteredRankingResult {
  /// Both directions together (what papers report), tails only, heads only.
  RankingMetrics both, tail, head;
};

/// The factors of a trilinear score s(h, r, t) = sum_k src[h, k]
/// relation[r, k] dst[t, k] (relation null: the dot product of src[h] and
/// dst[t]), each row `width` wide.
struct ScoreFactors {
  const float *src = nullptr, *relation = nullptr, *dst = nullptr;
  int64_t width = 0;
};

/// A BlockScorer of such a score that computes a block as one matrix
/// product: tails (src[a] * relation[r]) dst[begin:end]^T, heads
/// (dst[a] * relation[r]) src[begin:end]^T. The factors must outlive it.
BlockScorer factorScorer(const ScoreFactors &factors);

/// Ranks `queries` (usually kg.valid or kg.test) filtered by all of kg's
/// triples. Throws DataError for a nan score.
FilteredRankingResult
filteredRanking(const KnowledgeGraph &kg, const TripleList &queries,
                const BlockScorer &score,
                const FilteredRankingOptions &options = {});

} // namespace gnnrt

#endif // GNNRT_TRAIN_FILTEREDRANKING_H
