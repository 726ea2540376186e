/*
 * vlgpu cycle-mode GPU: compute workgroups on the SPC (spc.h "Compute
 * workgroups"; docs/hw.md "Compute", docs/simulator-modules.md "CE").
 * Kept apart from spc.cpp: the VS/FS paths do not change.
 */
#include <algorithm>

#include <fmt/format.h>

#include "sim/func/shader/executor.h"
#include "sim/func/shader/program.h"
#include "sim/units/gpc/spc/spc.h"

namespace vlgpu::sim {

CsWorkgroup::CsWorkgroup() = default;
CsWorkgroup::~CsWorkgroup() = default;

void
Spc::accept_workgroup(std::unique_ptr<CsWorkgroup> wg, Cycle now)
{
   DrawState &d = *wg->dispatch;
   const ComputeSetup &su = *d.compute;
   const VLG_SHADER_STATE &st = su.pkg.cs.state;
   const uint32_t reg_bytes = st.num_regs * width_ * 16;
   const unsigned nregs = std::min(st.num_regs, 128u);
   size_t free_slots = 0;
   for (const Slot &c : slots_)
      free_slots += !c.used;
   if (free_slots < wg->tgs.size()) /* the LTS checks the slots: a simulator bug */
      throw SimError(fmt::format("{}: workgroup of {} thread groups sent with {} free slots",
                                 name(), wg->tgs.size(), free_slots));
   for (const std::unique_ptr<ThreadGroup> &tg : wg->tgs) {
      Slot *s = nullptr;
      for (Slot &c : slots_)
         if (!c.used) {
            s = &c;
            break;
         }
      const uint32_t si = uint32_t(s - slots_.data());
      live_.insert(std::lower_bound(live_.begin(), live_.end(), si), si);
      s->used = true;
      s->age = ++age_;
      s->vs.reset();
      s->fs.reset();
      s->wg = wg.get();
      s->draw = &d;
      s->tg = tg.get();
      s->prog = su.prog.get();
      s->prof = profile_of(su.prog, st.code, 'c');
      s->res = wg->res.get();
      s->code = st.code;
      s->reg_bytes = reg_bytes;
      s->dead = d.aborted(now);
      s->start_issue(now);
      std::fill(s->ready.begin(), s->ready.begin() + size_t(nregs) * 4, Cycle(0));
      std::fill(s->reg_ready.begin(), s->reg_ready.begin() + nregs, Cycle(0));
      s->next = s->prog->entry_index();
      ++count_.cs_groups;
   }
   ++count_.cs_workgroups;
   wgs_.push_back(std::move(wg));
}

/* The register writes of an instruction without a memory transaction:
 * each due at issue + its latency, not before @min_at. */
void
Spc::plain_writes(Slot &s, const Instr &in, Cycle now, Cycle min_at)
{
   for (unsigned i = 0; i < in.nwrites; i++) {
      const RegUse &w = in.writes[i];
      const Cycle at = std::max<Cycle>(now + w.latency, min_at);
      for (unsigned m = w.mask & 0xf; m; m &= m - 1)
         s.ready[w.reg * 4 + unsigned(__builtin_ctz(m))] = at;
      s.reg_ready[w.reg] = std::max(s.reg_ready[w.reg], at);
      s.max_ready = std::max(s.max_ready, at);
   }
}

/* MEM of a compute thread group (step() has done it functionally) */
void
Spc::issue_cs_mem(Slot &s, const Instr &in, const StepResult &r, Cycle now)
{
   for (unsigned o = 0; o < in.nops; o++) /* ComputeStats::mem_ops, as run() counts */
      s.draw->compute_stats.mem_ops += in.ops[o].kind == OpKind::Mem;
   if (r.mem_shared && !r.mem_addresses.empty()) {
      issue_shared_mem(s, in, r, now);
   } else if (r.mem_addresses.empty()) { /* BAR, FENCE, no lane active */
      plain_writes(s, in, now, 0);
   } else if (r.memkind == VLG_MEMKIND_LD) { /* through the L1, as LDB */
      lines_.clear();
      for (uint64_t a : r.mem_addresses) {
         const uint64_t l = a >> line_shift_;
         if (std::find(lines_.begin(), lines_.end(), l) == lines_.end())
            lines_.push_back(l);
      }
      ++count_.global_mem_instructions;
      count_.global_mem_line_reads += lines_.size();
      issue_lines(s, in, now, true);
   } else if (r.memkind == VLG_MEMKIND_ST) { /* line writes to the L2, the last acknowledged */
      issue_global_mem(s, in, r, now);
   } else {
      issue_atomic(s, in, r, now);
   }
}

/* Shared memory: banks of 4-byte words; the access takes as many issue
 * cycles (passes) as the most distinct words one bank serves. */
void
Spc::issue_shared_mem(Slot &s, const Instr &in, const StepResult &r, Cycle now)
{
   ++count_.shared_mem_instructions;
   const uint32_t banks = p_.shared_memory_banks;
   std::vector<uint64_t> words;
   words.reserve(r.mem_addresses.size());
   for (uint64_t a : r.mem_addresses)
      words.push_back(a / 4);
   std::sort(words.begin(), words.end());
   words.erase(std::unique(words.begin(), words.end()), words.end());
   uint32_t per_bank[64] = {};
   uint32_t passes = 1;
   for (uint64_t w : words)
      passes = std::max(passes, ++per_bank[w % banks]);
   count_.bank_conflict_cycles += passes - 1;
   issue_free_ = now + passes;
   const bool loads = r.memkind != VLG_MEMKIND_ST;
   plain_writes(s, in, now,
                loads ? now + (passes - 1) + p_.shared_memory_latency_cycles : 0);
}

/* A global atomic: the L2 does the read-modify-write. The SPC reads every
 * line it touches (a transaction its destination waits for: at least an L2
 * round trip) and the L2 gets the modified lines as writes (post_writes). */
void
Spc::issue_atomic(Slot &s, const Instr &in, const StepResult &r, Cycle now)
{
   issue_global_mem(s, in, r, now); /* the reads (lines_); the destination waits for them */
   post_writes(s, lines_, now);
}

/* After an instruction of compute group @s issued: a MEM.BAR (or the end of
 * a group) may release its workgroup's barrier, once every group of it is
 * at the barrier or done (as the functional dispatch, compute.h). */
void
Spc::cs_after_issue(Slot &s, Cycle now)
{
   CsWorkgroup &wg = *s.wg;
   if (s.tg->at_barrier())
      s.bar_since = now;
   bool any_waiting = false;
   for (uint32_t si : live_) {
      const Slot &o = slots_[si];
      if (o.wg != &wg)
         continue;
      const bool waiting = !o.dead && !o.ended && o.tg->at_barrier();
      if (!waiting && !o.dead && !o.ended)
         return; /* a group still runs towards the barrier */
      any_waiting |= waiting;
   }
   if (!any_waiting)
      return;
   for (uint32_t si : live_) {
      Slot &o = slots_[si];
      if (o.wg != &wg || o.dead || o.ended || !o.tg->at_barrier())
         continue;
      count_.barrier_wait_cycles += now + 1 - o.bar_since;
      o.tg->release_barrier();
      o.wait_until = std::max(o.wait_until, now + 1);
   }
   s.draw->compute_stats.barriers++;
}

/* Every group of @wg ended (or is dead), with its results written. */
bool
Spc::wg_can_leave(const CsWorkgroup &wg, Cycle now) const
{
   for (uint32_t si : live_) {
      const Slot &o = slots_[si];
      if (o.wg != &wg)
         continue;
      if (!(o.ended || o.dead) || !o.pend.empty() || o.ifetch_txn ||
          (!o.dead && o.max_ready > now))
         return false;
   }
   return true;
}

/* The whole workgroup leaves: its counters to the dispatch, one Credit
 * (slots, registers, shared memory) to the LTS. */
bool
Spc::retire_workgroup(CsWorkgroup &wg)
{
   if (!out_credit.can_push())
      return false;
   ComputeStats &st = wg.dispatch->compute_stats;
   Credit c{wg.reg_bytes, 0, uint32_t(wg.shared.size() * 4), true, wg.ce};
   for (size_t i = 0; i < live_.size();) {
      Slot &o = slots_[live_[i]];
      if (o.wg != &wg) {
         i++;
         continue;
      }
      st.instructions += o.instructions;
      st.lane_instructions += o.lane_instructions;
      st.dual_issued += o.dual;
      c.slots++;
      o.used = false;
      o.wg = nullptr;
      o.tg = nullptr;
      o.draw = nullptr;
      live_.erase(live_.begin() + ptrdiff_t(i));
   }
   out_credit.push(c);
   for (auto it = wgs_.begin(); it != wgs_.end(); ++it)
      if (it->get() == &wg) {
         for (std::unique_ptr<ThreadGroup> &tg : (*it)->tgs)
            pool_.put(std::move(tg));
         wgs_.erase(it);
         break;
      }
   return true;
}

} // namespace vlgpu::sim
