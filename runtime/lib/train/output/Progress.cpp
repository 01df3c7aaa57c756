//===- Progress.cpp - Training progress on stderr -------------------------===//

#include "Progress.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace gnnrt {

namespace {
constexpr int kBarWidth = 30;

std::string bar(int64_t done, int64_t total) {
  int filled = total > 0 ? int(done * kBarWidth / total) : kBarWidth;
  std::string text(size_t(kBarWidth), ' ');
  for (int i = 0; i < filled; ++i)
    text[size_t(i)] = '=';
  if (filled < kBarWidth)
    text[size_t(filled)] = '>';
  return "[" + text + "]";
}

/// printf into a string (a report line is built whole, then written once).
__attribute__((format(printf, 1, 2))) std::string printed(const char *format,
                                                          ...) {
  char buffer[128];
  va_list args;
  va_start(args, format);
  const int length = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return std::string(buffer, size_t(std::max(0, std::min<int>(
                                 length, int(sizeof buffer) - 1))));
}
} // namespace

void Progress::beginEpoch(int64_t e, int64_t steps) {
  epoch = e;
  stepsDone = 0;
  stepsTotal = steps;
  epochStart = lastLine = std::chrono::steady_clock::now();
}

void Progress::step() {
  ++stepsDone;
  // A one-step epoch is reported by report() alone; the last step too.
  if (stepsTotal <= 1 || stepsDone >= stepsTotal)
    return;
  const auto now = std::chrono::steady_clock::now();
  if (!interactive &&
      (every <= 0 ||
       std::chrono::duration<double>(now - lastLine).count() < every))
    return;
  lastLine = now;
  const double elapsed =
      std::chrono::duration<double>(now - epochStart).count();
  const double rate = elapsed > 0 ? double(stepsDone) / elapsed : 0;
  const double eta = rate > 0 ? double(stepsTotal - stepsDone) / rate : 0;
  std::fprintf(out, "%sepoch %lld/%lld batch %lld/%lld (%.1f batches/s, ETA %.0f s)%s",
               interactive ? "\r " : "", (long long)epoch, (long long)epochs,
               (long long)stepsDone, (long long)stepsTotal, rate, eta,
               interactive ? "\x1b[K" : "\n");
  lineOpen = interactive;
  std::fflush(out);
}

void Progress::report(const EpochRecord &r) {
  if (r.eval && r.eval->validScore())
    lastValid = r.eval->validScore();
  if (interactive) {
    std::fprintf(out, "\r epoch %lld/%lld %s loss %.4f", (long long)r.epoch,
                 (long long)epochs, bar(r.epoch, epochs).c_str(), r.loss);
    if (lastValid)
      std::fprintf(out, " valid%s %.4f",
                   !r.eval               ? ""
                   : r.eval->isRanking() ? "_mrr"
                   : r.eval->isLink()    ? "_auc"
                                         : "",
                   *lastValid);
    std::fputs("\x1b[K", out); // clear what a longer previous line left
    lineOpen = true;
  } else {
    // One write per line: stderr is unbuffered, and under mpirun a line
    // written in pieces can be split by the rank's stdout lines.
    std::string line = printed("epoch %lld/%lld loss %.4f",
                               (long long)r.epoch, (long long)epochs, r.loss);
    if (r.eval) {
      auto field = [&](const char *name, const std::optional<double> &acc) {
        if (acc)
          line += printed(" %s %.4f", name, *acc);
      };
      field("train", r.eval->train);
      field("valid", r.eval->valid);
      field("test", r.eval->test);
      field("valid_auc", r.eval->validAuc);
      field("valid_ap", r.eval->validAp);
      field("test_auc", r.eval->testAuc);
      field("test_ap", r.eval->testAp);
      field("valid_mrr", r.eval->validMrr);
      field("test_mrr", r.eval->testMrr);
      field("test_hits@10", r.eval->testHits10);
    }
    line += printed(" (%.3g s)\n", r.seconds);
    std::fputs(line.c_str(), out);
  }
  std::fflush(out);
}

void Progress::finish() {
  if (lineOpen)
    std::fputc('\n', out);
  lineOpen = false;
  std::fflush(out);
}

} // namespace gnnrt
