//===- EmitElementwise.cpp - elementwise ops and gnn.map ------------------===//
//
// An elementwise op is one C++ expression over its operands' elements; the
// op alone becomes a loop nest over its result (LoopNest.cpp), and a
// gnn.map (a chain fused by gnn-fuse-elementwise) one loop whose body
// evaluates the region on scalars, so intermediates stay in registers:
//
//   %r:2 = gnn.map %h, %b : tensor<?x16xf32>, tensor<16xf32> {
//   ^bb0(%a: f32, %c: f32):
//     %s = gnn.add %a, %c : f32, f32 -> f32
//     %y = gnn.relu %s : f32 -> f32
//     gnn.yield %s, %y : f32, f32
//   } -> tensor<?x16xf32>, tensor<?x16xf32>
//
// becomes (operands index with stride 0 along the dims they broadcast over)
//
//   #pragma omp parallel for schedule(dynamic, 64) if ((16 * g.numDst) > 16384)
//   for (int64_t i0 = 0; i0 < g.numDst; ++i0) {
//     #pragma omp simd
//     for (int64_t i1 = 0; i1 < 16; ++i1) {
//       const T a0 = h[i1 + i0 * 16];
//       const T a1 = b[i1];
//       const T v0 = a0 + a1;
//       const T v1 = std::max(v0, T(0));
//       s[(i0) * 16 + i1] = v0;
//       y[(i0) * 16 + i1] = v1;
//     }
//   }
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

#include "Unit/EmitSettings.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;

std::string gnn::cpp::elementwiseExpression(Operation *op) {
  auto alpha = [](std::optional<double> a) {
    return "T(" + cppDouble(a.value_or(0.0)) + ")";
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<AddOp>([](auto) { return "$0 + $1"; })
      .Case<SubOp>([](auto) { return "$0 - $1"; })
      .Case<MulOp>([](auto) { return "$0 * $1"; })
      .Case<DivOp>([](auto) { return "$0 / $1"; })
      .Case<MaximumOp>([](auto) { return "std::max($0, $1)"; })
      .Case<NegOp>([](auto) { return "-$0"; })
      .Case<ExpOp>([](auto) { return "std::exp($0)"; })
      .Case<LogOp>([](auto) { return "std::log($0)"; })
      .Case<SqrtOp>([](auto) { return "std::sqrt($0)"; })
      .Case<RsqrtOp>([](auto) { return "T(1) / std::sqrt($0)"; })
      .Case<ReluOp>([](auto) { return "std::max($0, T(0))"; })
      .Case<SigmoidOp>([](auto) { return "T(1) / (T(1) + std::exp(-$0))"; })
      .Case<TanhOp>([](auto) { return "std::tanh($0)"; })
      .Case<AbsOp>([](auto) { return "std::abs($0)"; })
      .Case<LeakyReluOp>([&](LeakyReluOp o) {
        return "($0 > T(0) ? $0 : " + alpha(o.getAlpha().convertToDouble()) +
               " * $0)";
      })
      .Case<EluOp>([&](EluOp o) {
        return "($0 > T(0) ? $0 : " + alpha(o.getAlpha().convertToDouble()) +
               " * (std::exp($0) - T(1)))";
      })
      .Case<MaximumGradOp>([](MaximumGradOp o) {
        return std::string(o.getRhsSide() ? "($1 >= $2 ? T(0) : $0)"
                                          : "($1 >= $2 ? $0 : T(0))");
      })
      .Case<UnaryGradOp>([&](UnaryGradOp o) -> std::string {
        // $0 = incoming gradient, $1 = forward input, $2 = forward output.
        std::optional<double> a;
        if (o.getAlpha())
          a = o.getAlpha()->convertToDouble();
        switch (o.getKind()) {
        // clang-format off
        case UnaryKind::neg: return "-$0";
        case UnaryKind::exp: return "$0 * $2";
        case UnaryKind::log: return "$0 / $1";
        case UnaryKind::sqrt: return "$0 * T(0.5) / $2";
        case UnaryKind::rsqrt: return "$0 * T(-0.5) * $2 * $2 * $2";
        case UnaryKind::relu: return "($1 > T(0) ? $0 : T(0))";
        case UnaryKind::sigmoid: return "$0 * $2 * (T(1) - $2)";
        case UnaryKind::tanh: return "$0 * (T(1) - $2 * $2)";
        case UnaryKind::abs: return "($1 > T(0) ? $0 : ($1 < T(0) ? -$0 : T(0)))";
        case UnaryKind::leaky_relu: return "($1 > T(0) ? $0 : " + alpha(a) + " * $0)";
        case UnaryKind::elu: return "($1 > T(0) ? $0 : $0 * ($2 + " + alpha(a) + "))";
        // clang-format on
        }
        return "";
      })
      .Default([](Operation *) { return ""; });
}

std::string gnn::cpp::fusedBodyCode(Operation *op,
                                    SmallVectorImpl<std::string> &yielded) {
  Block &body = op->getRegion(0).front();
  std::string code;
  DenseMap<Value, std::string> scalar;
  for (BlockArgument arg : body.getArguments()) {
    std::string k = std::to_string(arg.getArgNumber());
    code += "const T a" + k + " = $" + k + ";\n";
    scalar[arg] = "a" + k;
  }
  int n = 0;
  for (Operation &inner : body.without_terminator()) {
    std::string expr = elementwiseExpression(&inner);
    for (int k = int(inner.getNumOperands()) - 1; k >= 0; --k)
      expr = llvm::join(llvm::split(expr, "$" + std::to_string(k)),
                        scalar.lookup(inner.getOperand(k)));
    std::string id = "v" + std::to_string(n++);
    code += "const T " + id + " = " + expr + ";\n";
    scalar[inner.getResult(0)] = id;
  }
  yielded.clear();
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(scalar.lookup(v));
  return code;
}

LogicalResult gnn::cpp::emitElementwiseOp(FunctionEmitter &e, Operation *op) {
  Value res = op->getResult(0);
  const Dims &out = e.dims(res);
  if (auto map = dyn_cast<MapOp>(op)) {
    SmallVector<std::string> yielded;
    std::string code = fusedBodyCode(op, yielded);
    for (auto [r, value] : llvm::zip(map.getResults(), yielded))
      code += e.name(r) + "[@] = " + value + ";\n";
    SmallVector<LoopOperand> operands;
    for (Value in : map.getInputs())
      operands.push_back({e.name(in), e.dims(in), ""});
    LoopNest loop;
    loop.rowEnd = out[0];
    e.emitLoop(out, operands, code, loop);
    return success();
  }

  // A single op: one loop nest over the result; `$k` is operand k's element.
  std::string expression = elementwiseExpression(op);
  if (expression.empty())
    return unsupported(op);
  SmallVector<LoopOperand> operands;
  for (Value v : op->getOperands())
    operands.push_back({e.name(v), e.dims(v), ""});
  LoopNest loop;
  loop.rowEnd = out.empty() ? "1" : out[0];
  e.emitLoop(out.empty() ? Dims{"1"} : out, operands,
             e.name(res) + "[@] = " + expression + ";", loop);
  return success();
}
