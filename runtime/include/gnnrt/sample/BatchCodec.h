//===- BatchCodec.h - a sampled batch as one message ------------*- C++ -*-===//
//
// A sampler rank sends the batches it assembled to a trainer rank as flat
// byte messages. The encoding carries what a train step reads: level 0's
// global ids, the level sizes, each block's destination-major CSR (the
// receiver rebuilds the transpose, which is cheaper than sending it), the
// input features and the seeds' labels; a typed graph's blocks carry each
// edge's relation too.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SAMPLE_BATCHCODEC_H
#define GNNRT_SAMPLE_BATCHCODEC_H

#include "gnnrt/sample/Sampler.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// Appends `batch` (features `numFeatures` wide) to `out`.
void encodeBatch(const SampledBatch &batch, int64_t numFeatures,
                 std::vector<char> &out);

/// Decodes a batch that encodeBatch wrote at data[0 .. bytes) into `out`,
/// reusing its arrays, and returns its feature width. Throws DataError for
/// a message that is truncated or inconsistent (sizes that do not add up).
int64_t decodeBatch(const char *data, int64_t bytes, SampledBatch &out);

} // namespace gnnrt

#endif // GNNRT_SAMPLE_BATCHCODEC_H
