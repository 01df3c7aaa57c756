//===- HaloExchange.h - boundary rows between partitions --------*- C++ -*-===//
//
// A rank's node tensors in the source space have one row per local node:
// its owned nodes first, then its halo (remote sources of its in-edges).
// forward() fills the halo rows from their owners, as each aggregation over
// a partitioned graph needs; backward() is its adjoint: each halo row's
// gradient goes back to its owner and is added to the owner's row. Each
// boundary row crosses the network once per remote part that needs it: the
// halo lower bound.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_COMM_HALOEXCHANGE_H
#define GNNRT_COMM_HALOEXCHANGE_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace gnnrt {

/// How HaloExchange::aggregate() fetches remote rows (gnn.halo_aggregate's
/// mode): the whole halo at once, one remote part at a time, or the former
/// when the halo buffer fits the memory budget.
enum class HaloMode { OneShot, Sequential, Auto };

class HaloExchange {
public:
  /// `recvOffsets` (size + 1): halo positions received from each rank;
  /// `sendOffsets`/`sendNodes`: the owned local ids each rank receives, in
  /// its halo order (gnnrt::Partition's exchange lists).
  HaloExchange(Communicator &comm, int64_t numOwned,
               std::vector<int64_t> recvOffsets,
               std::vector<int64_t> sendOffsets,
               std::vector<int64_t> sendNodes);

  int64_t numOwned() const { return owned; }
  int64_t numHalo() const { return recvOffsets.back(); }

  /// rows [numOwned + numHalo, width]: fills the halo rows.
  template <typename T> void forward(T *rows, int64_t width) const;
  /// grad [numOwned + numHalo, width]: adds each halo row into its owner's
  /// row of `ownedGrad` [numOwned, width] (on the owning rank).
  template <typename T>
  void backward(const T *grad, int64_t width, T *ownedGrad) const;

  /// Prepares aggregate() and aggregateGrad(): splits the rank's local
  /// graph (destinations = owned nodes, sources = owned then halo) by the
  /// owner of each edge's source. `inDegree` holds the owned nodes' in-edge
  /// counts over the whole graph (what mean divides by).
  void splitBySourceOwner(const GraphView &local,
                          std::vector<float> inDegree);

  /// aggregate(local graph, forward(x)) for a destination-space tensor x
  /// [numOwned, width] (sum or mean), with the transfers overlapping the
  /// owned sources' reduction. OneShot fetches the whole halo at once;
  /// Sequential (SAR) fetches one remote part at a time around a ring and
  /// drops its rows once reduced; Auto is OneShot when the halo buffer is
  /// within haloBudgetBytes(). Under precision = bf16 the rows travel
  /// rounded to bf16 (the halo gather rounds them anyway: GatherStorage.h).
  template <typename T>
  void aggregate(Reduce reduce, bool selfLoops, const T *x, int64_t width,
                 T *out, HaloMode mode = HaloMode::Auto) const;
  /// Its adjoint: dx [numOwned, width] from dy [numOwned, width], the
  /// remote parts' shares sent back the same way.
  template <typename T>
  void aggregateGrad(Reduce reduce, bool selfLoops, const T *dy,
                     int64_t width, T *dx,
                     HaloMode mode = HaloMode::Auto) const;

  /// aggregate() with a weight per edge of the local graph: `weight`
  /// [numEdges, weightWidth] in the local graph's edge order, each weight
  /// scaling its group of width / weightWidth columns (kernels::aggregate's
  /// weights: GAT's attention). SAR's ring only: gnn.halo_aggregate takes a
  /// weight under `aggregation = sequential_remat`, so that no remote row
  /// outlives its chunk, in the forward or, through the two adjoints below,
  /// in the backward.
  template <typename T>
  void aggregateWeighted(Reduce reduce, bool selfLoops, const T *x,
                         int64_t width, const T *weight, int64_t weightWidth,
                         T *out) const;
  /// Its adjoint for x: dx [numOwned, width], each chunk's rows' gradient
  /// sent back to their owner (aggregateGrad's ring, weighted).
  template <typename T>
  void aggregateWeightedGrad(Reduce reduce, bool selfLoops, const T *dy,
                             int64_t width, const T *weight,
                             int64_t weightWidth, T *dx) const;
  /// Its adjoint for the weights: dweight [numEdges, weightWidth], each
  /// edge's dot products of dy with its source's row. The remote rows are
  /// fetched again, chunk by chunk, as the forward fetched them (SAR's
  /// rematerialization): the backward keeps no halo either.
  template <typename T>
  void aggregateWeightGrad(Reduce reduce, bool selfLoops, const T *dy,
                           const T *x, int64_t width, const T *weight,
                           int64_t weightWidth, T *dweight) const;

  /// aggregate() over `graph` instead of the rank's whole local graph: a
  /// subgraph of it on the same nodes (one relation's edges,
  /// `relation(g, name)`), whose mean divides by its own in-edges (all of an
  /// owned node's in-edges are local). The whole halo is fetched at once.
  template <typename T>
  void aggregateOver(const GraphView &graph, Reduce reduce, bool selfLoops,
                     const T *x, int64_t width, T *out) const;
  /// Its adjoint.
  template <typename T>
  void aggregateGradOver(const GraphView &graph, Reduce reduce,
                         bool selfLoops, const T *dy, int64_t width,
                         T *dx) const;

  /// The largest halo buffer Auto fetches at once: $GNNRT_HALO_BUDGET_MB,
  /// else an eighth of physical memory shared by the node's ranks.
  static int64_t haloBudgetBytes();
  /// The most bytes a OneShot aggregate() or aggregateGrad() may hold at
  /// once (the halo's rows and the rows sent); above it they run
  /// Sequential. Unlimited unless set: out-of-core training sets its
  /// budget's chunk share, so that a program's `aggregation = one_shot`
  /// keeps to --memory-budget (OffloadSchedule).
  static void setOneShotLimitBytes(int64_t bytes);

  /// Traffic of forward() and backward() calls so far.
  const CommTraffic &forwardTraffic() const { return fwd; }
  const CommTraffic &backwardTraffic() const { return bwd; }
  void resetTraffic() const { fwd = bwd = CommTraffic(); }
  /// Counts traffic moved for this exchange by another implementation of
  /// it (DeviceHaloExchange), so that --stats reports one total.
  void addTraffic(const CommTraffic &forward, const CommTraffic &backward) const;

  /// What a device implementation of the same exchange mirrors
  /// (DeviceHaloExchange): the communicator, the exchange lists, the
  /// owned nodes' whole-graph in-degrees, and the local graph split by the
  /// owner of each edge's source (after splitBySourceOwner).
  Communicator &communicator() const { return comm; }
  const std::vector<int64_t> &haloOffsets() const { return recvOffsets; }
  const std::vector<int64_t> &sendListOffsets() const { return sendOffsets; }
  const std::vector<int64_t> &sendList() const { return sendNodes; }
  const std::vector<float> &ownedInDegrees() const { return inDegree; }
  GraphView ownedSourceGraph() const { return ownedSources.view(); }
  GraphView haloSourceGraph() const { return haloGraph().view(); }
  /// The sequential ring's chunks: their row limit, how many part q's halo
  /// rows make (0 for this rank), and chunk i's in-edges.
  int64_t ringChunkRows() const { return chunkRows; }
  int64_t numChunks(int q) const;
  GraphView chunkGraph(int q, int64_t i) const;
  /// The local edge id of each edge of ownedSourceGraph() and of
  /// chunkGraph(q, i), in their edge order: what a weight per local edge
  /// is read through (built on first use).
  const std::vector<int64_t> &ownedSourceEdges() const;
  const std::vector<int64_t> &chunkEdges(int q, int64_t i) const;

private:
  /// Whether aggregate()/aggregateGrad() in `mode` fetch the whole halo
  /// for rows of `rowBytes`, rather than SAR's ring of chunks.
  bool fetchesWholeHalo(HaloMode mode, int64_t rowBytes) const;
  /// SAR's forward ring: x's rows [numOwned, width] go to the ranks that
  /// need them and the remote parts' rows arrive, chunk by chunk, while
  /// `ownedWork()` runs after the first transfer is posted; each received
  /// chunk i of part q is handed to `onChunk(q, i, rows)` and then dropped.
  /// The bytes are counted into `traffic`. `mayRound`: under precision =
  /// bf16 the rows may travel rounded (their reader rounds them anyway).
  template <typename T, typename OwnedWork, typename OnChunk>
  void fetchInChunks(const T *x, int64_t width, CommTraffic &traffic,
                     bool mayRound, OwnedWork ownedWork, OnChunk onChunk) const;
  /// The sequential aggregation and its input adjoint; `weight` (or null)
  /// as aggregateWeighted's.
  template <typename T>
  void aggregateSequential(Reduce reduce, bool selfLoops, const T *x,
                           int64_t width, const T *weight, int64_t weightWidth,
                           T *out) const;
  template <typename T>
  void aggregateGradSequential(Reduce reduce, bool selfLoops, const T *dy,
                               int64_t width, const T *weight,
                               int64_t weightWidth, T *dx) const;
  /// Adds one one-shot exchange's bytes (forward: owners to halo holders).
  void countOneShot(CommTraffic &traffic, int64_t rowBytes,
                    bool toOwners) const;

  Communicator &comm;
  int64_t owned;
  std::vector<int64_t> recvOffsets, sendOffsets, sendNodes;
  mutable CommTraffic fwd, bwd;
  /// The local graph split by the owner of each edge's source.
  enum class Split { Owned, PerChunk, Halo };
  std::vector<GraphStorage> buildSplit(Split which) const;
  /// Calls `edge(k, src, v, e)` for each local edge e (destination v) that
  /// goes to graph k of split `which`, with its source as numbered there,
  /// in the local graph's edge order. `firstChunk[q]`: part q's first chunk
  /// graph (PerChunk).
  template <typename EdgeFn>
  void forEachSplitEdge(Split which, const std::vector<int64_t> &firstChunk,
                        EdgeFn edge) const;
  /// The local edge id of each edge of the owned-sources graph and of each
  /// chunk graph, in their own edge order (what a per-edge weight is
  /// indexed by); built on the first weighted aggregation.
  void indexSplitEdges() const;
  mutable bool edgesIndexed = false;
  mutable std::vector<int64_t> ownedEdgeIds;
  mutable std::vector<std::vector<int64_t>> chunkEdgeIds;
  /// The sequential ring moves each remote part's rows in chunks of at most
  /// this many rows, so that its three live buffers stay small whatever
  /// the part sizes: $GNNRT_RING_CHUNK_ROWS, else 65536.
  int64_t chunkRows = int64_t(1) << 16;
  /// In-edges from halo nodes, sources numbered by halo position; built on
  /// first use. (chunkGraph: the same per chunk, sources numbered within
  /// the chunk, numSrc = the chunk's rows.)
  const GraphStorage &haloGraph() const;

  GraphView localGraph;
  GraphStorage ownedSources;
  /// Chunk graphs of all parts, part by part; chunkFirst[q] is part q's
  /// first.
  mutable std::vector<GraphStorage> byChunk;
  mutable std::vector<int64_t> chunkFirst;
  mutable std::unique_ptr<GraphStorage> haloSources;
  std::vector<float> inDegree;
};

} // namespace gnnrt

#endif // GNNRT_COMM_HALOEXCHANGE_H
