//===- Metrics.cpp - Accuracy and the per-epoch metrics log ---------------===//
//
// The metrics log is JSON lines of constant keys and numbers, written here
// rather than through nlohmann-json (gnnrt/io/Json.h): there is no string
// to escape, and numbers are printed at the precision they have (%.9g, a
// float's round trip; seconds to %.6g) where a JSON library writes every
// double's 17 digits.
//
//===----------------------------------------------------------------------===//

#include "Metrics.h"

#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sys/stat.h>

namespace gnnrt {

int64_t argmaxRow(const float *row, int64_t classes) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c)
    if (row[c] > row[best])
      best = c;
  return best;
}

AccuracyCounts accuracyCounts(const float *logits, int64_t classes,
                              const int64_t *labels,
                              const std::vector<int64_t> &nodes) {
  const int64_t n = int64_t(nodes.size());
  int64_t labeled = 0, correct = 0;
#pragma omp parallel for reduction(+ : labeled, correct) if (n >= (1 << 14))
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = nodes[size_t(k)];
    if (labels[v] < 0)
      continue;
    ++labeled;
    correct += argmaxRow(logits + v * classes, classes) == labels[v];
  }
  return {correct, labeled};
}

std::optional<double> AccuracyCounts::fraction() const {
  if (labeled == 0)
    return std::nullopt;
  return double(correct) / double(labeled);
}

std::optional<double> accuracy(const float *logits, int64_t classes,
                               const int64_t *labels,
                               const std::vector<int64_t> &nodes) {
  return accuracyCounts(logits, classes, labels, nodes).fraction();
}

bool wantsValidLoss(const TrainSettings &settings) {
  return settings.earlyStopping.patience > 0 &&
         settings.earlyStopping.monitor == "valid_loss";
}

double crossEntropyRow(const float *row, int64_t classes, int64_t label) {
  double max = row[0];
  for (int64_t c = 1; c < classes; ++c)
    max = std::max(max, double(row[c]));
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c)
    sum += std::exp(double(row[c]) - max);
  return max + std::log(sum) - double(row[label]);
}

LossSum crossEntropySum(const float *logits, int64_t classes,
                        const int64_t *labels,
                        const std::vector<int64_t> &nodes) {
  // In node order on one thread: the sum is the same on every run.
  LossSum out;
  for (int64_t v : nodes)
    if (labels[v] >= 0) {
      out.sum += crossEntropyRow(logits + v * classes, classes, labels[v]);
      out.count += 1;
    }
  return out;
}

std::optional<double> LossSum::mean() const {
  if (count == 0)
    return std::nullopt;
  return sum / count;
}

std::array<bool, 3> evaluatedSplits(const TrainSettings &settings) {
  if (settings.evaluate.empty())
    return {true, true, true};
  std::array<bool, 3> named = {false, false, false};
  const char *names[3] = {"train", "valid", "test"};
  for (const std::string &split : settings.evaluate)
    for (int k = 0; k < 3; ++k)
      named[size_t(k)] = named[size_t(k)] || split == names[k];
  return named;
}

std::string metricsNumber(double value, const char *format) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

int64_t peakResidentBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0)
      return int64_t(std::atoll(line.c_str() + 6)) << 10; // in kB
  return 0;
}

std::string metricsJson(const EpochRecord &record) {
  std::string line = "{\"epoch\":" + std::to_string(record.epoch);
  if (record.fold)
    line += ",\"fold\":" + std::to_string(*record.fold);
  line += ",\"loss\":" + metricsNumber(record.loss);
  if (record.lr)
    line += ",\"lr\":" + metricsNumber(*record.lr, "%.17g");
  if (record.eval) {
    auto field = [&](const char *key, const std::optional<double> &acc) {
      if (acc)
        line += std::string(",\"") + key + "\":" + metricsNumber(*acc);
    };
    field("train_acc", record.eval->train);
    field("valid_acc", record.eval->valid);
    field("test_acc", record.eval->test);
    field("valid_auc", record.eval->validAuc);
    field("valid_ap", record.eval->validAp);
    field("test_auc", record.eval->testAuc);
    field("test_ap", record.eval->testAp);
    field("valid_mrr", record.eval->validMrr);
    field("test_mrr", record.eval->testMrr);
    field("test_hits@1", record.eval->testHits1);
    field("test_hits@3", record.eval->testHits3);
    field("test_hits@10", record.eval->testHits10);
    if (record.eval->validLoss)
      line +=
          ",\"valid_loss\":" + metricsNumber(*record.eval->validLoss, "%.17g");
  }
  return line + ",\"epoch_seconds\":" + metricsNumber(record.seconds, "%.6g") +
         ",\"epoch_cpu_seconds\":" + metricsNumber(record.cpuSeconds, "%.6g") +
         ",\"peak_rss_bytes\":" + std::to_string(record.peakRssBytes) + "}";
}

namespace {

/// The epoch a metrics line records, or -1 for a line that is not one whole
/// record (a torn last line).
int64_t recordedEpoch(const std::string &line) {
  static const char kPrefix[] = "{\"epoch\":";
  if (line.compare(0, sizeof kPrefix - 1, kPrefix) != 0 || line.back() != '}')
    return -1;
  char *end = nullptr;
  long long epoch = std::strtoll(line.c_str() + sizeof kPrefix - 1, &end, 10);
  return end && *end == ',' ? epoch : -1;
}

/// Rewrites `path` with its records of epochs up to `last` (atomically: a
/// crash now leaves the old file).
void truncateToEpoch(const std::string &path, int64_t last) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return; // nothing written yet, or a pipe or terminal: append as it is
  std::ifstream in(path);
  std::string kept, line;
  while (std::getline(in, line)) {
    const int64_t epoch = recordedEpoch(line);
    if (epoch >= 1 && epoch <= last)
      kept += line + "\n";
  }
  AtomicFile out(path);
  out.write(kept.data(), kept.size());
  out.commit();
}

} // namespace

MetricsLog::MetricsLog(const std::string &filePath,
                       std::optional<int64_t> keepThroughEpoch)
    : path(filePath) {
  if (path.empty())
    return;
  if (keepThroughEpoch)
    truncateToEpoch(path, *keepThroughEpoch);
  file = std::fopen(path.c_str(), keepThroughEpoch ? "a" : "w");
  if (!file)
    throwDataError(path, 0,
                   std::string("cannot create file: ") + std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (file)
    std::fclose(file);
}

void MetricsLog::append(const EpochRecord &record) {
  appendLine(metricsJson(record));
}

void MetricsLog::appendLine(const std::string &json) {
  if (!file)
    return;
  const std::string line = json + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file) != line.size() ||
      std::fflush(file) != 0)
    throwDataError(path, 0,
                   std::string("cannot write file: ") + std::strerror(errno));
}

} // namespace gnnrt
