//===- gather_model.cpp - Gathered rows that miss the cache, per order ----===//
//
// The floor of bench/gcn_full_graph.sh counts one gathered row per edge from
// memory ("naive"). After the trainer renumbers the nodes (--node-order
// auto, graph/Reorder.h), many of those rows are in the last-level cache;
// this prints, for the loaded graph (reverse edges added, duplicates
// dropped, as the trainer loads it), the order the trainer's auto choice
// takes and the modeled share of gathered rows that miss the cache at each
// given row width, in the original order and in that one. gcn_floor.py
// turns these into the floor of the bytes actually moved.
//
//   gather_model DATA_DIR WIDTH...     (widths in floats)
//
// Prints one line per width:
//   gather_model: width=W order=NAME miss_original=X miss=Y cache_bytes=B
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/graph/Reorder.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

using namespace gnnrt;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gather_model DATA_DIR WIDTH...\n");
    return 2;
  }
  try {
    LoadOptions load;
    load.addReverseEdges = true;
    load.dedupe = true;
    load.useCache = true;
    const Dataset ds = loadDataset(argv[1], load);
    const GraphStorage storage =
        GraphStorage::build(ds.numNodes, ds.numNodes, ds.src, ds.dst);
    const GraphView g = storage.view();
    // The trainer's choice (TrainingData.cpp: rows of 128 floats).
    const NodeOrderChoice choice = chooseNodeOrder(g, 128 * sizeof(float));
    const int64_t cache = lastLevelCacheBytes();
    for (int i = 2; i < argc; ++i) {
      const int64_t rowBytes = std::atoll(argv[i]) * int64_t(sizeof(float));
      const double original = gatherMissRate(g, {}, rowBytes, cache);
      const double chosen =
          choice.newToOld.empty()
              ? original
              : gatherMissRate(g, choice.newToOld, rowBytes, cache);
      std::printf("gather_model: width=%s order=%s miss_original=%.4f "
                  "miss=%.4f cache_bytes=%lld\n",
                  argv[i], nodeOrderName(choice.order), original, chosen,
                  (long long)cache);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gather_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
