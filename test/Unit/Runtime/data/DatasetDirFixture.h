//===- DatasetDirFixture.h - a dataset directory written file by file -*- C++ -*-===//
//
// The fixture of the reader error tests: a subclass's SetUp writes a valid
// dataset with put(), each test breaks one file and checks load()'s exact
// message.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_DATA_DATASETDIRFIXTURE_H
#define GNNRT_TEST_DATA_DATASETDIRFIXTURE_H

#include "TestUtil.h"
#include "gnnrt/data/Dataset.h"

#include <gtest/gtest.h>

#include <string>

namespace gnnrt::test {

class DatasetDirFixture : public ::testing::Test {
protected:
  /// Writes `content` to `rel` under the dataset directory.
  void put(const std::string &rel, const std::string &content) {
    writeFile(tmp / rel, content);
  }
  /// The DataError loading the directory gives ("<no error>" if none).
  std::string load() {
    return dataErrorOf([&] { loadDataset(tmp.path(), options); });
  }
  TempDir tmp;
  LoadOptions options;
};

} // namespace gnnrt::test

#endif // GNNRT_TEST_DATA_DATASETDIRFIXTURE_H
