// sample_bench.cpp - mini-batch neighbor sampling throughput of gnnrt's
// NeighborSampler and BatchPipeline on a gnn-data directory.
//
//   sample_bench DATA_DIR [--fanouts 15,10,5] [--batch 1024] [--threads 2]
//                [--batches 100] [--runs 5] [--mode both|sampling|gather]
//                [--export DIR]
//
// The graph is loaded as the trainer loads it (reverse edges added,
// duplicates dropped; the binary cache makes that fast). Fanouts are read in
// PyG's order (num_neighbors: the seeds' hop first) and reversed into
// gnnrt's layer-0-first SamplerOptions::fanouts, so both sides draw the same
// numbers per hop. Each run samples the first BATCHES batches of epoch r
// (the training nodes shuffled by epochSeedOrder) through a BatchPipeline of
// THREADS workers and 2 * THREADS slots; the main thread only takes the
// batches (one pipeline for all runs of a measurement, after a warm-up run,
// so that its slots are reused as in training). Two measurements, each the
// median over RUNS runs:
//   sampling  the workers sample the blocks;
//   gather    the workers also copy the level-0 feature rows (the input of
//             a train step) into SampledBatch::features and the seeds'
//             labels into SampledBatch::labels.
// Output: `ours: ...` lines of key=value that bench/sampling.sh parses.
//
// --export DIR writes the loaded graph for the Python peer and exits:
// indptr.npy (N+1 int64) and indices.npy (E int64), the in-neighbour CSR
// (row v lists the sources of v's in-edges), and train.npy (int64).
#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/sample/Sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

using namespace gnnrt;

namespace {

struct Options {
  std::string data, exportDir;
  std::vector<int64_t> numNeighbors = {15, 10, 5}; // PyG order
  int64_t batch = 1024, batches = 100;
  int threads = 2, runs = 5;
  bool sampling = true, gather = true; // which measurements to make
};

[[noreturn]] void usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s DATA_DIR [--fanouts 15,10,5] [--batch 1024] "
               "[--threads 2] [--batches 100] [--runs 5] "
               "[--mode both|sampling|gather] [--export DIR]\n",
               argv0);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc)
        usage(argv[0]);
      return std::string(argv[++i]);
    };
    if (arg == "--fanouts") {
      o.numNeighbors.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');)
        o.numNeighbors.push_back(std::stoll(item));
    } else if (arg == "--batch") {
      o.batch = std::stoll(value());
    } else if (arg == "--threads") {
      o.threads = std::stoi(value());
    } else if (arg == "--batches") {
      o.batches = std::stoll(value());
    } else if (arg == "--runs") {
      o.runs = std::stoi(value());
    } else if (arg == "--mode") {
      const std::string mode = value();
      if (mode != "both" && mode != "sampling" && mode != "gather")
        usage(argv[0]);
      o.sampling = mode != "gather";
      o.gather = mode != "sampling";
    } else if (arg == "--export") {
      o.exportDir = value();
    } else if (o.data.empty() && arg[0] != '-') {
      o.data = arg;
    } else {
      usage(argv[0]);
    }
  }
  if (o.data.empty() || o.batch < 1 || o.batches < 1 || o.threads < 1 ||
      o.runs < 1)
    usage(argv[0]);
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Copies the level-0 feature rows and the seeds' labels into the batch.
void gatherInputs(const Dataset &ds, SampledBatch &b) {
  const int64_t rows = b.levelSizes[0], width = ds.numFeatures;
  b.features.resize(size_t(rows * width));
  const float *x = ds.features.data();
  for (int64_t i = 0; i < rows; ++i) {
    if (i + 8 < rows)
      __builtin_prefetch(x + b.nodes[size_t(i + 8)] * width);
    std::memcpy(b.features.data() + i * width, x + b.nodes[size_t(i)] * width,
                size_t(width) * sizeof(float));
  }
  b.labels.resize(size_t(b.numSeeds()));
  for (int64_t i = 0; i < b.numSeeds(); ++i)
    b.labels[size_t(i)] = ds.labels[size_t(b.nodes[size_t(i)])];
}

/// CPU time of the calling thread: with other work on the machine, edges
/// per CPU second still compare two versions of the sampler.
double threadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

} // namespace

int main(int argc, char **argv) try {
  const Options o = parse(argc, argv);

  LoadOptions load;
  load.addReverseEdges = true;
  load.dedupe = true;
  Dataset ds = loadDataset(o.data, load);
  const Graph graph = Graph::fromEdges(ds.numNodes, ds.src, ds.dst);
  ds.src = {};
  ds.dst = {};
  std::fprintf(stderr, "sample_bench: %lld nodes, %lld edges, %lld features\n",
               (long long)ds.numNodes, (long long)graph.numEdges(),
               (long long)ds.numFeatures);

  if (!o.exportDir.empty()) {
    const std::vector<int32_t> &src = graph.inSources();
    std::vector<int64_t> indices(src.begin(), src.end());
    writeNpy(o.exportDir + "/indptr.npy", NpyType::Int64, {ds.numNodes + 1},
             graph.inOffsets().data());
    writeNpy(o.exportDir + "/indices.npy", NpyType::Int64,
             {int64_t(indices.size())}, indices.data());
    writeNpy(o.exportDir + "/train.npy", NpyType::Int64,
             {int64_t(ds.trainIdx.size())}, ds.trainIdx.data());
    return 0;
  }

  SamplerOptions so;
  so.fanouts.assign(o.numNeighbors.rbegin(), o.numNeighbors.rend());
  so.seed = 1;
  const Adjacency adj{ds.numNodes, graph.inOffsets().data(),
                      graph.inSources().data(), nullptr};
  const NeighborSampler sampler(adj, ds.numNodes, so);
  std::vector<BlockBuilder> builders(size_t(o.threads),
                                     BlockBuilder(ds.numNodes));

  // One pipeline per measurement, so that its slots are reused as in
  // training; segment 0 (epoch 0's first batches) warms them up and segment
  // r (epoch r's) is run r, timed from the delivery of the batch before it
  // to that of its last batch.
  auto measure = [&](bool gather) {
    const int64_t segments = o.runs + 1;
    std::vector<std::vector<int64_t>> orders;
    for (int64_t epoch = 0; epoch < segments; ++epoch)
      orders.push_back(
          epochSeedOrder(ds.trainIdx, /*shuffle=*/true, so.seed, epoch));
    const int64_t total = int64_t(ds.trainIdx.size());
    const int64_t perRun = std::min(o.batches, (total + o.batch - 1) / o.batch);
    std::vector<double> cpuOf(size_t(segments * perRun));
    BatchPipeline pipeline(
        segments * perRun, o.threads, 2 * o.threads,
        [&](int64_t b, int worker, SampledBatch &slot) {
          const double cpuStart = threadCpuSeconds();
          const int64_t epoch = b / perRun, at = (b % perRun) * o.batch;
          sampler.sample(orders[size_t(epoch)].data() + at,
                         std::min(o.batch, total - at),
                         {so.seed, uint64_t(epoch), uint64_t(b % perRun)},
                         builders[size_t(worker)], slot);
          if (gather)
            gatherInputs(ds, slot);
          cpuOf[size_t(b)] = threadCpuSeconds() - cpuStart;
        });
    std::vector<double> edgeRates, batchRates, cpuRates;
    int64_t edges = 0, nodes = 0;
    double cpu = 0, edgesPerBatch = 0, nodesPerBatch = 0;
    auto segmentStart = std::chrono::steady_clock::now();
    for (int64_t b = 0; SampledBatch *batch = pipeline.next(); ++b) {
      edges += batch->sampledEdges();
      nodes += batch->levelSizes[0];
      cpu += cpuOf[size_t(b)];
      if ((b + 1) % perRun)
        continue;
      const auto now = std::chrono::steady_clock::now();
      const double seconds =
          std::chrono::duration<double>(now - segmentStart).count();
      edgesPerBatch = double(edges) / double(perRun);
      nodesPerBatch = double(nodes) / double(perRun);
      if (b + 1 > perRun) { // not the warm-up
        edgeRates.push_back(double(edges) / seconds);
        batchRates.push_back(double(perRun) / seconds);
        cpuRates.push_back(double(edges) / cpu);
        std::fprintf(stderr,
                     "  %s run %d: %.3f s, %lld batches, %.2fM edges/s, "
                     "%.2fM edges per producer CPU second\n",
                     gather ? "gather" : "sampling", int(edgeRates.size()),
                     seconds, (long long)perRun, edgeRates.back() / 1e6,
                     cpuRates.back() / 1e6);
      }
      edges = nodes = 0;
      cpu = 0;
      segmentStart = now;
    }
    std::printf("ours: mode=%s threads=%d batches=%lld edges_per_batch=%.0f "
                "nodes_per_batch=%.0f edges_per_s=%.0f batches_per_s=%.2f "
                "edges_per_cpu_s=%.0f\n",
                gather ? "gather" : "sampling", o.threads, (long long)perRun,
                edgesPerBatch, nodesPerBatch, median(edgeRates),
                median(batchRates), median(cpuRates));
  };
  if (o.sampling)
    measure(false);
  if (o.gather)
    measure(true);
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "sample_bench: %s\n", e.what());
  return 1;
}
