//===- WorkspaceTest.cpp - the buffers of gnnc's memory plan --------------===//
//
// A steady-state step must find its buffers where the last one left them:
// a buffer that is freed and allocated again costs a page fault (and a page
// clear) per 4 KiB on the next touch, which was an eighth of a full-graph
// epoch. And trainStep and forward, which never run together, must share
// one set of buffers, or the process holds the sum of their plans. What
// every call computes alike is computed once per inputs and kept.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/Program.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace gnnrt;

namespace {

TEST(WorkspaceTest, BuffersStayAcrossCallsAndAreCacheLineAligned) {
  Workspace<float> ws;
  float *a = ws.get(0, 1000);
  float *b = ws.get(1, 17);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  // The next call, and any smaller value placed in the slot, reuse them.
  EXPECT_EQ(ws.get(0, 1000), a);
  EXPECT_EQ(ws.get(0, 10), a);
  EXPECT_EQ(ws.get(1, 17), b);
  EXPECT_EQ(ws.bytes(), int64_t((1000 + 17) * sizeof(float)));
  EXPECT_EQ(ws.heldBytes(), ws.bytes());
  // A larger value grows the slot; the plan's footprint follows.
  float *c = ws.get(0, 4000);
  c[3999] = 1.f;
  EXPECT_EQ(ws.bytes(), int64_t((4000 + 17) * sizeof(float)));
}

TEST(WorkspaceTest, SharedBuffersHoldTheLargerPlanPerSlot) {
  Workspace<float> train, forward;
  forward.shareBuffersWith(train);
  float *t0 = train.get(0, 1000);
  train.get(1, 100);
  // forward's slot 0 fits in train's: the same memory, nothing new held.
  EXPECT_EQ(forward.get(0, 600), t0);
  float *f2 = forward.get(2, 50);
  EXPECT_EQ(train.heldBytes(), int64_t((1000 + 100 + 50) * sizeof(float)));
  EXPECT_EQ(forward.heldBytes(), train.heldBytes());
  // Each keeps its own plan's figure for --stats.
  EXPECT_EQ(train.bytes(), int64_t(1100 * sizeof(float)));
  EXPECT_EQ(forward.bytes(), int64_t(650 * sizeof(float)));
  // The next train step finds the same buffers.
  EXPECT_EQ(train.get(0, 1000), t0);
  EXPECT_EQ(train.get(2, 50), f2);
  // release frees the shared buffers for both.
  forward.release();
  EXPECT_EQ(train.heldBytes(), 0);
}

TEST(WorkspaceTest, HugePageArenaKeepsAndReusesSmallBuffers) {
  // Graph-level training places its many small buffers on shared huge
  // pages; they must behave as any slot's: aligned, kept across calls,
  // shared with the forward, and freed by release().
  Workspace<float> train, forward;
  train.useHugePageArena();
  forward.shareBuffersWith(train);
  float *a = train.get(0, 1000);
  float *b = train.get(1, 17);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(train.get(0, 1000), a);
  EXPECT_EQ(forward.get(1, 10), b);
  // Distinct slots do not overlap.
  EXPECT_GE(std::abs(b - a), 1000);
  // A slot that grows leaves its block to a later slot it fits.
  float *grown = train.get(0, 5000);
  EXPECT_NE(grown, a);
  grown[4999] = 1.f;
  EXPECT_EQ(forward.get(2, 900), a);
  // The plan's figures count what was asked; the held bytes are at least
  // that (blocks are whole cache lines).
  EXPECT_EQ(train.bytes(), int64_t((5000 + 17) * sizeof(float)));
  EXPECT_GE(train.heldBytes(), int64_t((5000 + 17 + 900) * sizeof(float)));
  // A buffer of kHugePageMinBytes or more is allocated on its own, as
  // without the arena.
  float *big = train.get(3, int64_t(kHugePageMinBytes / sizeof(float)));
  big[kHugePageMinBytes / sizeof(float) - 1] = 2.f;
  train.release();
  EXPECT_EQ(forward.heldBytes(), 0);
  // After release() the slots are allocated again.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(train.get(0, 10)) % 64, 0u);
}

TEST(WorkspaceTest, KeptValuesAreComputedOncePerInputs) {
  // What gnn-hoist-invariants emits: the kept buffers (by a key of their
  // computation), then keptStale to decide whether to compute them.
  Workspace<float> train, forward;
  forward.shareBuffersWith(train);
  std::vector<int64_t> offsets = {0, 0, 0};
  GraphView g;
  g.numSrc = g.numDst = 2;
  g.inOffsets = offsets.data();
  const float x[4] = {1, 2, 3, 4}, y[4] = {1, 2, 3, 4};
  const uint64_t key = 0x9c0e5b1f2a44d7e3u, other = 7;
  float *k = train.kept(1, key, 100);
  EXPECT_NE(train.kept(1, other, 100), k);
  EXPECT_TRUE(train.keptStale(1, x, g));
  // The next calls with the same inputs find the values in place.
  EXPECT_EQ(train.kept(1, key, 100), k);
  EXPECT_FALSE(train.keptStale(1, x, g));
  EXPECT_FALSE(train.keptStale(1, x, g));
  // Kept buffers are outside the plan's slots: a slot never hands them out.
  EXPECT_NE(train.get(0, 100), k);
  EXPECT_EQ(train.heldBytes(), int64_t(300 * sizeof(float)));
  // The forward's value of the same computation is the same buffer (one
  // copy held), but the forward computes its kept values on its first call.
  EXPECT_EQ(forward.kept(0, key, 100), k);
  EXPECT_EQ(train.heldBytes(), int64_t(300 * sizeof(float)));
  EXPECT_TRUE(forward.keptStale(0, x, g));
  EXPECT_FALSE(forward.keptStale(0, x, g));
  EXPECT_FALSE(train.keptStale(1, x, g));
  // Other features (by address) or another graph make them stale.
  EXPECT_TRUE(train.keptStale(1, y, g));
  EXPECT_FALSE(train.keptStale(1, y, g));
  g.numDst = 1;
  EXPECT_TRUE(train.keptStale(1, y, g));
  // So does a kept buffer that had to grow (its values are gone), for
  // every entry point.
  EXPECT_FALSE(train.keptStale(1, y, g));
  forward.kept(0, key, 1000);
  EXPECT_TRUE(train.keptStale(1, y, g));
  // And release(), which frees them with the slots.
  EXPECT_FALSE(train.keptStale(1, y, g));
  forward.release();
  EXPECT_EQ(train.heldBytes(), 0);
  train.kept(1, key, 1000);
  EXPECT_TRUE(train.keptStale(1, y, g));
}

} // namespace
