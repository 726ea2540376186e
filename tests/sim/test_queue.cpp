/*
 * Queue invariants: latency, capacity, one write and one read per cycle
 * (seed 001 §2), bandwidth, slot reuse, statistics on a scripted sequence.
 * Every expected value is worked out by hand in the comments.
 */
#include <gtest/gtest.h>

#include <memory>

#include "sim/core/error.h"
#include "sim/core/queue.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

struct QueueTest : ::testing::Test {
   SimContext ctx;
   QueueTest() { ctx.strict = true; }
};

TEST_F(QueueTest, EntryVisibleExactlyAfterLatency)
{
   Queue<int> q(ctx, "q", QueueParams{4, 3, 1});
   ctx.now = 10;
   q.push(7);
   EXPECT_EQ(q.occupancy(), 1u);
   /* Pushed at 10 with latency 3: readable from 13, not before. */
   for (Cycle c = 10; c < 13; c++) {
      ctx.now = c;
      EXPECT_FALSE(q.can_pop()) << "cycle " << c;
      EXPECT_EQ(q.visible(), 0u);
      EXPECT_THROW(q.peek(), SimError);
   }
   ctx.now = 13;
   ASSERT_TRUE(q.can_pop());
   EXPECT_EQ(q.peek(), 7);
   EXPECT_EQ(q.pop(), 7);
   EXPECT_TRUE(q.empty());
}

TEST_F(QueueTest, PopOfInvisibleEntryThrowsNamingQueue)
{
   Queue<int> q(ctx, "cp.out->gts.in", QueueParams{4, 2, 1});
   q.push(1);
   ctx.now = 1;
   try {
      q.pop();
      FAIL() << "pop of an entry readable only at cycle 2 must throw";
   } catch (const SimError &e) {
      EXPECT_NE(std::string(e.what()).find("cp.out->gts.in"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cycle 2"), std::string::npos) << e.what();
   }
   SimContext c2;
   Queue<int> empty(c2, "e", QueueParams{});
   EXPECT_THROW(empty.pop(), SimError);
}

TEST_F(QueueTest, CapacityRespected)
{
   Queue<int> q(ctx, "q", QueueParams{3, 1, 1});
   for (int i = 0; i < 3; i++) {
      ctx.now = i;
      ASSERT_TRUE(q.can_push());
      q.push(i);
   }
   ctx.now = 3;
   EXPECT_FALSE(q.can_push());
   EXPECT_THROW(q.push(99), SimError);
   /* Non-strict mode does not make a full queue grow. */
   ctx.strict = false;
   EXPECT_THROW(q.push(99), SimError);
   EXPECT_EQ(q.occupancy(), 3u);
   /* FIFO order. */
   for (int i = 0; i < 3; i++) {
      ctx.now = 4 + i;
      EXPECT_EQ(q.pop(), i);
   }
}

TEST_F(QueueTest, OneWritePerCycle)
{
   Queue<int> q(ctx, "q", QueueParams{4, 1, 1});
   q.push(1);
   EXPECT_FALSE(q.can_push());
   EXPECT_THROW(q.push(2), SimError); /* strict: second write in cycle 0 */
   EXPECT_EQ(q.occupancy(), 1u);
   EXPECT_EQ(q.stats().violations, 1u);

   ctx.strict = false; /* release-mode behaviour: counted, allowed */
   q.push(2);
   EXPECT_EQ(q.occupancy(), 2u);
   EXPECT_EQ(q.stats().violations, 2u);

   ctx.now = 1;
   EXPECT_TRUE(q.can_push()); /* a new cycle */
}

TEST_F(QueueTest, OneReadPerCycle)
{
   Queue<int> q(ctx, "q", QueueParams{4, 1, 1});
   q.push(1);
   ctx.now = 1;
   q.push(2);
   ctx.now = 2;
   EXPECT_EQ(q.pop(), 1);
   EXPECT_FALSE(q.can_pop()); /* entry 2 is visible, but one read per cycle */
   EXPECT_THROW(q.pop(), SimError);
   EXPECT_EQ(q.peek(), 2); /* peeking is not a read */
   ctx.strict = false;
   EXPECT_EQ(q.pop(), 2);
   EXPECT_EQ(q.stats().violations, 2u);
}

TEST_F(QueueTest, SlotFreedByPopReusableNextCycle)
{
   /* Capacity 1: popped at cycle 1, the slot is free from cycle 2. */
   Queue<int> q(ctx, "q", QueueParams{1, 1, 1});
   q.push(1);
   ctx.now = 1;
   EXPECT_FALSE(q.can_push());
   EXPECT_EQ(q.pop(), 1);
   EXPECT_FALSE(q.can_push());
   EXPECT_THROW(q.push(2), SimError);
   ctx.now = 2;
   EXPECT_TRUE(q.can_push());
   q.push(2);
}

TEST_F(QueueTest, BandwidthTwo)
{
   Queue<int> q(ctx, "q", QueueParams{4, 1, 2});
   q.push(1);
   ASSERT_TRUE(q.can_push());
   q.push(2);
   EXPECT_FALSE(q.can_push());
   EXPECT_THROW(q.push(3), SimError);
   ctx.now = 1;
   EXPECT_EQ(q.visible(), 2u);
   EXPECT_EQ(q.pop(), 1);
   ASSERT_TRUE(q.can_pop());
   EXPECT_EQ(q.pop(), 2);
   EXPECT_FALSE(q.can_pop());
}

TEST_F(QueueTest, InvalidParametersAreConfigErrors)
{
   EXPECT_THROW(Queue<int>(ctx, "q", QueueParams{0, 1, 1}), ConfigError);
   EXPECT_THROW(Queue<int>(ctx, "q", QueueParams{4, 0, 1}), ConfigError);
   EXPECT_THROW(Queue<int>(ctx, "q", QueueParams{2, 1, 3}), ConfigError);
}

TEST_F(QueueTest, MoveOnlyEntries)
{
   Queue<std::unique_ptr<int>> q(ctx, "q", QueueParams{2, 1, 1});
   q.push(std::make_unique<int>(5));
   ctx.now = 1;
   std::unique_ptr<int> p = q.pop();
   ASSERT_TRUE(p);
   EXPECT_EQ(*p, 5);
}

TEST_F(QueueTest, OccupancyStatisticsOnScriptedSequence)
{
   /* capacity 3, latency 1. End-of-cycle occupancy by hand:
    *   c0 push a          -> 1
    *   c1 push b          -> 2
    *   c2 pop a, push c   -> 2
    *   c3 push d          -> 3 (full)
    *   c4 -               -> 3 (full)
    *   c5 pop b           -> 2
    *   c6 pop c           -> 1
    *   c7 pop d           -> 0 (empty)
    *   c8 -               -> 0 (empty)
    * Over cycles 0..8: sum 14, avg 14/9, max 3, full 2, empty 2. */
   Queue<char> q(ctx, "q", QueueParams{3, 1, 1});
   ctx.now = 0;
   q.push('a');
   ctx.now = 1;
   q.push('b');
   ctx.now = 2;
   EXPECT_EQ(q.pop(), 'a');
   q.push('c');
   ctx.now = 3;
   q.push('d');
   ctx.now = 5;
   EXPECT_EQ(q.pop(), 'b');
   ctx.now = 6;
   EXPECT_EQ(q.pop(), 'c');
   ctx.now = 7;
   EXPECT_EQ(q.pop(), 'd');
   ctx.now = 9;
   QueueStats s = q.stats();
   EXPECT_EQ(s.begin, 0u);
   EXPECT_EQ(s.cycles, 9u);
   EXPECT_EQ(s.pushes, 4u);
   EXPECT_EQ(s.pops, 4u);
   EXPECT_EQ(s.occupancy_sum, 14u);
   EXPECT_DOUBLE_EQ(s.avg_occupancy(), 14.0 / 9.0);
   EXPECT_EQ(s.max_occupancy, 3u);
   EXPECT_EQ(s.full_cycles, 2u);
   EXPECT_EQ(s.empty_cycles, 2u);
   EXPECT_EQ(s.violations, 0u);
}

TEST_F(QueueTest, StatisticsAcrossAnEmptyGap)
{
   /* Same script as above, then:
    *   c9  push e         -> 1
    *   c10 pop e          -> 0
    *   c11 -              -> 0
    * Over cycles 0..11: sum 15, max 3, full 2 (c3, c4), empty 4 (c7, c8,
    * c10, c11), 5 pushes, 5 pops. */
   Queue<char> q(ctx, "q", QueueParams{3, 1, 1});
   const char *script[] = {"a", "b", "-a c", "d", "", "-b", "-c", "-d", "", "e", "-e", ""};
   for (Cycle c = 0; c < 12; c++) {
      ctx.now = c;
      for (const char *s = script[c]; *s; s++) {
         if (*s == '-') {
            EXPECT_EQ(q.pop(), s[1]) << "cycle " << c;
            s++;
         } else if (*s != ' ') {
            q.push(*s);
         }
      }
   }
   ctx.now = 12;
   QueueStats s = q.stats();
   EXPECT_EQ(s.cycles, 12u);
   EXPECT_EQ(s.occupancy_sum, 15u);
   EXPECT_EQ(s.max_occupancy, 3u);
   EXPECT_EQ(s.full_cycles, 2u);
   EXPECT_EQ(s.empty_cycles, 4u);
   EXPECT_EQ(s.pushes, 5u);
   EXPECT_EQ(s.pops, 5u);
}

TEST_F(QueueTest, StatisticsResetMidway)
{
   /* Same script; reset at the start of cycle 5. Cycles 5..8 end with
    * 2, 1, 0, 0: sum 3, max 2, full 0, empty 2, 0 pushes, 3 pops. */
   Queue<char> q(ctx, "q", QueueParams{3, 1, 1});
   q.push('a');
   ctx.now = 1;
   q.push('b');
   ctx.now = 2;
   q.pop();
   q.push('c');
   ctx.now = 3;
   q.push('d');
   ctx.now = 5;
   q.reset_stats();
   q.pop();
   ctx.now = 6;
   q.pop();
   ctx.now = 7;
   q.pop();
   ctx.now = 9;
   QueueStats s = q.stats();
   EXPECT_EQ(s.begin, 5u);
   EXPECT_EQ(s.cycles, 4u);
   EXPECT_EQ(s.pushes, 0u);
   EXPECT_EQ(s.pops, 3u);
   EXPECT_EQ(s.occupancy_sum, 3u);
   EXPECT_EQ(s.max_occupancy, 2u);
   EXPECT_EQ(s.full_cycles, 0u);
   EXPECT_EQ(s.empty_cycles, 2u);
}

TEST_F(QueueTest, NextArrivalIsEarliestInvisibleEntry)
{
   Queue<int> q(ctx, "q", QueueParams{4, 5, 1});
   q.push(1); /* readable at 5 */
   ctx.now = 2;
   q.push(2); /* readable at 7 */
   EXPECT_EQ(q.next_arrival(2), 5u);
   EXPECT_EQ(q.next_arrival(5), 7u);
   EXPECT_EQ(q.next_arrival(7), kNever);
   EXPECT_EQ(q.head_ready(), 5u);
}

} // namespace
