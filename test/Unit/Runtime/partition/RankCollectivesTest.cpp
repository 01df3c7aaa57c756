//===- RankCollectivesTest.cpp - Typed exchanges and agreed failures ------===//
//
// The distributed partitioner's helpers on one rank (SerialCommunicator):
// records arrive unchanged and in order, whether an exchange goes in one
// round or in many small ones, and a failing phase becomes a DataError with
// its message. The several-rank behaviour is tested end to end under
// mpirun (test/Distributed/partition-distributed.test).
//
//===----------------------------------------------------------------------===//

#include "partition/distributed/RankCollectives.h"

#include "gnnrt/support/Error.h"

#include <gtest/gtest.h>

#include <numeric>

namespace gnnrt {
namespace {

TEST(RankCollectives, RecordsArriveInOrder) {
  SerialCommunicator comm;
  struct Pair {
    int64_t a;
    int32_t b;
  };
  std::vector<int64_t> from;
  std::vector<Pair> got = exchangeRecords<Pair>(
      comm, 1000, [](int64_t i) { return i % 3 == 0 ? -1 : 0; },
      [](int64_t i) {
        return Pair{i, int32_t(-i)};
      },
      &from);
  ASSERT_EQ(got.size(), 666u); // every third record was not sent
  EXPECT_EQ(from, (std::vector<int64_t>{0, 666}));
  int64_t expected = 1;
  for (const Pair &p : got) {
    EXPECT_EQ(p.a, expected);
    EXPECT_EQ(p.b, -expected);
    expected += expected % 3 == 2 ? 2 : 1;
  }
}

TEST(RankCollectives, ManyRoundsMoveTheSameBytes) {
  SerialCommunicator comm;
  std::vector<char> send(1001);
  std::iota(send.begin(), send.end(), char(0));
  const std::vector<int64_t> offsets = {0, int64_t(send.size())};
  for (int64_t round : {int64_t(7), int64_t(1000), int64_t(1) << 30}) {
    std::vector<char> recv(send.size(), 0);
    exchangeBytes(comm, send.data(), offsets, recv.data(),
                  exchangeSizes(comm, offsets), round);
    EXPECT_EQ(recv, send) << "rounds of " << round << " bytes";
  }
}

TEST(RankCollectives, FailuresBecomeTheSameDataError) {
  SerialCommunicator comm;
  EXPECT_NO_THROW(agreeOnFailure(comm, [] {}));
  try {
    agreeOnFailure(comm, [] { throw DataError("edge.csv:4: bad row"); });
    FAIL() << "expected a DataError";
  } catch (const DataError &e) {
    EXPECT_STREQ(e.what(), "edge.csv:4: bad row");
  }
  EXPECT_EQ(broadcastString(comm, "temp-dir", 0), "temp-dir");
}

} // namespace
} // namespace gnnrt
