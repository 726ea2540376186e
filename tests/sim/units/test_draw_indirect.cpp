/*
 * Indirect draws (ARB_draw_indirect, docs/hw.md "Indirect draws") on the
 * whole GPU in both modes: a scene whose draws take count, instance count,
 * first vertex/index, base vertex and first instance from a command in VRAM
 * (draw_info.indirect, the draw_info fields of the same names left 0) must
 * draw exactly the pixels of the same scene with those values written into
 * draw_info directly; a misaligned command address stops the draw with a CP
 * fault. Also a framebuffer with no attachments (ARB_framebuffer_no_attachments):
 * only width and height, the draws rasterize and occlusion counting works.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

const unsigned kW = 32, kH = 16;

/* 4 triangles side by side, x y z w r g b a per vertex */
std::vector<float>
triangles()
{
   std::vector<float> v;
   for (int k = 0; k < 4; k++) {
      const float cx = -0.75f + 0.5f * float(k);
      const float c[3] = {k == 0 ? 1.0f : 0.2f, k == 1 || k == 3 ? 1.0f : 0.3f, k >= 2 ? 1.0f : 0.1f};
      const float p[3][2] = {{cx - 0.2f, -0.6f}, {cx + 0.2f, -0.6f}, {cx, 0.6f}};
      for (auto &q : p)
         v.insert(v.end(), {q[0], q[1], 0.5f, 1.0f, c[0], c[1], c[2], 1.0f});
   }
   return v;
}

/* @indirect: the draw parameters go into indirect commands; else into
 * draw_info. @misalign: the first command address is off by 2 bytes. */
void
build(Scene &s, bool indirect, bool misalign = false)
{
   TestDraw &t = s.t;
   t.framebuffer(kW, kH);
   const float bg[4] = {0, 0, 0, 1};
   s.clear(1u << 2, bg);

   /* draw 1: non-indexed, triangles 1 and 2 (vertices 3..8) */
   s.next_draw();
   color_pipeline(t, triangles());
   if (indirect) {
      const uint32_t cmd[5] = {6, 1, 3, 0, 0}; /* count, instances, first, base instance */
      const uint64_t a = t.alloc(32, 16);
      std::memcpy(t.vram.data() + a + (misalign ? 2 : 0), cmd, 16);
      t.draw.indirect = a + (misalign ? 2 : 0);
      t.draw.count = 0;
   } else {
      t.draw.start = 3;
      t.draw.count = 6;
   }
   s.draw();

   /* draw 2: indexed, indices 6..8 of 0..11 plus base vertex 3: triangle 3 */
   s.next_draw();
   color_pipeline(t, triangles());
   std::vector<uint16_t> idx;
   for (uint16_t i = 0; i < 12; i++)
      idx.push_back(i);
   t.indices(idx);
   if (indirect) {
      const uint32_t cmd[5] = {3, 1, 6, 3, 0}; /* count, instances, first index, base vertex, base instance */
      t.draw.indirect = t.put(cmd, 20, 4);
      t.draw.count = 0;
   } else {
      t.draw.start = 6;
      t.draw.count = 3;
      t.draw.base_vertex = 3;
   }
   s.draw();

   /* draw 3: triangle 0 with no instances: draws nothing */
   s.next_draw();
   color_pipeline(t, triangles());
   if (indirect) {
      const uint32_t cmd[4] = {3, 0, 0, 0};
      t.draw.indirect = t.put(cmd, 16, 4);
      t.draw.count = 0;
      t.draw.instance_count = 1;
   } else {
      t.draw.count = 3;
      t.draw.instance_count = 0;
   }
   s.draw();
   s.sync(1);
   s.finish();
}

std::vector<uint8_t>
pixels(const ModeRun &m, const Scene &s)
{
   const VLG_SURFACE &c = s.t.fb.cbufs[0];
   std::vector<uint8_t> out(size_t(kW) * kH * 4);
   for (unsigned y = 0; y < kH; y++)
      std::memcpy(&out[size_t(y) * kW * 4], m.vram->data() + c.address + uint64_t(y) * c.pitch,
                  kW * 4);
   return out;
}

TEST(DrawIndirect, SamePixelsAsDirectDrawsInBothModes)
{
   const Config p = params(kConfigs[0]);
   Scene direct, indirect;
   build(direct, false);
   build(indirect, true);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   std::vector<uint8_t> want;
   for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const char *mode = g == &cgpu ? "cycle" : "functional";
      const ModeRun d = run_scene(direct, *g);
      const ModeRun i = run_scene(indirect, *g);
      ASSERT_TRUE(d.res.faults.empty()) << mode << ": " << d.res.faults[0].text;
      ASSERT_TRUE(i.res.faults.empty()) << mode << ": " << i.res.faults[0].text;
      const std::vector<uint8_t> pd = pixels(d, direct), pi = pixels(i, indirect);
      EXPECT_EQ(pd, pi) << mode << ": indirect draws differ from the direct ones";
      if (want.empty())
         want = pi;
      EXPECT_EQ(pi, want) << mode << ": the modes differ";
      /* triangles 1..3 drawn, triangle 0 (no instances) not: the centre
       * column of each triangle, x = (cx + 1) / 2 * kW */
      for (int k = 0; k < 4; k++) {
         const unsigned x = unsigned((-0.75f + 0.5f * float(k) + 1.0f) * 0.5f * kW);
         const uint8_t *px = &pi[(size_t(kH / 2) * kW + x) * 4];
         const bool drawn = px[0] || px[1] || px[2] != 0;
         EXPECT_EQ(drawn, k != 0) << mode << ": triangle " << k;
      }
   }
}

TEST(DrawIndirect, MisalignedCommandFaultsInBothModes)
{
   const Config p = params(kConfigs[0]);
   Scene s;
   build(s, true, true);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const ModeRun r = run_scene(s, *g);
      ASSERT_EQ(r.res.faults.size(), 1u);
      EXPECT_EQ(r.res.faults[0].module, "CP");
      EXPECT_NE(r.res.faults[0].text.find("is not 4-byte aligned"), std::string::npos)
         << r.res.faults[0].text;
   }
}

TEST(NoAttachments, OcclusionCountWithoutSurfacesInBothModes)
{
   /* a 37 x 21 framebuffer with no colour and no depth/stencil buffer;
    * two triangles covering it: every pixel centre is covered once, so
    * the counter must reach 37 * 21 per draw (two draws: a quad drawn
    * twice); nothing else in VRAM may change but the counter. */
   const unsigned w = 37, h = 21;
   const Config p = params(kConfigs[0]);
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(w, h, VLG_FORMAT_NONE, VLG_FORMAT_NONE, 0);
   const uint64_t counter = t.alloc(8, 8);
   std::memset(t.vram.data() + counter, 0, 8);
   for (int d = 0; d < 2; d++) {
      s.next_draw();
      color_pipeline(t, {-1, -1, 0, 1, 1, 0, 0, 1, 1, -1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1,
                         -1, -1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, -1, 1, 0, 1, 1, 0, 0, 1});
      t.draw.occlusion_counter = counter;
      s.draw();
   }
   s.sync(1);
   s.finish();
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const char *mode = g == &cgpu ? "cycle" : "functional";
      const ModeRun r = run_scene(s, *g);
      ASSERT_TRUE(r.res.faults.empty()) << mode << ": " << r.res.faults[0].text;
      uint64_t n = 0;
      r.vram->read(counter, &n, 8, "test");
      EXPECT_EQ(n, 2u * w * h) << mode;
   }
}

} // namespace
