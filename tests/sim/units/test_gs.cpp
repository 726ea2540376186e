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

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gs_scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** The scene on the functional GPU and on CycleGpu, configuration @p. */
std::pair<ModeRun, ModeRun>
run_both(const GsScene &x, const Config &p)
{
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   ModeRun f = run_scene(x.s, *fgpu);
   ModeRun c = run_scene(x.s, cgpu);
   return {std::move(f), std::move(c)};
}

class GsBothModes : public ::testing::TestWithParam<size_t> {};

TEST_P(GsBothModes, SameVramAndCounters)
{
   const NamedConfig &cf = kConfigs[GetParam()];
   const Config p = params(cf);
   GsScene x;
   build_gs_mixed(x, false);
   const auto [f, c] = run_both(x, p);
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
   build_gs_shapes(x);
   const auto [f, c] = run_both(x, p);
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

/* ---- GS instancing (shader_state.gs_invocations) in both modes ---- */

/* GS of 3 invocations: each input point becomes a quad moved right by
 * 0.3 x INVOCATION_ID, coloured with the point's VARYING 0; R10 =
 * (INVOCATION_ID, PRIMITIVE_ID, 0, 0) is streamed out per output vertex */
const char *const kInstancedQuadGs = R"(
   CONV.U2F R5.x, R4.xxxx
   MAD R6, R5.xxxx, C4, R0
   MOV R10.x, R4.xxxx
   MOV R10.y, R3.xxxx
   MOV R10.zw, C5
   MOV R9, R1
   ADD R8, R6, C0
   MEM.EMIT
   ADD R8, R6, C1
   MEM.EMIT
   ADD R8, R6, C2
   MEM.EMIT
   ADD R8, R6, C3
   MEM.EMIT
   BRC.END
)";

TEST(GsInvocations, BothModesInInvocationOrder)
{
   /* 7 points x 3 invocations = 21 lanes (groups of 4 with
    * thread_group_width=4: a primitive's invocations straddle groups), 4
    * vertices each streamed out in primitive-major, invocation order (GL ES
    * 3.2 section 11.3.4.2) and drawn as quads; both modes must leave the
    * same VRAM. */
   GsScene x;
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   s.next_draw();
   std::vector<float> pts;
   for (int i = 0; i < 7; i++)
      pts.insert(pts.end(), {-0.9f + 0.1f * float(i), 0.3f * float(i % 3) - 0.5f, 0, 1,
                             0.1f * float(i), 1, 0.5f, 1});
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   gs_io(t, 1, 4);
   t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.input(4, VLG_INPUT_SEMANTIC_INVOCATION_ID, 0, 0x1);
   t.gs.output(10, VLG_OUTPUT_SEMANTIC_VARYING, 1); /* streamed out, not read by the FS */
   t.gs.st.gs_invocations = 3;
   t.gs.code = assemble(kInstancedQuadGs);
   t.gs.consts = {-0.05f, -0.05f, 0, 0, 0.05f, -0.05f, 0, 0, -0.05f, 0.05f, 0, 0,
                  0.05f,  0.05f,  0, 0, 0.3f,  0,      0, 0, 0,      0,     0, 0};
   gs_stream_out(t, 10, x.so_buf, x.so_filled, 16 * 6 * 21, 0xab);
   s.draw();
   s.finish();
   for (const char *over : {"", "thread_group_width=4"}) {
      Config p;
      p.apply_overrides(over);
      const auto [f, c] = run_both(x, p);
      ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
      ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
      const DrawStats &a = f.res.draws.at(0).counters, &b = c.res.draws.at(0).counters;
      EXPECT_EQ(a.gs_invocations, 21u) << over;
      EXPECT_EQ(b.gs_invocations, 21u) << over;
      EXPECT_EQ(a.gs_output_vertices, 84u) << over;
      EXPECT_EQ(b.gs_output_primitives, a.gs_output_primitives) << over;
      EXPECT_GT(a.fragments_passed, 21u) << over;
      EXPECT_EQ(a.fragments_passed, b.fragments_passed) << over;
      EXPECT_EQ(f.vram->read32(x.so_filled, "test"), 21u * 2u * 3u * 16u) << over;
      /* stream output writes the triangles of each strip: 2 triangles x 3
       * vertices per lane, all with the lane's (invocation, primitive) */
      for (uint32_t lane = 0; lane < 21; lane++)
         for (unsigned v = 0; v < 6; v++) {
            const uint64_t at = x.so_buf + 16 * (lane * 6 + v);
            EXPECT_EQ(c.vram->read32(at, "test"), lane % 3) << over << " lane " << lane;
            EXPECT_EQ(c.vram->read32(at + 4, "test"), lane / 3) << over << " lane " << lane;
         }
      EXPECT_EQ(compare_surfaces(t.fb, *f.vram, *c.vram, "gs invocations"), 0u);
      EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()))
         << over << ": VRAM differs between the modes";
   }
}

/* ---- the FS input PRIMITIVE_ID in both modes ---- */

TEST(FragmentPrimitiveId, BothModesNumberTheInstancesPrimitives)
{
   /* An indexed strip with a restart, 2 instances, no GS: the FS writes
    * gl_PrimitiveID into an R32_UINT target. The cycle-mode PEs number the
    * primitives themselves (after the broadcast), the functional GE in its
    * assembler: same VRAM, and the last primitive of the second instance
    * (strip triangles 0..2, restart, 3..6: primitive 6) is 6, not 13. */
   GsScene x;
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48, VLG_FORMAT_R32_UINT);
   s.next_draw();
   std::vector<float> strip;
   for (int i = 0; i < 11; i++)
      strip.insert(strip.end(), {-1.0f + 0.2f * float(i), (i & 1) ? 0.9f : -0.9f, 0, 1,
                                 0, 0, 0, 1});
   t.indices(std::vector<uint16_t>{0, 1, 2, 3, 4, 0xffff, 5, 6, 7, 8, 9, 10});
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   t.draw.instance_count = 2;
   color_pipeline(t, strip);
   t.fs.code = assemble("MOV R1.x, R2.xxxx\nBRC.END\n");
   t.fs.input(2, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1, VLG_INTERP_CONSTANT);
   s.draw();
   s.finish();
   for (const char *over : {"", "gpcs=2,spcs_per_gpc=1,pe.tile_pixels=8"}) {
      Config p;
      p.apply_overrides(over);
      const auto [f, c] = run_both(x, p);
      ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
      ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
      EXPECT_EQ(f.res.draws.at(0).counters.ge.primitives, 14u) << over;
      EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()))
         << over << ": VRAM differs between the modes";
      /* the pixel at x = 60 (x_ndc 0.89) lies in the strip's last
       * triangle (vertices 8, 9, 10: x_ndc 0.6 .. 1.0) */
      uint32_t last;
      std::memcpy(&last, f.vram->data() + t.fb.cbufs[0].address + 24 * t.fb.cbufs[0].pitch + 60 * 4,
                  4);
      EXPECT_EQ(last, 6u) << over;
   }
}

/* ---- layered rendering in both modes ---- */

TEST(GsLayered, BothModesWriteTheSameLayers)
{
   /* docs/hw.md "Layered rendering": a 4-layer RGBA8 colour buffer and
    * Z24S8 depth buffer cleared in every layer, then points -> quads through
    * a GS that picks layer PRIMITIVE_ID % 4 with instancing (3 invocations,
    * each moved right), depth-tested: both modes must leave the same VRAM,
    * and every layer must have been drawn. */
   GsScene x;
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   for (VLG_SURFACE *sf : {&t.fb.cbufs[0], &t.fb.zsbuf}) {
      sf->layer_stride = sf->pitch * 48 + 128;
      sf->layers = 4;
      sf->address = t.alloc(uint64_t(sf->layer_stride) * 4);
   }
   const float bg[4] = {0, 0, 0.2f, 1};
   s.clear(1u | (1u << 2), bg);
   s.next_draw();
   std::vector<float> pts;
   for (int i = 0; i < 9; i++)
      pts.insert(pts.end(), {-0.8f + 0.15f * float(i), 0.5f * float(i % 3) - 0.5f,
                             0.1f * float(i % 4), 1, 0.1f * float(i), 1, 0.5f, 1});
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   t.pipe.depth_stencil_alpha.depth_enable = true;
   t.pipe.depth_stencil_alpha.depth_writemask = true;
   t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   gs_io(t, 1, 4);
   t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.input(4, VLG_INPUT_SEMANTIC_INVOCATION_ID, 0, 0x1);
   t.gs.output(12, VLG_OUTPUT_SEMANTIC_LAYER, 0, 0x1);
   t.gs.st.gs_invocations = 3;
   t.gs.code = assemble((std::string("AND R12.x, R3.xxxx, C5.xxxx\n") + kInstancedQuadGs).c_str());
   uint32_t three = 3;
   t.gs.consts = {-0.05f, -0.05f, 0, 0, 0.05f, -0.05f, 0, 0, -0.05f, 0.05f, 0, 0,
                  0.05f,  0.05f,  0, 0, 0.3f,   0,      0, 0, 0,      0,     0, 0};
   std::memcpy(&t.gs.consts[20], &three, 4);
   t.gs.output(10, VLG_OUTPUT_SEMANTIC_VARYING, 1);
   s.draw();
   s.finish();
   const auto [f, c] = run_both(x, Config{});
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   EXPECT_EQ(f.res.draws.at(1).counters.gs_invocations, 27u);
   EXPECT_EQ(f.res.draws.at(1).counters.fragments_passed,
             c.res.draws.at(1).counters.fragments_passed);
   EXPECT_EQ(0, std::memcmp(f.vram->data(), c.vram->data(), f.vram->size()))
      << "VRAM differs between the modes";
   /* every layer was cleared (its last pixel) and drawn (some pixel differs
    * from the background) */
   const VLG_SURFACE &cb = t.fb.cbufs[0];
   for (unsigned layer = 0; layer < 4; layer++) {
      const uint8_t *p = f.vram->data() + cb.address + uint64_t(layer) * cb.layer_stride;
      EXPECT_EQ(p[47 * cb.pitch + 63 * 4 + 2], 51) << "layer " << layer; /* 0.2 * 255 */
      unsigned drawn = 0;
      for (unsigned y = 0; y < 48; y++)
         for (unsigned xx = 0; xx < 64; xx++)
            drawn += p[y * cb.pitch + xx * 4 + 2] != 51;
      EXPECT_GT(drawn, 0u) << "layer " << layer;
   }
}

/* ---- GsTiming: an ALU-bound GS draw is bound by the SPCs' issue rate ---- */

constexpr unsigned kTimingPoints = 2048;

/* A GS of @alu independent ADDs (destinations rotating over R10..R15, so a
 * group never waits on itself for long) that emits nothing (a GS that culls
 * every primitive: no work for the PE, whose per-primitive cost would bound
 * the draw otherwise): @alu + 1 instructions, no branch. */
std::string
alu_gs(unsigned alu)
{
   std::string src;
   for (unsigned i = 0; i < alu; i++)
      src += fmt::format("   ADD R{}, R0, C0\n", 10 + i % 6);
   src += "   BRC.END\n";
   return src;
}

/* cycles of one draw of kTimingPoints points through alu_gs(@alu) on one GPC
 * of @spcs SPCs */
uint64_t
gs_draw_cycles(unsigned alu, unsigned spcs, uint64_t *gs_instructions)
{
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   t.pipe.rasterizer.rasterizer_discard = true;
   s.next_draw();
   std::vector<float> pts;
   for (unsigned i = 0; i < kTimingPoints; i++)
      pts.insert(pts.end(), {float(i) / kTimingPoints, 0, 0, 1, 1, 1, 1, 1});
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   gs_io(t, 1, 1);
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.code = assemble(alu_gs(alu).c_str());
   t.gs.consts = {1, 2, 3, 4};
   s.draw();
   s.finish();
   Config p;
   p.apply_overrides(fmt::format("gpcs=1,spcs_per_gpc={}", spcs));
   CycleGpu gpu(p);
   const ModeRun r = run_scene(s, gpu);
   EXPECT_TRUE(r.res.faults.empty()) << r.res.faults[0].text;
   *gs_instructions = r.res.draws.at(0).counters.gs_instructions;
   return r.res.cycles;
}

/* 400 more GS instructions per group cost groups x 400 / SPCs cycles: the
 * SPCs issue one instruction per cycle each and the GS groups spread over
 * them (the LTS places by load). The difference of two draws cancels the
 * pipeline's fill and drain; both are long enough to be bound by the GS even
 * on 4 SPCs (about 8,600 cycles of this draw are bound by the VS attribute
 * fetch, the GS work overlapping them). */
TEST(GsTiming, AluBoundGsFollowsTheSpcCount)
{
   const Config def;
   const uint64_t groups = kTimingPoints / def.thread_group_width;
   uint64_t c[3];
   const unsigned spcs[3] = {1, 2, 4};
   for (int k = 0; k < 3; k++) {
      uint64_t i1 = 0, i2 = 0;
      const uint64_t c1 = gs_draw_cycles(400, spcs[k], &i1);
      const uint64_t c2 = gs_draw_cycles(800, spcs[k], &i2);
      /* the programs issue as written (no branch, one instruction a line) */
      ASSERT_EQ(i1, groups * (400 + 1));
      ASSERT_EQ(i2, groups * (800 + 1));
      c[k] = c2 - c1;
      const uint64_t expect = groups * 400 / spcs[k];
      std::printf("[ gs ] %u SPC(s): %llu - %llu = %llu cycles for %llu more GS instructions "
                  "(groups x 400 / SPCs = %llu)\n",
                  spcs[k], (unsigned long long)c2, (unsigned long long)c1,
                  (unsigned long long)c[k], (unsigned long long)(groups * 400),
                  (unsigned long long)expect);
      EXPECT_GE(c[k], expect - expect / 20) << spcs[k] << " SPCs";
      EXPECT_LE(c[k], expect + expect / 20) << spcs[k] << " SPCs";
   }
}

/* A runaway GS stops its draw with the same fault in both modes; the draws
 * after it still run (same VRAM). */
TEST(GsCycleMode, FaultStopsOnlyItsDraw)
{
   const Config p = params(kConfigs[0]);
   GsScene x;
   build_gs_mixed(x, true);
   const auto [f, c] = run_both(x, p);
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
