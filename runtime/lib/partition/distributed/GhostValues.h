//===- GhostValues.h - Values of remote neighbours -------------*- C++ -*-===//
//
// Internal to gnnrt. A rank of the distributed partitioner owns a block of
// vertices, and its rows name neighbours that other ranks own (ghosts).
// The refinement needs every neighbour's part, the contraction of a level
// every neighbour's coarse id: the same exchange of one int32 per owned
// vertex to the ranks that hold it as a ghost. Each owner is asked once,
// at construction, which of its vertices a rank needs; `refresh` then
// costs one all_to_all of those values.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_GHOSTVALUES_H
#define GNNRT_LIB_PARTITION_GHOSTVALUES_H

#include "DistributedGraph.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

class GhostValues {
public:
  /// Collective.
  GhostValues(Communicator &comm, const std::vector<int64_t> &vtxdist,
              const DistributedMetisGraph &g);

  /// Takes one value per owned vertex and fetches the ghosts'. Collective.
  void refresh(const std::vector<int32_t> &owned);

  /// The value of the neighbour of adjacency entry i.
  int32_t neighbourValue(size_t i) const { return values[size_t(slot[i])]; }

  /// The neighbour of adjacency entry i: a local vertex, or numLocal + the
  /// index of a ghost (numGhosts of them, by ascending global id).
  int32_t neighbourSlot(size_t i) const { return slot[i]; }
  size_t numGhosts() const { return ghosts.size(); }
  /// The value of ghost g (after refresh).
  int32_t ghostValue(size_t g) const { return values[size_t(numLocal) + g]; }

private:
  Communicator &comm;
  int64_t begin, numLocal;
  /// The ghosts' global ids, ascending; the owned ids other ranks asked
  /// for, grouped by asking rank (servedFrom: each rank's first, then end).
  std::vector<int64_t> ghosts, served, servedFrom;
  /// Per adjacency entry: a local vertex, or numLocal + a ghost's index.
  std::vector<int32_t> slot;
  std::vector<int32_t> values;
};

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_GHOSTVALUES_H
