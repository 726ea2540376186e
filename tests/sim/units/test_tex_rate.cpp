/*
 * The SPC texture unit's filter rate (docs/simulator-texture.md "Filter
 * rate", spc.tex_bilinear_per_cycle) on the whole cycle-mode GPU: a
 * full-screen 64x64 quad textured from a 256x256 mipmapped texture (LOD 2
 * everywhere, so trilinear filters two levels), once NEAREST without mips
 * and once trilinear. Expected from the fragment count and the rate,
 * computed here: every fragment lane costs 1 bilinear unit NEAREST and 2
 * trilinear, a TEX of a group of k full quads holds the unit ceil(4k x
 * units / rate) cycles, which is exactly 4k x units / rate for rates that
 * divide 4: so the texture unit is busy fragments / rate cycles more with
 * trilinear, whatever the packing of quads into groups. Pixels are
 * bit-identical with the functional GPU.
 */
#include <gtest/gtest.h>

#include <string>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

constexpr unsigned kScreen = kFullscreenTextureSize;

/** Sum of an SPC counter over every SPC of the run. */
uint64_t
spc_sum(const ModeRun &r, const char *name)
{
   uint64_t n = 0;
   const auto &m = r.res.stats["modules"];
   for (auto it = m.begin(); it != m.end(); ++it)
      if (it.key().find(".spc") != std::string::npos)
         n += it.value()["counters"][name].get<uint64_t>();
   return n;
}

struct TexRun {
   uint64_t busy, units, wait, cycles;
};

TexRun
run_tex(bool trilinear, uint32_t rate, const char *core = "")
{
   Scene s;
   scene_fullscreen_texture(s, "MUL R2, R0, C0\nTEX R1, R2, T0\nBRC.END\n", trilinear);
   Config cfg;
   cfg.apply_overrides(core);
   cfg.apply_overrides("spc.tex_bilinear_per_cycle=" + std::to_string(rate));
   cfg.validate();
   auto fgpu = make_functional_gpu(Config{});
   CycleGpu cgpu{cfg};
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun c = run_scene(s, cgpu);
   EXPECT_TRUE(c.res.faults.empty());
   EXPECT_EQ(compare_surfaces(s.t.fb, *f.vram, *c.vram, "functional vs cycle"), 0u);
   EXPECT_EQ(c.res.draws[0].counters.fs_invocations, uint64_t(kScreen) * kScreen);
   return TexRun{spc_sum(c, "tex_busy_cycles"), spc_sum(c, "tex_filter_units"),
                 spc_sum(c, "cycles_wait_texture"), c.res.cycles};
}

} // namespace

TEST(TexRate, TrilinearCostsTwiceNearest)
{
   const uint64_t frags = uint64_t(kScreen) * kScreen;
   for (const char *core : {"", "thread_group_width=64,spc.register_file_bytes=256K"}) {
      for (uint32_t rate : {4u, 2u, 1u}) {
         const TexRun n = run_tex(false, rate, core);
         const TexRun t = run_tex(true, rate, core);
         /* one unit per fragment lane NEAREST, two trilinear (no helper
          * lanes: the quad covers the screen) */
         EXPECT_EQ(n.units, frags) << core << " rate " << rate;
         EXPECT_EQ(t.units, 2 * frags) << core << " rate " << rate;
         EXPECT_EQ(n.busy, frags / rate) << core << " rate " << rate;
         EXPECT_EQ(t.busy - n.busy, frags / rate) << core << " rate " << rate;
         if (rate == 1) { /* 16 or 64 cycles per TEX: groups queue for the unit */
            EXPECT_GT(t.wait, 0u) << core;
         }
         std::cout << "[ measure  ] " << (*core ? core : "default") << " rate " << rate
                   << ": nearest " << n.cycles << " cycles (texture busy " << n.busy
                   << "), trilinear " << t.cycles << " cycles (texture busy " << t.busy << ")\n";
      }
   }
}
