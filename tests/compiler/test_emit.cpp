/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Emission (vlg_emit.cpp): operand canonicalisation for one-unit encodings,
 * branch targets as unit addresses, decodable output. Sizes are checked
 * against the rules of docs/isa.md §3 ("Which Sub unit, and when").
 */
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

/* Shader with physical registers: allocated and scheduled, one op per bundle. */
Shader
physical(unsigned nblocks = 1)
{
   Shader S = make_shader(0, nblocks);
   S.scheduled = true;
   S.allocated = true;
   return S;
}

void
one_per_bundle(Shader &S)
{
   for (Block &B : S.blocks) {
      B.bundles.clear();
      for (unsigned i = 0; i < B.instrs.size(); i++) {
         Bundle bu;
         bu.ph[B.instrs[i].info()->phases & 1 ? 0 : 1] = i;
         B.bundles.push_back(bu);
      }
   }
}

unsigned
size_of(const Shader &S, const Instr &I)
{
   vlg_op op = lower_op(S, I, 0);
   vlg_instr in;
   vlg_instr_init(&in);
   in.phase[0].present = true;
   in.phase[0].main = op;
   return vlg_instr_size(&in);
}

} // namespace

TEST(Emit, BroadcastMovesToA)
{
   /* ADD R0, R1, R2.xxxx: B has no swizzle in a Main unit, A may broadcast;
    * ADD is commutative, so R2.xxxx goes to A: one unit. */
   Shader S = physical();
   Builder b(S);
   Instr &I = b.alu(VLG_OP_ADD, reg(0), 0xf, reg(1), reg(2, VLG_SWZ_BCAST(0)));
   EXPECT_EQ(size_of(S, I), 1u);
   vlg_op op = lower_op(S, I, 0);
   EXPECT_EQ(op.src[0].index, 2u);
   EXPECT_EQ(op.src[0].swz, VLG_SWZ_BCAST(0));
   /* CMP.LT is not commutative: stays two units */
   Instr &C = b.alu(VLG_OP_CMP_LT, reg(0), 0xf, reg(1), reg(2, VLG_SWZ_BCAST(0)));
   EXPECT_EQ(size_of(S, C), 2u);
}

TEST(Emit, NegationMovesBetweenFactors)
{
   /* MUL R0, -R1, R2 == MUL R0, R1, -R2: only B's negation is in the Main */
   Shader S = physical();
   Builder b(S);
   Instr &I = b.alu(VLG_OP_MUL, reg(0), 0xf, neg(reg(1)), reg(2));
   EXPECT_EQ(size_of(S, I), 1u);
   vlg_op op = lower_op(S, I, 0);
   EXPECT_FALSE(op.src[0].neg);
   EXPECT_TRUE(op.src[1].neg);
   /* ADD R0, -R1, R2: swapped to ADD R0, R2, -R1 */
   Instr &A = b.alu(VLG_OP_ADD, reg(0), 0xf, neg(reg(1)), reg(2));
   EXPECT_EQ(size_of(S, A), 1u);
}

TEST(Emit, UnreadSwizzlePositionsAreFree)
{
   /* ADD R0.x, R1.xzzz, R2.xwww reads position x only: identity swizzles */
   Shader S = physical();
   Builder b(S);
   Instr &I =
      b.alu(VLG_OP_ADD, reg(0), 0x1, reg(1, VLG_SWZ(0, 2, 2, 2)), reg(2, VLG_SWZ(0, 3, 3, 3)));
   EXPECT_EQ(size_of(S, I), 1u);
   /* DP3 ignores w: B = C5.xyzx is an identity for it */
   Instr &D = b.alu(VLG_OP_DP3, reg(0), 0x1, reg(1), gbuf(5, VLG_SWZ(0, 1, 2, 0)));
   EXPECT_EQ(size_of(S, D), 1u);
   /* a real swizzle on B needs the EXT Sub unit */
   Instr &E = b.alu(VLG_OP_ADD, reg(0), 0x3, reg(1), reg(2, VLG_SWZ(1, 0, 2, 3)));
   EXPECT_EQ(size_of(S, E), 2u);
}

TEST(Emit, HighRegistersNeedTheSubUnit)
{
   Shader S = physical();
   Builder b(S);
   EXPECT_EQ(size_of(S, b.alu(VLG_OP_ADD, reg(31), 0xf, reg(30), reg(29))), 1u);
   EXPECT_EQ(size_of(S, b.alu(VLG_OP_ADD, reg(32), 0xf, reg(30), reg(29))), 2u);
   EXPECT_EQ(size_of(S, b.alu(VLG_OP_ADD, reg(1), 0xf, reg(1), gbuf(31))), 1u);
   EXPECT_EQ(size_of(S, b.alu(VLG_OP_ADD, reg(1), 0xf, reg(1), gbuf(32))), 2u);
   EXPECT_EQ(size_of(S, b.alu(VLG_OP_MAD, reg(1), 0xf, reg(1), reg(2), reg(3))), 2u);
}

TEST(Emit, BranchTargetsAreUnitAddresses)
{
   /* B0: PRED | BRC.JMP B2 if P0 ; B1: MAD (2 units) ; B2: END */
   Shader S = physical(3);
   Builder b(S, 0);
   b.pred_imm(VLG_COND_INE, 0, reg(0), 0, 0);
   b.jump(2, VLG_BRCOND_P, 0);
   b.block = 1;
   b.alu(VLG_OP_MAD, reg(1), 0xf, reg(1), reg(2), reg(3));
   b.block = 2;
   b.end();
   one_per_bundle(S);
   S.blocks[0].bundles.clear();
   Bundle pair;
   pair.ph[0] = 0;
   pair.ph[1] = 1;
   S.blocks[0].bundles.push_back(pair);
   S.num_regs = 4;
   Binary bin = emit_program(S);
   /* PRED | BRC = 2 units, MAD = 2 units: B2 starts at unit 4 */
   ASSERT_EQ(bin.block_address, (std::vector<unsigned>{0, 2, 4}));
   ASSERT_EQ(bin.units.size(), 5u);
   vlg_instr in;
   vlg_isa_error err;
   ASSERT_EQ(vlg_decode(bin.units.data(), bin.units.size(), &in, &err), 2u) << err.msg;
   EXPECT_EQ(in.phase[1].main.opcode, VLG_OP_BRC);
   EXPECT_EQ(in.phase[1].main.target, 4u);
   EXPECT_EQ(bin.dual, 1u);
   EXPECT_EQ(bin.instructions, 3u);
}

TEST(Emit, EveryGlslShaderDisassembles)
{
   CompiledProgram p =
      compile_glsl("attribute vec4 a; uniform mat4 m; varying vec3 v;\n"
                   "void main() { v = normalize(a.xyz) * 2.0; gl_Position = m * a; }\n",
                   "precision mediump float; varying vec3 v; uniform sampler2D s;\n"
                   "void main() { vec4 c = texture2D(s, v.xy); if (c.a < 0.5) discard;\n"
                   "  gl_FragColor = c * v.z; }\n");
   ASSERT_TRUE(p.vs && p.fs) << p.error;
   for (const vlg_compiled_shader *cs : {p.vs.get(), p.fs.get()}) {
      std::string d = disasm_code(cs);
      EXPECT_EQ(d.find("error"), std::string::npos) << d;
      EXPECT_NE(d.find("BRC.END"), std::string::npos) << d;
   }
   EXPECT_TRUE(p.fs->state.uses_discard);
   EXPECT_TRUE(p.fs->state.uses_derivatives);
   EXPECT_EQ(p.fs->state.num_samplers, 1u);
}
