//===- TestUtil.h - Shared helpers for the gnnrt unit tests -----*- C++ -*-===//
//
// Temporary directories, file writers (plain and gzip), generated graphs, and
// an assertion that a call throws gnnrt::DataError with an exact message.
// Error tests assert whole messages because the message is the user-visible
// behaviour.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_TESTUTIL_H
#define GNNRT_TEST_TESTUTIL_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/support/Error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <zlib.h>

namespace gnnrt::test {

/// The repository root, for the bundled datasets.
/// A generated graph loaded as the trainer loads one (reverse edges, no
/// repeats), with 3 features, 8 classes and the given split fractions.
inline Dataset loadedGraph(int64_t nodes, int64_t edges, uint64_t seed,
                           double train, double valid, double test,
                           GraphKind kind = GraphKind::Sbm) {
  GeneratorOptions g;
  g.kind = kind;
  g.numNodes = nodes;
  g.numEdges = edges;
  g.numFeatures = 3;
  g.numClasses = 8;
  g.seed = seed;
  g.trainFraction = train;
  g.validFraction = valid;
  g.testFraction = test;
  Dataset ds = generateDataset(g);
  LoadOptions load;
  load.addReverseEdges = true;
  load.dedupe = true;
  finalizeDataset(ds, load);
  return ds;
}

inline std::string sourceDir() { return GNNRT_SOURCE_DIR; }
inline std::string coraDir() { return sourceDir() + "/examples/data/cora"; }
inline std::string aifbDir() { return sourceDir() + "/examples/data/aifb"; }

/// A fresh directory under $TMPDIR, removed with its contents at scope exit.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/gnnrt-test-XXXXXX";
    char *made = mkdtemp(pattern.data());
    if (!made)
      throw std::runtime_error("mkdtemp failed");
    dir = made;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  const std::string &path() const { return dir; }
  std::string operator/(const std::string &rel) const {
    return dir + "/" + rel;
  }

private:
  std::string dir;
};

/// Writes `content` to `path`, creating parent directories; gzip-compressed
/// if the name ends in .gz.
inline void writeFile(const std::string &path, const std::string &content) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    gzwrite(f, content.data(), unsigned(content.size()));
    gzclose(f);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Runs `fn` and returns the DataError message it throws ("<no error>" if
/// none), so tests can EXPECT_EQ on the exact text.
template <typename Fn> std::string dataErrorOf(Fn fn) {
  try {
    fn();
  } catch (const DataError &e) {
    return e.what();
  }
  return "<no error>";
}

} // namespace gnnrt::test

#endif // GNNRT_TEST_TESTUTIL_H
