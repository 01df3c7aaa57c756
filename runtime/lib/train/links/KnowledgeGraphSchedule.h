//===- KnowledgeGraphSchedule.h - knowledge-graph link prediction -*- C++
//-*-===//
//
// Internal to gnnrt. The Schedule of a link-prediction program on a
// knowledge graph (`dataset wn = kg("wn18rr", embed = D)`): the triples of
// train.txt, valid.txt and test.txt (KnowledgeGraph.h), entity ids as node
// ids and one featureless node type (its learned rows with `embed`).
//
//  - Message passing runs over the train triples only, each an edge of its
//    relation (and their inverses and self loops when the dataset adds
//    them); a model without an encoder never reads them.
//  - Each epoch trains on every train triple and `negatives = uniform(k)`
//    corruptions of it (head or tail, a fair coin per negative, relation
//    kept, never a train triple: NegativeSampler::corruptTriples, a
//    function of (seed, epoch, triple, j)), in optimizer steps of
//    `link_batch` triples (0: one step), the triples shuffled by (seed,
//    epoch). ExecContext::pairs is the step's triples as pairs head -> tail
//    whose edge types are their relations (`gather(p, r, rel)`).
//  - With `negatives = all` (1vsAll) a step's triples are instead queries
//    (h, r) -> t and, DistMult being symmetric, (t, r) -> h: the train step
//    scores each against every entity (gnn-autodiff's logits [queries,
//    entities]) and the loss is the softmax cross-entropy of the true one.
//  - Evaluation is the filtered full ranking (FilteredRanking.h) of the
//    valid and test triples against every entity as head and as tail, the
//    model scoring blocks of candidates through forward (s = out[:, 1] -
//    out[:, 0]): valid MRR, test MRR and Hits@1/3/10. The best epoch is the
//    one of the best valid MRR.
//
// --predict OUT --pairs FILE scores the triples of FILE (by name, as the
// text release writes them) and writes them by name with their scores.
//
// Under mpirun every rank holds the whole knowledge graph and every entity
// row, and scores a share of each step's triples (with its negatives, or
// its 1vsAll queries) with the loss scaled by its share: the ranks'
// gradients, the learned rows' included, add up to one process's step
// (data parallel; the sums in another order), and every rank evaluates.
//
// Refused before anything loads, as for the other link programs: sampler
// ranks, sampled batches, a partition directory and --offload.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_KNOWLEDGEGRAPHSCHEDULE_H
#define GNNRT_LIB_TRAIN_KNOWLEDGEGRAPHSCHEDULE_H

#include "LinkTraining.h"
#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/train/FilteredRanking.h"
#include "schedule/ScheduleBase.h"

namespace gnnrt {

/// A knowledge graph as a typed Dataset: one featureless node type
/// ("entity"), a relation per KG relation (entity -> entity) and an edge per
/// train triple; no labels or node splits.
Dataset knowledgeGraphDataset(const KnowledgeGraph &kg);

/// The logits of a 1vsAll step of `triples` triples over `entities`
/// entities and their gradient, in bytes (float32).
int64_t oneVsAllStepBytes(int64_t triples, int64_t entities);

/// Throws UsageError (prefixed by `where`) naming the largest link_batch
/// that fits when a 1vsAll step of `triples` triples would hold more than
/// half of `memoryBytes`.
void refuseOneVsAllBeyondMemory(int64_t triples, int64_t entities,
                                int64_t memoryBytes, const std::string &where);

class KnowledgeGraphSchedule : public ScheduleBase {
public:
  /// Throws UsageError for a launch it does not support.
  KnowledgeGraphSchedule(const CompiledProgram &program,
                         const DriverOptions &options, Communicator &comm,
                         bool samplerRanks);

  const char *name() const override { return "kg_full_graph"; }
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  int64_t stepsPerEpoch() const override;
  /// Filtered MRR of the valid triples, MRR and Hits@1/3/10 of the test
  /// triples, as the train block's evaluate names them.
  Accuracies evaluate() override;
  const std::vector<float> &predict() override { return logits; }
  /// Scores the triples of --pairs (every triple in one forward) and
  /// writes `head,relation,tail,score,probability` per triple, by name, in
  /// the file's order.
  void writePredictions(const std::string &path, Communicator &comm) override;
  /// The entity rows the score multiplies (factorRows), written by rank 0.
  void writeEmbeddings(const std::string &path) override;
  void printStats(const TrainingResult &result) const override;

  /// The filtered ranking of `queries` under the current weights.
  FilteredRankingResult rank(const TripleList &queries);

protected:
  TrainingData loadData() override;

private:
  /// This rank's share [first, last) of a step's triples [begin, begin +
  /// count): all of them in one process.
  std::pair<int64_t, int64_t> rankShare(int64_t begin, int64_t count) const;
  /// Points trainCtx at train triples triples[0..count) (label 1) and
  /// their epoch's `negatives` (label 0; triple i's at [i k, (i + 1) k)).
  void bindSampledStep(const int64_t *triples, int64_t count,
                       const TripleList &negatives);
  /// `negatives = all`: points trainCtx at `queries` as pairs anchor ->
  /// true entity, each labelled with its true entity.
  void bindOneVsAllStep(const TripleList &queries);
  /// Scores candidates for FilteredRanking through forward.
  void scoreBlock(RankSide side, const int64_t *anchors, int64_t count,
                  int32_t relation, int64_t begin, int64_t end, float *out);

  KnowledgeGraph kg;
  /// The train triples, which no negative may be.
  EdgeSet known;
  int32_t numRelations = 0;
  PairBatch stepBatch;
  std::vector<float> pairOutput;
  std::vector<int64_t> zeroLabels;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_KNOWLEDGEGRAPHSCHEDULE_H
