//===- ElementwiseKernels.cpp - generated __global__ kernels --------------===//
//
// Where the C++ target writes an OpenMP loop nest, the CUDA target writes a
// kernel and its launch. A kernel is a grid-stride loop with one thread per
// output element, consecutive threads along a row, so a warp reads
// consecutive features of a row (a row of 32 features or more is one or
// more whole warps; narrower rows share a warp). Its body is the C++
// target's per-element code (fusedBodyCode), indexed as the loop nest
// indexes it (loopOperandIndex). Dims that are literals stay literals, so
// widths known at compile time are constants in the kernel; the others
// (row counts, the dataset's features and classes) are parameters
// `dim0, dim1, ...`. Scalars on the host (constants) are passed by value.
//
//   %r = gnn.map %h, %b : tensor<?x16xf32>, tensor<16xf32> { relu(h + b) }
//
// becomes
//
//   template <typename T>
//   __global__ void GCN_forward_k0(int64_t n, int64_t dim0,
//                                  const T *__restrict__ h,
//                                  const T *__restrict__ b, T *r) {
//     for (int64_t t = ...; t < n; t += ...) {
//       const int64_t i0 = t / 16, i1 = t % 16;
//       const T a0 = h[i1 + i0 * 16];
//       const T a1 = b[i1];
//       const T v0 = a0 + a1;
//       const T v1 = std::max(v0, T(0));
//       r[t] = v1;
//     }
//   }
//   ...
//   if ((16 * g.numDst) > 0) {
//     GNNRT_LAUNCH_WITHOUT_BARRIERS(kernels::cuda::generatedGrid(...), ...,
//                                   GCN_forward_k0<T>)((16 * g.numDst),
//                                   g.numDst, h, b, r);
//     kernels::cuda::checkLaunch("GCN_forward_k0");
//   }
//
// A gnn.edge_map without a reduction is the same over its edges (`e` the
// row, `u` and `v` its endpoints); with one, each thread owns an element of
// a destination row and loops over the row's in-edges in CSR order, so a
// sum adds in the CPU's order and the per-edge values are never stored.
// A gnn.matmul_map is the CUDA GEMM followed by its epilogue as a kernel,
// in place on the product -- unless cuBLASLt fuses the epilogue into the
// GEMM (GemmEpilogue.cpp).
//
//===----------------------------------------------------------------------===//

#include "CudaFunctionEmitter.h"

#include "gnn/Target/Common/Naming.h"
#include "gnn/Target/Common/RuntimeNames.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace gnn;
using namespace gnn::cuda;
namespace rt = gnn::target::rt;
using target::product;
using target::Storage;

namespace {

bool isLiteral(StringRef dim) {
  return !dim.empty() && llvm::all_of(dim, llvm::isDigit);
}

/// The host expressions of a kernel's symbolic dims and their parameter
/// names (`dim0`, ...), in order of first use.
class DimParams {
public:
  /// `dims` with each non-literal dim renamed to its parameter.
  Dims rename(const Dims &dims) {
    Dims renamed;
    for (const std::string &d : dims)
      renamed.push_back(isLiteral(d) ? d : param(d));
    return renamed;
  }
  const SmallVector<std::pair<std::string, std::string>> &all() const {
    return params;
  }

private:
  std::string param(const std::string &expression) {
    for (auto &[host, name] : params)
      if (host == expression)
        return name;
    params.push_back({expression, "dim" + std::to_string(params.size())});
    return params.back().second;
  }
  SmallVector<std::pair<std::string, std::string>> params;
};

std::string indent(StringRef text, size_t by) {
  std::string pad(by, ' '), result;
  for (StringRef line : llvm::split(text.rtrim('\n'), '\n'))
    result += (line.empty() ? "" : pad + line.str()) + "\n";
  return result;
}

/// Whether `code` uses the identifier `name`.
bool mentions(StringRef code, StringRef name) {
  for (size_t at = code.find(name); at != StringRef::npos;
       at = code.find(name, at + 1)) {
    auto partOfName = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    bool before = at > 0 && partOfName(code[at - 1]);
    bool after =
        at + name.size() < code.size() && partOfName(code[at + name.size()]);
    if (!before && !after)
      return true;
  }
  return false;
}

/// `text` with every `$k` replaced by `operands[k]`.
std::string substitute(std::string text, ArrayRef<std::string> operands) {
  for (int k = int(operands.size()) - 1; k >= 0; --k)
    text = llvm::join(llvm::split(text, "$" + std::to_string(k)), operands[k]);
  return text;
}

} // namespace

void CudaFunctionEmitter::emitKernel(const ElementwiseKernel &k) {
  std::string kernelName = kernelPrefix + "_k" + std::to_string(kernelCount++);
  DimParams dims;
  Dims out = dims.rename(k.out.empty() ? Dims{"1"} : k.out);
  size_t rank = out.size();

  // Parameters: host scalars by value, each buffer once (an epilogue reads
  // and writes its product in place: that one is not __restrict__).
  SmallVector<std::string> bufferParams, bufferArgs;
  SmallVector<std::string> elements;
  std::map<std::string, std::string> declared;
  auto written = [&](const std::string &b) {
    return llvm::is_contained(k.outputs, b);
  };
  for (auto [in, onHost] : llvm::zip(k.inputs, k.hostScalars)) {
    LoopOperand renamed{in.buffer, dims.rename(in.dims), in.row};
    if (onHost)
      elements.push_back(in.buffer + "_value");
    else if (in.dims.empty())
      elements.push_back(in.buffer + "[0]");
    else
      elements.push_back(in.buffer + "[" + cpp::loopOperandIndex(renamed, out) +
                         "]");
    if (declared.count(in.buffer))
      continue;
    declared[in.buffer] = "in";
    if (onHost) {
      bufferArgs.push_back(in.buffer + "[0]");
      bufferParams.push_back("T " + in.buffer + "_value");
      continue;
    }
    bufferArgs.push_back(in.buffer);
    bufferParams.push_back(written(in.buffer)
                               ? "T *" + in.buffer
                               : "const T *__restrict__ " + in.buffer);
  }
  for (const std::string &o : k.outputs) {
    if (declared.count(o))
      continue;
    declared[o] = "out";
    bufferArgs.push_back(o);
    bufferParams.push_back("T *__restrict__ " + o);
  }
  // The graph's arrays the rows need.
  SmallVector<std::string> graphParams, graphArgs;
  if (k.rows != KernelRows::Dense) {
    graphParams = {"const int64_t *__restrict__ inOffsets",
                   "const int32_t *__restrict__ srcOf",
                   "const int32_t *__restrict__ dstOf"};
    graphArgs = {k.graph + "." + rt::graph::inOffsets.str(),
                 k.graph + "." + rt::graph::edgeSrc.str(),
                 k.graph + "." + rt::graph::edgeDst.str()};
  }

  // The element's indices from the thread's flat index `t`.
  std::string width = product(ArrayRef<std::string>(out).drop_front());
  std::string code = "const int64_t i0 = " +
                     (width == "1" ? std::string("t") : "t / " + width) + ";\n";
  for (size_t d = 1; d < rank; ++d) {
    std::string inner = product(ArrayRef<std::string>(out).drop_front(d + 1));
    code +=
        "const int64_t i" + std::to_string(d) + " = " +
        (out[d] == "1" ? std::string("0")
                       : (inner == "1" ? std::string("t") : "t / " + inner) +
                             " % " + out[d]) +
        ";\n";
  }
  std::string body = substitute(k.body, elements);
  std::string element = llvm::join(llvm::split(body, "@"), "t");
  switch (k.rows) {
  case KernelRows::Dense:
    code += element;
    break;
  case KernelRows::Edges:
    code += "const int64_t e = i0, u = srcOf[e], v = dstOf[e];\n(void)u;\n"
            "(void)v;\n" +
            element;
    break;
  case KernelRows::InEdges: {
    // A destination without in-edges gets 0, not the identity of max or
    // min; a mean divides by the in-degree.
    const char *identity =
        k.reduce == ReduceKind::max   ? "-std::numeric_limits<T>::infinity()"
        : k.reduce == ReduceKind::min ? "std::numeric_limits<T>::infinity()"
                                      : "T(0)";
    std::string combine =
        k.reduce == ReduceKind::max   ? "std::max(acc, " + k.yielded + ")"
        : k.reduce == ReduceKind::min ? "std::min(acc, " + k.yielded + ")"
                                      : "acc + " + k.yielded;
    code += "const int64_t v = i0;\n(void)v;\n";
    code += "const int64_t degree = inOffsets[v + 1] - inOffsets[v];\n";
    code += std::string("T acc = ") + identity + ";\n";
    code += "for (int64_t e = inOffsets[v]; e < inOffsets[v + 1]; ++e) {\n"
            "  const int64_t u = srcOf[e];\n  (void)u;\n" +
            indent(element, 2) + "  acc = " + combine + ";\n}\n";
    std::string result =
        k.reduce == ReduceKind::mean ? "acc / T(degree)" : std::string("acc");
    code += k.outputs.front() + "[t] = degree == 0 ? T(0) : " + result + ";\n";
    break;
  }
  }

  // The definition, among the kernels. Only the dims the indices use are
  // parameters (the row count is `n`'s business).
  SmallVector<std::pair<std::string, std::string>> usedDims;
  for (auto &[host, name] : dims.all())
    if (mentions(code, name))
      usedDims.push_back({host, name});
  SmallVector<std::string> params{"int64_t n"};
  for (auto &[host, name] : usedDims)
    params.push_back("int64_t " + name);
  SmallVector<std::string> usedGraphArgs;
  for (auto [param, arg] : llvm::zip(graphParams, graphArgs))
    if (mentions(code, StringRef(param).rsplit(' ').second)) {
      params.push_back(param);
      usedGraphArgs.push_back(arg);
    }
  params.append(bufferParams.begin(), bufferParams.end());
  std::string def = "/// " + k.what +
                    "\ntemplate <typename T>\n__global__ void " + kernelName +
                    "(\n    " + llvm::join(params, ",\n    ") + ") {\n";
  def += "  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; "
         "t < n;\n       t += int64_t(gridDim.x) * blockDim.x) {\n";
  def += indent(code, 4);
  def += "  }\n}\n\n";
  kernels += def;

  // The launch, here.
  std::string n = product(k.out.empty() ? Dims{"1"} : k.out);
  SmallVector<std::string> args{n};
  for (auto &[host, name] : usedDims)
    args.push_back(host);
  args.append(usedGraphArgs.begin(), usedGraphArgs.end());
  args.append(bufferArgs.begin(), bufferArgs.end());
  os << "if (" << n << " > 0) {\n";
  os << "  " << rt::cuda::launch << "(\n      " << rt::cuda::grid << "(" << n
     << "), " << rt::cuda::block << ", 0,\n      " << rt::cuda::currentStream
     << "(), " << kernelName << "<T>)(\n      " << llvm::join(args, ", ")
     << ");\n";
  os << "  " << rt::cuda::checkLaunch << "(\"" << kernelName << "\");\n}\n";
}

//===----------------------------------------------------------------------===//
// The ops
//===----------------------------------------------------------------------===//

namespace {

/// Adds `v` to the kernel's operands; a scalar that lives on the host (a
/// constant, the loss) is passed by value.
void addInput(ElementwiseKernel &k, const cpp::FunctionEmitter &e, Value v,
              std::string row = "") {
  k.inputs.push_back({e.name(v), e.dims(v), row});
  k.hostScalars.push_back(e.fn.storage(v) == Storage::Scalar);
}

/// What an op's kernel is for, in its comment.
std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (std::string where = target::describeLocation(op->getLoc());
      !where.empty())
    text += " at " + where;
  return text;
}

} // namespace

LogicalResult CudaFunctionEmitter::emitElementwise(Operation *op) {
  Value res = op->getResult(0);
  ElementwiseKernel k;
  k.what = describe(op);
  k.out = dims(res);
  if (auto map = dyn_cast<MapOp>(op)) {
    SmallVector<std::string> yielded;
    k.body = cpp::fusedBodyCode(op, yielded);
    for (auto [r, value] : llvm::zip(map.getResults(), yielded)) {
      k.body += name(r) + "[@] = " + value + ";\n";
      k.outputs.push_back(name(r));
    }
    for (Value in : map.getInputs())
      addInput(k, *this, in);
  } else {
    std::string expression = cpp::elementwiseExpression(op);
    if (expression.empty())
      return cpp::unsupported(op);
    for (Value v : op->getOperands())
      addInput(k, *this, v);
    k.body = name(res) + "[@] = " + expression + ";\n";
    k.outputs.push_back(name(res));
  }
  emitKernel(k);
  return success();
}

LogicalResult CudaFunctionEmitter::emitEdgeMap(EdgeMapOp em) {
  SmallVector<Value> results(em->getResults());
  ElementwiseKernel k;
  k.what = describe(em);
  k.out = dims(results.front());
  k.graph = graph(em.getGraph());
  SmallVector<std::string> yielded;
  k.body = cpp::fusedBodyCode(em, yielded);
  for (auto [in, side] : llvm::zip(em.getInputs(), em.getSides())) {
    StringRef s = cast<StringAttr>(side).getValue();
    addInput(k, *this, in, s == "src" ? "u" : (s == "dst" ? "v" : "e"));
  }
  for (Value r : results)
    k.outputs.push_back(name(r));
  if (std::optional<ReduceKind> reduce = em.getReduce()) {
    k.rows = KernelRows::InEdges;
    k.reduce = *reduce;
    k.yielded = yielded.front();
  } else {
    k.rows = KernelRows::Edges;
    for (auto [r, value] : llvm::zip(results, yielded))
      k.body += name(r) + "[@] = " + value + ";\n";
  }
  emitKernel(k);
  return success();
}

LogicalResult CudaFunctionEmitter::emitMatmulMap(MatmulMapOp mm) {
  if (emitGemmEpilogue(mm))
    return success();
  SmallVector<Value> results(mm->getResults());
  // The product into the first result, then the epilogue in place on it.
  SmallVector<std::string> args = cpp::gemmArgs(*this, mm, dims(results[0]));
  args.push_back(name(results.front()));
  os << kernelStmt(rt::kernels::gemm, args);
  ElementwiseKernel k;
  k.what = "the epilogue of " + describe(mm);
  k.out = dims(results.front());
  SmallVector<std::string> yielded;
  k.body = cpp::fusedBodyCode(mm, yielded);
  addInput(k, *this, results.front());
  for (Value in : mm.getEpilogueInputs())
    addInput(k, *this, in);
  for (auto [r, value] : llvm::zip(results, yielded)) {
    k.body += name(r) + "[@] = " + value + ";\n";
    k.outputs.push_back(name(r));
  }
  emitKernel(k);
  return success();
}
