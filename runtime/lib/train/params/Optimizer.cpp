//===- Optimizer.cpp - Adam, AdamW and SGD with PyTorch semantics ---------===//
//
// Each update is written in the operation order of torch.optim's
// single-tensor (foreach=False) implementation, in float32 with the scalar
// coefficients computed in double once per step, so results match PyTorch
// to float rounding.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/Optimizer.h"

#include "gnnrt/support/CpuIsa.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Glob.h"
#include "gnnrt/train/Program.h"

#include <cmath>
#include <omp.h>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace gnnrt {

namespace {
/// Below this many elements a parallel region costs more than the update.
constexpr int64_t kParallelThreshold = 1 << 15;

/// Adam's update of elements [0, n), in parallel for a large tensor. Written
/// once, compiled for x86-64 and for AVX-512 (sqrt and division are exact
/// in either, and contraction into FMA is off, so the bits are the same);
/// a small model's step updates dozens of small tensors per batch. The
/// range loop takes the rule by value and restrict arrays, outside any
/// OpenMP region (whose outlining loses both): otherwise each store to p
/// might change the rule or the other arrays, and the loop stays scalar.
#define GNNRT_ADAM_LOOPS(NAME)                                                 \
  template <AdamRule::Decay D>                                                 \
  void NAME##Loop(const AdamRule rule, int64_t begin, int64_t end,            \
                  float *__restrict p, float *__restrict m,                    \
                  float *__restrict v, const float *__restrict g) {            \
    for (int64_t i = begin; i < end; ++i)                                      \
      rule.applyWith<D>(p[i], m[i], v[i], g[i]);                               \
  }                                                                            \
  void NAME##Range(const AdamRule &rule, int64_t begin, int64_t end,          \
                   float *p, float *m, float *v, const float *g) {             \
    switch (rule.decayKind()) {                                                \
    case AdamRule::Decay::Decoupled:                                           \
      return NAME##Loop<AdamRule::Decay::Decoupled>(rule, begin, end, p, m, v, \
                                                    g);                        \
    case AdamRule::Decay::L2:                                                  \
      return NAME##Loop<AdamRule::Decay::L2>(rule, begin, end, p, m, v, g);    \
    case AdamRule::Decay::None:                                                \
      return NAME##Loop<AdamRule::Decay::None>(rule, begin, end, p, m, v, g);  \
    }                                                                          \
  }                                                                            \
  void NAME(const AdamRule &rule, int64_t n, float *p, float *m, float *v,     \
            const float *g) {                                                  \
    if (n < kParallelThreshold) {                                              \
      NAME##Range(rule, 0, n, p, m, v, g);                                     \
      return;                                                                  \
    }                                                                          \
    _Pragma("omp parallel") {                                                  \
      const int64_t threads = omp_get_num_threads(),                           \
                    t = omp_get_thread_num();                                  \
      NAME##Range(rule, n * t / threads, n * (t + 1) / threads, p, m, v, g);   \
    }                                                                          \
  }

// This file is compiled with -ffp-contract=off and -fno-math-errno
// (runtime/CMakeLists.txt): an optimize pragma here would keep the rule
// from being inlined.
GNNRT_ADAM_LOOPS(adamBaseline)
} // namespace

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
namespace {
GNNRT_ADAM_LOOPS(adamAvx512)
} // namespace
#pragma GCC pop_options
#undef GNNRT_ADAM_LOOPS

/// Every optimizer and its name, in the records' order.
constexpr std::pair<OptimizerKind, const char *> kOptimizers[] = {
#define GNN_TRAIN_OPTIMIZER(NAME, ENUMERATOR, HYPERPARAMETERS, WEIGHT_DECAY,   \
                            SUMMARY)                                           \
  {OptimizerKind::ENUMERATOR, #NAME},
#include "gnnrt/train/TrainSettings.def"
};

const char *optimizerName(OptimizerKind kind) {
  for (const auto &[k, name] : kOptimizers)
    if (k == kind)
      return name;
  return kOptimizers[0].second;
}

OptimizerConfig OptimizerConfig::fromSettings(const TrainSettings &settings) {
  OptimizerConfig config;
  bool known = false;
  std::string names; // "adam, ... or sgd"
  const size_t count = std::size(kOptimizers);
  for (size_t i = 0; i < count; ++i) {
    const auto &[kind, name] = kOptimizers[i];
    names += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + std::string(name);
    if (settings.optimizer == name) {
      config.kind = kind;
      known = true;
    }
  }
  if (!known)
    throw DataError("unknown optimizer '" + settings.optimizer +
                    "' (expected " + names + ")");
  config.lr = settings.lr;
  config.weightDecay = settings.weightDecay;
  config.beta1 = settings.beta1;
  config.beta2 = settings.beta2;
  config.eps = settings.eps;
  config.momentum = settings.momentum;
  return config;
}

namespace {
/// `v` exactly, as the program could write it.
std::string exactNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

/// `group(c1, lr = 0.005, frozen = true)`: the settings a group gives.
std::string describe(const TrainSettings::ParamGroup &group) {
  std::string text = "group(" + group.name;
  if (group.lr)
    text += ", lr = " + exactNumber(*group.lr);
  if (group.weightDecay)
    text += ", weight_decay = " + exactNumber(*group.weightDecay);
  if (group.frozen)
    text += ", frozen = true";
  return text + ")";
}
} // namespace

std::vector<ParamUpdate> paramUpdates(const OptimizerConfig &config,
                                      const TrainSettings &settings,
                                      const std::vector<ParamInfo> &params) {
  std::vector<ParamUpdate> updates;
  for (const ParamInfo &p : params) {
    ParamUpdate u;
    u.lr = config.lr;
    u.weightDecay = config.weightDecay;
    u.buffer = p.buffer;
    for (const TrainSettings::ParamGroup &group : settings.paramGroups) {
      if (!globMatch(group.pattern, p.name))
        continue;
      u.lr = group.lr.value_or(config.lr);
      u.weightDecay = group.weightDecay.value_or(config.weightDecay);
      u.frozen = group.frozen;
      u.group = describe(group);
      break;
    }
    updates.push_back(std::move(u));
  }
  return updates;
}

Optimizer::Optimizer(const OptimizerConfig &config, std::vector<int64_t> sz,
                     std::vector<ParamUpdate> perParam)
    : cfg(config), baseLr(config.lr), sizes(std::move(sz)),
      updates(std::move(perParam)) {
  if (updates.empty())
    updates.assign(sizes.size(), ParamUpdate{cfg.lr, cfg.weightDecay});
  if (updates.size() != sizes.size())
    throw std::logic_error("Optimizer: one ParamUpdate per tensor");
  bool adam = cfg.kind != OptimizerKind::Sgd;
  for (int64_t n : sizes) {
    first.emplace_back(adam || cfg.momentum != 0 ? size_t(n) : 0, 0.0f);
    second.emplace_back(adam ? size_t(n) : 0, 0.0f);
  }
}

AdamRule::AdamRule(const OptimizerConfig &cfg, int64_t step)
    : decoupled(cfg.kind == OptimizerKind::AdamW),
      weightDecay(decoupled ? 0.0f : float(cfg.weightDecay)),
      decay(float(1 - cfg.lr * cfg.weightDecay)), b2(float(cfg.beta2)),
      // Like torch, take 1 - beta in double before rounding to float:
      // 1 - float(0.999) would be off by 1e-5 relative.
      oneMinusB1(float(1 - cfg.beta1)), oneMinusB2(float(1 - cfg.beta2)),
      eps(float(cfg.eps)),
      stepSize(float(cfg.lr / (1 - std::pow(cfg.beta1, double(step))))),
      bias2Sqrt(float(std::sqrt(1 - std::pow(cfg.beta2, double(step))))) {}

std::vector<Optimizer::StateKind> Optimizer::state() {
  if (cfg.kind != OptimizerKind::Sgd)
    return {{"exp_avg", &first}, {"exp_avg_sq", &second}};
  if (cfg.momentum != 0)
    return {{"momentum_buffer", &first}};
  return {};
}

void Optimizer::step(const std::vector<float *> &params,
                     const std::vector<float *> &grads) {
  ++stepCount;
  for (size_t t = 0; t < sizes.size(); ++t) {
    if (updates[t].buffer) {
      // A running statistic: its change, as SGD without momentum at rate
      // -weight would add it (so the device's SGD kernel adds it alike).
      const float rate = -float(bufferWeight);
      float *p = params[t];
      const float *g = grads[t];
      for (int64_t i = 0; i < sizes[t]; ++i)
        p[i] -= rate * g[i];
      continue;
    }
    if (updates[t].frozen)
      continue;
    const float lr = float(learningRate(t)), wd = float(updates[t].weightDecay);
    float *p = params[t];
    const float *g = grads[t];
    const int64_t n = sizes[t];
    if (cfg.kind == OptimizerKind::Sgd) {
      const float mu = float(cfg.momentum);
      float *buf = first[t].data();
      const bool firstStep = stepCount == 1;
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
      for (int64_t i = 0; i < n; ++i) {
        float d = g[i];
        if (wd != 0)
          d += wd * p[i];
        if (mu != 0) {
          buf[i] = firstStep ? d : mu * buf[i] + d;
          d = buf[i];
        }
        p[i] -= lr * d;
      }
      continue;
    }
    OptimizerConfig own = cfg;
    own.lr = learningRate(t);
    own.weightDecay = updates[t].weightDecay;
    const AdamRule rule(own, stepCount);
    float *m = first[t].data(), *v = second[t].data();
    (useAvx512() ? adamAvx512 : adamBaseline)(rule, n, p, m, v, g);
  }
}

} // namespace gnnrt
