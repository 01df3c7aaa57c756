//===- Launch.h - Kernel launches on the host -------------------*- C++ -*-===//
//
// What `kernel<<<grid, block, shared, stream>>>(args...)` becomes in the
// emulated build. A host compiler has no <<<>>>, so CUDA sources launch
// through GNNRT_LAUNCH (gnnrt/kernels/cuda/Launch.h), which is <<<>>> under
// nvcc and gnnrt::cudaemu::launch here.
//
// The arguments are converted to the kernel's parameter types once, as a
// launch copies them to the device; each emulated thread then calls the
// kernel with its own copy. A launch runs to completion before it returns
// (blocks in order x, then y, then z). Launch errors (a bad configuration,
// a barrier or warp collective not every thread reaches, a kernel that
// throws) are reported through cudaGetLastError, never thrown, and stop the
// launch at the failing block. Kernels launched with
// GNNRT_LAUNCH_WITHOUT_BARRIERS skip the fibers: each thread is a plain call
// (LaunchConfig::withoutBarriers).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_LAUNCH_H
#define GNNRT_CUDAEMU_LAUNCH_H

#include "gnnrt/cudaemu/RuntimeApi.h"
#include "gnnrt/cudaemu/ThreadIndex.h"

#include <cstddef>
#include <functional>
#include <tuple>
#include <utility>

namespace gnnrt::cudaemu {

struct LaunchConfig {
  /// The kernel as written at the launch (for messages).
  const char *kernel;
  dim3 grid, block;
  size_t sharedBytes;
  cudaStream_t stream;
  /// Launched with GNNRT_LAUNCH_WITHOUT_BARRIERS: the kernel promises no
  /// __syncthreads, __syncwarp or warp collective, so each thread runs as
  /// a plain call on the launching thread's stack, one after another,
  /// with no fiber. A kernel that breaks the promise fails its launch
  /// with a message naming the call (its threads cannot be suspended).
  bool withoutBarriers = false;
};

/// The order in which a block's runnable threads run between barriers. A
/// kernel that reads shared memory another thread writes without a barrier
/// in between (a race) computes something else in each order, so running
/// a test in both flushes such races out as wrong values. Forward unless
/// the environment says GNNRT_CUDAEMU_THREAD_ORDER=reverse.
enum class ThreadOrder { Forward, Reverse };
void setThreadOrder(ThreadOrder order);
ThreadOrder threadOrder();

/// Runs `thread` once per thread of the grid, as the scheduler describes
/// above. Failures set the last CUDA error.
void runGrid(const LaunchConfig &config, const std::function<void()> &thread);

/// A launch of `kernel`, waiting for its arguments.
template <typename... Params> class KernelLaunch {
public:
  KernelLaunch(void (*kernel)(Params...), const LaunchConfig &config)
      : kernel(kernel), config(config) {}

  template <typename... Args> void operator()(Args &&...args) const {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "a kernel launch passes one argument per parameter");
    const std::tuple<std::decay_t<Params>...> params(
        std::forward<Args>(args)...);
    runGrid(config, [&] { std::apply(kernel, params); });
  }

private:
  void (*kernel)(Params...);
  LaunchConfig config;
};

template <typename... Params>
KernelLaunch<Params...> launch(const char *name, void (*kernel)(Params...),
                               dim3 grid, dim3 block, size_t sharedBytes = 0,
                               cudaStream_t stream = 0) {
  return KernelLaunch<Params...>(
      kernel, LaunchConfig{name, grid, block, sharedBytes, stream});
}

/// launch() of a kernel without barriers or warp collectives
/// (LaunchConfig::withoutBarriers).
template <typename... Params>
KernelLaunch<Params...>
launchWithoutBarriers(const char *name, void (*kernel)(Params...), dim3 grid,
                      dim3 block, size_t sharedBytes = 0,
                      cudaStream_t stream = 0) {
  return KernelLaunch<Params...>(
      kernel, LaunchConfig{name, grid, block, sharedBytes, stream, true});
}

} // namespace gnnrt::cudaemu

#endif // GNNRT_CUDAEMU_LAUNCH_H
