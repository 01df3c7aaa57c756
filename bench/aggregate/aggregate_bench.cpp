// aggregate_bench.cpp - the CPU aggregation kernels against the memory system.
//
//   aggregate_bench [--nodes 1000000] [--edges 40000000] [--widths 128]
//                   [--threads 1] [--reps 5] [--seed 1]
//
// Builds a random graph (uniform sources and destinations: every gathered
// row is a cache miss, the worst case the trainer's renumbering improves on)
// and times, per width, kernels::aggregate (sum with self loops, GCN's
// aggregation) and kernels::aggregateGradInput (its transpose: the backward
// pass's scatter onto sources, run as a gather over out-edges), float rows,
// 64-byte-aligned as the trainer's workspaces are. Beside them, in the same
// run and with the same threads, a STREAM-like copy (b = a over 256 MiB
// arrays), the rate a streaming kernel gets from this machine right now.
//
// Bytes per aggregation: the gathered rows ((E + N) * width * 4, self loops
// included), the output rows (N * width * 4), one 4-byte id per edge and the
// 8-byte row offsets; each kernel's GB/s is that over its median time, and
// "of copy" is the share of the copy's rate it reaches. A gather of random
// rows cannot reach the copy's rate (each row is a separate DRAM access of
// width * 4 bytes, the copy's are sequential), but the share shows whether a
// change keeps more of the memory system busy.
//
// Output: one line per (kernel, width) of key=value, then the copy's line.
#include "gnnrt/graph/Graph.h"
#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/GatherStorage.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <vector>

using namespace gnnrt;

namespace {

struct Options {
  int64_t nodes = 1000000, edges = 40000000;
  std::vector<int64_t> widths = {128};
  int threads = 1, reps = 5;
  uint64_t seed = 1;
  /// --bf16: the gathers read bf16 rows (kernels/GatherStorage.h).
  bool bf16 = false;
};

[[noreturn]] void usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--nodes N] [--edges E] [--widths 16,128] "
               "[--threads T] [--reps R] [--seed S] [--bf16]\n",
               argv0);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bf16") {
      o.bf16 = true;
      continue;
    }
    if (i + 1 >= argc)
      usage(argv[0]);
    const char *v = argv[++i];
    if (a == "--nodes")
      o.nodes = std::atoll(v);
    else if (a == "--edges")
      o.edges = std::atoll(v);
    else if (a == "--threads")
      o.threads = std::atoi(v);
    else if (a == "--reps")
      o.reps = std::atoi(v);
    else if (a == "--seed")
      o.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--widths") {
      o.widths.clear();
      for (const char *p = v; *p;) {
        char *end = nullptr;
        o.widths.push_back(std::strtoll(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
      }
    } else
      usage(argv[0]);
  }
  if (o.nodes < 1 || o.edges < 0 || o.threads < 1 || o.reps < 1 ||
      o.widths.empty())
    usage(argv[0]);
  for (int64_t w : o.widths)
    if (w < 1)
      usage(argv[0]);
  return o;
}

/// A float buffer on a 64-byte boundary, as the trainer's workspaces.
struct Buffer {
  explicit Buffer(size_t n)
      : n(n), p(static_cast<float *>(
                  ::operator new(n * sizeof(float), std::align_val_t(64)))) {}
  ~Buffer() { ::operator delete(p, std::align_val_t(64)); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  size_t n;
  float *p;
};

/// Fills in parallel, so pages land where the kernels' threads touch them.
void fill(Buffer &b, float value) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < b.n; ++i)
    b.p[i] = value + float(i % 7);
}

/// CPU seconds of the whole process (all threads).
double cpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timing {
  double wall = 0; ///< median wall seconds
  double cpu = 0;  ///< median CPU seconds per thread
};

/// Medians of `reps` runs. On a shared machine the wall time includes the
/// time slices other processes take; the CPU time per thread does not, so
/// it still compares two versions of a kernel there.
template <typename F> Timing median(int reps, int threads, F &&run) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuSeconds();
    run();
    cpu.push_back((cpuSeconds() - c0) / threads);
    wall.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  omp_set_num_threads(o.threads);
  if (o.bf16)
    kernels::setGatherStorage(kernels::GatherStorage::BFloat16);

  // Uniform random edges (xorshift64*: fast, and the same graph per seed).
  std::vector<int64_t> src(size_t(o.edges)), dst(size_t(o.edges));
  uint64_t s = o.seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    return (s * 0x2545F4914F6CDD1Dull) >> 11;
  };
  for (int64_t k = 0; k < o.edges; ++k) {
    src[k] = int64_t(next() % uint64_t(o.nodes));
    dst[k] = int64_t(next() % uint64_t(o.nodes));
  }
  const GraphStorage storage = GraphStorage::build(o.nodes, o.nodes, src, dst);
  src = {};
  dst = {};
  const GraphView g = storage.view();
  const double n = double(o.nodes), e = double(g.numEdges);

  for (int64_t width : o.widths) {
    Buffer x(size_t(o.nodes * width)), y(size_t(o.nodes * width));
    fill(x, 1.0f);
    fill(y, 0.0f);
    const double bytes =
        (e + n) * double(width) * 4 + n * double(width) * 4 + e * 4 + n * 8;
    auto report = [&](const char *kernel, Timing t) {
      std::printf("kernel=%s width=%lld threads=%d seconds=%.4f GBps=%.2f "
                  "cpu_seconds=%.4f cpu_GBps=%.2f\n",
                  kernel, (long long)width, o.threads, t.wall,
                  bytes / t.wall * 1e-9, t.cpu, bytes / t.cpu * 1e-9);
      std::fflush(stdout);
    };
    // One untimed call each: the output's pages are faulted in once, as in
    // training from the second epoch on.
    kernels::aggregate<float>(g, Reduce::Sum, true, x.p, width, nullptr, 1,
                              y.p);
    report("forward", median(o.reps, o.threads, [&] {
             kernels::aggregate<float>(g, Reduce::Sum, true, x.p, width,
                                       nullptr, 1, y.p);
           }));
    kernels::aggregateGradInput<float>(g, Reduce::Sum, true, y.p, nullptr,
                                       nullptr, width, nullptr, 1, x.p);
    report("transpose", median(o.reps, o.threads, [&] {
             kernels::aggregateGradInput<float>(g, Reduce::Sum, true, y.p,
                                                nullptr, nullptr, width,
                                                nullptr, 1, x.p);
           }));
  }

  // The copy: 2 x 256 MiB, far beyond the last-level cache.
  Buffer a(size_t(64) << 20), b(size_t(64) << 20);
  fill(a, 1.0f);
  fill(b, 0.0f);
  const Timing copy = median(o.reps, o.threads, [&] {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < a.n; ++i)
      b.p[i] = a.p[i];
  });
  const double copyBytes = 2.0 * double(a.n) * sizeof(float);
  std::printf("kernel=copy threads=%d seconds=%.4f GBps=%.2f cpu_seconds=%.4f "
              "cpu_GBps=%.2f\n",
              o.threads, copy.wall, copyBytes / copy.wall * 1e-9, copy.cpu,
              copyBytes / copy.cpu * 1e-9);
  return 0;
}
