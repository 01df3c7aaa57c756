//===- Optimizer.h - Adam, AdamW and SGD with PyTorch semantics -*- C++ -*-===//
//
// The optimizers a train block can name, with the update rules of
// torch.optim (defaults: no amsgrad, no Nesterov, no dampening) so that a
// .gnn model trains like its PyTorch counterpart step for step:
//  - Adam:  g += wd * p (L2 penalty in the gradient); m, v moving averages;
//           p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
//  - AdamW: p *= 1 - lr * wd (decoupled decay), then Adam with wd = 0.
//  - SGD:   g += wd * p; with momentum, buf = g on the first step and
//           buf = momentum * buf + g afterwards, g = buf; p -= lr * g.
// State is float32 like the parameters (as in PyTorch); updates are
// elementwise, so results do not depend on the thread count.
//
// Each parameter has its own learning rate and weight decay (a train
// block's `param_groups`, as torch.optim's parameter groups; the
// optimizer's values otherwise), or is frozen: a frozen parameter is not
// updated and its optimizer state does not change.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_OPTIMIZER_H
#define GNNRT_TRAIN_OPTIMIZER_H

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

struct TrainSettings;
struct ParamInfo;

/// The optimizers of TrainSettings.def (GNN_TRAIN_OPTIMIZER), by the
/// ENUMERATOR each record gives.
enum class OptimizerKind {
#define GNN_TRAIN_OPTIMIZER(NAME, ENUMERATOR, HYPERPARAMETERS, WEIGHT_DECAY,   \
                            SUMMARY)                                           \
  ENUMERATOR,
#include "gnnrt/train/TrainSettings.def"
};

/// The name a train block gives `kind` (its record's NAME).
const char *optimizerName(OptimizerKind kind);

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::Adam;
  double lr = 0.01, weightDecay = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
         momentum = 0;

  /// The train block's optimizer; throws DataError for an unknown name.
  static OptimizerConfig fromSettings(const TrainSettings &settings);
};

/// How the optimizer updates one parameter.
struct ParamUpdate {
  /// The base learning rate (a schedule's scale multiplies it) and weight
  /// decay: its group's, or the optimizer's.
  double lr = 0.01, weightDecay = 0;
  /// No update, no change of its optimizer state.
  bool frozen = false;
  /// Its group's settings as the program writes them
  /// (`group(c1, weight_decay = 0.0005)`), "" for none: what a checkpoint
  /// records, so that a run does not resume with other groups.
  std::string group;
  /// A running statistic (ParamInfo::buffer): the value adds its gradient
  /// slot (the step's change) times Optimizer::bufferWeight, frozen or not.
  bool buffer = false;
};

/// Each parameter's update (in `params` order): the first of `settings`'
/// param_groups whose pattern matches its name, else `config`'s values.
std::vector<ParamUpdate> paramUpdates(const OptimizerConfig &config,
                                      const TrainSettings &settings,
                                      const std::vector<ParamInfo> &params);

/// Adam's (or AdamW's) update of one element at step `step` (1-based), in
/// float with torch's arithmetic: the dense optimizer and the learned input
/// rows' sparse Adam share it, so the two update a value alike. Inline, so
/// that a loop over a tensor vectorizes.
class AdamRule {
public:
  AdamRule(const OptimizerConfig &cfg, int64_t step);

  /// How the weight decays: not at all, as an L2 term of the gradient
  /// (Adam), or decoupled (AdamW).
  enum class Decay { None, L2, Decoupled };
  Decay decayKind() const {
    return decoupled         ? Decay::Decoupled
           : weightDecay != 0 ? Decay::L2
                              : Decay::None;
  }

  /// Updates parameter p and its moments m, v from gradient g.
  void apply(float &p, float &m, float &v, float g) const {
    switch (decayKind()) {
    case Decay::Decoupled:
      return applyWith<Decay::Decoupled>(p, m, v, g);
    case Decay::L2:
      return applyWith<Decay::L2>(p, m, v, g);
    case Decay::None:
      return applyWith<Decay::None>(p, m, v, g);
    }
  }
  /// apply() for a decay known at compile time: a loop over a tensor has
  /// no branch left and vectorizes.
  template <Decay D>
  void applyWith(float &p, float &m, float &v, float g) const {
    if constexpr (D == Decay::Decoupled)
      p *= decay;
    else if constexpr (D == Decay::L2)
      g += weightDecay * p;
    m += (g - m) * oneMinusB1; // torch's lerp_(grad, 1 - beta1)
    v = b2 * v + oneMinusB2 * g * g;
    const float denom = std::sqrt(v) / bias2Sqrt + eps;
    p -= stepSize * m / denom;
  }

private:
  bool decoupled;
  float weightDecay, decay, b2, oneMinusB1, oneMinusB2, eps, stepSize,
      bias2Sqrt;
};

class Optimizer {
public:
  /// An optimizer for tensors of the given element counts, with zero state;
  /// `updates[i]` says how to update tensor i (empty: all with `config`'s
  /// values).
  Optimizer(const OptimizerConfig &config, std::vector<int64_t> sizes,
            std::vector<ParamUpdate> updates = {});

  /// One update of every tensor: params[i] and grads[i] hold sizes[i]
  /// values. Gradients are read only.
  void step(const std::vector<float *> &params,
            const std::vector<float *> &grads);

  /// The weight of a running statistic's change (ParamUpdate::buffer): 1 in
  /// a single process, 1/P under P ranks, whose changes the gradient
  /// all-reduce has summed, so that every rank holds their mean.
  void setBufferWeight(double weight) { bufferWeight = weight; }
  double bufferChangeWeight() const { return bufferWeight; }

  /// Updates taken so far (PyTorch's `step` in the state).
  int64_t steps() const { return stepCount; }
  const OptimizerConfig &config() const { return cfg; }
  /// How tensor i is updated, and its learning rate this step (the base
  /// rate times the schedule's scale).
  const ParamUpdate &update(size_t i) const { return updates[i]; }
  double learningRate(size_t i) const { return updates[i].lr * lrScale; }
  /// Scales the configured learning rate, and every parameter's base rate,
  /// by `scale` for the steps that follow (a schedule's epoch; 1: the
  /// configured rates, exactly). A parameter in no group steps at
  /// config().lr, which the learned input rows read too.
  void setLearningRateScale(double scale) {
    cfg.lr = baseLr * scale;
    lrScale = scale;
  }

  /// One kind of per-tensor state, named as torch.optim names it:
  /// "exp_avg" and "exp_avg_sq" (Adam, AdamW), "momentum_buffer" (SGD with
  /// momentum). `tensors[i]` belongs to the i-th parameter.
  struct StateKind {
    const char *name;
    std::vector<std::vector<float>> *tensors;
  };
  /// The state a checkpoint must hold to continue exactly (empty for plain
  /// SGD); writable, for restoring.
  std::vector<StateKind> state();
  /// Continues after `steps` updates (the bias corrections and SGD's first
  /// step depend on it); the caller has filled state().
  void setSteps(int64_t steps) { stepCount = steps; }

private:
  OptimizerConfig cfg;
  double baseLr; ///< the configured rate, which schedules scale
  std::vector<int64_t> sizes;
  std::vector<ParamUpdate> updates;
  double lrScale = 1;
  double bufferWeight = 1;
  /// Adam/AdamW: first and second moments; SGD: the momentum buffer in
  /// `first` (allocated only when momentum != 0).
  std::vector<std::vector<float>> first, second;
  int64_t stepCount = 0;
};

} // namespace gnnrt

#endif // GNNRT_TRAIN_OPTIMIZER_H
