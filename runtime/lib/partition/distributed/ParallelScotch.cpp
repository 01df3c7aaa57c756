//===- ParallelScotch.cpp - PT-Scotch through its ParMETIS interface ------===//
//
// The only file of the partitioner that includes parmetis.h (and so
// mpi.h): PT-Scotch's interface takes an MPI_Comm, which the Communicator
// interface does not expose. The trainer's MPI communicator is
// MPI_COMM_WORLD, so that is the communicator passed.
//
//===----------------------------------------------------------------------===//

#include "ParallelScotch.h"

#include "gnnrt/support/Error.h"

// The C API only (as in Communicator.cpp): MPI's C++ bindings need a
// library we do not link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <parmetis.h>

// Scotch's generator (scotch.h, which is not on the ParMETIS include path;
// libptscotch defines both).
extern "C" void SCOTCH_randomSeed(SCOTCH_Num seed);
extern "C" void SCOTCH_randomReset(void);

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace gnnrt {

static_assert(std::is_same_v<SCOTCH_Num, int32_t>,
              "DistributedMetisGraph stores ids as int32_t; link the int32 "
              "build of PT-Scotch's ParMETIS library");

std::vector<int32_t>
parallelScotchPartition(Communicator &comm, const std::vector<int64_t> &vtxdist,
                        DistributedMetisGraph &g,
                        std::vector<int32_t> &vertexWeights, int numParts,
                        uint64_t seed) {
  int worldSize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  if (worldSize != comm.size())
    throw DataError("partition: PT-Scotch runs on MPI_COMM_WORLD, but the "
                    "communicator has " +
                    std::to_string(comm.size()) + " of its " +
                    std::to_string(worldSize) + " ranks");
  std::vector<SCOTCH_Num> dist(vtxdist.begin(), vtxdist.end());
  std::vector<int32_t> part(size_t(g.numLocal), 0);
  if (numParts == 1)
    return part;
  // Vertex weights always; edge weights when the pairs' counts differ.
  SCOTCH_Num wgtflag = g.adjwgt.empty() ? 2 : 3, numflag = 0, ncon = 1,
             nparts = numParts, edgecut = 0;
  std::vector<float> tpwgts(size_t(numParts), 1.0f / float(numParts));
  float ubvec = 1.05f; // ignored by PT-Scotch (see ParallelScotch.h)
  SCOTCH_Num options[3] = {0, 0, 0};
  MPI_Comm world = MPI_COMM_WORLD;
  // The same input gave cuts up to 3x apart from run to run (Cora, 4 parts:
  // 780 to 1290): Scotch's threads race and its generator is seeded from
  // the clock. One thread per rank (unless SCOTCH_PTHREAD_NUMBER says
  // otherwise) and the same seed on every rank make a run repeat.
  setenv("SCOTCH_PTHREAD_NUMBER", "1", /*overwrite=*/0);
  SCOTCH_randomSeed(
      SCOTCH_Num(seed % uint64_t(std::numeric_limits<int32_t>::max())));
  SCOTCH_randomReset();
  // Every vector may be empty on a rank; PT-Scotch still reads xadj[0].
  int status = SCOTCH_ParMETIS_V3_PartKway(
      dist.data(), g.xadj.data(), g.adjncy.data(), vertexWeights.data(),
      g.adjwgt.empty() ? nullptr : g.adjwgt.data(), &wgtflag, &numflag, &ncon,
      &nparts, tpwgts.data(), &ubvec, options, &edgecut, part.data(), &world);
  if (status != METIS_OK)
    throw DataError("partition: PT-Scotch's ParMETIS_V3_PartKway failed "
                    "(status " +
                    std::to_string(status) + ")");
  return part;
}

} // namespace gnnrt
