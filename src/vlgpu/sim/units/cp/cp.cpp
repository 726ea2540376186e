/*
 * vlgpu cycle-mode GPU: the command processor (cp.h).
 */
#include "sim/units/cp/cp.h"

#include <algorithm>
#include <iterator>
#include <type_traits>

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
/** Dwords of a command the CP waits for before decoding it (fewer at the
 *  queue's end): Command::words, which holds the longest command. */
constexpr uint32_t kCmdMaxDwords = std::extent_v<decltype(Command::words)>;
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

/** Requests the l2.line_bytes lines covering @bytes bytes at @addr as part
 *  of @txn (package_lines). */
void
Cp::fetch_range(uint32_t txn, uint64_t addr, uint64_t bytes)
{
   for_each_line(addr, bytes, line_bytes_, [&](uint64_t line) {
      mem.read(txn, line * line_bytes_, line_bytes_);
      ++count_.package_lines;
   });
}

/**
 * Requests the command queue's lines (of l2.line_bytes) up to the current
 * command's first kCmdMaxDwords dwords and at least cp.prefetch_lines lines
 * from the one it starts in (never past the queue's end; queue_lines), and
 * advances q_arrived_ over the lines that arrived, in order.
 */
void
Cp::prefetch()
{
   const uint64_t qend = ss_->queue_address + uint64_t(ss_->queue_dwords) * 4;
   const uint64_t cur = ss_->queue_address + uint64_t(off_) * 4;
   /* the current command's dwords (up to kCmdMaxDwords), and cp.prefetch_lines lines */
   const uint64_t need = std::min(qend, cur + kCmdMaxDwords * 4);
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

/** Has every reporter sent the `last` token of draw @seq? */
bool
Cp::all_reported(uint32_t seq) const
{
   for (const Reporter &r : reporters_)
      if (r.last < int64_t(seq))
         return false;
   return true;
}

/** Asks the CycleGpu for Call::DrawEnd once the oldest draw in flight has
 *  been reported by every reporter (and no other call is pending). */
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

/** Records @f as a CP fault of the command at dword @offset. */
void
Cp::fault(const GpuFault &f, uint32_t offset)
{
   ss_->result->faults.push_back(FaultRecord{f.module(), f.summary(), f.what(), offset, -1});
}

/** The command at off_ is done: on to the next one (St::Fetch). */
void
Cp::next_command()
{
   off_ += cmd_.length;
   ss_->next_offset = off_;
   draw_.reset();
   st_ = St::Fetch;
}

/** The draw interlock: does an earlier in-flight draw write memory @d reads
 *  or read memory @d writes (DrawState::reads/writes, byte ranges)? */
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
   const Activity a = step(busy);
   count_.interlock_cycles.set(now, w_interlock_);
   count_.inflight_full_cycles.set(now, w_full_);
   count_.drain_cycles.set(now, w_drain_);
   count_.dispatch_cycles.set(now, st_ == St::DispatchRun || st_ == St::DispatchEnd);
   return a;
}

/** St::DispatchRun (after the Dispatch call): pushes the dispatch to every
 *  CE whose out_ce<g> takes it, counts the CEs' done reports (in_ce<g>),
 *  and once every CE got it and reported it done asks the CycleGpu for
 *  Call::DispatchEnd (St::DispatchEnd). */
Cp::Progress
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
   return busy ? Progress::Moved : Progress::Waiting;
}

/**
 * Per state (St order): the handler step() calls in it and what the CP waits
 * for there (stall_report). The package and COPY states share a handler
 * that tells its stages apart.
 */
constexpr Cp::StateRow Cp::kStates[] = {
   {St::Idle, &Cp::nothing_to_do, "idle"},
   /* reading the queue */
   {St::Fetch, &Cp::fetch_command, "fetching the command's dwords"},
   {St::Decode, &Cp::decode_command, "decoding"},
   /* DRAW */
   {St::HostWait, &Cp::draw_begun, "waiting for the host"},
   {St::DrainBefore, &Cp::snapshot_drain, "waiting for earlier draws before a snapshot draw"},
   {St::PkgInfo, &Cp::package_step, "fetching draw_info"},
   {St::PkgBlocks, &Cp::package_step, "fetching the package blocks"},
   {St::PkgConsts, &Cp::package_step, "fetching the global buffers"},
   {St::Interlock, &Cp::enter_draw, "waiting for a conflicting earlier draw or a free draw slot"},
   {St::Send, &Cp::send_draw, "sending the draw to the GTS"},
   {St::DrainAfter, &Cp::snapshot_drain, "waiting for a snapshot draw to complete"},
   /* SYNC, DUMP, DISPATCH, HALT and the end of the queue */
   {St::SyncWait, &Cp::run_drained_command, "waiting for every earlier draw's `last` token"},
   {St::FlushWait, &Cp::dump_flushed, "waiting for the L2 flush"},
   {St::DumpRead, &Cp::dump_read, "waiting for the DUMP reads"},
   {St::DispatchRun, &Cp::dispatch_run, "running a DISPATCH"},
   {St::DispatchEnd, &Cp::dispatch_end, "finishing a DISPATCH"},
   {St::Done, &Cp::nothing_to_do, "done"},
   /* COPY (cp_copy.cpp) */
   {St::CopyInfo, &Cp::copy_step, "COPY: fetching copy_info"},
   {St::CopyOrder, &Cp::copy_step, "COPY: waiting for a conflicting earlier draw"},
   {St::CopyRun, &Cp::copy_step, "COPY: waiting for the DMA engine"},
};

Activity
Cp::step(bool busy)
{
   if (ss_->call != SubmitState::Call::None)
      return Activity::Busy; /* the CycleGpu takes over after this cycle */
   static_assert(
      [] {
         for (size_t i = 0; i < std::size(kStates); i++)
            if (unsigned(kStates[i].st) != i)
               return false;
         return std::size(kStates) == unsigned(St::CopyRun) + 1;
      }(),
      "kStates: one row per CP state, in St order");
   const Progress p = (this->*kStates[unsigned(st_)].step)();
   if (p == Progress::Blocked)
      return Activity::Stalled;
   busy |= p == Progress::Moved;
   /* requests queued this cycle leave now (one per cycle) */
   return mem_tick_end(busy, st_ == St::Idle || st_ == St::Done, mem, mc);
}

/** St::Idle, St::Done: no command to work on. */
Cp::Progress
Cp::nothing_to_do()
{
   return Progress::Waiting;
}

/**
 * St::Fetch: keeps the queue lines coming (prefetch()) until the command's
 * first kCmdMaxDwords dwords (fewer at the queue's end) have arrived, then
 * decodes it for cp.decode_cycles cycles (St::Decode). At the end of the
 * queue: the implicit HALT.
 */
Cp::Progress
Cp::fetch_command()
{
   if (off_ >= ss_->queue_dwords) {
      implicit_halt();
      return Progress::Moved;
   }
   prefetch();
   const uint64_t need =
      ss_->queue_address + uint64_t(std::min(off_ + kCmdMaxDwords, ss_->queue_dwords)) * 4;
   if (q_arrived_ < need)
      return Progress::Waiting;
   until_ = now() + p_.cp_decode_cycles;
   st_ = St::Decode;
   return Progress::Moved;
}

/**
 * St::Decode: after cp.decode_cycles cycles, decodes the command at off_
 * (cp_decode_command; every command counts, a malformed one too) and issues
 * it: DRAW (draw_begin) and COPY (copy_begin) at once, SYNC, DUMP, DISPATCH
 * and HALT once every earlier draw completed (St::SyncWait). A malformed
 * command is a fault and ends the queue (the CP cannot know where the next
 * command starts).
 */
Cp::Progress
Cp::decode_command()
{
   if (now() < until_)
      return Progress::Moved;
   ss_->result->commands++;
   ++count_.commands;
   try {
      cmd_ = cp_decode_command(*ss_->vram, ss_->queue_address, ss_->queue_dwords, off_);
   } catch (const GpuFault &f) {
      fault(f, off_);
      off_ = ss_->queue_dwords; /* the rest of the queue is skipped */
      ss_->next_offset = off_;
      implicit_halt();
      return Progress::Moved;
   }
   if (cmd_.opcode == VLG_CMD_OPCODE_DRAW)
      draw_begin();
   else if (cmd_.opcode == VLG_CMD_OPCODE_COPY)
      copy_begin(now());
   else
      st_ = St::SyncWait;
   return Progress::Moved;
}

/** The end of the queue, or a malformed command: a HALT of length 0 (not
 *  counted as one: SubmitResult::halted stays false) that waits for every
 *  draw like HALT (St::SyncWait), then finishes. */
void
Cp::implicit_halt()
{
   cmd_ = Command{};
   cmd_.opcode = VLG_CMD_OPCODE_HALT;
   cmd_.length = 0;
   st_ = St::SyncWait;
}

/**
 * A DRAW was decoded: its DrawState (the queue context, the command's
 * words) joins the draws in flight (ss_->inflight, seq = its index in the
 * queue) and the CycleGpu is asked for Call::DrawBegin (St::HostWait).
 */
void
Cp::draw_begin()
{
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
}

/** St::HostWait: the DrawBegin call was serviced. A snapshot draw first
 *  waits for every earlier draw (St::DrainBefore); any other fetches its
 *  draw_info. */
Cp::Progress
Cp::draw_begun()
{
   if (ss_->snapshot)
      st_ = St::DrainBefore;
   else
      fetch_draw_info();
   return Progress::Moved;
}

/**
 * St::DrainBefore, St::DrainAfter: a snapshot draw runs alone in the
 * pipeline. Before: once it is the only draw in flight (it is in
 * ss_->inflight already), asks the CycleGpu for Call::BeforeDraw and
 * fetches its draw_info. After (it was sent): once it completed, the next
 * command.
 */
Cp::Progress
Cp::snapshot_drain()
{
   const bool before = st_ == St::DrainBefore;
   if (!draws_drained(before ? 1 : 0))
      return Progress::Waiting;
   if (before) {
      ss_->call = SubmitState::Call::BeforeDraw;
      ss_->call_draw = draw_;
      fetch_draw_info();
   } else {
      next_command();
   }
   return Progress::Moved;
}

/** Requests the draw's draw_info block (VLG_DRAW_INFO_LENGTH dwords) through
 *  the L2 (St::PkgInfo). */
void
Cp::fetch_draw_info()
{
   txn_ = mem.begin();
   fetch_range(txn_, draw_->ctx.draw_info_address, VLG_DRAW_INFO_LENGTH * 4);
   st_ = St::PkgInfo;
}

/**
 * St::PkgInfo, St::PkgBlocks, St::PkgConsts: the package is read in three
 * stages, each once every line the stage before requested (txn_) arrived:
 * the blocks draw_info points to (fetch_package_blocks), the global buffers
 * (fetch_globals), then the load (load_package).
 */
Cp::Progress
Cp::package_step()
{
   if (!mem.done(txn_))
      return Progress::Waiting;
   if (st_ == St::PkgInfo)
      fetch_package_blocks();
   else if (st_ == St::PkgBlocks)
      fetch_globals();
   else
      load_package();
   return Progress::Moved;
}

/**
 * draw_info arrived: requests every block it points to (framebuffer; unless
 * a clear: the indirect command, pipe_state, the shader states, the vertex
 * element/buffer, texture and sampler arrays, at most kMaxArray entries
 * each) (St::PkgBlocks). A draw_info that does not load skips the fetches:
 * draw_state_load reports it (St::PkgConsts).
 */
void
Cp::fetch_package_blocks()
{
   txn_ = mem.begin();
   VLG_DRAW_INFO di;
   try {
      di =
         read_hw_block<VLG_DRAW_INFO>(*ss_->vram, draw_->ctx.draw_info_address, "CP", "draw_info");
   } catch (const GpuFault &) {
      st_ = St::PkgConsts; /* draw_state_load reports it */
      return;
   }
   /* @count entries of @dwords dwords at @addr, at most kMaxArray of them */
   const auto fetch_array = [&](uint64_t addr, uint64_t count, uint64_t dwords) {
      fetch_range(txn_, addr, std::min<uint64_t>(count, kMaxArray) * dwords * 4);
   };
   fetch_range(txn_, di.framebuffer, VLG_FRAMEBUFFER_LENGTH * 4);
   if (di.kind != VLG_DRAW_KIND_CLEAR) {
      if (di.indirect) /* the draw-indirect command: 4 or 5 words */
         fetch_range(txn_, di.indirect, di.index_size != VLG_INDEX_SIZE_NONE ? 20 : 16);
      fetch_range(txn_, di.pipe_state, VLG_PIPE_STATE_LENGTH * 4);
      fetch_range(txn_, di.vs, VLG_SHADER_STATE_LENGTH * 4);
      fetch_range(txn_, di.fs, VLG_SHADER_STATE_LENGTH * 4);
      if (di.gs)
         fetch_range(txn_, di.gs, VLG_SHADER_STATE_LENGTH * 4);
      fetch_array(di.vertex_elements, di.num_vertex_elements, VLG_VERTEX_ELEMENT_LENGTH);
      fetch_array(di.vertex_buffers, di.num_vertex_buffers, VLG_VERTEX_BUFFER_LENGTH);
      fetch_array(di.vs_textures, di.vs_num_textures, VLG_TEXTURE_LENGTH);
      fetch_array(di.fs_textures, di.fs_num_textures, VLG_TEXTURE_LENGTH);
      fetch_array(di.vs_samplers, di.vs_num_samplers, VLG_SAMPLER_LENGTH);
      fetch_array(di.fs_samplers, di.fs_num_samplers, VLG_SAMPLER_LENGTH);
      if (di.gs) {
         fetch_array(di.gs_textures, di.gs_num_textures, VLG_TEXTURE_LENGTH);
         fetch_array(di.gs_samplers, di.gs_num_samplers, VLG_SAMPLER_LENGTH);
      }
   }
   st_ = St::PkgBlocks;
}

/**
 * The blocks arrived: requests each shader stage's global buffer
 * (num_consts vec4s of 16 bytes, at most VLG_NUM_GLOBAL) (St::PkgConsts).
 * Blocks that do not load skip their fetch: draw_state_load reports them.
 */
void
Cp::fetch_globals()
{
   txn_ = mem.begin();
   const Vram &vram = *ss_->vram;
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
}

/**
 * The global buffers arrived: loads and validates the package
 * (draw_state_load, with the watchdog budgets
 * watchdog.instructions_per_thread_group and .instructions_per_submit; a
 * fault marks the draw faulted) (St::Interlock).
 */
void
Cp::load_package()
{
   guarded(*draw_, [&] {
      draw_state_load(*draw_, *ss_->vram, programs_, p_.watchdog_instructions_per_thread_group,
                      p_.watchdog_instructions_per_submit ? &ss_->instructions_left : nullptr);
   });
   st_ = St::Interlock;
}

/**
 * St::Interlock: may the loaded draw enter the pipeline? Not while
 * cp.max_draws_in_flight earlier draws are in it (inflight_full_cycles),
 * nor while an earlier one it depends on is (interlocked();
 * interlock_cycles). A faulted draw is not held back.
 */
bool
Cp::draw_may_enter()
{
   if (draw_->faulted())
      return true;
   if (ss_->inflight.size() - 1 >= p_.cp_max_draws_in_flight) {
      w_full_ = true;
      return false;
   }
   if (interlocked(*draw_)) {
      w_interlock_ = true;
      return false;
   }
   return true;
}

/** St::Interlock: once the draw may enter the pipeline (draw_may_enter),
 *  sends it in the same cycle (St::Send). */
Cp::Progress
Cp::enter_draw()
{
   if (!draw_may_enter())
      return Progress::Waiting;
   st_ = St::Send;
   return send_draw();
}

/** St::Send: pushes the draw to the GTS (Blocked while out_draw is full);
 *  a snapshot draw then waits until it completed (St::DrainAfter). */
Cp::Progress
Cp::send_draw()
{
   if (!out_draw.can_push())
      return Progress::Blocked;
   out_draw.push(DrawCmd{draw_});
   ++count_.draws;
   draw_.reset();
   if (ss_->snapshot) {
      st_ = St::DrainAfter;
      ss_->snapshot = false;
   } else {
      next_command();
   }
   return Progress::Moved;
}

/** True once at most @own draws are in flight (1: the snapshot draw the CP
 *  holds itself), i.e. every earlier draw completed; else this cycle is a
 *  drain cycle (drain_cycles). */
bool
Cp::draws_drained(size_t own)
{
   if (ss_->inflight.size() <= own)
      return true;
   w_drain_ = true;
   return false;
}

/**
 * St::SyncWait: once every earlier draw completed, runs the command: SYNC
 * (write_fence), DISPATCH (dispatch_begin), DUMP (dump_begin), HALT (halt),
 * or finishes at the end of the queue (implicit_halt).
 */
Cp::Progress
Cp::run_drained_command()
{
   if (!draws_drained(0))
      return Progress::Waiting;
   if (cmd_.length == 0) { /* end of the queue, or after a malformed command */
      finish();
      return Progress::Moved;
   }
   switch (cmd_.opcode) {
   case VLG_CMD_OPCODE_SYNC:
      write_fence();
      break;
   case VLG_CMD_OPCODE_DISPATCH:
      dispatch_begin();
      break;
   case VLG_CMD_OPCODE_DUMP:
      return dump_begin();
   default: /* HALT */
      halt();
      break;
   }
   return Progress::Moved;
}

/** SYNC: writes the fence (cp_write_fence; a fault is the command's) and
 *  posts a write of its l2.line_bytes line through the L2 for the timing. */
void
Cp::write_fence()
{
   ++count_.syncs;
   try {
      cp_write_fence(*ss_->vram, cmd_.sync);
      mem.write(cmd_.sync.fence_address / line_bytes_ * line_bytes_, line_bytes_);
   } catch (const GpuFault &f) {
      fault(f, off_);
   }
   next_command();
}

/** DUMP: asks the L2 to write back its dirty lines (Blocked while out_flush
 *  is full) (St::FlushWait). */
Cp::Progress
Cp::dump_begin()
{
   if (!out_flush.can_push())
      return Progress::Blocked;
   out_flush.push(FlushReq{off_});
   st_ = St::FlushWait;
   return Progress::Moved;
}

/** St::FlushWait: once the L2 flushed, asks the CycleGpu for Call::Dump (the
 *  copy to the display) (St::DumpRead). */
Cp::Progress
Cp::dump_flushed()
{
   if (!in_flush.can_pop())
      return Progress::Waiting;
   in_flush.pop();
   ++count_.dumps;
   ss_->call = SubmitState::Call::Dump;
   ss_->dump = cmd_;
   ss_->dump_offset = off_;
   ss_->dump_bytes = 0;
   st_ = St::DumpRead;
   txn_ = 0;
   return Progress::Moved;
}

/** St::DumpRead: the Dump call was serviced: reads the dump_bytes bytes
 *  copied from the surface through the MC in kDumpChunk-byte requests
 *  (dump_bytes), then the next command once they all returned. */
Cp::Progress
Cp::dump_read()
{
   if (txn_ == 0) {
      txn_ = mc.begin();
      const uint64_t base = cmd_.dump.surface;
      for (uint64_t b = 0; b < ss_->dump_bytes; b += kDumpChunk)
         mc.read(txn_, base + b, uint32_t(std::min<uint64_t>(kDumpChunk, ss_->dump_bytes - b)));
      count_.dump_bytes += ss_->dump_bytes;
      return Progress::Moved;
   }
   if (!mc.done(txn_))
      return Progress::Waiting;
   next_command();
   return Progress::Moved;
}

/** DISPATCH (every earlier draw completed): asks the CycleGpu for
 *  Call::Dispatch, which prepares it; then it goes to the CEs
 *  (St::DispatchRun). */
void
Cp::dispatch_begin()
{
   ++count_.dispatches;
   ss_->call = SubmitState::Call::Dispatch;
   ss_->dispatch = cmd_;
   ss_->dispatch_offset = off_;
   ss_->dispatch_mem_ops = 0;
   ss_->dispatch_state.reset();
   ce_sent_ = 0;
   ce_done_ = 0;
   st_ = St::DispatchRun;
}

/** St::DispatchEnd: the DispatchEnd call was serviced (dispatch_mem_ops);
 *  the next command. */
Cp::Progress
Cp::dispatch_end()
{
   count_.dispatch_mem_ops += ss_->dispatch_mem_ops;
   ss_->dispatch_state.reset();
   next_command();
   return Progress::Moved;
}

/** HALT (every draw completed): the queue ends here (SubmitResult::halted). */
void
Cp::halt()
{
   ss_->result->halted = true;
   ss_->next_offset = ss_->queue_dwords;
   finish();
}

/** Every draw completed at a HALT or the end of the queue: execute()
 *  returns (SubmitState::finished) and the engine stops. */
void
Cp::finish()
{
   ss_->finished = true;
   st_ = St::Done;
   request_stop();
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
   std::string r = port_report();
   r += fmt::format("; command at dword {}: {}", off_, kStates[unsigned(st_)].waiting);
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
