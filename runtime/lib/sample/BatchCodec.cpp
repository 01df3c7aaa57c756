//===- BatchCodec.cpp - a sampled batch as one message --------------------===//
//
// See BatchCodec.h. Layout, all little-endian as the host writes it:
//
//   int64  magic, layers L, feature width F
//   int64  levelSizes[L + 1]
//   int64  nodes[levelSizes[0]]
//   per block d: int64 relations R (0: untyped),
//                int64 inOffsets[levelSizes[d + 1] + 1],
//                int32 edgeSrc[inOffsets.back()]  (padded to 8 bytes),
//                R > 0: int32 edgeType[inOffsets.back()]  (padded)
//   int64  labels[levelSizes[L]]
//   float  features[levelSizes[0] x F]
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/BatchCodec.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace gnnrt {

namespace {

/// "GNNBATCH" in ASCII: a message that is not a batch fails at once.
constexpr int64_t kMagic = 0x484354414E4E4E47;

template <typename T>
void put(std::vector<char> &out, const T *values, int64_t count) {
  const size_t bytes = size_t(count) * sizeof(T);
  const size_t at = out.size();
  // Every array starts 8-byte aligned.
  out.resize(at + ((bytes + 7) & ~size_t(7)), 0);
  if (bytes)
    std::memcpy(out.data() + at, values, bytes);
}

void putInt(std::vector<char> &out, int64_t value) { put(out, &value, 1); }

[[noreturn]] void throwCodecError(const std::string &message) {
  throwDataError("batch message", 0, message);
}

/// Reads the arrays back in order, checking each against the bytes left.
class Reader {
public:
  Reader(const char *data, int64_t bytes) : at(data), end(data + bytes) {}

  template <typename T> void get(T *values, int64_t count, const char *what) {
    if (count < 0)
      throwCodecError(std::string("a negative count of ") + what);
    const size_t bytes = size_t(count) * sizeof(T);
    const size_t padded = (bytes + 7) & ~size_t(7);
    if (padded > size_t(end - at))
      throwCodecError(std::string("truncated in ") + what + " (" +
                      std::to_string(end - at) + " bytes left, " +
                      std::to_string(padded) + " needed)");
    if (bytes)
      std::memcpy(values, at, bytes);
    at += padded;
  }
  int64_t getInt(const char *what) {
    int64_t value = 0;
    get(&value, 1, what);
    return value;
  }
  bool done() const { return at == end; }

private:
  const char *at, *end;
};

} // namespace

void encodeBatch(const SampledBatch &batch, int64_t numFeatures,
                 std::vector<char> &out) {
  const int64_t layers = batch.numLayers();
  putInt(out, kMagic);
  putInt(out, layers);
  putInt(out, numFeatures);
  put(out, batch.levelSizes.data(), int64_t(batch.levelSizes.size()));
  put(out, batch.nodes.data(), int64_t(batch.nodes.size()));
  for (const GraphView &block : batch.views) {
    const int64_t relations = block.edgeType ? block.numRelations : 0;
    putInt(out, relations);
    put(out, block.inOffsets, block.numDst + 1);
    put(out, block.edgeSrc, block.numEdges);
    if (relations > 0)
      put(out, block.edgeType, block.numEdges);
  }
  put(out, batch.labels.data(), int64_t(batch.labels.size()));
  put(out, batch.features.data(), int64_t(batch.features.size()));
}

int64_t decodeBatch(const char *data, int64_t bytes, SampledBatch &out) {
  Reader in(data, bytes);
  if (in.getInt("the header") != kMagic)
    throwCodecError("not a sampled batch (wrong magic number)");
  const int64_t layers = in.getInt("the header"),
                width = in.getInt("the header");
  if (layers < 0 || layers > 64 || width < 0)
    throwCodecError(std::to_string(layers) + " layers of features " +
                    std::to_string(width) + " wide");
  out.levelSizes.resize(size_t(layers) + 1);
  in.get(out.levelSizes.data(), layers + 1, "the level sizes");
  for (int64_t d = 0; d < layers; ++d)
    if (out.levelSizes[size_t(d + 1)] > out.levelSizes[size_t(d)] ||
        out.levelSizes[size_t(d + 1)] < 0)
      throwCodecError("level sizes must not increase");
  const int64_t rows = out.levelSizes.front(), seeds = out.levelSizes.back();
  out.nodes.resize(size_t(rows));
  in.get(out.nodes.data(), rows, "the node ids");
  out.blocks.resize(size_t(layers));
  std::vector<int64_t> offsets;
  std::vector<int32_t> sources;
  std::vector<int32_t> types;
  for (int64_t d = 0; d < layers; ++d) {
    const int64_t numDst = out.levelSizes[size_t(d + 1)];
    const int64_t relations = in.getInt("a block's relation count");
    if (relations < 0 || relations > INT32_MAX)
      throwCodecError("a block of " + std::to_string(relations) + " relations");
    offsets.resize(size_t(numDst) + 1);
    in.get(offsets.data(), numDst + 1, "a block's offsets");
    sources.resize(size_t(std::max<int64_t>(0, offsets.back())));
    in.get(sources.data(), offsets.back(), "a block's sources");
    // fromCsr's checks (offsets rising, sources in range) apply.
    out.blocks[size_t(d)].assignCsr(out.levelSizes[size_t(d)], numDst, offsets,
                                    sources);
    if (relations > 0) {
      // setEdgeTypes' checks (ids in range) apply.
      types.resize(sources.size());
      in.get(types.data(), int64_t(types.size()), "a block's relations");
      out.blocks[size_t(d)].setEdgeTypes(types, int32_t(relations));
    }
  }
  out.labels.resize(size_t(seeds));
  in.get(out.labels.data(), seeds, "the labels");
  out.features.resize(size_t(rows * width));
  in.get(out.features.data(), rows * width, "the features");
  if (!in.done())
    throwCodecError("trailing bytes after the features");
  out.views.clear();
  for (const GraphStorage &block : out.blocks)
    out.views.push_back(block.view());
  out.remoteRows = out.cachedRows = 0;
  return width;
}

} // namespace gnnrt
