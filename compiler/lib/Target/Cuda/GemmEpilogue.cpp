//===- GemmEpilogue.cpp - matmul_map epilogues cuBLASLt fuses -------------===//
//
// A gnn.matmul_map whose epilogue is what cuBLASLt computes inside its GEMM
// -- a same-shaped matrix added to the product, then a bias per column,
// then ReLU, each optional, in that order -- becomes one
// kernels::cuda::gemmEpilogue call instead of the GEMM and a generated
// epilogue kernel (a pass less over the result). GraphSAGE's layer:
//
//   %6 = gnn.matmul_map %x, %w_neigh (%self, %b) : (...) -> tensor<?x64xf32> {
//   ^bb0(%acc: tensor<f32>, %s: tensor<f32>, %bias: tensor<f32>):
//     %0 = gnn.add %s, %acc : tensor<f32>, tensor<f32> -> tensor<f32>
//     %1 = gnn.add %0, %bias : tensor<f32>, tensor<f32> -> tensor<f32>
//     %2 = gnn.relu %1 : tensor<f32>
//     gnn.yield %2 : tensor<f32>
//   }
//
// becomes
//
//   kernels::cuda::gemmEpilogue<T>(false, false, g.numDst, 64, features,
//                                  x, w_neigh, self, b, true, v6);
//
// The matrix must come before the bias (cuBLASLt adds it as beta * C,
// before the epilogue), so the sums keep the CPU's order.
//
//===----------------------------------------------------------------------===//

#include "CudaFunctionEmitter.h"

#include "gnn/Target/Common/Naming.h"
#include "gnn/Target/Common/RuntimeNames.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cuda;
namespace rt = gnn::target::rt;

namespace {

/// What cuBLASLt does after the product, as the epilogue's inputs.
struct LtEpilogue {
  Value addend, bias;
  bool relu = false;
};

/// `mm`'s epilogue as cuBLASLt's, if it is one.
std::optional<LtEpilogue> matchLtEpilogue(CudaFunctionEmitter &e,
                                          MatmulMapOp mm) {
  if (mm->getNumResults() != 1)
    return std::nullopt;
  Block &body = mm.getBody().front();
  const Dims &out = e.dims(mm->getResult(0));
  auto yield = cast<YieldOp>(body.getTerminator());
  Value v = yield->getOperand(0);
  LtEpilogue lt;
  if (auto relu = v.getDefiningOp<ReluOp>()) {
    lt.relu = true;
    v = relu->getOperand(0);
  }
  // The adds from the outermost in: each adds an epilogue input to the
  // chain that starts at the accumulator (block argument 0).
  SmallVector<Value> added;
  while (auto add = v.getDefiningOp<AddOp>()) {
    auto inputOf = [&](Value operand) -> Value {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &body || arg.getArgNumber() == 0)
        return nullptr;
      return mm.getEpilogueInputs()[arg.getArgNumber() - 1];
    };
    Value lhs = add->getOperand(0), rhs = add->getOperand(1);
    if (Value in = inputOf(rhs)) {
      added.push_back(in);
      v = lhs;
    } else if (Value in = inputOf(lhs)) {
      added.push_back(in);
      v = rhs;
    } else {
      return std::nullopt;
    }
  }
  auto acc = dyn_cast<BlockArgument>(v);
  if (!acc || acc.getOwner() != &body || acc.getArgNumber() != 0)
    return std::nullopt;
  // Outermost first: a bias may be the outermost add, a matrix the one
  // inside it (or the only one).
  for (size_t i = 0; i < added.size(); ++i) {
    const Dims &d = e.dims(added[i]);
    const bool bias = d.size() == 1 && out.size() == 2 && d[0] == out[1];
    const bool matrix = d == out;
    if (bias && i == 0 && !lt.bias)
      lt.bias = added[i];
    else if (matrix && !lt.addend)
      lt.addend = added[i];
    else
      return std::nullopt;
  }
  if (added.size() > 2 || (!lt.relu && !lt.bias && !lt.addend))
    return std::nullopt;
  return lt;
}

} // namespace

bool CudaFunctionEmitter::emitGemmEpilogue(MatmulMapOp mm) {
  std::optional<LtEpilogue> lt = matchLtEpilogue(*this, mm);
  if (!lt)
    return false;
  Value result = mm->getResult(0);
  std::string where = target::describeLocation(mm->getLoc());
  os << "// gnn.matmul_map" << (where.empty() ? "" : " at " + where)
     << ": the GEMM with its epilogue, fused by cuBLASLt\n";
  SmallVector<std::string> args = cpp::gemmArgs(*this, mm, dims(result));
  args.push_back(lt->addend ? name(lt->addend) : "nullptr");
  args.push_back(lt->bias ? name(lt->bias) : "nullptr");
  args.push_back(lt->relu ? "true" : "false");
  args.push_back(name(result));
  os << kernelStmt(rt::kernels::gemmEpilogue, args);
  return true;
}
