/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_liveness.cpp — backward data-flow liveness at component granularity
 * (one bit per component of every vec4 register of every vreg), over
 * bundles when the shader is scheduled (both phases read before either
 * writes, docs/isa.md §2) and over single operations otherwise. A partial
 * write (write mask) kills only the components it writes. Lanes follow CFG
 * paths independently (per-lane PCs), so ordinary liveness is exact.
 */
#include "vlg_passes.h"

namespace vlgpu {

static void
set_bits(std::vector<uint64_t> &v, const Liveness &L, const RegAccess &a)
{
   for (unsigned c = 0; c < 4; c++)
      if (a.comps & (1u << c)) {
         unsigned bit = L.bit(a.vreg, a.offset, c);
         v[bit / 64] |= 1ull << (bit % 64);
      }
}

static void
clear_bits(std::vector<uint64_t> &v, const Liveness &L, const RegAccess &a)
{
   for (unsigned c = 0; c < 4; c++)
      if (a.comps & (1u << c)) {
         unsigned bit = L.bit(a.vreg, a.offset, c);
         v[bit / 64] &= ~(1ull << (bit % 64));
      }
}

/** Operations of step @k of block @B: a bundle's phases, or one op. */
static void
step_ops(const Shader &S, const Block &B, unsigned k, const Instr *ops[2])
{
   ops[0] = ops[1] = nullptr;
   if (S.scheduled) {
      for (unsigned p = 0; p < 2; p++)
         if (B.bundles[k].ph[p] >= 0 && !B.instrs[B.bundles[k].ph[p]].dead)
            ops[p] = &B.instrs[B.bundles[k].ph[p]];
   } else if (!B.instrs[k].dead) {
      ops[0] = &B.instrs[k];
   }
}

static unsigned
num_steps(const Shader &S, const Block &B)
{
   return S.scheduled ? B.bundles.size() : B.instrs.size();
}

/** live := (live - writes) | reads, for one step. */
void
liveness_step(const Shader &S, const Liveness &L, const Instr *const ops[2],
              std::vector<uint64_t> &live)
{
   std::vector<RegAccess> acc;
   for (unsigned p = 0; p < 2; p++)
      if (ops[p]) {
         instr_writes(S, *ops[p], acc);
         for (auto &a : acc)
            clear_bits(live, L, a);
      }
   for (unsigned p = 0; p < 2; p++)
      if (ops[p]) {
         instr_reads(S, *ops[p], acc);
         for (auto &a : acc)
            set_bits(live, L, a);
      }
}

Liveness
compute_liveness(const Shader &S)
{
   Liveness L;
   L.first_bit.resize(S.vregs.size());
   unsigned bit = 0;
   for (unsigned v = 0; v < S.vregs.size(); v++) {
      L.first_bit[v] = bit;
      bit += 4 * S.vregs[v].width;
   }
   L.nbits = bit;
   unsigned W = L.words();
   unsigned nb = S.blocks.size();
   L.live_in.assign(nb, std::vector<uint64_t>(W, 0));
   L.live_out.assign(nb, std::vector<uint64_t>(W, 0));

   bool changed = true;
   while (changed) {
      changed = false;
      for (int b = nb - 1; b >= 0; b--) {
         const Block &B = S.blocks[b];
         std::vector<uint64_t> out(W, 0);
         for (unsigned s : B.succs)
            for (unsigned w = 0; w < W; w++)
               out[w] |= L.live_in[s][w];
         std::vector<uint64_t> live = out;
         for (int k = num_steps(S, B) - 1; k >= 0; k--) {
            const Instr *ops[2];
            step_ops(S, B, k, ops);
            liveness_step(S, L, ops, live);
         }
         if (live != L.live_in[b] || out != L.live_out[b]) {
            L.live_in[b] = live;
            L.live_out[b] = out;
            changed = true;
         }
      }
   }
   return L;
}

} // namespace vlgpu
