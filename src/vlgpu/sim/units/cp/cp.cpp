/*
 * vlgpu cycle-mode GPU: the command processor (cp.h).
 */
#include "sim/units/cp/cp.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/func/pipe/package.h"
#include "sim/func/shader/program.h"
#include "sim/units/mc/mc.h"

namespace vlgpu::sim {

namespace {
/** DUMP reads go to the MC in requests of this many bytes. */
constexpr uint32_t kDumpChunk = 256;
/** Package arrays fetched per block kind at most (the package's own limits
 *  are lower; a corrupt count is the loader's fault to report). */
constexpr uint64_t kMaxArray = 64;
} // namespace

Cp::Cp(std::string name, const Config &p, const std::vector<std::string> &reporters,
       ProgramCache &programs)
    : Unit(std::move(name)), p_(p), programs_(programs), line_bytes_(p.l2_line_bytes)
{
   set_activity_causes(Cause::Cp, Cause::Pipeline); /* bottleneck report */
   for (uint32_t g = 0; g < p.gpcs; g++) {
      out_ce.push_back(std::make_unique<OutPort<DispatchCmd>>(
         *this, fmt::format("out_ce{}", g), fmt::format("dispatches to GPC {}'s CE", g)));
      in_ce.push_back(std::make_unique<InPort<LastReport>>(
         *this, fmt::format("in_ce{}", g), fmt::format("dispatch done, from GPC {}'s CE", g)));
   }
   reporters_.reserve(reporters.size());
   for (const std::string &r : reporters) {
      Reporter rep;
      rep.name = r;
      rep.in = std::make_unique<InPort<LastReport>>(*this, "in_last_" + Mc::port_name(r),
                                                    "`last` token reports of " + r);
      reporters_.push_back(std::move(rep));
   }
}

void
Cp::start(SubmitState &ss)
{
   ss_ = &ss;
   off_ = ss.next_offset;
   st_ = St::Fetch;
   qlines_.clear();
   const uint64_t q = ss.queue_address + uint64_t(off_) * 4;
   q_requested_ = q_arrived_ = q / line_bytes_ * line_bytes_;
   for (Reporter &r : reporters_)
      r.last = -1;
   draw_.reset();
}

void
Cp::fetch_range(uint32_t txn, uint64_t addr, uint64_t bytes)
{
   for_each_line(addr, bytes, line_bytes_, [&](uint64_t line) {
      mem.read(txn, line * line_bytes_, line_bytes_);
      ++count_.package_lines;
   });
}

void
Cp::prefetch()
{
   const uint64_t qend = ss_->queue_address + uint64_t(ss_->queue_dwords) * 4;
   const uint64_t cur = ss_->queue_address + uint64_t(off_) * 4;
   /* the current command's dwords (up to 8), and cp.prefetch_lines lines */
   const uint64_t need = std::min(qend, cur + 8 * 4);
   const uint64_t want = std::min(
      qend, std::max((need + line_bytes_ - 1) / line_bytes_,
                     cur / line_bytes_ + p_.cp_prefetch_lines) *
               uint64_t(line_bytes_));
   while (q_requested_ < want) {
      const uint32_t txn = mem.begin();
      mem.read(txn, q_requested_, line_bytes_);
      q_requested_ += line_bytes_;
      qlines_.push_back(QLine{txn, q_requested_});
      ++count_.queue_lines;
   }
   while (!qlines_.empty() && mem.done(qlines_.front().txn)) {
      q_arrived_ = qlines_.front().end;
      qlines_.pop_front();
   }
}

bool
Cp::all_reported(uint32_t seq) const
{
   for (const Reporter &r : reporters_)
      if (r.last < int64_t(seq))
         return false;
   return true;
}

void
Cp::retire_draws()
{
   if (ss_->inflight.empty() || ss_->call != SubmitState::Call::None)
      return;
   const DrawRef &d = ss_->inflight.front();
   /* draw_ is the draw the CP is fetching: not in the pipe yet */
   if (d != draw_ && all_reported(d->seq)) {
      ss_->call = SubmitState::Call::DrawEnd;
      ss_->call_draw = d;
   }
}

void
Cp::fault(const GpuFault &f, uint32_t offset)
{
   ss_->result->faults.push_back(FaultRecord{f.module(), f.summary(), f.what(), offset, -1});
}

void
Cp::next_command()
{
   off_ += cmd_.length;
   ss_->next_offset = off_;
   draw_.reset();
   st_ = St::Fetch;
}

bool
Cp::interlocked(const DrawState &d) const
{
   for (const DrawRef &e : ss_->inflight) {
      if (e.get() == &d)
         break;
      for (const MemRange &r : d.reads)
         for (const MemRange &w : e->writes)
            if (r.overlaps(w))
               return true;
      for (const MemRange &w : d.writes)
         for (const MemRange &r : e->reads)
            if (w.overlaps(r))
               return true;
   }
   return false;
}

Activity
Cp::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   if (!ss_)
      return Activity::Idle;
   bool busy = false;
   busy |= mem.send();
   busy |= mem.receive();
   busy |= mc.send();
   busy |= mc.receive();
   for (Reporter &r : reporters_)
      if (r.in->can_pop()) {
         r.last = r.in->pop().draw;
         busy = true;
      }
   retire_draws();
   w_interlock_ = w_full_ = w_drain_ = false;
   const Activity a = step(now, busy);
   count_.interlock_cycles.set(now, w_interlock_);
   count_.inflight_full_cycles.set(now, w_full_);
   count_.drain_cycles.set(now, w_drain_);
   count_.dispatch_cycles.set(now, st_ == St::DispatchRun || st_ == St::DispatchEnd);
   return a;
}

/* DISPATCH after the Dispatch call: to every CE, then wait for every CE's
 * report; returns true if something happened */
bool
Cp::dispatch_run()
{
   bool busy = false;
   const uint64_t all = out_ce.size() >= 64 ? ~uint64_t(0) : (uint64_t(1) << out_ce.size()) - 1;
   for (unsigned g = 0; g < out_ce.size(); g++) {
      if (!(ce_sent_ >> g & 1) && out_ce[g]->can_push()) {
         out_ce[g]->push(DispatchCmd{ss_->dispatch_state});
         ce_sent_ |= uint64_t(1) << g;
         busy = true;
      }
      if (in_ce[g]->can_pop()) {
         in_ce[g]->pop();
         ce_done_++;
         busy = true;
      }
   }
   if (ce_sent_ == all && ce_done_ == out_ce.size()) {
      ss_->call = SubmitState::Call::DispatchEnd;
      st_ = St::DispatchEnd;
      busy = true;
   }
   return busy;
}

Activity
Cp::step(Cycle now, bool busy)
{
   if (ss_->call != SubmitState::Call::None)
      return Activity::Busy; /* the CycleGpu takes over after this cycle */

   const Vram &vram = *ss_->vram;
   switch (st_) {
   case St::Idle:
   case St::Done:
      break;

   case St::Fetch: {
      if (off_ >= ss_->queue_dwords) {
         cmd_ = Command{};
         cmd_.opcode = VLG_CMD_OPCODE_HALT; /* implicit: not counted as a HALT */
         cmd_.length = 0;
         st_ = St::SyncWait;
         busy = true;
         break;
      }
      prefetch();
      const uint64_t need =
         ss_->queue_address + uint64_t(std::min(off_ + 8, ss_->queue_dwords)) * 4;
      if (q_arrived_ >= need) {
         until_ = now + p_.cp_decode_cycles;
         st_ = St::Decode;
         busy = true;
      }
      break;
   }

   case St::Decode:
      if (now < until_) {
         busy = true;
         break;
      }
      try {
         cmd_ = cp_decode_command(vram, ss_->queue_address, ss_->queue_dwords, off_);
      } catch (const GpuFault &f) {
         ss_->result->commands++;
         ++count_.commands;
         fault(f, off_);
         cmd_ = Command{};
         cmd_.opcode = VLG_CMD_OPCODE_HALT;
         cmd_.length = 0;
         off_ = ss_->queue_dwords; /* the rest of the queue is skipped */
         ss_->next_offset = off_;
         st_ = St::SyncWait;
         busy = true;
         break;
      }
      ss_->result->commands++;
      ++count_.commands;
      busy = true;
      if (cmd_.opcode == VLG_CMD_OPCODE_DRAW) {
         auto d = std::make_shared<DrawState>();
         d->seq = ss_->draws++;
         d->vram = ss_->vram;
         DrawContext &ctx = d->ctx;
         ctx.queue_address = ss_->queue_address;
         ctx.queue_dwords = ss_->queue_dwords;
         ctx.cmd_offset_dw = off_;
         ctx.index_in_queue = d->seq;
         for (unsigned i = 0; i < VLG_CMD_DRAW_LENGTH; i++)
            ctx.cmd_words[i] = cmd_.words[i];
         ctx.draw_info_address = cmd_.draw.draw_info;
         ss_->inflight.push_back(d);
         ss_->next_offset = off_ + cmd_.length;
         draw_ = d;
         ss_->call = SubmitState::Call::DrawBegin;
         ss_->call_draw = d;
         st_ = St::HostWait;
      } else if (cmd_.opcode == VLG_CMD_OPCODE_COPY) {
         copy_begin(now);
      } else {
         st_ = St::SyncWait;
      }
      break;

   case St::CopyInfo:
   case St::CopyOrder:
   case St::CopyRun:
      busy |= copy_step(now);
      break;

   case St::HostWait: /* the DrawBegin call was serviced */
      busy = true;
      st_ = ss_->snapshot ? St::DrainBefore : St::PkgInfo;
      if (st_ == St::PkgInfo) {
         txn_ = mem.begin();
         fetch_range(txn_, draw_->ctx.draw_info_address, VLG_DRAW_INFO_LENGTH * 4);
      }
      break;

   case St::DrainBefore:
      if (ss_->inflight.size() > 1) {
         w_drain_ = true;
         break;
      }
      ss_->call = SubmitState::Call::BeforeDraw;
      ss_->call_draw = draw_;
      txn_ = mem.begin();
      fetch_range(txn_, draw_->ctx.draw_info_address, VLG_DRAW_INFO_LENGTH * 4);
      st_ = St::PkgInfo;
      busy = true;
      break;

   case St::PkgInfo: {
      if (!mem.done(txn_))
         break;
      busy = true;
      txn_ = mem.begin();
      VLG_DRAW_INFO di;
      try {
         di = read_hw_block<VLG_DRAW_INFO>(vram, draw_->ctx.draw_info_address, "CP", "draw_info");
      } catch (const GpuFault &) {
         st_ = St::PkgConsts; /* draw_state_load reports it */
         break;
      }
      fetch_range(txn_, di.framebuffer, VLG_FRAMEBUFFER_LENGTH * 4);
      if (di.kind != VLG_DRAW_KIND_CLEAR) {
         if (di.indirect) /* the draw-indirect command: 4 or 5 words */
            fetch_range(txn_, di.indirect, di.index_size != VLG_INDEX_SIZE_NONE ? 20 : 16);
         fetch_range(txn_, di.pipe_state, VLG_PIPE_STATE_LENGTH * 4);
         fetch_range(txn_, di.vs, VLG_SHADER_STATE_LENGTH * 4);
         fetch_range(txn_, di.fs, VLG_SHADER_STATE_LENGTH * 4);
         if (di.gs)
            fetch_range(txn_, di.gs, VLG_SHADER_STATE_LENGTH * 4);
         fetch_range(txn_, di.vertex_elements,
                     std::min<uint64_t>(di.num_vertex_elements, kMaxArray) *
                        VLG_VERTEX_ELEMENT_LENGTH * 4);
         fetch_range(txn_, di.vertex_buffers,
                     std::min<uint64_t>(di.num_vertex_buffers, kMaxArray) *
                        VLG_VERTEX_BUFFER_LENGTH * 4);
         fetch_range(txn_, di.vs_textures,
                     std::min<uint64_t>(di.vs_num_textures, kMaxArray) * VLG_TEXTURE_LENGTH * 4);
         fetch_range(txn_, di.fs_textures,
                     std::min<uint64_t>(di.fs_num_textures, kMaxArray) * VLG_TEXTURE_LENGTH * 4);
         fetch_range(txn_, di.vs_samplers,
                     std::min<uint64_t>(di.vs_num_samplers, kMaxArray) * VLG_SAMPLER_LENGTH * 4);
         fetch_range(txn_, di.fs_samplers,
                     std::min<uint64_t>(di.fs_num_samplers, kMaxArray) * VLG_SAMPLER_LENGTH * 4);
         if (di.gs) {
            fetch_range(txn_, di.gs_textures,
                        std::min<uint64_t>(di.gs_num_textures, kMaxArray) * VLG_TEXTURE_LENGTH *
                           4);
            fetch_range(txn_, di.gs_samplers,
                        std::min<uint64_t>(di.gs_num_samplers, kMaxArray) * VLG_SAMPLER_LENGTH *
                           4);
         }
      }
      st_ = St::PkgBlocks;
      break;
   }

   case St::PkgBlocks: {
      if (!mem.done(txn_))
         break;
      busy = true;
      txn_ = mem.begin();
      try {
         const VLG_DRAW_INFO di =
            read_hw_block<VLG_DRAW_INFO>(vram, draw_->ctx.draw_info_address, "CP", "draw_info");
         if (di.kind != VLG_DRAW_KIND_CLEAR) {
            for (uint64_t a : {di.vs, di.fs, di.gs}) {
               if (!a)
                  continue; /* no GS */
               const VLG_SHADER_STATE s =
                  read_hw_block<VLG_SHADER_STATE>(vram, a, "CP", "shader_state");
               fetch_range(txn_, s.consts, std::min<uint64_t>(s.num_consts, VLG_NUM_GLOBAL) * 16);
            }
         }
      } catch (const GpuFault &) {
         /* reported by draw_state_load */
      }
      st_ = St::PkgConsts;
      break;
   }

   case St::PkgConsts:
      if (!mem.done(txn_))
         break;
      busy = true;
      guarded(*draw_, [&] {
         draw_state_load(*draw_, vram, programs_, p_.watchdog_instructions_per_thread_group,
                         p_.watchdog_instructions_per_submit ? &ss_->instructions_left : nullptr);
      });
      st_ = St::Interlock;
      break;

   case St::Interlock: {
      if (!draw_->faulted()) {
         if (ss_->inflight.size() - 1 >= p_.cp_max_draws_in_flight) {
            w_full_ = true;
            break;
         }
         if (interlocked(*draw_)) {
            w_interlock_ = true;
            break;
         }
      }
      st_ = St::Send;
      [[fallthrough]];
   }
   case St::Send:
      if (!out_draw.can_push())
         return Activity::Stalled;
      out_draw.push(DrawCmd{draw_});
      ++count_.draws;
      busy = true;
      draw_.reset();
      if (ss_->snapshot) {
         st_ = St::DrainAfter;
         ss_->snapshot = false;
      } else {
         next_command();
      }
      break;

   case St::DrainAfter:
      if (!ss_->inflight.empty()) {
         w_drain_ = true;
         break;
      }
      busy = true;
      next_command();
      break;

   case St::SyncWait:
      if (!ss_->inflight.empty()) {
         w_drain_ = true;
         break;
      }
      busy = true;
      if (cmd_.length == 0) { /* end of the queue, or after a malformed command */
         ss_->finished = true;
         st_ = St::Done;
         request_stop();
         break;
      }
      switch (cmd_.opcode) {
      case VLG_CMD_OPCODE_SYNC:
         ++count_.syncs;
         try {
            cp_write_fence(*ss_->vram, cmd_.sync);
            mem.write(cmd_.sync.fence_address / line_bytes_ * line_bytes_, line_bytes_);
         } catch (const GpuFault &f) {
            fault(f, off_);
         }
         next_command();
         break;
      case VLG_CMD_OPCODE_DISPATCH:
         /* every earlier draw has completed (SyncWait); the CycleGpu
          * prepares the dispatch, then it goes to the CEs */
         ++count_.dispatches;
         ss_->call = SubmitState::Call::Dispatch;
         ss_->dispatch = cmd_;
         ss_->dispatch_offset = off_;
         ss_->dispatch_mem_ops = 0;
         ss_->dispatch_state.reset();
         ce_sent_ = 0;
         ce_done_ = 0;
         st_ = St::DispatchRun;
         break;
      case VLG_CMD_OPCODE_DUMP:
         if (!out_flush.can_push())
            return Activity::Stalled;
         out_flush.push(FlushReq{off_});
         st_ = St::FlushWait;
         break;
      default: /* HALT */
         ss_->result->halted = true;
         ss_->next_offset = ss_->queue_dwords;
         ss_->finished = true;
         st_ = St::Done;
         request_stop();
         break;
      }
      break;

   case St::FlushWait:
      if (!in_flush.can_pop())
         break;
      in_flush.pop();
      busy = true;
      ++count_.dumps;
      ss_->call = SubmitState::Call::Dump;
      ss_->dump = cmd_;
      ss_->dump_offset = off_;
      ss_->dump_bytes = 0;
      st_ = St::DumpRead;
      txn_ = 0;
      break;

   case St::DispatchRun:
      busy |= dispatch_run();
      break;

   case St::DispatchEnd: /* the DispatchEnd call was serviced */
      busy = true;
      count_.dispatch_mem_ops += ss_->dispatch_mem_ops;
      ss_->dispatch_state.reset();
      next_command();
      break;

   case St::DumpRead:
      if (txn_ == 0) { /* the Dump call was serviced: read what was copied */
         txn_ = mc.begin();
         const uint64_t base = cmd_.dump.surface;
         for (uint64_t b = 0; b < ss_->dump_bytes; b += kDumpChunk)
            mc.read(txn_, base + b, uint32_t(std::min<uint64_t>(kDumpChunk, ss_->dump_bytes - b)));
         count_.dump_bytes += ss_->dump_bytes;
         busy = true;
         break;
      }
      if (mc.done(txn_)) {
         busy = true;
         next_command();
      }
      break;
   }
   /* requests queued this cycle leave now (one per cycle) */
   busy |= mem.send();
   busy |= mc.send();
   if (busy)
      return Activity::Busy;
   if (st_ == St::Idle || st_ == St::Done)
      return Activity::Idle;
   if ((mem.queued() && !mem.out.can_push()) || (mc.queued() && !mc.out.can_push()))
      return Activity::Stalled;
   return Activity::Starved;
}

bool
Cp::drained() const
{
   return wedged_ ? false
                  : (!ss_ || st_ == St::Done || st_ == St::Idle) && mem.idle() && mc.idle();
}

std::string
Cp::stall_report() const
{
   static const char *const names[] = {
      "idle",
      "fetching the command's dwords",
      "decoding",
      "waiting for the host",
      "waiting for earlier draws before a snapshot draw",
      "fetching draw_info",
      "fetching the package blocks",
      "fetching the global buffers",
      "waiting for a conflicting earlier draw or a free draw slot",
      "sending the draw to the GTS",
      "waiting for a snapshot draw to complete",
      "waiting for every earlier draw's `last` token",
      "waiting for the L2 flush",
      "waiting for the DUMP reads",
      "running a DISPATCH",
      "finishing a DISPATCH",
      "done",
      "COPY: fetching copy_info",
      "COPY: waiting for a conflicting earlier draw",
      "COPY: waiting for the DMA engine",
   };
   static_assert(sizeof(names) / sizeof(names[0]) == unsigned(St::CopyRun) + 1,
                 "one name per CP state");
   std::string r = port_report();
   r += fmt::format("; command at dword {}: {}", off_, names[unsigned(st_)]);
   if (ss_) {
      r += fmt::format("; {} draw(s) in flight", ss_->inflight.size());
      if (!ss_->inflight.empty()) {
         const uint32_t seq = ss_->inflight.front()->seq;
         std::string missing;
         for (const Reporter &rep : reporters_)
            if (rep.last < int64_t(seq))
               missing += (missing.empty() ? "" : ", ") + rep.name;
         if (!missing.empty())
            r += fmt::format("; draw {} waits for the `last` token of: {}", seq, missing);
      }
   }
   if (wedged_)
      r += "; WEDGED (fault injection)";
   return r;
}

} // namespace vlgpu::sim
