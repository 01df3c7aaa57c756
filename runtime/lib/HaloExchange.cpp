//===- HaloExchange.cpp - boundary rows between partitions ----------------===//

#include "gnnrt/HaloExchange.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
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

} // namespace

HaloExchange::HaloExchange(Communicator &comm, int64_t numOwned,
                           std::vector<int64_t> recvOffsets,
                           std::vector<int64_t> sendOffsets,
                           std::vector<int64_t> sendNodes)
    : comm(comm), owned(numOwned), recvOffsets(std::move(recvOffsets)),
      sendOffsets(std::move(sendOffsets)), sendNodes(std::move(sendNodes)) {}

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

std::vector<GraphStorage> HaloExchange::buildSplit(Split which) const {
  const int parts = comm.size(), self = comm.rank();
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
  // Graph k's edges. Owned: k = 0, sources are owned ids. PerPart: k = q,
  // sources numbered within q's rows. Halo: k = 0, sources by halo position.
  const size_t graphs = which == Split::PerPart ? size_t(parts) : 1;
  std::vector<std::vector<int64_t>> src(graphs), dst(graphs);
  for (int64_t v = 0; v < local.numDst; ++v)
    for (int64_t e = local.inOffsets[v]; e < local.inOffsets[v + 1]; ++e) {
      const int64_t u = local.edgeSrc[e];
      const int q = ownerOf(u);
      // Owned keeps q == self; PerPart (whose own graph is Owned) and Halo
      // keep the others.
      if ((which == Split::Owned) != (q == self))
        continue;
      const size_t k = which == Split::PerPart ? size_t(q) : 0;
      src[k].push_back(q == self ? u
                       : which == Split::Halo
                           ? u - owned
                           : u - owned - recvOffsets[q]);
      dst[k].push_back(v);
    }
  std::vector<GraphStorage> built;
  for (size_t k = 0; k < graphs; ++k) {
    const int q = int(k);
    const int64_t rows =
        which == Split::Owned  ? owned
        : which == Split::Halo ? numHalo()
        : q == self            ? owned
                               : recvOffsets[q + 1] - recvOffsets[q];
    built.push_back(
        GraphStorage::build(std::max(rows, owned), owned, src[k], dst[k]));
  }
  return built;
}

const GraphStorage &HaloExchange::partGraph(int q) const {
  if (q == comm.rank())
    return ownedSources;
  if (byPart.empty())
    byPart = buildSplit(Split::PerPart);
  return byPart[size_t(q)];
}

const GraphStorage &HaloExchange::haloGraph() const {
  if (!haloSources)
    haloSources = std::make_unique<GraphStorage>(
        std::move(buildSplit(Split::Halo).front()));
  return *haloSources;
}

/// One step of a ring exchange: the rows this rank sends and receives, and
/// the transfer in flight.
template <typename T> struct RingStep {
  std::vector<T> send, recv;
  std::unique_ptr<PendingTransfer> transfer;
  int to = 0, from = 0;
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

template <typename T>
void HaloExchange::aggregate(Reduce reduce, bool selfLoops, const T *x,
                             int64_t width, T *out, HaloMode mode) const {
  const int64_t haloBytes = numHalo() * width * int64_t(sizeof(T));
  if (mode == HaloMode::Sequential ||
      (mode == HaloMode::Auto && haloBytes > haloBudgetBytes())) {
    aggregateSequential(reduce, selfLoops, x, width, out);
    return;
  }
  // One-shot: the whole halo arrives while the owned sources are reduced.
  const int64_t bytes = width * int64_t(sizeof(T));
  std::vector<T> send(sendNodes.size() * size_t(width));
  packRows(sendNodes, 0, int64_t(sendNodes.size()), x, width, send.data());
  std::vector<T> halo(size_t(std::max(numHalo(), owned) * width), T(0));
  auto transfer = comm.startAllToAllV(send.data(), scaled(sendOffsets, bytes),
                                      halo.data(), scaled(recvOffsets, bytes));
  countOneShot(fwd, bytes, /*toOwners=*/false);
  kernels::aggregate<T>(ownedSources.view(), Reduce::Sum,
                        selfLoops, x, width, nullptr, 1, out);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  fwd.seconds += since(waitStart);
  send = std::vector<T>();
  kernels::aggregate<T>(haloGraph().view(), Reduce::Sum, false, halo.data(),
                        width, nullptr, 1, out, /*accumulate=*/true);
  if (reduce == Reduce::Mean)
    divideByCounts(inDegree, selfLoops, width, out);
}

template <typename T>
void HaloExchange::aggregateGrad(Reduce reduce, bool selfLoops, const T *dy,
                                 int64_t width, T *dx, HaloMode mode) const {
  const int64_t haloBytes = numHalo() * width * int64_t(sizeof(T));
  if (mode == HaloMode::Sequential ||
      (mode == HaloMode::Auto && haloBytes > haloBudgetBytes())) {
    aggregateGradSequential(reduce, selfLoops, dy, width, dx);
    return;
  }
  const int64_t bytes = width * int64_t(sizeof(T));
  std::vector<T> scaledDy(dy, dy + owned * width);
  if (reduce == Reduce::Mean)
    divideByCounts(inDegree, selfLoops, width, scaledDy.data());
  // The halo rows' gradients go to their owners while the owned sources'
  // gradient is computed.
  const GraphView h = haloGraph().view();
  std::vector<T> haloGrad(size_t(h.numSrc * width), T(0));
  kernels::aggregateGradInput<T>(h, Reduce::Sum, false, scaledDy.data(),
                                 nullptr, nullptr, width, nullptr, 1,
                                 haloGrad.data());
  std::vector<T> back(sendNodes.size() * size_t(width));
  auto transfer =
      comm.startAllToAllV(haloGrad.data(), scaled(recvOffsets, bytes),
                          back.data(), scaled(sendOffsets, bytes));
  countOneShot(bwd, bytes, /*toOwners=*/true);
  kernels::aggregateGradInput<T>(ownedSources.view(),
                                 Reduce::Sum, selfLoops, scaledDy.data(),
                                 nullptr, nullptr, width, nullptr, 1, dx);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  bwd.seconds += since(waitStart);
  addRows(sendNodes, 0, int64_t(sendNodes.size()), back.data(), width, dx);
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

template <typename T>
void HaloExchange::aggregateSequential(Reduce reduce, bool selfLoops,
                                       const T *x, int64_t width,
                                       T *out) const {
  const int parts = comm.size(), self = comm.rank();
  const int64_t bytes = width * int64_t(sizeof(T));
  // Step k sends `to` the rows it needs and receives `from`'s rows; two
  // steps are in memory at a time, so the next part's rows arrive while
  // the current ones are reduced.
  RingStep<T> steps[2];
  auto post = [&](int k) {
    RingStep<T> &s = steps[k % 2];
    s.to = (self + k) % parts;
    s.from = (self - k + parts) % parts;
    const int64_t sendRows = sendOffsets[s.to + 1] - sendOffsets[s.to];
    const int64_t recvRows = recvOffsets[s.from + 1] - recvOffsets[s.from];
    s.send.resize(size_t(sendRows * width));
    packRows(sendNodes, sendOffsets[s.to], sendOffsets[s.to + 1], x, width,
             s.send.data());
    // Sized for the larger of the part graph's sources and the rows sent.
    s.recv.assign(size_t(std::max(recvRows, owned) * width), T(0));
    s.transfer = comm.startSendRecv(s.send.data(), sendRows * bytes, s.to,
                                    s.recv.data(), recvRows * bytes, s.from);
    fwd.sentBytes += sendRows * bytes;
    fwd.receivedBytes += recvRows * bytes;
  };
  if (parts > 1)
    post(1);
  // Sums first; a mean divides by the whole graph's counts at the end.
  kernels::aggregate<T>(ownedSources.view(), Reduce::Sum, selfLoops, x,
                        width, nullptr, 1, out);
  // At most three buffers live: the part being reduced, and the next
  // step's rows in flight both ways. Each remote share is added to `out`
  // in place.
  for (int k = 1; k < parts; ++k) {
    RingStep<T> &s = steps[k % 2];
    const auto start = std::chrono::steady_clock::now();
    s.transfer->wait();
    fwd.seconds += since(start);
    s.send = std::vector<T>();
    if (k + 1 < parts)
      post(k + 1);
    kernels::aggregate<T>(partGraph(s.from).view(), Reduce::Sum, false,
                          s.recv.data(), width, nullptr, 1, out,
                          /*accumulate=*/true);
    s.recv = std::vector<T>(); // this part's rows are done with
  }
  if (reduce == Reduce::Mean)
    divideByCounts(inDegree, selfLoops, width, out);
}

template <typename T>
void HaloExchange::aggregateGradSequential(Reduce reduce, bool selfLoops,
                                           const T *dy, int64_t width,
                                           T *dx) const {
  const int parts = comm.size(), self = comm.rank();
  const int64_t n = owned * width;
  const int64_t bytes = width * int64_t(sizeof(T));
  // The adjoint of the final division (a sum needs no copy of dy), then
  // transposed sums.
  std::vector<T> scaledCopy;
  const T *scaled = dy;
  if (reduce == Reduce::Mean) {
    scaledCopy.assign(dy, dy + n);
    divideByCounts(inDegree, selfLoops, width, scaledCopy.data());
    scaled = scaledCopy.data();
  }
  // Step k computes the gradient of the rows `to` sent in the forward pass
  // and sends it back, while `from` returns those of the rows this rank
  // sent it. The next step's gradient is computed while one is in flight;
  // its receive buffer is made only once the previous step is done with,
  // so at most three buffers live.
  RingStep<T> steps[2];
  auto compute = [&](int k) {
    RingStep<T> &s = steps[k % 2];
    s.to = (self + k) % parts;
    s.from = (self - k + parts) % parts;
    const GraphView g = partGraph(s.to).view();
    s.send.assign(size_t(g.numSrc * width), T(0));
    kernels::aggregateGradInput<T>(g, Reduce::Sum, false, scaled, nullptr,
                                   nullptr, width, nullptr, 1, s.send.data());
  };
  auto start = [&](int k) {
    RingStep<T> &s = steps[k % 2];
    const int64_t haloRows = recvOffsets[s.to + 1] - recvOffsets[s.to];
    const int64_t ownRows = sendOffsets[s.from + 1] - sendOffsets[s.from];
    s.recv.resize(size_t(ownRows * width));
    s.transfer = comm.startSendRecv(s.send.data(), haloRows * bytes, s.to,
                                    s.recv.data(), ownRows * bytes, s.from);
    bwd.sentBytes += haloRows * bytes;
    bwd.receivedBytes += ownRows * bytes;
  };
  auto finish = [&](int k) {
    RingStep<T> &s = steps[k % 2];
    const auto waitStart = std::chrono::steady_clock::now();
    s.transfer->wait();
    bwd.seconds += since(waitStart);
    addRows(sendNodes, sendOffsets[s.from], sendOffsets[s.from + 1],
            s.recv.data(), width, dx);
    s.send = std::vector<T>();
    s.recv = std::vector<T>();
  };
  if (parts > 1) {
    compute(1);
    start(1);
  }
  kernels::aggregateGradInput<T>(ownedSources.view(), Reduce::Sum,
                                 selfLoops, scaled, nullptr, nullptr, width,
                                 nullptr, 1, dx);
  for (int k = 1; k < parts; ++k) {
    if (k + 1 < parts)
      compute(k + 1);
    finish(k);
    if (k + 1 < parts)
      start(k + 1);
  }
}

template void HaloExchange::forward<float>(float *, int64_t) const;
template void HaloExchange::forward<double>(double *, int64_t) const;
template void HaloExchange::backward<float>(const float *, int64_t,
                                            float *) const;
template void HaloExchange::backward<double>(const double *, int64_t,
                                             double *) const;
template void HaloExchange::aggregate<float>(Reduce, bool, const float *,
                                             int64_t, float *, HaloMode) const;
template void HaloExchange::aggregate<double>(Reduce, bool, const double *,
                                              int64_t, double *,
                                              HaloMode) const;
template void HaloExchange::aggregateGrad<float>(Reduce, bool, const float *,
                                                 int64_t, float *,
                                                 HaloMode) const;
template void HaloExchange::aggregateGrad<double>(Reduce, bool,
                                                  const double *, int64_t,
                                                  double *, HaloMode) const;

} // namespace gnnrt
