//===- EmitCuda.h - gnn dialect to CUDA -------------------------*- C++ -*-===//
//
// Translates a module holding `@<Model>.forward` and `@<Model>.train_step`
// (after gnnc's pipeline) into one CUDA translation unit: each entry point
// becomes a host function template over the scalar type whose buffers are
// device memory laid out by the memory plan in one DeviceWorkspace; fused
// elementwise code (gnn.map, gnn.edge_map, gnn.matmul_map's epilogue)
// becomes generated `__global__` kernels; everything else calls gnnrt's
// CUDA kernels (gnnrt::kernels::cuda). `main` installs the entry points
// with gnnrt::installDeviceEntryPoints and hands the program to
// gnnrt::trainMain. The same text builds under nvcc and, for tests, with
// the host compiler over the emulation layer (docs/cuda-emulation.md).
// Shapes, names and the memory plan come from Target/Common, the frame of
// the translation unit and the kernel-call families from Target/Cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CUDA_EMITCUDA_H
#define GNN_TARGET_CUDA_EMITCUDA_H

#include "gnn/Target/Cpp/EmitCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace gnn::cuda {

/// Emits the CUDA trainer of the module's (first) model. Reports problems
/// as diagnostics on the offending op (an op the CUDA target has no code
/// for) and fails.
mlir::LogicalResult emitCuda(mlir::ModuleOp module, llvm::raw_ostream &os,
                             const cpp::EmitOptions &options);

/// Registers the `--gnn-to-cuda` translation (emitCuda) for gnn-translate;
/// `--gnn-source-file` (registered by the C++ translation) names the .gnn
/// file.
void registerToCudaTranslation();

} // namespace gnn::cuda

#endif // GNN_TARGET_CUDA_EMITCUDA_H
