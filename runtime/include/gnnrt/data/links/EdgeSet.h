//===- EdgeSet.h - A sorted set of (src, relation, dst) links ---*- C++ -*-===//
//
// Link prediction asks "is this pair a known edge?" everywhere: a split's
// negatives must not be edges, a sampler may exclude known positives, the
// filtered ranking removes every known true triple. One sorted array of
// keys answers all of them by binary search, and its sort order makes the
// answers of one (src, relation) a contiguous range: the known tails of a
// query. A typed edge is (src, relation, dst); an untyped one has relation
// 0. Built once, read-only afterwards, so it is shared by threads freely.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_LINKS_EDGESET_H
#define GNNRT_DATA_LINKS_EDGESET_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gnnrt {

class EdgeSet {
public:
  EdgeSet() = default;
  /// An empty set over node ids [0, numNodes), to `add` to.
  explicit EdgeSet(int64_t numNodes) : numNodes(numNodes) {}
  /// The set of (src[e], relation[e], dst[e]) over all e, with node ids in
  /// [0, numNodes); `relation` empty means relation 0 for every edge.
  /// Repeated edges are kept once.
  EdgeSet(int64_t numNodes, const std::vector<int64_t> &src,
          const std::vector<int64_t> &dst,
          const std::vector<int32_t> &relation = {});

  /// Adds edges before the set is used (then call `seal`).
  void add(int64_t src, int64_t dst, int32_t relation = 0);
  /// Sorts and dedupes what `add` appended.
  void seal();

  bool contains(int64_t src, int64_t dst, int32_t relation = 0) const;
  /// The known dst of (src, relation) in [dstBegin, dstEnd), ascending: a
  /// pointer range into the set.
  std::pair<const int64_t *, const int64_t *>
  dsts(int64_t src, int32_t relation, int64_t dstBegin, int64_t dstEnd) const;
  /// How many dst (src, relation) links to.
  int64_t degree(int64_t src, int32_t relation = 0) const;
  /// degree(v) of every node v (relation 0), in one pass over the set.
  std::vector<int64_t> degrees() const;
  size_t size() const { return keys.size(); }

private:
  /// (src, relation * numNodes + dst): sorting by it groups a (src,
  /// relation)'s dst in ascending order.
  struct Key {
    int64_t src, rest;
    bool operator<(const Key &o) const {
      return src != o.src ? src < o.src : rest < o.rest;
    }
    bool operator==(const Key &o) const {
      return src == o.src && rest == o.rest;
    }
  };
  const Key *lowerBound(Key key) const;

  int64_t numNodes = 0;
  std::vector<Key> keys;
  // The dst of each key, in key order, for `dsts`' pointer ranges.
  std::vector<int64_t> dstOf;
  // The first key of each source in [0, numNodes] (empty when a source
  // lies outside: then lookups search the whole set).
  std::vector<int64_t> srcStart;
};

} // namespace gnnrt

#endif // GNNRT_DATA_LINKS_EDGESET_H
