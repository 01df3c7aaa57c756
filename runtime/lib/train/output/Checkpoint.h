//===- Checkpoint.h - A model's parameters in a safetensors file -*- C++ -*-=//
//
// Internal to gnnrt. A checkpoint holds one F32 tensor per parameter, keyed
// by its dotted name (`c1.w`), plus the model name in the metadata, so that
// `safetensors.torch.load_file` gives a state dict. Loading is strict, like
// load_state_dict(strict=True): every parameter must be present with its
// exact shape and nothing else may be in the file.
//
// A *resumable* checkpoint (the train block's `checkpoint = FILE`, or
// `--checkpoint FILE`) adds what an exact continuation needs: the
// optimizer's state as extra tensors named `optimizer.<kind>.<parameter>`
// (torch.optim's `exp_avg`, `exp_avg_sq`, `momentum_buffer`), and in the
// metadata the last completed epoch, the optimizer and its step count, the
// seed, the rank count and the best validation epoch so far; with early
// stopping also that epoch's weights (`early_stopping.best.<parameter>`),
// its training loss and validation loss; under cross-validation the fold;
// and which parameters trained in which of the train block's `param_groups`
// (resuming under other groups is refused: a moment means what it means
// under its group's rate and decay).
// Nothing else
// is needed: dropout masks, shuffles and neighbour samples are functions of
// (seed, epoch, step), so `--resume FILE` continuing at the next epoch
// reproduces a straight run's losses bit for bit. The optimizer's state is
// the same on every rank (all take the same all-reduced step), so the file
// also resumes on another rank count (then equal to no straight run, since
// sums are taken in another order). Files are written under a temporary
// name, synced and renamed: a killed run leaves the previous checkpoint.
//
// Learned input rows (`embed = D`) are part of the model: both kinds of
// file hold one tensor `inputs.<node type>` per featureless node type
// ([its nodes, D], by id within the type), and a resumable one also their
// sparse Adam moments (`optimizer.exp_avg.inputs.<node type>`, ...) and
// step count, so that --load, --predict and --resume see the rows the run
// trained.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CHECKPOINT_H
#define GNNRT_LIB_CHECKPOINT_H

#include "Metrics.h"
#include "gnnrt/io/Safetensors.h"
#include "gnnrt/train/Optimizer.h"
#include "params/LearnedInputs.h"
#include "params/ParameterStore.h"

#include <string>

namespace gnnrt {

/// The learned input rows as a checkpoint stores them: whole-graph tables
/// on rank 0, and for a resumable checkpoint Adam's moments and step count
/// (and early stopping's best rows, once it kept some).
struct LearnedInputsSnapshot {
  std::vector<LearnedInputs::Table> rows, expAvg, expAvgSq, best;
  int64_t steps = 0;
};

/// Gathers `learned`'s rows (and with `moments` its optimizer state) on
/// rank 0. Collective: every rank calls it.
LearnedInputsSnapshot snapshotLearnedInputs(const LearnedInputs &learned,
                                            Communicator &comm, bool moments);

/// Writes the parameter values (and the learned input rows, when the model
/// has them) to `path` atomically.
void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params,
                    const LearnedInputsSnapshot *inputs = nullptr);

/// Replaces the parameter values with those in `path` (a resumable
/// checkpoint's optimizer tensors are skipped) and returns what it read, for
/// restoreLearnedInputs. `learnedInputs`: the model has learned input rows,
/// whose tensors the file must then hold (restored later, once they exist).
/// Throws DataError naming the file and tensor for a missing, extra or
/// misshapen tensor; `params` is unchanged then.
SafetensorsContents loadCheckpoint(const std::string &path,
                                   const std::string &model,
                                   ParameterStore<float> &params,
                                   bool learnedInputs = false);

/// Replaces this process's learned rows (with `moments`, also their Adam
/// state and steps) with `file`'s. Throws DataError naming `path` and the
/// tensor when one is missing or misshapen; `learned` is unchanged then.
void restoreLearnedInputs(const std::string &path,
                          const SafetensorsContents &file,
                          LearnedInputs &learned, bool moments);

/// Where training stood when a resumable checkpoint was written.
struct ResumePoint {
  int64_t epoch = 0; ///< the last completed epoch (1-based)
  uint64_t seed = 0;
  int ranks = 1;
  /// Under cross-validation, the fold the run trained (metadata `fold`): a
  /// checkpoint continues that fold only.
  std::optional<int64_t> fold;
  EpochRecord best; ///< the best validation epoch so far; eval unset if none
  /// Writing with early stopping: the best epoch's parameter values, one
  /// vector per parameter (ResumableCheckpoint::restoreBestValues).
  const std::vector<std::vector<float>> *bestValues = nullptr;
};

/// Writes parameters, optimizer state and `point` (and the learned input
/// rows with their optimizer state, when the model has them) to `path`
/// atomically.
void saveResumableCheckpoint(const std::string &path, const std::string &model,
                             const ParameterStore<float> &params,
                             Optimizer &optimizer, const ResumePoint &point,
                             const LearnedInputsSnapshot *inputs = nullptr);

/// A resumable checkpoint, read and checked against the model.
class ResumableCheckpoint {
public:
  /// Reads `path`; throws DataError naming it when it is no resumable
  /// checkpoint of `model` (a --save file holds weights only).
  ResumableCheckpoint(const std::string &path, const std::string &model);

  const ResumePoint &point() const { return resume; }
  /// Copies the parameter values (as loadCheckpoint does); `learnedInputs`
  /// as there.
  void restoreParameters(ParameterStore<float> &params,
                         bool learnedInputs = false) const;
  /// Early stopping's best weights into `values` (one vector per parameter
  /// of `params`); false, `values` unchanged, when the run kept none.
  /// Throws DataError for a missing or misshapen tensor.
  bool restoreBestValues(const ParameterStore<float> &params,
                         std::vector<std::vector<float>> &values) const;
  /// Copies the learned input rows, their Adam state and steps.
  void restoreLearnedInputs(LearnedInputs &learned) const;
  /// Copies the optimizer's state and step count; throws DataError when the
  /// checkpoint was written by another optimizer or under other parameter
  /// groups, or lacks a tensor.
  void restoreOptimizer(const ParameterStore<float> &params,
                        Optimizer &optimizer) const;

private:
  std::string path, model;
  SafetensorsContents file;
  ResumePoint resume;
  std::string writtenBy; ///< the optimizer that wrote it
  /// Its parameters' groups (metadata `param_groups`; "" for none).
  std::string paramGroups;
  int64_t optimizerSteps = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_CHECKPOINT_H
