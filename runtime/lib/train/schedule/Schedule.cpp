//===- Schedule.cpp - the choice of the way of training -------------------===//
//
// makeSchedule: the one place that decides, from the compiled program and
// the launch, which Schedule trains it (see Schedule.h).
//
//===----------------------------------------------------------------------===//

#include "Schedule.h"

#include "FullGraphSchedule.h"
#include "RemoteSampledSchedule.h"
#include "SampledSchedule.h"
#include "graphs/GraphBatchSchedule.h"
#include "links/LinkSchedule.h"
#include "offload/OffloadSchedule.h"
#include "output/Predictions.h"

#include <fstream>

namespace gnnrt {

void Schedule::writePredictions(const std::string &path, Communicator &comm) {
  const std::vector<float> &logits = predict();
  const TrainingData &t = data();
  const int64_t rows = t.data.numNodes, classes = t.data.numClasses;
  if (t.nodeIds.empty())
    gnnrt::writePredictions(path, logits.data(), rows, classes);
  else
    writeGatheredPredictions(path, logits.data(), rows, classes,
                             t.nodeIds.data(), t.numGlobalNodes, comm);
}

std::unique_ptr<Schedule> makeSchedule(const CompiledProgram &program,
                                       const DriverOptions &options,
                                       Communicator &comm,
                                       const SamplerRanks *samplerRanks) {
  if (options.maxStepsPerEpoch > 0 && program.numBlocks == 0)
    throw UsageError("--steps-per-epoch: only a sampled program (batches = "
                     "neighbor(...)) cuts its epochs into batches of seeds or "
                     "links");
  // Link prediction: its own schedule, which refuses the launches it does
  // not support yet.
  if (program.settings.links.enabled)
    return makeLinkSchedule(program, options, comm, samplerRanks != nullptr);
  if (!options.embeddingsFile.empty())
    throw UsageError("--embeddings: only a link-prediction program (pairs(g), "
                     "loss = bce) writes node embeddings; --predict writes "
                     "this program's outputs");
  // Graph-level programs batch graphs of a collection, on any rank count.
  if (program.settings.graphBatches.batchSize > 0) {
    if (samplerRanks || !program.settings.offloadDir.empty())
      throw UsageError(std::string(samplerRanks ? "--samplers" : "--offload") +
                       ": a graph-level program (batches = graphs(...)) "
                       "trains on batches of whole graphs, which it packs "
                       "itself in memory");
    return std::make_unique<GraphBatchSchedule>(program, options, comm);
  }
  if (samplerRanks)
    return std::make_unique<RemoteSampledSchedule>(program, options, comm,
                                                   *samplerRanks);
  // Out of core: it checks itself that the program and launch suit it.
  if (!program.settings.offloadDir.empty())
    return std::make_unique<OffloadSchedule>(program, options, comm);
  // A gnn-partition output directory holds a manifest.
  const bool partitionDirectory =
      !options.dataDir.empty() &&
      std::ifstream(options.dataDir + "/manifest.json").good();
  const bool distributed = comm.size() > 1 || partitionDirectory;
  // Sampled programs were compiled to train on the blocks of mini-batches:
  // full-graph steps would not match their entry points.
  const bool sampled = program.numBlocks > 0;
  if (sampled && distributed)
    return std::make_unique<DistributedSampledSchedule>(program, options, comm,
                                                        partitionDirectory);
  if (sampled)
    return std::make_unique<SampledSchedule>(program, options, comm);
  if (distributed)
    return std::make_unique<DistributedFullGraphSchedule>(
        program, options, comm, partitionDirectory);
  return std::make_unique<FullGraphSchedule>(program, options, comm);
}

} // namespace gnnrt
