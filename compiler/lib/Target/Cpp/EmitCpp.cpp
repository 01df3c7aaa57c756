//===- EmitCpp.cpp - gnn dialect to C++ with OpenMP -----------------------===//
//
// One FunctionEmitter per entry point. Shapes are symbolic: each tensor
// value carries one C++ expression per dim, built from the op's shape rule
// over its operands' dims (graph sizes such as `g.numDst`, the dataset's
// `features` and `classes`, and literals), so the generated code needs no
// shape bookkeeping at run time. Buffers come from the MemoryPlan. Values are
// named after the .gnn variables they hold (MLIRGen records them as NameLocs)
// and every statement carries its source location in a comment.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cpp/EmitCpp.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Target/Cpp/MemoryPlan.h"

#include "EmitSettings.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdio>

using namespace mlir;
using namespace gnn;
using namespace gnn::cpp;

namespace {

using Dims = SmallVector<std::string, 4>;

bool isLiteral(StringRef s, int64_t *value = nullptr) {
  int64_t v;
  if (s.getAsInteger(10, v))
    return false;
  if (value)
    *value = v;
  return true;
}

/// The product of dim expressions, with literals folded.
std::string product(ArrayRef<std::string> dims) {
  int64_t constant = 1;
  SmallVector<std::string> symbolic;
  for (const std::string &d : dims) {
    int64_t v;
    if (isLiteral(d, &v))
      constant *= v;
    else
      symbolic.push_back(d);
  }
  if (constant == 0)
    return "0";
  if (constant != 1 || symbolic.empty())
    symbolic.insert(symbolic.begin(), std::to_string(constant));
  if (symbolic.size() == 1)
    return symbolic.front();
  return "(" + llvm::join(symbolic, " * ") + ")";
}

/// The numpy broadcast of two shapes (a "1" stretches to the other side).
Dims broadcastDims(const Dims &da, const Dims &db) {
  size_t rank = std::max(da.size(), db.size());
  Dims d(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t ia = i + da.size() - rank, ib = i + db.size() - rank;
    bool hasA = i + da.size() >= rank, hasB = i + db.size() >= rank;
    if (!hasA || (hasB && da[ia] == "1"))
      d[i] = db[ib];
    else
      d[i] = da[ia];
  }
  return d;
}

/// gnn.halo_aggregate's mode as the runtime's HaloMode.
const char *haloModeName(StringRef mode) {
  if (mode == "one_shot")
    return "HaloMode::OneShot";
  if (mode == "sequential")
    return "HaloMode::Sequential";
  return "HaloMode::Auto";
}

const char *reduceName(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::sum: return "Reduce::Sum";
  case ReduceKind::mean: return "Reduce::Mean";
  case ReduceKind::max: return "Reduce::Max";
  case ReduceKind::min: return "Reduce::Min";
  }
  return "Reduce::Sum";
}

const char *sideName(EdgeSide side) {
  return side == EdgeSide::src ? "Side::Src" : "Side::Dst";
}

/// `file:line:col`, innermost first, following inlined call sites.
std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return describeLocation(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(file.getFilename()),
                         file.getLine(), file.getColumn())
        .str();
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    std::string callee = describeLocation(call.getCallee());
    std::string caller = describeLocation(call.getCaller());
    if (callee.empty())
      return caller;
    return caller.empty() ? callee : callee + " <- " + caller;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string s = describeLocation(l); !s.empty())
        return s;
  return "";
}

/// The source variable a value holds, if MLIRGen recorded one.
std::string sourceName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return sourceName(call.getCallee());
  return "";
}

std::string identifierFrom(StringRef s) {
  std::string id;
  for (char c : s)
    id += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (id.empty() || llvm::isDigit(id.front()))
    id = "v_" + id;
  return id;
}

/// A parameter dim as MLIRGen prints it (a polynomial in literals and
/// dataset sizes, e.g. `2*cora.classes`) as a C++ expression over the
/// generated code's `features` and `classes`.
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
      if (field != "features" && field != "classes")
        return std::nullopt;
      out += field.str();
      i = end;
    } else if (llvm::isDigit(c) || c == ' ') {
      out += c;
      ++i;
    } else if (StringRef("*+-()").contains(c)) {
      out += c;
      compound = true;
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return compound ? "(" + out + ")" : out;
}

/// The parameters of the module in declaration order, and the C++ dims of
/// each (resolving `cora.features` to `features`).
struct ParameterTable {
  SmallVector<ParameterOp> params;
  llvm::StringMap<unsigned> index;
  llvm::StringMap<Dims> dims;

  LogicalResult build(ModuleOp module) {
    for (auto p : module.getOps<ParameterOp>()) {
      Dims d;
      for (Attribute a : p.getDims()) {
        StringRef text = cast<StringAttr>(a).getValue();
        std::optional<std::string> dim = translateDim(text);
        if (!dim)
          return p.emitOpError("has a dim '")
                 << text << "' that is not an expression in literals and a "
                 << "dataset's features or classes";
        d.push_back(*dim);
      }
      index[p.getSymName()] = params.size();
      dims[p.getSymName()] = d;
      params.push_back(p);
    }
    return success();
  }
};

/// An operand of a fused loop: its buffer and dims, and the C++ expression
/// of the row it is read at (empty: numpy broadcasting over all dims).
struct FusedOperand {
  std::string buffer;
  Dims dims;
  std::string row;
};

/// The iteration of a fused loop nest over an output of dims `out`.
struct FusedLoop {
  /// Loop variable of the rows (i0), or, for an edge loop, "e".
  std::string rowBegin = "0", rowEnd;
  bool parallel = true;
  /// Statements at the start and end of each row iteration.
  std::string rowPrologue, rowEpilogue;
  /// An inner loop between the row and the feature loops (the in-edges of
  /// a destination row): its opening and closing text.
  std::string innerOpen, innerClose;
};

class FunctionEmitter {
public:
  FunctionEmitter(func::FuncOp func, bool training,
                  const ParameterTable &params, raw_indented_ostream &os)
      : func(func), training(training), params(params), os(os) {}

  LogicalResult emit(StringRef cppName);
  /// After emit(): the returned value's columns per node, as a C++
  /// expression over `features` and `classes`.
  const std::string &outputWidth() const { return returnedWidth; }
  /// After emit(): whether the code reads ctx.edgeIds.
  bool readsEdgeIds() const { return edgeIdsRead; }

private:
  LogicalResult computeDims(Operation *op);
  LogicalResult computeFusedDims(Operation *op);
  LogicalResult emitOp(Operation *op);
  void nameResult(Value res, Location loc);
  void emitFused(Operation *op);
  SmallVector<std::string> emitScalarBody(Block &body,
                                          ArrayRef<std::string> args,
                                          std::string &code);
  void emitFusedLoop(const Dims &out, ArrayRef<FusedOperand> operands,
                     StringRef body,
                     const FusedLoop &loop);
  void emitElementwise(Value result, ArrayRef<Value> operands,
                       StringRef expression);
  std::string kernelCall(Operation *op);

  Storage storageOf(Value v);
  Value aliasOf(Value v);
  std::string name(Value v) { return names.lookup(v); }
  const Dims &dimsOf(Value v) { return dims[v]; }
  Dims features(Value v) { return Dims(dimsOf(v).begin() + 1, dimsOf(v).end()); }
  std::string width(Value v) { return product(features(v)); }
  std::string numel(Value v) { return product(dimsOf(v)); }
  std::string graph(Value g) { return graphs.lookup(g); }
  /// Whether the function runs on sampled blocks (gnn-sample-blocks).
  bool sampled() const { return func->hasAttr("gnn.blocks"); }
  std::string ptrOrNull(Value v) { return v ? name(v) : "nullptr"; }

  func::FuncOp func;
  bool training;
  const ParameterTable &params;
  raw_indented_ostream &os;
  DenseMap<Value, std::string> names;
  DenseMap<Value, std::string> graphs;
  DenseMap<Value, Dims> dims;
  llvm::StringSet<> usedNames;
  std::optional<MemoryPlan> plan;
  std::string labels, mask;
  /// Element counts of the buffered values: the one-buffer-per-value
  /// footprint the plan is measured against.
  SmallVector<std::string> unplannedElements;
  std::string returnedWidth;
  bool edgeIdsRead = false;
};

Storage FunctionEmitter::storageOf(Value v) {
  Operation *op = v.getDefiningOp();
  if (isa<GraphType>(v.getType()) || isa<ParamOp>(op))
    return Storage::External;
  if (isa<ConstantOp, CrossEntropyOp>(op))
    return Storage::Scalar;
  if (isa<ReshapeOp, DstOp>(op) || (isa<DropoutOp>(op) && !training))
    return Storage::View;
  return Storage::Slot;
}

Value FunctionEmitter::aliasOf(Value v) { return v.getDefiningOp()->getOperand(
    isa<DstOp>(v.getDefiningOp()) ? 1 : 0); }

LogicalResult FunctionEmitter::computeDims(Operation *op) {
  if (isa<MapOp, EdgeMapOp, MatmulMapOp>(op))
    return computeFusedDims(op);
  if (op->getNumResults() != 1 || isa<GraphType>(op->getResult(0).getType()))
    return success();
  Value res = op->getResult(0);
  auto nodes = [&](Value g, EdgeSide side) {
    return graph(g) + (side == EdgeSide::src ? ".numSrc" : ".numDst");
  };
  auto rows = [&](std::string first, Value featuresOf) {
    Dims d{first};
    d.append(features(featuresOf));
    return d;
  };
  auto broadcast = [&](Value a, Value b) {
    return broadcastDims(dimsOf(a), dimsOf(b));
  };
  std::optional<Dims> computed =
      TypeSwitch<Operation *, std::optional<Dims>>(op)
          .Case<ParamOp>([&](ParamOp p) {
            return std::optional<Dims>(params.dims.lookup(p.getName()));
          })
          .Case<ConstantOp, CrossEntropyOp>([&](auto) { return Dims{}; })
          .Case<GatherOp>([&](GatherOp g) {
            return rows(graph(g.getGraph()) + ".numEdges", g.getInput());
          })
          .Case<ScatterOp, AggregateOp, DstOp>([&](auto o) {
            return rows(nodes(o.getGraph(), EdgeSide::dst), o.getInput());
          })
          .Case<DegreeOp>([&](DegreeOp d) {
            return Dims{nodes(d.getGraph(), d.getSide()), "1"};
          })
          .Case<MatmulOp>([&](MatmulOp m) {
            const Dims &a = dimsOf(m.getLhs()), &b = dimsOf(m.getRhs());
            return Dims{m.getTransposeLhs() ? a[1] : a[0],
                        m.getTransposeRhs() ? b[0] : b[1]};
          })
          .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp>([&](Operation *b) {
            return broadcast(b->getOperand(0), b->getOperand(1));
          })
          .Case<MaximumGradOp, UnaryGradOp, EdgeSoftmaxGradOp,
                SoftmaxGradOp, LogSoftmaxGradOp>([&](Operation *o) {
            Value grad = isa<EdgeSoftmaxGradOp>(o) ? o->getOperand(1)
                                                   : o->getOperand(0);
            return dimsOf(grad);
          })
          .Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) {
            return dimsOf(s.getScores());
          })
          .Case<NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReluOp, SigmoidOp,
                TanhOp, AbsOp, LeakyReluOp, EluOp, SoftmaxOp, LogSoftmaxOp,
                DropoutOp>([&](Operation *u) { return dimsOf(u->getOperand(0)); })
          .Case<ConcatOp>([&](ConcatOp c) {
            Dims d = dimsOf(c.getInputs().front());
            Dims along;
            for (Value in : c.getInputs())
              along.push_back(dimsOf(in)[c.getAxis()]);
            // A sum, not a product: fold by hand.
            int64_t constant = 0;
            SmallVector<std::string> symbolic;
            for (const std::string &s : along) {
              int64_t v;
              if (isLiteral(s, &v))
                constant += v;
              else
                symbolic.push_back(s);
            }
            if (constant || symbolic.empty())
              symbolic.push_back(std::to_string(constant));
            d[c.getAxis()] = symbolic.size() == 1
                                 ? symbolic.front()
                                 : "(" + llvm::join(symbolic, " + ") + ")";
            return d;
          })
          .Case<ReshapeOp>([&](ReshapeOp r) -> std::optional<Dims> {
            // Reshapes keep the row dim (Sema resolves `-1` to the input's
            // rows), so a dynamic leading dim is the input's; at most one
            // other dim may be dynamic, and it is what the rest leaves.
            auto type = cast<RankedTensorType>(r.getType());
            const Dims &in = dimsOf(r.getInput());
            Dims d;
            int dynamicAt = -1;
            SmallVector<std::string> known;
            for (int64_t i = 0; i < type.getRank(); ++i) {
              if (!type.isDynamicDim(i))
                d.push_back(std::to_string(type.getDimSize(i)));
              else if (i == 0 && !in.empty())
                d.push_back(in[0]);
              else if (dynamicAt >= 0)
                return std::nullopt;
              else {
                dynamicAt = i;
                d.push_back("");
                continue;
              }
              known.push_back(d.back());
            }
            if (dynamicAt >= 0)
              d[dynamicAt] = "(" + numel(r.getInput()) + " / " +
                             product(known) + ")";
            return d;
          })
          .Case<ReduceOp>([&](ReduceOp r) {
            Dims d = dimsOf(r.getInput());
            d.erase(d.begin() + r.getAxis());
            return d;
          })
          .Case<UnbroadcastOp>([&](UnbroadcastOp u) {
            auto type = cast<RankedTensorType>(u.getType());
            const Dims &in = dimsOf(u.getInput());
            size_t offset = in.size() - type.getRank();
            Dims d;
            for (int64_t i = 0; i < type.getRank(); ++i)
              d.push_back(type.isDynamicDim(i)
                              ? in[offset + i]
                              : std::to_string(type.getDimSize(i)));
            return d;
          })
          .Case<AggregateGradOp, ScatterGradOp, ReduceGradOp>(
              [&](auto o) { return dimsOf(o.getInput()); })
          .Case<AggregateWeightGradOp>(
              [&](AggregateWeightGradOp o) { return dimsOf(o.getWeight()); })
          .Case<GatherGradOp>([&](GatherGradOp g) {
            return rows(nodes(g.getGraph(), g.getSide()), g.getGrad());
          })
          .Case<DstGradOp>([&](DstGradOp d) {
            return rows(nodes(d.getGraph(), EdgeSide::src), d.getGrad());
          })
          .Case<HaloExchangeOp>([&](HaloExchangeOp h) {
            return rows(nodes(h.getGraph(), EdgeSide::src), h.getInput());
          })
          .Case<HaloAggregateOp>([&](HaloAggregateOp h) {
            return rows(nodes(h.getGraph(), EdgeSide::dst), h.getInput());
          })
          .Case<HaloAggregateGradOp>([&](HaloAggregateGradOp h) {
            return rows(nodes(h.getGraph(), EdgeSide::dst), h.getGrad());
          })
          .Case<HaloExchangeGradOp>([&](HaloExchangeGradOp h) {
            return rows(nodes(h.getGraph(), EdgeSide::dst), h.getGrad());
          })
          .Case<SliceOp>([&](SliceOp s) {
            Dims d = dimsOf(s.getInput());
            d[s.getAxis()] = std::to_string(s.getSize());
            return d;
          })
          .Case<CrossEntropyGradOp>(
              [&](CrossEntropyGradOp c) { return dimsOf(c.getLogits()); })
          .Default([](Operation *) { return std::nullopt; });
  if (!computed)
    return op->emitOpError("is not supported by the C++ code generator");
  // A dim the type knows statically is a literal: better code, and a check.
  auto type = cast<RankedTensorType>(res.getType());
  if (int64_t(computed->size()) != type.getRank())
    return op->emitOpError("internal error: shape rule gives rank ")
           << computed->size() << " for " << type;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!type.isDynamicDim(i))
      (*computed)[i] = std::to_string(type.getDimSize(i));
  dims[res] = *computed;
  return success();
}

/// An elementwise op becomes one loop nest over the result; `$k` in
/// `expression` is operand k's element (broadcast operands index with
/// stride 0 along the dims they were stretched over).
void FunctionEmitter::emitElementwise(Value result, ArrayRef<Value> operands,
                                      StringRef expression) {
  SmallVector<FusedOperand> loopOperands;
  for (Value v : operands)
    loopOperands.push_back({name(v), dimsOf(v), ""});
  const Dims &out = dimsOf(result);
  FusedLoop loop;
  loop.rowEnd = out.empty() ? "1" : out[0];
  emitFusedLoop(out.empty() ? Dims{"1"} : out, loopOperands,
                name(result) + "[@] = " + expression.str() + ";", loop);
}

/// The C++ expression of an elementwise op, or "" if it is not one.
std::string elementwiseExpression(Operation *op) {
  auto alpha = [](std::optional<double> a) {
    return "T(" + cppDouble(a.value_or(0.0)) + ")";
  };
  return TypeSwitch<Operation *, std::string>(op)
      .Case<AddOp>([](auto) { return "$0 + $1"; })
      .Case<SubOp>([](auto) { return "$0 - $1"; })
      .Case<MulOp>([](auto) { return "$0 * $1"; })
      .Case<DivOp>([](auto) { return "$0 / $1"; })
      .Case<MaximumOp>([](auto) { return "std::max($0, $1)"; })
      .Case<NegOp>([](auto) { return "-$0"; })
      .Case<ExpOp>([](auto) { return "std::exp($0)"; })
      .Case<LogOp>([](auto) { return "std::log($0)"; })
      .Case<SqrtOp>([](auto) { return "std::sqrt($0)"; })
      .Case<RsqrtOp>([](auto) { return "T(1) / std::sqrt($0)"; })
      .Case<ReluOp>([](auto) { return "std::max($0, T(0))"; })
      .Case<SigmoidOp>([](auto) { return "T(1) / (T(1) + std::exp(-$0))"; })
      .Case<TanhOp>([](auto) { return "std::tanh($0)"; })
      .Case<AbsOp>([](auto) { return "std::abs($0)"; })
      .Case<LeakyReluOp>([&](LeakyReluOp o) {
        return "($0 > T(0) ? $0 : " + alpha(o.getAlpha().convertToDouble()) +
               " * $0)";
      })
      .Case<EluOp>([&](EluOp o) {
        return "($0 > T(0) ? $0 : " + alpha(o.getAlpha().convertToDouble()) +
               " * (std::exp($0) - T(1)))";
      })
      .Case<MaximumGradOp>([](MaximumGradOp o) {
        return std::string(o.getRhsSide() ? "($1 >= $2 ? T(0) : $0)"
                                          : "($1 >= $2 ? $0 : T(0))");
      })
      .Case<UnaryGradOp>([&](UnaryGradOp o) -> std::string {
        // $0 = incoming gradient, $1 = forward input, $2 = forward output.
        StringRef k = o.getKind();
        std::optional<double> a;
        if (o.getAlpha())
          a = o.getAlpha()->convertToDouble();
        if (k == "neg") return "-$0";
        if (k == "exp") return "$0 * $2";
        if (k == "log") return "$0 / $1";
        if (k == "sqrt") return "$0 * T(0.5) / $2";
        if (k == "rsqrt") return "$0 * T(-0.5) * $2 * $2 * $2";
        if (k == "relu") return "($1 > T(0) ? $0 : T(0))";
        if (k == "sigmoid") return "$0 * $2 * (T(1) - $2)";
        if (k == "tanh") return "$0 * (T(1) - $2 * $2)";
        if (k == "abs") return "($1 > T(0) ? $0 : ($1 < T(0) ? -$0 : T(0)))";
        if (k == "leaky_relu") return "($1 > T(0) ? $0 : " + alpha(a) + " * $0)";
        if (k == "elu") return "($1 > T(0) ? $0 : $0 * ($2 + " + alpha(a) + "))";
        return "";
      })
      .Default([](Operation *) { return ""; });
}

//===----------------------------------------------------------------------===//
// Fused ops: gnn.map, gnn.edge_map, gnn.matmul_map
//===----------------------------------------------------------------------===//

LogicalResult FunctionEmitter::computeFusedDims(Operation *op) {
  Dims d;
  if (auto map = dyn_cast<MapOp>(op)) {
    for (Value in : map.getInputs())
      d = broadcastDims(d, dimsOf(in));
  } else if (auto mm = dyn_cast<MatmulMapOp>(op)) {
    const Dims &a = dimsOf(mm.getLhs()), &b = dimsOf(mm.getRhs());
    d = Dims{mm.getTransposeLhs() ? a[1] : a[0],
             mm.getTransposeRhs() ? b[0] : b[1]};
  } else {
    auto em = cast<EdgeMapOp>(op);
    Dims featureDims;
    for (Value in : em.getInputs())
      featureDims = broadcastDims(featureDims, features(in));
    std::string g = graph(em.getGraph());
    d = Dims{g + (em.getReduce() ? ".numDst" : ".numEdges")};
    d.append(featureDims);
  }
  for (Value res : op->getResults()) {
    auto type = cast<RankedTensorType>(res.getType());
    if (int64_t(d.size()) != type.getRank())
      return op->emitOpError("internal error: fused shape has rank ")
             << d.size() << " for " << type;
    Dims typed = d;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (!type.isDynamicDim(i))
        typed[i] = std::to_string(type.getDimSize(i));
    dims[res] = typed;
  }
  return success();
}

/// One `const T vN = ...;` per body op, reading the block arguments as
/// `args`; returns the C++ names of the yielded values.
SmallVector<std::string>
FunctionEmitter::emitScalarBody(Block &body, ArrayRef<std::string> args,
                                std::string &code) {
  DenseMap<Value, std::string> scalar;
  for (auto [arg, text] : llvm::zip(body.getArguments(), args))
    scalar[arg] = text;
  int n = 0;
  for (Operation &op : body.without_terminator()) {
    std::string expr = elementwiseExpression(&op);
    for (int k = int(op.getNumOperands()) - 1; k >= 0; --k)
      expr = llvm::join(llvm::split(expr, "$" + std::to_string(k)),
                        scalar.lookup(op.getOperand(k)));
    std::string id = "v" + std::to_string(n++);
    code += "const T " + id + " = " + expr + ";\n";
    scalar[op.getResult(0)] = id;
  }
  SmallVector<std::string> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(scalar.lookup(v));
  return yielded;
}

/// A loop nest over `out`: rows, then the feature dims. In `body`, `$k` is
/// operand k's element and `@` the output element's flat index.
void FunctionEmitter::emitFusedLoop(const Dims &out,
                                    ArrayRef<FusedOperand> operands,
                                    StringRef body,
                                    const FusedLoop &loop) {
  std::string width = product(ArrayRef<std::string>(out).drop_front());
  auto substitute = [&](auto indexOf, StringRef outIndex) {
    std::string text = body.str();
    for (int k = int(operands.size()) - 1; k >= 0; --k)
      text = llvm::join(llvm::split(text, "$" + std::to_string(k)),
                        operands[k].dims.empty()
                            ? operands[k].buffer + "[0]"
                            : operands[k].buffer + "[" + indexOf(k) + "]");
    return llvm::join(llvm::split(text, "@"), outIndex);
  };
  auto indent = [](std::string text, size_t by) {
    std::string pad(by, ' '), result;
    if (text.empty())
      return result;
    for (StringRef line : llvm::split(StringRef(text).rtrim('\n'), '\n'))
      result += pad + line.str() + "\n";
    return result;
  };
  std::string rows = loop.rowBegin == "0"
                         ? loop.rowEnd
                         : "(" + loop.rowEnd + " - " + loop.rowBegin + ")";
  std::string work = product({rows, width});
  bool flat = loop.rowPrologue.empty() && loop.innerOpen.empty() &&
              llvm::all_of(operands, [&](const FusedOperand &o) {
                return o.row.empty() && (o.dims.empty() || o.dims == out);
              });
  if (flat) {
    if (loop.parallel)
      os << "#pragma omp parallel for simd if (" << work << " > 16384)\n";
    os << "for (int64_t i = " << product({loop.rowBegin, width})
       << "; i < " << product({loop.rowEnd, width}) << "; ++i) {\n"
       << indent(substitute([](int) { return std::string("i"); }, "i"), 2)
       << "}\n";
    return;
  }
  // Operand k's index: its row times its row width plus the numpy index of
  // the feature dims (dims stretched from 1 contribute nothing); an operand
  // without a row expression broadcasts over all dims, rows included.
  size_t rank = out.size();
  SmallVector<std::string> indices;
  for (const FusedOperand &o : operands) {
    const Dims &d = o.dims;
    size_t firstDim = o.row.empty() ? 0 : 1;
    SmallVector<std::string> terms;
    std::string stride = "1";
    for (size_t j = d.size(); j-- > firstDim;) {
      size_t outDim = j + rank - d.size();
      bool stretched = d[j] == "1" && out[outDim] != "1";
      if (!stretched)
        terms.push_back(stride == "1" ? "i" + std::to_string(outDim)
                                      : "i" + std::to_string(outDim) + " * " +
                                            stride);
      stride = product({stride, d[j]});
    }
    if (!o.row.empty())
      terms.push_back(stride == "1" ? o.row : o.row + " * " + stride);
    indices.push_back(terms.empty() ? "0" : llvm::join(terms, " + "));
  }
  std::string outIndex = "i0";
  for (size_t d = 1; d < rank; ++d)
    outIndex = "(" + outIndex + ") * " + out[d] + " + i" + std::to_string(d);
  if (loop.parallel)
    os << "#pragma omp parallel for schedule(dynamic, 64) if (" << work
       << " > 16384)\n";
  os << "for (int64_t i0 = " << loop.rowBegin << "; i0 < " << loop.rowEnd
     << "; ++i0) {\n";
  os << indent(loop.rowPrologue, 2);
  size_t depth = 2;
  if (!loop.innerOpen.empty()) {
    os << indent(loop.innerOpen, depth);
    depth += 2;
  }
  for (size_t d = 1; d < rank; ++d) {
    if (d + 1 == rank)
      os << std::string(depth, ' ') << "#pragma omp simd\n";
    os << std::string(depth, ' ') << "for (int64_t i" << d << " = 0; i" << d
       << " < " << out[d] << "; ++i" << d << ") {\n";
    depth += 2;
  }
  os << indent(substitute([&](int k) { return indices[k]; }, outIndex), depth);
  for (size_t d = 1; d < rank; ++d) {
    depth -= 2;
    os << std::string(depth, ' ') << "}\n";
  }
  if (!loop.innerOpen.empty()) {
    depth -= 2;
    os << indent(loop.innerClose, depth);
  }
  os << indent(loop.rowEpilogue, 2);
  os << "}\n";
}

void FunctionEmitter::emitFused(Operation *op) {
  Block &body = op->getRegion(0).front();
  SmallVector<Value> results(op->getResults());
  const Dims &out = dimsOf(results.front());
  // Arguments are loaded once per element, before any result is written:
  // a matmul_map's results overwrite its accumulator in place.
  std::string code;
  SmallVector<std::string> args;
  for (unsigned k = 0; k < body.getNumArguments(); ++k) {
    code += "const T a" + std::to_string(k) + " = $" + std::to_string(k) +
            ";\n";
    args.push_back("a" + std::to_string(k));
  }
  SmallVector<std::string> yielded = emitScalarBody(body, args, code);

  if (auto map = dyn_cast<MapOp>(op)) {
    for (auto [res, value] : llvm::zip(results, yielded))
      code += name(res) + "[@] = " + value + ";\n";
    SmallVector<FusedOperand> operands;
    for (Value in : map.getInputs())
      operands.push_back({name(in), dimsOf(in), ""});
    FusedLoop loop;
    loop.rowEnd = out[0];
    emitFusedLoop(out, operands, code, loop);
    return;
  }

  if (auto mm = dyn_cast<MatmulMapOp>(op)) {
    for (auto [res, value] : llvm::zip(results, yielded))
      code += name(res) + "[@] = " + value + ";\n";
    // The accumulator is the first result's buffer, which GEMM fills.
    SmallVector<FusedOperand> operands{{name(results.front()), out, ""}};
    for (Value in : mm.getEpilogueInputs())
      operands.push_back({name(in), dimsOf(in), ""});
    const Dims &a = dimsOf(mm.getLhs());
    os << llvm::formatv("kernels::gemm<T>({0}, {1}, {2}, {3}, {4}, {5}, {6}, "
                        "{7}, false, [&](int64_t r0, int64_t r1) {{\n",
                        mm.getTransposeLhs() ? "true" : "false",
                        mm.getTransposeRhs() ? "true" : "false", out[0], out[1],
                        mm.getTransposeLhs() ? a[0] : a[1], name(mm.getLhs()),
                        name(mm.getRhs()), name(results.front()));
    os.indent();
    FusedLoop loop;
    loop.rowBegin = "r0";
    loop.rowEnd = "r1";
    loop.parallel = false; // each row block is already one thread's
    emitFusedLoop(out, operands, code, loop);
    os.unindent();
    os << "});\n";
    return;
  }

  auto em = cast<EdgeMapOp>(op);
  std::string g = graph(em.getGraph());
  SmallVector<FusedOperand> operands;
  for (auto [in, side] : llvm::zip(em.getInputs(), em.getSides())) {
    StringRef s = cast<StringAttr>(side).getValue();
    operands.push_back(
        {name(in), dimsOf(in), s == "src" ? "u" : (s == "dst" ? "v" : "e")});
  }
  FusedLoop loop;
  loop.rowEnd = out[0];
  if (!em.getReduce()) {
    // One row per edge, in edge-id order.
    for (auto [res, value] : llvm::zip(results, yielded))
      code += name(res) + "[@] = " + value + ";\n";
    loop.rowPrologue = "const int64_t e = i0, u = " + g + ".edgeSrc[e], v = " +
                       g + ".edgeDst[e];\n(void)u;\n(void)v;\n";
    emitFusedLoop(out, operands, code, loop);
    return;
  }
  // A row per destination: reduce over its in-edges, never storing the
  // per-edge values.
  ReduceKind kind = *em.getReduce();
  std::string res = name(results.front());
  std::string width = product(ArrayRef<std::string>(out).drop_front());
  std::string row = "(" + res + " + i0 * " + width + ")";
  const char *identity =
      kind == ReduceKind::max   ? "-std::numeric_limits<T>::infinity()"
      : kind == ReduceKind::min ? "std::numeric_limits<T>::infinity()"
                                : "T(0)";
  std::string combine =
      kind == ReduceKind::max   ? "std::max(" + res + "[@], " + yielded[0] + ")"
      : kind == ReduceKind::min ? "std::min(" + res + "[@], " + yielded[0] + ")"
                                : res + "[@] + " + yielded[0];
  code += res + "[@] = " + combine + ";\n";
  loop.rowPrologue = "const int64_t v = i0;\n(void)v;\nstd::fill(" + row +
                     ", " + row + " + " + width + ", " + identity + ");\n";
  loop.innerOpen = "for (int64_t e = " + g + ".inOffsets[i0]; e < " + g +
                   ".inOffsets[i0 + 1]; ++e) {\n  const int64_t u = " + g +
                   ".edgeSrc[e];\n  (void)u;";
  loop.innerClose = "}";
  std::string degree = "(" + g + ".inOffsets[i0 + 1] - " + g +
                       ".inOffsets[i0])";
  if (kind == ReduceKind::mean)
    loop.rowEpilogue = "if (" + degree + " > 0)\n  for (int64_t j = 0; j < " +
                       width + "; ++j)\n    " + row + "[j] /= T(" + degree +
                       ");\n";
  else if (kind != ReduceKind::sum)
    loop.rowEpilogue = "if (" + degree + " == 0)\n  std::fill(" + row + ", " +
                       row + " + " + width + ", T(0));\n";
  emitFusedLoop(out, operands, code, loop);
}

/// Names `res` after the source variable of `loc`, unique in the function.
void FunctionEmitter::nameResult(Value res, Location loc) {
  std::string base = identifierFrom(sourceName(loc));
  if (base == "v_")
    base = "t";
  std::string id = base;
  for (int n = 1; !usedNames.insert(id).second; ++n)
    id = base + "_" + std::to_string(n);
  names[res] = id;
}

LogicalResult FunctionEmitter::emitOp(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    Value v = ret.getOperand(0);
    if (!training)
      returnedWidth = width(v);
    os << "ctx.unplannedBytes = int64_t(sizeof(T)) * ("
       << (unplannedElements.empty() ? "0" : llvm::join(unplannedElements,
                                                        " + "))
       << ");\n";
    if (training) {
      os << "return " << name(v) << "[0];\n";
    } else {
      os << "std::copy(" << name(v) << ", " << name(v) << " + " << numel(v)
         << ", ctx.output);\n";
    }
    return success();
  }
  if (std::string location = describeLocation(op->getLoc());
      !location.empty())
    os << "// " << location << "\n";

  if (auto pg = dyn_cast<ParamGradOp>(op)) {
    Value g = pg.getGrad();
    unsigned p = params.index.lookup(pg.getName());
    os << "{\n  T *grad = ctx.grads[" << p << "]; // "
       << pg.getName().drop_front(pg.getName().find('.') + 1) << "\n";
    os << "  #pragma omp parallel for simd if (" << numel(g) << " > 16384)\n";
    os << "  for (int64_t i = 0; i < " << numel(g) << "; ++i)\n";
    os << "    grad[i] += " << name(g) << "[i];\n}\n";
    return success();
  }
  if (isa<MapOp, EdgeMapOp, MatmulMapOp>(op)) {
    if (failed(computeDims(op)))
      return failure();
    // Each result is named after the source variable it computes.
    Block &body = op->getRegion(0).front();
    for (auto [res, yielded] :
         llvm::zip(op->getResults(), body.getTerminator()->getOperands())) {
      Operation *def = yielded.getDefiningOp();
      nameResult(res, def ? def->getLoc() : op->getLoc());
      os << "T *" << name(res) << " = ws.get(" << plan->slot(res) << ", "
         << numel(res) << ");\n";
      unplannedElements.push_back(numel(res));
    }
    emitFused(op);
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitOpError("is not supported by the C++ code generator");
  Value res = op->getResult(0);
  if (isa<GraphType>(res.getType())) {
    if (!isa<BlockOp>(op))
      return op->emitOpError("(heterogeneous relations) is not supported by "
                             "the C++ code generator yet");
    // Sampled training reads the batch's block of the layer; full-graph
    // training has one graph for every layer.
    graphs[res] = sampled() ? "ctx.blocks[" +
                                  std::to_string(cast<BlockOp>(op).getLayer()) +
                                  "]"
                            : graph(op->getOperand(0));
    return success();
  }
  if (failed(computeDims(op)))
    return failure();

  if (auto p = dyn_cast<ParamOp>(op)) // @GCN.c1.w -> c1_w
    nameResult(res, NameLoc::get(StringAttr::get(
                        op->getContext(),
                        p.getName().drop_until([](char c) { return c == '.'; })
                            .drop_front())));
  else
    nameResult(res, op->getLoc());
  std::string id = name(res);

  switch (plan->storage(res)) {
  case Storage::External: {
    auto p = cast<ParamOp>(op);
    os << "const T *" << id << " = ctx.params[" << params.index.lookup(p.getName())
       << "];\n";
    return success();
  }
  case Storage::View:
    os << "const T *" << id << " = " << name(aliasOf(res)) << "; // view\n";
    return success();
  case Storage::Scalar:
    if (auto c = dyn_cast<ConstantOp>(op)) {
      os << "const T " << id << "[1] = {T(" << cppDouble(c.getValue().convertToDouble())
         << ")};\n";
      return success();
    }
    {
      auto ce = cast<CrossEntropyOp>(op);
      const Dims &l = dimsOf(ce.getLogits());
      // lossScale makes the rank's mean a share of the global mean.
      os << "const T " << id << "[1] = {kernels::crossEntropy<T>(" << l[0]
         << ", " << l[1] << ", " << name(ce.getLogits()) << ", " << labels
         << ", " << (ce.getMask() ? mask : "nullptr")
         << ") * T(ctx.lossScale)};\n";
    }
    return success();
  case Storage::Slot:
    break;
  }
  os << "T *" << id << " = ws.get(" << plan->slot(res) << ", " << numel(res)
     << ");\n";
  unplannedElements.push_back(numel(res));

  if (std::string expr = elementwiseExpression(op); !expr.empty()) {
    emitElementwise(res, SmallVector<Value>(op->getOperands()), expr);
    return success();
  }
  std::string call = kernelCall(op);
  if (call.empty())
    return op->emitOpError("is not supported by the C++ code generator");
  os << call;
  return success();
}

/// Kernel calls (and the few inline copies) of the non-elementwise ops.
std::string FunctionEmitter::kernelCall(Operation *op) {
  Value res = op->getResult(0);
  std::string out = name(res);
  auto weightWidth = [&](Value w) {
    return w ? product(features(w)) : std::string("1");
  };
  auto axisView = [&](Value v, uint64_t axis) {
    const Dims &d = dimsOf(v);
    return product(ArrayRef<std::string>(d).take_front(axis)) + ", " +
           d[axis] + ", " + product(ArrayRef<std::string>(d).drop_front(axis + 1));
  };
  return TypeSwitch<Operation *, std::string>(op)
      .Case<MatmulOp>([&](MatmulOp m) {
        const Dims &a = dimsOf(m.getLhs());
        std::string k = m.getTransposeLhs() ? a[0] : a[1];
        const Dims &d = dimsOf(res);
        return llvm::formatv("kernels::gemm<T>({0}, {1}, {2}, {3}, {4}, {5}, "
                             "{6}, {7});\n",
                             m.getTransposeLhs() ? "true" : "false",
                             m.getTransposeRhs() ? "true" : "false", d[0],
                             d[1], k, name(m.getLhs()), name(m.getRhs()), out)
            .str();
      })
      .Case<AggregateOp>([&](AggregateOp a) {
        return llvm::formatv("kernels::aggregate<T>({0}, {1}, {2}, {3}, {4}, "
                             "{5}, {6}, {7});\n",
                             graph(a.getGraph()), reduceName(a.getReduce()),
                             a.getSelfLoops() ? "true" : "false",
                             name(a.getInput()), width(a.getInput()),
                             ptrOrNull(a.getWeight()),
                             weightWidth(a.getWeight()), out)
            .str();
      })
      .Case<AggregateGradOp, AggregateWeightGradOp>([&](auto a) {
        bool input = isa<AggregateGradOp>(op);
        return llvm::formatv(
                   "kernels::{0}<T>({1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, "
                   "{9}, {10});\n",
                   input ? "aggregateGradInput" : "aggregateGradWeight",
                   graph(a.getGraph()), reduceName(a.getReduce()),
                   a.getSelfLoops() ? "true" : "false", name(a.getGrad()),
                   name(a.getInput()), name(a.getOutput()),
                   width(a.getInput()), ptrOrNull(a.getWeight()),
                   weightWidth(a.getWeight()), out)
            .str();
      })
      .Case<GatherOp>([&](GatherOp g) {
        return llvm::formatv("kernels::gather<T>({0}, {1}, {2}, {3}, {4});\n",
                             graph(g.getGraph()), sideName(g.getSide()),
                             name(g.getInput()), width(g.getInput()), out)
            .str();
      })
      .Case<GatherGradOp>([&](GatherGradOp g) {
        return llvm::formatv(
                   "kernels::gatherGrad<T>({0}, {1}, {2}, {3}, {4});\n",
                   graph(g.getGraph()), sideName(g.getSide()),
                   name(g.getGrad()), width(g.getGrad()), out)
            .str();
      })
      .Case<ScatterOp>([&](ScatterOp s) {
        return llvm::formatv("kernels::scatter<T>({0}, {1}, {2}, {3}, {4});\n",
                             graph(s.getGraph()), reduceName(s.getReduce()),
                             name(s.getInput()), width(s.getInput()), out)
            .str();
      })
      .Case<ScatterGradOp>([&](ScatterGradOp s) {
        return llvm::formatv(
                   "kernels::scatterGrad<T>({0}, {1}, {2}, {3}, {4}, {5}, "
                   "{6});\n",
                   graph(s.getGraph()), reduceName(s.getReduce()),
                   name(s.getGrad()), name(s.getInput()), name(s.getOutput()),
                   width(s.getInput()), out)
            .str();
      })
      .Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) {
        return llvm::formatv("kernels::edgeSoftmax<T>({0}, {1}, {2}, {3});\n",
                             graph(s.getGraph()), name(s.getScores()),
                             width(s.getScores()), out)
            .str();
      })
      .Case<EdgeSoftmaxGradOp>([&](EdgeSoftmaxGradOp s) {
        return llvm::formatv(
                   "kernels::edgeSoftmaxGrad<T>({0}, {1}, {2}, {3}, {4});\n",
                   graph(s.getGraph()), name(s.getGrad()),
                   name(s.getOutput()), width(s.getOutput()), out)
            .str();
      })
      .Case<DegreeOp>([&](DegreeOp d) {
        // A partition sees only its own edges: distributed runs pass the
        // global degrees.
        const char *given =
            d.getSide() == EdgeSide::src ? "ctx.srcDegree" : "ctx.dstDegree";
        return llvm::formatv("if ({0})\n  std::copy({0}, {0} + {1}, {2});\n"
                             "else\n  kernels::degree<T>({3}, {4}, {2});\n",
                             given, numel(res), out, graph(d.getGraph()),
                             sideName(d.getSide()))
            .str();
      })
      .Case<HaloExchangeOp>([&](HaloExchangeOp h) {
        std::string owned = product(
            {graph(h.getGraph()) + ".numDst", width(h.getInput())});
        return llvm::formatv("std::copy({0}, {0} + {1}, {2});\n"
                             "if (ctx.halo)\n  ctx.halo->forward({2}, {3});\n",
                             name(h.getInput()), owned, out,
                             width(h.getInput()))
            .str();
      })
      .Case<HaloAggregateOp>([&](HaloAggregateOp h) {
        // In a single process the sources are the destinations.
        return llvm::formatv(
                   "if (ctx.halo)\n"
                   "  ctx.halo->aggregate({0}, {1}, {2}, {3}, {4}, {6});\n"
                   "else\n"
                   "  kernels::aggregate<T>({5}, {0}, {1}, {2}, {3}, nullptr, "
                   "1, {4});\n",
                   reduceName(h.getReduce()),
                   h.getSelfLoops() ? "true" : "false", name(h.getInput()),
                   width(h.getInput()), out, graph(h.getGraph()),
                   haloModeName(h.getMode()))
            .str();
      })
      .Case<HaloAggregateGradOp>([&](HaloAggregateGradOp h) {
        return llvm::formatv(
                   "if (ctx.halo)\n"
                   "  ctx.halo->aggregateGrad({0}, {1}, {2}, {3}, {4}, {6});\n"
                   "else\n"
                   "  kernels::aggregateGradInput<T>({5}, {0}, {1}, {2}, "
                   "nullptr, nullptr, {3}, nullptr, 1, {4});\n",
                   reduceName(h.getReduce()),
                   h.getSelfLoops() ? "true" : "false", name(h.getGrad()),
                   width(h.getGrad()), out, graph(h.getGraph()),
                   haloModeName(h.getMode()))
            .str();
      })
      .Case<HaloExchangeGradOp>([&](HaloExchangeGradOp h) {
        std::string owned =
            product({graph(h.getGraph()) + ".numDst", width(h.getGrad())});
        return llvm::formatv(
                   "std::copy({0}, {0} + {1}, {2});\n"
                   "if (ctx.halo)\n  ctx.halo->backward({0}, {3}, {2});\n",
                   name(h.getGrad()), owned, out, width(h.getGrad()))
            .str();
      })
      .Case<SoftmaxOp, LogSoftmaxOp>([&](auto s) {
        return llvm::formatv("kernels::{0}<T>({1}, {2}, {3});\n",
                             isa<SoftmaxOp>(op) ? "softmax" : "logSoftmax",
                             axisView(s.getInput(), s.getAxis()),
                             name(s.getInput()), out)
            .str();
      })
      .Case<SoftmaxGradOp, LogSoftmaxGradOp>([&](auto s) {
        return llvm::formatv("kernels::{0}<T>({1}, {2}, {3}, {4});\n",
                             isa<SoftmaxGradOp>(op) ? "softmaxGrad"
                                                    : "logSoftmaxGrad",
                             axisView(s.getOutput(), s.getAxis()),
                             name(s.getGrad()), name(s.getOutput()), out)
            .str();
      })
      .Case<ReduceOp>([&](ReduceOp r) {
        return llvm::formatv("kernels::reduceAxis<T>({0}, {1}, {2}, {3});\n",
                             reduceName(r.getKind()),
                             axisView(r.getInput(), r.getAxis()),
                             name(r.getInput()), out)
            .str();
      })
      .Case<ReduceGradOp>([&](ReduceGradOp r) {
        return llvm::formatv(
                   "kernels::reduceAxisGrad<T>({0}, {1}, {2}, {3}, {4}, "
                   "{5});\n",
                   reduceName(r.getKind()), axisView(r.getInput(), r.getAxis()),
                   name(r.getGrad()), name(r.getInput()), name(r.getOutput()),
                   out)
            .str();
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        std::string code;
        const Dims &d = dimsOf(res);
        uint64_t axis = c.getAxis();
        std::string outer = product(ArrayRef<std::string>(d).take_front(axis));
        std::string inner =
            product(ArrayRef<std::string>(d).drop_front(axis + 1));
        std::string offset = "0";
        for (Value in : c.getInputs()) {
          code += llvm::formatv("kernels::copyIntoAxis<T>({0}, {1}, {2}, {3}, "
                                "{4}, {5}, {6});\n",
                                outer, dimsOf(in)[axis], inner, name(in),
                                d[axis], offset, out)
                      .str();
          offset = offset == "0" ? dimsOf(in)[axis]
                                 : offset + " + " + dimsOf(in)[axis];
        }
        return code;
      })
      .Case<SliceOp>([&](SliceOp s) {
        const Dims &d = dimsOf(s.getInput());
        uint64_t axis = s.getAxis();
        return llvm::formatv(
                   "kernels::sliceAxis<T>({0}, {1}, {2}, {3}, {4}, {5}, "
                   "{6});\n",
                   product(ArrayRef<std::string>(d).take_front(axis)), d[axis],
                   product(ArrayRef<std::string>(d).drop_front(axis + 1)),
                   name(s.getInput()), s.getOffset(), s.getSize(), out)
            .str();
      })
      .Case<UnbroadcastOp>([&](UnbroadcastOp u) {
        const Dims &in = dimsOf(u.getInput()), &d = dimsOf(res);
        return llvm::formatv(
                   "{\n  const int64_t from[] = {{{0}}, to[] = {{{1}};\n"
                   "  kernels::unbroadcast<T>({2}, from, {3}, {4}, to, {5});\n"
                   "}\n",
                   llvm::join(in, ", "), d.empty() ? "1" : llvm::join(d, ", "),
                   name(u.getInput()), in.size(), out, d.size())
            .str();
      })
      .Case<DropoutOp>([&](DropoutOp d) {
        // The step and the op's stream select the mask (see gnn.dropout).
        // Node and edge rows use the whole graph's ids, so a partitioned
        // run draws the same masks as a single process.
        const Dims &in = dimsOf(d.getInput());
        StringRef rows = in.empty() ? StringRef() : StringRef(in[0]);
        const char *ids = rows.ends_with(".numEdges") ? "ctx.edgeIds"
                          : rows.ends_with(".numSrc") ||
                                  rows.ends_with(".numDst")
                              ? "ctx.nodeIds"
                              : nullptr;
        edgeIdsRead |= rows.ends_with(".numEdges");
        if (ids)
          return llvm::formatv(
                     "kernels::dropoutRows<T>(ctx.seed, (ctx.step << 16) + "
                     "{0}, {1}, {2}, {3}, {6}, {4}, {5});\n",
                     d.getStream().value_or(0),
                     cppDouble(d.getP().convertToDouble()), in[0],
                     width(d.getInput()), name(d.getInput()), out, ids)
              .str();
        return llvm::formatv(
                   "kernels::dropout<T>(ctx.seed, (ctx.step << 16) + {0}, {1}, "
                   "{2}, {3}, {4});\n",
                   d.getStream().value_or(0), cppDouble(d.getP().convertToDouble()),
                   numel(res), name(d.getInput()), out)
            .str();
      })
      .Case<DstGradOp>([&](DstGradOp d) {
        std::string dstElems =
            product({graph(d.getGraph()) + ".numDst", width(d.getGrad())});
        return llvm::formatv("std::copy({0}, {0} + {1}, {2});\n"
                             "std::fill({2} + {1}, {2} + {3}, T(0));\n",
                             name(d.getGrad()), dstElems, out, numel(res))
            .str();
      })
      .Case<CrossEntropyGradOp>([&](CrossEntropyGradOp c) {
        const Dims &l = dimsOf(c.getLogits());
        return llvm::formatv("kernels::crossEntropyGrad<T>({0}, {1}, {2}, "
                             "{3}, {4}, {5}[0] * T(ctx.lossScale), {6});\n",
                             l[0], l[1], name(c.getLogits()), labels,
                             c.getMask() ? mask : "nullptr", name(c.getGrad()),
                             out)
            .str();
      })
      .Default([](Operation *) { return ""; });
}

LogicalResult FunctionEmitter::emit(StringRef cppName) {
  Block &body = func.getBody().front();
  plan.emplace(
      body, [&](Value v) { return storageOf(v); },
      [&](Value v) { return aliasOf(v); });

  os << "template <typename T>\n"
     << (training ? "T " : "void ") << cppName
     << "(ExecContext<T> &ctx) {\n";
  os.indent();
  os << "Workspace<T> &ws = *ctx.workspace;\n";
  os << "const int64_t features = ctx.numFeatures, classes = "
        "ctx.numClasses;\n";
  os << "(void)features;\n(void)classes;\n";
  // Arguments: the graph, the features and, in a train step, labels and
  // the loss mask.
  graphs[body.getArgument(0)] = "g";
  os << "const GraphView &g = ctx.graph;\n";
  names[body.getArgument(1)] = "x";
  // A rank's (or the whole graph's) nodes, or a batch's input nodes.
  dims[body.getArgument(1)] =
      Dims{sampled() ? "ctx.blocks[0].numSrc" : "g.numDst", "features"};
  os << "const T *x = ctx.features;\n";
  // Names the generated code itself uses, and C++ keywords a .gnn variable
  // could be called.
  for (const char *reserved :
       {"g", "x", "ws", "ctx", "features", "classes", "i", "labels", "mask",
        "grad", "from", "to", "T", "int", "double", "float", "new", "delete",
        "class", "return", "default", "auto", "char", "long", "this"})
    usedNames.insert(reserved);
  // Loop variables and element temporaries of fused loops.
  for (const char *reserved : {"u", "v", "e", "j", "r0", "r1"})
    usedNames.insert(reserved);
  for (int k = 0; k < 64; ++k)
    for (const char *prefix : {"a", "v", "i"})
      usedNames.insert(prefix + std::to_string(k));
  labels = "ctx.labels";
  mask = "ctx.lossMask";

  for (Operation &op : body) {
    if (failed(emitOp(&op)))
      return failure();
  }
  os.unindent();
  os << "}\n\n";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// The translation unit
//===----------------------------------------------------------------------===//

namespace {

const char *initName(InitKind kind) {
  switch (kind) {
  case InitKind::zeros: return "Init::Zeros";
  case InitKind::ones: return "Init::Ones";
  case InitKind::glorot: return "Init::Glorot";
  case InitKind::kaiming: return "Init::Kaiming";
  case InitKind::uniform: return "Init::Uniform";
  case InitKind::normal: return "Init::Normal";
  case InitKind::constant: return "Init::Constant";
  }
  return "Init::Glorot";
}

} // namespace

LogicalResult gnn::cpp::emitCpp(ModuleOp module, llvm::raw_ostream &out,
                                const EmitOptions &options) {
  ParameterTable params;
  if (failed(params.build(module)))
    return failure();
  func::FuncOp forward, step;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!forward && f.getSymName().endswith(".forward"))
      forward = f;
  }
  if (!forward)
    return module.emitError("no model to compile: the program has no train "
                            "block");
  std::string model =
      forward.getSymName().drop_back(StringRef(".forward").size()).str();
  step = module.lookupSymbol<func::FuncOp>(model + ".train_step");
  if (!step)
    return forward.emitError("internal error: no train step for ") << model;
  std::string cppModel = identifierFrom(model);

  raw_indented_ostream os(out);
  os << "// Generated by gnnc from " << options.sourceFile
     << ": the trainer of model " << model << ".\n"
     << "// Do not edit: regenerate with `gnnc --emit=cpp`.\n\n"
     << "#include \"gnnrt/kernels/Kernels.h\"\n"
     << "#include \"gnnrt/train/Program.h\"\n\n"
     << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <limits>\n\n"
     << "using namespace gnnrt;\n\n"
     << "namespace {\n\n";

  // Parameters, in ExecContext::params order.
  os << "std::vector<ParamInfo> " << cppModel
     << "_params(const DataDims &data) {\n";
  os.indent();
  os << "const int64_t features = data.features, classes = data.classes;\n"
     << "(void)features;\n(void)classes;\n"
     << "return {\n";
  for (ParameterOp p : params.params) {
    StringRef sym = p.getSymName();
    std::string shortName = sym.drop_front(model.size() + 1).str();
    SmallVector<std::string> args;
    if (auto a = p.getInitArgs())
      for (Attribute v : *a)
        args.push_back(cppDouble(cast<FloatAttr>(v).getValueAsDouble()));
    os << "    {" << cppString(shortName) << ", {"
       << llvm::join(params.dims.lookup(sym), ", ") << "}, "
       << initName(p.getInit()) << ", {" << llvm::join(args, ", ") << "}},\n";
  }
  os << "};\n";
  os.unindent();
  os << "}\n\n";

  FunctionEmitter forwardEmitter(forward, /*training=*/false, params, os);
  FunctionEmitter stepEmitter(step, /*training=*/true, params, os);
  if (failed(forwardEmitter.emit(cppModel + "_forward")) ||
      failed(stepEmitter.emit(cppModel + "_train_step")))
    return failure();
  const bool usesEdgeIds = stepEmitter.readsEdgeIds();
  int64_t numBlocks = 0;
  if (auto blocks = forward->getAttrOfType<IntegerAttr>("gnn.blocks"))
    numBlocks = blocks.getInt();
  // The logits' width, which the trainer checks against the class count.
  os << "int64_t " << cppModel
     << "_output_columns(const DataDims &data) {\n";
  os << "  const int64_t features = data.features, classes = data.classes;\n"
     << "  (void)features;\n  (void)classes;\n"
     << "  // A width can mention row counts (a reshape's); one row will do.\n"
     << "  struct OneRow { int64_t numSrc = 1, numDst = 1, numEdges = 1; };\n"
     << "  const OneRow g{};\n"
     << "  const struct { OneRow blocks[" << std::max<int64_t>(1, numBlocks)
     << "]; } ctx{};\n"
     << "  (void)g;\n  (void)ctx;\n"
     << "  return " << forwardEmitter.outputWidth() << ";\n}\n\n";
  os << "} // namespace\n\n";
  os << "int main(int argc, char **argv) {\n";
  os.indent();
  os << "CompiledProgram program;\n";
  os << "program.model = " << cppString(model) << ";\n";
  os << "program.sourceFile = " << cppString(options.sourceFile) << ";\n";
  emitTrainSettings(os, forward->getAttrOfType<DictionaryAttr>("gnn.train"));
  os << "program.params = &" << cppModel << "_params;\n";
  // Dropout on edges keys its masks by the whole graph's edge ids.
  if (usesEdgeIds)
    os << "program.needsEdgeIds = true;\n";
  os << "program.outputColumns = &" << cppModel << "_output_columns;\n";
  if (numBlocks > 0)
    os << "program.numBlocks = " << numBlocks << ";\n";
  os << "program.forwardF32 = &" << cppModel << "_forward<float>;\n";
  os << "program.trainStepF32 = &" << cppModel << "_train_step<float>;\n";
  os << "program.forwardF64 = &" << cppModel << "_forward<double>;\n";
  os << "program.trainStepF64 = &" << cppModel << "_train_step<double>;\n";
  os << "return trainMain(argc, argv, program);\n";
  os.unindent();
  os << "}\n";
  return success();
}
