//===- Types.h - What every kernel family shares ----------------*- C++ -*-===//
//
// The kernels generated trainers call for the non-elementwise parts of a
// program are declared once per family (families/<Family>.def: Gemm,
// Aggregate, Edge, Axis, Dropout, Loss, Relational) over GraphView and the
// enums below, and implemented per device (Device.h):
// lib/kernels/cpu/<Family>.cpp for the host, lib/kernels/cuda/<Family>.cu
// for CUDA devices.
//
// Conventions. Tensors are dense and row-major. A node or edge tensor
// [rows, d1, ..., dk] is passed as its row count and its row `width`
// (d1 * ... * dk). Per-edge tensors follow GraphView's edge numbering.
// An optional per-edge weight has `weightWidth` values per edge
// (1, or the leading feature dims such as the heads of [E, H]) and message
// element j of edge k is x[src(k)][j] * weight[k][j / (width / weightWidth)].
// Every kernel writes its whole output (no accumulation into the caller's
// buffer) unless its comment says otherwise. CPU kernels parallelize with
// OpenMP over destinations, rows or sources, never with atomics, so results
// do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_TYPES_H
#define GNNRT_KERNELS_TYPES_H

#include "gnnrt/graph/GraphView.h"

namespace gnnrt {

/// How a graph or axis reduction combines its values. An empty reduction
/// (a destination without messages, an axis of length 0) gives 0 for all.
enum class Reduce : int { Sum = 0, Mean = 1, Max = 2, Min = 3 };
/// Which endpoint of an edge a per-node value is read at.
enum class Side : int { Src = 0, Dst = 1 };

/// unbroadcast's rows per block in a bias gradient's sums (families/Axis.def).
inline constexpr int64_t kUnbroadcastBlockRows = 256;

/// The ids [begin, end): one node type's nodes, numbered type by type.
struct IdRange {
  int64_t begin = 0, end = 0;
};

} // namespace gnnrt

#endif // GNNRT_KERNELS_TYPES_H
