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
 * Checked for q = 1 and 2 only: at q = 4 this draw still takes about 8,700
 * cycles (2 quads per cycle) with the PE, LTS and OMU each busy in almost
 * every cycle of it and 5 of the 8 SPCs idle, so some other per-group cost
 * binds there; finding it is the "Fidelity" issue's work (2026-11-26 note).
 */
#include <cstdio>

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

/** One triangle covering the whole framebuffer with full quads only (as in
 *  test_tex_rate.cpp: window (0,0), (2W,0), (0,2H) over a 2W x 2H viewport). */
void
scene_fill(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(kW, kH);
   t.viewport(0, 0, 2 * kW, 2 * kH);
   const std::vector<float> v = {-1, -1, 0, 1, 1, 0, 0, 1, 1,  -1, 0, 1, 1, 0, 0, 1,
                                 -1, 1,  0, 1, 1, 0, 0, 1};
   s.next_draw();
   color_pipeline(t, v);
   s.draw();
   s.sync(1);
   s.finish();
}

uint64_t
fill_cycles(unsigned quads_per_cycle)
{
   Scene s;
   scene_fill(s);
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

} // namespace
