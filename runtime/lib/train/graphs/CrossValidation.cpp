//===- CrossValidation.cpp - Folds, selected epochs, mean +- std ----------===//
//
// See CrossValidation.h.
//
//===----------------------------------------------------------------------===//

#include "CrossValidation.h"

#include "output/Metrics.h"

#include <cmath>
#include <cstdio>

namespace gnnrt {

namespace {

std::string fixed4(const std::optional<double> &value) {
  if (!value)
    return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *value);
  return text;
}

} // namespace

std::vector<int64_t> foldsToRun(const std::vector<std::string> &names,
                                const DriverOptions &options) {
  const int64_t count = int64_t(names.size());
  if (options.fold && count == 0)
    throw UsageError("--fold " + std::to_string(*options.fold) +
                     ": only graph-level programs (batches = graphs(...)) "
                     "train on cross-validation folds");
  if (options.fold) {
    if (*options.fold >= count)
      throw UsageError("--fold " + std::to_string(*options.fold) +
                       ": the dataset has " + std::to_string(count) +
                       (count == 1 ? " fold (--fold 0)"
                                   : " folds (--fold 0 to " +
                                         std::to_string(count - 1) + ")"));
    return {*options.fold};
  }
  if (count > 1) {
    // Each fold trains its own model: these name one.
    const std::pair<bool, const char *> oneModel[] = {
        {!options.resumeFile.empty(),
         "--resume continues the run of the fold its checkpoint was written "
         "in"},
        {options.evalOnly, "--eval-only evaluates on one fold's splits"},
        {!options.saveFile.empty(), "--save writes one fold's weights"},
        {!options.predictFile.empty(),
         "--predict writes one fold's model's predictions"}};
    for (const auto &[given, what] : oneModel)
      if (given)
        throw UsageError(std::string(what) + ": give --fold K (0 to " +
                         std::to_string(count - 1) + "); without it the " +
                         std::to_string(count) +
                         " folds of the dataset train in turn");
  }
  std::vector<int64_t> all;
  for (int64_t k = 0; k < count; ++k)
    all.push_back(k);
  return all;
}

void checkResumedFold(const ResumableCheckpoint &checkpoint,
                      const std::string &path, int64_t fold) {
  const std::optional<int64_t> written = checkpoint.point().fold;
  if (!written)
    throw UsageError("--resume " + path +
                     ": the checkpoint names no fold (it was not written "
                     "training a fold of a cross-validation)");
  if (*written != fold)
    throw UsageError("--resume " + path +
                     ": the checkpoint was written "
                     "training fold " +
                     std::to_string(*written) + ", not fold " +
                     std::to_string(fold) + " (give --fold " +
                     std::to_string(*written) + ")");
}

FoldResult foldResult(int64_t fold, const std::string &name,
                      const TrainingResult &result) {
  FoldResult r;
  r.fold = fold;
  r.name = name;
  const bool onValid = result.best.eval.has_value();
  const EpochRecord &selected = onValid ? result.best : result.last;
  r.epoch = selected.epoch;
  r.selectedOnValid = onValid;
  if (selected.eval) {
    r.valid = selected.eval->valid;
    r.test = selected.eval->test;
  }
  return r;
}

FoldSummary summarizeFolds(const std::vector<FoldResult> &folds) {
  FoldSummary s;
  s.folds = int64_t(folds.size());
  double sum = 0;
  int64_t n = 0;
  for (const FoldResult &f : folds)
    if (f.test) {
      sum += *f.test;
      ++n;
    }
  if (n == 0)
    return s;
  const double mean = sum / double(n);
  double squares = 0;
  for (const FoldResult &f : folds)
    if (f.test)
      squares += (*f.test - mean) * (*f.test - mean);
  s.mean = mean;
  s.std = std::sqrt(squares / double(n));
  return s;
}

std::string foldLine(const FoldResult &r) {
  std::string line = "fold " + std::to_string(r.fold);
  if (r.name != "fold" + std::to_string(r.fold))
    line += " (" + r.name + ")";
  return line + ": epoch " + std::to_string(r.epoch) +
         (r.selectedOnValid ? "" : " (last)") + " valid_acc " +
         fixed4(r.valid) + " test_acc " + fixed4(r.test);
}

std::string foldJson(const FoldResult &r) {
  std::string json = "{\"fold\":" + std::to_string(r.fold) +
                     ",\"selected_epoch\":" + std::to_string(r.epoch);
  if (r.valid)
    json += ",\"valid_acc\":" + metricsNumber(*r.valid);
  if (r.test)
    json += ",\"test_acc\":" + metricsNumber(*r.test);
  return json + "}";
}

std::string summaryLine(const FoldSummary &s) {
  std::string line = "cross_validation: " + std::to_string(s.folds) +
                     (s.folds == 1 ? " fold" : " folds") + " test_acc " +
                     fixed4(s.mean);
  if (s.std)
    line += " \u00b1 " + fixed4(s.std);
  return line;
}

std::string summaryJson(const FoldSummary &s) {
  std::string json = "{\"folds\":" + std::to_string(s.folds);
  if (s.mean)
    json += ",\"test_acc_mean\":" + metricsNumber(*s.mean) +
            ",\"test_acc_std\":" + metricsNumber(*s.std);
  return json + "}";
}

} // namespace gnnrt
