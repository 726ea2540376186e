/*
 * Compute scenes for the cycle-mode tests (test_compute_cycle.cpp) and the
 * cycle regression corpus (test_cycle_corpus.cpp): DISPATCH command queues
 * built in a Scene's VRAM with the generated VLG_<STRUCT>_pack functions and
 * assembled compute shaders (docs/hw.md "Compute", docs/isa.md "Memory
 * (MEM)"). Expected values are computed by the tests from the inputs.
 */
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "units_test_util.h"

namespace vlgpu::sim::test {

struct Grid {
   uint32_t block = 1; /* block_x (block_y = block_z = 1) */
   uint32_t grid = 1;  /* grid_x */
   uint32_t shared_size = 0;
   unsigned num_regs = 16;
};

/** A command queue of DISPATCHes in a Scene's VRAM. */
struct CsScene {
   Scene s;
   explicit CsScene(uint64_t vram = 8ull << 20) : s(vram) {}

   uint64_t put_words(const std::vector<uint32_t> &w) { return s.t.put(w.data(), w.size() * 4); }

   /** Shader @text with consts C0.. = @consts (each replicated to a vec4)
    *  over @g; appends the DISPATCH. */
   void dispatch(const std::string &text, const std::vector<uint32_t> &consts, const Grid &g)
   {
      const std::vector<uint32_t> code = assemble(text);
      std::vector<uint32_t> c4;
      for (uint32_t v : consts)
         c4.insert(c4.end(), {v, v, v, v});
      VLG_SHADER_STATE st;
      VLG_SHADER_STATE_init(&st);
      st.stage = VLG_SHADER_STAGE_COMPUTE;
      st.num_regs = g.num_regs;
      st.code = put_words(code);
      st.code_size = uint32_t(code.size());
      st.consts = c4.empty() ? 0 : put_words(c4);
      st.num_consts = uint32_t(consts.size());
      uint32_t sw[VLG_SHADER_STATE_LENGTH];
      VLG_SHADER_STATE_pack(sw, &st);
      VLG_COMPUTE_INFO ci;
      VLG_COMPUTE_INFO_init(&ci);
      ci.block_x = g.block;
      ci.block_y = ci.block_z = 1;
      ci.grid_x = g.grid;
      ci.grid_y = ci.grid_z = 1;
      ci.cs = s.t.put(sw, sizeof(sw));
      ci.shared_size = g.shared_size;
      uint32_t cw[VLG_COMPUTE_INFO_LENGTH];
      VLG_COMPUTE_INFO_pack(cw, &ci);
      last = s.t.put(cw, sizeof(cw));
      cmd_dispatch(s.queue, last);
   }
   /** The last dispatch once more (same code address). */
   void again() { cmd_dispatch(s.queue, last); }
   uint64_t last = 0;
};

/* out[i] = in[i] * 2.0, one vec4 per invocation; C0 = block, C1 = 4,
 * C2 = in, C3 = 2.0f, C4 = out */
inline const char *const kStreamShader = R"(
    MVS R0, LID
    MVS R1, WGID
    IMUL R2, R1.xxxx, C0
    IADD R2, R2, R0.wwww
    SHL R2, R2, C1
    IADD R3, R2, C2
    MEM.LD R4, [R3]
    MUL R4, R4, C3
    IADD R5, R2, C4
    MEM.ST R4, [R5]
    BRC.END
)";

struct Stream {
   uint64_t in = 0, out = 0;
   uint64_t n = 0; /* vec4 */
};

inline Stream
stream_scene(CsScene &cs, uint64_t n, uint32_t block)
{
   Stream st;
   st.n = n;
   std::vector<float> in(n * 4);
   for (size_t i = 0; i < in.size(); i++)
      in[i] = float(i % 1000) * 0.25f - 7.0f;
   st.in = cs.s.t.put(in.data(), in.size() * 4);
   st.out = cs.s.t.alloc(n * 16);
   Grid g;
   g.block = block;
   g.grid = uint32_t(n / block);
   cs.dispatch(kStreamShader,
               {block, 4, uint32_t(st.in), as_uint(2.0f), uint32_t(st.out)}, g);
   return st;
}

/* ALU-bound: a loop of kU dependent MADs, kK iterations, then one store:
 * per thread group 2 + kK * (kU + 1) + 5 instructions. */
inline const unsigned kK = 64, kU = 8;
inline std::string
alu_shader()
{
   std::string t = "    MVS R0, LID\n    MOV R2, C1\nloop:\n";
   for (unsigned i = 0; i < kU; i++)
      t += "    MAD R2, R2, C2, C3\n";
   t += "    PRED.ILT P0, ++LC, #" + std::to_string(kK) + " | BRC.JMP loop if P0\n";
   t += R"(    MVS R1, WGID
    IMUL R3, R1.xxxx, C0
    IADD R3, R3, R0.wwww
    SHL R3, R3, C4
    IADD R3, R3, C5
    MEM.ST R2.x, [R3]
    BRC.END
)";
   return t;
}
inline const uint64_t kAluInstrPerGroup = 2 + uint64_t(kK) * (kU + 1) + 7;

/** @wgs workgroups of @block lanes running alu_shader(), each storing its
 *  result into a new buffer; finishes the scene. */
inline void
alu_scene(CsScene &cs, uint32_t wgs, uint32_t block)
{
   const uint64_t out = cs.s.t.alloc(4ull * wgs * block);
   Grid g;
   g.block = block;
   g.grid = wgs;
   cs.dispatch(alu_shader(), {block, as_uint(1.0f), as_uint(0.5f), as_uint(0.25f), 2, uint32_t(out)},
               g);
   cs.s.finish();
}

/* shared memory: word lid * stride written kM times, then read back once
 * and stored to C2 (every lane the same word: the last lane's, in both
 * modes); C0 = stride * 4, C1 = the value */
inline const unsigned kM = 64;
inline std::string
bank_shader()
{
   std::string t = "    MVS R0, LID\n    IMUL R2, R0.wwww, C0\n    MOV R1, C1\n";
   for (unsigned i = 0; i < kM; i++)
      t += "    MEM.ST.S R1.x, [R2]\n";
   t += "    MEM.LD.S R3.x, [R2]\n    MOV R5, C2\n    MEM.ST R3.x, [R5]\n    BRC.END\n";
   return t;
}

/* the bank rule (docs/hw.md "Compute"): passes = the most distinct words
 * one bank serves */
inline unsigned
passes(unsigned lanes, unsigned stride_words, unsigned banks)
{
   std::vector<std::vector<uint64_t>> per(banks);
   for (unsigned l = 0; l < lanes; l++) {
      const uint64_t w = uint64_t(l) * stride_words;
      auto &b = per[w % banks];
      if (std::find(b.begin(), b.end(), w) == b.end())
         b.push_back(w);
   }
   size_t m = 1;
   for (auto &b : per)
      m = std::max(m, b.size());
   return unsigned(m);
}

/* barrier exchange: shared[lid] = wg * 1000 + lid; BAR; out[wg * n + lid] =
 * shared[lid ^ (n - 1)]; BAR; shared[lid] = out value + 1; BAR; out2[...] =
 * shared[lid ^ 1]. C0 = 1000, C1 = 2, C2 = n - 1, C3 = out, C4 = n, C5 = out2,
 * C6 = 1 */
inline const char *const kBarrierShader = R"(
    MVS R0, LID
    MVS R1, WGID
    IMUL R2, R1.xxxx, C0
    IADD R2, R2, R0.wwww
    SHL R3, R0.wwww, C1
    MEM.ST.S R2.x, [R3]
    MEM.BAR
    XOR R4, R0.wwww, C2
    SHL R4, R4, C1
    MEM.LD.S R5.x, [R4]
    IMUL R6, R1.xxxx, C4
    IADD R6, R6, R0.wwww
    SHL R6, R6, C1
    IADD R7, R6, C3
    MEM.ST R5.x, [R7]
    MEM.BAR
    IADD R5, R5, C6
    MEM.ST.S R5.x, [R3]
    MEM.BAR
    XOR R4, R0.wwww, C6
    SHL R4, R4, C1
    MEM.LD.S R8.x, [R4]
    IADD R7, R6, C5
    MEM.ST R8.x, [R7]
    BRC.END
)";

struct Barrier {
   uint64_t out = 0, out2 = 0;
   uint32_t n = 0, wgs = 0;
};

inline Barrier
barrier_scene(CsScene &cs, uint32_t n, uint32_t wgs)
{
   Barrier b;
   b.n = n;
   b.wgs = wgs;
   b.out = cs.s.t.alloc(4ull * n * wgs);
   b.out2 = cs.s.t.alloc(4ull * n * wgs);
   Grid g;
   g.block = n;
   g.grid = wgs;
   g.shared_size = 4 * n;
   cs.dispatch(kBarrierShader, {1000, 2, n - 1, uint32_t(b.out), n, uint32_t(b.out2), 1}, g);
   return b;
}

/* atomics into one counter (add 1 and max of the workgroup id): C0 =
 * counter, C1 = 1, C2 = counter + 4 */
inline const char *const kAtomicShader = R"(
    MVS R1, WGID
    MOV R2, C1
    MOV R3, C0
    MEM.ATOM_ADD R2.x, [R3]
    MOV R4, R1
    MOV R5, C2
    MEM.ATOM_UMAX R4.x, [R5]
    BRC.END
)";


struct CsNamedScene {
   const char *name;
   void (*build)(CsScene &);
};

inline const CsNamedScene kCsScenes[] = {
   {"stream", [](CsScene &cs) { stream_scene(cs, 4096, 32); }},
   {"barrier", [](CsScene &cs) { barrier_scene(cs, 32, 7); }},
   {"alu",
    [](CsScene &cs) {
       const uint64_t out = cs.s.t.alloc(4 * 16 * 24);
       Grid g;
       g.block = 16;
       g.grid = 24;
       cs.dispatch(alu_shader(), {16, as_uint(1.0f), as_uint(0.5f), as_uint(0.25f), 2,
                                  uint32_t(out)},
                   g);
    }},
   {"atomics",
    [](CsScene &cs) {
       const uint64_t c = cs.s.t.alloc(16);
       Grid g;
       g.block = 24;
       g.grid = 13;
       cs.dispatch(kAtomicShader, {uint32_t(c), 1, uint32_t(c + 4)}, g);
    }},
   {"banks",
    [](CsScene &cs) {
       const uint64_t out = cs.s.t.alloc(16);
       Grid g;
       g.block = 32;
       g.grid = 3;
       g.shared_size = 4 * 32 * 32;
       cs.dispatch(bank_shader(), {32 * 4, 7, uint32_t(out)}, g);
    }},
   {"big_registers", /* 8 thread groups of 100 registers: more than an SPC's register file */
    [](CsScene &cs) {
       const uint64_t out = cs.s.t.alloc(4 * 16 * 24);
       Grid g;
       g.block = 128;
       g.grid = 3;
       g.num_regs = 100;
       cs.dispatch(alu_shader(), {128, as_uint(1.0f), as_uint(0.5f), as_uint(0.25f), 2,
                                  uint32_t(out)},
                   g);
    }},
   {"stream_then_barrier",
    [](CsScene &cs) {
       stream_scene(cs, 2048, 32);
       barrier_scene(cs, 16, 5);
    }},
};

} // namespace vlgpu::sim::test
