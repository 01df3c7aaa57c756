//===- FuzzReaders.cpp - libFuzzer target for the trainer's file readers --===//
//
// Feeds arbitrary bytes to every reader of a file the trainer or a tool
// takes from a user: .npy arrays, safetensors checkpoints, numeric CSV
// (plain and gzip-compressed, as dataset files are), a partition
// directory's manifest.json, and the link and graph-level formats: link
// pair files, knowledge-graph triples, Errica fold files, whole TU and OGB
// graph-property collections, and OGB node-property directories
// (homogeneous and heterogeneous). The first byte picks the reader; the rest
// is the file, or for a reader of several files their texts separated by
// 0x1e (ASCII's record separator), in the order kTuFiles, kOgbGraphFiles,
// kOgbNodeFiles or kOgbHeteroFiles list them (a missing or empty part is an
// absent file). The contract is that a reader returns or throws DataError (a
// std::exception with the file and what was expected), and never crashes,
// hangs, leaks or trips AddressSanitizer.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/data/GraphFolds.h"
#include "gnnrt/data/links/KnowledgeGraph.h"
#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/io/Safetensors.h"
#include "gnnrt/partition/PartitionManifest.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace {

/// The per-process scratch file holding the input, named with the suffix
/// the reader dispatches on (under /dev/shm when it is writable).
std::string scratch(const char *suffix) {
  static const std::string base = [] {
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/gnn-fuzz-readers-" + std::to_string(getpid());
  }();
  return base + suffix;
}

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  if (size)
    std::fwrite(data, 1, size, f);
  std::fclose(f);
}

/// The parts of a several-file input, split at 0x1e; `count` entries, the
/// missing ones empty.
std::vector<std::string_view> parts(const uint8_t *data, size_t size,
                                    size_t count) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::vector<std::string_view> out;
  while (out.size() + 1 < count) {
    const size_t at = text.find('\x1e');
    if (at == std::string_view::npos)
      break;
    out.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  out.push_back(text);
  out.resize(count);
  return out;
}

/// A fresh scratch directory holding `files[k]` with `texts[k]` for each
/// non-empty text (relative names; subdirectories are made).
std::string writeDirectory(const char *suffix,
                           const std::vector<const char *> &files,
                           const std::vector<std::string_view> &texts) {
  namespace fs = std::filesystem;
  const std::string dir = scratch(suffix);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (size_t k = 0; k < files.size(); ++k) {
    if (texts[k].empty())
      continue;
    const fs::path path = fs::path(dir) / files[k];
    fs::create_directories(path.parent_path());
    writeFile(path.string(), reinterpret_cast<const uint8_t *>(texts[k].data()),
              texts[k].size());
  }
  return dir;
}

/// A TU collection's files (the indicator always written, so that the
/// directory is one).
const std::vector<const char *> kTuFiles = {
    "D_graph_indicator.txt",  "D_A.txt",
    "D_graph_labels.txt",     "D_node_labels.txt",
    "D_node_attributes.txt",  "D_edge_labels.txt",
    "D_graph_attributes.txt", "D_splits.json"};

/// An OGB graph-property collection's files.
const std::vector<const char *> kOgbGraphFiles = {
    "raw/num-node-list.csv", "raw/num-edge-list.csv", "raw/edge.csv",
    "raw/graph-label.csv",   "raw/node-feat.csv",     "raw/edge-feat.csv",
    "split/s/train.csv",     "split/s/valid.csv",     "split/s/test.csv"};

/// An OGB node-property directory's files.
const std::vector<const char *> kOgbNodeFiles = {
    "raw/num-node-list.csv", "raw/num-edge-list.csv", "raw/edge.csv",
    "raw/node-feat.csv",     "raw/node-label.csv",    "split/s/train.csv",
    "split/s/valid.csv",     "split/s/test.csv"};

/// An OGB heterogeneous directory's files: node types a and b, relations
/// a -r-> b and b -s-> b, labels on b.
const std::vector<const char *> kOgbHeteroFiles = {
    "raw/num-node-dict.csv",
    "raw/triplet-type-list.csv",
    "raw/relations/a___r___b/edge.csv",
    "raw/relations/b___s___b/edge.csv",
    "raw/relations/a___r___b/num-edge-list.csv",
    "raw/node-feat/b/node-feat.csv",
    "raw/node-label/b/node-label.csv",
    "split/s/b/train.csv",
    "split/s/b/test.csv"};

/// Knowledge-graph triples: train, valid, test.
const std::vector<const char *> kTripleFiles = {"train.txt", "valid.txt",
                                                "test.txt"};

void readCsv(const std::string &path) {
  gnnrt::CsvReader reader(path);
  std::vector<std::string_view> fields;
  int64_t i;
  float x;
  while (reader.nextLine()) {
    reader.split(fields, 0);
    for (std::string_view field : fields) {
      gnnrt::parseInt64(field, i);
      gnnrt::parseFloat(field, x);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const uint8_t which = data[0] % 12;
  ++data;
  --size;
  try {
    switch (which) {
    case 0: {
      const std::string path = scratch(".npy");
      writeFile(path, data, size);
      gnnrt::readNpy(path);
      break;
    }
    case 1: {
      const std::string path = scratch(".safetensors");
      writeFile(path, data, size);
      gnnrt::readSafetensors(path);
      break;
    }
    case 2: {
      const std::string path = scratch(".csv");
      writeFile(path, data, size);
      readCsv(path);
      break;
    }
    case 3: {
      // The same reader behind a .gz name: zlib's transparent mode reads
      // raw bytes, and gzip streams (the corpus has some) get inflated.
      const std::string path = scratch(".csv.gz");
      writeFile(path, data, size);
      readCsv(path);
      break;
    }
    case 4:
      gnnrt::manifestFromJson(
          "manifest.json",
          std::string(reinterpret_cast<const char *>(data), size));
      break;
    case 5: {
      // A link pair file of a 16-node graph.
      const std::string path = scratch("_pos.csv");
      writeFile(path, data, size);
      gnnrt::readLinkPairs(path, 16);
      break;
    }
    case 6:
      gnnrt::readKnowledgeGraph(
          writeDirectory("-kg", kTripleFiles, parts(data, size, 3)));
      break;
    case 7: {
      // An Errica fold file of a 12-graph collection.
      const std::string path = scratch("_splits.json");
      writeFile(path, data, size);
      gnnrt::readErricaFolds(path, 12);
      break;
    }
    case 8: {
      std::vector<std::string_view> texts = parts(data, size, kTuFiles.size());
      // The indicator makes the directory a TU collection, even empty.
      const std::string dir = writeDirectory("-tu", kTuFiles, texts);
      if (texts[0].empty())
        writeFile(dir + "/" + kTuFiles[0], data, 0);
      gnnrt::loadGraphCollection(dir);
      break;
    }
    case 9:
      gnnrt::loadGraphCollection(writeDirectory(
          "-ogbg", kOgbGraphFiles, parts(data, size, kOgbGraphFiles.size())));
      break;
    case 10:
      gnnrt::readOgbDataset(
          writeDirectory("-ogbn", kOgbNodeFiles,
                         parts(data, size, kOgbNodeFiles.size())),
          gnnrt::LoadOptions());
      break;
    case 11:
      gnnrt::readOgbHeteroDataset(
          writeDirectory("-ogbh", kOgbHeteroFiles,
                         parts(data, size, kOgbHeteroFiles.size())),
          gnnrt::LoadOptions());
      break;
    }
  } catch (const std::exception &) {
    // A located DataError is the expected answer to a bad file.
  }
  return 0;
}
