/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_stats.cpp — static cycle estimate of a scheduled (and usually
 * allocated) shader, the model the scheduler optimises: one instruction
 * issues per cycle, in order; an instruction waits until the results it
 * reads (and the registers it overwrites) are ready, latencies from
 * vlg_op_table (docs/isa.md §5; memory ops at their minimum latency). Every
 * block counts once (no loop trip counts, no branch outcome); values from
 * other blocks are assumed ready. The simulator's cycle mode is the measure;
 * this is the shader-db style static number.
 *
 * estimate_throughput: the same instruction stream issued by several
 * resident thread groups of the shader at once, the way the cycle-mode SPC
 * issues (src/vlgpu/sim/units/gpc/spc/spc.h): one instruction per cycle
 * from the oldest group whose next instruction is ready on its scoreboard
 * (every register component it reads or writes and every coordinate
 * register it reads; results ready at issue + latency, coordinate registers
 * also forwarded to phase 1 of their own instruction, vlg_op_forwards()); a group is done
 * when its last result is ready. Cycles until every group is done, divided
 * by the number of groups: the cost of one thread group when latency is
 * hidden by the others (seed 003 measured its dual-issue gain on a GPU that
 * runs 12 threads in a pipelined manner).
 */
#include <algorithm>

#include "vlg_passes.h"
#include "vlg_sched.h"

namespace vlgpu {

unsigned
estimate_cycles(const Shader &S)
{
   unsigned total = 0;
   for (const Block &B : S.blocks) {
      std::vector<std::pair<const Instr *, int>> issued; /* op, cycle */
      int t = -1;
      for (const Bundle &bu : B.bundles) {
         const Instr *ops[2] = {nullptr, nullptr};
         for (unsigned p = 0; p < 2; p++)
            if (bu.ph[p] >= 0 && !B.instrs[bu.ph[p]].dead)
               ops[p] = &B.instrs[bu.ph[p]];
         if (!ops[0] && !ops[1])
            continue;
         int issue = t + 1;
         for (unsigned p = 0; p < 2; p++) {
            if (!ops[p])
               continue;
            for (auto &prev : issued) {
               Dep d = dependency(S, *prev.first, *ops[p]);
               if (d.exists)
                  issue = std::max(issue, prev.second + (int)d.lat);
            }
         }
         for (unsigned p = 0; p < 2; p++)
            if (ops[p])
               issued.push_back({ops[p], issue});
         t = issue;
      }
      total += t + 1;
   }
   return total;
}

unsigned
estimate_throughput(const Shader &S, unsigned groups)
{
   /* the instruction stream: every block once, in program order */
   struct Step {
      std::vector<RegAccess> reads, writes;
      unsigned coord_reads = 0, coord_writes = 0;
      std::vector<unsigned> lat; /* per write */
   };
   std::vector<Step> steps;
   std::vector<RegAccess> acc;
   for (const Block &B : S.blocks)
      for (const Bundle &bu : B.bundles) {
         Step st;
         bool any = false;
         unsigned cw0 = 0, op0 = 0;
         for (unsigned p = 0; p < 2; p++) {
            if (bu.ph[p] < 0 || B.instrs[bu.ph[p]].dead)
               continue;
            const Instr &I = B.instrs[bu.ph[p]];
            any = true;
            instr_reads(S, I, acc);
            st.reads.insert(st.reads.end(), acc.begin(), acc.end());
            instr_writes(S, I, acc);
            for (const RegAccess &w : acc) {
               st.writes.push_back(w);
               st.lat.push_back(I.info() ? I.info()->latency : 1);
            }
            unsigned cr = coord_reads(I);
            /* a forwarded phase-0 coordinate write (PRED -> BRC, ADDR -> LDC
             * ...) is no wait for phase 1 of the same instruction */
            st.coord_reads |= cr & ~(p == 1 && vlg_op_forwards(op0, I.op) ? cw0 : 0u);
            st.coord_writes |= coord_writes(I);
            if (p == 0) {
               cw0 = coord_writes(I);
               op0 = I.op;
            }
         }
         if (any)
            steps.push_back(st);
      }
   if (steps.empty() || !groups)
      return 0;

   const unsigned nreg = VLG_NUM_REGS * 4;
   struct Group {
      std::vector<uint64_t> ready; /* per register component */
      uint64_t coord[3] = {0, 0, 0};
      size_t pc = 0;
      uint64_t done = 0; /* last result ready */
   };
   std::vector<Group> g(groups);
   for (Group &x : g)
      x.ready.assign(nreg, 0);
   auto comp_ready = [&](const Group &x, const RegAccess &a) {
      uint64_t t = 0;
      for (unsigned c = 0; c < 4; c++)
         if (a.comps & (1u << c)) {
            unsigned i = (a.vreg + a.offset) * 4 + c;
            if (i < nreg)
               t = std::max(t, x.ready[i]);
         }
      return t;
   };
   auto can_issue = [&](const Group &x, uint64_t now, uint64_t &when) {
      const Step &st = steps[x.pc];
      uint64_t t = 0;
      for (const RegAccess &a : st.reads)
         t = std::max(t, comp_ready(x, a));
      for (const RegAccess &a : st.writes)
         t = std::max(t, comp_ready(x, a));
      for (unsigned b = 0; b < 3; b++)
         if (st.coord_reads & (1u << b))
            t = std::max(t, x.coord[b]);
      when = t;
      return t <= now;
   };
   uint64_t now = 0;
   unsigned finished = 0;
   while (finished < groups) {
      int pick = -1;
      uint64_t wake = UINT64_MAX;
      for (unsigned k = 0; k < groups; k++) {
         if (g[k].pc >= steps.size())
            continue;
         uint64_t when;
         if (can_issue(g[k], now, when)) {
            pick = k; /* oldest first */
            break;
         }
         wake = std::min(wake, when);
      }
      if (pick < 0) {
         now = wake;
         continue;
      }
      Group &x = g[pick];
      const Step &st = steps[x.pc];
      for (size_t i = 0; i < st.writes.size(); i++) {
         const RegAccess &w = st.writes[i];
         for (unsigned c = 0; c < 4; c++)
            if (w.comps & (1u << c)) {
               unsigned idx = (w.vreg + w.offset) * 4 + c;
               if (idx < nreg)
                  x.ready[idx] = now + st.lat[i];
            }
         x.done = std::max(x.done, now + st.lat[i]);
      }
      for (unsigned b = 0; b < 3; b++)
         if (st.coord_writes & (1u << b))
            x.coord[b] = now + 1;
      x.done = std::max(x.done, now + 1);
      if (++x.pc == steps.size())
         finished++;
      now++;
   }
   uint64_t end = 0;
   for (const Group &x : g)
      end = std::max(end, x.done);
   return (unsigned)((end + groups - 1) / groups);
}

} // namespace vlgpu
