//===- Progress.h - Training progress on stderr -----------------*- C++ -*-===//
//
// Internal to gnnrt. On a terminal, one line redrawn in place:
//    epoch 37/200 [=====>    ] loss 0.5123 valid 0.7800
// Otherwise (a log file, a pipe) one line per epoch that greps well:
//   epoch 37/200 loss 0.5123 train 0.9500 valid 0.7800 test 0.8000 (0.012 s)
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PROGRESS_H
#define GNNRT_LIB_TRAIN_PROGRESS_H

#include "Metrics.h"

#include <cstdio>
#include <optional>

namespace gnnrt {

class Progress {
public:
  Progress(std::FILE *out, int64_t epochs, bool interactive)
      : out(out), epochs(epochs), interactive(interactive) {}
  /// An error unwinding through the loop prints on a fresh line.
  ~Progress() { finish(); }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  void report(const EpochRecord &record);
  /// Ends the redrawn line, if any.
  void finish();

private:
  std::FILE *out;
  int64_t epochs;
  bool interactive;
  bool lineOpen = false;
  std::optional<double> lastValid; ///< shown by the bar between evaluations
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PROGRESS_H
