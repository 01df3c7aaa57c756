//===- EmitSettings.cpp - the train block as TrainSettings code -----------===//
//
// The generated main's `program.settings`: MLIRGen attaches the train block
// (and its dataset's source) to the forward as the `gnn.train` dictionary;
// this reads it by name and writes one assignment per TrainSettings field,
// with the defaults the language documents where the block is silent.
//
//===----------------------------------------------------------------------===//

#include "EmitSettings.h"

#include <cstdio>

using namespace mlir;

std::string gnn::cpp::cppDouble(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  std::string s = buffer;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

std::string gnn::cpp::cppString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

/// Reads the `gnn.train` dictionary MLIRGen attached to the forward.
class TrainReader {
public:
  explicit TrainReader(DictionaryAttr train) : train(train) {}

  DictionaryAttr dict(StringRef key) const {
    return train ? train.getAs<DictionaryAttr>(key) : nullptr;
  }
  static std::string string(DictionaryAttr d, StringRef key,
                            StringRef fallback) {
    if (auto s = d ? d.getAs<StringAttr>(key) : nullptr)
      return s.str();
    return fallback.str();
  }
  static double number(DictionaryAttr d, StringRef key, double fallback) {
    Attribute a = d ? d.get(key) : nullptr;
    if (auto f = dyn_cast_or_null<FloatAttr>(a))
      return f.getValueAsDouble();
    if (auto i = dyn_cast_or_null<IntegerAttr>(a))
      return double(i.getInt());
    return fallback;
  }
  static bool flag(DictionaryAttr d, StringRef key, bool fallback) {
    if (auto b = d ? d.getAs<BoolAttr>(key) : nullptr)
      return b.getValue();
    return fallback;
  }
  DictionaryAttr top() const { return train; }

private:
  DictionaryAttr train;
};

} // namespace

void gnn::cpp::emitTrainSettings(raw_indented_ostream &os,
                                 DictionaryAttr trainDict) {
  const TrainReader train(trainDict);
  DictionaryAttr top = train.top();
  DictionaryAttr source = train.dict("source");
  DictionaryAttr optimizer = train.dict("optimizer");
  std::string kind = TrainReader::string(optimizer, "kind", "adam");
  os << "TrainSettings &s = program.settings;\n";
  os << "s.dataset = " << cppString(TrainReader::string(top, "dataset", ""))
     << ";\n";
  os << "s.source = " << cppString(TrainReader::string(source, "kind", "ogb"))
     << ";\n";
  os << "s.split = " << cppString(TrainReader::string(source, "split", ""))
     << ";\n";
  // Citation graphs are undirected: without an explicit choice, messages
  // flow both ways (as PyG's Planetoid and OGB's add_inverse_edge).
  os << "s.addReverseEdges = "
     << (TrainReader::flag(source, "add_reverse_edges", true) ? "true"
                                                              : "false")
     << ";\n";
  os << "s.addSelfLoops = "
     << (TrainReader::flag(source, "self_loops", false) ? "true" : "false")
     << ";\n";
  os << "s.normalizeFeatures = "
     << (TrainReader::flag(source, "normalize_features", false) ? "true"
                                                                : "false")
     << ";\n";
  if (TrainReader::string(source, "kind", "") == "generate") {
    // `generate(...)`: the trainer makes the graph when no --data is given.
    os << "s.generator.kind = "
       << (TrainReader::string(source, "graph", "sbm") == "rmat"
               ? "GraphKind::Rmat"
               : "GraphKind::Sbm")
       << ";\n";
    for (auto [key, field] :
         {std::pair<const char *, const char *>{"nodes", "numNodes"},
          {"edges", "numEdges"},
          {"features", "numFeatures"},
          {"classes", "numClasses"},
          {"seed", "seed"}})
      if (source.get(key))
        os << "s.generator." << field << " = "
           << int64_t(TrainReader::number(source, key, 0)) << ";\n";
  }
  if (auto file = top ? top.getAs<StringAttr>("checkpoint") : nullptr) {
    os << "s.checkpointFile = " << cppString(file.getValue()) << ";\n";
    os << "s.checkpointEvery = "
       << int64_t(TrainReader::number(top, "checkpoint_every", 0)) << ";\n";
  }
  if (DictionaryAttr batches = train.dict("batches")) {
    if (auto fanouts = batches.getAs<ArrayAttr>("fanout"))
      for (Attribute a : fanouts)
        if (auto n = dyn_cast<IntegerAttr>(a))
          os << "s.fanouts.push_back(" << n.getInt() << ");\n";
    os << "s.batchSize = "
       << int64_t(TrainReader::number(batches, "batch", 0)) << ";\n";
    os << "s.replace = "
       << (TrainReader::flag(batches, "replace", false) ? "true" : "false")
       << ";\n";
    os << "s.shuffle = "
       << (TrainReader::flag(batches, "shuffle", true) ? "true" : "false")
       << ";\n";
  }
  if (DictionaryAttr partition = train.dict("partition")) {
    os << "s.partition = "
       << cppString(TrainReader::string(partition, "kind", "metis")) << ";\n";
    if (partition.get("cache"))
      os << "s.cacheRatio = "
         << cppDouble(TrainReader::number(partition, "cache", 0)) << ";\n";
    if (auto balance = partition.getAs<ArrayAttr>("balance"))
      for (Attribute a : balance)
        if (auto name = dyn_cast<StringAttr>(a))
          os << "s.partitionBalance.push_back(" << cppString(name.getValue())
             << ");\n";
  }
  os << "s.loss = " << cppString(TrainReader::string(top, "loss",
                                                     "cross_entropy"))
     << ";\n";
  os << "s.optimizer = " << cppString(kind) << ";\n";
  os << "s.lr = " << cppDouble(TrainReader::number(optimizer, "lr", 0.01))
     << ";\n";
  os << "s.weightDecay = "
     << cppDouble(TrainReader::number(optimizer, "weight_decay",
                                      kind == "adamw" ? 0.01 : 0.0))
     << ";\n";
  os << "s.beta1 = " << cppDouble(TrainReader::number(optimizer, "beta1", 0.9))
     << ";\n";
  os << "s.beta2 = "
     << cppDouble(TrainReader::number(optimizer, "beta2", 0.999)) << ";\n";
  os << "s.eps = " << cppDouble(TrainReader::number(optimizer, "eps", 1e-8))
     << ";\n";
  os << "s.momentum = "
     << cppDouble(TrainReader::number(optimizer, "momentum", 0.0)) << ";\n";
  os << "s.epochs = " << int64_t(TrainReader::number(top, "epochs", 100))
     << ";\n";
  if (auto evaluate = top ? top.getAs<ArrayAttr>("evaluate") : nullptr) {
    for (Attribute a : evaluate)
      if (auto split = dyn_cast<StringAttr>(a))
        os << "s.evaluate.push_back(" << cppString(split.getValue())
           << ");\n";
  } else if (auto one = top ? top.getAs<StringAttr>("evaluate") : nullptr) {
    os << "s.evaluate.push_back(" << cppString(one.getValue()) << ");\n";
  }
  os << "s.evaluateEvery = "
     << int64_t(TrainReader::number(top, "evaluate_every", 1)) << ";\n";
  os << "s.seed = " << uint64_t(TrainReader::number(top, "seed", 0)) << ";\n";
}

