//===- CudaFunctionEmitter.h - one entry point as CUDA host code -*- C++
//-*-===//
//
// Internal to the CUDA target. A CudaFunctionEmitter is the C++ target's
// FunctionEmitter (Target/Cpp/FunctionEmitter.h) with the hooks that make
// its output run on a device: buffers from a DeviceWorkspace laid out once
// per call from the memory plan, kernel calls in gnnrt::kernels::cuda,
// device copies and fills, and -- where the C++ target writes OpenMP loops
// -- generated `__global__` kernels (ElementwiseKernels.cpp), collected
// apart from the function so the translation unit can put them before it:
//   EmitFunction.cpp        the hooks: workspace, slots, copies, gradients,
//                           the return
//   ElementwiseKernels.cpp  kernels for elementwise ops, gnn.map,
//                           gnn.edge_map and gnn.matmul_map's epilogue
//   GemmEpilogue.cpp        matmul_map epilogues cuBLASLt fuses instead
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CUDA_CUDAFUNCTIONEMITTER_H
#define GNN_TARGET_CUDA_CUDAFUNCTIONEMITTER_H

#include "FunctionEmitter.h"

#include <string>

namespace gnn::cuda {

using cpp::LoopOperand;
using target::Dims;

/// How a generated kernel's rows relate to the graph.
enum class KernelRows {
  /// Rows of a dense tensor (gnn.map, an elementwise op, an epilogue).
  Dense,
  /// A row per edge: `e` is the row, `u` and `v` its endpoints.
  Edges,
  /// A row per destination `v`, reduced over its in-edges `e` (source `u`).
  InEdges,
};

/// One generated elementwise kernel: a grid-stride loop with one thread per
/// element of `out` (consecutive threads along a row, so the lanes of a
/// warp read consecutive features).
struct ElementwiseKernel {
  /// What it computes, for the comment above it.
  std::string what;
  Dims out;
  KernelRows rows = KernelRows::Dense;
  /// Operands `$k` of `body`: their buffers (host names), dims and row
  /// expression (LoopOperand).
  llvm::SmallVector<LoopOperand> inputs;
  /// Per input: a scalar on the host (a constant), passed by value.
  llvm::SmallVector<bool> hostScalars;
  /// Per-element code (fusedBodyCode) over `$k`; with InEdges it yields
  /// `yielded` per edge, else it writes the outputs itself at `@`.
  std::string body, yielded;
  /// The buffers it writes (each shaped `out`).
  llvm::SmallVector<std::string> outputs;
  /// InEdges: how per-edge values combine.
  ReduceKind reduce = ReduceKind::sum;
  /// The graph's row counts and CSR, host expressions (Edges, InEdges).
  std::string graph;
};

class CudaFunctionEmitter : public cpp::FunctionEmitter {
public:
  CudaFunctionEmitter(const target::PreparedFunction &fn,
                      const target::ParameterTable &params,
                      mlir::raw_indented_ostream &os, std::string kernelPrefix,
                      std::string &kernels)
      : FunctionEmitter(fn, params, os), kernelPrefix(std::move(kernelPrefix)),
        kernels(kernels) {}

  /// FunctionEmitter's names and the generated kernels' own.
  static const llvm::StringSet<> &reservedNames();

  std::string kernelName(llvm::StringRef name) const override;
  /// A rank's halo ops go through the exchange over device rows.
  llvm::StringRef haloExchange() const override;
  llvm::StringRef pairHaloExchange() const override;
  /// The device's copy of the relation's subgraph, which the device
  /// adapter built on the host (ctx.relationGraph).
  std::string relationGraphStmt(const std::string &id, const std::string &graph,
                                const std::string &relation) const override;
  std::string copyStmt(const std::string &from, const std::string &count,
                       const std::string &to) const override;
  std::string zeroStmt(const std::string &buffer, const std::string &begin,
                       const std::string &end) const override;

  /// Writes `kernel`'s definition to the kernels and its launch here.
  void emitKernel(const ElementwiseKernel &kernel);
  /// Writes `mm` as one kernels::cuda::gemmEpilogue call if cuBLASLt can
  /// fuse its epilogue (GemmEpilogue.cpp); false, writing nothing,
  /// otherwise.
  bool emitGemmEpilogue(MatmulMapOp mm);

protected:
  void emitWorkspaceBinding() override;
  void emitAfterBindings() override;
  mlir::LogicalResult emitInvariantSection() override;
  std::string slotBuffer(mlir::Value v) override;
  void emitAccumulate(mlir::Value g) override;
  mlir::LogicalResult emitElementwise(mlir::Operation *op) override;
  mlir::LogicalResult emitEdgeMap(EdgeMapOp op) override;
  mlir::LogicalResult emitMatmulMap(MatmulMapOp op) override;
  void emitReturn(mlir::func::ReturnOp ret) override;

private:
  /// Generated kernels are called `<kernelPrefix>_k<N>`.
  std::string kernelPrefix;
  int kernelCount = 0;
  /// Where kernel definitions go (before the entry points).
  std::string &kernels;
};

} // namespace gnn::cuda

#endif // GNN_TARGET_CUDA_CUDAFUNCTIONEMITTER_H
