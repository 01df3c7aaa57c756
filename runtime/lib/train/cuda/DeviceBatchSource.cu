//===- DeviceBatchSource.cu - Sampled batches drawn on the device ---------===//
//
// See gnnrt/train/DeviceBatchSource.h: a DeviceNeighborSampler for the
// draws, the row tables resident in device memory, and a device buffer of
// input rows per batch object. The device the trainer selected is recorded
// here and made current on every call, since the calls come from sampler
// threads too (a new host thread starts on device 0). Copies into the
// device count under --stats' host<->device lines (DeviceState.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceState.h"

#include "gnnrt/kernels/cuda/DeviceArray.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/sample/cuda/DeviceBlockBuilder.h"
#include "gnnrt/sample/cuda/DeviceSampler.h"
#include "gnnrt/train/DeviceBatchSource.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

namespace gnnrt::device {

namespace {

/// "15.5 MB"; under 0.1 MB in kB (a small graph's CSR, a test's budget).
std::string megabytes(int64_t bytes) {
  char text[32];
  if (bytes > 0 && bytes < 100000)
    std::snprintf(text, sizeof text, "%.1f kB", double(bytes) / 1e3);
  else
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

class CudaBatchSource final : public DeviceBatchSource {
public:
  CudaBatchSource(const Adjacency &adj, int64_t numGlobalNodes, bool replace)
      : sampler(adj, numGlobalNodes, optionsOf(replace),
                budgetOf("GNNRT_DEVICE_GRAPH_BUDGET_MB")),
        builder(numGlobalNodes) {
    check(cudaGetDevice(&device), "query of the current device");
  }

  void sampleRows(const int64_t *rows, const int64_t *nodes, int64_t n,
                  int64_t fanout, const int64_t *relationFanouts,
                  uint64_t drawKey, std::vector<int64_t> &offsets,
                  std::vector<int64_t> &neighbors) override {
    useDevice();
    sampler.sampleRows(rows, nodes, n, fanout, drawKey, offsets, neighbors,
                       relationFanouts);
  }

  void sampleBatch(const int64_t *seeds, int64_t numSeeds,
                   const std::vector<int64_t> &fanouts, const SampleKey &key,
                   SampledBatch &out) override {
    useDevice();
    sampler.sampleBatch(seeds, numSeeds, fanouts, key, out);
  }

  bool placeRowTables(const float *features, int64_t rows, const float *cache,
                      int64_t cacheRows, int64_t width) override {
    useDevice();
    const int64_t bytes = (rows + cacheRows) * width * int64_t(sizeof(float));
    const int64_t budget = budgetOf("GNNRT_DEVICE_FEATURE_BUDGET_MB");
    if (bytes > budget) {
      placement = "on the host (the feature rows' " + megabytes(bytes) +
                  " exceed the device budget of " + megabytes(budget) + ")";
      return false;
    }
    this->width = width;
    DeviceState &s = deviceState();
    auto place = [&](kernels::cuda::DeviceArray &table, const float *host,
                     int64_t count) {
      float *d = table.get<float>(count * width);
      s.copy(d, host, size_t(count * width) * sizeof(float),
             cudaMemcpyHostToDevice, Traffic::Once, "the feature rows");
      return d;
    };
    featureTable = place(featureStorage, features, rows);
    cacheTable = cacheRows > 0 ? place(cacheStorage, cache, cacheRows) : nullptr;
    placement = "on the device (" + std::to_string(rows) + " feature rows" +
                (cacheRows > 0 ? " and " + std::to_string(cacheRows) +
                                     " cached remote rows"
                               : std::string()) +
                " resident, " + megabytes(bytes) + ")";
    return true;
  }

  std::string rowPlacement() const override { return placement; }

  float *batchRows(SampledBatch &batch, int64_t rows) override {
    const size_t bytes =
        size_t(std::max<int64_t>(1, rows * width)) * sizeof(float);
    if (batch.deviceStorageBytes < bytes) {
      useDevice();
      batch.deviceStorage.reset();
      batch.deviceStorageBytes = 0;
      // Some headroom: batches vary in size from step to step.
      const size_t grown = bytes + bytes / 8;
      void *memory = nullptr;
      check(cudaMalloc(&memory, grown),
            "allocation of a batch's input rows (" + std::to_string(grown) +
                " bytes)");
      // At exit the driver may be gone first: errors are ignored.
      batch.deviceStorage =
          std::shared_ptr<void>(memory, [](void *p) { cudaFree(p); });
      batch.deviceStorageBytes = grown;
    }
    return static_cast<float *>(batch.deviceStorage.get());
  }

  void copyRows(Table table, const int64_t *fromRows, const int64_t *toRows,
                int64_t count, float *out) override {
    if (count <= 0)
      return;
    std::lock_guard<std::mutex> lock(indexMutex);
    useDevice();
    const int64_t *from = fromIndex.upload(fromRows, count);
    const int64_t *to = toIndex.upload(toRows, count);
    copyFeatureRows(table == Table::Cache ? cacheTable : featureTable, width,
                    from, to, count, out);
    // The index buffers are reused by the next call.
    finishRows();
  }

  void copyHostRows(const float *hostRows, const int64_t *toRows,
                    int64_t count, float *out) override {
    if (count <= 0)
      return;
    std::lock_guard<std::mutex> lock(indexMutex);
    useDevice();
    float *staged = fetched.get<float>(count * width);
    const size_t bytes = size_t(count * width) * sizeof(float);
    check(cudaMemcpy(staged, hostRows, bytes, cudaMemcpyHostToDevice),
          "copy of the fetched feature rows");
    deviceState().sampledRowBytes += int64_t(bytes);
    const int64_t *to = toIndex.upload(toRows, count);
    copyFeatureRows(staged, width, identityRows(count), to, count, out);
    finishRows();
  }

  const int64_t *sampleRowsToDevice(const int64_t *rows, const int64_t *nodes,
                                    int64_t n, int64_t fanout,
                                    const int64_t *relationFanouts,
                                    uint64_t drawKey,
                                    std::vector<int64_t> &offsets) override {
    useDevice();
    int64_t *served = nullptr;
    sampler.sampleRowsToDevice(
        rows, nodes, n, fanout, drawKey, offsets,
        [&](int64_t total) {
          return served = servedNeighbors.get<int64_t>(total);
        },
        relationFanouts);
    return served;
  }

  void *exchangeBuffer(Exchange use, size_t bytes) override {
    useDevice();
    kernels::cuda::DeviceArray &buffer =
        use == Exchange::ReceivedNeighbors ? receivedNeighbors
        : use == Exchange::SentRows        ? sentRows
                                           : receivedRows;
    return buffer.get<char>(int64_t(bytes));
  }

  void copyToHost(const void *deviceData, size_t bytes, void *host) override {
    if (bytes == 0)
      return;
    useDevice();
    check(cudaMemcpy(host, deviceData, bytes, cudaMemcpyDeviceToHost),
          "copy of the received neighbours to the host");
    receivedBytes += int64_t(bytes);
  }

  void startBatch(const int64_t *seeds, int64_t numSeeds, int numLayers,
                  SampledBatch &out) override {
    useDevice();
    builder.start(seeds, numSeeds, numLayers, out);
  }

  void addHop(const int64_t *own, int64_t ownCount, const int64_t *received,
              const std::vector<int64_t> &rowStarts,
              const std::vector<int64_t> &offsets,
              int64_t longestRow) override {
    useDevice();
    builder.addHop(own, ownCount, received, rowStarts, offsets, longestRow);
  }

  void finishBatch() override {
    useDevice();
    builder.finish();
  }

  Transfers samplingTransfers() const override {
    Transfers t;
    t.neighborLists = sampler.neighborListBytes() + receivedBytes;
    t.other = sampler.transferBytes() + builder.transferBytes();
    return t;
  }

  void copyDeviceRows(const float *rows, const int64_t *toRows, int64_t count,
                      float *out) override {
    if (count <= 0)
      return;
    std::lock_guard<std::mutex> lock(indexMutex);
    useDevice();
    const int64_t *to = toIndex.upload(toRows, count);
    copyFeatureRows(rows, width, identityRows(count), to, count, out);
    finishRows();
  }

  void finishRows() override {
    check(cudaStreamSynchronize(kernels::cuda::currentStream()),
          "gather of a batch's input rows");
  }

  std::string graphPlacement() const override {
    const std::string bytes = megabytes(sampler.graphBytes());
    if (!sampler.readsZeroCopy())
      return "the graph's CSR in device memory (" + bytes + ")";
    return "the graph's CSR read zero-copy from pinned host memory (its " +
           bytes + " exceed the device graph budget of " +
           megabytes(budgetOf("GNNRT_DEVICE_GRAPH_BUDGET_MB")) + ")";
  }

  std::string deviceName() const override {
    return "CUDA device " + std::to_string(device);
  }

private:
  static SamplerOptions optionsOf(bool replace) {
    SamplerOptions options;
    options.replace = replace;
    return options;
  }

  void useDevice() const { check(cudaSetDevice(device), "device selection"); }

  /// 0, 1, .., count - 1 on the device (the rows of a staged or received
  /// buffer, in order). Called with indexMutex held.
  const int64_t *identityRows(int64_t count) {
    std::vector<int64_t> identity(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      identity[size_t(i)] = i;
    return fromIndex.upload(identity.data(), count);
  }

  /// $variable megabytes if set, else half of the device's free memory
  /// (the rest is for the model's workspace and the batches).
  static int64_t budgetOf(const char *variable) {
    if (const char *mb = std::getenv(variable))
      return int64_t(std::strtod(mb, nullptr) * 1e6);
    size_t freeBytes = 0, totalBytes = 0;
    check(cudaMemGetInfo(&freeBytes, &totalBytes), "query of free memory");
    return int64_t(freeBytes / 2);
  }

  DeviceNeighborSampler sampler;
  /// A rank's batches under mpirun, deduplicated on the device.
  DeviceBlockBuilder builder;
  std::atomic<int64_t> receivedBytes{0};
  int device = 0;
  int64_t width = 0;
  std::string placement = "on the host";
  kernels::cuda::DeviceArray featureStorage, cacheStorage;
  const float *featureTable = nullptr, *cacheTable = nullptr;
  /// Index and staging buffers of one copy at a time.
  std::mutex indexMutex;
  kernels::cuda::DeviceArray fromIndex, toIndex, fetched;
  /// The exchanges' device buffers (one assembler uses them at a time).
  kernels::cuda::DeviceArray servedNeighbors, receivedNeighbors, sentRows,
      receivedRows;
};

} // namespace

std::unique_ptr<DeviceBatchSource>
makeDeviceBatchSource(const Adjacency &adj, int64_t numGlobalNodes,
                      bool replace) {
  return std::make_unique<CudaBatchSource>(adj, numGlobalNodes, replace);
}

} // namespace gnnrt::device
