/*
 * MEM (compute memory ops, docs/isa.md "Memory (MEM)") on the SPC executor:
 * loads/stores with write masks on global memory (VRAM) and shared memory,
 * every atomic kind with lanes in lane order, LID/WGID, BAR stopping run(),
 * FENCE, and the faults (misaligned, outside VRAM, outside shared memory,
 * MEM outside a compute shader, barrier in divergent control flow).
 * Expected values are computed here from the contract's definitions.
 */
#include "shader_test_util.h"

#include <algorithm>

namespace vlgpu::sim::test {
namespace {

struct Compute : Shader {
   Vram vram{1 << 16};
   std::vector<uint32_t> shared;

   explicit Compute(const std::string &text, unsigned width = 16, uint32_t shared_bytes = 256)
       : Shader(text, width, 32, VLG_SHADER_STAGE_COMPUTE), shared(shared_bytes / 4, 0u)
   {
      res.vram = &vram;
      res.global = &vram;
      res.shared = shared.data();
      res.shared_size = shared_bytes;
   }
   uint32_t word(uint64_t a) { return vram.read32(a, "test"); }
   void put(uint64_t a, uint32_t v) { vram.write(a, &v, 4, "test"); }
};

TEST(ComputeMem, GlobalLoadStoreWithMasks)
{
   Compute s(R"(
    MEM.LD R1.xzw, [R0]
    MEM.ST R2.yw, [R3]
    BRC.END
)");
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set(l, 0, 0, 0x1000 + 16 * l);
      s.tg->set(l, 3, 0, 0x2000 + 16 * l);
      for (unsigned c = 0; c < 4; c++) {
         s.put(0x1000 + 16 * l + 4 * c, 100 * l + c);
         s.tg->set(l, 1, c, 0xEEEE);
         s.tg->set(l, 2, c, 1000 + 10 * l + c);
      }
   }
   StepResult st = s.next();
   EXPECT_EQ(st.mem, MemKind::Mem);
   EXPECT_EQ(st.memkind, VLG_MEMKIND_LD);
   EXPECT_FALSE(st.mem_shared);
   ASSERT_EQ(st.mem_addresses.size(), 16u * 3u);
   EXPECT_EQ(st.mem_addresses[0], 0x1000u);
   EXPECT_EQ(st.mem_addresses[1], 0x1008u);
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.r(l, 1, 0), 100 * l + 0);
      EXPECT_EQ(s.r(l, 1, 1), 0xEEEEu); /* masked off: not written */
      EXPECT_EQ(s.r(l, 1, 2), 100 * l + 2);
      EXPECT_EQ(s.r(l, 1, 3), 100 * l + 3);
      EXPECT_EQ(s.word(0x2000 + 16 * l + 0), 0u); /* masked off: not stored */
      EXPECT_EQ(s.word(0x2000 + 16 * l + 4), 1000 + 10 * l + 1);
      EXPECT_EQ(s.word(0x2000 + 16 * l + 8), 0u);
      EXPECT_EQ(s.word(0x2000 + 16 * l + 12), 1000 + 10 * l + 3);
   }
}

TEST(ComputeMem, OverlappingStoresLastLaneWinsAndInactiveLanesDoNothing)
{
   Compute s(R"(
    MEM.ST R1.x, [R0]
    BRC.END
)");
   s.tg->set_live_mask(0x00FF); /* lanes 8..15 not live */
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set(l, 0, 0, 0x3000);
      s.tg->set(l, 1, 0, 7 + l);
   }
   s.go();
   EXPECT_EQ(s.word(0x3000), 7u + 7u); /* lane order: lane 7 stores last */
}

struct AtomCase {
   const char *kind;
   uint32_t (*f)(uint32_t mem, uint32_t x, uint32_t y);
};

uint32_t
smin(uint32_t a, uint32_t b)
{
   return int32_t(a) < int32_t(b) ? a : b;
}
uint32_t
smax(uint32_t a, uint32_t b)
{
   return int32_t(a) > int32_t(b) ? a : b;
}

const AtomCase kAtoms[] = {
   {"ATOM_ADD", [](uint32_t m, uint32_t x, uint32_t) { return m + x; }},
   {"ATOM_IMIN", [](uint32_t m, uint32_t x, uint32_t) { return smin(m, x); }},
   {"ATOM_UMIN", [](uint32_t m, uint32_t x, uint32_t) { return std::min(m, x); }},
   {"ATOM_IMAX", [](uint32_t m, uint32_t x, uint32_t) { return smax(m, x); }},
   {"ATOM_UMAX", [](uint32_t m, uint32_t x, uint32_t) { return std::max(m, x); }},
   {"ATOM_AND", [](uint32_t m, uint32_t x, uint32_t) { return m & x; }},
   {"ATOM_OR", [](uint32_t m, uint32_t x, uint32_t) { return m | x; }},
   {"ATOM_XOR", [](uint32_t m, uint32_t x, uint32_t) { return m ^ x; }},
   {"ATOM_XCHG", [](uint32_t, uint32_t x, uint32_t) { return x; }},
   {"ATOM_CMPXCHG", [](uint32_t m, uint32_t x, uint32_t y) { return m == y ? x : m; }},
};

/* Every atomic kind, global and shared: 16 lanes on two words (even lanes
 * on word 0, odd on word 1), lane order; old values returned in R1.x. */
TEST(ComputeMem, EveryAtomicKindGlobalAndShared)
{
   for (const AtomCase &ac : kAtoms) {
      for (int shared = 0; shared < 2; shared++) {
         SCOPED_TRACE(std::string(ac.kind) + (shared ? " shared" : " global"));
         Compute s(std::string("    MEM.") + ac.kind + (shared ? ".S" : "") +
                   " R1.x, [R0]\n    BRC.END\n");
         const uint32_t base = shared ? 8 : 0x4000;
         const uint32_t init[2] = {0x80000005u, 17u};
         uint32_t mem[2] = {init[0], init[1]};
         uint32_t x[16], y[16], old[16];
         for (unsigned l = 0; l < 16; l++) {
            /* mixed signs and magnitudes; y sometimes equals the current value */
            x[l] = (l % 3 == 0) ? uint32_t(-int32_t(l) * 1000) : l * 0x01010101u;
            y[l] = (l % 4 == 1) ? 17u : (l % 4 == 2) ? 0x80000005u : 3u;
            s.tg->set(l, 0, 0, base + 4 * (l & 1));
            s.tg->set(l, 1, 0, x[l]);
            s.tg->set(l, 1, 1, y[l]);
         }
         for (unsigned w = 0; w < 2; w++) {
            if (shared)
               s.shared[base / 4 + w] = init[w];
            else
               s.put(base + 4 * w, init[w]);
         }
         for (unsigned l = 0; l < 16; l++) {
            uint32_t &m = mem[l & 1];
            old[l] = m;
            m = ac.f(m, x[l], y[l]);
         }
         s.go();
         for (unsigned w = 0; w < 2; w++)
            EXPECT_EQ(shared ? s.shared[base / 4 + w] : s.word(base + 4 * w), mem[w]) << "word " << w;
         for (unsigned l = 0; l < 16; l++) {
            EXPECT_EQ(s.r(l, 1, 0), old[l]) << "lane " << l;
            EXPECT_EQ(s.r(l, 1, 1), y[l]) << "lane " << l; /* .y is only read */
         }
      }
   }
}

TEST(ComputeMem, SharedLoadStoreAndLocalIds)
{
   /* block 4x2x3 = 24 invocations as two thread groups of 16; the second
    * group holds local indices 16..31 of which 16..23 are live. */
   Compute s(R"(
    MVS R1, LID
    MVS R2, WGID
    BRC.END
)");
   s.res.block[0] = 4;
   s.res.block[1] = 2;
   s.res.block[2] = 3;
   s.res.workgroup[0] = 5;
   s.res.workgroup[1] = 6;
   s.res.workgroup[2] = 7;
   s.tg->set_local_base(16);
   s.tg->set_live_mask(0xFF);
   s.go();
   for (unsigned l = 0; l < 8; l++) {
      const uint32_t idx = 16 + l;
      EXPECT_EQ(s.r(l, 1, 0), idx % 4);
      EXPECT_EQ(s.r(l, 1, 1), (idx / 4) % 2);
      EXPECT_EQ(s.r(l, 1, 2), idx / 8);
      EXPECT_EQ(s.r(l, 1, 3), idx);
      EXPECT_EQ(s.r(l, 2, 0), 5u);
      EXPECT_EQ(s.r(l, 2, 1), 6u);
      EXPECT_EQ(s.r(l, 2, 2), 7u);
      EXPECT_EQ(s.r(l, 2, 3), 0u);
   }
}

TEST(ComputeMem, LidReadsZeroOutsideCompute)
{
   Shader s("    MVS R1, LID\n    MVS R2, WGID\n    BRC.END\n", 16, 8);
   s.set_all_f(1, 1.0f, 1.0f, 1.0f, 1.0f);
   s.res.workgroup[0] = 3;
   s.go();
   for (unsigned c = 0; c < 4; c++) {
      EXPECT_EQ(s.r(5, 1, c), 0u);
      EXPECT_EQ(s.r(5, 2, c), 0u);
   }
}

TEST(ComputeMem, SharedStoreThenLoadAcrossLanes)
{
   /* lane l stores l*3 at offset 4*l, then loads offset 4*(15-l) */
   Compute s(R"(
    MEM.ST.S R1.x, [R0]
    MEM.LD.S R2.x, [R3]
    MEM.FENCE
    BRC.END
)",
             16, 64);
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set(l, 0, 0, 4 * l);
      s.tg->set(l, 1, 0, 3 * l);
      s.tg->set(l, 3, 0, 4 * (15 - l));
   }
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      EXPECT_EQ(s.shared[l], 3 * l);
      EXPECT_EQ(s.r(l, 2, 0), 3 * (15 - l));
   }
}

TEST(ComputeMem, BarrierStopsRunUntilReleased)
{
   Compute s(R"(
    MEM.ST.S R1.x, [R0]
    MEM.BAR
    MEM.LD.S R2.x, [R0]
    BRC.END
)");
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set(l, 0, 0, 4 * l);
      s.tg->set(l, 1, 0, 10 + l);
   }
   RunResult r = s.go();
   EXPECT_TRUE(s.tg->at_barrier());
   EXPECT_FALSE(s.tg->done());
   EXPECT_EQ(r.instructions, 2u);
   s.shared[3] = 99; /* another thread group's store before the barrier */
   StepResult none = s.next();
   EXPECT_EQ(none.instr, nullptr); /* waiting: nothing issues */
   s.tg->release_barrier();
   s.go();
   EXPECT_TRUE(s.tg->done());
   EXPECT_EQ(s.r(3, 2, 0), 99u);
   EXPECT_EQ(s.r(4, 2, 0), 14u);
}

TEST(ComputeMem, StepReportsBarrier)
{
   Compute s("    MEM.BAR\n    BRC.END\n");
   StepResult r = s.next();
   EXPECT_TRUE(r.barrier);
   EXPECT_EQ(r.memkind, VLG_MEMKIND_BAR);
   EXPECT_TRUE(s.tg->at_barrier());
}

void
expect_fault(Compute &s, const char *summary, const char *detail_part)
{
   try {
      s.go();
      ADD_FAILURE() << "no fault";
   } catch (const GpuFault &f) {
      EXPECT_EQ(f.module(), "SPC");
      EXPECT_NE(f.summary().find(summary), std::string::npos) << f.what();
      EXPECT_NE(std::string(f.what()).find(detail_part), std::string::npos) << f.what();
   }
}

TEST(ComputeMem, Faults)
{
   {
      Compute s("    MEM.LD R1.x, [R0]\n    BRC.END\n");
      for (unsigned l = 0; l < 16; l++)
         s.tg->set(l, 0, 0, 0x100 + (l == 5 ? 2 : 0));
      expect_fault(s, "misaligned", "0x00000102");
   }
   {
      Compute s("    MEM.ST R1.xy, [R0]\n    BRC.END\n");
      for (unsigned l = 0; l < 16; l++)
         s.tg->set(l, 0, 0, (1u << 16) - 4); /* .y is the first dword past VRAM */
      expect_fault(s, "outside VRAM", "0x10000");
   }
   {
      Compute s("    MEM.ATOM_ADD R1.x, [R0]\n    BRC.END\n");
      for (unsigned l = 0; l < 16; l++)
         s.tg->set(l, 0, 0, 0xFFFFFFFCu);
      expect_fault(s, "outside VRAM", "0xfffffffc");
   }
   {
      Compute s("    MEM.LD.S R1.xyzw, [R0]\n    BRC.END\n", 16, 64);
      for (unsigned l = 0; l < 16; l++)
         s.tg->set(l, 0, 0, 52); /* .w = offset 64 = the size */
      expect_fault(s, "shared memory access out of bounds", "0x40");
   }
   {
      Compute s("    MEM.ST.S R1.x, [R0]\n    BRC.END\n", 16, 0);
      expect_fault(s, "shared memory access out of bounds", "0 bytes");
   }
   {
      /* a barrier reached by half of the lanes */
      Compute s(R"(
    PRED.ILT P0, R0.x, #8
    BRC.JMP skip if P0
    MEM.BAR
skip:
    BRC.END
)");
      for (unsigned l = 0; l < 16; l++)
         s.tg->set(l, 0, 0, l);
      expect_fault(s, "barrier in divergent control flow", "uniform control flow");
   }
   /* shared memory and barriers exist only in a workgroup */
   for (vlg_shader_stage st : {VLG_SHADER_STAGE_VERTEX, VLG_SHADER_STAGE_FRAGMENT})
      for (const char *op : {"MEM.LD.S R1.x, [R0]", "MEM.ST.S R1.x, [R0]", "MEM.BAR"}) {
         Shader s(std::string("    ") + op + "\n    BRC.END\n", 16, 8, st);
         Vram vram(4096);
         std::vector<uint32_t> shared(64, 0u);
         s.res.global = &vram;
         s.res.shared = shared.data();
         s.res.shared_size = 256;
         try {
            s.go();
            ADD_FAILURE() << op << ": no fault";
         } catch (const GpuFault &f) {
            EXPECT_EQ(f.summary(), "MEM outside a compute shader") << op;
         }
      }
}

/* Global MEM in vertex and fragment shaders (images, SSBOs, atomic
 * counters): loads, stores and atomics work; in a fragment group helper and
 * killed lanes neither load, store nor do atomics. */
TEST(GraphicsMem, VertexAndFragmentGlobalMemory)
{
   for (vlg_shader_stage st : {VLG_SHADER_STAGE_VERTEX, VLG_SHADER_STAGE_FRAGMENT}) {
      Shader s(R"(
    MEM.LD R2.x, [R0]
    MEM.ATOM_ADD R1.x, [R3]
    MEM.ST R2.x, [R4]
    MEM.FENCE
    BRC.END
)",
               16, 8, st);
      Vram vram(1 << 16);
      s.res.vram = &vram;
      s.res.global = &vram;
      uint32_t v = 41;
      vram.write(0x100, &v, 4, "test");
      const uint64_t helper = st == VLG_SHADER_STAGE_FRAGMENT ? 0x000Fu : 0; /* quad 0 */
      if (helper)
         s.tg->set_helper_mask(helper);
      for (unsigned l = 0; l < 16; l++) {
         s.tg->set(l, 0, 0, 0x100);
         s.tg->set(l, 1, 0, 1u << l); /* each lane adds its own bit */
         s.tg->set(l, 3, 0, 0x200);
         s.tg->set(l, 4, 0, 0x400 + 4 * l);
      }
      s.go();
      const uint32_t lanes = 0xFFFFu & ~uint32_t(helper);
      EXPECT_EQ(vram.read32(0x200, "test"), lanes) << "atomic of every non-helper lane";
      for (unsigned l = 0; l < 16; l++) {
         const bool runs = lanes >> l & 1;
         EXPECT_EQ(vram.read32(0x400 + 4 * l, "test"), runs ? 41u : 0u) << "lane " << l;
         if (runs) /* old value: the bits of the lanes before it, in lane order */
            EXPECT_EQ(s.r(l, 1, 0), lanes & ((1u << l) - 1)) << "lane " << l;
      }
   }
   /* killed (discarded) lanes stop storing at the KILL */
   Shader s(R"(
    PRED.ILT P1, R5.x, #8
    BRC.KILL if P1
    MEM.ATOM_ADD R1.x, [R3]
    BRC.END
)",
            16, 8, VLG_SHADER_STAGE_FRAGMENT);
   Vram vram(1 << 12);
   s.res.vram = &vram;
   s.res.global = &vram;
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set(l, 5, 0, l);
      s.tg->set(l, 1, 0, 1u << l);
      s.tg->set(l, 3, 0, 0x100);
   }
   s.go();
   EXPECT_EQ(vram.read32(0x100, "test"), 0xFF00u);
}

} // namespace
} // namespace vlgpu::sim::test
