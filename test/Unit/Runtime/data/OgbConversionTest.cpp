//===- OgbConversionTest.cpp - OGB tables to .npy arrays in one pass ------===//
//
// convertOgbToNpy parses an OGB-layout dataset a chunk of rows at a time
// and writes the files writeNpyDataset writes for the dataset loaded whole,
// byte for byte (Cora; a generated graph across the feature and edge
// chunks, its edges counted without num-edge-list). A bad row is an error
// at its file and line, and the output directory is not created.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetStream.h"

#include "TestUtil.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/support/Error.h"

#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

const char *const kFiles[] = {"edge_index.npy", "features.npy",
                              "labels.npy",     "train_idx.npy",
                              "valid_idx.npy",  "test_idx.npy"};

/// The in-memory conversion: the dataset loaded whole, then written.
void writeLoaded(const std::string &dir, const std::string &out) {
  LoadOptions options;
  options.useCache = false;
  writeNpyDataset(out, loadDataset(dir, options));
}

std::string conversionError(const std::string &dir, const std::string &out) {
  try {
    convertOgbToNpy(dir, out);
  } catch (const DataError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(OgbConversion, CoraIsTheLoadedDatasetByteForByte) {
  TempDir tmp;
  const std::string cora = sourceDir() + "/examples/data/cora";
  convertOgbToNpy(cora, tmp / "streamed");
  writeLoaded(cora, tmp / "memory");
  for (const char *file : kFiles)
    EXPECT_EQ(readBytes(tmp / "streamed/" + std::string(file)),
              readBytes(tmp / "memory/" + std::string(file)))
        << file;
  EXPECT_FALSE(std::filesystem::exists(tmp / "streamed.partial"));
}

TEST(OgbConversion, AcrossChunksAndWithoutAnEdgeCount) {
  TempDir tmp;
  GeneratorOptions o;
  o.numNodes = 3001;
  o.numEdges = (int64_t(1) << 20) + 4099; // two edge chunks
  o.numFeatures = 701;                    // two feature chunks
  o.numClasses = 5;
  o.seed = 7;
  writeOgbDataset(tmp / "ogb", generateDataset(o), "random", /*gzip=*/false);
  // Without num-edge-list the edge table is counted first.
  std::filesystem::remove(tmp / "ogb/raw/num-edge-list.csv");
  convertOgbToNpy(tmp / "ogb", tmp / "streamed");
  writeLoaded(tmp / "ogb", tmp / "memory");
  for (const char *file : kFiles)
    EXPECT_EQ(readBytes(tmp / "streamed/" + std::string(file)),
              readBytes(tmp / "memory/" + std::string(file)))
        << file;
}

TEST(OgbConversion, ABadRowIsLocatedAndNothingIsWritten) {
  TempDir tmp;
  GeneratorOptions o;
  o.numNodes = 50;
  o.numEdges = 200;
  o.numFeatures = 3;
  o.seed = 2;
  const Dataset ds = generateDataset(o);
  writeOgbDataset(tmp / "edge", ds, "random", /*gzip=*/false);
  std::string edges = readBytes(tmp / "edge/raw/edge.csv");
  // Line 4 of the edge table.
  size_t at = 0;
  for (int line = 1; line < 4; ++line)
    at = edges.find('\n', at) + 1;
  edges.replace(at, edges.find('\n', at) - at, "3,abc");
  writeFile(tmp / "edge/raw/edge.csv", edges);
  EXPECT_EQ(conversionError(tmp / "edge", tmp / "out"),
            tmp / "edge/raw/edge.csv" +
                ":4: expected an integer, found \"abc\"");
  EXPECT_FALSE(std::filesystem::exists(tmp / "out"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "out.partial"));

  // A feature row too many: found after the last one is written.
  writeOgbDataset(tmp / "rows", ds, "random", /*gzip=*/false);
  writeFile(tmp / "rows/raw/node-feat.csv",
            readBytes(tmp / "rows/raw/node-feat.csv") + "1,2,3\n");
  EXPECT_EQ(conversionError(tmp / "rows", tmp / "out"),
            tmp / "rows/raw/node-feat.csv" +
                ": expected 50 rows (one per node), found 51");
  EXPECT_FALSE(std::filesystem::exists(tmp / "out"));

  // An existing, non-empty output is never replaced.
  writeFile(tmp / "full/keep.txt", "x");
  EXPECT_EQ(conversionError(tmp / "rows", tmp / "full"),
            tmp / "full" + ": exists and is not an empty directory");
}
