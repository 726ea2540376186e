/*
 * The bottleneck report (sim/units/common/bottleneck.h, docs/simulator.md
 * "Bottleneck report") on whole cycle-mode GPUs: each scene is built so
 * that one resource binds, which the test knows from its own arithmetic
 * (instructions / SPCs, bytes / bandwidth, lines / MSHRs x latency, quads /
 * quads per cycle), and the report must name that resource as the cause of
 * most of the cycles. Every breakdown (per submit, draw and dispatch) must
 * add up to the cycles it describes.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "compute_scenes.h"
#include "scenes.h"
#include "units_test_util.h"
#include "sim/units/common/bottleneck.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

struct Breakdown {
   std::map<std::string, uint64_t> cycles;
   uint64_t total = 0;
   std::string top;
   double share(const std::string &c) const
   {
      auto it = cycles.find(c);
      return it == cycles.end() || !total ? 0.0 : double(it->second) / double(total);
   }
};

/** The "bottleneck" object of a statistics JSON (Stats::to_json); checks
 *  that it names every cause and adds up to @expect_total cycles. */
Breakdown
breakdown(const nlohmann::ordered_json &stats, uint64_t expect_total, const char *what)
{
   Breakdown b;
   EXPECT_TRUE(stats.contains("bottleneck")) << what;
   if (!stats.contains("bottleneck"))
      return b;
   uint64_t best = 0;
   for (const auto &[k, v] : stats["bottleneck"].items()) {
      b.cycles[k] = v.get<uint64_t>();
      b.total += b.cycles[k];
      if (b.cycles[k] > best) {
         best = b.cycles[k];
         b.top = k;
      }
   }
   EXPECT_EQ(b.cycles.size(), cause_names().size()) << what;
   EXPECT_EQ(b.total, expect_total) << what << ": the causes must add up to the cycles";
   std::printf("[ bottleneck ] %s: %llu cycles:", what, (unsigned long long)b.total);
   for (const auto &[k, v] : b.cycles)
      if (v)
         std::printf(" %s %.1f%%", k.c_str(), 100.0 * double(v) / double(b.total));
   std::printf("\n");
   return b;
}

SubmitResult
run_cs(const CsScene &cs, const Config &p)
{
   CycleGpu gpu(p);
   return run_scene(cs.s, gpu).res;
}

/* An ALU-bound dispatch (test_compute_cycle.cpp (b)): instructions / SPCs
 * cycles of issue, nothing else near its limit. */
TEST(Bottleneck, AluBoundDispatchIsSpcIssue)
{
   const uint32_t wgs = 128, block = 16;
   CsScene cs;
   alu_scene(cs, wgs, block);
   const Config p;
   const SubmitResult r = run_cs(cs, p);
   ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
   const DispatchReport &d = r.dispatches.at(0);
   const Breakdown b = breakdown(d.modules, d.cycles, "ALU-bound dispatch");
   breakdown(r.stats, r.cycles, "ALU-bound submit");
   const double issue = double(d.counters.instructions) / (p.gpcs * p.spcs_per_gpc);
   EXPECT_EQ(b.top, "spc_issue");
   /* an SPC issues in at least instructions / SPCs cycles, each charged to
    * spc_issue or to a cause above it in the list */
   uint64_t at_or_above = 0;
   for (uint32_t c = 0; c <= uint32_t(Cause::SpcIssue); c++)
      at_or_above += b.cycles.at(cause_name(Cause(c)));
   EXPECT_GE(double(at_or_above), issue);
   EXPECT_GE(b.share("spc_issue"), 0.9);
}

/* A streaming dispatch at 8 bytes per cycle: bytes / bandwidth dominates
 * (test_compute_cycle.cpp (a)): the bus is busy with requests queued. */
TEST(Bottleneck, StreamingAtLowBandwidthIsMcBandwidth)
{
   const uint64_t n = 32 * 1024; /* vec4: 512 KiB in, 512 KiB out */
   CsScene cs(8ull << 20);
   stream_scene(cs, n, 64);
   cs.s.finish();
   const Config p = params_with("memory.bandwidth_bytes_per_cycle=8");
   const SubmitResult r = run_cs(cs, p);
   ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
   const DispatchReport &d = r.dispatches.at(0);
   const Breakdown b = breakdown(d.modules, d.cycles, "streaming dispatch, 8 B/cycle");
   EXPECT_EQ(b.top, "mc_bandwidth");
   /* what must cross the MC during the dispatch: the reads, and the writes
    * the L2 evicts (at least written - l2 size) */
   const double must = double(n * 16 + (n * 16 - p.l2_size_bytes)) / 8.0;
   EXPECT_GE(b.share("mc_bandwidth"), 0.9 * must / double(d.cycles));
}

/* Latency hiding (test_compute_cycle.cpp (b')): with one resident group
 * per SPC at 128 bytes per cycle, each group waits memory.latency_cycles
 * for its loads; the bus is busy in fewer than bytes / bandwidth / cycles
 * of the cycles. With 8 groups per SPC the L2's MSHRs bind instead. */
TEST(Bottleneck, LatencyBoundThenMshrBound)
{
   const uint64_t n = 16 * 1024;
   CsScene cs(8ull << 20);
   stream_scene(cs, n, 16);
   cs.s.finish();
   {
      const Config p = params_with("memory.bandwidth_bytes_per_cycle=128,thread_groups_per_spc=1");
      const SubmitResult r = run_cs(cs, p);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      const DispatchReport &d = r.dispatches.at(0);
      const Breakdown b = breakdown(d.modules, d.cycles, "1 group per SPC, 128 B/cycle");
      EXPECT_EQ(b.top, "memory_latency");
      const double bus = double(2 * n * 16) / 128.0 / double(d.cycles);
      EXPECT_LE(b.share("mc_bandwidth"), bus);
      EXPECT_GE(b.share("memory_latency"), 0.5);
   }
   {
      const Config p = params_with("memory.bandwidth_bytes_per_cycle=128,thread_groups_per_spc=8");
      const SubmitResult r = run_cs(cs, p);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      const DispatchReport &d = r.dispatches.at(0);
      const Breakdown b = breakdown(d.modules, d.cycles, "8 groups per SPC, 128 B/cycle");
      /* lines read / MSHRs x latency: the MSHR bound the dispatch sits at */
      const double mshr_bound =
         double(n * 16 / p.l2_line_bytes) / p.l2_mshrs * p.memory_latency_cycles;
      std::printf("  L2 MSHR bound %.0f cycles of %llu\n", mshr_bound,
                  (unsigned long long)d.cycles);
      EXPECT_EQ(b.top, "l2_mshrs");
   }
}

constexpr unsigned kW = 256, kH = 256;

/* Full quads of one flat colour (test_fill_rate.cpp's scene): with 8 SPCs
 * and 256 bytes per cycle the quads per cycle bind. */
TEST(Bottleneck, FillBoundDrawIsTheOmuQuadRate)
{
   Scene s;
   scene_fill(s, kW, kH);
   Config p = params_with("spcs_per_gpc=8,memory.bandwidth_bytes_per_cycle=256");
   CycleGpu gpu(p);
   const ModeRun m = run_scene(s, gpu);
   ASSERT_TRUE(m.res.faults.empty());
   const DrawReport &d = m.res.draws.at(0);
   const Breakdown b = breakdown(d.modules, d.cycles, "fill-bound draw, 1 quad per cycle");
   const uint64_t quads = uint64_t(kW / 2) * (kH / 2);
   EXPECT_EQ(b.top, "omu_quads");
   /* quads / quads_per_cycle cycles of the PE's rasteriser and the OMU's
    * late stage (both at 1 quad per cycle): the cycles they bind are
    * charged to the OMU (its next group waiting) or to the PE (the OMU
    * fed just in time) */
   EXPECT_GE(b.share("omu_quads") + b.share("pe"), 0.8 * double(quads) / double(d.cycles));
}

/* A large clear: at 8 bytes per cycle the MC binds; at 128 bytes per cycle
 * with a 16-byte-per-cycle clear engine the clear engine does. */
TEST(Bottleneck, ClearIsBandwidthOrClearRate)
{
   constexpr unsigned kSide = 512;
   const float color[4] = {0.25f, 0.5f, 0.75f, 1.0f};
   for (const char *cfg : {"memory.bandwidth_bytes_per_cycle=8",
                           "memory.bandwidth_bytes_per_cycle=128,omu.clear_bytes_per_cycle=16"}) {
      Scene s(8ull << 20);
      s.t.framebuffer(kSide, kSide);
      for (int i = 0; i < 4; i++)
         s.clear(1u << 2, color);
      s.finish();
      const Config p = params_with(cfg);
      CycleGpu gpu(p);
      const ModeRun m = run_scene(s, gpu);
      ASSERT_TRUE(m.res.faults.empty());
      const Breakdown b = breakdown(m.res.stats, m.res.cycles, cfg);
      const double bytes = 4.0 * kSide * kSide * 4;
      const double by_bw = bytes / p.memory_bandwidth_bytes_per_cycle;
      const double by_rate = bytes / p.omu_clear_bytes_per_cycle;
      const std::string want = by_bw > by_rate ? "mc_bandwidth" : "clear";
      EXPECT_EQ(b.top, want) << cfg;
      for (const DrawReport &d : m.res.draws)
         breakdown(d.modules, d.cycles, "a clear draw");
   }
}

} // namespace

namespace {

/* docs/simulator.md "Bottleneck report" holds causes_markdown() between
 * its markers */
TEST(Bottleneck, DocsTableIsUpToDate)
{
   const std::string path = std::string(VLG_SOURCE_ROOT) + "/docs/simulator.md";
   std::ifstream f(path);
   ASSERT_TRUE(f) << path;
   std::stringstream ss;
   ss << f.rdbuf();
   const std::string doc = ss.str();
   const std::string begin = "<!-- BEGIN bottleneck-causes -->\n",
                     end = "<!-- END bottleneck-causes -->";
   const size_t b = doc.find(begin), e = doc.find(end);
   ASSERT_NE(b, std::string::npos);
   ASSERT_NE(e, std::string::npos);
   EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), causes_markdown())
      << "docs/simulator.md is out of date; replace the table between the markers with:\n"
      << causes_markdown();
}

} // namespace
