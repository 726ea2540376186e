/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Register allocation (vlg_ra.cpp): interference, coalescing, low-bank
 * priority, texture operand groups, the no-fit error.
 */
#include <map>
#include <set>

#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

/* Physical registers of the live values: after RA every operand index is a
 * register number. */
unsigned
dst_reg(const Shader &S, unsigned block, unsigned instr)
{
   return S.blocks[block].instrs[instr].dst.index;
}

} // namespace

TEST(RA, OverlappingValuesGetDifferentRegisters)
{
   /* %0 input; %1 = %0+%0; %2 = %0*%0; %3 = %1+%2 : %1 and %2 are live together */
   Shader S = make_shader(4);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({3, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), reg(0));
   b.alu(VLG_OP_MUL, reg(2), 0xf, reg(0), reg(0));
   b.alu(VLG_OP_ADD, reg(3), 0xf, reg(1), reg(2));
   b.end();
   schedule(S, false, false);
   register_allocate(S, true, true);
   unsigned r1 = dst_reg(S, 0, 0), r2 = dst_reg(S, 0, 1);
   EXPECT_NE(r1, r2);
   EXPECT_EQ(S.outputs[0].vreg, dst_reg(S, 0, 2));
   EXPECT_EQ(S.num_regs, 2u); /* %0 dies at the MUL; two registers suffice */
}

TEST(RA, SequentialValuesShareARegister)
{
   /* a chain: each value dies where the next is made */
   Shader S = make_shader(5);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({4, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   for (unsigned i = 1; i <= 4; i++)
      b.alu(VLG_OP_ADD, reg(i), 0xf, reg(i - 1), imm_f(1.0f));
   b.end();
   pack_global_buffer(S, true);
   schedule(S, false, false);
   register_allocate(S, true, true);
   EXPECT_EQ(S.num_regs, 1u);
}

TEST(RA, SimultaneousDefsInOneBundleDiffer)
{
   /* ADD and MUL paired in one instruction; the MUL's result is dead. They
    * must still not write the same register component (rule 7). */
   Shader S = make_shader(4);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({2, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(2), 0xf, reg(0), reg(0));
   b.alu(VLG_OP_MUL, reg(3), 0xf, reg(0), reg(0));
   b.end();
   schedule(S, true, true);
   ASSERT_GE(S.blocks[0].bundles[0].ph[1], 0); /* they did pair */
   register_allocate(S, true, true);
   EXPECT_NE(dst_reg(S, 0, 0), dst_reg(S, 0, 1));
}

TEST(RA, CopiesAreCoalesced)
{
   /* out = MOV of a temporary that stays live: with coalescing the copy and
    * its source share a register (they hold the same value) and the MOV
    * disappears; without, the MOV makes them interfere and it stays. */
   Shader S = make_shader(4);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({2, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   S.outputs.push_back({3, 0xf, VLG_OUTPUT_SEMANTIC_VARYING, 0, 0});
   Builder b(S);
   b.alu(VLG_OP_MUL, reg(1), 0xf, reg(0), reg(0));
   b.mov(reg(2), 0xf, reg(1));
   b.alu(VLG_OP_ADD, reg(3), 0xf, reg(1), reg(1));
   b.end();
   Shader T = S;
   schedule(S, false, false);
   register_allocate(S, true, true);
   EXPECT_TRUE(S.blocks[0].instrs[1].dead);
   schedule(T, false, false);
   register_allocate(T, true, false); /* coalescing off: the MOV stays */
   EXPECT_FALSE(T.blocks[0].instrs[1].dead);
}

TEST(RA, PartialCopiesAreNotCoalescedUnsafely)
{
   /* %2.x = %1.x while %2.y holds another live value: merging %1 and %2 would
    * clobber %1.y (read at the end), so the MOV must stay or be harmless. */
   Shader S = make_shader(4);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({3, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   b.alu(VLG_OP_MUL, reg(1), 0xf, reg(0), reg(0));
   b.alu(VLG_OP_ADD, reg(2), 0x2, reg(0), reg(0));
   b.mov(reg(2), 0x1, reg(1));
   b.alu(VLG_OP_ADD, reg(3), 0xf, reg(2, VLG_SWZ(0, 1, 0, 1)), reg(1, VLG_SWZ_BCAST(1)));
   b.end();
   coalesce_copies(S);
   schedule(S, false, false);
   register_allocate(S, true, true);
   const auto &I = S.blocks[0].instrs;
   /* %1 (MUL) and %2 (ADD.y) are live together: different registers */
   EXPECT_NE(I[0].dst.index, I[1].dst.index);
}

TEST(RA, LowBankPriorityOrdersRegistersByReferences)
{
   /* 40 values live at once, some read far more often than others */
   const unsigned N = 40;
   Shader S = make_shader(N + 2);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({N + 1, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   for (unsigned i = 1; i <= N; i++)
      b.alu(VLG_OP_ADD, reg(i), 0xf, reg(0), imm_f((float)i));
   b.mov(reg(N + 1), 0xf, reg(1));
   for (unsigned i = 2; i <= N; i++)
      b.alu(VLG_OP_ADD, reg(N + 1), 0xf, reg(N + 1), reg(i));
   for (unsigned k = 0; k < 20; k++)
      b.alu(VLG_OP_MUL, reg(N + 1), 0xf, reg(N + 1), reg(N - k % 3));
   b.end();
   pack_global_buffer(S, true);
   schedule(S, false, false);
   register_allocate(S, true, false);
   /* count, after allocation, how often each register appears in ALU operands */
   std::vector<unsigned> refs(VLG_NUM_REGS, 0);
   for (const Instr &I : S.blocks[0].instrs) {
      if (!I.is_alu()) /* self-moves RA deleted were counted by it too */
         continue;
      refs[I.dst.index]++;
      for (unsigned k = 0; k < I.info()->nsrc; k++)
         if (I.src[k].is_reg())
            refs[I.src[k].index]++;
   }
   ASSERT_GT(S.num_regs, 32u);
   for (unsigned r = 0; r + 1 < S.num_regs; r++)
      EXPECT_GE(refs[r], refs[r + 1]) << "R" << r << " vs R" << r + 1;
   EXPECT_GT(refs[0], refs[S.num_regs - 1]);
}

TEST(RA, LowBankGoesToOpsThatCostNothingThere)
{
   /* 42 registers: 10 must go to R32+. A = %1..%10 are defined and read
    * only by MADs (always two units: the TERN Sub carries the high register
    * bits), B = %11..%40 by one-unit ADDs. A has more references (the
    * seed's order would keep A low and push ten B values high, costing
    * units); the cost-aware choice puts A high and every ADD stays in one
    * unit. */
   const unsigned NA = 10, NB = 30, acc = NA + NB + 1, acc2 = NA + NB + 2;
   Shader S = make_shader(acc2 + 1);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({acc, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   S.outputs.push_back({acc2, 0xf, VLG_OUTPUT_SEMANTIC_VARYING, 0, 0});
   Builder b(S);
   for (unsigned i = 1; i <= NA; i++)
      b.alu(VLG_OP_MAD, reg(i), 0xf, reg(0, VLG_SWZ_BCAST(0)), imm_f((float)(i % 3)), reg(0));
   for (unsigned i = NA + 1; i <= NA + NB; i++)
      b.alu(VLG_OP_ADD, reg(i), 0xf, reg(0), imm_f((float)(i % 4)));
   b.mov(reg(acc2), 0xf, reg(0));
   for (unsigned k = 0; k < 5; k++)
      for (unsigned i = 1; i <= NA; i++)
         b.alu(VLG_OP_MAD, reg(acc2), 0xf, reg(i, VLG_SWZ_BCAST(k % 4)), imm_f(0.5f), reg(acc2));
   b.mov(reg(acc), 0xf, reg(NA + 1));
   for (unsigned i = NA + 2; i <= NA + NB; i++)
      b.alu(VLG_OP_ADD, reg(acc), 0xf, reg(acc), reg(i));
   b.end();
   pack_global_buffer(S, true);
   legalize(S);
   schedule(S, false, false);
   register_allocate(S, true, false);
   ASSERT_GT(S.num_regs, 32u);
   unsigned adds = 0, high_mads = 0;
   for (const Instr &I : S.blocks[0].instrs) {
      if (I.op == VLG_OP_ADD) {
         adds++;
         EXPECT_LT(I.dst.index, 32u);
         for (unsigned k = 0; k < 2; k++)
            if (I.src[k].is_reg()) {
               EXPECT_LT(I.src[k].index, 32u);
            }
      }
      if (I.op == VLG_OP_MAD && I.dst.index >= 32)
         high_mads++;
   }
   EXPECT_EQ(adds, NB + NB - 1);
   EXPECT_GE(high_mads, 1u);
   /* no op pays for a high register: MADs are two units, everything else one */
   unsigned want = 0;
   for (const Instr &I : S.blocks[0].instrs)
      if (!I.dead)
         want += I.op == VLG_OP_MAD ? 2 : 1;
   EXPECT_EQ(emit_program(S).units.size(), want) << print_shader(S);
}

TEST(RA, TextureGroupsAreConsecutive)
{
   Shader S = make_shader(2);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_VARYING, 0, 0});
   S.outputs.push_back({1, 0xf, VLG_OUTPUT_SEMANTIC_COLOR, 0, 0});
   uint32_t g = S.new_vreg(3);
   Builder b(S);
   b.mov(reg(g), 0x3, reg(0));
   b.mov(reg(g, VLG_SWZ_IDENTITY, 1), 0x3, reg(0, VLG_SWZ(2, 3, 2, 3)));
   b.mov(reg(g, VLG_SWZ_IDENTITY, 2), 0x3, reg(0, VLG_SWZ(3, 2, 3, 2)));
   b.tex(VLG_OP_TXD, reg(1), 0xf, reg(g), 0, false, false, 0x3, 0x3, 0x3);
   b.end();
   schedule(S, true, true);
   register_allocate(S, true, true);
   const auto &I = S.blocks[0].instrs;
   unsigned base = I[3].src[0].index;
   EXPECT_EQ(I[0].dst.index, base);
   EXPECT_EQ(I[1].dst.index, base + 1);
   EXPECT_EQ(I[2].dst.index, base + 2);
   EXPECT_LE(base + 3, S.num_regs);
}

TEST(RA, TooManyLiveValuesIsAnErrorWithThePressure)
{
   /* 130 vec4 values live at once */
   const unsigned N = 130;
   Shader S = make_shader(N + 2);
   S.inputs.push_back({0, 0x1, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({N + 1, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   for (unsigned i = 1; i <= N; i++)
      b.alu(VLG_OP_ADD, reg(i), 0xf, reg(0, VLG_SWZ_BCAST(0)), imm_f((float)(i % 8)));
   b.alu(VLG_OP_ADD, reg(N + 1), 0xf, reg(1), reg(2));
   for (unsigned i = 3; i <= N; i++)
      b.alu(VLG_OP_ADD, reg(N + 1), 0xf, reg(N + 1), reg(i));
   b.end();
   pack_global_buffer(S, true);
   legalize(S);
   schedule(S, false, false);
   try {
      register_allocate(S, true, true);
      FAIL() << "expected a CompileError";
   } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find("register pressure 130 vec4 registers"),
                std::string::npos)
         << e.what();
   }
}

TEST(RA, NoFitMessageNamesTheShader)
{
   /* Through the C API: 140 varyings-worth of live values in a GLSL shader. */
   std::string vs =
      "#version 300 es\nin vec4 a;\nuniform vec4 u[140];\nout vec4 o;\nvoid main() {\n";
   for (int i = 0; i < 140; i++)
      vs += "  vec4 t" + std::to_string(i) + " = a * u[" + std::to_string(i) + "] + float(" +
            std::to_string(i) + ");\n";
   vs += "  vec4 s = t0;\n";
   for (int i = 139; i >= 1; i--)
      vs += "  s = s * t" + std::to_string(i) + " + t" + std::to_string(139 - i) + ";\n";
   vs += "  o = s; gl_Position = a;\n}\n";
   CompiledProgram p = compile_glsl(vs, "");
   EXPECT_FALSE(p.vs);
   EXPECT_NE(p.error.find("VS 'test.vert'"), std::string::npos) << p.error;
   EXPECT_NE(p.error.find("register pressure"), std::string::npos) << p.error;
}
