// Buffers placed by lifetime: those live at once never overlap in memory;
// one written after another's last read takes its place.
#include <gtest/gtest.h>

#include "arena_plan.h"

namespace aoe::cpu {
namespace {

bool disjoint(int64_t a, int64_t a_size, int64_t b, int64_t b_size) { return a + a_size <= b || b + b_size <= a; }

TEST(ArenaPlan, BuffersLiveAtOnceDoNotOverlap) {
  const std::vector<Lifetime> buffers = {{0, 3, 100}, {1, 2, 40}, {2, 4, 7}};
  const auto plan = plan_arena(buffers);
  ASSERT_EQ(plan.offsets.size(), 3u);
  for (size_t i = 0; i < buffers.size(); ++i)
    for (size_t j = i + 1; j < buffers.size(); ++j)
      EXPECT_TRUE(disjoint(plan.offsets[i], buffers[i].elements, plan.offsets[j], buffers[j].elements)) << i << " " << j;
  for (auto offset : plan.offsets) EXPECT_EQ(offset % 16, 0);  // cache-line aligned
  EXPECT_GE(plan.elements, 100 + 40 + 7);
}

TEST(ArenaPlan, ABufferWrittenAfterAnothersLastReadReusesItsMemory) {
  // A chain: each buffer is read by the step after the one that writes it.
  const std::vector<Lifetime> chain = {{0, 1, 64}, {1, 2, 64}, {2, 3, 64}, {3, 4, 64}};
  const auto plan = plan_arena(chain);
  EXPECT_EQ(plan.elements, 128);  // two live at a time, not four
  EXPECT_EQ(plan.offsets[2], plan.offsets[0]);
  EXPECT_EQ(plan.offsets[3], plan.offsets[1]);
}

TEST(ArenaPlan, ABufferFillsAGapItFits) {
  const std::vector<Lifetime> buffers = {{0, 1, 32}, {0, 5, 32}, {2, 5, 16}};
  const auto plan = plan_arena(buffers);
  EXPECT_EQ(plan.offsets[2], plan.offsets[0]);  // the first is dead by step 2
  EXPECT_EQ(plan.elements, 64);
}

TEST(ArenaPlan, NoBuffersNeedNoArena) { EXPECT_EQ(plan_arena({}).elements, 0); }

}  // namespace
}  // namespace aoe::cpu
