/*
 * The worked example of docs/simulator.md ("Writing a module"), compiled
 * and checked: a unit that expands draw commands into vertex indices after
 * a fixed setup latency. Expected cycles worked out by hand.
 */
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/engine.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

// --- begin docs example ---
struct DrawCmd {
   uint32_t first = 0, count = 0; /* vertices [first, first + count) */
};
struct VertexId {
   uint32_t index = 0;
   bool last = false; /* last vertex of its draw */
};

/* Expands each draw into one vertex index per cycle, after `setup_cycles`
 * cycles of set-up per draw (e.g. reading draw_info from VRAM). */
class IndexGen : public Module {
 public:
   IndexGen(std::string name, Cycle setup_cycles) : Module(std::move(name)), setup_(setup_cycles) {}

   InPort<DrawCmd> in_draw{*this, "in_draw", "draw commands from the CP"};
   OutPort<VertexId> out_vertex{*this, "out_vertex",
                                "vertex indices, `last` on a draw's final one"};

   Activity tick(Cycle now) override
   {
      if (!active_) {
         if (!in_draw.can_pop())
            return Activity::Idle; /* sleeps until a draw becomes readable */
         draw_ = in_draw.pop();
         ++draws_;
         next_ = 0;
         active_ = draw_.count > 0;
         sleep_until(now + setup_); /* busy, but no need to tick meanwhile */
         return Activity::Busy;
      }
      if (!out_vertex.can_push())
         return Activity::Stalled; /* sleeps until the reader frees a slot */
      out_vertex.push(VertexId{draw_.first + next_, next_ + 1 == draw_.count});
      ++vertices_;
      if (++next_ == draw_.count)
         active_ = false;
      return Activity::Busy;
   }

   bool drained() const override { return !active_; }

   std::string stall_report() const override
   {
      std::string r = port_report();
      if (active_)
         r += fmt::format("; draw at {}: sent {} of {} vertices", draw_.first, next_, draw_.count);
      return r;
   }

 private:
   Cycle setup_;
   DrawCmd draw_;
   bool active_ = false;
   uint32_t next_ = 0;
   Counter &draws_ = add_counter("draws", "draw commands accepted");
   Counter &vertices_ = add_counter("vertices", "vertex indices sent");
};
// --- end docs example ---

/* Test neighbours: a command source and a vertex sink. */
class CmdSource : public Module {
 public:
   CmdSource(std::string name, std::vector<DrawCmd> cmds)
       : Module(std::move(name)), cmds_(std::move(cmds))
   {
   }
   OutPort<DrawCmd> out_draw{*this, "out_draw"};
   Activity tick(Cycle) override
   {
      if (sent_ == cmds_.size())
         return Activity::Idle;
      if (!out_draw.can_push())
         return Activity::Stalled;
      out_draw.push(cmds_[sent_++]);
      return Activity::Busy;
   }

 private:
   std::vector<DrawCmd> cmds_;
   size_t sent_ = 0;
};

class VertexSink : public Module {
 public:
   using Module::Module;
   InPort<VertexId> in_vertex{*this, "in_vertex"};
   std::vector<std::pair<uint32_t, Cycle>> got;
   int lasts = 0;
   Activity tick(Cycle now) override
   {
      if (!in_vertex.can_pop())
         return Activity::Idle;
      VertexId v = in_vertex.pop();
      got.emplace_back(v.index, now);
      lasts += v.last;
      return Activity::Busy;
   }
};

TEST(Example, IndexGenFromTheDocs)
{
   Engine eng;
   eng.add<CmdSource>("cp", std::vector<DrawCmd>{{0, 4}, {100, 2}});
   eng.add<IndexGen>("ge", 3);
   auto &sink = eng.add<VertexSink>("sink");
   eng.connect("cp.out_draw", "ge.in_draw");
   eng.connect("ge.out_vertex", "sink.in_vertex");
   RunResult r = eng.run();
   /* Draw A pushed at 0, readable at 1: ge pops it at 1 and sleeps (busy)
    * until 4, then pushes 0,1,2,3 at 4..7. Draw B (pushed at 1) is popped
    * at 8: vertices 100, 101 at 11, 12. The sink pops each one cycle later.
    * ge: idle at 0, busy 1..12, idle from 13 (sleeps); the sink's idle
    * tick at 14 is the last one, so the run ends idle at 15. */
   EXPECT_EQ(r.reason, StopReason::Idle);
   EXPECT_EQ(r.end, 15u);
   using P = std::pair<uint32_t, Cycle>;
   EXPECT_EQ(sink.got, (std::vector<P>{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {100, 12}, {101, 13}}));
   EXPECT_EQ(sink.lasts, 2);
   Stats s = eng.stats();
   const ModuleStatsSnapshot &ge = *s.module("ge");
   EXPECT_EQ(ge.busy, 12u);
   EXPECT_EQ(ge.idle, 3u);
   EXPECT_EQ(ge.counter("draws"), 2u);
   EXPECT_EQ(ge.counter("vertices"), 6u);
   /* Ticks: 0, 1, 4, 5, 6, 7, 8, 11, 12, 13 (busy sleeps skip 2-3, 9-10). */
   EXPECT_EQ(ge.ticks, 10u);
}

TEST(Example, IndexGenStallReport)
{
   /* No sink reading: ge fills the 4-entry queue (vertices 0..3 at 4..7)
    * (4 = default capacity) and stalls at 8 with 4 of 10 sent: every module
    * is asleep from then on, reported after cycle 8. */
   class Nobody : public Module {
    public:
      using Module::Module;
      InPort<VertexId> in{*this, "in"};
      Activity tick(Cycle) override { return Activity::Idle; }
      bool drained() const override { return false; } /* "never reads" */
   };
   Engine eng;
   eng.add<CmdSource>("cp", std::vector<DrawCmd>{{0, 10}});
   eng.add<IndexGen>("ge", 3);
   eng.add<Nobody>("sink");
   eng.connect("cp.out_draw", "ge.in_draw");
   eng.connect("ge.out_vertex", "sink.in");
   RunResult r = eng.run();
   ASSERT_EQ(r.reason, StopReason::Deadlock);
   EXPECT_EQ(r.end, 9u);
   EXPECT_EQ(r.deadlock->module("ge")->report,
             "inputs with no visible entry: in_draw; full outputs: out_vertex (4/4); "
             "draw at 0: sent 4 of 10 vertices");
}

} // namespace

namespace {

std::string
slurp(const std::string &path)
{
   std::ifstream f(path);
   std::stringstream ss;
   ss << f.rdbuf();
   return ss.str();
}

TEST(Example, DocsShowThisExactCode)
{
   const std::string root = VLG_SOURCE_ROOT;
   const std::string src = slurp(root + "/tests/sim/test_example.cpp");
   const std::string doc = slurp(root + "/docs/simulator.md");
   const std::string b = "// --- begin docs example ---\n", e = "// --- end docs example ---";
   const size_t i = src.find(b), j = src.find(e);
   ASSERT_NE(i, std::string::npos);
   ASSERT_NE(j, std::string::npos);
   const std::string example = src.substr(i + b.size(), j - i - b.size());
   EXPECT_NE(doc.find(example), std::string::npos)
      << "docs/simulator.md 'Writing a module' must show the code between the markers of "
         "tests/sim/test_example.cpp";
}

} // namespace
