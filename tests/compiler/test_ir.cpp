/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Backend IR: builder + printer, operand helpers, read masks, liveness, CFG.
 */
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

TEST(IR, BuilderAndPrinter)
{
   Shader S = make_shader(3);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(2), 0x3, reg(0, VLG_SWZ_BCAST(1)), neg(unif(4)));
   b.alu(VLG_OP_MAD, reg(2), 0xf, reg(0), imm_f(2.0f), abs(reg(1, VLG_SWZ(3, 2, 1, 0))));
   b.pred_imm(VLG_COND_INE, 0, reg(2), 1, 0);
   b.jump(0, VLG_BRCOND_NP, 0);
   ASSERT_SHADER_EQUAL(S, R"(
      B0:
         ADD %2.xy, %0.yy__, -U4
         MAD %2, %0, #2.0, |%1.wzyx|
         PRED.INE P0, %2.y, #0
         BRC.JMP B0 if !P0
   )");
}

TEST(IR, SwizzleComposition)
{
   /* o reads .yzwx; reading that through .xxyy gives .yyzz */
   Operand o = swz(reg(1, VLG_SWZ(1, 2, 3, 0)), VLG_SWZ(0, 0, 1, 1));
   EXPECT_EQ(o.swz, VLG_SWZ(1, 1, 2, 2));
   /* literals permute their values */
   Operand l = swz(imm_u(10, 11, 12, 13), VLG_SWZ(3, 3, 0, 1));
   EXPECT_EQ(l.imm[0], 13u);
   EXPECT_EQ(l.imm[1], 13u);
   EXPECT_EQ(l.imm[2], 10u);
   EXPECT_EQ(l.imm[3], 11u);
}

TEST(IR, ReadPositionsAndComponents)
{
   Shader S = make_shader(3);
   Builder b(S);
   Instr &dp = b.alu(VLG_OP_DP3, reg(2), 0x1, reg(0, VLG_SWZ(2, 2, 0, 1)), reg(1));
   EXPECT_EQ(src_read_positions(dp, 0), 0x7u);  /* DP3 reads xyz whatever the mask */
   EXPECT_EQ(src_read_components(dp, 0), 0x5u); /* .zzx -> components x and z */
   Instr &add = b.alu(VLG_OP_ADD, reg(2), 0x8, reg(0, VLG_SWZ(0, 0, 0, 1)), reg(1));
   EXPECT_EQ(src_read_positions(add, 0), 0x8u);
   EXPECT_EQ(src_read_components(add, 0), 0x2u);
}

TEST(IR, LivenessPartialWrites)
{
   /* %0.x is written before it is read, %0.y is not: only %0.y is live in. */
   Shader S = make_shader(2);
   Builder b(S);
   b.mov(reg(0), 0x1, imm_f(1.0f));
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(0, VLG_SWZ_BCAST(0)), reg(0, VLG_SWZ_BCAST(1)));
   b.end();
   compute_cfg(S);
   Liveness L = compute_liveness(S);
   auto live_in = [&](unsigned v, unsigned c) {
      unsigned bit = L.bit(v, 0, c);
      return (L.live_in[0][bit / 64] >> (bit % 64)) & 1;
   };
   EXPECT_FALSE(live_in(0, 0));
   EXPECT_TRUE(live_in(0, 1));
   EXPECT_FALSE(live_in(0, 2));
   EXPECT_FALSE(live_in(1, 0));
}

TEST(IR, LivenessAcrossLoop)
{
   /* B0: %0 = 0; B1: %0 = %0 + 1; jump B1 if P0; B2: out = %0 */
   Shader S = make_shader(2, 3);
   Builder b(S, 0);
   b.mov(reg(0), 0x1, imm_f(0.0f));
   b.block = 1;
   b.alu(VLG_OP_ADD, reg(0), 0x1, reg(0), imm_f(1.0f));
   b.pred_imm(VLG_COND_INE, 0, reg(0), 0, 0);
   b.jump(1, VLG_BRCOND_P, 0);
   b.block = 2;
   b.mov(reg(1), 0x1, reg(0));
   b.end();
   compute_cfg(S);
   EXPECT_EQ(S.blocks[1].succs, (std::vector<unsigned>{1, 2}));
   Liveness L = compute_liveness(S);
   unsigned bit = L.bit(0, 0, 0);
   EXPECT_TRUE((L.live_in[1][bit / 64] >> (bit % 64)) & 1); /* loop-carried */
   EXPECT_TRUE((L.live_out[1][bit / 64] >> (bit % 64)) & 1);
   EXPECT_FALSE((L.live_in[0][bit / 64] >> (bit % 64)) & 1); /* defined in B0 */
}

TEST(IR, CfgOfIfElse)
{
   /* B0: jump B2 if !P0; B1: jump B3; B2: ...; B3: end */
   Shader S = make_shader(1, 4);
   Builder b(S, 0);
   b.pred_imm(VLG_COND_INE, 0, reg(0), 0, 0);
   b.jump(2, VLG_BRCOND_NP, 0);
   b.block = 1;
   b.mov(reg(0), 0xf, imm_f(1.0f));
   b.jump(3);
   b.block = 2;
   b.mov(reg(0), 0xf, imm_f(2.0f));
   b.block = 3;
   b.end();
   compute_cfg(S);
   EXPECT_EQ(S.blocks[0].succs, (std::vector<unsigned>{2, 1}));
   EXPECT_EQ(S.blocks[1].succs, (std::vector<unsigned>{3}));
   EXPECT_EQ(S.blocks[2].succs, (std::vector<unsigned>{3}));
   EXPECT_TRUE(S.blocks[3].succs.empty());
   EXPECT_EQ(S.blocks[3].preds, (std::vector<unsigned>{1, 2}));
}
