//===- DeviceExecution.cu - Host contexts run by device entry points ------===//
//
// See gnnrt/train/DeviceProgram.h. Each adapter call builds a device
// ExecContext from the trainer's host one: scalars copied, arrays mirrored
// into device buffers (DeviceState.h); the parameters are the resident
// ones while a device residence is active (DeviceParameters.cu), otherwise
// they and the gradients are copied in; a sampled batch staged while the
// step before ran (AsyncBatchCopies.h) is taken as it is. Then it runs the
// device entry
// point and copies back what the trainer reads: the logits, the input
// rows' gradient, and the gradients unless they are resident.
//
//===----------------------------------------------------------------------===//

#include "AsyncBatchCopies.h"
#include "DeviceState.h"

#include "gnnrt/comm/NcclCommunicator.h"
#include "gnnrt/train/DeviceSelection.h"

#include <cstdio>

#include <algorithm>
#include <deque>
#include <memory>
#include <type_traits>

namespace gnnrt {

using device::DeviceState;
using device::Traffic;

namespace device {

DeviceState::DeviceState() = default;

DeviceState::~DeviceState() {
  batchCopies.reset();
  // At exit the driver may already be gone: errors are ignored.
  for (auto &entry : buffers)
    cudaFree(entry.second.data);
}

void *DeviceState::buffer(const std::string &key, size_t bytes) {
  DeviceBuffer &b = buffers[key];
  if (b.capacity < bytes) {
    check(cudaFree(b.data), "free of " + key);
    b = DeviceBuffer();
    check(cudaMalloc(&b.data, bytes),
          "allocation of " + key + " (" + std::to_string(bytes) + " bytes)");
    b.capacity = bytes;
  }
  return b.data;
}

void DeviceState::copy(void *to, const void *from, size_t bytes,
                       cudaMemcpyKind kind, Traffic traffic,
                       const std::string &what) {
  if (bytes == 0)
    return;
  check(cudaMemcpy(to, from, bytes, kind), "copy of " + what);
  int64_t &counter = traffic == Traffic::Once         ? transfers.onceBytes
                     : traffic == Traffic::Batch      ? transfers.batchBytes
                     : traffic == Traffic::Parameters ? transfers.parameterBytes
                                                      : transfers.evaluationBytes;
  counter += int64_t(bytes);
}

GraphView DeviceState::mirrorGraph(const std::string &key, const GraphView &g,
                                   bool fixed) {
  const Traffic t = Traffic::Batch;
  GraphView d = g;
  d.inOffsets =
      mirror(key + ".inOffsets", g.inOffsets, g.numDst + 1, fixed, t);
  d.edgeSrc = mirror(key + ".edgeSrc", g.edgeSrc, g.numEdges, fixed, t);
  d.edgeDst = mirror(key + ".edgeDst", g.edgeDst, g.numEdges, fixed, t);
  d.outOffsets =
      mirror(key + ".outOffsets", g.outOffsets, g.numSrc + 1, fixed, t);
  d.outEdges = mirror(key + ".outEdges", g.outEdges, g.numEdges, fixed, t);
  d.outDst = mirror(key + ".outDst", g.outDst, g.numEdges, fixed, t);
  d.edgeType = mirror(key + ".edgeType", g.edgeType, g.numEdges, fixed, t);
  return d;
}

DeviceState &deviceState() {
  static DeviceState s;
  return s;
}

} // namespace device

namespace {

DeviceState &state() { return device::deviceState(); }

int64_t elementsOf(const ParamInfo &p) {
  int64_t n = 1;
  for (int64_t d : p.shape)
    n *= d;
  return n;
}

/// Points `ctx` at the resident parameters (and gradients, when
/// `training`) if `T`'s entry points train them: float32 ones, while a
/// device residence is active. Returns whether it did.
template <typename T> bool useResident(ExecContext<T> &ctx, bool training) {
  if constexpr (std::is_same_v<T, float>) {
    const device::ResidentParameters *resident = state().resident;
    if (!resident)
      return false;
    ctx.params = resident->values;
    if (training)
      ctx.grads = resident->grads;
    return true;
  }
  return false;
}

/// A call's device context and what it needs to copy back.
template <typename T> struct DeviceCall {
  ExecContext<T> ctx;
  std::vector<GraphView> blocks;
  std::vector<int64_t> paramElements;
  int64_t outputRows = 0, inputRows = 0;
  /// Input rows held here: a rank's full-graph features are its owned rows
  /// (destinations); its halo's arrive through the exchange.
  int64_t featureRows = 0;
  /// The gradients are the resident ones: nothing to copy back.
  bool residentGrads = false;
  /// relation(g, "name")'s device subgraphs (ctx.relationGraphs), and the
  /// host storage of any a host graph's relation index does not keep.
  std::vector<typename ExecContext<T>::RelationGraph> relationGraphs;
  std::deque<GraphStorage> relationScratch;
};

/// The staged copy of a sampled training batch (AsyncBatchCopies), if this
/// is the batch staged.
template <typename T>
bool takeStagedBatch(const ExecContext<T> &host, bool training,
                     DeviceCall<T> &call) {
  if constexpr (std::is_same_v<T, float>) {
    DeviceState &s = state();
    if (training && host.blocks && s.batchCopies &&
        s.batchCopies->take(host, call.ctx, call.blocks)) {
      ++s.transfers.stagedSteps;
      return true;
    }
  }
  return false;
}

/// The graph or blocks, rows, labels and ids of `host`, mirrored now.
template <typename T>
void mirrorData(const ExecContext<T> &host, bool fixed, int numBlocks,
                DeviceCall<T> &call) {
  DeviceState &s = state();
  const Traffic batch = Traffic::Batch;
  ExecContext<T> &d = call.ctx;
  d.graph = s.mirrorGraph("graph", host.graph, fixed);
  if (host.readout.numDst) {
    d.readout = s.mirrorGraph("readout", host.readout, fixed);
    d.graphIds = s.mirror("graphIds", host.graphIds, host.readout.numDst,
                          fixed, batch);
  }
  if (host.pairs.numEdges)
    d.pairs = s.mirrorGraph("pairs", host.pairs, fixed);
  for (int k = 0; k < numBlocks; ++k)
    call.blocks.push_back(
        s.mirrorGraph("block" + std::to_string(k), host.blocks[k], fixed));
  d.blocks = numBlocks ? call.blocks.data() : nullptr;
  // Rows gathered on the device are read where they are.
  d.features = host.deviceFeatures
                   ? host.deviceFeatures
                   : s.mirror("features", host.features,
                              call.featureRows * host.numFeatures, fixed,
                              batch);
  d.labels = s.mirror("labels", host.labels, call.outputRows, fixed, batch);
  d.lossMask =
      s.mirror("lossMask", host.lossMask, call.outputRows, fixed, batch);
  d.nodeIds = s.mirror("nodeIds", host.nodeIds, call.inputRows, fixed, batch);
  d.edgeIds =
      s.mirror("edgeIds", host.edgeIds, host.graph.numEdges, fixed, batch);
  d.srcDegree =
      s.mirror("srcDegree", host.srcDegree, host.graph.numSrc, fixed, batch);
  d.dstDegree =
      s.mirror("dstDegree", host.dstDegree, host.graph.numDst, fixed, batch);
}

/// The subgraphs of the relations the program selects by name, of the
/// call's graph and of each block: built on the host (where the host
/// graph's relation index keeps them from call to call) and mirrored as
/// their graphs are, so a full graph's are copied once.
template <typename T>
void mirrorRelations(const ExecContext<T> &host, bool fixed, int numBlocks,
                     DeviceCall<T> &call) {
  DeviceState &s = state();
  if (s.relationNames.empty())
    return;
  std::vector<std::pair<const GraphView *, const GraphView *>> graphs = {
      {&host.graph, &call.ctx.graph}};
  for (int k = 0; k < numBlocks; ++k)
    graphs.push_back({&host.blocks[k], &call.blocks[size_t(k)]});
  for (const std::string &name : s.relationNames) {
    const int32_t r = host.relationId(name.c_str());
    for (size_t k = 0; k < graphs.size(); ++k) {
      call.relationScratch.emplace_back();
      const GraphView sub =
          relationView(*graphs[k].first, r, call.relationScratch.back());
      call.relationGraphs.push_back(
          {graphs[k].second->inOffsets, r,
           s.mirrorGraph("relation" + std::to_string(r) + "." +
                             std::to_string(k),
                         sub, fixed)});
    }
  }
  call.ctx.relationGraphs = &call.relationGraphs;
}

/// The parameters (and gradients, when `training`): the resident ones, or
/// the host's copied in.
template <typename T>
void useParameters(const ExecContext<T> &host, bool training,
                   DeviceCall<T> &call) {
  DeviceState &s = state();
  ExecContext<T> &d = call.ctx;
  DataDims dims;
  dims.features = host.numFeatures;
  dims.classes = host.numClasses;
  dims.relations = host.numRelations;
  dims.nodes = host.numGlobalNodes;
  const std::vector<ParamInfo> infos = s.params(dims);
  if (infos.size() != host.params.size())
    throw DeviceError(
        "the context holds " + std::to_string(host.params.size()) +
        " parameters, the program declares " + std::to_string(infos.size()));
  // Trained in place on the device: nothing crosses.
  call.residentGrads = useResident(d, training);
  if (!call.residentGrads) {
    // The host's parameters every call; the gradients too, since the
    // entry point adds to the caller's.
    for (size_t i = 0; i < infos.size(); ++i) {
      const int64_t n = elementsOf(infos[i]);
      call.paramElements.push_back(n);
      d.params.push_back(s.mirror("param" + std::to_string(i),
                                  static_cast<const T *>(host.params[i]), n,
                                  /*fixed=*/false, Traffic::Parameters));
      if (training)
        d.grads.push_back(s.mirror("grad" + std::to_string(i),
                                   static_cast<const T *>(host.grads[i]), n,
                                   /*fixed=*/false, Traffic::Parameters));
    }
  }
}

template <typename T>
void prepareCall(const ExecContext<T> &host, bool training,
                 DeviceCall<T> &call) {
  DeviceState &s = state();
  // Full-graph contexts point at the same arrays for the whole run, unless
  // learned input rows rewrite the features between steps; the float64
  // entry points serve the gradient check, which perturbs them in place.
  // Batches of graphs (a readout graph) and a link program's pairs and
  // labels are new every step too.
  const bool fixed = std::is_same_v<T, float> && host.blocks == nullptr &&
                     host.inputGrad == nullptr && host.readout.numDst == 0 &&
                     host.pairs.numEdges == 0;
  const int numBlocks = host.blocks ? s.numBlocks : 0;
  ExecContext<T> &d = call.ctx;
  d.numFeatures = host.numFeatures;
  d.numClasses = host.numClasses;
  d.numRelations = host.numRelations;
  d.numGlobalNodes = host.numGlobalNodes;
  // Host lists: node_type(g, "name") looks its ids up on the host.
  d.relations = host.relations;
  d.nodeTypes = host.nodeTypes;
  d.seed = host.seed;
  d.step = host.step;
  d.lossScale = host.lossScale;
  call.inputRows = numBlocks ? host.blocks[0].numSrc : host.graph.numSrc;
  // A link program's output has a row per pair (sampled or not), a
  // graph-level program's a row per graph of the batch.
  call.outputRows = host.pairs.numEdges ? host.pairs.numEdges
                    : numBlocks         ? host.blocks[numBlocks - 1].numDst
                    : host.readout.numDst ? host.readout.numDst
                                          : host.graph.numDst;
  call.featureRows = numBlocks ? call.inputRows : host.graph.numDst;
  if (!takeStagedBatch(host, training, call))
    mirrorData(host, fixed, numBlocks, call);
  mirrorRelations(host, fixed, numBlocks, call);
  d.deviceHalo = s.deviceHalo(host.halo);
  d.devicePairHalo = s.devicePairHalo(host.pairHalo);
  useParameters(host, training, call);
  if (training && host.inputGrad)
    d.inputGrad = s.mirror("inputGrad", static_cast<const T *>(host.inputGrad),
                           call.featureRows * host.numFeatures, false,
                           Traffic::Batch);
  d.deviceWorkspace = &s.workspace;
}

template <typename T>
void copyToHost(T *host, const T *device, int64_t count, Traffic traffic,
                const char *what) {
  if (count > 0)
    state().copy(host, device, size_t(count) * sizeof(T),
                 cudaMemcpyDeviceToHost, traffic,
                 std::string(what) + " to the host");
}

template <typename T>
void runForward(ExecContext<T> &host, void (*entry)(ExecContext<T> &)) {
  if (!entry)
    throw DeviceError("the program has no device forward for this type");
  DeviceCall<T> call;
  prepareCall(host, /*training=*/false, call);
  const int64_t outputs = call.outputRows * host.numClasses;
  call.ctx.output = static_cast<T *>(state().buffer(
      "output", size_t(std::max<int64_t>(outputs, 1)) * sizeof(T)));
  entry(call.ctx);
  copyToHost(host.output, call.ctx.output, outputs, Traffic::Evaluation,
             "the logits");
  host.unplannedBytes = call.ctx.unplannedBytes;
}

/// The score's factors: the forward's inputs, the factors read back by the
/// entry point itself into host.rankFactors.
void rankFactorsF32(ExecContext<float> &host) {
  auto entry = state().entries.rankFactorsF32;
  if (!entry)
    throw DeviceError("the program has no device rank factors");
  DeviceCall<float> call;
  prepareCall(host, /*training=*/false, call);
  call.ctx.rankFactors = host.rankFactors;
  entry(call.ctx);
  host.unplannedBytes = call.ctx.unplannedBytes;
}

template <typename T>
T runTrainStep(ExecContext<T> &host, T (*entry)(ExecContext<T> &)) {
  if (!entry)
    throw DeviceError("the program has no device train step for this type");
  DeviceCall<T> call;
  prepareCall(host, /*training=*/true, call);
  const T loss = entry(call.ctx);
  if (!call.residentGrads)
    for (size_t i = 0; i < call.paramElements.size(); ++i)
      copyToHost(host.grads[i], call.ctx.grads[i], call.paramElements[i],
                 Traffic::Parameters, "a gradient");
  if (host.inputGrad)
    copyToHost(host.inputGrad, call.ctx.inputGrad,
               call.featureRows * host.numFeatures, Traffic::Batch,
               "the input gradient");
  host.unplannedBytes = call.ctx.unplannedBytes;
  if (std::is_same_v<T, float>)
    ++state().transfers.trainSteps;
  return loss;
}

void forwardF32(ExecContext<float> &ctx) {
  runForward(ctx, state().entries.forwardF32);
}
float trainStepF32(ExecContext<float> &ctx) {
  return runTrainStep(ctx, state().entries.trainStepF32);
}
void forwardF64(ExecContext<double> &ctx) {
  runForward(ctx, state().entries.forwardF64);
}
double trainStepF64(ExecContext<double> &ctx) {
  return runTrainStep(ctx, state().entries.trainStepF64);
}

std::unique_ptr<Communicator> useDevice(int device, Communicator &comm) {
  selectDevice(device, comm);
  if (comm.size() == 1)
    return nullptr;
  // The ranks' collectives between their devices, bootstrapped over MPI.
  std::unique_ptr<Communicator> nccl = makeNcclCommunicator(comm);
  if (comm.rank() == 0) {
    std::printf("%s\n", describeNcclCommunicator(*nccl).c_str());
    std::fflush(stdout);
  }
  return nccl;
}

int64_t workspaceBytes() { return state().workspace.bytes(); }

DeviceTransfers transfers() {
  DeviceTransfers t = state().transfers;
  t.batchBytes += state().sampledRowBytes;
  return t;
}

void stageBatch(const ExecContext<float> &next) {
  DeviceState &s = state();
  if (!s.batchCopies)
    s.batchCopies = std::make_unique<device::AsyncBatchCopies>();
  s.batchCopies->stage(next, s.numBlocks);
}

} // namespace

void installDeviceEntryPoints(CompiledProgram &program,
                              const DeviceEntryPoints &device) {
  DeviceState &s = state();
  s.entries = device;
  s.params = program.params;
  s.numBlocks = program.numBlocks;
  s.relationNames.clear();
  for (const RelationUse &use : program.relationUses)
    if (std::find(s.relationNames.begin(), s.relationNames.end(), use.name) ==
        s.relationNames.end())
      s.relationNames.push_back(use.name);
  program.forwardF32 = &forwardF32;
  program.trainStepF32 = &trainStepF32;
  program.forwardF64 = device.forwardF64 ? &forwardF64 : nullptr;
  program.trainStepF64 = device.trainStepF64 ? &trainStepF64 : nullptr;
  program.rankFactorsF32 = device.rankFactorsF32 ? &rankFactorsF32 : nullptr;
  program.useDevice = &useDevice;
  program.deviceWorkspaceBytes = &workspaceBytes;
  program.makeDeviceResidence = &device::makeDeviceResidence;
  program.deviceTransfers = &transfers;
  program.stageBatch = program.numBlocks > 0 ? &stageBatch : nullptr;
  program.makeDeviceBatchSource =
      program.numBlocks > 0 ? &device::makeDeviceBatchSource : nullptr;
}

} // namespace gnnrt
