//===- MlirPrecompiled.h - headers every compiler unit parses ---*- C++ -*-===//
//
// The MLIR and gnn dialect headers that nearly every translation unit of
// compiler/lib includes, compiled once into a precompiled header that the
// libraries share (compiler/lib/CMakeLists.txt). Parsing them took about
// half of a typical unit's compile time, and a cold build of gnnc is most of
// `make run` on a bare machine. Nothing includes this file by name: each
// unit still includes what it uses, so a build without precompiled headers
// (another compiler, GNNC_PRECOMPILE_HEADERS=OFF) is the same program.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"
