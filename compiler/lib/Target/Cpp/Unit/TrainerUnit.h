//===- TrainerUnit.h - what every target's translation unit shares -*- C++
//-*-===//
//
// Internal to the emitters. A trainer's translation unit has the same frame
// whatever language its entry points are in: the model found in the module,
// the parameter list (`<Model>_params`), the logits' width
// (`<Model>_output_columns`) and, in `main`, the CompiledProgram's fields up
// to the entry points. The C++ target (EmitCpp.cpp) and the CUDA target
// (Target/Cuda/EmitCuda.cpp) both write them with these functions and differ
// in their includes, their entry points and how main installs them.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CPP_TRAINERUNIT_H
#define GNN_TARGET_CPP_TRAINERUNIT_H

#include "gnn/Target/Common/Prepare.h"

#include "mlir/Support/IndentedOstream.h"

#include <string>
#include <utility>

namespace gnn::cpp {

/// The model a module compiles: its two entry points and parameters.
struct TrainerModule {
  mlir::func::FuncOp forward, step;
  /// A knowledge-graph model's score factors (gnn-rank-factors), or null.
  mlir::func::FuncOp rankFactors;
  /// `GCN`, and the same as a C++ identifier.
  std::string model, cppModel;
  target::ParameterTable params;
  /// Sampled programs: the blocks per batch (0: full graph).
  int64_t numBlocks = 0;
};

/// The (first) model of `module`; an error on the module if it has none.
mlir::FailureOr<TrainerModule> findTrainer(mlir::ModuleOp module);

/// `<name> = <value>;` for a member of main's CompiledProgram.
void setProgram(mlir::raw_indented_ostream &os, llvm::StringRef member,
                const llvm::Twine &value);

/// `std::vector<ParamInfo> <Model>_params(const DataDims &data)`.
void emitParams(mlir::raw_indented_ostream &os,
                const target::ParameterTable &params, llvm::StringRef model,
                llvm::StringRef cppModel);

/// The logits' width. It is a dim expression of the forward, which may
/// mention a graph's or a block's row counts (a reshape's): stand-ins with
/// one row each make it compile outside the forward.
void emitOutputColumns(mlir::raw_indented_ostream &os, llvm::StringRef cppModel,
                       llvm::StringRef width, int64_t numBlocks);

/// main's `CompiledProgram program;` and every field but the entry points.
void emitProgramFields(mlir::raw_indented_ostream &os,
                       const TrainerModule &unit, llvm::StringRef sourceFile,
                       bool usesEdgeIds);

/// Whether a sampled entry point reads its input rows only as
/// CompiledProgram::inputRowsInPlace allows: through aggregations that
/// aggregatesInputInPlace, and as block 0's destinations' rows (gnn.dst).
/// (InputRowsInPlace.cpp)
bool readsInputRowsInPlace(mlir::func::FuncOp fn);
/// Whether `op` is a sum or mean of the features argument over block 0's
/// in-edges without self loops: a gather that can read the dataset's rows
/// in place (ExecContext::inputTable).
bool aggregatesInputInPlace(AggregateOp op);

/// The blocks (bit l: block l of numBlocks) whose out-edge lists none of
/// `entryPoints` reads: every use is a sum or mean aggregation or gnn.dst.
/// (BlockOutEdges.cpp)
uint64_t blocksWithoutOutEdges(llvm::ArrayRef<mlir::func::FuncOp> entryPoints,
                               int64_t numBlocks);

} // namespace gnn::cpp

#endif // GNN_TARGET_CPP_TRAINERUNIT_H
