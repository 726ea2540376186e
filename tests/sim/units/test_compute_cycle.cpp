/*
 * DISPATCH on the cycle-mode modules (CP -> CE -> LTS -> SPC, global MEM
 * through the L1/L2/MC; docs/simulator-modules.md "CE", docs/hw.md
 * "Compute"), whole CycleGpu:
 *  (a) a streaming dispatch (out[i] = in[i] * 2.0 over vec4) costs the
 *      bytes it moves / memory.bandwidth_bytes_per_cycle;
 *  (b) an ALU-bound dispatch costs its instructions / SPCs (one issue per
 *      SPC per cycle): halves from 2 to 4 SPCs; a latency-bound one gets
 *      faster with more resident thread groups per SPC (Little's law) until the
 *      L2's MSHRs bind;
 *  (c) shared-memory bank conflicts cost (passes - 1) issue cycles per
 *      access, passes from the bank rule computed here;
 *  (d) a barrier exchange through shared memory across the thread groups
 *      of a workgroup gives the right values;
 *  (e) functional and cycle mode give bit-identical VRAM, the same faults
 *      and the same DispatchReport counters on compute scenes, in every
 *      configuration of unit_configs.h; the cycle counts do not depend on
 *      the modules sleeping (never_sleep).
 * Expected cycle counts are computed here from the configuration.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "compute_scenes.h"
#include "unit_configs.h"
#include "units_test_util.h"
#include "sim/func/cp/func_cp.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

SubmitResult
run_cycle(const CsScene &cs, const Config &p, std::unique_ptr<Vram> *vram_out = nullptr)
{
   CycleGpu gpu(p);
   ModeRun r = run_scene(cs.s, gpu);
   if (vram_out)
      *vram_out = std::move(r.vram);
   return r.res;
}

/* (a) 1 Mi in + 1 Mi out... here 2 MiB read + 2 MiB written. The MC moves
 * every line read (all misses) and every written line the L2 evicts (write
 * allocate, no fill: L2 write-back): at least written - l2.size_bytes. */
TEST(ComputeCycle, StreamingDispatchCostsBytesOverBandwidth)
{
   const uint64_t n = 128 * 1024; /* vec4: 2 MiB each way */
   CsScene cs(8ull << 20);
   const Stream st = stream_scene(cs, n, 64);
   cs.s.finish();
   for (uint32_t bw : {8u, 16u}) {
      const Config p =
         params_with("memory.bandwidth_bytes_per_cycle=" + std::to_string(bw));
      std::unique_ptr<Vram> v;
      const SubmitResult r = run_cycle(cs, p, &v);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      ASSERT_EQ(r.dispatches.size(), 1u);
      const uint64_t bytes = 2 * n * 16;
      const double want = double(bytes) / bw;
      const double floor = double(bytes - p.l2_size_bytes) / bw;
      const uint64_t cyc = r.dispatches[0].cycles;
      EXPECT_GE(double(cyc), floor) << "bandwidth " << bw;
      EXPECT_LE(double(cyc), want * 1.10) << "bandwidth " << bw << ": want " << want;
      /* the values */
      for (uint64_t i = 0; i < n * 4; i += 997) {
         float a, b;
         std::memcpy(&a, cs.s.t.vram.data() + st.in + 4 * i, 4);
         std::memcpy(&b, v->data() + st.out + 4 * i, 4);
         ASSERT_EQ(b, a * 2.0f) << i;
      }
      std::printf("streaming %llu bytes at %u bytes/cycle: %llu cycles (bytes / bandwidth %.0f)\n",
                  (unsigned long long)bytes, bw, (unsigned long long)cyc, want);
   }
}

/* The measurement: 32 MiB streamed (1 Mi vec4: 16 MiB read + 16
 * MiB written) at 8, 32 and 128 bytes per cycle. At least (bytes -
 * l2.size_bytes) / bandwidth (what must cross the MC); at 8 bytes per cycle
 * within 10% of bytes / bandwidth; above that other limits (L2 MSHRs x
 * latency, one request per cycle per SPC, issue) bound it, so only the
 * floor and a strict decrease are checked. Prints cycles and host time. */
TEST(ComputeCycle, Streaming32MiBAtThreeBandwidths)
{
   const uint64_t n = 1024 * 1024;
   CsScene cs(48ull << 20);
   const Stream st = stream_scene(cs, n, 64);
   cs.s.finish();
   uint64_t prev = ~uint64_t(0);
   for (uint32_t bw : {8u, 32u, 128u}) {
      const Config p =
         params_with("vram.size_bytes=64M,memory.bandwidth_bytes_per_cycle=" + std::to_string(bw));
      const std::clock_t t0 = std::clock();
      std::unique_ptr<Vram> v;
      const SubmitResult r = run_cycle(cs, p, &v);
      const double host_s = double(std::clock() - t0) / CLOCKS_PER_SEC;
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      const uint64_t bytes = 2 * n * 16, cyc = r.dispatches[0].cycles;
      EXPECT_GE(double(cyc), double(bytes - p.l2_size_bytes) / bw) << bw;
      if (bw == 8) {
         EXPECT_LE(double(cyc), double(bytes) / bw * 1.10);
      }
      EXPECT_LT(cyc, prev) << bw;
      prev = cyc;
      float a, b;
      std::memcpy(&a, cs.s.t.vram.data() + st.in + 4 * (n * 4 - 1), 4);
      std::memcpy(&b, v->data() + st.out + 4 * (n * 4 - 1), 4);
      EXPECT_EQ(b, a * 2.0f);
      /* the L2 sends one line per cycle to the MC: above a line per cycle
       * that binds, not the bus */
      const uint32_t per_cycle = std::min(bw, p.l2_line_bytes);
      record_measurement("32 MiB streaming dispatch (16 MiB read, 16 MiB written)",
                         "memory.bandwidth_bytes_per_cycle=" + std::to_string(bw), cyc,
                         double(bytes) / per_cycle,
                         per_cycle < bw ? "one L2 line per cycle to the MC: bytes / line"
                                        : "bytes / bandwidth");
      std::printf("  host %.2f s CPU\n", host_s);
   }
}

/* (b) one thread group per workgroup, 128 of them; 1 instruction per SPC
 * per cycle: cycles >= groups * instructions / SPCs, within 10% */
TEST(ComputeCycle, AluBoundDispatchScalesWithSpcs)
{
   const uint32_t wgs = 128, block = 16;
   CsScene cs;
   alu_scene(cs, wgs, block);
   uint64_t cyc[2] = {};
   int i = 0;
   for (uint32_t spcs : {2u, 4u}) {
      const Config p = params_with("spcs_per_gpc=" + std::to_string(spcs));
      const SubmitResult r = run_cycle(cs, p);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      ASSERT_EQ(r.dispatches.size(), 1u);
      const uint64_t groups = uint64_t(wgs) * ((block + p.thread_group_width - 1) /
                                               p.thread_group_width);
      EXPECT_EQ(r.dispatches[0].counters.instructions, groups * kAluInstrPerGroup);
      const double want = double(groups * kAluInstrPerGroup) / (p.gpcs * spcs);
      cyc[i] = r.dispatches[0].cycles;
      EXPECT_GE(double(cyc[i]), want) << spcs << " SPCs";
      EXPECT_LE(double(cyc[i]), want * 1.10) << spcs << " SPCs";
      std::printf("ALU-bound: %u SPCs: %llu cycles (instructions / SPCs %.0f)\n", spcs,
                  (unsigned long long)cyc[i], want);
      i++;
   }
   EXPECT_NEAR(double(cyc[0]) / double(cyc[1]), 2.0, 0.2);
}

/* (b') latency hiding: a streaming dispatch of one-thread-group workgroups at
 * a bandwidth it cannot use up. Each thread group loads and then waits at
 * least memory.latency_cycles for its data (Little's law: at most T loads in
 * flight per SPC with T resident groups), so the dispatch takes at least
 * groups / (SPCs x T) x latency cycles: more resident groups per SPC hide
 * more latency, until the next limit, the L2's MSHRs: every line read is a
 * miss that holds one of l2.mshrs for at least the latency, so at least
 * lines read / MSHRs x latency cycles. Run with l2.mshrs=32 (half the
 * default) so that the MSHRs are the limit from 4 groups on. */
TEST(ComputeCycle, MoreResidentGroupsHideLatencyUntilTheL2Mshrs)
{
   const uint64_t n = 16 * 1024; /* vec4: 256 KiB in, 256 KiB out */
   const uint32_t block = 16;    /* one thread group per workgroup */
   CsScene cs(8ull << 20);
   stream_scene(cs, n, block);
   cs.s.finish();
   std::map<uint32_t, uint64_t> cyc;
   double mshr_bound = 0;
   for (uint32_t t : {1u, 2u, 4u, 8u}) {
      const Config p = params_with(
         "l2.mshrs=32,memory.bandwidth_bytes_per_cycle=128,thread_groups_per_spc=" +
         std::to_string(t));
      const SubmitResult r = run_cycle(cs, p);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      cyc[t] = r.dispatches[0].cycles;
      const uint64_t groups = n / block, spcs = uint64_t(p.gpcs) * p.spcs_per_gpc;
      const double little = double(groups) / double(spcs * t) * p.memory_latency_cycles;
      const double bw_bound = double(2 * n * 16) / p.memory_bandwidth_bytes_per_cycle;
      mshr_bound = double(n * 16 / p.l2_line_bytes) / p.l2_mshrs * p.memory_latency_cycles;
      std::printf("latency hiding: %u resident group(s) per SPC: %llu cycles (Little's law %.0f, "
                  "L2 MSHRs %.0f, bandwidth %.0f)\n",
                  t, (unsigned long long)cyc[t], little, mshr_bound, bw_bound);
      EXPECT_GE(double(cyc[t]), little) << t << " groups per SPC";
      EXPECT_GE(double(cyc[t]), mshr_bound) << t << " groups per SPC";
      EXPECT_GE(double(cyc[t]), bw_bound) << t << " groups per SPC";
   }
   /* more groups in flight, fewer cycles, while Little's law binds */
   EXPECT_LT(double(cyc[2]), 0.6 * double(cyc[1]));
   EXPECT_LT(cyc[4], cyc[2]);
   /* from 4 groups per SPC on the MSHRs bind: within 10 % of their bound */
   for (uint32_t t : {4u, 8u})
      EXPECT_LE(double(cyc[t]), 1.10 * mshr_bound) << t << " groups per SPC";
   /* and it is the MSHRs: twice as many lift the limit */
   const SubmitResult r = run_cycle(
      cs, params_with("memory.bandwidth_bytes_per_cycle=128,thread_groups_per_spc=8,l2.mshrs=64"));
   ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
   std::printf("latency hiding: 8 resident groups per SPC, 64 MSHRs: %llu cycles\n",
               (unsigned long long)r.dispatches[0].cycles);
   EXPECT_LT(double(r.dispatches[0].cycles), 0.8 * mshr_bound);
}

/* (c) kM shared stores and a load by one thread group: stride s costs
 * (kM + 1) * (passes(s) - 1) cycles more than stride 1 (the SPC issues
 * nothing else meanwhile) */
TEST(ComputeCycle, SharedMemoryBankConflictsCostPasses)
{
   const Config p = params_with("");
   const unsigned W = p.thread_group_width, banks = p.shared_memory_banks;
   uint64_t base = 0;
   for (unsigned stride : {1u, 4u, 32u}) {
      CsScene cs;
      Grid g;
      g.block = W;
      g.shared_size = 4 * W * 32;
      /* twice: the second runs with the code in the instruction cache
       * (a fetch overlaps the bank passes of the instruction before) */
      const uint64_t out = cs.s.t.alloc(16);
      cs.dispatch(bank_shader(), {stride * 4, 7, uint32_t(out)}, g);
      cs.again();
      cs.s.finish();
      const SubmitResult r = run_cycle(cs, p);
      ASSERT_TRUE(r.faults.empty()) << r.faults[0].text;
      ASSERT_EQ(r.dispatches.size(), 2u);
      const uint64_t cyc = r.dispatches[1].cycles;
      const unsigned ps = passes(W, stride, banks);
      /* the dispatch's module statistics: one SPC ran it, with kM + 1
       * shared accesses of ps passes each; the CE formed one workgroup */
      const nlohmann::ordered_json &mods = r.dispatches[1].modules["modules"];
      uint64_t conflicts = 0, shared = 0;
      for (const auto &[name, m] : mods.items())
         if (name.find(".spc") != std::string::npos) {
            conflicts += m["counters"]["bank_conflict_cycles"].get<uint64_t>();
            shared += m["counters"]["shared_mem_instructions"].get<uint64_t>();
         }
      EXPECT_EQ(conflicts, uint64_t(kM + 1) * (ps - 1)) << "stride " << stride;
      EXPECT_EQ(shared, uint64_t(kM + 1)) << "stride " << stride;
      EXPECT_EQ(mods["gpc0.ce"]["counters"]["workgroups"].get<uint64_t>(), 1u);
      EXPECT_EQ(mods["gpc0.ce"]["counters"]["thread_groups"].get<uint64_t>(), 1u);
      if (stride == 1) {
         ASSERT_EQ(ps, 1u);
         base = cyc;
         continue;
      }
      EXPECT_GT(ps, 1u);
      /* kM stores and the load take ps - 1 extra issue cycles each (the
       * load's data is due ps - 1 cycles later: the dependent store waits
       * that much more, which the SPC would have spent on the load's passes) */
      EXPECT_EQ(cyc - base, uint64_t(kM + 1) * (ps - 1)) << "stride " << stride << ": " << ps
                                                           << " passes";
   }
}

/* (d) barrier exchange across the thread groups of each workgroup */
TEST(ComputeCycle, BarrierExchangeThroughSharedMemory)
{
   for (const char *cfgs : {"", "thread_group_width=4", "gpcs=2,spcs_per_gpc=2"}) {
      const Config p = params_with(cfgs);
      const uint32_t n = 32, wgs = 9;
      CsScene cs;
      const Barrier b = barrier_scene(cs, n, wgs);
      cs.s.finish();
      std::unique_ptr<Vram> v;
      const SubmitResult r = run_cycle(cs, p, &v);
      ASSERT_TRUE(r.faults.empty()) << cfgs << ": " << r.faults[0].text;
      EXPECT_EQ(r.dispatches[0].counters.barriers, uint64_t(wgs) * 3) << cfgs;
      /* groups waited at the barriers: an SPC issues one instruction per
       * cycle, so the groups of a workgroup reach a barrier in different cycles */
      uint64_t waited = 0;
      for (const auto &[name, m] : r.dispatches[0].modules["modules"].items())
         if (name.find(".spc") != std::string::npos)
            waited += m["counters"]["barrier_wait_cycles"].get<uint64_t>();
      EXPECT_GT(waited, 0u) << cfgs;
      for (uint32_t w = 0; w < wgs; w++)
         for (uint32_t l = 0; l < n; l++) {
            const uint32_t first = w * 1000 + (l ^ (n - 1));
            const uint32_t second = w * 1000 + ((l ^ 1) ^ (n - 1)) + 1;
            ASSERT_EQ(v->read32(b.out + 4ull * (w * n + l), "test"), first)
               << cfgs << " wg " << w << " lid " << l;
            ASSERT_EQ(v->read32(b.out2 + 4ull * (w * n + l), "test"), second)
               << cfgs << " wg " << w << " lid " << l;
         }
   }
}

/* (e) the compute scenes in both modes, every unit configuration */

class ComputeBothModes : public ::testing::TestWithParam<std::tuple<size_t, size_t>> {};

TEST_P(ComputeBothModes, IdenticalVramFaultsAndCounters)
{
   const CsNamedScene &sc = kCsScenes[std::get<0>(GetParam())];
   const NamedConfig &cf = kConfigs[std::get<1>(GetParam())];
   const Config p = params(cf);
   CsScene cs;
   sc.build(cs);
   cs.s.finish();
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(cs.s, *fgpu);
   const ModeRun c = run_scene(cs.s, cgpu);
   const std::string what = std::string(sc.name) + "/" + cf.name;
   ASSERT_EQ(f.res.faults.size(), c.res.faults.size()) << what;
   for (size_t i = 0; i < f.res.faults.size(); i++) {
      EXPECT_EQ(f.res.faults[i].module, c.res.faults[i].module) << what;
      EXPECT_EQ(f.res.faults[i].summary, c.res.faults[i].summary) << what;
      EXPECT_EQ(f.res.faults[i].dispatch_index, c.res.faults[i].dispatch_index) << what;
   }
   ASSERT_EQ(f.res.dispatches.size(), c.res.dispatches.size()) << what;
   for (size_t i = 0; i < f.res.dispatches.size(); i++) {
      const ComputeStats &a = f.res.dispatches[i].counters, &b = c.res.dispatches[i].counters;
      const std::string w = what + " dispatch " + std::to_string(i);
      EXPECT_EQ(f.res.dispatches[i].faulted, c.res.dispatches[i].faulted) << w;
      EXPECT_EQ(a.workgroups, b.workgroups) << w;
      EXPECT_EQ(a.thread_groups, b.thread_groups) << w;
      EXPECT_EQ(a.invocations, b.invocations) << w;
      EXPECT_EQ(a.instructions, b.instructions) << w;
      EXPECT_EQ(a.lane_instructions, b.lane_instructions) << w;
      EXPECT_EQ(a.dual_issued, b.dual_issued) << w;
      EXPECT_EQ(a.barriers, b.barriers) << w;
      EXPECT_EQ(a.mem_ops, b.mem_ops) << w;
      if (!c.res.dispatches[i].faulted) {
         EXPECT_GE(c.res.dispatches[i].cycles, 1u) << w;
         EXPECT_EQ(c.res.dispatches[i].cycles,
                   c.res.dispatches[i].end_cycle - c.res.dispatches[i].begin_cycle)
            << w;
      }
   }
   EXPECT_EQ(std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()), 0) << what;
   /* the sleeping rules change nothing: every module ticked every cycle */
   CycleGpu awake(p);
   awake.never_sleep();
   const ModeRun n = run_scene(cs.s, awake);
   ASSERT_EQ(n.res.dispatches.size(), c.res.dispatches.size()) << what;
   for (size_t i = 0; i < n.res.dispatches.size(); i++) {
      EXPECT_EQ(n.res.dispatches[i].cycles, c.res.dispatches[i].cycles) << what << " never_sleep";
      EXPECT_EQ(n.res.dispatches[i].modules["bottleneck"], c.res.dispatches[i].modules["bottleneck"])
         << what << " never_sleep";
   }
   if (f.res.faults.empty()) { /* "tight": workgroups of 2+ thread groups do not fit */
      EXPECT_NE(std::memcmp(cs.s.t.vram.data(), f.vram->data(), f.vram->size()), 0)
         << what << ": the scene changes nothing";
   }
}

INSTANTIATE_TEST_SUITE_P(
   Scenes, ComputeBothModes,
   ::testing::Combine(::testing::Range<size_t>(0, std::size(kCsScenes)),
                      ::testing::Range<size_t>(0, std::size(kConfigs))),
   [](const ::testing::TestParamInfo<std::tuple<size_t, size_t>> &i) {
      return std::string(kCsScenes[std::get<0>(i.param)].name) + "_" +
             kConfigs[std::get<1>(i.param)].name;
   });

} // namespace
