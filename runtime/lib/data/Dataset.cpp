//===- Dataset.cpp - Post-processing and cached loading -------------------===//
//
// The entry point loadDataset: detect the layout (DatasetFormats.cpp), try
// the binary cache, else parse and post-process (reverse edges, self loops,
// dedupe; on typed graphs as added relations) and store the result in the
// cache. The cache holds the post-processed dataset, which is why its name
// hashes the load options.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/data/DatasetCache.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>

namespace gnnrt {

bool Dataset::hasSplit(const std::string &name) const {
  for (size_t k = 0; k < kSplitNames.size(); ++k)
    if (name == kSplitNames[k])
      return hasSplits[k];
  return false;
}

int32_t Dataset::nodeTypeOf(int64_t v) const {
  // Types are few (aifb 7, ogbn-mag 4): a linear scan over the offsets.
  for (size_t t = nodeTypes.size(); t-- > 0;)
    if (v >= nodeTypes[t].offset)
      return int32_t(t);
  return -1;
}

int32_t findRelation(const std::vector<RelationType> &relations,
                     const std::vector<NodeType> &nodeTypes,
                     const std::string &name) {
  auto typeName = [&](int32_t t) {
    return t >= 0 && size_t(t) < nodeTypes.size() ? nodeTypes[size_t(t)].name
                                                  : std::string("*");
  };
  auto spelled = [&](const RelationType &r) {
    return typeName(r.srcType) + "___" + r.name + "___" + typeName(r.dstType);
  };
  std::vector<int32_t> byName;
  for (size_t r = 0; r < relations.size(); ++r) {
    if (spelled(relations[r]) == name)
      return int32_t(r);
    if (relations[r].name == name)
      byName.push_back(int32_t(r));
  }
  if (byName.size() == 1)
    return byName.front();
  if (relations.empty())
    throw DataError("relation '" + name + "': the dataset is homogeneous "
                    "(its edges have no relations)");
  // Name a few: enough to spot a typo among AIFB's 104.
  constexpr size_t kListed = 8;
  const bool shared = !byName.empty();
  std::vector<std::string> names;
  if (shared)
    for (int32_t r : byName)
      names.push_back(spelled(relations[size_t(r)]));
  else
    for (const RelationType &r : relations)
      if (std::find(names.begin(), names.end(), r.name) == names.end())
        names.push_back(r.name);
  std::string listed;
  for (size_t i = 0; i < std::min(kListed, names.size()); ++i)
    listed += (i ? ", " : "") + names[i];
  if (names.size() > kListed)
    listed += ", ... (" + std::to_string(names.size()) + " names in all)";
  if (shared)
    throw DataError("relation '" + name + "' is " +
                    std::to_string(byName.size()) +
                    " relations of the data; name one as SRC___" + name +
                    "___DST: " + listed);
  throw DataError("relation '" + name + "' is not in the data: it has " +
                  listed);
}

const NodeType &findNodeType(const std::vector<NodeType> &nodeTypes,
                             const std::string &name) {
  for (const NodeType &t : nodeTypes)
    if (t.name == name)
      return t;
  if (nodeTypes.empty())
    throw DataError("node type '" + name + "': the dataset is homogeneous "
                    "(its nodes have no types)");
  std::string listed;
  for (const NodeType &t : nodeTypes)
    listed += (listed.empty() ? "" : ", ") + t.name;
  throw DataError("node type '" + name + "' is not in the data: it has " +
                  listed);
}

const std::vector<NodeType> &noNodeTypes() {
  static const std::vector<NodeType> none;
  return none;
}

void requireSplits(const Dataset &ds, const std::vector<std::string> &names) {
  for (const std::string &name : names) {
    if (ds.hasSplit(name))
      continue;
    std::string present;
    for (size_t k = 0; k < kSplitNames.size(); ++k)
      if (ds.hasSplits[k])
        present += (present.empty() ? "" : ", ") + std::string(kSplitNames[k]);
    throw DataError("split '" + name + "' is not in " + ds.splitSource +
                    ": the dataset has " +
                    (present.empty() ? std::string("no splits") : present));
  }
}

std::string noLabeledTrainNodes(int64_t trainNodes) {
  return "none of the " + std::to_string(trainNodes) +
         " train nodes has a label (-1 or nan in the label table): nothing "
         "to train on";
}

void requireLabeledTrainNodes(const Dataset &ds, const std::string &where) {
  for (int64_t v : ds.trainIdx)
    if (ds.labels[size_t(v)] >= 0)
      return;
  if (!ds.trainIdx.empty())
    throw DataError(where + ": " +
                    noLabeledTrainNodes(int64_t(ds.trainIdx.size())));
}

namespace {
/// Removes repeated edges, sorting them by (relation, src, dst) on a typed
/// graph and by (src, dst) on an untyped one: an LSD radix sort, O(N + E).
void dedupeEdges(Dataset &ds) {
  const int64_t n = ds.numNodes;
  const bool typed = !ds.edgeType.empty();
  std::vector<int64_t> order =
      countingSortOrder(n, ds.src, countingSortOrder(n, ds.dst));
  if (typed)
    order = countingSortOrder(
        int64_t(ds.relations.size()),
        std::vector<int64_t>(ds.edgeType.begin(), ds.edgeType.end()), order);
  std::vector<int64_t> src, dst;
  std::vector<int32_t> type;
  src.reserve(order.size());
  dst.reserve(order.size());
  type.reserve(typed ? order.size() : 0);
  for (int64_t e : order) {
    if (!src.empty() && src.back() == ds.src[e] && dst.back() == ds.dst[e] &&
        (!typed || type.back() == ds.edgeType[e]))
      continue;
    src.push_back(ds.src[e]);
    dst.push_back(ds.dst[e]);
    if (typed)
      type.push_back(ds.edgeType[e]);
  }
  ds.src = std::move(src);
  ds.dst = std::move(dst);
  ds.edgeType = std::move(type);
}
} // namespace

std::vector<RelationType>
relationsAfterLoad(const std::vector<RelationType> &stored,
                   const LoadOptions &options) {
  std::vector<RelationType> out = stored;
  if (options.addReverseEdges)
    for (size_t r = 0; r < stored.size(); ++r)
      out.push_back({stored[r].name + "_inv", stored[r].dstType,
                     stored[r].srcType, int32_t(r)});
  if (options.addSelfLoops)
    out.push_back({"self", -1, -1, -1});
  return out;
}

void finalizeDataset(Dataset &ds, const LoadOptions &options) {
  const int64_t n = ds.numNodes;
  // A typed dataset's relations as the edge steps leave them.
  const bool typed = ds.isHeterogeneous();
  const int32_t stored = int32_t(ds.relations.size());
  if (typed)
    ds.relations = relationsAfterLoad(ds.relations, options);
  if (options.addReverseEdges) {
    size_t e = ds.src.size();
    ds.src.reserve(2 * e);
    ds.dst.reserve(2 * e);
    ds.src.insert(ds.src.end(), ds.dst.begin(), ds.dst.begin() + e);
    ds.dst.insert(ds.dst.end(), ds.src.begin(), ds.src.begin() + e);
    // DGL's reverse relations: R's reversed edges are R_inv's, with id
    // R + (stored relations), after all originals in the same order.
    if (typed) {
      ds.edgeType.reserve(2 * e);
      for (size_t k = 0; k < e; ++k)
        ds.edgeType.push_back(ds.edgeType[k] + stored);
    }
  }
  if (options.addSelfLoops) {
    for (int64_t v = 0; v < n; ++v) {
      ds.src.push_back(v);
      ds.dst.push_back(v);
    }
    if (typed) // `self`, the last relation
      ds.edgeType.resize(ds.src.size(), int32_t(ds.relations.size() - 1));
  }
  if (options.dedupe)
    dedupeEdges(ds);
  int64_t maxLabel = -1;
  for (int64_t label : ds.labels)
    maxLabel = std::max(maxLabel, label);
  ds.numClasses = options.numClasses > 0 ? options.numClasses : maxLabel + 1;
}

Dataset loadDataset(const std::string &path, const LoadOptions &options,
                    bool *fromCache) {
  if (fromCache)
    *fromCache = false;
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back(); // keep messages free of "dir//raw"
  const DatasetFormatInfo &format = datasetFormat(dir);
  std::string cacheFile;
  std::vector<std::string> sources;
  if (options.useCache) {
    cacheFile = datasetCachePath(dir, options);
    removeStaleCacheTemporaries(cacheFile);
    sources = datasetSourceFiles(dir);
    if (std::optional<Dataset> cached = readDatasetCache(cacheFile, sources)) {
      if (fromCache)
        *fromCache = true;
      return std::move(*cached);
    }
  }
  Dataset ds = format.read(dir, options);
  finalizeDataset(ds, options);
  if (options.useCache)
    writeDatasetCache(cacheFile, ds, sources);
  return ds;
}

} // namespace gnnrt
