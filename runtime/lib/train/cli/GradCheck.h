//===- GradCheck.h - Finite differences against a backward -----*- C++ -*-===//
//
// Internal to gnnrt. `--gradcheck` compares the gradients of the float64
// trainStep against central differences of its own loss on a small random
// problem, so that a wrong adjoint in gnnc (or a hand-written kernel) shows
// up as a named parameter with a large relative error. Dropout is no
// obstacle: every call uses the same (seed, step), hence the same masks.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_GRADCHECK_H
#define GNNRT_LIB_TRAIN_GRADCHECK_H

#include "gnnrt/train/Program.h"

#include <cstdint>
#include <cstdio>

namespace gnnrt {

struct GradCheckOptions {
  int64_t nodes = 12;
  uint64_t seed = 0;
  /// The largest relative error that passes.
  double tolerance = 1e-4;
};

/// Prints `gradcheck <param> max_rel_err <e> (<n> elements)` per parameter
/// and a `gradcheck: PASS|FAIL ...` verdict to `out`; returns whether every
/// checked element is within the tolerance.
bool runGradCheck(const CompiledProgram &program,
                  const GradCheckOptions &options, std::FILE *out);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_GRADCHECK_H
