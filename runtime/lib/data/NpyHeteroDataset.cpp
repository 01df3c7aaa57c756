//===- NpyHeteroDataset.cpp - Typed graphs as .npy arrays -----------------===//
//
// The NumPy layout of a heterogeneous dataset: the homogeneous layout's
// arrays over global node ids (edge_index.npy, features.npy with zero rows
// for featureless types, labels.npy with -1 off the target type, the
// splits' *_idx.npy), plus what makes it typed:
//
//   edge_type.npy  int32 [E], each edge's relation (an index into types.json's
//                  "relations")
//   types.json     {"node_types": [{"name": N, "count": C, "features": B},
//   ...],
//                   "relations": [{"name": R, "src": N, "dst": N}, ...],
//                   "target": N}
//
// Node type t holds the global ids after those of the types before it, as
// readOgbHeteroDataset numbers them; "target" (optional) is the labeled
// type the splits are for. Relations are as the data has them, without the
// inverses and self loops that load options add, so the same load options
// give the same dataset from either layout. Unlike the OGB layout's gzip
// tables, the arrays load at the disk's speed.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetSlice.h"

#include "gnnrt/io/Json.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

const char *const kTypesFile = "types.json";

[[noreturn]] void badTypes(const std::string &path, const std::string &what) {
  throwDataError(path, 0, what);
}

const Json &member(const std::string &path, const Json &object, const char *key,
                   const char *where) {
  if (!object.is_object() || !object.contains(key))
    badTypes(path, std::string(where) + " has no \"" + key + "\"");
  return object[key];
}

std::string nameOf(const std::string &path, const Json &value,
                   const std::string &where) {
  if (!value.is_string() || value.get<std::string>().empty())
    badTypes(path, where + " must be a non-empty string");
  return value.get<std::string>();
}

int32_t typeIndex(const std::string &path, const Dataset &ds,
                  const std::string &name, const std::string &where) {
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t)
    if (ds.nodeTypes[t].name == name)
      return int32_t(t);
  badTypes(path, where + " names node type '" + name +
                     "', which \"node_types\" does not list");
}

/// types.json into ds's node types, relations and target type.
void readTypes(const std::string &path, Dataset &ds) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    badTypes(path, "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  Json types;
  try {
    types = parseJson(text.str());
  } catch (const JsonSyntaxError &e) {
    badTypes(path, e.what());
  }
  const Json &nodeTypes = member(path, types, "node_types", "the file");
  if (!nodeTypes.is_array() || nodeTypes.empty())
    badTypes(path, "\"node_types\" must be a non-empty array");
  int64_t offset = 0;
  for (size_t t = 0; t < nodeTypes.size(); ++t) {
    const std::string where = "node type " + std::to_string(t);
    NodeType type;
    type.name = nameOf(path, member(path, nodeTypes[t], "name", where.c_str()),
                       where + "'s \"name\"");
    const Json &count = member(path, nodeTypes[t], "count", where.c_str());
    if (!count.is_number_integer() || count.get<int64_t>() < 0 ||
        count.get<int64_t>() > (int64_t(1) << 40))
      badTypes(path, where + "'s \"count\" must be an integer in [0, 2^40]");
    type.count = count.get<int64_t>();
    type.offset = offset;
    offset += type.count;
    if (nodeTypes[t].contains("features")) {
      if (!nodeTypes[t]["features"].is_boolean())
        badTypes(path, where + "'s \"features\" must be true or false");
      type.hasFeatures = nodeTypes[t]["features"].get<bool>();
    }
    for (const NodeType &other : ds.nodeTypes)
      if (other.name == type.name)
        badTypes(path, "node type '" + type.name + "' is listed twice");
    ds.nodeTypes.push_back(type);
  }
  const Json &relations = member(path, types, "relations", "the file");
  if (!relations.is_array() || relations.empty())
    badTypes(path, "\"relations\" must be a non-empty array");
  for (size_t r = 0; r < relations.size(); ++r) {
    const std::string where = "relation " + std::to_string(r);
    RelationType relation;
    relation.name =
        nameOf(path, member(path, relations[r], "name", where.c_str()),
               where + "'s \"name\"");
    relation.srcType =
        typeIndex(path, ds,
                  nameOf(path, member(path, relations[r], "src", where.c_str()),
                         where + "'s \"src\""),
                  where);
    relation.dstType =
        typeIndex(path, ds,
                  nameOf(path, member(path, relations[r], "dst", where.c_str()),
                         where + "'s \"dst\""),
                  where);
    ds.relations.push_back(relation);
  }
  ds.targetType = -1;
  if (types.contains("target"))
    ds.targetType = typeIndex(
        path, ds, nameOf(path, types["target"], "\"target\""), "\"target\"");
}

/// The relation ids `ids` of edges src[i] -> dst[i] (rows first + i + 1 of
/// `path`), each checked to be one of ds's relations joining the edge's
/// node types.
std::vector<int32_t>
checkedRelations(const std::string &path, const std::vector<int64_t> &ids,
                 const Dataset &ds, const std::vector<int64_t> &src,
                 const std::vector<int64_t> &dst, int64_t first) {
  std::vector<int32_t> out(ids.size());
  const int64_t numRelations = int64_t(ds.relations.size());
  for (size_t e = 0; e < ids.size(); ++e) {
    const int64_t r = ids[e], row = first + int64_t(e) + 1;
    if (r < 0 || r >= numRelations)
      throwDataError(path, row,
                     "relation " + std::to_string(r) + " out of range [0, " +
                         std::to_string(numRelations) + ")");
    const RelationType &relation = ds.relations[size_t(r)];
    const int32_t srcType = ds.nodeTypeOf(src[e]),
                  dstType = ds.nodeTypeOf(dst[e]);
    if (srcType != relation.srcType || dstType != relation.dstType)
      throwDataError(
          path, row,
          "edge " + std::to_string(src[e]) + " -> " + std::to_string(dst[e]) +
              " joins types '" + ds.nodeTypes[size_t(srcType)].name +
              "' and '" + ds.nodeTypes[size_t(dstType)].name +
              "', but relation '" + relation.name + "' goes from '" +
              ds.nodeTypes[size_t(relation.srcType)].name + "' to '" +
              ds.nodeTypes[size_t(relation.dstType)].name + "'");
    out[e] = int32_t(r);
  }
  return out;
}

/// types.json of `dir` into ds's types, checked against the arrays'
/// `numNodes`; returns the path of edge_type.npy, which must exist.
std::string readTypesOf(const std::string &dir, int64_t numNodes, Dataset &ds) {
  const std::string typesPath = dir + "/" + kTypesFile;
  readTypes(typesPath, ds);
  const NodeType &last = ds.nodeTypes.back();
  if (last.offset + last.count != numNodes)
    badTypes(typesPath, "the node types count " +
                            std::to_string(last.offset + last.count) +
                            " nodes, but the arrays have " +
                            std::to_string(numNodes));
  const std::string edgeTypes = dir + "/edge_type.npy";
  std::error_code ec;
  if (!fs::is_regular_file(edgeTypes, ec))
    throwDataError(edgeTypes, 0, "no such file (types.json needs it)");
  return edgeTypes;
}

} // namespace

bool isNpyHeteroDirectory(const std::string &dir) {
  std::error_code ec;
  return fs::is_regular_file(dir + "/" + kTypesFile, ec) &&
         (fs::is_regular_file(dir + "/edge_index.npy", ec) ||
          fs::is_regular_file(dir + "/src.npy", ec));
}

Dataset readNpyHeteroDataset(const std::string &dir,
                             const LoadOptions &options) {
  Dataset ds = readNpyDataset(dir, options);
  const std::string edgeTypes = readTypesOf(dir, ds.numNodes, ds);
  NpyArray a = readNpy(edgeTypes);
  if (a.header.shape.size() != 1 || a.header.shape[0] != ds.numEdges())
    throwDataError(edgeTypes, 0,
                   "expected one relation per edge (" +
                       std::to_string(ds.numEdges()) + " values)");
  ds.edgeType =
      checkedRelations(edgeTypes, a.toInt64(edgeTypes), ds, ds.src, ds.dst, 0);
  return ds;
}

DatasetCounts readNpyHeteroDatasetCounts(const std::string &dir,
                                         const LoadOptions &options) {
  DatasetCounts counts = readNpyDatasetCounts(dir, options);
  Dataset types;
  readTypesOf(dir, counts.numNodes, types);
  counts.numRelations =
      int64_t(relationsAfterLoad(types.relations, options).size());
  return counts;
}

DatasetSlice readNpyHeteroDatasetSlice(const std::string &dir,
                                       const LoadOptions &options, int rank,
                                       int numRanks, bool withFeatures) {
  DatasetSlice slice =
      readNpyDatasetSlice(dir, options, rank, numRanks, withFeatures);
  // The types, as the whole reader has them (its Dataset for nodeTypeOf).
  Dataset types;
  const std::string edgeTypes = readTypesOf(dir, slice.numNodes, types);
  std::error_code ec;
  // The edges' block of the edge list, as readNpyDatasetSlice read it.
  const std::string edgeIndex = dir + "/edge_index.npy";
  const int64_t numEdges = fs::is_regular_file(edgeIndex, ec)
                               ? readNpyHeader(edgeIndex).shape[1]
                               : readNpyHeader(dir + "/src.npy").shape[0];
  const NpyHeader header = readNpyHeader(edgeTypes);
  if (header.shape.size() != 1 || header.shape[0] != numEdges)
    throwDataError(edgeTypes, 0,
                   "expected one relation per edge (" +
                       std::to_string(numEdges) + " values)");
  const auto [begin, end] = nodeBlock(numEdges, rank, numRanks);
  slice.edgeType = checkedRelations(
      edgeTypes, readNpySlice(edgeTypes, begin, end - begin).toInt64(edgeTypes),
      types, slice.src, slice.dst, begin);
  slice.nodeTypes = std::move(types.nodeTypes);
  slice.relations = std::move(types.relations);
  slice.targetType = types.targetType;
  return slice;
}

void writeNpyHeteroTypes(const std::string &dir, const Dataset &ds) {
  // The relations the data has: a load's inverses and self loops are its
  // options, as writeOgbDataset leaves them out.
  int32_t kept = 0;
  while (kept < int32_t(ds.relations.size()) &&
         ds.relations[size_t(kept)].inverseOf < 0 &&
         ds.relations[size_t(kept)].srcType >= 0)
    ++kept;
  for (int32_t r : ds.edgeType)
    if (r >= kept)
      throwDataError(dir, 0,
                     "the dataset has edges of relations a load added "
                     "(inverses, self loops): write it as read, before "
                     "load options");
  Json types;
  types["node_types"] = Json::array();
  for (const NodeType &type : ds.nodeTypes)
    types["node_types"].push_back({{"name", type.name},
                                   {"count", type.count},
                                   {"features", type.hasFeatures}});
  types["relations"] = Json::array();
  for (int32_t r = 0; r < kept; ++r) {
    const RelationType &relation = ds.relations[size_t(r)];
    types["relations"].push_back(
        {{"name", relation.name},
         {"src", ds.nodeTypes[size_t(relation.srcType)].name},
         {"dst", ds.nodeTypes[size_t(relation.dstType)].name}});
  }
  if (ds.targetType >= 0)
    types["target"] = ds.nodeTypes[size_t(ds.targetType)].name;
  writeNpy(dir + "/edge_type.npy", NpyType::Int32,
           {int64_t(ds.edgeType.size())}, ds.edgeType.data());
  std::ofstream out(dir + "/" + kTypesFile, std::ios::binary);
  out << types.dump(1) << "\n";
  if (!out.flush())
    throwDataError(dir + "/" + kTypesFile, 0, "cannot be written");
}

} // namespace gnnrt
