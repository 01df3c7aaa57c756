//===- aggregate_bandwidth.cu - gnnrt's CUDA aggregation against a copy ---===//
//
// bench/cuda_gcn.sh's bandwidth figure: on the dataset the trainers train
// on (reverse edges added, duplicates dropped, as they load it), times
// gnnrt's CUDA aggregation kernels (kernels::cuda::aggregate, sum and mean,
// as GCN and GraphSAGE call them) at the given row widths with CUDA
// events, and a device-to-device cudaMemcpy in the same process. Prints one
// line per kernel:
//
//   aggregate: reduce=sum width=256 seconds=S bytes=B achieved_gbs=A copy_gbs=C ratio=R
//
// B is what the kernel must move at least: every edge's source row read
// once (E x width x 4), the CSR (offsets and source ids) and the output
// rows written once; the copy moves 2 x its size (read and write). R = A / C.
//
//   aggregate_bandwidth DATA_DIR WIDTH... (exit 2 without a CUDA device)
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/cuda/Kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "aggregate_bandwidth: %s: %s\n", what,
                 cudaGetErrorString(status));
    std::exit(1);
  }
}

template <typename T> T *toDevice(const T *host, size_t count) {
  T *device = nullptr;
  check(cudaMalloc(&device, std::max<size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  if (host && count)
    check(cudaMemcpy(device, host, count * sizeof(T), cudaMemcpyHostToDevice),
          "cudaMemcpy");
  return device;
}

/// Median seconds of `repeats` runs of `work` (after one warm-up).
template <typename F> double medianSeconds(int repeats, F work) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  work();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    work();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms / 1e3);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: aggregate_bandwidth DATA_DIR WIDTH...\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "aggregate_bandwidth: no CUDA device\n");
    return 2;
  }
  gnnrt::LoadOptions load;
  load.addReverseEdges = true;
  load.dedupe = true;
  const gnnrt::Dataset ds = gnnrt::loadDataset(argv[1], load);
  const gnnrt::GraphStorage graph =
      gnnrt::GraphStorage::build(ds.numNodes, ds.numNodes, ds.src, ds.dst);
  const gnnrt::GraphView host = graph.view();
  const int64_t n = host.numDst, e = host.numEdges;
  gnnrt::GraphView g = host;
  g.inOffsets = toDevice(host.inOffsets, size_t(n + 1));
  g.edgeSrc = toDevice(host.edgeSrc, size_t(e));
  g.edgeDst = nullptr;
  g.outOffsets = nullptr;
  g.outEdges = nullptr;
  g.outDst = nullptr;
  const size_t csrBytes =
      size_t(n + 1) * sizeof(*host.inOffsets) + size_t(e) * sizeof(*host.edgeSrc);

  // The copy bandwidth: 1 GiB device to device.
  const size_t copyBytes = size_t(1) << 30;
  char *from = toDevice<char>(nullptr, copyBytes), *to = toDevice<char>(nullptr, copyBytes);
  const double copySeconds = medianSeconds(10, [&] {
    check(cudaMemcpy(to, from, copyBytes, cudaMemcpyDeviceToDevice), "copy");
  });
  const double copyGbs = 2.0 * double(copyBytes) / copySeconds / 1e9;
  cudaFree(from);
  cudaFree(to);

  for (int a = 2; a < argc; ++a) {
    const int64_t width = std::atoll(argv[a]);
    std::vector<float> x(size_t(n * width));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i % 251) / 251.0f;
    float *dx = toDevice(x.data(), x.size());
    float *out = toDevice<float>(nullptr, x.size());
    const double bytes = double(e) * double(width) * 4 + double(csrBytes) +
                         double(n) * double(width) * 4;
    for (gnnrt::Reduce reduce : {gnnrt::Reduce::Sum, gnnrt::Reduce::Mean}) {
      const double seconds = medianSeconds(10, [&] {
        gnnrt::kernels::cuda::aggregate<float>(g, reduce, /*selfLoops=*/false, dx,
                                               width, nullptr, 0, out);
      });
      const double achieved = bytes / seconds / 1e9;
      std::printf("aggregate: reduce=%s width=%lld seconds=%.6f bytes=%.0f "
                  "achieved_gbs=%.1f copy_gbs=%.1f ratio=%.3f\n",
                  reduce == gnnrt::Reduce::Sum ? "sum" : "mean",
                  (long long)width, seconds, bytes, achieved, copyGbs,
                  achieved / copyGbs);
    }
    cudaFree(dx);
    cudaFree(out);
  }
  return 0;
}
