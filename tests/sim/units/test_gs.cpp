/*
 * Geometry shaders on the whole GPU (docs/hw.md "Geometry shaders"): the
 * same scene on the functional GPU and on CycleGpu (the configurations of
 * unit_configs.h, plus sub-blocks of 1 and 2 elements) must leave
 * bit-identical VRAM (pixels, stream-output buffers, filled sizes) and the
 * same per-draw GS counters. In cycle mode the GS groups run on the SPCs
 * while the draws before and after overlap them, input primitives span
 * sub-blocks (fans, strips, adjacency, restarts, instances), and a GS fault
 * must stop only its draw. GsTiming: the cycles of an ALU-bound GS draw
 * follow the number of SPCs.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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

/* GS: input triangle with adjacency (6 vertices, stride 2) -> the triangle
 * of its vertices 0, 2, 4 */
const char *kAdjTriangleGs = R"(
   MOV R12, R0
   MOV R13, R1
   MEM.EMIT
   MOV R12, R4
   MOV R13, R5
   MEM.EMIT
   MOV R12, R8
   MOV R13, R9
   MEM.EMIT
   BRC.END
)";

/* GS: line with adjacency (4 vertices, stride 2) -> a thin triangle on its
 * middle segment v1 v2, widened by C0 */
const char *kAdjLineGs = R"(
   MOV R8, R2
   MOV R9, R3
   MEM.EMIT
   MOV R8, R4
   MOV R9, R5
   MEM.EMIT
   ADD R8, R2, C0
   MEM.EMIT
   BRC.END
)";

/* GS: one point per input triangle, R8 = (PRIMITIVE_ID, x of vertex 0,
 * x of vertex 2, 1), streamed out */
const char *kPrimIdGs = R"(
   MOV R8, C0
   MOV R8.x, R6.xxxx
   MOV R8.y, R0.xxxx
   MOV R8.z, R4.xxxx
   MOV R9, R0
   MEM.EMIT
   BRC.END
)";

void
gs_stream_out(TestDraw &t, unsigned reg, uint64_t &buf, uint64_t &filled, uint32_t bytes)
{
   std::vector<uint8_t> fill(bytes, 0xcd);
   buf = t.put(fill.data(), fill.size(), 64);
   const uint32_t zero = 0;
   filled = t.put(&zero, 4, 4);
   VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);
   so.buffers[0].enable = true;
   so.buffers[0].stride = 16;
   so.buffers[0].address = buf;
   so.buffers[0].size = bytes;
   so.buffers[0].filled_size = filled;
   so.num_outputs = 1;
   so.outputs[0].reg = reg;
   so.outputs[0].num_components = 4;
   uint32_t w[VLG_STREAM_OUTPUT_LENGTH];
   VLG_STREAM_OUTPUT_pack(w, &so);
   t.draw.stream_output = t.put(w, sizeof(w), 16);
}

/* Input primitives that span sub-blocks and instances: a fan, a triangle
 * strip with adjacency (2 instances), a line strip with adjacency, an
 * indexed strip with restarts over 3 instances whose PRIMITIVE_IDs are
 * streamed out, and 300 points made quads (many GS groups). */
void
build_shapes(GsScene &x)
{
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   const float bg[4] = {0.1f, 0, 0, 1};
   s.clear(1u << 2, bg);
   Lcg r(11);
   auto vert = [&](std::vector<float> &v, float px, float py) {
      v.insert(v.end(), {px, py, 0, 1, r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1), 1});
   };

   /* a fan of 40 triangles */
   s.next_draw();
   std::vector<float> fan;
   vert(fan, 0, 0);
   for (int i = 0; i <= 40; i++) {
      const float a = 6.2831853f * float(i) / 40.0f;
      vert(fan, 0.8f * std::cos(a), 0.8f * std::sin(a));
   }
   t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
   color_pipeline(t, fan);
   gs_io(t, 3, 3);
   t.gs.code = assemble(kPassTriangleGs);
   s.draw();

   /* a triangle strip with adjacency of 26 vertices, twice */
   s.next_draw();
   std::vector<float> adj;
   for (int i = 0; i < 26; i++)
      vert(adj, -0.9f + 0.07f * float(i), (i & 2) ? 0.2f : -0.5f + 0.02f * float(i));
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP_ADJACENCY;
   t.draw.vertices_per_prim = 6;
   t.draw.instance_count = 2;
   color_pipeline(t, adj);
   gs_io(t, 6, 3);
   t.gs.st.num_outputs = 0; /* outputs above the 12 input registers */
   t.gs.output(12, VLG_OUTPUT_SEMANTIC_POSITION);
   t.gs.output(13, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.code = assemble(kAdjTriangleGs);
   s.draw();

   /* a line strip with adjacency of 31 vertices */
   s.next_draw();
   std::vector<float> line;
   for (int i = 0; i < 31; i++)
      vert(line, -0.9f + 0.06f * float(i), 0.6f * std::sin(0.4f * float(i)));
   t.draw.prim = VLG_PRIM_LINE_STRIP_ADJACENCY;
   t.draw.vertices_per_prim = 4;
   color_pipeline(t, line);
   gs_io(t, 4, 3);
   t.gs.code = assemble(kAdjLineGs);
   t.gs.consts = {0, 0.08f, 0, 0};
   s.draw();

   /* an indexed strip with restarts, 3 instances: PRIMITIVE_IDs streamed out */
   s.next_draw();
   std::vector<float> strip;
   for (int i = 0; i < 14; i++)
      vert(strip, -0.9f + 0.13f * float(i), (i & 1) ? 0.9f : 0.7f);
   t.indices(std::vector<uint16_t>{0, 1, 2, 3, 4, 0xffff, 5, 6, 7, 0xffff, 8, 9, 10, 11, 12, 13});
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   t.draw.instance_count = 3;
   color_pipeline(t, strip);
   gs_io(t, 3, 1);
   t.gs.input(6, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1); /* after the 3 x 2 vertex registers */
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.num_outputs = 0;
   t.gs.output(9, VLG_OUTPUT_SEMANTIC_POSITION);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.code = assemble(kPrimIdGs);
   t.gs.consts = {0, 0, 0, 1};
   gs_stream_out(t, 8, x.so_buf, x.so_filled, 16 * 64);
   s.draw();

   /* 300 points -> quads */
   s.next_draw();
   std::vector<float> pts;
   for (int i = 0; i < 300; i++)
      vert(pts, r.uniform(-0.9f, 0.9f), r.uniform(-0.9f, 0.9f));
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   gs_io(t, 1, 4);
   t.gs.code = assemble(kPointToQuadGs);
   t.gs.consts = {-0.03f, -0.03f, 0, 0, 0.03f, -0.03f, 0, 0, -0.03f, 0.03f, 0, 0, 0.03f, 0.03f, 0, 0};
   s.draw();
   s.sync(5);
   s.finish();
}

/* the configurations, plus sub-blocks of one and two elements (a primitive's
 * vertices in up to 6 sub-blocks) and three GPCs */
const NamedConfig kGsConfigs[] = {
   {"sub_block_1", "gts.sub_block_elements=1,ge.sub_blocks_in_flight=3"},
   {"sub_block_2", "gts.sub_block_elements=2,thread_group_width=4"},
   /* GS draws rotate over the GPCs (DrawState::has_gs), plain ones per sub-block */
   {"three_gpcs", "gpcs=3,spcs_per_gpc=1,gts.sub_block_elements=3,pe.tile_pixels=8"},
};

uint64_t
module_counter(const nlohmann::ordered_json &stats, const char *module_suffix, const char *counter)
{
   uint64_t n = 0;
   for (const auto &[name, m] : stats["modules"].items())
      if (name.size() >= std::strlen(module_suffix) &&
          name.compare(name.size() - std::strlen(module_suffix), std::string::npos,
                       module_suffix) == 0)
         n += m["counters"][counter].get<uint64_t>();
   return n;
}

class GsShapes : public ::testing::TestWithParam<size_t> {};

TEST_P(GsShapes, SameVramAndCountersAcrossSubBlocks)
{
   const size_t k = GetParam();
   const NamedConfig &cf =
      k < std::size(kConfigs) ? kConfigs[k] : kGsConfigs[k - std::size(kConfigs)];
   const Config p = params(cf);
   GsScene x;
   build_shapes(x);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(x.s, *fgpu);
   const ModeRun c = run_scene(x.s, cgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   ASSERT_EQ(f.res.draws.size(), 6u);
   ASSERT_EQ(c.res.draws.size(), 6u);
   uint64_t groups = 0;
   for (size_t i = 1; i < 6; i++) {
      const DrawStats &a = f.res.draws[i].counters, &b = c.res.draws[i].counters;
      EXPECT_EQ(a.gs_groups, b.gs_groups) << cf.name << " draw " << i;
      EXPECT_EQ(a.gs_invocations, b.gs_invocations) << cf.name << " draw " << i;
      EXPECT_EQ(a.gs_instructions, b.gs_instructions) << cf.name << " draw " << i;
      EXPECT_EQ(a.gs_output_vertices, b.gs_output_vertices) << cf.name << " draw " << i;
      EXPECT_EQ(a.gs_output_primitives, b.gs_output_primitives) << cf.name << " draw " << i;
      EXPECT_EQ(a.ge.primitives, b.ge.primitives) << cf.name << " draw " << i;
      EXPECT_EQ(a.fragments_passed, b.fragments_passed) << cf.name << " draw " << i;
      groups += b.gs_groups;
   }
   /* input primitives from GL's rules (GL 3.2 core §2.6.1, Table 2.4) */
   EXPECT_EQ(f.res.draws[1].counters.gs_invocations, 40u);          /* fan of 42 */
   EXPECT_EQ(f.res.draws[2].counters.gs_invocations, 2u * 11u);     /* (26 - 4) / 2 */
   EXPECT_EQ(f.res.draws[3].counters.gs_invocations, 28u);          /* 31 - 3 */
   EXPECT_EQ(f.res.draws[4].counters.gs_invocations, 3u * (3 + 1 + 4)); /* 5, 3, 6 */
   EXPECT_EQ(f.res.draws[5].counters.gs_invocations, 300u);
   /* PRIMITIVE_ID counts over restarts and starts again per instance */
   for (unsigned inst = 0; inst < 3; inst++)
      for (unsigned prim = 0; prim < 8; prim++)
         EXPECT_EQ(c.vram->read32(x.so_buf + 16 * (inst * 8 + prim), "test"), prim)
            << cf.name << " instance " << inst;
   /* every GS group went through an LTS and an SPC */
   EXPECT_EQ(module_counter(c.res.stats, ".lts", "gs_dispatched"), groups) << cf.name;
   uint64_t spc_groups = 0;
   for (const char *spc : {".spc0", ".spc1", ".spc2", ".spc3"})
      spc_groups += module_counter(c.res.stats, spc, "gs_groups");
   EXPECT_EQ(spc_groups, groups) << cf.name;
   EXPECT_EQ(compare_surfaces(x.s.t.fb, *f.vram, *c.vram, cf.name), 0u);
   EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()))
      << cf.name << ": VRAM differs between the modes";
}

INSTANTIATE_TEST_SUITE_P(Configs, GsShapes,
                         ::testing::Range<size_t>(0, std::size(kConfigs) + std::size(kGsConfigs)),
                         [](const ::testing::TestParamInfo<size_t> &i) {
                            return std::string(i.param < std::size(kConfigs)
                                                  ? kConfigs[i.param].name
                                                  : kGsConfigs[i.param - std::size(kConfigs)].name);
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
