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
// seed, the rank count and the best validation epoch so far. Nothing else
// is needed: dropout masks, shuffles and neighbour samples are functions of
// (seed, epoch, step), so `--resume FILE` continuing at the next epoch
// reproduces a straight run's losses bit for bit. The optimizer's state is
// the same on every rank (all take the same all-reduced step), so the file
// also resumes on another rank count (then equal to no straight run, since
// sums are taken in another order). Files are written under a temporary
// name, synced and renamed: a killed run leaves the previous checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CHECKPOINT_H
#define GNNRT_LIB_CHECKPOINT_H

#include "Metrics.h"
#include "ParameterStore.h"
#include "gnnrt/io/Safetensors.h"
#include "gnnrt/train/Optimizer.h"

#include <string>

namespace gnnrt {

/// Writes the parameter values to `path` atomically.
void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params);

/// Replaces the parameter values with those in `path` (a resumable
/// checkpoint's optimizer tensors are skipped). Throws DataError naming the
/// file and tensor for a missing, extra or misshapen tensor; `params` is
/// unchanged then.
void loadCheckpoint(const std::string &path, const std::string &model,
                    ParameterStore<float> &params);

/// Where training stood when a resumable checkpoint was written.
struct ResumePoint {
  int64_t epoch = 0; ///< the last completed epoch (1-based)
  uint64_t seed = 0;
  int ranks = 1;
  EpochRecord best; ///< the best validation epoch so far; eval unset if none
};

/// Writes parameters, optimizer state and `point` to `path` atomically.
void saveResumableCheckpoint(const std::string &path, const std::string &model,
                             const ParameterStore<float> &params,
                             Optimizer &optimizer, const ResumePoint &point);

/// A resumable checkpoint, read and checked against the model.
class ResumableCheckpoint {
public:
  /// Reads `path`; throws DataError naming it when it is no resumable
  /// checkpoint of `model` (a --save file holds weights only).
  ResumableCheckpoint(const std::string &path, const std::string &model);

  const ResumePoint &point() const { return resume; }
  /// Copies the parameter values (as loadCheckpoint does).
  void restoreParameters(ParameterStore<float> &params) const;
  /// Copies the optimizer's state and step count; throws DataError when the
  /// checkpoint was written by another optimizer or lacks a tensor.
  void restoreOptimizer(const ParameterStore<float> &params,
                        Optimizer &optimizer) const;

private:
  std::string path, model;
  SafetensorsContents file;
  ResumePoint resume;
  std::string writtenBy; ///< the optimizer that wrote it
  int64_t optimizerSteps = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_CHECKPOINT_H
