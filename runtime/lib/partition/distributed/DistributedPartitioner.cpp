//===- DistributedPartitioner.cpp - Partitioning across MPI ranks ---------===//
//
// The steps of partitionDistributed (DistributedPartitioner.h), each a
// phase every rank runs:
//
//   1. read this rank's slice of the files (a failure on any rank becomes
//      the same located error on all of them);
//   2. edges to the owners of their sources, sorted and deduplicated
//      (DistributedGraph.h), then ParMETIS's symmetrized rows and weights;
//   3. PT-Scotch on one folded weight (ParallelScotch.h), our multilevel
//      partitioner (DistributedMultilevel.h), or contiguous blocks of node
//      ids (method blocks), then METIS's per-constraint bound restored and
//      the cut refined (DistributedBalance.h);
//   4. every rank learns the whole assignment (4 bytes per node) and builds
//      the parts p with p % P == rank: their edges, halos and send lists,
//      feature rows and labels, as extractPartition lays them out;
//   5. rank 0 makes the temporary directory, every rank writes its parts,
//      rank 0 writes the partition book and the manifest and moves the
//      directory into place.
//
// Per rank, memory is its share of the edges plus a few node-indexed
// tables (labels, splits, the assignment: about 13 bytes per node), never
// the whole graph. The ranks' node blocks hold about equal edges
// (DistributedGraph.h). Feature rows in an .npy go from the dataset's file
// to the parts' files a few MiB at a time, read by the rank writing the
// part; the OGB layout's rows are read with the slices and sent.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/DistributedPartitioner.h"

#include "DistributedBalance.h"
#include "DistributedGraph.h"
#include "DistributedMultilevel.h"
#include "ParallelScotch.h"
#include "RankCollectives.h"
#include "files/PartitionCsr.h"
#include "files/PartitionWriting.h"
#include "gnnrt/data/DatasetFormat.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sys/resource.h>

namespace gnnrt {

namespace {

using Clock = std::chrono::steady_clock;

/// The process's peak resident set so far, in MiB (getrusage: KiB on Linux).
double peakResidentMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

/// An edge on its way to the rank of its part: 24 bytes (node ids fit 32
/// bits, as ParMETIS's input needs).
struct EdgeRecord {
  int64_t id;
  int32_t src, dst;
  int32_t type; ///< the relation (-1 untyped)
};

/// A halo node of part `fromPart` owned by part `toPart`: an entry of
/// toPart's send list for fromPart.
struct HaloRecord {
  int32_t toPart, fromPart;
  int64_t node;
};

/// The parts this rank builds and writes.
std::vector<int> partsOfRank(int numParts, int rank, int numRanks) {
  std::vector<int> parts;
  for (int k = rank; k < numParts; k += numRanks)
    parts.push_back(k);
  return parts;
}

void checkOptions(const PartitionOptions &o) {
  if (o.method != PartitionMethod::ParallelScotch &&
      o.method != PartitionMethod::Multilevel &&
      o.method != PartitionMethod::Blocks)
    throw DataError(std::string("partition: the distributed partitioner runs "
                                "PT-Scotch, multilevel or node blocks, not '") +
                    partitionMethodName(o.method) + "'");
  if (o.numParts < 1)
    throw DataError("partition: the number of parts must be at least 1 (got " +
                    std::to_string(o.numParts) + ")");
  if (!o.fanouts.empty() || o.cacheRatio > 0)
    throw DataError("partition: the distributed partitioner does not "
                    "pre-sample (no fanouts, no feature cache)");
  if (o.ufactor < 1 || o.ufactor > 100000)
    throw DataError("partition: ufactor must lie in [1, 100000] (got " +
                    std::to_string(o.ufactor) + ")");
  if (o.balance.empty())
    throw DataError("partition: METIS needs at least one balance constraint");
}

/// The dataset's feature rows as an [nodes x features] float32 .npy that
/// the parts' rows can be copied from (the .npy layouts, typed or not), or
/// "" where they are read with the slices (the OGB layout's csv.gz).
std::string featureRowsFile(const std::string &dataDir) {
  const DatasetFormat format = datasetFormat(dataDir).format;
  if (format != DatasetFormat::Npy && format != DatasetFormat::NpyHetero)
    return "";
  const std::string path = dataDir + "/features.npy";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return "";
  const NpyHeader h = readNpyHeader(path);
  return h.type == NpyType::Float32 && h.shape.size() == 2 ? path : "";
}

/// Parts that read their feature rows in place (featuresInPlace) own
/// consecutive ids: node blocks, not refined.
void checkInPlace(const PartitionOptions &o, const PartitionManifest &m) {
  if (!m.featuresInPlace.empty() && o.method != PartitionMethod::Blocks)
    throw DataError(std::string("partition: feature rows read in place need "
                                "node blocks, not '") +
                    partitionMethodName(o.method) + "'");
}

/// Step 4: the parts of this rank, everything but the send lists.
class PartBuilder {
public:
  /// `featuresFile`: the rows stay there (no rows are moved or written).
  /// `rowsWrittenLater`: the parts' rows are copied from the dataset's
  /// file when the parts are written (writePartFeatureRows), not moved
  /// between ranks. `relations`: a typed graph's, as loaded (empty
  /// untyped).
  PartBuilder(Communicator &comm, const std::vector<int32_t> &owner,
              int numParts, EdgeAssign assign, std::string featuresFile,
              bool rowsWrittenLater, std::vector<RelationType> relations)
      : comm(comm), owner(owner), numParts(numParts), assign(assign),
        featuresFile(std::move(featuresFile)),
        rowsWrittenLater(rowsWrittenLater), relations(std::move(relations)),
        mine(partsOfRank(numParts, comm.rank(), comm.size())) {}

  int rankOf(int part) const { return part % comm.size(); }
  /// Index of part k among this rank's parts.
  size_t slotOf(int part) const { return size_t(part / comm.size()); }

  std::vector<Partition> build(DistributedEdges &edges, DatasetSlice &slice,
                               std::vector<PartCounts> &counts) {
    std::vector<Partition> parts(mine.size());
    counts.assign(mine.size(), PartCounts{});
    const int64_t n = int64_t(owner.size());
    for (size_t s = 0; s < mine.size(); ++s) {
      Partition &p = parts[s];
      p.part = mine[s];
      p.numParts = numParts;
      p.edgeAssign = assign;
      p.numGlobalNodes = n;
      p.numFeatures = slice.numFeatures;
      if (slice.isTyped()) {
        p.nodeTypes = slice.nodeTypes;
        p.relations = relations;
        p.targetType = slice.targetType;
      }
    }
    for (int64_t v = 0; v < n; ++v)
      if (rankOf(owner[size_t(v)]) == comm.rank())
        parts[slotOf(owner[size_t(v)])].ownedNodes.push_back(v);

    // Edges to the rank of the part that stores them.
    const std::vector<int64_t> &placer =
        assign == EdgeAssign::Dst ? edges.dst : edges.src;
    // The edges go as soon as they are packed, before the records arrive.
    std::vector<EdgeRecord> stored = exchangeRecords<EdgeRecord>(
        comm, int64_t(edges.src.size()),
        [&](int64_t e) { return rankOf(owner[size_t(placer[size_t(e)])]); },
        [&](int64_t e) {
          return EdgeRecord{edges.edgeId(e), int32_t(edges.src[size_t(e)]),
                            int32_t(edges.dst[size_t(e)]),
                            edges.type.empty() ? -1 : edges.type[size_t(e)]};
        },
        /*sources=*/nullptr,
        [&] {
          edges.src = {};
          edges.dst = {};
          edges.type = {};
          edges.ids = {};
        });
    std::vector<std::vector<EdgeRecord>> byPart(mine.size());
    if (mine.size() == 1) {
      byPart[0] = std::move(stored); // one part per rank: no copy
    } else {
      for (const EdgeRecord &r : stored)
        byPart[slotOf(owner[size_t(assign == EdgeAssign::Dst ? r.dst : r.src)])]
            .push_back(r);
      stored = {};
    }

    // Local work that can fail (a part past 32-bit local ids): agreed on
    // before the next exchange.
    agreeOnFailure(comm, [&] {
      for (size_t s = 0; s < mine.size(); ++s) {
        buildGraph(parts[s], std::move(byPart[s]), counts[s]);
        ownedRows(parts[s], slice, counts[s]);
      }
    });
    if (!featuresFile.empty())
      for (Partition &p : parts)
        p.featuresFile = featuresFile;
    else if (!rowsWrittenLater)
      features(parts, slice);
    return parts;
  }

  /// Sends every part's halo to the halo nodes' owners and fills the send
  /// lists from what arrives.
  void sendLists(std::vector<Partition> &parts,
                 std::vector<PartCounts> &counts) {
    std::vector<std::pair<size_t, size_t>> at;
    for (size_t s = 0; s < parts.size(); ++s)
      for (size_t h = 0; h < parts[s].haloNodes.size(); ++h)
        at.emplace_back(s, h);
    std::vector<HaloRecord> got = exchangeRecords<HaloRecord>(
        comm, int64_t(at.size()),
        [&](int64_t i) {
          return rankOf(
              parts[at[size_t(i)].first].haloOwners[at[size_t(i)].second]);
        },
        [&](int64_t i) {
          const Partition &p = parts[at[size_t(i)].first];
          size_t h = at[size_t(i)].second;
          return HaloRecord{p.haloOwners[h], int32_t(p.part), p.haloNodes[h]};
        });
    // Within one (toPart, fromPart) the records keep fromPart's halo order.
    std::stable_sort(got.begin(), got.end(),
                     [](const HaloRecord &a, const HaloRecord &b) {
                       return a.toPart != b.toPart ? a.toPart < b.toPart
                                                   : a.fromPart < b.fromPart;
                     });
    size_t i = 0;
    for (size_t s = 0; s < parts.size(); ++s) {
      Partition &p = parts[s];
      p.sendOffsets.assign(size_t(numParts) + 1, 0);
      for (int q = 0; q < numParts; ++q) {
        for (;
             i < got.size() && got[i].toPart == p.part && got[i].fromPart == q;
             ++i)
          p.sendNodes.push_back(ownedLocalId(p, got[i].node));
        p.sendOffsets[size_t(q) + 1] = int64_t(p.sendNodes.size());
      }
      counts[s].sendNodes = int64_t(p.sendNodes.size());
    }
  }

private:
  static int64_t ownedLocalId(const Partition &p, int64_t v) {
    return std::lower_bound(p.ownedNodes.begin(), p.ownedNodes.end(), v) -
           p.ownedNodes.begin();
  }

  /// The halo (remote endpoints, by owner then id), its exchange ranges and
  /// the local CSR.
  void buildGraph(Partition &p, std::vector<EdgeRecord> stored, PartCounts &c) {
    const int k = p.part;
    {
      std::vector<bool> seen(owner.size(), false);
      for (const EdgeRecord &r : stored)
        for (int32_t w : {r.src, r.dst})
          if (owner[size_t(w)] != k && !seen[size_t(w)]) {
            seen[size_t(w)] = true;
            p.haloNodes.push_back(w);
          }
    }
    std::sort(p.haloNodes.begin(), p.haloNodes.end(),
              [&](int64_t a, int64_t b) {
                int32_t oa = owner[size_t(a)], ob = owner[size_t(b)];
                return oa != ob ? oa < ob : a < b;
              });
    const int64_t numOwned = p.numOwned();
    if (p.numLocal() >= (int64_t(1) << 31))
      throw DataError("partition: part " + std::to_string(k) + " has " +
                      std::to_string(p.numLocal()) +
                      " local nodes, more than 32-bit local ids hold; use "
                      "more parts");
    p.haloOwners.resize(p.haloNodes.size());
    p.recvOffsets.assign(size_t(numParts) + 1, 0);
    for (size_t h = 0; h < p.haloNodes.size(); ++h) {
      p.haloOwners[h] = owner[size_t(p.haloNodes[h])];
      ++p.recvOffsets[size_t(p.haloOwners[h]) + 1];
    }
    for (int q = 0; q < numParts; ++q)
      p.recvOffsets[size_t(q) + 1] += p.recvOffsets[size_t(q)];
    auto local = [&](int64_t v) -> int32_t {
      int32_t o = owner[size_t(v)];
      if (o == k)
        return int32_t(ownedLocalId(p, v));
      const int64_t *begin = p.haloNodes.data() + p.recvOffsets[size_t(o)];
      const int64_t *end = p.haloNodes.data() + p.recvOffsets[size_t(o) + 1];
      return int32_t(numOwned +
                     (std::lower_bound(begin, end, v) - p.haloNodes.data()));
    };
    // Local ids in place, then fillPartitionCsr's order: the records of
    // one (source, destination) pair came from one rank in edge-id order,
    // so ordering ties by id is its stable sort's order.
    for (EdgeRecord &r : stored) {
      r.src = local(r.src);
      r.dst = local(r.dst);
      if (r.src >= numOwned || r.dst >= numOwned)
        ++c.cutEdges;
    }
    std::sort(stored.begin(), stored.end(),
              [](const EdgeRecord &a, const EdgeRecord &b) {
                return a.dst != b.dst   ? a.dst < b.dst
                       : a.src != b.src ? a.src < b.src
                                        : a.id < b.id;
              });
    fillSortedPartitionCsr(p, stored,
                           /*typed=*/!stored.empty() &&
                               stored.front().type >= 0);
    c.edges = int64_t(stored.size());
    c.ownedNodes = numOwned;
    c.haloNodes = p.numHalo();
  }

  /// Labels and splits, from the node tables every rank holds.
  void ownedRows(Partition &p, const DatasetSlice &slice, PartCounts &c) {
    p.labels.resize(p.ownedNodes.size());
    for (size_t i = 0; i < p.ownedNodes.size(); ++i)
      p.labels[i] = slice.labels[size_t(p.ownedNodes[i])];
    auto split = [&](const std::vector<int64_t> &idx) {
      std::vector<int64_t> local;
      for (int64_t v : idx)
        if (owner[size_t(v)] == p.part)
          local.push_back(ownedLocalId(p, v));
      std::sort(local.begin(), local.end());
      return local;
    };
    p.trainIdx = split(slice.trainIdx);
    p.validIdx = split(slice.validIdx);
    p.testIdx = split(slice.testIdx);
    c.train = int64_t(p.trainIdx.size());
    c.valid = int64_t(p.validIdx.size());
    c.test = int64_t(p.testIdx.size());
  }

  /// Feature rows, from the rank that read them to the rank of their part.
  void features(std::vector<Partition> &parts, DatasetSlice &slice) {
    const int64_t f = slice.numFeatures, begin = slice.nodeBegin,
                  rows = slice.nodeEnd - slice.nodeBegin;
    if (f == 0)
      return;
    auto dest = [&](int64_t v) { return rankOf(owner[size_t(v)]); };
    std::vector<int64_t> ids = exchangeRecords<int64_t>(
        comm, rows, [&](int64_t i) { return dest(begin + i); },
        [&](int64_t i) { return begin + i; });
    std::vector<float> values = exchangeRecords<float>(
        comm, rows * f, [&](int64_t i) { return dest(begin + i / f); },
        [&](int64_t i) { return slice.features[size_t(i)]; });
    slice.features = {};
    for (Partition &p : parts)
      p.features.resize(p.ownedNodes.size() * size_t(f));
    for (size_t j = 0; j < ids.size(); ++j) {
      Partition &p = parts[slotOf(owner[size_t(ids[j])])];
      std::memcpy(p.features.data() + ownedLocalId(p, ids[j]) * f,
                  values.data() + int64_t(j) * f, size_t(f) * sizeof(float));
    }
  }

  Communicator &comm;
  const std::vector<int32_t> &owner;
  int numParts;
  EdgeAssign assign;
  std::string featuresFile;
  bool rowsWrittenLater;
  std::vector<RelationType> relations;
  std::vector<int> mine;
};

/// The seed of try t of options.tries: the user's seed first (so one try is
/// what it always was), then seeds drawn from it. Not seed + t: Scotch
/// gives seeds 2k and 2k + 1 the same partition.
uint64_t seedOfTry(uint64_t seed, int t) {
  constexpr uint64_t kTriesStream = 0x5c07c4;
  return t == 0 ? seed : randomBits(seed, kTriesStream, uint64_t(t))[0];
}

} // namespace

PartitionManifest
partitionDistributed(Communicator &comm, const std::string &dataDir,
                     const LoadOptions &load, const PartitionOptions &options,
                     const std::string &outDir, PartitionManifest manifest,
                     DistributedPartitionReport *report) {
  DistributedPartitionReport local;
  DistributedPartitionReport &r = report ? *report : local;
  checkOptions(options);
  checkInPlace(options, manifest);
  const int p = comm.size(), rank = comm.rank();
  const bool inPlace = !manifest.featuresInPlace.empty();

  // 1. This rank's slice (no feature rows if they stay in place).
  auto start = Clock::now();
  DatasetSlice slice;
  // Rows in an .npy go from the file to the parts' files when they are
  // written: no rank holds them before.
  std::string rowsFile;
  agreeOnFailure(comm, [&] {
    rowsFile = inPlace ? "" : featureRowsFile(dataDir);
    slice = readDatasetSlice(dataDir, load, rank, p,
                             /*withFeatures=*/!inPlace && rowsFile.empty());
  });
  const int64_t n = slice.numNodes;
  if (options.numParts > n)
    throw DataError("partition: cannot split " + std::to_string(n) +
                    " nodes into " + std::to_string(options.numParts) +
                    " parts");
  r.readSeconds = secondsSince(start);
  r.peakMiB[0] = peakResidentMiB();

  // 2. The distributed graph.
  start = Clock::now();
  DistributedEdges edges = distributeEdges(comm, slice, load);
  DistributedMetisGraph graph = buildDistributedMetisGraph(
      comm, edges, slice.trainIdx, options.balance, options.edgeAssign);
  r.graphSeconds = secondsSince(start);
  r.peakMiB[1] = peakResidentMiB();

  // 3. The partitioner, then the per-constraint bound and refinement.
  start = Clock::now();
  std::vector<int32_t> part;
  if (options.method == PartitionMethod::Blocks) {
    // Node v of n starts in part v * parts / n: no communication, and the
    // refinement below moves the boundary nodes to cut fewer edges.
    const int64_t first = edges.vtxdist[size_t(rank)];
    part.resize(size_t(edges.vtxdist[size_t(rank) + 1] - first));
    for (size_t i = 0; i < part.size(); ++i)
      part[i] = int32_t((first + int64_t(i)) * options.numParts / n);
  }
  BalanceOutcome balance;
  double partitionSeconds = 0, balanceSeconds = 0;
  if (options.method == PartitionMethod::Blocks) {
    start = Clock::now();
    balance = balanceParts(comm, edges.vtxdist, graph, options.numParts,
                           options.ufactor, part, /*moveVertices=*/!inPlace);
    balanceSeconds = secondsSince(start);
  } else {
    // Every try is collective and its outcome the same on every rank, so
    // the ranks keep the same one.
    const bool scotch = options.method == PartitionMethod::ParallelScotch;
    std::vector<int32_t> weights;
    if (scotch)
      weights = foldedVertexWeights(graph);
    for (int t = 0; t < std::max(1, options.tries); ++t) {
      start = Clock::now();
      const uint64_t seed = seedOfTry(options.seed, t);
      MultilevelReport levels;
      std::vector<int32_t> tried =
          scotch ? parallelScotchPartition(comm, edges.vtxdist, graph, weights,
                                           options.numParts, seed)
                 : multilevelPartition(comm, edges.vtxdist, graph,
                                       options.numParts, options.ufactor, seed,
                                       &levels);
      partitionSeconds += secondsSince(start);
      start = Clock::now();
      BalanceOutcome outcome =
          balanceParts(comm, edges.vtxdist, graph, options.numParts,
                       options.ufactor, tried, /*moveVertices=*/!inPlace);
      balanceSeconds += secondsSince(start);
      const bool better = t == 0 || (outcome.balanced && !balance.balanced) ||
                          (outcome.balanced == balance.balanced &&
                           outcome.objective < balance.objective);
      if (better) {
        balance = outcome;
        part = std::move(tried);
        r.bestTry = t;
        r.levels = levels.levels;
        r.coarsestVertices = levels.coarsestVertices;
        r.coarsestEdges = levels.coarsestEdges;
      }
    }
  }
  r.partitionSeconds = partitionSeconds;
  r.peakMiB[2] = peakResidentMiB();
  graph = {};
  r.initialObjective = balance.objectiveBefore;
  r.objective = balance.objective;
  r.moved = balance.moved;
  r.balanceRounds = balance.balanceRounds;
  r.refineRounds = balance.refineRounds;
  r.balanced = balance.balanced;
  r.balanceSeconds = balanceSeconds;
  r.peakMiB[3] = peakResidentMiB();

  // 4. The whole assignment on every rank, then this rank's parts.
  start = Clock::now();
  const int64_t mineCount = int64_t(part.size());
  std::vector<int32_t> owner = exchangeRecords<int32_t>(
      comm, mineCount * p, [&](int64_t i) { return int(i / mineCount); },
      [&](int64_t i) { return part[size_t(i % mineCount)]; });
  part = {};
  const std::vector<RelationType> relations =
      slice.isTyped() ? relationsAfterLoad(slice.relations, load)
                      : std::vector<RelationType>();
  PartBuilder builder(comm, owner, options.numParts, options.edgeAssign,
                      manifest.featuresInPlace, !rowsFile.empty(), relations);
  std::vector<PartCounts> counts;
  std::vector<Partition> parts = builder.build(edges, slice, counts);
  builder.sendLists(parts, counts);
  int64_t maxLabel = -1;
  for (int64_t label : slice.labels)
    maxLabel = std::max(maxLabel, label);
  for (Partition &q : parts)
    q.numClasses = load.numClasses > 0 ? load.numClasses : maxLabel + 1;

  // 5. The directory: rank 0 starts and finishes it, every rank fills it.
  std::string temp;
  TreeGuard removeTemp;
  agreeOnFailure(comm, [&] {
    if (rank == 0) {
      temp = startPartitionDirectory(outDir);
      removeTemp.reset(temp);
    }
  });
  temp = broadcastString(comm, temp, 0);
  agreeOnFailure(comm, [&] {
    for (const Partition &q : parts) {
      writePartDirectory(temp, q, /*withCache=*/false,
                         /*withFeatures=*/rowsFile.empty());
      if (!rowsFile.empty() && q.numFeatures > 0)
        writePartFeatureRows(temp, q, rowsFile);
    }
  });
  parts.clear();
  std::vector<int64_t> from;
  std::vector<PartCounts> all = exchangeRecords<PartCounts>(
      comm, rank == 0 ? 0 : int64_t(counts.size()), [](int64_t) { return 0; },
      [&](int64_t i) { return counts[size_t(i)]; }, &from);
  std::string text;
  agreeOnFailure(comm, [&] {
    if (rank != 0)
      return;
    manifest.method = options.method;
    manifest.numParts = options.numParts;
    manifest.balance = options.balance;
    manifest.edgeAssign = options.edgeAssign;
    // The kept try's seed: --seed S --tries 1 gives this partitioning again.
    manifest.seed = options.method == PartitionMethod::Blocks
                        ? 0
                        : seedOfTry(options.seed, r.bestTry);
    manifest.ufactor = options.ufactor;
    manifest.metisObjective = balance.objective;
    manifest.numNodes = n;
    manifest.numEdges = edges.numEdges;
    manifest.numFeatures = slice.numFeatures;
    manifest.numClasses = load.numClasses > 0 ? load.numClasses : maxLabel + 1;
    manifest.numTrain = int64_t(slice.trainIdx.size());
    manifest.numValid = int64_t(slice.validIdx.size());
    manifest.numTest = int64_t(slice.testIdx.size());
    manifest.nodeTypes = slice.nodeTypes;
    manifest.relations = relations;
    manifest.targetType = slice.targetType;
    manifest.parts.assign(size_t(options.numParts), PartCounts{});
    // Part k came from rank k % P, as its (k / P)-th.
    for (size_t s = 0; s < counts.size(); ++s)
      manifest.parts[size_t(s) * size_t(p)] = counts[s];
    for (int q = 1; q < p; ++q)
      for (int64_t i = from[size_t(q)]; i < from[size_t(q) + 1]; ++i)
        manifest.parts[size_t(q) + size_t(i - from[size_t(q)]) * size_t(p)] =
            all[size_t(i)];
    manifest.edgeCut = 0;
    for (const PartCounts &c : manifest.parts)
      manifest.edgeCut += c.cutEdges;
    writePartitionBookAndManifest(temp, owner, manifest);
    finishPartitionDirectory(temp, outDir);
    removeTemp.release();
    text = manifestToJson(manifest);
  });
  r.writeSeconds = secondsSince(start);
  r.peakMiB[4] = peakResidentMiB();
  return manifestFromJson(outDir + "/manifest.json",
                          broadcastString(comm, text, 0));
}

} // namespace gnnrt
