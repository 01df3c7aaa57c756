//===- Shape.h - Tensor shape helpers ---------------------------*- C++ -*-===//
//
// Parameter and checkpoint shapes are plain std::vector<int64_t>; these two
// helpers are the only arithmetic and formatting the runtime does on them,
// kept in one place so that error messages print shapes identically.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_SHAPE_H
#define GNNRT_SUPPORT_SHAPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The number of elements of a tensor of `shape` (1 for a scalar, []).
inline int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// `[1433, 16]`, the form shapes take in messages.
inline std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_SHAPE_H
