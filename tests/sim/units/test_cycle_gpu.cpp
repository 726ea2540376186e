/*
 * The cycle-mode GPU as a whole: the same command queues on the functional
 * GPU and on CycleGpu give bit-identical render targets, depth/stencil
 * buffers and fences (over several configurations: thread-group widths 4,
 * 16, 64, two GPCs, tiny queues and caches, many draws in flight), the same
 * model-independent counters, the same faults; host hooks in order; SYNC
 * and the `last` token protocol; faults abort only their draw; a wedged
 * pipeline becomes a "simulator" fault; statistics add up.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

bool
contains(const std::string &s, const std::string &needle)
{
   return s.find(needle) != std::string::npos;
}

/** The DrawStats fields both modes compute the same way (one GPC: FS
 *  groups are packed identically). The vertex counters depend on the vertex
 *  reuse window (a sub-block in cycle mode, the whole draw functionally);
 *  the GE fetches an instanced draw's indices once per instance in cycle
 *  mode, once per draw functionally. */
void
expect_same_counters(const DrawStats &f, const DrawStats &c, bool one_gpc, const std::string &what)
{
#define SAME(field) EXPECT_EQ(f.field, c.field) << what << ": " #field
   SAME(clear);
   SAME(clear_pixels);
   SAME(ge.primitives);
   EXPECT_GE(c.ge.indices, f.ge.indices) << what;
   EXPECT_EQ(c.ge.indices ? c.ge.restarts * f.ge.indices : 0, f.ge.restarts * c.ge.indices)
      << what << ": restarts per index";
   SAME(pe.prims_in);
   SAME(pe.prims_clipped);
   SAME(pe.prims_trivially_rejected);
   SAME(pe.prims_culled);
   SAME(pe.triangles_setup);
   SAME(pe.quads);
   SAME(pe.fragments);
   SAME(fs_quads);
   SAME(fs_invocations);
   SAME(early_z_quads);
   SAME(fragments_early_rejected);
   SAME(fragments_killed);
   SAME(fragments_alpha_failed);
   SAME(fragments_zs_failed);
   SAME(fragments_passed);
   SAME(fragments_blended);
   if (one_gpc) {
      SAME(fs_groups);
      SAME(fs_helper_lanes);
      SAME(fs_instructions);
      SAME(fs_lane_instructions);
      SAME(fs_dual_issued);
   }
#undef SAME
}

class BothModes : public ::testing::TestWithParam<std::tuple<size_t, size_t>> {};

TEST_P(BothModes, IdenticalPixels)
{
   const NamedScene &sc = all_scenes()[std::get<0>(GetParam())];
   const NamedConfig &cf = kConfigs[std::get<1>(GetParam())];
   const Config p = params(cf);
   Scene s;
   sc.build(s);

   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun c = run_scene(s, cgpu);
   const std::string what = std::string(sc.name) + "/" + cf.name;

   ASSERT_TRUE(f.res.faults.empty()) << what << ": " << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << what << ": " << c.res.faults[0].text;
   EXPECT_TRUE(c.res.halted);
   EXPECT_EQ(f.res.commands, c.res.commands);
   ASSERT_EQ(f.res.draws.size(), c.res.draws.size());
   EXPECT_GT(changed_pixels(s.t.fb.cbufs[0], s.t.vram, *f.vram), 100u)
      << what << ": the scene draws too little to mean anything";
   EXPECT_EQ(compare_surfaces(s.t.fb, *f.vram, *c.vram, what), 0u);
   EXPECT_EQ(f.vram->read32(s.fence, "test"), c.vram->read32(s.fence, "test"));
   for (size_t i = 0; i < f.res.draws.size(); i++) {
      expect_same_counters(f.res.draws[i].counters, c.res.draws[i].counters, p.gpcs == 1,
                           what + " draw " + std::to_string(i));
      EXPECT_GT(c.res.draws[i].cycles, 0u);
   }
   EXPECT_GT(c.res.cycles, 0u);
}

std::string
both_modes_name(const ::testing::TestParamInfo<BothModes::ParamType> &info)
{
   return std::string(all_scenes()[std::get<0>(info.param)].name) + "_" +
          kConfigs[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(Scenes, BothModes,
                         ::testing::Combine(::testing::Range<size_t>(0, all_scenes().size()),
                                            ::testing::Range<size_t>(0, std::size(kConfigs))),
                         both_modes_name);

/* busy + stalled + starved + idle = the period, for the submit and per draw */
void
expect_stats_add_up(const nlohmann::ordered_json &j, const std::string &what)
{
   const uint64_t cycles = j["cycles"]["count"].get<uint64_t>();
   EXPECT_GT(cycles, 0u) << what;
   for (auto it = j["modules"].begin(); it != j["modules"].end(); ++it) {
      const auto &m = it.value();
      const uint64_t sum = m["busy"].get<uint64_t>() + m["stalled"].get<uint64_t>() +
                           m["starved"].get<uint64_t>() + m["idle"].get<uint64_t>();
      EXPECT_EQ(sum, cycles) << what << ": module " << it.key();
   }
   for (auto it = j["queues"].begin(); it != j["queues"].end(); ++it) {
      const auto &q = it.value();
      EXPECT_LE(q["full_cycles"].get<uint64_t>(), cycles) << what << ": " << it.key();
      EXPECT_LE(q["pops"].get<uint64_t>(), q["pushes"].get<uint64_t>() + 16) << it.key();
   }
}

TEST(CycleGpu, StatisticsAddUp)
{
   Scene s;
   scene_depth_stencil(s);
   CycleGpu gpu{Config{}};
   const ModeRun c = run_scene(s, gpu);
   ASSERT_TRUE(c.res.faults.empty());
   expect_stats_add_up(c.res.stats, "submit");
   EXPECT_EQ(c.res.stats["cycles"]["count"].get<uint64_t>(), c.res.cycles);
   uint64_t spc_instr = 0, fs_instr = 0;
   for (const DrawReport &d : c.res.draws) {
      expect_stats_add_up(d.modules, "draw " + std::to_string(d.ctx.index_in_queue));
      EXPECT_EQ(d.modules["cycles"]["count"].get<uint64_t>(), d.cycles);
      EXPECT_EQ(d.end_cycle - d.begin_cycle, d.cycles);
      fs_instr += d.counters.fs_instructions + d.counters.vs_instructions;
   }
   /* every instruction a draw counted was issued by some SPC */
   for (auto it = c.res.stats["modules"].begin(); it != c.res.stats["modules"].end(); ++it)
      if (contains(it.key(), ".spc")) {
         spc_instr += it.value()["counters"]["instructions"].get<uint64_t>();
         const auto &k = it.value()["counters"];
         const uint64_t reasons = k["cycles_issue"].get<uint64_t>() +
                                  k["cycles_wait_scoreboard"].get<uint64_t>() +
                                  k["cycles_wait_memory"].get<uint64_t>() +
                                  k["cycles_wait_texture"].get<uint64_t>() +
                                  k["cycles_output_full"].get<uint64_t>() +
                                  k["cycles_empty"].get<uint64_t>();
         EXPECT_EQ(reasons, c.res.cycles) << it.key() << ": one reason per cycle";
         EXPECT_EQ(k["cycles_issue"].get<uint64_t>(), k["instructions"].get<uint64_t>());
      }
   EXPECT_EQ(spc_instr, fs_instr);
   EXPECT_GT(c.res.stats["modules"]["l2"]["counters"]["read_misses"].get<uint64_t>(), 0u);
   EXPECT_GT(c.res.stats["modules"]["mc"]["counters"]["read_bytes"].get<uint64_t>(), 0u);
}

TEST(CycleGpu, SyncWaitsForEveryLastToken)
{
   Scene s;
   s.t.framebuffer(48, 32);
   Lcg r(9);
   color_pipeline(s.t, random_triangles(r, 20, 0.6f));
   s.draw();
   s.sync(1);
   s.next_draw();
   color_pipeline(s.t, random_triangles(r, 20, 0.6f));
   s.draw();
   s.sync(2);
   s.finish();

   CycleGpu gpu{Config{}};
   RecordingHost host;
   std::vector<uint32_t> fence_at_after;
   host.on_after = [&](const DrawContext &, const Vram &v, const DrawReport &rep) {
      fence_at_after.push_back(v.read32(s.fence, "test"));
      EXPECT_FALSE(rep.faulted);
   };
   const ModeRun c = run_scene(s, gpu, &host);
   ASSERT_TRUE(c.res.faults.empty());
   /* SYNC 1 waits for draw 0's `last` token from every module, so the
    * fence is still 0 when draw 0 completes; draw 1 is read after SYNC 1 */
   ASSERT_EQ(fence_at_after.size(), 2u);
   EXPECT_EQ(fence_at_after[0], 0u);
   EXPECT_EQ(fence_at_after[1], 1u);
   EXPECT_EQ(c.vram->read32(s.fence, "test"), 2u);
   EXPECT_LE(c.res.draws[0].end_cycle, c.res.draws[1].begin_cycle);
   const std::vector<std::string> want = {"snapshot 0", "before 0", "after 0",
                                          "snapshot 1", "before 1", "after 1"};
   EXPECT_EQ(host.calls, want);
   EXPECT_EQ(c.res.stats["modules"]["cp"]["counters"]["syncs"].get<uint64_t>(), 2u);
}

/* Two draws into different render targets overlap in the pipeline; the
 * third samples the first one's target as a texture and must wait for it
 * (the CP's draw interlock). */
TEST(CycleGpu, DrawsOverlapAndInterlock)
{
   Scene s;
   TestDraw &t = s.t;
   Lcg r(4);
   t.framebuffer(64, 64);
   const VLG_SURFACE rt_a = t.fb.cbufs[0];
   color_pipeline(t, random_triangles(r, 200, 0.3f));
   s.draw();
   s.next_draw();
   t.framebuffer(64, 64);
   color_pipeline(t, random_triangles(r, 200, 0.3f));
   s.draw();
   /* third draw: textured with rt_a */
   s.next_draw();
   const std::vector<float> v = {-1, -1, 0, 1, 0, 0, 0, 1, 3, -1, 0, 1, 2, 0, 0, 1,
                                 -1, 3,  0, 1, 0, 2, 0, 1};
   color_pipeline(t, v);
   t.fs.code = assemble("TEX R1, R0, T0\nBRC.END\n");
   t.fs.st.uses_derivatives = true;
   t.fs.st.num_samplers = 1;
   VLG_TEXTURE tex;
   VLG_TEXTURE_init(&tex);
   tex.target = VLG_TEXTURE_TARGET_2D;
   tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
   tex.width = tex.height = 64;
   tex.num_levels = 1;
   tex.address = rt_a.address;
   tex.level[0].row_pitch = rt_a.pitch;
   tex.level[0].layer_stride = rt_a.pitch * 64;
   VLG_SAMPLER smp;
   VLG_SAMPLER_init(&smp);
   t.fs_texture(tex, smp);
   s.draw();
   s.finish();

   auto fgpu = make_functional_gpu(Config{});
   const ModeRun f = run_scene(s, *fgpu);
   ASSERT_TRUE(f.res.faults.empty());
   for (uint32_t inflight : {1u, 4u}) {
      Config p;
      p.cp_max_draws_in_flight = inflight;
      CycleGpu gpu(p);
      const ModeRun c = run_scene(s, gpu);
      ASSERT_TRUE(c.res.faults.empty());
      EXPECT_EQ(compare_surfaces(t.fb, *f.vram, *c.vram, "interlock"), 0u);
      VLG_FRAMEBUFFER fa = t.fb;
      fa.cbufs[0] = rt_a;
      EXPECT_EQ(compare_surfaces(fa, *f.vram, *c.vram, "first target"), 0u);
      const auto &cp = c.res.stats["modules"]["cp"]["counters"];
      if (inflight == 1) {
         EXPECT_GT(cp["inflight_full_cycles"].get<uint64_t>(), 0u);
         EXPECT_LE(c.res.draws[0].end_cycle, c.res.draws[1].end_cycle);
      } else {
         /* draw 1 does not depend on draw 0: it runs while draw 0 drains */
         EXPECT_EQ(cp["inflight_full_cycles"].get<uint64_t>(), 0u);
         EXPECT_LT(c.res.draws[1].begin_cycle, c.res.draws[0].end_cycle);
         /* draw 2 reads what draw 0 writes */
         EXPECT_GT(cp["interlock_cycles"].get<uint64_t>(), 0u);
      }
   }
}

/* A malformed package, a VRAM fault in the GE, an SPC fault and a runaway
 * shader stop their draw only; both modes report the same faults and the
 * other draws' pixels are the same. */
TEST(CycleGpu, FaultsAbortOnlyTheirDraw)
{
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(48, 48);
   VLG_BLEND_RT &b = t.pipe.blend.rt[0];
   b.blend_enable = true;
   b.rgb_func = b.alpha_func = VLG_BLEND_FUNC_ADD;
   b.rgb_src_factor = b.rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
   Lcg r(21);
   auto good = [&] {
      s.next_draw();
      color_pipeline(t, random_triangles(r, 12, 0.7f, 0, 0, 0.2f, 0.2f));
      s.draw();
   };
   good(); /* 0 */
   /* 1: vertex fetch beyond the vertex buffer (GE) */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 12, 0.7f));
   t.draw.count = 60;
   s.draw();
   good(); /* 2 */
   /* 3: an instruction names R9, the shader declares 4 registers (SPC) */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 12, 0.7f));
   t.fs.code = assemble("MOV R9, R0\nMOV R1, R9\nBRC.END\n");
   t.fs.st.num_regs = 4;
   s.draw();
   good(); /* 4 */
   /* 5: a shader that never ends (watchdog) */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 4, 0.5f));
   t.fs.code = assemble("loop:\n ADD R1, R1, C0\n BRC.JMP loop\n");
   t.fs.consts = {0.001f, 0, 0, 0};
   s.draw();
   good(); /* 6 */
   /* 7: a malformed package (draw_info with vertices_per_prim 2 for triangles) */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 4, 0.5f));
   t.draw.vertices_per_prim = 2;
   s.draw();
   good(); /* 8 */
   s.sync(3);
   s.finish();

   Config cfg;
   cfg.watchdog_instructions_per_thread_group = 5000;
   auto fgpu = make_functional_gpu(cfg);
   CycleGpu cgpu{Config(cfg)};
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun c = run_scene(s, cgpu);
   ASSERT_EQ(f.res.faults.size(), 4u);
   ASSERT_EQ(c.res.faults.size(), 4u);
   const std::set<int> bad = {1, 3, 5, 7};
   for (size_t i = 0; i < 4; i++) {
      EXPECT_EQ(f.res.faults[i].module, c.res.faults[i].module) << i;
      EXPECT_EQ(f.res.faults[i].summary, c.res.faults[i].summary) << i;
      EXPECT_EQ(f.res.faults[i].draw_index, c.res.faults[i].draw_index) << i;
      EXPECT_TRUE(bad.count(c.res.faults[i].draw_index)) << c.res.faults[i].draw_index;
   }
   EXPECT_EQ(c.res.faults[0].module, "GE");
   EXPECT_EQ(c.res.faults[0].summary, "vertex fetch out of bounds");
   EXPECT_EQ(c.res.faults[1].module, "SPC");
   EXPECT_EQ(c.res.faults[1].summary, "register beyond num_regs");
   EXPECT_TRUE(contains(c.res.faults[1].text, "PC 0")) << c.res.faults[1].text;
   EXPECT_TRUE(contains(c.res.faults[1].text, "MOV R9, R0")) << c.res.faults[1].text;
   EXPECT_TRUE(contains(c.res.faults[1].text, "thread group: stage FRAGMENT")) << c.res.faults[1].text;
   EXPECT_EQ(c.res.faults[2].summary, "shader did not end");
   EXPECT_TRUE(contains(c.res.faults[2].text, "watchdog")) << c.res.faults[2].text;
   EXPECT_TRUE(contains(c.res.faults[2].text, "PC ")) << c.res.faults[2].text;
   EXPECT_EQ(c.res.faults[3].module, "CP");
   EXPECT_TRUE(contains(c.res.faults[3].summary, "malformed draw package")) << c.res.faults[3].summary;
   ASSERT_EQ(c.res.draws.size(), 9u);
   for (const DrawReport &d : c.res.draws)
      EXPECT_EQ(d.faulted, bad.count(int(d.ctx.index_in_queue)) == 1) << d.ctx.index_in_queue;
   /* the draws before and after each fault drew what they draw functionally
    * (the faulting draws stop at once in both modes: the GE and CP faults
    * before any pixel, the SPC faults in the first FS group) */
   EXPECT_EQ(c.vram->read32(s.fence, "test"), 3u);
   EXPECT_GT(changed_pixels(t.fb.cbufs[0], t.vram, *c.vram), 100u);
   EXPECT_EQ(cgpu.resets(), 0u);
}

/* The watchdog counts issued instructions per thread group in both modes
 * (watchdog.instructions_per_thread_group), not residence cycles: a group of
 * 1 + 2 x 120 + 1 = 242 instructions (ADDR, 120 x {ADD; PRED|BRC}, END)
 * passes a limit of 300 in both modes although, sharing its SPC's issue
 * slot with 7 other resident groups, it stays resident for thousands of
 * cycles (the old cycle-mode watchdog faulted it), and faults a limit of
 * 200 in both modes. */
TEST(CycleGpu, WatchdogCountsInstructionsInBothModes)
{
   for (const uint64_t limit : {300u, 200u}) {
      Scene s;
      TestDraw &t = s.t;
      t.framebuffer(48, 48);
      const std::vector<float> quad = {-1, -1, 0, 1, 1, 0, 0, 1, 1, -1, 0, 1, 1, 0, 0, 1,
                                       -1, 1,  0, 1, 1, 0, 0, 1, 1, 1,  0, 1, 1, 0, 0, 1,
                                       1,  -1, 0, 1, 1, 0, 0, 1, -1, 1, 0, 1, 1, 0, 0, 1};
      s.next_draw();
      color_pipeline(t, quad);
      t.fs = TestShader(VLG_SHADER_STAGE_FRAGMENT);
      t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      t.fs.consts = {0.001f, 0, 0, 0};
      t.fs.code = assemble(R"(
    ADDR LC, #0
spin:
    ADD R1, R1, C0
    PRED.ILT P0, ++LC, #120 | BRC.JMP spin if P0
    BRC.END
)");
      s.draw();
      s.sync(1);
      s.finish();
      Config cfg;
      cfg.watchdog_instructions_per_thread_group = limit;
      auto fgpu = make_functional_gpu(cfg);
      CycleGpu cgpu{cfg};
      const ModeRun f = run_scene(s, *fgpu);
      const ModeRun c = run_scene(s, cgpu);
      const size_t want = limit < 242 ? 1 : 0;
      ASSERT_EQ(f.res.faults.size(), want) << "limit " << limit;
      ASSERT_EQ(c.res.faults.size(), want) << "limit " << limit;
      if (want) {
         EXPECT_EQ(f.res.faults[0].summary, "shader did not end");
         EXPECT_EQ(c.res.faults[0].summary, "shader did not end");
      } else {
         /* resident far longer than the limit in cycles: 144 groups of 242
          * instructions on 4 SPCs issuing one instruction per cycle */
         ASSERT_EQ(c.res.draws.size(), 1u);
         EXPECT_GT(c.res.draws[0].cycles, 144u * 242 / 4);
         EXPECT_EQ(compare_surfaces(t.fb, *f.vram, *c.vram, "watchdog"), 0u);
      }
   }
}

/* watchdog.instructions_per_submit: a shader that never ends (per-group
 * watchdog off) exhausts the submit's budget; its draw and every later draw
 * of the queue fault with "submit budget exceeded" in both modes, the SYNC
 * still writes its fence, and the next submit has a budget of its own. */
TEST(CycleGpu, SubmitBudgetStopsTheQueueNotTheHost)
{
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(48, 48);
   Lcg r(5);
   auto good = [&] {
      s.next_draw();
      color_pipeline(t, random_triangles(r, 4, 0.5f));
      s.draw();
   };
   good(); /* 0 */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 4, 0.5f));
   t.fs.code = assemble("loop:\n ADD R1, R1, C0\n BRC.JMP loop\n");
   t.fs.consts = {0.001f, 0, 0, 0};
   s.draw(); /* 1: never ends */
   good();   /* 2 */
   s.sync(7);
   s.finish();

   Config cfg;
   cfg.watchdog_instructions_per_thread_group = 0;
   cfg.watchdog_instructions_per_submit = 100000;
   auto fgpu = make_functional_gpu(cfg);
   CycleGpu cgpu{cfg};
   for (Gpu *gpu : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const ModeRun m = run_scene(s, *gpu);
      ASSERT_EQ(m.res.faults.size(), 2u) << int(gpu->mode());
      EXPECT_EQ(m.res.faults[0].draw_index, 1);
      EXPECT_EQ(m.res.faults[1].draw_index, 2);
      for (const FaultRecord &f : m.res.faults) {
         EXPECT_EQ(f.summary, "submit budget exceeded");
         EXPECT_TRUE(contains(f.text, "watchdog.instructions_per_submit")) << f.text;
      }
      EXPECT_EQ(m.vram->read32(s.fence, "test"), 7u);
   }
   /* a new submit, a new budget: the good draws alone pass */
   Scene g;
   g.t.framebuffer(48, 48);
   Lcg r2(5);
   g.next_draw();
   color_pipeline(g.t, random_triangles(r2, 4, 0.5f));
   g.draw();
   g.sync(1);
   g.finish();
   EXPECT_TRUE(run_scene(g, *fgpu).res.faults.empty());
   EXPECT_TRUE(run_scene(g, cgpu).res.faults.empty());
}

/* A module that hangs: the engine's deadlock report becomes a fault of
 * module "simulator" for the draws in flight, the pipeline is rebuilt, the
 * queue goes on (the SYNC after the draws writes its fence) and the next
 * submit renders correctly. */
TEST(CycleGpu, DeadlockBecomesSimulatorFault)
{
   Scene s;
   scene_square(s);
   Config cfg;
   cfg.deadlock_window_cycles = 20000;
   CycleGpu gpu{Config(cfg)};
   gpu.wedge("gpc0.omu");
   const ModeRun c = run_scene(s, gpu);
   ASSERT_FALSE(c.res.faults.empty());
   EXPECT_EQ(gpu.resets(), 1u);
   ASSERT_EQ(c.res.draws.size(), 2u);
   for (const DrawReport &d : c.res.draws) {
      EXPECT_TRUE(d.faulted);
      EXPECT_EQ(d.fault_module, "simulator");
      EXPECT_TRUE(contains(d.fault, "deadlock")) << d.fault;
      EXPECT_TRUE(contains(d.fault, "gpc0.omu")) << d.fault;
      EXPECT_TRUE(contains(d.fault, "WEDGED")) << d.fault;
   }
   EXPECT_EQ(c.vram->read32(s.fence, "test"), 1u);
   EXPECT_TRUE(c.res.halted);

   auto fgpu = make_functional_gpu(cfg);
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun again = run_scene(s, gpu);
   ASSERT_TRUE(again.res.faults.empty());
   EXPECT_EQ(compare_surfaces(s.t.fb, *f.vram, *again.vram, "after the reset"), 0u);
}

/* A snapshot draw runs alone: before_draw sees every earlier draw complete
 * (the functional result of the queue up to it), after_draw sees it done. */
TEST(CycleGpu, SnapshotDrawsSeeExactVram)
{
   Scene s;
   scene_blend(s); /* clear, translucent draw, additive draw */
   Scene prefix;   /* the same queue up to the snapshot draw */
   scene_blend(prefix);
   prefix.queue.resize(size_t(VLG_CMD_DRAW_LENGTH) * 2);
   prefix.finish();

   auto fgpu = make_functional_gpu(Config{});
   const ModeRun fp = run_scene(prefix, *fgpu);
   const ModeRun ff = run_scene(s, *fgpu);
   CycleGpu gpu{Config{}};
   RecordingHost host;
   host.snapshot = [](const DrawContext &c) { return c.index_in_queue == 2; };
   uint64_t before_bad = ~0ull, after_bad = ~0ull;
   host.on_before = [&](const DrawContext &c, const Vram &v) {
      if (c.index_in_queue == 2)
         before_bad = compare_surfaces(s.t.fb, *fp.vram, v, "before the snapshot draw");
   };
   host.on_after = [&](const DrawContext &c, const Vram &v, const DrawReport &) {
      if (c.index_in_queue == 2)
         after_bad = compare_surfaces(s.t.fb, *ff.vram, v, "after the snapshot draw");
   };
   const ModeRun c = run_scene(s, gpu, &host);
   ASSERT_TRUE(c.res.faults.empty());
   EXPECT_EQ(before_bad, 0u);
   EXPECT_EQ(after_bad, 0u);
   /* hooks: each draw's snapshot/before before its after, afters in order */
   std::vector<std::string> afters;
   for (const std::string &call : host.calls)
      if (call.rfind("after", 0) == 0)
         afters.push_back(call);
   EXPECT_EQ(afters, (std::vector<std::string>{"after 0", "after 1", "after 2"}));
   const auto pos = [&](const std::string &x) {
      return std::find(host.calls.begin(), host.calls.end(), x) - host.calls.begin();
   };
   for (int i = 0; i < 3; i++) {
      const std::string n = std::to_string(i);
      EXPECT_LT(pos("snapshot " + n), pos("before " + n));
      EXPECT_LT(pos("before " + n), pos("after " + n));
   }
   /* the snapshot draw did not start before draw 1 completed */
   EXPECT_LT(pos("after 1"), pos("before 2"));
}

/* DUMP copies through the MC after an L2 flush, like the functional CP. */
TEST(CycleGpu, DumpCopiesTheFrame)
{
   Scene s;
   scene_square(s);
   s.queue.pop_back(); /* HALT */
   VLG_SURFACE surf = s.t.fb.cbufs[0];
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &surf);
   const uint64_t sblock = s.t.put(sw, sizeof(sw));
   cmd_dump(s.queue, sblock, 0, 64, 48);
   s.finish();

   auto run = [&](Gpu &gpu, std::vector<uint8_t> &pixels) {
      RecordingHost host;
      pixels.assign(64 * 48 * 4, 0);
      host.displays.push_back(Display{pixels.data(), 64 * 4, 64, 48, VLG_FORMAT_R8G8B8A8_UNORM});
      return run_scene(s, gpu, &host);
   };
   std::vector<uint8_t> fpx, cpx;
   auto fgpu = make_functional_gpu(Config{});
   CycleGpu cgpu{Config{}};
   const ModeRun f = run(*fgpu, fpx);
   const ModeRun c = run(cgpu, cpx);
   ASSERT_TRUE(c.res.faults.empty());
   EXPECT_EQ(fpx, cpx);
   EXPECT_NE(std::count(cpx.begin(), cpx.end(), 0), ptrdiff_t(cpx.size()));
   const auto &m = c.res.stats["modules"];
   EXPECT_EQ(m["cp"]["counters"]["dump_bytes"].get<uint64_t>(), 64u * 48 * 4);
   EXPECT_GE(m["mc"]["counters"]["read_bytes"].get<uint64_t>(), 64u * 48 * 4);
   EXPECT_GT(m["l2"]["counters"]["flushed_lines"].get<uint64_t>(), 0u);

   /* an unknown display: the same CP fault in both modes, the queue goes on */
   Scene s2;
   scene_square(s2);
   s2.queue.pop_back();
   cmd_dump(s2.queue, s2.t.put(sw, sizeof(sw)), 5, 64, 48);
   s2.sync(9);
   s2.finish();
   const ModeRun f2 = run_scene(s2, *fgpu);
   const ModeRun c2 = run_scene(s2, cgpu);
   ASSERT_EQ(f2.res.faults.size(), 1u);
   ASSERT_EQ(c2.res.faults.size(), 1u);
   EXPECT_EQ(f2.res.faults[0].text, c2.res.faults[0].text);
   EXPECT_EQ(c2.vram->read32(s2.fence, "test"), 9u);
}

/* A malformed command: CP fault, the rest of the queue skipped, in both
 * modes with the same record. */
TEST(CycleGpu, MalformedCommandSkipsTheRest)
{
   Scene s;
   scene_square(s);
   s.queue.pop_back();
   s.queue.push_back(0xdeadbeef);
   s.sync(5);
   s.finish();
   auto fgpu = make_functional_gpu(Config{});
   CycleGpu cgpu{Config{}};
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun c = run_scene(s, cgpu);
   ASSERT_EQ(c.res.faults.size(), 1u);
   ASSERT_EQ(f.res.faults.size(), 1u);
   EXPECT_EQ(f.res.faults[0].text, c.res.faults[0].text);
   EXPECT_EQ(f.res.faults[0].cmd_offset_dw, c.res.faults[0].cmd_offset_dw);
   EXPECT_EQ(f.res.commands, c.res.commands);
   EXPECT_FALSE(c.res.halted);
   EXPECT_EQ(c.vram->read32(s.fence, "test"), 1u); /* the SYNC before it ran, not the one after */
   EXPECT_EQ(compare_surfaces(s.t.fb, *f.vram, *c.vram, "malformed"), 0u);
}

/* Modules sleep when they have nothing to do (docs/simulator.md): ticking
 * every module every cycle instead must give the same cycles, pixels,
 * statistics and bottleneck report, i.e. no module misses a wake-up. */
TEST(CycleGpu, SleepingChangesNothing)
{
   for (const NamedScene &sc : all_scenes()) {
      Scene s;
      sc.build(s);
      CycleGpu a{Config{}}, b{Config{}};
      b.never_sleep();
      const ModeRun ra = run_scene(s, a), rb = run_scene(s, b);
      EXPECT_EQ(ra.res.cycles, rb.res.cycles) << sc.name;
      EXPECT_EQ(compare_surfaces(s.t.fb, *ra.vram, *rb.vram, sc.name), 0u);
      ASSERT_EQ(ra.res.draws.size(), rb.res.draws.size());
      for (size_t i = 0; i < ra.res.draws.size(); i++)
         EXPECT_EQ(ra.res.draws[i].cycles, rb.res.draws[i].cycles) << sc.name << " draw " << i;
      /* the same activity per module (ticks differ: that is the point) */
      for (auto it = ra.res.stats["modules"].begin(); it != ra.res.stats["modules"].end(); ++it) {
         const auto &ma = it.value(), &mb = rb.res.stats["modules"][it.key()];
         for (const char *k : {"busy", "stalled", "starved", "idle"})
            EXPECT_EQ(ma[k], mb[k]) << sc.name << " " << it.key() << " " << k;
         EXPECT_EQ(ma["counters"], mb["counters"]) << sc.name << " " << it.key();
      }
      /* and the same bottleneck report (its flags hold while a module sleeps) */
      EXPECT_EQ(ra.res.stats["bottleneck"], rb.res.stats["bottleneck"]) << sc.name;
      for (size_t i = 0; i < ra.res.draws.size(); i++)
         EXPECT_EQ(ra.res.draws[i].modules["bottleneck"], rb.res.draws[i].modules["bottleneck"])
            << sc.name << " draw " << i;
   }
}

TEST(CycleGpu, ConfigurationErrorsAreReadable)
{
   Config cfg;
   cfg.thread_group_width = 128;
   try {
      CycleGpu gpu{Config(cfg)};
      ADD_FAILURE() << "no error";
   } catch (const ConfigError &e) {
      EXPECT_TRUE(contains(e.what(), "thread_group_width = 128")) << e.what();
   }
   Config p;
   try {
      p.apply_overrides("pe.quads_per_cycle=2,omu.cache_byte=8K");
      ADD_FAILURE() << "no error";
   } catch (const ConfigError &e) {
      EXPECT_TRUE(contains(e.what(), "did you mean 'omu.cache_bytes'")) << e.what();
   }
   EXPECT_EQ(p.pe_quads_per_cycle, 1u) << "a failed override changed nothing";
   p.apply_overrides("pe.quads_per_cycle=2, omu.cache_bytes=8K");
   EXPECT_EQ(p.pe_quads_per_cycle, 2u);
   EXPECT_EQ(p.omu_cache_bytes, 8192u);
   EXPECT_THROW(p.apply_overrides("pe.quads_per_cycle=17"), ConfigError);
   EXPECT_EQ(p.to_json()["omu"]["cache_bytes"].get<uint64_t>(), 8192u);
}

} // namespace
