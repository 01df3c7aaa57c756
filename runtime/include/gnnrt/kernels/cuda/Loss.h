//===- Loss.h - The loss, its gradient and accuracy on devices --*- C++ -*-===//
//
// The CUDA implementations of gnnrt/kernels/Loss.h (device logits, labels
// and mask), summed in the CPU's fixed chunks of rows, in row order within
// a chunk, so the loss does not depend on the launch and equals the CPU's
// (to the device's exp/log), and the accuracy counts a trainer reports,
// which the CPU computes in train/Metrics.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_LOSS_H
#define GNNRT_KERNELS_CUDA_LOSS_H

#include <cstdint>

namespace gnnrt::kernels::cuda {

/// kernels::crossEntropy; returns the loss to the host (a synchronizing
/// call).
template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask);

/// kernels::crossEntropyGrad (queued; dlogits on the device).
template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits);

/// Rows of a split with a label (>= 0), and those whose first largest
/// logit is the label.
struct AccuracyCounts {
  int64_t correct = 0, labeled = 0;
};

/// The counts over the numNodes rows nodes[0..numNodes) of logits[*,
/// classes] (all device arrays); a synchronizing call.
template <typename T>
AccuracyCounts accuracyCounts(const T *logits, int64_t classes,
                              const int64_t *labels, const int64_t *nodes,
                              int64_t numNodes);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_LOSS_H
