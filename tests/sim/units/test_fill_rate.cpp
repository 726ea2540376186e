/*
 * Fill rate on the whole cycle-mode GPU: a draw of flat-coloured full quads
 * whose bound is the quads the PE rasterises and the OMU writes per cycle
 * (pe.quads_per_cycle, omu.quads_per_cycle, docs/simulator-modules.md "PE",
 * "OMU"). The machine is set up so that nothing else binds: a one-instruction
 * fragment shader on 8 SPCs, memory at 256 bytes per cycle, no depth test, no
 * blending. Expected from the configuration, computed here: Q quads need at
 * least Q / q cycles at q quads per cycle, and a fill-rate-bound draw takes
 * that plus a fixed pipeline fill (bounded below) and so scales as 1/q.
 *
 * Response test (issue 16 item 2): 4x quads per cycle (1 -> 4) takes the
 * draw from Q + F to Q / 4 + F cycles (F, the pipeline fill, measured at
 * q = 1), within 5 %; beyond that (q = 8) the next limit is one FS thread
 * group per cycle (the PE packs and the LTS dispatches one group a cycle:
 * thread_group_width / 4 quads), named by the statistics: the LTS
 * dispatches the draw's groups in about as many busy cycles, while the
 * SPCs issue less than half the instructions they could. (Until 2026-11-26 the PE took two cycles per
 * group and a 4 KiB OMU cache thrashed, so q = 4 stayed at 2 quads per
 * cycle.)
 */
#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "scenes.h"
#include "sim/units/cycle_gpu.h"
#include "units_test_util.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

constexpr unsigned kW = 256, kH = 256;
constexpr uint64_t kQuads = uint64_t(kW / 2) * (kH / 2);


/* @depth: a Z24S8 depth buffer with an ALWAYS test and depth writes (early
 * depth: every quad is tested in the OMU's early stage and its depth lines
 * read) */
uint64_t
fill_cycles(unsigned quads_per_cycle, nlohmann::ordered_json *modules = nullptr,
            bool depth = false)
{
   Scene s;
   if (depth) {
      VLG_DEPTH_STENCIL_ALPHA &dsa = s.t.pipe.depth_stencil_alpha;
      dsa.depth_enable = true;
      dsa.depth_writemask = true;
      dsa.depth_func = VLG_COMPARE_FUNC_ALWAYS;
   }
   scene_fill(s, kW, kH, depth ? VLG_FORMAT_Z24_UNORM_S8_UINT : VLG_FORMAT_NONE);
   Config cfg;
   cfg.spcs_per_gpc = 8;
   cfg.memory_bandwidth_bytes_per_cycle = 256;
   cfg.pe_quads_per_cycle = quads_per_cycle;
   cfg.omu_quads_per_cycle = quads_per_cycle;
   CycleGpu gpu(cfg);
   const ModeRun m = run_scene(s, gpu);
   EXPECT_TRUE(m.res.faults.empty());
   EXPECT_EQ(m.res.draws.size(), 1u);
   EXPECT_EQ(m.res.draws.at(0).counters.fragments_passed, uint64_t(kW) * kH);
   if (modules)
      *modules = m.res.draws.at(0).modules["modules"];
   return m.res.draws.at(0).cycles;
}

TEST(FillRate, DrawCyclesFollowQuadsPerCycle)
{
   uint64_t c[2];
   const unsigned q[2] = {1, 2};
   for (int i = 0; i < 2; i++) {
      c[i] = fill_cycles(q[i]);
      const uint64_t bound = kQuads / q[i];
      std::printf("[ fill ] %u quads per cycle: %llu cycles (Q / q = %llu)\n", q[i], (unsigned long long)c[i], (unsigned long long)bound);
      RecordProperty(("cycles_q" + std::to_string(q[i])).c_str(), std::to_string(c[i]));
      EXPECT_GE(c[i], bound) << q[i] << " quads per cycle";
      /* the bound plus at most 15 % and a pipeline fill of 2000 cycles */
      EXPECT_LE(c[i], bound + bound * 15 / 100 + 2000) << q[i] << " quads per cycle";
   }
   /* halving the time per quad halves the draw, within the fixed fill */
   EXPECT_NEAR(double(c[0]) / double(c[1]), 2.0, 0.25);
}

/* The early depth test runs at omu.quads_per_cycle like the colour write:
 * a depth-tested fill takes the plain fill's cycles, within 3 % (its depth
 * lines are read, 64 KiB over a 32 B/cycle bus, prefetched 16 runs ahead).
 * Until 2026-11-26 each tested run took one cycle more than its quads,
 * 9 cycles per 8 quads: +12 %. */
TEST(FillRate, DepthTestedFillAtTheQuadRate)
{
   const uint64_t plain = fill_cycles(1);
   const uint64_t depth = fill_cycles(1, nullptr, true);
   std::printf("[ fill ] 1 quad per cycle: %llu cycles plain, %llu with an early depth test\n",
               (unsigned long long)plain, (unsigned long long)depth);
   EXPECT_LE(double(depth), 1.03 * double(plain));
}

TEST(FillRate, FourTimesTheQuadsPerCycleUntilOneThreadGroupPerCycle)
{
   const Config def;
   const uint64_t c1 = fill_cycles(1);
   ASSERT_GE(c1, kQuads);
   const uint64_t fill = c1 - kQuads; /* the pipeline fill at q = 1 */
   EXPECT_LE(fill, 2000u);
   const uint64_t c4 = fill_cycles(4);
   const double want4 = double(kQuads) / 4 + double(fill);
   std::printf("[ fill ] 1 quad per cycle: %llu cycles (Q + fill %llu); 4: %llu (Q / 4 + fill = "
               "%.0f), %.2fx\n",
               (unsigned long long)c1, (unsigned long long)fill, (unsigned long long)c4, want4,
               double(c1) / double(c4));
   EXPECT_NEAR(double(c4), want4, 0.05 * want4);
   /* q = 8: one 16-lane group (4 quads) per cycle binds */
   nlohmann::ordered_json mods;
   const uint64_t c8 = fill_cycles(8, &mods);
   const uint64_t groups = kQuads / (def.thread_group_width / 4);
   const uint64_t lts_busy = mods["gpc0.lts"]["busy"].get<uint64_t>();
   uint64_t spc_busy_max = 0, instructions = 0, spcs = 0;
   for (const auto &[name, m] : mods.items())
      if (name.find(".spc") != std::string::npos) {
         spc_busy_max = std::max(spc_busy_max, m["busy"].get<uint64_t>());
         instructions += m["counters"]["instructions"].get<uint64_t>();
         spcs++;
      }
   std::printf("[ fill ] 8 quads per cycle: %llu cycles; %llu groups; LTS busy %llu, busiest SPC "
               "%llu\n",
               (unsigned long long)c8, (unsigned long long)groups, (unsigned long long)lts_busy,
               (unsigned long long)spc_busy_max);
   EXPECT_GE(c8, groups);                       /* one group per cycle */
   EXPECT_GE(double(c8), 0.95 * double(c4));    /* no faster than at q = 4 */
   EXPECT_EQ(mods["gpc0.lts"]["counters"]["fs_dispatched"].get<uint64_t>(), groups);
   EXPECT_GE(double(lts_busy), 0.98 * double(groups)); /* busy for every group */
   /* the SPCs are not it: they issue one instruction per cycle each and
    * used at most half of that over the draw */
   EXPECT_EQ(spcs, 8u);
   EXPECT_LT(double(instructions), 0.5 * double(spcs * c8));
}

} // namespace
