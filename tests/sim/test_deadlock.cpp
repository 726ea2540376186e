/*
 * Deadlock detection: every module asleep with work left (immediate), and
 * no progress for deadlock.window_cycles (window), with the stall reports.
 */
#include <gtest/gtest.h>

#include "sim_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::testing;

namespace {

/* Sends `burst` tokens before it starts reading its input: two of them in a
 * ring with queues shallower than the burst deadlock on full queues. */
class Greedy : public Module {
 public:
   Greedy(std::string name, int burst, bool auto_sleep) : Module(std::move(name)), burst_(burst)
   {
      set_auto_sleep(auto_sleep);
   }
   InPort<int> in{*this, "in"};
   OutPort<int> out{*this, "out"};

   Activity tick(Cycle) override
   {
      if (sent_ < burst_) {
         if (!out.can_push())
            return Activity::Stalled;
         out.push(sent_++);
         return Activity::Busy;
      }
      if (!in.can_pop())
         return Activity::Starved;
      in.pop();
      return Activity::Busy;
   }
   bool drained() const override { return sent_ == burst_; }
   std::string stall_report() const override
   {
      return port_report() + "; sent " + std::to_string(sent_) + " of " + std::to_string(burst_);
   }

 private:
   int burst_;
   int sent_ = 0;
};

void
build_ring(Engine &eng, bool auto_sleep)
{
   eng.add<Greedy>("a", 5, auto_sleep);
   eng.add<Greedy>("b", 5, auto_sleep);
   eng.connect("a.out", "b.in", QueueParams{3, 1, 1});
   eng.connect("b.out", "a.in", QueueParams{3, 1, 1});
}

TEST(Deadlock, RingOfFullQueuesAllAsleep)
{
   /* Both push at cycles 0, 1, 2 (capacity 3), are stalled at cycle 3 and
    * sleep; nothing can wake them: detected after cycle 3, at cycle 4. */
   Engine eng;
   build_ring(eng, true);
   RunResult r = eng.run(1000000);
   ASSERT_EQ(r.reason, StopReason::Deadlock);
   EXPECT_EQ(r.end, 4u);
   ASSERT_TRUE(r.deadlock);
   const DeadlockReport &d = *r.deadlock;
   EXPECT_EQ(d.cycle, 4u);
   EXPECT_EQ(d.last_progress, 2u);
   EXPECT_NE(d.cause.find("asleep"), std::string::npos);
   ASSERT_EQ(d.modules.size(), 2u);
   for (const char *n : {"a", "b"}) {
      const DeadlockReport::ModuleState *m = d.module(n);
      ASSERT_TRUE(m);
      EXPECT_TRUE(m->asleep);
      EXPECT_EQ(m->activity, Activity::Stalled);
      EXPECT_EQ(m->since, 3u);
      EXPECT_FALSE(m->drained);
      EXPECT_EQ(m->report, "full outputs: out (3/3); sent 3 of 5");
   }
   ASSERT_EQ(d.queues.size(), 2u);
   EXPECT_EQ(d.queues[0].name, "a.out->b.in");
   EXPECT_EQ(d.queues[0].occupancy, 3u);
   EXPECT_EQ(d.queues[0].capacity, 3u);
   EXPECT_EQ(d.queues[0].visible, 3u);
   EXPECT_EQ(d.queues[0].head_ready, 1u);
   const std::string text = d.to_string();
   EXPECT_NE(text.find("deadlock at cycle 4"), std::string::npos) << text;
   EXPECT_NE(text.find("a.out->b.in: 3/3 entries, 3 readable"), std::string::npos) << text;
   EXPECT_NE(text.find("sent 3 of 5"), std::string::npos) << text;
}

TEST(Deadlock, NoProgressWindowWithModulesThatNeverSleep)
{
   /* Same ring, ticked every cycle: last progress (pushes) in cycle 2, so
    * progress_end = 3; the window of 50 cycles expires after cycle 52:
    * detected at cycle 3 + 50 = 53. */
   Config cfg;
   cfg.deadlock_window_cycles = 50;
   Engine eng(cfg);
   build_ring(eng, false);
   RunResult r = eng.run(1000000);
   ASSERT_EQ(r.reason, StopReason::Deadlock);
   EXPECT_EQ(r.end, 53u);
   ASSERT_TRUE(r.deadlock);
   EXPECT_NE(r.deadlock->cause.find("no progress for 50 cycles"), std::string::npos);
   EXPECT_EQ(r.deadlock->last_progress, 2u);
   EXPECT_FALSE(r.deadlock->module("a")->asleep);
   EXPECT_EQ(eng.total_ticks(), 2u * 53u);
}

TEST(Deadlock, WindowOffStillCatchesAllAsleep)
{
   Engine eng;
   eng.set_deadlock_window(0);
   build_ring(eng, true);
   EXPECT_EQ(eng.run(1000).reason, StopReason::Deadlock);
}

TEST(Deadlock, LostLastToken)
{
   /* A consumer that expects 5 entries gets 3: it starves with work left.
    * Items popped at 1, 2, 3 (C=4, L=1); starved at 4 -> asleep; the
    * producer is idle since cycle 3. Detected at cycle 5. */
   Engine eng;
   eng.add<Producer>("p", 3);
   eng.add<Consumer>("c", 5);
   eng.connect("p.out", "c.in");
   RunResult r = eng.run();
   ASSERT_EQ(r.reason, StopReason::Deadlock);
   EXPECT_EQ(r.end, 5u);
   const DeadlockReport::ModuleState *c = r.deadlock->module("c");
   EXPECT_EQ(c->activity, Activity::Starved);
   EXPECT_FALSE(c->drained);
   EXPECT_EQ(c->report, "inputs with no visible entry: in");
   EXPECT_TRUE(r.deadlock->module("p")->drained);
   EXPECT_TRUE(r.deadlock->queues.empty());
}

TEST(Deadlock, IdleWaitBeyondWindowIsReportedDuringFastForward)
{
   /* A module idle until cycle 10^9 and nothing else: no progress, so the
    * default window (100000) fires at cycle 0 + 100000 without ticking. */
   class Waiter : public Module {
    public:
      using Module::Module;
      Activity tick(Cycle) override
      {
         wake_at(1000000000);
         return Activity::Idle;
      }
   };
   Engine eng;
   eng.add<Waiter>("w");
   RunResult r = eng.run();
   ASSERT_EQ(r.reason, StopReason::Deadlock);
   EXPECT_EQ(r.end, 100000u);
   EXPECT_EQ(eng.total_ticks(), 1u);
   EXPECT_EQ(r.deadlock->last_progress, kNever);
}

} // namespace
