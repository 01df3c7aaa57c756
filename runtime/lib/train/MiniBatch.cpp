//===- MiniBatch.cpp - sampled batches, local and distributed -------------===//
//
// See MiniBatch.h. Every exchange is an all_to_all of variable length, done
// as two: the per-peer counts first (one int64 per peer), then the payload,
// so that every rank knows its receive offsets. A hop costs four (request
// counts and ids, then per-request neighbour counts and the neighbours); the
// feature fetch three (counts, ids, rows).
//
//===----------------------------------------------------------------------===//

#include "MiniBatch.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace gnnrt {

void SamplingTraffic::add(const SamplingTraffic &o) {
  batches += o.batches;
  seeds += o.seeds;
  sampledEdges += o.sampledEdges;
  sampleRequestBytes += o.sampleRequestBytes;
  sampleReplyBytes += o.sampleReplyBytes;
  featureRequestBytes += o.featureRequestBytes;
  featureReplyBytes += o.featureReplyBytes;
  remoteRows += o.remoteRows;
  cachedRows += o.cachedRows;
  seconds += o.seconds;
}

std::vector<int64_t> gatherCounts(Communicator &comm, int64_t local) {
  std::vector<int64_t> counts(size_t(comm.size()), 0);
  counts[size_t(comm.rank())] = local;
  comm.allReduceSum(counts.data(), int64_t(counts.size()));
  return counts;
}

namespace {

/// Byte offsets of per-peer runs of `elementBytes`-sized elements.
std::vector<int64_t> byteOffsets(const std::vector<int64_t> &counts,
                                 int64_t elementBytes) {
  std::vector<int64_t> offsets(counts.size() + 1, 0);
  for (size_t q = 0; q < counts.size(); ++q)
    offsets[q + 1] = offsets[q] + counts[q] * elementBytes;
  return offsets;
}

/// What every peer sends this rank, given what this rank sends each
/// (one int64 per peer each way).
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

/// Sends send[q] (grouped by peer, counts sendCounts) and receives what the
/// peers send (counts recvCounts); adds the bytes both ways to `bytes`.
template <typename T>
std::vector<T> exchange(Communicator &comm, const std::vector<T> &send,
                        const std::vector<int64_t> &sendCounts,
                        const std::vector<int64_t> &recvCounts,
                        int64_t width, int64_t &bytes) {
  const int64_t element = int64_t(sizeof(T)) * width;
  const std::vector<int64_t> sendOffsets = byteOffsets(sendCounts, element),
                             recvOffsets = byteOffsets(recvCounts, element);
  std::vector<T> recv(size_t(recvOffsets.back() / int64_t(sizeof(T))));
  comm.allToAllV(send.data(), sendOffsets, recv.data(), recvOffsets);
  bytes += sendOffsets.back() + recvOffsets.back();
  return recv;
}

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
  if (!distributed())
    return;
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
  if (!distributed()) {
    // One process: the sampler's own loop (prefetching, reused buffers).
    SamplerOptions options;
    options.fanouts = fanouts;
    options.replace = replace;
    options.seed = key.seed;
    NeighborSampler(adjacency, numNodes, std::move(options))
        .sample(seeds.data(), int64_t(seeds.size()), key, builder, out);
  } else {
    const int layers = int(fanouts.size());
    builder.start(seeds.data(), int64_t(seeds.size()), layers, out);
    // Hop 1 samples the last layer's block, around the seeds.
    for (int layer = layers - 1; layer >= 0; --layer)
      sampleHop(builder, layer, fanouts[size_t(layer)], key, traffic);
    builder.finish();
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

void MiniBatchAssembler::sampleHop(BlockBuilder &builder, int layer,
                                   int64_t fanout, const SampleKey &key,
                                   SamplingTraffic &traffic) {
  const int64_t n = builder.frontierSize();
  const int64_t *frontier = builder.frontier();
  const int P = comm.size(), me = comm.rank();
  // The draws of a batch are keyed by (step, requesting rank), so that an
  // owner sampling on a peer's behalf draws what the peer would have.
  auto keyOf = [&](int requester) {
    SampleKey k = key;
    k.batch = key.batch * uint64_t(P) + uint64_t(requester);
    return k;
  };
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
  const int64_t R = adjacency.edgeType ? adjacency.numRelations : 0;
  std::vector<int32_t> types, *typesOut = R > 0 ? &types : nullptr;
  auto pack = [&](std::vector<int64_t> &ids, size_t from) {
    for (size_t i = from; R > 0 && i < ids.size(); ++i)
      ids[i] = ids[i] * R + types[i - from];
    types.clear();
  };
  std::vector<int64_t> served, servedCounts(asked.size()),
      replyCounts(size_t(P), 0);
  for (int q = 0, k = 0; q < P; ++q) {
    const SampleKey peerKey = keyOf(q);
    for (int64_t i = 0; i < recvCounts[size_t(q)]; ++i, ++k) {
      const size_t before = served.size();
      const int64_t v = asked[size_t(k)];
      if (v < 0 || v >= numNodes || owner[size_t(v)] != me)
        throw CommError("sampling: rank " + std::to_string(q) +
                        " asked for node " + std::to_string(v) +
                        ", which this rank does not own");
      sampleNeighbors(adjacency, ownerRow[size_t(v)], v, fanout, replace,
                      peerKey, layer, served, typesOut);
      pack(served, before);
      servedCounts[size_t(k)] = int64_t(served.size() - before);
      replyCounts[size_t(q)] += servedCounts[size_t(k)];
    }
  }
  const std::vector<int64_t> gotCounts = exchange(
      comm, servedCounts, recvCounts, sendCounts, 1, traffic.sampleReplyBytes);
  const std::vector<int64_t> replyRecvCounts =
      exchangeCounts(comm, replyCounts, traffic.sampleReplyBytes);
  const std::vector<int64_t> got = exchange(
      comm, served, replyCounts, replyRecvCounts, 1, traffic.sampleReplyBytes);

  // Where each request's neighbours start in `got` (grouped by peer, in
  // request order, as sent).
  std::vector<int64_t> gotStart(gotCounts.size() + 1, 0);
  for (size_t k = 0; k < gotCounts.size(); ++k)
    gotStart[k + 1] = gotStart[k] + gotCounts[k];
  const SampleKey own = keyOf(me);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t slot = position[size_t(j)];
    const size_t before = neighbors.size();
    if (slot < 0) {
      sampleNeighbors(adjacency, ownerRow[size_t(frontier[j])], frontier[j],
                      fanout, replace, own, layer, neighbors, typesOut);
      pack(neighbors, before);
    } else {
      neighbors.insert(neighbors.end(), got.begin() + gotStart[size_t(slot)],
                       got.begin() + gotStart[size_t(slot) + 1]);
    }
    offsets[size_t(j) + 1] = int64_t(neighbors.size());
  }
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

void MiniBatchAssembler::gatherInputs(SampledBatch &out,
                                      SamplingTraffic &traffic) {
  const int64_t f = data.data.numFeatures;
  const int64_t rows = out.levelSizes.empty() ? 0 : out.levelSizes.front();
  const float *features = data.data.features.data();
  out.features.resize(size_t(rows * f));
  out.labels.resize(size_t(out.numSeeds()));
  for (int64_t i = 0; i < out.numSeeds(); ++i)
    out.labels[size_t(i)] =
        data.data.labels[size_t(localRow(out.nodes[size_t(i)]))];
  out.remoteRows = out.cachedRows = 0;
  auto copyRow = [&](const float *from, int64_t row) {
    std::memcpy(out.features.data() + row * f, from, size_t(f) * sizeof(float));
  };
  if (!distributed()) {
    for (int64_t i = 0; i < rows; ++i)
      copyRow(features + out.nodes[size_t(i)] * f, i);
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
  std::vector<int64_t> at = byteOffsets(sendCounts, 1);
  std::vector<int64_t> requests(remoteRows.size()), rowOf(remoteRows.size());
  for (size_t k = 0; k < remoteRows.size(); ++k) {
    const int64_t slot = at[size_t(remoteOwners[k])]++;
    rowOf[size_t(slot)] = remoteRows[k];
    requests[size_t(slot)] = out.nodes[size_t(remoteRows[k])];
  }
  out.remoteRows = int64_t(requests.size());
  const std::vector<int64_t> recvCounts =
      exchangeCounts(comm, sendCounts, traffic.featureRequestBytes);
  const std::vector<int64_t> asked = exchange(
      comm, requests, sendCounts, recvCounts, 1, traffic.featureRequestBytes);
  std::vector<float> rowsOut(asked.size() * size_t(f));
  for (size_t k = 0; k < asked.size(); ++k) {
    const int64_t v = asked[k];
    if (v < 0 || v >= numNodes || owner[size_t(v)] != me)
      throw CommError("feature fetch: asked for node " + std::to_string(v) +
                      ", which this rank does not own");
    std::memcpy(rowsOut.data() + k * size_t(f),
                features + ownerRow[size_t(v)] * f, size_t(f) * sizeof(float));
  }
  const std::vector<float> fetched = exchange(
      comm, rowsOut, recvCounts, sendCounts, f, traffic.featureReplyBytes);
  for (size_t k = 0; k < rowOf.size(); ++k)
    copyRow(fetched.data() + k * size_t(f), rowOf[k]);
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
    const float *g = gotRows.data() + k * size_t(width);
    auto [it, fresh] = slotOf.try_emplace(v, int64_t(ownRows.size()));
    if (fresh) {
      ownRows.push_back(ownerRow[size_t(v)]);
      ownGrad.insert(ownGrad.end(), g, g + width);
      continue;
    }
    float *sum = ownGrad.data() + it->second * width;
    for (int64_t j = 0; j < width; ++j)
      sum[j] += g[j];
  }
}

} // namespace gnnrt
