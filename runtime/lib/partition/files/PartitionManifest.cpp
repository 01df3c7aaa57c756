//===- PartitionManifest.cpp - manifest.json and balance figures ----------===//
//
// The manifest is the one file every rank reads whole: how the graph was
// partitioned (method, constraints, edge assignment, seed), how the dataset
// was loaded (a trainer must load it the same way for global ids and edge ids
// to mean the same thing) and the sizes of every part, which lets a rank
// check its files before trusting them and lets `gnn-partition info` report
// balance without opening any part. It is written with a fixed key order and
// no timestamps, so the same partitioning gives the same bytes.
//
// nlohmann-json (gnnrt/io/Json.h) parses it and quotes its strings; the
// layout, one field per line with short arrays and the dataset inline and
// one line per part, is laid out here, because the library's pretty printer
// puts every array element on a line of its own.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionManifest.h"

#include "gnnrt/io/Json.h"
#include "gnnrt/io/TableWriter.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>

namespace gnnrt {

namespace {
constexpr const char *kFormat = "gnnrt-partitions";
/// Version 2 added the node types and relations of heterogeneous datasets;
/// version 1 manifests (homogeneous by construction) are still read.
constexpr int64_t kVersion = 2;

/// The JSON keys of PartCounts, in file order. Optional ones are absent
/// from manifests written before they existed and then read as 0.
struct CountField {
  const char *key;
  int64_t PartCounts::*field;
  bool optional = false;
};
const CountField kCountFields[] = {
    {"owned_nodes", &PartCounts::ownedNodes},
    {"edges", &PartCounts::edges},
    {"halo_nodes", &PartCounts::haloNodes},
    {"send_nodes", &PartCounts::sendNodes},
    {"train", &PartCounts::train},
    {"valid", &PartCounts::valid},
    {"test", &PartCounts::test},
    {"cut_edges", &PartCounts::cutEdges},
    {"cached_nodes", &PartCounts::cachedNodes, true},
};

const char *boolText(bool b) { return b ? "true" : "false"; }

/// Typed access to the manifest's fields; every failure is "corrupt
/// manifest: ..." naming the file.
class Fields {
public:
  Fields(const std::string &file, const Json &object,
         std::string where = "")
      : file(file), object(object), where(std::move(where)) {}
  /// The fields of a nested object, `where` naming it in messages.
  Fields(const Fields &parent, const Json &object, std::string where)
      : file(parent.file), object(object), where(std::move(where)) {}

  [[noreturn]] void fail(const std::string &what) const {
    throwDataError(file, 0, "corrupt manifest: " + what);
  }
  const Json &get(const char *key) const {
    const auto v = object.find(key);
    if (v == object.end())
      fail("missing field '" + where + key + "'");
    return *v;
  }
  int64_t integer(const char *key, int64_t min = 0) const {
    const Json &v = get(key);
    // Counts are read as doubles, which hold every integer below 2^53
    // exactly (and 4.0 is 4, as any JSON reader may write it).
    const double number = v.is_number() ? v.get<double>() : 0.5;
    if (!v.is_number() || std::floor(number) != number ||
        number < double(min) || number > 9007199254740992.0)
      fail("field '" + where + key +
           "' must be an integer >= " + std::to_string(min));
    return int64_t(number);
  }
  bool boolean(const char *key) const {
    const Json &v = get(key);
    if (!v.is_boolean())
      fail("field '" + where + key + "' must be true or false");
    return v.get<bool>();
  }
  double real(const char *key, double min, double max) const {
    const Json &v = get(key);
    if (!v.is_number() || !(v.get<double>() >= min && v.get<double>() <= max))
      fail("field '" + where + key + "' must be a number in [" +
           shortestText(min) + ", " + shortestText(max) + "]");
    return v.get<double>();
  }
  bool has(const char *key) const { return object.contains(key); }
  std::string string(const char *key) const {
    const Json &v = get(key);
    if (!v.is_string())
      fail("field '" + where + key + "' must be a string");
    return v.get<std::string>();
  }

private:
  const std::string &file;
  const Json &object;
  std::string where; // "parts[3]." for nested objects, in messages
};
/// The node types, relations and target type of a version 2 manifest:
/// types tile [0, num_nodes) in order, every type or relation id in range.
void readTypes(const Fields &top, PartitionManifest &m) {
  const Json &types = top.get("node_types");
  const Json &relations = top.get("relations");
  if (!types.is_array() || !relations.is_array())
    top.fail("fields 'node_types' and 'relations' must be arrays");
  int64_t next = 0;
  for (size_t t = 0; t < types.size(); ++t) {
    std::string where = "node_types[" + std::to_string(t) + "].";
    if (!types[t].is_object())
      top.fail("'node_types[" + std::to_string(t) + "]' must be an object");
    Fields type(top, types[t], where);
    NodeType parsed{type.string("name"), type.integer("offset"),
                    type.integer("count"), type.boolean("features")};
    if (parsed.offset != next)
      type.fail("field '" + where + "offset' must be " + std::to_string(next) +
                " (types are consecutive)");
    next += parsed.count;
    m.nodeTypes.push_back(parsed);
  }
  if (!m.nodeTypes.empty() && next != m.numNodes)
    top.fail("node types hold " + std::to_string(next) +
             " nodes, but 'num_nodes' is " + std::to_string(m.numNodes));
  const int64_t numTypes = int64_t(m.nodeTypes.size());
  if (numTypes == 0 && !relations.empty())
    top.fail("'relations' needs 'node_types'");
  for (size_t r = 0; r < relations.size(); ++r) {
    std::string where = "relations[" + std::to_string(r) + "].";
    if (!relations[r].is_object())
      top.fail("'relations[" + std::to_string(r) + "]' must be an object");
    Fields rel(top, relations[r], where);
    auto id = [&](const char *key, int64_t limit) {
      int64_t v = rel.integer(key, -1);
      if (v >= limit)
        rel.fail("field '" + where + key + "' must be below " +
                 std::to_string(limit));
      return int32_t(v);
    };
    m.relations.push_back({rel.string("name"), id("src", numTypes),
                           id("dst", numTypes),
                           id("inverse_of", int64_t(relations.size()))});
  }
  m.targetType = int32_t(top.integer("target_type", -1));
  if (m.targetType >= numTypes)
    top.fail("field 'target_type' must be below " + std::to_string(numTypes));
}
} // namespace

std::string partDirectoryName(int part) {
  return "part" + std::to_string(part);
}

void fillManifestCounts(PartitionManifest &manifest, const Dataset &ds,
                        const PartitionPlan &plan) {
  manifest.numParts = plan.numParts;
  manifest.edgeAssign = plan.edgeAssign;
  manifest.numNodes = ds.numNodes;
  manifest.numEdges = ds.numEdges();
  manifest.numFeatures = ds.numFeatures;
  manifest.numClasses = ds.numClasses;
  manifest.numTrain = int64_t(ds.trainIdx.size());
  manifest.numValid = int64_t(ds.validIdx.size());
  manifest.numTest = int64_t(ds.testIdx.size());
  manifest.edgeCut = plan.edgeCut;
  manifest.parts = plan.counts;
  manifest.cacheRatio = plan.cacheRatio;
  manifest.nodeTypes = ds.nodeTypes;
  manifest.relations = ds.relations;
  manifest.targetType = ds.targetType;
}

std::string manifestToJson(const PartitionManifest &m) {
  std::string out = "{\n";
  auto field = [&](const char *key, const std::string &value) {
    out += std::string("  ") + quoteJson(key) + ": " + value + ",\n";
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  field("format", quoteJson(kFormat));
  field("version", num(m.version));
  field("method", quoteJson(partitionMethodName(m.method)));
  field("num_parts", num(m.numParts));
  std::string balance = "[";
  for (size_t i = 0; i < m.balance.size(); ++i)
    balance +=
        (i ? ", " : "") + quoteJson(balanceConstraintName(m.balance[i]));
  field("balance", balance + "]");
  field("edge_assign", quoteJson(edgeAssignName(m.edgeAssign)));
  field("seed", std::to_string(m.seed));
  field("ufactor", num(m.ufactor));
  field("metis_objective", num(m.metisObjective));
  field("assignment_file", quoteJson(m.assignmentFile));
  std::string fanouts = "[";
  for (size_t i = 0; i < m.fanouts.size(); ++i)
    fanouts += (i ? ", " : "") + num(m.fanouts[i]);
  field("fanouts", fanouts + "]");
  field("batch_size", num(m.batchSize));
  field("cache_ratio", shortestText(m.cacheRatio));
  field("dataset",
        "{\"path\": " + quoteJson(m.dataset) +
            ", \"split\": " + quoteJson(m.split) +
            ", \"add_reverse_edges\": " + boolText(m.addReverseEdges) +
            ", \"self_loops\": " + boolText(m.addSelfLoops) +
            ", \"dedupe\": " + boolText(m.dedupe) + "}");
  field("num_nodes", num(m.numNodes));
  field("num_edges", num(m.numEdges));
  field("num_features", num(m.numFeatures));
  // Only when set, so that every other directory's manifest is unchanged.
  if (!m.featuresInPlace.empty())
    field("features_in_place", quoteJson(m.featuresInPlace));
  field("num_classes", num(m.numClasses));
  field("num_train", num(m.numTrain));
  field("num_valid", num(m.numValid));
  field("num_test", num(m.numTest));
  field("edge_cut", num(m.edgeCut));
  field("target_type", num(m.targetType));
  // One line per node type and relation, as per part.
  auto list = [&](const char *key, size_t count, auto entry) {
    std::string text = "[";
    for (size_t k = 0; k < count; ++k)
      text += (k ? ",\n    {" : "\n    {") + entry(k) + "}";
    field(key, text + (count ? "\n  ]" : "]"));
  };
  list("node_types", m.nodeTypes.size(), [&](size_t t) {
    const NodeType &type = m.nodeTypes[t];
    return "\"name\": " + quoteJson(type.name) +
           ", \"offset\": " + num(type.offset) +
           ", \"count\": " + num(type.count) +
           ", \"features\": " + boolText(type.hasFeatures);
  });
  list("relations", m.relations.size(), [&](size_t r) {
    const RelationType &rel = m.relations[r];
    return "\"name\": " + quoteJson(rel.name) +
           ", \"src\": " + num(rel.srcType) + ", \"dst\": " + num(rel.dstType) +
           ", \"inverse_of\": " + num(rel.inverseOf);
  });
  out += "  \"parts\": [";
  for (size_t k = 0; k < m.parts.size(); ++k) {
    out += k ? ",\n    {" : "\n    {";
    out += "\"dir\": " + quoteJson(partDirectoryName(int(k)));
    for (const CountField &f : kCountFields)
      out += std::string(", ") + quoteJson(f.key) + ": " +
             num(m.parts[k].*f.field);
    out += "}";
  }
  out += m.parts.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

PartitionManifest manifestFromJson(const std::string &file,
                                   const std::string &text) {
  Json root;
  try {
    root = parseJson(text);
  } catch (const JsonSyntaxError &e) {
    throwDataError(file, 0, std::string("corrupt manifest: ") + e.what());
  }
  if (!root.is_object())
    throwDataError(file, 0, "corrupt manifest: expected a JSON object");
  Fields top(file, root);
  if (top.string("format") != kFormat)
    throwDataError(file, 0,
                   "not a partition manifest (format '" + top.string("format") +
                       "', expected '" + kFormat + "')");
  PartitionManifest m;
  m.version = top.integer("version");
  if (m.version != kVersion && m.version != 1)
    throwDataError(file, 0,
                   "unsupported manifest version " + std::to_string(m.version) +
                       " (this gnnrt reads versions 1 to " +
                       std::to_string(kVersion) + ")");

  std::string method = top.string("method");
  std::optional<PartitionMethod> parsedMethod = partitionMethodFromName(method);
  if (!parsedMethod)
    top.fail("unknown method '" + method + "'");
  m.method = *parsedMethod;
  int64_t numParts = top.integer("num_parts", 1);
  if (numParts > (int64_t(1) << 30))
    top.fail("field 'num_parts' is too large");
  m.numParts = int(numParts);
  const Json &balance = top.get("balance");
  if (!balance.is_array())
    top.fail("field 'balance' must be an array");
  for (const Json &c : balance) {
    std::optional<BalanceConstraint> parsed =
        c.is_string() ? balanceConstraintFromName(c.get<std::string>())
                      : std::nullopt;
    if (!parsed)
      top.fail("field 'balance' holds an unknown constraint");
    m.balance.push_back(*parsed);
  }
  std::string assign = top.string("edge_assign");
  std::optional<EdgeAssign> parsedAssign = edgeAssignFromName(assign);
  if (!parsedAssign)
    top.fail("unknown edge_assign '" + assign + "'");
  m.edgeAssign = *parsedAssign;
  m.seed = uint64_t(top.integer("seed"));
  m.ufactor = top.integer("ufactor");
  m.metisObjective = top.integer("metis_objective", -1);
  m.assignmentFile = top.string("assignment_file");
  // The pre-sampling fields; absent from manifests written before them.
  if (top.has("fanouts")) {
    const Json &fanouts = top.get("fanouts");
    if (!fanouts.is_array())
      top.fail("field 'fanouts' must be an array");
    for (const Json &f : fanouts) {
      const double number = f.is_number() ? f.get<double>() : 0.5;
      if (!f.is_number() || std::floor(number) != number ||
          (number < 1 && number != -1) || number > 1e15)
        top.fail("field 'fanouts' must hold integers > 0 or -1");
      m.fanouts.push_back(int64_t(number));
    }
  }
  if (top.has("batch_size"))
    m.batchSize = top.integer("batch_size");
  if (top.has("cache_ratio"))
    m.cacheRatio = top.real("cache_ratio", 0, 1);
  if (m.fanouts.empty() &&
      (m.method == PartitionMethod::Frequency || m.cacheRatio > 0))
    top.fail(std::string(m.method == PartitionMethod::Frequency
                             ? "method 'frequency'"
                             : "a cache ratio") +
             " needs the 'fanouts' it sampled with");

  const Json &dataset = top.get("dataset");
  if (!dataset.is_object())
    top.fail("field 'dataset' must be an object");
  Fields ds(file, dataset, "dataset.");
  m.dataset = ds.string("path");
  m.split = ds.string("split");
  m.addReverseEdges = ds.boolean("add_reverse_edges");
  m.addSelfLoops = ds.boolean("self_loops");
  m.dedupe = ds.boolean("dedupe");

  m.numNodes = top.integer("num_nodes");
  m.numEdges = top.integer("num_edges");
  m.numFeatures = top.integer("num_features");
  if (top.has("features_in_place"))
    m.featuresInPlace = top.string("features_in_place");
  m.numClasses = top.integer("num_classes");
  m.numTrain = top.integer("num_train");
  m.numValid = top.integer("num_valid");
  m.numTest = top.integer("num_test");
  m.edgeCut = top.integer("edge_cut");
  if (m.version >= 2)
    readTypes(top, m);

  const Json &parts = top.get("parts");
  if (!parts.is_array())
    top.fail("field 'parts' must be an array");
  if (int64_t(parts.size()) != numParts)
    top.fail("'parts' lists " + std::to_string(parts.size()) +
             " parts but num_parts is " + std::to_string(numParts));
  PartCounts total;
  for (size_t k = 0; k < parts.size(); ++k) {
    const Json &entry = parts[k];
    std::string where = "parts[" + std::to_string(k) + "].";
    if (!entry.is_object())
      top.fail("'parts[" + std::to_string(k) + "]' must be an object");
    Fields part(file, entry, where);
    if (part.string("dir") != partDirectoryName(int(k)))
      part.fail("field '" + where + "dir' must be '" +
                partDirectoryName(int(k)) + "'");
    PartCounts c;
    for (const CountField &f : kCountFields) {
      c.*f.field = f.optional && !part.has(f.key) ? 0 : part.integer(f.key);
      total.*f.field += c.*f.field;
    }
    if (m.cacheRatio == 0 && c.cachedNodes != 0)
      part.fail("field '" + where +
                "cached_nodes' must be 0 without a cache (cache_ratio 0)");
    m.parts.push_back(c);
  }
  // The per-part counts must add up to the global ones.
  auto sums = [&](const char *what, int64_t sum, const char *key,
                  int64_t expected) {
    if (sum != expected)
      top.fail(std::string("per-part ") + what + " sum to " +
               std::to_string(sum) + ", but '" + key + "' is " +
               std::to_string(expected));
  };
  sums("owned nodes", total.ownedNodes, "num_nodes", m.numNodes);
  sums("edges", total.edges, "num_edges", m.numEdges);
  sums("cut edges", total.cutEdges, "edge_cut", m.edgeCut);
  sums("training nodes", total.train, "num_train", m.numTrain);
  sums("validation nodes", total.valid, "num_valid", m.numValid);
  sums("test nodes", total.test, "num_test", m.numTest);
  // Every halo row is sent by exactly one owner.
  if (total.sendNodes != total.haloNodes)
    top.fail("per-part send_nodes sum to " + std::to_string(total.sendNodes) +
             ", but halo_nodes sum to " + std::to_string(total.haloNodes));
  return m;
}

std::vector<BalanceStat> partitionBalance(const PartitionManifest &m) {
  struct Quantity {
    const char *name;
    int64_t PartCounts::*field;
  };
  const Quantity quantities[] = {{"nodes", &PartCounts::ownedNodes},
                                 {"edges", &PartCounts::edges},
                                 {"train", &PartCounts::train},
                                 {"halo", &PartCounts::haloNodes}};
  std::vector<BalanceStat> stats;
  for (const Quantity &q : quantities) {
    BalanceStat s;
    s.name = q.name;
    int64_t sum = 0;
    for (const PartCounts &c : m.parts) {
      s.max = std::max(s.max, c.*q.field);
      sum += c.*q.field;
    }
    s.mean = m.parts.empty() ? 0.0 : double(sum) / double(m.parts.size());
    stats.push_back(s);
  }
  return stats;
}

} // namespace gnnrt
