/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Global-buffer packing (vlg_pack.cpp): literal deduplication, uniform
 * packing, indirect arrays as contiguous blocks, the copy map, the unpacked
 * layout, the 512-entry limit. Every check reads the value an operand would
 * see through the packed image and the copy map and compares it with the
 * literal or (slot, component) the operand had before packing.
 */
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

/* What position n of global-buffer operand @o reads: a literal value, or the
 * cb0 dword it is copied from (returned as 0x80000000 | dword). */
uint64_t
gb_read(const Shader &S, const Operand &o, unsigned n)
{
   EXPECT_EQ(o.file, File::Const);
   unsigned dw = o.index * 4 + VLG_SWZ_GET(o.swz, n);
   for (const UniformCopy &c : S.copies)
      if (dw >= c.dst && dw < c.dst + c.count)
         return 0x100000000ull | (c.src + (dw - c.dst));
   return S.consts.at(o.index)[VLG_SWZ_GET(o.swz, n)];
}

uint64_t
udw(unsigned slot, unsigned comp)
{
   return 0x100000000ull | (slot * 4 + comp);
}

} // namespace

TEST(Pack, LiteralsAreDeduplicated)
{
   Shader S = make_shader(3);
   Builder b(S);
   Instr *a = &b.alu(VLG_OP_MUL, reg(1), 0x3, reg(0), imm_f(1.0f, 2.0f, 0, 0));
   b.alu(VLG_OP_ADD, reg(2), 0x1, reg(0), imm_f(2.0f));
   b.alu(VLG_OP_ADD, reg(2), 0x2, reg(0), imm_f(0, 1.0f, 0, 0));
   b.end();
   pack_global_buffer(S, true);
   a = &S.blocks[0].instrs[0];
   /* one entry holds 1.0 and 2.0; all three operands use it */
   EXPECT_EQ(S.consts.size(), 1u);
   EXPECT_EQ(gb_read(S, a->src[1], 0), fbits(1.0f));
   EXPECT_EQ(gb_read(S, a->src[1], 1), fbits(2.0f));
   EXPECT_EQ(gb_read(S, S.blocks[0].instrs[1].src[1], 0), fbits(2.0f));
   EXPECT_EQ(gb_read(S, S.blocks[0].instrs[2].src[1], 1), fbits(1.0f));
   /* the vec2 keeps an identity swizzle (its values at the positions read) */
   EXPECT_EQ(VLG_SWZ_GET(a->src[1].swz, 0), 0u);
   EXPECT_EQ(VLG_SWZ_GET(a->src[1].swz, 1), 1u);
   EXPECT_TRUE(S.copies.empty());
}

TEST(Pack, NegativeZeroIsNotZero)
{
   Shader S = make_shader(2);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(0), imm_u(0x00000000u));
   b.alu(VLG_OP_ADD, reg(1), 0x2, reg(0), imm_u(0x80000000u));
   b.end();
   pack_global_buffer(S, true);
   EXPECT_EQ(gb_read(S, S.blocks[0].instrs[0].src[1], 0), 0u);
   EXPECT_EQ(gb_read(S, S.blocks[0].instrs[1].src[1], 1), 0x80000000u);
}

TEST(Pack, UniformsShareEntries)
{
   Shader S = make_shader(2);
   Builder b(S);
   /* slot 3: xyz read; slot 7: x read; slot 9: all four read */
   b.alu(VLG_OP_DP3, reg(1), 0x1, reg(0), unif(3));
   b.alu(VLG_OP_MUL, reg(1), 0x2, reg(0), unif(7, VLG_SWZ_BCAST(0)));
   b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), unif(9));
   b.end();
   pack_global_buffer(S, true);
   const auto &I = S.blocks[0].instrs;
   for (unsigned n = 0; n < 3; n++)
      EXPECT_EQ(gb_read(S, I[0].src[1], n), udw(3, n));
   EXPECT_EQ(gb_read(S, I[1].src[1], 1), udw(7, 0));
   for (unsigned n = 0; n < 4; n++)
      EXPECT_EQ(gb_read(S, I[2].src[1], n), udw(9, n));
   /* 3 + 1 + 4 components fit two entries */
   EXPECT_EQ(S.consts.size(), 2u);
   /* the vec4 and the vec3 keep identity swizzles */
   EXPECT_EQ(I[2].src[1].swz, VLG_SWZ_IDENTITY);
}

TEST(Pack, IndirectArrayStaysContiguous)
{
   Shader S = make_shader(3);
   S.indirect_uniforms.push_back({2, 3}); /* slots 2..4 read with A0 */
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(0), unif(0)); /* a scalar uniform elsewhere */
   b.addr_a0(reg(0), 1, 0);
   b.ldc(reg(2), 0xf, unif(2), 0, true);
   b.alu(VLG_OP_MUL, reg(1), 0xf, reg(2), unif(3)); /* direct read of an array element */
   b.end();
   pack_global_buffer(S, true);
   const Instr &ldc = S.blocks[0].instrs[2];
   ASSERT_EQ(ldc.src[0].file, File::Const);
   unsigned base = ldc.src[0].index;
   /* entries base..base+2 are cb0 slots 2..4, whole vec4s, in order */
   bool found = false;
   for (const UniformCopy &c : S.copies)
      if (c.dst == base * 4) {
         EXPECT_EQ(c.src, 2u * 4);
         EXPECT_EQ(c.count, 12u);
         found = true;
      }
   EXPECT_TRUE(found);
   /* the direct read of slot 3 goes to the block's second entry */
   const Instr &mul = S.blocks[0].instrs[3];
   EXPECT_EQ(mul.src[1].index, base + 1);
   EXPECT_EQ(mul.src[1].swz, VLG_SWZ_IDENTITY);
   EXPECT_EQ(gb_read(S, S.blocks[0].instrs[0].src[1], 0), udw(0, 0));
}

TEST(Pack, MostReferencedEntryFirst)
{
   Shader S = make_shader(2);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), unif(5));
   for (int i = 0; i < 3; i++)
      b.alu(VLG_OP_MUL, reg(1), 0xf, reg(1), unif(8));
   b.end();
   pack_global_buffer(S, true);
   EXPECT_EQ(S.blocks[0].instrs[1].src[1].index, 0u);
   EXPECT_EQ(S.blocks[0].instrs[0].src[1].index, 1u);
}

TEST(Pack, OffKeepsSlotsAndDuplicates)
{
   Shader S = make_shader(2);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(0), unif(5));
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(1), imm_f(3.0f));
   b.alu(VLG_OP_ADD, reg(1), 0x1, reg(1), imm_f(3.0f));
   b.end();
   pack_global_buffer(S, false);
   const auto &I = S.blocks[0].instrs;
   EXPECT_EQ(I[0].src[1].index, 5u);                /* slot s is entry s */
   EXPECT_NE(I[1].src[1].index, I[2].src[1].index); /* no dedup */
   EXPECT_EQ(S.consts.size(), 8u);
   EXPECT_EQ(gb_read(S, I[2].src[1], 0), fbits(3.0f));
   EXPECT_EQ(gb_read(S, I[0].src[1], 0), udw(5, 0));
}

TEST(Pack, TooManyEntriesIsAnError)
{
   Shader S = make_shader(2);
   Builder b(S);
   for (unsigned i = 0; i < 600; i++)
      b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), imm_f(i, i + 0.25f, i + 0.5f, i + 0.75f));
   b.end();
   try {
      pack_global_buffer(S, true);
      FAIL() << "expected a CompileError";
   } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find("600 vec4 entries"), std::string::npos) << e.what();
   }
}

TEST(Pack, HighEntriesAreLoadedWithLdc)
{
   /* 140 distinct vec4 literals: entries >= 128 cannot be ALU operands */
   Shader S = make_shader(2);
   Builder b(S);
   for (unsigned i = 0; i < 140; i++)
      b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), imm_f(i, i + 0.25f, i + 0.5f, i + 0.75f));
   b.end();
   pack_global_buffer(S, true);
   legalize(S);
   unsigned ldc = 0;
   for (const Instr &I : S.blocks[0].instrs) {
      if (I.op == VLG_OP_LDC) {
         ldc++;
         EXPECT_GE(I.src[0].index, 128u);
      }
      if (I.is_alu())
         for (unsigned s = 0; s < I.info()->nsrc; s++)
            if (I.src[s].file == File::Const) {
               EXPECT_LT(I.src[s].index, 128u);
            }
   }
   EXPECT_EQ(ldc, 12u);
}
