//===- RuntimeNames.h - every gnnrt name generated code spells --*- C++ -*-===//
//
// The one table of the runtime's names: the headers a generated trainer
// includes, the types and kernels it uses, the enumerators it passes, and the
// members of the structs through which the compiled program and the runtime
// talk (ExecContext, GraphView, HaloExchange, CompiledProgram, DataDims).
// Emitters write these constants and never spell a runtime name themselves,
// so renaming something in gnnrt is one edit here, and this file lists
// everything the generated code depends on. (EmitSettings.cpp, which fills
// TrainSettings field by field, still spells its fields itself.)
//
// The spellings are those of the generated translation unit, which says
// `using namespace gnnrt;`: kernels are `kernels::<name>`, enumerators
// `Reduce::Sum`. Members of the entry point's context are spelled with the
// parameter they are read through (`ctx.labels`); see `local` below for the
// generated code's own names, which prepared dims refer to.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_COMMON_RUNTIMENAMES_H
#define GNN_TARGET_COMMON_RUNTIMENAMES_H

#include "gnn/Dialect/GNN/GNNAttrs.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace gnn::target::rt {

using llvm::StringLiteral;

//===----------------------------------------------------------------------===//
// Headers, namespace, types and the entry point
//===----------------------------------------------------------------------===//

/// The kernels' declarations (every `kernels::` function below).
constexpr StringLiteral kernelsHeader = "gnnrt/kernels/Kernels.h";
/// CompiledProgram, ExecContext, trainMain.
constexpr StringLiteral programHeader = "gnnrt/train/Program.h";
/// The namespace the generated code opens with `using namespace`.
constexpr StringLiteral runtimeNamespace = "gnnrt";

/// `template <typename T> struct ExecContext`: what an entry point reads and
/// writes (see `ctx` below).
constexpr StringLiteral execContext = "ExecContext";
/// `template <typename T> class Workspace`: the planned slots.
constexpr StringLiteral workspace = "Workspace";
/// `Workspace<T>::get(slot, elements)`: slot `slot`, grown to `elements`.
constexpr StringLiteral workspaceGet = "get";
/// `Workspace<T>::kept(entry, key, elements)`: a step-invariant value's
/// buffer, kept across calls; `keptStale(entry, features, graph)`: whether
/// the entry point must compute its kept values (first call, new inputs).
constexpr StringLiteral workspaceKept = "kept";
constexpr StringLiteral workspaceKeptStale = "keptStale";
/// The CSR graph (or sampled block) the graph kernels take.
constexpr StringLiteral graphView = "GraphView";
/// Owns a GraphView's arrays (a relation's subgraph, when its graph keeps
/// none).
constexpr StringLiteral graphStorage = "GraphStorage";
/// relationSubgraph(g, relation): the edges of one relation of `g`.
constexpr StringLiteral relationSubgraph = "relationSubgraph";
/// relationView(g, relation, scratch): the same as a view, built once per
/// graph (kept by g's relation index).
constexpr StringLiteral relationView = "relationView";
/// A parameter's name, dims and initializer, as the trainer allocates it.
constexpr StringLiteral paramInfo = "ParamInfo";
/// The dataset's sizes, known when the trainer has loaded it.
constexpr StringLiteral dataDims = "DataDims";
/// The error a trainer reports for data it cannot train on.
constexpr StringLiteral dataError = "DataError";
/// What `main` fills and hands to `trainMain`.
constexpr StringLiteral compiledProgram = "CompiledProgram";
/// `int trainMain(int argc, char **argv, const CompiledProgram &)`.
constexpr StringLiteral trainMain = "trainMain";

//===----------------------------------------------------------------------===//
// Kernels (gnnrt::kernels), each a template over the scalar type
//===----------------------------------------------------------------------===//

namespace kernels {
// Dense products.
constexpr StringLiteral gemm = "kernels::gemm";
/// CUDA only: the product with a fused bias / added matrix / ReLU.
constexpr StringLiteral gemmEpilogue = "kernels::gemmEpilogue";
// Aggregation over in-edges, and its adjoints.
constexpr StringLiteral aggregate = "kernels::aggregate";
constexpr StringLiteral aggregateGradInput = "kernels::aggregateGradInput";
constexpr StringLiteral aggregateScaledRows = "kernels::aggregateScaledRows";
constexpr StringLiteral aggregateGradWeight = "kernels::aggregateGradWeight";
constexpr StringLiteral aggregateRelations = "kernels::aggregateRelations";
constexpr StringLiteral aggregateRelationsGradInput =
    "kernels::aggregateRelationsGradInput";
constexpr StringLiteral aggregateRelationsGradWeight =
    "kernels::aggregateRelationsGradWeight";
constexpr StringLiteral aggregateRelationRows = "kernels::aggregateRelationRows";
constexpr StringLiteral aggregateRelationRowsGrad =
    "kernels::aggregateRelationRowsGrad";
constexpr StringLiteral degree = "kernels::degree";
constexpr StringLiteral nodeTypeIndicator = "kernels::nodeTypeIndicator";
// Edge ops.
constexpr StringLiteral gather = "kernels::gather";
constexpr StringLiteral gatherGrad = "kernels::gatherGrad";
constexpr StringLiteral scatter = "kernels::scatter";
constexpr StringLiteral scatterGrad = "kernels::scatterGrad";
constexpr StringLiteral edgeSoftmax = "kernels::edgeSoftmax";
constexpr StringLiteral edgeSoftmaxGrad = "kernels::edgeSoftmaxGrad";
constexpr StringLiteral gatherRelation = "kernels::gatherRelation";
constexpr StringLiteral gatherRelationGrad = "kernels::gatherRelationGrad";
// Ops along one axis of a dense tensor.
constexpr StringLiteral softmax = "kernels::softmax";
constexpr StringLiteral logSoftmax = "kernels::logSoftmax";
constexpr StringLiteral softmaxGrad = "kernels::softmaxGrad";
constexpr StringLiteral logSoftmaxGrad = "kernels::logSoftmaxGrad";
constexpr StringLiteral batchNorm = "kernels::batchNorm";
constexpr StringLiteral batchNormGrad = "kernels::batchNormGrad";
constexpr StringLiteral batchNormInference = "kernels::batchNormInference";
constexpr StringLiteral batchNormRunningChange =
    "kernels::batchNormRunningChange";
constexpr StringLiteral reduceAxis = "kernels::reduceAxis";
constexpr StringLiteral reduceAxisGrad = "kernels::reduceAxisGrad";
constexpr StringLiteral copyIntoAxis = "kernels::copyIntoAxis";
constexpr StringLiteral sliceAxis = "kernels::sliceAxis";
constexpr StringLiteral blockDiagonal = "kernels::blockDiagonal";
constexpr StringLiteral diagonalBlocks = "kernels::diagonalBlocks";
constexpr StringLiteral unbroadcast = "kernels::unbroadcast";
// Dropout: by element, or by row keyed with the whole graph's row ids.
constexpr StringLiteral dropout = "kernels::dropout";
constexpr StringLiteral dropoutRows = "kernels::dropoutRows";
// The loss.
constexpr StringLiteral crossEntropy = "kernels::crossEntropy";
constexpr StringLiteral crossEntropyGrad = "kernels::crossEntropyGrad";
constexpr StringLiteral normPenalty = "kernels::normPenalty";
constexpr StringLiteral normPenaltyGrad = "kernels::normPenaltyGrad";
} // namespace kernels

/// What only CUDA code generated by `gnnc --target=cuda` spells. Its
/// kernel calls are the names above with `kernels::cuda::` for
/// `kernels::` (cudaKernel): the CUDA kernels keep the CPU's signatures.
namespace cuda {
/// The CUDA kernel families, device workspace, streams and Memory.h.
constexpr StringLiteral kernelsHeader = "gnnrt/kernels/cuda/Kernels.h";
/// DeviceEntryPoints and installDeviceEntryPoints.
constexpr StringLiteral deviceProgramHeader = "gnnrt/train/DeviceProgram.h";
/// DeviceHaloExchange, a rank's halo ops over device rows.
constexpr StringLiteral deviceHaloHeader = "gnnrt/comm/DeviceHaloExchange.h";
constexpr StringLiteral deviceWorkspace = "kernels::cuda::DeviceWorkspace";
/// DeviceWorkspace::plan, given every slot's bytes.
constexpr StringLiteral workspacePlan = "plan";
constexpr StringLiteral copy = "kernels::cuda::copy";
constexpr StringLiteral zero = "kernels::cuda::zero";
constexpr StringLiteral accumulate = "kernels::cuda::accumulate";
constexpr StringLiteral readScalar = "kernels::cuda::readScalar";
constexpr StringLiteral readArray = "kernels::cuda::readArray";
constexpr StringLiteral checkLaunch = "kernels::cuda::checkLaunch";
/// Launch geometry of generated kernels, and the stream they queue on.
constexpr StringLiteral grid = "kernels::cuda::generatedGrid";
constexpr StringLiteral block = "kernels::cuda::kGeneratedBlock";
constexpr StringLiteral currentStream = "kernels::cuda::currentStream";
/// The launch of a kernel without barriers (gnnrt/kernels/cuda/Launch.h).
constexpr StringLiteral launch = "GNNRT_LAUNCH_WITHOUT_BARRIERS";
constexpr StringLiteral deviceEntryPoints = "DeviceEntryPoints";
constexpr StringLiteral installEntryPoints = "installDeviceEntryPoints";
/// ExecContext<T>::deviceWorkspace.
constexpr StringLiteral ctxWorkspace = "ctx.deviceWorkspace";
} // namespace cuda

/// `kernels::cuda::gemm` for `kernels::gemm`.
std::string cudaKernel(llvm::StringRef kernel);

//===----------------------------------------------------------------------===//
// Enumerators
//===----------------------------------------------------------------------===//

/// `Reduce::Sum`, ... for a reduction kind.
llvm::StringRef reduce(ReduceKind kind);
/// `Side::Src` or `Side::Dst`.
llvm::StringRef side(EdgeSide side);
/// `Init::Glorot`, ... for a parameter's initializer.
llvm::StringRef init(InitKind kind);
/// `HaloMode::OneShot`, ... for gnn.halo_aggregate's `mode`.
llvm::StringRef haloMode(HaloMode mode);

//===----------------------------------------------------------------------===//
// Members
//===----------------------------------------------------------------------===//

/// ExecContext<T> members, read through the entry point's parameter.
namespace ctx {
constexpr StringLiteral workspace = "ctx.workspace";
constexpr StringLiteral numFeatures = "ctx.numFeatures";
constexpr StringLiteral numClasses = "ctx.numClasses";
constexpr StringLiteral numRelations = "ctx.numRelations";
constexpr StringLiteral numGlobalNodes = "ctx.numGlobalNodes";
/// ctx.relationId("name"): a relation's id in the data.
constexpr StringLiteral relationId = "ctx.relationId";
/// ctx.relationGraph(g, relation): device entry points' copy of a
/// relation's subgraph of g.
constexpr StringLiteral relationGraph = "ctx.relationGraph";
/// ctx.nodeType("name"): a node type of the data (its id range).
constexpr StringLiteral nodeType = "ctx.nodeType";
/// The whole graph, or the rank's partition.
constexpr StringLiteral graph = "ctx.graph";
/// Graph-level training: each node of the batch to its graph.
constexpr StringLiteral readout = "ctx.readout";
/// Link prediction: the node pairs the step scores.
constexpr StringLiteral pairs = "ctx.pairs";
/// Sampled training: the batch's blocks, layer 0 first.
constexpr StringLiteral blocks = "ctx.blocks";
constexpr StringLiteral features = "ctx.features";
/// Sampled single-process runs: the dataset's rows, and block 0 over them,
/// for a first aggregation that reads them in place (null: a copy).
constexpr StringLiteral inputTable = "ctx.inputTable";
constexpr StringLiteral inputTableBlock = "ctx.inputTableBlock";
constexpr StringLiteral labels = "ctx.labels";
constexpr StringLiteral lossMask = "ctx.lossMask";
/// Makes a rank's mean loss its share of the global mean.
constexpr StringLiteral lossScale = "ctx.lossScale";
constexpr StringLiteral params = "ctx.params";
constexpr StringLiteral grads = "ctx.grads";
/// Where a train step adds the gradient of its input rows (null: not
/// wanted).
constexpr StringLiteral inputGrad = "ctx.inputGrad";
/// Where a forward writes its logits.
constexpr StringLiteral output = "ctx.output";
/// Where a knowledge-graph model's rank factors entry point copies the
/// factors it returns (std::vector<T>[3]).
constexpr StringLiteral rankFactors = "ctx.rankFactors";
/// Reported back: the bytes one buffer per value would have taken.
constexpr StringLiteral unplannedBytes = "ctx.unplannedBytes";
// Dropout's counter-based masks.
constexpr StringLiteral seed = "ctx.seed";
constexpr StringLiteral step = "ctx.step";
/// The whole graph's ids of the rows (null in a single full-graph process).
constexpr StringLiteral nodeIds = "ctx.nodeIds";
/// Graph-level training: each graph's id in the collection (rows of a
/// readout).
constexpr StringLiteral graphIds = "ctx.graphIds";
constexpr StringLiteral edgeIds = "ctx.edgeIds";
/// Distributed runs: the global degrees (null: compute from the graph).
constexpr StringLiteral srcDegree = "ctx.srcDegree";
constexpr StringLiteral dstDegree = "ctx.dstDegree";
/// Distributed runs: the HaloExchange (null in a single process).
constexpr StringLiteral halo = "ctx.halo";
/// The same over device rows, for device entry points (the CUDA target).
constexpr StringLiteral deviceHalo = "ctx.deviceHalo";
/// Full-graph link prediction on a rank: the exchange of the pairs' own
/// halo (their remote sources; null in a single process).
constexpr StringLiteral pairHalo = "ctx.pairHalo";
/// The same over device rows, for device entry points.
constexpr StringLiteral devicePairHalo = "ctx.devicePairHalo";
} // namespace ctx

/// HaloExchange member functions, called through `ctx.halo->` (and
/// DeviceHaloExchange's, through `ctx.deviceHalo->`).
namespace halo {
constexpr StringLiteral forward = "forward";
constexpr StringLiteral backward = "backward";
constexpr StringLiteral aggregate = "aggregate";
constexpr StringLiteral aggregateGrad = "aggregateGrad";
constexpr StringLiteral aggregateOver = "aggregateOver";
constexpr StringLiteral aggregateGradOver = "aggregateGradOver";
constexpr StringLiteral aggregateWeighted = "aggregateWeighted";
constexpr StringLiteral aggregateWeightedGrad = "aggregateWeightedGrad";
constexpr StringLiteral aggregateWeightGrad = "aggregateWeightGrad";
} // namespace halo

/// GraphView members (also of a sampled block).
namespace graph {
constexpr StringLiteral numSrc = "numSrc";
constexpr StringLiteral numDst = "numDst";
constexpr StringLiteral numEdges = "numEdges";
/// Per edge, in edge-id order: its source and destination.
constexpr StringLiteral edgeSrc = "edgeSrc";
constexpr StringLiteral edgeDst = "edgeDst";
/// CSR over destinations: the in-edges of `v` are [inOffsets[v], inOffsets[v +
/// 1]).
constexpr StringLiteral inOffsets = "inOffsets";
} // namespace graph

/// DataDims members.
namespace data {
constexpr StringLiteral features = "features";
constexpr StringLiteral classes = "classes";
constexpr StringLiteral relations = "relations";
constexpr StringLiteral nodes = "nodes";
} // namespace data

/// CompiledProgram members.
namespace program {
constexpr StringLiteral model = "model";
constexpr StringLiteral sourceFile = "sourceFile";
constexpr StringLiteral params = "params";
constexpr StringLiteral needsEdgeIds = "needsEdgeIds";
constexpr StringLiteral inputRowsInPlace = "inputRowsInPlace";
constexpr StringLiteral blocksWithoutOutEdges = "blocksWithoutOutEdges";
/// The relations the model selects by name, with where.
constexpr StringLiteral relationUses = "relationUses";
constexpr StringLiteral nodeTypeUses = "nodeTypeUses";
constexpr StringLiteral outputColumns = "outputColumns";
constexpr StringLiteral numBlocks = "numBlocks";
constexpr StringLiteral forwardF32 = "forwardF32";
constexpr StringLiteral trainStepF32 = "trainStepF32";
constexpr StringLiteral forwardF64 = "forwardF64";
constexpr StringLiteral trainStepF64 = "trainStepF64";
constexpr StringLiteral rankFactorsF32 = "rankFactorsF32";
constexpr StringLiteral rankFactorCount = "rankFactorCount";
} // namespace program

//===----------------------------------------------------------------------===//
// The generated code's own names
//===----------------------------------------------------------------------===//

/// Not runtime names: the locals every entry point declares, which prepared
/// dims and names refer to (a dim reads `g.numDst` or `features`).
namespace local {
/// `ExecContext<T> &ctx`, the parameter the `ctx::` members are read from.
constexpr StringLiteral context = "ctx";
/// `Workspace<T> &ws = *ctx.workspace`.
constexpr StringLiteral workspace = "ws";
/// `const GraphView &g = ctx.graph`.
constexpr StringLiteral graph = "g";
/// `const T *x = ctx.features`.
constexpr StringLiteral input = "x";
/// The dataset's sizes, as parameter dims name them.
constexpr StringLiteral features = "features";
constexpr StringLiteral classes = "classes";
/// A heterogeneous dataset's relation count and the whole graph's node
/// count (each bound only where a parameter's shape uses it).
constexpr StringLiteral relations = "relations";
constexpr StringLiteral nodes = "nodes";
/// `main`'s CompiledProgram (EmitSettings.cpp fills `program.settings`).
constexpr StringLiteral program = "program";
/// The DataDims parameter of the parameter list and the output width.
constexpr StringLiteral data = "data";
} // namespace local

} // namespace gnn::target::rt

#endif // GNN_TARGET_COMMON_RUNTIMENAMES_H
