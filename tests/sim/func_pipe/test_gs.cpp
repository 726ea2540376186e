/*
 * Geometry shaders in the functional pipeline (docs/hw.md "Geometry
 * shaders", GL 3.2 core §2.12): hand-written VL-IW GS programs, results
 * captured with stream output and compared with what GL says.
 *
 * The expected vertex orders are Piglit's tables in
 * tests/spec/glsl-1.50/execution/geometry/primitive-types.c (GL 3.2 core
 * §2.6.1 and Table 2.4, read as 1st, 1/2, 2nd, 2/3, 3rd, 3/1 per §2.12.1),
 * 1-based there, 0-based here; other expectations are derived in the test
 * from the GL rules (strip decomposition, restart, max_vertices).
 */
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "pipe_test_util.h"
#include "sim/func/pipe/functional.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/* VS: gl_VertexID (uint) -> VARYING 0 .x, no position (as in Piglit's
 * primitive-types VS) */
const char *kVertexIdVs = R"(
   MOV R4, R0
   BRC.END
)";
/* FS writing a constant colour */
const char *kConstFs = R"(
   MOV R1, C0
   BRC.END
)";

void
vertex_id_pipeline(TestDraw &t, vlg_prim prim, unsigned vertices_per_prim, uint32_t count)
{
   t.framebuffer(8, 8);
   t.draw.prim = prim;
   t.draw.vertices_per_prim = vertices_per_prim;
   t.draw.count = count;
   t.vs.code = assemble(kVertexIdVs);
   t.vs.input(0, VLG_INPUT_SEMANTIC_VERTEX_ID, 0, 0x1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_VARYING, 0, 0x1);
   t.fs.code = assemble(kConstFs);
   t.fs.consts = {1, 0, 0, 1};
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
}

/** Stream output of @outputs (register, components) packed into buffer 0;
 *  returns the buffer address. */
uint64_t
capture(TestDraw &t, std::initializer_list<std::pair<unsigned, unsigned>> outputs, uint32_t bytes)
{
   std::vector<uint8_t> fill(bytes, 0xab);
   const uint64_t buf = t.put(fill.data(), bytes, 64);
   const uint32_t zero = 0;
   const uint64_t filled = t.put(&zero, 4, 4);
   VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);
   unsigned dw = 0;
   for (const auto &o : outputs) {
      VLG_SO_OUTPUT &x = so.outputs[so.num_outputs++];
      x.reg = o.first;
      x.num_components = o.second;
      x.dst_offset = dw;
      dw += o.second;
   }
   so.buffers[0].enable = true;
   so.buffers[0].stride = 4 * dw;
   so.buffers[0].address = buf;
   so.buffers[0].size = bytes;
   so.buffers[0].filled_size = filled;
   uint32_t w[VLG_STREAM_OUTPUT_LENGTH];
   VLG_STREAM_OUTPUT_pack(w, &so);
   t.draw.stream_output = t.put(w, sizeof(w), 16);
   return buf;
}

std::vector<uint32_t>
words(const TestDraw &t, uint64_t a, size_t n)
{
   std::vector<uint32_t> w(n);
   t.vram.read(a, w.data(), n * 4, "test");
   return w;
}

/* GS copying the n input vertex ids to R8.xyzw, R9.xy and emitting one
 * point (Piglit primitive-types' GS) */
std::string
copy_ids_gs(unsigned n)
{
   std::string s;
   for (unsigned v = 0; v < n; v++)
      s += "MOV R" + std::to_string(8 + v / 4) + "." + "xyzw"[v % 4] + ", R" +
           std::to_string(v) + ".xxxx\n";
   return s + "MEM.EMIT\nBRC.END\n";
}

struct OrderCase {
   const char *name;
   vlg_prim prim;
   unsigned per_prim;
   uint32_t count;
   std::vector<uint32_t> expected; /* 1-based vertex numbers, Piglit's table */
};

/* Piglit primitive-types.c test vectors (the expected_results arrays) */
const std::vector<OrderCase> kOrderCases = {
   {"triangles", VLG_PRIM_TRIANGLES, 3, 2, {}},
   {"triangles", VLG_PRIM_TRIANGLES, 3, 3, {1, 2, 3}},
   {"triangles", VLG_PRIM_TRIANGLES, 3, 5, {1, 2, 3}},
   {"triangles", VLG_PRIM_TRIANGLES, 3, 6, {1, 2, 3, 4, 5, 6}},
   {"triangle_strip", VLG_PRIM_TRIANGLE_STRIP, 3, 2, {}},
   {"triangle_strip", VLG_PRIM_TRIANGLE_STRIP, 3, 3, {1, 2, 3}},
   {"triangle_strip", VLG_PRIM_TRIANGLE_STRIP, 3, 4, {1, 2, 3, 3, 2, 4}},
   {"triangle_strip", VLG_PRIM_TRIANGLE_STRIP, 3, 5, {1, 2, 3, 3, 2, 4, 3, 4, 5}},
   {"triangle_fan", VLG_PRIM_TRIANGLE_FAN, 3, 5, {1, 2, 3, 1, 3, 4, 1, 4, 5}},
   {"lines_adjacency", VLG_PRIM_LINES_ADJACENCY, 4, 3, {}},
   {"lines_adjacency", VLG_PRIM_LINES_ADJACENCY, 4, 7, {1, 2, 3, 4}},
   {"lines_adjacency", VLG_PRIM_LINES_ADJACENCY, 4, 8, {1, 2, 3, 4, 5, 6, 7, 8}},
   {"line_strip_adjacency", VLG_PRIM_LINE_STRIP_ADJACENCY, 4, 3, {}},
   {"line_strip_adjacency", VLG_PRIM_LINE_STRIP_ADJACENCY, 4, 6,
    {1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6}},
   {"triangles_adjacency", VLG_PRIM_TRIANGLES_ADJACENCY, 6, 5, {}},
   {"triangles_adjacency", VLG_PRIM_TRIANGLES_ADJACENCY, 6, 6, {1, 2, 3, 4, 5, 6}},
   {"triangles_adjacency", VLG_PRIM_TRIANGLES_ADJACENCY, 6, 11, {1, 2, 3, 4, 5, 6}},
   {"triangles_adjacency", VLG_PRIM_TRIANGLES_ADJACENCY, 6, 12,
    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 5, {}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 6, {1, 2, 3, 6, 5, 4}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 7, {1, 2, 3, 6, 5, 4}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 8,
    {1, 2, 3, 7, 5, 4, 5, 1, 3, 6, 7, 8}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 9,
    {1, 2, 3, 7, 5, 4, 5, 1, 3, 6, 7, 8}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 10,
    {1, 2, 3, 7, 5, 4, 5, 1, 3, 6, 7, 9, 5, 3, 7, 10, 9, 8}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 11,
    {1, 2, 3, 7, 5, 4, 5, 1, 3, 6, 7, 9, 5, 3, 7, 10, 9, 8}},
   {"triangle_strip_adjacency", VLG_PRIM_TRIANGLE_STRIP_ADJACENCY, 6, 12,
    {1, 2, 3, 7, 5, 4, 5, 1, 3, 6, 7, 9, 5, 3, 7, 11, 9, 8, 9, 5, 7, 10, 11, 12}},
};

class GsInputOrder : public ::testing::TestWithParam<size_t> {};

TEST_P(GsInputOrder, MatchesPiglitTable)
{
   const OrderCase &c = kOrderCases[GetParam()];
   SCOPED_TRACE(std::string(c.name) + " with " + std::to_string(c.count) + " vertices");
   TestDraw t;
   vertex_id_pipeline(t, c.prim, c.per_prim, c.count);
   t.pipe.rasterizer.rasterizer_discard = true;
   t.use_gs = true;
   t.gs.code = assemble(copy_ids_gs(c.per_prim));
   t.gs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.output(9, VLG_OUTPUT_SEMANTIC_VARYING, 1, 0x3);
   t.gs.st.gs_vertices_in = c.per_prim;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.gs_max_vertices = 1;
   const uint64_t buf = capture(t, {{8, 4}, {9, 2}}, 24 * 6 * 4);
   const DrawStats st = render_draw(t.vram, t.write());

   const size_t nprims = c.expected.size() / c.per_prim;
   EXPECT_EQ(st.gs_invocations, nprims);
   EXPECT_EQ(st.gs_output_vertices, nprims);
   EXPECT_EQ(st.ge.so_generated, nprims); /* PRIMITIVES_GENERATED: GS output points */
   EXPECT_EQ(st.ge.so_written, nprims);
   const std::vector<uint32_t> got = words(t, buf, 6 * 4 * 6);
   for (size_t p = 0; p < nprims; p++)
      for (unsigned v = 0; v < c.per_prim; v++)
         EXPECT_EQ(got[p * 6 + v], c.expected[p * c.per_prim + v] - 1)
            << "primitive " << p << " vertex " << v;
   /* nothing past the last point */
   EXPECT_EQ(got[nprims * 6], 0xababababu);
}

INSTANTIATE_TEST_SUITE_P(Piglit, GsInputOrder, ::testing::Range<size_t>(0, kOrderCases.size()));

/* GL's strip rule (last vertex provoking): triangle k of a run is (k, k+1,
 * k+2) for even k, (k+1, k, k+2) for odd k; restart (~0u) ends a run */
std::vector<std::array<uint32_t, 3>>
gl_strip(const std::vector<uint32_t> &idx)
{
   std::vector<std::array<uint32_t, 3>> out;
   std::vector<uint32_t> run;
   auto flush = [&] {
      for (size_t k = 0; k + 2 < run.size(); k++)
         out.push_back(k % 2 ? std::array<uint32_t, 3>{run[k + 1], run[k], run[k + 2]}
                             : std::array<uint32_t, 3>{run[k], run[k + 1], run[k + 2]});
      run.clear();
   };
   for (uint32_t i : idx)
      i == ~0u ? flush() : run.push_back(i);
   flush();
   return out;
}

TEST(Gs, PrimitiveIdCountsAcrossRestartsAndResetsPerInstance)
{
   TestDraw t;
   const std::vector<uint16_t> idx = {0, 1, 2, 3, 0xffff, 4, 5, 6, 7, 8, 0xffff, 9, 10};
   vertex_id_pipeline(t, VLG_PRIM_TRIANGLE_STRIP, 3, 0);
   t.indices(idx);
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   t.draw.instance_count = 2;
   t.pipe.rasterizer.rasterizer_discard = true;
   t.use_gs = true;
   t.gs.code = assemble(R"(
      MOV R8.x, R3.xxxx
      MOV R8.y, R0.xxxx
      MOV R8.z, R1.xxxx
      MOV R8.w, R2.xxxx
      MEM.EMIT
      BRC.END
   )");
   t.gs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0x1);
   t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = 3;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.gs_max_vertices = 1;
   const uint64_t buf = capture(t, {{8, 4}}, 16 * 64);
   const DrawStats st = render_draw(t.vram, t.write());

   std::vector<uint32_t> ids;
   for (uint16_t i : idx)
      ids.push_back(i == 0xffff ? ~0u : i);
   const auto tris = gl_strip(ids); /* 2 + 3 + 0 = 5 triangles */
   ASSERT_EQ(tris.size(), 5u);
   EXPECT_EQ(st.gs_invocations, 2 * tris.size());
   const std::vector<uint32_t> got = words(t, buf, 16 * 2 * tris.size());
   for (unsigned inst = 0; inst < 2; inst++)
      for (size_t p = 0; p < tris.size(); p++) {
         const uint32_t *w = &got[(inst * tris.size() + p) * 4];
         EXPECT_EQ(w[0], p) << "instance " << inst << " primitive " << p;
         for (unsigned v = 0; v < 3; v++)
            EXPECT_EQ(w[1 + v], tris[p][v]) << "instance " << inst << " primitive " << p;
      }
}

TEST(Gs, InvocationsRunPerPrimitiveInInvocationOrder)
{
   /* layout(invocations = 5) (GL ES 3.2 section 11.3.4.2): every input
    * primitive runs 5 times with INVOCATION_ID 0..4, and the output of the
    * invocations of one primitive follows invocation order, primitive after
    * primitive. A strip of 6 vertices: 4 triangles = 20 lanes, so the
    * invocations of one primitive straddle thread groups of 8 lanes. Each
    * lane emits one point (INVOCATION_ID, PRIMITIVE_ID, vertex 0, vertex 2). */
   TestDraw t;
   vertex_id_pipeline(t, VLG_PRIM_TRIANGLE_STRIP, 3, 6);
   t.pipe.rasterizer.rasterizer_discard = true;
   t.use_gs = true;
   t.gs.code = assemble(R"(
      MOV R8.x, R4.xxxx
      MOV R8.y, R3.xxxx
      MOV R8.z, R0.xxxx
      MOV R8.w, R2.xxxx
      MEM.EMIT
      BRC.END
   )");
   t.gs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0x1);
   t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.input(4, VLG_INPUT_SEMANTIC_INVOCATION_ID, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = 3;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.gs_max_vertices = 1;
   t.gs.st.gs_invocations = 5;
   const uint64_t buf = capture(t, {{8, 4}}, 16 * 64);
   FuncOptions o;
   o.thread_group_width = 8;
   const DrawStats st = render_draw(t.vram, t.write(), o);

   std::vector<uint32_t> ids;
   for (uint32_t i = 0; i < 6; i++)
      ids.push_back(i);
   const auto tris = gl_strip(ids);
   ASSERT_EQ(tris.size(), 4u);
   EXPECT_EQ(st.gs_invocations, 5u * 4u);
   EXPECT_EQ(st.gs_groups, 3u); /* ceil(20 / 8) */
   EXPECT_EQ(st.ge.so_written, 20u);
   const std::vector<uint32_t> got = words(t, buf, 16 * 20);
   for (size_t p = 0; p < 4; p++)
      for (uint32_t inv = 0; inv < 5; inv++) {
         const uint32_t *w = &got[(p * 5 + inv) * 4];
         EXPECT_EQ(w[0], inv) << "primitive " << p << " invocation " << inv;
         EXPECT_EQ(w[1], p) << "primitive " << p << " invocation " << inv;
         EXPECT_EQ(w[2], tris[p][0]) << "primitive " << p << " invocation " << inv;
         EXPECT_EQ(w[3], tris[p][2]) << "primitive " << p << " invocation " << inv;
      }
}

/* GS of one input point: R8.x counts the emitted vertex (0, 1, ...), R8.y =
 * the input vertex id; strips [0 1 2] CUT [3 4 5 6] CUT [7] */
const char *kStripsGs = R"(
   MOV R8, C1
   MOV R8.y, R0.xxxx
   MEM.EMIT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   MEM.CUT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   MEM.CUT
   ADD R8.x, R8.xxxx, C0.xxxx
   MEM.EMIT
   BRC.END
)";

DrawStats
run_strips(TestDraw &t, unsigned max_vertices, uint64_t &buf)
{
   vertex_id_pipeline(t, VLG_PRIM_POINTS, 1, 2);
   t.pipe.rasterizer.rasterizer_discard = true;
   t.use_gs = true;
   t.gs.code = assemble(kStripsGs);
   t.gs.consts = {1, 0, 0, 0, 0, 0, 0, 1};
   t.gs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = 1;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
   t.gs.st.gs_max_vertices = max_vertices;
   buf = capture(t, {{8, 2}}, 8 * 64);
   return render_draw(t.vram, t.write());
}

/* (emitted vertex number, input vertex) pairs of the triangles GL makes from
 * the strips of kStripsGs kept under @max_vertices, per input point */
std::vector<std::pair<float, uint32_t>>
expected_strips(unsigned max_vertices)
{
   const std::vector<std::vector<uint32_t>> strips = {{0, 1, 2}, {3, 4, 5, 6}, {7}};
   std::vector<std::pair<float, uint32_t>> out;
   for (uint32_t input = 0; input < 2; input++)
      for (const auto &s : strips) {
         std::vector<uint32_t> kept;
         for (uint32_t v : s)
            if (v < max_vertices)
               kept.push_back(v);
         for (const auto &tri : gl_strip(kept))
            for (uint32_t v : tri)
               out.push_back({float(v), input});
      }
   return out;
}

TEST(Gs, CutEndsStripsAndIncompleteStripsAreDropped)
{
   TestDraw t;
   uint64_t buf;
   const DrawStats st = run_strips(t, 8, buf);
   const auto exp = expected_strips(8); /* (0 1 2) (3 4 5) (5 4 6) per input */
   ASSERT_EQ(exp.size(), 2u * 9u);
   EXPECT_EQ(st.gs_output_vertices, 16u);
   EXPECT_EQ(st.gs_output_primitives, 6u);
   EXPECT_EQ(st.ge.so_generated, 6u);
   EXPECT_EQ(st.gs_emits_dropped, 0u);
   const std::vector<uint32_t> got = words(t, buf, exp.size() * 2 + 1);
   for (size_t k = 0; k < exp.size(); k++) {
      EXPECT_EQ(got[2 * k], as_uint(exp[k].first)) << "vertex " << k;
      EXPECT_EQ(got[2 * k + 1], exp[k].second) << "vertex " << k;
   }
   EXPECT_EQ(got[exp.size() * 2], 0xababababu);
}

TEST(Gs, EmitsPastMaxVerticesAreDropped)
{
   TestDraw t;
   uint64_t buf;
   const DrawStats st = run_strips(t, 5, buf);
   const auto exp = expected_strips(5); /* (0 1 2) per input; [3 4] is incomplete */
   ASSERT_EQ(exp.size(), 2u * 3u);
   EXPECT_EQ(st.gs_output_vertices, 10u);
   EXPECT_EQ(st.gs_emits_dropped, 6u);
   EXPECT_EQ(st.ge.so_generated, 2u);
   const std::vector<uint32_t> got = words(t, buf, exp.size() * 2 + 1);
   for (size_t k = 0; k < exp.size(); k++) {
      EXPECT_EQ(got[2 * k], as_uint(exp[k].first)) << "vertex " << k;
      EXPECT_EQ(got[2 * k + 1], exp[k].second) << "vertex " << k;
   }
   EXPECT_EQ(got[exp.size() * 2], 0xababababu);
}

/* A pass-through GS (kPassTriangleGs) must give the pixels of the same
 * draw without a GS. */
void
colour_draw(TestDraw &t, vlg_prim prim, const std::vector<float> &v, bool with_gs)
{
   t.framebuffer(48, 40);
   t.draw.prim = prim;
   const unsigned vb = t.vertex_buffer(v, 32);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 16);
   t.draw.count = uint32_t(v.size() / 8);
   t.vs.code = assemble("MOV R4, R0\nMOV R5, R1\nBRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.fs.code = assemble("MOV R1, R0\nBRC.END\n");
   t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   if (!with_gs)
      return;
   t.use_gs = true;
   t.gs.code = assemble(kPassTriangleGs);
   t.gs.input(0, VLG_INPUT_SEMANTIC_POSITION);
   t.gs.input(1, VLG_INPUT_SEMANTIC_VARYING, 0);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_POSITION);
   t.gs.output(9, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = 3;
   t.gs.st.gs_input_stride = 2;
   t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
   t.gs.st.gs_max_vertices = 3;
}

std::vector<float>
some_triangles(unsigned n)
{
   std::vector<float> v;
   uint32_t s = 12345;
   auto rnd = [&] {
      s = s * 1664525u + 1013904223u;
      return float(s >> 8) / float(1u << 24) * 2.0f - 1.0f;
   };
   for (unsigned i = 0; i < n * 3; i++)
      v.insert(v.end(), {rnd(), rnd(), 0.5f * rnd(), 1.0f, 0.5f + 0.5f * rnd(),
                         0.5f + 0.5f * rnd(), 0.5f + 0.5f * rnd(), 1.0f});
   return v;
}

TEST(Gs, PassThroughGsRastersLikeNoGs)
{
   for (vlg_prim prim : {VLG_PRIM_TRIANGLES, VLG_PRIM_TRIANGLE_STRIP}) {
      for (bool first : {false, true}) {
         SCOPED_TRACE(std::string(vlg_prim_name(prim)) + (first ? " flatshade_first" : ""));
         const std::vector<float> v = some_triangles(12);
         TestDraw a, b;
         colour_draw(a, prim, v, false);
         colour_draw(b, prim, v, true);
         a.pipe.rasterizer.flatshade_first = b.pipe.rasterizer.flatshade_first = first;
         const DrawStats sa = render_draw(a.vram, a.write());
         const DrawStats sb = render_draw(b.vram, b.write());
         EXPECT_GT(sa.fragments_passed, 500u);
         EXPECT_EQ(sa.fragments_passed, sb.fragments_passed);
         EXPECT_EQ(sa.ge.primitives, sb.ge.primitives);
         EXPECT_EQ(sb.gs_invocations, sa.ge.primitives);
         unsigned diff = 0;
         for (unsigned y = 0; y < 40; y++)
            for (unsigned x = 0; x < 48; x++)
               diff += std::memcmp(a.rgba8(x, y), b.rgba8(x, y), 4) != 0;
         EXPECT_EQ(diff, 0u);
      }
   }
}

/* gl_PrimitiveID in the fragment shader (GL ES 3.2 section 14.2.2): without
 * a GS the instance's primitive number as the GE assembled it (0, 1, ...,
 * again from 0 in the next instance), with a GS its output PRIMITIVE_ID at
 * the provoking vertex. Two triangles in the left and right parts of an
 * R32_UINT target; the FS writes the input raw. */
TEST(Gs, FragmentPrimitiveId)
{
   const std::vector<float> v = {-1, -1,   0, 1, -0.1f, -1, 0, 1, -1, 1, 0, 1,
                                 0.1f, -1, 0, 1, 1,     -1, 0, 1, 1,  1, 0, 1};
   auto pixel = [](const TestDraw &t, unsigned x, unsigned y) {
      uint32_t u;
      std::memcpy(&u, t.rgba8(x, y), 4);
      return u;
   };
   for (bool with_gs : {false, true}) {
      SCOPED_TRACE(with_gs ? "with a GS" : "no GS");
      TestDraw t;
      t.framebuffer(48, 40, VLG_FORMAT_R32_UINT);
      t.draw.prim = VLG_PRIM_TRIANGLES;
      t.draw.count = 6;
      t.draw.instance_count = 2; /* the second instance numbers from 0 again */
      const unsigned vb = t.vertex_buffer(v, 16);
      t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
      t.vs.code = assemble("MOV R4, R0\nBRC.END\n");
      t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
      t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
      t.fs.code = assemble("MOV R1.x, R0.xxxx\nBRC.END\n");
      t.fs.input(0, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1, VLG_INTERP_CONSTANT);
      t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      if (with_gs) {
         /* PRIMITIVE_ID out = gl_PrimitiveIDIn + 100 */
         t.use_gs = true;
         t.gs.code = assemble(R"(
            IADD R10.x, R3.xxxx, C0.xxxx
            MOV R8, R0
            MEM.EMIT
            MOV R8, R1
            MEM.EMIT
            MOV R8, R2
            MEM.EMIT
            BRC.END
         )");
         t.gs.consts = {0, 0, 0, 0};
         const uint32_t hundred = 100;
         std::memcpy(&t.gs.consts[0], &hundred, 4);
         t.gs.input(0, VLG_INPUT_SEMANTIC_POSITION);
         t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
         t.gs.output(8, VLG_OUTPUT_SEMANTIC_POSITION);
         t.gs.output(10, VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
         t.gs.st.gs_vertices_in = 3;
         t.gs.st.gs_input_stride = 1;
         t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
         t.gs.st.gs_max_vertices = 3;
      }
      const DrawStats st = render_draw(t.vram, t.write());
      EXPECT_EQ(st.ge.primitives, 4u);
      const uint32_t base = with_gs ? 100 : 0;
      /* (5, 20): x_ndc -0.77 inside the first triangle (its edge is at
       * -0.56 there); (44, 20): 0.85, inside the second (edge at 0.56) */
      EXPECT_EQ(pixel(t, 5, 20), base + 0);
      EXPECT_EQ(pixel(t, 44, 20), base + 1);
   }
}

/* A layered framebuffer (docs/hw.md "Layered rendering"): 3 layers of an
 * R32_UINT colour buffer and of a Z32F depth buffer; a CLEAR clears every
 * layer; a GS sends input triangle p to layer LAYER = 3p - 2 (p = 0 gives
 * 0xfffffffe: clamped to the last layer, as softpipe), and the FS writes
 * gl_Layer (the value as written) + 1000 * gl_PrimitiveID. */
TEST(Gs, LayeredRenderingSelectsTheLayerPerPrimitive)
{
   TestDraw t;
   t.framebuffer(16, 16, VLG_FORMAT_R32_UINT, VLG_FORMAT_Z32_FLOAT);
   const unsigned layers = 3;
   for (VLG_SURFACE *sf : {&t.fb.cbufs[0], &t.fb.zsbuf}) {
      sf->layer_stride = sf->pitch * 16 + 64;
      sf->layers = layers;
      sf->address = t.alloc(uint64_t(sf->layer_stride) * layers);
   }
   auto at = [&](const VLG_SURFACE &sf, unsigned layer, unsigned x, unsigned y) {
      uint32_t u;
      std::memcpy(&u, t.vram.data() + sf.address + uint64_t(layer) * sf.layer_stride +
                          uint64_t(y) * sf.pitch + x * 4,
                  4);
      return u;
   };
   /* CLEAR: colour 7, depth 1.0, in every layer */
   const VLG_DRAW_INFO keep = t.draw;
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 1u | (1u << 2);
   t.draw.clear_color[0] = 7;
   t.draw.clear_depth = 1.0f;
   t.draw.clear_rect.maxx = t.draw.clear_rect.maxy = 16;
   render_draw(t.vram, t.write());
   for (unsigned l = 0; l < layers; l++) {
      EXPECT_EQ(at(t.fb.cbufs[0], l, 3, 5), 7u) << "layer " << l;
      EXPECT_EQ(at(t.fb.zsbuf, l, 3, 5), 0x3f800000u) << "layer " << l;
   }

   /* 3 full-screen triangles at depth 0.5 through the GS */
   t.draw = keep;
   const std::vector<float> v = {-1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1};
   std::vector<float> vv;
   for (int k = 0; k < 3; k++)
      vv.insert(vv.end(), v.begin(), v.end());
   t.draw.prim = VLG_PRIM_TRIANGLES;
   t.draw.count = 9;
   const unsigned vb = t.vertex_buffer(vv, 16);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.vs.code = assemble("MOV R4, R0\nBRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.pipe.depth_stencil_alpha.depth_enable = true;
   t.pipe.depth_stencil_alpha.depth_writemask = true;
   t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   t.use_gs = true;
   t.gs.code = assemble(R"(
      IMUL R10.x, R3.xxxx, C0.xxxx
      IADD R10.x, R10.xxxx, C0.yyyy
      MOV R11.x, R3.xxxx
      MOV R8, R0
      MEM.EMIT
      MOV R8, R1
      MEM.EMIT
      MOV R8, R2
      MEM.EMIT
      BRC.END
   )");
   const int32_t k[4] = {3, -2, 0, 0};
   t.gs.consts.resize(4);
   std::memcpy(t.gs.consts.data(), k, 16);
   t.gs.input(0, VLG_INPUT_SEMANTIC_POSITION);
   t.gs.input(3, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_POSITION);
   t.gs.output(10, VLG_OUTPUT_SEMANTIC_LAYER, 0, 0x1);
   t.gs.output(11, VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.st.gs_vertices_in = 3;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
   t.gs.st.gs_max_vertices = 3;
   t.fs.code = assemble(R"(
      IMUL R2.x, R1.xxxx, C0.xxxx
      IADD R2.x, R2.xxxx, R0.xxxx
      BRC.END
   )");
   const uint32_t thousand[4] = {1000, 0, 0, 0};
   t.fs.consts.resize(4);
   std::memcpy(t.fs.consts.data(), thousand, 16);
   t.fs.input(0, VLG_INPUT_SEMANTIC_LAYER, 0, 0x1, VLG_INTERP_CONSTANT);
   t.fs.input(1, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1, VLG_INTERP_CONSTANT);
   t.fs.output(2, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   const DrawStats st = render_draw(t.vram, t.write());
   EXPECT_EQ(st.gs_output_primitives, 3u);
   /* primitive 0 -> layer 0xfffffffe clamped to 2, 1 -> layer 1, 2 -> 4 clamped to 2: layer 2
    * holds primitive 0 (the first to pass the LESS test at 0.5), layer 0 none */
   for (unsigned y = 0; y < 16; y += 5)
      for (unsigned x = 0; x < 16; x += 5) {
         EXPECT_EQ(at(t.fb.cbufs[0], 0, x, y), 7u);
         EXPECT_EQ(at(t.fb.cbufs[0], 1, x, y), 1000u * 1 + 1);
         EXPECT_EQ(at(t.fb.cbufs[0], 2, x, y), 1000u * 0 + 0xfffffffeu);
         EXPECT_EQ(at(t.fb.zsbuf, 0, x, y), 0x3f800000u);
         EXPECT_EQ(at(t.fb.zsbuf, 1, x, y), 0x3f000000u);
         EXPECT_EQ(at(t.fb.zsbuf, 2, x, y), 0x3f000000u);
      }
}

/* Lines and points through pass-through GSs (LINE_STRIP / POINTS output)
 * rasterise like the same draws without a GS. */
TEST(Gs, PassThroughLinesAndPointsRasterLikeNoGs)
{
   struct Case {
      vlg_prim prim;
      unsigned n;
      vlg_prim out;
      const char *gs;
   };
   const Case cases[] = {
      {VLG_PRIM_LINES, 2, VLG_PRIM_LINE_STRIP,
       "MOV R8, R0\nMOV R9, R1\nMEM.EMIT\nMOV R8, R2\nMOV R9, R3\nMEM.EMIT\nBRC.END\n"},
      {VLG_PRIM_LINE_STRIP, 2, VLG_PRIM_LINE_STRIP,
       "MOV R8, R0\nMOV R9, R1\nMEM.EMIT\nMOV R8, R2\nMOV R9, R3\nMEM.EMIT\nBRC.END\n"},
      {VLG_PRIM_POINTS, 1, VLG_PRIM_POINTS, "MOV R8, R0\nMOV R9, R1\nMEM.EMIT\nBRC.END\n"},
   };
   for (const Case &c : cases) {
      SCOPED_TRACE(vlg_prim_name(c.prim));
      const std::vector<float> v = some_triangles(8);
      TestDraw a, b;
      for (TestDraw *t : {&a, &b}) {
         colour_draw(*t, c.prim, v, t == &b);
         t->draw.vertices_per_prim = c.n;
         t->pipe.rasterizer.point_size = 3.0f;
      }
      b.gs.st.gs_vertices_in = c.n;
      b.gs.st.gs_output_prim = c.out;
      b.gs.st.gs_max_vertices = c.n;
      b.gs.code = assemble(c.gs);
      const DrawStats sa = render_draw(a.vram, a.write());
      const DrawStats sb = render_draw(b.vram, b.write());
      EXPECT_GT(sa.fragments_passed, 50u);
      EXPECT_EQ(sa.fragments_passed, sb.fragments_passed);
      EXPECT_EQ(sa.ge.primitives, sb.ge.primitives);
      EXPECT_EQ(sb.gs_output_primitives, sa.ge.primitives);
      unsigned diff = 0;
      for (unsigned y = 0; y < 40; y++)
         for (unsigned x = 0; x < 48; x++)
            diff += std::memcmp(a.rgba8(x, y), b.rgba8(x, y), 4) != 0;
      EXPECT_EQ(diff, 0u);
   }
}

TEST(Gs, StreamOutputCapturesGsOutputs)
{
   /* the pass-through GS over a strip, capturing the GS's R9 (colour):
    * GL order of the strip's triangles (last vertex provoking) */
   const std::vector<float> v = some_triangles(2); /* 6 vertices: strip of 4 triangles */
   TestDraw t;
   colour_draw(t, VLG_PRIM_TRIANGLE_STRIP, v, true);
   const uint64_t buf = capture(t, {{9, 4}}, 16 * 3 * 8);
   const DrawStats st = render_draw(t.vram, t.write());
   const auto tris = gl_strip({0, 1, 2, 3, 4, 5});
   ASSERT_EQ(tris.size(), 4u);
   EXPECT_EQ(st.ge.so_written, 4u);
   const std::vector<uint32_t> got = words(t, buf, 4 * 3 * 4);
   for (size_t p = 0; p < tris.size(); p++)
      for (unsigned k = 0; k < 3; k++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(got[(p * 3 + k) * 4 + c], as_uint(v[tris[p][k] * 8 + 4 + c]))
               << "triangle " << p << " vertex " << k;
}

void
expect_fault(const std::function<void()> &f, const char *module,
             std::initializer_list<const char *> needles)
{
   try {
      f();
      ADD_FAILURE() << "no GpuFault";
   } catch (const GpuFault &e) {
      EXPECT_EQ(e.module(), module) << e.what();
      for (const char *n : needles)
         EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
            << "'" << n << "' not in: " << e.what();
   }
}

void
faulty_base(TestDraw &t)
{
   vertex_id_pipeline(t, VLG_PRIM_TRIANGLES, 3, 6);
   t.use_gs = true;
   t.gs.code = assemble(copy_ids_gs(3));
   t.gs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0x1);
   t.gs.output(8, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.gs.st.gs_vertices_in = 3;
   t.gs.st.gs_input_stride = 1;
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.gs_max_vertices = 1;
}

TEST(GsFaults, EmitOutsideAGeometryShader)
{
   TestDraw t;
   faulty_base(t);
   t.vs.code = assemble("MOV R4, R0\nMEM.EMIT\nBRC.END\n");
   expect_fault([&] { render_draw(t.vram, t.write()); }, "SPC",
                {"EMIT/CUT outside a geometry shader", "VERTEX"});
}

TEST(GsFaults, AdjacencyWithoutAGeometryShader)
{
   TestDraw t;
   faulty_base(t);
   t.use_gs = false;
   t.draw.prim = VLG_PRIM_TRIANGLES_ADJACENCY;
   t.draw.vertices_per_prim = 6;
   expect_fault([&] { render_draw(t.vram, t.write()); }, "GE",
                {"adjacency primitive without a geometry shader", "TRIANGLES_ADJACENCY"});
}

TEST(GsFaults, VerticesInDiffersFromTheDraw)
{
   TestDraw t;
   faulty_base(t);
   t.draw.prim = VLG_PRIM_TRIANGLES_ADJACENCY;
   t.draw.vertices_per_prim = 6;
   expect_fault([&] { render_draw(t.vram, t.write()); }, "GE",
                {"gs_vertices_in = 3", "vertices_per_prim = 6"});
}

TEST(GsFaults, MalformedGsState)
{
   {
      TestDraw t;
      faulty_base(t);
      t.gs.st.gs_max_vertices = 0;
      expect_fault([&] { render_draw(t.vram, t.write()); }, "CP",
                   {"gs shader_state", "gs_max_vertices = 0"});
   }
   {
      TestDraw t;
      faulty_base(t);
      t.gs.st.gs_output_prim = VLG_PRIM_TRIANGLES;
      expect_fault([&] { render_draw(t.vram, t.write()); }, "CP", {"gs_output_prim"});
   }
   {
      TestDraw t;
      faulty_base(t);
      t.gs.st.gs_input_stride = 8; /* R0 + 2 * 8 = R16, num_regs 16 */
      expect_fault([&] { render_draw(t.vram, t.write()); }, "CP",
                   {"inputs[0]", "R16", "num_regs = 16"});
   }
   {
      TestDraw t;
      faulty_base(t);
      t.gs.input(4, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
      expect_fault([&] { render_draw(t.vram, t.write()); }, "CP",
                   {"not a geometry shader input"});
   }
}

TEST(GsFaults, RunawayGeometryShader)
{
   TestDraw t;
   faulty_base(t);
   t.gs.code = assemble("loop:\nMEM.EMIT\nBRC.JMP loop\n");
   FuncOptions o;
   o.watchdog_instructions = 1000;
   expect_fault([&] { render_draw(t.vram, t.write(), o); }, "SPC",
                {"shader did not end", "GEOMETRY"});
}

} // namespace
