//===- Progress.h - Training progress on stderr -----------------*- C++ -*-===//
//
// Internal to gnnrt. On a terminal, one line redrawn in place:
//    epoch 37/200 [=====>    ] loss 0.5123 valid 0.7800
// Otherwise (a log file, a pipe) one line per epoch that greps well:
//   epoch 37/200 loss 0.5123 train 0.9500 valid 0.7800 test 0.8000 (0.012 s)
// An epoch of several steps (sampled batches) also shows where it is: on a
// terminal the line is redrawn after every step,
//    epoch 3/20 batch 120/586 (45.2 batches/s, ETA 10 s)
// and otherwise that line is printed every few seconds (--progress-every),
// so that a log shows a long epoch advancing.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PROGRESS_H
#define GNNRT_LIB_TRAIN_PROGRESS_H

#include "Metrics.h"

#include <chrono>
#include <cstdio>
#include <optional>

namespace gnnrt {

class Progress {
public:
  /// `every`: seconds between the step lines of a non-interactive output
  /// (0: none).
  Progress(std::FILE *out, int64_t epochs, bool interactive,
           double every = 5.0)
      : out(out), epochs(epochs), interactive(interactive), every(every) {}
  /// An error unwinding through the loop prints on a fresh line.
  ~Progress() { finish(); }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Starts epoch `epoch` of `steps` optimizer steps.
  void beginEpoch(int64_t epoch, int64_t steps);
  /// One more step of the current epoch is done.
  void step();
  void report(const EpochRecord &record);
  /// Ends the redrawn line, if any.
  void finish();

private:
  std::FILE *out;
  int64_t epochs;
  bool interactive;
  double every;
  bool lineOpen = false;
  /// The current epoch: its number, steps done and in all, and when it
  /// began and last printed a step line.
  int64_t epoch = 0, stepsDone = 0, stepsTotal = 1;
  std::chrono::steady_clock::time_point epochStart, lastLine;
  std::optional<double> lastValid; ///< shown by the bar between evaluations
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PROGRESS_H
