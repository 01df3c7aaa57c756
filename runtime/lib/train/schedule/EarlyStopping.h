//===- EarlyStopping.h - the best epoch, its weights and patience -*- C++ -*-=//
//
// Internal to gnnrt. Which evaluated epoch is the best so far and, with the
// train block's `early_stopping = patience(N, monitor = M)`, when to stop:
//  - the best epoch is the one with the highest valid_acc (a link
//    program's: valid_auc), or with early stopping the best of its metric
//    M (valid_acc: highest, valid_loss: lowest); the first one wins a tie;
//  - training stops after an evaluated epoch e with e - best >= N, a pure
//    function of (e, best) that a resumed run evaluates alike;
//  - a copy of the best epoch's parameters, and of the learned input rows
//    (`embed`), is kept (taken on improvement) and restored after
//    training, so that the final evaluation, --save and --predict see the
//    best weights. Resumable checkpoints carry the copy.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_EARLYSTOPPING_H
#define GNNRT_LIB_EARLYSTOPPING_H

#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "params/ParameterStore.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

class EarlyStopping {
public:
  explicit EarlyStopping(const TrainSettings &settings);

  /// Whether early stopping is on (`early_stopping = patience(...)`).
  bool enabled() const { return patience > 0; }

  /// Continues a resumed run: its best epoch and, with early stopping, the
  /// checkpoint's copy of that epoch's weights.
  void resume(const ResumableCheckpoint &checkpoint,
              const ParameterStore<float> &params);

  /// Whether the evaluated `record` improves on the best so far (it then
  /// is the best); an error when early stopping's metric is missing.
  bool improves(const EpochRecord &record);
  /// Throws UsageError, before training, when the program has learned
  /// input rows that the schedule holds in no LearnedInputs (`learned`
  /// null: out of core), which early stopping could not keep.
  void requireLearnedRows(const LearnedInputs *learned) const;
  /// Takes a copy of `params` as the best epoch's (on the host), and of
  /// the learned input rows (`learned`, this process's).
  void keep(const ParameterStore<float> &params, LearnedInputs *learned);

  /// Whether training ends after `epoch`, an evaluated one.
  bool stopsAfter(int64_t epoch) const;

  /// The best evaluated epoch so far; eval unset if none.
  const EpochRecord &best() const { return bestRecord; }
  /// The best weights, for a checkpoint (null without early stopping).
  const std::vector<std::vector<float>> *bestValues() const;
  /// Makes `params` (and `learned`'s rows) the best epoch's values (early
  /// stopping only).
  void restore(ParameterStore<float> &params, LearnedInputs *learned) const;

private:
  int64_t patience;
  bool onLoss;
  /// The program has learned input rows (`embed`).
  bool learnedRows;
  EpochRecord bestRecord;
  std::vector<std::vector<float>> values;
};

} // namespace gnnrt

#endif // GNNRT_LIB_EARLYSTOPPING_H
