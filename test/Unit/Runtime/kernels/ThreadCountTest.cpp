//===- ThreadCountTest.cpp - Results do not depend on threads -------------===//
//
// Every OpenMP kernel gives the same bits with one thread and with two, on
// a graph and shapes large enough for the kernels to use threads.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

#ifdef _OPENMP

/// Every OpenMP kernel's float result, by name, on a graph and shapes large
/// enough for the kernels to use threads.
std::map<std::string, std::vector<float>> runAllKernels(const GraphView &g) {
  const int64_t width = 24, heads = 3;
  std::map<std::string, std::vector<float>> results;
  auto input = [](int64_t n, uint64_t seed) {
    return cast<float>(randomVector(n, seed));
  };
  const std::vector<float> x = input(g.numSrc * width, 30),
                           weight = input(g.numEdges * heads, 31),
                           dy = input(g.numDst * width, 32),
                           e = input(g.numEdges * width, 33);
  for (Reduce r : kAllReduces)
    for (bool selfLoops : {false, true}) {
      const std::string name = reduceName(r) + (selfLoops ? "+self" : "");
      std::vector<float> out(g.numDst * width), dx(x.size()), dw(weight.size()),
          de(e.size()), scattered(out.size());
      kernels::aggregate<float>(g, r, selfLoops, x.data(), width, weight.data(),
                                heads, out.data());
      kernels::aggregateGradInput<float>(g, r, selfLoops, dy.data(), x.data(),
                                         out.data(), width, weight.data(),
                                         heads, dx.data());
      kernels::aggregateGradWeight<float>(g, r, selfLoops, dy.data(), x.data(),
                                          out.data(), width, weight.data(),
                                          heads, dw.data());
      kernels::scatter<float>(g, r, e.data(), width, scattered.data());
      kernels::scatterGrad<float>(g, r, dy.data(), e.data(), scattered.data(),
                                  width, de.data());
      results["aggregate " + name] = out;
      results["aggregateGradInput " + name] = dx;
      results["aggregateGradWeight " + name] = dw;
      results["scatter " + name] = scattered;
      results["scatterGrad " + name] = de;
    }
  for (Side side : {Side::Src, Side::Dst}) {
    const std::string name = side == Side::Src ? "src" : "dst";
    const int64_t rows = side == Side::Src ? g.numSrc : g.numDst;
    std::vector<float> gathered(e.size()), dx(rows * width), deg(rows);
    kernels::gather<float>(g, side, x.data(), width, gathered.data());
    kernels::gatherGrad<float>(g, side, e.data(), width, dx.data());
    kernels::degree<float>(g, side, deg.data());
    results["gather " + name] = gathered;
    results["gatherGrad " + name] = dx;
    results["degree " + name] = deg;
  }
  const std::vector<float> dyEdges = input(g.numEdges * width, 38);
  std::vector<float> y(e.size()), ds(e.size());
  kernels::edgeSoftmax<float>(g, e.data(), width, y.data());
  kernels::edgeSoftmaxGrad<float>(g, dyEdges.data(), y.data(), width,
                                  ds.data());
  results["edgeSoftmax"] = y;
  results["edgeSoftmaxGrad"] = ds;

  for (const AxisShape &s : {AxisShape{3000, 7, 5}, AxisShape{1, 50, 700}}) {
    const std::vector<float> ax = input(s.size(), 34),
                             ady = input(s.size(), 35);
    std::vector<float> ay(ax.size()), adx(ax.size()), red(s.outer * s.inner),
        rdx(ax.size());
    kernels::softmax<float>(s.outer, s.n, s.inner, ax.data(), ay.data());
    kernels::softmaxGrad<float>(s.outer, s.n, s.inner, ady.data(), ay.data(),
                                adx.data());
    results["softmax " + s.name()] = ay;
    results["softmaxGrad " + s.name()] = adx;
    kernels::logSoftmax<float>(s.outer, s.n, s.inner, ax.data(), ay.data());
    kernels::logSoftmaxGrad<float>(s.outer, s.n, s.inner, ady.data(), ay.data(),
                                   adx.data());
    results["logSoftmax " + s.name()] = ay;
    results["logSoftmaxGrad " + s.name()] = adx;
    for (Reduce r : kAllReduces) {
      kernels::reduceAxis<float>(r, s.outer, s.n, s.inner, ax.data(),
                                 red.data());
      kernels::reduceAxisGrad<float>(r, s.outer, s.n, s.inner, ady.data(),
                                     ax.data(), red.data(), rdx.data());
      results["reduceAxis " + reduceName(r) + " " + s.name()] = red;
      results["reduceAxisGrad " + reduceName(r) + " " + s.name()] = rdx;
    }
    std::vector<float> joined(s.outer * (s.n + 2) * s.inner, 0.0f);
    kernels::copyIntoAxis<float>(s.outer, s.n, s.inner, ax.data(), s.n + 2, 1,
                                 joined.data());
    results["copyIntoAxis " + s.name()] = joined;
  }
  for (const BroadcastCase &c : {BroadcastCase{{500, 200}, {200}},
                                 BroadcastCase{{3000, 40}, {3000, 1}}}) {
    const std::vector<float> b = input(numel(c.dyShape), 36);
    std::vector<float> out(numel(c.outShape));
    kernels::unbroadcast<float>(b.data(), c.dyShape.data(),
                                int(c.dyShape.size()), out.data(),
                                c.outShape.data(), int(c.outShape.size()));
    results["unbroadcast " + shapeName(c.dyShape)] = out;
  }

  const int64_t rows = 5000, classes = 7;
  const std::vector<float> logits = input(rows * classes, 37);
  std::vector<int64_t> labels(rows);
  for (int64_t i = 0; i < rows; ++i)
    labels[i] = i % 11 == 0 ? -1 : i % classes;
  std::vector<float> dlogits(logits.size()), dropped(logits.size());
  results["crossEntropy"] = {kernels::crossEntropy<float>(
      rows, classes, logits.data(), labels.data(), nullptr)};
  kernels::crossEntropyGrad<float>(rows, classes, logits.data(), labels.data(),
                                   nullptr, 1.0f, dlogits.data());
  results["crossEntropyGrad"] = dlogits;
  kernels::dropout<float>(1, 2, 0.4, int64_t(logits.size()), logits.data(),
                          dropped.data());
  results["dropout"] = dropped;
  return results;
}

TEST(KernelsThreads, ResultsDoNotDependOnThreadCount) {
  GraphStorage storage = randomGraph(3000, 2000, 30000, 3);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = runAllKernels(storage.view());
  omp_set_num_threads(2);
  auto two = runAllKernels(storage.view());
  omp_set_num_threads(saved);
  ASSERT_EQ(one.size(), two.size());
  for (const auto &[name, values] : one) {
    const std::vector<float> &other = two.at(name);
    ASSERT_EQ(values.size(), other.size()) << name;
    EXPECT_EQ(
        std::memcmp(values.data(), other.data(), values.size() * sizeof(float)),
        0)
        << name << " differs between 1 and 2 threads";
  }
}

#endif // _OPENMP

} // namespace
