//===- ParameterStore.h - A model's parameters and gradients ----*- C++ -*-===//
//
// Internal to gnnrt. Owns one value buffer and one gradient buffer per
// parameter of a CompiledProgram, in CompiledProgram::params order, and
// points an ExecContext at them. float for training, double for gradient
// checks.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PARAMETERSTORE_H
#define GNNRT_LIB_TRAIN_PARAMETERSTORE_H

#include "gnnrt/support/Shape.h"
#include "gnnrt/train/Program.h"

#include <algorithm>
#include <vector>

namespace gnnrt {

template <typename T> class ParameterStore {
public:
  explicit ParameterStore(std::vector<ParamInfo> params)
      : info(std::move(params)) {
    for (const ParamInfo &p : info) {
      values.emplace_back(size_t(numElements(p.shape)), T(0));
      grads.emplace_back(size_t(numElements(p.shape)), T(0));
    }
  }

  size_t size() const { return info.size(); }
  /// Total scalar count over all parameters.
  int64_t totalElements() const {
    int64_t n = 0;
    for (const auto &v : values)
      n += int64_t(v.size());
    return n;
  }

  std::vector<int64_t> sizes() const {
    std::vector<int64_t> n;
    for (const auto &v : values)
      n.push_back(int64_t(v.size()));
    return n;
  }
  std::vector<T *> valuePointers() { return pointers(values); }
  std::vector<T *> gradPointers() { return pointers(grads); }

  /// Points ctx.params and ctx.grads at this store.
  void bind(ExecContext<T> &ctx) {
    ctx.params = valuePointers();
    ctx.grads = gradPointers();
  }

  /// trainStep accumulates into the gradients; call before each step.
  void zeroGrads() {
    for (auto &g : grads)
      std::fill(g.begin(), g.end(), T(0));
  }

  std::vector<ParamInfo> info;
  std::vector<std::vector<T>> values, grads;

private:
  static std::vector<T *> pointers(std::vector<std::vector<T>> &buffers) {
    std::vector<T *> out;
    for (auto &b : buffers)
      out.push_back(b.data());
    return out;
  }
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PARAMETERSTORE_H
