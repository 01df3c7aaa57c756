//===- DatasetWriter.cpp - Writing datasets in the OGB and NumPy layouts --===//
//
// The inverse of the readers (OGB homogeneous and heterogeneous, NumPy), used
// by gnn-data to materialize generated graphs. A homogeneous dataset is
// written from a DatasetStream, chunk by chunk, so that one larger than
// memory never has to be held. Output must be byte-identical
// for identical datasets (tests and benchmarks compare files): the text
// tables go through TableWriter (gnnrt/io/TableWriter.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetStream.h"

#include "gnnrt/io/Npy.h"
#include "gnnrt/io/TableWriter.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
void makeDirectory(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throwDataError(dir, 0, "cannot create directory: " + ec.message());
}

/// The splits `ds` has, as `<dir>/<name><ext>`, ids shifted by -offset
/// (local ids of the target type in the heterogeneous layout).
void writeSplits(const std::string &dir, const std::string &ext, bool gzip,
                 const Dataset &ds, int64_t offset) {
  const std::vector<int64_t> *ids[3] = {&ds.trainIdx, &ds.validIdx,
                                        &ds.testIdx};
  for (size_t k = 0; k < 3; ++k) {
    if (!ds.hasSplits[k])
      continue;
    std::vector<int64_t> local(*ids[k]);
    for (int64_t &id : local)
      id -= offset;
    writeColumn(dir + "/" + kSplitNames[k] + ext, gzip, local);
  }
}

/// Rows [first, first + count) of the feature matrix.
/// One line of a node-feat table: the row's values, comma-separated.
void writeFeatureRow(TableWriter &feats, const float *row, int64_t width) {
  for (int64_t f = 0; f < width; ++f) {
    if (f)
      feats.put(',');
    feats.real(row[f]);
  }
  feats.endRow();
}

void writeFeatureRows(const std::string &path, bool gzip, const Dataset &ds,
                      int64_t first, int64_t count) {
  TableWriter feats(path, gzip);
  const float *row = ds.features.data() + first * ds.numFeatures;
  for (int64_t v = 0; v < count; ++v, row += ds.numFeatures)
    writeFeatureRow(feats, row, ds.numFeatures);
  feats.close();
}

/// The heterogeneous layout (see readOgbHeteroDataset).
void writeOgbHeteroDataset(const std::string &dir, const Dataset &ds,
                           const std::string &splitName, bool gzip) {
  const std::string ext = gzip ? ".csv.gz" : ".csv";
  const std::string raw = dir + "/raw";
  makeDirectory(raw);

  TableWriter names(raw + "/num-node-dict" + ext, gzip);
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    if (t)
      names.put(',');
    names.text(ds.nodeTypes[t].name);
  }
  names.endRow();
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    if (t)
      names.put(',');
    names.integer(ds.nodeTypes[t].count);
  }
  names.endRow();
  names.close();

  // Each relation's edges in their order in ds, ids local to their types.
  std::vector<std::vector<int64_t>> edgesOf(ds.relations.size());
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    edgesOf[size_t(ds.edgeType[size_t(e)])].push_back(e);
  TableWriter triplets(raw + "/triplet-type-list" + ext, gzip);
  for (size_t r = 0; r < ds.relations.size(); ++r) {
    const RelationType &rel = ds.relations[r];
    // Inverses and self loops are load options, not data.
    if (rel.inverseOf >= 0 || rel.srcType < 0 || rel.dstType < 0)
      continue;
    const NodeType &from = ds.nodeTypes[size_t(rel.srcType)];
    const NodeType &to = ds.nodeTypes[size_t(rel.dstType)];
    const std::string triplet = from.name + "___" + rel.name + "___" + to.name;
    triplets.text(from.name + "," + rel.name + "," + to.name);
    triplets.endRow();
    const std::string relationDir = raw + "/relations/" + triplet;
    makeDirectory(relationDir);
    TableWriter edges(relationDir + "/edge" + ext, gzip);
    for (int64_t e : edgesOf[r]) {
      edges.integer(ds.src[size_t(e)] - from.offset);
      edges.put(',');
      edges.integer(ds.dst[size_t(e)] - to.offset);
      edges.endRow();
    }
    edges.close();
    writeColumn(relationDir + "/num-edge-list" + ext, gzip,
                {int64_t(edgesOf[r].size())});
  }
  triplets.close();

  for (const NodeType &type : ds.nodeTypes)
    if (type.hasFeatures && ds.numFeatures > 0) {
      makeDirectory(raw + "/node-feat/" + type.name);
      writeFeatureRows(raw + "/node-feat/" + type.name + "/node-feat" + ext,
                       gzip, ds, type.offset, type.count);
    }
  if (ds.targetType < 0)
    return;
  const NodeType &target = ds.nodeTypes[size_t(ds.targetType)];
  makeDirectory(raw + "/node-label/" + target.name);
  writeColumn(
      raw + "/node-label/" + target.name + "/node-label" + ext, gzip,
      std::vector<int64_t>(ds.labels.begin() + target.offset,
                           ds.labels.begin() + target.offset + target.count));
  const std::string split = dir + "/split/" + splitName + "/" + target.name;
  makeDirectory(split);
  writeSplits(split, ext, gzip, ds, target.offset);
}

/// Rows per chunk of a stream: about 8 MiB of feature rows, 1M edges.
int64_t featureChunkRows(int64_t width) {
  return std::max<int64_t>(1, (int64_t(8) << 20) /
                                  std::max<int64_t>(1, 4 * width));
}
constexpr int64_t kEdgeChunk = int64_t(1) << 20;

/// Calls visit(first, count, src, dst) on the stream's edges, kEdgeChunk
/// at a time.
template <typename Visit>
void forEachEdgeChunk(const DatasetStream &data, Visit visit) {
  std::vector<int64_t> src, dst;
  for (int64_t first = 0; first < data.numEdges; first += kEdgeChunk) {
    const int64_t count = std::min(kEdgeChunk, data.numEdges - first);
    src.resize(size_t(count));
    dst.resize(size_t(count));
    data.edges(first, count, src.data(), dst.data());
    visit(first, count, src.data(), dst.data());
  }
}

/// The stream whose ranges are rows of `ds`'s vectors.
DatasetStream streamOf(const Dataset &ds) {
  DatasetStream data;
  data.nodes = &ds;
  data.numEdges = ds.numEdges();
  data.featureRows = [&ds](int64_t first, int64_t count, float *rows) {
    std::copy_n(ds.features.data() + first * ds.numFeatures,
                count * ds.numFeatures, rows);
  };
  data.edges = [&ds](int64_t first, int64_t count, int64_t *src, int64_t *dst) {
    std::copy_n(ds.src.data() + first, count, src);
    std::copy_n(ds.dst.data() + first, count, dst);
  };
  return data;
}
} // namespace

void writeOgbDataset(const std::string &dir, const Dataset &ds,
                     const std::string &splitName, bool gzip) {
  if (ds.isHeterogeneous())
    return writeOgbHeteroDataset(dir, ds, splitName, gzip);
  writeOgbDataset(dir, streamOf(ds), splitName, gzip);
}

void writeNpyDataset(const std::string &dir, const Dataset &ds) {
  // The types first: a dataset they cannot describe is refused before any
  // array is written.
  if (ds.isHeterogeneous()) {
    makeDirectory(dir);
    writeNpyHeteroTypes(dir, ds);
  }
  writeNpyDataset(dir, streamOf(ds));
}

void writeOgbDataset(const std::string &dir, const DatasetStream &data,
                     const std::string &splitName, bool gzip) {
  const Dataset &ds = *data.nodes;
  std::string ext = gzip ? ".csv.gz" : ".csv";
  std::string raw = dir + "/raw", split = dir + "/split/" + splitName;
  makeDirectory(raw);
  makeDirectory(split);

  TableWriter edges(raw + "/edge" + ext, gzip);
  forEachEdgeChunk(data, [&](int64_t, int64_t count, const int64_t *src,
                             const int64_t *dst) {
    for (int64_t e = 0; e < count; ++e) {
      edges.integer(src[e]);
      edges.put(',');
      edges.integer(dst[e]);
      edges.endRow();
    }
  });
  edges.close();
  if (ds.numFeatures > 0) {
    TableWriter feats(raw + "/node-feat" + ext, gzip);
    const int64_t f = ds.numFeatures, chunk = featureChunkRows(f);
    std::vector<float> rows;
    for (int64_t first = 0; first < ds.numNodes; first += chunk) {
      const int64_t count = std::min(chunk, ds.numNodes - first);
      rows.resize(size_t(count * f));
      data.featureRows(first, count, rows.data());
      for (int64_t v = 0; v < count; ++v)
        writeFeatureRow(feats, rows.data() + v * f, f);
    }
    feats.close();
  }
  writeColumn(raw + "/node-label" + ext, gzip, ds.labels);
  writeColumn(raw + "/num-node-list" + ext, gzip, {ds.numNodes});
  writeColumn(raw + "/num-edge-list" + ext, gzip, {data.numEdges});
  writeSplits(split, ext, gzip, ds, 0);
}

void writeNpyDataset(const std::string &dir, const DatasetStream &data) {
  const Dataset &ds = *data.nodes;
  makeDirectory(dir);
  {
    // Row 0 the sources, row 1 the destinations, each chunk into both.
    const int64_t e = data.numEdges;
    NpyWriter edgeIndex(dir + "/edge_index.npy", NpyType::Int64, {2, e});
    forEachEdgeChunk(data, [&](int64_t first, int64_t count,
                               const int64_t *src, const int64_t *dst) {
      edgeIndex.write(first, src, count);
      edgeIndex.write(e + first, dst, count);
    });
    edgeIndex.close();
  }
  if (ds.numFeatures > 0) {
    const int64_t f = ds.numFeatures, chunk = featureChunkRows(f);
    NpyWriter features(dir + "/features.npy", NpyType::Float32,
                       {ds.numNodes, f});
    std::vector<float> rows;
    for (int64_t first = 0; first < ds.numNodes; first += chunk) {
      const int64_t count = std::min(chunk, ds.numNodes - first);
      rows.resize(size_t(count * f));
      data.featureRows(first, count, rows.data());
      features.write(first * f, rows.data(), count * f);
    }
    features.close();
  }
  writeNpy(dir + "/labels.npy", NpyType::Int64, {int64_t(ds.labels.size())},
           ds.labels.data());
  const std::vector<int64_t> *ids[3] = {&ds.trainIdx, &ds.validIdx,
                                        &ds.testIdx};
  for (size_t k = 0; k < 3; ++k)
    if (ds.hasSplits[k])
      writeNpy(dir + "/" + kSplitNames[k] + "_idx.npy", NpyType::Int64,
               {int64_t(ids[k]->size())}, ids[k]->data());
}

} // namespace gnnrt
