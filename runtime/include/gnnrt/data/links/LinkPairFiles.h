//===- LinkPairFiles.h - Fixed link splits read from pair files -*- C++ -*-===//
//
// A link split fixed in files, so that gnnc and a peer framework score the
// very same pairs: in a split directory (as the OGB raw layout's
// split/<name>/), `{train,valid,test}_{pos,neg}.csv[.gz]`, two node ids per
// row (src,dst). An absent file is an absent set (train negatives are
// usually drawn while training, not fixed). Every row is checked as it is
// read; an error names the file and row. writeFixedLinkSplit writes a
// random split in this form, for a peer to read.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_LINKS_LINKPAIRFILES_H
#define GNNRT_DATA_LINKS_LINKPAIRFILES_H

#include "gnnrt/data/links/EdgeSplit.h"

#include <array>
#include <string>

namespace gnnrt {

struct FixedLinkSplit {
  /// Indexed by split: 0 train, 1 valid, 2 test (kSplitNames' order).
  std::array<LinkPairs, 3> pos, neg;
  std::array<bool, 3> hasPos{}, hasNeg{};
};

/// Reads one pair file: rows `src,dst` with ids in [0, numNodes). Throws
/// DataError("<file>:<row>: ...") for a row without two columns, a
/// non-integer or an id out of range, and DataError("<file>: no pairs")
/// for a file without rows (an empty set is an absent file).
LinkPairs readLinkPairs(const std::string &path, int64_t numNodes);

/// Whether directory `dir` holds any of the pair files.
bool hasLinkPairFiles(const std::string &dir);

/// Reads the pair files of split directory `dir`. Throws DataError if it
/// has none at all, or as readLinkPairs.
FixedLinkSplit readFixedLinkSplit(const std::string &dir, int64_t numNodes);

/// Writes `split`'s pairs as the files readFixedLinkSplit reads (plain
/// csv): train_pos, valid_pos, valid_neg, test_pos, test_neg, each that
/// has pairs (an empty set, such as valid at fraction 0, is left out). The
/// directory `out` is written as `out.partial` and renamed when complete;
/// an existing `out` that is not an empty directory is an error.
void writeFixedLinkSplit(const std::string &out, const EdgeSplit &split);

} // namespace gnnrt

#endif // GNNRT_DATA_LINKS_LINKPAIRFILES_H
