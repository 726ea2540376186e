/*
 * Geometry shaders on the whole GPU (docs/hw.md "Geometry shaders"): the
 * same scene on the functional GPU and on CycleGpu (the configurations of
 * unit_configs.h) must leave bit-identical VRAM (pixels, stream-output
 * buffers, filled sizes) and the same per-draw counters; cycle mode runs a
 * GS draw on the functional pipeline after draining the pipe, so draws
 * before and after it (without a GS) must still come out right, and a GS
 * fault must stop only its draw.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/* GS: each input point becomes a quad (triangle strip of 4 vertices at
 * position + C0..C3), coloured with the point's VARYING 0 */
const char *kPointToQuadGs = R"(
   ADD R8, R0, C0
   MOV R9, R1
   MEM.EMIT
   ADD R8, R0, C1
   MEM.EMIT
   ADD R8, R0, C2
   MEM.EMIT
   ADD R8, R0, C3
   MEM.EMIT
   BRC.END
)";

/* GS: input triangle passed through as a strip of 3 */
const char *kPassTriangleGs = R"(
   MOV R8, R0
   MOV R9, R1
   MEM.EMIT
   MOV R8, R2
   MOV R9, R3
   MEM.EMIT
   MOV R8, R4
   MOV R9, R5
   MEM.EMIT
   BRC.END
)";

void
gs_io(TestDraw &t, unsigned vertices_in, unsigned max_vertices)
{
   t.use_gs = true;
   t.gs.input(0, VLG_INPUT_SEMANTIC_POSITION);
   t.gs.input(1, VLG_INPUT_SEMANTIC_VARYING, 0);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_POSITION);
   t.gs.output(9, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = vertices_in;
   t.gs.st.gs_input_stride = 2;
   t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
   t.gs.st.gs_max_vertices = max_vertices;
}

struct GsScene {
   Scene s;
   uint64_t so_buf = 0, so_filled = 0;
};

void
build(GsScene &x, bool runaway)
{
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   const float bg[4] = {0, 0, 0.2f, 1};
   s.clear(1u << 2, bg);
   Lcg r(7);

   /* draw 1: plain triangles, no GS */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 12, 0.4f));
   s.draw();

   /* draw 2: points -> quads through the GS */
   s.next_draw();
   std::vector<float> pts;
   for (int i = 0; i < 9; i++)
      pts.insert(pts.end(), {r.uniform(-0.8f, 0.8f), r.uniform(-0.8f, 0.8f), 0, 1,
                             r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1), 1});
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   gs_io(t, 1, 4);
   t.gs.code = assemble(runaway ? "loop:\nMEM.EMIT\nBRC.JMP loop\n" : kPointToQuadGs);
   t.gs.consts = {-0.1f, -0.1f, 0, 0, 0.1f, -0.1f, 0, 0, -0.1f, 0.1f, 0, 0, 0.1f, 0.1f, 0, 0};
   s.draw();

   /* draw 3: an indexed strip with a restart through the pass-through GS,
    * GS outputs streamed out */
   s.next_draw();
   std::vector<float> strip;
   for (int i = 0; i < 10; i++)
      strip.insert(strip.end(), {-0.9f + 0.2f * float(i), (i & 1) ? 0.7f : 0.3f, 0, 1,
                                 0.1f * float(i), 1, 0.5f, 1});
   t.indices(std::vector<uint16_t>{0, 1, 2, 3, 0xffff, 4, 5, 6, 7, 8, 9});
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   color_pipeline(t, strip);
   gs_io(t, 3, 3);
   t.gs.code = assemble(kPassTriangleGs);
   std::vector<uint8_t> fill(1024, 0xab);
   x.so_buf = t.put(fill.data(), fill.size(), 64);
   const uint32_t zero = 0;
   x.so_filled = t.put(&zero, 4, 4);
   VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);
   so.buffers[0].enable = true;
   so.buffers[0].stride = 16;
   so.buffers[0].address = x.so_buf;
   so.buffers[0].size = 1024;
   so.buffers[0].filled_size = x.so_filled;
   so.num_outputs = 1;
   so.outputs[0].reg = 9; /* the GS's colour output */
   so.outputs[0].num_components = 4;
   uint32_t w[VLG_STREAM_OUTPUT_LENGTH];
   VLG_STREAM_OUTPUT_pack(w, &so);
   t.draw.stream_output = t.put(w, sizeof(w), 16);
   s.draw();

   /* draw 4: plain triangles again, blended over everything */
   s.next_draw();
   t.pipe.blend.rt[0].blend_enable = true;
   t.pipe.blend.rt[0].rgb_func = t.pipe.blend.rt[0].alpha_func = VLG_BLEND_FUNC_ADD;
   t.pipe.blend.rt[0].rgb_src_factor = t.pipe.blend.rt[0].alpha_src_factor =
      VLG_BLEND_FACTOR_SRC_ALPHA;
   t.pipe.blend.rt[0].rgb_dst_factor = t.pipe.blend.rt[0].alpha_dst_factor =
      VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   color_pipeline(t, random_triangles(r, 10, 0.5f, 0, 0, 0.3f, 0.7f));
   s.draw();
   s.sync(3);
   s.finish();
}

class GsBothModes : public ::testing::TestWithParam<size_t> {};

TEST_P(GsBothModes, SameVramAndCounters)
{
   const NamedConfig &cf = kConfigs[GetParam()];
   const Config p = params(cf);
   GsScene x;
   build(x, false);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(x.s, *fgpu);
   const ModeRun c = run_scene(x.s, cgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   ASSERT_EQ(f.res.draws.size(), 5u);
   ASSERT_EQ(c.res.draws.size(), 5u);
   for (size_t i = 0; i < 5; i++) {
      const DrawStats &a = f.res.draws[i].counters, &b = c.res.draws[i].counters;
      EXPECT_EQ(a.gs_invocations, b.gs_invocations) << "draw " << i;
      EXPECT_EQ(a.gs_output_primitives, b.gs_output_primitives) << "draw " << i;
      EXPECT_EQ(a.ge.primitives, b.ge.primitives) << "draw " << i;
      EXPECT_EQ(a.fragments_passed, b.fragments_passed) << "draw " << i;
   }
   const DrawStats &quads = f.res.draws[2].counters, &strip = f.res.draws[3].counters;
   EXPECT_EQ(quads.gs_invocations, 9u);
   EXPECT_EQ(quads.gs_output_vertices, 36u);
   EXPECT_EQ(quads.gs_output_primitives, 18u);
   EXPECT_GT(quads.fragments_passed, 9u * 4u);
   EXPECT_EQ(strip.gs_invocations, 2u + 4u);
   EXPECT_EQ(strip.ge.so_written, 6u);
   EXPECT_EQ(f.vram->read32(x.so_filled, "test"), 6u * 3u * 16u);
   EXPECT_EQ(compare_surfaces(x.s.t.fb, *f.vram, *c.vram, cf.name), 0u);
   EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()))
      << cf.name << ": VRAM differs between the modes";
   EXPECT_GT(c.res.draws[2].cycles, 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, GsBothModes, ::testing::Range<size_t>(0, std::size(kConfigs)),
                         [](const ::testing::TestParamInfo<size_t> &i) {
                            return std::string(kConfigs[i.param].name);
                         });

/* A runaway GS stops its draw with the same fault in both modes; the draws
 * after it still run (same VRAM). */
TEST(GsCycleMode, FaultStopsOnlyItsDraw)
{
   const Config p = params(kConfigs[0]);
   GsScene x;
   build(x, true);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(x.s, *fgpu);
   const ModeRun c = run_scene(x.s, cgpu);
   for (const ModeRun *m : {&f, &c}) {
      ASSERT_EQ(m->res.faults.size(), 1u);
      EXPECT_EQ(m->res.faults[0].module, "SPC");
      EXPECT_NE(m->res.faults[0].text.find("shader did not end"), std::string::npos)
         << m->res.faults[0].text;
      EXPECT_EQ(m->res.faults[0].draw_index, 2);
      ASSERT_EQ(m->res.draws.size(), 5u);
      EXPECT_GT(m->res.draws[4].counters.fragments_passed, 0u);
   }
   EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()));
}

} // namespace
