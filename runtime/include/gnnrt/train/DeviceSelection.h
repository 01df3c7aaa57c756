//===- DeviceSelection.h - which GPU each rank trains on --------*- C++ -*-===//
//
// One rank per GPU under mpirun or srun: each rank takes the device of its
// node-local rank (its rank among the ranks of its node,
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) modulo the node's device
// count, unless --device names one. No host files, no environment set by
// hand. More ranks than devices on a node share them round-robin.
//
// Only in the CUDA libraries (gnnrt_kernels_cuda and its emulated twin).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_DEVICESELECTION_H
#define GNNRT_TRAIN_DEVICESELECTION_H

#include "gnnrt/comm/Communicator.h"

#include <string>

namespace gnnrt {

/// A rank's device and where the choice came from.
struct DeviceChoice {
  int device = 0, deviceCount = 0;
  int localRank = 0, localRanks = 1;
  bool requested = false; ///< --device named it
};

/// The device for `requested` (--device N; -1: none given) among `count`
/// devices, for the rank `localRank` of its node: the pure rule.
int pickDevice(int requested, int localRank, int count);

/// Picks this rank's device (collective over `comm`: it groups the ranks by
/// node), makes it current, and prints the start-up line
/// `device: rank R of P: CUDA device D of N (node-local rank L of S)`
/// (`(--device; node-local ...)` when --device chose).
/// Throws DeviceError when there is no device or --device is out of range.
DeviceChoice selectDevice(int requested, Communicator &comm);

} // namespace gnnrt

#endif // GNNRT_TRAIN_DEVICESELECTION_H
