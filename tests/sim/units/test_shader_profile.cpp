/*
 * The per-instruction shader profile (sim/units/gpc/spc/shader_profile.h)
 * on the whole cycle-mode GPU: a full-screen textured triangle whose FS
 * fetches a texel (TEX), computes something independent of it, then reads
 * the texel. The wait for the texel is charged to the instruction that
 * reads it, not to the TEX; every instruction issues once per FS thread
 * group; the profile is the same whether the modules sleep or not, and the
 * pixels and cycles are those of a run without the profile.
 */
#include <gtest/gtest.h>

#include <string>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/func/shader/program.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

constexpr unsigned kScreen = kFullscreenTextureSize;
/* instruction indexes of the FS below */
constexpr uint32_t kTex = 1, kIndependent = 2, kUse = 3;

void
scene_texture_then_use(Scene &s)
{
   scene_fullscreen_texture(s,
                            "MUL R2, R0, C0\n" /* 0: texture coordinates */
                            "TEX R1, R2, T0\n" /* 1: the fetch */
                            "MUL R3, R0, C0\n" /* 2: independent of R1 */
                            "ADD R1, R1, R3\n" /* 3: the first read of R1 */
                            "BRC.END\n",
                            true);
}

} // namespace

TEST(ShaderProfile, LatencyIsChargedToTheFirstReader)
{
   Scene s;
   scene_texture_then_use(s);
   Config cfg;
   cfg.validate();

   CycleGpu plain{cfg};
   const ModeRun base = run_scene(s, plain);

   CycleGpu gpu{cfg};
   gpu.enable_profile();
   const ModeRun r = run_scene(s, gpu);
   ASSERT_TRUE(r.res.faults.empty());
   /* the profile changes nothing it measures */
   EXPECT_EQ(r.res.cycles, base.res.cycles);
   EXPECT_EQ(compare_surfaces(s.t.fb, *base.vram, *r.vram, "without vs with profile"), 0u);

   const ShaderProfile *prof = gpu.profile();
   ASSERT_NE(prof, nullptr);
   const auto j = prof->to_json();
   ASSERT_EQ(j["shaders"].size(), 2u); /* the VS and the FS */
   const auto &fs = j["shaders"][0]["stage"] == "fs" ? j["shaders"][0] : j["shaders"][1];
   ASSERT_EQ(fs["stage"], "fs");
   ASSERT_EQ(fs["instructions"].size(), 5u);
   EXPECT_NE(fs["instructions"][kTex]["text"].get<std::string>().find("TEX"), std::string::npos);

   /* FS thread groups: full quads of the 64x64 screen, width-lane groups */
   const uint64_t frags = uint64_t(kScreen) * kScreen;
   const uint64_t groups = frags / cfg.thread_group_width;
   for (uint32_t k = 0; k < 5; k++) {
      EXPECT_EQ(fs["instructions"][k]["issues"].get<uint64_t>(), groups) << k;
      EXPECT_EQ(fs["instructions"][k]["lanes"].get<uint64_t>(), frags) << k;
   }
   auto stalls = [&](uint32_t k) {
      uint64_t n = 0;
      for (const auto &[reason, c] : fs["instructions"][k]["stalls"].items())
         n += c.get<uint64_t>();
      return n;
   };
   auto memory = [&](uint32_t k) {
      return fs["instructions"][k]["stalls"]["memory"].get<uint64_t>();
   };
   /* the texel's latency waits at its first reader */
   EXPECT_GT(memory(kUse), 0u);
   EXPECT_GT(stalls(kUse), 4 * stalls(kTex));
   EXPECT_GT(stalls(kUse), 4 * stalls(kIndependent));
   EXPECT_EQ(memory(kIndependent), 0u);
}

TEST(ShaderProfile, SleepingChangesNothing)
{
   Scene s;
   scene_texture_then_use(s);
   Config cfg;
   cfg.validate();
   CycleGpu a{cfg}, b{cfg};
   a.enable_profile();
   b.enable_profile();
   b.never_sleep();
   run_scene(s, a);
   run_scene(s, b);
   const auto j = a.profile()->to_json();
   EXPECT_EQ(j, b.profile()->to_json());
   uint64_t stalls = 0;
   for (const auto &sh : j["shaders"])
      for (const auto &in : sh["instructions"])
         for (const auto &[reason, c] : in["stalls"].items())
            stalls += c.get<uint64_t>();
   EXPECT_GT(stalls, 0u); /* (equal empty profiles would prove nothing) */
}

/* Gpu::set_label (vlg_drm_bo_set_label): a shader is named by the label of
 * the range its code starts in, as the label was when the shader first ran
 * (a later label, or the range's removal, does not rename it); an unlabelled
 * shader has no name. The ranges: [A, A + 4) labelled, A + 4 not. */
TEST(ShaderProfile, ShadersAreNamedByTheLabelOfTheirCode)
{
   Scene s;
   scene_texture_then_use(s);
   Config cfg;
   cfg.validate();
   /* where the scene puts the FS code: from an unnamed run */
   CycleGpu probe{cfg};
   probe.enable_profile();
   run_scene(s, probe);
   uint64_t fs_code = 0;
   const auto unnamed = probe.profile()->to_json();
   for (const auto &sh : unnamed["shaders"]) {
      EXPECT_FALSE(sh.contains("name"));
      if (sh["stage"] == "fs")
         fs_code = std::stoull(sh["code"].get<std::string>(), nullptr, 16);
   }
   ASSERT_NE(fs_code, 0u);

   CycleGpu gpu{cfg};
   gpu.set_label(fs_code, 4, "FS 7 GLSL3");
   EXPECT_EQ(gpu.label_at(fs_code + 3), "FS 7 GLSL3");
   EXPECT_EQ(gpu.label_at(fs_code + 4), "");
   EXPECT_EQ(gpu.label_at(fs_code - 1), "");
   gpu.enable_profile();
   run_scene(s, gpu);
   gpu.set_label(fs_code, 4, {}); /* freed after it ran */
   EXPECT_EQ(gpu.label_at(fs_code), "");
   unsigned named = 0;
   const auto j = gpu.profile()->to_json();
   for (const auto &sh : j["shaders"]) {
      if (sh["stage"] == "fs") {
         EXPECT_EQ(sh.value("name", ""), "FS 7 GLSL3");
         named++;
      } else {
         EXPECT_FALSE(sh.contains("name")) << sh["stage"];
      }
   }
   EXPECT_EQ(named, 1u);
}
