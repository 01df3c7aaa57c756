//===- FullGraphSchedule.h - training on the whole graph --------*- C++ -*-===//
//
// Internal to gnnrt. Full-graph training: one optimizer step per epoch over
// every node this process holds, with ctx.step = epoch - 1 (it selects the
// dropout masks), and evaluation by one forward over the same nodes, whose
// logits predict() then returns. In one process that is the whole graph;
// on each rank of a distributed run it is the rank's partition, and the
// compiled halo exchanges bring the neighbours' rows.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_FULLGRAPHSCHEDULE_H
#define GNNRT_LIB_FULLGRAPHSCHEDULE_H

#include "ScheduleBase.h"

namespace gnnrt {

/// One process, the whole graph.
class FullGraphSchedule : public ScheduleBase {
public:
  FullGraphSchedule(const CompiledProgram &program,
                    const DriverOptions &options, Communicator &comm)
      : ScheduleBase(program, options, comm) {}

  const char *name() const override { return "full_graph"; }
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  /// Runs forward into the logits and scores the three splits.
  Accuracies evaluate() override;
  /// The latest evaluation's logits.
  const std::vector<float> &predict() override { return logits; }
  void printStats(const TrainingResult &result) const override;

protected:
  TrainingData loadData() override;
};

/// A partition per rank (or a partition directory in one process); --stats
/// adds each rank's halo traffic.
class DistributedFullGraphSchedule : public FullGraphSchedule {
public:
  DistributedFullGraphSchedule(const CompiledProgram &program,
                               const DriverOptions &options, Communicator &comm,
                               bool partitionDirectory)
      : FullGraphSchedule(program, options, comm),
        partitionDirectory(partitionDirectory) {}

  const char *name() const override { return "distributed_full_graph"; }
  /// Also starts the halo's traffic counts afresh: they report training.
  void bind(ParameterStore<float> &params) override;
  void printStats(const TrainingResult &result) const override;

protected:
  TrainingData loadData() override;

private:
  bool partitionDirectory;
};

} // namespace gnnrt

#endif // GNNRT_LIB_FULLGRAPHSCHEDULE_H
