//===- RelationFanouts.cpp - a program's per-relation fanouts -------------===//
//
// See RelationFanouts.h.
//
//===----------------------------------------------------------------------===//

#include "RelationFanouts.h"

#include "gnnrt/support/Error.h"

namespace gnnrt {

RelationFanouts relationFanoutsOf(const TrainSettings &settings,
                                  const std::vector<RelationType> &relations,
                                  const std::vector<NodeType> &nodeTypes) {
  RelationFanouts out;
  if (settings.relationFanouts.empty())
    return out;
  const size_t layers = settings.fanouts.size();
  const int32_t R = int32_t(relations.size());
  // Which entry set each relation, to name both when two collide.
  std::vector<const TrainSettings::RelationFanout *> setBy(size_t(R), nullptr);
  out.numRelations = R;
  out.table.resize(layers * size_t(R));
  for (size_t l = 0; l < layers; ++l)
    for (int32_t r = 0; r < R; ++r)
      out.table[l * size_t(R) + size_t(r)] = settings.fanouts[l];
  for (const TrainSettings::RelationFanout &entry : settings.relationFanouts) {
    int32_t r;
    try {
      r = findRelation(relations, nodeTypes, entry.relation);
    } catch (const DataError &e) {
      throw DataError(entry.location + ": " + e.what());
    }
    if (const TrainSettings::RelationFanout *first = setBy[size_t(r)])
      throw DataError(entry.location + ": relation '" + entry.relation +
                      "' is the relation '" + first->relation + "' of " +
                      first->location + ": give its fanouts once");
    setBy[size_t(r)] = &entry;
    if (entry.fanouts.size() != layers)
      throw DataError(entry.location + ": relation '" + entry.relation +
                      "' gives " + std::to_string(entry.fanouts.size()) +
                      " fanouts for " + std::to_string(layers) + " layers");
    for (size_t l = 0; l < layers; ++l)
      out.table[l * size_t(R) + size_t(r)] = entry.fanouts[l];
  }
  return out;
}

} // namespace gnnrt
