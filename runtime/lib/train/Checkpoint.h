//===- Checkpoint.h - A model's parameters in a safetensors file -*- C++ -*-=//
//
// Internal to gnnrt. A checkpoint holds one F32 tensor per parameter, keyed
// by its dotted name (`c1.w`), plus the model name in the metadata, so that
// `safetensors.torch.load_file` gives a state dict. Loading is strict, like
// load_state_dict(strict=True): every parameter must be present with its
// exact shape and nothing else may be in the file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_CHECKPOINT_H
#define GNNRT_LIB_TRAIN_CHECKPOINT_H

#include "ParameterStore.h"

#include <string>

namespace gnnrt {

/// Writes the parameter values to `path` atomically.
void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params);

/// Replaces the parameter values with those in `path`. Throws DataError
/// naming the file and tensor for a missing, extra or misshapen tensor;
/// `params` is unchanged then.
void loadCheckpoint(const std::string &path, const std::string &model,
                    ParameterStore<float> &params);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_CHECKPOINT_H
