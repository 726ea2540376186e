/*
 * Engine: pipelines with back-pressure (expected cycles derived by hand from
 * capacity and latency), tick-order independence, idle skipping and
 * fast-forward, stop conditions.
 */
#include <gtest/gtest.h>

#include <algorithm>

#include "sim_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::testing;

namespace {

/*
 * Producer -> queue(C, L) -> always-ready consumer, N items.
 *
 * The producer pushes item k at the first cycle with a free slot. If
 * C >= L + 1 the queue never fills: item k is pushed at cycle k. Otherwise
 * the producer pushes C items in cycles 0..C-1 and waits: item j is popped
 * at push_j + L and its slot is reusable at push_j + L + 1, so every batch
 * of C items starts L + 1 cycles after the previous one:
 *    push_k = (k / C) * (L + 1) + k % C.
 * Item k is popped at push_k + L.
 */
Cycle
expected_pop_cycle(unsigned k, unsigned C, unsigned L)
{
   Cycle push = C >= L + 1 ? k : (k / C) * (L + 1) + k % C;
   return push + L;
}

struct PipeResult {
   std::vector<std::pair<int, Cycle>> received;
   std::vector<Cycle> pushes;
   RunResult run;
   Stats stats;
};

PipeResult
run_pipe(unsigned C, unsigned L, int n, bool reverse, unsigned work = 1)
{
   Engine eng;
   Producer *p;
   Consumer *c;
   if (!reverse) {
      p = &eng.add<Producer>("p", n);
      c = &eng.add<Consumer>("c", n, work);
   } else {
      c = &eng.add<Consumer>("c", n, work);
      p = &eng.add<Producer>("p", n);
   }
   eng.connect("p.out", "c.in", QueueParams{C, L, 1});
   PipeResult r;
   r.run = eng.run(100000);
   r.received = c->received;
   r.pushes = p->push_cycles;
   r.stats = eng.stats();
   return r;
}

TEST(Engine, PipelineArrivalCyclesFromCapacityAndLatency)
{
   const int n = 12;
   for (unsigned C : {1u, 2u, 3u, 5u, 8u}) {
      for (unsigned L : {1u, 2u, 4u, 7u}) {
         PipeResult r = run_pipe(C, L, n, false);
         ASSERT_EQ(r.run.reason, StopReason::Idle) << "C=" << C << " L=" << L;
         ASSERT_EQ(r.received.size(), size_t(n));
         for (int k = 0; k < n; k++) {
            EXPECT_EQ(r.received[k].first, k);
            EXPECT_EQ(r.received[k].second, expected_pop_cycle(k, C, L))
               << "item " << k << " C=" << C << " L=" << L;
         }
      }
   }
}

TEST(Engine, CapacityOneLatencyOneHalvesThroughput)
{
   /* The worked example of docs/simulator.md: C=1, L=1 -> one item every
    * 2 cycles: pops at 1, 3, 5, 7. */
   PipeResult r = run_pipe(1, 1, 4, false);
   std::vector<Cycle> pops;
   for (auto &x : r.received)
      pops.push_back(x.second);
   EXPECT_EQ(pops, (std::vector<Cycle>{1, 3, 5, 7}));
}

TEST(Engine, SlowConsumerBackPressure)
{
   /* C=3, L=2, consumer needs P=4 cycles per item, N=10.
    * The consumer is the bottleneck: it pops item k at L + k*P = 2 + 4k
    * (item k is always visible by then). The slot of item j is reusable at
    * 2 + 4j + 1, so the producer pushes items 0..2 at cycles 0..2, item 3
    * at max(3, 3) = 3 and item k >= 3 at 3 + 4(k - 3). Last pop: 2 + 36 =
    * 38.
    * Producer: 10 busy cycles (pushes); cycles 4..27 minus the 6 pushes at
    * 7, 11, ..., 27 are stalled (18); idle from 28 on.
    * Consumer: starved at 0, 1; busy 2..41 (pop at 38 + 3 more cycles of
    * work); idle at 42, when it ticks Idle and sleeps. The run ends idle
    * at cycle 43. */
   PipeResult r = run_pipe(3, 2, 10, false, 4);
   ASSERT_EQ(r.run.reason, StopReason::Idle);
   for (int k = 0; k < 10; k++)
      EXPECT_EQ(r.received[k].second, Cycle(2 + 4 * k)) << k;
   std::vector<Cycle> want_push = {0, 1, 2, 3};
   for (int k = 4; k < 10; k++)
      want_push.push_back(3 + 4 * (k - 3));
   EXPECT_EQ(r.pushes, want_push);
   EXPECT_EQ(r.run.end, 43u);
   const ModuleStatsSnapshot *p = r.stats.module("p");
   const ModuleStatsSnapshot *c = r.stats.module("c");
   EXPECT_EQ(p->busy, 10u);
   EXPECT_EQ(p->stalled, 18u);
   EXPECT_EQ(p->starved, 0u);
   EXPECT_EQ(p->idle, 43u - 28u);
   EXPECT_EQ(c->starved, 2u);
   EXPECT_EQ(c->busy, 40u);
   EXPECT_EQ(c->idle, 1u);
   EXPECT_EQ(c->stalled, 0u);
}

TEST(Engine, TickOrderDoesNotChangeResults)
{
   for (unsigned C : {1u, 2u, 4u}) {
      for (unsigned L : {1u, 3u}) {
         for (unsigned work : {1u, 3u}) {
            PipeResult a = run_pipe(C, L, 9, false, work);
            PipeResult b = run_pipe(C, L, 9, true, work);
            EXPECT_EQ(a.received, b.received);
            EXPECT_EQ(a.pushes, b.pushes);
            EXPECT_EQ(a.run.end, b.run.end);
            /* Identical statistics, module order aside. */
            auto ja = a.stats.to_json(), jb = b.stats.to_json();
            EXPECT_EQ(ja["modules"]["p"], jb["modules"]["p"]);
            EXPECT_EQ(ja["modules"]["c"], jb["modules"]["c"]);
            EXPECT_EQ(ja["queues"], jb["queues"]);
         }
      }
   }
}

TEST(Engine, ThreeStagePipelineLatenciesAdd)
{
   /* p -(L1=1)-> r1 -(L2=3)-> r2 -(L3=2)-> c, capacities >= L + 1: item k
    * leaves p at k and each relay forwards it the cycle it becomes
    * visible, so c pops it at k + 1 + 3 + 2. Registered in a scrambled
    * order on purpose. */
   Engine eng;
   auto &c = eng.add<Consumer>("c", 20);
   eng.add<Relay>("r2");
   eng.add<Producer>("p", 20);
   eng.add<Relay>("r1");
   eng.connect("p.out", "r1.in", QueueParams{2, 1, 1});
   eng.connect("r1.out", "r2.in", QueueParams{4, 3, 1});
   eng.connect("r2.out", "c.in", QueueParams{3, 2, 1});
   RunResult r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   ASSERT_EQ(c.received.size(), 20u);
   for (int k = 0; k < 20; k++)
      EXPECT_EQ(c.received[k].second, Cycle(k + 6));
}

TEST(Engine, ActivityCyclesSumToPeriod)
{
   PipeResult r = run_pipe(2, 3, 15, false, 2);
   for (const ModuleStatsSnapshot &m : r.stats.modules)
      EXPECT_EQ(m.busy + m.stalled + m.starved + m.idle, r.stats.cycles()) << m.name;
}

TEST(Engine, RunInChunksEqualsOneRun)
{
   PipeResult whole = run_pipe(2, 3, 15, false, 2);
   Engine eng;
   auto &p = eng.add<Producer>("p", 15);
   auto &c = eng.add<Consumer>("c", 15, 2);
   eng.connect("p.out", "c.in", QueueParams{2, 3, 1});
   RunResult r;
   int chunks = 0;
   do {
      r = eng.run(7);
      chunks++;
   } while (r.reason == StopReason::CycleLimit);
   EXPECT_GT(chunks, 2);
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(eng.now(), whole.run.end);
   EXPECT_EQ(c.received, whole.received);
   EXPECT_EQ(p.push_cycles, whole.pushes);
}

/* Sleeps until a far cycle, then does one thing. */
class Sleeper : public Module {
 public:
   Sleeper(std::string name, Cycle when, bool busy)
       : Module(std::move(name)), when_(when), busy_(busy)
   {
   }
   Cycle woke_at = kNever;
   Activity tick(Cycle now) override
   {
      if (now == 0) {
         if (busy_) {
            sleep_until(when_);
            return Activity::Busy;
         }
         wake_at(when_);
         return Activity::Idle;
      }
      if (now >= when_ && woke_at == kNever)
         woke_at = now;
      return Activity::Idle;
   }
   bool drained() const override { return woke_at != kNever; }

 private:
   Cycle when_;
   bool busy_;
};

TEST(Engine, FastForwardOverBillionCycles)
{
   const Cycle when = 1000000000;
   Engine eng;
   eng.set_deadlock_window(0);
   auto &s = eng.add<Sleeper>("s", when, false);
   RunResult r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(s.woke_at, when);
   /* Ticked at 0 and at 10^9 only; the run ends after cycle 10^9. */
   EXPECT_EQ(eng.total_ticks(), 2u);
   EXPECT_EQ(r.end, when + 1);
   Stats st = eng.stats();
   EXPECT_EQ(st.modules[0].ticks, 2u);
   EXPECT_EQ(st.modules[0].idle, when + 1);
}

TEST(Engine, BusySleepCountsAsBusyAndAsProgress)
{
   /* Busy sleep from cycle 1 to 10^6 - 1: the default deadlock window
    * (100000) must not fire. Busy at 0 (tick) + 1..999999 (sleep) = 10^6. */
   const Cycle when = 1000000;
   Engine eng;
   auto &s = eng.add<Sleeper>("s", when, true);
   RunResult r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(s.woke_at, when);
   EXPECT_EQ(eng.total_ticks(), 2u);
   Stats st = eng.stats();
   EXPECT_EQ(st.modules[0].busy, when);
   EXPECT_EQ(st.modules[0].idle, 1u);
}

TEST(Engine, SleepAsSkipsTheTickAfterABusyOne)
{
   /* A producer that knows, after a push that fills its queue with more
    * to send, that its next ticks would only be stalled: sleep_as(Stalled).
    * The same pushes, pops and activity cycles as the plain producer (which
    * ticks once more, stalled, and then sleeps), in fewer ticks. */
   class EagerProducer : public Producer {
    public:
      EagerProducer(std::string name, int count) : Producer(std::move(name), count), count_(count)
      {
      }
      Activity tick(Cycle now) override
      {
         const Activity a = Producer::tick(now);
         if (a == Activity::Busy && int(push_cycles.size()) < count_ &&
             out.occupancy() == out.queue()->capacity())
            sleep_as(Activity::Stalled);
         return a;
      }

    private:
      int count_;
   };
   const int n = 40;
   for (unsigned work : {1u, 3u, 7u})
      for (unsigned C : {1u, 2u, 4u})
         for (bool reverse : {false, true}) {
            Stats st[2];
            std::vector<std::pair<int, Cycle>> received[2];
            std::vector<Cycle> pushes[2];
            for (int eager = 0; eager < 2; eager++) {
               Engine eng;
               Producer *p = nullptr;
               Consumer *c = nullptr;
               if (reverse)
                  c = &eng.add<Consumer>("c", n, work);
               if (eager)
                  p = &eng.add<EagerProducer>("p", n);
               else
                  p = &eng.add<Producer>("p", n);
               if (!reverse)
                  c = &eng.add<Consumer>("c", n, work);
               eng.connect("p.out", "c.in", QueueParams{C, 2, 1});
               ASSERT_EQ(eng.run(100000).reason, StopReason::Idle);
               st[eager] = eng.stats();
               received[eager] = c->received;
               pushes[eager] = p->push_cycles;
            }
            const std::string what = "work " + std::to_string(work) + " C " + std::to_string(C) +
                                     (reverse ? " reversed" : "");
            EXPECT_EQ(received[0], received[1]) << what;
            EXPECT_EQ(pushes[0], pushes[1]) << what;
            for (const char *m : {"p", "c"}) {
               const ModuleStatsSnapshot &a = *st[0].module(m), &b = *st[1].module(m);
               EXPECT_EQ(a.busy, b.busy) << what << " " << m;
               EXPECT_EQ(a.stalled, b.stalled) << what << " " << m;
               EXPECT_EQ(a.starved, b.starved) << what << " " << m;
               EXPECT_EQ(a.idle, b.idle) << what << " " << m;
            }
            EXPECT_EQ(st[0].queues[0].stats.pushes, st[1].queues[0].stats.pushes) << what;
            EXPECT_EQ(st[0].queues[0].stats.occupancy_sum, st[1].queues[0].stats.occupancy_sum)
               << what;
            if (work > 1 && C < 4)
               EXPECT_LT(st[1].module("p")->ticks, st[0].module("p")->ticks) << what;
         }
}

TEST(Engine, SleepingModulesAreNotTicked)
{
   /* A token every 1000 cycles through 3 relays: each relay ticks at cycle
    * 0 (starved, sleeps), then twice per token (busy when it arrives,
    * starved the next cycle): 1 + 2 * 10 ticks. */
   class Pacer : public Module {
    public:
      using Module::Module;
      OutPort<int> out{*this, "out"};
      int sent = 0;
      Activity tick(Cycle now) override
      {
         if (sent == 10)
            return Activity::Idle;
         if (now % 1000)
            return Activity::Idle; /* keeps its alarm */
         out.push(sent++);
         wake_at(now + 1000);
         return Activity::Busy;
      }
   };
   Engine eng;
   eng.add<Pacer>("src");
   eng.add<Relay>("r1");
   eng.add<Relay>("r2");
   eng.add<Relay>("r3");
   auto &c = eng.add<Consumer>("c", 10);
   eng.connect("src.out", "r1.in");
   eng.connect("r1.out", "r2.in");
   eng.connect("r2.out", "r3.in");
   eng.connect("r3.out", "c.in");
   RunResult r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   ASSERT_EQ(c.received.size(), 10u);
   EXPECT_EQ(c.received[9].second, 9000u + 4u);
   Stats st = eng.stats();
   for (const char *relay : {"r1", "r2", "r3"})
      EXPECT_EQ(st.module(relay)->ticks, 21u) << relay;
   EXPECT_LT(eng.total_ticks(), 200u); /* vs ~45000 if everything ticked */
}

TEST(Engine, StopRequestEndsRunAfterTheCycle)
{
   class Halter : public Module {
    public:
      using Module::Module;
      Activity tick(Cycle now) override
      {
         if (now == 5)
            request_stop();
         return Activity::Busy;
      }
   };
   Engine eng;
   eng.add<Halter>("h");
   RunResult r = eng.run(100);
   EXPECT_EQ(r.reason, StopReason::Stopped);
   EXPECT_EQ(r.end, 6u);
   r = eng.run(10);
   EXPECT_EQ(r.reason, StopReason::CycleLimit);
   EXPECT_EQ(r.begin, 6u);
   EXPECT_EQ(r.end, 16u);
}

TEST(Engine, RunUntilCondition)
{
   Engine eng;
   auto &p = eng.add<Producer>("p", 100);
   auto &c = eng.add<Consumer>("c", 100);
   eng.connect("p.out", "c.in", QueueParams{2, 1, 1});
   RunResult r = eng.run_until([&] { return c.received.size() == 5; });
   EXPECT_EQ(r.reason, StopReason::Stopped);
   /* C >= L + 1: item 4 popped at cycle 4 + 1; checked after that cycle. */
   EXPECT_EQ(r.end, 6u);
   EXPECT_EQ(p.push_cycles.size(), 6u);
}

TEST(Engine, ExternalWakeBetweenRuns)
{
   /* A module that does one unit of work per "doorbell". */
   class Doorbell : public Module {
    public:
      using Module::Module;
      int pending = 0, done = 0;
      std::vector<Cycle> work_cycles;
      Activity tick(Cycle now) override
      {
         if (!pending)
            return Activity::Idle;
         pending--;
         done++;
         work_cycles.push_back(now);
         return Activity::Busy;
      }
   };
   Engine eng;
   auto &d = eng.add<Doorbell>("d");
   RunResult r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(r.end, 1u);
   d.pending = 2;
   eng.wake(d);
   r = eng.run();
   EXPECT_EQ(d.done, 2);
   EXPECT_EQ(d.work_cycles, (std::vector<Cycle>{1, 2}));
   EXPECT_EQ(r.end, 4u); /* busy 1, 2; idle tick at 3 */
}

TEST(Engine, CycleLimitDuringFastForward)
{
   Engine eng;
   eng.set_deadlock_window(0);
   eng.add<Sleeper>("s", 5000, false);
   RunResult r = eng.run(1000);
   EXPECT_EQ(r.reason, StopReason::CycleLimit);
   EXPECT_EQ(r.end, 1000u);
   EXPECT_EQ(eng.total_ticks(), 1u);
   Stats st = eng.stats();
   EXPECT_EQ(st.modules[0].idle, 1000u);
   r = eng.run();
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(r.end, 5001u);
}

} // namespace
