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
  const int64_t rows = ds.numNodes;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t t = ds.nodeTypeOf(nodeIds ? nodeIds[r] : r);
    if (t >= 0 && !ds.nodeTypes[size_t(t)].hasFeatures)
      learned.push_back(r);
  }
  grad.assign(size_t(rows * dim), 0.0f);
  expAvg.assign(learned.size() * size_t(dim), 0.0f);
  expAvgSq.assign(learned.size() * size_t(dim), 0.0f);
}

float *LearnedInputs::beginStep() {
  std::fill(grad.begin(), grad.end(), 0.0f);
  return grad.data();
}

void LearnedInputs::update(const OptimizerConfig &config) {
  ++stepCount;
  const double c1 = 1 - std::pow(config.beta1, double(stepCount));
  const double c2 = 1 - std::pow(config.beta2, double(stepCount));
  const float b1 = float(config.beta1), b2 = float(config.beta2);
  // The train block's weight decay applies to the rows a step touches: as
  // L2 in the gradient for Adam, decoupled for AdamW.
  const bool decoupled = config.kind == OptimizerKind::AdamW;
  const float l2 = decoupled ? 0.0f : float(config.weightDecay);
  const double shrink = decoupled ? 1 - config.lr * config.weightDecay : 1.0;
  const int64_t n = int64_t(learned.size());
#pragma omp parallel for if (n * dim > 65536)
  for (int64_t i = 0; i < n; ++i) {
    float *row = features.data() + learned[size_t(i)] * dim;
    const float *g = grad.data() + learned[size_t(i)] * dim;
    float *m = expAvg.data() + i * dim, *v = expAvgSq.data() + i * dim;
    for (int64_t j = 0; j < dim; ++j) {
      const float gj = g[j] + l2 * row[j];
      m[j] = b1 * m[j] + (1 - b1) * gj;
      v[j] = b2 * v[j] + (1 - b2) * gj * gj;
      const double denom = std::sqrt(double(v[j]) / c2) + config.eps;
      row[j] = float(row[j] * shrink - config.lr * (double(m[j]) / c1) / denom);
    }
  }
}

} // namespace gnnrt
