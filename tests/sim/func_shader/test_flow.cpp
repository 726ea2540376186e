/*
 * Control flow, phases and lanes on the SPC executor: the forwarding rules
 * of docs/isa.md section 2, per-lane PC divergence with minimum-PC issue and
 * reconvergence (section 1), loops with the seed-004 loop step, early exits,
 * conditional END, KILL demotion, DDX/DDY in quads, MVS, live/helper lanes.
 */
#include "shader_test_util.h"

namespace vlgpu::sim::test {
namespace {

const char *kIfElse = R"(
    PRED.LT P0, R1.x, R2.x | BRC.JMP else if !P0
    MOV R3, R4
    BRC.JMP endif
else:
    MOV R3, R5
endif:
    BRC.END
)";

TEST(ShaderFlow, PhaseOneReadsRegistersBeforePhaseZeroWrites)
{
   Shader s("MOV R1, R2 | ADD R3, R1, R4\n"
            "MOV R5, R6 | MUL R6, R5, C0\n" /* a swap in one instruction */
            "BRC.END\n",
            4, 8);
   s.set_all_f(1, 1.0f, 2.0f, 3.0f, 4.0f);
   s.set_all_f(2, 10.0f, 20.0f, 30.0f, 40.0f);
   s.set_all_f(4, 0.5f, 0.5f, 0.5f, 0.5f);
   s.set_all_f(5, -1.0f, -2.0f, -3.0f, -4.0f);
   s.set_all_f(6, 7.0f, 8.0f, 9.0f, 6.0f);
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   s.go();
   for (unsigned c = 0; c < 4; c++) {
      EXPECT_EQ(s.f(2, 1, c), 10.0f * float(c + 1));
      EXPECT_EQ(s.f(2, 3, c), float(c + 1) + 0.5f); /* old R1 */
      const float old6[4] = {7.0f, 8.0f, 9.0f, 6.0f};
      EXPECT_EQ(s.f(2, 5, c), old6[c]);
      EXPECT_EQ(s.f(2, 6, c), -float(c + 1));
   }
}

TEST(ShaderFlow, PhaseOneSeesPhaseZeroCoordinateRegisters)
{
   Shader s("ADDR LC, #7 | MVS R1, LC\n" /* new LC forwarded */
            "MVS R2, A0 | ADDR A0, #5\n" /* phase 0 reads the old A0 */
            "PRED.IEQ P2, R0.x, #0 | MVS R3, PRED\n"
            "MOV R4, R6 | PRED.IEQ P1, R4.x, #0\n" /* phase-1 PRED reads the old R4 */
            "MVS R5, PRED\n"
            "MVS R7, A0\n"
            "BRC.END\n",
            4, 8);
   for (unsigned l = 0; l < 4; l++) {
      s.tg->set(l, 0, 0, l);  /* P2 set for lane 0 only */
      s.tg->set(l, 6, 0, 9u); /* R4 becomes 9, but PRED sees 0 */
   }
   s.go();
   for (unsigned l = 0; l < 4; l++) {
      EXPECT_EQ(s.r(l, 1, 0), 7u);
      EXPECT_EQ(s.r(l, 1, 3), 7u);
      EXPECT_EQ(s.r(l, 2, 0), 0u);
      EXPECT_EQ(s.r(l, 7, 0), 5u);
      EXPECT_EQ(s.r(l, 3, 0), l == 0 ? 4u : 0u);
      EXPECT_EQ(s.r(l, 5, 0), (l == 0 ? 4u : 0u) | 2u);
      EXPECT_EQ(s.r(l, 4, 0), 9u);
      EXPECT_EQ(s.tg->lc(l), 7);
      EXPECT_EQ(s.tg->a0(l), 5);
      EXPECT_EQ(s.tg->pred(l), (l == 0 ? 4u : 0u) | 2u);
   }
}

TEST(ShaderFlow, DivergentIfElseReconvergesAtTheLowestPc)
{
   Shader s(kIfElse, 16, 8);
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set_f(l, 1, 0, float(l));
      s.tg->set_f(l, 2, 0, 8.0f);
      for (unsigned c = 0; c < 4; c++) {
         s.tg->set_f(l, 4, c, float(100 + l));
         s.tg->set_f(l, 5, c, float(200 + l));
      }
   }
   /* Units: PRED|BRC 0-1, MOV 2, BRC.JMP 3, else: MOV 4, endif: BRC.END 5. */
   struct Want {
      uint32_t pc;
      uint64_t active;
   } want[] = {{0, 0xFFFF}, {2, 0x00FF}, {3, 0x00FF}, {4, 0xFF00}, {5, 0xFFFF}};
   for (unsigned i = 0; i < 5; i++) {
      StepResult r = s.next();
      ASSERT_NE(r.instr, nullptr);
      EXPECT_EQ(r.pc, want[i].pc) << "step " << i;
      EXPECT_EQ(r.active, want[i].active) << "step " << i;
      EXPECT_EQ(r.ended, i == 4);
   }
   StepResult r = s.next();
   EXPECT_EQ(r.instr, nullptr);
   EXPECT_TRUE(r.ended);
   for (unsigned l = 0; l < 16; l++) {
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(s.f(l, 3, c), l < 8 ? float(100 + l) : float(200 + l)) << "lane " << l;
      EXPECT_EQ(s.tg->end_pc(l), 5u) << "every lane ends at the same BRC.END";
   }
}

TEST(ShaderFlow, LoopStepIteratesExactlyOneHundredTimes)
{
   Shader s(R"(
    ADDR LC, #0
loop:
    ADD R1, R1, C0
    PRED.ILT P0, ++LC, #100 | BRC.JMP loop if P0
    BRC.END
)",
            16, 4);
   s.set_const_f(0, 1.0f, 2.0f, 0.5f, -1.0f);
   RunResult rr = s.go();
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.f(l, 1, 0), 100.0f);
      EXPECT_EQ(s.f(l, 1, 1), 200.0f);
      EXPECT_EQ(s.f(l, 1, 2), 50.0f);
      EXPECT_EQ(s.f(l, 1, 3), -100.0f);
      EXPECT_EQ(s.tg->lc(l), 100);
   }
   EXPECT_EQ(rr.instructions, 1u + 100u * 2u + 1u);
   EXPECT_EQ(rr.dual_issued, 100u);
   EXPECT_EQ(rr.lane_instructions, 16u * rr.instructions);
   /* per class: ADDR+PRED coord, ADD add, BRC flow */
   EXPECT_EQ(rr.class_ops[__builtin_ctz(VLG_CLASS_ADD)], 100u);
   EXPECT_EQ(rr.class_ops[__builtin_ctz(VLG_CLASS_COORD)], 101u);
   EXPECT_EQ(rr.class_ops[__builtin_ctz(VLG_CLASS_FLOW)], 101u);
   EXPECT_EQ(rr.class_ops[__builtin_ctz(VLG_CLASS_MUL)], 0u);
}

TEST(ShaderFlow, PerLaneTripCountsDiverge)
{
   Shader s(R"(
    ADDR LC, #0
loop:
    ADD R1, R1, C0
    PRED.ILT P0, ++LC, R6.x | BRC.JMP loop if P0
    BRC.END
)",
            16, 8);
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 6, 0, l + 1);
   RunResult rr = s.go();
   uint64_t lane_instr = 16 + 16; /* ADDR, BRC.END */
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.f(l, 1, 0), float(l + 1));
      EXPECT_EQ(s.tg->lc(l), int32_t(l + 1));
      lane_instr += 2 * (l + 1);
   }
   EXPECT_EQ(rr.instructions, 1u + 16u * 2u + 1u);
   EXPECT_EQ(rr.lane_instructions, lane_instr);
}

TEST(ShaderFlow, NestedLoops)
{
   /* Outer counter in R5.x (int), inner loop on LC; inner trip count per lane
    * in R6.x, so the inner loops diverge inside a uniform outer loop. */
   Shader s(R"(
    MOV R5, C1
outer:
    ADDR LC, #0
inner:
    ADD R1, R1, C0
    PRED.ILT P0, ++LC, R6.x | BRC.JMP inner if P0
    IADD R5, R5, C2
    PRED.ILT P1, R5.x, #3 | BRC.JMP outer if P1
    BRC.END
)",
            16, 8);
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   s.set_const(1, {0u, 0u, 0u, 0u});
   s.set_const(2, {1u, 1u, 1u, 1u});
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 6, 0, (l % 4) + 1);
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.f(l, 1, 0), 3.0f * float((l % 4) + 1)) << "lane " << l;
      EXPECT_EQ(s.r(l, 5, 0), 3u);
   }
}

TEST(ShaderFlow, BreakLeavesTheLoopEarly)
{
   Shader s(R"(
    ADDR LC, #0
loop:
    ADD R1, R1, C0
    PRED.GE P1, R1.x, R7.x | BRC.JMP done if P1
    PRED.ILT P0, ++LC, #10 | BRC.JMP loop if P0
done:
    MUL R2, R1, C1
    BRC.END
)",
            16, 8);
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   s.set_const_f(1, 2.0f, 2.0f, 2.0f, 2.0f);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set_f(l, 7, 0, l == 15 ? 100.0f : float(l % 5 + 1));
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      const float want = l == 15 ? 10.0f : float(l % 5 + 1);
      EXPECT_EQ(s.f(l, 1, 0), want) << "lane " << l;
      EXPECT_EQ(s.f(l, 2, 0), 2.0f * want) << "lane " << l;
   }
}

TEST(ShaderFlow, ConditionalEndStopsSomeLanes)
{
   Shader s(R"(
    PRED.ILT P0, R0.x, #4 | BRC.END if P0
    MOV R2, C0
    BRC.END
)",
            16, 4);
   s.set_const_f(0, 5.0f, 6.0f, 7.0f, 8.0f);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 0, 0, l);
   RunResult rr = s.go();
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.f(l, 2, 1), l < 4 ? 0.0f : 6.0f);
      EXPECT_EQ(s.tg->end_pc(l), l < 4 ? 0u : 3u);
   }
   EXPECT_EQ(s.tg->ended_mask(), 0xFFFFu);
   EXPECT_EQ(rr.lane_instructions, 16u + 12u + 12u);
}

TEST(ShaderFlow, KilledLanesStillFeedDerivatives)
{
   Shader s(R"(
    PRED.IEQ P0, R0.x, #1 | BRC.KILL if P0
    MUL R2, R1, R1
    DDX R3, R2
    DDY R4, R2
    MVS R5.x, HELPER
    BRC.END
)",
            8, 8, VLG_SHADER_STAGE_FRAGMENT);
   for (unsigned l = 0; l < 8; l++)
      s.tg->set(l, 0, 0, l);
   for (unsigned l = 0; l < 8; l++)
      for (unsigned c = 0; c < 4; c++)
         s.tg->set_f(l, 1, c, float(l + 1) * float(c + 1));
   s.go();
   for (unsigned l = 0; l < 8; l++) {
      const unsigned q = l & ~3u;
      for (unsigned c = 0; c < 4; c++) {
         auto v = [&](unsigned lane) {
            const float x = float(lane + 1) * float(c + 1);
            return x * x;
         };
         /* quad lanes: 0=(x,y) 1=(x+1,y) 2=(x,y+1) 3=(x+1,y+1) */
         const float ddx = (l - q) < 2 ? v(q + 1) - v(q) : v(q + 3) - v(q + 2);
         const float ddy = (l - q) % 2 == 0 ? v(q + 2) - v(q) : v(q + 3) - v(q + 1);
         EXPECT_EQ(s.f(l, 3, c), ddx) << "lane " << l << " comp " << c;
         EXPECT_EQ(s.f(l, 4, c), ddy) << "lane " << l << " comp " << c;
      }
      EXPECT_EQ(s.r(l, 5, 0), l == 1 ? ~0u : 0u);
   }
   /* The killed lane's own register was written (it executes)... */
   EXPECT_EQ(s.f(1, 2, 0), 4.0f);
   /* ...but its outputs do not count. */
   EXPECT_EQ(s.tg->killed_mask(), 0x2u);
   EXPECT_EQ(s.tg->output_mask(), 0xFDu);
}

TEST(ShaderFlow, DerivativesOnAKnownQuad)
{
   Shader s("DDX R3, R2\nDDY R4, -R2.yyyy\nDDX.SAT R5.zw, R2\nBRC.END\n", 4, 8,
            VLG_SHADER_STAGE_FRAGMENT);
   const float v[4] = {1.0f, 4.0f, 9.0f, 16.0f};
   for (unsigned l = 0; l < 4; l++) {
      s.tg->set_f(l, 2, 0, v[l]);
      s.tg->set_f(l, 2, 1, 2.0f * v[l]);
      s.tg->set_f(l, 2, 2, 0.1f * v[l]);
      s.tg->set_f(l, 2, 3, -v[l]);
   }
   s.go();
   EXPECT_EQ(s.f(0, 3, 0), 3.0f);
   EXPECT_EQ(s.f(1, 3, 0), 3.0f);
   EXPECT_EQ(s.f(2, 3, 0), 7.0f);
   EXPECT_EQ(s.f(3, 3, 0), 7.0f);
   EXPECT_EQ(s.f(0, 4, 2), -16.0f); /* -(2*9 - 2*1) */
   EXPECT_EQ(s.f(1, 4, 2), -24.0f); /* -(2*16 - 2*4) */
   EXPECT_EQ(s.f(2, 4, 2), -16.0f);
   EXPECT_EQ(s.f(3, 4, 2), -24.0f);
   EXPECT_EQ(s.f(0, 5, 2), 0.1f * 4.0f - 0.1f * 1.0f);
   EXPECT_EQ(s.r(0, 5, 3), 0u); /* -3 saturated */
   EXPECT_EQ(s.r(0, 5, 0), 0u); /* masked */

   Shader vs("DDX R3, R2\nDDY R4, R2\nBRC.END\n", 4, 8, VLG_SHADER_STAGE_VERTEX);
   vs.set_all_f(2, 1.0f, 2.0f, 3.0f, 4.0f);
   vs.set_all_f(3, 9.0f, 9.0f, 9.0f, 9.0f);
   vs.tg->set_f(1, 2, 0, 50.0f);
   vs.go();
   for (unsigned l = 0; l < 4; l++)
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(vs.r(l, 3, c), 0u);
         EXPECT_EQ(vs.r(l, 4, c), 0u);
      }
}

TEST(ShaderFlow, WhenEveryLaneIsKilledTheGroupStops)
{
   Shader s("BRC.KILL\nloop:\n    BRC.JMP loop\n", 4, 4, VLG_SHADER_STAGE_FRAGMENT);
   s.res.max_instructions = 100;
   RunResult rr = s.go();
   EXPECT_EQ(rr.instructions, 1u);
   EXPECT_TRUE(s.tg->done());
   EXPECT_EQ(s.tg->output_mask(), 0u);
}

TEST(ShaderFlow, HelperLanesRunButOnlyUntilTheRealLanesEnd)
{
   /* Lane 3 is a quad-completion helper: it executes (its registers change,
    * DDX uses them) and stops when the real lanes end. */
   Shader s(R"(
    ADD R1, R0, C0
    PRED.IEQ P0, R2.x, #0 | BRC.END if P0
loop:
    BRC.JMP loop
)",
            4, 4, VLG_SHADER_STAGE_FRAGMENT);
   s.tg->set_helper_mask(0x8);
   for (unsigned l = 0; l < 4; l++)
      s.tg->set(l, 2, 0, l == 3 ? 1u : 0u); /* the helper would loop forever */
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   s.res.max_instructions = 50;
   RunResult rr = s.go();
   EXPECT_EQ(rr.instructions, 2u);
   EXPECT_EQ(s.f(3, 1, 0), 1.0f);
   EXPECT_EQ(s.tg->output_mask(), 0x7u);
}

TEST(ShaderFlow, LanesOutsideTheLiveMaskNeverRun)
{
   Shader s("ADD R1, R0, C0\nBRC.END\n", 16, 4);
   s.tg->set_live_mask(0x7);
   s.set_const_f(0, 1.0f, 1.0f, 1.0f, 1.0f);
   RunResult rr = s.go();
   EXPECT_EQ(rr.lane_instructions, 6u);
   EXPECT_EQ(s.f(2, 1, 0), 1.0f);
   EXPECT_EQ(s.r(3, 1, 0), 0u);
   Shader none("ADD R1, R0, C0\nBRC.END\n", 16, 4);
   none.tg->set_live_mask(0);
   EXPECT_EQ(none.go().instructions, 0u);
}

TEST(ShaderFlow, MoveStatusRegisters)
{
   Shader s(R"(
    MVS R1.x, LANE
    MVS R1.y, TGID
    MVS R1.z, HELPER
    ADDR.FLOOR A0, R0.x, #-4
    ADDR LC, R0.y, #3
    ADDR.INC LC, #10
    MVS R2.xy, A0
    MVS R2.zw, LC
    BRC.END
)",
            8, 4, VLG_SHADER_STAGE_FRAGMENT, 42);
   s.tg->set_helper_mask(0x30);
   for (unsigned l = 0; l < 8; l++) {
      s.tg->set_f(l, 0, 0, float(l) - 2.5f);
      s.tg->set(l, 0, 1, uint32_t(-int32_t(l)));
   }
   s.go();
   for (unsigned l = 0; l < 8; l++) {
      EXPECT_EQ(s.r(l, 1, 0), l);
      EXPECT_EQ(s.r(l, 1, 1), 42u);
      EXPECT_EQ(s.r(l, 1, 2), (l == 4 || l == 5) ? ~0u : 0u);
      const int32_t a0 = int32_t(std::floor(float(l) - 2.5f)) - 4;
      EXPECT_EQ(int32_t(s.r(l, 2, 0)), a0);
      EXPECT_EQ(int32_t(s.r(l, 2, 1)), a0);
      EXPECT_EQ(int32_t(s.r(l, 2, 2)), -int32_t(l) + 3 + 10);
      EXPECT_EQ(int32_t(s.r(l, 2, 3)), -int32_t(l) + 13);
   }
}

TEST(ShaderFlow, PredicateConditionsAndOperands)
{
   /* Float conditions compare floats (integer LC/A0/immediates by value);
    * integer conditions compare int32 bits. */
   Shader s(R"(
    ADDR LC, #-2
    PRED.LT P0, R0.x, R0.y
    PRED.NE P1, R0.x, R0.y
    PRED.GE P2, LC, #1
    PRED.ILT P3, R0.z, R0.w
    MVS R1, PRED
    PRED.EQ P0, R0.x, #3
    PRED.IGE P1, R0.z, #5
    PRED.IEQ P2, R0.z, #5
    PRED.INE P3, A0, #0
    MVS R2, PRED
    BRC.END
)",
            4, 4);
   const float x[4] = {1.0f, 3.0f, kNaN, -1.0f};
   const float y[4] = {2.0f, 3.0f, 1.0f, -kInf};
   const int32_t z[4] = {-5, 5, 7, 0};
   const int32_t w[4] = {3, 5, -7, 0};
   for (unsigned l = 0; l < 4; l++) {
      s.tg->set_f(l, 0, 0, x[l]);
      s.tg->set_f(l, 0, 1, y[l]);
      s.tg->set(l, 0, 2, uint32_t(z[l]));
      s.tg->set(l, 0, 3, uint32_t(w[l]));
   }
   s.go();
   for (unsigned l = 0; l < 4; l++) {
      unsigned p = 0;
      p |= (x[l] < y[l]) ? 1u : 0u;
      p |= !(x[l] == y[l]) ? 2u : 0u;
      p |= (-2.0f >= 1.0f) ? 4u : 0u;
      p |= (z[l] < w[l]) ? 8u : 0u;
      EXPECT_EQ(s.r(l, 1, 0), p) << "lane " << l;
      unsigned q = 0;
      q |= (x[l] == 3.0f) ? 1u : 0u;
      q |= (z[l] >= 5) ? 2u : 0u;
      q |= (z[l] == 5) ? 4u : 0u;
      q |= 0u; /* A0 is 0 */
      EXPECT_EQ(s.r(l, 2, 3), q) << "lane " << l;
   }
}

TEST(ShaderFlow, StepReportsTheInstructionFacts)
{
   Shader s("MUL R5, R6, R7 | ADD R8, R9, R10\nMAD R1, R2, C3, R1\nBRC.END\n", 16, 16);
   StepResult r = s.next();
   ASSERT_NE(r.instr, nullptr);
   EXPECT_TRUE(r.instr->dual);
   EXPECT_EQ(r.instr->size, 2u);
   EXPECT_EQ(r.instr->classes[0], VLG_CLASS_MUL);
   EXPECT_EQ(r.instr->classes[1], VLG_CLASS_ADD);
   EXPECT_EQ(r.instr->latency, vlg_op_table[VLG_OP_MUL].latency);
   ASSERT_EQ(r.instr->nwrites, 2u);
   EXPECT_EQ(r.instr->writes[0].reg, 5u);
   EXPECT_EQ(r.instr->writes[0].latency, vlg_op_table[VLG_OP_MUL].latency);
   EXPECT_EQ(r.instr->writes[1].reg, 8u);
   EXPECT_EQ(r.instr->writes[1].latency, vlg_op_table[VLG_OP_ADD].latency);
   EXPECT_EQ(r.instr->nreads, 4u);
   EXPECT_EQ(r.mem, MemKind::None);
   EXPECT_FALSE(r.ended);
   r = s.next();
   EXPECT_EQ(r.pc, 2u);
   EXPECT_FALSE(r.instr->dual);
   EXPECT_EQ(r.instr->classes[0], VLG_CLASS_MUL | VLG_CLASS_ADD);
   ASSERT_EQ(r.instr->nreads, 2u); /* R2 and R1; C3 is not a register */
   /* the rest with run() */
   RunResult rr = s.go();
   EXPECT_EQ(rr.instructions, 1u);
   EXPECT_TRUE(s.tg->done());
}

} // namespace
} // namespace vlgpu::sim::test
