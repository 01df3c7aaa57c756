//===- DeviceSelection.cu - which GPU each rank trains on -----------------===//
//
// See gnnrt/train/DeviceSelection.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/DeviceSelection.h"

#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <cstdio>

namespace gnnrt {

int pickDevice(int requested, int localRank, int count) {
  if (requested >= 0)
    return requested;
  return count > 0 ? localRank % count : 0;
}

DeviceChoice selectDevice(int requested, Communicator &comm) {
  DeviceChoice choice;
  // Every rank groups itself with its node before any can fail, so that
  // no rank waits in the split for one that threw.
  const std::unique_ptr<Communicator> node = comm.splitByNode();
  choice.localRank = node->rank();
  choice.localRanks = node->size();
  if (cudaGetDeviceCount(&choice.deviceCount) != cudaSuccess ||
      choice.deviceCount == 0)
    throw DeviceError("this trainer was built with gnnc --target=cuda, and "
                      "no CUDA device is available (build it with "
                      "--cuda-emulate to run on the CPU)");
  choice.requested = requested >= 0;
  choice.device = pickDevice(requested, choice.localRank, choice.deviceCount);
  if (choice.device >= choice.deviceCount)
    throw DeviceError("--device " + std::to_string(choice.device) + ": only " +
                      std::to_string(choice.deviceCount) + " CUDA device" +
                      (choice.deviceCount == 1 ? " is" : "s are") +
                      " available");
  const cudaError_t status = cudaSetDevice(choice.device);
  if (status != cudaSuccess)
    throw DeviceError("CUDA selection of device " +
                      std::to_string(choice.device) + ": " +
                      cudaGetErrorString(status));
  std::printf("device: rank %d of %d: CUDA device %d of %d (%snode-local "
              "rank %d of %d)\n",
              comm.rank(), comm.size(), choice.device, choice.deviceCount,
              choice.requested ? "--device; " : "", choice.localRank,
              choice.localRanks);
  std::fflush(stdout);
  return choice;
}

} // namespace gnnrt
