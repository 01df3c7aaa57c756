//===- SymbolicDims.h - tensor dims as C++ expressions ----------*- C++ -*-===//
//
// The emitters size every tensor at compile time, but most sizes depend on
// the dataset and the graph, so a dim is a C++ expression: a literal ("16"),
// a size the generated code knows when it runs ("features", "g.numDst",
// "ctx.blocks[1].numEdges"), or a product or sum of those. These helpers
// build such expressions with literals folded, so that `16 * 1` prints as
// `16` and a loop bound stays readable.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_COMMON_SYMBOLICDIMS_H
#define GNN_TARGET_COMMON_SYMBOLICDIMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace gnn::target {

/// The dims of one tensor, outermost first; a scalar has none.
using Dims = llvm::SmallVector<std::string, 4>;

/// Whether `s` is a decimal integer literal; if so, its value in `*value`.
bool isLiteral(llvm::StringRef s, int64_t *value = nullptr);

/// The product of dim expressions, literals folded into one leading factor
/// ("1" for none, "0" if any literal is 0).
std::string product(llvm::ArrayRef<std::string> dims);

/// The sum of dim expressions, literals folded into one trailing term.
std::string sum(llvm::ArrayRef<std::string> dims);

/// The numpy broadcast of two shapes: aligned at the innermost dim, a "1"
/// stretches to the other side's dim.
Dims broadcastDims(const Dims &a, const Dims &b);

/// The exact quotients in a dim expression, as (dividend, divisor) pairs:
/// `(features/4)` in `(relations * (features/4))` gives ("features", "4").
/// Operands are an identifier, a literal or a parenthesized expression, as
/// Sema spells quotients; the generated code checks that they divide.
llvm::SmallVector<std::pair<std::string, std::string>>
quotients(llvm::StringRef dim);

} // namespace gnn::target

#endif // GNN_TARGET_COMMON_SYMBOLICDIMS_H
