//===- DeviceHaloExchange.h - boundary rows between GPUs --------*- C++ -*-===//
//
// HaloExchange (gnnrt/comm/HaloExchange.h) over device memory: the same
// four operations, the same messages in the same order, and the same
// halo lower bound, with every tensor a device pointer. Rows are packed and
// added back by kernels; the split graphs and exchange lists are mirrored
// once on the device; the transfers go through the host exchange's
// communicator, which takes device buffers (NcclCommunicator). One-shot
// aggregation reduces the owned sources while the halo is in flight on the
// communicator's stream; the sequential ring (SAR) keeps one chunk being
// reduced and the next in flight, as on the host.
//
// Results equal the host exchange's: the device aggregate kernels give the
// CPU kernels' bits, and rows are added back in the host's order.
// Traffic is counted into the host exchange (HaloExchange::addTraffic), so
// --stats reports one total.
//
// Built with the CUDA libraries only (gnnrt_kernels_cuda and its emulated
// twin).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_COMM_DEVICEHALOEXCHANGE_H
#define GNNRT_COMM_DEVICEHALOEXCHANGE_H

#include "gnnrt/comm/HaloExchange.h"

#include <memory>

namespace gnnrt {

class DeviceHaloExchange {
public:
  /// Mirrors `host`'s lists and split graphs on the current device. `host`
  /// (after splitBySourceOwner) must outlive this.
  explicit DeviceHaloExchange(const HaloExchange &host);
  ~DeviceHaloExchange();
  DeviceHaloExchange(const DeviceHaloExchange &) = delete;
  DeviceHaloExchange &operator=(const DeviceHaloExchange &) = delete;

  /// HaloExchange::forward on device rows.
  template <typename T> void forward(T *rows, int64_t width) const;
  /// HaloExchange::backward on device rows.
  template <typename T>
  void backward(const T *grad, int64_t width, T *ownedGrad) const;
  /// HaloExchange::aggregate on device rows.
  template <typename T>
  void aggregate(Reduce reduce, bool selfLoops, const T *x, int64_t width,
                 T *out, HaloMode mode = HaloMode::Auto) const;
  /// HaloExchange::aggregateGrad on device rows.
  template <typename T>
  void aggregateGrad(Reduce reduce, bool selfLoops, const T *dy,
                     int64_t width, T *dx,
                     HaloMode mode = HaloMode::Auto) const;
  /// HaloExchange::aggregateWeighted and its two adjoints on device rows
  /// (SAR's ring; the weight adjoint fetches the remote rows again).
  template <typename T>
  void aggregateWeighted(Reduce reduce, bool selfLoops, const T *x,
                         int64_t width, const T *weight, int64_t weightWidth,
                         T *out) const;
  template <typename T>
  void aggregateWeightedGrad(Reduce reduce, bool selfLoops, const T *dy,
                             int64_t width, const T *weight,
                             int64_t weightWidth, T *dx) const;
  template <typename T>
  void aggregateWeightGrad(Reduce reduce, bool selfLoops, const T *dy,
                           const T *x, int64_t width, const T *weight,
                           int64_t weightWidth, T *dweight) const;
  /// HaloExchange::aggregateOver and its adjoint on device rows: over a
  /// device subgraph of the rank's graph on the same nodes (one relation's
  /// edges), the whole halo fetched at once.
  template <typename T>
  void aggregateOver(const GraphView &graph, Reduce reduce, bool selfLoops,
                     const T *x, int64_t width, T *out) const;
  template <typename T>
  void aggregateGradOver(const GraphView &graph, Reduce reduce,
                         bool selfLoops, const T *dy, int64_t width,
                         T *dx) const;

private:
  struct Mirror;
  /// HaloExchange::fetchInChunks on device rows: the forward ring, with
  /// `ownedWork()` overlapping the first transfer and `onChunk(q, i, rows)`
  /// for each chunk received.
  template <typename T, typename OwnedWork, typename OnChunk>
  void fetchInChunks(const T *x, int64_t width, CommTraffic &traffic,
                     OwnedWork ownedWork, OnChunk onChunk) const;
  /// The ring's aggregation and input adjoint, `weight` (or null) as
  /// aggregateWeighted's.
  template <typename T>
  void aggregateSequential(Reduce reduce, bool selfLoops, const T *x,
                           int64_t width, const T *weight, int64_t weightWidth,
                           T *out) const;
  template <typename T>
  void aggregateGradSequential(Reduce reduce, bool selfLoops, const T *dy,
                               int64_t width, const T *weight,
                               int64_t weightWidth, T *dx) const;
  const HaloExchange &host;
  std::unique_ptr<Mirror> mirror;
};

} // namespace gnnrt

#endif // GNNRT_COMM_DEVICEHALOEXCHANGE_H
