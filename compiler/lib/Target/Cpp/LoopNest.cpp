//===- LoopNest.cpp - the OpenMP loops elementwise code runs in -----------===//
//
// Every elementwise computation, fused or not, runs in a loop nest over its
// output: rows in an OpenMP parallel loop, then one loop per feature dim,
// the innermost vectorized. When every operand has the output's shape (or is
// a scalar) the nest collapses into one flat `parallel for simd` over the
// elements. Parallel loops only go parallel above 16384 elements: below
// that the threads cost more than they save.
//
//===----------------------------------------------------------------------===//

#include "FunctionEmitter.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;

namespace {

/// `text` with every line indented by `by` spaces ("" stays "").
std::string indent(std::string text, size_t by) {
  std::string pad(by, ' '), result;
  if (text.empty())
    return result;
  for (StringRef line : llvm::split(StringRef(text).rtrim('\n'), '\n'))
    result += pad + line.str() + "\n";
  return result;
}

} // namespace

std::string gnn::cpp::loopOperandIndex(const LoopOperand &o, const Dims &out) {
  const Dims &d = o.dims;
  size_t rank = out.size();
  size_t firstDim = o.row.empty() ? 0 : 1;
  SmallVector<std::string> terms;
  std::string stride = "1";
  for (size_t j = d.size(); j-- > firstDim;) {
    size_t outDim = j + rank - d.size();
    bool stretched = d[j] == "1" && out[outDim] != "1";
    if (!stretched)
      terms.push_back(stride == "1"
                          ? "i" + std::to_string(outDim)
                          : "i" + std::to_string(outDim) + " * " + stride);
    stride = product({stride, d[j]});
  }
  if (!o.row.empty())
    terms.push_back(stride == "1" ? o.row : o.row + " * " + stride);
  return terms.empty() ? "0" : llvm::join(terms, " + ");
}

void FunctionEmitter::emitLoop(const Dims &out, ArrayRef<LoopOperand> operands,
                               StringRef body, const LoopNest &loop) {
  std::string text;
  llvm::raw_string_ostream nest(text);
  std::string width = product(ArrayRef<std::string>(out).drop_front());
  auto substitute = [&](auto indexOf, StringRef outIndex) {
    std::string text = body.str();
    for (int k = int(operands.size()) - 1; k >= 0; --k)
      text = llvm::join(llvm::split(text, "$" + std::to_string(k)),
                        operands[k].dims.empty()
                            ? operands[k].buffer + "[0]"
                            : operands[k].buffer + "[" + indexOf(k) + "]");
    return llvm::join(llvm::split(text, "@"), outIndex);
  };
  std::string rows = loop.rowBegin == "0"
                         ? loop.rowEnd
                         : "(" + loop.rowEnd + " - " + loop.rowBegin + ")";
  std::string work = product({rows, width});
  bool flat = loop.rowPrologue.empty() && loop.innerOpen.empty() &&
              llvm::all_of(operands, [&](const LoopOperand &o) {
                return o.row.empty() && (o.dims.empty() || o.dims == out);
              });
  if (flat) {
    if (loop.parallel)
      nest << "#pragma omp parallel for simd if (" << work << " > 16384)\n";
    nest << "for (int64_t i = " << product({loop.rowBegin, width}) << "; i < "
         << product({loop.rowEnd, width}) << "; ++i) {\n"
         << indent(substitute([](int) { return std::string("i"); }, "i"), 2)
         << "}\n";
    writeLoopNest(nest.str());
    return;
  }
  size_t rank = out.size();
  SmallVector<std::string> indices;
  for (const LoopOperand &o : operands)
    indices.push_back(loopOperandIndex(o, out));
  std::string outIndex = "i0";
  for (size_t d = 1; d < rank; ++d)
    outIndex = "(" + outIndex + ") * " + out[d] + " + i" + std::to_string(d);
  if (loop.parallel)
    nest << "#pragma omp parallel for schedule(dynamic, 64) if (" << work
         << " > 16384)\n";
  nest << "for (int64_t i0 = " << loop.rowBegin << "; i0 < " << loop.rowEnd
       << "; ++i0) {\n";
  nest << indent(loop.rowPrologue, 2);
  size_t depth = 2;
  if (!loop.innerOpen.empty()) {
    nest << indent(loop.innerOpen, depth);
    depth += 2;
  }
  for (size_t d = 1; d < rank; ++d) {
    if (d + 1 == rank)
      nest << std::string(depth, ' ') << "#pragma omp simd\n";
    nest << std::string(depth, ' ') << "for (int64_t i" << d << " = 0; i" << d
         << " < " << out[d] << "; ++i" << d << ") {\n";
    depth += 2;
  }
  nest << indent(substitute([&](int k) { return indices[k]; }, outIndex),
                 depth);
  for (size_t d = 1; d < rank; ++d) {
    depth -= 2;
    nest << std::string(depth, ' ') << "}\n";
  }
  if (!loop.innerOpen.empty()) {
    depth -= 2;
    nest << indent(loop.innerClose, depth);
  }
  nest << indent(loop.rowEpilogue, 2);
  nest << "}\n";
  writeLoopNest(nest.str());
}

void FunctionEmitter::writeLoopNest(StringRef text) {
  if (!sharedLoops)
    os << text;
  else if (sharedLoops->counting()) {
    sharedLoops->count(text);
    os << text;
  } else {
    sharedLoops->write(os, text);
  }
}
