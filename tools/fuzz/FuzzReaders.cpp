//===- FuzzReaders.cpp - libFuzzer target for the trainer's file readers --===//
//
// Feeds arbitrary bytes to every reader of a file the trainer or a tool
// takes from a user: .npy arrays, safetensors checkpoints, numeric CSV
// (plain and gzip-compressed, as dataset files are) and a partition
// directory's manifest.json. The first byte picks the reader; the rest is
// the file. The contract is that a reader returns or throws DataError (a
// std::exception with the file and what was expected), and never crashes,
// hangs, leaks or trips AddressSanitizer.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/CsvReader.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/io/Safetensors.h"
#include "gnnrt/partition/PartitionManifest.h"

#include <cstdint>
#include <cstdio>
#include <exception>
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
  const uint8_t which = data[0] % 5;
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
    }
  } catch (const std::exception &) {
    // A located DataError is the expected answer to a bad file.
  }
  return 0;
}
