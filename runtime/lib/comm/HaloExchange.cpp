//===- HaloExchange.cpp - boundary rows between partitions ----------------===//

#include "gnnrt/comm/HaloExchange.h"

#include "RingSchedule.h"

#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/support/BFloat16.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <unistd.h>

namespace gnnrt {

namespace {

std::vector<int64_t> scaled(const std::vector<int64_t> &offsets,
                            int64_t bytesPerRow) {
  std::vector<int64_t> out(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    out[i] = offsets[i] * bytesPerRow;
  return out;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// Copies rows ids[first .. last) of x into `out`, one after another.
template <typename T>
void packRows(const std::vector<int64_t> &ids, int64_t first, int64_t last,
              const T *x, int64_t width, T *out) {
  for (int64_t i = first; i < last; ++i)
    std::copy(x + ids[size_t(i)] * width, x + (ids[size_t(i)] + 1) * width,
              out + (i - first) * width);
}

/// Adds the consecutive rows of `rows` into rows ids[first .. last) of
/// `out`, in that order (so the sum order is fixed).
template <typename T>
void addRows(const std::vector<int64_t> &ids, int64_t first, int64_t last,
             const T *rows, int64_t width, T *out) {
  for (int64_t i = first; i < last; ++i) {
    T *row = out + ids[size_t(i)] * width;
    const T *add = rows + (i - first) * width;
    for (int64_t j = 0; j < width; ++j)
      row[j] += add[j];
  }
}

/// The rows a sum or mean aggregation fetches, as they travel. In a bf16 run
/// the float rows go rounded to bf16: the gathers that reduce them read
/// them rounded anyway (kernels/GatherStorage.h), so half the bytes move
/// and no result changes. Otherwise they go as they are, packed into and
/// received straight into the caller's buffers.
template <typename T> class WireRows {
public:
  /// `mayRound` false: the rows are read unrounded where they arrive (a
  /// weight gradient's dot products), so they travel as they are.
  explicit WireRows(int64_t width, bool mayRound = true)
      : width(width),
        rounded(mayRound && std::is_same_v<T, float> &&
                kernels::gatherStorage() == kernels::GatherStorage::BFloat16) {}

  int64_t rowBytes() const {
    return width * int64_t(rounded ? sizeof(BFloat16) : sizeof(T));
  }
  /// Rows ids[first .. last) of x, packed to send.
  const void *pack(const std::vector<int64_t> &ids, int64_t first,
                   int64_t last, const T *x) {
    if constexpr (std::is_same_v<T, float>) {
      if (rounded) {
        sendRounded.resize(size_t((last - first) * width));
        for (int64_t i = first; i < last; ++i)
          toBFloat16(x + ids[size_t(i)] * width,
                     sendRounded.data() + (i - first) * width, width);
        return sendRounded.data();
      }
    }
    send.resize(size_t((last - first) * width));
    packRows(ids, first, last, x, width, send.data());
    return send.data();
  }
  /// Where `rows` rows bound for `into` arrive.
  void *receive(int64_t rows, T *into) {
    landing = into;
    if (!rounded)
      return into;
    receivedRounded.resize(size_t(rows * width));
    return receivedRounded.data();
  }
  /// The received rows in the `into` of receive(), as floats.
  void land() {
    if constexpr (std::is_same_v<T, float>)
      if (rounded)
        toFloat(receivedRounded.data(), landing,
                int64_t(receivedRounded.size()));
  }
  /// Frees the buffers (a ring keeps few chunks alive).
  void release() {
    send = std::vector<T>();
    sendRounded = std::vector<BFloat16>();
    receivedRounded = std::vector<BFloat16>();
  }

private:
  int64_t width;
  bool rounded;
  std::vector<T> send;
  std::vector<BFloat16> sendRounded, receivedRounded;
  T *landing = nullptr;
};

} // namespace

HaloExchange::HaloExchange(Communicator &comm, int64_t numOwned,
                           std::vector<int64_t> recvOffsets,
                           std::vector<int64_t> sendOffsets,
                           std::vector<int64_t> sendNodes)
    : comm(comm), owned(numOwned), recvOffsets(std::move(recvOffsets)),
      sendOffsets(std::move(sendOffsets)), sendNodes(std::move(sendNodes)) {
  if (const char *rows = std::getenv("GNNRT_RING_CHUNK_ROWS"))
    chunkRows = std::max<int64_t>(1, std::atoll(rows));
}

template <typename T>
void HaloExchange::forward(T *rows, int64_t width) const {
  const auto start = std::chrono::steady_clock::now();
  const int64_t rowBytes = width * int64_t(sizeof(T));
  std::vector<T> send(sendNodes.size() * size_t(width));
  packRows(sendNodes, 0, int64_t(sendNodes.size()), rows, width, send.data());
  // Halo rows arrive straight into place: they are contiguous, by owner.
  comm.allToAllV(send.data(), scaled(sendOffsets, rowBytes),
                 rows + owned * width, scaled(recvOffsets, rowBytes));
  countOneShot(fwd, rowBytes, /*toOwners=*/false);
  fwd.seconds += since(start);
}

template <typename T>
void HaloExchange::backward(const T *grad, int64_t width, T *ownedGrad) const {
  const auto start = std::chrono::steady_clock::now();
  const int64_t rowBytes = width * int64_t(sizeof(T));
  std::vector<T> recv(sendNodes.size() * size_t(width));
  comm.allToAllV(grad + owned * width, scaled(recvOffsets, rowBytes),
                 recv.data(), scaled(sendOffsets, rowBytes));
  addRows(sendNodes, 0, int64_t(sendNodes.size()), recv.data(), width,
          ownedGrad);
  countOneShot(bwd, rowBytes, /*toOwners=*/true);
  bwd.seconds += since(start);
}

void HaloExchange::splitBySourceOwner(const GraphView &local,
                                      std::vector<float> degrees) {
  localGraph = local;
  inDegree = std::move(degrees);
  // The owned sources' edges serve every mode; the per-part and whole-halo
  // graphs are built on first use, for the modes that need them.
  ownedSources = buildSplit(Split::Owned).front();
}

int64_t HaloExchange::numChunks(int q) const {
  if (q == comm.rank())
    return 0;
  const int64_t rows = recvOffsets[q + 1] - recvOffsets[q];
  return (rows + chunkRows - 1) / chunkRows;
}

template <typename EdgeFn>
void HaloExchange::forEachSplitEdge(Split which,
                                    const std::vector<int64_t> &firstChunk,
                                    EdgeFn edge) const {
  const int self = comm.rank();
  const GraphView &local = localGraph;
  // The part owning local source u.
  auto ownerOf = [&](int64_t u) {
    if (u < owned)
      return self;
    const int64_t h = u - owned;
    return int(std::upper_bound(recvOffsets.begin(), recvOffsets.end(), h) -
               recvOffsets.begin()) -
           1;
  };
  // Graph k's edges. Owned: k = 0, sources are owned ids. PerChunk: k =
  // firstChunk[q] + i for chunk i of q's halo rows, sources numbered within
  // the chunk. Halo: k = 0, sources by halo position.
  for (int64_t v = 0; v < local.numDst; ++v)
    for (int64_t e = local.inOffsets[v]; e < local.inOffsets[v + 1]; ++e) {
      const int64_t u = local.edgeSrc[e];
      const int q = ownerOf(u);
      // Owned keeps q == self; PerChunk and Halo keep the others.
      if ((which == Split::Owned) != (q == self))
        continue;
      int64_t k = 0, id = q == self ? u : u - owned;
      if (which == Split::PerChunk) {
        const int64_t row = u - owned - recvOffsets[q];
        k = firstChunk[size_t(q)] + row / chunkRows;
        id = row % chunkRows;
      }
      edge(k, id, v, e);
    }
}

std::vector<GraphStorage> HaloExchange::buildSplit(Split which) const {
  const int parts = comm.size();
  std::vector<int64_t> first(size_t(parts) + 1, 0);
  for (int q = 0; q < parts; ++q)
    first[size_t(q) + 1] = first[size_t(q)] + numChunks(q);
  const size_t graphs =
      which == Split::PerChunk ? size_t(first.back()) : size_t(1);
  std::vector<std::vector<int64_t>> src(graphs), dst(graphs);
  forEachSplitEdge(which, first,
                   [&](int64_t k, int64_t id, int64_t v, int64_t) {
                     src[size_t(k)].push_back(id);
                     dst[size_t(k)].push_back(v);
                   });
  std::vector<GraphStorage> built;
  for (size_t k = 0; k < graphs; ++k) {
    // GraphStorage wants at least as many sources as destinations;
    // chunkGraph() narrows the view to the chunk's rows.
    const int64_t rows = which == Split::Halo ? numHalo() : owned;
    built.push_back(
        GraphStorage::build(std::max(rows, owned), owned, src[k], dst[k]));
    std::vector<int64_t>().swap(src[k]);
    std::vector<int64_t>().swap(dst[k]);
  }
  if (which == Split::PerChunk)
    chunkFirst = std::move(first);
  return built;
}

void HaloExchange::indexSplitEdges() const {
  if (edgesIndexed)
    return;
  edgesIndexed = true;
  if (byChunk.empty())
    byChunk = buildSplit(Split::PerChunk);
  // GraphStorage::build orders a destination's in-edges by source id,
  // stably: so do the ids here, edge for edge. An edge's source as its
  // split graph numbers it follows from its local source.
  const GraphView &local = localGraph;
  auto splitSource = [&](int64_t e) {
    const int64_t u = local.edgeSrc[e];
    if (u < owned)
      return u;
    const int64_t h = u - owned;
    const int q =
        int(std::upper_bound(recvOffsets.begin(), recvOffsets.end(), h) -
            recvOffsets.begin()) -
        1;
    return (h - recvOffsets[size_t(q)]) % chunkRows;
  };
  auto index = [&](Split which, size_t graphs) {
    std::vector<std::vector<int64_t>> ids(graphs);
    forEachSplitEdge(which, chunkFirst,
                     [&](int64_t k, int64_t, int64_t, int64_t e) {
                       ids[size_t(k)].push_back(e);
                     });
    // Pushed destination by destination, in local edge order (which runs
    // destination-major): sort each destination's run.
    for (std::vector<int64_t> &list : ids)
      for (size_t begin = 0; begin < list.size();) {
        const int64_t v = local.edgeDst[list[begin]];
        size_t end = begin;
        while (end < list.size() && local.edgeDst[list[end]] == v)
          ++end;
        std::stable_sort(list.begin() + int64_t(begin),
                         list.begin() + int64_t(end),
                         [&](int64_t a, int64_t b) {
                           return splitSource(a) < splitSource(b);
                         });
        begin = end;
      }
    return ids;
  };
  ownedEdgeIds = std::move(index(Split::Owned, 1).front());
  chunkEdgeIds = index(Split::PerChunk, byChunk.size());
  // The weights would silently go to the wrong edges otherwise.
  auto check = [&](const GraphView &g, const std::vector<int64_t> &ids) {
    for (int64_t j = 0; j < g.numEdges; ++j)
      if (g.edgeDst[j] != local.edgeDst[ids[size_t(j)]] ||
          g.edgeSrc[j] != splitSource(ids[size_t(j)]))
        throw std::logic_error("HaloExchange: a split graph's edge order "
                               "differs from its edge ids'");
  };
  check(ownedSources.view(), ownedEdgeIds);
  for (size_t k = 0; k < byChunk.size(); ++k)
    check(byChunk[k].view(), chunkEdgeIds[k]);
}

GraphView HaloExchange::chunkGraph(int q, int64_t i) const {
  if (byChunk.empty())
    byChunk = buildSplit(Split::PerChunk);
  GraphView g = byChunk[size_t(chunkFirst[size_t(q)] + i)].view();
  // No self loops here: the chunk's rows are all the sources there are.
  g.numSrc = std::min(chunkRows,
                      recvOffsets[q + 1] - recvOffsets[q] - i * chunkRows);
  return g;
}

const std::vector<int64_t> &HaloExchange::ownedSourceEdges() const {
  indexSplitEdges();
  return ownedEdgeIds;
}

const std::vector<int64_t> &HaloExchange::chunkEdges(int q, int64_t i) const {
  indexSplitEdges();
  return chunkEdgeIds[size_t(chunkFirst[size_t(q)] + i)];
}

const GraphStorage &HaloExchange::haloGraph() const {
  if (!haloSources)
    haloSources = std::make_unique<GraphStorage>(
        std::move(buildSplit(Split::Halo).front()));
  return *haloSources;
}

/// One transfer of the sequential ring: the rows this rank sends and
/// receives, and the transfer in flight.
template <typename T> struct RingStep {
  std::vector<T> send, recv;
  std::unique_ptr<PendingTransfer> transfer;
  /// The forward's rows as they travel (the adjoint's go as they are).
  std::optional<WireRows<T>> wire;
};

namespace {

/// out[v] /= the number of messages v reduced (mean), or dy's adjoint.
template <typename T>
void divideByCounts(const std::vector<float> &inDegree, bool selfLoops,
                    int64_t width, T *rows) {
  for (size_t v = 0; v < inDegree.size(); ++v) {
    const T count = T(inDegree[v] + (selfLoops ? 1 : 0));
    if (count > 0)
      for (int64_t j = 0; j < width; ++j)
        rows[int64_t(v) * width + j] /= count;
  }
}

/// The weights of a split graph's edges in its own order (`ids`: their
/// local edge ids), in `storage`.
template <typename T>
const T *splitWeights(const std::vector<int64_t> &ids, const T *weight,
                      int64_t weightWidth, std::vector<T> &storage) {
  storage.resize(ids.size() * size_t(weightWidth));
  for (size_t i = 0; i < ids.size(); ++i)
    std::copy_n(weight + ids[i] * weightWidth, weightWidth,
                storage.data() + int64_t(i) * weightWidth);
  return storage.data();
}

/// splitWeights of the owned sources' graph, or of chunk i of part q's;
/// null without weights, so that an unweighted aggregation never indexes
/// the split graphs' edges.
template <typename T>
const T *ownedWeights(const HaloExchange &halo, const T *weight,
                      int64_t weightWidth, std::vector<T> &storage) {
  return weight ? splitWeights(halo.ownedSourceEdges(), weight, weightWidth,
                               storage)
                : nullptr;
}
template <typename T>
const T *chunkWeights(const HaloExchange &halo, int q, int64_t i,
                      const T *weight, int64_t weightWidth,
                      std::vector<T> &storage) {
  return weight
             ? splitWeights(halo.chunkEdges(q, i), weight, weightWidth, storage)
             : nullptr;
}

/// The adjoint of a mean's final division: dy divided by the counts, in
/// `storage`. A sum's is dy itself, read in place.
template <typename T>
const T *divisionAdjoint(Reduce reduce, const std::vector<float> &inDegree,
                         bool selfLoops, const T *dy, int64_t width,
                         std::vector<T> &storage) {
  if (reduce != Reduce::Mean)
    return dy;
  storage.assign(dy, dy + int64_t(inDegree.size()) * width);
  divideByCounts(inDegree, selfLoops, width, storage.data());
  return storage.data();
}

} // namespace

int64_t HaloExchange::haloBudgetBytes() {
  if (const char *mb = std::getenv("GNNRT_HALO_BUDGET_MB"))
    return int64_t(std::atoll(mb)) << 20;
  const int64_t memory =
      int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGE_SIZE));
  int64_t ranksHere = 1;
  if (const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    ranksHere = std::max<int64_t>(1, std::atoll(local));
  return memory / 8 / ranksHere;
}

namespace {
std::atomic<int64_t> oneShotLimitBytes{std::numeric_limits<int64_t>::max()};
} // namespace

void HaloExchange::setOneShotLimitBytes(int64_t bytes) {
  oneShotLimitBytes.store(bytes);
}

bool HaloExchange::fetchesWholeHalo(HaloMode mode, int64_t rowBytes) const {
  if (mode == HaloMode::Sequential)
    return false;
  if (mode == HaloMode::Auto)
    return numHalo() * rowBytes <= haloBudgetBytes();
  // One-shot holds the halo's rows (at least the owned rows' count) and
  // the rows it sends at once.
  const int64_t rows = std::max(numHalo(), owned) + int64_t(sendNodes.size());
  return rows * rowBytes <= oneShotLimitBytes.load();
}

template <typename T>
void HaloExchange::aggregate(Reduce reduce, bool selfLoops, const T *x,
                             int64_t width, T *out, HaloMode mode) const {
  if (!fetchesWholeHalo(mode, width * int64_t(sizeof(T)))) {
    aggregateSequential<T>(reduce, selfLoops, x, width, nullptr, 1, out);
    return;
  }
  // One-shot: the whole halo arrives while the owned sources are reduced.
  WireRows<T> wire(width);
  const int64_t bytes = wire.rowBytes();
  const void *send =
      wire.pack(sendNodes, 0, int64_t(sendNodes.size()), x);
  std::vector<T> halo(size_t(std::max(numHalo(), owned) * width), T(0));
  auto transfer = comm.startAllToAllV(
      send, scaled(sendOffsets, bytes), wire.receive(numHalo(), halo.data()),
      scaled(recvOffsets, bytes));
  countOneShot(fwd, bytes, /*toOwners=*/false);
  kernels::aggregate<T>(ownedSources.view(), Reduce::Sum,
                        selfLoops, x, width, nullptr, 1, out);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  fwd.seconds += since(waitStart);
  wire.land();
  wire.release();
  kernels::aggregate<T>(haloGraph().view(), Reduce::Sum, false, halo.data(),
                        width, nullptr, 1, out, /*accumulate=*/true);
  if (reduce == Reduce::Mean)
    divideByCounts(inDegree, selfLoops, width, out);
}

template <typename T>
void HaloExchange::aggregateOver(const GraphView &graph, Reduce reduce,
                                 bool selfLoops, const T *x, int64_t width,
                                 T *out) const {
  // The owned rows, then the halo's from their owners.
  std::vector<T> rows(size_t((owned + numHalo()) * width));
  std::copy_n(x, owned * width, rows.data());
  forward(rows.data(), width);
  kernels::aggregate<T>(graph, reduce, selfLoops, rows.data(), width, nullptr,
                        1, out);
}

template <typename T>
void HaloExchange::aggregateGradOver(const GraphView &graph, Reduce reduce,
                                     bool selfLoops, const T *dy,
                                     int64_t width, T *dx) const {
  // Every source row's share, then the halo rows' sent to their owners.
  std::vector<T> rows(size_t((owned + numHalo()) * width));
  kernels::aggregateGradInput<T>(graph, reduce, selfLoops, dy, nullptr,
                                 nullptr, width, nullptr, 1, rows.data());
  std::copy_n(rows.data(), owned * width, dx);
  backward(rows.data(), width, dx);
}

template <typename T>
void HaloExchange::aggregateGrad(Reduce reduce, bool selfLoops, const T *dy,
                                 int64_t width, T *dx, HaloMode mode) const {
  if (!fetchesWholeHalo(mode, width * int64_t(sizeof(T)))) {
    aggregateGradSequential<T>(reduce, selfLoops, dy, width, nullptr, 1, dx);
    return;
  }
  const int64_t bytes = width * int64_t(sizeof(T));
  std::vector<T> storage;
  const T *scaledDy =
      divisionAdjoint(reduce, inDegree, selfLoops, dy, width, storage);
  // The halo rows' gradients go to their owners while the owned sources'
  // gradient is computed.
  const GraphView h = haloGraph().view();
  std::vector<T> haloGrad(size_t(h.numSrc * width), T(0));
  kernels::aggregateGradInput<T>(h, Reduce::Sum, false, scaledDy,
                                 nullptr, nullptr, width, nullptr, 1,
                                 haloGrad.data());
  std::vector<T> back(sendNodes.size() * size_t(width));
  auto transfer =
      comm.startAllToAllV(haloGrad.data(), scaled(recvOffsets, bytes),
                          back.data(), scaled(sendOffsets, bytes));
  countOneShot(bwd, bytes, /*toOwners=*/true);
  kernels::aggregateGradInput<T>(ownedSources.view(),
                                 Reduce::Sum, selfLoops, scaledDy,
                                 nullptr, nullptr, width, nullptr, 1, dx);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  bwd.seconds += since(waitStart);
  addRows(sendNodes, 0, int64_t(sendNodes.size()), back.data(), width, dx);
}

void HaloExchange::addTraffic(const CommTraffic &forward,
                              const CommTraffic &backward) const {
  for (auto [total, more] : {std::make_pair(&fwd, &forward),
                             std::make_pair(&bwd, &backward)}) {
    total->sentBytes += more->sentBytes;
    total->receivedBytes += more->receivedBytes;
    total->seconds += more->seconds;
  }
}

void HaloExchange::countOneShot(CommTraffic &traffic, int64_t rowBytes,
                                bool toOwners) const {
  const int self = comm.rank();
  const int64_t sendRows =
      sendOffsets.back() - (sendOffsets[self + 1] - sendOffsets[self]);
  const int64_t haloRows =
      recvOffsets.back() - (recvOffsets[self + 1] - recvOffsets[self]);
  traffic.sentBytes += (toOwners ? haloRows : sendRows) * rowBytes;
  traffic.receivedBytes += (toOwners ? sendRows : haloRows) * rowBytes;
}

template <typename T, typename OwnedWork, typename OnChunk>
void HaloExchange::fetchInChunks(const T *x, int64_t width,
                                 CommTraffic &traffic, bool mayRound,
                                 OwnedWork ownedWork, OnChunk onChunk) const {
  const int parts = comm.size(), self = comm.rank();
  auto sendRows = [&](int q) { return sendOffsets[q + 1] - sendOffsets[q]; };
  const std::vector<RingTransfer> plan = ringSchedule(
      parts, self,
      [&](int to) { return (sendRows(to) + chunkRows - 1) / chunkRows; },
      [&](int from) { return numChunks(from); });
  // Transfer t sends `to` a chunk of the rows it needs and receives a chunk
  // of `from`'s rows. At most three buffers live: the chunk being used
  // and the next transfer's both ways.
  RingStep<T> steps[2];
  auto post = [&](size_t t) {
    const RingTransfer &r = plan[t];
    RingStep<T> &s = steps[t % 2];
    WireRows<T> &wire = s.wire.emplace(width, mayRound);
    const void *send = nullptr;
    void *recv = nullptr;
    int64_t sendBytes = 0, recvBytes = 0;
    if (r.to != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(sendOffsets[r.to], sendRows(r.to),
                                      r.chunk, chunkRows);
      send = wire.pack(sendNodes, first, last, x);
      sendBytes = (last - first) * wire.rowBytes();
    }
    if (r.from != Communicator::kNoPeer) {
      const int64_t rows = chunkGraph(r.from, r.chunk).numSrc;
      s.recv.resize(size_t(rows * width));
      recv = wire.receive(rows, s.recv.data());
      recvBytes = rows * wire.rowBytes();
    }
    s.transfer =
        comm.startSendRecv(send, sendBytes, r.to, recv, recvBytes, r.from);
    traffic.sentBytes += sendBytes;
    traffic.receivedBytes += recvBytes;
  };
  if (!plan.empty())
    post(0);
  ownedWork();
  for (size_t t = 0; t < plan.size(); ++t) {
    RingStep<T> &s = steps[t % 2];
    const auto start = std::chrono::steady_clock::now();
    s.transfer->wait();
    traffic.seconds += since(start);
    s.wire->land();
    s.wire->release();
    if (t + 1 < plan.size())
      post(t + 1);
    if (plan[t].from != Communicator::kNoPeer)
      onChunk(plan[t].from, plan[t].chunk,
              static_cast<const T *>(s.recv.data()));
    s.recv = std::vector<T>(); // this chunk's rows are done with
  }
}

template <typename T>
void HaloExchange::aggregateSequential(Reduce reduce, bool selfLoops,
                                       const T *x, int64_t width,
                                       const T *weight, int64_t weightWidth,
                                       T *out) const {
  std::vector<T> w; // the weights of the graph being reduced
  // Sums first, each remote chunk's share added to `out` in place; a mean
  // divides by the whole graph's counts at the end.
  fetchInChunks(
      x, width, fwd, /*mayRound=*/true,
      [&] {
        kernels::aggregate<T>(
            ownedSources.view(), Reduce::Sum, selfLoops, x, width,
            ownedWeights(*this, weight, weightWidth, w), weightWidth, out);
      },
      [&](int q, int64_t i, const T *rows) {
        kernels::aggregate<T>(chunkGraph(q, i), Reduce::Sum, false, rows, width,
                              chunkWeights(*this, q, i, weight, weightWidth, w),
                              weightWidth, out, /*accumulate=*/true);
      });
  if (reduce == Reduce::Mean)
    divideByCounts(inDegree, selfLoops, width, out);
}

template <typename T>
void HaloExchange::aggregateWeighted(Reduce reduce, bool selfLoops, const T *x,
                                     int64_t width, const T *weight,
                                     int64_t weightWidth, T *out) const {
  aggregateSequential(reduce, selfLoops, x, width, weight, weightWidth, out);
}

template <typename T>
void HaloExchange::aggregateWeightedGrad(Reduce reduce, bool selfLoops,
                                         const T *dy, int64_t width,
                                         const T *weight, int64_t weightWidth,
                                         T *dx) const {
  aggregateGradSequential(reduce, selfLoops, dy, width, weight, weightWidth,
                          dx);
}

template <typename T>
void HaloExchange::aggregateWeightGrad(Reduce reduce, bool selfLoops,
                                       const T *dy, const T *x, int64_t width,
                                       const T *weight, int64_t weightWidth,
                                       T *dweight) const {
  std::vector<T> storage;
  const T *scaledDy =
      divisionAdjoint(reduce, inDegree, selfLoops, dy, width, storage);
  // Each split graph's weight gradient, in its edge order, then written to
  // its edges' places (every local edge is in exactly one split graph).
  std::vector<T> w, dw;
  auto gradOf = [&](const GraphView &g, const std::vector<int64_t> &ids,
                    bool loops, const T *rows) {
    dw.assign(ids.size() * size_t(weightWidth), T(0));
    kernels::aggregateGradWeight<T>(
        g, Reduce::Sum, loops, scaledDy, rows, nullptr, width,
        splitWeights(ids, weight, weightWidth, w), weightWidth, dw.data());
    for (size_t i = 0; i < ids.size(); ++i)
      std::copy_n(dw.data() + int64_t(i) * weightWidth, weightWidth,
                  dweight + ids[i] * weightWidth);
  };
  // The remote rows again, as the forward fetched them (rematerialized),
  // unrounded: the dot products read them as they are.
  fetchInChunks(
      x, width, bwd, /*mayRound=*/false,
      [&] { gradOf(ownedSources.view(), ownedSourceEdges(), selfLoops, x); },
      [&](int q, int64_t i, const T *rows) {
        gradOf(chunkGraph(q, i), chunkEdges(q, i), false, rows);
      });
}

template <typename T>
void HaloExchange::aggregateGradSequential(Reduce reduce, bool selfLoops,
                                           const T *dy, int64_t width,
                                           const T *weight, int64_t weightWidth,
                                           T *dx) const {
  std::vector<T> w; // the weights of the graph being transposed
  const int parts = comm.size(), self = comm.rank();
  const int64_t bytes = width * int64_t(sizeof(T));
  // The adjoint of the final division, then transposed sums.
  std::vector<T> storage;
  const T *scaled =
      divisionAdjoint(reduce, inDegree, selfLoops, dy, width, storage);
  auto sendRows = [&](int q) { return sendOffsets[q + 1] - sendOffsets[q]; };
  // Transfer t returns to `to` the gradient of a chunk of the rows `to`
  // sent in the forward pass, and receives from `from` that of a chunk of
  // the rows this rank sent it. The next transfer's gradient is computed
  // while one is in flight; its receive buffer is made only once the
  // previous transfer is done with, so at most three buffers live.
  const std::vector<RingTransfer> plan = ringSchedule(
      parts, self, [&](int to) { return numChunks(to); },
      [&](int from) { return (sendRows(from) + chunkRows - 1) / chunkRows; });
  RingStep<T> steps[2];
  auto compute = [&](size_t t) {
    const RingTransfer &r = plan[t];
    RingStep<T> &s = steps[t % 2];
    if (r.to == Communicator::kNoPeer)
      return;
    const GraphView g = chunkGraph(r.to, r.chunk);
    s.send.assign(size_t(g.numSrc * width), T(0));
    kernels::aggregateGradInput<T>(
        g, Reduce::Sum, false, scaled, nullptr, nullptr, width,
        chunkWeights(*this, r.to, r.chunk, weight, weightWidth, w), weightWidth,
        s.send.data());
  };
  auto start = [&](size_t t) {
    const RingTransfer &r = plan[t];
    RingStep<T> &s = steps[t % 2];
    int64_t recvRows = 0;
    if (r.from != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(0, sendRows(r.from), r.chunk,
                                      chunkRows);
      recvRows = last - first;
    }
    s.recv.resize(size_t(recvRows * width));
    const int64_t sendBytes = int64_t(s.send.size() * sizeof(T));
    s.transfer = comm.startSendRecv(s.send.data(), sendBytes, r.to,
                                    s.recv.data(), recvRows * bytes, r.from);
    bwd.sentBytes += sendBytes;
    bwd.receivedBytes += recvRows * bytes;
  };
  auto finish = [&](size_t t) {
    const RingTransfer &r = plan[t];
    RingStep<T> &s = steps[t % 2];
    const auto waitStart = std::chrono::steady_clock::now();
    s.transfer->wait();
    bwd.seconds += since(waitStart);
    if (r.from != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(sendOffsets[r.from], sendRows(r.from),
                                      r.chunk, chunkRows);
      addRows(sendNodes, first, last, s.recv.data(), width, dx);
    }
    s.send = std::vector<T>();
    s.recv = std::vector<T>();
  };
  if (!plan.empty()) {
    compute(0);
    start(0);
  }
  kernels::aggregateGradInput<T>(
      ownedSources.view(), Reduce::Sum, selfLoops, scaled, nullptr, nullptr,
      width, ownedWeights(*this, weight, weightWidth, w), weightWidth, dx);
  for (size_t t = 0; t < plan.size(); ++t) {
    if (t + 1 < plan.size())
      compute(t + 1);
    finish(t);
    if (t + 1 < plan.size())
      start(t + 1);
  }
}

template void HaloExchange::forward<float>(float *, int64_t) const;
template void HaloExchange::forward<double>(double *, int64_t) const;
template void HaloExchange::backward<float>(const float *, int64_t,
                                            float *) const;
template void HaloExchange::backward<double>(const double *, int64_t,
                                             double *) const;
template void HaloExchange::aggregateOver<float>(const GraphView &, Reduce,
                                                 bool, const float *, int64_t,
                                                 float *) const;
template void HaloExchange::aggregateOver<double>(const GraphView &, Reduce,
                                                  bool, const double *,
                                                  int64_t, double *) const;
template void HaloExchange::aggregateGradOver<float>(const GraphView &,
                                                     Reduce, bool,
                                                     const float *, int64_t,
                                                     float *) const;
template void HaloExchange::aggregateGradOver<double>(const GraphView &,
                                                      Reduce, bool,
                                                      const double *, int64_t,
                                                      double *) const;
template void HaloExchange::aggregate<float>(Reduce, bool, const float *,
                                             int64_t, float *, HaloMode) const;
template void HaloExchange::aggregate<double>(Reduce, bool, const double *,
                                              int64_t, double *,
                                              HaloMode) const;
#define GNNRT_INSTANTIATE_WEIGHTED(T)                                          \
  template void HaloExchange::aggregateWeighted<T>(                            \
      Reduce, bool, const T *, int64_t, const T *, int64_t, T *) const;        \
  template void HaloExchange::aggregateWeightedGrad<T>(                        \
      Reduce, bool, const T *, int64_t, const T *, int64_t, T *) const;        \
  template void HaloExchange::aggregateWeightGrad<T>(                          \
      Reduce, bool, const T *, const T *, int64_t, const T *, int64_t, T *)    \
      const;
GNNRT_INSTANTIATE_WEIGHTED(float)
GNNRT_INSTANTIATE_WEIGHTED(double)
#undef GNNRT_INSTANTIATE_WEIGHTED
template void HaloExchange::aggregateGrad<float>(Reduce, bool, const float *,
                                                 int64_t, float *,
                                                 HaloMode) const;
template void HaloExchange::aggregateGrad<double>(Reduce, bool,
                                                  const double *, int64_t,
                                                  double *, HaloMode) const;

} // namespace gnnrt
