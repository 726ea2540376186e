/*
 * GPU faults of the SPC executor (docs/simulator-spc.md "Faults"): each one
 * is a GpuFault from module SPC whose report names the PC, the disassembly
 * (or the units and the decoder's reason) and the thread group; the host
 * keeps running and the executor, the Program and the resources work again
 * afterwards.
 */
#include "shader_test_util.h"

namespace vlgpu::sim::test {
namespace {

std::shared_ptr<const Program>
from_units(std::vector<uint32_t> units, uint32_t entry = 0)
{
   return std::make_shared<const Program>(units.data(), uint32_t(units.size()), entry);
}

std::vector<uint32_t>
concat(std::vector<uint32_t> a, const std::vector<uint32_t> &b)
{
   a.insert(a.end(), b.begin(), b.end());
   return a;
}

bool
contains(const std::string &s, const std::string &part)
{
   return s.find(part) != std::string::npos;
}

std::string
fault_of(const Program &p, ThreadGroup &tg, const ShaderResources &res)
{
   try {
      run(tg, p, res);
   } catch (const GpuFault &f) {
      EXPECT_EQ(f.module(), "SPC");
      return f.what();
   }
   ADD_FAILURE() << "expected a GpuFault";
   return {};
}

TEST(ShaderFault, IllegalInstructionIsReportedWhenExecuted)
{
   /* 0xBF000000: E set, phase 0, opcode 0x3F (MEM, a phase-1 op). */
   auto p = from_units(concat(assemble("NOP\n"), {0xBF000000u}));
   ThreadGroup tg(16, 4, VLG_SHADER_STAGE_VERTEX, 3);
   ShaderResources res;
   const std::string what = fault_of(*p, tg, res);
   EXPECT_TRUE(contains(what, "GPU fault in SPC: illegal instruction")) << what;
   EXPECT_TRUE(contains(what, "PC 1 (0x0001)")) << what;
   EXPECT_TRUE(contains(what, "0xBF000000")) << what;
   EXPECT_TRUE(contains(what, "MEM is a phase-1 op; found in phase 0")) << what;
   EXPECT_TRUE(contains(what, "stage VERTEX, group 3")) << what;
   EXPECT_TRUE(contains(what, "live lanes 0xffff")) << what;
}

TEST(ShaderFault, UnreachableGarbageIsNeverDecodedOrExecuted)
{
   auto p = from_units(concat(concat(assemble("BRC.JMP #3\n"), {0xFFFFFFFFu, 0xBD000000u}),
                              assemble("MOV R1, R0\nBRC.END\n")));
   EXPECT_EQ(p->index_of_pc(1), -1);
   EXPECT_EQ(p->index_of_pc(2), -1);
   ThreadGroup tg(4, 4, VLG_SHADER_STAGE_VERTEX);
   tg.set_f(0, 0, 0, 2.5f);
   ShaderResources res;
   RunResult rr = run(tg, *p, res);
   EXPECT_EQ(rr.instructions, 3u);
   EXPECT_EQ(tg.get_f(0, 1, 0), 2.5f);
}

TEST(ShaderFault, FallingOffTheEnd)
{
   Shader s("MUL R1, R0.xxxx, C0\nMAD R1, R0.yyyy, C1, R1\n", 16, 4);
   const std::string what = expect_fault(s);
   EXPECT_TRUE(contains(what, "PC outside the program")) << what;
   EXPECT_TRUE(contains(what, "PC 3 (0x0003)")) << what;
   EXPECT_TRUE(contains(what, "without BRC.END")) << what;
}

TEST(ShaderFault, EntryOutsideTheProgram)
{
   auto u = assemble("BRC.END\n");
   auto p = from_units(u, 5);
   ThreadGroup tg(4, 4, VLG_SHADER_STAGE_VERTEX);
   ShaderResources res;
   const std::string what = fault_of(*p, tg, res);
   EXPECT_TRUE(contains(what, "entry point is outside the program")) << what;
}

TEST(ShaderFault, BranchTargetOutsideTheProgram)
{
   Shader s("NOP\nBRC.JMP #50\nBRC.END\n", 16, 4);
   const std::string what = expect_fault(s);
   EXPECT_TRUE(contains(what, "branch target outside the program")) << what;
   EXPECT_TRUE(contains(what, "PC 1 (0x0001): BRC.JMP #50")) << what;
   EXPECT_TRUE(contains(what, "target 50")) << what;

   /* Not taken by any lane: no fault. */
   Shader ok("PRED.ILT P0, R0.x, #0 | BRC.JMP #50 if P0\nBRC.END\n", 16, 4);
   EXPECT_EQ(ok.go().instructions, 2u);
}

TEST(ShaderFault, WatchdogStopsARunawayShader)
{
   Shader s("ADD R1, R1, C0\nloop:\n    BRC.JMP loop\n", 16, 4, VLG_SHADER_STAGE_VERTEX, 9);
   s.res.max_instructions = 1000;
   const std::string what = expect_fault(s);
   EXPECT_TRUE(contains(what, "shader did not end")) << what;
   EXPECT_TRUE(contains(what, "watchdog: 1000 instructions issued (limit 1000)")) << what;
   EXPECT_TRUE(contains(what, "BRC.JMP #1")) << what;
   EXPECT_TRUE(contains(what, "group 9")) << what;
   EXPECT_EQ(s.tg->instructions(), 1000u);
}

TEST(ShaderFault, RegisterBeyondNumRegs)
{
   Shader s("MOV R7, R1\nMOV R20, R1\nBRC.END\n", 16, 8);
   std::string what = expect_fault(s);
   EXPECT_TRUE(contains(what, "register beyond num_regs")) << what;
   EXPECT_TRUE(contains(what, "PC 1 (0x0001): MOV R20, R1")) << what;
   EXPECT_TRUE(contains(what, "uses R20 but the shader declares 8 registers")) << what;

   /* The texture operand registers count too: TXD reads R6, R7, R8. */
   Shader t("TXD R1, R6, T0\nBRC.END\n", 16, 8);
   what = expect_fault(t);
   EXPECT_TRUE(contains(what, "uses R8")) << what;

   Shader ok("MOV R7, R1\nMOV R20, R1\nBRC.END\n", 16, 21);
   EXPECT_EQ(ok.go().instructions, 3u);
}

TEST(ShaderFault, KillInAVertexShader)
{
   Shader s("BRC.KILL\nBRC.END\n", 4, 4, VLG_SHADER_STAGE_VERTEX);
   const std::string what = expect_fault(s);
   EXPECT_TRUE(contains(what, "BRC.KILL outside a fragment shader")) << what;
}

TEST(ShaderFault, TheExecutorWorksAgainAfterAFault)
{
   /* Lanes with R0.x < 1 branch out of the program: a data-dependent fault. */
   auto p = program("PRED.ILT P0, R0.x, #1 | BRC.JMP #40 if P0\nADD R1, R0, C0\nBRC.END\n");
   std::vector<std::array<uint32_t, 4>> consts = {{as_uint(1.0f), as_uint(2.0f), as_uint(3.0f), as_uint(4.0f)}};
   ShaderResources res;
   res.consts = reinterpret_cast<const uint32_t(*)[4]>(consts.data());
   res.num_consts = 1;
   ThreadGroup tg(16, 4, VLG_SHADER_STAGE_VERTEX, 1);
   for (int round = 0; round < 3; round++) {
      tg.reset(16, 4, VLG_SHADER_STAGE_VERTEX, 1);
      tg.set(5, 0, 0, 0); /* lane 5 faults */
      for (unsigned l = 0; l < 16; l++)
         if (l != 5)
            tg.set(l, 0, 0, 7);
      EXPECT_THROW(run(tg, *p, res), GpuFault);

      tg.reset(16, 4, VLG_SHADER_STAGE_VERTEX, 2);
      for (unsigned l = 0; l < 16; l++)
         tg.set(l, 0, 0, 7);
      RunResult rr = run(tg, *p, res);
      EXPECT_EQ(rr.instructions, 3u);
      EXPECT_EQ(tg.get(3, 1, 0), as_uint(as_float(7u) + 1.0f));
   }
}

TEST(ShaderFault, LoadFaults)
{
   Vram vram(4096);
   EXPECT_THROW(Program::load(vram, 2, 1, 0), GpuFault); /* misaligned */
   try {
      Program::load(vram, 4000, 100, 0);
      ADD_FAILURE();
   } catch (const GpuFault &f) {
      EXPECT_EQ(f.module(), "SPC");
      EXPECT_TRUE(contains(f.what(), "shader code outside VRAM")) << f.what();
   }
   EXPECT_THROW(Program::load(vram, 0, VLG_MAX_PROGRAM_UNITS + 1, 0), GpuFault);
   EXPECT_NO_THROW(Program::load(vram, 0, 1024, 0)); /* zeros: NOP without E is legal to load */
}

TEST(ShaderFault, HostMisuseIsNotAGpuFault)
{
   Shader s("BRC.END\n", 4, 4, VLG_SHADER_STAGE_VERTEX);
   s.res.stage = VLG_SHADER_STAGE_FRAGMENT;
   EXPECT_THROW(s.go(), std::invalid_argument);
   EXPECT_THROW(ThreadGroup(6, 4, VLG_SHADER_STAGE_FRAGMENT), std::invalid_argument);
   EXPECT_THROW(ThreadGroup(65, 4, VLG_SHADER_STAGE_VERTEX), std::invalid_argument);
   EXPECT_THROW(ThreadGroup(16, 0, VLG_SHADER_STAGE_VERTEX), std::invalid_argument);
   EXPECT_THROW(ThreadGroup(16, 129, VLG_SHADER_STAGE_VERTEX), std::invalid_argument);
}

} // namespace
} // namespace vlgpu::sim::test
