//===- EmitSettings.cpp - the train block as TrainSettings code -----------===//
//
// The generated main's `program.settings`: MLIRGen attaches the train block
// (and its dataset's source) to the forward as `#gnn.train`, with the
// language's defaults resolved; this writes one assignment per
// TrainSettings field from its typed fields.
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

void gnn::cpp::emitTrainSettings(raw_indented_ostream &os, TrainAttr train) {
  os << "TrainSettings &s = program.settings;\n";
  os << "s.dataset = " << cppString(train.getDataset()) << ";\n";
  os << "s.source = " << cppString(stringifyDataSourceKind(train.getSource()))
     << ";\n";
  os << "s.split = " << cppString(train.getSplit()) << ";\n";
  // Citation graphs are undirected: without an explicit choice, messages
  // flow both ways (as PyG's Planetoid and OGB's add_inverse_edge).
  os << "s.addReverseEdges = " << cppBool(train.getAddReverseEdges())
     << ";\n";
  os << "s.addSelfLoops = " << cppBool(train.getSelfLoops()) << ";\n";
  os << "s.normalizeFeatures = " << cppBool(train.getNormalizeFeatures())
     << ";\n";
  if (train.getEmbed() > 0)
    os << "s.embedDim = " << train.getEmbed() << ";\n";
  if (GeneratorAttr generator = train.getGenerator()) {
    // `generate(...)`: the trainer makes the graph when no --data is given.
    os << "s.generator.kind = "
       << (generator.getGraph() == GraphKind::rmat ? "GraphKind::Rmat"
                                                   : "GraphKind::Sbm")
       << ";\n";
    os << "s.generator.numNodes = " << generator.getNodes() << ";\n";
    os << "s.generator.numEdges = " << generator.getEdges() << ";\n";
    os << "s.generator.numFeatures = " << generator.getFeatures() << ";\n";
    os << "s.generator.numClasses = " << generator.getClasses() << ";\n";
    if (std::optional<int64_t> seed = generator.getSeed())
      os << "s.generator.seed = " << *seed << ";\n";
  }
  if (StringAttr file = train.getCheckpoint()) {
    os << "s.checkpointFile = " << cppString(file.getValue()) << ";\n";
    os << "s.checkpointEvery = " << train.getCheckpointEvery() << ";\n";
  }
  if (SamplerAttr sampler = train.getSampler()) {
    for (int64_t fanout : sampler.getFanouts())
      os << "s.fanouts.push_back(" << fanout << ");\n";
    os << "s.batchSize = " << sampler.getBatch() << ";\n";
    os << "s.replace = " << cppBool(sampler.getReplace()) << ";\n";
    os << "s.shuffle = " << cppBool(sampler.getShuffle()) << ";\n";
    if (sampler.getPerRelation())
      os << "s.perRelation = true;\n";
    if (ArrayAttr relations = sampler.getRelationFanouts())
      for (auto relation : relations.getAsRange<RelationFanoutAttr>()) {
        os << "s.relationFanouts.push_back({"
           << cppString(relation.getName()) << ", {";
        llvm::interleaveComma(relation.getFanouts(), os);
        os << "}, " << cppString(relation.getWhere()) << "});\n";
      }
  }
  if (PartitionAttr partition = train.getPartition()) {
    os << "s.partition = "
       << cppString(stringifyPartitionKind(partition.getKind())) << ";\n";
    if (FloatAttr cache = partition.getCache())
      os << "s.cacheRatio = " << cppDouble(cache.getValueAsDouble()) << ";\n";
    if (ArrayAttr balance = partition.getBalance())
      for (auto name : balance.getAsValueRange<StringAttr>())
        os << "s.partitionBalance.push_back(" << cppString(name) << ");\n";
  }
  os << "s.loss = " << cppString(train.getLoss()) << ";\n";
  os << "s.optimizer = "
     << cppString(stringifyOptimizerKind(train.getOptimizer())) << ";\n";
  os << "s.lr = " << cppDouble(train.getLr().convertToDouble()) << ";\n";
  os << "s.weightDecay = " << cppDouble(train.getWeightDecay().convertToDouble()) << ";\n";
  os << "s.beta1 = " << cppDouble(train.getBeta1().convertToDouble()) << ";\n";
  os << "s.beta2 = " << cppDouble(train.getBeta2().convertToDouble()) << ";\n";
  os << "s.eps = " << cppDouble(train.getEps().convertToDouble()) << ";\n";
  os << "s.momentum = " << cppDouble(train.getMomentum().convertToDouble()) << ";\n";
  os << "s.epochs = " << train.getEpochs() << ";\n";
  if (ArrayAttr evaluate = train.getEvaluate())
    for (auto split : evaluate.getAsValueRange<StringAttr>())
      os << "s.evaluate.push_back(" << cppString(split) << ");\n";
  os << "s.evaluateEvery = " << train.getEvaluateEvery() << ";\n";
  os << "s.seed = " << train.getSeed() << ";\n";
  if (train.getSamplers() > 0)
    os << "s.samplers = " << train.getSamplers() << ";\n";
  if (StringAttr offload = train.getOffload())
    os << "s.offloadDir = " << cppString(offload.getValue()) << ";\n";
  if (train.getMemoryBudget() > 0)
    os << "s.memoryBudget = " << train.getMemoryBudget() << ";\n";
  if (FloatAttr commTimeout = train.getCommTimeout())
    os << "s.commTimeout = " << cppDouble(commTimeout.getValueAsDouble())
       << ";\n";
}
