/*
 * Binding by name: unbound, doubly bound, type mismatch, wrong direction,
 * unknown names; queue overrides from the configuration.
 */
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "sim_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::testing;
using ::testing::HasSubstr;

namespace {

struct DrawCmd {
   int id = 0;
};

class Cp : public Module {
 public:
   using Module::Module;
   OutPort<DrawCmd> out_draw{*this, "out_draw"};
   OutPort<int> out_dump{*this, "out_dump"};
   Activity tick(Cycle) override { return Activity::Idle; }
};

class Gts : public Module {
 public:
   using Module::Module;
   InPort<DrawCmd> in_draw{*this, "in_draw"};
   InPort<float> in_float{*this, "in_float"};
   Activity tick(Cycle) override { return Activity::Idle; }
};

std::string
config_error(const std::function<void()> &f)
{
   try {
      f();
   } catch (const ConfigError &e) {
      return e.what();
   }
   return "(no ConfigError)";
}

TEST(Binding, UnboundPortsAreListedByName)
{
   Engine eng;
   eng.add<Cp>("cp");
   eng.add<Gts>("gts");
   eng.connect("cp.out_draw", "gts.in_draw");
   std::string msg = config_error([&] { eng.finalize(); });
   EXPECT_THAT(msg, HasSubstr("unbound ports"));
   EXPECT_THAT(msg, HasSubstr("cp.out_dump (output, int)"));
   EXPECT_THAT(msg, HasSubstr("gts.in_float (input, float)"));
   EXPECT_THAT(msg, ::testing::Not(HasSubstr("in_draw")));
   /* run() finalizes too: same error, nothing simulated. */
   EXPECT_THROW(eng.run(10), ConfigError);
   EXPECT_EQ(eng.now(), 0u);
}

TEST(Binding, PortBoundTwice)
{
   Engine eng;
   eng.add<Cp>("cp");
   eng.add<Gts>("gts");
   eng.add<Gts>("gts2");
   eng.connect("cp.out_draw", "gts.in_draw");
   EXPECT_THAT(config_error([&] { eng.connect("cp.out_draw", "gts2.in_draw"); }),
               HasSubstr("port 'cp.out_draw' is bound twice: already bound to queue "
                         "'cp.out_draw->gts.in_draw'"));
   eng.add<Cp>("cp2");
   EXPECT_THAT(config_error([&] { eng.connect("cp2.out_draw", "gts.in_draw"); }),
               HasSubstr("port 'gts.in_draw' is bound twice"));
}

TEST(Binding, TypeMismatch)
{
   Engine eng;
   eng.add<Cp>("cp");
   eng.add<Gts>("gts");
   std::string msg = config_error([&] { eng.connect("cp.out_dump", "gts.in_float"); });
   EXPECT_THAT(msg, HasSubstr("type mismatch"));
   EXPECT_THAT(msg, HasSubstr("'cp.out_dump' sends int but 'gts.in_float' receives float"));
   msg = config_error([&] { eng.connect("cp.out_draw", "gts.in_float"); });
   EXPECT_THAT(msg, HasSubstr("DrawCmd"));
}

TEST(Binding, WrongDirectionAndUnknownNames)
{
   Engine eng;
   eng.add<Cp>("cp");
   eng.add<Gts>("gts");
   EXPECT_THAT(config_error([&] { eng.connect("gts.in_draw", "cp.out_draw"); }),
               HasSubstr("port 'gts.in_draw' is an input port but is used as the producer"));
   EXPECT_THAT(config_error([&] { eng.connect("cpp.out_draw", "gts.in_draw"); }),
               HasSubstr("no module 'cpp' for port 'cpp.out_draw' (did you mean 'cp'?)"));
   EXPECT_THAT(config_error([&] { eng.connect("cp.out_drew", "gts.in_draw"); }),
               HasSubstr("module 'cp' has no port 'out_drew' (did you mean 'out_draw'?); its "
                         "ports: out_draw, out_dump"));
   EXPECT_THAT(config_error([&] { eng.connect("cp", "gts.in_draw"); }),
               HasSubstr("'cp' is not a 'module.port' name"));
}

TEST(Binding, ModuleAndPortNameRules)
{
   Engine eng;
   eng.add<Cp>("gpc0.cp");
   EXPECT_THAT(config_error([&] { eng.add<Cp>("gpc0.cp"); }), HasSubstr("added twice"));
   EXPECT_THAT(config_error([&] { eng.add<Cp>("bad name"); }), HasSubstr("invalid module name"));
   class TwoSame : public Module {
    public:
      using Module::Module;
      InPort<int> a{*this, "x"};
      InPort<int> b{*this, "x"};
      Activity tick(Cycle) override { return Activity::Idle; }
   };
   EXPECT_THAT(config_error([&] { eng.add<TwoSame>("t"); }), HasSubstr("two ports named 'x'"));
   /* Hierarchical module names resolve by the last dot. */
   eng.add<Gts>("gpc0.gts");
   eng.connect("gpc0.cp.out_draw", "gpc0.gts.in_draw");
   EXPECT_TRUE(eng.queue("gpc0.cp.out_draw->gpc0.gts.in_draw"));
}

TEST(Binding, QueueOverridesFromConfig)
{
   Config cfg;
   cfg.queue_default_capacity = 6;
   cfg.apply_overrides("queues.p.out.capacity=9,queues.c.in.latency=5,"
                       "queues.p2.out->c2.in.bandwidth=2");
   Engine eng(cfg);
   eng.add<Producer>("p", 1);
   eng.add<Consumer>("c", 1);
   eng.add<Producer>("p2", 1);
   eng.add<Consumer>("c2", 1);
   QueueBase &q1 = eng.connect("p.out", "c.in");
   QueueBase &q2 = eng.connect("p2.out", "c2.in", QueueParams{3, 2, 1});
   EXPECT_EQ(q1.params(), (QueueParams{9, 5, 1}));
   EXPECT_EQ(q2.params(), (QueueParams{3, 2, 2}));
   eng.finalize();
}

TEST(Binding, OverrideNamingNoQueueIsAnError)
{
   Config cfg;
   cfg.apply_overrides("queues.p.ot.capacity=9");
   Engine eng(cfg);
   eng.add<Producer>("p", 1);
   eng.add<Consumer>("c", 1);
   eng.connect("p.out", "c.in");
   EXPECT_THAT(config_error([&] { eng.finalize(); }),
               HasSubstr("'queues.p.ot': no queue or port named 'p.ot' (did you mean 'p.out'?)"));
}

TEST(Binding, InvalidQueueParametersNameTheQueue)
{
   Engine eng;
   eng.add<Producer>("p", 1);
   eng.add<Consumer>("c", 1);
   EXPECT_THAT(config_error([&] {
                  eng.connect("p.out", "c.in", QueueParams{2, 0, 1});
               }),
               HasSubstr("queue 'p.out->c.in'"));
}

TEST(Binding, NoChangesAfterFinalize)
{
   Engine eng;
   eng.add<Producer>("p", 1);
   eng.add<Consumer>("c", 1);
   eng.connect("p.out", "c.in");
   eng.finalize();
   EXPECT_THROW(eng.add<Producer>("p3", 1), ConfigError);
}

TEST(Binding, UseOfUnboundPortIsSimError)
{
   Producer p("p", 1);
   EXPECT_THROW(p.out.typed_queue(), SimError);
}

} // namespace
