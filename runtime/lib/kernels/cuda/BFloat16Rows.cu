//===- BFloat16Rows.cu - Rounding gathered rows to bf16 on a device -------===//
//
// The rounded copies BFloat16Rows.h hands to the gathers and GEMMs of a
// bf16 run: one grid-stride pass over the floats, into a scratch slot of
// the calling host thread.
//
//===----------------------------------------------------------------------===//

#include "BFloat16Rows.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda::detail {

namespace {

__global__ void roundToBFloat16Kernel(int64_t n, const float *src,
                                      BFloat16 *dst) {
  for (int64_t i = globalThread(); i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = roundToBFloat16(src[i]);
}

} // namespace

const BFloat16 *deviceBFloat16Rows(const float *rows, int64_t n, int slot) {
  if (slot < 0 || slot + 1 >= kScratchSlots)
    throw std::invalid_argument("deviceBFloat16Rows: no slot " +
                                std::to_string(slot));
  auto *copy = static_cast<BFloat16 *>(
      scratch(size_t(std::max<int64_t>(n, 1)) * sizeof(BFloat16), slot + 1));
  if (n > 0) {
    GNNRT_LAUNCH_WITHOUT_BARRIERS(generatedGrid(n), kGeneratedBlock, 0,
                                  stream(), roundToBFloat16Kernel)
    (n, rows, copy);
    checkLaunch("bf16 rounding");
  }
  return copy;
}

} // namespace gnnrt::kernels::cuda::detail
