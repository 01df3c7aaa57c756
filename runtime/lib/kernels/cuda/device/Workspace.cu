//===- Workspace.cu - Device memory for gnnc's memory plan ----------------===//
//
// See gnnrt/kernels/cuda/Workspace.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Workspace.h"

#include "cuda/Common.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda {

namespace {
/// Slots start on this boundary: any element type, fully coalesced.
constexpr int64_t kSlotAlignment = 256;
} // namespace

DeviceWorkspace::~DeviceWorkspace() { cudaFree(base); }

void DeviceWorkspace::plan(const std::vector<int64_t> &slotBytes) {
  offsets.clear();
  sizes.clear();
  int64_t total = 0;
  for (size_t slot = 0; slot < slotBytes.size(); ++slot) {
    if (slotBytes[slot] < 0)
      throw std::invalid_argument("DeviceWorkspace: slot " +
                                  std::to_string(slot) + " has " +
                                  std::to_string(slotBytes[slot]) + " bytes");
    offsets.push_back(total);
    sizes.push_back(slotBytes[slot]);
    total += (slotBytes[slot] + kSlotAlignment - 1) / kSlotAlignment *
             kSlotAlignment;
  }
  if (total <= capacity)
    return;
  detail::check(cudaDeviceSynchronize(), "workspace reallocation");
  detail::check(cudaFree(base), "workspace reallocation");
  base = nullptr;
  capacity = 0;
  detail::check(cudaMalloc(&base, size_t(total)), "workspace allocation");
  capacity = total;
  ++allocationCount;
}

void *DeviceWorkspace::slotPointer(int slot, int64_t bytes) const {
  if (slot < 0 || size_t(slot) >= sizes.size() || bytes > sizes[size_t(slot)])
    throw std::out_of_range(
        "DeviceWorkspace: slot " + std::to_string(slot) + " of " +
        std::to_string(bytes) + " bytes, but the plan has " +
        (slot >= 0 && size_t(slot) < sizes.size()
             ? std::to_string(sizes[size_t(slot)]) + " bytes for it"
             : std::to_string(sizes.size()) + " slots"));
  return base + offsets[size_t(slot)];
}

} // namespace gnnrt::kernels::cuda
