//===- DatasetWidths.h - a dataset's widths, read at compile time -*- C++ -*-===//
//
// gnn-reorder puts each aggregation on the narrower side of its transform,
// so it needs the input feature width and the class count. A `generate(...)`
// dataset fixes both in the program; an `npy(...)` dataset's are known only
// from its files. `gnnc --data DIR` reads them there (the arrays' headers and
// the labels, not the graph), so that the compiled order is the one the data
// calls for. The widths only choose an order: a trainer compiled for one
// width still trains correctly on data of another.
//
//===----------------------------------------------------------------------===//

#ifndef GNNC_DATASETWIDTHS_H
#define GNNC_DATASETWIDTHS_H

#include <cstdint>
#include <string>

namespace gnnc {

/// What a dataset directory says about the widths (-1: it does not say).
struct DatasetWidths {
  int64_t features = -1; ///< F of features.npy's shape [N, F]
  int64_t classes = -1;  ///< the largest label in labels.npy, plus one
};

/// Reads the widths of the .npy dataset in `dir`. Returns false with a
/// message naming the file and what was expected when `dir` is not such a
/// dataset or an array is malformed.
bool readDatasetWidths(const std::string &dir, DatasetWidths &widths,
                       std::string &error);

} // namespace gnnc

#endif // GNNC_DATASETWIDTHS_H
