//===- ParamInit.cpp - Initial values of model parameters -----------------===//

#include "gnnrt/train/ParamInit.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"
#include "gnnrt/support/Shape.h"

#include <cmath>

namespace gnnrt {

namespace {

/// (fan_in, fan_out) = (size(-2), size(-1)), with missing dims taken as 1.
std::pair<double, double> fans(const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  double fanOut = rank >= 1 ? double(shape[rank - 1]) : 1.0;
  double fanIn = rank >= 2 ? double(shape[rank - 2]) : 1.0;
  return {fanIn, fanOut};
}

const char *initName(Init init) {
  switch (init) {
  case Init::Zeros:
    return "zeros";
  case Init::Ones:
    return "ones";
  case Init::Glorot:
    return "glorot";
  case Init::Kaiming:
    return "kaiming";
  case Init::Uniform:
    return "uniform";
  case Init::Normal:
    return "normal";
  case Init::Constant:
    return "constant";
  }
  return "?";
}

size_t expectedArgs(Init init) {
  switch (init) {
  case Init::Uniform:
  case Init::Normal:
    return 2;
  case Init::Constant:
    return 1;
  default:
    return 0;
  }
}

template <typename Fn> void fill(int64_t n, float *values, Fn valueAt) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i)
    values[i] = valueAt(uint64_t(i));
}

} // namespace

double glorotBound(const std::vector<int64_t> &shape) {
  auto [fanIn, fanOut] = fans(shape);
  return std::sqrt(6.0 / (fanIn + fanOut));
}

double kaimingBound(const std::vector<int64_t> &shape) {
  return std::sqrt(6.0 / fans(shape).first);
}

uint64_t paramInitStream(int64_t index) {
  return (uint64_t(0x50415241) << 32) | uint64_t(index); // "PARA"
}

void initParameter(const ParamInfo &info, uint64_t seed, uint64_t stream,
                   float *values) {
  const std::vector<double> &args = info.initArgs;
  if (args.size() != expectedArgs(info.init))
    throw DataError("parameter '" + info.name + "': " + initName(info.init) +
                    " takes " + std::to_string(expectedArgs(info.init)) +
                    " arguments, got " + std::to_string(args.size()));
  const int64_t n = numElements(info.shape);
  auto uniformIn = [&](double low, double high) {
    fill(n, values, [=](uint64_t i) {
      return float(low + (high - low) * uniform(seed, stream, i));
    });
  };
  switch (info.init) {
  case Init::Zeros:
  case Init::Ones:
  case Init::Constant: {
    float value = info.init == Init::Zeros  ? 0.0f
                  : info.init == Init::Ones ? 1.0f
                                            : float(args[0]);
    fill(n, values, [=](uint64_t) { return value; });
    return;
  }
  case Init::Glorot: {
    double a = glorotBound(info.shape);
    uniformIn(-a, a);
    return;
  }
  case Init::Kaiming: {
    double b = kaimingBound(info.shape);
    uniformIn(-b, b);
    return;
  }
  case Init::Uniform:
    uniformIn(args[0], args[1]);
    return;
  case Init::Normal: {
    double mean = args[0], std = args[1];
    fill(n, values, [=](uint64_t i) {
      return float(mean + std * normal(seed, stream, i));
    });
    return;
  }
  }
}

} // namespace gnnrt
