//===- MetisPartitioner.cpp - Multi-constraint k-way METIS partitioning ---===//
//
// DistDGL partitions with METIS balancing nodes, and optionally edges and
// training nodes, so that every trainer has about the same aggregation work
// and the same number of loss terms. We call METIS_PartGraphKway the way
// gpmetis does (default options, then seed and ufactor), on the graph
// MetisGraph.cpp builds, so that our result can be checked against the
// gpmetis command on the file writeMetisGraph produces: with equal seed and
// ufactor the two compute the same partition. METIS is single-threaded and
// deterministic for a fixed seed.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partitioner.h"

#include "MetisGraph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <metis.h>
#include <type_traits>
#include <vector>

namespace gnnrt {

static_assert(std::is_same_v<idx_t, int32_t>,
              "MetisGraph stores ids as int32_t, METIS must use 32-bit idx_t");

namespace {
const char *metisStatusName(int status) {
  switch (status) {
  case METIS_ERROR_INPUT:
    return "invalid input";
  case METIS_ERROR_MEMORY:
    return "out of memory";
  default:
    return "internal error";
  }
}
/// METIS's per-constraint imbalance tolerances (ubvec): 1 + ufactor / 1000,
/// unless one vertex's weight alone exceeds that slack over the mean part,
/// as for a node type of 5 nodes in 2 parts (one part must hold 3 = 1.2 x
/// the mean). Such a constraint may be off by one vertex; an unsatisfiable
/// one would make METIS trade every other constraint's balance away. Empty
/// (METIS's ufactor applies to all) when no constraint needs more.
std::vector<real_t> balanceTolerances(const MetisGraph &g, int numParts,
                                      int64_t ufactor) {
  if (g.vwgt.empty())
    return {};
  const size_t ncon = size_t(g.ncon);
  std::vector<double> total(ncon, 0), heaviest(ncon, 0);
  for (size_t k = 0; k < g.vwgt.size(); ++k) {
    total[k % ncon] += g.vwgt[k];
    heaviest[k % ncon] = std::max<double>(heaviest[k % ncon], g.vwgt[k]);
  }
  const double base = 1.0 + double(ufactor) / 1000.0;
  std::vector<real_t> tolerance(ncon);
  bool widened = false;
  for (size_t c = 0; c < ncon; ++c) {
    const double mean = total[c] / double(numParts);
    const double oneVertex = 1.0 + heaviest[c] / mean;
    widened = widened || oneVertex > base;
    tolerance[c] = real_t(std::max(base, oneVertex));
  }
  return widened ? tolerance : std::vector<real_t>();
}
} // namespace

std::vector<int32_t> metisPartition(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *objective) {
  if (options.ufactor < 1 || options.ufactor > 100000)
    throw DataError("partition: ufactor must lie in [1, 100000] (got " +
                    std::to_string(options.ufactor) + ")");
  // Validates the constraints even when there is nothing to partition.
  MetisGraph g = buildMetisGraph(ds, options.balance, options.edgeAssign);
  if (objective)
    *objective = 0;
  // Typed graphs only, for now: on untyped ones the partition stays what it
  // has been (an infeasible edges column included).
  return partitionMetisGraph(g, options.numParts, options.ufactor, options.seed,
                             ds.isHeterogeneous(), objective);
}

std::vector<int32_t> partitionMetisGraph(MetisGraph &g, int numParts,
                                         int64_t ufactor, uint64_t seed,
                                         bool widenTolerances,
                                         int64_t *objective) {
  std::vector<int32_t> part(size_t(g.numVertices), 0);
  // One part needs no METIS call (and METIS's k-way refinement has nothing
  // to do); its objective is 0.
  if (numParts == 1 || g.numVertices == 0)
    return part;
  idx_t metisOptions[METIS_NOPTIONS];
  METIS_SetDefaultOptions(metisOptions);
  metisOptions[METIS_OPTION_SEED] = idx_t(seed & 0x7fffffffu);
  metisOptions[METIS_OPTION_UFACTOR] = idx_t(ufactor);
  metisOptions[METIS_OPTION_NUMBERING] = 0;

  idx_t nvtxs = idx_t(g.numVertices), ncon = idx_t(g.ncon);
  idx_t nparts = idx_t(numParts), objval = 0;
  std::vector<real_t> tolerance = widenTolerances
                                      ? balanceTolerances(g, numParts, ufactor)
                                      : std::vector<real_t>();
  int status = METIS_PartGraphKway(
      &nvtxs, &ncon, g.xadj.data(), g.adjncy.data(),
      g.vwgt.empty() ? nullptr : g.vwgt.data(), /*vsize=*/nullptr,
      g.adjwgt.empty() ? nullptr : g.adjwgt.data(), &nparts,
      /*tpwgts=*/nullptr, tolerance.empty() ? nullptr : tolerance.data(),
      metisOptions, &objval, part.data());
  if (status != METIS_OK)
    throw DataError(std::string("partition: METIS_PartGraphKway failed (") +
                    metisStatusName(status) + ")");
  if (objective)
    *objective = objval;
  return part;
}

} // namespace gnnrt
