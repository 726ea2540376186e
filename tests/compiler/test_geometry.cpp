/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Geometry shaders (GLSL 1.50, GL 3.2 core §2.12) through the front end and
 * vlg_compile_nir: the shader_state.gs_* facts, the per-vertex input block
 * (docs/hw.md input semantics POSITION/POINT_SIZE/VARYING: entry reg = B + j,
 * vertex v at B + v * stride + j), EmitVertex/EndPrimitive as MEM.EMIT/CUT,
 * the output registers live at every EMIT, and what is refused (vertex
 * streams, instancing). The shaders follow piglit's
 * tests/spec/glsl-1.50/execution/geometry (primitive-types.c's template,
 * primitive-id-restart.c).
 */
#include <algorithm>
#include <set>

#include <cstring>

#include "sim/func/shader/executor.h"
#include "util/bitscan.h"
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

struct Stages {
   CompiledPtr vs, gs, fs;
   std::string error;
   std::map<std::string, int> vs_out; /**< VS output variable -> gl_varying_slot */
};

/* A nir hook: change the GS NIR (as st/mesa would hand it) before compiling. */
using NirHook = void (*)(nir_shader *);

Stages
compile_stages(const std::string &vs, const std::string &gs, const std::string &fs,
               NirHook gs_hook = nullptr, const std::vector<std::string> &xfb = {},
               bool desktop = true)
{
   Stages r;
   std::vector<GlslSource> srcs;
   if (!vs.empty())
      srcs.push_back({"test.vert", MESA_SHADER_VERTEX, vs, desktop});
   srcs.push_back({"test.geom", MESA_SHADER_GEOMETRY, gs, desktop});
   if (!fs.empty())
      srcs.push_back({"test.frag", MESA_SHADER_FRAGMENT, fs, desktop});
   std::vector<nir_shader *> nirs;
   if (!glsl_to_vlgpu_nir(srcs, nirs, r.error, xfb))
      return r;
   for (unsigned i = 0; i < nirs.size(); i++) {
      gl_shader_stage st = nirs[i]->info.stage;
      if (st == MESA_SHADER_VERTEX)
         nir_foreach_shader_out_variable(var, nirs[i]) if (var->name) r.vs_out[var->name] =
            var->data.location;
      if (st == MESA_SHADER_GEOMETRY && gs_hook)
         gs_hook(nirs[i]);
      vlg_compile_options o = {};
      o.name = srcs[i].name.c_str();
      char *err = nullptr;
      vlg_compiled_shader *cs = vlg_compile_nir(nirs[i], &o, &err);
      if (!cs)
         r.error += std::string(err ? err : "compile failed") + "\n";
      free(err);
      (st == MESA_SHADER_VERTEX ? r.vs : st == MESA_SHADER_GEOMETRY ? r.gs : r.fs).reset(cs);
      ralloc_free(nirs[i]);
   }
   return r;
}

unsigned
count_lines_with(const std::string &text, const std::string &what)
{
   unsigned n = 0;
   for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
      n++;
   return n;
}

/* piglit primitive-types.c: the VS and the GS template */
const char *kPrimTypesVs = "#version 150\n"
                           "out int vertex_id;\n"
                           "void main()\n"
                           "{\n"
                           "  vertex_id = gl_VertexID;\n"
                           "}\n";

std::string
prim_types_gs(const char *layout, unsigned n)
{
   return std::string("#version 150\n#define INPUT_LAYOUT ") + layout +
          "\n#define VERTICES_PER_PRIM " + std::to_string(n) +
          "\n"
          "layout(INPUT_LAYOUT) in;\n"
          "layout(points, max_vertices = VERTICES_PER_PRIM) out;\n"
          "in int vertex_id[VERTICES_PER_PRIM];\n"
          "out int vertex_out[VERTICES_PER_PRIM];\n"
          "void main()\n"
          "{\n"
          "  for (int i = 0; i < VERTICES_PER_PRIM; i++) {\n"
          "    vertex_out[i] = vertex_id[i] + 1;\n"
          "  }\n"
          "  EmitVertex();\n"
          "}\n";
}

const char *kPassVs = "#version 150\n"
                      "in vec4 piglit_vertex;\n"
                      "out vec4 color;\n"
                      "void main() { gl_Position = piglit_vertex; color = piglit_vertex.yxzw; }\n";
const char *kPassGs = "#version 150\n"
                      "layout(triangles) in;\n"
                      "layout(triangle_strip, max_vertices = 3) out;\n"
                      "in vec4 color[];\n"
                      "out vec4 gcolor;\n"
                      "void main() {\n"
                      "  for (int i = 0; i < 3; i++) {\n"
                      "    gl_Position = gl_in[i].gl_Position;\n"
                      "    gcolor = color[i];\n"
                      "    EmitVertex();\n"
                      "  }\n"
                      "  EndPrimitive();\n"
                      "}\n";
const char *kPassFs = "#version 150\n"
                      "in vec4 gcolor;\n"
                      "out vec4 fc;\n"
                      "void main() { fc = gcolor; }\n";

} // namespace

TEST(Geometry, PrimitiveTypesTemplateCompilesForEveryInputLayout)
{
   const struct {
      const char *layout;
      unsigned n;
   } cases[] = {{"points", 1},
                {"lines", 2},
                {"triangles", 3},
                {"lines_adjacency", 4},
                {"triangles_adjacency", 6}};
   for (const auto &c : cases) {
      SCOPED_TRACE(c.layout);
      /* piglit captures vertex_out[0..n-1] with transform feedback */
      std::vector<std::string> xfb;
      for (unsigned i = 0; i < c.n; i++)
         xfb.push_back("vertex_out[" + std::to_string(i) + "]");
      Stages s = compile_stages(kPrimTypesVs, prim_types_gs(c.layout, c.n), "", nullptr, xfb);
      ASSERT_TRUE(s.vs && s.gs) << s.error;
      const vlg_compiled_shader *gs = s.gs.get();
      EXPECT_EQ(gs->stage, MESA_SHADER_GEOMETRY);
      EXPECT_EQ(gs->state.gs_vertices_in, c.n);
      EXPECT_EQ(gs->state.gs_output_prim, VLG_PRIM_POINTS);
      EXPECT_EQ(gs->state.gs_max_vertices, c.n);
      /* one per-vertex input (vertex_id), so the copies are one register apart */
      ASSERT_EQ(gs->state.num_inputs, 1u);
      EXPECT_EQ(gs->state.gs_input_stride, 1u);
      EXPECT_EQ(gs->state.inputs[0].semantic, VLG_INPUT_SEMANTIC_VARYING);
      EXPECT_EQ(gs->state.inputs[0].mask, 0x1u);
      /* the GS reads the VS output of the same VARYING index */
      EXPECT_EQ((int)gs->state.inputs[0].index, vlg_varying_index(gs->input_locations[0]));
      bool vs_writes_it = false;
      for (unsigned i = 0; i < s.vs->state.num_outputs; i++)
         vs_writes_it |= s.vs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_VARYING &&
                         s.vs->state.outputs[i].index == gs->state.inputs[0].index;
      EXPECT_TRUE(vs_writes_it);
      /* the whole block R[reg] .. R[reg + (n-1)*stride] is inside the register file */
      EXPECT_LE(gs->state.inputs[0].reg + (c.n - 1) * gs->state.gs_input_stride + 1,
                gs->state.num_regs);
      /* n scalar outputs vertex_out[i] (the linker may pack the captured
       * ints into the components of fewer VARYING slots) */
      unsigned comps = 0;
      std::set<unsigned> idx;
      for (unsigned i = 0; i < gs->state.num_outputs; i++) {
         EXPECT_EQ(gs->state.outputs[i].semantic, VLG_OUTPUT_SEMANTIC_VARYING);
         comps += util_bitcount(gs->state.outputs[i].mask);
         idx.insert(gs->state.outputs[i].index);
      }
      EXPECT_EQ(comps, c.n);
      EXPECT_EQ(idx.size(), gs->state.num_outputs);
      /* one EmitVertex, no EndPrimitive */
      std::string code = disasm_code(gs);
      EXPECT_EQ(count_lines_with(code, "MEM.EMIT"), 1u) << code;
      EXPECT_EQ(count_lines_with(code, "MEM.CUT"), 0u) << code;
      /* each output is vertex_id[i] + 1: one integer add per input vertex */
      EXPECT_EQ(count_lines_with(code, "IADD"), c.n) << code;
   }
}

TEST(Geometry, PassthroughTriangleStrip)
{
   Stages s = compile_stages(kPassVs, kPassGs, kPassFs);
   ASSERT_TRUE(s.vs && s.gs && s.fs) << s.error;
   const vlg_compiled_shader *gs = s.gs.get();
   EXPECT_EQ(gs->state.gs_vertices_in, 3u);
   EXPECT_EQ(gs->state.gs_output_prim, VLG_PRIM_TRIANGLE_STRIP);
   EXPECT_EQ(gs->state.gs_max_vertices, 3u);
   /* gl_in[].gl_Position and color[]: two slots per vertex */
   ASSERT_EQ(gs->state.num_inputs, 2u);
   EXPECT_EQ(gs->state.gs_input_stride, 2u);
   const VLG_SHADER_INPUT *pos = nullptr, *col = nullptr;
   for (unsigned i = 0; i < gs->state.num_inputs; i++) {
      if (gs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_POSITION)
         pos = &gs->state.inputs[i];
      if (gs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_VARYING)
         col = &gs->state.inputs[i];
   }
   ASSERT_TRUE(pos && col);
   EXPECT_EQ(pos->mask, 0xfu);
   EXPECT_EQ(col->mask, 0xfu);
   /* slots j = 0, 1 of one block: B and B + 1 */
   EXPECT_EQ(std::max(pos->reg, col->reg) - std::min(pos->reg, col->reg), 1u);
   EXPECT_LE(std::min(pos->reg, col->reg) + 3 * 2, gs->state.num_regs);
   /* outputs: POSITION and the VARYING the FS reads */
   const VLG_SHADER_OUTPUT *opos = nullptr, *ocol = nullptr;
   for (unsigned i = 0; i < gs->state.num_outputs; i++) {
      if (gs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_POSITION)
         opos = &gs->state.outputs[i];
      if (gs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_VARYING)
         ocol = &gs->state.outputs[i];
   }
   ASSERT_TRUE(opos && ocol);
   ASSERT_EQ(s.fs->state.num_inputs, 1u);
   EXPECT_EQ(s.fs->state.inputs[0].index, ocol->index);
   EXPECT_NE(opos->reg, ocol->reg);
   std::string code = disasm_code(gs);
   EXPECT_EQ(count_lines_with(code, "MEM.EMIT"), 3u) << code;
   EXPECT_EQ(count_lines_with(code, "MEM.CUT"), 1u) << code;
   /* EMIT and CUT issue alone (they read the output map outside their fields) */
   for (size_t p = 0; (p = code.find("MEM.", p)) != std::string::npos; p++) {
      size_t b = code.rfind('\n', p), e = code.find('\n', p);
      std::string line = code.substr(b == std::string::npos ? 0 : b + 1, e - b - 1);
      EXPECT_EQ(line.find('|'), std::string::npos) << line;
   }
   /* the listing names the GS facts */
   vlg_compile_options o = {};
   o.disasm = true;
   std::vector<GlslSource> srcs = {{"a.vert", MESA_SHADER_VERTEX, kPassVs, true},
                                   {"a.geom", MESA_SHADER_GEOMETRY, kPassGs, true},
                                   {"a.frag", MESA_SHADER_FRAGMENT, kPassFs, true}};
   std::vector<nir_shader *> nirs;
   std::string log;
   ASSERT_TRUE(glsl_to_vlgpu_nir(srcs, nirs, log)) << log;
   char *err = nullptr;
   CompiledPtr listed(vlg_compile_nir(nirs[1], &o, &err));
   for (nir_shader *n : nirs)
      ralloc_free(n);
   ASSERT_TRUE(listed) << (err ? err : "");
   free(err);
   std::string text = listed->disasm;
   EXPECT_NE(text.find("(GS)"), std::string::npos) << text;
   EXPECT_NE(text.find("vertices_in 3, output_prim TRIANGLE_STRIP, max_vertices 3, input_stride 2"),
             std::string::npos)
      << text;
   EXPECT_NE(text.find("<- POSITION 0"), std::string::npos) << text;
}

TEST(Geometry, PrimitiveIdInAndIntegerOutput)
{
   /* piglit primitive-id-restart.c: gl_PrimitiveIDIn captured per vertex */
   const char *gs = "#version 150\n"
                    "layout(points) in;\n"
                    "layout(points, max_vertices = 1) out;\n"
                    "out int primitive_id;\n"
                    "void main() {\n"
                    "  primitive_id = gl_PrimitiveIDIn;\n"
                    "  EmitVertex();\n"
                    "}\n";
   Stages s = compile_stages("#version 150\nvoid main() { gl_Position = vec4(0.0); }\n", gs, "",
                             nullptr, {"primitive_id"});
   ASSERT_TRUE(s.gs) << s.error;
   ASSERT_EQ(s.gs->state.num_inputs, 1u);
   EXPECT_EQ(s.gs->state.inputs[0].semantic, VLG_INPUT_SEMANTIC_PRIMITIVE_ID);
   EXPECT_EQ(s.gs->state.inputs[0].mask, 0x1u);
   EXPECT_EQ(s.gs->input_locations[0], (int)SYSTEM_VALUE_PRIMITIVE_ID);
   EXPECT_EQ(s.gs->state.gs_input_stride, 0u); /* no per-vertex inputs */
   ASSERT_EQ(s.gs->state.num_outputs, 1u);
   EXPECT_EQ(s.gs->state.outputs[0].semantic, VLG_OUTPUT_SEMANTIC_VARYING);
   /* the value is copied unchanged: either a MOV from the input register or
    * the output register is the input register */
   std::string code = disasm_code(s.gs.get());
   EXPECT_TRUE(s.gs->state.outputs[0].reg == s.gs->state.inputs[0].reg ||
               code.find("MOV R" + std::to_string(s.gs->state.outputs[0].reg) + ".x, R" +
                         std::to_string(s.gs->state.inputs[0].reg)) != std::string::npos)
      << code;
}

TEST(Geometry, ClipDistancesInEveryStage)
{
   /* gl_ClipDistance (GLSL 1.30/1.50, two vec4s after st/mesa's
    * LowerCombinedClipCullDistance): VS and GS outputs CLIP_DISTANCE 0 and 1,
    * the GS per-vertex input CLIP_DISTANCE (gl_in[i].gl_ClipDistance), the
    * FS input CLIP_DISTANCE (docs/hw.md "Clip distances"); was "vertex shader
    * output CLIP_DIST0" unsupported */
   const char *vs = "#version 150\n"
                    "in vec4 p;\n"
                    "out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[6]; };\n"
                    "void main() {\n"
                    "  gl_Position = p;\n"
                    "  for (int i = 0; i < 6; i++) gl_ClipDistance[i] = p.x - float(i);\n"
                    "}\n";
   const char *gs = "#version 150\n"
                    "layout(triangles) in;\n"
                    "layout(triangle_strip, max_vertices = 3) out;\n"
                    "in gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[6]; } gl_in[];\n"
                    "out float gl_ClipDistance[6];\n"
                    "void main() {\n"
                    "  for (int v = 0; v < 3; v++) {\n"
                    "    gl_Position = gl_in[v].gl_Position;\n"
                    "    for (int i = 0; i < 6; i++)\n"
                    "      gl_ClipDistance[i] = gl_in[v].gl_ClipDistance[5 - i];\n"
                    "    EmitVertex();\n"
                    "  }\n"
                    "}\n";
   const char *fs = "#version 150\n"
                    "in float gl_ClipDistance[6];\n"
                    "out vec4 c;\n"
                    "void main() { c = vec4(gl_ClipDistance[1], gl_ClipDistance[4], 0.0, 1.0); }\n";
   Stages s = compile_stages(vs, gs, fs);
   ASSERT_TRUE(s.vs && s.gs && s.fs) << s.error;
   auto outputs = [](const vlg_compiled_shader *cs) {
      std::map<unsigned, unsigned> m; /* CLIP_DISTANCE index -> mask */
      for (unsigned i = 0; i < cs->state.num_outputs; i++)
         if (cs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE)
            m[cs->state.outputs[i].index] |= cs->state.outputs[i].mask;
      return m;
   };
   /* distances 0..3 in index 0, 4..5 in index 1 (the lowered vec4[2] is
    * stored whole: components of the undeclared distances 6 and 7 may be
    * in the mask too, GL leaves them undefined) */
   for (const vlg_compiled_shader *cs : {s.vs.get(), s.gs.get()}) {
      const auto o = outputs(cs);
      ASSERT_EQ(o.size(), 2u);
      EXPECT_EQ(o.at(0), 0xfu);
      EXPECT_EQ(o.at(1) & 0x3, 0x3u);
   }
   std::set<unsigned> gs_in, fs_in;
   for (unsigned i = 0; i < s.gs->state.num_inputs; i++)
      if (s.gs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_CLIP_DISTANCE)
         gs_in.insert(s.gs->state.inputs[i].index);
   for (unsigned i = 0; i < s.fs->state.num_inputs; i++)
      if (s.fs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_CLIP_DISTANCE) {
         fs_in.insert(s.fs->state.inputs[i].index);
         EXPECT_EQ(s.fs->state.inputs[i].interp, VLG_INTERP_PERSPECTIVE);
      }
   EXPECT_EQ(gs_in, (std::set<unsigned>{0, 1}));
   /* the FS reads distances 1 (index 0) and 4 (index 1) */
   EXPECT_EQ(fs_in, (std::set<unsigned>{0, 1}));
}

TEST(Geometry, PrimitiveIdOutputAndFragmentInput)
{
   /* gl_PrimitiveID written by the GS is the output PRIMITIVE_ID, read by
    * the FS as the input PRIMITIVE_ID (not interpolated); was
    * "geometry shader output VARYING_SLOT_PRIMITIVE_ID is not supported" */
   const char *gs = "#version 150\n"
                    "layout(triangles) in;\n"
                    "layout(triangle_strip, max_vertices = 3) out;\n"
                    "void main() {\n"
                    "  for (int i = 0; i < 3; i++) {\n"
                    "    gl_Position = gl_in[i].gl_Position;\n"
                    "    gl_PrimitiveID = gl_PrimitiveIDIn + 7;\n"
                    "    EmitVertex();\n"
                    "  }\n"
                    "}\n";
   const char *fs = "#version 150\n"
                    "out vec4 c;\n"
                    "void main() { c = vec4(float(gl_PrimitiveID)); }\n";
   Stages s = compile_stages(kPassVs, gs, fs);
   ASSERT_TRUE(s.gs && s.fs) << s.error;
   unsigned outs = 0, ins = 0;
   for (unsigned i = 0; i < s.gs->state.num_outputs; i++)
      outs += s.gs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID;
   for (unsigned i = 0; i < s.fs->state.num_inputs; i++)
      if (s.fs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_PRIMITIVE_ID) {
         ins++;
         EXPECT_EQ(s.fs->state.inputs[i].interp, VLG_INTERP_CONSTANT);
      }
   EXPECT_EQ(outs, 1u);
   EXPECT_EQ(ins, 1u);
}

TEST(Geometry, LayerOutputAndFragmentInput)
{
   /* gl_Layer written by the GS is the output LAYER (docs/hw.md "Layered
    * rendering"), read by an ES 3.1 + EXT_geometry_shader FS as the input
    * LAYER (not interpolated); was "geometry shader output LAYER" unsupported */
   const char *vs = "#version 310 es\n"
                    "in vec4 p;\n"
                    "void main() { gl_Position = p; }\n";
   const char *gs = "#version 310 es\n"
                    "#extension GL_EXT_geometry_shader : require\n"
                    "layout(triangles) in;\n"
                    "layout(triangle_strip, max_vertices = 3) out;\n"
                    "void main() {\n"
                    "  for (int i = 0; i < 3; i++) {\n"
                    "    gl_Position = gl_in[i].gl_Position;\n"
                    "    gl_Layer = gl_PrimitiveIDIn % 4;\n"
                    "    EmitVertex();\n"
                    "  }\n"
                    "}\n";
   const char *fs = "#version 310 es\n"
                    "#extension GL_EXT_geometry_shader : require\n"
                    "precision mediump float;\n"
                    "out vec4 c;\n"
                    "void main() { c = vec4(float(gl_Layer)); }\n";
   Stages s = compile_stages(vs, gs, fs, nullptr, {}, false);
   ASSERT_TRUE(s.gs && s.fs) << s.error;
   unsigned outs = 0, ins = 0;
   for (unsigned i = 0; i < s.gs->state.num_outputs; i++)
      outs += s.gs->state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_LAYER;
   for (unsigned i = 0; i < s.fs->state.num_inputs; i++)
      if (s.fs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_LAYER) {
         ins++;
         EXPECT_EQ(s.fs->state.inputs[i].interp, VLG_INTERP_CONSTANT);
      }
   EXPECT_EQ(outs, 1u);
   EXPECT_EQ(ins, 1u);
}

TEST(Geometry, IndirectVertexIndexAndLineStrip)
{
   /* gl_in[i] with a uniform i: unrolled (no indirect register access) */
   const char *gs = "#version 150\n"
                    "layout(lines) in;\n"
                    "layout(line_strip, max_vertices = 4) out;\n"
                    "uniform int which;\n"
                    "void main() {\n"
                    "  gl_Position = gl_in[which].gl_Position;\n"
                    "  gl_PointSize = gl_in[1].gl_PointSize;\n"
                    "  EmitVertex();\n"
                    "  gl_Position = gl_in[1 - which].gl_Position;\n"
                    "  EmitVertex();\n"
                    "  EndPrimitive();\n"
                    "}\n";
   const char *vs = "#version 150\nin vec4 p;\n"
                    "void main() { gl_Position = p; gl_PointSize = 2.0; }\n";
   Stages s = compile_stages(vs, gs, "");
   ASSERT_TRUE(s.gs) << s.error;
   EXPECT_EQ(s.gs->state.gs_vertices_in, 2u);
   EXPECT_EQ(s.gs->state.gs_output_prim, VLG_PRIM_LINE_STRIP);
   EXPECT_EQ(s.gs->state.gs_max_vertices, 4u);
   EXPECT_EQ(s.gs->state.gs_input_stride, 2u); /* POSITION and POINT_SIZE */
   bool psize = false;
   for (unsigned i = 0; i < s.gs->state.num_inputs; i++)
      if (s.gs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_POINT_SIZE) {
         psize = true;
         EXPECT_EQ(s.gs->state.inputs[i].mask, 0x1u);
      }
   EXPECT_TRUE(psize);
   std::string code = disasm_code(s.gs.get());
   EXPECT_EQ(count_lines_with(code, "MEM.EMIT"), 2u) << code;
   EXPECT_EQ(count_lines_with(code, "MEM.CUT"), 1u) << code;
}

TEST(Geometry, EmitInALoopAndUnderACondition)
{
   /* a non-unrolled loop with a data-dependent EmitVertex */
   const char *gs = "#version 150\n"
                    "layout(triangles) in;\n"
                    "layout(triangle_strip, max_vertices = 64) out;\n"
                    "uniform int count;\n"
                    "out vec4 c;\n"
                    "void main() {\n"
                    "  for (int i = 0; i < count; i++) {\n"
                    "    gl_Position = gl_in[i % 3].gl_Position + vec4(float(i));\n"
                    "    c = vec4(float(i));\n"
                    "    if (i % 2 == 0) EmitVertex();\n"
                    "    if (i % 7 == 6) EndPrimitive();\n"
                    "  }\n"
                    "}\n";
   Stages s = compile_stages(kPassVs, gs, "");
   ASSERT_TRUE(s.gs) << s.error;
   std::string code = disasm_code(s.gs.get());
   EXPECT_EQ(count_lines_with(code, "MEM.EMIT"), 1u) << code;
   EXPECT_EQ(count_lines_with(code, "MEM.CUT"), 1u) << code;
   EXPECT_EQ(s.gs->state.gs_max_vertices, 64u);
}

TEST(Geometry, StreamsAndTooManyInvocationsAreRefused)
{
   auto streams = [](nir_shader *n) { n->info.gs.active_stream_mask = 0x3; };
   Stages a = compile_stages(kPassVs, kPassGs, "", streams);
   EXPECT_FALSE(a.gs);
   EXPECT_NE(a.error.find("vertex streams"), std::string::npos) << a.error;
   EXPECT_NE(a.error.find("GS 'test.geom'"), std::string::npos) << a.error;

   /* instancing up to shader_state.gs_invocations' 32 (it was refused
    * before GS instancing existed) */
   auto instanced = [](nir_shader *n) { n->info.gs.invocations = 33; };
   Stages b = compile_stages(kPassVs, kPassGs, "", instanced);
   EXPECT_FALSE(b.gs);
   EXPECT_NE(b.error.find("invocations 33 above 32"), std::string::npos) << b.error;
   /* the other stages still compile */
   EXPECT_TRUE(b.vs);
}

TEST(Geometry, InvocationsAndInvocationId)
{
   /* layout(invocations = 3) with gl_InvocationID (GLSL ES 3.20 /
    * EXT_geometry_shader): shader_state.gs_invocations and the system input
    * INVOCATION_ID; without the layout one invocation */
   const char *vs = "#version 310 es\n"
                    "in vec4 p;\n"
                    "void main() { gl_Position = p; }\n";
   const char *gs = "#version 310 es\n"
                    "#extension GL_EXT_geometry_shader : require\n"
                    "layout(triangles, invocations = 3) in;\n"
                    "layout(points, max_vertices = 1) out;\n"
                    "flat out highp int inv;\n"
                    "void main() {\n"
                    "  gl_Position = gl_in[0].gl_Position + vec4(float(gl_InvocationID));\n"
                    "  inv = gl_InvocationID;\n"
                    "  EmitVertex();\n"
                    "}\n";
   const char *fs = "#version 310 es\n"
                    "precision mediump float;\n"
                    "flat in highp int inv;\n"
                    "out vec4 c;\n"
                    "void main() { c = vec4(float(inv)); }\n";
   Stages s = compile_stages(vs, gs, fs, nullptr, {}, false);
   ASSERT_TRUE(s.gs) << s.error;
   EXPECT_EQ(s.gs->state.gs_invocations, 3u);
   unsigned found = 0;
   for (unsigned i = 0; i < s.gs->state.num_inputs; i++)
      if (s.gs->state.inputs[i].semantic == VLG_INPUT_SEMANTIC_INVOCATION_ID) {
         EXPECT_EQ(s.gs->state.inputs[i].mask, 0x1u);
         found++;
      }
   EXPECT_EQ(found, 1u);
   Stages one = compile_stages(kPassVs, kPassGs, "");
   ASSERT_TRUE(one.gs) << one.error;
   EXPECT_EQ(one.gs->state.gs_invocations, 1u);
}

/*
 * The output map registers must hold their values at each MEM.EMIT: in IR
 * with many values live between an output's write and the EMIT (register
 * allocation would gladly reuse the output's register if EMIT did not read
 * it), the last writer of every output register component before each
 * EMIT, in issue order after scheduling and allocation, is the output's own
 * write.
 */
TEST(Geometry, OutputRegistersHoldTheirValuesAtEveryEmit)
{
   for (int variant = 0; variant < 2; variant++) {
      SCOPED_TRACE(variant ? "coalescing + dual + sched" : "no optimisations");
      const unsigned K = 12; /* temporaries live at once */
      Shader S = make_shader(1, 1, MESA_SHADER_GEOMETRY);
      uint32_t in = 0;
      S.vregs[in].width = 3; /* a per-vertex block, 3 vertices x 1 slot */
      InputDesc id = {in, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_VARYING, 0, 0};
      S.inputs.push_back(id);
      uint32_t o_pos = S.new_vreg(), o_var = S.new_vreg();
      S.outputs.push_back({o_pos, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
      S.outputs.push_back({o_var, 0xf, VLG_OUTPUT_SEMANTIC_VARYING, 0, 0});
      Builder b(S);
      std::vector<std::pair<unsigned, unsigned>> emits; /* (instr of pos write, of var write) */
      for (unsigned v = 0; v < 3; v++) {
         unsigned pos_write = S.blocks[0].instrs.size();
         b.alu(VLG_OP_MUL, reg(o_pos), 0xf, reg(in, VLG_SWZ_IDENTITY, v), imm_f(2.0f));
         std::vector<uint32_t> t;
         for (unsigned k = 0; k < K; k++) {
            t.push_back(S.new_vreg());
            b.alu(VLG_OP_ADD, reg(t.back()), 0xf, reg(in, VLG_SWZ_IDENTITY, v),
                  imm_f(1.0f + k + 16.0f * v));
         }
         uint32_t acc = t[0];
         for (unsigned k = 1; k < K; k++) {
            uint32_t n = S.new_vreg();
            b.alu(VLG_OP_MUL, reg(n), 0xf, reg(acc), reg(t[k]));
            acc = n;
         }
         unsigned var_write = S.blocks[0].instrs.size();
         b.mov(reg(o_var), 0xf, reg(acc));
         Instr e;
         e.op = VLG_OP_MEM;
         e.kind = VLG_MEMKIND_EMIT;
         e.wmask = 0;
         b.emit(e);
         emits.push_back({pos_write, var_write});
      }
      b.end();
      compute_cfg(S);
      pack_global_buffer(S, true);
      legalize(S);
      if (variant)
         coalesce_copies(S);
      schedule(S, variant == 1, variant == 1);
      register_allocate(S, variant == 1, variant == 1);

      const Block &B = S.blocks[0];
      /* last writer (instr index) of each physical register component */
      std::map<unsigned, int> last;
      unsigned emit_no = 0;
      for (const Bundle &bu : B.bundles) {
         const Instr *ops[2] = {bu.ph[0] >= 0 ? &B.instrs[bu.ph[0]] : nullptr,
                                bu.ph[1] >= 0 ? &B.instrs[bu.ph[1]] : nullptr};
         for (unsigned p = 0; p < 2; p++) {
            if (!ops[p] || ops[p]->dead || !ops[p]->is_emit())
               continue;
            EXPECT_FALSE(ops[1 - p] && !ops[1 - p]->dead) << "EMIT paired";
            ASSERT_LT(emit_no, emits.size());
            for (unsigned c = 0; c < 4; c++) {
               EXPECT_EQ(last[S.outputs[0].vreg * 4 + c], (int)emits[emit_no].first)
                  << "POSITION component " << c << " at EMIT " << emit_no;
               /* the VARYING's write may have been coalesced into the product */
               int w = last[S.outputs[1].vreg * 4 + c];
               EXPECT_TRUE(w == (int)emits[emit_no].second ||
                           (B.instrs[emits[emit_no].second].dead &&
                            w == (int)emits[emit_no].second - 1))
                  << "VARYING component " << c << " at EMIT " << emit_no << ": writer " << w;
            }
            emit_no++;
         }
         for (unsigned p = 0; p < 2; p++)
            if (ops[p] && !ops[p]->dead && ops[p]->dst.is_reg())
               for (unsigned c = 0; c < 4; c++)
                  if (ops[p]->wmask & (1u << c))
                     last[ops[p]->dst.index * 4 + c] = bu.ph[p];
      }
      EXPECT_EQ(emit_no, 3u);
      /* the whole input block is inside num_regs */
      EXPECT_LE(S.inputs[0].vreg + 3, S.num_regs);
   }
}

/* ---------------------------------------------------------------------- */
/* Execution on the simulator's functional SPC executor                    */
/* ---------------------------------------------------------------------- */

namespace {

namespace sim = vlgpu::sim;

/* What MEM.EMIT/CUT produce per lane: each vertex = the output-map registers
 * (in output-map order, 4 words each) at the EMIT; strip ends at each CUT. */
class RecordingSink final : public sim::GsEmitSink {
 public:
   struct Lane {
      std::vector<std::vector<float>> vertices;
      std::vector<unsigned> cuts; /* vertex count at each CUT */
   };
   explicit RecordingSink(const vlg_compiled_shader *cs) : cs_(cs), lanes(64) {}
   void emit(const sim::ThreadGroup &tg, uint64_t mask) override
   {
      for (unsigned l = 0; l < 64; l++)
         if (mask >> l & 1) {
            std::vector<float> v;
            for (unsigned o = 0; o < cs_->state.num_outputs; o++)
               for (unsigned c = 0; c < 4; c++)
                  v.push_back(tg.get_f(l, cs_->state.outputs[o].reg, c));
            lanes[l].vertices.push_back(v);
         }
   }
   void cut(uint64_t mask) override
   {
      for (unsigned l = 0; l < 64; l++)
         if (mask >> l & 1)
            lanes[l].cuts.push_back(lanes[l].vertices.size());
   }
   const vlg_compiled_shader *cs_;
   std::vector<Lane> lanes;
};

/* Input vertex v of lane l: position and one varying, made up per lane. */
float
in_pos(unsigned l, unsigned v, unsigned c)
{
   return 1.0f + l * 10.0f + v + c * 0.25f;
}
float
in_var(unsigned l, unsigned v, unsigned c)
{
   return -(float)(l * 100 + v * 10 + c);
}

/* Run @gs for @n lanes (input primitives), preloading the per-vertex
 * inputs as the GE does (docs/hw.md: R[reg + v * gs_input_stride]) and
 * PRIMITIVE_ID = 7 + lane; uniforms from @unif (cb0 dwords). */
bool
run_gs(const vlg_compiled_shader *gs, unsigned n, RecordingSink &sink, std::string &fault,
       const std::vector<uint32_t> &unif = {})
{
   sim::ThreadGroup tg(16, gs->state.num_regs, VLG_SHADER_STAGE_GEOMETRY);
   tg.set_live_mask((1ull << n) - 1);
   for (unsigned l = 0; l < n; l++)
      for (unsigned i = 0; i < gs->state.num_inputs; i++) {
         const VLG_SHADER_INPUT &in = gs->state.inputs[i];
         if (in.semantic == VLG_INPUT_SEMANTIC_PRIMITIVE_ID) {
            tg.set(l, in.reg, 0, 7 + l);
            continue;
         }
         for (unsigned v = 0; v < gs->state.gs_vertices_in; v++)
            for (unsigned c = 0; c < 4; c++)
               if (in.mask >> c & 1)
                  tg.set_f(l, in.reg + v * gs->state.gs_input_stride, c,
                           in.semantic == VLG_INPUT_SEMANTIC_POSITION ? in_pos(l, v, c)
                                                                      : in_var(l, v, c));
      }
   std::vector<uint32_t> image(4 * std::max(1u, gs->num_consts), 0);
   for (unsigned e = 0; e < gs->num_consts; e++)
      for (unsigned c = 0; c < 4; c++)
         image[4 * e + c] = gs->consts[e][c];
   for (unsigned i = 0; i < gs->num_uniform_copies; i++) {
      const vlg_uniform_copy &u = gs->uniform_copies[i];
      for (unsigned k = 0; k < u.count; k++)
         image[u.dst + k] = u.src + k < unif.size() ? unif[u.src + k] : 0;
   }
   sim::Program prog(gs->code, gs->state.code_size, gs->state.entry);
   sim::ShaderResources res;
   res.stage = VLG_SHADER_STAGE_GEOMETRY;
   res.consts = gs->num_consts ? reinterpret_cast<uint32_t(*)[4]>(image.data()) : nullptr;
   res.num_consts = gs->num_consts;
   res.max_instructions = 1u << 20;
   res.gs = &sink;
   try {
      sim::run(tg, prog, res);
   } catch (const std::exception &e) {
      fault = e.what();
      return false;
   }
   return true;
}

int
output_of(const vlg_compiled_shader *cs, unsigned semantic)
{
   for (unsigned o = 0; o < cs->state.num_outputs; o++)
      if (cs->state.outputs[o].semantic == semantic)
         return o;
   return -1;
}

} // namespace

TEST(GeometryExec, EmittedVerticesCarryTheOutputsOfEachEmit)
{
   const char *gs = "#version 150\n"
                    "layout(triangles) in;\n"
                    "layout(triangle_strip, max_vertices = 6) out;\n"
                    "in vec4 color[];\n"
                    "out vec4 gcolor;\n"
                    "void main() {\n"
                    "  for (int i = 0; i < 3; i++) {\n"
                    "    gl_Position = gl_in[i].gl_Position * 2.0 + vec4(float(gl_PrimitiveIDIn));\n"
                    "    gcolor = color[2 - i] + vec4(1.0);\n"
                    "    EmitVertex();\n"
                    "  }\n"
                    "  EndPrimitive();\n"
                    "  gl_Position = gl_in[0].gl_Position + gl_in[1].gl_Position;\n"
                    "  gcolor = vec4(float(gl_PrimitiveIDIn));\n"
                    "  EmitVertex();\n"
                    "}\n";
   for (int noopt = 0; noopt < 2; noopt++) {
      SCOPED_TRACE(noopt ? "no optimisations" : "default");
      Stages s = compile_stages(kPassVs, gs, kPassFs);
      ASSERT_TRUE(s.gs) << s.error;
      if (noopt) {
         /* recompile the GS with every switch off */
         std::vector<GlslSource> srcs = {{"a.vert", MESA_SHADER_VERTEX, kPassVs, true},
                                         {"a.geom", MESA_SHADER_GEOMETRY, gs, true},
                                         {"a.frag", MESA_SHADER_FRAGMENT, kPassFs, true}};
         std::vector<nir_shader *> nirs;
         std::string log;
         ASSERT_TRUE(glsl_to_vlgpu_nir(srcs, nirs, log)) << log;
         vlg_compile_options o = {};
         o.no_nir_opt = o.no_lowbank = o.no_pack = o.no_dual = o.no_sched = o.no_coalesce =
            o.no_vectorize = o.no_reassoc = true;
         char *err = nullptr;
         s.gs.reset(vlg_compile_nir(nirs[1], &o, &err));
         for (nir_shader *n : nirs)
            ralloc_free(n);
         ASSERT_TRUE(s.gs) << (err ? err : "");
         free(err);
      }
      const vlg_compiled_shader *cs = s.gs.get();
      RecordingSink sink(cs);
      std::string fault;
      const unsigned n = 5;
      ASSERT_TRUE(run_gs(cs, n, sink, fault)) << fault;
      int op = output_of(cs, VLG_OUTPUT_SEMANTIC_POSITION),
          oc = output_of(cs, VLG_OUTPUT_SEMANTIC_VARYING);
      ASSERT_GE(op, 0);
      ASSERT_GE(oc, 0);
      for (unsigned l = 0; l < n; l++) {
         SCOPED_TRACE("lane " + std::to_string(l));
         const RecordingSink::Lane &L = sink.lanes[l];
         ASSERT_EQ(L.vertices.size(), 4u);
         EXPECT_EQ(L.cuts, std::vector<unsigned>{3});
         const float prim = 7 + l;
         for (unsigned i = 0; i < 4; i++)
            for (unsigned c = 0; c < 4; c++) {
               float pos = i < 3 ? in_pos(l, i, c) * 2.0f + prim : in_pos(l, 0, c) + in_pos(l, 1, c);
               float col = i < 3 ? in_var(l, 2 - i, c) + 1.0f : prim;
               EXPECT_EQ(L.vertices[i][op * 4 + c], pos) << "vertex " << i << " comp " << c;
               EXPECT_EQ(L.vertices[i][oc * 4 + c], col) << "vertex " << i << " comp " << c;
            }
      }
      for (unsigned l = n; l < 16; l++)
         EXPECT_TRUE(sink.lanes[l].vertices.empty());
   }
}

TEST(GeometryExec, LaneDependentEmitCountsAndCuts)
{
   /* each lane emits gl_PrimitiveIDIn % 5 vertices, cutting after the 2nd */
   const char *gs = "#version 150\n"
                    "layout(points) in;\n"
                    "layout(line_strip, max_vertices = 8) out;\n"
                    "uniform float scale;\n"
                    "void main() {\n"
                    "  int k = gl_PrimitiveIDIn % 5;\n"
                    "  for (int i = 0; i < k; i++) {\n"
                    "    gl_Position = vec4(float(i) * scale, float(gl_PrimitiveIDIn),\n"
                    "                       gl_in[0].gl_Position.x, 1.0);\n"
                    "    EmitVertex();\n"
                    "    if (i == 1) EndPrimitive();\n"
                    "  }\n"
                    "}\n";
   Stages s = compile_stages("#version 150\nin vec4 p;\nvoid main() { gl_Position = p; }\n", gs,
                             "");
   ASSERT_TRUE(s.gs) << s.error;
   const vlg_compiled_shader *cs = s.gs.get();
   EXPECT_EQ(cs->state.gs_output_prim, VLG_PRIM_LINE_STRIP);
   RecordingSink sink(cs);
   std::string fault;
   const float scale = 0.5f;
   std::vector<uint32_t> unif(64, 0);
   /* the only uniform: st/mesa's slot of `scale` is 0 in this program */
   std::memcpy(&unif[0], &scale, 4);
   const unsigned n = 12;
   ASSERT_TRUE(run_gs(cs, n, sink, fault, unif)) << fault;
   int op = output_of(cs, VLG_OUTPUT_SEMANTIC_POSITION);
   ASSERT_GE(op, 0);
   for (unsigned l = 0; l < n; l++) {
      SCOPED_TRACE("lane " + std::to_string(l));
      const unsigned prim = 7 + l, k = prim % 5;
      const RecordingSink::Lane &L = sink.lanes[l];
      ASSERT_EQ(L.vertices.size(), k);
      EXPECT_EQ(L.cuts, k >= 2 ? std::vector<unsigned>{2} : std::vector<unsigned>{});
      for (unsigned i = 0; i < k; i++) {
         EXPECT_EQ(L.vertices[i][op * 4 + 0], i * scale);
         EXPECT_EQ(L.vertices[i][op * 4 + 1], (float)prim);
         EXPECT_EQ(L.vertices[i][op * 4 + 2], in_pos(l, 0, 0));
         EXPECT_EQ(L.vertices[i][op * 4 + 3], 1.0f);
      }
   }
}

TEST(Geometry, TexturesUseExplicitLodAndMaxVerticesZeroEmitsNothing)
{
   /* no derivatives in a GS: texture() samples level 0 (TXL), and the
    * shader does not ask for helper lanes */
   const char *gs = "#version 150\n"
                    "layout(points) in;\n"
                    "layout(points, max_vertices = 1) out;\n"
                    "uniform sampler2D t;\n"
                    "out vec4 c;\n"
                    "void main() {\n"
                    "  gl_Position = gl_in[0].gl_Position;\n"
                    "  c = texture(t, gl_in[0].gl_Position.xy);\n"
                    "  EmitVertex();\n"
                    "}\n";
   const char *fs = "#version 150\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n";
   Stages s = compile_stages(kPassVs, gs, fs);
   ASSERT_TRUE(s.gs) << s.error;
   std::string code = disasm_code(s.gs.get());
   EXPECT_EQ(count_lines_with(code, "TXL"), 1u) << code;
   EXPECT_FALSE(s.gs->state.uses_derivatives);
   EXPECT_EQ(s.gs->samplers_used, 0x1u);

   /* layout(max_vertices = 0) is legal GLSL: nothing is emitted; the
    * hardware field is 1..256, so 1 with no EMIT in the code */
   const char *gs0 = "#version 150\n"
                     "layout(triangles) in;\n"
                     "layout(triangle_strip, max_vertices = 0) out;\n"
                     "void main() {\n"
                     "  gl_Position = gl_in[0].gl_Position;\n"
                     "  EmitVertex();\n"
                     "  EndPrimitive();\n"
                     "}\n";
   Stages z = compile_stages(kPassVs, gs0, "");
   ASSERT_TRUE(z.gs) << z.error;
   EXPECT_EQ(z.gs->state.gs_max_vertices, 1u);
   std::string zc = disasm_code(z.gs.get());
   EXPECT_EQ(count_lines_with(zc, "MEM."), 0u) << zc;
}
