//===- GraphCommands.h - gnn-data's graph-collection commands ---*- C++ -*-===//
//
// The parts of gnn-data for collections of many small graphs
// (gnnrt/data/GraphCollection.h): `info` on a TU or OGB graph-property
// directory, and `generate --kind molecules`.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DATA_GRAPHCOMMANDS_H
#define GNN_DATA_GRAPHCOMMANDS_H

#include "ToolArgs.h"

#include <string>

namespace gnntools {

/// Prints the summary of the graph collection in `dir`: graphs, nodes and
/// edges (with per-graph ranges), the task and classes, feature widths and
/// the folds. Returns the exit status.
int graphCollectionInfo(const std::string &dir);

/// `generate --kind molecules --graphs N --seed S --out DIR [--train F
/// --valid F]`; `args` holds generate's options. Returns the exit status.
int generateMolecules(const Args &args);

} // namespace gnntools

#endif // GNN_DATA_GRAPHCOMMANDS_H
