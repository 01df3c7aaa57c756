//===- Checkpoint.cpp - A model's parameters in a safetensors file --------===//
//
// See Checkpoint.h for the format of plain and resumable checkpoints.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Shape.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

namespace gnnrt {

namespace {

/// Marks a resumable checkpoint (and its layout's version) in the metadata.
constexpr const char *kFormatKey = "gnnc.checkpoint";
constexpr const char *kFormatResumable = "resumable-1";
constexpr const char *kOptimizerPrefix = "optimizer.";
constexpr const char *kInputsPrefix = "inputs.";
constexpr const char *kInputStepsKey = "input_steps";
/// Early stopping's best weights so far, `early_stopping.best.<parameter>`.
constexpr const char *kBestPrefix = "early_stopping.best.";
/// Which parameters trained in which of the program's param_groups.
constexpr const char *kParamGroupsKey = "param_groups";

/// `c1.w: group(c1, lr = 0.005); c1.b: ...`: each grouped parameter with
/// its group's settings ("" when no parameter is in a group).
std::string paramGroupsEntry(const ParameterStore<float> &params,
                             const Optimizer &optimizer) {
  std::string entry;
  for (size_t i = 0; i < params.size(); ++i)
    if (!optimizer.update(i).group.empty())
      entry += (entry.empty() ? "" : "; ") + params.info[i].name + ": " +
               optimizer.update(i).group;
  return entry;
}

/// paramGroupsEntry's text as parameter -> group.
std::map<std::string, std::string> parseParamGroups(const std::string &text) {
  std::map<std::string, std::string> groups;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find("; ", at);
    std::string item =
        text.substr(at, end == std::string::npos ? end : end - at);
    size_t colon = item.find(": ");
    if (colon != std::string::npos)
      groups[item.substr(0, colon)] = item.substr(colon + 2);
    at = end == std::string::npos ? text.size() : end + 2;
  }
  return groups;
}

bool hasPrefix(const std::string &name, const char *prefix) {
  return name.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

/// The tensor of a featureless node type's learned rows.
std::string inputsTensorName(const std::string &nodeType) {
  return kInputsPrefix + nodeType;
}

std::string optimizerTensorName(const char *kind, const std::string &param) {
  return std::string(kOptimizerPrefix) + kind + "." + param;
}

/// The tensors of a resumable checkpoint beside the parameters: the
/// optimizer's state and early stopping's best weights.
bool isOptimizerTensor(const std::string &name) {
  return hasPrefix(name, kOptimizerPrefix) || hasPrefix(name, kBestPrefix);
}

/// The names under which a checkpoint stores `state` of the learned rows.
std::string learnedTensorName(LearnedInputs::State state,
                              const std::string &nodeType) {
  switch (state) {
  case LearnedInputs::State::ExpAvg:
    return optimizerTensorName("exp_avg", inputsTensorName(nodeType));
  case LearnedInputs::State::ExpAvgSq:
    return optimizerTensorName("exp_avg_sq", inputsTensorName(nodeType));
  case LearnedInputs::State::Best:
    return kBestPrefix + inputsTensorName(nodeType);
  case LearnedInputs::State::Rows:
    break;
  }
  return inputsTensorName(nodeType);
}

void appendTables(std::vector<TensorRef> &tensors, LearnedInputs::State state,
                  const std::vector<LearnedInputs::Table> &tables) {
  for (const LearnedInputs::Table &t : tables)
    tensors.push_back({learnedTensorName(state, t.nodeType), {t.count, t.dim},
                       t.values.data()});
}

void appendSnapshot(std::vector<TensorRef> &tensors,
                    const LearnedInputsSnapshot &inputs) {
  appendTables(tensors, LearnedInputs::State::Rows, inputs.rows);
  appendTables(tensors, LearnedInputs::State::ExpAvg, inputs.expAvg);
  appendTables(tensors, LearnedInputs::State::ExpAvgSq, inputs.expAvgSq);
  appendTables(tensors, LearnedInputs::State::Best, inputs.best);
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
/// (optimizer tensors, and learned input rows when `learnedInputs`) is;
/// then copies them into `params`.
void copyParameters(const std::string &path, const std::string &model,
                    const SafetensorsContents &file,
                    ParameterStore<float> &params, bool learnedInputs) {
  // Validate everything before copying anything.
  for (const ParamInfo &p : params.info) {
    const StoredTensor *t = file.find(p.name);
    if (!t)
      throwDataError(
          path, 0,
          "no tensor '" + p.name + "' (" +
              (p.buffer ? "a batch_norm running statistic" : "parameter") +
              " of " + model + " with shape " + formatShape(p.shape) + ")" +
              (p.buffer ? ": weights saved without running statistics "
                          "(momentum = 0, or gnnc before they existed) load "
                          "into a model whose batch_norm has momentum = 0"
                        : ""));
    if (t->shape != p.shape)
      throwDataError(path, 0,
                     "tensor '" + t->name + "' has shape " +
                         formatShape(t->shape) + " but " + model + " expects " +
                         formatShape(p.shape));
  }
  for (const StoredTensor &t : file.tensors) {
    if (isOptimizerTensor(t.name) ||
        (learnedInputs && hasPrefix(t.name, kInputsPrefix)) ||
        std::any_of(params.info.begin(), params.info.end(),
                    [&](const ParamInfo &p) { return p.name == t.name; }))
      continue;
    throwDataError(path, 0,
                   "tensor '" + t.name + "' is not a parameter of " + model +
                       (hasPrefix(t.name, kInputsPrefix)
                            ? " (it holds learned input rows, which this "
                              "program's dataset does not ask for with "
                              "embed = D)"
                            : ""));
  }
  for (size_t i = 0; i < params.size(); ++i)
    params.values[i] = file.find(params.info[i].name)->data;
}

/// The integer metadata `key` of a resumable checkpoint.
/// The integer `key` of the metadata, which must lie in [min, max]: a value
/// out of range (a negative epoch, zero ranks) would resume another run than
/// the one written, so it is refused rather than clamped.
int64_t integerEntry(const std::string &path,
                     const std::map<std::string, std::string> &metadata,
                     const std::string &key, int64_t min = 0,
                     int64_t max = std::numeric_limits<int64_t>::max()) {
  auto it = metadata.find(key);
  if (it == metadata.end())
    throwDataError(path, 0,
                   "the checkpoint's metadata lacks an integer '" + key + "'");
  const std::string &text = it->second;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE || value < min ||
      value > max)
    throwDataError(path, 0,
                   "the checkpoint's metadata '" + key + "' is '" + text +
                       "': expected an integer from " + std::to_string(min) +
                       (max == std::numeric_limits<int64_t>::max()
                            ? " up"
                            : " to " + std::to_string(max)));
  return value;
}

/// The seed of the metadata: any 64-bit unsigned integer.
uint64_t seedEntry(const std::string &path,
                   const std::map<std::string, std::string> &metadata) {
  auto it = metadata.find("seed");
  char *end = nullptr;
  errno = 0;
  unsigned long long value =
      it == metadata.end() ? 0 : std::strtoull(it->second.c_str(), &end, 10);
  if (it == metadata.end() || end == it->second.c_str() || *end != '\0' ||
      errno == ERANGE || it->second[0] == '-')
    throwDataError(path, 0,
                   "the checkpoint's metadata lacks a seed (an unsigned "
                   "64-bit integer)");
  return value;
}

/// An accuracy of the metadata: absent, or a number in [0, 1].
std::optional<double>
accuracyEntry(const std::string &path,
              const std::map<std::string, std::string> &metadata,
              const std::string &key) {
  auto it = metadata.find(key);
  if (it == metadata.end())
    return std::nullopt;
  char *end = nullptr;
  double value = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !(value >= 0) ||
      !(value <= 1))
    throwDataError(path, 0,
                   "the checkpoint's metadata '" + key + "' is '" + it->second +
                       "': expected an accuracy from 0 to 1");
  return value;
}

/// A finite number of the metadata, or none when absent.
std::optional<double>
numberEntry(const std::string &path,
            const std::map<std::string, std::string> &metadata,
            const std::string &key) {
  auto it = metadata.find(key);
  if (it == metadata.end())
    return std::nullopt;
  char *end = nullptr;
  double value = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !std::isfinite(value))
    throwDataError(path, 0,
                   "the checkpoint's metadata '" + key + "' is '" + it->second +
                       "': expected a finite number");
  return value;
}

} // namespace

LearnedInputsSnapshot snapshotLearnedInputs(const LearnedInputs &learned,
                                            Communicator &comm, bool moments) {
  LearnedInputsSnapshot snapshot;
  snapshot.rows = learned.gather(LearnedInputs::State::Rows, comm);
  if (moments) {
    snapshot.expAvg = learned.gather(LearnedInputs::State::ExpAvg, comm);
    snapshot.expAvgSq = learned.gather(LearnedInputs::State::ExpAvgSq, comm);
    snapshot.steps = learned.steps();
    if (learned.hasBest())
      snapshot.best = learned.gather(LearnedInputs::State::Best, comm);
  }
  return snapshot;
}

void saveCheckpoint(const std::string &path, const std::string &model,
                    const ParameterStore<float> &params,
                    const LearnedInputsSnapshot *inputs) {
  std::vector<TensorRef> tensors = parameterTensors(params);
  if (inputs)
    appendSnapshot(tensors, *inputs);
  writeSafetensors(path, tensors, {{"model", model}});
}

SafetensorsContents loadCheckpoint(const std::string &path,
                                   const std::string &model,
                                   ParameterStore<float> &params,
                                   bool learnedInputs) {
  SafetensorsContents file = readSafetensors(path);
  copyParameters(path, model, file, params, learnedInputs);
  return file;
}

void restoreLearnedInputs(const std::string &path,
                          const SafetensorsContents &file,
                          LearnedInputs &learned, bool moments) {
  std::vector<LearnedInputs::State> states = {LearnedInputs::State::Rows};
  if (moments)
    states.insert(states.end(), {LearnedInputs::State::ExpAvg,
                                 LearnedInputs::State::ExpAvgSq});
  // Early stopping's best rows, when the run had taken a copy.
  if (moments && !learned.tableTypes().empty() &&
      file.find(learnedTensorName(LearnedInputs::State::Best,
                                  learned.tableTypes().front().name)))
    states.push_back(LearnedInputs::State::Best);
  // Validate everything before copying anything.
  for (LearnedInputs::State state : states)
    for (const NodeType &type : learned.tableTypes()) {
      const std::string name = learnedTensorName(state, type.name);
      const std::vector<int64_t> shape = {type.count, learned.rowWidth()};
      const StoredTensor *t = file.find(name);
      if (!t)
        throwDataError(path, 0,
                       "no tensor '" + name + "' (the learned input rows of "
                       "node type " + type.name + ", shape " +
                           formatShape(shape) +
                           "): the file was written by a program without "
                           "embed = " + std::to_string(learned.rowWidth()));
      if (t->shape != shape)
        throwDataError(path, 0,
                       "tensor '" + name + "' has shape " +
                           formatShape(t->shape) + " but the learned input "
                           "rows of node type " + type.name + " are " +
                           formatShape(shape));
    }
  for (LearnedInputs::State state : states)
    learned.restore(state, [&](const std::string &nodeType) {
      return file.find(learnedTensorName(state, nodeType))->data.data();
    });
}

void saveResumableCheckpoint(const std::string &path, const std::string &model,
                             const ParameterStore<float> &params,
                             Optimizer &optimizer, const ResumePoint &point,
                             const LearnedInputsSnapshot *inputs) {
  std::vector<TensorRef> tensors = parameterTensors(params);
  for (const Optimizer::StateKind &kind : optimizer.state())
    for (size_t i = 0; i < params.size(); ++i)
      tensors.push_back({optimizerTensorName(kind.name, params.info[i].name),
                         params.info[i].shape, (*kind.tensors)[i].data()});
  if (inputs)
    appendSnapshot(tensors, *inputs);
  if (point.bestValues)
    for (size_t i = 0; i < params.size(); ++i)
      tensors.push_back({kBestPrefix + params.info[i].name,
                         params.info[i].shape, (*point.bestValues)[i].data()});
  std::map<std::string, std::string> metadata = {
      {"model", model},
      {kFormatKey, kFormatResumable},
      {"epoch", std::to_string(point.epoch)},
      {"seed", std::to_string(point.seed)},
      {"ranks", std::to_string(point.ranks)},
      {"optimizer", optimizerName(optimizer.config().kind)},
      {"optimizer_steps", std::to_string(optimizer.steps())}};
  if (point.fold)
    metadata["fold"] = std::to_string(*point.fold);
  if (inputs)
    metadata[kInputStepsKey] = std::to_string(inputs->steps);
  if (std::string groups = paramGroupsEntry(params, optimizer); !groups.empty())
    metadata[kParamGroupsKey] = groups;
  if (point.best.eval) {
    metadata["best_epoch"] = std::to_string(point.best.epoch);
    metadata["best_loss"] = exactNumber(point.best.loss);
    const Accuracies &acc = *point.best.eval;
    if (acc.validLoss)
      metadata["best_valid_loss"] = exactNumber(*acc.validLoss);
    for (auto [key, value] : {std::pair{"best_train_acc", acc.train},
                              std::pair{"best_valid_acc", acc.valid},
                              std::pair{"best_test_acc", acc.test},
                              std::pair{"best_valid_auc", acc.validAuc},
                              std::pair{"best_valid_ap", acc.validAp},
                              std::pair{"best_test_auc", acc.testAuc},
                              std::pair{"best_test_ap", acc.testAp},
                              std::pair{"best_valid_mrr", acc.validMrr},
                              std::pair{"best_test_mrr", acc.testMrr},
                              std::pair{"best_test_hits1", acc.testHits1},
                              std::pair{"best_test_hits3", acc.testHits3},
                              std::pair{"best_test_hits10", acc.testHits10}})
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
  resume.seed = seedEntry(path, metadata);
  resume.ranks = int(integerEntry(path, metadata, "ranks", 1,
                                  std::numeric_limits<int>::max()));
  optimizerSteps = integerEntry(path, metadata, "optimizer_steps");
  if (metadata.count("fold"))
    resume.fold = integerEntry(path, metadata, "fold");
  auto optimizer = metadata.find("optimizer");
  writtenBy = optimizer == metadata.end() ? "" : optimizer->second;
  auto groups = metadata.find(kParamGroupsKey);
  paramGroups = groups == metadata.end() ? "" : groups->second;
  if (metadata.count("best_epoch")) {
    resume.best.epoch =
        integerEntry(path, metadata, "best_epoch", 0, resume.epoch);
    resume.best.eval =
        Accuracies{accuracyEntry(path, metadata, "best_train_acc"),
                   accuracyEntry(path, metadata, "best_valid_acc"),
                   accuracyEntry(path, metadata, "best_test_acc"),
                   numberEntry(path, metadata, "best_valid_loss"),
                   accuracyEntry(path, metadata, "best_valid_auc"),
                   accuracyEntry(path, metadata, "best_valid_ap"),
                   accuracyEntry(path, metadata, "best_test_auc"),
                   accuracyEntry(path, metadata, "best_test_ap"),
                   accuracyEntry(path, metadata, "best_valid_mrr"),
                   accuracyEntry(path, metadata, "best_test_mrr"),
                   accuracyEntry(path, metadata, "best_test_hits1"),
                   accuracyEntry(path, metadata, "best_test_hits3"),
                   accuracyEntry(path, metadata, "best_test_hits10")};
    resume.best.loss =
        numberEntry(path, metadata, "best_loss").value_or(resume.best.loss);
  }
}

void ResumableCheckpoint::restoreParameters(ParameterStore<float> &params,
                                            bool learnedInputs) const {
  copyParameters(path, model, file, params, learnedInputs);
}

bool ResumableCheckpoint::restoreBestValues(
    const ParameterStore<float> &params,
    std::vector<std::vector<float>> &values) const {
  if (params.info.empty() || !file.find(kBestPrefix + params.info[0].name))
    return false;
  std::vector<std::vector<float>> best;
  for (const ParamInfo &p : params.info) {
    const StoredTensor *t = file.find(kBestPrefix + p.name);
    if (!t || t->shape != p.shape)
      throwDataError(path, 0,
                     std::string("no tensor '") + kBestPrefix + p.name +
                         "' of shape " + formatShape(p.shape) +
                         " (early stopping's best weights)");
    best.push_back(t->data);
  }
  values = std::move(best);
  return true;
}

void ResumableCheckpoint::restoreLearnedInputs(LearnedInputs &learned) const {
  const int64_t steps = integerEntry(path, file.metadata, kInputStepsKey);
  gnnrt::restoreLearnedInputs(path, file, learned, /*moments=*/true);
  learned.setSteps(steps);
}

void ResumableCheckpoint::restoreOptimizer(const ParameterStore<float> &params,
                                           Optimizer &optimizer) const {
  const char *expected = optimizerName(optimizer.config().kind);
  if (writtenBy != expected)
    throwDataError(path, 0,
                   "the checkpoint continues a run of optimizer '" +
                       writtenBy + "', but this program trains with '" +
                       expected + "'");
  // A parameter's state means what it means under its group's rate and
  // decay, and a frozen one's is none: other groups are another run.
  if (const std::string here = paramGroupsEntry(params, optimizer);
      here != paramGroups) {
    std::map<std::string, std::string> there = parseParamGroups(paramGroups),
                                       ours = parseParamGroups(here);
    auto groupOf = [](const std::map<std::string, std::string> &groups,
                      const std::string &param) {
      auto it = groups.find(param);
      return it == groups.end() ? std::string("no group") : it->second;
    };
    std::string differs = "another parameter";
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string &name = params.info[i].name;
      if (groupOf(there, name) != groupOf(ours, name)) {
        differs = "parameter '" + name + "' trained in " +
                  groupOf(there, name) + ", which this program puts in " +
                  groupOf(ours, name);
        break;
      }
    }
    throwDataError(path, 0,
                   "the checkpoint continues a run with other parameter "
                   "groups: " +
                       differs +
                       " (resume with the train block that wrote it, or "
                       "start from its weights with --load)");
  }
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
