//===- Checkpoint.cpp - A model's parameters in a safetensors file --------===//

#include "Checkpoint.h"

#include "gnnrt/io/Safetensors.h"
#include "gnnrt/support/Error.h"

#include <algorithm>

namespace gnnrt {

void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params) {
  std::vector<TensorRef> tensors;
  for (size_t i = 0; i < params.size(); ++i)
    tensors.push_back(
        {params.info[i].name, params.info[i].shape, params.values[i].data()});
  writeSafetensors(path, tensors, {{"model", model}});
}

void loadCheckpoint(const std::string &path, const std::string &model,
                    ParameterStore<float> &params) {
  SafetensorsContents file = readSafetensors(path);
  // Validate everything before copying anything.
  for (const ParamInfo &p : params.info) {
    const StoredTensor *t = file.find(p.name);
    if (!t)
      throwDataError(path, 0,
                     "no tensor '" + p.name + "' (parameter of " + model +
                         " with shape " + formatShape(p.shape) + ")");
    if (t->shape != p.shape)
      throwDataError(path, 0,
                     "tensor '" + p.name + "' has shape " +
                         formatShape(t->shape) + " but " + model + " expects " +
                         formatShape(p.shape));
  }
  for (const StoredTensor &t : file.tensors)
    if (std::none_of(params.info.begin(), params.info.end(),
                     [&](const ParamInfo &p) { return p.name == t.name; }))
      throwDataError(path, 0,
                     "tensor '" + t.name + "' is not a parameter of " + model);
  for (size_t i = 0; i < params.size(); ++i)
    params.values[i] = file.find(params.info[i].name)->data;
}

} // namespace gnnrt
