//===- Scheduler.cpp - Blocks of emulated threads on fibers ---------------===//
//
// runGrid runs the blocks of a launch one after another on the calling host
// thread. A block is a set of fibers, one per CUDA thread, and a scheduler
// loop: it resumes every runnable thread in thread order until the thread
// finishes or suspends at a barrier or warp collective, then releases what
// can be released (the lanes of a warp collective whose whole mask has
// arrived; the block, once every thread waits at the same __syncthreads).
// When nothing is runnable and nothing can be released, the block can
// never finish on a device either: the launch fails with a description of
// who waits where and who left, and the waiting threads are unwound (an
// exception thrown at their suspension point) so that no fiber is leaked.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Barrier.h"
#include "gnnrt/cudaemu/Launch.h"
#include "gnnrt/cudaemu/Warp.h"

#include "AsanFiber.h"
#include "Errors.h"
#include "FiberStacks.h"

#include <boost/context/fiber.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gnnrt::cudaemu {

thread_local const ThreadIndex *currentIndex = nullptr;

void builtinOutsideKernel() {
  std::fprintf(stderr, "cudaemu: threadIdx, blockIdx, blockDim or gridDim "
                       "read outside a kernel\n");
  std::abort();
}

namespace {

constexpr unsigned kWarp = 32;
/// Kernels are shallow, but instrumented frames carry redzones.
constexpr size_t kStackBytes = kAddressSanitizer ? (256u << 10) : (64u << 10);

/// Thrown at the suspension point of a waiting thread to unwind it when its
/// block fails.
struct AbortThread {};

enum class State { Ready, AtBarrier, AtWarp, Exited };

struct Site {
  const char *file = nullptr;
  int line = 0;
  bool operator==(const Site &o) const {
    return line == o.line && std::string(file) == o.file;
  }
  bool operator<(const Site &o) const {
    const int c = std::string(file).compare(o.file);
    return c < 0 || (c == 0 && line < o.line);
  }
};

std::string siteText(const Site &site) {
  std::string file = site.file ? site.file : "?";
  const size_t slash = file.rfind('/');
  if (slash != std::string::npos)
    file = file.substr(slash + 1);
  return file + ":" + std::to_string(site.line);
}

const char *opName(WarpOp op) {
  switch (op) {
  case WarpOp::Sync:
    return "__syncwarp";
  case WarpOp::Shfl:
    return "__shfl_sync";
  case WarpOp::ShflUp:
    return "__shfl_up_sync";
  case WarpOp::ShflDown:
    return "__shfl_down_sync";
  case WarpOp::ShflXor:
    return "__shfl_xor_sync";
  case WarpOp::Ballot:
    return "__ballot_sync";
  case WarpOp::Any:
    return "__any_sync";
  case WarpOp::All:
    return "__all_sync";
  }
  return "?";
}

std::string hexMask(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

/// "3, 5-9, 12" for ascending ids.
std::string idRanges(const std::vector<unsigned> &ids) {
  std::string text;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      ++j;
    if (!text.empty())
      text += ", ";
    text += std::to_string(ids[i]);
    if (j > i)
      text += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return text;
}

struct EmulatedThread {
  ThreadIndex index;
  unsigned linear = 0;
  boost::context::fiber fiber;
  boost::context::stack_context stack;
  void *fakeStack = nullptr;
  State state = State::Ready;
  bool abort = false;
  /// Where it waits (barrier or collective).
  Site site;
  /// The warp collective it waits in.
  WarpOp op = WarpOp::Sync;
  unsigned mask = 0;
  uint64_t value = 0, result = 0;
  int param = 0, width = 32;
};

class Block;
thread_local Block *currentBlock = nullptr;
thread_local EmulatedThread *currentThread = nullptr;

/// The threads of one block and the loop that schedules them.
class Block {
public:
  Block(const LaunchConfig &config, const std::function<void()> &body,
        StackPool &stacks)
      : config(config), body(body), stacks(stacks),
        threads(size_t(config.block.x) * config.block.y * config.block.z) {}

  /// Runs block `index` to its end; returns "" or why it failed.
  std::string run(uint3 index);
  /// On an emulated thread: hands control back to the scheduler until the
  /// thread is released (or unwound).
  void suspend(EmulatedThread &t);

private:
  void start(EmulatedThread &t);
  void resume(EmulatedThread &t);
  bool releaseWarps();
  bool releaseBarrier();
  void computeResults(unsigned first, unsigned lanes, unsigned mask);
  std::string describeStall() const;
  std::string where() const;
  std::string warpThreadText(unsigned first, unsigned lane) const;

  const LaunchConfig &config;
  const std::function<void()> &body;
  StackPool &stacks;
  std::vector<EmulatedThread> threads;
  uint3 blockIndex{0, 0, 0};
  /// The scheduler's context while a thread runs, and its stack for ASan.
  boost::context::fiber scheduler;
  StackBounds schedulerStack;
  void *schedulerFakeStack = nullptr;
  std::string failure;
};

std::string Block::where() const {
  const dim3 &g = config.grid;
  return "kernel '" + std::string(config.kernel) + "' block (" +
         std::to_string(blockIndex.x) + "," + std::to_string(blockIndex.y) +
         "," + std::to_string(blockIndex.z) + ") of (" + std::to_string(g.x) +
         "," + std::to_string(g.y) + "," + std::to_string(g.z) + ")";
}

std::string Block::warpThreadText(unsigned first, unsigned lane) const {
  return "lane " + std::to_string(lane) + " of warp " +
         std::to_string(first / kWarp) + " (thread " +
         std::to_string(first + lane) + ")";
}

void Block::start(EmulatedThread &t) {
  t.fiber = boost::context::fiber(
      std::allocator_arg, PooledStack(stacks, t.stack),
      [this, &t](boost::context::fiber &&from) {
        finishSwitch(nullptr, &schedulerStack);
        scheduler = std::move(from);
        try {
          if (!t.abort)
            body();
        } catch (const AbortThread &) {
        } catch (const std::exception &e) {
          if (failure.empty())
            failure = where() + ": thread " + std::to_string(t.linear) +
                      " threw: " + e.what();
        } catch (...) {
          if (failure.empty())
            failure = where() + ": thread " + std::to_string(t.linear) +
                      " threw an exception";
        }
        t.state = State::Exited;
        startSwitch(nullptr, schedulerStack);
        return std::move(scheduler);
      });
}

void Block::resume(EmulatedThread &t) {
  currentBlock = this;
  currentThread = &t;
  currentIndex = &t.index;
  startSwitch(&schedulerFakeStack,
              {static_cast<char *>(t.stack.sp) - t.stack.size, t.stack.size});
  t.fiber = std::move(t.fiber).resume();
  finishSwitch(schedulerFakeStack, nullptr);
  currentIndex = nullptr;
  currentThread = nullptr;
  currentBlock = nullptr;
}

void Block::suspend(EmulatedThread &t) {
  startSwitch(&t.fakeStack, schedulerStack);
  scheduler = std::move(scheduler).resume();
  finishSwitch(t.fakeStack, &schedulerStack);
  if (t.abort)
    throw AbortThread();
}

std::string Block::run(uint3 index) {
  blockIndex = index;
  failure.clear();
  const dim3 &b = config.block;
  for (unsigned i = 0; i < threads.size(); ++i) {
    EmulatedThread &t = threads[i];
    t.linear = i;
    t.index = {
        {i % b.x, i / b.x % b.y, i / (b.x * b.y)}, index, b, config.grid};
    t.state = State::Ready;
    t.abort = false;
    start(t);
  }
  const bool reverse = threadOrder() == ThreadOrder::Reverse;
  for (;;) {
    for (size_t i = 0; i < threads.size(); ++i) {
      EmulatedThread &t = threads[reverse ? threads.size() - 1 - i : i];
      if (t.state == State::Ready && failure.empty())
        resume(t);
    }
    if (!failure.empty())
      break;
    if (releaseWarps())
      continue;
    if (!failure.empty())
      break;
    if (std::all_of(threads.begin(), threads.end(),
                    [](const auto &t) { return t.state == State::Exited; }))
      break;
    if (releaseBarrier())
      continue;
    if (failure.empty())
      failure = describeStall();
    break;
  }
  if (!failure.empty()) {
    // Unwind every thread that has not finished (those never started skip
    // the kernel), so that each fiber ends through its own entry function.
    for (EmulatedThread &t : threads)
      if (t.state != State::Exited) {
        t.abort = true;
        resume(t);
      }
  }
  return failure;
}

void Block::computeResults(unsigned first, unsigned lanes, unsigned mask) {
  const EmulatedThread &leader = threads[first + unsigned(__builtin_ctz(mask))];
  const WarpOp op = leader.op;
  uint64_t ballot = 0;
  for (unsigned lane = 0; lane < lanes; ++lane)
    if ((mask >> lane & 1) && threads[first + lane].value != 0)
      ballot |= uint64_t(1) << lane;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    EmulatedThread &t = threads[first + lane];
    const unsigned width = unsigned(t.width);
    const unsigned section = lane & ~(width - 1);
    const unsigned param = unsigned(t.param);
    unsigned source = lane;
    switch (op) {
    case WarpOp::Sync:
      t.result = 0;
      continue;
    case WarpOp::Ballot:
      t.result = ballot;
      continue;
    case WarpOp::Any:
      t.result = ballot != 0;
      continue;
    case WarpOp::All:
      t.result = ballot == (mask & (lanes == 32 ? ~0u : (1u << lanes) - 1));
      continue;
    case WarpOp::Shfl:
      source = section + (param & (width - 1));
      break;
    case WarpOp::ShflUp:
      source = lane - section >= param ? lane - param : lane;
      break;
    case WarpOp::ShflDown:
      source = lane - section + param < width ? lane + param : lane;
      break;
    case WarpOp::ShflXor:
      source = lane ^ param;
      if (source >= section + width)
        source = lane; // later sections are out of reach
      break;
    }
    if (source >= lanes || !(mask >> source & 1)) {
      failure = where() + ": " + opName(op) + " at " + siteText(t.site) + ": " +
                warpThreadText(first, lane) + " reads lane " +
                std::to_string(source) + ", which is not in the mask " +
                hexMask(mask) + " (its value is undefined on a device)";
      return;
    }
    t.result = threads[first + source].value;
  }
}

bool Block::releaseWarps() {
  bool released = false;
  const unsigned n = unsigned(threads.size());
  for (unsigned first = 0; first < n; first += kWarp) {
    const unsigned lanes = std::min(kWarp, n - first);
    // Lanes whose collective was examined already (with another lane of
    // its mask): each group of lanes is checked once per pass.
    unsigned examined = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      EmulatedThread &t = threads[first + lane];
      if (t.state != State::AtWarp || (examined >> lane & 1))
        continue;
      const unsigned mask = t.mask;
      examined |= mask;
      // Built only for a message: this loop runs once per collective.
      auto call = [&] {
        return std::string(opName(t.op)) + " at " + siteText(t.site) +
               " with mask " + hexMask(mask);
      };
      if (!(mask >> lane & 1)) {
        failure = where() + ": " + warpThreadText(first, lane) + " calls " +
                  call() + ", which leaves out the calling lane";
        return false;
      }
      if (lanes < kWarp && (mask >> lanes) != 0) {
        failure = where() + ": " + call() + " names lanes beyond the " +
                  std::to_string(lanes) + " threads of warp " +
                  std::to_string(first / kWarp);
        return false;
      }
      if (t.width < 1 || t.width > int(kWarp) || (t.width & (t.width - 1))) {
        failure = where() + ": " + call() + " has width " +
                  std::to_string(t.width) +
                  " (a power of two from 1 to 32 is required)";
        return false;
      }
      bool arrived = true;
      for (unsigned other = 0; other < lanes; ++other) {
        if (!(mask >> other & 1))
          continue;
        const EmulatedThread &o = threads[first + other];
        if (o.state == State::Exited) {
          failure = where() + ": " + call() + " waits for " +
                    warpThreadText(first, other) +
                    ", which exited without reaching it";
          return false;
        }
        if (o.state != State::AtWarp) {
          arrived = false;
          continue;
        }
        if (o.op != t.op || o.mask != t.mask || o.width != t.width) {
          failure = where() + ": lanes " + std::to_string(lane) + " and " +
                    std::to_string(other) + " of warp " +
                    std::to_string(first / kWarp) +
                    " meet in different warp collectives: " + call() + " and " +
                    opName(o.op) + " at " + siteText(o.site) + " with mask " +
                    hexMask(o.mask);
          return false;
        }
      }
      if (!arrived)
        continue;
      computeResults(first, lanes, mask);
      if (!failure.empty())
        return false;
      for (unsigned other = 0; other < lanes; ++other)
        if (mask >> other & 1)
          threads[first + other].state = State::Ready;
      released = true;
    }
  }
  return released;
}

bool Block::releaseBarrier() {
  for (const EmulatedThread &t : threads)
    if (t.state != State::AtBarrier)
      return false;
  std::map<Site, std::vector<unsigned>> sites;
  for (const EmulatedThread &t : threads)
    sites[t.site].push_back(t.linear);
  if (sites.size() > 1) {
    failure = where() + ": its threads wait at different __syncthreads():";
    for (const auto &[site, ids] : sites)
      failure += " " + siteText(site) + " (threads " + idRanges(ids) + ")";
    return false;
  }
  for (EmulatedThread &t : threads)
    t.state = State::Ready;
  return true;
}

std::string Block::describeStall() const {
  std::map<Site, std::vector<unsigned>> atBarrier, atWarp;
  std::vector<unsigned> exited;
  for (const EmulatedThread &t : threads) {
    if (t.state == State::AtBarrier)
      atBarrier[t.site].push_back(t.linear);
    else if (t.state == State::AtWarp)
      atWarp[t.site].push_back(t.linear);
    else if (t.state == State::Exited)
      exited.push_back(t.linear);
  }
  const std::string total = std::to_string(threads.size());
  if (atWarp.empty() && atBarrier.size() == 1) {
    const auto &[site, ids] = *atBarrier.begin();
    return where() + ": __syncthreads() at " + siteText(site) + " reached by " +
           std::to_string(ids.size()) + " of " + total + " threads; threads " +
           idRanges(exited) + " exited without reaching it";
  }
  std::string text = where() + ": no thread can continue:";
  for (const auto &[site, ids] : atBarrier)
    text += " threads " + idRanges(ids) + " wait at __syncthreads() at " +
            siteText(site) + ";";
  for (const auto &[site, ids] : atWarp)
    text += " threads " + idRanges(ids) + " wait at " +
            opName(threads[ids.front()].op) + " at " + siteText(site) +
            " with mask " + hexMask(threads[ids.front()].mask) + ";";
  if (!exited.empty())
    text += " threads " + idRanges(exited) + " exited;";
  text.pop_back();
  return text;
}

/// Set while a kernel launched without barriers runs its threads as plain
/// calls (runPlainBlock).
thread_local bool onPlainThread = false;

/// Thrown by a barrier or warp collective called on a plain thread: it
/// cannot wait for the others, so the launch fails with this message.
struct BarrierWithoutFibers {
  std::string what;
};

EmulatedThread &runningThread(const char *what, const char *file = nullptr,
                              int line = 0) {
  if (!currentThread && onPlainThread)
    throw BarrierWithoutFibers{std::string(what) + " at " +
                               siteText({file, line})};
  if (!currentThread) {
    std::fprintf(stderr, "cudaemu: %s called outside a kernel\n", what);
    std::abort();
  }
  return *currentThread;
}

std::string dimText(const dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

/// Runs block `index` of a kernel launched without barriers: each thread a
/// plain call on this stack, in thread order. Returns "" or why it failed.
std::string runPlainBlock(const LaunchConfig &config,
                          const std::function<void()> &body, uint3 index) {
  const dim3 &b = config.block;
  const unsigned count = b.x * b.y * b.z;
  const bool reverse = threadOrder() == ThreadOrder::Reverse;
  auto where = [&] {
    return "kernel '" + std::string(config.kernel) + "' block (" +
           std::to_string(index.x) + "," + std::to_string(index.y) + "," +
           std::to_string(index.z) + ")";
  };
  ThreadIndex thread{};
  std::string failure;
  onPlainThread = true;
  currentIndex = &thread;
  for (unsigned n = 0; n < count && failure.empty(); ++n) {
    const unsigned i = reverse ? count - 1 - n : n;
    thread = ThreadIndex{
        {i % b.x, i / b.x % b.y, i / (b.x * b.y)}, index, b, config.grid};
    try {
      body();
    } catch (const BarrierWithoutFibers &barrier) {
      failure = where() + ": thread " + std::to_string(i) + " reached " +
                barrier.what +
                ", but the kernel was launched without barriers "
                "(GNNRT_LAUNCH_WITHOUT_BARRIERS): launch it with GNNRT_LAUNCH";
    } catch (const std::exception &e) {
      failure =
          where() + ": thread " + std::to_string(i) + " threw: " + e.what();
    } catch (...) {
      failure =
          where() + ": thread " + std::to_string(i) + " threw an exception";
    }
  }
  currentIndex = nullptr;
  onPlainThread = false;
  return failure;
}

/// "" if CUDA would accept this launch configuration, else why not.
std::string checkConfig(const LaunchConfig &config) {
  const dim3 &b = config.block, &g = config.grid;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 ||
      b.z > 64 || threads > 1024)
    return "block " + dimText(b) +
           " (at most (1024,1024,64) and 1024 threads, none 0)";
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 ||
      g.z > 65535)
    return "grid " + dimText(g) + " (at most (2^31-1,65535,65535), none 0)";
  return "";
}

} // namespace

void syncThreads(const char *file, int line) {
  EmulatedThread &t = runningThread("__syncthreads()", file, line);
  t.state = State::AtBarrier;
  t.site = {file, line};
  currentBlock->suspend(t);
}

uint64_t warpCollective(WarpOp op, unsigned mask, uint64_t value, int param,
                        int width, const char *file, int line) {
  EmulatedThread &t = runningThread(opName(op), file, line);
  t.state = State::AtWarp;
  t.site = {file, line};
  t.op = op;
  t.mask = mask;
  t.value = value;
  t.param = param;
  t.width = width;
  currentBlock->suspend(t);
  return t.result;
}

void syncWarp(const char *file, int line, unsigned mask) {
  warpCollective(WarpOp::Sync, mask, 0, 0, 32, file, line);
}

namespace {
std::atomic<ThreadOrder> &orderSetting() {
  static std::atomic<ThreadOrder> order{[] {
    const char *text = std::getenv("GNNRT_CUDAEMU_THREAD_ORDER");
    return text && std::string(text) == "reverse" ? ThreadOrder::Reverse
                                                  : ThreadOrder::Forward;
  }()};
  return order;
}
} // namespace

void setThreadOrder(ThreadOrder order) { orderSetting() = order; }
ThreadOrder threadOrder() { return orderSetting(); }

void runGrid(const LaunchConfig &config, const std::function<void()> &thread) {
  const std::string kernel = "kernel '" + std::string(config.kernel) + "'";
  if (currentThread || onPlainThread) {
    fail(cudaErrorNotSupported,
         kernel + " launched from a kernel: dynamic parallelism is not "
                  "emulated");
    return;
  }
  if (stickyError())
    return;
  const std::string badConfig = checkConfig(config);
  if (!badConfig.empty()) {
    fail(cudaErrorInvalidConfiguration, kernel + ": " + badConfig);
    return;
  }
  if (config.sharedBytes != 0) {
    fail(cudaErrorNotSupported, kernel + ": dynamic shared memory (" +
                                    std::to_string(config.sharedBytes) +
                                    " bytes) is not emulated");
    return;
  }
  if (!isValidStream(config.stream)) {
    fail(cudaErrorInvalidResourceHandle,
         kernel + ": the stream was destroyed or never created");
    return;
  }
  if (config.withoutBarriers) {
    for (unsigned z = 0; z < config.grid.z; ++z)
      for (unsigned y = 0; y < config.grid.y; ++y)
        for (unsigned x = 0; x < config.grid.x; ++x) {
          const std::string failure = runPlainBlock(config, thread, {x, y, z});
          if (!failure.empty()) {
            fail(cudaErrorLaunchFailure, failure);
            return;
          }
        }
    return;
  }
  thread_local StackPool stacks(kStackBytes);
  Block block(config, thread, stacks);
  for (unsigned z = 0; z < config.grid.z; ++z)
    for (unsigned y = 0; y < config.grid.y; ++y)
      for (unsigned x = 0; x < config.grid.x; ++x) {
        const std::string failure = block.run({x, y, z});
        if (!failure.empty()) {
          fail(cudaErrorLaunchFailure, failure);
          return;
        }
      }
}

} // namespace gnnrt::cudaemu
