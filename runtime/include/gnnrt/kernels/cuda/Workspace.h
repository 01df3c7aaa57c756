//===- Workspace.h - Device memory for gnnc's memory plan -------*- C++ -*-===//
//
// The device counterpart of gnnrt::Workspace (train/Program.h): scratch
// buffers numbered by the slots of gnnc's memory plan. Where the host
// workspace grows slot by slot, a device allocation is too slow to make per
// step, so the plan's slot sizes are given up front and carved out of one
// cudaMalloc, each slot on a 256-byte boundary (full coalescing for any
// element type). A larger plan (a bigger sampled batch) reallocates once;
// an equal or smaller one reuses the allocation.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_WORKSPACE_H
#define GNNRT_KERNELS_CUDA_WORKSPACE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gnnrt::kernels::cuda {

class DeviceWorkspace {
public:
  DeviceWorkspace() = default;
  ~DeviceWorkspace();
  DeviceWorkspace(const DeviceWorkspace &) = delete;
  DeviceWorkspace &operator=(const DeviceWorkspace &) = delete;

  /// Lays the slots out with slotBytes[i] bytes for slot i. Allocates only
  /// if they need more than the current allocation. Throws DeviceError if
  /// the allocation fails, std::invalid_argument for a negative size.
  void plan(const std::vector<int64_t> &slotBytes);

  /// Slot `slot` as `elements` values of T. Throws std::out_of_range if
  /// the plan has no such slot or gave it fewer bytes (a planning bug,
  /// never a reason to allocate mid-step).
  template <typename T> T *get(int slot, int64_t elements) {
    return static_cast<T *>(slotPointer(slot, elements * int64_t(sizeof(T))));
  }

  /// Bytes of the current allocation.
  int64_t bytes() const { return capacity; }
  /// cudaMalloc calls made so far.
  int64_t allocations() const { return allocationCount; }

private:
  void *slotPointer(int slot, int64_t bytes) const;

  char *base = nullptr;
  int64_t capacity = 0, allocationCount = 0;
  std::vector<int64_t> offsets, sizes;
};

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_WORKSPACE_H
