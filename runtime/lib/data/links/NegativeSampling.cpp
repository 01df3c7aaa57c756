//===- NegativeSampling.cpp - Negatives drawn per positive link -----------===//
//
// See gnnrt/data/links/NegativeSampling.h. Negative j of positive e, attempt
// a, reads the Philox block at counter ((e * k + j) * kMaxNegativeAttempts +
// a) of the epoch's stream: words 0-1 pick the node, word 2 the side.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/NegativeSampling.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <array>

namespace gnnrt {

namespace {

/// The epoch's stream ("NS" + epoch), apart from other uses of the seed.
uint64_t epochStream(int64_t epoch) {
  return (uint64_t(0x4e53) << 48) | (uint64_t(epoch) & 0xffffffffffffull);
}

/// The Philox block of one attempt at one negative.
std::array<uint32_t, 4> attemptBits(const NegativeSamplerOptions &o,
                                    int64_t epoch, int64_t slot, int attempt) {
  return randomBits(o.seed, epochStream(epoch),
                    uint64_t(slot) * kMaxNegativeAttempts + uint64_t(attempt));
}

/// Draws above this count run on OpenMP threads.
constexpr int64_t kParallelDraws = 65536;

/// A node offset uniform in [0, n) from words 0-1 (multiply-shift).
int64_t offsetBelow(const std::array<uint32_t, 4> &bits, int64_t n) {
  const uint64_t word = (uint64_t(bits[0]) << 32) | bits[1];
  return int64_t((unsigned __int128)word * uint64_t(n) >> 64);
}

/// Runs fill(slot) for every slot in [0, count) in parallel, visiting them
/// in the order slotAt(0), slotAt(1), ...; rethrows the DataError of the
/// lowest failing slot, so the message depends on neither the threads nor
/// the order.
template <typename SlotAt, typename Fill>
void forEachNegativeIn(int64_t count, SlotAt slotAt, Fill fill) {
  int64_t failed = count;
  std::string message;
  // A batch's few thousand draws stay on the calling thread (a sampler
  // thread's, beside the training threads); an epoch's are parallel.
#pragma omp parallel for schedule(static) if (count > kParallelDraws)
  for (int64_t i = 0; i < count; ++i) {
    const int64_t slot = slotAt(i);
    try {
      fill(slot);
    } catch (const DataError &e) {
#pragma omp critical(gnnrt_negative_failure)
      if (slot < failed) {
        failed = slot;
        message = e.what();
      }
    }
  }
  if (failed < count)
    throw DataError(message);
}

template <typename Fill> void forEachNegative(int64_t count, Fill fill) {
  forEachNegativeIn(count, [](int64_t i) { return i; }, fill);
}

/// Positions [0, n) of n links ordered by their source, srcOf(p) in [0,
/// numNodes) (a stable counting sort). Every draw checks the known links
/// of its positive's source; drawing one source's negatives one after
/// another keeps those keys in cache instead of missing on them per draw
/// (GAE on 300k nodes, 5.1M train links, one thread: the lookups were 30%
/// of a 3.9-4.5 s epoch, which now takes 3.3-3.6 s; the same draws).
template <typename SrcOf>
std::vector<int64_t> bySource(int64_t n, int64_t numNodes, SrcOf srcOf) {
  std::vector<int64_t> start(size_t(numNodes) + 1, 0);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p)
    ++start[size_t(srcOf(p)) + 1];
  for (int64_t v = 0; v < numNodes; ++v)
    start[size_t(v) + 1] += start[size_t(v)];
  for (int64_t p = 0; p < n; ++p)
    order[size_t(start[size_t(srcOf(p))]++)] = p;
  return order;
}

/// Whether a draw of `count` negatives is worth visiting by source: it
/// checks known links and is an epoch's, not a batch's.
bool worthSourceOrder(const NegativeSamplerOptions &o, int64_t count) {
  return o.exclude && count > kParallelDraws;
}

[[noreturn]] void noNegative(int64_t e, const std::string &positive,
                             int attempts) {
  throw DataError("negative sampling: positive " + std::to_string(e) + " (" +
                  positive +
                  ") has no negative outside the known positives "
                  "in " +
                  std::to_string(attempts) + " attempts");
}

} // namespace

std::vector<CorruptionRange> corruptionRanges(const Dataset &ds) {
  std::vector<CorruptionRange> ranges;
  auto range = [&](int32_t type) -> std::pair<int64_t, int64_t> {
    if (type < 0 || ds.nodeTypes.empty())
      return {0, ds.numNodes};
    const NodeType &t = ds.nodeTypes[size_t(type)];
    return {t.offset, t.offset + t.count};
  };
  for (const RelationType &rel : ds.relations) {
    auto [hb, he] = range(rel.srcType);
    auto [tb, te] = range(rel.dstType);
    ranges.push_back({hb, he, tb, te});
  }
  return ranges;
}

NegativeSampler::NegativeSampler(const NegativeSamplerOptions &options)
    : options(options) {
  if (options.k < 1)
    throw DataError("negative sampling: k = " + std::to_string(options.k) +
                    " negatives per positive (expected at least 1)");
  if (options.numNodes < 1)
    throw DataError("negative sampling: the graph has no nodes");
  if (options.maxAttempts < 1 || options.maxAttempts > kMaxNegativeAttempts)
    throw DataError(
        "negative sampling: " + std::to_string(options.maxAttempts) +
        " attempts per negative, expected 1 to " +
        std::to_string(kMaxNegativeAttempts));
}

int64_t NegativeSampler::tailOf(int64_t epoch, const LinkPairs &positives,
                                int64_t e, int64_t j) const {
  const int64_t u = positives.src[size_t(e)];
  const int64_t slot = e * options.k + j;
  for (int attempt = 0;; ++attempt) {
    if (attempt == options.maxAttempts)
      noNegative(e,
                 std::to_string(u) + " -> " +
                     std::to_string(positives.dst[size_t(e)]),
                 attempt);
    const int64_t v = offsetBelow(attemptBits(options, epoch, slot, attempt),
                                  options.numNodes);
    if (!options.exclude || !options.exclude->contains(u, v))
      return v;
  }
}

LinkPairs NegativeSampler::sampleTails(int64_t epoch,
                                       const LinkPairs &positives,
                                       int64_t begin, int64_t end) const {
  std::vector<int64_t> links(size_t(end - begin));
  for (int64_t e = begin; e < end; ++e)
    links[size_t(e - begin)] = e;
  return sampleTailsOf(epoch, positives, links);
}

void NegativeSampler::sampleTailsInto(int64_t epoch, const LinkPairs &positives,
                                      LinkPairs &out) const {
  const int64_t k = options.k, count = int64_t(positives.size()) * k;
  out.src.resize(size_t(count));
  out.dst.resize(size_t(count));
  std::vector<int64_t> order;
  if (worthSourceOrder(options, count))
    order = bySource(int64_t(positives.size()), options.numNodes,
                     [&](int64_t e) { return positives.src[size_t(e)]; });
  forEachNegativeIn(
      count,
      [&](int64_t i) {
        return order.empty() ? i : order[size_t(i / k)] * k + i % k;
      },
      [&](int64_t slot) {
        out.src[size_t(slot)] = positives.src[size_t(slot / k)];
        out.dst[size_t(slot)] = tailOf(epoch, positives, slot / k, slot % k);
      });
}

LinkPairs NegativeSampler::sampleTailsOf(
    int64_t epoch, const LinkPairs &positives,
    const std::vector<int64_t> &links) const {
  const int64_t k = options.k, count = int64_t(links.size()) * k;
  LinkPairs out;
  out.src.resize(size_t(count));
  out.dst.resize(size_t(count));
  std::vector<int64_t> order;
  if (worthSourceOrder(options, count))
    order = bySource(int64_t(links.size()), options.numNodes, [&](int64_t p) {
      return positives.src[size_t(links[size_t(p)])];
    });
  forEachNegativeIn(
      count,
      [&](int64_t i) {
        return order.empty() ? i : order[size_t(i / k)] * k + i % k;
      },
      [&](int64_t slot) {
        const int64_t e = links[size_t(slot / k)];
        out.src[size_t(slot)] = positives.src[size_t(e)];
        out.dst[size_t(slot)] = tailOf(epoch, positives, e, slot % k);
      });
  return out;
}

TripleList NegativeSampler::corruptTriples(
    int64_t epoch, const TripleList &positives, int64_t begin, int64_t end,
    const std::vector<CorruptionRange> &ranges) const {
  const int64_t k = options.k, count = (end - begin) * k;
  TripleList out;
  out.head.resize(size_t(count));
  out.relation.resize(size_t(count));
  out.tail.resize(size_t(count));
  forEachNegative(count, [&](int64_t i) {
    const int64_t e = begin + i / k, slot = e * k + i % k;
    const int64_t h = positives.head[size_t(e)], t = positives.tail[size_t(e)];
    const int32_t r = positives.relation[size_t(e)];
    CorruptionRange range{0, options.numNodes, 0, options.numNodes};
    if (!ranges.empty())
      range = ranges[size_t(r)];
    for (int attempt = 0;; ++attempt) {
      if (attempt == options.maxAttempts)
        noNegative(e,
                   std::to_string(h) + ", relation " + std::to_string(r) +
                       ", " + std::to_string(t),
                   attempt);
      // Word 2 picks the side, words 0-1 the node in that side's range.
      const std::array<uint32_t, 4> bits =
          attemptBits(options, epoch, slot, attempt);
      const bool head = (bits[2] & 1) != 0;
      const int64_t lo = head ? range.headBegin : range.tailBegin;
      const int64_t hi = head ? range.headEnd : range.tailEnd;
      if (hi <= lo)
        throw DataError("negative sampling: relation " + std::to_string(r) +
                        " has no candidate " + (head ? "head" : "tail") +
                        " nodes");
      const int64_t node = lo + offsetBelow(bits, hi - lo);
      const int64_t nh = head ? node : h, nt = head ? t : node;
      if (!options.exclude || !options.exclude->contains(nh, nt, r)) {
        out.head[size_t(i)] = nh;
        out.relation[size_t(i)] = r;
        out.tail[size_t(i)] = nt;
        return;
      }
    }
  });
  return out;
}

} // namespace gnnrt
