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
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_OPTIMIZER_H
#define GNNRT_TRAIN_OPTIMIZER_H

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

struct TrainSettings;

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

/// Adam's (or AdamW's) update of one element at step `step` (1-based), in
/// float with torch's arithmetic: the dense optimizer and the learned input
/// rows' sparse Adam share it, so the two update a value alike. Inline, so
/// that a loop over a tensor vectorizes.
class AdamRule {
public:
  AdamRule(const OptimizerConfig &cfg, int64_t step);

  /// Updates parameter p and its moments m, v from gradient g.
  void apply(float &p, float &m, float &v, float g) const {
    if (decoupled)
      p *= decay;
    else if (weightDecay != 0)
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
  /// An optimizer for tensors of the given element counts, with zero state.
  Optimizer(const OptimizerConfig &config, std::vector<int64_t> sizes);

  /// One update of every tensor: params[i] and grads[i] hold sizes[i]
  /// values. Gradients are read only.
  void step(const std::vector<float *> &params,
            const std::vector<float *> &grads);

  /// Updates taken so far (PyTorch's `step` in the state).
  int64_t steps() const { return stepCount; }
  const OptimizerConfig &config() const { return cfg; }

  /// Scales the configured learning rate by `scale` for the steps that
  /// follow (a schedule's epoch; 1: the configured rate, exactly).
  void setLearningRateScale(double scale) { cfg.lr = baseLr * scale; }

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
  /// Adam/AdamW: first and second moments; SGD: the momentum buffer in
  /// `first` (allocated only when momentum != 0).
  std::vector<std::vector<float>> first, second;
  int64_t stepCount = 0;
};

} // namespace gnnrt

#endif // GNNRT_TRAIN_OPTIMIZER_H
