/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Whole-compiler tests from GLSL ES through Mesa's front end: golden
 * disassembly of small shaders (expected code derived by hand from
 * docs/isa.md), the shader_state facts, and the real-program corpora
 * (es2gears, glmark2) compiling without error.
 */
#include <dirent.h>

#include <fstream>

#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

std::string
read_text(const std::string &path)
{
   std::ifstream f(path);
   std::stringstream ss;
   ss << f.rdbuf();
   return ss.str();
}

} // namespace

TEST(Glsl, PassThroughFragmentShaderIsOneInstruction)
{
   /* the input register is the output register: only BRC.END remains */
   CompiledProgram p = compile_glsl("", "precision mediump float; varying vec4 c;\n"
                                        "void main() { gl_FragColor = c; }\n");
   ASSERT_TRUE(p.fs) << p.error;
   EXPECT_EQ(disasm_code(p.fs.get()), "BRC.END\n");
   ASSERT_EQ(p.fs->state.num_inputs, 1u);
   ASSERT_EQ(p.fs->state.num_outputs, 1u);
   EXPECT_EQ(p.fs->state.inputs[0].semantic, VLG_INPUT_SEMANTIC_VARYING);
   EXPECT_EQ(p.fs->state.inputs[0].index, 0u);
   EXPECT_EQ(p.fs->state.inputs[0].mask, 0xfu);
   EXPECT_EQ(p.fs->state.inputs[0].interp, VLG_INTERP_PERSPECTIVE);
   EXPECT_EQ(p.fs->state.outputs[0].semantic, VLG_OUTPUT_SEMANTIC_COLOR);
   EXPECT_EQ(p.fs->state.outputs[0].reg, p.fs->state.inputs[0].reg);
   EXPECT_TRUE(p.fs->color_broadcast);
   EXPECT_EQ(p.fs->state.num_regs, 1u);
   EXPECT_EQ(p.fs->stats.instructions, 1u);
   EXPECT_EQ(p.fs->stats.units, 1u);
}

TEST(Glsl, ConstantColour)
{
   CompiledProgram p = compile_glsl(
      "", "precision mediump float;\nvoid main() { gl_FragColor = vec4(1.0, 0.5, 0.25, 1.0); }\n");
   ASSERT_TRUE(p.fs) << p.error;
   /* one-source MOV from C0 fits one unit; END waits for it (RAW) */
   EXPECT_EQ(disasm_code(p.fs.get()), "MOV R0, C0\nBRC.END\n");
   ASSERT_EQ(p.fs->num_consts, 1u);
   EXPECT_EQ(bitsf(p.fs->consts[0][0]), 1.0f);
   EXPECT_EQ(bitsf(p.fs->consts[0][1]), 0.5f);
   EXPECT_EQ(bitsf(p.fs->consts[0][2]), 0.25f);
   EXPECT_EQ(bitsf(p.fs->consts[0][3]), 1.0f);
   EXPECT_EQ(p.fs->num_uniform_copies, 0u);
   EXPECT_EQ(p.fs->state.num_inputs, 0u);
}

TEST(Glsl, UniformTimesVarying)
{
   CompiledProgram p = compile_glsl("", "precision mediump float; uniform vec4 u; varying vec4 c;\n"
                                        "void main() { gl_FragColor = u * c; }\n");
   ASSERT_TRUE(p.fs) << p.error;
   /* MUL R0, R0, C0: A = the varying, B = the uniform from the global buffer */
   EXPECT_EQ(disasm_code(p.fs.get()), "MUL R0, R0, C0\nBRC.END\n");
   ASSERT_EQ(p.fs->num_uniform_copies, 1u);
   EXPECT_EQ(p.fs->uniform_copies[0].dst, 0u);
   EXPECT_EQ(p.fs->uniform_copies[0].src, 0u);
   EXPECT_EQ(p.fs->uniform_copies[0].count, 4u);
   EXPECT_EQ(p.fs->cb0_dwords, 4u);
}

TEST(Glsl, FlatAndIntegerVaryingsAreFlat)
{
   CompiledProgram p = compile_glsl(
      "", "#version 300 es\nprecision mediump float;\nflat in vec4 a; in vec4 b; flat in ivec2 i;\n"
          "smooth in vec4 n; out vec4 o;\n"
          "void main() { o = a + b + vec4(i, 0, 0) + n; }\n");
   ASSERT_TRUE(p.fs) << p.error;
   unsigned seen = 0;
   for (unsigned k = 0; k < p.fs->state.num_inputs; k++) {
      int loc = p.fs->input_locations[k];
      (void)loc;
      if (p.fs->state.inputs[k].mask == 0x3) { /* ivec2 */
         EXPECT_EQ(p.fs->state.inputs[k].interp, VLG_INTERP_FLAT);
         seen |= 1;
      }
   }
   unsigned flat = 0, linear = 0, persp = 0;
   for (unsigned k = 0; k < p.fs->state.num_inputs; k++) {
      flat += p.fs->state.inputs[k].interp == VLG_INTERP_FLAT;
      linear += p.fs->state.inputs[k].interp == VLG_INTERP_LINEAR;
      persp += p.fs->state.inputs[k].interp == VLG_INTERP_PERSPECTIVE;
   }
   EXPECT_EQ(seen, 1u);
   EXPECT_EQ(flat, 2u);
   EXPECT_EQ(linear, 0u);
   EXPECT_EQ(persp, 2u);
}

/* EXT_blend_func_extended: index 1 of location 0 and
 * gl_SecondaryFragColorEXT become DUAL_SOURCE_COLOR (docs/hw.md), next to
 * COLOR 0, each in its own register. */
TEST(Glsl, DualSourceOutputs)
{
   struct Case {
      const char *fs;
      bool broadcast;
   };
   const Case cases[] = {
      {"#version 300 es\n#extension GL_EXT_blend_func_extended : require\n"
       "precision mediump float;\nin vec4 a; in vec4 b;\n"
       "layout(location = 0, index = 0) out vec4 c0;\n"
       "layout(location = 0, index = 1) out vec4 c1;\n"
       "void main() { c0 = a; c1 = b * 2.0; }\n",
       false},
      {"#extension GL_EXT_blend_func_extended : require\n"
       "precision mediump float;\nvarying vec4 a; varying vec4 b;\n"
       "void main() { gl_FragColor = a; gl_SecondaryFragColorEXT = b * 2.0; }\n",
       true},
   };
   for (const Case &c : cases) {
      CompiledProgram p = compile_glsl("", c.fs);
      ASSERT_TRUE(p.fs) << p.error;
      int color = -1, dual = -1;
      for (unsigned k = 0; k < p.fs->state.num_outputs; k++) {
         const auto &o = p.fs->state.outputs[k];
         if (o.semantic == VLG_OUTPUT_SEMANTIC_COLOR)
            color = int(k);
         if (o.semantic == VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR)
            dual = int(k);
      }
      ASSERT_EQ(p.fs->state.num_outputs, 2u) << c.fs;
      ASSERT_GE(color, 0) << c.fs;
      ASSERT_GE(dual, 0) << c.fs;
      EXPECT_EQ(p.fs->state.outputs[color].index, 0u);
      EXPECT_EQ(p.fs->state.outputs[dual].index, 0u);
      EXPECT_EQ(p.fs->state.outputs[color].mask, 0xfu);
      EXPECT_EQ(p.fs->state.outputs[dual].mask, 0xfu);
      EXPECT_NE(p.fs->state.outputs[color].reg, p.fs->state.outputs[dual].reg);
      EXPECT_EQ(p.fs->color_broadcast, c.broadcast);
   }
}

TEST(Glsl, VertexShaderIoMaps)
{
   CompiledProgram p = compile_glsl("attribute vec4 p; attribute vec2 t; varying vec2 v;\n"
                                    "void main() { v = t; gl_Position = p; gl_PointSize = 2.0; }\n",
                                    "");
   ASSERT_TRUE(p.vs) << p.error;
   unsigned attr = 0, pos = 0, psize = 0, vary = 0;
   for (unsigned k = 0; k < p.vs->state.num_inputs; k++)
      attr += p.vs->state.inputs[k].semantic == VLG_INPUT_SEMANTIC_ATTRIBUTE;
   for (unsigned k = 0; k < p.vs->state.num_outputs; k++) {
      const auto &o = p.vs->state.outputs[k];
      pos += o.semantic == VLG_OUTPUT_SEMANTIC_POSITION && o.mask == 0xf;
      psize += o.semantic == VLG_OUTPUT_SEMANTIC_POINT_SIZE && o.mask == 0x1;
      vary += o.semantic == VLG_OUTPUT_SEMANTIC_VARYING && o.mask == 0x3;
   }
   EXPECT_EQ(attr, 2u);
   EXPECT_EQ(pos, 1u);
   EXPECT_EQ(psize, 1u);
   EXPECT_EQ(vary, 1u);
}

TEST(Glsl, Es2gearsCompiles)
{
   std::string dir = VLG_COMPILER_TESTS_DIR "/data/";
   CompiledProgram p =
      compile_glsl(read_text(dir + "es2gears.vert"), read_text(dir + "es2gears.frag"));
   ASSERT_TRUE(p.vs && p.fs) << p.error;
   EXPECT_EQ(p.fs->stats.instructions, 1u); /* Color passes straight through */
   EXPECT_GT(p.vs->stats.dual, 0u);         /* the VS has independent mul/add/sfu work */
}

TEST(Glsl, OptimisationSwitchesChangeTheCode)
{
   std::string dir = VLG_COMPILER_TESTS_DIR "/data/";
   std::string vs = read_text(dir + "es2gears.vert");
   CompiledProgram on = compile_glsl(vs, "");
   vlg_compile_options nodual = {};
   nodual.no_dual = true;
   CompiledProgram off = compile_glsl(vs, "", nodual);
   ASSERT_TRUE(on.vs && off.vs) << on.error << off.error;
   EXPECT_EQ(off.vs->stats.dual, 0u);
   EXPECT_GT(off.vs->stats.instructions, on.vs->stats.instructions);
   EXPECT_EQ(off.vs->stats.ops, on.vs->stats.ops);
   vlg_compile_options nopack = {};
   nopack.no_pack = true;
   CompiledProgram np = compile_glsl(vs, "", nopack);
   ASSERT_TRUE(np.vs) << np.error;
   EXPECT_GT(np.vs->num_consts, on.vs->num_consts);
}

TEST(Glsl, Glmark2CorpusCompiles)
{
   const char *dir = "/usr/share/glmark2/shaders";
   DIR *d = opendir(dir);
   if (!d)
      GTEST_SKIP() << dir << " not present (Debian package glmark2-data)";
   std::vector<std::string> names;
   while (struct dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && (n.rfind(".vert") == n.size() - 5 || n.rfind(".frag") == n.size() - 5))
         names.push_back(n);
   }
   closedir(d);
   unsigned front_end_ok = 0, compiled = 0;
   for (const std::string &n : names) {
      bool fs = n.rfind(".frag") == n.size() - 5;
      /* completed as glmark2's scenes do (vlgpu-cc --glmark2) */
      std::string text = glmark2_complete(dir, n, read_text(std::string(dir) + "/" + n));
      std::vector<GlslSource> srcs = {{n, fs ? MESA_SHADER_FRAGMENT : MESA_SHADER_VERTEX, text}};
      std::vector<nir_shader *> nirs;
      std::string log;
      bool fe = glsl_to_vlgpu_nir(srcs, nirs, log);
      EXPECT_TRUE(fe) << n << ": " << log;
      if (!fe)
         continue;
      front_end_ok++;
      char *err = nullptr;
      vlg_compiled_shader *cs = vlg_compile_nir(nirs[0], nullptr, &err);
      EXPECT_TRUE(cs) << n << ": " << (err ? err : "");
      compiled += cs != nullptr;
      vlg_compiled_shader_free(cs);
      free(err);
      ralloc_free(nirs[0]);
   }
   EXPECT_EQ(compiled, front_end_ok);
   EXPECT_EQ(front_end_ok, names.size());
   EXPECT_GE(names.size(), 70u);
   printf("glmark2: %u of %zu shader files compile\n", compiled, names.size());
}
