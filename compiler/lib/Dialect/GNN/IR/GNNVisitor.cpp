//===- GNNVisitor.cpp - Every gnn op in exactly one visitor family --------===//
//
// Compile-time checks of GNNVisitor.h's lists against the ops ODS generates
// (GET_OP_LIST): each op is in some family, and the families together name
// no op twice. An op added to the .td files without a family stops the
// build here.
//
//===----------------------------------------------------------------------===//
#include "gnn/Dialect/GNN/GNNVisitor.h"

#include <type_traits>

namespace {

template <typename Op, typename... List>
constexpr bool isOneOf = (std::is_same_v<Op, List> || ...);

template <typename... Ops> constexpr bool eachInAFamily() {
  return (isOneOf<Ops, GNN_ALL_OPS> && ...);
}

template <typename... Ops> constexpr size_t countOf() {
  return sizeof...(Ops);
}

static_assert(eachInAFamily<
#define GET_OP_LIST
#include "gnn/Dialect/GNN/GNNOps.cpp.inc"
                  >(),
              "a gnn op is in no family of GNNVisitor.h: add it to one");

static_assert(countOf<GNN_ALL_OPS>() == countOf<
#define GET_OP_LIST
#include "gnn/Dialect/GNN/GNNOps.cpp.inc"
                                            >(),
              "GNNVisitor.h names an op in two families");

} // namespace
