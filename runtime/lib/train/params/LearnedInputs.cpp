//===- LearnedInputs.cpp - learned input rows of featureless node types ---===//
//
// See LearnedInputs.h.
//
//===----------------------------------------------------------------------===//

#include "LearnedInputs.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gnnrt {

namespace {

/// The random stream of the learned rows' initial values ("EMBD").
constexpr uint64_t kEmbeddingStream = 0x454D4244;

} // namespace

void addLearnedRows(Dataset &ds, int64_t dim, uint64_t seed,
                    const std::string &where, const int64_t *nodeIds) {
  if (!ds.isHeterogeneous())
    throw DataError(where + ": embed = " + std::to_string(dim) +
                    " gives featureless node types learned inputs, but the "
                    "dataset has no node types (it is homogeneous)");
  bool featureless = false;
  for (const NodeType &t : ds.nodeTypes) {
    featureless |= !t.hasFeatures;
    if (t.hasFeatures && ds.numFeatures != dim)
      throw DataError(where + ": node type '" + t.name + "' has " +
                      std::to_string(ds.numFeatures) + " features, but embed "
                      "= " + std::to_string(dim) + " gives the featureless "
                      "types rows of " + std::to_string(dim) +
                      ": the model reads one input width");
  }
  if (!featureless)
    throw DataError(where + ": embed = " + std::to_string(dim) +
                    " is given, but every node type has features");
  if (ds.features.empty())
    ds.features.assign(size_t(ds.numNodes * dim), 0.0f);
  ds.numFeatures = dim;
  for (int64_t r = 0; r < ds.numNodes; ++r) {
    const int64_t v = nodeIds ? nodeIds[r] : r;
    const int32_t t = ds.nodeTypeOf(v);
    if (t < 0 || ds.nodeTypes[size_t(t)].hasFeatures)
      continue;
    for (int64_t j = 0; j < dim; ++j)
      ds.features[size_t(r * dim + j)] =
          normal(seed, kEmbeddingStream, uint64_t(v * dim + j));
  }
}

LearnedInputs::LearnedInputs(Dataset &ds, const int64_t *nodeIds)
    : features(ds.features), dim(ds.numFeatures) {
  std::vector<int32_t> tableOf(ds.nodeTypes.size(), -1);
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t)
    if (!ds.nodeTypes[t].hasFeatures) {
      tableOf[t] = int32_t(featureless.size());
      featureless.push_back(ds.nodeTypes[t]);
    }
  const int64_t rows = ds.numNodes;
  learnedIndexOfRow.assign(size_t(rows), -1);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t v = nodeIds ? nodeIds[r] : r;
    const int32_t t = ds.nodeTypeOf(v);
    if (t < 0 || tableOf[size_t(t)] < 0)
      continue;
    learnedIndexOfRow[size_t(r)] = int64_t(learned.size());
    learned.push_back(r);
    learnedType.push_back(tableOf[size_t(t)]);
    idInType.push_back(v - ds.nodeTypes[size_t(t)].offset);
  }
  expAvg.assign(learned.size() * size_t(dim), 0.0f);
  expAvgSq.assign(learned.size() * size_t(dim), 0.0f);
}

std::vector<float> *LearnedInputs::rowsOf(State state) {
  return const_cast<std::vector<float> *>(
      static_cast<const LearnedInputs *>(this)->rowsOf(state));
}

const std::vector<float> *LearnedInputs::rowsOf(State state) const {
  switch (state) {
  case State::Rows:
    return &features;
  case State::ExpAvg:
    return &expAvg;
  case State::ExpAvgSq:
    return &expAvgSq;
  case State::Best:
    return &best;
  }
  return nullptr;
}

void LearnedInputs::keepBest() {
  best.resize(learned.size() * size_t(dim));
  for (size_t i = 0; i < learned.size(); ++i)
    std::copy_n(features.data() + learned[i] * dim, dim,
                best.data() + i * size_t(dim));
}

void LearnedInputs::restoreBest() {
  if (best.empty())
    return;
  for (size_t i = 0; i < learned.size(); ++i)
    std::copy_n(best.data() + i * size_t(dim), dim,
                features.data() + learned[i] * dim);
}

std::vector<LearnedInputs::Table>
LearnedInputs::gather(State state, Communicator &comm) const {
  // Each learned row travels as its table, its id in the table and its
  // values (the features hold it at its row, the moments at its position).
  const std::vector<float> &source = *rowsOf(state);
  const bool byRow = state == State::Rows;
  const size_t record = 2 * sizeof(int64_t) + size_t(dim) * sizeof(float);
  std::vector<char> mine(learned.size() * record);
  for (size_t i = 0; i < learned.size(); ++i) {
    char *out = mine.data() + i * record;
    const int64_t header[2] = {learnedType[i], idInType[i]};
    std::memcpy(out, header, sizeof header);
    const int64_t at = byRow ? learned[i] : int64_t(i);
    std::memcpy(out + sizeof header, source.data() + at * dim,
                size_t(dim) * sizeof(float));
  }
  std::vector<char> all = gatherToRoot(comm, mine.data(), int64_t(mine.size()));
  std::vector<Table> tables;
  if (comm.rank() != 0)
    return tables;
  for (const NodeType &t : featureless)
    tables.push_back({t.name, t.count, dim,
                      std::vector<float>(size_t(t.count * dim), 0.0f)});
  for (size_t at = 0; at + record <= all.size(); at += record) {
    int64_t header[2];
    std::memcpy(header, all.data() + at, sizeof header);
    Table &table = tables[size_t(header[0])];
    std::memcpy(table.values.data() + header[1] * dim,
                all.data() + at + sizeof header, size_t(dim) * sizeof(float));
  }
  return tables;
}

void LearnedInputs::restore(State state, const TableLookup &table) {
  std::vector<const float *> source;
  for (const NodeType &t : featureless)
    source.push_back(table(t.name));
  std::vector<float> &target = *rowsOf(state);
  const bool byRow = state == State::Rows;
  if (!byRow)
    target.resize(learned.size() * size_t(dim));
  for (size_t i = 0; i < learned.size(); ++i) {
    const float *from = source[size_t(learnedType[i])] + idInType[i] * dim;
    const int64_t at = byRow ? learned[i] : int64_t(i);
    std::copy(from, from + dim, target.data() + at * dim);
  }
}

float *LearnedInputs::beginStep(int64_t rows) {
  gradRows = rows < 0 ? int64_t(learnedIndexOfRow.size()) : rows;
  grad.assign(size_t(gradRows * dim), 0.0f);
  return grad.data();
}

void LearnedInputs::update(const OptimizerConfig &config,
                           const int64_t *rowIds) {
  ++stepCount;
  if (router) {
    router(rowIds, gradRows, grad.data(), dim, routedRows, routedGrad);
    applyAdam(config, routedRows.data(), routedGrad.data(),
              int64_t(routedRows.size()));
    return;
  }
  applyAdam(config, rowIds, grad.data(), gradRows);
}

void LearnedInputs::applyAdam(const OptimizerConfig &config,
                              const int64_t *rowIds, const float *gradRowsData,
                              int64_t count) {
  // The dense optimizer's rule, on the rows a step touched; the train
  // block's weight decay too (L2 for Adam, decoupled for AdamW).
  const AdamRule rule(config, stepCount);
  const int64_t width = dim;
  // Gradient row j updates feature row rowIds[j] (or j): the rows are
  // distinct, so the iterations write disjoint rows.
#pragma omp parallel for if (count * dim > 65536)
  for (int64_t j = 0; j < count; ++j) {
    const int64_t r = rowIds ? rowIds[j] : j;
    const int64_t i = learnedIndexOfRow[size_t(r)];
    if (i < 0)
      continue;
    float *row = features.data() + r * width;
    const float *g = gradRowsData + j * width;
    float *m = expAvg.data() + i * width, *v = expAvgSq.data() + i * width;
    for (int64_t k = 0; k < width; ++k)
      rule.apply(row[k], m[k], v[k], g[k]);
  }
}

} // namespace gnnrt
