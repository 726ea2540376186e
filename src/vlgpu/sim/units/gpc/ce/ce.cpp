/*
 * vlgpu cycle-mode GPU: the compute engine (ce.h).
 */
#include "sim/units/gpc/ce/ce.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

Ce::Ce(std::string name, const Config &p, uint32_t gpc, ThreadGroupPool &pool)
    : Unit(std::move(name)), gpc_(gpc), gpcs_(p.gpcs),
      reg_file_bytes_(p.spc_register_file_bytes), pool_(pool)
{
   set_activity_causes(Cause::Ce); /* bottleneck report */
}

std::unique_ptr<CsWorkgroup>
Ce::form(uint64_t i)
{
   const ComputeSetup &su = *disp_->compute;
   auto wg = std::make_unique<CsWorkgroup>();
   wg->dispatch = disp_;
   wg->index = i;
   wg->ce = gpc_;
   wg->shared.assign(su.pkg.info.shared_size / 4, 0u); /* deterministic, docs/hw.md */
   wg->res = std::make_unique<ShaderResources>(*su.res);
   wg->res->shared = wg->shared.data();
   su.workgroup_id(i, wg->res->workgroup);
   const uint32_t num_regs = su.pkg.cs.state.num_regs;
   ComputeStats &st = disp_->compute_stats;
   for (uint32_t k = 0; k < su.thread_groups; k++) {
      wg->tgs.push_back(pool_.get(su.width, num_regs, VLG_SHADER_STAGE_COMPUTE, k));
      st.invocations += su.init_thread_group(*wg->tgs.back(), k);
   }
   /* register file charged at the LTS: a workgroup needing more than a
    * whole SPC's (functional mode has no such limit) runs alone on one */
   wg->reg_bytes = uint32_t(std::min<uint64_t>(uint64_t(num_regs) * su.width * 16 *
                                                   su.thread_groups,
                                               reg_file_bytes_));
   st.workgroups++;
   st.thread_groups += su.thread_groups;
   ++count_.workgroups;
   count_.thread_groups += su.thread_groups;
   return wg;
}

Activity
Ce::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false;
   while (in_done.can_pop()) {
      in_done.pop();
      done_++;
      busy = true;
   }
   if (!disp_) {
      count_.wait_lts_cycles.set(now, false);
      if (!in_dispatch.can_pop())
         return busy ? Activity::Busy : Activity::Idle;
      disp_ = in_dispatch.pop().dispatch;
      ++count_.dispatches;
      next_ = gpc_;
      issued_ = done_ = 0;
      return Activity::Busy;
   }
   const DrawState &d = *disp_;
   const bool more = d.compute && !d.aborted(now) && next_ < d.compute->workgroups;
   count_.wait_lts_cycles.set(now, more && !out_lts.can_push());
   if (more) {
      if (!out_lts.can_push())
         return busy ? Activity::Busy : Activity::Stalled;
      SpcTask t;
      t.cs = form(next_);
      out_lts.push(std::move(t));
      next_ += gpcs_;
      issued_++;
      return Activity::Busy;
   }
   if (done_ < issued_) /* woken by the LTS's reports */
      return busy ? Activity::Busy : Activity::Starved;
   if (!out_done.can_push())
      return busy ? Activity::Busy : Activity::Stalled;
   out_done.push(LastReport{d.seq});
   disp_.reset();
   return Activity::Busy;
}

std::string
Ce::state_report() const
{
   if (!disp_)
      return {};
   return fmt::format("; dispatch {}: {} workgroup(s) handed out, {} completed, next {}",
                      disp_->seq, issued_, done_, next_);
}

} // namespace vlgpu::sim
