//===- Checkpoint.cpp - A model's parameters in a safetensors file --------===//
//
// See Checkpoint.h for the format of plain and resumable checkpoints.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Shape.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace gnnrt {

namespace {

/// Marks a resumable checkpoint (and its layout's version) in the metadata.
constexpr const char *kFormatKey = "gnnc.checkpoint";
constexpr const char *kFormatResumable = "resumable-1";
constexpr const char *kOptimizerPrefix = "optimizer.";

std::string optimizerTensorName(const char *kind, const std::string &param) {
  return std::string(kOptimizerPrefix) + kind + "." + param;
}

bool isOptimizerTensor(const std::string &name) {
  return name.compare(0, std::char_traits<char>::length(kOptimizerPrefix),
                      kOptimizerPrefix) == 0;
}

/// A double written so that it reads back exactly.
std::string exactNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::vector<TensorRef> parameterTensors(const ParameterStore<float> &params) {
  std::vector<TensorRef> tensors;
  for (size_t i = 0; i < params.size(); ++i)
    tensors.push_back(
        {params.info[i].name, params.info[i].shape, params.values[i].data()});
  return tensors;
}

/// Checks every parameter is in `file` with its shape and nothing but them
/// (and optimizer tensors) is; then copies them into `params`.
void copyParameters(const std::string &path, const std::string &model,
                    const SafetensorsContents &file,
                    ParameterStore<float> &params) {
  // Validate everything before copying anything.
  for (const ParamInfo &p : params.info) {
    const StoredTensor *t = file.find(p.name);
    if (!t)
      throwDataError(path, 0,
                     "no tensor '" + p.name + "' (parameter of " + model +
                         " with shape " + formatShape(p.shape) + ")");
    if (t->shape != p.shape)
      throwDataError(path, 0,
                     "tensor '" + t->name + "' has shape " +
                         formatShape(t->shape) + " but " + model + " expects " +
                         formatShape(p.shape));
  }
  for (const StoredTensor &t : file.tensors)
    if (!isOptimizerTensor(t.name) &&
        std::none_of(params.info.begin(), params.info.end(),
                     [&](const ParamInfo &p) { return p.name == t.name; }))
      throwDataError(path, 0,
                     "tensor '" + t.name + "' is not a parameter of " + model);
  for (size_t i = 0; i < params.size(); ++i)
    params.values[i] = file.find(params.info[i].name)->data;
}

/// The integer metadata `key` of a resumable checkpoint.
int64_t integerEntry(const std::string &path,
                     const std::map<std::string, std::string> &metadata,
                     const std::string &key) {
  auto it = metadata.find(key);
  char *end = nullptr;
  long long value =
      it == metadata.end() ? 0 : std::strtoll(it->second.c_str(), &end, 10);
  if (it == metadata.end() || end == it->second.c_str() || *end != '\0')
    throwDataError(path, 0,
                   "the checkpoint's metadata lacks an integer '" + key + "'");
  return value;
}

std::optional<double> accuracyEntry(
    const std::map<std::string, std::string> &metadata, const std::string &key) {
  auto it = metadata.find(key);
  if (it == metadata.end())
    return std::nullopt;
  return std::strtod(it->second.c_str(), nullptr);
}

} // namespace

void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params) {
  writeSafetensors(path, parameterTensors(params), {{"model", model}});
}

void loadCheckpoint(const std::string &path, const std::string &model,
                    ParameterStore<float> &params) {
  copyParameters(path, model, readSafetensors(path), params);
}

void saveResumableCheckpoint(const std::string &path, const std::string &model,
                             const ParameterStore<float> &params,
                             Optimizer &optimizer, const ResumePoint &point) {
  std::vector<TensorRef> tensors = parameterTensors(params);
  for (const Optimizer::StateKind &kind : optimizer.state())
    for (size_t i = 0; i < params.size(); ++i)
      tensors.push_back({optimizerTensorName(kind.name, params.info[i].name),
                         params.info[i].shape, (*kind.tensors)[i].data()});
  std::map<std::string, std::string> metadata = {
      {"model", model},
      {kFormatKey, kFormatResumable},
      {"epoch", std::to_string(point.epoch)},
      {"seed", std::to_string(point.seed)},
      {"ranks", std::to_string(point.ranks)},
      {"optimizer", optimizerName(optimizer.config().kind)},
      {"optimizer_steps", std::to_string(optimizer.steps())}};
  if (point.best.eval) {
    metadata["best_epoch"] = std::to_string(point.best.epoch);
    const Accuracies &acc = *point.best.eval;
    for (auto [key, value] : {std::pair{"best_train_acc", acc.train},
                              std::pair{"best_valid_acc", acc.valid},
                              std::pair{"best_test_acc", acc.test}})
      if (value)
        metadata[key] = exactNumber(*value);
  }
  writeSafetensors(path, tensors, metadata);
}

ResumableCheckpoint::ResumableCheckpoint(const std::string &checkpointPath,
                                         const std::string &modelName)
    : path(checkpointPath), model(modelName), file(readSafetensors(path)) {
  const auto &metadata = file.metadata;
  auto format = metadata.find(kFormatKey);
  if (format == metadata.end() || format->second != kFormatResumable)
    throwDataError(path, 0,
                   "not a resumable checkpoint: it holds weights only (--save "
                   "writes those; resume from the file the train block's "
                   "`checkpoint = ...` or --checkpoint writes, or start from "
                   "these weights with --load)");
  auto written = metadata.find("model");
  if (written != metadata.end() && written->second != model)
    throwDataError(path, 0,
                   "the checkpoint is of model " + written->second +
                       ", not " + model);
  resume.epoch = integerEntry(path, metadata, "epoch");
  resume.seed = uint64_t(integerEntry(path, metadata, "seed"));
  resume.ranks = int(integerEntry(path, metadata, "ranks"));
  optimizerSteps = integerEntry(path, metadata, "optimizer_steps");
  auto optimizer = metadata.find("optimizer");
  writtenBy = optimizer == metadata.end() ? "" : optimizer->second;
  if (metadata.count("best_epoch")) {
    resume.best.epoch = integerEntry(path, metadata, "best_epoch");
    resume.best.eval = Accuracies{accuracyEntry(metadata, "best_train_acc"),
                                  accuracyEntry(metadata, "best_valid_acc"),
                                  accuracyEntry(metadata, "best_test_acc")};
  }
}

void ResumableCheckpoint::restoreParameters(
    ParameterStore<float> &params) const {
  copyParameters(path, model, file, params);
}

void ResumableCheckpoint::restoreOptimizer(const ParameterStore<float> &params,
                                           Optimizer &optimizer) const {
  const char *expected = optimizerName(optimizer.config().kind);
  if (writtenBy != expected)
    throwDataError(path, 0,
                   "the checkpoint continues a run of optimizer '" +
                       writtenBy + "', but this program trains with '" +
                       expected + "'");
  std::vector<Optimizer::StateKind> kinds = optimizer.state();
  // Validate everything before copying anything.
  for (const Optimizer::StateKind &kind : kinds)
    for (size_t i = 0; i < params.size(); ++i) {
      std::string name = optimizerTensorName(kind.name, params.info[i].name);
      const StoredTensor *t = file.find(name);
      if (!t || t->shape != params.info[i].shape)
        throwDataError(path, 0,
                       "no optimizer tensor '" + name + "' of shape " +
                           formatShape(params.info[i].shape) +
                           " (the checkpoint's optimizer settings differ)");
    }
  for (const Optimizer::StateKind &kind : kinds)
    for (size_t i = 0; i < params.size(); ++i)
      (*kind.tensors)[i] =
          file.find(optimizerTensorName(kind.name, params.info[i].name))->data;
  optimizer.setSteps(optimizerSteps);
}

} // namespace gnnrt
