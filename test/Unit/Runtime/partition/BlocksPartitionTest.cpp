//===- BlocksPartitionTest.cpp - node blocks, refined, on turn-taking ranks ===//
//
// The distributed partitioner's `blocks` method, as --offload's start-up
// runs it: ranks that take turns in one process (TurnTaking) each read a
// slice of an .npy dataset, start from contiguous blocks of node ids, and
// the balance pass refines the cut. The result keeps METIS's node balance,
// cuts fewer edges than the blocks it started from, and is a partition
// directory whose book and manifest agree.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/TurnCommunicator.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/partition/DistributedPartitioner.h"
#include "gnnrt/partition/PartitionDirectory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <unistd.h>

namespace gnnrt {
namespace {

/// Edges (either direction) whose endpoints lie in different parts.
int64_t cutEdges(const Dataset &ds, const std::vector<int32_t> &part) {
  std::set<std::pair<int64_t, int64_t>> cut;
  for (size_t e = 0; e < ds.src.size(); ++e)
    if (part[size_t(ds.src[e])] != part[size_t(ds.dst[e])])
      cut.emplace(std::min(ds.src[e], ds.dst[e]),
                  std::max(ds.src[e], ds.dst[e]));
  return int64_t(cut.size());
}

TEST(BlocksPartition, TurnTakingRanksRefineNodeBlocks) {
  const char *tmp = std::getenv("TMPDIR");
  const std::filesystem::path root =
      std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
      ("gnnrt-blocks-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  GeneratorOptions g;
  g.numNodes = 600;
  g.numEdges = 6000;
  g.numFeatures = 8;
  g.numClasses = 4;
  g.seed = 3;
  const Dataset ds = generateDataset(g);
  writeNpyDataset((root / "data").string(), ds);

  PartitionOptions options;
  options.method = PartitionMethod::Blocks;
  options.numParts = 3;
  options.balance = {BalanceConstraint::Nodes};
  LoadOptions load;
  load.dedupe = true;
  load.useCache = false;
  PartitionManifest fields;
  fields.dataset = (root / "data").string();
  const std::string out = (root / "parts").string();
  TurnTaking ranks(3, [](int, int) {});
  ranks.run([&](int k) {
    partitionDistributed(ranks.communicator(k), fields.dataset, load, options,
                         out, fields);
  });

  const PartitionManifest m = readPartitionManifest(out);
  EXPECT_EQ(m.method, PartitionMethod::Blocks);
  ASSERT_EQ(m.parts.size(), 3u);
  const std::vector<int32_t> book = readPartitionBook(out);
  ASSERT_EQ(book.size(), size_t(g.numNodes));
  std::vector<int64_t> owned(3, 0);
  for (int32_t p : book)
    ++owned[size_t(p)];
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(m.parts[p].ownedNodes, owned[p]) << "part " << p;
    // METIS's bound: within (1 + ufactor / 1000) of the mean.
    EXPECT_LE(owned[p], 200 * (1000 + options.ufactor) / 1000) << "part " << p;
  }
  std::vector<int32_t> blocks(size_t(g.numNodes));
  for (int64_t v = 0; v < g.numNodes; ++v)
    blocks[size_t(v)] = int32_t(v * 3 / g.numNodes);
  EXPECT_LT(cutEdges(ds, book), cutEdges(ds, blocks));
  std::filesystem::remove_all(root);
}

} // namespace
} // namespace gnnrt
