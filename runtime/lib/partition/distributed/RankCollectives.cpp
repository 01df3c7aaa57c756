//===- RankCollectives.cpp - Typed exchanges for distributed partitioning -===//
//
// See RankCollectives.h. Large exchanges go in rounds: every rank agrees on
// the number of rounds (the largest share of any rank over the round size)
// and sends the same fraction of each destination's bytes in each round.
//
//===----------------------------------------------------------------------===//

#include "RankCollectives.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <exception>

namespace gnnrt {

std::vector<int64_t> exchangeSizes(Communicator &comm,
                                   const std::vector<int64_t> &sendOffsets) {
  const int p = comm.size();
  std::vector<int64_t> counts(static_cast<size_t>(p), 0),
      sizes(static_cast<size_t>(p), 0);
  for (int q = 0; q < p; ++q)
    counts[size_t(q)] = sendOffsets[size_t(q) + 1] - sendOffsets[size_t(q)];
  // One int64 per peer each way.
  std::vector<int64_t> offsets(size_t(p) + 1);
  for (int q = 0; q <= p; ++q)
    offsets[size_t(q)] = int64_t(q) * int64_t(sizeof(int64_t));
  comm.allToAllV(counts.data(), offsets, sizes.data(), offsets);
  std::vector<int64_t> recvOffsets(size_t(p) + 1, 0);
  for (int q = 0; q < p; ++q)
    recvOffsets[size_t(q) + 1] = recvOffsets[size_t(q)] + sizes[size_t(q)];
  return recvOffsets;
}

void exchangeBytes(Communicator &comm, const char *send,
                   const std::vector<int64_t> &sendOffsets, char *recv,
                   const std::vector<int64_t> &recvOffsets,
                   int64_t roundBytes) {
  const int p = comm.size();
  // Every rank must run the same number of rounds: the largest share.
  int64_t mine = std::max(sendOffsets[size_t(p)], recvOffsets[size_t(p)]);
  int64_t rounds = 1;
  for (int64_t share : allGather(comm, mine))
    rounds = std::max(rounds, (share + roundBytes - 1) / roundBytes);
  // Round k carries bytes [n k / rounds, n (k + 1) / rounds) of a segment.
  auto cut = [&](int64_t n, int64_t k) {
    return n / rounds * k + n % rounds * k / rounds;
  };
  if (rounds == 1) {
    comm.allToAllV(send, sendOffsets, recv, recvOffsets);
    return;
  }
  std::vector<char> sendRound, recvRound;
  std::vector<int64_t> so(size_t(p) + 1), ro(size_t(p) + 1);
  auto sent = [&](int q) {
    return sendOffsets[size_t(q) + 1] - sendOffsets[size_t(q)];
  };
  auto got = [&](int q) {
    return recvOffsets[size_t(q) + 1] - recvOffsets[size_t(q)];
  };
  for (int64_t k = 0; k < rounds; ++k) {
    so[0] = ro[0] = 0;
    for (int q = 0; q < p; ++q) {
      so[size_t(q) + 1] = so[size_t(q)] + cut(sent(q), k + 1) - cut(sent(q), k);
      ro[size_t(q) + 1] = ro[size_t(q)] + cut(got(q), k + 1) - cut(got(q), k);
    }
    sendRound.resize(size_t(so[size_t(p)]));
    recvRound.resize(size_t(ro[size_t(p)]));
    for (int q = 0; q < p; ++q)
      std::copy_n(send + sendOffsets[size_t(q)] + cut(sent(q), k),
                  so[size_t(q) + 1] - so[size_t(q)],
                  sendRound.data() + so[size_t(q)]);
    comm.allToAllV(sendRound.data(), so, recvRound.data(), ro);
    for (int q = 0; q < p; ++q)
      std::copy_n(recvRound.data() + ro[size_t(q)],
                  ro[size_t(q) + 1] - ro[size_t(q)],
                  recv + recvOffsets[size_t(q)] + cut(got(q), k));
  }
}

std::vector<int64_t> allGather(Communicator &comm, int64_t value) {
  std::vector<int64_t> values(size_t(comm.size()), 0);
  values[size_t(comm.rank())] = value;
  comm.allReduceSum(values.data(), int64_t(values.size()));
  return values;
}

std::string broadcastString(Communicator &comm, std::string text, int root) {
  const int64_t n = comm.rank() == root ? int64_t(text.size()) : 0;
  const int p = comm.size();
  std::vector<char> got = exchangeRecords<char>(
      comm, n * p, [&](int64_t i) { return int(i / std::max<int64_t>(n, 1)); },
      [&](int64_t i) { return text[size_t(i % n)]; });
  return std::string(got.begin(), got.end());
}

void agreeOnFailure(Communicator &comm, const std::function<void()> &phase) {
  std::string message;
  bool failed = false;
  try {
    phase();
  } catch (const std::bad_alloc &) {
    failed = true;
    message = "out of memory";
  } catch (const std::exception &e) {
    failed = true;
    message = e.what();
  }
  std::vector<int64_t> failures = allGather(comm, failed ? 1 : 0);
  auto first = std::find(failures.begin(), failures.end(), 1);
  if (first == failures.end())
    return;
  const int root = int(first - failures.begin());
  message = broadcastString(comm, message, root);
  throw DataError(message);
}

} // namespace gnnrt
