/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_ra.cpp — register allocation (seed 003 §III.A-B, seed 000 §3.2-3.3).
 *
 * 1. Interference over whole-program lifetimes (Coalescer::build in
 *    vlg_coalesce.cpp): everything is inlined and there is no stack, so one
 *    graph covers the shader. Liveness is per component (vlg_liveness.cpp);
 *    a vreg interferes with every vreg live where it is written; the ops of
 *    one bundle that write interfere with each other (rule 7 of docs/isa.md
 *    §6: the phases of an instruction do not write the same component);
 *    inputs, preloaded together before the first instruction, interfere
 *    with everything live at entry.
 * 2. Copy coalescing (vlg_coalesce.cpp, again on the scheduled code): a MOV
 *    between whole registers does not make its ends interfere; if they
 *    still do not interfere they are merged and the MOV disappears.
 * 3. Graph colouring (Chaitin-Briggs simplify/select; vregs of width w take
 *    w consecutive registers). No spilling: a shader that cannot be coloured
 *    into R0..R127 fails with its register pressure.
 * 4. Low-bank priority (seed 000 §3.3: "assign virtual registers first, then
 *    map them to physical registers by reference count"): the colours are
 *    permuted so the colours referenced most by ALU operands (whose Main
 *    unit holds only the low 5 register bits) get R0, R1, ...; registers of
 *    one texture operand group stay consecutive. Off: colours as selected.
 */
#include <algorithm>
#include <functional>
#include <numeric>

#include "vlg_coalesce.h"

namespace vlgpu {

namespace {

/* Interference and coalescing (vlg_coalesce.h), then colouring. */
struct Allocator : Coalescer {
   bool lowbank;
   std::vector<int> colour;

   Allocator(Shader &s, bool l, bool c) : Coalescer(s, c), lowbank(l) {}

   [[noreturn]] void fail()
   {
      throw CompileError("does not fit the register file: register pressure " +
                         std::to_string(pressure) + " vec4 registers, R0-R127 hold " +
                         std::to_string(VLG_NUM_REGS) +
                         " (no spilling: no stack, docs/compiler.md)");
   }

   void colour_graph()
   {
      /* nodes: representatives that appear anywhere */
      std::vector<bool> used(nv, false);
      foreach_reg_access(S, [&](const RegAccess &a) { used[find(a.vreg)] = true; });
      for (const InputDesc &in : S.inputs)
         used[find(in.vreg)] = true;
      for (const OutputDesc &o : S.outputs)
         used[find(o.vreg)] = true;

      std::vector<unsigned> nodes;
      for (unsigned v = 0; v < nv; v++)
         if (used[v] && find(v) == v)
            nodes.push_back(v);
      /* Simplify: repeatedly remove the node of least (width-weighted) degree. */
      std::vector<unsigned> degree(nv, 0);
      std::vector<bool> removed(nv, true);
      for (unsigned v : nodes)
         removed[v] = false;
      for (unsigned v : nodes)
         G.foreach_neighbour(v, [&](unsigned n) {
            if (!removed[n] && find(n) == n)
               degree[v] += S.vregs[n].width;
         });
      std::vector<unsigned> stack;
      for (unsigned it = 0; it < nodes.size(); it++) {
         int best = -1;
         for (unsigned v : nodes)
            if (!removed[v] && (best < 0 || degree[v] < degree[best]))
               best = v;
         removed[best] = true;
         stack.push_back(best);
         G.foreach_neighbour(best, [&](unsigned n) {
            if (!removed[n] && find(n) == n)
               degree[n] -= S.vregs[best].width;
         });
      }
      /* Select: lowest free base. */
      colour.assign(nv, -1);
      for (int i = stack.size() - 1; i >= 0; i--) {
         unsigned v = stack[i];
         unsigned w = S.vregs[v].width;
         uint64_t busy[2] = {0, 0};
         G.foreach_neighbour(v, [&](unsigned n) {
            if (find(n) != n || colour[n] < 0)
               return;
            for (unsigned k = 0; k < S.vregs[n].width; k++) {
               unsigned r = colour[n] + k;
               busy[r / 64] |= 1ull << (r % 64);
            }
         });
         int base = -1;
         for (unsigned r = 0; r + w <= VLG_NUM_REGS && base < 0; r++) {
            bool ok = true;
            for (unsigned k = 0; k < w; k++)
               if (busy[(r + k) / 64] >> ((r + k) % 64) & 1)
                  ok = false;
            if (ok)
               base = r;
         }
         if (base < 0)
            fail();
         colour[v] = base;
      }
   }

   /* Would ALU op @I fit one unit if all its registers were in R0..R31?
    * (Only then does a high register cost it a unit: the EXT and TERN Sub
    * units carry the high register bits of every operand anyway.) Sized
    * exactly as the emitter will encode it (lower_op + vlg_instr_size). */
   bool one_unit_if_low(const Instr &I) const
   {
      Instr c = I;
      auto low = [](Operand &o) {
         if (o.is_reg()) {
            o.index = 0;
            o.offset = 0;
         }
      };
      low(c.dst);
      for (unsigned s = 0; s < 3; s++)
         low(c.src[s]);
      vlg_instr in;
      vlg_instr_init(&in);
      in.phase[0].present = true;
      in.phase[0].main = lower_op(S, c, 0);
      return vlg_instr_size(&in) == 1;
   }

   /*
    * Low-bank priority (seed 000 §3.3). The used colours form runs (a
    * multi-register vreg's registers stay consecutive); when more than 32
    * registers are used, some runs must go to R32 and above. An ALU op
    * costs one more unit if any of its registers is high and it would
    * otherwise be one unit (see one_unit_if_low); ops that need an EXT or
    * TERN Sub anyway cost nothing. The high runs are chosen greedily: the
    * run whose not-yet-costed one-unit ops per register are fewest goes
    * high next (ops it shares with runs already high are already paid),
    * until the low bank holds the rest. The low runs are numbered first,
    * by density of ALU references (the seed's reference-count order).
    */
   std::vector<unsigned> low_bank_permutation()
   {
      std::vector<unsigned> perm(VLG_NUM_REGS);
      std::iota(perm.begin(), perm.end(), 0);
      if (!lowbank)
         return perm;
      /* references of each colour by ALU operands (the 5-bit Main fields) */
      std::vector<unsigned> refs(VLG_NUM_REGS, 0);
      std::vector<bool> used(VLG_NUM_REGS, false);
      for (unsigned v = 0; v < nv; v++)
         if (find(v) == v && colour[v] >= 0)
            for (unsigned k = 0; k < S.vregs[v].width; k++)
               used[colour[v] + k] = true;
      /* colours read or written by each one-unit-if-low ALU op */
      std::vector<std::vector<unsigned>> op_colours;
      for (Block &B : S.blocks)
         for (Instr &I : B.instrs) {
            if (I.dead || !I.is_alu())
               continue;
            std::vector<unsigned> cs;
            if (I.dst.is_reg())
               cs.push_back(colour[find(I.dst.index)] + I.dst.offset);
            for (unsigned s = 0; s < I.info()->nsrc; s++)
               if (I.src[s].is_reg())
                  cs.push_back(colour[find(I.src[s].index)] + I.src[s].offset);
            for (unsigned c : cs)
               refs[c]++;
            if (!cs.empty() && one_unit_if_low(I))
               op_colours.push_back(cs);
         }
      /* glue the registers of multi-register vregs */
      std::vector<unsigned> grp(VLG_NUM_REGS);
      std::iota(grp.begin(), grp.end(), 0);
      std::function<unsigned(unsigned)> gfind = [&](unsigned c) {
         return grp[c] == c ? c : grp[c] = gfind(grp[c]);
      };
      for (unsigned v = 0; v < nv; v++)
         if (find(v) == v && colour[v] >= 0)
            for (unsigned k = 1; k < S.vregs[v].width; k++)
               grp[gfind(colour[v] + k)] = gfind(colour[v]);
      struct Run {
         unsigned first, len, refs;
      };
      std::vector<Run> runs;
      std::vector<int> run_of(VLG_NUM_REGS, -1);
      unsigned nused = 0;
      for (unsigned c = 0; c < VLG_NUM_REGS; c++) {
         if (!used[c])
            continue;
         nused++;
         if (!runs.empty() && gfind(c) == gfind(runs.back().first) &&
             runs.back().first + runs.back().len == c) {
            runs.back().len++;
            runs.back().refs += refs[c];
         } else {
            runs.push_back({c, 1, refs[c]});
         }
         run_of[c] = runs.size() - 1;
      }
      /* greedy choice of the high runs */
      std::vector<bool> high(runs.size(), false), paid(op_colours.size(), false);
      std::vector<std::vector<unsigned>> ops_of_run(runs.size());
      for (unsigned o = 0; o < op_colours.size(); o++)
         for (unsigned c : op_colours[o])
            if (ops_of_run[run_of[c]].empty() || ops_of_run[run_of[c]].back() != o)
               ops_of_run[run_of[c]].push_back(o);
      const unsigned kLowBank = VLG_LOW_BANK_REGS;
      unsigned nhigh = 0;
      std::vector<unsigned> high_order;
      while (nused > kLowBank && nused - nhigh > kLowBank) {
         int best = -1;
         uint64_t best_cost = 0, best_len = 1;
         for (unsigned r = 0; r < runs.size(); r++) {
            if (high[r])
               continue;
            uint64_t cost = 0;
            for (unsigned o : ops_of_run[r])
               cost += !paid[o];
            /* fewest new unit costs per register moved; then fewest references */
            if (best < 0 || cost * best_len < best_cost * runs[r].len ||
                (cost * best_len == best_cost * runs[r].len &&
                 (uint64_t)runs[r].refs * runs[best].len <
                    (uint64_t)runs[best].refs * runs[r].len)) {
               best = r;
               best_cost = cost;
               best_len = runs[r].len;
            }
         }
         high[best] = true;
         high_order.push_back(best);
         nhigh += runs[best].len;
         for (unsigned o : ops_of_run[best])
            paid[o] = true;
      }
      std::vector<Run> low_runs;
      for (unsigned r = 0; r < runs.size(); r++)
         if (!high[r])
            low_runs.push_back(runs[r]);
      std::stable_sort(low_runs.begin(), low_runs.end(), [](const Run &a, const Run &b) {
         /* reference density, most referenced first */
         return (uint64_t)a.refs * b.len > (uint64_t)b.refs * a.len;
      });
      unsigned next = 0;
      for (const Run &r : low_runs)
         for (unsigned k = 0; k < r.len; k++)
            perm[r.first + k] = next++;
      /* the costliest high runs first: an overshoot leaves them in R0..R31 */
      for (auto it = high_order.rbegin(); it != high_order.rend(); ++it)
         for (unsigned k = 0; k < runs[*it].len; k++)
            perm[runs[*it].first + k] = next++;
      return perm;
   }

   void rewrite(const std::vector<unsigned> &perm)
   {
      auto phys = [&](uint32_t v, unsigned offset) { return perm[colour[find(v)] + offset]; };
      unsigned max_reg = 0;
      auto fix = [&](Operand &o) {
         if (!o.is_reg())
            return;
         o.index = phys(o.index, o.offset);
         o.offset = 0;
         max_reg = std::max(max_reg, o.index);
      };
      for (Block &B : S.blocks)
         for (Instr &I : B.instrs) {
            if (I.dead)
               continue;
            unsigned width = I.info() && I.info()->format == VLG_FMT_TEX && I.src[0].is_reg()
                                ? tex_group_width(I.op, I.cube_array)
                                : 1;
            fix(I.dst);
            for (unsigned s = 0; s < 3; s++)
               fix(I.src[s]);
            if (width > 1)
               max_reg = std::max(max_reg, I.src[0].index + width - 1);
         }
      for (InputDesc &in : S.inputs) {
         /* the hardware preloads every register of a multi-register input
          * vreg (the GS per-vertex block), read or not */
         max_reg = std::max(max_reg, phys(in.vreg, S.vregs[find(in.vreg)].width - 1));
         in.vreg = phys(in.vreg, in.offset);
         in.offset = 0;
         max_reg = std::max(max_reg, in.vreg);
      }
      for (OutputDesc &o : S.outputs) {
         if (colour[find(o.vreg)] < 0) {
            o.mask = 0; /* never written */
            o.vreg = 0;
            continue;
         }
         o.vreg = phys(o.vreg, 0);
         max_reg = std::max(max_reg, o.vreg);
      }
      /* self-moves are gone */
      for (Block &B : S.blocks)
         for (Instr &I : B.instrs)
            if (!I.dead && I.op == VLG_OP_MOV && !I.sat && I.src[0].is_reg() &&
                I.src[0].index == I.dst.index && !I.src[0].neg && !I.src[0].abs) {
               bool ident = true;
               for (unsigned n = 0; n < 4; n++)
                  if ((I.wmask & (1u << n)) && VLG_SWZ_GET(I.src[0].swz, n) != n)
                     ident = false;
               if (ident)
                  I.dead = true;
            }
      S.num_regs = max_reg + 1;
   }

   void run()
   {
      if (!S.scheduled)
         VLG_ICE("register allocation before scheduling");
      build();
      do_coalesce();
      colour_graph();
      rewrite(low_bank_permutation());
      S.allocated = true;
      S.max_pressure = pressure;
   }
};

} // anonymous namespace

void
register_allocate(Shader &S, bool lowbank, bool coalesce)
{
   Allocator a(S, lowbank, coalesce);
   a.run();
}

} // namespace vlgpu
