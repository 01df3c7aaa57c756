//===- TurnCommunicatorTest.cpp - ranks as threads that take turns --------===//
//
// The collectives give MPI's results (sums in rank order, transfers matched
// in posting order), exactly one rank runs at a time, the turn passes in
// rank order, and a deadlock or a failing rank ends every rank with the
// cause rather than a hang.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/TurnCommunicator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>

using namespace gnnrt;

TEST(TurnCommunicator, CollectivesMatchMpi) {
  constexpr int kRanks = 4;
  TurnTaking turns(kRanks, [](int, int) {});
  std::vector<std::vector<double>> sums(kRanks);
  std::vector<std::vector<float>> broadcasts(kRanks);
  std::vector<std::vector<int32_t>> received(kRanks);
  turns.run([&](int r) {
    Communicator &comm = turns.communicator(r);
    EXPECT_EQ(comm.rank(), r);
    EXPECT_EQ(comm.size(), kRanks);
    // The order of the additions shows: in rank order the 1 is lost to
    // 1e16's rounding.
    sums[r] = {r == 0 ? 1e16 : r == 1 ? 1.0 : r == 2 ? -1e16 : 0.5,
               double(r)};
    comm.allReduceSum(sums[r].data(), 2);
    broadcasts[r] = {float(r), float(r)};
    comm.broadcast(broadcasts[r].data(), 2, 2);
    // Rank r sends q + 1 copies of r * 10 + q to rank q.
    std::vector<int32_t> send;
    std::vector<int64_t> sendOffsets{0}, recvOffsets{0};
    for (int q = 0; q < kRanks; ++q) {
      for (int i = 0; i <= q; ++i)
        send.push_back(r * 10 + q);
      sendOffsets.push_back(int64_t(send.size() * sizeof(int32_t)));
      recvOffsets.push_back(recvOffsets.back() +
                            int64_t((r + 1) * sizeof(int32_t)));
    }
    received[r].resize(size_t(kRanks * (r + 1)));
    comm.allToAllV(send.data(), sendOffsets, received[r].data(), recvOffsets);
    comm.barrier();
  });
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(sums[r][0], 0.5);
    EXPECT_EQ(sums[r][1], 6.0);
    EXPECT_EQ(broadcasts[r], (std::vector<float>{2, 2}));
    for (int q = 0; q < kRanks; ++q)
      for (int i = 0; i <= r; ++i)
        EXPECT_EQ(received[r][size_t(q * (r + 1) + i)], q * 10 + r);
  }
}

TEST(TurnCommunicator, OneRankRunsAtATimeAndTurnsGoInRankOrder) {
  constexpr int kRanks = 3;
  std::atomic<int> running{0};
  std::vector<std::pair<int, int>> handOvers;
  TurnTaking turns(kRanks, [&](int from, int to) {
    handOvers.push_back({from, to});
  });
  turns.run([&](int r) {
    Communicator &comm = turns.communicator(r);
    for (int step = 0; step < 2; ++step) {
      EXPECT_EQ(++running, 1);
      --running;
      int64_t x = 1;
      comm.allReduceSum(&x, 1);
      EXPECT_EQ(x, kRanks);
    }
  });
  // Ranks 0 and 1 wait in the first all-reduce, which rank 2 completes
  // and runs on to wait in the second; rank 1 completes that one.
  const std::vector<std::pair<int, int>> expected = {
      {0, 1}, {1, 2}, {2, 0}, {0, 1}, {1, 2}, {2, 0}, {0, -1}};
  EXPECT_EQ(handOvers, expected);
}

TEST(TurnCommunicator, TransfersMatchInPostingOrder) {
  constexpr int kRanks = 3;
  TurnTaking turns(kRanks, [](int, int) {});
  std::vector<std::vector<int>> got(kRanks, std::vector<int>(2, -1));
  turns.run([&](int r) {
    Communicator &comm = turns.communicator(r);
    const int to = (r + 1) % kRanks, from = (r + kRanks - 1) % kRanks;
    int first = r * 100, second = r * 100 + 1;
    // Two transfers in flight to the same peer: they arrive in order.
    auto a = comm.startSendRecv(&first, sizeof first, to, &got[r][0],
                                sizeof(int), from);
    auto b = comm.startSendRecv(&second, sizeof second, to, &got[r][1],
                                sizeof(int), from);
    b->wait();
    a->wait();
    // One direction only.
    int none = 7, into = -1;
    comm.sendRecv(&none, r == 0 ? sizeof none : 0,
                  r == 0 ? 1 : Communicator::kNoPeer, &into,
                  r == 1 ? sizeof into : 0, r == 1 ? 0 : Communicator::kNoPeer);
    if (r == 1)
      EXPECT_EQ(into, 7);
  });
  for (int r = 0; r < kRanks; ++r) {
    const int from = (r + kRanks - 1) % kRanks;
    EXPECT_EQ(got[r], (std::vector<int>{from * 100, from * 100 + 1}));
  }
}

TEST(TurnCommunicator, ADeadlockIsAnErrorNotAHang) {
  TurnTaking turns(2, [](int, int) {});
  try {
    turns.run([&](int r) {
      int x = 0;
      // Both wait to receive before either sends.
      turns.communicator(r).sendRecv(nullptr, 0, Communicator::kNoPeer, &x,
                                     sizeof x, 1 - r);
    });
    FAIL() << "no error";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "send_recv can never complete: every rank waits "
                           "for another (a deadlock)");
  }
}

TEST(TurnCommunicator, AFailingRankStopsTheOthersWithItsError) {
  TurnTaking turns(3, [](int, int) {});
  try {
    turns.run([&](int r) {
      if (r == 1)
        throw std::runtime_error("rank 1's data is bad");
      turns.communicator(r).barrier();
    });
    FAIL() << "no error";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "rank 1's data is bad");
  }
  // The turns can be taken again afterwards.
  int64_t x = 1;
  std::vector<int64_t> total(3);
  turns.run([&](int r) {
    total[size_t(r)] = x;
    turns.communicator(r).allReduceSum(&total[size_t(r)], 1);
  });
  EXPECT_EQ(total, (std::vector<int64_t>{3, 3, 3}));
}
