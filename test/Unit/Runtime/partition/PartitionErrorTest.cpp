//===- PartitionErrorTest.cpp - Exact messages for bad partition dirs -----===//
//
// Each test writes a valid 4-part partitioning of Cora, damages one thing
// (the rank count, the manifest, one part file) and asserts the complete
// message a rank would print before training. Messages name the file, so a
// user knows what to regenerate.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/Partitioner.h"

#include "TestUtil.h"
#include "gnnrt/io/Npy.h"

#include <csignal>
#include <filesystem>
#include <sys/resource.h>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
class BadPartition : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    LoadOptions load;
    load.addReverseEdges = true;
    load.dedupe = true;
    load.useCache = false;
    cora = new Dataset(loadDataset(coraDir(), load));
  }
  static void TearDownTestSuite() {
    delete cora;
    cora = nullptr;
  }
  void SetUp() override {
    PartitionOptions o;
    o.method = PartitionMethod::Random;
    o.numParts = 4;
    PartitionManifest m;
    m.method = o.method;
    m.dataset = coraDir();
    PartitionPlan plan =
        buildPartitionPlan(*cora, partitionNodes(*cora, o), 4, EdgeAssign::Dst);
    fillManifestCounts(m, *cora, plan);
    writePartitions(dir(), *cora, plan, m);
  }
  std::string dir() const { return tmp / "parts"; }
  std::string file(const std::string &rel) const { return dir() + "/" + rel; }
  std::string read(int rank = 1, int ranks = 4) const {
    return dataErrorOf([&] { readPartition(dir(), rank, ranks); });
  }
  /// Rewrites manifest.json with `from` replaced by `to` (once).
  void editManifest(const std::string &from, const std::string &to) {
    std::string text = readBytes(file("manifest.json"));
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    writeFile(file("manifest.json"), text.replace(at, from.size(), to));
  }

  static Dataset *cora;
  TempDir tmp;
};
Dataset *BadPartition::cora = nullptr;
} // namespace

TEST_F(BadPartition, ValidBaselineLoads) {
  EXPECT_EQ(read(), "<no error>");
  Partition p = readPartition(dir() + "/", 3, 4);
  EXPECT_EQ(p.part, 3);
  EXPECT_EQ(p.numOwned(), 677); // 2708 / 4, exactly balanced
  EXPECT_EQ(p.numFeatures, 1433);
}

TEST_F(BadPartition, WrongRankCount) {
  EXPECT_EQ(read(0, 2), file("manifest.json") +
                            ": manifest has 4 partitions but 2 ranks are "
                            "running");
  EXPECT_EQ(read(0, 1),
            file("manifest.json") +
                ": manifest has 4 partitions but 1 rank is running");
}

TEST_F(BadPartition, NotADirectory) {
  EXPECT_EQ(dataErrorOf([&] { readPartition(tmp / "nowhere", 0, 4); }),
            tmp / "nowhere: no such partition directory");
}

TEST_F(BadPartition, MissingManifest) {
  std::filesystem::remove(file("manifest.json"));
  EXPECT_EQ(read(), file("manifest.json") +
                        ": missing partition manifest (write the directory "
                        "with gnn-partition)");
}

TEST_F(BadPartition, TruncatedManifest) {
  std::string text = readBytes(file("manifest.json"));
  writeFile(file("manifest.json"), text.substr(0, 40));
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: unterminated string at offset "
                        "40");
}

TEST_F(BadPartition, ManifestFieldOfWrongType) {
  editManifest("\"num_parts\": 4", "\"num_parts\": \"4\"");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: field 'num_parts' must be an "
                        "integer >= 1");
}

TEST_F(BadPartition, ManifestMissingPartField) {
  editManifest("\"halo_nodes\"", "\"halo\"");
  EXPECT_EQ(read(), file("manifest.json") + ": corrupt manifest: missing field "
                                            "'parts[0].halo_nodes'");
}

TEST_F(BadPartition, ManifestCountsDoNotAddUp) {
  editManifest("\"owned_nodes\": 677", "\"owned_nodes\": 676");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: per-part owned nodes sum to "
                        "2707, but 'num_nodes' is 2708");
}

TEST_F(BadPartition, ManifestFromTheFuture) {
  editManifest("\"version\": 2", "\"version\": 3");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": unsupported manifest version 3 (this gnnrt reads "
                        "versions 1 to 2)");
}

TEST_F(BadPartition, MissingPartDirectory) {
  std::filesystem::remove_all(file("part1"));
  EXPECT_EQ(read(), file("part1") + ": missing partition directory");
  EXPECT_EQ(read(0), "<no error>"); // rank 0 does not need part1
}

TEST_F(BadPartition, MissingPartFile) {
  std::filesystem::remove(file("part1/indices.npy"));
  EXPECT_EQ(read(), file("part1/indices.npy") + ": missing partition file");
}

TEST_F(BadPartition, TruncatedPartFile) {
  std::string path = file("part1/features.npy");
  std::filesystem::resize_file(path, 128 + 1000);
  EXPECT_EQ(read(), path + ": truncated: expected 3880564 data bytes, found "
                           "1000"); // 677 x 1433 x 4
}

TEST_F(BadPartition, TruncatedHeader) {
  std::string path = file("part1/labels.npy");
  std::filesystem::resize_file(path, 6);
  EXPECT_EQ(read(), path + ": not a .npy file (bad magic)");
}

TEST_F(BadPartition, PartFileOfWrongShape) {
  std::vector<int64_t> ids(10);
  writeNpy(file("part1/nodes.npy"), NpyType::Int64, {10}, ids.data());
  EXPECT_EQ(read(), file("part1/nodes.npy") +
                        ": expected shape (677,) (from manifest.json), found "
                        "(10,)");
}

TEST_F(BadPartition, PartFileOfWrongDtype) {
  Partition p = readPartition(dir(), 1, 4);
  std::vector<int64_t> wide(p.indices.begin(), p.indices.end());
  writeNpy(file("part1/indices.npy"), NpyType::Int64, {int64_t(wide.size())},
           wide.data());
  EXPECT_EQ(read(),
            file("part1/indices.npy") + ": expected dtype '<i4', found '<i8'");
}

TEST_F(BadPartition, IdOutOfRange) {
  Partition p = readPartition(dir(), 1, 4);
  p.sendNodes[3] = 677;
  writeNpy(file("part1/send_nodes.npy"), NpyType::Int64,
           {int64_t(p.sendNodes.size())}, p.sendNodes.data());
  EXPECT_EQ(read(), file("part1/send_nodes.npy") +
                        ": corrupt partition: element 3 is 677, expected [0, "
                        "677)");
}

TEST_F(BadPartition, PartitionBook) {
  EXPECT_EQ(readPartitionBook(dir()).size(), 2708u);
  std::filesystem::resize_file(file("node_owner.npy"), 128 + 4 * 100);
  EXPECT_EQ(dataErrorOf([&] { readPartitionBook(dir()); }),
            file("node_owner.npy") +
                ": truncated: expected 10832 data bytes, found 400");
}

TEST_F(BadPartition, FailedWriteLeavesEarlierOutputIntact) {
  // A 1 MB file-size limit makes the first features.npy (3.9 MB) fail
  // halfway, as a full disk would.
  PartitionOptions o;
  o.method = PartitionMethod::Random;
  o.numParts = 2;
  PartitionManifest m;
  PartitionPlan plan =
      buildPartitionPlan(*cora, partitionNodes(*cora, o), 2, EdgeAssign::Dst);
  fillManifestCounts(m, *cora, plan);
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit limited = saved;
  limited.rlim_cur = 1 << 20;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string error =
      dataErrorOf([&] { writePartitions(dir(), *cora, plan, m); });
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_EQ(error.rfind(tmp / ".parts.tmp-", 0), 0u) << error;
  EXPECT_NE(error.find("/part0/features.npy: cannot write: File too large"),
            std::string::npos)
      << error;
  // The 4-part output is untouched and nothing else is left beside it.
  EXPECT_EQ(read(2, 4), "<no error>");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()),
                          std::filesystem::directory_iterator()),
            1);
}
