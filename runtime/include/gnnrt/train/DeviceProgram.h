//===- DeviceProgram.h - Entry points that run on a CUDA device -*- C++ -*-===//
//
// `gnnc --target=cuda` compiles a train block into entry points over device
// memory (every pointer of their ExecContext on the device, the memory plan
// in ExecContext::deviceWorkspace). The generated main installs them here,
// and the CompiledProgram it hands to trainMain then carries host-contract
// adapters in place of the CPU's entry points, so the trainer -- its
// schedules, optimizer, checkpoints, predictions, gradient check -- runs a
// CUDA program exactly as it runs a CPU one.
//
// What stays on the device: the graph, features, labels, masks and ids of a
// full-graph context are copied once, on the first call that sees them (a
// full-graph context points at the same arrays for the whole run); sampled
// batches (ExecContext::blocks) are copied per call into buffers that only
// grow, or, staged by CompiledProgram::stageBatch, asynchronously while the
// step before runs; the memory plan is one DeviceWorkspace allocation, laid
// out again per call (allocating only when a plan needs more). While the
// trainer's device residence is active (CompiledProgram::
// makeDeviceResidence, one process), the float32 entry points train the
// resident parameters and gradients in place and only the loss crosses;
// otherwise (float64 gradient checks, --eval-only, several ranks) each call
// copies the host's parameters in, and the gradients both ways, since
// trainStep accumulates into the caller's.
// A rank of a distributed run gets its halo exchange mirrored on the device
// once (ctx.deviceHalo, gnnrt/comm/DeviceHaloExchange.h), and its
// collectives run on the communicator useDevice returned (NCCL).
//
// Only in the CUDA libraries (gnnrt_kernels_cuda, and
// gnnrt_kernels_cuda_emulated over the emulation layer): CPU trainers do
// not link it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_DEVICEPROGRAM_H
#define GNNRT_TRAIN_DEVICEPROGRAM_H

#include "gnnrt/train/Program.h"

namespace gnnrt {

/// A program's entry points over device memory.
struct DeviceEntryPoints {
  void (*forwardF32)(ExecContext<float> &) = nullptr;
  float (*trainStepF32)(ExecContext<float> &) = nullptr;
  void (*forwardF64)(ExecContext<double> &) = nullptr;
  double (*trainStepF64)(ExecContext<double> &) = nullptr;
  /// A trilinear or dot score's factors (CompiledProgram::rankFactorsF32),
  /// read back into the context's host vectors; null when it has none.
  void (*rankFactorsF32)(ExecContext<float> &) = nullptr;
};

/// Sets `program`'s entry points (rankFactorsF32 too, when `device` has it)
/// to adapters that run `device`'s on the CUDA device, and program.useDevice, deviceWorkspaceBytes,
/// makeDeviceResidence, deviceTransfers and (sampled programs) stageBatch.
/// Call after program.params and program.numBlocks are set; one program
/// per process.
void installDeviceEntryPoints(CompiledProgram &program,
                              const DeviceEntryPoints &device);

} // namespace gnnrt

#endif // GNNRT_TRAIN_DEVICEPROGRAM_H
