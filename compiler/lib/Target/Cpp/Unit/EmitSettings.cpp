//===- EmitSettings.cpp - the train block as TrainSettings code -----------===//
//
// The generated main's `program.settings`: MLIRGen attaches the train block
// (and its dataset's source) to the forward as `#gnn.train`, with the
// language's defaults resolved; this writes one assignment per
// TrainSettings field from its typed fields.
//
//===----------------------------------------------------------------------===//

#include "EmitSettings.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cassert>
#include <cstdio>

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;

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

/// The settings with a structured field or a typed parameter of their own
/// (TrainSettings.def's Custom ones), each written by hand.
void emitCheckpoint(raw_indented_ostream &os, TrainAttr train) {
  if (StringAttr file = train.getCheckpoint()) {
    os << "s.checkpointFile = " << cppString(file.getValue()) << ";\n";
    os << "s.checkpointEvery = " << train.getCheckpointEvery() << ";\n";
  }
}

void emitSampler(raw_indented_ostream &os, TrainAttr train) {
  SamplerAttr sampler = train.getSampler();
  if (!sampler)
    return;
  for (int64_t fanout : sampler.getFanouts())
    os << "s.fanouts.push_back(" << fanout << ");\n";
  os << "s.batchSize = " << sampler.getBatch() << ";\n";
  os << "s.replace = " << cppBool(sampler.getReplace()) << ";\n";
  os << "s.shuffle = " << cppBool(sampler.getShuffle()) << ";\n";
  if (sampler.getPerRelation())
    os << "s.perRelation = true;\n";
  if (ArrayAttr relations = sampler.getRelationFanouts())
    for (auto relation : relations.getAsRange<RelationFanoutAttr>()) {
      os << "s.relationFanouts.push_back({" << cppString(relation.getName())
         << ", {";
      llvm::interleaveComma(relation.getFanouts(), os);
      os << "}, " << cppString(relation.getWhere()) << "});\n";
    }
}

void emitGraphBatches(raw_indented_ostream &os, TrainAttr train) {
  GraphBatchesAttr batches = train.getGraphBatches();
  if (!batches)
    return;
  os << "s.graphBatches.batchSize = " << batches.getBatch() << ";\n";
  os << "s.graphBatches.shuffle = " << cppBool(batches.getShuffle()) << ";\n";
}

/// `link_split` and `negatives`: link prediction (written with the split,
/// which every link program has).
void emitLinkSplit(raw_indented_ostream &os, TrainAttr train) {
  LinksAttr links = train.getLinks();
  if (!links)
    return;
  os << "s.links.enabled = true;\n";
  os << "s.links.valid = " << cppDouble(links.getValid().convertToDouble())
     << ";\n";
  os << "s.links.test = " << cppDouble(links.getTest().convertToDouble())
     << ";\n";
}

void emitNegatives(raw_indented_ostream &os, TrainAttr train) {
  LinksAttr links = train.getLinks();
  if (!links)
    return;
  os << "s.links.negatives = " << links.getNegatives() << ";\n";
  if (links.getOneVsAll())
    os << "s.links.oneVsAll = true;\n";
}

/// `batches`: a neighbour sampler or whole graphs (neither: full graph).
void emitBatches(raw_indented_ostream &os, TrainAttr train) {
  emitSampler(os, train);
  emitGraphBatches(os, train);
}

void emitPartition(raw_indented_ostream &os, TrainAttr train) {
  PartitionAttr partition = train.getPartition();
  if (!partition)
    return;
  os << "s.partition = "
     << cppString(stringifyPartitionKind(partition.getKind())) << ";\n";
  if (FloatAttr cache = partition.getCache())
    os << "s.cacheRatio = " << cppDouble(cache.getValueAsDouble()) << ";\n";
  if (ArrayAttr balance = partition.getBalance())
    for (auto name : balance.getAsValueRange<StringAttr>())
      os << "s.partitionBalance.push_back(" << cppString(name) << ");\n";
}

void emitOptimizer(raw_indented_ostream &os, TrainAttr train) {
  os << "s.optimizer = "
     << cppString(stringifyOptimizerKind(train.getOptimizer())) << ";\n";
  auto hyper = [&](StringRef field, const llvm::APFloat &value) {
    os << "s." << field << " = " << cppDouble(value.convertToDouble()) << ";\n";
  };
  hyper("lr", train.getLr());
  hyper("weightDecay", train.getWeightDecay());
  hyper("beta1", train.getBeta1());
  hyper("beta2", train.getBeta2());
  hyper("eps", train.getEps());
  hyper("momentum", train.getMomentum());
}

void emitEvaluate(raw_indented_ostream &os, TrainAttr train) {
  if (ArrayAttr evaluate = train.getEvaluate())
    for (auto split : evaluate.getAsValueRange<StringAttr>())
      os << "s.evaluate.push_back(" << cppString(split) << ");\n";
  os << "s.evaluateEvery = " << train.getEvaluateEvery() << ";\n";
}

void emitLrSchedule(raw_indented_ostream &os, TrainAttr train) {
  LrScheduleAttr schedule = train.getLrSchedule();
  if (!schedule)
    return;
  os << "s.lrSchedule.kind = " << cppString(schedule.getKind()) << ";\n";
  if (schedule.getKind() == "step") {
    os << "s.lrSchedule.stepSize = " << schedule.getStepSize() << ";\n";
    os << "s.lrSchedule.gamma = "
       << cppDouble(schedule.getGamma().convertToDouble()) << ";\n";
  } else {
    os << "s.lrSchedule.minLr = "
       << cppDouble(schedule.getMinLr().convertToDouble()) << ";\n";
  }
}

void emitEarlyStopping(raw_indented_ostream &os, TrainAttr train) {
  if (EarlyStoppingAttr stopping = train.getEarlyStopping()) {
    os << "s.earlyStopping.patience = " << stopping.getPatience() << ";\n";
    os << "s.earlyStopping.monitor = " << cppString(stopping.getMonitor())
       << ";\n";
  }
}

/// `param_groups`: one TrainSettings::ParamGroup each, in order (the
/// trainer gives a parameter the first whose pattern matches it).
void emitParamGroups(raw_indented_ostream &os, TrainAttr train) {
  ArrayAttr groups = train.getParamGroups();
  if (!groups)
    return;
  auto optional = [](FloatAttr value) {
    return value ? cppDouble(value.getValueAsDouble())
                 : std::string("std::nullopt");
  };
  for (auto group : groups.getAsRange<ParamGroupAttr>())
    os << "s.paramGroups.push_back({" << cppString(group.getName()) << ", "
       << cppString(group.getPattern()) << ", " << optional(group.getLr())
       << ", " << optional(group.getWeightDecay()) << ", "
       << cppBool(group.getFrozen()) << ", " << cppString(group.getWhere())
       << "});\n";
}

/// A value of the `settings` dictionary as a C++ literal.
std::string cppLiteral(Attribute value) {
  if (auto i = value.dyn_cast<IntegerAttr>())
    return std::to_string(i.getInt());
  if (auto f = value.dyn_cast<FloatAttr>())
    return gnn::cpp::cppDouble(f.getValueAsDouble());
  return gnn::cpp::cppString(value.cast<StringAttr>().getValue());
}

} // namespace

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
  // The train block's settings in the records' order: the generic ones
  // from `settings` (or their defaults), the others by hand.
  using Emitter = void (*)(raw_indented_ostream &, TrainAttr);
  DictionaryAttr given = train.getSettings();
  for (const TrainSettingRecord &record : trainSettingRecords()) {
    switch (record.emission) {
    case SettingEmission::Never:
      break;
    case SettingEmission::Custom: {
      Emitter emit = llvm::StringSwitch<Emitter>(record.key)
                         .Case("checkpoint", emitCheckpoint)
                         .Case("batches", emitBatches)
                         .Case("partition", emitPartition)
                         .Case("optimizer", emitOptimizer)
                         .Case("evaluate", emitEvaluate)
                         .Case("lr_schedule", emitLrSchedule)
                         .Case("early_stopping", emitEarlyStopping)
                         .Case("param_groups", emitParamGroups)
                         .Case("link_split", emitLinkSplit)
                         .Case("negatives", emitNegatives)
                         .Default(nullptr);
      assert(emit && "a Custom train setting without its emitter");
      emit(os, train);
      break;
    }
    case SettingEmission::Always:
    case SettingEmission::IfGiven: {
      Attribute value = given ? given.get(record.key) : Attribute();
      if (!value && record.emission == SettingEmission::IfGiven)
        break;
      const TrainFieldRecord *field =
          llvm::find_if(trainFieldRecords(), [&](const TrainFieldRecord &f) {
            return f.name == record.key;
          });
      assert(field != trainFieldRecords().end() &&
             "a generic train setting without its TrainSettings field");
      os << "s." << field->field << " = "
         << (value ? cppLiteral(value) : std::string(field->defaultValue))
         << ";\n";
      break;
    }
    }
  }
}
