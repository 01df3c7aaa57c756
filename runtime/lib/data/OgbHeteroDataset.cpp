//===- OgbHeteroDataset.cpp - Reader for OGB's raw heterogeneous layout ---===//
//
// Reads the layout ogbn-mag ships in (see readOgbHeteroDataset in Dataset.h)
// into the homogeneous view: node type t's local id i becomes global id
// nodeTypes[t].offset + i, relations' edge lists are concatenated in
// triplet-type-list order, featureless types get zero feature rows, and only
// the target type (the one the split is for) keeps its labels. Ids are
// checked against their own type's count while they are parsed, so an error
// names the file, the line and the type.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/support/Error.h"
#include "ogb/OgbTables.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

std::string inQuotes(const std::string &name) { return "'" + name + "'"; }

std::string joinNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string typeNames(const Dataset &ds) {
  std::vector<std::string> names;
  for (const NodeType &type : ds.nodeTypes)
    names.push_back(type.name);
  return joinNames(names);
}

/// raw/num-node-dict: a header row of type names, then one row of counts.
void readNodeTypes(const std::string &raw, Dataset &ds) {
  CsvReader in(requireTable(raw, "num-node-dict"));
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  while (in.nextLine()) {
    ++rows;
    if (rows == 1) {
      in.split(fields, 0);
      for (size_t column = 0; column < fields.size(); ++column) {
        std::string name(fields[column]);
        if (name.empty())
          in.fail("node type " + std::to_string(column + 1) +
                  " has an empty name");
        for (size_t other = 0; other < column; ++other)
          if (ds.nodeTypes[other].name == name)
            in.fail("node type " + inQuotes(name) +
                    " is listed twice (columns " + std::to_string(other + 1) +
                    " and " + std::to_string(column + 1) + ")");
        ds.nodeTypes.push_back({name, 0, 0, false});
      }
    } else if (rows == 2) {
      in.split(fields, ds.nodeTypes.size());
      int64_t offset = 0;
      for (size_t t = 0; t < fields.size(); ++t) {
        int64_t count = in.intField(fields[t]);
        if (count < 0)
          in.fail("negative node count " + std::to_string(count) +
                  " for node type " + inQuotes(ds.nodeTypes[t].name));
        if (count > INT64_MAX - offset)
          in.fail("the node counts sum past " + std::to_string(INT64_MAX) +
                  " at node type " + inQuotes(ds.nodeTypes[t].name));
        ds.nodeTypes[t].offset = offset;
        ds.nodeTypes[t].count = count;
        offset += count;
      }
      ds.numNodes = offset;
    }
  }
  if (rows != 2)
    throwDataError(in.path(), 0,
                   "expected 2 rows (node type names, then their counts), "
                   "found " +
                       std::to_string(rows));
}

int32_t findNodeType(const Dataset &ds, std::string_view name) {
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t)
    if (ds.nodeTypes[t].name == name)
      return int32_t(t);
  return -1;
}

/// One relation's edge list, ids local to its endpoint types.
void readRelationEdges(const std::string &dir, int32_t relation, Dataset &ds) {
  const RelationType &r = ds.relations[size_t(relation)];
  const NodeType &from = ds.nodeTypes[size_t(r.srcType)];
  const NodeType &to = ds.nodeTypes[size_t(r.dstType)];
  CsvReader in(requireTable(dir, "edge"));
  std::vector<std::string_view> fields;
  const int64_t first = ds.numEdges();
  while (in.nextLine()) {
    in.split(fields, 2);
    int64_t u = in.intField(fields[0]), v = in.intField(fields[1]);
    if (u < 0 || u >= from.count)
      in.fail("source id " + std::to_string(u) + " out of range " +
              rangeText(from.count) + " of node type " + inQuotes(from.name));
    if (v < 0 || v >= to.count)
      in.fail("destination id " + std::to_string(v) + " out of range " +
              rangeText(to.count) + " of node type " + inQuotes(to.name));
    ds.src.push_back(from.offset + u);
    ds.dst.push_back(to.offset + v);
    ds.edgeType.push_back(relation);
  }
  if (auto countFile = findTable(dir, "num-edge-list"))
    checkEdgeCount(*countFile, ds.numEdges() - first, in.path());
}

/// raw/triplet-type-list: one relation per row, all checked (types known,
/// directories present) before any edge is read; then each relation's edges.
void readRelations(const std::string &raw, Dataset &ds) {
  CsvReader in(requireTable(raw, "triplet-type-list"));
  std::vector<std::string_view> fields;
  std::map<std::string, int64_t> firstLine;
  std::vector<std::string> relationDirs;
  while (in.nextLine()) {
    in.split(fields, 3);
    int32_t types[2];
    for (int side = 0; side < 2; ++side) {
      std::string_view name = fields[size_t(2 * side)];
      types[side] = findNodeType(ds, name);
      if (types[side] < 0)
        in.fail("unknown node type " + inQuotes(std::string(name)) +
                " (the types of raw/num-node-dict are " + typeNames(ds) + ")");
    }
    std::string name(fields[1]);
    if (name.empty())
      in.fail("relation with an empty name");
    std::string triplet =
        std::string(fields[0]) + "___" + name + "___" + std::string(fields[2]);
    auto [it, fresh] = firstLine.emplace(triplet, in.lineNumber());
    if (!fresh)
      in.fail("relation " + triplet + " is listed twice (first on line " +
              std::to_string(it->second) + ")");
    relationDirs.push_back(raw + "/relations/" + triplet);
    std::error_code ec;
    if (!fs::is_directory(relationDirs.back(), ec))
      in.fail("relation " + triplet + " has no directory " +
              relationDirs.back());
    ds.relations.push_back({name, types[0], types[1], -1});
  }
  for (size_t r = 0; r < relationDirs.size(); ++r)
    readRelationEdges(relationDirs[r], int32_t(r), ds);
}

/// raw/node-feat/<type>/node-feat: the global matrix, zero rows for the
/// types without a table. Types are laid out in offset order, so the matrix
/// grows by appending each type's rows.
void readFeatures(const std::string &raw, Dataset &ds) {
  std::string widthSource; // the table that fixed the width
  int32_t widthType = -1;
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    NodeType &type = ds.nodeTypes[t];
    std::optional<std::string> path =
        findTable(raw + "/node-feat/" + type.name, "node-feat");
    if (!path) {
      ds.features.resize(ds.features.size() +
                         size_t(type.count * ds.numFeatures));
      continue;
    }
    type.hasFeatures = true;
    if (type.count == 0)
      continue; // an empty table has no width to agree on
    int64_t width = readFeatureTable(*path, type.count, ds.features);
    if (widthType < 0) {
      // The first featured type fixes the width: the featureless types
      // before it get their zero rows now.
      ds.numFeatures = width;
      ds.features.insert(ds.features.begin(), size_t(type.offset * width), 0.f);
      widthType = int32_t(t);
      widthSource = *path;
    } else if (width != ds.numFeatures) {
      throwDataError(
          *path, 0,
          "node type " + inQuotes(type.name) + " has " + std::to_string(width) +
              " features per node, but node type " +
              inQuotes(ds.nodeTypes[size_t(widthType)].name) + " has " +
              std::to_string(ds.numFeatures) + " (" + widthSource +
              "): every node type with features must have the "
              "same width");
    }
  }
  if (widthType < 0)
    ds.features.clear(); // no features at all (width 0)
}

/// The one node-type directory under split directory `split`.
int32_t splitTargetType(const std::string &split, const Dataset &ds) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(split, ec))
    if (entry.is_directory(ec))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.size() != 1)
    throwDataError(split, 0,
                   "expected one directory, named after the node type the "
                   "split is for, found " +
                       (names.empty() ? std::string("none")
                                      : std::to_string(names.size()) + " (" +
                                            joinNames(names) + ")"));
  int32_t type = findNodeType(ds, names[0]);
  if (type < 0)
    throwDataError(split + "/" + names[0], 0,
                   "unknown node type " + inQuotes(names[0]) +
                       " (the types of raw/num-node-dict are " + typeNames(ds) +
                       ")");
  return type;
}

/// Without a split: the one node type with a label table, if exactly one
/// has.
int32_t labeledType(const std::string &raw, const Dataset &ds) {
  int32_t found = -1;
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t)
    if (findTable(raw + "/node-label/" + ds.nodeTypes[t].name, "node-label")) {
      if (found >= 0)
        return -1;
      found = int32_t(t);
    }
  return found;
}

} // namespace

Dataset readOgbHeteroDataset(const std::string &dir,
                             const LoadOptions &options) {
  Dataset ds;
  std::string raw = dir + "/raw";
  readNodeTypes(raw, ds);
  readRelations(raw, ds);
  readFeatures(raw, ds);

  std::string split = chooseSplitDirectory(dir, options);
  ds.targetType =
      split.empty() ? labeledType(raw, ds) : splitTargetType(split, ds);
  ds.labels.assign(size_t(ds.numNodes), -1);
  ds.hasSplits = {false, false, false};
  ds.splitSource = split.empty() ? dir : split;
  // Every label table must fit its type, the target's or not: a table of
  // another type's length under this type's name is a misplaced file, which
  // would otherwise load as "no labeled nodes" (or not at all).
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t)
    if (int32_t(t) != ds.targetType)
      if (auto path = findTable(raw + "/node-label/" + ds.nodeTypes[t].name,
                                "node-label"))
        readLabelTable(*path, ds.nodeTypes[t].count, options);
  if (ds.targetType < 0)
    return ds;
  const NodeType &target = ds.nodeTypes[size_t(ds.targetType)];
  if (auto path = findTable(raw + "/node-label/" + target.name, "node-label")) {
    std::vector<int64_t> labels = readLabelTable(*path, target.count, options);
    std::copy(labels.begin(), labels.end(), ds.labels.begin() + target.offset);
  }
  if (split.empty())
    return ds;
  ds.splitSource = split + "/" + target.name;
  readSplitDirectory(ds.splitSource, target.count,
                     " of node type " + inQuotes(target.name), ds);
  for (std::vector<int64_t> *ids : {&ds.trainIdx, &ds.validIdx, &ds.testIdx})
    for (int64_t &id : *ids)
      id += target.offset;
  return ds;
}

} // namespace gnnrt
