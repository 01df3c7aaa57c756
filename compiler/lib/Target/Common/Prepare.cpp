//===- Prepare.cpp - what an emitter knows before it writes ---------------===//
//
// One walk over the entry point's block, in program order: graph values get
// their C++ expressions, tensor values their dims (ShapeRules.cpp) and
// names. Names are handed out in program order, so a variable's first
// definition keeps the plain name and later ones get `_1`, `_2`. The memory
// plan is made first: it only needs to know which values are views.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/Prepare.h"

#include "gnn/Target/Common/Naming.h"
#include "gnn/Target/Common/RuntimeNames.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::target;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

namespace {

/// A parameter dim as MLIRGen prints it (a polynomial in literals and
/// dataset sizes, e.g. `2*cora.classes`, with exact quotients such as
/// `(cora.classes/4)`) as a C++ expression over the generated code's
/// `features` and `classes`.
std::optional<std::string> translateDim(StringRef text) {
  if (isLiteral(text))
    return text.str();
  std::string out;
  bool compound = false;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (llvm::isAlpha(c) || c == '_') {
      size_t end = i;
      while (end < text.size() &&
             (llvm::isAlnum(text[end]) || text[end] == '_' || text[end] == '.'))
        ++end;
      StringRef field = text.slice(i, end).rsplit('.').second;
      if (field == rt::data::features)
        out += rt::local::features;
      else if (field == rt::data::classes)
        out += rt::local::classes;
      else if (field == rt::data::relations)
        out += rt::local::relations;
      else if (field == rt::data::nodes)
        out += rt::local::nodes;
      else
        return std::nullopt;
      i = end;
    } else if (llvm::isDigit(c) || c == ' ') {
      out += c;
      ++i;
    } else if (StringRef("*+-()/").contains(c)) {
      out += c;
      compound = true;
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return compound ? "(" + out + ")" : out;
}

} // namespace

bool ParameterTable::uses(StringRef size) const {
  for (const auto &entry : dims)
    for (const std::string &dim : entry.getValue())
      for (StringRef rest = dim; !rest.empty();) {
        // A whole identifier, not a part of one.
        size_t at = rest.find(size);
        if (at == StringRef::npos)
          break;
        auto isIdent = [](char c) { return llvm::isAlnum(c) || c == '_'; };
        bool before = at > 0 && isIdent(rest[at - 1]);
        bool after = at + size.size() < rest.size() &&
                     isIdent(rest[at + size.size()]);
        if (!before && !after)
          return true;
        rest = rest.drop_front(at + size.size());
      }
  return false;
}

LogicalResult ParameterTable::build(ModuleOp module) {
  for (auto p : module.getOps<ParameterOp>()) {
    Dims d;
    for (Attribute a : p.getDims()) {
      StringRef text = cast<StringAttr>(a).getValue();
      std::optional<std::string> dim = translateDim(text);
      if (!dim)
        return p.emitOpError("has a dim '")
               << text << "' that is not an expression in literals and a "
               << "dataset's features, classes, nodes or relations";
      d.push_back(*dim);
    }
    index[p.getSymName()] = params.size();
    dims[p.getSymName()] = d;
    params.push_back(p);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

const Dims &PreparedFunction::dims(Value v) const {
  static const Dims none;
  auto it = dimsOf.find(v);
  return it == dimsOf.end() ? none : it->second;
}

Dims PreparedFunction::features(Value v) const {
  const Dims &d = dims(v);
  return d.empty() ? Dims() : Dims(d.begin() + 1, d.end());
}

RowSpace PreparedFunction::rowSpace(Value v) const {
  const Dims &d = dims(v);
  StringRef rows = d.empty() ? StringRef() : StringRef(d.front());
  auto counts = [&](StringRef member) {
    return rows.endswith(("." + member).str());
  };
  // A readout's sources and edges are the batch's nodes, its destinations
  // the batch's graphs; a link step's pairs have no ids of their own (one
  // process: their rows are keyed by position, as other tensors).
  if (rows.startswith((rt::ctx::readout + ".").str()))
    return counts(rt::graph::numDst) ? RowSpace::Graphs : RowSpace::Nodes;
  if (rows.startswith((rt::ctx::pairs + ".").str()))
    return RowSpace::Other;
  if (counts(rt::graph::numEdges))
    return RowSpace::Edges;
  if (counts(rt::graph::numSrc) || counts(rt::graph::numDst))
    return RowSpace::Nodes;
  return RowSpace::Other;
}

bool PreparedFunction::readAfterInvariants(Value v) {
  for (Operation *user : v.getUsers()) {
    if (!user->hasAttr(kStepInvariantAttrName))
      return true;
    // A view (reshape, dst) is read wherever its result is.
    if (isa<ReshapeOp, DstOp>(user) &&
        user->getOperand(isa<DstOp>(user) ? 1 : 0) == v &&
        readAfterInvariants(user->getResult(0)))
      return true;
  }
  return false;
}

namespace {

/// The key of `v` (PreparedFunction::keptKey), memoized in `keys`: the
/// arguments by position; a result by its op printed in generic form
/// without locations (operands print as placeholders), its result number
/// and its operands' keys.
uint64_t computationKey(Value v, DenseMap<Value, uint64_t> &keys) {
  if (auto it = keys.find(v); it != keys.end())
    return it->second;
  // xxHash64, not llvm::hash_code, whose seed changes between runs: the
  // emitted C++ must not.
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    os << "arg " << arg.getArgNumber();
  } else {
    Operation *op = v.getDefiningOp();
    op->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
    os << " #" << cast<OpResult>(v).getResultNumber();
    for (Value operand : op->getOperands())
      os << " " << computationKey(operand, keys);
  }
  const uint64_t key = llvm::xxHash64(os.str());
  keys[v] = key;
  return key;
}

} // namespace

Storage PreparedFunction::storageOf(Value v) const {
  Operation *op = v.getDefiningOp();
  if (isa<GraphType>(v.getType()) || isa<ParamOp>(op))
    return Storage::External;
  if (isa<ConstantOp, CrossEntropyOp, NormPenaltyOp>(op))
    return Storage::Scalar;
  if (isa<ReshapeOp, DstOp>(op) || (isa<DropoutOp>(op) && !training))
    return Storage::View;
  if (op->hasAttr(kStepInvariantAttrName) && readAfterInvariants(v))
    return Storage::Kept;
  return Storage::Slot;
}

Value PreparedFunction::viewOf(Value v) const {
  Operation *op = v.getDefiningOp();
  return op->getOperand(isa<DstOp>(op) ? 1 : 0);
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

/// Names `res` after the source variable of `loc`, unique in the function.
void PreparedFunction::nameResult(Value res, Location loc,
                                  llvm::StringSet<> &usedNames) {
  std::string base = identifierFrom(sourceName(loc));
  if (base == "v_")
    base = "t";
  std::string id = base;
  for (int n = 1; !usedNames.insert(id).second; ++n)
    id = base + "_" + std::to_string(n);
  names[res] = id;
}

FailureOr<PreparedFunction>
PreparedFunction::prepare(func::FuncOp func, bool training,
                          const ParameterTable &params,
                          const llvm::StringSet<> &reservedNames) {
  PreparedFunction fn(func, training);
  Block &body = fn.getBody();
  fn.plan.emplace(
      body, [&](Value v) { return fn.storageOf(v); },
      [&](Value v) { return fn.viewOf(v); });
  llvm::StringSet<> usedNames;
  for (const auto &reserved : reservedNames)
    usedNames.insert(reserved.getKey());

  // Arguments: the graph, the features and, in a train step, labels and the
  // loss mask (which the loss reads from the context directly).
  fn.graphs[body.getArgument(0)] = rt::local::graph.str();
  fn.names[body.getArgument(1)] = rt::local::input.str();
  // A rank's (or the whole graph's) nodes, or a batch's input nodes.
  std::string inputRows =
      fn.isSampled() ? (rt::ctx::blocks + "[0]." + rt::graph::numSrc).str()
                     : (rt::local::graph + "." + rt::graph::numDst).str();
  fn.dimsOf[body.getArgument(1)] = Dims{inputRows, rt::local::features.str()};

  DenseMap<Value, uint64_t> keys;
  for (Operation &op : body) {
    if (op.hasAttr(kStepInvariantAttrName))
      fn.invariant.push_back(&op);
    for (Value r : op.getResults())
      if (fn.storage(r) == Storage::Kept)
        fn.kept[r] = computationKey(r, keys);
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (!training)
        fn.returnedWidth = fn.width(ret.getOperand(0));
      continue;
    }
    if (isa<ParamGradOp, InputGradOp>(op))
      continue;
    if (isa<MapOp, EdgeMapOp, MatmulMapOp>(op)) {
      if (failed(fn.computeDims(&op, params)))
        return failure();
      // Each result is named after the source variable it computes.
      Block &region = op.getRegion(0).front();
      for (auto [res, yielded] :
           llvm::zip(op.getResults(), region.getTerminator()->getOperands())) {
        Operation *def = yielded.getDefiningOp();
        fn.nameResult(res, def ? def->getLoc() : op.getLoc(), usedNames);
        fn.buffered.push_back(fn.numel(res));
      }
      continue;
    }
    if (op.getNumResults() != 1)
      return op.emitOpError("is not supported by the C++ code generator");
    Value res = op.getResult(0);
    if (isa<GraphType>(res.getType())) {
      // A relation's subgraph is built where the op is (a local the
      // target declares), named after the relation.
      if (auto rel = dyn_cast<RelationOp>(op)) {
        const std::string base = "rel_" + identifierFrom(rel.getName());
        std::string id = base;
        for (int n = 1; !usedNames.insert(id).second ||
                        !usedNames.insert(id + "_storage").second;
             ++n)
          id = base + "_" + std::to_string(n);
        fn.graphs[res] = id;
        continue;
      }
      // A batch's readout graph is the context's (graph-level training).
      if (isa<ReadoutOp>(op)) {
        fn.graphs[res] = rt::ctx::readout.str();
        continue;
      }
      // The pairs a link-prediction step scores are the context's too.
      if (isa<PairsOp>(op)) {
        fn.graphs[res] = rt::ctx::pairs.str();
        continue;
      }
      auto block = dyn_cast<BlockOp>(op);
      if (!block)
        return op.emitOpError("is not supported by the code generators");
      // Sampled training reads the batch's block of the layer; full-graph
      // training has one graph for every layer.
      fn.graphs[res] =
          fn.isSampled()
              ? (rt::ctx::blocks + "[" + std::to_string(block.getLayer()) + "]")
                    .str()
              : fn.graphs.lookup(op.getOperand(0));
      continue;
    }
    if (failed(fn.computeDims(&op, params)))
      return failure();
    if (auto p = dyn_cast<ParamOp>(op)) // @GCN.c1.w -> c1_w
      fn.nameResult(
          res,
          NameLoc::get(StringAttr::get(
              op.getContext(), p.getName()
                                   .drop_until([](char c) { return c == '.'; })
                                   .drop_front())),
          usedNames);
    else
      fn.nameResult(res, op.getLoc(), usedNames);
    if (fn.storage(res) != Storage::Slot)
      continue;
    fn.buffered.push_back(fn.numel(res));
    // Dropout keys edge rows by the whole graph's edge ids.
    if (auto d = dyn_cast<DropoutOp>(op))
      fn.edgeIds |= fn.rowSpace(d.getInput()) == RowSpace::Edges;
  }
  return fn;
}
