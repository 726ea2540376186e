/*
 * vlgpu cycle-mode GPU: the global task scheduler (gts.h).
 */
#include "sim/units/gts/gts.h"

#include <algorithm>

#include <fmt/format.h>

namespace vlgpu::sim {

Gts::Gts(std::string name, const Config &p)
    : Unit(std::move(name)), sub_block_(std::max(1u, p.gts_sub_block_elements))
{
   set_activity_causes(Cause::Cp); /* bottleneck report */
   for (uint32_t g = 0; g < p.gpcs; g++)
      out_ge.push_back(std::make_unique<OutPort<GeTask>>(*this, fmt::format("out_ge{}", g),
                                                         fmt::format("sub-blocks to GPC {}'s GE", g)));
}

Activity
Gts::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   if (!draw_) {
      if (!in_draw.can_pop())
         return Activity::Idle;
      draw_ = in_draw.pop().draw;
      ++count_.draws;
      instance_ = first_ = 0;
      last_sent_ = 0;
      const DrawState &d = *draw_;
      sending_last_ = !d.loaded || d.clear || d.pkg.draw.count == 0 ||
                      d.pkg.draw.instance_count == 0 || d.aborted(now);
      return Activity::Busy;
   }
   const uint32_t n = uint32_t(out_ge.size());
   if (!sending_last_ && draw_->aborted(now))
      sending_last_ = true;
   if (!sending_last_) {
      OutPort<GeTask> &out = *out_ge[rr_];
      if (!out.can_push())
         return Activity::Stalled;
      const VLG_DRAW_INFO &di = draw_->pkg.draw;
      GeTask t;
      t.draw = draw_;
      t.instance = instance_;
      t.first = first_;
      t.count = std::min(sub_block_, di.count - first_);
      first_ += t.count;
      if (first_ >= di.count) {
         t.end_of_instance = true;
         first_ = 0;
         if (++instance_ >= di.instance_count)
            sending_last_ = true;
      }
      out.push(std::move(t));
      ++count_.sub_blocks;
      if (!draw_->has_gs()) /* a GS draw stays on one GPC */
         rr_ = (rr_ + 1) % n;
      return Activity::Busy;
   }
   bool pushed = false, blocked = false;
   for (uint32_t g = 0; g < n; g++) {
      if (last_sent_ >> g & 1)
         continue;
      if (!out_ge[g]->can_push()) {
         blocked = true;
         continue;
      }
      GeTask t;
      t.draw = draw_;
      t.last = true;
      out_ge[g]->push(std::move(t));
      last_sent_ |= uint64_t(1) << g;
      pushed = true;
   }
   if (blocked)
      return pushed ? Activity::Busy : Activity::Stalled;
   if (!out_last.can_push())
      return pushed ? Activity::Busy : Activity::Stalled;
   out_last.push(LastReport{draw_->seq});
   if (draw_->has_gs()) /* the next draw starts on the next GPC */
      rr_ = (rr_ + 1) % n;
   draw_.reset();
   return Activity::Busy;
}

std::string
Gts::state_report() const
{
   if (!draw_)
      return {};
   return fmt::format("; draw {}: {} (instance {}, element {})", draw_->seq,
                      sending_last_ ? "sending its `last` token" : "splitting into sub-blocks",
                      instance_, first_);
}

} // namespace vlgpu::sim
