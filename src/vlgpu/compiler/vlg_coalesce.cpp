/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_coalesce.cpp — copy coalescing (seed 003 §III.A: whole-program
 * lifetimes, no stack). A MOV between whole registers (identity swizzle over
 * every component either vreg ever uses, no modifiers) does not make its
 * ends interfere; if they still do not interfere they are merged and the MOV
 * disappears (outputs written by a MOV usually vanish this way).
 *
 * coalesce_copies() runs it once before scheduling, on isel order, so that
 * no pairing is spent on a MOV that vanishes; register allocation
 * (vlg_ra.cpp) runs the same Coalescer again on the scheduled code
 * (vlg_coalesce.h). Switch: no_coalesce / --no-coalesce.
 */
#include <algorithm>
#include <numeric>

#include "vlg_coalesce.h"

namespace vlgpu {

void liveness_step(const Shader &S, const Liveness &L, const Instr *const ops[2],
                   std::vector<uint64_t> &live);

static bool
is_whole_move(const Shader &S, const Instr &I)
{
   if (I.dead || I.op != VLG_OP_MOV || I.sat || !I.dst.is_reg() || !I.src[0].is_reg())
      return false;
   const Operand &s = I.src[0];
   if (s.neg || s.abs || s.offset || I.dst.offset)
      return false;
   if (S.vregs[s.index].width != 1 || S.vregs[I.dst.index].width != 1)
      return false;
   for (unsigned n = 0; n < 4; n++)
      if ((I.wmask & (1u << n)) && VLG_SWZ_GET(s.swz, n) != n)
         return false;
   return s.index != I.dst.index;
}

bool
Coalescer::move_exception(const Instr &I)
{
   if (!coalesce || !is_whole_move(S, I))
      return false;
   unsigned need = compmask[I.dst.index] | compmask[I.src[0].index];
   return (I.wmask & need) == need;
}

void
Coalescer::build()
{
   compmask.assign(nv, 0);
   foreach_reg_access(S, [&](const RegAccess &a) { compmask[a.vreg] |= a.comps; });
   for (const InputDesc &in : S.inputs)
      compmask[in.vreg] |= in.mask;

   Liveness L = compute_liveness(S);
   std::vector<unsigned> bit_vreg(L.nbits);
   for (unsigned v = 0; v < nv; v++)
      for (unsigned k = 0; k < 4u * S.vregs[v].width; k++)
         bit_vreg[L.first_bit[v] + k] = v;
   G.init(nv);

   auto live_vregs = [&](const std::vector<uint64_t> &live, std::vector<unsigned> &out) {
      out.clear();
      int last = -1;
      for (unsigned w = 0; w < live.size(); w++) {
         uint64_t x = live[w];
         while (x) {
            unsigned bit = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            unsigned v = bit_vreg[bit];
            if ((int)v != last)
               out.push_back(v);
            last = v;
         }
      }
   };
   auto note_pressure = [&](const std::vector<unsigned> &vs) {
      unsigned p = 0;
      for (unsigned v : vs)
         p += S.vregs[v].width;
      pressure = std::max(pressure, p);
   };

   std::vector<unsigned> lv;
   std::vector<RegAccess> acc;
   for (unsigned b = 0; b < S.blocks.size(); b++) {
      Block &B = S.blocks[b];
      std::vector<uint64_t> live = L.live_out[b];
      live_vregs(live, lv);
      note_pressure(lv);
      for (int k = B.bundles.size() - 1; k >= 0; k--) {
         const Instr *ops[2] = {nullptr, nullptr};
         for (unsigned p = 0; p < 2; p++)
            if (B.bundles[k].ph[p] >= 0 && !B.instrs[B.bundles[k].ph[p]].dead)
               ops[p] = &B.instrs[B.bundles[k].ph[p]];
         std::vector<unsigned> defs;
         int except[2] = {-1, -1};
         for (unsigned p = 0; p < 2; p++) {
            if (!ops[p])
               continue;
            instr_writes(S, *ops[p], acc);
            for (auto &a : acc) {
               defs.push_back(a.vreg);
               if (move_exception(*ops[p]))
                  except[p] = ops[p]->src[0].index;
            }
         }
         live_vregs(live, lv);
         for (unsigned p = 0; p < 2; p++) {
            if (!ops[p])
               continue;
            instr_writes(S, *ops[p], acc);
            for (auto &a : acc)
               for (unsigned v : lv)
                  if ((int)v != except[p])
                     G.add(a.vreg, v);
         }
         if (defs.size() == 2)
            G.add(defs[0], defs[1]);
         liveness_step(S, L, ops, live);
         live_vregs(live, lv);
         note_pressure(lv);
      }
   }
   /* inputs and values live at entry are all present before the first instruction */
   live_vregs(L.live_in[0], lv);
   for (const InputDesc &in : S.inputs)
      lv.push_back(in.vreg);
   std::sort(lv.begin(), lv.end());
   lv.erase(std::unique(lv.begin(), lv.end()), lv.end());
   note_pressure(lv);
   for (unsigned i = 0; i < lv.size(); i++)
      for (unsigned j = i + 1; j < lv.size(); j++)
         G.add(lv[i], lv[j]);
}

void
Coalescer::merge(unsigned a, unsigned b)
{
   /* a survives */
   parent[b] = a;
   G.foreach_neighbour(b, [&](unsigned n) { G.add(a, n); });
}

void
Coalescer::do_coalesce()
{
   parent.resize(nv);
   std::iota(parent.begin(), parent.end(), 0);
   if (!coalesce)
      return;
   for (Block &B : S.blocks)
      for (Instr &I : B.instrs) {
         if (!move_exception(I))
            continue;
         unsigned d = find(I.dst.index), s = find(I.src[0].index);
         if (d == s || G.test(d, s))
            continue;
         merge(d, s);
      }
}

/* Before scheduling: merge copies and rename, nothing else. Liveness runs
 * over one-op steps in isel order; the scheduler then sees the merged
 * vregs, so no instruction slot is spent pairing a MOV that vanishes. */
void
Coalescer::coalesce_only()
{
   for (Block &B : S.blocks) {
      B.bundles.clear();
      for (unsigned i = 0; i < B.instrs.size(); i++) {
         Bundle bu;
         bu.ph[0] = i;
         B.bundles.push_back(bu);
      }
   }
   S.scheduled = true;
   build();
   do_coalesce();
   for (Block &B : S.blocks) {
      B.bundles.clear();
      for (Instr &I : B.instrs) {
         if (I.dead)
            continue;
         if (I.dst.is_reg())
            I.dst.index = find(I.dst.index);
         for (unsigned k = 0; k < 3; k++)
            if (I.src[k].is_reg())
               I.src[k].index = find(I.src[k].index);
         if (I.op == VLG_OP_MOV && is_self_move(I))
            I.dead = true;
      }
   }
   for (InputDesc &in : S.inputs)
      in.vreg = find(in.vreg);
   for (OutputDesc &o : S.outputs)
      o.vreg = find(o.vreg);
   S.scheduled = false;
}

bool
Coalescer::is_self_move(const Instr &I)
{
   if (I.sat || !I.src[0].is_reg() || I.src[0].index != I.dst.index ||
       I.src[0].offset != I.dst.offset || I.src[0].neg || I.src[0].abs)
      return false;
   for (unsigned n = 0; n < 4; n++)
      if ((I.wmask & (1u << n)) && VLG_SWZ_GET(I.src[0].swz, n) != n)
         return false;
   return true;
}

void
coalesce_copies(Shader &S)
{
   Coalescer c(S, true);
   c.coalesce_only();
}

} // namespace vlgpu
