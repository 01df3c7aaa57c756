//===- GatherStorageTest.cpp - Gathers that read bf16 rows ----------------===//
//
// With the process's gather storage bf16, a float sum or mean gather
// (aggregate, aggregateScaledRows, aggregateGradInput) gives exactly the
// float gather over its rows rounded to bf16: the same bits at every width
// the gather specializes, whole rows and column tiles, weighted or not; and
// near a float64 reference over the rounded rows. Max and min, and double
// gathers, are untouched.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/kernels/Aggregate.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

std::vector<float> roundedToBFloat16(const std::vector<float> &x) {
  std::vector<float> r(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    r[i] = toFloat(toBFloat16(x[i]));
  return r;
}

struct Outputs {
  std::vector<float> forward, scaled, transpose;
  bool operator==(const Outputs &o) const {
    return forward == o.forward && scaled == o.scaled &&
           transpose == o.transpose;
  }
};

/// Random operands of the gathers over g at `width`: rows x, output
/// gradients dy, row scales s and edge weights w.
struct Operands {
  std::vector<float> x, dy, s, w;
  Operands(const GraphView &g, int64_t width, uint64_t seed)
      : x(cast<float>(randomVector(g.numSrc * width, seed))),
        dy(cast<float>(randomVector(g.numDst * width, seed + 1))),
        s(cast<float>(randomVector(g.numSrc, seed + 2, 0.1, 2.0))),
        w(cast<float>(randomVector(g.numEdges, seed + 3, 0.5, 1.5))) {}
};

Outputs gatherAll(const GraphView &g, Reduce r, bool selfLoops,
                  const std::vector<float> &x, const std::vector<float> &dy,
                  const std::vector<float> &s, const float *weight,
                  int64_t width) {
  Outputs o;
  o.forward.assign(size_t(g.numDst * width), -99.f);
  o.scaled.assign(size_t(g.numDst * width), -99.f);
  o.transpose.assign(size_t(g.numSrc * width), -99.f);
  kernels::aggregate<float>(g, r, selfLoops, x.data(), width, weight, 1,
                            o.forward.data());
  kernels::aggregateScaledRows<float>(g, r, selfLoops, x.data(), s.data(),
                                      width, o.scaled.data());
  kernels::aggregateGradInput<float>(g, r, selfLoops, dy.data(), x.data(),
                                     o.forward.data(), width, weight, 1,
                                     o.transpose.data());
  return o;
}

} // namespace

TEST(GatherStorage, BFloat16GatherIsTheFloatGatherOfRoundedRows) {
  GraphStorage storage = randomGraph(3000, 2000, 9000, 61);
  const GraphView g = storage.view();
  for (int64_t width : {3, 16, 32, 64, 128, 200})
    for (Reduce r : {Reduce::Sum, Reduce::Mean})
      for (bool selfLoops : {false, true})
        for (bool weighted : {false, true})
          for (int64_t cacheBytes : {int64_t(64) << 10, int64_t(1) << 40}) {
            const std::string what = "width " + std::to_string(width) + " " +
                                     reduceName(r) +
                                     (selfLoops ? " selfLoops" : "") +
                                     (weighted ? " weighted" : "") + " cache " +
                                     std::to_string(cacheBytes);
            ScopedEnv cache("GNNRT_CACHE_BYTES", std::to_string(cacheBytes));
            const Operands in(g, width, 62);
            const std::vector<float> &x = in.x, &dy = in.dy, &s = in.s,
                                     &w = in.w;
            const float *weight = weighted ? w.data() : nullptr;
            Outputs bf16;
            {
              kernels::ScopedGatherStorage mode(kernels::GatherStorage::BFloat16);
              bf16 = gatherAll(g, r, selfLoops, x, dy, s, weight, width);
            }
            const Outputs rounded =
                gatherAll(g, r, selfLoops, roundedToBFloat16(x),
                          roundedToBFloat16(dy), s, weight, width);
            const Outputs exact =
                gatherAll(g, r, selfLoops, x, dy, s, weight, width);
            EXPECT_EQ(bf16.forward, rounded.forward) << what;
            EXPECT_EQ(bf16.scaled, rounded.scaled) << what;
            EXPECT_EQ(bf16.transpose, rounded.transpose) << what;
            // Rounding is what changed: bf16 keeps 8 significant bits.
            EXPECT_FALSE(bf16 == exact) << what;
            expectNear(toDouble(bf16.forward), toDouble(exact.forward), 2e-2,
                       what);
            if (HasFailure())
              return;
          }
}

// The gathers' AVX-512 walk (where the CPU has it) and the SSE2 one
// ($GNNRT_CPU_ISA=baseline) give the same bits, fp32 and bf16 rows,
// at every specialized width and a ragged one.
TEST(GatherStorage, EveryInstructionSetGivesTheSameBits) {
  GraphStorage storage = randomGraph(2000, 1500, 8000, 91);
  const GraphView g = storage.view();
  for (int64_t width : {16, 32, 64, 128, 37})
    for (bool bf16 : {false, true})
      for (bool weighted : {false, true}) {
        const std::string what = "width " + std::to_string(width) +
                                 (bf16 ? " bf16" : " fp32") +
                                 (weighted ? " weighted" : "");
        const Operands in(g, width, 92);
        const std::vector<float> &x = in.x, &dy = in.dy, &s = in.s, &w = in.w;
        const float *weight = weighted ? w.data() : nullptr;
        kernels::ScopedGatherStorage mode(bf16 ? kernels::GatherStorage::BFloat16
                                : kernels::GatherStorage::Float32);
        const Outputs native =
            gatherAll(g, Reduce::Mean, true, x, dy, s, weight, width);
        ScopedEnv isa("GNNRT_CPU_ISA", "baseline");
        const Outputs baseline =
            gatherAll(g, Reduce::Mean, true, x, dy, s, weight, width);
        EXPECT_TRUE(native == baseline) << what;
      }
}

TEST(GatherStorage, DeclaredTableIsReadInsteadOfRounding) {
  GraphStorage storage = randomGraph(500, 400, 3000, 71);
  const GraphView g = storage.view();
  const int64_t width = 16;
  const std::vector<float> x = cast<float>(randomVector(g.numSrc * width, 72));
  // A declared copy is trusted: one that is not x's rounding (here: x's
  // rows rounded, then negated) shows that the gather read it.
  std::vector<BFloat16> copy(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    copy[i] = toBFloat16(-x[i]);
  std::vector<float> negated = roundedToBFloat16(x);
  for (float &v : negated)
    v = -v;
  std::vector<float> declared(size_t(g.numDst * width)),
      expected(size_t(g.numDst * width));
  kernels::aggregate<float>(g, Reduce::Sum, false, negated.data(), width,
                            nullptr, 1, expected.data());
  {
    kernels::ScopedGatherStorage mode(kernels::GatherStorage::BFloat16);
    kernels::setBFloat16Table(x.data(), copy.data(), int64_t(x.size()));
    kernels::aggregate<float>(g, Reduce::Sum, false, x.data(), width, nullptr,
                              1, declared.data());
    kernels::setBFloat16Table(nullptr, nullptr, 0);
  }
  EXPECT_EQ(declared, expected);
}

TEST(GatherStorage, MaxAndDoubleGathersReadFullPrecision) {
  GraphStorage storage = randomGraph(500, 400, 3000, 81);
  const GraphView g = storage.view();
  const int64_t width = 16;
  const Vec xd = randomVector(g.numSrc * width, 82);
  const std::vector<float> x = cast<float>(xd);
  std::vector<float> fp32(size_t(g.numDst * width)), bf16(fp32.size());
  std::vector<double> d32(fp32.size()), d16(fp32.size());
  kernels::aggregate<float>(g, Reduce::Max, true, x.data(), width, nullptr, 1,
                            fp32.data());
  kernels::aggregate<double>(g, Reduce::Sum, true, xd.data(), width, nullptr, 1,
                             d32.data());
  {
    kernels::ScopedGatherStorage mode(kernels::GatherStorage::BFloat16);
    kernels::aggregate<float>(g, Reduce::Max, true, x.data(), width, nullptr, 1,
                              bf16.data());
    kernels::aggregate<double>(g, Reduce::Sum, true, xd.data(), width, nullptr,
                               1, d16.data());
  }
  EXPECT_EQ(fp32, bf16);
  EXPECT_EQ(d32, d16);
}
