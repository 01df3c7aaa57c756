//===- LayeringTest.cpp - runtime folders include only folders below ------===//
//
// runtime/ is one folder per concern, each a library that links only the
// concerns below it (runtime/CMakeLists.txt's gnnrt_add_library DEPENDS
// lists). A stray #include would compile (every public header shares one
// include root) and tie the layers together silently, so this test reads
// the sources: a file of folder C may include public headers of C and of
// C's DEPENDS only, private headers only from C's own folder (beside the
// file, or from a subfolder of C named from C: "schedule/Schedule.h"), and
// a public header no private header at all.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// concern -> the concerns it may use: itself and its DEPENDS.
std::map<std::string, std::set<std::string>> allowedConcerns() {
  const std::string cmake =
      readFile(gnnrt::test::sourceDir() + "/runtime/CMakeLists.txt");
  std::map<std::string, std::set<std::string>> allowed;
  const std::regex call(R"(gnnrt_add_library\((\w+)([^)]*?)\bSOURCES)");
  for (std::sregex_iterator it(cmake.begin(), cmake.end(), call), end;
       it != end; ++it) {
    const std::string concern = (*it)[1];
    std::istringstream words((*it)[2].str());
    std::set<std::string> &uses = allowed[concern];
    uses.insert(concern);
    std::string word;
    while (words >> word)
      if (word != "DEPENDS")
        uses.insert(word);
  }
  return allowed;
}

TEST(RuntimeLayering, FoldersIncludeOnlyFoldersBelow) {
  const auto allowed = allowedConcerns();
  ASSERT_GE(allowed.size(), 9u) << "no gnnrt_add_library calls parsed";
  const fs::path root = fs::path(gnnrt::test::sourceDir()) / "runtime";
  const std::regex include(R"(^\s*#\s*include\s+"([^"]+)\")");
  int files = 0;
  for (const char *tree : {"include/gnnrt", "lib"}) {
    const bool isPublic = std::string(tree) == "include/gnnrt";
    for (const auto &entry : fs::recursive_directory_iterator(root / tree)) {
      const std::string ext = entry.path().extension();
      if (!entry.is_regular_file() ||
          (ext != ".h" && ext != ".cpp" && ext != ".cu"))
        continue;
      ++files;
      const fs::path relative = entry.path().lexically_relative(root / tree);
      const std::string concern = relative.begin()->string();
      ASSERT_TRUE(allowed.count(concern))
          << relative << " is in a folder without a library";
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_search(line, m, include))
          continue;
        const std::string header = m[1];
        const std::string where =
            (fs::path(tree) / relative).string() + ": #include \"" + header +
            "\"";
        if (header.rfind("gnnrt/", 0) == 0) {
          const std::string used =
              fs::path(header).lexically_relative("gnnrt").begin()->string();
          EXPECT_TRUE(allowed.at(concern).count(used))
              << where << ": " << concern << " may not use " << used;
          EXPECT_TRUE(fs::exists(root / "include" / header)) << where;
          continue;
        }
        // A private header: beside the including file or in a subfolder of
        // the file's own library, never in a public header, never reached
        // through another folder.
        EXPECT_FALSE(isPublic) << where << ": a public header includes a "
                               << "private one";
        if (header.find('/') == std::string::npos) {
          EXPECT_TRUE(fs::exists(entry.path().parent_path() / header))
              << where;
          continue;
        }
        EXPECT_EQ(header.find(".."), std::string::npos)
            << where << ": private headers are included from their own "
            << "folder only";
        EXPECT_TRUE(fs::exists(root / tree / concern / header))
            << where << ": private headers are included from their own "
            << "folder only, a subfolder named from " << concern << "/";
      }
    }
  }
  EXPECT_GT(files, 50);
}

} // namespace
