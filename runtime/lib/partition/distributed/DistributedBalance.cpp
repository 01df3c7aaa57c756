//===- DistributedBalance.cpp - Multi-constraint balance across ranks -----===//
//
// See DistributedBalance.h. A round costs one pass over the local rows, an
// all-reduce of the parts' weights and of the ranks' requests (numParts x
// ncon values each) and one exchange of the ghosts' parts.
//
//===----------------------------------------------------------------------===//

#include "DistributedBalance.h"

#include "GhostValues.h"
#include "RankCollectives.h"

#include <algorithm>
#include <cmath>

namespace gnnrt {

namespace {

constexpr int kMaxBalanceRounds = 64;
/// Refinement stops after this many rounds, or once two rounds in a row
/// cut less than this share of the cut off it (a multilevel projection
/// keeps improving for a hundred rounds on a dense SBM graph, by less and
/// less: 32 rounds left 13% above what 200 reach).
constexpr int kMaxRefineRounds = 256;
constexpr double kMinRefineGain = 5e-4;

struct Move {
  int64_t gain;
  int64_t vertex; ///< local
  int32_t to;
};

/// The state every round reads: the bound, the parts' weights and the
/// local rows' connectivity to each part.
class Rounds {
public:
  Rounds(Communicator &comm, const DistributedMetisGraph &g, int numParts,
         int64_t ufactor, std::vector<int32_t> &part, GhostValues &ghosts)
      : comm(comm), g(g), k(size_t(numParts)), ncon(size_t(g.ncon)), part(part),
        ghosts(ghosts), limit(ncon), weight(k * ncon), conn(k, 0) {
    // The bound of every constraint, as METIS applies ubvec.
    for (size_t c = 0; c < ncon; ++c)
      limit[c] = (1.0 + double(ufactor) / 1000.0) * double(g.totals[c]) /
                 double(numParts);
  }

  /// All-reduces the parts' weights; true when all are within the bound.
  bool measure() {
    std::fill(weight.begin(), weight.end(), 0);
    for (int64_t v = 0; v < g.numLocal; ++v)
      for (size_t c = 0; c < ncon; ++c)
        weight[size_t(part[size_t(v)]) * ncon + c] += w(v, c);
    comm.allReduceSum(weight.data(), int64_t(weight.size()));
    for (size_t q = 0; q < k; ++q)
      for (size_t c = 0; c < ncon; ++c)
        if (over(q, c))
          return false;
    return true;
  }

  /// A balance round in which only rank `mover` moves: its vertices in parts
  /// over the bound, best gain first, each to the part that most reduces
  /// the total excess over the bound (sum over parts and constraints of
  /// weight / bound - 1 where positive), while a move reduces it.
  int64_t balance(int mover) {
    int64_t moved = 0;
    if (comm.rank() == mover) {
      // The roomiest part: where a vertex without a useful neighbour goes.
      size_t roomiest = 0;
      double lightest = 1e300;
      for (size_t q = 0; q < k; ++q) {
        double load = 0;
        for (size_t c = 0; c < ncon; ++c)
          load = std::max(load, double(weight[q * ncon + c]) / limit[c]);
        if (load < lightest) {
          lightest = load;
          roomiest = q;
        }
      }
      std::vector<Move> moves;
      for (int64_t v = 0; v < g.numLocal; ++v) {
        const size_t from = size_t(part[size_t(v)]);
        bool helps = false;
        for (size_t c = 0; c < ncon; ++c)
          helps = helps || (over(from, c) && w(v, c) > 0);
        if (!helps)
          continue;
        connect(v);
        Move best{INT64_MIN, v, -1};
        for (int32_t q : touched)
          if (size_t(q) != from)
            consider(best, v, q, conn[size_t(q)] - conn[from]);
        if (conn[roomiest] == 0 && roomiest != from)
          consider(best, v, int32_t(roomiest), -conn[from]);
        clear();
        if (best.to >= 0)
          moves.push_back(best);
      }
      sortByGain(moves);
      for (const Move &m : moves) {
        const size_t from = size_t(part[size_t(m.vertex)]);
        if (excessChange(m.vertex, from, size_t(m.to)) >= -1e-12)
          continue; // earlier moves already fixed what this one would
        shift(m.vertex, from, size_t(m.to));
        ++moved;
      }
    }
    comm.allReduceSum(&moved, 1);
    return moved;
  }

  /// A refinement round: every rank moves its boundary vertices with a
  /// positive gain to parts with room, only upwards (lower to higher part)
  /// or only downwards. The room is granted to the ranks in rank order.
  /// Returns the moves and the sum of their gains (both over all ranks).
  std::pair<int64_t, int64_t> refine(bool upwards) {
    std::vector<Move> moves;
    std::vector<int64_t> none(k * ncon, 0);
    for (int64_t v = 0; v < g.numLocal; ++v) {
      const size_t from = size_t(part[size_t(v)]);
      connect(v);
      Move best{0, v, -1};
      for (int32_t q : touched) {
        if (size_t(q) == from || (size_t(q) > from) != upwards ||
            !fits(size_t(q), v, none))
          continue;
        int64_t gain = conn[size_t(q)] - conn[from];
        if (gain > best.gain ||
            (gain == best.gain && best.to >= 0 && q < best.to))
          best = {gain, v, q};
      }
      clear();
      if (best.to >= 0)
        moves.push_back(best);
    }
    sortByGain(moves);
    // What this rank would move alone, then its grant.
    std::vector<int64_t> added(k * ncon, 0);
    std::vector<Move> wanted;
    for (const Move &m : moves)
      if (fits(size_t(m.to), m.vertex, added)) {
        for (size_t c = 0; c < ncon; ++c)
          added[size_t(m.to) * ncon + c] += w(m.vertex, c);
        wanted.push_back(m);
      }
    const size_t p = size_t(comm.size()), rank = size_t(comm.rank());
    std::vector<int64_t> requests(p * k * ncon, 0);
    std::copy(added.begin(), added.end(),
              requests.begin() + ptrdiff_t(rank * k * ncon));
    comm.allReduceSum(requests.data(), int64_t(requests.size()));
    std::vector<double> granted(k * ncon);
    for (size_t q = 0; q < k; ++q)
      for (size_t c = 0; c < ncon; ++c) {
        double room = limit[c] - double(weight[q * ncon + c]);
        for (size_t r = 0; r < rank; ++r)
          room -= double(requests[(r * k + q) * ncon + c]);
        granted[q * ncon + c] = room;
      }
    std::vector<int64_t> used(k * ncon, 0);
    int64_t moved = 0, gain = 0;
    for (const Move &m : wanted) {
      bool ok = true;
      for (size_t c = 0; c < ncon; ++c)
        ok = ok && double(used[size_t(m.to) * ncon + c] + w(m.vertex, c)) <=
                       granted[size_t(m.to) * ncon + c];
      if (!ok)
        continue;
      for (size_t c = 0; c < ncon; ++c)
        used[size_t(m.to) * ncon + c] += w(m.vertex, c);
      part[size_t(m.vertex)] = m.to;
      ++moved;
      gain += m.gain;
    }
    int64_t totals[2] = {moved, gain};
    comm.allReduceSum(totals, 2);
    return {totals[0], totals[1]};
  }

private:
  int64_t w(int64_t v, size_t c) const { return g.vwgt[size_t(v) * ncon + c]; }
  bool over(size_t q, size_t c) const {
    return double(weight[q * ncon + c]) > limit[c];
  }
  bool fits(size_t q, int64_t v, const std::vector<int64_t> &added) const {
    for (size_t c = 0; c < ncon; ++c)
      if (double(weight[q * ncon + c] + added[q * ncon + c] + w(v, c)) >
          limit[c])
        return false;
    return true;
  }
  double excess(size_t q, size_t c, int64_t delta) const {
    return std::max(0.0, double(weight[q * ncon + c] + delta) / limit[c] - 1);
  }
  /// How moving v from `from` to `to` changes the total excess.
  double excessChange(int64_t v, size_t from, size_t to) const {
    double change = 0;
    for (size_t c = 0; c < ncon; ++c)
      change += excess(from, c, -w(v, c)) - excess(from, c, 0) +
                excess(to, c, w(v, c)) - excess(to, c, 0);
    return change;
  }
  void consider(Move &best, int64_t v, int32_t q, int64_t gain) const {
    if (excessChange(v, size_t(part[size_t(v)]), size_t(q)) >= -1e-12)
      return;
    if (gain > best.gain || (gain == best.gain && q < best.to))
      best = {gain, v, q};
  }
  void shift(int64_t v, size_t from, size_t to) {
    for (size_t c = 0; c < ncon; ++c) {
      weight[from * ncon + c] -= w(v, c);
      weight[to * ncon + c] += w(v, c);
    }
    part[size_t(v)] = int32_t(to);
  }
  /// conn[q]: the edge weight from v to part q, for the parts in touched.
  void connect(int64_t v) {
    for (int32_t i = g.xadj[size_t(v)]; i < g.xadj[size_t(v) + 1]; ++i) {
      int32_t q = ghosts.neighbourValue(size_t(i));
      if (conn[size_t(q)] == 0)
        touched.push_back(q);
      conn[size_t(q)] += g.edgeWeight(size_t(i));
    }
  }
  void clear() {
    for (int32_t q : touched)
      conn[size_t(q)] = 0;
    touched.clear();
  }
  static void sortByGain(std::vector<Move> &moves) {
    std::sort(moves.begin(), moves.end(), [](const Move &a, const Move &b) {
      return a.gain != b.gain ? a.gain > b.gain : a.vertex < b.vertex;
    });
  }

  Communicator &comm;
  const DistributedMetisGraph &g;
  const size_t k, ncon;
  std::vector<int32_t> &part;
  GhostValues &ghosts;
  std::vector<double> limit;
  std::vector<int64_t> weight, conn;
  std::vector<int32_t> touched;
};

} // namespace

BalanceOutcome balanceParts(Communicator &comm,
                            const std::vector<int64_t> &vtxdist,
                            const DistributedMetisGraph &g, int numParts,
                            int64_t ufactor, std::vector<int32_t> &part,
                            bool moveVertices) {
  GhostValues ghosts(comm, vtxdist, g);
  auto objective = [&]() {
    int64_t cut = 0;
    for (int64_t v = 0; v < g.numLocal; ++v)
      for (int32_t i = g.xadj[size_t(v)]; i < g.xadj[size_t(v) + 1]; ++i)
        if (ghosts.neighbourValue(size_t(i)) != part[size_t(v)])
          cut += g.edgeWeight(size_t(i));
    comm.allReduceSum(&cut, 1);
    return cut / 2; // every pair is in both of its rows
  };

  BalanceOutcome outcome;
  ghosts.refresh(part);
  outcome.objectiveBefore = objective();
  Rounds rounds(comm, g, numParts, ufactor, part, ghosts);
  if (!moveVertices) {
    outcome.balanced = rounds.measure();
    outcome.objective = outcome.objectiveBefore;
    return outcome;
  }
  // Balance: the ranks take turns until a full turn moves nothing.
  int idle = 0;
  while (!(outcome.balanced = rounds.measure()) && idle < comm.size() &&
         outcome.balanceRounds < kMaxBalanceRounds) {
    int64_t moved = rounds.balance(outcome.balanceRounds % comm.size());
    ++outcome.balanceRounds;
    outcome.moved += moved;
    idle = moved == 0 ? idle + 1 : 0;
    ghosts.refresh(part);
  }
  // Refinement: alternate directions until two rounds in a row gain
  // (almost) nothing. The gains are each move's against its neighbours'
  // parts before the round, so `cut` only tracks the objective.
  idle = 0;
  double cut = double(outcome.objectiveBefore);
  while (outcome.refineRounds < kMaxRefineRounds && idle < 2) {
    rounds.measure();
    auto [moved, gain] = rounds.refine(outcome.refineRounds % 2 == 0);
    ++outcome.refineRounds;
    outcome.moved += moved;
    const bool small = moved == 0 || double(gain) < kMinRefineGain * cut;
    cut -= double(gain);
    idle = small ? idle + 1 : 0;
    ghosts.refresh(part);
  }
  outcome.balanced = rounds.measure();
  outcome.objective = objective();
  return outcome;
}

} // namespace gnnrt
