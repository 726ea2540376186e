/*
 * Statistics: per-module activity and counters, per-queue occupancy, JSON
 * and text output, reset per draw. Expected numbers worked out by hand.
 */
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include "sim_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using ::testing::HasSubstr;

namespace {

/* Sends `pending` tokens, one per cycle; woken by the "driver". */
class Feeder : public Module {
 public:
   using Module::Module;
   OutPort<int> out{*this, "out"};
   int pending = 0;
   Activity tick(Cycle) override
   {
      if (!pending)
         return Activity::Idle;
      if (!out.can_push())
         return Activity::Stalled;
      out.push(pending--);
      return Activity::Busy;
   }
};

class CountingSink : public Module {
 public:
   explicit CountingSink(std::string name) : Module(std::move(name)) {}
   InPort<int> in{*this, "in"};
   Counter &tokens = add_counter("tokens", "entries received");
   Counter &sum = add_counter("sum", "sum of the received values");
   Activity tick(Cycle) override
   {
      if (!in.can_pop())
         return Activity::Idle;
      ++tokens;
      sum += uint64_t(in.pop());
      return Activity::Busy;
   }
};

struct Draws : ::testing::Test {
   Engine eng;
   Feeder *feeder;
   CountingSink *sink;
   Draws()
   {
      feeder = &eng.add<Feeder>("feeder");
      sink = &eng.add<CountingSink>("sink");
      eng.connect("feeder.out", "sink.in"); /* default: capacity 4, latency 1 */
   }
};

TEST_F(Draws, FirstDraw)
{
   /* Feeder pushes 5,4,3,2,1 at cycles 0..4, idle from 5; sink idle at 0,
    * pops at 1..5, idle at 6; run ends at 7. Queue end-of-cycle occupancy:
    * 1,1,1,1,1,0,0 -> sum 5, max 1, empty 2, full 0. */
   feeder->pending = 5;
   RunResult r = eng.run();
   ASSERT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(r.end, 7u);
   Stats s = eng.stats();
   EXPECT_EQ(s.begin, 0u);
   EXPECT_EQ(s.end, 7u);
   const ModuleStatsSnapshot &f = *s.module("feeder");
   EXPECT_EQ(f.busy, 5u);
   EXPECT_EQ(f.idle, 2u);
   const ModuleStatsSnapshot &k = *s.module("sink");
   EXPECT_EQ(k.busy, 5u);
   EXPECT_EQ(k.idle, 2u);
   EXPECT_EQ(k.counter("tokens"), 5u);
   EXPECT_EQ(k.counter("sum"), 15u);
   EXPECT_THROW(k.counter("nope"), std::out_of_range);
   const QueueStatsSnapshot &q = *s.queue("feeder.out->sink.in");
   EXPECT_EQ(q.stats.pushes, 5u);
   EXPECT_EQ(q.stats.pops, 5u);
   EXPECT_EQ(q.stats.occupancy_sum, 5u);
   EXPECT_EQ(q.stats.max_occupancy, 1u);
   EXPECT_EQ(q.stats.empty_cycles, 2u);
   EXPECT_EQ(q.stats.full_cycles, 0u);
   EXPECT_EQ(q.stats.cycles, 7u);
}

TEST_F(Draws, ResetBetweenDrawsGivesPerDrawStatistics)
{
   feeder->pending = 5;
   eng.run();
   eng.reset_stats();
   /* Draw 2 from cycle 7: pushes 3,2,1 at 7,8,9; sink asleep (idle) at 7,
    * pops at 8,9,10, idle at 11; run ends at 12. Occupancy 1,1,1,0,0. */
   feeder->pending = 3;
   eng.wake(*feeder);
   RunResult r = eng.run();
   EXPECT_EQ(r.end, 12u);
   Stats s = eng.stats();
   EXPECT_EQ(s.begin, 7u);
   EXPECT_EQ(s.cycles(), 5u);
   EXPECT_EQ(s.module("feeder")->busy, 3u);
   EXPECT_EQ(s.module("feeder")->idle, 2u);
   EXPECT_EQ(s.module("sink")->busy, 3u);
   EXPECT_EQ(s.module("sink")->idle, 2u);
   EXPECT_EQ(s.module("sink")->counter("tokens"), 3u);
   EXPECT_EQ(s.module("sink")->counter("sum"), 6u);
   const QueueStats &q = s.queue("feeder.out->sink.in")->stats;
   EXPECT_EQ(q.begin, 7u);
   EXPECT_EQ(q.pushes, 3u);
   EXPECT_EQ(q.occupancy_sum, 3u);
   EXPECT_EQ(q.empty_cycles, 2u);

   nlohmann::ordered_json j = s.to_json();
   EXPECT_EQ(j["cycles"]["begin"], 7);
   EXPECT_EQ(j["cycles"]["end"], 12);
   EXPECT_EQ(j["cycles"]["count"], 5);
   EXPECT_EQ(j["modules"]["sink"]["counters"]["tokens"], 3);
   EXPECT_EQ(j["modules"]["feeder"]["busy"], 3);
   EXPECT_EQ(j["queues"]["feeder.out->sink.in"]["pushes"], 3);
   EXPECT_DOUBLE_EQ(j["queues"]["feeder.out->sink.in"]["avg_occupancy"].get<double>(), 0.6);
   /* Registration order is kept. */
   EXPECT_EQ(j["modules"].begin().key(), "feeder");
   /* Round trip through text. */
   auto parsed = nlohmann::json::parse(j.dump());
   EXPECT_EQ(parsed["modules"]["sink"]["idle"], 2);
}

TEST_F(Draws, TextTable)
{
   feeder->pending = 5;
   eng.run();
   std::string t = eng.stats().to_text();
   EXPECT_THAT(t, HasSubstr("statistics for cycles 0..7 (7 cycles)"));
   EXPECT_THAT(t, HasSubstr("feeder"));
   EXPECT_THAT(t, HasSubstr("tokens = 5"));
   EXPECT_THAT(t, HasSubstr("feeder.out->sink.in"));
   /* busy 5 of 7 cycles. */
   EXPECT_THAT(t, HasSubstr("71.4%"));
}

TEST(Counters, DuplicateCounterNameIsAnError)
{
   class Dup : public Module {
    public:
      using Module::Module;
      Counter &a = add_counter("x");
      Activity tick(Cycle) override { return Activity::Idle; }
      void again() { add_counter("x"); }
   };
   Dup d("d");
   EXPECT_THROW(d.again(), SimError);
}

} // namespace
