/*
 * vlgpu cycle-mode GPU: the CP's COPY command (cp.h, docs/hw.md "Copies").
 *
 *   CopyInfo   the copy_info lines arrive through the L2; the block is
 *              loaded and checked (cp_load_copy_info) to know the spans
 *   CopyOrder  wait for every earlier in-flight draw the COPY depends on
 *              (draw interlock) -- all of them if the copy_info did not load
 *              (its fault may depend on what they write); then the copy is
 *              performed in VRAM (cp_copy_command: the same load and copy as
 *              the functional GPU) and sent to the DMA engine
 *   CopyRun    wait for the DMA engine's CopyDone; then the next command
 */
#include <algorithm>

#include "sim/func/cp/copy.h"
#include "sim/units/cp/cp.h"

namespace vlgpu::sim {

namespace {

/** [first byte, last byte + 1) of a non-empty box (saturated at 2^64). */
MemRange
box_span(uint64_t base, const VLG_COPY_INFO &ci, uint64_t row_stride, uint64_t slice_stride)
{
   const unsigned __int128 end = (unsigned __int128)base +
                                 ((unsigned __int128)ci.depth - 1) * slice_stride +
                                 ((unsigned __int128)ci.height - 1) * row_stride + ci.width_bytes;
   const uint64_t e = end >> 64 ? UINT64_MAX : uint64_t(end);
   return MemRange{base, e - base};
}

} // namespace

/** A COPY was decoded: its CopyReport (begin_cycle @now) and a request of
 *  its copy_info lines (VLG_COPY_INFO_LENGTH dwords) through the L2
 *  (St::CopyInfo). */
void
Cp::copy_begin(Cycle now)
{
   CopyReport rep;
   rep.cmd_offset_dw = off_;
   rep.index_in_queue = ss_->copies++;
   rep.copy_info_address = cmd_.copy.copy_info;
   rep.begin_cycle = now;
   copy_rep_ = ss_->result->copies.size();
   ss_->result->copies.push_back(rep);
   txn_ = mem.begin();
   for_each_line(rep.copy_info_address, uint64_t(VLG_COPY_INFO_LENGTH) * 4, line_bytes_,
                 [&](uint64_t line) { mem.read(txn_, line * line_bytes_, line_bytes_); });
   st_ = St::CopyInfo;
}

/** The COPY's draw interlock: does an earlier in-flight draw write what it
 *  reads, or read or write what it writes (its occlusion counter too)? Every
 *  draw conflicts while the copy_info did not load. */
bool
Cp::copy_conflicts() const
{
   if (!copy_info_ok_)
      return !ss_->inflight.empty();
   for (const DrawRef &e : ss_->inflight) {
      for (const MemRange &r : copy_reads_)
         for (const MemRange &w : e->writes)
            if (r.overlaps(w))
               return true;
      /* the occlusion counter is written when the draw retires */
      const bool counts = e->loaded && e->pkg.is_primitives() && e->pkg.draw.occlusion_counter;
      const MemRange occ{counts ? e->pkg.draw.occlusion_counter : 0, counts ? 8u : 0u};
      for (const MemRange &w : copy_writes_) {
         if (w.overlaps(occ))
            return true;
         for (const std::vector<MemRange> *v : {&e->reads, &e->writes})
            for (const MemRange &o : *v)
               if (w.overlaps(o))
                  return true;
      }
      for (const MemRange &r : copy_reads_)
         if (r.overlaps(occ))
            return true;
   }
   return false;
}

/** The COPY is over at cycle @now (end_cycle, cycles): the next command. */
void
Cp::copy_end(Cycle now)
{
   CopyReport &rep = ss_->result->copies[copy_rep_];
   rep.end_cycle = now + 1; /* this cycle included */
   rep.cycles = rep.end_cycle - rep.begin_cycle;
   next_command();
}

/** St::CopyInfo, St::CopyOrder, St::CopyRun: the stages at the top of this
 *  file (a full out_copy is a wait for the DMA engine, not a stall). */
Cp::Progress
Cp::copy_step()
{
   const Cycle now = this->now();
   switch (st_) {
   case St::CopyInfo: {
      if (!mem.done(txn_))
         return Progress::Waiting;
      const uint64_t a = cmd_.copy.copy_info;
      copy_reads_.clear();
      copy_writes_.clear();
      try {
         copy_ci_ = cp_load_copy_info(*ss_->vram, a);
         copy_info_ok_ = true;
      } catch (const GpuFault &) {
         copy_info_ok_ = false; /* reported by cp_copy_command once the draws drained */
      }
      if (copy_info_ok_) {
         const VLG_COPY_INFO &ci = copy_ci_;
         copy_reads_.push_back(MemRange{a, uint64_t(VLG_COPY_INFO_LENGTH) * 4});
         if (copy_box_bytes(ci)) {
            if (ci.mode == VLG_COPY_MODE_COPY)
               copy_reads_.push_back(
                  box_span(ci.src, ci, ci.src_row_stride, ci.src_slice_stride));
            copy_writes_.push_back(box_span(ci.dst, ci, ci.dst_row_stride, ci.dst_slice_stride));
         }
      }
      st_ = St::CopyOrder;
      return Progress::Moved;
   }
   case St::CopyOrder: {
      if (copy_conflicts()) {
         w_interlock_ = true;
         return Progress::Waiting;
      }
      if (!out_copy.can_push())
         return Progress::Waiting;
      CopyReport &rep = ss_->result->copies[copy_rep_];
      VLG_COPY_INFO ci;
      if (!cp_copy_command(*ss_->vram, rep, *ss_->result, ci)) {
         copy_end(now); /* faulted: skip it */
         return Progress::Moved;
      }
      out_copy.push(CopyJob{ci, rep.index_in_queue});
      st_ = St::CopyRun;
      return Progress::Moved;
   }
   case St::CopyRun: {
      if (!in_copy_done.can_pop())
         return Progress::Waiting;
      const CopyDone d = in_copy_done.pop();
      CopyReport &rep = ss_->result->copies[copy_rep_];
      rep.lines_read = d.lines_read;
      rep.lines_written = d.lines_written;
      copy_end(now);
      return Progress::Moved;
   }
   default:
      return Progress::Waiting;
   }
}

} // namespace vlgpu::sim
