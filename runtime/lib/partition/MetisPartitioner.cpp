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

#include <metis.h>
#include <type_traits>

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
} // namespace

std::vector<int32_t> metisPartition(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *objective) {
  if (options.ufactor < 1 || options.ufactor > 100000)
    throw DataError("partition: ufactor must lie in [1, 100000] (got " +
                    std::to_string(options.ufactor) + ")");
  // Validates the constraints even when there is nothing to partition.
  MetisGraph g = buildMetisGraph(ds, options.balance, options.edgeAssign);
  std::vector<int32_t> part(size_t(ds.numNodes), 0);
  if (objective)
    *objective = 0;
  // One part needs no METIS call (and METIS's k-way refinement has nothing
  // to do); its objective is 0.
  if (options.numParts == 1 || ds.numNodes == 0)
    return part;

  idx_t metisOptions[METIS_NOPTIONS];
  METIS_SetDefaultOptions(metisOptions);
  metisOptions[METIS_OPTION_SEED] = idx_t(options.seed & 0x7fffffffu);
  metisOptions[METIS_OPTION_UFACTOR] = idx_t(options.ufactor);
  metisOptions[METIS_OPTION_NUMBERING] = 0;

  idx_t nvtxs = idx_t(g.numVertices), ncon = idx_t(g.ncon);
  idx_t nparts = idx_t(options.numParts), objval = 0;
  int status = METIS_PartGraphKway(
      &nvtxs, &ncon, g.xadj.data(), g.adjncy.data(),
      g.vwgt.empty() ? nullptr : g.vwgt.data(), /*vsize=*/nullptr,
      g.adjwgt.empty() ? nullptr : g.adjwgt.data(), &nparts,
      /*tpwgts=*/nullptr, /*ubvec=*/nullptr, metisOptions, &objval,
      part.data());
  if (status != METIS_OK)
    throw DataError(std::string("partition: METIS_PartGraphKway failed (") +
                    metisStatusName(status) + ")");
  if (objective)
    *objective = objval;
  return part;
}

} // namespace gnnrt
