//===- GhostValues.cpp - Values of remote neighbours ----------------------===//
//
// See GhostValues.h.
//
//===----------------------------------------------------------------------===//

#include "GhostValues.h"

#include "RankCollectives.h"

#include <algorithm>

namespace gnnrt {

GhostValues::GhostValues(Communicator &comm,
                         const std::vector<int64_t> &vtxdist,
                         const DistributedMetisGraph &g)
    : comm(comm), begin(vtxdist[size_t(comm.rank())]), numLocal(g.numLocal) {
  for (int32_t w : g.adjncy)
    if (w < begin || w >= begin + numLocal)
      ghosts.push_back(w);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  // Ask every owner once which of its vertices this rank needs.
  served = exchangeRecords<int64_t>(
      comm, int64_t(ghosts.size()),
      [&](int64_t i) { return blockOwner(vtxdist, ghosts[size_t(i)]); },
      [&](int64_t i) { return ghosts[size_t(i)]; }, &servedFrom);
  slot.resize(g.adjncy.size());
  for (size_t i = 0; i < g.adjncy.size(); ++i) {
    int64_t w = g.adjncy[i];
    slot[i] = w >= begin && w < begin + numLocal
                  ? int32_t(w - begin)
                  : int32_t(numLocal +
                            (std::lower_bound(ghosts.begin(), ghosts.end(), w) -
                             ghosts.begin()));
  }
}

void GhostValues::refresh(const std::vector<int32_t> &owned) {
  values.assign(owned.begin(), owned.end());
  std::vector<int32_t> got = exchangeRecords<int32_t>(
      comm, int64_t(served.size()),
      [&](int64_t i) {
        return int(std::upper_bound(servedFrom.begin(), servedFrom.end(), i) -
                   servedFrom.begin()) -
               1;
      },
      [&](int64_t i) { return owned[size_t(served[size_t(i)] - begin)]; });
  values.insert(values.end(), got.begin(), got.end());
}

} // namespace gnnrt
