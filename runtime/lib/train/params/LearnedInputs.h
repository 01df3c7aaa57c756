//===- LearnedInputs.h - learned input rows of featureless node types -*- C++ -*-===//
//
// Internal to gnnrt. A heterogeneous dataset read with `embed = D` gives
// every node of a type without features a learned input row of width D: an
// embedding table per such type, as R-GCN and DistDGL use for featureless
// types. The rows live where the model reads its input, in the feature
// matrix itself (featured types keep their features there), so full-graph,
// partitioned and sampled training read them like any feature; the
// compiled train step adds d(loss)/d(input) into a buffer
// (ExecContext::inputGrad), and this class applies a sparse Adam update
// (PyTorch's SparseAdam, DistDGL's SparseAdam) to the learned rows a step
// read, and to no other: a step costs the rows it touched, not the table.
// A full-graph step reads every row; a sampled batch reads the rows of its
// input nodes, gathered into the batch, whose gradient rows update the
// table's rows of those nodes.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_LEARNEDINPUTS_H
#define GNNRT_LIB_TRAIN_LEARNEDINPUTS_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/train/Optimizer.h"
#include "gnnrt/train/Program.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gnnrt {

/// Gives the featureless node types of a heterogeneous `ds` learned rows of
/// width `dim`: sets ds.numFeatures = dim, widens an empty feature matrix,
/// and draws each learned element from N(0, 1) keyed by (seed, global node
/// id, column), so every partitioning starts from the same table. A rank's
/// part passes `nodeIds`, the whole-graph id of each of its rows. Throws
/// DataError when `ds` is homogeneous, has no featureless type, or has
/// featured types of another width.
void addLearnedRows(Dataset &ds, int64_t dim, uint64_t seed,
                    const std::string &where,
                    const int64_t *nodeIds = nullptr);

class LearnedInputs {
public:
  /// What a checkpoint keeps of the learned rows: the rows, Adam's two
  /// moments (torch.optim's exp_avg and exp_avg_sq) for an exact resume,
  /// and early stopping's copy of the best epoch's rows (keepBest).
  enum class State { Rows, ExpAvg, ExpAvgSq, Best };
  /// One featureless node type's part of a State: [count, dim], its nodes
  /// by their id within the type.
  struct Table {
    std::string nodeType;
    int64_t count = 0, dim = 0;
    std::vector<float> values;
  };
  /// A stored table by node type, checked by the caller to be [count, dim];
  /// null when absent.
  using TableLookup = std::function<const float *(const std::string &nodeType)>;

  /// The learned rows of `ds`'s features (updated in place, so `ds` must
  /// outlive this): the rows whose whole-graph id (`nodeIds[row]`, or the
  /// row itself when null) is a node of a featureless type.
  LearnedInputs(Dataset &ds, const int64_t *nodeIds);

  /// The gradient buffer for one step, to pass as ExecContext::inputGrad:
  /// [rows, dim], zeroed; `rows` < 0: a row per feature row (full graph).
  float *beginStep(int64_t rows = -1);
  /// One sparse Adam step (the step's gradient in the buffer) on the learned
  /// rows the step read: with `rowIds`, gradient row i is feature row
  /// rowIds[i] (a batch's input nodes, distinct); without, every feature
  /// row. `config` gives lr, betas, eps and weight decay (L2 for Adam,
  /// decoupled for AdamW, on the updated rows only). The bias correction
  /// counts steps of the whole table, as SparseAdam does.
  void update(const OptimizerConfig &config, const int64_t *rowIds = nullptr);

  /// Where a step's gradient rows go when a batch reads rows other ranks
  /// hold (sampled batches under mpirun): given the batch's whole-graph ids
  /// and gradient rows ([rows, width]), sets this rank's rows (feature row
  /// indices, distinct) and their gradients summed over all ranks' batches.
  /// Collective: every rank calls it every step, with 0 rows if it has none.
  using GradientRouter = std::function<void(
      const int64_t *ids, int64_t rows, const float *grad, int64_t width,
      std::vector<int64_t> &ownRows, std::vector<float> &ownGrad)>;
  /// From now on, update() passes the step's rows (rowIds are then
  /// whole-graph ids) through `router` and updates the rows it returns.
  void routeGradients(GradientRouter router) { this->router = std::move(router); }
  bool routesGradients() const { return bool(router); }

  int64_t learnedRows() const { return int64_t(learned.size()); }
  int64_t rowWidth() const { return dim; }
  int64_t steps() const { return stepCount; }
  void setSteps(int64_t steps) { stepCount = steps; }

  /// The featureless node types, whose tables gather() returns, in the
  /// dataset's type order (each with its node count).
  const std::vector<NodeType> &tableTypes() const { return featureless; }
  /// Early stopping: copies this process's rows as the best epoch's, and
  /// later makes them the rows again (restoreBest; nothing without a
  /// copy). hasBest: whether a copy was taken (alike on every rank, which
  /// take it at the same epochs).
  void keepBest();
  void restoreBest();
  bool hasBest() const { return !best.empty(); }

  /// `state` of every rank's learned rows, one table per featureless node
  /// type, on rank 0 (empty on the others). Collective.
  std::vector<Table> gather(State state, Communicator &comm) const;
  /// Sets this process's rows of `state` from whole-graph tables. Every
  /// table of tableTypes() must be found (the caller reports one that is
  /// not, before anything is restored).
  void restore(State state, const TableLookup &table);

private:
  /// Adam on `count` gradient rows: row j of `gradRowsData` is feature row
  /// rowIds[j] (or j).
  void applyAdam(const OptimizerConfig &config, const int64_t *rowIds,
                 const float *gradRowsData, int64_t count);
  std::vector<float> *rowsOf(State state);
  const std::vector<float> *rowsOf(State state) const;

  std::vector<float> &features;
  int64_t dim;
  std::vector<NodeType> featureless;
  /// Row indices (into features) of the learned rows, ascending; each
  /// one's featureless type (an index into `featureless`) and its id within
  /// that type.
  std::vector<int64_t> learned;
  /// Per feature row, its index in `learned`, or -1 for a featured row.
  std::vector<int64_t> learnedIndexOfRow;
  std::vector<int32_t> learnedType;
  std::vector<int64_t> idInType;
  std::vector<float> grad;
  int64_t gradRows = 0;
  GradientRouter router;
  std::vector<int64_t> routedRows;
  std::vector<float> routedGrad;
  /// Adam's moments and the best epoch's rows, [learned.size(), dim].
  std::vector<float> expAvg, expAvgSq, best;
  int64_t stepCount = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_LEARNEDINPUTS_H
