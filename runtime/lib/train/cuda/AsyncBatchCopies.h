//===- AsyncBatchCopies.h - The next batch's copy during this step -*- C++ -*-===//
//
// Internal to the trainer's device part. Double buffering of sampled
// batches: while step b runs on the compute stream, batch b + 1's blocks,
// input rows, labels and node ids are copied on a copy stream, from a
// pinned host buffer into a device buffer of its own (one of two, used by
// turns); an event orders the copy before the step that reads it. The
// sampled schedule hands the next batch over (CompiledProgram::stageBatch)
// before running the current one; the train step adapter then takes the
// staged copy when its context is that batch, and copies synchronously
// otherwise (the first batch of an epoch, evaluation, learned input rows).
//
// Each batch is packed into the pinned buffer on the host first (the
// pipeline may recycle its pageable memory once the next batch is handed
// out) and moves in one cudaMemcpyAsync; the packing is host time, the
// transfer overlaps the step on a device.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_CUDA_ASYNCBATCHCOPIES_H
#define GNNRT_LIB_TRAIN_CUDA_ASYNCBATCHCOPIES_H

#include "DeviceState.h"

#include "gnnrt/kernels/cuda/Stream.h"

#include <memory>
#include <vector>

namespace gnnrt::device {

class AsyncBatchCopies {
public:
  AsyncBatchCopies();
  ~AsyncBatchCopies();
  AsyncBatchCopies(const AsyncBatchCopies &) = delete;
  AsyncBatchCopies &operator=(const AsyncBatchCopies &) = delete;

  /// Starts copying the batch of `host` (a sampled context: `numBlocks`
  /// blocks) to the device on the copy stream. Its arrays may change once
  /// this returns.
  void stage(const ExecContext<float> &host, int numBlocks);

  /// If `host` is a batch staged and not taken yet, makes the current stream wait for
  /// its copy and points `d`'s batch arrays (graph, blocks, features,
  /// labels, node ids) at it, with `blocks` holding the device views.
  /// Returns false, changing nothing, for any other context.
  bool take(const ExecContext<float> &host, ExecContext<float> &d,
            std::vector<GraphView> &blocks);

  /// Batches taken from a staged copy so far (--stats).
  int64_t taken() const { return takenCount; }

private:
  struct Buffer;
  std::unique_ptr<kernels::cuda::Stream> copyStream;
  std::vector<std::unique_ptr<Buffer>> buffers; ///< two, used by turns
  int nextBuffer = 0;
  int64_t takenCount = 0;
};

} // namespace gnnrt::device

#endif // GNNRT_LIB_TRAIN_CUDA_ASYNCBATCHCOPIES_H
