//===- EmitFunction.cpp - the CUDA target's hooks on FunctionEmitter ------===//
//
// An entry point for the device is the C++ target's function with its
// buffers on the device. The memory plan is laid out once per call, from
// the slots' sizes (each the largest value placed in it), in the one
// allocation of the DeviceWorkspace, which only allocates when a call
// needs more; values then take their slots:
//
//   kernels::cuda::DeviceWorkspace &ws = *ctx.deviceWorkspace;
//   ...
//   ws.plan({int64_t(sizeof(T)) * std::max<int64_t>({(16 * g.numDst), ...}),
//            ...});
//   // conv.gnn:13:31 <- gcn_cora.gnn:11:14
//   T *h = ws.get<T>(0, (16 * g.numDst));
//   kernels::cuda::gemm<T>(false, false, g.numDst, 16, features, x, c1_w, h);
//
// Copies, fills and gradient accumulation are gnnrt's device calls
// (gnnrt/kernels/cuda/Memory.h); the loss is the host scalar the CUDA
// cross-entropy returns.
//
//===----------------------------------------------------------------------===//

#include "CudaFunctionEmitter.h"

#include "gnn/Target/Common/RuntimeNames.h"

#include <map>

using namespace mlir;
using namespace gnn;
using namespace gnn::cuda;
namespace rt = gnn::target::rt;
using target::Storage;

const llvm::StringSet<> &CudaFunctionEmitter::reservedNames() {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> set = FunctionEmitter::reservedNames();
    // The generated kernels' parameters and locals.
    for (const char *reserved :
         {"t", "n", "acc", "degree", "srcOf", "dstOf", "inOffsets"})
      set.insert(reserved);
    for (int k = 0; k < 64; ++k)
      set.insert("dim" + std::to_string(k));
    return set;
  }();
  return names;
}

std::string CudaFunctionEmitter::kernelName(StringRef name) const {
  return rt::cudaKernel(name);
}

std::string
CudaFunctionEmitter::relationGraphStmt(const std::string &id,
                                       const std::string &graph,
                                       const std::string &relation) const {
  return ("const " + rt::graphView + " " + id + " = " + rt::ctx::relationGraph +
          "(" + graph + ", " + relation + ");\n")
      .str();
}

llvm::StringRef CudaFunctionEmitter::haloExchange() const {
  return rt::ctx::deviceHalo;
}

llvm::StringRef CudaFunctionEmitter::pairHaloExchange() const {
  return rt::ctx::devicePairHalo;
}

std::string CudaFunctionEmitter::copyStmt(const std::string &from,
                                          const std::string &count,
                                          const std::string &to) const {
  return rt::cuda::copy.str() + "<T>(" + from + ", " + count + ", " + to +
         ");\n";
}

std::string CudaFunctionEmitter::zeroStmt(const std::string &buffer,
                                          const std::string &begin,
                                          const std::string &end) const {
  return rt::cuda::zero.str() + "<T>(" + buffer + " + " + begin + ", " + end +
         " - " + begin + ");\n";
}

void CudaFunctionEmitter::emitWorkspaceBinding() {
  os << rt::cuda::deviceWorkspace << " &" << rt::local::workspace << " = *"
     << rt::cuda::ctxWorkspace << ";\n";
}

void CudaFunctionEmitter::emitAfterBindings() {
  // Each slot holds its largest value; sizes are the values' dims, which
  // mention only the locals bound above.
  std::map<int, SmallVector<std::string>> slots;
  for (Operation &op : fn.getBody())
    for (Value r : op.getResults())
      if (!isa<GraphType>(r.getType()) && fn.storage(r) == Storage::Slot) {
        SmallVector<std::string> &sizes = slots[fn.slot(r)];
        if (!llvm::is_contained(sizes, numel(r)))
          sizes.push_back(numel(r));
      }
  os << "// The memory plan: each slot's bytes, in one allocation.\n";
  SmallVector<std::string> bytes;
  for (auto &[slot, sizes] : slots) {
    // Slots are numbered densely; a gap (a planning bug) gets no bytes.
    while (int(bytes.size()) < slot)
      bytes.push_back("0");
    bytes.push_back("int64_t(sizeof(T)) * " +
                    (sizes.size() == 1 ? sizes.front()
                                       : "std::max<int64_t>({" +
                                             llvm::join(sizes, ", ") + "})"));
  }
  os << rt::local::workspace << "." << rt::cuda::workspacePlan << "({"
     << (bytes.empty() ? "" : "\n    " + llvm::join(bytes, ",\n    "))
     << "});\n";
}

std::string CudaFunctionEmitter::slotBuffer(Value v) {
  return (rt::local::workspace + ".get<T>(").str() +
         std::to_string(fn.slot(v)) + ", " + numel(v) + ")";
}

void CudaFunctionEmitter::emitAccumulate(Value g) {
  os << "  " << rt::cuda::accumulate << "<T>(" << name(g) << ", " << numel(g)
     << ", grad);\n";
}

void CudaFunctionEmitter::emitReturn(func::ReturnOp ret) {
  Value v = ret.getOperand(0);
  ArrayRef<std::string> buffered = fn.bufferedElements();
  os << rt::ctx::unplannedBytes << " = int64_t(sizeof(T)) * ("
     << (buffered.empty() ? "0" : llvm::join(buffered, " + ")) << ");\n";
  if (!fn.isTraining() && ret.getNumOperands() > 1) {
    // The rank factors, each read back whole into the host's vectors.
    for (auto [k, factor] : llvm::enumerate(ret.getOperands()))
      os << rt::cuda::readArray << "<T>(" << name(factor) << ", "
         << numel(factor) << ", " << rt::ctx::rankFactors << "[" << k
         << "]);\n";
    return;
  }
  if (!fn.isTraining()) {
    os << copyStmt(name(v), numel(v), rt::ctx::output.str());
    return;
  }
  // The CUDA cross-entropy returns the loss to the host; a loss computed
  // further on the device is read back.
  if (fn.storage(v) == Storage::Scalar)
    os << "return " << name(v) << "[0];\n";
  else
    os << "return " << rt::cuda::readScalar << "<T>(" << name(v) << ");\n";
}

LogicalResult CudaFunctionEmitter::emitInvariantSection() {
  // Device buffers come from one allocation laid out by the plan; nothing
  // outlives a call there yet, so gnnc --target=cuda does not hoist.
  return fn.invariantOps().front()->emitOpError(
      "is marked step-invariant (gnn-hoist-invariants), which the CUDA "
      "target does not support: build with hoist-invariants=false");
}
