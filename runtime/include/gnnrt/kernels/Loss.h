//===- Loss.h - The training loss and its gradient --------------*- C++ -*-===//
//
// Cross-entropy over the labelled rows a step trains on, summed in fixed
// chunks of rows so that the loss does not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_LOSS_H
#define GNNRT_KERNELS_LOSS_H

#include <cstdint>

namespace gnnrt::kernels {

/// Mean over the selected rows (mask[i] != 0, or all rows if mask is null)
/// with a label >= 0 of -log_softmax(logits[i])[labels[i]]. 0 if none.
template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask);

/// dlogits = dloss * d(crossEntropy)/d(logits) (zero on unselected rows).
template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_LOSS_H
