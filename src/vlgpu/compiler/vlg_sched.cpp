/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_sched.cpp — dual-phase scheduling inside basic blocks (seed 003
 * §III.C, seed 000 §3.4: "reorder instructions in a basic block so that two
 * independent instructions of different operation kinds form one dual-phase
 * instruction"), as a cycle-driven list scheduler by critical path.
 *
 * Every VL-IW instruction issues both phases in one cycle (docs/isa.md §2):
 *  - the two phases use disjoint functional classes (vlg_op_table.classes);
 *  - BRC and memory ops (LDC, LDB, TEX...) are phase 1 only;
 *  - both phases read their registers before either writes, so phase 1 can
 *    not consume a phase-0 ALU result (a read-after-write pair needs the
 *    producer's latency in cycles) but a write-after-read pair may share an
 *    instruction; both writing one register component is illegal;
 *  - the coordinate registers are forwarded: a phase-0 PRED is seen by a
 *    phase-1 BRC and a phase-0 ADDR by a phase-1 LDC/LDB of the same
 *    instruction (seed 004 fig. 11); the pairs are vlg_op_forwards().
 * Latencies and forwarding come from vlg_op_table and vlg_op_forwards only
 * (isa.py OPS and FORWARDS).
 *
 * The block's terminator (BRC.JMP / BRC.END) stays last; it may share the
 * last instruction as its phase 1. Register allocation runs afterwards and
 * keeps the pairs legal (ops of one instruction that write interfere).
 */
#include <algorithm>
#include <tuple>

#include "vlg_passes.h"
#include "vlg_sched.h"

namespace vlgpu {

enum { CR_HELPER = 8 }; /* helper/kill state: BRC.KILL writes it, MVS HELPER reads it */

static unsigned
creads(const Instr &I)
{
   unsigned r = coord_reads(I);
   if (I.op == VLG_OP_MVS && I.sreg == VLG_SREG_HELPER)
      r |= CR_HELPER;
   /* stores and atomics depend on the kill state (killed lanes do not
    * write, docs/isa.md "Memory (MEM)"): they keep their order with
    * BRC.KILL, so a discarded fragment writes what it wrote before the
    * discard and nothing after it */
   if (I.is_mem_write())
      r |= CR_HELPER;
   return r;
}

static unsigned
cwrites(const Instr &I)
{
   unsigned w = coord_writes(I);
   if (I.op == VLG_OP_BRC && I.kind == VLG_BRKIND_KILL)
      w |= CR_HELPER;
   return w;
}

static bool
overlap(const std::vector<RegAccess> &a, const std::vector<RegAccess> &b)
{
   for (const RegAccess &x : a)
      for (const RegAccess &y : b)
         if (x.vreg == y.vreg && x.offset == y.offset && (x.comps & y.comps))
            return true;
   return false;
}

Dep
dependency(const Shader &S, const Instr &a, const Instr &b)
{
   Dep d;
   if (a.dead || b.dead)
      return d;
   std::vector<RegAccess> ar, aw, br, bw;
   instr_reads(S, a, ar);
   instr_writes(S, a, aw);
   instr_reads(S, b, br);
   instr_writes(S, b, bw);
   unsigned lat_a = a.info() ? a.info()->latency : 1;
   unsigned lat_b = b.info() ? b.info()->latency : 1;
   auto add = [&](unsigned lat, bool fwd) {
      if (!d.exists) {
         d.exists = true;
         d.lat = lat;
         d.fwd = fwd;
      } else {
         if (lat > d.lat)
            d.lat = lat;
         d.fwd = d.fwd && fwd;
      }
   };
   if (overlap(aw, br))
      add(lat_a, false); /* RAW */
   if (overlap(ar, bw))
      add(0, false); /* WAR: reads happen before writes in one instruction */
   if (overlap(aw, bw))
      add(std::max(1, (int)lat_a - (int)lat_b + 1), false); /* WAW: keep the order of the writes */
   unsigned cw = cwrites(a), cr = creads(b);
   if (cw & cr)
      add(lat_a, vlg_op_forwards(a.op, b.op));
   if (creads(a) & cwrites(b))
      add(1, false);
   /* memory order (MEM): loads may pass loads; stores, atomics, barriers and
    * fences keep their order with every other MEM (both spaces: a barrier
    * orders shared and global memory alike). Issue order is enough: the
    * memory ops of a lane take effect in program order (docs/isa.md). */
   if (a.op == VLG_OP_MEM && b.op == VLG_OP_MEM && (a.is_mem_write() || b.is_mem_write()))
      add(1, false);
   if (cwrites(a) & cwrites(b))
      add(1, false);
   return d;
}

bool
can_pair(const Instr &p0, const Instr &p1)
{
   const vlg_opinfo *i0 = p0.info(), *i1 = p1.info();
   if (!i0 || !i1)
      return false;
   if (!(i0->phases & 1) || !(i1->phases & 2))
      return false;
   /* MEM.EMIT reads the output-map registers outside its operand fields:
    * the ISA's rule that both phases read before either writes is not
    * something a simulator can see for them, so EMIT/CUT issue alone */
   if (p0.is_gs_vertex_op() || p1.is_gs_vertex_op())
      return false;
   if (i0->classes & i1->classes)
      return false;
   return true;
}

namespace {

struct Node {
   int instr;
   std::vector<std::pair<unsigned, Dep>> succs; /* (node, dep) */
   std::vector<std::pair<unsigned, Dep>> preds;
   unsigned prio = 0;
   int cycle = -1;
   int phase = -1;
   bool done = false;
};

/* Above this many live vec4 registers the scheduler prefers ops that do not
 * raise the pressure, so hoisting long-latency work cannot push a shader that
 * fits R0..R127 in isel order over the edge (there is no spilling). A limit
 * of 28 (to stay in the low bank R0..R31) was measured on the glmark2 corpus:
 * -2% code but +7% estimated cycles, as it also removes pairing chances; the
 * seeds' reordering targets cycles, so the limit only guards the register
 * file. */
constexpr unsigned kPressureLimit = 112;

struct BlockScheduler {
   const Shader &S;
   Block &B;
   bool reorder, dual;
   std::vector<Node> nodes;
   std::vector<Bundle> bundles;

   /* register pressure tracking (vregs, width-weighted) */
   const std::vector<bool> &live_out;
   std::vector<bool> alive;
   std::vector<unsigned> remaining_uses;
   std::vector<std::vector<uint32_t>> node_reads; /* distinct vregs read */
   std::vector<int> node_write;                   /* vreg written or -1 */
   unsigned pressure = 0;

   BlockScheduler(const Shader &s, Block &b, bool r, bool d, const std::vector<bool> &live_in,
                  const std::vector<bool> &lo)
       : S(s), B(b), reorder(r), dual(d), live_out(lo), alive(live_in),
         remaining_uses(s.vregs.size(), 0)
   {
      for (unsigned v = 0; v < alive.size(); v++)
         if (alive[v])
            pressure += S.vregs[v].width;
   }

   void build_pressure()
   {
      std::vector<RegAccess> acc;
      for (Node &n : nodes) {
         const Instr &I = B.instrs[n.instr];
         std::vector<uint32_t> reads;
         instr_reads(S, I, acc);
         for (auto &a : acc)
            if (std::find(reads.begin(), reads.end(), a.vreg) == reads.end())
               reads.push_back(a.vreg);
         for (uint32_t v : reads)
            remaining_uses[v]++;
         node_reads.push_back(reads);
         instr_writes(S, I, acc);
         node_write.push_back(acc.empty() ? -1 : (int)acc[0].vreg);
      }
   }

   /* Change of the pressure if node @k issued now. */
   int delta(unsigned k) const
   {
      int d = 0;
      int w = node_write[k];
      if (w >= 0 && !alive[w]) {
         bool read_here = std::find(node_reads[k].begin(), node_reads[k].end(), (uint32_t)w) !=
                          node_reads[k].end();
         unsigned later = remaining_uses[w] - (read_here ? 1 : 0);
         if (later > 0 || live_out[w])
            d += S.vregs[w].width;
      }
      for (uint32_t r : node_reads[k])
         if (alive[r] && remaining_uses[r] == 1 && !live_out[r] && (int)r != w)
            d -= S.vregs[r].width;
      return d;
   }

   void account(unsigned k)
   {
      int w = node_write[k];
      for (uint32_t r : node_reads[k]) {
         remaining_uses[r]--;
         if (alive[r] && remaining_uses[r] == 0 && !live_out[r] && (int)r != w) {
            alive[r] = false;
            pressure -= S.vregs[r].width;
         }
      }
      if (w >= 0 && !alive[w] && (remaining_uses[w] > 0 || live_out[w])) {
         alive[w] = true;
         pressure += S.vregs[w].width;
      }
   }

   void build()
   {
      for (unsigned i = 0; i < B.instrs.size(); i++)
         if (!B.instrs[i].dead) {
            Node n;
            n.instr = i;
            nodes.push_back(n);
         }
      int term = -1;
      for (unsigned k = 0; k < nodes.size(); k++)
         if (B.instrs[nodes[k].instr].is_terminator())
            term = k;
      if (term >= 0 && term != (int)nodes.size() - 1)
         VLG_ICE("block terminator is not the last operation");
      for (unsigned j = 0; j < nodes.size(); j++)
         for (unsigned i = 0; i < j; i++) {
            Dep d = dependency(S, B.instrs[nodes[i].instr], B.instrs[nodes[j].instr]);
            if ((int)j == term && !d.exists) {
               d.exists = true; /* the terminator comes last; may share the last instruction */
               d.lat = 0;
               d.fwd = false;
            }
            if (d.exists) {
               nodes[i].succs.push_back({j, d});
               nodes[j].preds.push_back({i, d});
            }
         }
      for (int k = nodes.size() - 1; k >= 0; k--) {
         unsigned p = B.instrs[nodes[k].instr].info()->latency;
         for (auto &s : nodes[k].succs)
            p = std::max(p, s.second.lat + nodes[s.first].prio);
         nodes[k].prio = p;
      }
   }

   bool preds_done(unsigned k) const
   {
      for (auto &p : nodes[k].preds)
         if (!nodes[p.first].done)
            return false;
      return true;
   }

   /* Earliest cycle @k may issue as the first op of an instruction. */
   int earliest(unsigned k) const
   {
      int e = 0;
      for (auto &p : nodes[k].preds)
         e =
            std::max(e, nodes[p.first].cycle + (int)std::max(p.second.lat, p.second.fwd ? 1u : 0u));
      return e;
   }

   /* Can @y join the instruction issued at @cycle holding @x (already placed)? */
   bool fits_with(unsigned x, unsigned y, int cycle, int &x_phase, int &y_phase) const
   {
      const Instr &X = B.instrs[nodes[x].instr], &Y = B.instrs[nodes[y].instr];
      bool fwd_needed = false;
      for (auto &p : nodes[y].preds) {
         const Node &pn = nodes[p.first];
         if (p.first == x) {
            if (p.second.lat == 0)
               continue;
            if (p.second.fwd) {
               fwd_needed = true;
               continue;
            }
            return false;
         }
         if (!pn.done)
            return false;
         if (pn.cycle + (int)std::max(p.second.lat, p.second.fwd ? 1u : 0u) > cycle)
            return false;
      }
      if (can_pair(X, Y)) {
         x_phase = 0;
         y_phase = 1;
         return true;
      }
      if (!fwd_needed && can_pair(Y, X)) {
         x_phase = 1;
         y_phase = 0;
         return true;
      }
      return false;
   }

   void place(unsigned k, int cycle, int phase)
   {
      account(k);
      nodes[k].done = true;
      nodes[k].cycle = cycle;
      nodes[k].phase = phase;
   }

   void run()
   {
      build();
      build_pressure();
      int cycle = 0;
      unsigned remaining = nodes.size();
      unsigned next_in_order = 0;
      while (remaining) {
         int x = -1;
         if (reorder) {
            /* Ready ops by critical path; waiting ones by readiness. Over the
             * pressure limit, ops that do not raise the pressure come first
             * (even if that costs a stall). */
            bool over = pressure >= kPressureLimit;
            int best = -1;
            auto key = [&](unsigned k) {
               int e = earliest(k);
               int grows = over && delta(k) > 0 ? 1 : 0;
               int wait = e > cycle ? e : 0;
               return std::make_tuple(grows, wait, -(int)nodes[k].prio, (int)k);
            };
            for (unsigned k = 0; k < nodes.size(); k++) {
               if (nodes[k].done || !preds_done(k))
                  continue;
               if (best < 0 || key(k) < key(best))
                  best = k;
            }
            x = best;
            cycle = std::max(cycle, earliest(x));
         } else {
            x = next_in_order;
            cycle = std::max(cycle, earliest(x));
         }
         const Instr &X = B.instrs[nodes[x].instr];
         int xphase = (X.info()->phases & 1) ? 0 : 1;
         place(x, cycle, xphase);
         remaining--;

         int y = -1, yphase = -1, xph_for_y = xphase;
         if (dual && remaining) {
            for (unsigned k = 0; k < nodes.size(); k++) {
               if (nodes[k].done)
                  continue;
               if (!reorder && k != (unsigned)x + 1)
                  continue;
               int xp, yp;
               if (!fits_with(x, k, cycle, xp, yp))
                  continue;
               if (reorder && pressure >= kPressureLimit && delta(k) > 0)
                  continue;
               if (y < 0 || nodes[k].prio > nodes[y].prio) {
                  y = k;
                  yphase = yp;
                  xph_for_y = xp;
               }
            }
         }
         Bundle bu;
         if (y >= 0) {
            nodes[x].phase = xph_for_y;
            place(y, cycle, yphase);
            remaining--;
            bu.ph[xph_for_y] = nodes[x].instr;
            bu.ph[yphase] = nodes[y].instr;
         } else {
            bu.ph[xphase] = nodes[x].instr;
         }
         bundles.push_back(bu);
         if (!reorder) {
            next_in_order = x + 1;
            while (next_in_order < nodes.size() && nodes[next_in_order].done)
               next_in_order++;
         }
         cycle++;
      }
      B.bundles = bundles;
   }
};

} // anonymous namespace

void
schedule(Shader &S, bool reorder, bool dual)
{
   S.scheduled = false;
   Liveness L = compute_liveness(S);
   auto vreg_set = [&](const std::vector<uint64_t> &bits) {
      std::vector<bool> set(S.vregs.size(), false);
      for (uint32_t v = 0; v < S.vregs.size(); v++)
         for (unsigned k = 0; k < 4u * S.vregs[v].width; k++) {
            unsigned bit = L.first_bit[v] + k;
            if (bits[bit / 64] >> (bit % 64) & 1) {
               set[v] = true;
               break;
            }
         }
      return set;
   };
   for (unsigned b = 0; b < S.blocks.size(); b++) {
      std::vector<bool> live_in = vreg_set(L.live_in[b]), live_out = vreg_set(L.live_out[b]);
      if (b == 0)
         for (const InputDesc &in : S.inputs)
            live_in[in.vreg] = true;
      BlockScheduler bs(S, S.blocks[b], reorder, dual, live_in, live_out);
      bs.run();
   }
   S.scheduled = true;
}

} // namespace vlgpu
