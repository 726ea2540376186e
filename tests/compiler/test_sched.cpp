/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Dual-phase scheduling (vlg_sched.cpp): pairs ops of different functional
 * classes, never the same class, respects register dependencies with the
 * latencies of vlg_op_table, forwards PRED -> BRC and ADDR -> LDC inside one
 * instruction, keeps the terminator last. Expected cycle counts are derived
 * from vlg_op_table's latencies (the ISA's one source, isa.py) by hand here.
 */
#include <functional>

#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

unsigned
lat(unsigned op)
{
   return vlg_op_info(op)->latency;
}

/* Ops of each bundle as "OP|OP" strings (mnemonics) */
std::vector<std::string>
bundle_ops(const Shader &S, unsigned block = 0)
{
   std::vector<std::string> r;
   const Block &B = S.blocks[block];
   for (const Bundle &bu : B.bundles) {
      std::string s;
      for (unsigned p = 0; p < 2; p++) {
         if (p)
            s += "|";
         if (bu.ph[p] >= 0)
            s += vlg_op_info(B.instrs[bu.ph[p]].op)->name;
      }
      r.push_back(s);
   }
   return r;
}

} // namespace

TEST(Sched, PairsDifferentClasses)
{
   Shader S = make_shader(4);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(2), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_MUL, reg(3), 0xf, reg(0), reg(1));
   b.end();
   schedule(S, true, true);
   /* ADD and MUL pair; END waits for nothing but comes last */
   auto ops = bundle_ops(S);
   ASSERT_EQ(ops.size(), 2u);
   EXPECT_TRUE(ops[0] == "ADD|MUL" || ops[0] == "MUL|ADD") << ops[0];
   EXPECT_EQ(ops[1], "|BRC");
}

TEST(Sched, NeverPairsSameClass)
{
   Shader S = make_shader(4);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(2), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_MAX, reg(3), 0xf, reg(0), reg(1));         /* both in the adder array */
   b.alu(VLG_OP_MAD, reg(1), 0xf, reg(0), reg(0), reg(0)); /* mul + add */
   b.jump(0);
   schedule(S, true, true);
   for (const Bundle &bu : S.blocks[0].bundles)
      if (bu.ph[0] >= 0 && bu.ph[1] >= 0) {
         unsigned c0 = vlg_op_info(S.blocks[0].instrs[bu.ph[0]].op)->classes;
         unsigned c1 = vlg_op_info(S.blocks[0].instrs[bu.ph[1]].op)->classes;
         EXPECT_EQ(c0 & c1, 0u);
      }
   /* ADD, MAX and MAD all use the adder: three instructions at least */
   EXPECT_GE(S.blocks[0].bundles.size(), 3u);
}

TEST(Sched, ReadAfterWriteWaitsForLatency)
{
   Shader S = make_shader(4);
   Builder b(S);
   b.alu(VLG_OP_MUL, reg(2), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_ADD, reg(3), 0xf, reg(2), reg(1)); /* needs the MUL result */
   b.end();
   schedule(S, true, true);
   auto ops = bundle_ops(S);
   ASSERT_EQ(ops.size(), 2u); /* never MUL|ADD in one instruction */
   EXPECT_EQ(ops[0], "MUL|");
   EXPECT_EQ(ops[1], "ADD|BRC"); /* END reads no register: it shares the last one */
   /* MUL issues at 0, ADD (and END) at lat(MUL) */
   EXPECT_EQ(estimate_cycles(S), lat(VLG_OP_MUL) + 1);
}

TEST(Sched, IndependentWorkFillsLatency)
{
   /* RCP then its use, with independent MULs written after the use: the list
    * scheduler issues the MULs while RCP is in flight. */
   Shader S = make_shader(8);
   Builder b(S);
   b.alu(VLG_OP_RCP, reg(2), 0xf, reg(0));
   b.alu(VLG_OP_ADD, reg(3), 0xf, reg(2), reg(1));
   b.alu(VLG_OP_MUL, reg(4), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_MUL, reg(5), 0xf, reg(1), reg(1));
   b.alu(VLG_OP_MUL, reg(6), 0xf, reg(0), reg(0));
   b.end();
   Shader T = S;
   schedule(S, true, false);
   schedule(T, false, false);
   /* in order: RCP @0, ADD @lat(RCP), MULs after; reordered: the MULs at 1..3 */
   EXPECT_EQ(estimate_cycles(T), lat(VLG_OP_RCP) + 5);
   EXPECT_EQ(estimate_cycles(S), lat(VLG_OP_RCP) + 2);
}

TEST(Sched, PredForwardsToBranch)
{
   Shader S = make_shader(2, 2);
   Builder b(S);
   b.pred_imm(VLG_COND_INE, 0, reg(0), 0, 0);
   b.jump(1, VLG_BRCOND_P, 0);
   b.block = 1;
   b.end();
   compute_cfg(S);
   schedule(S, true, true);
   const Block &B = S.blocks[0];
   const Bundle &last = B.bundles.back();
   ASSERT_GE(last.ph[0], 0);
   ASSERT_GE(last.ph[1], 0);
   EXPECT_EQ(B.instrs[last.ph[0]].op, VLG_OP_PRED); /* PRED in phase 0 ... */
   EXPECT_EQ(B.instrs[last.ph[1]].op, VLG_OP_BRC);  /* ... seen by BRC in phase 1 */
}

TEST(Sched, AddrForwardsToLdc)
{
   Shader S = make_shader(3);
   Builder b(S);
   b.addr_a0(reg(0), 0, 0);
   b.ldc(reg(1), 0xf, gbuf(4), 0, true);
   b.end();
   schedule(S, true, true);
   auto ops = bundle_ops(S);
   ASSERT_GE(ops.size(), 1u);
   EXPECT_EQ(ops[0], "ADDR|LDC");
}

TEST(Sched, NoForwardingForAluResults)
{
   /* a phase-0 ALU result is not visible to phase 1: a MOV feeding TEX must
    * not share its instruction */
   Shader S = make_shader(3);
   Builder b(S);
   b.mov(reg(1), 0x3, reg(0));
   b.tex(VLG_OP_TEX, reg(2), 0xf, reg(1), 0, false, false, 0x3);
   b.end();
   schedule(S, true, true);
   auto ops = bundle_ops(S);
   EXPECT_EQ(ops[0], "MOV|");
   EXPECT_EQ(ops[1], "|TEX");
}

TEST(Sched, WriteAfterReadMayPair)
{
   /* MUL reads %0, ADD then overwrites %0: both read before either writes */
   Shader S = make_shader(3);
   Builder b(S);
   b.alu(VLG_OP_MUL, reg(2), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_ADD, reg(0), 0xf, reg(1), reg(1));
   b.end();
   schedule(S, false, true);
   auto ops = bundle_ops(S);
   EXPECT_EQ(ops[0], "MUL|ADD");
}

TEST(Sched, WritesToTheSameComponentNeverPair)
{
   Shader S = make_shader(3);
   Builder b(S);
   b.alu(VLG_OP_MUL, reg(2), 0x3, reg(0), reg(1));
   b.alu(VLG_OP_ADD, reg(2), 0x2, reg(1), reg(1)); /* y written twice */
   b.alu(VLG_OP_RCP, reg(2), 0x4, reg(1));         /* z: disjoint */
   b.end();
   schedule(S, true, true);
   const Block &B = S.blocks[0];
   for (const Bundle &bu : B.bundles)
      if (bu.ph[0] >= 0 && bu.ph[1] >= 0 && B.instrs[bu.ph[0]].dst.is_reg() &&
          B.instrs[bu.ph[1]].dst.is_reg()) {
         EXPECT_EQ(B.instrs[bu.ph[0]].wmask & B.instrs[bu.ph[1]].wmask, 0);
      }
}

TEST(Sched, TerminatorStaysLast)
{
   Shader S = make_shader(4, 2);
   Builder b(S);
   b.alu(VLG_OP_RCP, reg(1), 0xf, reg(0));
   b.alu(VLG_OP_MUL, reg(2), 0xf, reg(0), reg(0));
   b.jump(1);
   b.block = 1;
   b.end();
   compute_cfg(S);
   schedule(S, true, true);
   const Block &B = S.blocks[0];
   const Bundle &last = B.bundles.back();
   ASSERT_GE(last.ph[1], 0);
   EXPECT_TRUE(B.instrs[last.ph[1]].is_jump());
   for (unsigned i = 0; i + 1 < B.bundles.size(); i++)
      for (unsigned p = 0; p < 2; p++)
         if (B.bundles[i].ph[p] >= 0) {
            EXPECT_FALSE(B.instrs[B.bundles[i].ph[p]].is_jump());
         }
}

TEST(Sched, DualOffGivesOneOpPerInstruction)
{
   Shader S = make_shader(4);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(2), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_MUL, reg(3), 0xf, reg(0), reg(1));
   b.alu(VLG_OP_RCP, reg(1), 0xf, reg(0));
   b.end();
   schedule(S, true, false);
   for (const Bundle &bu : S.blocks[0].bundles)
      EXPECT_TRUE(bu.ph[0] < 0 || bu.ph[1] < 0);
   EXPECT_EQ(S.blocks[0].bundles.size(), 4u);
}

TEST(Sched, DependencyFacts)
{
   Shader S = make_shader(4);
   Builder b(S);
   Instr tex = b.tex(VLG_OP_TEX, reg(1), 0xf, reg(0), 0, false, false, 0x3);
   Instr use = b.alu(VLG_OP_ADD, reg(2), 0xf, reg(1), reg(0));
   Instr waw = b.mov(reg(1), 0x1, reg(0));
   Dep d = dependency(S, tex, use);
   EXPECT_TRUE(d.exists);
   EXPECT_EQ(d.lat, lat(VLG_OP_TEX));
   EXPECT_FALSE(d.fwd);
   /* a later write of the same component lands after the TEX's */
   Dep w = dependency(S, tex, waw);
   EXPECT_TRUE(w.exists);
   EXPECT_EQ(w.lat, lat(VLG_OP_TEX) - lat(VLG_OP_MOV) + 1);
   Dep none = dependency(S, use, waw); /* ADD reads %1, MOV writes %1: WAR */
   EXPECT_TRUE(none.exists);
   EXPECT_EQ(none.lat, 0u);
}

TEST(Sched, HoistingStopsBeforeTheRegisterFileIsFull)
{
   /* A balanced tree of ADDs over 160 RCP leaves, in depth-first isel order
    * (a handful of registers live). Every leaf has the same critical path,
    * so by priority alone the scheduler would issue all 160 RCPs first (160
    * live values: no fit, no spilling); the pressure guard stops hoisting
    * near the top of R0..R127. */
   const unsigned N = 160;
   Shader S = make_shader(1);
   S.inputs.push_back({0, 0x1, VLG_INTERP_PERSPECTIVE, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0, 0});
   Builder b(S);
   std::function<uint32_t(unsigned)> tree = [&](unsigned n) -> uint32_t {
      if (n == 1) {
         uint32_t v = S.new_vreg();
         b.alu(VLG_OP_RCP, reg(v), 0x1, reg(0));
         return v;
      }
      uint32_t l = tree(n / 2), r = tree(n - n / 2), v = S.new_vreg();
      b.alu(VLG_OP_ADD, reg(v), 0x1, reg(l), reg(r));
      return v;
   };
   uint32_t root = tree(N);
   S.outputs.push_back({root, 0x1, VLG_OUTPUT_SEMANTIC_POSITION, 0, 0});
   b.end();
   schedule(S, true, false); /* single issue: pairing would drain the ADDs alongside */
   ASSERT_NO_THROW(register_allocate(S, true, true));
   EXPECT_LE(S.num_regs, 128u);
   EXPECT_LE(S.max_pressure, 118u);
   /* and the hoisting did happen up to the guard */
   EXPECT_GT(S.max_pressure, 64u);
}
