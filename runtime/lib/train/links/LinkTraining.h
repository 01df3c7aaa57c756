//===- LinkTraining.h - the data of link-prediction training ----*- C++ -*-===//
//
// Internal to gnnrt. What a link-prediction program (TrainSettings::links)
// trains and is evaluated on, as ExecContext's pairs read it:
//
//  - the dataset's edges split into train / valid / test links
//    (randomEdgeSplit, PyG RandomLinkSplit semantics: an undirected pair
//    goes to one split whole, valid and test get as many negatives as
//    positives, drawn once), undirected when the graph is symmetric or the
//    dataset adds reverse edges;
//  - the message-passing graph: the train links only (both directions when
//    undirected), plus self loops when the dataset adds them, so that no
//    valid or test link leaks into the representations;
//  - each epoch's pairs: every train link and `negatives` uniform negatives
//    per link (NegativeSampler: a function of (seed, epoch, link), never a
//    train link nor a self loop), so a resumed run draws what the
//    uninterrupted one drew;
//  - a PairBatch: pairs as the graph ExecContext::pairs names (one edge per
//    pair, in the CSR order of their destinations) and a label per edge
//    (1: a link, 0: a negative).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_LINKTRAINING_H
#define GNNRT_LIB_TRAIN_LINKTRAINING_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/data/links/EdgeSplit.h"
#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/data/links/NegativeSampling.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/train/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// Pairs to score: the graph of ExecContext::pairs and its labels, in its
/// edge order.
struct PairBatch {
  GraphStorage graph;
  std::vector<int64_t> labels;
  int64_t positives = 0, negatives = 0;
  /// fillPairBatch's sort buffers, kept so that refilling a batch of the
  /// same size (an epoch's train pairs) faults in no new pages.
  /// byDestination[k]: which pair given (positives, then negatives) is
  /// edge k.
  std::vector<int64_t> bySource, byDestination, starts;
  std::vector<int32_t> sources;
};

/// makePairBatch into `out`, reusing its memory.
void fillPairBatch(int64_t numNodes, const LinkPairs &positive,
                   const LinkPairs &negative, PairBatch &out);
/// The same with sources in [0, numSrc) and destinations in [0, numDst)
/// (a rank's pairs: owned destinations, sources owned then halo).
void fillPairBatch(int64_t numSrc, int64_t numDst, const LinkPairs &positive,
                   const LinkPairs &negative, PairBatch &out);

/// The pairs `positive` (label 1) and `negative` (label 0) over `numNodes`
/// nodes, ordered as GraphStorage orders edges (by destination, then
/// source; a pair given twice keeps its place among equals).
PairBatch makePairBatch(int64_t numNodes, const LinkPairs &positive,
                        const LinkPairs &negative);

/// A sampled step's pairs: returns the endpoints of `positive` and
/// `negative` (global ids, ascending, each once: the step's seeds) and sets
/// `local` to the pairs over them (each id its position among the
/// endpoints), ordered as makePairBatch orders pairs.
std::vector<int64_t> pairsOverEndpoints(const LinkPairs &positive,
                                        const LinkPairs &negative,
                                        PairBatch &local);

/// Triples as pairs (head -> tail, the relation as the edge's type among
/// `numRelations`): `positive` (label 1) and `negative` (label 0), ordered
/// as makePairBatch orders pairs (byDestination says which triple each
/// edge is).
PairBatch makeTriplePairBatch(int64_t numNodes, int32_t numRelations,
                              const TripleList &positive,
                              const TripleList &negative);

/// The links of a dataset, split, and the known links negatives avoid.
class LinkSplitData {
public:
  /// Splits the edges of `ds` (homogeneous, without added reverse edges or
  /// self loops) as `links` asks with `seed`; `addReverseEdges` (the
  /// dataset's option) makes the split undirected, as does a symmetric
  /// graph. `where` names the data in messages. Throws DataError for a
  /// split that leaves no train link or no room for negatives.
  LinkSplitData(const Dataset &ds, const TrainSettings::Links &links,
                uint64_t seed, bool addReverseEdges, const std::string &where);

  const EdgeSplit &split() const { return edges; }
  bool undirected() const { return isUndirected; }
  /// The message-passing graph's edge lists: the train links (both
  /// directions when undirected), and (v, v) for every node with
  /// `selfLoops`.
  void messagePassingEdges(bool selfLoops, std::vector<int64_t> &src,
                           std::vector<int64_t> &dst) const;

  /// Epoch `epoch`'s train pairs: every train link, then its `negatives`
  /// uniform negatives.
  PairBatch trainPairs(int64_t epoch) const;
  /// The same into `out` (its memory reused), drawing the negatives into
  /// `negatives` (likewise).
  void trainPairs(int64_t epoch, PairBatch &out, LinkPairs &negatives) const;
  /// Epoch `epoch`'s negatives: link e's `negatives` at [e * k, (e + 1) * k),
  /// each a function of (seed, epoch, e, j).
  LinkPairs trainNegatives(int64_t epoch) const;
  /// The negatives of train links links[0..n) only: link links[i]'s at
  /// [i * k, (i + 1) * k), the draws trainNegatives makes for it.
  LinkPairs trainNegativesOf(int64_t epoch,
                             const std::vector<int64_t> &links) const;
  /// The valid (`test` false) or test split's links and negatives.
  PairBatch evaluationPairs(bool test) const;

  /// The train links as trained on: an undirected link (u, v), u < v, is
  /// scored as (v, u) when its index is odd, so that the negatives' kept
  /// endpoint (the source) is not biased toward low ids.
  const LinkPairs &trainLinks() const { return trainPositives; }
  /// `negatives = uniform(k)`'s k.
  int64_t negativesPerTrainLink() const { return negativesPerLink; }

private:
  NegativeSampler negativeSampler() const;

  int64_t numNodes;
  int64_t negativesPerLink;
  uint64_t negativeSeed;
  bool isUndirected = false;
  EdgeSplit edges;
  LinkPairs trainPositives;
  /// The train links (both directions when undirected) and every self
  /// loop: what a negative may not be.
  EdgeSet known;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_LINKTRAINING_H
