//===- Aggregate.h - CSR aggregation on CUDA devices ------------*- C++ -*-===//
//
// The device side of `gnn.aggregate` for the CUDA target: out[v] = reduce over
// incoming edges (u -> v) of x[u], over a graph stored by destination (CSR:
// offsets[v] .. offsets[v+1] index the sources). Plain C++ interface; the
// kernels live in runtime/cuda/ and are built only when CUDA is found
// (GNNRT_HAVE_CUDA).
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_KERNELS_CUDAAGGREGATE_H
#define GNNRT_KERNELS_CUDAAGGREGATE_H

#include <cstdint>
#include <string>

namespace gnnrt::cuda {

enum class Reduce { Sum, Mean, Max };

/// Number of CUDA devices visible to this process (0 when none or no driver).
int deviceCount();

/// Aggregates `numFeatures`-wide float rows of `x` (host memory, one row per
/// source node) into `out` (host memory, one row per destination node).
/// Copies in, runs the kernel, copies out: a correctness path for tests; the
/// generated code keeps tensors on the device. Returns an empty string on
/// success, otherwise the CUDA error text.
std::string aggregateHost(Reduce reduce, int64_t numDst, const int64_t *offsets,
                          const int32_t *sources, int64_t numEdges,
                          int64_t numSrc, int64_t numFeatures, const float *x,
                          float *out);

} // namespace gnnrt::cuda

#endif // GNNRT_KERNELS_CUDAAGGREGATE_H
