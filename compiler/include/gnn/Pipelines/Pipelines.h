//===- Pipelines.h - gnnc's pass pipeline, registered -----------*- C++ -*-===//
//
// The passes between MLIRGen's module and the C++ emitter, in one function
// that gnnc builds its PassManager with and that gnn-opt offers as
// `--gnn-train-pipeline`, so that
//
//   gnnc --emit=mlir m.gnn | gnn-opt --gnn-train-pipeline
//
// prints what `gnnc --emit=train m.gnn` prints. gnnc's options that shape
// the pipeline are the pipeline's options (`--no-fuse` is `fuse=false`,
// `--assume-features N` is `assume-features=N`).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_PIPELINES_PIPELINES_H
#define GNN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>

namespace gnn {

/// The reordering cost model's estimates where the dataset does not fix a
/// size (gnn-reorder's own defaults).
constexpr int64_t kAssumedFeatures = 512;
constexpr int64_t kAssumedClasses = 16;

struct TrainPipelineOptions
    : public mlir::PassPipelineOptions<TrainPipelineOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse into kernel-level ops (gnn.map, "
                                   "gnn.edge_map, gnn.matmul_map)"),
                    llvm::cl::init(true)};
  Option<int64_t> assumeFeatures{
      *this, "assume-features",
      llvm::cl::desc("Input feature width the reordering cost model assumes "
                     "where the dataset does not fix it"),
      llvm::cl::init(kAssumedFeatures)};
  Option<int64_t> assumeClasses{
      *this, "assume-classes",
      llvm::cl::desc("Class count the reordering cost model assumes where "
                     "the dataset does not fix it"),
      llvm::cl::init(kAssumedClasses)};
  Option<bool> hoistInvariants{
      *this, "hoist-invariants",
      llvm::cl::desc("Compute what every step computes alike once per run "
                     "(gnn-hoist-invariants; the C++ target)"),
      llvm::cl::init(true)};
};

/// Adds gnnc's passes to `pm` (anchored on the module), in order:
/// gnn-infer-shapes, gnn-reorder, gnn-sample-blocks and gnn-distribute on
/// each function; gnn-autodiff; cse and canonicalize; then, if
/// `options.fuse`, gnn-fuse-elementwise, gnn-fuse-edges and
/// gnn-fuse-gemm-epilogue on each function; last, if
/// `options.hoistInvariants`, gnn-hoist-invariants.
void buildTrainPipeline(mlir::OpPassManager &pm,
                        const TrainPipelineOptions &options);

/// Registers `gnn-train-pipeline` (buildTrainPipeline) for textual pass
/// pipelines and gnn-opt's command line.
void registerGNNPipelines();

} // namespace gnn

#endif // GNN_PIPELINES_PIPELINES_H
