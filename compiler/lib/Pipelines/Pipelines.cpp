//===- Pipelines.cpp - gnnc's pass pipeline, registered -------------------===//
//
// Why this order: shapes are made static first, so the reordering cost model
// sees real widths; aggregations move to the narrow side of their transforms
// before anything is differentiated, so the backward inherits the cheap
// order; sampled blocks and halo exchanges are bound before autodiff, which
// turns each into its adjoint; a knowledge-graph score's ranking factors
// are split off the differentiated forward; CSE then merges what the forward
// and the reverse sweep both compute (the layers' degree normalizations, the
// loss seed, constants); fusion runs on forward and backward alike; what every
// step computes alike is marked last, on the fused ops the target emits, and
// a kept aggregation of row-scaled features then reads the rows in place.
//
//===----------------------------------------------------------------------===//

#include "gnn/Pipelines/Pipelines.h"

#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void gnn::buildTrainPipeline(OpPassManager &pm,
                             const TrainPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createInferShapes());
  ReorderOptions reorder;
  reorder.featuresEstimate = options.assumeFeatures;
  reorder.classesEstimate = options.assumeClasses;
  reorder.hoistInvariants = options.hoistInvariants;
  pm.addNestedPass<func::FuncOp>(createReorder(reorder));
  pm.addNestedPass<func::FuncOp>(createSampleBlocks());
  pm.addNestedPass<func::FuncOp>(createDistribute());
  pm.addPass(createAutodiff());
  pm.addPass(createRankFactors());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createFuseElementwise());
    pm.addNestedPass<func::FuncOp>(createFuseEdges());
    pm.addNestedPass<func::FuncOp>(createFuseGemmEpilogue());
  }
  if (options.hoistInvariants) {
    pm.addNestedPass<func::FuncOp>(createHoistInvariants());
    pm.addNestedPass<func::FuncOp>(createFuseAggregateScale());
  }
}

void gnn::registerGNNPipelines() {
  PassPipelineRegistration<TrainPipelineOptions>(
      "gnn-train-pipeline",
      "gnnc's passes from MLIRGen's module to kernel-level ops: what "
      "`gnnc --emit=train` prints and the C++ emitter reads",
      buildTrainPipeline);
}
