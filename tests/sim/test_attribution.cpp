/*
 * CycleAttribution (sim/core/attribution.h): every cycle charged to the
 * first cause with a flag on, the last cause when none is; totals add up
 * to the period; flags of sleeping modules hold; reset keeps the flags.
 * Expected cycle counts worked out by hand from the set() calls.
 */
#include <gtest/gtest.h>

#include "sim_test_util.h"
#include "sim/core/attribution.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

uint64_t
total(const std::vector<std::pair<std::string, uint64_t>> &t, const std::string &name)
{
   for (const auto &[k, v] : t)
      if (k == name)
         return v;
   ADD_FAILURE() << "no cause " << name;
   return 0;
}

TEST(CycleAttribution, FirstCauseHoldingWinsEachCycle)
{
   CycleAttribution a({"bandwidth", "issue", "idle"});
   CauseFlag bw(0), issue1(1), issue2(1);
   a.bind(bw, 0);
   a.bind(issue1, 0);
   a.bind(issue2, 0);
   a.reset(0);
   issue1.set(10, true);  /* [10, 30): issue */
   issue2.set(20, true);  /* two holders */
   bw.set(30, true);      /* [30, 40): bandwidth wins over issue */
   bw.set(40, false);     /* [40, 50): issue again */
   issue1.set(50, false); /* issue2 still holds: [50, 60) issue */
   issue2.set(60, false); /* [60, 100): idle */
   a.sync(100);
   const auto t = a.totals();
   EXPECT_EQ(total(t, "bandwidth"), 10u);
   EXPECT_EQ(total(t, "issue"), 20u + 10u + 10u);
   EXPECT_EQ(total(t, "idle"), 10u + 40u);
   uint64_t sum = 0;
   for (const auto &[k, v] : t)
      sum += v;
   EXPECT_EQ(sum, 100u);
}

TEST(CycleAttribution, ResetZeroesTotalsButKeepsFlags)
{
   CycleAttribution a({"x", "idle"});
   CauseFlag f(0);
   f.set(0, true); /* on before binding: counts from the bind */
   a.bind(f, 5);
   a.reset(5);
   a.sync(15);
   EXPECT_EQ(total(a.totals(), "x"), 10u);
   a.reset(15);
   a.sync(18);
   EXPECT_EQ(total(a.totals(), "x"), 3u);
   EXPECT_EQ(total(a.totals(), "idle"), 0u);
}

TEST(CycleAttribution, RejectsBadLists)
{
   EXPECT_THROW(CycleAttribution(std::vector<std::string>{}), SimError);
   EXPECT_THROW(CycleAttribution(std::vector<std::string>(65, "c")), SimError);
   CycleAttribution a({"x", "idle"});
   CauseFlag f(7);
   EXPECT_THROW(a.bind(f, 0), SimError);
}

/* Through the engine: a module that is Busy for 3 cycles out of every 4
 * (set_activity_causes) and sleeps in between; Stats::causes adds up to the
 * period and to_json carries it. */
class Pulser : public Module {
 public:
   explicit Pulser(std::string name) : Module(std::move(name)) { set_activity_causes(0); }
   int left = 12;
   Activity tick(Cycle now) override
   {
      if (!left)
         return Activity::Idle;
      left--;
      if (now % 4 == 3) {
         wake_at(now + 1);
         return Activity::Starved; /* sleeps one cycle */
      }
      return Activity::Busy;
   }
};

TEST(CycleAttribution, EngineChargesActivityCauses)
{
   Engine eng;
   CycleAttribution a({"pulser_busy", "idle"});
   eng.set_attribution(&a);
   eng.add<Pulser>("p");
   eng.finalize();
   eng.run(1000);
   const Stats s = eng.stats();
   ASSERT_EQ(s.causes.size(), 2u);
   const ModuleStatsSnapshot *m = s.module("p");
   ASSERT_NE(m, nullptr);
   EXPECT_EQ(s.causes[0].second, m->busy); /* the busy cycles, and only those */
   EXPECT_EQ(s.causes[0].second, 9u);      /* 12 ticks, every 4th not busy */
   EXPECT_EQ(s.causes[0].second + s.causes[1].second, s.cycles());
   EXPECT_EQ(s.to_json()["bottleneck"]["pulser_busy"].get<uint64_t>(), 9u);
}

} // namespace
