//===- gnn-partition.cpp - Partition a dataset for distributed training ---===//
//
// `gnn-partition --data DIR --parts P --out OUT` loads a dataset the way a
// trainer does (reverse edges unless --no-reverse, repeats removed), assigns
// nodes to parts (METIS, random, by pre-sampled access frequency, or an
// assignment file such as gpmetis's output), optionally gives every part a
// feature cache of its hottest remote rows, and writes OUT/manifest.json
// plus one directory per part (see docs/partitioning.md). With the training
// fanouts (--fanouts) it also estimates the remote feature rows an epoch of
// sampled training would fetch, the figure partitionings are compared by.
// `gnn-partition info OUT` prints the per-part counts, the edge cut and the
// balance of every constraint from the manifest alone.
// `--write-metis-graph FILE` writes the exact graph METIS would partition,
// for comparing with the gpmetis command. `mpirun -np P gnn-partition
// --distributed ...` partitions a graph no single process holds: every rank
// reads a slice, the multilevel partitioner (or PT-Scotch) partitions across
// the ranks, and the ranks write
// the same directory (DistributedPartitioner.h). Every failure prints
// `gnn-partition: error: <message>` on stderr (`gnn-partition: rank R:
// error: ...` from every rank under mpirun) and exits 1.
//
//===----------------------------------------------------------------------===//

#include "ToolArgs.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetFormat.h"
#include "gnnrt/partition/DistributedPartitioner.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/PartitionSampling.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnntools;

namespace {

const char *kUsage = R"(usage:
  gnn-partition --data DIR --parts P --out OUT [options]
  gnn-partition --data DIR --write-metis-graph FILE [--balance LIST]
                [--edge-assign dst|src] [dataset options]
  gnn-partition info OUT
  mpirun -np R gnn-partition --distributed --data DIR --parts P --out OUT
                [--balance LIST] [--edge-assign dst|src] [--ufactor U]
                [--seed S] [--tries N] [dataset options]

partition options:
  --parts P               number of parts (one per rank)
  --method metis|random|file|frequency
                          METIS k-way (default), a seeded balanced shuffle
                          (GLT's RandomPartitioner), --assignment's file, or
                          by pre-sampled access frequency (GLT's
                          FrequencyPartitioner; needs --fanouts)
  --balance LIST          METIS constraints, a comma-separated subset of
                          nodes,edges,train (default: nodes; on a
                          heterogeneous dataset nodes,train, with one nodes
                          column per node type)
  --edge-assign dst|src   store each edge with its destination's owner
                          (default) or its source's (GLT's edge_assign_strategy)
  --seed S                METIS / distributed / shuffle / sampling seed
                          (default 0)
  --tries N               --distributed: partition N times from seeds drawn
                          from --seed and keep the smallest balanced cut, as
                          METIS's ncuts (default 1)
  --ufactor U             imbalance tolerance in 1/1000 of METIS, and of
                          frequency's part capacity (default 30)
  --assignment FILE       node -> part, one line per node (gpmetis's output);
                          implies --method file
  --out OUT               output directory, replaced atomically
  --distributed           under mpirun: every rank reads a slice of the
                          dataset and the ranks partition it together, with
                          --method multilevel (default: each rank coarsens
                          its own nodes, METIS partitions the coarsest graph)
                          or ptscotch (PT-Scotch: a smaller cut on graphs of
                          weak communities, several times the memory); any
                          number of parts, part k written by rank k % R; see
                          docs/partitioning.md

sampling options (frequency, the feature cache, the remote-row estimate):
  --fanouts LIST          the training fanouts, comma-separated, in the .gnn
                          program's order: layer 0 (the input layer) first,
                          e.g. 15,10,5; each > 0, or -1 for all neighbours.
                          Also prints the estimated remote feature rows per
                          epoch of sampled training
  --batch N               training batch size (default 1024)
  --cache-ratio R         every part also stores the feature rows of its
                          R x (owned nodes) hottest remote nodes, R in [0, 1]
                          (default 0; needs --fanouts)

dataset options (as the trainer loads it):
  --no-reverse            do not add reverse edges (the trainer's
                          add_reverse_edges = false)
  --self-loops            add a self loop per node
  --split NAME            split directory (OGB layout)
  --no-cache              neither read nor write the binary dataset cache
)";

/// Parses "nodes,edges,train".
std::vector<BalanceConstraint> parseBalance(const std::string &text) {
  std::vector<BalanceConstraint> balance;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string name = text.substr(pos, comma - pos);
    std::optional<BalanceConstraint> c = balanceConstraintFromName(name);
    if (!c)
      throw UsageError("--balance takes a comma-separated subset of "
                       "nodes,edges,train, found '" +
                       name + "'");
    if (std::find(balance.begin(), balance.end(), *c) != balance.end())
      throw UsageError("--balance lists '" + name + "' twice");
    balance.push_back(*c);
    pos = comma + 1;
  }
  return balance;
}

/// Parses "15,10,5": integers > 0 or -1.
std::vector<int64_t> parseFanouts(const std::string &text) {
  std::vector<int64_t> fanouts;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, comma - pos);
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end || errno || (v < 1 && v != -1))
      throw UsageError("--fanouts takes comma-separated integers > 0 or -1 "
                       "(layer 0 first), found '" +
                       item + "'");
    fanouts.push_back(v);
    pos = comma + 1;
  }
  return fanouts;
}

std::string fanoutsText(const std::vector<int64_t> &fanouts) {
  std::string text;
  for (int64_t f : fanouts)
    text += (text.empty() ? "" : ",") + std::to_string(f);
  return text;
}

std::string balanceText(const std::vector<BalanceConstraint> &balance) {
  std::string text;
  for (BalanceConstraint c : balance)
    text += (text.empty() ? "" : ",") + std::string(balanceConstraintName(c));
  return text;
}

/// The dataset options every command shares; fills `manifest`'s record of
/// them too.
LoadOptions loadOptions(const Args &args, PartitionManifest &manifest) {
  LoadOptions o;
  o.addReverseEdges = !args.has("--no-reverse");
  o.addSelfLoops = args.has("--self-loops");
  o.dedupe = true; // as the trainer: repeated edges would double messages
  o.splitName = args.get("--split");
  o.useCache = !args.has("--no-cache");
  manifest.dataset = args.required("--data");
  manifest.split = o.splitName;
  manifest.addReverseEdges = o.addReverseEdges;
  manifest.addSelfLoops = o.addSelfLoops;
  manifest.dedupe = o.dedupe;
  return o;
}

Dataset load(const std::string &dir, const LoadOptions &options) {
  auto start = std::chrono::steady_clock::now();
  bool fromCache = false;
  Dataset ds = loadDataset(dir, options, &fromCache);
  std::printf("loaded %s: %lld nodes, %lld edges in %.2f s (%s)\n", dir.c_str(),
              (long long)ds.numNodes, (long long)ds.numEdges(),
              secondsSince(start), fromCache ? "from cache" : "parsed");
  return ds;
}

double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0;
}

void printSummary(const std::string &dir, const PartitionManifest &m) {
  std::printf("partitions   %s\n", dir.c_str());
  std::printf("method       %s", partitionMethodName(m.method));
  if (m.method == PartitionMethod::Metis)
    std::printf(" (balance %s; ufactor %lld; seed %llu; objective %lld)",
                balanceText(m.balance).c_str(), (long long)m.ufactor,
                (unsigned long long)m.seed, (long long)m.metisObjective);
  else if (m.method == PartitionMethod::ParallelScotch ||
           m.method == PartitionMethod::Multilevel ||
           m.method == PartitionMethod::Blocks)
    std::printf(" (balance %s; ufactor %lld; objective %lld)",
                balanceText(m.balance).c_str(), (long long)m.ufactor,
                (long long)m.metisObjective);
  else if (m.method == PartitionMethod::Random)
    std::printf(" (seed %llu)", (unsigned long long)m.seed);
  else if (m.method == PartitionMethod::Frequency)
    std::printf(" (fanouts %s; batch %lld; ufactor %lld; seed %llu)",
                fanoutsText(m.fanouts).c_str(), (long long)m.batchSize,
                (long long)m.ufactor, (unsigned long long)m.seed);
  else
    std::printf(" (%s)", m.assignmentFile.c_str());
  std::printf("\nedge assign  %s\n", edgeAssignName(m.edgeAssign));
  const bool cache = m.cacheRatio > 0;
  if (cache) {
    int64_t total = 0;
    for (const PartCounts &c : m.parts)
      total += c.cachedNodes;
    std::printf("cache        ratio %g, %lld rows in all (hotness from "
                "fanouts %s, batch %lld)\n",
                m.cacheRatio, (long long)total, fanoutsText(m.fanouts).c_str(),
                (long long)m.batchSize);
  }
  std::printf("dataset      %s (reverse edges %s, self loops %s%s%s)\n",
              m.dataset.c_str(), m.addReverseEdges ? "yes" : "no",
              m.addSelfLoops ? "yes" : "no", m.split.empty() ? "" : ", split ",
              m.split.c_str());
  std::printf("nodes        %lld\n", (long long)m.numNodes);
  std::printf("edges        %lld\n", (long long)m.numEdges);
  std::printf("parts        %d\n", m.numParts);
  std::printf("edge cut     %lld (%.2f%% of edges)\n", (long long)m.edgeCut,
              percent(m.edgeCut, m.numEdges));
  std::printf("%-5s %10s %11s %10s %10s %9s %9s %9s %11s", "part", "owned",
              "edges", "halo", "send", "train", "valid", "test", "cut");
  std::printf(cache ? " %10s\n" : "\n", "cached");
  for (size_t k = 0; k < m.parts.size(); ++k) {
    const PartCounts &c = m.parts[k];
    std::printf("%-5zu %10lld %11lld %10lld %10lld %9lld %9lld %9lld %11lld", k,
                (long long)c.ownedNodes, (long long)c.edges,
                (long long)c.haloNodes, (long long)c.sendNodes,
                (long long)c.train, (long long)c.valid, (long long)c.test,
                (long long)c.cutEdges);
    if (cache)
      std::printf(" %10lld", (long long)c.cachedNodes);
    std::printf("\n");
  }
  for (const BalanceStat &s : partitionBalance(m))
    std::printf("balance      %-6s %.4f (max %lld, mean %.1f)\n",
                s.name.c_str(), s.ratio(), (long long)s.max, s.mean);
}

int info(int argc, char **argv) {
  Args args(argc, argv, 2, {}, {});
  if (args.positional.size() != 1)
    throw UsageError("info expects one partition directory");
  std::string dir = args.positional[0];
  printSummary(dir, readPartitionManifest(dir));
  return 0;
}

int writeGraph(const Args &args) {
  for (const char *option :
       {"--parts", "--out", "--method", "--seed", "--ufactor", "--assignment",
        "--fanouts", "--batch", "--cache-ratio", "--tries"})
    if (args.has(option))
      throw UsageError(std::string("--write-metis-graph does not take '") +
                       option + "'");
  PartitionManifest record;
  LoadOptions options = loadOptions(args, record);
  std::vector<BalanceConstraint> balance =
      parseBalance(args.get("--balance", "nodes"));
  std::optional<EdgeAssign> assign =
      edgeAssignFromName(args.get("--edge-assign", "dst"));
  if (!assign)
    throw UsageError("--edge-assign must be dst or src, found '" +
                     args.get("--edge-assign") + "'");
  Dataset ds = load(record.dataset, options);
  std::string file = args.get("--write-metis-graph");
  auto start = std::chrono::steady_clock::now();
  writeMetisGraph(file, ds, balance, *assign);
  std::printf("wrote %s (METIS graph, %zu constraint%s: %s) in %.2f s\n",
              file.c_str(), balance.size(), balance.size() == 1 ? "" : "s",
              balanceText(balance).c_str(), secondsSince(start));
  return 0;
}

/// `--distributed`: every rank of `comm` runs this.
int partitionAcrossRanks(const Args &args, Communicator &comm) {
  for (const char *option : {"--write-metis-graph", "--assignment", "--fanouts",
                             "--batch", "--cache-ratio"})
    if (args.has(option))
      throw UsageError(std::string("--distributed does not take '") + option +
                       "' (pre-sampling and assignment files run in one "
                       "process)");
  const std::string methodName = args.get("--method", "multilevel");
  std::optional<PartitionMethod> method = partitionMethodFromName(methodName);
  if (method != PartitionMethod::ParallelScotch &&
      method != PartitionMethod::Multilevel)
    throw UsageError("--distributed partitions with --method ptscotch or "
                     "multilevel, found '" +
                     methodName + "'");
  PartitionOptions o;
  o.method = *method;
  const bool scotch = o.method == PartitionMethod::ParallelScotch;
  const char *partitioner = scotch ? "PT-Scotch" : "multilevel";
  PartitionManifest manifest;
  LoadOptions loadOpts = loadOptions(args, manifest);
  o.numParts =
      int(std::min<int64_t>(args.integer("--parts", 0, 1), int64_t(1) << 30));
  args.required("--parts");
  if (args.has("--balance"))
    o.balance = parseBalance(args.get("--balance"));
  std::optional<EdgeAssign> assign =
      edgeAssignFromName(args.get("--edge-assign", "dst"));
  if (!assign)
    throw UsageError("--edge-assign must be dst or src, found '" +
                     args.get("--edge-assign") + "'");
  o.edgeAssign = *assign;
  o.ufactor = args.integer("--ufactor", 30, 1);
  o.seed = uint64_t(args.integer("--seed", 0, 0));
  o.tries = int(std::min<int64_t>(args.integer("--tries", 1, 1), 1000));
  std::string out = args.required("--out");
  // Ranks read slices of the files (DatasetSlice.h): the typed OGB
  // layout's gzip tables have no slice reader; its .npy twin has.
  const DatasetFormatInfo &format = datasetFormat(manifest.dataset);
  if (!format.readSlice)
    throw DataError(manifest.dataset + ": a typed graph in the " + format.name +
                    " layout is not read in slices: convert it to the typed "
                    ".npy layout first (gnn-data convert " +
                    manifest.dataset +
                    " --out DIR), or partition it in one "
                    "process (gnn-partition --data " +
                    manifest.dataset + " --parts " +
                    std::to_string(o.numParts) + " --out " + out + ")");

  auto start = std::chrono::steady_clock::now();
  DistributedPartitionReport report;
  manifest = partitionDistributed(comm, manifest.dataset, loadOpts, o, out,
                                  manifest, &report);
  const double total = secondsSince(start);
  std::vector<double> peaks(size_t(comm.size()), 0);
  peaks[size_t(comm.rank())] = report.peakMiB[4];
  comm.allReduceSum(peaks.data(), int64_t(peaks.size()));
  if (comm.rank() != 0)
    return 0;
  std::printf(
      "partitioned %s on %d rank%s with %s in %.2f s (rank 0: "
      "read %.2f s, graph %.2f s, %s %.2f s, balance %.2f s, "
      "parts and write %.2f s)\n",
      manifest.dataset.c_str(), comm.size(), comm.size() == 1 ? "" : "s",
      partitioner, total, report.readSeconds, report.graphSeconds, partitioner,
      report.partitionSeconds, report.balanceSeconds, report.writeSeconds);
  if (!scotch)
    std::printf("levels       %d coarse level%s; METIS partitioned the "
                "coarsest graph, %lld nodes and %lld edges\n",
                report.levels, report.levels == 1 ? "" : "s",
                (long long)report.coarsestVertices,
                (long long)report.coarsestEdges);
  std::printf("objective    %lld from %s, %lld after %d balance and "
              "%d refinement rounds (%lld moves); constraints %s\n",
              (long long)report.initialObjective, partitioner,
              (long long)report.objective, report.balanceRounds,
              report.refineRounds, (long long)report.moved,
              report.balanced ? "within the ufactor bound"
                              : "NOT within the ufactor bound");
  if (o.tries > 1)
    std::printf("tries        %d; kept try %d, the smallest balanced cut\n",
                o.tries, report.bestTry + 1);
  std::printf("peak RSS     ");
  for (size_t r = 0; r < peaks.size(); ++r)
    std::printf("%srank %zu %.1f MiB", r ? ", " : "", r, peaks[r]);
  std::printf(" (rank 0 after reading %.1f, graph %.1f, %s %.1f, "
              "balance %.1f)\n",
              report.peakMiB[0], report.peakMiB[1], partitioner,
              report.peakMiB[2], report.peakMiB[3]);
  printSummary(out, manifest);
  return 0;
}

int partition(int argc, char **argv, Communicator *comm) {
  Args args(argc, argv, 1,
            {"--no-reverse", "--self-loops", "--no-cache", "--distributed"},
            {"--data", "--parts", "--method", "--balance", "--edge-assign",
             "--seed", "--ufactor", "--assignment", "--out", "--split",
             "--write-metis-graph", "--fanouts", "--batch", "--cache-ratio",
             "--tries"});
  if (!args.positional.empty())
    throw UsageError("unexpected argument '" + args.positional[0] + "'");
  args.required("--data");
  if (comm)
    return partitionAcrossRanks(args, *comm);
  if (args.has("--write-metis-graph"))
    return writeGraph(args);

  PartitionOptions o;
  PartitionManifest manifest;
  LoadOptions loadOpts = loadOptions(args, manifest);
  std::string methodName =
      args.get("--method", args.has("--assignment") ? "file" : "metis");
  std::optional<PartitionMethod> method = partitionMethodFromName(methodName);
  if (method == PartitionMethod::ParallelScotch ||
      method == PartitionMethod::Multilevel)
    throw UsageError("--method " + methodName +
                     " partitions across MPI ranks: run mpirun -np R "
                     "gnn-partition --distributed");
  if (!method || method == PartitionMethod::Blocks)
    throw UsageError("--method must be metis, random, file or frequency, "
                     "found '" +
                     methodName + "'");
  o.method = *method;
  if (o.method == PartitionMethod::File && !args.has("--assignment"))
    throw UsageError("--method file needs --assignment FILE");
  if (o.method != PartitionMethod::File && args.has("--assignment"))
    throw UsageError("--assignment goes with --method file, not '" +
                     methodName + "'");
  if (o.method != PartitionMethod::Metis && args.has("--balance"))
    throw UsageError("--balance applies to --method metis only");
  if (o.method != PartitionMethod::Metis &&
      o.method != PartitionMethod::Frequency && args.has("--ufactor"))
    throw UsageError("--ufactor applies to --method metis or frequency only");
  if (args.has("--fanouts"))
    o.fanouts = parseFanouts(args.get("--fanouts"));
  else if (o.method == PartitionMethod::Frequency)
    throw UsageError("--method frequency needs --fanouts (the training "
                     "fanouts, layer 0 first)");
  o.batchSize = args.integer("--batch", 1024, 1);
  o.cacheRatio = args.real("--cache-ratio", 0);
  if (!(o.cacheRatio >= 0 && o.cacheRatio <= 1))
    throw UsageError("--cache-ratio must lie in [0, 1], found '" +
                     args.get("--cache-ratio") + "'");
  if (!args.has("--fanouts") && (args.has("--batch") || o.cacheRatio > 0))
    throw UsageError(
        std::string(args.has("--batch") ? "--batch" : "--cache-ratio") +
        " needs --fanouts (the training fanouts, layer 0 first)");
  if (o.method == PartitionMethod::File && args.has("--seed"))
    throw UsageError("--seed does not apply to --method file");
  if (args.has("--tries"))
    throw UsageError("--tries applies to --distributed (whose cut varies "
                     "with the seed); one process partitions once");
  o.numParts =
      int(std::min<int64_t>(args.integer("--parts", 0, 1), int64_t(1) << 30));
  args.required("--parts");
  if (args.has("--balance"))
    o.balance = parseBalance(args.get("--balance"));
  std::optional<EdgeAssign> assign =
      edgeAssignFromName(args.get("--edge-assign", "dst"));
  if (!assign)
    throw UsageError("--edge-assign must be dst or src, found '" +
                     args.get("--edge-assign") + "'");
  o.edgeAssign = *assign;
  o.seed = uint64_t(args.integer("--seed", 0, 0));
  o.ufactor = args.integer("--ufactor", 30, 1);
  o.assignmentFile = args.get("--assignment");
  std::string out = args.required("--out");

  Dataset ds = load(manifest.dataset, loadOpts);
  if (!args.has("--balance"))
    o.balance = defaultBalance(ds);
  auto start = std::chrono::steady_clock::now();
  // Frequency's access counts are also the cache's: sample them once.
  AccessCounts hotness;
  std::vector<int32_t> owner =
      o.method == PartitionMethod::Frequency
          ? frequencyPartition(ds, o, &hotness)
          : partitionNodes(ds, o, &manifest.metisObjective);
  std::printf("assigned nodes to %d parts with %s in %.2f s\n", o.numParts,
              partitionMethodName(o.method), secondsSince(start));

  start = std::chrono::steady_clock::now();
  PartitionPlan plan =
      buildPartitionPlan(ds, std::move(owner), o.numParts, o.edgeAssign);
  if (o.cacheRatio > 0) {
    if (hotness.counts.empty())
      addFeatureCache(plan, ds, o);
    else
      selectFeatureCache(plan, hotness, o.cacheRatio);
  }
  manifest.method = o.method;
  if (o.method == PartitionMethod::Frequency || o.cacheRatio > 0) {
    manifest.fanouts = o.fanouts;
    manifest.batchSize = o.batchSize;
  }
  if (o.method == PartitionMethod::Metis)
    manifest.balance = o.balance;
  manifest.seed = o.method == PartitionMethod::File ? 0 : o.seed;
  manifest.ufactor = o.ufactor;
  manifest.assignmentFile = o.assignmentFile;
  fillManifestCounts(manifest, ds, plan);
  writePartitions(out, ds, plan, manifest);
  std::printf("wrote %s in %.2f s\n", out.c_str(), secondsSince(start));
  printSummary(out, manifest);
  if (!o.fanouts.empty()) {
    start = std::chrono::steady_clock::now();
    RemoteRowEstimate e = estimateRemoteRows(ds, plan, o);
    std::printf("sampled input rows per epoch: %lld in %lld batches (fanouts "
                "%s; batch %lld) in %.2f s\n",
                (long long)e.inputRows, (long long)e.batches,
                fanoutsText(o.fanouts).c_str(), (long long)o.batchSize,
                secondsSince(start));
    std::printf("sampled remote feature rows per epoch: %lld (cache hits "
                "%lld)\n",
                (long long)e.remoteRows, (long long)e.cacheHits);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  // --distributed runs on every rank of the MPI launch (or alone).
  std::unique_ptr<Communicator> comm;
  auto where = [&]() -> std::string {
    return comm && comm->size() > 1
               ? "gnn-partition: rank " + std::to_string(comm->rank())
               : "gnn-partition";
  };
  bool consistent = true; // every rank fails the same way
  int status = 1;
  try {
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--distributed") {
        comm = makeMpiCommunicator();
        // Reading a slice or writing parts may keep a rank busy for
        // minutes while the others wait for it.
        comm->setTimeout(3600);
      }
    if (command == "info")
      return info(argc, argv);
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (command.empty())
      throw UsageError("missing arguments");
    if (command.rfind("--", 0) != 0)
      throw UsageError("unknown command '" + command + "'");
    status = partition(argc, argv, comm.get());
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "%s: error: %s\n(run 'gnn-partition --help' for "
                 "usage)\n",
                 where().c_str(), e.what());
  } catch (const DataError &e) {
    std::fprintf(stderr, "%s: error: %s\n", where().c_str(), e.what());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "%s: error: out of memory\n", where().c_str());
    consistent = false;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: error: %s\n", where().c_str(), e.what());
    consistent = false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // Errors of the data or the command line reach every rank alike (the
  // partitioner agrees on them); anything else ends all ranks, so that none
  // waits forever in a collective.
  if (status != 0 && comm && !consistent)
    abortAllRanks(*comm, status);
  return status;
}
