//===- GraphReaders.h - The graph-collection layouts' readers ---*- C++ -*-===//
//
// Internal to the data library: the readers behind loadGraphCollection
// (GraphCollection.cpp registers them) and the checks they share.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GRAPHS_GRAPHREADERS_H
#define GNNRT_DATA_GRAPHS_GRAPHREADERS_H

#include "gnnrt/data/GraphCollection.h"

#include <optional>
#include <string>

namespace gnnrt {

/// TU's raw text format (TuCollection.cpp): `dir` holds
/// `<DS>_graph_indicator.txt[.gz]`; `prefix` is `<DS>`.
GraphCollection readTuCollection(const std::string &dir,
                                 const std::string &prefix);

/// The `<DS>` of the one `<DS>_graph_indicator.txt[.gz]` in `dir`, if any.
/// Throws DataError if there are several.
std::optional<std::string> tuPrefix(const std::string &dir);

/// OGB's graph-property layout (OgbGraphCollection.cpp).
GraphCollection readOgbGraphCollection(const std::string &dir);

/// The last component of `path`: how the readers' messages name a file.
std::string fileName(const std::string &path);

/// Throws DataError("<source>: <where>graph <g> is in both <a> and <b>")
/// if a graph is in two of the fold's lists (or twice in one); ids are in
/// range.
void checkFoldDisjoint(const GraphFold &fold, int64_t numGraphs,
                       const std::string &source, const std::string &where);

} // namespace gnnrt

#endif // GNNRT_DATA_GRAPHS_GRAPHREADERS_H
