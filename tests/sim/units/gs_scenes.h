/*
 * Scenes with geometry shaders for the whole-GPU tests (test_gs.cpp) and the
 * cycle regression corpus (test_cycle_corpus.cpp): GS draws between plain
 * draws (points to quads, a strip with restarts streamed out), and input
 * primitives that span sub-blocks and instances (a fan, strips with
 * adjacency, PRIMITIVE_ID over restarts and instances, many GS groups).
 */
#pragma once

#include <cmath>
#include <cstring>
#include <vector>

#include "scenes.h"

namespace vlgpu::sim::test {

/* GS: each input point becomes a quad (triangle strip of 4 vertices at
 * position + C0..C3), coloured with the point's VARYING 0 */
inline const char *const kPointToQuadGs = R"(
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

inline void
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

/** The draw streams out GS output register @reg (4 components) into a new
 *  buffer of @bytes bytes filled with @fill, its filled_size word zeroed. */
inline void
gs_stream_out(TestDraw &t, unsigned reg, uint64_t &buf, uint64_t &filled, uint32_t bytes,
              uint8_t fill)
{
   std::vector<uint8_t> pattern(bytes, fill);
   buf = t.put(pattern.data(), pattern.size(), 64);
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
   t.draw.stream_output = put_so_block(t, so);
}

struct GsScene {
   Scene s;
   uint64_t so_buf = 0, so_filled = 0;
};

inline void
build_gs_mixed(GsScene &x, bool runaway)
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
   gs_stream_out(t, 9 /* the GS's colour output */, x.so_buf, x.so_filled, 1024, 0xab);
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

/* GS: input triangle with adjacency (6 vertices, stride 2) -> the triangle
 * of its vertices 0, 2, 4 */
inline const char *const kAdjTriangleGs = R"(
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
inline const char *const kAdjLineGs = R"(
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
inline const char *const kPrimIdGs = R"(
   MOV R8, C0
   MOV R8.x, R6.xxxx
   MOV R8.y, R0.xxxx
   MOV R8.z, R4.xxxx
   MOV R9, R0
   MEM.EMIT
   BRC.END
)";


/* Input primitives that span sub-blocks and instances: a fan, a triangle
 * strip with adjacency (2 instances), a line strip with adjacency, an
 * indexed strip with restarts over 3 instances whose PRIMITIVE_IDs are
 * streamed out, and 300 points made quads (many GS groups). */
inline void
build_gs_shapes(GsScene &x)
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
   gs_stream_out(t, 8, x.so_buf, x.so_filled, 16 * 64, 0xcd);
   s.draw();

   /* 300 points -> quads */
   s.next_draw();
   std::vector<float> pts;
   for (int i = 0; i < 300; i++) {
      /* Two draws of r in one call's arguments would come in the compiler's order
       * (unspecified: GCC took y first, clang x), moving the points and the cycles the
       * corpus pins; y first keeps the points cycles.json was recorded with. */
      const float py = r.uniform(-0.9f, 0.9f);
      const float px = r.uniform(-0.9f, 0.9f);
      vert(pts, px, py);
   }
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

} // namespace vlgpu::sim::test
