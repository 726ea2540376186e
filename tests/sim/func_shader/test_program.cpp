/*
 * Program loading: control-flow decoding from the entry point, the
 * per-instruction facts the cycle-mode SPC uses (classes, latency, register
 * reads and writes, coordinate registers, dual issue, size), disassembly,
 * and the ProgramCache.
 */
#include "shader_test_util.h"

namespace vlgpu::sim::test {
namespace {

const RegUse *
find(const RegUse *uses, unsigned n, unsigned reg)
{
   for (unsigned i = 0; i < n; i++)
      if (uses[i].reg == reg)
         return &uses[i];
   return nullptr;
}

TEST(ShaderProgram, InstructionsInPcOrderWithSizes)
{
   auto p = program(R"(
    MOV R1, R0
    MAD R2, R0.xxxx, C1, R2
    MUL R5, R6, R7 | ADD R8, R9, R10
    BRC.END
)");
   ASSERT_EQ(p->num_instrs(), 5u); /* 4 + the out-of-program slot */
   const uint32_t pcs[] = {0, 1, 3, 5};
   const uint32_t sizes[] = {1, 2, 2, 1};
   for (unsigned i = 0; i < 4; i++) {
      EXPECT_EQ(p->instr(i).pc, pcs[i]);
      EXPECT_EQ(p->instr(i).size, sizes[i]);
      EXPECT_EQ(p->instr(i).fault, InstrFault::None);
      EXPECT_EQ(p->index_of_pc(pcs[i]), int(i));
      EXPECT_EQ(p->instr(i).next, i + 1);
   }
   EXPECT_EQ(p->index_of_pc(2), -1); /* the TERN Sub of the MAD */
   EXPECT_EQ(p->instr(4).fault, InstrFault::OutOfProgram);
   EXPECT_EQ(p->instr(4).pc, 6u);
   EXPECT_EQ(p->entry_index(), 0u);
   EXPECT_EQ(p->disassemble(1), "MAD R2, R0.xxxx, C1, R2");
   EXPECT_EQ(p->disassemble(2), "MUL R5, R6, R7 | ADD R8, R9, R10");
   const std::vector<uint32_t> mad = assemble("MAD R2, R0.xxxx, C1, R2\n");
   ASSERT_EQ(mad.size(), 2u);
   char hex[32];
   std::snprintf(hex, sizeof(hex), "0x%08X 0x%08X", mad[0], mad[1]);
   EXPECT_EQ(p->hex(1), hex);
}

TEST(ShaderProgram, ScoreboardFacts)
{
   auto p = program(R"(
    ADD R1.x, R2.yyyy, R3
    DP3 R4.w, R5, C2
    TXD R1, R40, T0
    PRED.ILT P2, ++LC, #3 | BRC.JMP #0 if P2
    ADDR A0, R9.z | LDC R11.xy, C[A0+1]
    SEL R12, R13, R14, R15.wzyx
    BRC.END
)");
   const Instr &add = p->instr(0);
   EXPECT_EQ(add.classes[0], VLG_CLASS_ADD);
   EXPECT_EQ(add.classes[1], 0u);
   EXPECT_FALSE(add.dual);
   ASSERT_NE(find(add.reads, add.nreads, 2), nullptr);
   EXPECT_EQ(find(add.reads, add.nreads, 2)->mask, 0x2u); /* .yyyy for x only */
   EXPECT_EQ(find(add.reads, add.nreads, 3)->mask, 0x1u);
   ASSERT_EQ(add.nwrites, 1u);
   EXPECT_EQ(add.writes[0].reg, 1u);
   EXPECT_EQ(add.writes[0].mask, 0x1u);
   EXPECT_EQ(add.writes[0].latency, vlg_op_table[VLG_OP_ADD].latency);
   EXPECT_EQ(add.max_reg, 3);

   const Instr &dp = p->instr(1);
   EXPECT_EQ(dp.classes[0], VLG_CLASS_MUL | VLG_CLASS_ADD);
   ASSERT_EQ(dp.nreads, 1u);
   EXPECT_EQ(dp.reads[0].reg, 5u);
   EXPECT_EQ(dp.reads[0].mask, 0x7u);
   EXPECT_EQ(dp.latency, vlg_op_table[VLG_OP_DP3].latency);

   const Instr &txd = p->instr(2);
   EXPECT_TRUE(txd.mem);
   EXPECT_EQ(txd.classes[1], VLG_CLASS_MEM);
   EXPECT_EQ(find(txd.reads, txd.nreads, 40)->mask, 0x7u);
   EXPECT_EQ(find(txd.reads, txd.nreads, 41)->mask, 0x7u);
   EXPECT_EQ(find(txd.reads, txd.nreads, 42)->mask, 0x7u);
   EXPECT_EQ(txd.max_reg, 42);
   EXPECT_EQ(txd.writes[0].latency, vlg_op_table[VLG_OP_TXD].latency);

   const Instr &loop = p->instr(3);
   EXPECT_TRUE(loop.dual);
   EXPECT_TRUE(loop.flow);
   EXPECT_EQ(loop.coord_writes, (kCoordP0 << 2) | kCoordLC);
   EXPECT_EQ(loop.coord_reads, (kCoordP0 << 2) | kCoordLC);
   EXPECT_EQ(loop.nwrites, 0u);
   EXPECT_EQ(loop.ops[1].target, 0);

   const Instr &ind = p->instr(4);
   EXPECT_EQ(ind.coord_writes, kCoordA0);
   EXPECT_EQ(ind.coord_reads, kCoordA0);
   EXPECT_EQ(find(ind.reads, ind.nreads, 9)->mask, 0x4u);
   EXPECT_EQ(ind.writes[0].mask, 0x3u);

   const Instr &sel = p->instr(5);
   EXPECT_EQ(sel.nreads, 3u);
   EXPECT_EQ(find(sel.reads, sel.nreads, 15)->mask, 0xFu);
   EXPECT_EQ(sel.max_reg, 15);
}

TEST(ShaderProgram, DecodesOnlyWhatControlFlowReaches)
{
   std::vector<uint32_t> u = assemble("BRC.END\n");
   u.push_back(0xDEADBEEFu);
   u.push_back(0x3F000000u);
   Program p(u.data(), uint32_t(u.size()), 0);
   EXPECT_EQ(p.num_instrs(), 2u);
   EXPECT_EQ(p.index_of_pc(1), -1);

   /* An illegal instruction on a path becomes a fault slot (no throw). */
   std::vector<uint32_t> v = assemble("NOP\n");
   v.push_back(0xBF000000u);
   Program q(v.data(), uint32_t(v.size()), 0);
   ASSERT_EQ(q.num_instrs(), 3u);
   EXPECT_EQ(q.instr(1).fault, InstrFault::Illegal);
   EXPECT_NE(q.illegal_reason(1).find("MEM is a phase-1 op"), std::string::npos);
   EXPECT_NE(q.disassemble(1).find("illegal"), std::string::npos);
   EXPECT_EQ(q.hex(1), "0xBF000000");

   /* A non-zero entry point: units before it are not decoded. */
   std::vector<uint32_t> w = {0xFFFFFFFFu};
   std::vector<uint32_t> body = assemble("MOV R1, R0\nBRC.END\n");
   w.insert(w.end(), body.begin(), body.end());
   Program r(w.data(), uint32_t(w.size()), 1);
   EXPECT_EQ(r.num_instrs(), 3u);
   EXPECT_EQ(r.instr(r.entry_index()).pc, 1u);
}

TEST(ShaderProgram, CacheHitsRewritesAndEviction)
{
   Vram vram(1 << 16);
   auto a = assemble("MOV R1, R0\nBRC.END\n");
   auto b = assemble("ADD R1, R0, R0\nBRC.END\n");
   vram.write(0x100, a.data(), a.size() * 4, "test");
   vram.write(0x200, b.data(), b.size() * 4, "test");
   ProgramCache cache(2);
   auto p1 = cache.get(vram, 0x100, uint32_t(a.size()), 0);
   auto p2 = cache.get(vram, 0x100, uint32_t(a.size()), 0);
   EXPECT_EQ(p1.get(), p2.get());
   EXPECT_EQ(cache.hits(), 1u);
   EXPECT_EQ(cache.misses(), 1u);
   EXPECT_EQ(p1->disassemble(0), "MOV R1, R0");

   /* Rewritten in place: decoded again. */
   vram.write(0x100, b.data(), b.size() * 4, "test");
   auto p3 = cache.get(vram, 0x100, uint32_t(b.size()), 0);
   EXPECT_NE(p3.get(), p1.get());
   EXPECT_EQ(p3->disassemble(0), "ADD R1, R0, R0");
   EXPECT_EQ(cache.size(), 1u);
   EXPECT_EQ(p1->disassemble(0), "MOV R1, R0"); /* the old one stays valid for its users */

   /* Another entry is another program; capacity 2 drops the least recently used. */
   auto p4 = cache.get(vram, 0x100, uint32_t(b.size()), 1);
   EXPECT_EQ(p4->instr(p4->entry_index()).pc, 1u);
   EXPECT_EQ(cache.get(vram, 0x100, uint32_t(b.size()), 0).get(), p3.get()); /* p3 most recent */
   auto p5 = cache.get(vram, 0x200, uint32_t(b.size()), 0);                  /* evicts p4 */
   EXPECT_EQ(cache.size(), 2u);
   EXPECT_EQ(cache.get(vram, 0x100, uint32_t(b.size()), 0).get(), p3.get());
   const uint64_t misses = cache.misses();
   cache.get(vram, 0x100, uint32_t(b.size()), 1);
   EXPECT_EQ(cache.misses(), misses + 1);

   EXPECT_THROW(cache.get(vram, 0xFFF0, 100, 0), GpuFault);
}

} // namespace
} // namespace vlgpu::sim::test
