//===- DatasetWriter.cpp - Writing datasets in the OGB and NumPy layouts --===//
//
// The inverse of the two readers, used by gnn-data to materialize generated
// graphs. Output must be byte-identical for identical datasets (tests and
// benchmarks compare files), so numbers are formatted with std::to_chars
// (shortest round-trip, locale-free) and gzip headers carry no timestamp
// (zlib's gzwrite writes mtime 0).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <zlib.h>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
/// Buffered text output to a gzip or plain file.
class TableWriter {
public:
  TableWriter(std::string path, bool gzip) : path(std::move(path)) {
    // Level 6 is zlib's default; "wbT" writes plain text through the same
    // API.
    file = gzopen(this->path.c_str(), gzip ? "wb6" : "wbT");
    if (!file)
      throwDataError(this->path, 0,
                     "cannot write: " + std::string(std::strerror(errno)));
    buffer.reserve(kFlushAt + 4096);
  }
  ~TableWriter() {
    if (file)
      gzclose(file);
  }
  void integer(int64_t v) {
    char text[24];
    auto result = std::to_chars(text, text + sizeof(text), v);
    buffer.append(text, result.ptr);
  }
  void real(float v) {
    char text[32];
    auto result = std::to_chars(text, text + sizeof(text), v);
    buffer.append(text, result.ptr);
  }
  void put(char c) { buffer.push_back(c); }
  /// Ends a row; flushes the buffer when it is large.
  void endRow() {
    buffer.push_back('\n');
    if (buffer.size() >= kFlushAt)
      flush();
  }
  void close() {
    flush();
    int rc = gzclose(file);
    file = nullptr;
    if (rc != Z_OK)
      throwDataError(path, 0, "cannot write (error on close)");
  }

private:
  void flush() {
    if (!buffer.empty() &&
        gzwrite(file, buffer.data(), unsigned(buffer.size())) !=
            int(buffer.size()))
      throwDataError(path, 0, "cannot write");
    buffer.clear();
  }
  static constexpr size_t kFlushAt = 1 << 20;
  std::string path;
  gzFile file = nullptr;
  std::string buffer;
};

void makeDirectory(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throwDataError(dir, 0, "cannot create directory: " + ec.message());
}

void writeColumn(const std::string &path, bool gzip,
                 const std::vector<int64_t> &values) {
  TableWriter out(path, gzip);
  for (int64_t v : values) {
    out.integer(v);
    out.endRow();
  }
  out.close();
}
} // namespace

void writeOgbDataset(const std::string &dir, const Dataset &ds,
                     const std::string &splitName, bool gzip) {
  std::string ext = gzip ? ".csv.gz" : ".csv";
  std::string raw = dir + "/raw", split = dir + "/split/" + splitName;
  makeDirectory(raw);
  makeDirectory(split);

  TableWriter edges(raw + "/edge" + ext, gzip);
  for (int64_t e = 0; e < ds.numEdges(); ++e) {
    edges.integer(ds.src[e]);
    edges.put(',');
    edges.integer(ds.dst[e]);
    edges.endRow();
  }
  edges.close();
  if (ds.numFeatures > 0) {
    TableWriter feats(raw + "/node-feat" + ext, gzip);
    const float *row = ds.features.data();
    for (int64_t v = 0; v < ds.numNodes; ++v, row += ds.numFeatures) {
      for (int64_t f = 0; f < ds.numFeatures; ++f) {
        if (f)
          feats.put(',');
        feats.real(row[f]);
      }
      feats.endRow();
    }
    feats.close();
  }
  writeColumn(raw + "/node-label" + ext, gzip, ds.labels);
  writeColumn(raw + "/num-node-list" + ext, gzip, {ds.numNodes});
  writeColumn(raw + "/num-edge-list" + ext, gzip, {ds.numEdges()});
  writeColumn(split + "/train" + ext, gzip, ds.trainIdx);
  writeColumn(split + "/valid" + ext, gzip, ds.validIdx);
  writeColumn(split + "/test" + ext, gzip, ds.testIdx);
}

void writeNpyDataset(const std::string &dir, const Dataset &ds) {
  makeDirectory(dir);
  std::vector<int64_t> edgeIndex(ds.src);
  edgeIndex.insert(edgeIndex.end(), ds.dst.begin(), ds.dst.end());
  writeNpy(dir + "/edge_index.npy", NpyType::Int64, {2, ds.numEdges()},
           edgeIndex.data());
  if (ds.numFeatures > 0)
    writeNpy(dir + "/features.npy", NpyType::Float32,
             {ds.numNodes, ds.numFeatures}, ds.features.data());
  writeNpy(dir + "/labels.npy", NpyType::Int64, {int64_t(ds.labels.size())},
           ds.labels.data());
  writeNpy(dir + "/train_idx.npy", NpyType::Int64,
           {int64_t(ds.trainIdx.size())}, ds.trainIdx.data());
  writeNpy(dir + "/valid_idx.npy", NpyType::Int64,
           {int64_t(ds.validIdx.size())}, ds.validIdx.data());
  writeNpy(dir + "/test_idx.npy", NpyType::Int64, {int64_t(ds.testIdx.size())},
           ds.testIdx.data());
}

} // namespace gnnrt
