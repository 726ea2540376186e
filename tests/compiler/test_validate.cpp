/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * IR validation (vlg_validate.cpp): a valid program passes after every
 * pass, and each rule fires on IR broken in that one way, with a message
 * naming the pass, the rule and the instruction.
 */
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

/* The message of validate()'s InternalError (a broken invariant is a
 * compiler bug, not a CompileError), "" if the IR is valid. */
std::string
failure(const Shader &S, const char *pass = "test")
{
   try {
      validate(S, pass);
   } catch (const InternalError &e) {
      EXPECT_STREQ(e.file, "vlg_validate.cpp");
      return e.what();
   }
   return "";
}

#define EXPECT_RULE(S, text)                                                                       \
   do {                                                                                            \
      std::string msg_ = failure(S);                                                               \
      EXPECT_NE(msg_.find(text), std::string::npos) << "message: '" << msg_ << "'";                \
   } while (0)

/* %0 input; %1 = %0 + 1.0; %2 = %1 * %0; output %3 = %2 (a MOV coalescing removes). */
Shader
valid_program()
{
   Shader S = make_shader(4);
   S.inputs.push_back({0, 0xf, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   S.outputs.push_back({3, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), imm_f(1.0f));
   b.alu(VLG_OP_MUL, reg(2), 0xf, reg(1), reg(0));
   b.mov(reg(3), 0xf, reg(2));
   b.end();
   compute_cfg(S);
   return S;
}

/* A valid program, packed and legalized. */
Shader
legalized_program()
{
   Shader S = valid_program();
   pack_global_buffer(S, true);
   legalize(S);
   return S;
}

} // namespace

TEST(Validate, ValidProgramPassesAfterEveryPass)
{
   Shader S = valid_program();
   EXPECT_EQ(failure(S, "isel"), "");
   pack_global_buffer(S, true);
   EXPECT_EQ(failure(S, "pack"), "");
   legalize(S);
   EXPECT_TRUE(S.legalized);
   EXPECT_EQ(failure(S, "legalize"), "");
   coalesce_copies(S);
   EXPECT_EQ(failure(S, "coalesce"), "");
   schedule(S, true, true);
   EXPECT_EQ(failure(S, "sched"), "");
   register_allocate(S, true, true);
   EXPECT_EQ(failure(S, "ra"), "");
}

TEST(Validate, MessageNamesPassRuleAndInstruction)
{
   Shader S = valid_program();
   S.blocks[0].instrs[1].src[1] = Operand(); /* MUL with one source */
   std::string m = failure(S, "legalize");
   EXPECT_EQ(m.rfind("vlg_validate.cpp:", 0), 0u) << m;
   EXPECT_NE(m.find(": IR validation failed after legalize: "), std::string::npos) << m;
   EXPECT_NE(m.find("MUL takes 2 source(s)"), std::string::npos) << m;
   EXPECT_NE(m.find("(block 0): MUL %2"), std::string::npos) << m;
}

TEST(Validate, TerminatorMustBeLastInItsBlock)
{
   Shader S = valid_program();
   Builder b(S);
   b.mov(reg(3), 0x1, reg(0)); /* after BRC.END */
   EXPECT_RULE(S, "not the last op of its block");
}

TEST(Validate, JumpTargetInsideTheProgram)
{
   Shader S = make_shader(1, 2);
   Builder b(S);
   b.jump(7);
   b.block = 1;
   b.end();
   EXPECT_RULE(S, "jump target outside the program");
}

TEST(Validate, LastBlockMustNotFallOffTheEnd)
{
   Shader S = make_shader(2);
   Builder b(S);
   b.mov(reg(1), 0xf, imm_f(0.0f));
   compute_cfg(S);
   EXPECT_RULE(S, "falls off the end");
}

TEST(Validate, SuccessorsFollowTheBranches)
{
   Shader S = make_shader(1, 3);
   Builder b(S);
   b.jump(2);
   b.block = 1;
   b.end();
   b.block = 2;
   b.end();
   compute_cfg(S);
   EXPECT_EQ(failure(S), "");
   S.blocks[0].instrs[0].target = 1; /* retargeted without compute_cfg */
   EXPECT_RULE(S, "successors/predecessors differ");
}

TEST(Validate, OpcodeMustBeDefined)
{
   Shader S = valid_program();
   S.blocks[0].instrs[0].op = 64; /* vlg_op_table has opcodes 0..63 */
   ASSERT_EQ(vlg_op_info(64), nullptr);
   EXPECT_RULE(S, "undefined opcode 64");
}

TEST(Validate, AluSourceCountFromTheOpTable)
{
   Shader S = valid_program();
   S.blocks[0].instrs[2].src[1] = reg(1); /* MOV with a second source */
   EXPECT_RULE(S, "MOV takes 1 source(s)");
}

TEST(Validate, AluWritesARegister)
{
   Shader S = valid_program();
   S.blocks[0].instrs[0].wmask = 0;
   EXPECT_RULE(S, "non-empty write mask");
   S = valid_program();
   S.blocks[0].instrs[0].dst = Operand();
   EXPECT_RULE(S, "non-empty write mask");
   S = valid_program();
   S.blocks[0].instrs[0].dst = imm_u(0);
   EXPECT_RULE(S, "non-empty write mask");
   S = valid_program();
   S.blocks[0].instrs[0].wmask = 0x13;
   EXPECT_RULE(S, "write mask beyond xyzw");
}

TEST(Validate, VirtualRegistersExistAndOffsetsFit)
{
   Shader S = valid_program();
   S.blocks[0].instrs[1].src[0] = reg(9);
   EXPECT_RULE(S, "virtual register %9 was never created");
   S = valid_program();
   S.blocks[0].instrs[1].src[0] = reg(1, VLG_SWZ_IDENTITY, 1);
   EXPECT_RULE(S, "register offset beyond");
}

TEST(Validate, LiteralsOnlyBeforePacking)
{
   Shader S = valid_program();
   S.packed = true;
   EXPECT_RULE(S, "left after global-buffer packing");
   S = valid_program();
   S.blocks[0].instrs[1].src[1] = unif(0);
   S.packed = true;
   S.blocks[0].instrs[0].src[1] = reg(0);
   EXPECT_RULE(S, "left after global-buffer packing");
}

TEST(Validate, GlobalBufferEntriesOnlyAfterPackingAndInsideTheImage)
{
   Shader S = valid_program();
   S.blocks[0].instrs[1].src[1] = gbuf(0);
   EXPECT_RULE(S, "global-buffer entry before packing");
   S = legalized_program();
   ASSERT_EQ(S.consts.size(), 1u);
   S.blocks[0].instrs[1].src[1] = gbuf(1);
   EXPECT_RULE(S, "beyond the image (1 entries)");
}

TEST(Validate, LegalizedAluReadsOnlyTheDirectEntries)
{
   Shader S = legalized_program();
   S.consts.resize(VLG_DIRECT_GLOBAL + 1);
   S.blocks[0].instrs[1].src[1] = gbuf(VLG_DIRECT_GLOBAL);
   EXPECT_RULE(S, "needs LDC");
   S.legalized = false; /* the same IR before legalize() is fine */
   EXPECT_EQ(failure(S), "");
}

TEST(Validate, LegalizedNoModifiersOnBitOperands)
{
   Shader S = legalized_program();
   Instr end = S.blocks[0].instrs.back(); /* BRC.END stays last */
   S.blocks[0].instrs.pop_back();
   Builder b(S);
   b.alu(VLG_OP_AND, reg(3), 0xf, neg(reg(0)), reg(1));
   S.blocks[0].instrs.push_back(end);
   EXPECT_RULE(S, "negate/abs on a raw-bit or unsigned operand");
}

TEST(Validate, LegalizedMadOperandLimits)
{
   Shader S = legalized_program();
   Instr end = S.blocks[0].instrs.back();
   S.blocks[0].instrs.pop_back();
   Builder b(S);
   b.alu(VLG_OP_MAD, reg(3), 0xf, reg(0), reg(1, VLG_SWZ(1, 0, 3, 2)), reg(2));
   S.blocks[0].instrs.push_back(end);
   EXPECT_RULE(S, "B none");
   S.blocks[0].instrs[S.blocks[0].instrs.size() - 2].src[1] = reg(1);
   EXPECT_EQ(failure(S), "");
   S.blocks[0].instrs[S.blocks[0].instrs.size() - 2].src[2] = abs(reg(2));
   EXPECT_RULE(S, "absolute value");
}

TEST(Validate, EveryOpInExactlyOneBundle)
{
   Shader S = legalized_program();
   schedule(S, false, false);
   ASSERT_EQ(failure(S), "");
   Block &B = S.blocks[0];
   Bundle twice;
   twice.ph[0] = B.bundles[0].ph[0];
   B.bundles.insert(B.bundles.begin(), twice);
   EXPECT_RULE(S, "in 2 bundle phases");
   B.bundles.erase(B.bundles.begin());
   B.bundles.erase(B.bundles.begin());
   EXPECT_RULE(S, "in 0 bundle phases");
}

TEST(Validate, PhaseLegalFromTheOpTable)
{
   Shader S = legalized_program();
   schedule(S, false, false);
   Block &B = S.blocks[0];
   Bundle &last = B.bundles.back();
   if (last.ph[0] < 0)
      std::swap(last.ph[0], last.ph[1]); /* BRC.END as phase 0 */
   ASSERT_TRUE(B.instrs[last.ph[0]].is_end());
   ASSERT_FALSE(vlg_op_info(VLG_OP_BRC)->phases & 1) << "BRC is phase 1 only (isa.py)";
   EXPECT_RULE(S, "phase vlg_op_table does not allow (phase 0)");
}

TEST(Validate, TerminatorInTheLastBundle)
{
   Shader S = legalized_program();
   schedule(S, false, false);
   Block &B = S.blocks[0];
   Bundle end = B.bundles.back();
   B.bundles.pop_back();
   if (end.ph[1] < 0)
      std::swap(end.ph[0], end.ph[1]); /* END as phase 1, legal */
   B.bundles.insert(B.bundles.begin(), end);
   EXPECT_RULE(S, "terminator not in the block's last bundle");
}

TEST(Validate, PhysicalRegistersBelowNumRegs)
{
   Shader S = legalized_program();
   schedule(S, true, true);
   register_allocate(S, true, true);
   ASSERT_EQ(failure(S), "");
   for (Instr &I : S.blocks[0].instrs)
      if (!I.dead && I.dst.is_reg()) {
         I.dst.index = S.num_regs;
         break;
      }
   EXPECT_RULE(S, "physical register beyond num_regs");
}

TEST(Validate, TextureGroupFitsItsVirtualRegister)
{
   Shader S = make_shader(3);
   Builder b(S);
   b.tex(VLG_OP_TXL, reg(1), 0xf, reg(0), 0, false, false, 0x3, 0x1, 0);
   b.end();
   compute_cfg(S);
   EXPECT_RULE(S, "texture coordinate group wider");
   S.vregs[0].width = 2;
   EXPECT_EQ(failure(S), "");
}

TEST(Validate, MemOperandsMatchTheKind)
{
   Shader S = make_shader(3, 1, MESA_SHADER_COMPUTE);
   Builder b(S);
   Instr st;
   st.op = VLG_OP_MEM;
   st.kind = VLG_MEMKIND_ST;
   st.src[0] = reg(1);
   st.src[1] = reg(0);
   b.emit(st);
   b.end();
   compute_cfg(S);
   EXPECT_EQ(failure(S), "");
   S.blocks[0].instrs[0].src[1] = Operand(); /* a store without an address */
   EXPECT_RULE(S, "MEM operands do not match its kind");
   S.blocks[0].instrs[0].src[1] = reg(0);
   S.blocks[0].instrs[0].kind = VLG_MEMKIND_BAR; /* a barrier with operands */
   EXPECT_RULE(S, "MEM operands do not match its kind");
}

TEST(Validate, IoMapsNameValidRegisters)
{
   Shader S = valid_program();
   S.inputs[0].vreg = 42;
   EXPECT_RULE(S, "input map names an invalid register (42)");
   S = valid_program();
   S.outputs[0].vreg = 42;
   EXPECT_RULE(S, "output map names an invalid register (42)");
}
