//===- EmitCpp.cpp - the trainer's translation unit -----------------------===//
//
// The program skeleton around the entry points: the header comment and the
// runtime includes, the parameter list (`<Model>_params`, in the order of
// ExecContext::params), the forward and the train step (each prepared by
// Target/Common and printed by a FunctionEmitter), the logits' width
// (`<Model>_output_columns`, which the trainer checks against the class
// count), and a `main` that fills a CompiledProgram and hands it to
// gnnrt::trainMain. For a model GCN:
//
//   std::vector<ParamInfo> GCN_params(const DataDims &data) { ... }
//   template <typename T> void GCN_forward(ExecContext<T> &ctx) { ... }
//   template <typename T> T GCN_train_step(ExecContext<T> &ctx) { ... }
//   int64_t GCN_output_columns(const DataDims &data) { ... }
//   int main(int argc, char **argv) {
//     CompiledProgram program;
//     ...
//     program.forwardF32 = &GCN_forward<float>;
//     return trainMain(argc, argv, program);
//   }
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cpp/EmitCpp.h"

#include "EmitSettings.h"
#include "../FunctionEmitter.h"
#include "TrainerUnit.h"

#include "gnn/Target/Common/Naming.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;
namespace rt = gnn::target::rt;

/// `<name> = <value>;` for a member of main's CompiledProgram.
void gnn::cpp::setProgram(raw_indented_ostream &os, llvm::StringRef member,
                          const llvm::Twine &value) {
  os << rt::local::program << "." << member << " = " << value << ";\n";
}

/// `const int64_t features = data.features, classes = data.classes;` and
/// the casts that keep an unused one from warning; `relations` and `nodes`
/// too where a program's parameters need them.
void bindDataDims(raw_indented_ostream &os, llvm::StringRef indent,
                  bool relations = false, bool nodes = false) {
  os << indent << "const int64_t " << rt::local::features << " = "
     << rt::local::data << "." << rt::data::features << ", "
     << rt::local::classes << " = " << rt::local::data << "."
     << rt::data::classes << ";\n"
     << indent << "(void)" << rt::local::features << ";\n"
     << indent << "(void)" << rt::local::classes << ";\n";
  if (relations)
    os << indent << "const int64_t " << rt::local::relations << " = "
       << rt::local::data << "." << rt::data::relations << ";\n";
  if (nodes)
    os << indent << "const int64_t " << rt::local::nodes << " = "
       << rt::local::data << "." << rt::data::nodes << ";\n";
}

void gnn::cpp::emitParams(raw_indented_ostream &os,
                          const target::ParameterTable &params, StringRef model,
                          StringRef cppModel) {
  os << "std::vector<" << rt::paramInfo << "> " << cppModel << "_params(const "
     << rt::dataDims << " &" << rt::local::data << ") {\n";
  os.indent();
  bindDataDims(os, "", params.uses(rt::local::relations),
               params.uses(rt::local::nodes));
  // A parameter sized by a quotient of dataset sizes (`features / 4`, from
  // a layer's `in / blocks`) needs sizes that divide; Sema checked the rest.
  for (ParameterOp p : params.params) {
    std::string shortName = p.getSymName().drop_front(model.size() + 1).str();
    for (const std::string &dim : params.dims.lookup(p.getSymName()))
      for (auto [dividend, divisor] : target::quotients(dim))
        os << "if ((" << dividend << ") % (" << divisor << ") != 0)\n"
           << "  throw " << rt::dataError << "(\"parameter '" << shortName
           << "' has a dimension " << dividend << " / " << divisor
           << ", but \" + std::to_string(" << dividend
           << ") + \" is not divisible by \" + std::to_string(" << divisor
           << "));\n";
  }
  os << "return {\n";
  for (ParameterOp p : params.params) {
    StringRef sym = p.getSymName();
    std::string shortName = sym.drop_front(model.size() + 1).str();
    SmallVector<std::string> args;
    if (auto a = p.getInitArgs())
      for (Attribute v : *a)
        args.push_back(cppDouble(cast<FloatAttr>(v).getValueAsDouble()));
    os << "    {" << cppString(shortName) << ", {"
       << llvm::join(params.dims.lookup(sym), ", ") << "}, "
       << rt::init(p.getInit()) << ", {" << llvm::join(args, ", ") << "}"
       << (p.getBuffer() ? ", true" : "") << "},\n";
  }
  os << "};\n";
  os.unindent();
  os << "}\n\n";
}

void gnn::cpp::emitOutputColumns(raw_indented_ostream &os, StringRef cppModel,
                                 StringRef width, int64_t numBlocks) {
  // `ctx.blocks` as the stand-in context's member name.
  StringRef blocks = StringRef(rt::ctx::blocks).rsplit('.').second;
  os << "int64_t " << cppModel << "_output_columns(const " << rt::dataDims
     << " &" << rt::local::data << ") {\n";
  bindDataDims(os, "  ");
  os << "  // A width can mention row counts (a reshape's); one row will do.\n"
     << "  struct OneRow { int64_t " << rt::graph::numSrc << " = 1, "
     << rt::graph::numDst << " = 1, " << rt::graph::numEdges << " = 1; };\n"
     << "  const OneRow " << rt::local::graph << "{};\n"
     << "  const struct { OneRow " << blocks << "["
     << std::max<int64_t>(1, numBlocks) << "]; } " << rt::local::context
     << "{};\n"
     << "  (void)" << rt::local::graph << ";\n  (void)" << rt::local::context
     << ";\n"
     << "  return " << width << ";\n}\n\n";
}

FailureOr<TrainerModule> gnn::cpp::findTrainer(ModuleOp module) {
  TrainerModule unit;
  if (failed(unit.params.build(module)))
    return failure();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!unit.forward && f.getSymName().endswith(".forward"))
      unit.forward = f;
  }
  if (!unit.forward)
    return module.emitError("no model to compile: the program has no train "
                            "block");
  unit.model =
      unit.forward.getSymName().drop_back(StringRef(".forward").size()).str();
  unit.step = module.lookupSymbol<func::FuncOp>(unit.model + ".train_step");
  if (!unit.step)
    return unit.forward.emitError("internal error: no train step for ")
           << unit.model;
  unit.rankFactors =
      module.lookupSymbol<func::FuncOp>(unit.model + ".rank_factors");
  unit.cppModel = target::identifierFrom(unit.model);
  if (auto blocks = unit.forward->getAttrOfType<IntegerAttr>("gnn.blocks"))
    unit.numBlocks = blocks.getInt();
  return unit;
}

void gnn::cpp::emitProgramFields(raw_indented_ostream &os,
                                 const TrainerModule &unit,
                                 llvm::StringRef sourceFile,
                                 bool usesEdgeIds) {
  os << rt::compiledProgram << " " << rt::local::program << ";\n";
  setProgram(os, rt::program::model, cppString(unit.model));
  setProgram(os, rt::program::sourceFile, cppString(sourceFile));
  emitTrainSettings(os, TrainAttr::of(unit.forward));
  setProgram(os, rt::program::params, "&" + unit.cppModel + "_params");
  // Dropout on edges keys its masks by the whole graph's edge ids.
  if (usesEdgeIds)
    setProgram(os, rt::program::needsEdgeIds, "true");
  // Relations and node types selected by name, each with its source
  // location (`{{"name", "where"}, ...}`), checked against the data before
  // training.
  auto setUses = [&](StringRef member, auto opKind) {
    using OpT = decltype(opKind);
    std::vector<std::pair<std::string, std::string>> uses;
    for (func::FuncOp entry : {unit.forward, unit.step})
      entry.walk([&](OpT op) {
        std::pair<std::string, std::string> use = {
            op.getName().str(), target::describeLocation(op.getLoc())};
        if (!llvm::is_contained(uses, use))
          uses.push_back(use);
      });
    if (uses.empty())
      return;
    std::string list = "{";
    for (const auto &[name, where] : uses)
      list += "{" + cppString(name) + ", " + cppString(where) + "}, ";
    list.resize(list.size() - 2);
    setProgram(os, member, list + "}");
  };
  setUses(rt::program::relationUses, RelationOp());
  setUses(rt::program::nodeTypeUses, NodeTypeOp());
  setProgram(os, rt::program::outputColumns,
             "&" + unit.cppModel + "_output_columns");
  if (unit.numBlocks > 0)
    setProgram(os, rt::program::numBlocks, llvm::Twine(unit.numBlocks));
}

LogicalResult gnn::cpp::emitCpp(ModuleOp module, llvm::raw_ostream &out,
                                const EmitOptions &options) {
  FailureOr<TrainerModule> found = findTrainer(module);
  if (failed(found))
    return failure();
  const TrainerModule &unit = *found;
  const std::string &cppModel = unit.cppModel;

  raw_indented_ostream os(out);
  os << "// Generated by gnnc from " << options.sourceFile
     << ": the trainer of model " << unit.model << ".\n"
     << "// Do not edit: regenerate with `gnnc --emit=cpp`.\n\n"
     << "#include \"" << rt::kernelsHeader << "\"\n"
     << "#include \"" << rt::programHeader << "\"\n\n"
     << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include "
        "<limits>\n\n"
     << "using namespace " << rt::runtimeNamespace << ";\n\n"
     << "namespace {\n\n";
  emitParams(os, unit.params, unit.model, cppModel);

  // Each entry point: prepared, then printed. Both read their input rows
  // in place, or neither (evaluation and training share the batches).
  const bool inputRowsInPlace =
      readsInputRowsInPlace(unit.forward) && readsInputRowsInPlace(unit.step);
  // A knowledge-graph model's ranking factors come last, an evaluation
  // entry point like the forward (CompiledProgram::rankFactorsF32).
  SmallVector<target::PreparedFunction, 3> entries;
  SmallVector<std::string, 3> entryNames;
  SmallVector<std::pair<func::FuncOp, bool>, 3> entryFuncs = {
      {unit.forward, false}, {unit.step, true}};
  if (unit.rankFactors)
    entryFuncs.push_back({unit.rankFactors, false});
  for (auto [entry, training] : entryFuncs) {
    FailureOr<target::PreparedFunction> fn = target::PreparedFunction::prepare(
        entry, training, unit.params, FunctionEmitter::reservedNames());
    if (failed(fn))
      return failure();
    entries.push_back(std::move(*fn));
    entryNames.push_back(cppModel + (entry == unit.rankFactors ? "_rank_factors"
                                     : training                ? "_train_step"
                                                               : "_forward"));
  }
  // Printed twice: into nothing, counting the loop nests an entry point
  // repeats, then for real, those written once before them.
  SharedLoopNests sharedLoops;
  auto printEntries = [&](raw_indented_ostream &to) {
    for (auto [fn, entryName] : llvm::zip(entries, entryNames)) {
      FunctionEmitter emitter(fn, unit.params, to);
      emitter.shareLoopNests(sharedLoops);
      if (sharedLoops.counting())
        sharedLoops.beginEntryPoint();
      if (inputRowsInPlace)
        emitter.readInputRowsInPlace();
      if (failed(emitter.emit(entryName)))
        return failure();
    }
    return success();
  };
  raw_indented_ostream counting(llvm::nulls());
  if (failed(printEntries(counting)))
    return failure();
  sharedLoops.finishCounting();
  sharedLoops.emitDefinitions(os);
  if (failed(printEntries(os)))
    return failure();
  std::string outputWidth = entries.front().outputWidth().str();
  bool usesEdgeIds = entries[1].readsEdgeIds();
  emitOutputColumns(os, cppModel, outputWidth, unit.numBlocks);
  os << "} // namespace\n\n";

  // gnnc compiles this file as three translation units at once, one core
  // each (GNNC_UNIT 1: main and the float32 forward; 2: the float32 train
  // step, the largest; 3: the float64 entry points, which serve --gradcheck
  // only and are built less optimized). Without GNNC_UNIT it is one unit
  // holding all.
  std::string trainStepF32 = cppModel + "_train_step_f32";
  std::string forwardF64 = cppModel + "_forward_f64";
  std::string trainStepF64 = cppModel + "_train_step_f64";
  auto unitOnly = [&](int unitNumber, ArrayRef<std::string> definitions,
                      ArrayRef<std::string> declarations) {
    os << "#if GNNC_UNIT == 0 || GNNC_UNIT == " << unitNumber << "\n";
    for (const std::string &definition : definitions)
      os << definition << "\n";
    os << "#else\n";
    for (const std::string &declaration : declarations)
      os << declaration << ";\n";
    os << "#endif\n";
  };
  os << "#ifndef GNNC_UNIT\n#define GNNC_UNIT 0\n#endif\n";
  std::string stepF32 = "float " + trainStepF32 + "(ExecContext<float> &ctx)";
  unitOnly(2,
           {stepF32 + " { return " + cppModel + "_train_step<float>(ctx); }"},
           {stepF32});
  std::string forward64 = "void " + forwardF64 + "(ExecContext<double> &ctx)";
  std::string step64 = "double " + trainStepF64 + "(ExecContext<double> &ctx)";
  unitOnly(3,
           {forward64 + " { " + cppModel + "_forward<double>(ctx); }",
            step64 + " { return " + cppModel + "_train_step<double>(ctx); }"},
           {forward64, step64});
  os << "\n#if GNNC_UNIT == 0 || GNNC_UNIT == 1\n";
  os << "int main(int argc, char **argv) {\n";
  os.indent();
  emitProgramFields(os, unit, options.sourceFile, usesEdgeIds);
  if (inputRowsInPlace)
    setProgram(os, rt::program::inputRowsInPlace, "true");
  if (unit.numBlocks > 0)
    if (uint64_t without =
            blocksWithoutOutEdges({unit.forward, unit.step}, unit.numBlocks))
      setProgram(os, rt::program::blocksWithoutOutEdges,
                 "0x" + llvm::utohexstr(without) + "u");
  setProgram(os, rt::program::forwardF32, "&" + cppModel + "_forward<float>");
  setProgram(os, rt::program::trainStepF32, "&" + trainStepF32);
  if (unit.rankFactors) {
    setProgram(os, rt::program::rankFactorsF32,
               "&" + cppModel + "_rank_factors<float>");
    setProgram(os, rt::program::rankFactorCount,
               llvm::Twine(entries.back().getFunc().getNumResults()));
  }
  setProgram(os, rt::program::forwardF64, "&" + forwardF64);
  setProgram(os, rt::program::trainStepF64, "&" + trainStepF64);
  os << "return " << rt::trainMain << "(argc, argv, " << rt::local::program
     << ");\n";
  os.unindent();
  os << "}\n#endif\n";
  return success();
}
