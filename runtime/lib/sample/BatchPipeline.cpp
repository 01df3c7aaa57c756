//===- BatchPipeline.cpp - Background batch production in a ring ----------===//
//
// Sampling and feature gathering overlap the train step the way GLT's
// concurrent loaders do: worker threads claim batch indices in increasing
// order and produce batch b into slot b % capacity, and the consumer takes
// them back in index order. Claiming in order under one lock is what makes
// the result independent of the thread count: which thread produces batch b
// changes, what it produces does not, and every batch before a failing one
// has been claimed (so it completes and is delivered before the error).
//
// A slot is reused only after the consumer has moved past the batch in it
// (its next call to next(), or a later one for a batch next(keep) keeps
// while the consumer looks ahead), so a worker never overwrites a batch that is
// still being trained on. One mutex and one condition variable guard it
// all; the waits are per batch, not per edge, so contention is negligible.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/Sampler.h"

#include "gnnrt/support/Error.h"

#include <chrono>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace gnnrt {

struct BatchPipeline::Impl {
  /// `external` slots, or `capacity` of the pipeline's own.
  Impl(int64_t numBatches, std::vector<SampledBatch> *external, int capacity,
       Producer produce)
      : numBatches(numBatches), capacity(capacity),
        produce(std::move(produce)),
        ownSlots(external ? 0 : size_t(capacity)),
        slots(external ? *external : ownSlots),
        slotBatch(size_t(capacity), -1), slotError(size_t(capacity)) {}

  /// Stops the workers: each finishes the batch it is producing.
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    for (std::thread &t : threads)
      t.join();
  }

  void work(int worker) {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] {
        return stopping || failed || nextToClaim >= numBatches ||
               nextToClaim < released + capacity;
      });
      if (stopping || failed || nextToClaim >= numBatches)
        return;
      const int64_t batch = nextToClaim++;
      const size_t slot = size_t(batch % capacity);
      lock.unlock();
      std::exception_ptr error;
      try {
        produce(batch, worker, slots[slot]);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      slotBatch[slot] = batch;
      slotError[slot] = error;
      failed = failed || error;
      changed.notify_all();
    }
  }

  const int64_t numBatches;
  const int capacity;
  const Producer produce;
  /// The ring: the pipeline's own (ownSlots) or the caller's.
  std::vector<SampledBatch> ownSlots;
  std::vector<SampledBatch> &slots;
  /// The batch whose production last finished in each slot (-1: none), and
  /// its exception if it threw.
  std::vector<int64_t> slotBatch;
  std::vector<std::exception_ptr> slotError;

  std::mutex mutex;
  std::condition_variable changed;
  int64_t nextToClaim = 0;   ///< the next batch a worker starts
  int64_t released = 0;      ///< batches the consumer is done with
  int64_t nextToDeliver = 0; ///< the batch next() hands out
  bool stopping = false, failed = false;
  std::exception_ptr deliveredError; ///< rethrown by every later next()
  std::vector<std::thread> threads;
};

BatchPipeline::BatchPipeline(int64_t numBatches, int workers, int capacity,
                             Producer produce)
    : BatchPipeline(numBatches, workers, nullptr, capacity,
                    std::move(produce)) {}

BatchPipeline::BatchPipeline(int64_t numBatches, int workers,
                             std::vector<SampledBatch> &slots,
                             Producer produce)
    : BatchPipeline(numBatches, workers, &slots, int(slots.size()),
                    std::move(produce)) {}

BatchPipeline::BatchPipeline(int64_t numBatches, int workers,
                             std::vector<SampledBatch> *slots, int capacity,
                             Producer produce) {
  if (numBatches < 0 || workers < 1 || capacity < 1)
    throwDataError("pipeline", 0,
                   std::to_string(numBatches) + " batches, " +
                       std::to_string(workers) + " workers, " +
                       std::to_string(capacity) +
                       " slots (expected batches >= 0, workers and slots "
                       ">= 1)");
  // If a thread fails to start, the Impl's destructor joins the others.
  auto owned =
      std::make_unique<Impl>(numBatches, slots, capacity, std::move(produce));
  for (int w = 0; w < workers; ++w)
    owned->threads.emplace_back([state = owned.get(), w] { state->work(w); });
  impl = owned.release();
}

BatchPipeline::~BatchPipeline() { delete impl; }

SampledBatch *BatchPipeline::next(int keep) {
  std::unique_lock<std::mutex> lock(impl->mutex);
  if (impl->deliveredError)
    std::rethrow_exception(impl->deliveredError);
  if (keep < 0 || keep >= impl->capacity)
    throw std::logic_error("BatchPipeline::next keeps " + std::to_string(keep) +
                           " batches of " + std::to_string(impl->capacity) +
                           " slots");
  // The batches handed out before, but the last `keep`, are done with:
  // their slots may be refilled.
  if (impl->released < impl->nextToDeliver - keep) {
    impl->released = impl->nextToDeliver - keep;
    impl->changed.notify_all();
  }
  const int64_t batch = impl->nextToDeliver;
  if (batch == impl->numBatches)
    return nullptr;
  const size_t slot = size_t(batch % impl->capacity);
  if (impl->slotBatch[slot] != batch) {
    const auto start = std::chrono::steady_clock::now();
    impl->changed.wait(lock, [&] { return impl->slotBatch[slot] == batch; });
    waited +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  if (impl->slotError[slot]) {
    impl->deliveredError = impl->slotError[slot];
    std::rethrow_exception(impl->deliveredError);
  }
  ++impl->nextToDeliver;
  return &impl->slots[slot];
}

} // namespace gnnrt
