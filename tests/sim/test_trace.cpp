/*
 * Trace writer: valid Trace Event Format JSON with the expected metadata,
 * merged activity spans and queue occupancy counters (worked out by hand).
 */
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::testing;
using nlohmann::json;

namespace {

json
read_json(const std::string &path)
{
   std::ifstream f(path);
   std::stringstream ss;
   ss << f.rdbuf();
   return json::parse(ss.str()); /* throws if the trace is not valid JSON */
}

std::vector<json>
events(const json &t, const std::string &ph)
{
   std::vector<json> v;
   for (const json &e : t["traceEvents"]) {
      if (e["ph"] == ph)
         v.push_back(e);
   }
   return v;
}

TEST(Trace, SpansCountersAndMetadata)
{
   const std::string path = ::testing::TempDir() + "vlgpu_trace_test.json";
   /* p -> c, capacity 3, latency 2, 4 items (C >= L + 1: no stall).
    * p: busy 0..3 (one span ts 0 dur 4), idle from 4 (not drawn).
    * c: starved 0..1 (first entry readable at 2), busy 2..5 (pops), idle
    *    from 6.
    * Queue end-of-cycle occupancy: 1, 2, 2, 2, 1, 0 (cycles 0..5), so
    * counter events (ts, value): (0, 0) initial, (0, 1), (1, 2), (4, 1),
    * (5, 0). */
   {
      Engine eng;
      eng.add<Producer>("p", 4);
      eng.add<Consumer>("c", 4);
      eng.connect("p.out", "c.in", QueueParams{3, 2, 1});
      eng.start_trace(path);
      EXPECT_TRUE(eng.tracing());
      RunResult r = eng.run();
      EXPECT_EQ(r.end, 7u);
      eng.stop_trace();
   }
   json t = read_json(path);
   ASSERT_TRUE(t["traceEvents"].is_array());

   /* Metadata: process and thread names. */
   std::map<int, std::string> threads;
   std::map<int, std::string> processes;
   for (const json &e : events(t, "M")) {
      if (e["name"] == "thread_name")
         threads[e["tid"].get<int>()] = e["args"]["name"];
      if (e["name"] == "process_name")
         processes[e["pid"].get<int>()] = e["args"]["name"];
   }
   EXPECT_EQ(threads, (std::map<int, std::string>{{1, "p"}, {2, "c"}}));
   EXPECT_EQ(processes, (std::map<int, std::string>{{1, "vlgpu modules"},
                                                    {2, "vlgpu queues (occupancy)"},
                                                    {3, "vlgpu GPU render stages"},
                                                    {4, "vlgpu module counters (totals)"}}));

   /* Activity spans, merged. */
   std::vector<std::tuple<int, std::string, int, int>> spans;
   for (const json &e : events(t, "X")) {
      EXPECT_EQ(e["pid"], 1);
      spans.emplace_back(e["tid"].get<int>(), e["name"].get<std::string>(), e["ts"].get<int>(),
                         e["dur"].get<int>());
   }
   std::sort(spans.begin(), spans.end());
   using S = std::tuple<int, std::string, int, int>;
   EXPECT_EQ(spans,
             (std::vector<S>{S{1, "busy", 0, 4}, S{2, "busy", 2, 4}, S{2, "starved", 0, 2}}));
   for (const json &e : events(t, "X")) {
      if (e["name"] == "starved") {
         EXPECT_EQ(e["args"]["waiting_for"],
                   "inputs with no visible entry: in (next entry readable at cycle 2)");
      }
   }

   /* Queue occupancy counters. */
   std::vector<std::pair<int, int>> counters;
   for (const json &e : events(t, "C")) {
      EXPECT_EQ(e["name"], "p.out->c.in");
      counters.emplace_back(e["ts"].get<int>(), e["args"]["occupancy"].get<int>());
   }
   EXPECT_EQ(counters, (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 2}, {4, 1}, {5, 0}}));
}

/* The same run as above written for cycles [3, 5) only: spans cut at the
 * window's edges (p busy 0..3 -> ts 3 dur 1; c busy 2..5 -> ts 3 dur 2;
 * c starved 0..1 dropped); the queue's occupancy entering the window (2,
 * from cycle 1) written at 3, then (4, 1); (5, 0) is past the end. */
TEST(Trace, WindowKeepsOnlyItsCycles)
{
   const std::string path = ::testing::TempDir() + "vlgpu_trace_window_test.json";
   {
      Engine eng;
      eng.add<Producer>("p", 4);
      eng.add<Consumer>("c", 4);
      eng.connect("p.out", "c.in", QueueParams{3, 2, 1});
      TraceOptions o;
      o.window_begin = 3;
      o.window_end = 5;
      eng.start_trace(path, o);
      eng.run();
      eng.stop_trace();
   }
   json t = read_json(path);
   std::vector<std::tuple<int, std::string, int, int>> spans;
   for (const json &e : events(t, "X"))
      spans.emplace_back(e["tid"].get<int>(), e["name"].get<std::string>(), e["ts"].get<int>(),
                         e["dur"].get<int>());
   std::sort(spans.begin(), spans.end());
   using S = std::tuple<int, std::string, int, int>;
   EXPECT_EQ(spans, (std::vector<S>{S{1, "busy", 3, 1}, S{2, "busy", 3, 2}}));
   std::vector<std::pair<int, int>> counters;
   for (const json &e : events(t, "C"))
      counters.emplace_back(e["ts"].get<int>(), e["args"]["occupancy"].get<int>());
   EXPECT_EQ(counters, (std::vector<std::pair<int, int>>{{3, 2}, {4, 1}}));
}

std::vector<std::tuple<int, std::string, int, int>>
sorted_spans(const json &t)
{
   std::vector<std::tuple<int, std::string, int, int>> spans;
   for (const json &e : events(t, "X"))
      spans.emplace_back(e["tid"].get<int>(), e["name"].get<std::string>(), e["ts"].get<int>(),
                         e["dur"].get<int>());
   std::sort(spans.begin(), spans.end());
   return spans;
}

/* The run of SpansCountersAndMetadata with a checkpoint after cycle 2 (now
 * = 3): the file read while the engine still lives is complete up to cycle
 * 3 (p busy 0..2 -> ts 0 dur 3; c starved 0..1, busy 2 -> ts 2 dur 1;
 * occupancy (0, 0), (0, 1), (1, 2)); after the run the open spans go on
 * from 3 as new spans (p busy 3 -> ts 3 dur 1; c busy 3..5 -> ts 3 dur 3)
 * and the counters are those of the whole run. This is what a process that
 * exits with its GPU alive leaves (CycleGpu checkpoints after each submit). */
TEST(Trace, CheckpointLeavesACompleteFileAndGoesOn)
{
   const std::string path = ::testing::TempDir() + "vlgpu_trace_checkpoint_test.json";
   using S = std::tuple<int, std::string, int, int>;
   using C = std::vector<std::pair<int, int>>;
   const auto counters = [](const json &t) {
      C v;
      for (const json &e : events(t, "C"))
         v.emplace_back(e["ts"].get<int>(), e["args"]["occupancy"].get<int>());
      return v;
   };
   Engine eng;
   eng.add<Producer>("p", 4);
   eng.add<Consumer>("c", 4);
   eng.connect("p.out", "c.in", QueueParams{3, 2, 1});
   eng.start_trace(path);
   eng.run(3);
   ASSERT_EQ(eng.now(), 3u);
   eng.checkpoint_trace();
   json t = read_json(path);
   EXPECT_EQ(sorted_spans(t),
             (std::vector<S>{S{1, "busy", 0, 3}, S{2, "busy", 2, 1}, S{2, "starved", 0, 2}}));
   EXPECT_EQ(counters(t), (C{{0, 0}, {0, 1}, {1, 2}}));
   EXPECT_EQ(events(t, "M").size(), 12u); /* 4 processes x 2 + 2 threads x 2 */

   eng.run();
   eng.checkpoint_trace(); /* twice: the second overwrites the first end */
   eng.stop_trace();
   t = read_json(path);
   EXPECT_EQ(sorted_spans(t),
             (std::vector<S>{S{1, "busy", 0, 3}, S{1, "busy", 3, 1}, S{2, "busy", 2, 1},
                             S{2, "busy", 3, 3}, S{2, "starved", 0, 2}}));
   EXPECT_EQ(counters(t), (C{{0, 0}, {0, 1}, {1, 2}, {4, 1}, {5, 0}}));
}

/* Commands on the render-stages track (pid 3): [0, 10), [5, 8), [8, 12),
 * [10, 20) in this order. Lanes: the first goes to lane 1; [5, 8) overlaps
 * it -> lane 2; [8, 12) starts when lane 1 is still busy (until 10) but
 * lane 2 is free (8) -> lane 2; [10, 20) -> lane 1 (free at 10). With the
 * window [6, 15): [0, 10) -> ts 6 dur 4, [5, 8) -> ts 6 dur 2, [8, 12) ->
 * ts 8 dur 4, [10, 20) -> ts 10 dur 5; a command in [20, 30) is outside.
 * Module counters at ts 7 (inside) are written, at 15 (outside) not. */
TEST(Trace, CommandLanesAndModuleCounters)
{
   const std::string path = ::testing::TempDir() + "vlgpu_trace_commands_test.json";
   {
      Engine eng;
      eng.add<Producer>("p", 1);
      eng.add<Consumer>("c", 1);
      eng.connect("p.out", "c.in");
      TraceOptions o;
      o.window_begin = 6;
      o.window_end = 15;
      eng.start_trace(path, o);
      Tracer *t = eng.tracer();
      ASSERT_NE(t, nullptr);
      t->command("draw 0 CLEAR", 0, 10, "");
      t->command("draw 1 TRIANGLES vs 0x100 fs 0x200", 5, 8, R"({"draw":1})");
      t->command("copy 0 FILL 64 bytes", 8, 12, "");
      t->command("dispatch 0", 10, 20, "");
      t->command("draw 2 POINTS", 20, 30, "");
      Stats st;
      st.modules.push_back(ModuleStatsSnapshot{"p", 0, 0, 0, 0, 0, {{"items", 3}, {"b", 4}}});
      st.modules.push_back(ModuleStatsSnapshot{"c", 0, 0, 0, 0, 0, {}}); /* no counters */
      t->module_counters(st, 7);
      t->module_counters(st, 15);
      eng.stop_trace();
   }
   json t = read_json(path);
   std::vector<std::tuple<int, std::string, int, int>> spans;
   for (const json &e : events(t, "X"))
      if (e["pid"] == 3)
         spans.emplace_back(e["tid"].get<int>(), e["name"].get<std::string>(), e["ts"].get<int>(),
                            e["dur"].get<int>());
   using S = std::tuple<int, std::string, int, int>;
   EXPECT_EQ(spans, (std::vector<S>{
                       S{1, "draw 0 CLEAR", 6, 4}, S{2, "draw 1 TRIANGLES vs 0x100 fs 0x200", 6, 2},
                       S{2, "copy 0 FILL 64 bytes", 8, 4}, S{1, "dispatch 0", 10, 5}}));
   for (const json &e : events(t, "X"))
      if (e["pid"] == 3 && e["tid"] == 2 && e["ts"] == 6)
         EXPECT_EQ(e["args"]["draw"], 1);
   std::map<int, std::string> lanes;
   for (const json &e : events(t, "M"))
      if (e["pid"] == 3 && e["name"] == "thread_name")
         lanes[e["tid"].get<int>()] = e["args"]["name"];
   EXPECT_EQ(lanes, (std::map<int, std::string>{{1, "commands 0"}, {2, "commands 1"}}));
   std::vector<json> counters;
   for (const json &e : events(t, "C"))
      if (e["pid"] == 4)
         counters.push_back(e);
   ASSERT_EQ(counters.size(), 1u);
   EXPECT_EQ(counters[0]["name"], "p");
   EXPECT_EQ(counters[0]["ts"], 7);
   EXPECT_EQ(counters[0]["args"], (json{{"items", 3}, {"b", 4}}));
}

TEST(Trace, InstantEventsAndSameResultsAsUntraced)
{
   class Marker : public Module {
    public:
      using Module::Module;
      InPort<int> in{*this, "in"};
      std::vector<Cycle> got;
      Activity tick(Cycle now) override
      {
         if (!in.can_pop())
            return Activity::Starved;
         in.pop();
         got.push_back(now);
         trace_instant("token");
         return Activity::Busy;
      }
   };
   const std::string path = ::testing::TempDir() + "vlgpu_trace_test2.json";
   std::vector<Cycle> traced, untraced;
   for (bool on : {true, false}) {
      Engine eng;
      eng.add<Producer>("p", 6);
      auto &m = eng.add<Marker>("m");
      eng.connect("p.out", "m.in", QueueParams{1, 1, 1});
      if (on)
         eng.start_trace(path, TraceOptions{false});
      eng.run();
      (on ? traced : untraced) = m.got;
   } /* the destructor finishes the file */
   EXPECT_EQ(traced, untraced);
   json t = read_json(path);
   auto inst = events(t, "i");
   ASSERT_EQ(inst.size(), 6u);
   for (size_t i = 0; i < inst.size(); i++) {
      EXPECT_EQ(inst[i]["ts"].get<Cycle>(), traced[i]);
      EXPECT_EQ(inst[i]["tid"], 2);
   }
   /* stall_reasons off: no args on spans. */
   for (const json &e : events(t, "X"))
      EXPECT_FALSE(e.contains("args"));
}

TEST(Trace, UnwritablePathIsConfigError)
{
   Engine eng;
   EXPECT_THROW(eng.start_trace("/nonexistent-dir/x/trace.json"), ConfigError);
   EXPECT_FALSE(eng.tracing());
}

} // namespace
