//===- CeilDiv.h - Steps that cover a count ---------------------*- C++ -*-===//
//
// How many steps of `per` items cover `count` items: batches in an epoch,
// chunks of an evaluation.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_CEILDIV_H
#define GNNRT_SUPPORT_CEILDIV_H

#include <cstdint>

namespace gnnrt {

/// ceil(count / per) for count >= 0 and per > 0.
inline int64_t ceilDiv(int64_t count, int64_t per) {
  return (count + per - 1) / per;
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_CEILDIV_H
