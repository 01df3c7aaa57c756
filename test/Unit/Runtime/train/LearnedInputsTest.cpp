//===- LearnedInputsTest.cpp - learned input rows and their sparse Adam ---===//
//
// A typed dataset of three node types, one with features: the learned rows
// are the featureless types' rows, a batch step updates exactly the learned
// rows it read (against torch's SparseAdam rule written out in double), and
// whole-graph tables gather and restore by id within the type.
//
//===----------------------------------------------------------------------===//

#include "train/params/LearnedInputs.h"

#include "TestUtil.h"

#include <cmath>

using namespace gnnrt;

namespace {

constexpr int64_t kDim = 2;

/// Nodes 0-1 "paper" (featured), 2-4 "author", 5-6 "field".
Dataset typedDataset() {
  Dataset ds;
  ds.numNodes = 7;
  ds.numFeatures = kDim;
  ds.nodeTypes = {{"paper", 0, 2, true}, {"author", 2, 3, false},
                  {"field", 5, 2, false}};
  ds.features.assign(size_t(ds.numNodes * kDim), 0.0f);
  ds.features[0] = 7.0f; // a featured row, never updated
  return ds;
}

} // namespace

TEST(LearnedInputs, BatchStepUpdatesTheLearnedRowsItRead) {
  Dataset ds = typedDataset();
  addLearnedRows(ds, kDim, /*seed=*/3, "test");
  const std::vector<float> start = ds.features;
  LearnedInputs learned(ds, nullptr);
  EXPECT_EQ(learned.learnedRows(), 5);

  OptimizerConfig config;
  config.kind = OptimizerKind::Adam;
  config.lr = 0.1;
  // A batch reading nodes 6, 0 and 3 (in that order), twice.
  const std::vector<int64_t> batch = {6, 0, 3};
  const std::vector<double> g = {0.5, -1.0, 9.0, 9.0, -0.25, 2.0};
  for (int step = 0; step < 2; ++step) {
    float *grad = learned.beginStep(int64_t(batch.size()));
    for (size_t i = 0; i < g.size(); ++i)
      grad[i] = float(g[i]);
    learned.update(config, batch.data());
  }
  EXPECT_EQ(learned.steps(), 2);

  // Adam's rule per element, two steps of the same gradient.
  auto adam = [&](double p, double grad) {
    double m = 0, v = 0;
    for (int t = 1; t <= 2; ++t) {
      m = 0.9 * m + 0.1 * grad;
      v = 0.999 * v + 0.001 * grad * grad;
      p -= config.lr * (m / (1 - std::pow(0.9, t))) /
           (std::sqrt(v / (1 - std::pow(0.999, t))) + config.eps);
    }
    return p;
  };
  for (int64_t j = 0; j < kDim; ++j) {
    EXPECT_NEAR(ds.features[6 * kDim + j], adam(start[6 * kDim + j], g[j]),
                1e-5);
    EXPECT_NEAR(ds.features[3 * kDim + j],
                adam(start[3 * kDim + j], g[4 + j]), 1e-5);
  }
  // The featured row and the learned rows outside the batch are unchanged.
  for (int64_t row : {0, 1, 2, 4, 5})
    for (int64_t j = 0; j < kDim; ++j)
      EXPECT_EQ(ds.features[row * kDim + j], start[row * kDim + j])
          << "row " << row;
}

TEST(LearnedInputs, TablesGatherAndRestoreByIdWithinTheType) {
  Dataset ds = typedDataset();
  addLearnedRows(ds, kDim, /*seed=*/3, "test");
  LearnedInputs learned(ds, nullptr);
  SerialCommunicator comm;
  std::vector<LearnedInputs::Table> tables =
      learned.gather(LearnedInputs::State::Rows, comm);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].nodeType, "author");
  EXPECT_EQ(tables[0].count, 3);
  EXPECT_EQ(tables[1].nodeType, "field");
  // field's second node is node 6.
  EXPECT_EQ(tables[1].values[1 * kDim + 1], ds.features[6 * kDim + 1]);

  // A rank holding nodes 6 and 2 (in that order) restores its own rows.
  Dataset part;
  part.numNodes = 2;
  part.numFeatures = kDim;
  part.nodeTypes = ds.nodeTypes;
  part.features.assign(size_t(2 * kDim), 0.0f);
  const std::vector<int64_t> ids = {6, 2};
  LearnedInputs rank(part, ids.data());
  rank.restore(LearnedInputs::State::Rows, [&](const std::string &type) {
    return type == "author" ? tables[0].values.data() : tables[1].values.data();
  });
  for (int64_t j = 0; j < kDim; ++j) {
    EXPECT_EQ(part.features[0 * kDim + j], ds.features[6 * kDim + j]);
    EXPECT_EQ(part.features[1 * kDim + j], ds.features[2 * kDim + j]);
  }
}
