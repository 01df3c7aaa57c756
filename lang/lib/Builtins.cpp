//===- Builtins.cpp - The builtin function table --------------------------===//
//
// The signatures here are the language's contract; docs/language.md lists the
// same functions. Result-type rules live in Sema (they need its unifier).
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Builtins.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

using namespace gnn::lang;

const char *gnn::lang::builtinOpName(BuiltinOp op) {
  switch (op) {
  case BuiltinOp::None:
    return "";
#define GNN_BUILTIN_OP(ID, NAME, FAMILY)                                       \
  case BuiltinOp::ID:                                                          \
    return #NAME;
#include "gnn/lang/BuiltinOps.def"
  }
  return "";
}

BuiltinFamily gnn::lang::builtinFamily(BuiltinOp op) {
  switch (op) {
  case BuiltinOp::None:
    return BuiltinFamily::None;
#define GNN_BUILTIN_OP(ID, NAME, FAMILY)                                       \
  case BuiltinOp::ID:                                                          \
    return BuiltinFamily::FAMILY;
#include "gnn/lang/BuiltinOps.def"
  }
  return BuiltinFamily::None;
}

namespace {
/// A table entry: a forward builtin is named by its BuiltinOp (its name is
/// BuiltinOps.def's), the others by their name.
struct Entry {
  Entry(const char *name, BuiltinContext context,
        std::vector<BuiltinParam> params, const char *summary)
      : builtin{name, context, std::move(params), summary} {}
  Entry(BuiltinOp op, BuiltinContext context, std::vector<BuiltinParam> params,
        const char *summary)
      : builtin{builtinOpName(op), context, std::move(params), summary, op} {}
  Builtin builtin;
};

std::vector<Builtin> withOpNames(std::vector<Entry> entries) {
  std::vector<Builtin> table;
  for (Entry &e : entries)
    table.push_back(std::move(e.builtin));
  return table;
}
} // namespace

/// The optimizers of TrainSettings.def, callable in a train block with their
/// hyperparameters.
static void appendOptimizers(std::vector<Builtin> &table) {
  for (const TrainOptimizerInfo &o : trainOptimizers()) {
    std::vector<BuiltinParam> params;
    for (const std::string &name : o.hyperparameters)
      params.push_back({name.c_str(), ParamKind::Float, false});
    table.push_back({o.name.c_str(), BuiltinContext::TrainSetting, params,
                     o.summary.c_str()});
  }
}

/// The calls of a train block's values besides the optimizers: the
/// partitioners, the sampler, learning-rate schedules and early stopping.
static std::vector<Builtin> trainSettingBuiltins() {
  using K = ParamKind;
  using C = BuiltinContext;
  return withOpNames({
      {"metis",
       C::TrainSetting,
       {{"balance", K::Any, false}, {"edge_assign", K::Side, false}},
       "METIS partitioning balancing nodes, edges and/or training nodes"},
      {"random",
       C::TrainSetting,
       {{"edge_assign", K::Side, false}},
       "uniformly random node assignment"},
      {"frequency",
       C::TrainSetting,
       {{"cache", K::Float, false}, {"edge_assign", K::Side, false}},
       "hotness-aware partitioning with a remote-feature cache"},
      {"neighbor",
       C::TrainSetting,
       {{"fanout", K::Any, true},
        {"batch", K::Int, true},
        {"replace", K::Bool, false},
        {"shuffle", K::Bool, false},
        {"per_relation", K::Bool, false},
        {"relation_fanout", K::RelationFanouts, false}},
       "mini-batches of sampled neighborhoods"},
      {"graphs",
       C::TrainSetting,
       {{"batch", K::Int, true}, {"shuffle", K::Bool, false}},
       "batches of whole graphs from a collection (graph-level learning)"},
      {"relation",
       C::TrainSetting,
       {{"name", K::String, true}, {"fanout", K::Any, true}},
       "one relation's own fanouts in neighbor(..., relation_fanout = [...])"},
      {"step",
       C::TrainSetting,
       {{"size", K::Int, true}, {"gamma", K::Float, false}},
       "multiply the learning rate by gamma (default 0.1) every size epochs"},
      {"cosine",
       C::TrainSetting,
       {{"min_lr", K::Float, false}},
       "anneal the learning rate to min_lr (default 0) along a half cosine"},
      {"split",
       C::TrainSetting,
       {{"valid", K::Float, false}, {"test", K::Float, false}},
       "a random split of the graph's links into train, valid and test "
       "(defaults 0.05 and 0.10)"},
      {"uniform",
       C::TrainSetting,
       {{"k", K::Int, false}},
       "k uniformly drawn negative pairs per positive link (default 1)"},
      {"all",
       C::TrainSetting,
       {},
       "every entity of a knowledge graph a candidate (1vsAll): each train "
       "triple's softmax cross-entropy over all tails, and over all heads"},
      {"n3",
       C::TrainSetting,
       {{"weight", K::Float, true}},
       "link prediction: add weight * sum |x|^3 of the rows a factorizing "
       "score multiplies (each pair's source, relation and destination "
       "rows), averaged over the step's pairs, to the loss (Lacroix et al. "
       "2018)"},
      {"l2",
       C::TrainSetting,
       {{"weight", K::Float, true}},
       "as n3, with the squared L2 norm sum x^2"},
      {"patience",
       C::TrainSetting,
       {{"epochs", K::Int, true}, {"monitor", K::Metric, false}},
       "stop when the metric (valid_loss or valid_acc) has not improved for "
       "N epochs; keep the best epoch's weights"},
  });
}

/// `group(...)`, the entries of a train block's parameter groups.
static void appendParamGroup(std::vector<Builtin> &table) {
  using K = ParamKind;
  using C = BuiltinContext;
  table.push_back({"group",
                   C::TrainSetting,
                   {{"params", K::ParamSelector, true},
                    {"lr", K::Float, false},
                    {"weight_decay", K::Float, false},
                    {"frozen", K::Bool, false}},
                   "parameters of the model (a layer, or a \"glob\" over "
                   "their names) with their own learning rate and weight "
                   "decay, or frozen"});
}

/// The sources a `dataset` declaration calls (ogb, npy, kg, tu, ogbg,
/// generate).
static std::vector<Builtin> datasetSourceBuiltins() {
  using K = ParamKind;
  using C = BuiltinContext;
  return withOpNames({
      {"ogb",
       C::DatasetSource,
       {{"name", K::String, true},
        {"split", K::String, false},
        {"add_reverse_edges", K::Bool, false},
        {"normalize_features", K::Bool, false},
        {"self_loops", K::Bool, false},
        {"embed", K::Int, false}},
       "a directory in the OGB raw node-property layout (homogeneous or "
       "heterogeneous)"},
      {"npy",
       C::DatasetSource,
       {{"name", K::String, true},
        {"add_reverse_edges", K::Bool, false},
        {"normalize_features", K::Bool, false},
        {"self_loops", K::Bool, false}},
       "a directory of NumPy .npy arrays"},
      {"tu",
       C::DatasetSource,
       {{"name", K::String, true}, {"add_reverse_edges", K::Bool, false}},
       "a collection of graphs in the TU text layout (graph-level learning)"},
      {"ogbg",
       C::DatasetSource,
       {{"name", K::String, true}, {"add_reverse_edges", K::Bool, false}},
       "a collection of graphs in the OGB graph-property layout"},
      {"kg",
       C::DatasetSource,
       {{"name", K::String, true},
        {"embed", K::Int, false},
        {"add_reverse_edges", K::Bool, false}},
       "a knowledge graph's triples in train/valid/test.txt (link scoring)"},
      {"generate",
       C::DatasetSource,
       {{"graph", K::Any, true},
        {"nodes", K::Int, true},
        {"edges", K::Int, true},
        {"features", K::Int, true},
        {"classes", K::Int, true},
        {"seed", K::Int, false}},
       "a deterministic synthetic graph (sbm or rmat), as gnn-data makes"},
  });
}

const std::vector<Builtin> &gnn::lang::builtins() {
  using K = ParamKind;
  using C = BuiltinContext;
  static std::vector<Builtin> table = withOpNames({
      // Graph primitives.
      {BuiltinOp::Aggregate,
       C::Forward,
       {{"g", K::Graph, true},
        {"x", K::Tensor, true},
        {"reduce", K::Reduce, false},
        {"weight", K::Tensor, false},
        {"self_loops", K::Bool, false}},
       "sum/mean/max of source rows over each destination's incoming edges"},
      {BuiltinOp::AggregateRelations,
       C::Forward,
       {{"g", K::Graph, true},
        {"x", K::Tensor, true},
        {"w", K::Tensor, true},
        {"reduce", K::Reduce, false}},
       "per relation r, sum/mean of its source rows times w[r], summed over "
       "relations"},
      {BuiltinOp::AggregateRelationRows,
       C::Forward,
       {{"g", K::Graph, true},
        {"w", K::Tensor, true},
        {"reduce", K::Reduce, false}},
       "per relation r, sum/mean of the rows w[r][j] of the source nodes j "
       "(one-hot inputs), summed over relations"},
      {BuiltinOp::Gather,
       C::Forward,
       {{"g", K::Graph, true},
        {"x", K::Tensor, true},
        {"side", K::Side, false}},
       "node rows to edge rows, from each edge's source (or destination)"},
      {BuiltinOp::Scatter,
       C::Forward,
       {{"g", K::Graph, true},
        {"m", K::Tensor, true},
        {"reduce", K::Reduce, false}},
       "edge rows reduced onto destination nodes"},
      {BuiltinOp::EdgeSoftmax,
       C::Forward,
       {{"g", K::Graph, true}, {"e", K::Tensor, true}},
       "softmax of edge scores over each destination's incoming edges"},
      {BuiltinOp::Degree,
       C::Forward,
       {{"g", K::Graph, true}, {"side", K::Side, false}},
       "in-degree of destination nodes (side = dst) or out-degree of sources"},
      {BuiltinOp::Dst,
       C::Forward,
       {{"g", K::Graph, true}, {"x", K::Tensor, true}},
       "rows of a block's destination nodes; dst(x) when one graph is in "
       "scope"},
      {BuiltinOp::NodeType,
       C::Forward,
       {{"g", K::Graph, true}, {"type", K::String, true}},
       "1 for the source nodes of one node type of a heterogeneous graph, "
       "0 for the others"},
      {BuiltinOp::Relation,
       C::Forward,
       {{"g", K::Graph, true}, {"name", K::String, true}},
       "the subgraph of one relation of a heterogeneous graph"},
      {BuiltinOp::Pairs,
       C::Forward,
       {{"g", K::Graph, true}},
       "link prediction: the node pairs to score, one edge per pair (links "
       "and negatives)"},
      {BuiltinOp::Readout,
       C::Forward,
       {{"g", K::Graph, true}},
       "the graph from each node of a batch of graphs to its graph: "
       "aggregate over it pools a row per graph"},
      // Dense math.
      {BuiltinOp::Relu, C::Forward, {{"x", K::Tensor, true}}, "max(x, 0)"},
      {BuiltinOp::Sigmoid,
       C::Forward,
       {{"x", K::Tensor, true}},
       "1 / (1 + exp(-x))"},
      {BuiltinOp::Tanh,
       C::Forward,
       {{"x", K::Tensor, true}},
       "hyperbolic tangent"},
      {BuiltinOp::Exp, C::Forward, {{"x", K::Tensor, true}}, "e^x"},
      {BuiltinOp::Log,
       C::Forward,
       {{"x", K::Tensor, true}},
       "natural logarithm"},
      {BuiltinOp::Sqrt, C::Forward, {{"x", K::Tensor, true}}, "square root"},
      {BuiltinOp::Rsqrt, C::Forward, {{"x", K::Tensor, true}}, "1 / sqrt(x)"},
      {BuiltinOp::Abs, C::Forward, {{"x", K::Tensor, true}}, "absolute value"},
      {BuiltinOp::LeakyRelu,
       C::Forward,
       {{"x", K::Tensor, true}, {"alpha", K::Float, false}},
       "x if x > 0 else alpha * x (alpha = 0.01)"},
      {BuiltinOp::Elu,
       C::Forward,
       {{"x", K::Tensor, true}, {"alpha", K::Float, false}},
       "x if x > 0 else alpha * (exp(x) - 1) (alpha = 1)"},
      {BuiltinOp::Softmax,
       C::Forward,
       {{"x", K::Tensor, true}, {"axis", K::Int, false}},
       "softmax along an axis (the last by default)"},
      {BuiltinOp::LogSoftmax,
       C::Forward,
       {{"x", K::Tensor, true}, {"axis", K::Int, false}},
       "log of softmax along an axis (the last by default)"},
      {BuiltinOp::BatchNorm,
       C::Forward,
       {{"x", K::Tensor, true},
        {"eps", K::Float, false},
        {"momentum", K::Float, false}},
       "(x - mean) / sqrt(var + eps) of each column over the rows (eps = "
       "1e-5): batch normalization without its scale and shift; evaluation "
       "uses running statistics (momentum = 0.1; 0: the batch's)"},
      {BuiltinOp::Dropout,
       C::Forward,
       {{"x", K::Tensor, true}, {"p", K::Float, false}},
       "zeroes entries with probability p while training (p = 0.5)"},
      {BuiltinOp::Concat,
       C::Forward,
       {{"xs", K::TensorList, true}, {"axis", K::Int, false}},
       "concatenation along an axis (the last by default)"},
      {BuiltinOp::Reshape,
       C::Forward,
       {{"x", K::Tensor, true}, {"shape", K::DimList, true}},
       "same elements, new shape; -1 first keeps the row count"},
      {BuiltinOp::BlockDiagonal,
       C::Forward,
       {{"q", K::Tensor, true}},
       "[R, B, i, o] to [R, B*i, B*o]: each matrix with its B blocks on the "
       "diagonal, zeros elsewhere"},
      {BuiltinOp::Sum,
       C::Forward,
       {{"x", K::Tensor, true}, {"axis", K::Int, true}},
       "sum over an axis"},
      {BuiltinOp::Mean,
       C::Forward,
       {{"x", K::Tensor, true}, {"axis", K::Int, true}},
       "mean over an axis"},
      {BuiltinOp::Max,
       C::Forward,
       {{"x", K::Tensor, true}, {"axis", K::Int, true}},
       "maximum over an axis"},
      // Parameter initializers (glorot, zeros, ones, kaiming are also names).
      {"uniform",
       C::Initializer,
       {{"low", K::Float, true}, {"high", K::Float, true}},
       "uniform in [low, high)"},
      {"normal",
       C::Initializer,
       {{"mean", K::Float, false}, {"std", K::Float, true}},
       "Gaussian"},
      {"constant",
       C::Initializer,
       {{"value", K::Float, true}},
       "every entry = value"},
  });
  static const bool withTrainSettings = [] {
    for (Builtin &b : datasetSourceBuiltins())
      table.push_back(std::move(b));
    for (Builtin &b : trainSettingBuiltins())
      table.push_back(std::move(b));
    appendOptimizers(table);
    appendParamGroup(table);
    return true;
  }();
  (void)withTrainSettings;
  return table;
}

const Builtin *gnn::lang::lookupBuiltin(const std::string &name,
                                        BuiltinContext context) {
  for (const Builtin &b : builtins())
    if (b.context == context && name == b.name)
      return &b;
  return nullptr;
}

static const std::map<SymbolCategory, std::vector<std::string>> &symbolTable() {
  static const std::map<SymbolCategory, std::vector<std::string>> table = {
      {SymbolCategory::Reduce, {"sum", "mean", "max", "min"}},
      {SymbolCategory::Side, {"src", "dst"}},
      {SymbolCategory::Initializer, {"zeros", "ones", "glorot", "kaiming"}},
      {SymbolCategory::Split, {"train", "valid", "test"}},
      {SymbolCategory::Balance, {"nodes", "edges", "train"}},
      {SymbolCategory::Batches, {"full_graph"}},
      // The choices of the train settings that take these names.
      {SymbolCategory::Loss, lookupTrainSetting("loss")->choices},
      {SymbolCategory::Aggregation, lookupTrainSetting("aggregation")->choices},
      {SymbolCategory::Generator, {"sbm", "rmat"}},
      {SymbolCategory::Metric, {"valid_loss", "valid_acc"}},
  };
  return table;
}

const std::vector<std::string> &
gnn::lang::builtinSymbols(SymbolCategory category) {
  return symbolTable().at(category);
}

/// "a b c" as {"a", "b", "c"}.
static std::vector<std::string> words(const char *text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

const std::vector<TrainOptimizerInfo> &gnn::lang::trainOptimizers() {
  static const std::vector<TrainOptimizerInfo> table = {
#define GNN_TRAIN_OPTIMIZER(NAME, ENUMERATOR, HYPERPARAMETERS, WEIGHT_DECAY,   \
                            SUMMARY)                                           \
  {#NAME, words(HYPERPARAMETERS), WEIGHT_DECAY, SUMMARY},
#include "gnnrt/train/TrainSettings.def"
  };
  return table;
}

const std::vector<TrainSettingInfo> &gnn::lang::trainSettings() {
  static const std::vector<TrainSettingInfo> table = [] {
    std::vector<std::string> optimizers;
    for (const TrainOptimizerInfo &o : trainOptimizers())
      optimizers.push_back(o.name);
    using K = TrainValueKind;
    return std::vector<TrainSettingInfo>{
#define GNN_TRAIN_SETTING(KEY, KIND, CHOICES, EMIT, EXPECTED)                  \
  {#KEY, K::KIND, K::KIND == K::Optimizer ? optimizers : words(CHOICES),       \
   EXPECTED},
#include "gnnrt/train/TrainSettings.def"
    };
  }();
  return table;
}

const TrainSettingInfo *gnn::lang::lookupTrainSetting(const std::string &key) {
  for (const TrainSettingInfo &s : trainSettings())
    if (s.key == key)
      return &s;
  return nullptr;
}

const std::vector<std::string> &gnn::lang::trainSettingKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const TrainSettingInfo &s : trainSettings())
      out.push_back(s.key);
    return out;
  }();
  return keys;
}

bool gnn::lang::isBuiltinSymbol(const std::string &name,
                                SymbolCategory category) {
  const auto &names = symbolTable().at(category);
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string gnn::lang::builtinSymbolList(SymbolCategory category) {
  return alternativesList(symbolTable().at(category));
}

std::string gnn::lang::alternativesList(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return out;
}

unsigned gnn::lang::editDistance(const std::string &a, const std::string &b) {
  std::vector<unsigned> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string
gnn::lang::closestMatch(const std::string &name,
                        const std::vector<std::string> &candidates) {
  std::string best;
  unsigned bestDistance = name.size() < 4 ? 1 : 2;
  for (const std::string &c : candidates) {
    unsigned d = editDistance(name, c);
    if (d <= bestDistance && (best.empty() || d < editDistance(name, best))) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

std::string
gnn::lang::withSuggestion(std::string message, const std::string &name,
                          const std::vector<std::string> &candidates) {
  std::string guess = closestMatch(name, candidates);
  if (!guess.empty())
    message += "; did you mean '" + guess + "'?";
  return message;
}

std::optional<double> gnn::lang::foldScalarBuiltin(BuiltinOp op, double x) {
  switch (op) {
  case BuiltinOp::Relu:
    return x > 0 ? x : 0.0;
  case BuiltinOp::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case BuiltinOp::Tanh:
    return std::tanh(x);
  case BuiltinOp::Exp:
    return std::exp(x);
  case BuiltinOp::Log:
    return std::log(x);
  case BuiltinOp::Sqrt:
    return std::sqrt(x);
  case BuiltinOp::Rsqrt:
    return 1.0 / std::sqrt(x);
  case BuiltinOp::Abs:
    return std::fabs(x);
  default:
    return std::nullopt;
  }
}

bool gnn::lang::isScalarFoldable(BuiltinOp op) {
  return foldScalarBuiltin(op, 1.0).has_value();
}
