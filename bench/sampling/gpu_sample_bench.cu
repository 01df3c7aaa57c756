// gpu_sample_bench.cu - sampled edges per second of gnnrt's GPU neighbour
// sampler (DeviceNeighborSampler) on a gnn-data directory, against the CPU
// sampler (NeighborSampler) on one thread, with the same batches.
//
//   gpu_sample_bench DATA_DIR [--fanouts 15,10,5] [--batch 1024]
//                    [--batches 100] [--runs 5] [--gather] [--zero-copy]
//
// The graph is loaded as the trainer loads it (reverse edges added,
// duplicates dropped). Fanouts are in PyG's order (the seeds' hop first), as
// bench/sampling.sh takes them. Run r samples the first BATCHES batches of
// epoch r (the training nodes shuffled by epochSeedOrder); a warm-up run
// first. Before timing, epoch 0's first batch is sampled by both samplers
// and must be the same, block for block (the GPU sampler draws the CPU's
// neighbours), else the bench fails. The GPU is measured twice: each hop
// deduplicated on the device (sampleBatch, what a one-process trainer
// runs, and in its DeviceBlockBuilder what a rank under mpirun runs:
// mode=device-dedup) and hop by hop with the host's BlockBuilder (sample:
// mode=host-dedup, what GNNRT_SAMPLING_DEDUP=host and typed graphs run).
// With --gather
// the GPU runs also gather each batch's input rows from the features in
// device memory; with --zero-copy the CSR stays in mapped pinned host
// memory, read by the kernels over the bus (a graph larger than the GPU).
// Output: `gpu: ...` and `cpu: ...` lines of key=value (medians over runs).
// Exits 1 with a message when no CUDA device is present.
#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/sample/cuda/DeviceSampler.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

using namespace gnnrt;

namespace {

struct Options {
  std::string data;
  std::vector<int64_t> numNeighbors = {15, 10, 5}; // PyG order
  int64_t batch = 1024, batches = 100;
  int runs = 5;
  bool gather = false, zeroCopy = false;
};

[[noreturn]] void usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s DATA_DIR [--fanouts 15,10,5] [--batch 1024] "
               "[--batches 100] [--runs 5] [--gather] [--zero-copy]\n",
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
    } else if (arg == "--batches") {
      o.batches = std::stoll(value());
    } else if (arg == "--runs") {
      o.runs = std::stoi(value());
    } else if (arg == "--gather") {
      o.gather = true;
    } else if (arg == "--zero-copy") {
      o.zeroCopy = true;
    } else if (o.data.empty() && arg[0] != '-') {
      o.data = arg;
    } else {
      usage(argv[0]);
    }
  }
  if (o.data.empty() || o.batch < 1 || o.batches < 1 || o.runs < 1)
    usage(argv[0]);
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool sameBlocks(const SampledBatch &a, const SampledBatch &b) {
  if (a.nodes != b.nodes || a.levelSizes != b.levelSizes ||
      a.views.size() != b.views.size())
    return false;
  for (size_t i = 0; i < a.views.size(); ++i) {
    const GraphView &x = a.views[i], &y = b.views[i];
    if (x.numEdges != y.numEdges ||
        !std::equal(x.inOffsets, x.inOffsets + x.numDst + 1, y.inOffsets) ||
        !std::equal(x.edgeSrc, x.edgeSrc + x.numEdges, y.edgeSrc))
      return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) try {
  const Options o = parse(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gpu_sample_bench: no CUDA device: GPU sampling "
                         "needs a GPU (the emulated tests check its draws)\n");
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);

  LoadOptions load;
  load.addReverseEdges = true;
  load.dedupe = true;
  Dataset ds = loadDataset(o.data, load);
  const Graph graph = Graph::fromEdges(ds.numNodes, ds.src, ds.dst);
  ds.src = {};
  ds.dst = {};
  std::fprintf(stderr, "gpu_sample_bench: %lld nodes, %lld edges on %s\n",
               (long long)ds.numNodes, (long long)graph.numEdges(), prop.name);

  SamplerOptions so;
  so.fanouts.assign(o.numNeighbors.rbegin(), o.numNeighbors.rend());
  so.seed = 1;
  const Adjacency adj{ds.numNodes, graph.inOffsets().data(),
                      graph.inSources().data(), nullptr};
  const NeighborSampler cpu(adj, ds.numNodes, so);
  // A graph budget of 0 bytes keeps the CSR in pinned host memory.
  const DeviceNeighborSampler gpu(adj, ds.numNodes, so,
                                  o.zeroCopy ? 0 : -1);
  BlockBuilder builder(ds.numNodes);
  const int64_t total = int64_t(ds.trainIdx.size());
  const int64_t perRun = std::min(o.batches, (total + o.batch - 1) / o.batch);

  // The features on the device, for --gather.
  float *features = nullptr, *rows = nullptr;
  int64_t *ids = nullptr;
  size_t rowCapacity = 0;
  if (o.gather && cudaMalloc(&features, ds.features.size() * sizeof(float)) ==
                      cudaSuccess)
    cudaMemcpy(features, ds.features.data(), ds.features.size() * sizeof(float),
               cudaMemcpyHostToDevice);

  {
    const std::vector<int64_t> order =
        epochSeedOrder(ds.trainIdx, /*shuffle=*/true, so.seed, 0);
    SampledBatch a, b, c;
    const int64_t n = std::min(o.batch, total);
    cpu.sample(order.data(), n, {so.seed, 0, 0}, builder, a);
    gpu.sample(order.data(), n, {so.seed, 0, 0}, builder, b);
    gpu.sampleBatch(order.data(), n, so.fanouts, {so.seed, 0, 0}, c);
    if (!sameBlocks(a, b) || !sameBlocks(a, c)) {
      std::fprintf(stderr, "gpu_sample_bench: the GPU sampler's first batch "
                           "differs from the CPU sampler's\n");
      return 1;
    }
  }

  enum class Mode { Cpu, GpuHostDedup, GpuDeviceDedup };
  auto measure = [&](Mode mode) {
    const bool onDevice = mode != Mode::Cpu;
    std::vector<double> rates, batchRates;
    int64_t edges = 0;
    SampledBatch batch;
    for (int run = 0; run <= o.runs; ++run) { // run 0 warms up
      const std::vector<int64_t> order =
          epochSeedOrder(ds.trainIdx, /*shuffle=*/true, so.seed, uint64_t(run));
      edges = 0;
      const auto start = std::chrono::steady_clock::now();
      for (int64_t b = 0; b < perRun; ++b) {
        const int64_t at = b * o.batch;
        const SampleKey key{so.seed, uint64_t(run), uint64_t(b)};
        if (mode == Mode::GpuDeviceDedup)
          gpu.sampleBatch(order.data() + at, std::min(o.batch, total - at),
                          so.fanouts, key, batch);
        else if (mode == Mode::GpuHostDedup)
          gpu.sample(order.data() + at, std::min(o.batch, total - at), key,
                     builder, batch);
        else
          cpu.sample(order.data() + at, std::min(o.batch, total - at), key,
                     builder, batch);
        edges += batch.sampledEdges();
        if (onDevice && features) {
          const size_t count = size_t(batch.levelSizes[0]);
          if (count * size_t(ds.numFeatures) > rowCapacity) {
            cudaFree(rows);
            cudaFree(ids);
            rowCapacity = count * size_t(ds.numFeatures);
            cudaMalloc(&rows, rowCapacity * sizeof(float));
            cudaMalloc(&ids, count * sizeof(int64_t));
          }
          cudaMemcpy(ids, batch.nodes.data(), count * sizeof(int64_t),
                     cudaMemcpyHostToDevice);
          gatherFeatureRows(features, ds.numFeatures, ids, int64_t(count),
                            rows);
        }
      }
      cudaDeviceSynchronize();
      const double seconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
      if (run > 0) {
        rates.push_back(double(edges) / seconds);
        batchRates.push_back(double(perRun) / seconds);
      }
    }
    std::printf("%s: mode=%s%s%s edges_per_s=%.0f batches_per_s=%.2f "
                "edges_per_batch=%.0f batches=%lld runs=%d device=%s\n",
                onDevice ? "gpu" : "cpu",
                mode == Mode::GpuDeviceDedup ? "device-dedup"
                : mode == Mode::GpuHostDedup ? "host-dedup"
                                             : "sampling",
                onDevice && features ? "+gather" : "",
                onDevice && o.zeroCopy ? "+zero-copy" : "", median(rates),
                median(batchRates), double(edges) / double(perRun),
                (long long)perRun, o.runs,
                onDevice ? prop.name : "one host thread");
  };
  measure(Mode::GpuDeviceDedup);
  measure(Mode::GpuHostDedup);
  measure(Mode::Cpu);
  cudaFree(features);
  cudaFree(rows);
  cudaFree(ids);
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "gpu_sample_bench: error: %s\n", e.what());
  return 1;
}
