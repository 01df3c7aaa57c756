//===- GraphLevelTestUtil.h - A graph collection and a pooled model -*- C++
//-*-//
//
// What the graph-level trainer tests share: a small TU collection written
// to a directory (graphs of 3 to 7 nodes, a path plus one chord stored both
// ways, three float attributes per node, class 1 when a graph's summed
// first attribute exceeds its summed second), optionally with Errica-style
// folds; and a hand-written graph-level CompiledProgram over the CPU
// kernels, the contract gnnc's code follows (gnnrt/train/Program.h):
//
//   x = dropout(features)  (mask of node v, column j: uniform(seed, step,
//                           nodeIds[v] * F + j) < kDropout; kept / (1 - p))
//   h = aggregate(graph, sum, self loop, x)
//   p = aggregate(readout, sum, h)           one row per graph of the batch
//   logits = p W + b
//   loss = lossScale * mean cross-entropy over the batch's graphs
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_GRAPHLEVELTESTUTIL_H
#define GNNRT_TEST_GRAPHLEVELTESTUTIL_H

#include "TestUtil.h"
#include "TrainerRun.h"
#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/Loss.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/train/Program.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gnnrt::test {

constexpr double kGraphDropout = 0.25;

/// Writes TOY_*.txt (and, with `folds` > 0, TOY_splits.json: fold k tests
/// the graphs g with g % folds == k, validates the next two graphs after
/// them in id order, trains on the rest) into `dir`.
inline void writeToyCollection(const std::string &dir, int graphs,
                               uint64_t seed, int folds = 0) {
  std::ostringstream indicator, edges, labels, attributes;
  int64_t node = 0;
  for (int g = 0; g < graphs; ++g) {
    const int nodes = 3 + int(randomBits(seed, 1, uint64_t(g))[0] % 5);
    double first = 0, second = 0;
    for (int v = 0; v < nodes; ++v) {
      indicator << g + 1 << "\n";
      float a[3];
      for (int j = 0; j < 3; ++j)
        a[j] = std::round(uniform(seed, 2, uint64_t((node + v) * 3 + j)) *
                          100.0f) /
               100.0f;
      first += a[0];
      second += a[1];
      attributes << a[0] << ", " << a[1] << ", " << a[2] << "\n";
    }
    auto edge = [&](int u, int v) {
      edges << node + u + 1 << ", " << node + v + 1 << "\n"
            << node + v + 1 << ", " << node + u + 1 << "\n";
    };
    for (int v = 0; v + 1 < nodes; ++v)
      edge(v, v + 1);
    edge(0, nodes - 1);
    labels << (first > second ? 1 : 0) << "\n";
    node += nodes;
  }
  writeFile(dir + "/TOY_graph_indicator.txt", indicator.str());
  writeFile(dir + "/TOY_A.txt", edges.str());
  writeFile(dir + "/TOY_graph_labels.txt", labels.str());
  writeFile(dir + "/TOY_node_attributes.txt", attributes.str());
  if (folds == 0)
    return;
  std::ostringstream json;
  json << "[";
  for (int k = 0; k < folds; ++k) {
    std::vector<int> test, valid, train;
    for (int g = 0; g < graphs; ++g)
      (g % folds == k              ? test
       : valid.size() < 2 && g > k ? valid
                                   : train)
          .push_back(g);
    auto list = [&](const std::vector<int> &ids) {
      std::string text = "[";
      for (size_t i = 0; i < ids.size(); ++i)
        text += (i ? ", " : "") + std::to_string(ids[i]);
      return text + "]";
    };
    json << (k ? ", " : "") << "{\"test\": " << list(test)
         << ", \"model_selection\": [{\"train\": " << list(train)
         << ", \"validation\": " << list(valid) << "}]}";
  }
  json << "]\n";
  writeFile(dir + "/TOY_splits.json", json.str());
}

inline std::vector<ParamInfo> pooledParams(const DataDims &dims) {
  return {{"lin.w", {dims.features, dims.classes}, Init::Glorot, {}},
          {"lin.b", {dims.classes}, Init::Zeros, {}}};
}

/// The model of the header comment; returns the loss when training.
template <typename T>
T pooledModel(ExecContext<T> &ctx, bool training, T *out) {
  const GraphView &g = ctx.graph, &r = ctx.readout;
  const int64_t n = g.numDst, f = ctx.numFeatures, c = ctx.numClasses;
  const int64_t graphs = r.numDst;
  const T *w = ctx.params[0], *b = ctx.params[1];
  Workspace<T> &ws = *ctx.workspace;
  T *x = ws.get(0, n * f), *h = ws.get(1, n * f), *p = ws.get(2, graphs * f);
  ctx.unplannedBytes = int64_t((2 * n * f + graphs * (f + 2 * c)) * sizeof(T));
  for (int64_t v = 0; v < n; ++v)
    for (int64_t j = 0; j < f; ++j) {
      const bool dropped =
          training && uniform(ctx.seed, ctx.step,
                              uint64_t(ctx.nodeIds[v] * f + j)) < kGraphDropout;
      x[v * f + j] = dropped ? T(0)
                             : ctx.features[v * f + j] /
                                   T(training ? 1 - kGraphDropout : 1);
    }
  kernels::aggregate<T>(g, Reduce::Sum, true, x, f, nullptr, 0, h);
  kernels::aggregate<T>(r, Reduce::Sum, false, h, f, nullptr, 0, p);
  for (int64_t i = 0; i < graphs; ++i)
    for (int64_t k = 0; k < c; ++k) {
      T sum = b[k];
      for (int64_t j = 0; j < f; ++j)
        sum += p[i * f + j] * w[j * c + k];
      // An optional third parameter shifts every logit alike: the loss
      // does not depend on it, but for rounding.
      out[i * c + k] = ctx.params.size() > 2 ? sum + ctx.params[2][0] : sum;
    }
  if (!training)
    return T(0);
  const T scale = T(ctx.lossScale);
  const T loss =
      kernels::crossEntropy<T>(graphs, c, out, ctx.labels, nullptr) * scale;
  T *dout = ws.get(3, graphs * c);
  kernels::crossEntropyGrad<T>(graphs, c, out, ctx.labels, nullptr, scale,
                               dout);
  for (int64_t i = 0; i < graphs; ++i)
    for (int64_t k = 0; k < c; ++k) {
      ctx.grads[1][k] += dout[i * c + k];
      if (ctx.params.size() > 2)
        ctx.grads[2][0] += dout[i * c + k];
      for (int64_t j = 0; j < f; ++j)
        ctx.grads[0][j * c + k] += p[i * f + j] * dout[i * c + k];
    }
  return loss;
}

template <typename T> void pooledForward(ExecContext<T> &ctx) {
  pooledModel(ctx, false, ctx.output);
}

template <typename T> T pooledTrainStep(ExecContext<T> &ctx) {
  T *out = ctx.workspace->get(4, ctx.readout.numDst * ctx.numClasses);
  return pooledModel(ctx, true, out);
}

/// The pooled model as gnnc would compile `batches = graphs(batch =
/// batchSize)` over dataset tu("TOY").
inline CompiledProgram pooledProgram(int64_t batchSize = 4) {
  CompiledProgram p;
  p.model = "Pooled";
  p.sourceFile = "pooled.gnn";
  TrainSettings &s = p.settings;
  s.dataset = "TOY";
  s.source = "tu";
  s.optimizer = "adam";
  s.lr = 0.05;
  s.epochs = 8;
  s.seed = 3;
  s.graphBatches.batchSize = batchSize;
  s.graphBatches.shuffle = true;
  p.params = pooledParams;
  p.outputColumns = [](const DataDims &dims) { return dims.classes; };
  p.forwardF32 = pooledForward<float>;
  p.trainStepF32 = pooledTrainStep<float>;
  p.forwardF64 = pooledForward<double>;
  p.trainStepF64 = pooledTrainStep<double>;
  return p;
}

/// trainMain with `args`, its stdout and stderr captured.
inline TrainerRun runGraphTrainer(const CompiledProgram &program,
                                  std::vector<std::string> args) {
  return runTrainerMain(program, std::move(args), "/opt/bin/pooled");
}

/// The lines of `text` that start with `prefix`.
inline std::vector<std::string> linesStarting(const std::string &text,
                                              const std::string &prefix) {
  std::istringstream lines(text);
  std::vector<std::string> found;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0)
      found.push_back(line);
  return found;
}

inline std::vector<std::string> fileLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace gnnrt::test

#endif // GNNRT_TEST_GRAPHLEVELTESTUTIL_H
