/*
 * vlgpu cycle-mode GPU: the local task scheduler (lts.h).
 */
#include "sim/units/gpc/lts/lts.h"

#include <fmt/format.h>

namespace vlgpu::sim {

Lts::Lts(std::string name, const Config &p)
    : Unit(std::move(name)), p_(p), width_(p.thread_group_width)
{
   set_activity_causes(Cause::Lts); /* bottleneck report */
   for (uint32_t k = 0; k < p.spcs_per_gpc; k++) {
      out_spc.push_back(std::make_unique<OutPort<SpcTask>>(
         *this, fmt::format("out_spc{}", k), fmt::format("thread groups to SPC {}", k)));
      in_credit.push_back(std::make_unique<InPort<Credit>>(
         *this, fmt::format("in_credit{}", k), fmt::format("freed resources of SPC {}", k)));
      spc_.push_back(
         Spc{p.thread_groups_per_spc, p.spc_register_file_bytes, p.shared_memory_bytes});
   }
}

/* The SPC "by load" (lts.h) among those with @slots free slots, @reg_bytes
 * of register file and @shared bytes of shared memory free and room in
 * their queue: most free slots, then most free register bytes, then the
 * lowest index; -1 if none. */
int
Lts::pick_spc(uint32_t slots, uint64_t reg_bytes, uint64_t shared) const
{
   int best = -1;
   for (unsigned k = 0; k < spc_.size(); k++) {
      const Spc &s = spc_[k];
      if (s.slots < slots || s.reg_bytes < reg_bytes || s.shared_bytes < shared ||
          !out_spc[k]->can_push())
         continue;
      if (best < 0 || s.slots > spc_[best].slots ||
          (s.slots == spc_[best].slots && s.reg_bytes > spc_[best].reg_bytes))
         best = int(k);
   }
   return best;
}

int
Lts::dispatch(InPort<SpcTask> &in, bool fs, Cycle now)
{
   if (!in.can_pop())
      return 0;
   const SpcTask &t = in.peek();
   if (t.last_of) {
      (fs ? fs_last_ : vs_last_).push_back(in.pop().last_of);
      return 1;
   }
   DrawState &d = fs ? *t.fs->draw : *t.vs->draw;
   const bool gs = !fs && t.vs->gs;
   const VLG_SHADER_STATE &sh = fs ? d.pkg.fs.state : gs ? d.pkg.gs.state : d.pkg.vs.state;
   const bool skip = fs ? t.fs->skip : t.vs->skip;
   uint64_t need = uint64_t(sh.num_regs) * width_ * 16;
   bool never = false;
   if (!skip && !d.aborted(now)) {
      if (sh.num_regs > p_.vec4_registers_per_lane || need > p_.spc_register_file_bytes) {
         d.raise(GpuFault("LTS", "shader does not fit an SPC",
                          fmt::format("the {} shader declares {} registers: a thread group of "
                                      "{} lanes needs {} bytes of register file; an SPC has {} "
                                      "bytes (spc.register_file_bytes) and {} registers per lane "
                                      "(vec4_registers_per_lane)",
                                      fs ? "fragment" : gs ? "geometry" : "vertex",
                                      sh.num_regs, width_, need,
                                      p_.spc_register_file_bytes,
                                      p_.vec4_registers_per_lane)),
                 now, index());
         never = true;
      }
   }
   if (never || skip || d.aborted(now))
      need = 0; /* goes through as a skip: a slot, no registers */
   const int best = pick_spc(1, need, 0);
   if (best < 0)
      return -1;
   SpcTask task = in.pop();
   if (need == 0) { /* not run: the SPC passes it on as a skip */
      if (fs)
         task.fs->skip = true;
      else
         task.vs->skip = true;
   }
   spc_[best].slots--;
   spc_[best].reg_bytes -= need;
   if (fs)
      ++count_.fs_dispatched;
   else if (gs)
      ++count_.gs_dispatched;
   else
      ++count_.vs_dispatched;
   out_spc[best]->push(std::move(task));
   return 1;
}

int
Lts::place_workgroup(Cycle now)
{
   if (!in_cs.can_pop())
      return 0;
   const CsWorkgroup &wg = *in_cs.peek().cs;
   if (wg.dispatch->aborted(now)) { /* not run: done at once */
      in_cs.pop();
      ce_done_++;
      return 1;
   }
   const uint32_t slots = uint32_t(wg.tgs.size());
   const uint64_t shared = uint64_t(wg.shared.size()) * 4;
   const int best = pick_spc(slots, wg.reg_bytes, shared);
   if (best < 0)
      return -1;
   spc_[best].slots -= slots;
   spc_[best].reg_bytes -= wg.reg_bytes;
   spc_[best].shared_bytes -= shared;
   ++count_.cs_workgroups;
   count_.cs_dispatched += slots;
   out_spc[best]->push(in_cs.pop());
   return 1;
}

void
Lts::credit(unsigned k, const Credit &c)
{
   spc_[k].slots += c.slots;
   spc_[k].reg_bytes += c.amount;
   spc_[k].shared_bytes += c.shared_bytes;
   if (c.workgroup)
      ce_done_++;
}

void
Lts::on_finalize()
{
   track_nonempty(*this, in_credit, credit_nonempty_);
}

Activity
Lts::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false, blocked = false;
   /* the SPCs' credits in order (an empty input cannot be popped) */
   for (uint64_t m = credit_nonempty_; m; m &= m - 1) {
      const unsigned k = unsigned(__builtin_ctzll(m));
      if (in_credit[k]->can_pop()) {
         credit(k, in_credit[k]->pop());
         busy = true;
      }
   }

   /* one group per cycle; alternate which input goes first */
   InPort<SpcTask> *first = fs_first_ ? &in_fs : &in_vs;
   InPort<SpcTask> *second = fs_first_ ? &in_vs : &in_fs;
   int r = dispatch(*first, fs_first_, now);
   if (r <= 0) {
      blocked |= r < 0;
      r = dispatch(*second, !fs_first_, now);
      blocked |= r < 0;
   }
   if (r > 0) {
      busy = true;
      fs_first_ = !fs_first_;
   } else {
      r = place_workgroup(now);
      blocked |= r < 0;
      busy |= r > 0;
   }
   count_.no_room_cycles.set(now, blocked);
   if (ce_done_) { /* one completed workgroup reported per cycle */
      if (out_ce.can_push()) {
         out_ce.push(Credit{0, 0, 0, true, 0});
         ce_done_--;
         busy = true;
      } else {
         blocked = true;
      }
   }

   /* a draw's `last` token, once it passed both inputs: to every SPC */
   if (!vs_last_.empty() && !fs_last_.empty()) {
      const DrawRef &d = vs_last_.front();
      for (unsigned k = 0; k < out_spc.size(); k++) {
         if (last_sent_ >> k & 1)
            continue;
         if (out_spc[k]->can_push()) {
            SpcTask t;
            t.last_of = d;
            out_spc[k]->push(std::move(t));
            last_sent_ |= uint64_t(1) << k;
            busy = true;
         } else {
            blocked = true;
         }
      }
      const uint64_t all = out_spc.size() >= 64 ? ~uint64_t(0) : (uint64_t(1) << out_spc.size()) - 1;
      if (last_sent_ == all && out_last.can_push()) {
         out_last.push(LastReport{d->seq});
         vs_last_.pop_front();
         fs_last_.pop_front();
         last_sent_ = 0;
         busy = true;
      } else if (last_sent_ == all) {
         blocked = true;
      }
   }
   if (busy)
      return Activity::Busy;
   return blocked ? Activity::Stalled : Activity::Idle;
}

bool
Lts::drained() const
{
   return !wedged_ && vs_last_.empty() && fs_last_.empty() && !ce_done_;
}

std::string
Lts::state_report() const
{
   std::string r;
   for (unsigned k = 0; k < spc_.size(); k++)
      r += fmt::format("; spc{}: {} free slot(s), {} free register bytes, {} free shared bytes",
                       k, spc_[k].slots, spc_[k].reg_bytes, spc_[k].shared_bytes);
   if (!vs_last_.empty() || !fs_last_.empty())
      r += fmt::format("; `last` tokens waiting: {} from the GE, {} from the PE", vs_last_.size(),
                       fs_last_.size());
   return r;
}

} // namespace vlgpu::sim
