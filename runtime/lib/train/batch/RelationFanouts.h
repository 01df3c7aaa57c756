//===- RelationFanouts.h - a program's per-relation fanouts -----*- C++ -*-===//
//
// Internal to gnnrt. `neighbor(..., relation_fanout = [relation("cites",
// [5, 5])])` names relations as the program spells them; the sampler reads
// a fanout per (layer, relation id). This resolves the names against the
// data once, at start-up, where an unknown name is reported with the
// entry's source location.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_RELATIONFANOUTS_H
#define GNNRT_LIB_TRAIN_RELATIONFANOUTS_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/sample/Sampler.h"
#include "gnnrt/train/Program.h"

namespace gnnrt {

/// The (layer, relation) fanouts of `settings` over the data's relations:
/// a named relation's own, the layer's fanout for the others. Empty (no
/// relations) when the program names none. Throws DataError prefixed with
/// the entry's location for a name the data does not have (or has twice),
/// and for two entries that name the same relation.
RelationFanouts relationFanoutsOf(const TrainSettings &settings,
                                  const std::vector<RelationType> &relations,
                                  const std::vector<NodeType> &nodeTypes);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_RELATIONFANOUTS_H
