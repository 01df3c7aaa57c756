//===- ScheduleTest.cpp - makeSchedule picks the way of training ----------===//
//
// The trainer picks its Schedule once, from the compiled program (sampled
// when it has blocks) and the launch (distributed on several ranks or on a
// partition directory). A wrong pick is a user-visible mistake -- a sampled
// program trained full-graph, a partition trained as if it were the whole
// graph -- so every combination is checked here. makeSchedule must not
// communicate: the communicator below fails any collective.
//
//===----------------------------------------------------------------------===//

#include "train/schedule/Schedule.h"

#include "TestUtil.h"

#include <fstream>
#include <string>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// A communicator of `ranks` ranks that only answers rank() and size().
class CountOnlyCommunicator : public Communicator {
public:
  explicit CountOnlyCommunicator(int ranks) : ranks(ranks) {}
  int rank() const override { return 0; }
  int size() const override { return ranks; }
  void allReduceSum(float *, int64_t) override { fail(); }
  void allReduceSum(double *, int64_t) override { fail(); }
  void allReduceSum(int64_t *, int64_t) override { fail(); }
  void broadcast(float *, int64_t, int) override { fail(); }
  void allToAllV(const void *, const std::vector<int64_t> &, void *,
                 const std::vector<int64_t> &) override {
    fail();
  }
  void sendRecv(const void *, int64_t, int, void *, int64_t, int) override {
    fail();
  }
  std::unique_ptr<PendingTransfer>
  startSendRecv(const void *, int64_t, int, void *, int64_t, int) override {
    fail();
  }
  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *, const std::vector<int64_t> &, void *,
                 const std::vector<int64_t> &) override {
    fail();
  }
  void barrier() override { fail(); }

private:
  [[noreturn]] static void fail() {
    throw std::logic_error("choosing a schedule must not communicate");
  }
  int ranks;
};

enum class Data { Generated, DatasetDirectory, PartitionDirectory };

/// The name of the schedule makeSchedule picks for a program with
/// `numBlocks` sampled blocks (or, with `graphBatch`, batches of that many
/// graphs) on `ranks` ranks with `data` as --data.
std::string chosen(int numBlocks, int ranks, Data data, int graphBatch = 0) {
  TempDir dir;
  DriverOptions options;
  if (data == Data::DatasetDirectory)
    options.dataDir = coraDir();
  if (data == Data::PartitionDirectory) {
    // gnn-partition's output is recognised by its manifest alone.
    std::ofstream(dir / "manifest.json") << "{}\n";
    options.dataDir = dir.path();
  }
  CompiledProgram program;
  program.numBlocks = numBlocks;
  program.settings.graphBatches.batchSize = graphBatch;
  CountOnlyCommunicator comm(ranks);
  return makeSchedule(program, options, comm)->name();
}

TEST(ScheduleTest, FullGraphProgramInOneProcess) {
  EXPECT_EQ(chosen(0, 1, Data::Generated), "full_graph");
  EXPECT_EQ(chosen(0, 1, Data::DatasetDirectory), "full_graph");
}

TEST(ScheduleTest, FullGraphProgramDistributed) {
  EXPECT_EQ(chosen(0, 2, Data::Generated), "distributed_full_graph");
  EXPECT_EQ(chosen(0, 4, Data::DatasetDirectory), "distributed_full_graph");
  EXPECT_EQ(chosen(0, 2, Data::PartitionDirectory), "distributed_full_graph");
  // One process on a partition directory trains that partition.
  EXPECT_EQ(chosen(0, 1, Data::PartitionDirectory), "distributed_full_graph");
}

TEST(ScheduleTest, SampledProgramInOneProcess) {
  EXPECT_EQ(chosen(2, 1, Data::Generated), "sampled");
  EXPECT_EQ(chosen(1, 1, Data::DatasetDirectory), "sampled");
}

TEST(ScheduleTest, SampledProgramDistributed) {
  EXPECT_EQ(chosen(2, 2, Data::Generated), "distributed_sampled");
  EXPECT_EQ(chosen(2, 4, Data::DatasetDirectory), "distributed_sampled");
  EXPECT_EQ(chosen(3, 2, Data::PartitionDirectory), "distributed_sampled");
  EXPECT_EQ(chosen(2, 1, Data::PartitionDirectory), "distributed_sampled");
}

TEST(ScheduleTest, LinkProgramsTrainOnAnyRankCount) {
  CompiledProgram program;
  program.sourceFile = "gae.gnn";
  program.settings.links.enabled = true;
  DriverOptions options;
  CountOnlyCommunicator one(1), two(2);
  EXPECT_STREQ(makeSchedule(program, options, one)->name(), "link_full_graph");
  EXPECT_STREQ(makeSchedule(program, options, two)->name(),
               "link_distributed_full_graph");
  // The CUDA target's too (its pairs exchange runs over device rows).
  program.useDevice = [](int, Communicator &) {
    return std::unique_ptr<Communicator>();
  };
  EXPECT_STREQ(makeSchedule(program, options, two)->name(),
               "link_distributed_full_graph");
  program.useDevice = nullptr;
  program.numBlocks = 2;
  EXPECT_STREQ(makeSchedule(program, options, one)->name(), "link_sampled");
  EXPECT_STREQ(makeSchedule(program, options, two)->name(),
               "link_distributed_sampled");
}

} // namespace

TEST(ScheduleTest, GraphLevelProgramOnAnyRankCount) {
  // Each rank packs a share of every batch of whole graphs.
  EXPECT_EQ(chosen(0, 1, Data::DatasetDirectory, 32), "graph_batches");
  EXPECT_EQ(chosen(0, 4, Data::DatasetDirectory, 32), "graph_batches");
}
