//===- EmitMatmul.cpp - gnn.matmul and gnn.matmul_map ---------------------===//
//
// A product is one call of the runtime's blocked GEMM, transposes passed as
// flags (no transposed copy is made):
//
//   %y = gnn.matmul %x, %w : tensor<?x1433xf32>, tensor<1433x16xf32> -> ...
//   // kernels::gemm<T>(false, false, g.numDst, 16, 1433, x, w, y);
//
// A gnn.matmul_map (gnn-fuse-gemm-epilogue) passes the GEMM an epilogue: a
// lambda over a block of rows [r0, r1) that the kernel calls on each block
// while it is in cache. The lambda is the map's loop nest restricted to the
// block, sequential, since each block is already one thread's:
//
//   kernels::gemm<T>(false, false, g.numDst, 16, features, x, w, t, false,
//                    [&](int64_t r0, int64_t r1) {
//     for (int64_t i0 = r0; i0 < r1; ++i0) {
//       #pragma omp simd
//       for (int64_t i1 = 0; i1 < 16; ++i1) {
//         const T a0 = t[i1 + i0 * 16];
//         const T a1 = norm[i0];
//         ...
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;

namespace {

template <typename Op>
SmallVector<std::string> gemmArgsOf(FunctionEmitter &e, Op op,
                                    const Dims &out) {
  const Dims &a = e.dims(op.getLhs());
  return {cppBool(op.getTransposeLhs()),
          cppBool(op.getTransposeRhs()),
          out[0],
          out[1],
          op.getTransposeLhs() ? a[0] : a[1],
          e.name(op.getLhs()),
          e.name(op.getRhs())};
}

} // namespace

SmallVector<std::string> gnn::cpp::gemmArgs(FunctionEmitter &e, Operation *op,
                                            const Dims &out) {
  if (auto mm = dyn_cast<MatmulMapOp>(op))
    return gemmArgsOf(e, mm, out);
  return gemmArgsOf(e, cast<MatmulOp>(op), out);
}

LogicalResult gnn::cpp::emitMatmulMapLoop(FunctionEmitter &e, MatmulMapOp mm) {
  SmallVector<Value> results(mm->getResults());
  const Dims &out = e.dims(results.front());
  SmallVector<std::string> yielded;
  std::string code = fusedBodyCode(mm, yielded);
  for (auto [res, value] : llvm::zip(results, yielded))
    code += e.name(res) + "[@] = " + value + ";\n";
  // The accumulator is the first result's buffer, which GEMM fills.
  SmallVector<LoopOperand> operands{{e.name(results.front()), out, ""}};
  for (Value in : mm.getEpilogueInputs())
    operands.push_back({e.name(in), e.dims(in), ""});
  SmallVector<std::string> args = gemmArgs(e, mm, out);
  args.push_back(e.name(results.front()));
  args.push_back("false");
  e.os << e.kernelName(rt::kernels::gemm) << "<T>(" << llvm::join(args, ", ")
       << ", [&](int64_t r0, int64_t r1) {\n";
  e.os.indent();
  LoopNest loop;
  loop.rowBegin = "r0";
  loop.rowEnd = "r1";
  loop.parallel = false; // each row block is already one thread's
  e.emitLoop(out, operands, code, loop);
  e.os.unindent();
  e.os << "});\n";
  return success();
}

LogicalResult gnn::cpp::emitMatmulOp(FunctionEmitter &e, Operation *op) {
  auto m = dyn_cast<MatmulOp>(op);
  if (!m)
    return unsupported(op);
  SmallVector<std::string> args = gemmArgs(e, m, e.dims(m->getResult(0)));
  args.push_back(e.name(m->getResult(0)));
  e.os << e.kernelStmt(rt::kernels::gemm, args);
  return success();
}
