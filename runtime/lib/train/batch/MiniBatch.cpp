//===- MiniBatch.cpp - sampled batches, local and distributed -------------===//
//
// See MiniBatch.h. Every exchange is an all_to_all of variable length, done
// as two: the per-peer counts first (one int64 per peer), then the payload,
// so that every rank knows its receive offsets. A hop costs four (request
// counts and ids, then per-request neighbour counts and the neighbours); the
// feature fetch three (counts, ids, rows). Over a device communicator the
// neighbour replies and the rows are sent from and received into device
// buffers (exchangesOnDevice); the counts and ids stay host buffers.
//
//===----------------------------------------------------------------------===//

#include "MiniBatch.h"
#include "params/RowSums.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Prefetch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gnnrt {

void SamplingTraffic::add(const SamplingTraffic &o) {
  batches += o.batches;
  seeds += o.seeds;
  sampledEdges += o.sampledEdges;
  sampleRequestBytes += o.sampleRequestBytes;
  sampleReplyBytes += o.sampleReplyBytes;
  featureRequestBytes += o.featureRequestBytes;
  featureReplyBytes += o.featureReplyBytes;
  deviceReplyBytes += o.deviceReplyBytes;
  deviceRowBytes += o.deviceRowBytes;
  remoteRows += o.remoteRows;
  cachedRows += o.cachedRows;
  copiedRows += o.copiedRows;
  batchesInPlace += o.batchesInPlace;
  seconds += o.seconds;
}

std::vector<int64_t> gatherCounts(Communicator &comm, int64_t local) {
  std::vector<int64_t> counts(size_t(comm.size()), 0);
  counts[size_t(comm.rank())] = local;
  comm.allReduceSum(counts.data(), int64_t(counts.size()));
  return counts;
}

std::vector<int64_t> gatherAll(Communicator &comm,
                               const std::vector<int64_t> &local) {
  if (comm.size() == 1)
    return local;
  // Each rank fills its own run of a zeroed buffer; the sum is the
  // concatenation (the lists are small: a split's node ids).
  const std::vector<int64_t> counts =
      gatherCounts(comm, int64_t(local.size()));
  int64_t begin = 0, total = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank())
      begin = total;
    total += counts[size_t(r)];
  }
  std::vector<int64_t> all(size_t(total), 0);
  std::copy(local.begin(), local.end(), all.begin() + begin);
  comm.allReduceSum(all.data(), total);
  return all;
}

std::vector<int64_t> byteOffsets(const std::vector<int64_t> &counts,
                                 int64_t elementBytes) {
  std::vector<int64_t> offsets(counts.size() + 1, 0);
  for (size_t q = 0; q < counts.size(); ++q)
    offsets[q + 1] = offsets[q] + counts[q] * elementBytes;
  return offsets;
}

std::vector<int64_t> exchangeCounts(Communicator &comm,
                                    const std::vector<int64_t> &sendCounts,
                                    int64_t &bytes) {
  std::vector<int64_t> recvCounts(sendCounts.size());
  const std::vector<int64_t> offsets =
      byteOffsets(std::vector<int64_t>(sendCounts.size(), 1), sizeof(int64_t));
  comm.allToAllV(sendCounts.data(), offsets, recvCounts.data(), offsets);
  bytes += 2 * int64_t(sendCounts.size() * sizeof(int64_t));
  return recvCounts;
}

namespace {

/// How many rows ahead the input gather requests its rows: 4 to 16 ahead
/// copied 600k random rows of 512 bytes in 0.13 s against 0.18 s without.
constexpr int64_t kGatherRowsAhead = 8;

} // namespace

MiniBatchAssembler::MiniBatchAssembler(const TrainingData &data,
                                       int64_t numGlobalNodes, bool replace,
                                       bool perRelation, uint64_t seed,
                                       Communicator &comm,
                                       RelationFanouts relationFanouts)
    : data(data), numNodes(numGlobalNodes), replace(replace), seed(seed),
      comm(comm), relationFanouts(std::move(relationFanouts)) {
  const GraphView g = data.graph.view();
  // A heterogeneous graph's blocks keep each sampled edge's relation; ranks
  // send it with the neighbour it came from.
  adjacency = perRelation
                  ? Adjacency::perRelationOf(
                        g, this->relationFanouts.numRelations > 0
                               ? &this->relationFanouts
                               : nullptr)
                  : Adjacency::of(g);
  adjacency.globalIds = data.nodeIds.empty() ? nullptr : data.nodeIds.data();
  if (const char *dedup = std::getenv("GNNRT_SAMPLING_DEDUP")) {
    hostDedup = std::string(dedup) == "host";
    if (!hostDedup && std::string(dedup) != "device")
      throw DataError("GNNRT_SAMPLING_DEDUP=" + std::string(dedup) +
                      ": expected host or device");
  }
  if (!distributed())
    return;
  if (const char *exchange = std::getenv("GNNRT_SAMPLING_EXCHANGE")) {
    hostExchange = std::string(exchange) == "host";
    if (!hostExchange && std::string(exchange) != "device")
      throw DataError("GNNRT_SAMPLING_EXCHANGE=" + std::string(exchange) +
                      ": expected host or device");
  }
  // The partition book: owners summed over ranks (each node has exactly
  // one), and a node's row among its owner's nodes (owned nodes are local
  // ids 0.. in ascending global id).
  std::vector<int64_t> book(size_t(numNodes), 0);
  for (int64_t v = 0; v < data.data.numNodes; ++v)
    book[size_t(data.nodeIds[size_t(v)])] = comm.rank() + 1;
  comm.allReduceSum(book.data(), numNodes);
  owner.resize(size_t(numNodes));
  ownerRow.resize(size_t(numNodes));
  std::vector<int64_t> next(size_t(comm.size()), 0);
  for (int64_t v = 0; v < numNodes; ++v) {
    if (book[size_t(v)] < 1 || book[size_t(v)] > comm.size())
      throw DataError("partition book: node " + std::to_string(v) +
                      " is owned by " +
                      (book[size_t(v)] < 1 ? std::string("no rank")
                                           : std::string("several ranks")));
    owner[size_t(v)] = int32_t(book[size_t(v)] - 1);
    ownerRow[size_t(v)] = next[size_t(owner[size_t(v)])]++;
  }
  for (size_t k = 0; k < data.cachedNodes.size(); ++k)
    cacheRow[data.cachedNodes[k]] = int64_t(k);
}

std::vector<int64_t>
MiniBatchAssembler::globalIds(const std::vector<int64_t> &localIds) const {
  if (data.nodeIds.empty())
    return localIds;
  std::vector<int64_t> ids(localIds.size());
  for (size_t k = 0; k < localIds.size(); ++k)
    ids[k] = data.nodeIds[size_t(localIds[k])];
  return ids;
}

int64_t MiniBatchAssembler::localRow(int64_t globalId) const {
  return distributed() ? ownerRow[size_t(globalId)] : globalId;
}

void MiniBatchAssembler::assemble(const std::vector<int64_t> &seeds,
                                  const std::vector<int64_t> &fanouts,
                                  const SampleKey &key, BlockBuilder &builder,
                                  SampledBatch &out,
                                  SamplingTraffic &traffic, Inputs inputs) {
  const auto start = std::chrono::steady_clock::now();
  const int layers = int(fanouts.size());
  if (distributed() && deduplicatesOnDevice()) {
    // Each hop's neighbour lists stay on the device, deduplicated there;
    // its new nodes come to out.nodes, the next hop's frontier.
    device->startBatch(seeds.data(), int64_t(seeds.size()), layers, out);
    for (int layer = layers - 1; layer >= 0; --layer)
      sampleHop(out.nodes.data(), int64_t(out.nodes.size()), nullptr, layer,
                fanouts[size_t(layer)], key, traffic);
    device->finishBatch();
  } else if (distributed()) {
    builder.start(seeds.data(), int64_t(seeds.size()), layers, out);
    // Hop 1 samples the last layer's block, around the seeds.
    for (int layer = layers - 1; layer >= 0; --layer)
      sampleHop(builder.frontier(), builder.frontierSize(), &builder, layer,
                fanouts[size_t(layer)], key, traffic);
    builder.finish();
  } else if (deduplicatesOnDevice()) {
    // One process on a device: every hop is drawn and deduplicated there,
    // and the finished batch comes to the host.
    device->sampleBatch(seeds.data(), int64_t(seeds.size()), fanouts, key, out);
  } else if (device) {
    // A typed graph: drawn on the device, its blocks built here.
    builder.start(seeds.data(), int64_t(seeds.size()), layers, out);
    std::vector<int64_t> offsets, neighbors;
    for (int layer = layers - 1; layer >= 0; --layer) {
      drawNeighbors(builder.frontier(), builder.frontierSize(), layer,
                    fanouts[size_t(layer)], key, offsets, neighbors);
      addDrawnHop(builder, offsets, neighbors);
    }
    builder.finish();
  } else {
    // One process: the sampler's own loop (prefetching, reused buffers).
    SamplerOptions options;
    options.fanouts = fanouts;
    options.replace = replace;
    options.seed = key.seed;
    NeighborSampler(adjacency, numNodes, std::move(options))
        .sample(seeds.data(), int64_t(seeds.size()), key, builder, out);
  }
  if (inputs == Inputs::Gather)
    gatherInputs(out, traffic);
  traffic.batches += 1;
  traffic.seeds += int64_t(seeds.size());
  traffic.sampledEdges += out.sampledEdges();
  traffic.seconds += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
}

void MiniBatchAssembler::sampleHop(const int64_t *frontier, int64_t n,
                                   BlockBuilder *builder, int layer,
                                   int64_t fanout, const SampleKey &key,
                                   SamplingTraffic &traffic) {
  const int P = comm.size(), me = comm.rank();
  // The draws are keyed by (step, node) alone: an owner sampling a node on
  // a peer's behalf, the peer, and one process over the whole graph all
  // draw the same neighbours.
  std::vector<int64_t> offsets(size_t(n) + 1, 0), neighbors;

  // Requests: remote frontier nodes grouped by owner.
  std::vector<int64_t> sendCounts(size_t(P), 0);
  for (int64_t j = 0; j < n; ++j)
    if (owner[size_t(frontier[j])] != me)
      ++sendCounts[size_t(owner[size_t(frontier[j])])];
  std::vector<int64_t> at = byteOffsets(sendCounts, 1);
  std::vector<int64_t> requests(size_t(at.back()));
  std::vector<int64_t> position(size_t(n), -1); // j -> slot in `requests`
  for (int64_t j = 0; j < n; ++j) {
    const int q = owner[size_t(frontier[j])];
    if (q != me) {
      position[size_t(j)] = at[size_t(q)];
      requests[size_t(at[size_t(q)]++)] = frontier[j];
    }
  }
  const std::vector<int64_t> recvCounts =
      exchangeCounts(comm, sendCounts, traffic.sampleRequestBytes);
  const std::vector<int64_t> asked = exchange(
      comm, requests, sendCounts, recvCounts, 1, traffic.sampleRequestBytes);

  // Serve the peers: per request its neighbour count, then the neighbours
  // (of a typed graph, neighbour * relations + relation: one reply still).
  for (int q = 0, k = 0; q < P; ++q)
    for (int64_t i = 0; i < recvCounts[size_t(q)]; ++i, ++k) {
      const int64_t v = asked[size_t(k)];
      if (v < 0 || v >= numNodes || owner[size_t(v)] != me)
        throw CommError("sampling: rank " + std::to_string(q) +
                        " asked for node " + std::to_string(v) +
                        ", which this rank does not own");
    }
  // One key for every request (draws are keyed by node), so all peers'
  // requests are drawn in one call; they stay grouped by peer.
  // Over a device communicator the drawn neighbours stay on the device
  // and go to the peers from there.
  const bool onDevice = exchangesOnDevice();
  std::vector<int64_t> servedOffsets, served;
  const int64_t *servedOnDevice = nullptr;
  if (onDevice)
    servedOnDevice = device->sampleRowsToDevice(
        deviceRowsOf(asked.data(), int64_t(asked.size())).data(), asked.data(),
        int64_t(asked.size()), fanout, relationFanoutsOf(layer),
        sampleDrawKey(key, layer), servedOffsets);
  else
    drawNeighbors(asked.data(), int64_t(asked.size()), layer, fanout, key,
                  servedOffsets, served);
  std::vector<int64_t> servedCounts(asked.size()), replyCounts(size_t(P), 0);
  int64_t k = 0;
  for (int q = 0; q < P; ++q)
    for (int64_t i = 0; i < recvCounts[size_t(q)]; ++i, ++k) {
      servedCounts[size_t(k)] =
          servedOffsets[size_t(k) + 1] - servedOffsets[size_t(k)];
      replyCounts[size_t(q)] += servedCounts[size_t(k)];
    }
  const std::vector<int64_t> gotCounts = exchange(
      comm, servedCounts, recvCounts, sendCounts, 1, traffic.sampleReplyBytes);
  const std::vector<int64_t> replyRecvCounts =
      exchangeCounts(comm, replyCounts, traffic.sampleReplyBytes);
  std::vector<int64_t> got;
  if (onDevice) {
    const int64_t id = sizeof(int64_t);
    const std::vector<int64_t> sendAt = byteOffsets(replyCounts, id),
                               recvAt = byteOffsets(replyRecvCounts, id);
    void *received = device->exchangeBuffer(
        DeviceBatchSource::Exchange::ReceivedNeighbors, size_t(recvAt.back()));
    comm.allToAllV(servedOnDevice, sendAt, received, recvAt);
    traffic.sampleReplyBytes += sendAt.back() + recvAt.back();
    traffic.deviceReplyBytes += sendAt.back() + recvAt.back();
    if (!builder) {
      addHopOnDevice(frontier, n, position, gotCounts, layer, fanout, key,
                     static_cast<const int64_t *>(received));
      return;
    }
    // The blocks are built on the host: the neighbours come back.
    got.resize(size_t(recvAt.back()) / sizeof(int64_t));
    device->copyToHost(received, size_t(recvAt.back()), got.data());
  } else {
    got = exchange(comm, served, replyCounts, replyRecvCounts, 1,
                   traffic.sampleReplyBytes);
  }

  // Where each request's neighbours start in `got` (grouped by peer, in
  // request order, as sent).
  std::vector<int64_t> gotStart(gotCounts.size() + 1, 0);
  for (size_t k = 0; k < gotCounts.size(); ++k)
    gotStart[k + 1] = gotStart[k] + gotCounts[k];
  // This rank's own frontier nodes, drawn together, then merged with the
  // replies in frontier order.
  std::vector<int64_t> ownNodes;
  for (int64_t j = 0; j < n; ++j)
    if (position[size_t(j)] < 0)
      ownNodes.push_back(frontier[j]);
  std::vector<int64_t> ownOffsets, ownDrawn;
  drawNeighbors(ownNodes.data(), int64_t(ownNodes.size()), layer, fanout,
                key, ownOffsets, ownDrawn);
  for (int64_t j = 0, mine = 0; j < n; ++j) {
    const int64_t slot = position[size_t(j)];
    if (slot < 0) {
      neighbors.insert(neighbors.end(),
                       ownDrawn.begin() + ownOffsets[size_t(mine)],
                       ownDrawn.begin() + ownOffsets[size_t(mine) + 1]);
      ++mine;
    } else {
      neighbors.insert(neighbors.end(), got.begin() + gotStart[size_t(slot)],
                       got.begin() + gotStart[size_t(slot) + 1]);
    }
    offsets[size_t(j) + 1] = int64_t(neighbors.size());
  }
  addDrawnHop(*builder, offsets, neighbors);
}

void MiniBatchAssembler::addHopOnDevice(const int64_t *frontier, int64_t n,
                                        const std::vector<int64_t> &position,
                                        const std::vector<int64_t> &gotCounts,
                                        int layer, int64_t fanout,
                                        const SampleKey &key,
                                        const int64_t *received) {
  // This rank's own frontier nodes, drawn together into the device buffer
  // the peers' draws were sent from (the exchange is complete).
  std::vector<int64_t> ownNodes;
  for (int64_t j = 0; j < n; ++j)
    if (position[size_t(j)] < 0)
      ownNodes.push_back(frontier[j]);
  std::vector<int64_t> ownOffsets;
  const int64_t *own = device->sampleRowsToDevice(
      deviceRowsOf(ownNodes.data(), int64_t(ownNodes.size())).data(),
      ownNodes.data(), int64_t(ownNodes.size()), fanout,
      relationFanoutsOf(layer), sampleDrawKey(key, layer), ownOffsets);
  const int64_t ownCount = ownOffsets.back();
  // Where each frontier row's neighbours start: among the own draws, or
  // after them among the received ones (grouped by peer, in request order).
  std::vector<int64_t> gotStart(gotCounts.size() + 1, 0);
  for (size_t k = 0; k < gotCounts.size(); ++k)
    gotStart[k + 1] = gotStart[k] + gotCounts[k];
  std::vector<int64_t> rowStarts(static_cast<size_t>(n)),
      offsets(size_t(n) + 1, 0);
  for (int64_t j = 0, mine = 0; j < n; ++j) {
    const int64_t slot = position[size_t(j)];
    int64_t count;
    if (slot < 0) {
      rowStarts[size_t(j)] = ownOffsets[size_t(mine)];
      count = ownOffsets[size_t(mine) + 1] - ownOffsets[size_t(mine)];
      ++mine;
    } else {
      rowStarts[size_t(j)] = ownCount + gotStart[size_t(slot)];
      count = gotCounts[size_t(slot)];
    }
    offsets[size_t(j) + 1] = offsets[size_t(j)] + count;
  }
  device->addHop(own, ownCount, received, rowStarts, offsets, fanout);
}

void MiniBatchAssembler::addDrawnHop(BlockBuilder &builder,
                                     const std::vector<int64_t> &offsets,
                                     std::vector<int64_t> &neighbors) const {
  const int64_t R = adjacency.edgeType ? adjacency.numRelations : 0;
  if (R == 0) {
    builder.addHop(offsets, neighbors);
    return;
  }
  std::vector<int32_t> hopTypes(neighbors.size());
  for (size_t i = 0; i < neighbors.size(); ++i) {
    hopTypes[i] = int32_t(neighbors[i] % R);
    neighbors[i] /= R;
  }
  builder.addHop(offsets, neighbors, hopTypes, int32_t(R));
}

void MiniBatchAssembler::drawNeighbors(const int64_t *nodes, int64_t n,
                                       int layer, int64_t fanout,
                                       const SampleKey &key,
                                       std::vector<int64_t> &offsets,
                                       std::vector<int64_t> &out) const {
  if (device) {
    device->sampleRows(deviceRowsOf(nodes, n).data(), nodes, n, fanout,
                       relationFanoutsOf(layer), sampleDrawKey(key, layer),
                       offsets, out);
    return;
  }
  const int64_t R = adjacency.edgeType ? adjacency.numRelations : 0;
  std::vector<int32_t> types, *typesOut = R > 0 ? &types : nullptr;
  offsets.assign(size_t(n) + 1, 0);
  out.clear();
  for (int64_t k = 0; k < n; ++k) {
    const size_t before = out.size();
    sampleNeighbors(adjacency, localRow(nodes[k]), nodes[k], fanout, replace,
                    key, layer, out, typesOut);
    for (size_t i = before; R > 0 && i < out.size(); ++i)
      out[i] = out[i] * R + types[i - before];
    types.clear();
    offsets[size_t(k) + 1] = int64_t(out.size());
  }
}

const int64_t *MiniBatchAssembler::relationFanoutsOf(int layer) const {
  const RelationFanouts *own = adjacency.relationFanouts;
  if (!own)
    return nullptr;
  if (layer >= own->numLayers())
    throw std::logic_error("relation fanouts: layer " + std::to_string(layer) +
                           " of " + std::to_string(own->numLayers()));
  return own->table.data() + size_t(layer) * size_t(own->numRelations);
}

std::vector<int64_t> MiniBatchAssembler::deviceRowsOf(const int64_t *nodes,
                                                      int64_t n) const {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    rows[size_t(k)] = localRow(nodes[k]);
  return rows;
}

const std::vector<float> &MiniBatchAssembler::cacheInUse() const {
  static const std::vector<float> none;
  return useCache && distributed() ? data.cachedFeatures : none;
}

int64_t MiniBatchAssembler::cacheRowsInUse() const {
  return useCache && distributed() ? int64_t(data.cachedNodes.size()) : 0;
}

void MiniBatchAssembler::gatherInputs(SampledBatch &out,
                                      SamplingTraffic &traffic) {
  if (deviceRows) {
    gatherRowsOnDevice(out, traffic);
    return;
  }
  out.deviceFeatures = nullptr;
  out.inputTable = nullptr;
  const int64_t f = data.data.numFeatures;
  const float *features = data.data.features.data();
  // In place, the batch copies only the root term's rows (block 0's
  // destinations, a prefix of level 0), and lists a table row per edge of
  // block 0: where that list is smaller than the rows it saves copying (a
  // training batch's 786k edges against 443k rows of 128 floats; not a
  // whole neighbourhood's block, whose sources are mostly destinations).
  const bool inPlace =
      inputRowsInPlace && out.levelSizes.size() > 1 &&
      out.views.front().numEdges * int64_t(sizeof(int32_t)) <
          (out.levelSizes[0] - out.levelSizes[1]) * f * int64_t(sizeof(float));
  const int64_t rows = out.levelSizes.empty() ? 0
                       : inPlace              ? out.levelSizes[1]
                                              : out.levelSizes.front();
  if (inPlace) {
    out.listTableRows(data.data.numNodes);
    out.inputTable = features;
    ++traffic.batchesInPlace;
  }
  traffic.copiedRows += rows;
  out.features.resize(size_t(rows * f));
  out.labels.resize(size_t(out.numSeeds()));
  // A seed owned elsewhere (a link's endpoint) has no label here.
  for (int64_t i = 0; i < out.numSeeds(); ++i) {
    const int64_t v = out.nodes[size_t(i)];
    out.labels[size_t(i)] = !distributed() || owner[size_t(v)] == comm.rank()
                                ? data.data.labels[size_t(localRow(v))]
                                : -1;
  }
  out.remoteRows = out.cachedRows = 0;
  auto copyRow = [&](const float *from, int64_t row) {
    std::memcpy(out.features.data() + row * f, from, size_t(f) * sizeof(float));
  };
  if (!distributed()) {
    // The rows lie at random places of a matrix far larger than the cache:
    // requesting a row a few copies ahead keeps several misses in flight
    // (a copy alone waits for each row in turn).
    const size_t rowBytes = size_t(f) * sizeof(float);
    for (int64_t i = 0; i < rows; ++i) {
      if (i + kGatherRowsAhead < rows)
        prefetchLines(features + out.nodes[size_t(i + kGatherRowsAhead)] * f,
                      rowBytes);
      copyRow(features + out.nodes[size_t(i)] * f, i);
    }
    return;
  }

  const int P = comm.size(), me = comm.rank();
  // Rows served here (owned or cached) are copied at once; the others are
  // noted with their owner, to be requested.
  std::vector<int64_t> sendCounts(size_t(P), 0), remoteRows;
  std::vector<int32_t> remoteOwners;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t v = out.nodes[size_t(i)];
    const int q = owner[size_t(v)];
    if (q == me) {
      copyRow(features + ownerRow[size_t(v)] * f, i);
    } else if (auto hit = useCache ? cacheRow.find(v) : cacheRow.end();
               hit != cacheRow.end()) {
      copyRow(data.cachedFeatures.data() + hit->second * f, i);
      ++out.cachedRows;
    } else {
      ++sendCounts[size_t(q)];
      remoteRows.push_back(i);
      remoteOwners.push_back(q);
    }
  }
  std::vector<int64_t> rowOf;
  const std::vector<float> fetched =
      fetchRemoteRows(out, remoteRows, remoteOwners, sendCounts, rowOf, traffic);
  for (size_t k = 0; k < rowOf.size(); ++k)
    copyRow(fetched.data() + k * size_t(f), rowOf[k]);
  traffic.remoteRows += out.remoteRows;
  traffic.cachedRows += out.cachedRows;
}

std::vector<int64_t> MiniBatchAssembler::requestRemoteRows(
    SampledBatch &out, const std::vector<int64_t> &remoteRows,
    const std::vector<int32_t> &remoteOwners,
    const std::vector<int64_t> &sendCounts, std::vector<int64_t> &rowOf,
    std::vector<int64_t> &askedCounts, SamplingTraffic &traffic) {
  const int me = comm.rank();
  std::vector<int64_t> at = byteOffsets(sendCounts, 1);
  std::vector<int64_t> requests(remoteRows.size());
  rowOf.resize(remoteRows.size());
  for (size_t k = 0; k < remoteRows.size(); ++k) {
    const int64_t slot = at[size_t(remoteOwners[k])]++;
    rowOf[size_t(slot)] = remoteRows[k];
    requests[size_t(slot)] = out.nodes[size_t(remoteRows[k])];
  }
  out.remoteRows = int64_t(requests.size());
  askedCounts = exchangeCounts(comm, sendCounts, traffic.featureRequestBytes);
  std::vector<int64_t> asked = exchange(comm, requests, sendCounts, askedCounts,
                                        1, traffic.featureRequestBytes);
  for (int64_t &v : asked) {
    if (v < 0 || v >= numNodes || owner[size_t(v)] != me)
      throw CommError("feature fetch: asked for node " + std::to_string(v) +
                      ", which this rank does not own");
    v = ownerRow[size_t(v)];
  }
  return asked;
}

std::vector<float> MiniBatchAssembler::fetchRemoteRows(
    SampledBatch &out, const std::vector<int64_t> &remoteRows,
    const std::vector<int32_t> &remoteOwners,
    const std::vector<int64_t> &sendCounts, std::vector<int64_t> &rowOf,
    SamplingTraffic &traffic) {
  const int64_t f = data.data.numFeatures;
  const float *features = data.data.features.data();
  std::vector<int64_t> askedCounts;
  const std::vector<int64_t> askedRows = requestRemoteRows(
      out, remoteRows, remoteOwners, sendCounts, rowOf, askedCounts, traffic);
  std::vector<float> rowsOut(askedRows.size() * size_t(f));
  for (size_t k = 0; k < askedRows.size(); ++k)
    std::memcpy(rowsOut.data() + k * size_t(f), features + askedRows[k] * f,
                size_t(f) * sizeof(float));
  return exchange(comm, rowsOut, askedCounts, sendCounts, f,
                  traffic.featureReplyBytes);
}

void MiniBatchAssembler::fetchRemoteRowsOnDevice(
    SampledBatch &out, const std::vector<int64_t> &remoteRows,
    const std::vector<int32_t> &remoteOwners,
    const std::vector<int64_t> &sendCounts, float *rowsOut,
    SamplingTraffic &traffic) {
  const int64_t f = data.data.numFeatures;
  const int64_t rowBytes = f * int64_t(sizeof(float));
  std::vector<int64_t> rowOf, askedCounts;
  const std::vector<int64_t> askedRows = requestRemoteRows(
      out, remoteRows, remoteOwners, sendCounts, rowOf, askedCounts, traffic);
  using Exchange = DeviceBatchSource::Exchange;
  const std::vector<int64_t> sendAt = byteOffsets(askedCounts, rowBytes),
                             recvAt = byteOffsets(sendCounts, rowBytes);
  auto *sent = static_cast<float *>(
      device->exchangeBuffer(Exchange::SentRows, size_t(sendAt.back())));
  auto *received = static_cast<float *>(
      device->exchangeBuffer(Exchange::ReceivedRows, size_t(recvAt.back())));
  device->copyRows(DeviceBatchSource::Table::Features, askedRows.data(),
                   nullptr, int64_t(askedRows.size()), sent);
  comm.allToAllV(sent, sendAt, received, recvAt);
  traffic.featureReplyBytes += sendAt.back() + recvAt.back();
  traffic.deviceRowBytes += sendAt.back() + recvAt.back();
  device->copyDeviceRows(received, rowOf.data(), int64_t(rowOf.size()),
                         rowsOut);
}

void MiniBatchAssembler::gatherRowsOnDevice(SampledBatch &out,
                                            SamplingTraffic &traffic) {
  const int64_t rows = out.levelSizes.empty() ? 0 : out.levelSizes.front();
  out.labels.resize(size_t(out.numSeeds()));
  // A seed owned elsewhere (a link's endpoint) has no label here.
  for (int64_t i = 0; i < out.numSeeds(); ++i) {
    const int64_t v = out.nodes[size_t(i)];
    out.labels[size_t(i)] = !distributed() || owner[size_t(v)] == comm.rank()
                                ? data.data.labels[size_t(localRow(v))]
                                : -1;
  }
  out.features.clear();
  out.remoteRows = out.cachedRows = 0;
  float *rowsOut = device->batchRows(out, rows);
  out.deviceFeatures = rowsOut;
  using Table = DeviceBatchSource::Table;
  if (!distributed()) {
    device->copyRows(Table::Features, out.nodes.data(), nullptr, rows,
                     rowsOut);
    return;
  }
  // Owned and cached rows are copied from the device's tables at once; the
  // others come from their owners as on the host, and are copied in.
  const int P = comm.size(), me = comm.rank();
  std::vector<int64_t> ownFrom, ownTo, cacheFrom, cacheTo, remoteRows;
  std::vector<int64_t> sendCounts(size_t(P), 0);
  std::vector<int32_t> remoteOwners;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t v = out.nodes[size_t(i)];
    const int q = owner[size_t(v)];
    if (q == me) {
      ownFrom.push_back(ownerRow[size_t(v)]);
      ownTo.push_back(i);
    } else if (auto hit = useCache ? cacheRow.find(v) : cacheRow.end();
               hit != cacheRow.end()) {
      cacheFrom.push_back(hit->second);
      cacheTo.push_back(i);
    } else {
      ++sendCounts[size_t(q)];
      remoteRows.push_back(i);
      remoteOwners.push_back(q);
    }
  }
  device->copyRows(Table::Features, ownFrom.data(), ownTo.data(),
                   int64_t(ownFrom.size()), rowsOut);
  device->copyRows(Table::Cache, cacheFrom.data(), cacheTo.data(),
                   int64_t(cacheFrom.size()), rowsOut);
  out.cachedRows = int64_t(cacheFrom.size());
  if (exchangesOnDevice()) {
    fetchRemoteRowsOnDevice(out, remoteRows, remoteOwners, sendCounts, rowsOut,
                            traffic);
  } else {
    std::vector<int64_t> rowOf;
    const std::vector<float> fetched = fetchRemoteRows(
        out, remoteRows, remoteOwners, sendCounts, rowOf, traffic);
    device->copyHostRows(fetched.data(), rowOf.data(), int64_t(rowOf.size()),
                         rowsOut);
  }
  traffic.remoteRows += out.remoteRows;
  traffic.cachedRows += out.cachedRows;
}

void MiniBatchAssembler::sendRowGradients(const int64_t *ids, int64_t rows,
                                          const float *grad, int64_t width,
                                          std::vector<int64_t> &ownRows,
                                          std::vector<float> &ownGrad,
                                          SamplingTraffic &traffic) {
  const int P = comm.size();
  // Grouped by owner: the ids, then the rows.
  std::vector<int64_t> sendCounts(size_t(P), 0);
  for (int64_t i = 0; i < rows; ++i)
    ++sendCounts[size_t(owner[size_t(ids[i])])];
  std::vector<int64_t> at = byteOffsets(sendCounts, 1);
  std::vector<int64_t> sendIds(static_cast<size_t>(rows));
  std::vector<float> sendRows(static_cast<size_t>(rows * width));
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t slot = at[size_t(owner[size_t(ids[i])])]++;
    sendIds[size_t(slot)] = ids[i];
    std::memcpy(sendRows.data() + slot * width, grad + i * width,
                size_t(width) * sizeof(float));
  }
  const std::vector<int64_t> recvCounts =
      exchangeCounts(comm, sendCounts, traffic.featureRequestBytes);
  const std::vector<int64_t> gotIds = exchange(
      comm, sendIds, sendCounts, recvCounts, 1, traffic.featureRequestBytes);
  const std::vector<float> gotRows = exchange(
      comm, sendRows, sendCounts, recvCounts, width, traffic.featureReplyBytes);

  // Received grouped by sender rank, in rank order: a row read by several
  // ranks sums their gradients in that order, whatever the timing.
  ownRows.clear();
  ownGrad.clear();
  std::unordered_map<int64_t, int64_t> slotOf;
  for (size_t k = 0; k < gotIds.size(); ++k) {
    const int64_t v = gotIds[k];
    if (v < 0 || v >= numNodes || owner[size_t(v)] != comm.rank())
      throw CommError("learned input gradients: received node " +
                      std::to_string(v) + ", which this rank does not own");
    if (addToRowSum(slotOf, ownGrad, v, gotRows.data() + k * size_t(width),
                    width))
      ownRows.push_back(ownerRow[size_t(v)]);
  }
}

} // namespace gnnrt
