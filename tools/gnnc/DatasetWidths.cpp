//===- DatasetWidths.cpp - a dataset's widths, read at compile time -------===//
//
// The runtime's .npy reader does the parsing (one reader of the format); it
// reports errors as exceptions, so this file is compiled with them and hands
// gnnc, which is not, a message instead.
//
//===----------------------------------------------------------------------===//

#include "DatasetWidths.h"

#include "gnnrt/io/Npy.h"

#include <algorithm>
#include <exception>
#include <sys/stat.h>

using namespace gnnrt;

static bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool gnnc::readDatasetWidths(const std::string &dir, DatasetWidths &widths,
                             std::string &error) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = "no such directory";
    return false;
  }
  const std::string features = dir + "/features.npy",
                    labels = dir + "/labels.npy";
  if (!isFile(features)) {
    error = features + ": no such file (--data reads the widths of a "
                       "directory of .npy arrays)";
    return false;
  }
  try {
    const NpyHeader h = readNpyHeader(features);
    if (h.shape.size() != 2) {
      error = features + ": expected shape [N, F], found " +
              std::to_string(h.shape.size()) + " dimensions";
      return false;
    }
    widths.features = h.shape[1];
    if (isFile(labels)) {
      // Labels are small next to the features; -1 (or nan) marks an
      // unlabeled node, as the trainer reads them.
      const int64_t unlabeled = -1;
      const std::vector<int64_t> all =
          readNpy(labels).toInt64(labels, &unlabeled);
      const int64_t largest =
          all.empty() ? -1 : *std::max_element(all.begin(), all.end());
      if (largest >= 0)
        widths.classes = largest + 1;
    }
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
  return true;
}
