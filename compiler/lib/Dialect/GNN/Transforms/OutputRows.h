//===- OutputRows.h - The model output's row check --------------*- C++ -*-===//
//
// A model's output is its logits, one row per node (per seed node when
// sampled). A value with one row per edge (a gather, an edge softmax) would
// be read as E node rows by the trainer, so the passes that track row spaces
// (gnn-distribute for full-graph programs, gnn-sample-blocks for sampled
// ones) reject it at the forward with the same message.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_TRANSFORMS_OUTPUTROWS_H
#define GNN_DIALECT_GNN_TRANSFORMS_OUTPUTROWS_H

#include "llvm/ADT/StringRef.h"

namespace gnn {

inline constexpr llvm::StringLiteral kEdgeRowsOutputError =
    "the model's output has one row per edge, but it must have one row per "
    "node: reduce the edge values to their destination nodes (scatter or "
    "aggregate)";

} // namespace gnn

#endif // GNN_DIALECT_GNN_TRANSFORMS_OUTPUTROWS_H
