//===- ShapeRules.h - each op's result shape, written once ------*- C++ -*-===//
//
// The result-shape rule of every gnn op that has one, written once as a
// template over a *dim domain*, and everything that needs a shape derives it
// from here:
//   - the verifiers (StaticDims, reporting; the ResultShapeRule trait every
//     gnn op carries): the rule's checks are the op's shape errors, and each
//     result type must be compatible with the shape the rule computes;
//   - gnn-infer-shapes (StaticDims, silent, over the types refined so far):
//     the dynamic result dims the rule determines become static;
//   - the C++ and CUDA targets (Target/Common/ShapeRules.cpp): every dim as
//     a C++ expression (`g.numDst`, `features`, `(features / 4)`).
// Sema's symbolic rules (lang/lib/sema/SemaBuiltins.cpp) are the language's
// and stay there: docs/architecture.md, "Shape rules", says why.
//
// A dim domain D provides:
//   Dim, Dims                          a dim and a shape (SmallVector<Dim>)
//   Dims dims(Value)                   an operand's dims
//   Dim constant(int64_t)              a literal size
//   Dim rows(Value graph, GraphRows)   a graph's source, destination or edge
//                                      count
//   Dim relations()                    the dataset's relation count
//   Dim product(ArrayRef<Dim>), sum(ArrayRef<Dim>)
//   Dim quotient(Dim, Dim)             an exact quotient
//   std::optional<Dim> unknown()       a dim no rule determines, if the
//                                      domain has one (`?`)
//   std::optional<Dims> broadcast(const Dims &, const Dims &)   numpy's
//   std::optional<Dims> parameter(ParamOp)   a parameter's declared dims
//   bool check(bool holds, Explain)    an invariant of the operands
//   bool same(Dim, Dim, Explain)       two dims that must be equal
//   std::optional<Dim> unify(Dim, Dim, Explain)  the better known of two
//                                      dims that must be equal
//   FailureOr<Dims> result(Dims, ExplainResult)  the rule's shape, checked
//                                      against the op's result types
//   std::string show(...)              a dim or shape as messages print it
// An Explain is a generic lambda `(auto &diag)` that streams the error; an
// ExplainResult also gets the index of the first disagreeing dim (-1 for a
// rank), the result's declared shape and the rule's. Only a reporting domain
// calls them, so each message sits next to the check it explains.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_DIALECT_GNN_SHAPERULES_H
#define GNN_DIALECT_GNN_SHAPERULES_H

#include "gnn/Dialect/GNN/GNNOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <optional>

namespace gnn::shape {

namespace detail {

template <class D> using DimsOf = typename D::Dims;

inline int64_t resultRank(mlir::Operation *op) {
  return mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType())
      .getRank();
}

/// The default message for a result that disagrees with its rule.
template <class D> auto resultMismatch(D &d) {
  return [&d](auto &diag, int64_t, const auto &actual, const auto &expected) {
    diag << "expects result shape " << d.show(actual) << " to match "
         << d.show(expected);
  };
}

template <class D> DimsOf<D> featuresOf(D &d, mlir::Value v) {
  DimsOf<D> in = d.dims(v);
  return in.empty() ? DimsOf<D>() : DimsOf<D>(in.begin() + 1, in.end());
}

inline GraphRows nodesOf(EdgeSide side) {
  return side == EdgeSide::src ? GraphRows::SrcNodes : GraphRows::DstNodes;
}

/// `rows` rows of `v`'s feature dims: [rows, F...].
template <class D> DimsOf<D> rowsOf(D &d, typename D::Dim rows, mlir::Value v) {
  DimsOf<D> out{rows};
  out.append(featuresOf(d, v));
  return out;
}

/// A graph op that moves rows between a graph's node and edge sets and
/// keeps the feature dims (gather, scatter, aggregate, dst, halo ops):
/// [N, F...] -> [rows, F...].
template <class D, class Op> mlir::FailureOr<DimsOf<D>> rowMap(D &d, Op op) {
  DimsOf<D> in = d.dims(op.getInput());
  if (!d.check(!in.empty(), [&](auto &diag) {
        diag << "expects an input of rank >= 1, got rank 0";
      }))
    return mlir::failure();
  auto graph = mlir::cast<GraphOpInterface>(op.getOperation());
  return d.result(
      rowsOf(d, d.rows(graph.getGraphOperand().get(), op.getResultRows()),
             op.getInput()),
      [&](auto &diag, int64_t i, const auto &actual, const auto &expected) {
        if (i < 0)
          diag << "expects result rank " << actual.size()
               << " to match input rank " << expected.size();
        else
          diag << "expects feature dim " << i << " of the result ("
               << d.show(actual[i]) << ") to match the input ("
               << d.show(expected[i]) << ")";
      });
}

/// [M, K] x [K, N] -> [M, N] after the optional transposes.
template <class D>
mlir::FailureOr<DimsOf<D>> matmul(D &d, mlir::Operation *op, mlir::Value lhs,
                                  mlir::Value rhs, bool transposeLhs,
                                  bool transposeRhs) {
  DimsOf<D> a = d.dims(lhs), b = d.dims(rhs);
  int64_t rank = resultRank(op);
  if (!d.check(a.size() == 2 && b.size() == 2 && rank == 2, [&](auto &diag) {
        diag << "expects 2-D operands and result, got ranks " << a.size()
             << ", " << b.size() << " -> " << rank;
      }))
    return mlir::failure();
  auto lhsK = a[transposeLhs ? 0 : 1], rhsK = b[transposeRhs ? 1 : 0];
  if (!d.same(lhsK, rhsK, [&](auto &diag) {
        diag << "expects contraction dims to match, got " << d.show(lhsK)
             << " and " << d.show(rhsK);
      }))
    return mlir::failure();
  return d.result(DimsOf<D>{a[transposeLhs ? 1 : 0], b[transposeRhs ? 0 : 1]},
                  resultMismatch(d));
}

/// [R, B, I, O] -> [R, B*I, B*O]: the block-diagonal matrices of blocks.
template <class D> DimsOf<D> blockDiagonalOf(D &d, const DimsOf<D> &q) {
  return DimsOf<D>{q[0], d.product({q[1], q[2]}), d.product({q[1], q[3]})};
}

template <class D> mlir::FailureOr<DimsOf<D>> concat(D &d, ConcatOp op) {
  auto inputs = op.getInputs();
  int64_t rank = resultRank(op);
  uint64_t axis = op.getAxis();
  if (!d.check(!inputs.empty(),
               [&](auto &diag) { diag << "expects at least one input"; }) ||
      !d.check(axis < static_cast<uint64_t>(rank), [&](auto &diag) {
        diag << "expects axis " << axis << " to be in [0, " << rank << ")";
      }))
    return mlir::failure();
  DimsOf<D> out;
  llvm::SmallVector<typename D::Dim> along;
  for (auto [i, value] : llvm::enumerate(inputs)) {
    DimsOf<D> in = d.dims(value);
    if (!d.check(static_cast<int64_t>(in.size()) == rank, [&](auto &diag) {
          diag << "expects input " << i << " of rank " << in.size()
               << " to match result rank " << rank;
        }))
      return mlir::failure();
    along.push_back(in[axis]);
    if (i == 0) {
      out = in;
      continue;
    }
    // All other dims agree; the first input that knows one gives it.
    for (int64_t k = 0; k < rank; ++k) {
      if (k == static_cast<int64_t>(axis))
        continue;
      auto known = d.unify(out[k], in[k], [&](auto &diag) {
        diag << "expects dim " << k << " of input " << i << " ("
             << d.show(in[k]) << ") to match the inputs before it ("
             << d.show(out[k]) << ")";
      });
      if (!known)
        return mlir::failure();
      out[k] = *known;
    }
  }
  out[axis] = d.sum(along);
  return d.result(out, [&](auto &diag, int64_t i, const auto &actual,
                           const auto &expected) {
    if (i == static_cast<int64_t>(axis))
      diag << "expects result dim " << i << " (" << d.show(actual[i])
           << ") to be the sum of the inputs' (" << d.show(expected[i]) << ")";
    else
      diag << "expects result dim " << i << " (" << d.show(actual[i])
           << ") to match the inputs' (" << d.show(expected[i]) << ")";
  });
}

/// Reshapes keep the row dim (Sema resolves `-1` to the input's rows, and
/// the targets size by it), so a dynamic leading dim is the input's; another
/// dynamic dim is what the rest leaves.
template <class D> mlir::FailureOr<DimsOf<D>> reshape(D &d, ReshapeOp op) {
  auto type = mlir::cast<mlir::RankedTensorType>(op.getType());
  DimsOf<D> in = d.dims(op.getInput()), out, known;
  llvm::SmallVector<int64_t> dynamic;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      out.push_back(d.constant(type.getDimSize(i)));
    else if (i == 0 && !in.empty())
      out.push_back(in[0]);
    else {
      dynamic.push_back(i);
      out.emplace_back();
      continue;
    }
    known.push_back(out.back());
  }
  auto numel = d.product(in);
  if (dynamic.size() == 1) {
    out[dynamic[0]] = d.quotient(numel, d.product(known));
  } else if (!dynamic.empty()) {
    std::optional<typename D::Dim> unknown = d.unknown();
    if (!unknown)
      return mlir::failure();
    for (int64_t i : dynamic)
      out[i] = *unknown;
  }
  auto count = d.product(out);
  if (!d.same(numel, count, [&](auto &diag) {
        diag << "expects input element count " << d.show(numel)
             << " to match result element count " << d.show(count);
      }))
    return mlir::failure();
  return d.result(out, resultMismatch(d));
}

/// The adjoint of a broadcast: the result type says which dims stay; each
/// is 1 or the input's dim at the same place from the innermost.
template <class D>
mlir::FailureOr<DimsOf<D>> unbroadcast(D &d, UnbroadcastOp op) {
  auto type = mlir::cast<mlir::RankedTensorType>(op.getType());
  DimsOf<D> in = d.dims(op.getInput()), out;
  int64_t rank = type.getRank(), inRank = in.size();
  if (!d.check(rank <= inRank, [&](auto &diag) {
        diag << "expects the result rank to be at most the input rank, got "
             << rank << " > " << inRank;
      }))
    return mlir::failure();
  int64_t offset = inRank - rank;
  for (int64_t i = 0; i < rank; ++i) {
    if (type.isDynamicDim(i)) {
      out.push_back(in[offset + i]);
      continue;
    }
    int64_t r = type.getDimSize(i);
    out.push_back(d.constant(r));
    if (r != 1 && !d.same(out.back(), in[offset + i], [&](auto &diag) {
          diag << "result dim " << i << " (" << r
               << ") is neither 1 nor the input's " << d.show(in[offset + i]);
        }))
      return mlir::failure();
  }
  return d.result(out, resultMismatch(d));
}

/// The shape that all of `inputs` broadcast to, numpy-style.
template <class D>
std::optional<DimsOf<D>> broadcastAll(D &d, mlir::ValueRange inputs,
                                      bool featuresOnly) {
  DimsOf<D> out;
  for (mlir::Value in : inputs) {
    std::optional<DimsOf<D>> next =
        d.broadcast(out, featuresOnly ? featuresOf(d, in) : d.dims(in));
    if (!next)
      return std::nullopt;
    out = *next;
  }
  return out;
}

/// `in` if `axis` indexes it.
template <class D>
mlir::FailureOr<DimsOf<D>> axisRule(D &d, uint64_t axis, const DimsOf<D> &in) {
  if (!d.check(axis < in.size(), [&](auto &diag) {
        diag << "expects axis " << axis << " to be in [0, " << in.size() << ")";
      }))
    return mlir::failure();
  return in;
}

/// A rule's outcome, or std::nullopt where a family has no rule for the op.
template <class D> using Handled = std::optional<mlir::FailureOr<DimsOf<D>>>;

template <class D> Handled<D> graphOps(D &d, mlir::Operation *op);
template <class D> Handled<D> tensorOps(D &d, mlir::Operation *op);
template <class D> Handled<D> adjointOps(D &d, mlir::Operation *op);
template <class D> Handled<D> sameShapeOps(D &d, mlir::Operation *op);

} // namespace detail

/// The shape of `op`'s results (all of a fused op's results share one) in
/// domain `d`: failure where the operands break the rule (reported in a
/// reporting domain), std::nullopt for an op without a rule (no tensor
/// result, or an op the targets do not compute: input_grad, param_grad).
template <class D>
mlir::FailureOr<std::optional<typename D::Dims>>
resultShape(mlir::Operation *op, D &d) {
  using Dims = typename D::Dims;
  using Result = mlir::FailureOr<std::optional<Dims>>;
  if (op->getNumResults() == 0 ||
      !mlir::isa<mlir::RankedTensorType>(op->getResult(0).getType()))
    return Result(std::optional<Dims>());
  for (auto family : {detail::graphOps<D>, detail::tensorOps<D>,
                      detail::adjointOps<D>, detail::sameShapeOps<D>})
    if (detail::Handled<D> shape = family(d, op)) {
      if (mlir::failed(*shape))
        return mlir::failure();
      return Result(std::optional<Dims>(**shape));
    }
  return Result(std::optional<Dims>());
}

namespace detail {

/// Ops over a graph operand (GraphOpInterface): rows from the graph.
template <class D> Handled<D> graphOps(D &d, mlir::Operation *op) {
  using Dims = DimsOf<D>;
  using Result = mlir::FailureOr<Dims>;
  auto graph = mlir::dyn_cast<GraphOpInterface>(op);
  if (!graph)
    return std::nullopt;
  auto rows = [&] {
    return d.rows(graph.getGraphOperand().get(), graph.getResultRows());
  };
  auto column = [&](auto &diag, int64_t, const auto &actual, const auto &) {
    diag << "expects a column result [N, 1], got " << d.show(actual);
  };
  return llvm::TypeSwitch<mlir::Operation *, Handled<D>>(op)
      .template Case<GatherOp, ScatterOp, AggregateOp, DstOp, HaloExchangeOp,
                     HaloAggregateOp, ScaledAggregateOp>(
          [&](auto typed) { return rowMap(d, typed); })
      .template Case<DegreeOp, NodeTypeOp>([&](auto) {
        return d.result(Dims{rows(), d.constant(1)}, column);
      })
      .template Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) {
        return d.result(d.dims(s.getScores()), resultMismatch(d));
      })
      .template Case<GatherRelationOp>([&](GatherRelationOp g) {
        // A row of the [R, F...] table per pair: [E, F...].
        return d.result(
            rowsOf(d, rows(), g.getTable()),
            [&](auto &diag, int64_t i, const auto &actual,
                const auto &expected) {
              if (i < 0)
                diag << "expects result rank " << actual.size()
                     << " to match table rank " << expected.size();
              else
                diag << "expects result dim " << i << " ("
                     << d.show(actual[i]) << ") to match table dim " << i
                     << " (" << d.show(expected[i]) << ")";
            });
      })
      .template Case<AggregateRelationsOp>(
          [&](AggregateRelationsOp a) -> Result {
            Dims x = d.dims(a.getInput()), w = d.dims(a.getWeight());
            int64_t rank = resultRank(op);
            if (!d.check(x.size() == 2 && w.size() == 3 && rank == 2,
                         [&](auto &diag) {
                           diag << "expects input [N, In], weight [R, In, Out] "
                                   "and result [N, Out], got ranks "
                                << x.size() << ", " << w.size() << " -> "
                                << rank;
                         }) ||
                !d.same(w[1], x[1], [&](auto &diag) {
                  diag << "expects weight dim 1 (" << d.show(w[1])
                       << ") to match the input width (" << d.show(x[1]) << ")";
                }))
              return mlir::failure();
            return d.result(
                Dims{rows(), w[2]},
                [&](auto &diag, int64_t, const auto &actual, const auto &) {
                  diag << "expects weight dim 2 (" << d.show(w[2])
                       << ") to match the result width (" << d.show(actual[1])
                       << ")";
                });
          })
      .template Case<AggregateRelationRowsOp>(
          [&](AggregateRelationRowsOp a) -> Result {
            Dims t = d.dims(a.getTable());
            int64_t rank = resultRank(op);
            if (!d.check(t.size() == 3 && rank == 2, [&](auto &diag) {
                  diag << "expects a table [R, Nodes, Out] and a result [N, "
                          "Out], got ranks "
                       << t.size() << " -> " << rank;
                }))
              return mlir::failure();
            return d.result(
                Dims{rows(), t[2]},
                [&](auto &diag, int64_t, const auto &actual, const auto &) {
                  diag << "expects table dim 2 (" << d.show(t[2])
                       << ") to match the result width (" << d.show(actual[1])
                       << ")";
                });
          })
      .Default([](mlir::Operation *) -> Handled<D> { return std::nullopt; });
}

/// Dense tensor math, fused bodies and the values that are not computed.
template <class D> Handled<D> tensorOps(D &d, mlir::Operation *op) {
  using Dims = DimsOf<D>;
  using Result = mlir::FailureOr<Dims>;
  return llvm::TypeSwitch<mlir::Operation *, Handled<D>>(op)
      .template Case<ParamOp>([&](ParamOp p) -> Result {
        std::optional<Dims> declared = d.parameter(p);
        if (!declared)
          return mlir::failure();
        return *declared;
      })
      .template Case<ConstantOp, CrossEntropyOp, NormPenaltyOp>(
          [&](auto) { return d.result(Dims{}, resultMismatch(d)); })
      .template Case<MatmulOp, MatmulMapOp>([&](auto m) {
        return matmul(d, op, m.getLhs(), m.getRhs(), m.getTransposeLhs(),
                      m.getTransposeRhs());
      })
      .template Case<AddOp, SubOp, MulOp, DivOp, MaximumOp>(
          [&](auto) -> Result {
            Dims a = d.dims(op->getOperand(0)), b = d.dims(op->getOperand(1));
            std::optional<Dims> shape = d.broadcast(a, b);
            if (!d.check(shape.has_value(), [&](auto &diag) {
                  diag << "expects broadcast-compatible operand shapes, got "
                       << d.show(a) << " and " << d.show(b);
                }))
              return mlir::failure();
            return d.result(*shape, [&](auto &diag, int64_t, const auto &actual,
                                        const auto &expected) {
              diag << "expects result shape " << d.show(actual)
                   << " to match the broadcast shape " << d.show(expected);
            });
          })
      .template Case<MapOp, EdgeMapOp>([&](auto fused) -> Result {
        // One shape for every result: the broadcast of the inputs, or for
        // an edge_map, rows per edge (per destination when it reduces) of
        // the broadcast of the inputs' feature dims.
        constexpr bool edges = std::is_same_v<decltype(fused), EdgeMapOp>;
        std::optional<Dims> shape = broadcastAll(d, fused.getInputs(), edges);
        if (!d.check(shape.has_value(), [&](auto &diag) {
              diag << "expects broadcast-compatible input shapes";
            }))
          return mlir::failure();
        if constexpr (edges) {
          Dims rows{d.rows(fused.getGraph(), fused.getReduce()
                                                 ? GraphRows::DstNodes
                                                 : GraphRows::Edges)};
          rows.append(*shape);
          shape = rows;
        }
        return d.result(*shape, resultMismatch(d));
      })
      .template Case<ConcatOp>([&](ConcatOp c) { return concat(d, c); })
      .template Case<ReshapeOp>([&](ReshapeOp r) { return reshape(d, r); })
      .template Case<BlockDiagonalOp>([&](BlockDiagonalOp b) {
        Dims q = d.dims(b.getInput());
        return d.result(blockDiagonalOf(d, q), [&](auto &diag, int64_t,
                                                   const auto &actual,
                                                   const auto &expected) {
          diag << "expects matrices " << d.show(actual) << " to have blocks "
               << d.show(q) << " on their diagonal, i.e. " << d.show(expected);
        });
      })
      .template Case<DiagonalBlocksOp>([&](DiagonalBlocksOp b) -> Result {
        Dims q = d.dims(b.getBlocks()), matrices = d.dims(b.getInput());
        Dims expected = blockDiagonalOf(d, q);
        auto explain = [&](auto &diag) {
          diag << "expects matrices " << d.show(matrices) << " to have blocks "
               << d.show(q) << " on their diagonal, i.e. " << d.show(expected);
        };
        for (int64_t k = 0; k < 3; ++k)
          if (!d.same(matrices[k], expected[k], explain))
            return mlir::failure();
        return d.result(
            q, [&](auto &diag, int64_t, const auto &actual, const auto &) {
              diag << "expects the result " << d.show(actual)
                   << " to match the blocks " << d.show(q);
            });
      })
      .template Case<ReduceOp>([&](ReduceOp r) -> Result {
        Dims in = d.dims(r.getInput());
        if (failed(axisRule(d, r.getAxis(), in)))
          return mlir::failure();
        Dims out = in;
        out.erase(out.begin() + r.getAxis());
        return d.result(
            out, [&](auto &diag, int64_t, const auto &actual, const auto &) {
              diag << "expects result shape " << d.show(actual)
                   << " to be the input shape " << d.show(in)
                   << " without axis " << r.getAxis();
            });
      })
      .template Case<SliceOp>([&](SliceOp s) -> Result {
        mlir::FailureOr<Dims> out =
            axisRule(d, s.getAxis(), d.dims(s.getInput()));
        if (failed(out))
          return mlir::failure();
        (*out)[s.getAxis()] = d.constant(s.getSize());
        return d.result(*out, resultMismatch(d));
      })
      .Default([](mlir::Operation *) -> Handled<D> { return std::nullopt; });
}

/// The adjoint ops: most have their primal's (or its input's) dims.
template <class D> Handled<D> adjointOps(D &d, mlir::Operation *op) {
  using Dims = DimsOf<D>;
  auto like = [&](mlir::Value v) {
    return d.result(d.dims(v), resultMismatch(d));
  };
  auto rows = [&](mlir::Value graph, GraphRows r, mlir::Value featuresOf) {
    return d.result(rowsOf(d, d.rows(graph, r), featuresOf), resultMismatch(d));
  };
  return llvm::TypeSwitch<mlir::Operation *, Handled<D>>(op)
      .template Case<AggregateGradOp, ScatterGradOp, ReduceGradOp>(
          [&](auto o) { return like(o.getInput()); })
      .template Case<AggregateWeightGradOp, HaloAggregateWeightGradOp>(
          [&](auto o) { return like(o.getWeight()); })
      .template Case<AggregateRelationRowsGradOp>(
          [&](AggregateRelationRowsGradOp o) { return like(o.getTable()); })
      .template Case<EdgeSoftmaxGradOp>(
          [&](EdgeSoftmaxGradOp o) { return like(o.getGrad()); })
      .template Case<BatchNormRunningOp>(
          [&](BatchNormRunningOp o) { return like(o.getRunning()); })
      .template Case<CrossEntropyGradOp>(
          [&](CrossEntropyGradOp o) { return like(o.getLogits()); })
      .template Case<NormPenaltyGradOp>(
          [&](NormPenaltyGradOp o) { return like(o.getRows()); })
      .template Case<GatherRelationGradOp>(
          [&](GatherRelationGradOp o) { return like(o.getTable()); })
      .template Case<UnbroadcastOp>(
          [&](UnbroadcastOp u) { return unbroadcast(d, u); })
      .template Case<AggregateRelationsGradOp>([&](AggregateRelationsGradOp o) {
        Dims w = d.dims(o.getWeight());
        return d.result(Dims{d.rows(o.getGraph(), GraphRows::SrcNodes), w[1]},
                        resultMismatch(d));
      })
      .template Case<AggregateRelationsWeightGradOp>(
          [&](AggregateRelationsWeightGradOp o) {
            // The weight's dims: [R, In, Out].
            return d.result(Dims{d.relations(), d.dims(o.getInput())[1],
                                 d.dims(o.getGrad())[1]},
                            resultMismatch(d));
          })
      .template Case<GatherGradOp>([&](GatherGradOp g) {
        return rows(g.getGraph(), nodesOf(g.getSide()), g.getGrad());
      })
      .template Case<DstGradOp>([&](DstGradOp g) {
        return rows(g.getGraph(), GraphRows::SrcNodes, g.getGrad());
      })
      .template Case<HaloAggregateGradOp, HaloExchangeGradOp>([&](auto g) {
        return rows(g.getGraph(), GraphRows::DstNodes, g.getGrad());
      })
      .Default([](mlir::Operation *) -> Handled<D> { return std::nullopt; });
}

/// Ops whose result has their first operand's shape: unary activations,
/// softmax, batch normalization, dropout and the adjoints of elementwise
/// ops, softmax and batch normalization.
template <class D> Handled<D> sameShapeOps(D &d, mlir::Operation *op) {
  if (!mlir::isa<NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReluOp, SigmoidOp,
                 TanhOp, AbsOp, LeakyReluOp, EluOp, SoftmaxOp, LogSoftmaxOp,
                 BatchNormOp, DropoutOp, MaximumGradOp, UnaryGradOp,
                 SoftmaxGradOp, LogSoftmaxGradOp, BatchNormGradOp>(op))
    return std::nullopt;
  return d.result(d.dims(op->getOperand(0)), resultMismatch(d));
}

} // namespace detail

/// The static domain: a dim is its size or ShapedType::kDynamic (`?`, equal
/// to any size). It reads types through `typeOf` (gnn-infer-shapes passes the
/// types refined so far) and, when reporting, emits the rules' errors on the
/// op (the verifier).
class StaticDims {
public:
  using Dim = int64_t;
  using Dims = llvm::SmallVector<int64_t, 4>;
  using TypeLookup = llvm::function_ref<mlir::RankedTensorType(mlir::Value)>;

  /// Verifies `op`: errors are reported on it, parameters keep their type.
  explicit StaticDims(mlir::Operation *op);
  /// Infers silently over the types `typeOf` gives; parameters are looked up.
  StaticDims(mlir::Operation *op, TypeLookup typeOf);

  Dims dims(mlir::Value v) const;
  Dim constant(int64_t value) const { return value; }
  Dim rows(mlir::Value, GraphRows) const { return mlir::ShapedType::kDynamic; }
  Dim relations() const { return mlir::ShapedType::kDynamic; }
  Dim product(llvm::ArrayRef<Dim> dims) const;
  Dim sum(llvm::ArrayRef<Dim> dims) const;
  Dim quotient(Dim dividend, Dim divisor) const;
  std::optional<Dim> unknown() const { return mlir::ShapedType::kDynamic; }
  std::optional<Dims> broadcast(const Dims &a, const Dims &b) const;
  std::optional<Dims> parameter(ParamOp op) const;

  template <class Explain> bool check(bool holds, Explain &&explain) {
    if (!holds && reporting) {
      mlir::InFlightDiagnostic diag = op->emitOpError();
      explain(diag);
    }
    return holds;
  }
  template <class Explain> bool same(Dim a, Dim b, Explain &&explain) {
    return check(compatible(a, b), explain);
  }
  template <class Explain>
  std::optional<Dim> unify(Dim a, Dim b, Explain &&explain) {
    if (!same(a, b, explain))
      return std::nullopt;
    return mlir::ShapedType::isDynamic(a) ? b : a;
  }
  /// `shape` if every result's declared type is compatible with it.
  template <class ExplainResult>
  mlir::FailureOr<Dims> result(Dims shape, ExplainResult &&explain) {
    if (!reporting)
      return shape;
    for (mlir::Value res : op->getResults()) {
      auto actual =
          mlir::cast<mlir::RankedTensorType>(res.getType()).getShape();
      int64_t at = mismatch(actual, shape);
      if (at == kNoMismatch)
        continue;
      mlir::InFlightDiagnostic diag = op->emitOpError();
      explain(diag, at, actual, shape);
      return mlir::failure();
    }
    return shape;
  }

  /// `?` or the size.
  std::string show(Dim dim) const;
  /// `[?, 16]`.
  std::string show(llvm::ArrayRef<Dim> dims) const;

private:
  static constexpr int64_t kNoMismatch = -2;
  static bool compatible(Dim a, Dim b) {
    return mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b) ||
           a == b;
  }
  /// The first dim where `actual` and `expected` disagree, -1 for their
  /// ranks, kNoMismatch if they are compatible.
  static int64_t mismatch(llvm::ArrayRef<Dim> actual,
                          llvm::ArrayRef<Dim> expected);

  mlir::Operation *op;
  TypeLookup typeOf;
  bool reporting;
};

/// The ResultShapeRule trait's verifier: `op`'s operands obey its shape rule
/// and its results have the shape the rule gives.
mlir::LogicalResult verifyResultShape(mlir::Operation *op);

} // namespace gnn::shape

#endif // GNN_DIALECT_GNN_SHAPERULES_H
