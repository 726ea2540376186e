/*
 * vlgpu cycle-mode GPU: the CP's DMA engine (dma.h).
 */
#include "sim/units/cp/dma.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/func/cp/copy.h"

namespace vlgpu::sim {

std::vector<uint64_t>
copy_box_lines(const VLG_COPY_INFO &ci, bool src, uint32_t line_bytes)
{
   std::vector<uint64_t> lines;
   copy_for_each_row(ci, [&](uint64_t s, uint64_t d) {
      for_each_line(src ? s : d, ci.width_bytes, line_bytes, [&](uint64_t l) {
         if (lines.empty() || lines.back() != l)
            lines.push_back(l);
      });
   });
   return lines;
}

Activity
mem_tick_end(bool busy, bool idle, MemClient &a, MemClient &b)
{
   busy |= a.send();
   busy |= b.send();
   if (busy)
      return Activity::Busy;
   if (idle)
      return Activity::Idle;
   if ((a.queued() && !a.out.can_push()) || (b.queued() && !b.out.can_push()))
      return Activity::Stalled;
   return Activity::Starved;
}

Dma::Dma(std::string name, const Config &p)
    : Unit(std::move(name)), line_bytes_(p.l2_line_bytes),
      max_in_flight_(std::max(1u, p.cp_dma_lines_in_flight))
{
   set_activity_causes(Cause::Copy); /* bottleneck report */
}

bool
Dma::start_job()
{
   if (!in_job.can_pop())
      return false;
   job_ = in_job.pop();
   const bool fill = job_.info.mode == VLG_COPY_MODE_FILL;
   src_ = fill ? std::vector<uint64_t>{} : copy_box_lines(job_.info, true, line_bytes_);
   dst_ = copy_box_lines(job_.info, false, line_bytes_);
   reads_issued_ = reads_done_ = writes_issued_ = 0;
   read_txns_.clear();
   ++(fill ? count_.fills : count_.copies);
   active_ = true;
   auto_sleep(false); /* ticked every cycle while a job runs */
   return true;
}

/* One read and one write request per cycle at most (one per port). */
bool
Dma::issue()
{
   bool moved = false;
   while (!read_txns_.empty() && rd.done(read_txns_.front())) {
      read_txns_.pop_front();
      reads_done_++;
      moved = true;
   }
   if (reads_issued_ < src_.size() && reads_issued_ - reads_done_ < max_in_flight_ &&
       rd.queued() == 0) {
      const uint32_t t = rd.begin();
      rd.read(t, src_[reads_issued_++] * line_bytes_, line_bytes_);
      read_txns_.push_back(t);
      ++count_.copy_lines_read;
      count_.copy_bytes_read += line_bytes_;
      moved = true;
   }
   /* destination lines follow the returned source lines in proportion */
   const size_t allowed =
      src_.empty() ? dst_.size()
                   : size_t((unsigned __int128)reads_done_ * dst_.size() / src_.size());
   if (writes_issued_ < allowed && wr.queued() == 0) {
      wr.write(dst_[writes_issued_++] * line_bytes_, line_bytes_);
      ++count_.copy_lines_written;
      count_.copy_bytes_written += line_bytes_;
      moved = true;
   }
   count_.read_wait_cycles.set(now(), writes_issued_ < dst_.size() && writes_issued_ >= allowed);
   return moved;
}

bool
Dma::complete() const
{
   return reads_done_ == src_.size() && writes_issued_ == dst_.size() && wr.queued() == 0 &&
          wr.out.occupancy() == 0;
}

Activity
Dma::tick(Cycle now)
{
   (void)now;
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false;
   busy |= rd.receive();
   if (!active_)
      busy |= start_job();
   if (active_) {
      busy |= issue();
      if (complete()) {
         if (!out_done.can_push())
            return Activity::Stalled;
         out_done.push(CopyDone{job_.id, src_.size(), dst_.size()});
         active_ = false;
         count_.read_wait_cycles.set(now, false);
         src_.clear();
         src_.shrink_to_fit();
         dst_.clear();
         dst_.shrink_to_fit();
         auto_sleep(true);
         busy = true;
      }
   }
   return mem_tick_end(busy, !active_, rd, wr);
}

bool
Dma::drained() const
{
   return !wedged_ && !active_ && rd.idle() && wr.idle();
}

std::string
Dma::stall_report() const
{
   std::string r = port_report();
   if (active_)
      r += fmt::format("; COPY {} ({}): {} of {} source lines read ({} returned), {} of {} "
                       "destination lines written",
                       job_.id, job_.info.mode == VLG_COPY_MODE_FILL ? "fill" : "copy",
                       reads_issued_, src_.size(), reads_done_, dst_.size() ? writes_issued_ : 0,
                       dst_.size());
   if (wedged_)
      r += "; WEDGED (fault injection)";
   return r;
}

} // namespace vlgpu::sim
