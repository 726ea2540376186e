/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The NIR-level passes of the compiler: split_long_sums (vlg_reassoc.cpp)
 * and the nir_opt_vectorize filter (vlg_nir.cpp), on NIR from Mesa's GLSL
 * front end. Their execution results are checked in test_exec.cpp.
 */
#include <functional>

#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

/* Front-end NIR of a one-stage program (the caller frees it). */
nir_shader *
front_end(const std::string &text, gl_shader_stage stage)
{
   std::vector<GlslSource> srcs = {{"t", stage, text}};
   std::vector<nir_shader *> nirs;
   std::string log;
   EXPECT_TRUE(glsl_to_vlgpu_nir(srcs, nirs, log)) << log;
   return nirs.empty() ? nullptr : nirs[0];
}

struct SumShape {
   unsigned fadds = 0; /* fadd instructions */
   unsigned depth = 0; /* longest chain of fadds feeding one another */
};

SumShape
sum_shape(nir_shader *nir)
{
   SumShape s;
   std::map<const nir_ssa_def *, unsigned> depth;
   nir_foreach_function (f, nir) {
      if (!f->impl)
         continue;
      nir_foreach_block (block, f->impl)
         nir_foreach_instr (instr, block) {
            if (instr->type != nir_instr_type_alu)
               continue;
            nir_alu_instr *alu = nir_instr_as_alu(instr);
            if (alu->op != nir_op_fadd)
               continue;
            s.fadds++;
            unsigned d = 0;
            for (unsigned i = 0; i < 2; i++) {
               auto it = depth.find(alu->src[i].src.ssa);
               if (it != depth.end())
                  d = std::max(d, it->second);
            }
            depth[&alu->dest.dest.ssa] = d + 1;
            s.depth = std::max(s.depth, d + 1);
         }
   }
   return s;
}

/* 16 products summed left to right */
const char *kSum16 = R"(
   attribute vec4 a;
   uniform vec4 k[16];
   varying vec4 r;
   void main() {
      r = a.x * k[0] + a.y * k[1] + a.z * k[2] + a.w * k[3] +
          a.x * k[4] + a.y * k[5] + a.z * k[6] + a.w * k[7] +
          a.x * k[8] + a.y * k[9] + a.z * k[10] + a.w * k[11] +
          a.x * k[12] + a.y * k[13] + a.z * k[14] + a.w * k[15];
      gl_Position = a;
   }
)";

} // anonymous namespace

TEST(Nir, SplitLongSumsMakesFourPartialSums)
{
   glsl_type_singleton_init_or_ref();
   nir_shader *nir = front_end(kSum16, MESA_SHADER_VERTEX);
   ASSERT_TRUE(nir);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   SumShape before = sum_shape(nir);
   EXPECT_EQ(before.fadds, 15u);
   EXPECT_EQ(before.depth, 15u);
   EXPECT_TRUE(split_long_sums(nir, 8));
   NIR_PASS_V(nir, nir_opt_dce);
   nir_validate_shader(nir, "after split_long_sums");
   SumShape after = sum_shape(nir);
   /* n - 1 adds still; 4 chains of 4 terms (3 adds) + 2 levels combining them */
   EXPECT_EQ(after.fadds, 15u);
   EXPECT_EQ(after.depth, 3u + 2u);
   /* nothing left to split */
   EXPECT_FALSE(split_long_sums(nir, 8));
   ralloc_free(nir);
   glsl_type_singleton_decref();
}

TEST(Nir, SplitLongSumsLeavesShortAndExactSumsAlone)
{
   glsl_type_singleton_init_or_ref();
   nir_shader *nir = front_end(kSum16, MESA_SHADER_VERTEX);
   ASSERT_TRUE(nir);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   /* below the threshold */
   EXPECT_FALSE(split_long_sums(nir, 17));
   /* exact adds (GLSL precise/invariant) keep their order */
   nir_foreach_function (f, nir)
      if (f->impl)
         nir_foreach_block (block, f->impl)
            nir_foreach_instr (instr, block)
               if (instr->type == nir_instr_type_alu)
                  nir_instr_as_alu(instr)->exact = true;
   EXPECT_FALSE(split_long_sums(nir, 8));
   EXPECT_EQ(sum_shape(nir).depth, 15u);
   ralloc_free(nir);
   glsl_type_singleton_decref();
}

TEST(Nir, SplitLongSumsShortensTheCriticalPath)
{
   vlg_compile_options off = {};
   off.no_reassoc = true;
   CompiledProgram a = compile_glsl(kSum16, "");
   CompiledProgram b = compile_glsl(kSum16, "", off);
   ASSERT_TRUE(a.vs && b.vs) << a.error << b.error;
   /* the chain of 15 MADs (4 cycles each) is gone */
   EXPECT_GE(b.vs->stats.cycles, 15u * vlg_op_info(VLG_OP_MAD)->latency);
   EXPECT_LT(a.vs->stats.cycles, b.vs->stats.cycles / 2);
}

TEST(Nir, VectorizeKeepsTextureCoordinatesApart)
{
   /* two vec2 coordinate adds: merged into one vec4 add, the second
    * coordinate would sit in .zw and need a MOV to R[c].xy for its TEX */
   const char *fs = R"(
      precision mediump float;
      uniform sampler2D t;
      varying vec2 v;
      uniform vec2 d;
      void main() {
         gl_FragColor = texture2D(t, v + vec2(0.25, 0.5)) * texture2D(t, v + d);
      }
   )";
   vlg_compile_options novec = {};
   novec.no_vectorize = true;
   CompiledProgram a = compile_glsl("", fs), b = compile_glsl("", fs, novec);
   ASSERT_TRUE(a.fs && b.fs) << a.error << b.error;
   EXPECT_EQ(disasm_code(a.fs.get()).find("MOV"), std::string::npos) << disasm_code(a.fs.get());
   EXPECT_EQ(a.fs->stats.instructions, b.fs->stats.instructions);

   /* per-component scalar ops of one kind reading the same values (up to
    * the swizzle; literals are combined) are merged: two MULs, two MADs */
   const char *vs = R"(
      attribute vec4 a;
      uniform vec2 st;
      varying vec4 r;
      void main() {
         r = vec4(a.x * st.x, a.y * st.y, a.z * st.x + 1.0, a.w * st.y + 2.0);
         gl_Position = a;
      }
   )";
   CompiledProgram c = compile_glsl(vs, ""), e = compile_glsl(vs, "", novec);
   ASSERT_TRUE(c.vs && e.vs) << c.error << e.error;
   EXPECT_LT(c.vs->stats.ops, e.vs->stats.ops) << disasm_code(c.vs.get()) << "---\n"
                                               << disasm_code(e.vs.get());
}
