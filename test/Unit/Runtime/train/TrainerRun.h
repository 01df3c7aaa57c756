//===- TrainerRun.h - trainMain in-process, its output captured -*- C++ -*-===//
//
// Test helper: runs a compiled program's trainMain as `argv0 args...` would
// run the trainer binary, capturing what it prints.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_TRAIN_TRAINERRUN_H
#define GNNRT_TEST_TRAIN_TRAINERRUN_H

#include "gnnrt/train/Program.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gnnrt {

struct TrainerRun {
  int status;
  std::string out, err;
};

/// trainMain with `args` after `argv0`, its stdout and stderr captured.
inline TrainerRun runTrainerMain(const CompiledProgram &program,
                                 std::vector<std::string> args,
                                 const std::string &argv0) {
  args.insert(args.begin(), argv0);
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int status = trainMain(int(args.size()), argv.data(), program);
  std::string out = testing::internal::GetCapturedStdout();
  std::string err = testing::internal::GetCapturedStderr();
  return {status, out, err};
}

} // namespace gnnrt

#endif // GNNRT_TEST_TRAIN_TRAINERRUN_H
