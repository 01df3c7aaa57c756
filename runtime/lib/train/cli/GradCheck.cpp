//===- GradCheck.cpp - Finite-difference check of a compiled backward -----===//
//
// The problem: `nodes` nodes, 10/3 random edges per node plus their reverses
// (and self loops if the train block adds them), 5 features, 3 classes,
// random labels, the loss on the even nodes (a link program's: pairs, every
// third edge a link and as many random negatives). Parameters are N(0, 0.25)
// rather than their real initializers so that no weight or bias is zero,
// which would hide errors in the terms it multiplies. Each parameter checks
// at most 64 elements, evenly spread, with h = 1e-6: in float64 the
// truncation error (h^2) and the cancellation error (1e-16 / h) are both far
// below the 1e-4 tolerance relative to the parameter's gradient scale.
//
// A graph-level program (batches = graphs(...)) gets a batch of graphs
// instead: the nodes split into consecutive graphs of four to seven nodes,
// each edge inside its graph, one random label per graph, and the readout
// graph of each node to its graph; the loss is over every graph.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include "batch/RelationFanouts.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/sample/Sampler.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/train/ParamInit.h"
#include "links/LinkTraining.h"
#include "params/ParameterStore.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gnnrt {

namespace {

constexpr int64_t kFeatures = 5, kClasses = 3;
/// Every problem graph is typed (homogeneous programs ignore the types), so
/// relation-batched ops are checked too: at least this many relations.
constexpr int32_t kMinRelations = 4;
constexpr int64_t kMaxElementsPerParam = 64;
constexpr double kStep = 1e-6;
/// Stream tag ("GRAD") of the random problem's graph, features and labels.
constexpr uint64_t kProblemStream = uint64_t(0x47524144) << 32;

struct Problem {
  Dataset data;
  GraphStorage graph;
  std::vector<double> features;
  std::vector<uint8_t> lossMask;
  /// A graph-level problem's graphs: node v is in graph graphOf[v] (nodes
  /// of a graph are consecutive); their readout graph and labels.
  std::vector<int64_t> graphOf, nodeIds, graphLabels;
  GraphStorage readout;
};

/// The problem's relations: those the program selects by name first (so
/// that relation(g, "name") and relation_fanout find them), then unnamed
/// ones up to kMinRelations.
std::vector<RelationType> problemRelations(const CompiledProgram &program) {
  std::vector<RelationType> relations;
  auto add = [&](const std::string &name) {
    if (std::none_of(relations.begin(), relations.end(),
                     [&](const RelationType &r) { return r.name == name; }))
      relations.push_back({name, 0, 0, -1});
  };
  for (const RelationUse &use : program.relationUses)
    add(use.name);
  for (const TrainSettings::RelationFanout &own :
       program.settings.relationFanouts)
    add(own.relation);
  while (relations.size() < size_t(kMinRelations))
    relations.push_back(
        {"relation" + std::to_string(relations.size()), 0, 0, -1});
  return relations;
}

/// The problem's node types when the program selects some by name: those,
/// then one more, splitting the n nodes into consecutive equal ranges.
std::vector<NodeType> problemNodeTypes(const CompiledProgram &program,
                                       int64_t n) {
  std::vector<NodeType> types;
  for (const NameUse &use : program.nodeTypeUses)
    types.push_back({use.name, 0, 0, true});
  if (types.empty())
    return types;
  types.push_back({"other", 0, 0, true});
  const int64_t k = int64_t(types.size());
  for (int64_t t = 0; t < k; ++t) {
    types[size_t(t)].offset = n * t / k;
    types[size_t(t)].count = n * (t + 1) / k - n * t / k;
  }
  return types;
}

/// `graphLevel`: the nodes form graphs of four to seven nodes (one graph
/// of fewer), the edges stay inside them.
Problem makeProblem(int64_t n, uint64_t seed, bool selfLoops,
                    std::vector<RelationType> relations, bool graphLevel) {
  Problem p;
  Dataset &ds = p.data;
  const int32_t numRelations = int32_t(relations.size());
  ds.numNodes = n;
  ds.numFeatures = kFeatures;
  CounterRng rng(seed, kProblemStream);
  const int64_t graphs = graphLevel ? std::max<int64_t>(1, n / 4) : 1;
  std::vector<int64_t> first(size_t(graphs) + 1);
  for (int64_t g = 0; g <= graphs; ++g)
    first[size_t(g)] = n * g / graphs;
  for (int64_t g = 0; g < graphs; ++g)
    p.graphOf.insert(p.graphOf.end(),
                     size_t(first[size_t(g) + 1] - first[size_t(g)]), g);
  for (int64_t e = 0; e < 10 * n / 3; ++e) {
    int64_t u = rng.nextBelow(uint32_t(n));
    // A different node of u's graph: self loops come from the train block
    // or not at all.
    const int64_t lo = first[size_t(p.graphOf[size_t(u)])],
                  size = first[size_t(p.graphOf[size_t(u)]) + 1] - lo;
    int64_t v = lo + (u - lo + 1 + rng.nextBelow(uint32_t(size - 1))) % size;
    ds.src.push_back(u);
    ds.dst.push_back(v);
  }
  for (int64_t v = 0; v < n; ++v) {
    ds.labels.push_back(rng.nextBelow(uint32_t(kClasses)));
    p.lossMask.push_back(v % 2 == 0);
  }
  LoadOptions options;
  options.addReverseEdges = true;
  options.addSelfLoops = selfLoops;
  options.dedupe = true;
  options.numClasses = kClasses;
  finalizeDataset(ds, options);
  for (size_t e = 0; e < ds.src.size(); ++e)
    ds.edgeType.push_back(int32_t(rng.nextBelow(uint32_t(numRelations))));
  p.graph =
      GraphStorage::build(n, n, ds.src, ds.dst, ds.edgeType, numRelations);
  ds.relations = std::move(relations);
  for (int64_t i = 0; i < n * kFeatures; ++i)
    p.features.push_back(normal(seed, kProblemStream + 1, uint64_t(i)));
  if (graphLevel) {
    for (int64_t v = 0; v < n; ++v)
      p.nodeIds.push_back(v);
    p.readout = GraphStorage::build(n, graphs, p.nodeIds, p.graphOf);
    for (int64_t g = 0; g < graphs; ++g)
      p.graphLabels.push_back(rng.nextBelow(uint32_t(kClasses)));
  }
  return p;
}

/// A link program's pairs (ExecContext::pairs): every third edge of the
/// problem's graph as a link, and as many random pairs of distinct nodes as
/// negatives. A knowledge graph's (`triples`) carry relations: a link its
/// edge's, a negative a random one.
PairBatch problemPairs(const Problem &p, uint64_t seed, bool triples) {
  const int64_t n = p.data.numNodes;
  const int32_t relations = int32_t(p.data.relations.size());
  TripleList links, negatives;
  for (size_t e = 0; e < p.data.src.size(); e += 3)
    if (p.data.src[e] != p.data.dst[e])
      links.push(p.data.src[e], p.data.edgeType[e], p.data.dst[e]);
  CounterRng rng(seed, kProblemStream + 2);
  for (size_t i = 0; i < links.size(); ++i) {
    const int64_t u = rng.nextBelow(uint32_t(n));
    const int64_t v = (u + 1 + rng.nextBelow(uint32_t(n - 1))) % n;
    negatives.push(u, triples ? int32_t(rng.nextBelow(uint32_t(relations))) : 0,
                   v);
  }
  if (triples)
    return makeTriplePairBatch(n, relations, links, negatives);
  return makePairBatch(n, LinkPairs{links.head, links.tail},
                       LinkPairs{negatives.head, negatives.tail});
}

/// A link program's step scores problemPairs (into `pairs`), each of which
/// the loss counts: points `ctx` at them. Others: nothing to do. Under
/// `negatives = all` each pair is a query whose label is its destination
/// (the entity its logits over every node should pick).
void bindPairs(const CompiledProgram &program, const Problem &problem,
               uint64_t seed, ExecContext<double> &ctx, PairBatch &pairs) {
  if (!program.settings.links.enabled)
    return;
  pairs = problemPairs(problem, seed, program.settings.source == "kg");
  if (program.settings.links.oneVsAll) {
    const GraphView g = pairs.graph.view();
    pairs.labels.assign(g.edgeDst, g.edgeDst + g.numEdges);
  }
  ctx.pairs = pairs.graph.view();
  ctx.labels = pairs.labels.data();
  ctx.lossMask = nullptr;
}

/// A sampled link step's pairs index its seeds: returns the endpoints of
/// `pairs` (ascending, each once) and renumbers `pairs` over them.
std::vector<int64_t> renumberPairsToEndpoints(PairBatch &pairs) {
  const GraphView g = pairs.graph.view();
  LinkPairs positive, negative;
  for (int64_t e = 0; e < g.numEdges; ++e) {
    LinkPairs &to = pairs.labels[size_t(e)] == 1 ? positive : negative;
    to.src.push_back(g.edgeSrc[e]);
    to.dst.push_back(g.edgeDst[e]);
  }
  return pairsOverEndpoints(positive, negative, pairs);
}

/// Up to kMaxElementsPerParam indices spread evenly over [0, size).
std::vector<int64_t> checkedElements(int64_t size) {
  std::vector<int64_t> picked;
  int64_t count = std::min(size, kMaxElementsPerParam);
  for (int64_t i = 0; i < count; ++i)
    picked.push_back(i * size / count);
  return picked;
}

/// The parameters a gradient check perturbs, their names, and (returned)
/// their analytic gradients: all but running statistics, which get no
/// gradient (their slot holds the step's change of them, ParamInfo::buffer).
std::vector<std::vector<double>>
checkedParameters(ParameterStore<double> &params,
                  const std::vector<std::vector<double>> &grads,
                  std::vector<std::vector<double> *> &values,
                  std::vector<std::string> &names) {
  std::vector<std::vector<double>> checked;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params.info[i].buffer)
      continue;
    values.push_back(&params.values[i]);
    names.push_back(params.info[i].name);
    checked.push_back(grads[i]);
  }
  return checked;
}

/// A sampled program's batch: blocks sampled on the problem's graph with
/// the program's fanouts around the first half of its nodes (a link
/// program's: its pairs' endpoints, which `pairs` then indexes), their
/// input rows, and `ctx` pointed at them.
void bindSampledBatch(const CompiledProgram &program, Problem &problem,
                      uint64_t seed, ExecContext<double> &ctx,
                      PairBatch &pairs, SampledBatch &batch,
                      std::vector<double> &batchFeatures) {
  const GraphView g = problem.graph.view();
  SamplerOptions sampling;
  sampling.fanouts = program.settings.fanouts;
  sampling.replace = program.settings.replace;
  sampling.seed = seed;
  const RelationFanouts relationFanouts = relationFanoutsOf(
      program.settings, problem.data.relations, problem.data.nodeTypes);
  NeighborSampler sampler(program.settings.perRelation
                              ? Adjacency::perRelationOf(
                                    g, relationFanouts.numRelations > 0
                                           ? &relationFanouts
                                           : nullptr)
                              : Adjacency::of(g),
                          g.numDst, sampling);
  BlockBuilder builder(g.numDst);
  // A link program's seeds are its pairs' endpoints (which the pairs
  // then index, as a sampled link step's do); others': the first half.
  std::vector<int64_t> seeds(size_t(std::max<int64_t>(1, g.numDst / 2)));
  for (size_t i = 0; i < seeds.size(); ++i)
    seeds[i] = int64_t(i);
  if (program.settings.links.enabled)
    seeds = renumberPairsToEndpoints(pairs);
  sampler.sample(seeds.data(), int64_t(seeds.size()), {seed, 0, 0},
                 builder, batch);
  for (int64_t v : batch.nodes)
    batchFeatures.insert(batchFeatures.end(),
                         problem.features.begin() + v * kFeatures,
                         problem.features.begin() + (v + 1) * kFeatures);
  for (int64_t v : seeds)
    batch.labels.push_back(problem.data.labels[size_t(v)]);
  ctx.blocks = batch.views.data();
  ctx.features = batchFeatures.data();
  ctx.labels = batch.labels.data();
  ctx.lossMask = nullptr;
  if (program.settings.links.enabled) {
    ctx.pairs = pairs.graph.view();
    ctx.labels = pairs.labels.data();
  }
  ctx.nodeIds = batch.nodes.data();
}

} // namespace

bool runGradCheck(const CompiledProgram &program,
                  const GradCheckOptions &options, std::FILE *out) {
  if (!program.trainStepF64)
    throw std::runtime_error(
        "this trainer has no float64 entry points, which --gradcheck needs");
  const bool graphLevel = program.settings.graphBatches.batchSize > 0;
  Problem problem =
      makeProblem(options.nodes, options.seed, program.settings.addSelfLoops,
                  problemRelations(program), graphLevel);
  const int64_t relations = int64_t(problem.data.relations.size());

  // A link program's output: the logits [0, s] of each pair.
  const int64_t classes = program.settings.links.enabled ? 2 : kClasses;
  ParameterStore<double> params(
      program.params({kFeatures, classes, relations, options.nodes}));
  for (size_t i = 0; i < params.size(); ++i)
    for (size_t k = 0; k < params.values[i].size(); ++k)
      params.values[i][k] =
          0.5 * normal(options.seed, paramInitStream(int64_t(i)), k);

  Workspace<double> workspace;
  ExecContext<double> ctx;
  ctx.graph = problem.graph.view();
  ctx.features = problem.features.data();
  ctx.numFeatures = kFeatures;
  ctx.numClasses = classes;
  ctx.numRelations = relations;
  ctx.relations = &problem.data.relations;
  problem.data.nodeTypes = problemNodeTypes(program, options.nodes);
  ctx.nodeTypes = &problem.data.nodeTypes;
  ctx.numGlobalNodes = options.nodes;
  ctx.labels = problem.data.labels.data();
  ctx.lossMask = problem.lossMask.data();
  ctx.seed = options.seed;
  ctx.step = 0;
  ctx.workspace = &workspace;
  params.bind(ctx);
  PairBatch pairs;
  bindPairs(program, problem, options.seed, ctx, pairs);
  if (graphLevel) {
    // A batch of graphs: a label per graph, each of which the loss counts.
    ctx.readout = problem.readout.view();
    ctx.labels = problem.graphLabels.data();
    ctx.lossMask = nullptr;
    ctx.nodeIds = problem.nodeIds.data();
    ctx.graphIds = problem.nodeIds.data(); // graphs 0, 1, ... (fewer)
  }
  // A sampled program runs on blocks of the problem's graph.
  SampledBatch batch;
  std::vector<double> batchFeatures;
  if (program.numBlocks > 0)
    bindSampledBatch(program, problem, options.seed, ctx, pairs, batch,
                     batchFeatures);

  // Learned input rows (`embed`): their gradient is checked as if the
  // input rows the step reads (the graph's, or a batch's gathered copy)
  // were one more parameter, named "input".
  const bool learnedInputs = program.settings.embedDim > 0;
  std::vector<double> &inputs =
      program.numBlocks > 0 ? batchFeatures : problem.features;
  std::vector<double> inputGrad;
  if (learnedInputs) {
    inputGrad.assign(inputs.size(), 0.0);
    ctx.inputGrad = inputGrad.data();
  }
  params.zeroGrads();
  double loss = program.trainStepF64(ctx);
  ctx.inputGrad = nullptr;
  // Later calls accumulate into the gradient buffers; keep this one.
  std::vector<std::vector<double>> analytic = params.grads;
  // A program that reads its input rows in place (as a single-process
  // trainer runs it) must give the copy's loss and gradients, bit for bit;
  // the finite differences below then check the in-place step.
  std::vector<double> destinationRows;
  bool inPlaceSame = true;
  if (program.inputRowsInPlace && program.numBlocks > 0 && !learnedInputs) {
    destinationRows.assign(batchFeatures.begin(),
                           batchFeatures.begin() +
                               batch.levelSizes[1] * kFeatures);
    ctx.features = destinationRows.data();
    ctx.inputTable = problem.features.data();
    ctx.inputTableBlock = &batch.listTableRows(options.nodes);
    params.zeroGrads();
    const double inPlaceLoss = program.trainStepF64(ctx);
    inPlaceSame = inPlaceLoss == loss && params.grads == analytic;
    std::fprintf(out, "gradcheck: input rows in place: %s\n",
                 inPlaceSame ? "the copy's loss and gradients, bit for bit"
                             : "the loss or a gradient differs from the "
                               "copy's");
  }
  std::vector<std::vector<double> *> values;
  std::vector<std::string> names;
  analytic = checkedParameters(params, analytic, values, names);
  if (learnedInputs) {
    values.push_back(&inputs);
    names.push_back("input");
    analytic.push_back(inputGrad);
  }

  // Each loss is a float64 sum of many rounded terms, exact to some tens
  // of ulps of its size: their difference over 2h is off by about this
  // much (the gradients checked are orders of magnitude larger).
  const double noise = 64 * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, std::abs(loss)) / kStep;
  double worst = 0;
  std::string worstWhere; // " at <param>[k]: ..." of the worst element
  bool finite = std::isfinite(loss);
  for (size_t i = 0; i < values.size() && finite; ++i) {
    std::vector<double> &value = *values[i];
    double paramWorst = 0;
    std::vector<int64_t> elements = checkedElements(int64_t(value.size()));
    std::vector<double> numerics;
    double scale = 0; // the largest |analytic| + |numeric| of the parameter
    for (int64_t k : elements) {
      double saved = value[k];
      value[k] = saved + kStep;
      double plus = program.trainStepF64(ctx);
      value[k] = saved - kStep;
      double minus = program.trainStepF64(ctx);
      value[k] = saved;
      numerics.push_back((plus - minus) / (2 * kStep));
      scale = std::max(scale, std::abs(analytic[i][k]) +
                                  std::abs(numerics.back()));
    }
    // Relative per element, but never relative to less than 1e-3 of the
    // parameter's largest gradient: the cancellation error of a central
    // difference is absolute (~1e-16 * loss / h), so an element whose true
    // gradient is ~0 would otherwise fail on rounding alone.
    double floor = std::max(1e-3 * scale, 1e-12);
    for (size_t j = 0; j < elements.size(); ++j) {
      int64_t k = elements[j];
      double a = analytic[i][k], numeric = numerics[j];
      // A difference within the central difference's rounding noise is
      // agreement: a parameter whose gradient is zero everywhere (a bias
      // before a batch normalization) has nothing else as its numeric one.
      double err = std::abs(a - numeric) <= noise
                       ? 0.0
                       : std::abs(a - numeric) /
                             std::max(floor, std::abs(a) + std::abs(numeric));
      if (!std::isfinite(err))
        err = INFINITY;
      paramWorst = std::max(paramWorst, err);
      if (err > worst) {
        worst = err;
        char where[160];
        std::snprintf(where, sizeof where,
                      " at %s[%lld]: analytic %.6g, numeric %.6g",
                      names[i].c_str(), (long long)k, a, numeric);
        worstWhere = where;
      }
    }
    std::fprintf(out, "gradcheck %s max_rel_err %.1e (%zu elements)\n",
                 names[i].c_str(), paramWorst, elements.size());
  }
  bool pass = finite && inPlaceSame && worst < options.tolerance;
  if (!finite)
    std::fprintf(out, "gradcheck: FAIL (the loss is %g)\n", loss);
  else if (pass)
    std::fprintf(out, "gradcheck: PASS (max_rel_err %.1e)\n", worst);
  else
    std::fprintf(out, "gradcheck: FAIL (max_rel_err %.1e%s)\n", worst,
                 worstWhere.c_str());
  std::fflush(out);
  return pass;
}

} // namespace gnnrt
