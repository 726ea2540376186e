/*
 * vlgpu cycle-mode GPU: the output merge unit (omu.h).
 */
#include "sim/units/gpc/omu/omu.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/func/pipe/dispatch.h"
#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/func_omu.h"
#include "sim/func/tex/format.h"

namespace vlgpu::sim {

namespace {

/** Bytes a CLEAR writes (as omu_clear: rect clipped to the framebuffer,
 *  every selected and bound buffer). */
uint64_t
clear_bytes(const DrawPackage &pkg)
{
   const VLG_DRAW_INFO &d = pkg.draw;
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   if (pkg.is_resolve()) /* reads 4 samples, writes 1 per pixel */
      return uint64_t(fb.width) * fb.height * vlg_format_bytes(pkg.resolve_dst.format) *
             (kMsaaSamples + 1);
   const uint64_t area =
      omu_clear_rect(pkg).area() * (fb.samples == kMsaaSamples ? kMsaaSamples : 1);
   if (!area)
      return 0;
   uint64_t bytes = 0;
   for (unsigned i = 0; i < fb.nr_cbufs && i < kMaxColorBufs; i++)
      if ((d.clear_buffers >> (2 + i) & 1) && fb.cbufs[i].format != VLG_FORMAT_NONE)
         bytes += area * vlg_format_bytes(fb.cbufs[i].format);
   if ((d.clear_buffers & 3u) && fb.zsbuf.format != VLG_FORMAT_NONE)
      bytes += area * vlg_format_bytes(fb.zsbuf.format);
   return bytes;
}

} // namespace

Omu::Omu(std::string name, const Config &p, ThreadGroupPool &pool)
    : Unit(std::move(name)), p_(p), pool_(pool), line_bytes_(p.l2_line_bytes),
      cache_(p.omu_cache_bytes, p.omu_cache_ways, p.l2_line_bytes, true)
{
   if (line_bytes_ && !(line_bytes_ & (line_bytes_ - 1)))
      line_shift_ = __builtin_ctz(line_bytes_);
   clear_per_tick_ = unsigned(std::max<uint64_t>(1, p.omu_clear_bytes_per_cycle / line_bytes_));
   size_t rob = 1;
   while (rob < p.omu_reorder_groups)
      rob *= 2;
   rob_.resize(rob);
   rob_mask_ = rob - 1;
   for (uint32_t k = 0; k < p.spcs_per_gpc; k++)
      in_fs.push_back(std::make_unique<InPort<std::unique_ptr<FsGroup>>>(
         *this, fmt::format("in_fs{}", k), fmt::format("finished FS groups from SPC {}", k)));
}

void
Omu::on_finalize()
{
   track_nonempty(*this, in_fs, fs_nonempty_);
}

bool
Omu::touch_line(uint64_t line, bool read, bool dirty, bool mark, uint32_t &txn,
                std::vector<uint64_t> &fills)
{
   LineCache::Way *w = lookup(line);
   if (w) {
      if (!mark)
         ++count_.cache_hits;
      w->dirty |= dirty;
      return true;
   }
   if (mark && !dirty)
      return true;
   if (!mark)
      ++count_.cache_misses;
   LineCache::Victim v;
   w = cache_.allocate(line, v);
   if (v.evicted && v.dirty) {
      ++count_.cache_writebacks;
      mem.write(v.line * line_bytes_, line_bytes_);
   }
   if (w)
      memo_[memo_index(line)] = w;
   if (mark || !read) { /* overwritten whole: no read (write-validate) */
      if (w) {
         w->valid = true;
         w->dirty = true;
      } else {
         mem.write(line * line_bytes_, line_bytes_);
      }
      return false;
   }
   if (!txn)
      txn = mem.begin();
   mem.read(txn, line * line_bytes_, line_bytes_);
   if (w) {
      w->pending = true;
      w->dirty = dirty;
      fills.push_back(line);
   }
   return false;
}

/*
 * A quad whose line sequence (every surface's row spans, in order) is the
 * previous quad's, where every touch of the previous quad was stable
 * (touch_line), is only counted: its lookups would hit the same ways in the
 * same order, which leaves them the most recently used in the same relative
 * order as now (LRU compares the ways' ages only), and set no dirty bit that
 * is not set already. So hits, misses, requests and the LRU order are
 * exactly those of touching every line (the quads of a run or group are
 * mostly neighbours on the same lines).
 */
template <typename QuadAt>
void
Omu::touch_quads(const TouchSurface *s, unsigned ns, unsigned n, QuadAt &&quad, uint32_t &txn,
                 std::vector<uint64_t> &fills)
{
   const bool mark = txn == kMark;
   const int sh = line_shift_;
   const uint64_t lb = line_bytes_;
   LineSpan buf[2][2 * kTouchSurfaces];
   LineSpan *cur = buf[0], *prev = buf[1];
   bool prev_stable = false;
   for (unsigned k = 0; k < n; k++) {
      uint32_t layer = 0;
      const Quad &q = quad(k, layer);
      bool same = prev_stable;
      for (unsigned i = 0; i < ns; i++) {
         const TouchSurface &t = s[i];
         for (int row = 0; row < 2; row++) {
            const uint64_t a = t.address + uint64_t(layer) * t.layer_stride +
                               uint64_t(q.y + row) * t.pitch + uint64_t(q.x) * t.bpp;
            const uint64_t end = a + 2 * t.bpp - 1;
            LineSpan &sp = cur[2 * i + row];
            sp.first = sh >= 0 ? a >> sh : a / lb;
            sp.last = sh >= 0 ? end >> sh : end / lb;
            same = same && sp == prev[2 * i + row];
         }
      }
      if (same) {
         if (!mark)
            for (unsigned i = 0; i < 2 * ns; i++)
               count_.cache_hits += cur[i].last - cur[i].first + 1;
         continue;
      }
      bool stable = true;
      for (unsigned i = 0; i < ns; i++)
         for (int row = 0; row < 2; row++) {
            const LineSpan &sp = cur[2 * i + row];
            for (uint64_t line = sp.first; line <= sp.last; line++)
               stable &= touch_line(line, s[i].read, s[i].dirty, mark, txn, fills);
         }
      std::swap(cur, prev);
      prev_stable = stable;
   }
}

void
Omu::touch_group(const FsGroup &g, uint32_t &txn, std::vector<uint64_t> &fills, bool dirty)
{
   const DrawState &d = *g.draw;
   const OmuState &o = d.omu;
   const VLG_FRAMEBUFFER &fb = d.pkg.fb;
   TouchSurface s[kTouchSurfaces];
   unsigned ns = 0;
   if (o.any_zs && !o.early_z && o.zs_step) /* late depth/stencil */
      s[ns++] = TouchSurface{fb.zsbuf.address, fb.zsbuf.pitch, o.zs_step, true,
                             dirty && (o.depth_write || o.stencil_test), o.zs_layer_stride};
   for (unsigned i = 0; i < o.nr_cbufs && i < kMaxColorBufs; i++) {
      const OmuTarget &t = o.rt[i];
      if (!t.written || !t.step)
         continue;
      /* 4 samples: a pixel's line span (step bytes) may be partly covered */
      const bool read = t.blend || t.logic || (t.rt.colormask & 0xf) != 0xf || o.samples > 1;
      s[ns++] =
         TouchSurface{fb.cbufs[i].address, fb.cbufs[i].pitch, t.step, read, dirty, t.layer_stride};
   }
   if (ns)
      touch_quads(
         s, ns, g.nquads,
         [&](unsigned k, uint32_t &layer) -> const Quad & {
            layer = g.quads[k].setup->layer;
            return g.quads[k].q;
         },
         txn, fills);
}

void
Omu::touch_run(const QuadRun &r, uint32_t &txn, std::vector<uint64_t> &fills, bool dirty)
{
   const DrawState &d = *r.draw;
   const VLG_SURFACE &zs = d.pkg.fb.zsbuf;
   if (!d.omu.zs_step)
      return;
   const TouchSurface s{zs.address, zs.pitch, d.omu.zs_step, true,
                        dirty && (d.omu.depth_write || d.omu.stencil_test), d.omu.zs_layer_stride};
   touch_quads(
      &s, 1, r.n,
      [&](unsigned k, uint32_t &layer) -> const Quad & {
         layer = r.setup->layer;
         return r.q[k];
      },
      txn, fills);
}

void
Omu::filled(const std::vector<uint64_t> &fills)
{
   for (uint64_t l : fills) {
      LineCache::Way *w = lookup(l);
      if (w && w->pending) {
         w->pending = false;
         w->valid = true;
      }
   }
}

/* ---- early stage -------------------------------------------------------- */

/* Lines of runs and groups become valid when their fills are in. */
void
Omu::complete_fills()
{
   for (size_t i = 0; i < pending_.size();) {
      if (!mem.done(pending_[i].txn)) {
         i++;
         continue;
      }
      filled(pending_[i].fills);
      pending_[i].fills.clear();
      spare_fills_.push_back(std::move(pending_[i].fills));
      pending_[i] = std::move(pending_.back());
      pending_.pop_back();
   }
}

bool
Omu::early_stage(Cycle now, bool &blocked)
{
   bool moved = false;
   /* runs enter in order (at most kEarlyDepth) and prefetch their lines */
   if (early_q_.size() < kEarlyDepth && in_early.can_pop()) {
      EarlyEntry &e = early_q_.push();
      e.run = in_early.pop();
      const DrawState &d = *e.run.draw;
      if (e.run.draw != early_draw_) {
         early_draw_ = e.run.draw;
         if (d.late_zs && !d.faulted())
            late_zs_.push_back(&d);
      }
      e.test = !e.run.last && d.loaded && !d.clear && d.omu.early_z && !d.aborted(now);
      if (e.test) {
         std::vector<uint64_t> fills = take_fills();
         touch_run(e.run, e.txn, fills, false);
         if (e.txn)
            pending_.push_back(Pending{e.txn, std::move(fills)});
         else if (fills.capacity())
            spare_fills_.push_back(std::move(fills));
      }
      moved = true;
   }
   /* the oldest run: tested (omu.quads_per_cycle quads per cycle), then
    * sent back to the PE; a run to test starts in the cycle the one before
    * it left, so tested runs follow each other without a gap (until
    * 2026-11-26 each took one cycle more than its quads: depth-tested fill
    * ran at 8/9 of the rate), while untested runs pass one per cycle */
   for (;;) {
      if (early_q_.empty())
         return moved;
      EarlyEntry &e = early_q_.front();
      DrawState &d = *e.run.draw;
      if (e.test && !e.tested && d.aborted(now))
         e.test = false;
      if (e.test && !e.tested) {
         /* depth/stencil in functional order: earlier late-stage writers first */
         for (const DrawState *o : late_zs_)
            if (o->seq < d.seq) {
               w_interlock_ = true;
               blocked = true;
               return moved;
            }
         if (e.txn && !mem.done(e.txn)) {
            w_lines_ = true;
            return moved; /* its lines are not all in */
         }
         guarded(d, [&] {
            const OmuState &o = d.omu;
            const PrimSetup &setup = *e.run.setup;
            for (unsigned i = 0; i < e.run.n; i++) {
               Quad &q = e.run.q[i];
               const unsigned pass =
                  frag_early_tests(o, setup, e.run.run_x, e.run.run_y, q, q.mask & 0xf, d.stats);
               q.mask = uint8_t(pass);
            }
         });
         uint32_t mark = kMark;
         std::vector<uint64_t> nofills;
         touch_run(e.run, mark, nofills, true); /* its lines are written */
         count_.early_quads += e.run.n;
         early_until_ = now + std::max<Cycle>(1, (e.run.n + p_.omu_quads_per_cycle - 1) /
                                                    p_.omu_quads_per_cycle);
         e.tested = true;
         return true;
      }
      if (now < early_until_) {
         w_backlog_ |= early_q_.size() > 1 || in_early.can_pop();
         return true;
      }
      if (!out_early.can_push()) {
         blocked = true;
         return moved;
      }
      out_early.push(std::move(e.run));
      early_q_.pop_front();
      moved = true;
      if (early_q_.empty() || !early_q_.front().test || early_q_.front().tested)
         return true;
   }
}

/* ---- clear engine ------------------------------------------------------- */

/* The lines of CLEAR or RESOLVE draw @d (as omu_clear / omu_resolve_draw
 * write them), and the engine's start at @now. */
void
Omu::clear_plan(const DrawState &d, Cycle now)
{
   const DrawPackage &pkg = d.pkg;
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   clear_spans_.clear();
   if (pkg.is_resolve()) {
      const bool color = fb.nr_cbufs >= 1 && fb.cbufs[0].format != VLG_FORMAT_NONE;
      const VLG_SURFACE &src = color ? fb.cbufs[0] : fb.zsbuf;
      const VLG_SURFACE &dst = pkg.resolve_dst;
      const uint32_t bpp = vlg_format_bytes(dst.format);
      clear_spans_.push_back(ClearSpan{dst.address, dst.pitch, uint64_t(fb.width) * bpp,
                                       fb.height, false, src.address, src.pitch, bpp});
   } else {
      const VLG_DRAW_INFO &di = pkg.draw;
      const uint32_t x0 = std::min(di.clear_rect.minx, fb.width);
      const uint32_t y0 = std::min(di.clear_rect.miny, fb.height);
      const uint32_t x1 = std::min(di.clear_rect.maxx, fb.width);
      const uint32_t y1 = std::min(di.clear_rect.maxy, fb.height);
      const uint32_t ns = fb.samples == kMsaaSamples ? kMsaaSamples : 1;
      auto span = [&](const VLG_SURFACE &sf, bool rmw) {
         const uint32_t bpp = vlg_format_bytes(sf.format);
         /* every layer of a layered surface (docs/hw.md "Layered rendering") */
         for (uint32_t layer = 0; layer < std::max(sf.layers, 1u); layer++)
            clear_spans_.push_back(ClearSpan{sf.address + uint64_t(layer) * sf.layer_stride +
                                                uint64_t(y0) * sf.pitch + uint64_t(x0) * ns * bpp,
                                             sf.pitch, uint64_t(x1 - x0) * ns * bpp, y1 - y0,
                                             rmw, 0, 0, bpp});
      };
      if (x0 < x1 && y0 < y1) {
         for (unsigned i = 0; i < fb.nr_cbufs && i < kMaxColorBufs; i++)
            if ((di.clear_buffers >> (2 + i) & 1) && fb.cbufs[i].format != VLG_FORMAT_NONE)
               span(fb.cbufs[i], false); /* pipe clears are unmasked */
         const unsigned zsbits = di.clear_buffers & 3u;
         if (zsbits && fb.zsbuf.format != VLG_FORMAT_NONE) {
            /* omu_clear: depth only or stencil only of a format with both
             * keeps the other half of every pixel: read the line first */
            const FormatInfo &fi = format_info(fb.zsbuf.format);
            const bool depth = (zsbits & 1) && fi.is_depth;
            const bool stencil = (zsbits & 2) && fi.has_stencil;
            const bool whole = (depth || !fi.is_depth) && (stencil || !fi.has_stencil);
            if (depth || stencil)
               span(fb.zsbuf, !whole);
         }
      }
   }
   clear_span_ = 0;
   clear_row_ = 0;
   clear_row_open_ = false;
   clear_prev_ = ~uint64_t(0);
   clear_steps_.clear();
   clear_start_ = now;
   clear_moved_ = 0;
   clear_due_ = now;
   clearing_ = true;
}

/* The next line to write (each line of a span once, rows in order), with
 * its span and row; false when every span is done. */
bool
Omu::clear_next(uint64_t &line, const ClearSpan *&span, uint32_t &row)
{
   const uint64_t lb = line_bytes_;
   while (clear_span_ < clear_spans_.size()) {
      const ClearSpan &sp = clear_spans_[clear_span_];
      if (!clear_row_open_) {
         if (clear_row_ >= sp.rows || !sp.row_bytes) {
            clear_span_++;
            clear_row_ = 0;
            clear_prev_ = ~uint64_t(0);
            continue;
         }
         const uint64_t a = sp.address + uint64_t(clear_row_) * sp.pitch;
         clear_line_ = a / lb;
         clear_row_last_ = (a + sp.row_bytes - 1) / lb;
         if (clear_prev_ != ~uint64_t(0) && clear_line_ <= clear_prev_)
            clear_line_ = clear_prev_ + 1; /* shared with the row above: written once */
         clear_row_open_ = true;
      }
      if (clear_line_ > clear_row_last_) {
         clear_row_open_ = false;
         clear_row_++;
         continue;
      }
      line = clear_line_++;
      clear_prev_ = line;
      span = &sp;
      row = clear_row_;
      return true;
   }
   return false;
}

/* The reads of the step writing @line of @sp's row @row (requested in
 * @txn, fills listed in @fills); returns the lines read. */
unsigned
Omu::clear_reads(uint64_t line, const ClearSpan &sp, uint32_t row, uint32_t &txn,
                 std::vector<uint64_t> &fills)
{
   unsigned n = 0;
   if (sp.rmw) {
      touch_line(line, true, false, false, txn, fills);
      n++;
   }
   if (sp.src_pitch) {
      /* the pixels of the row that lie in this line, and their samples */
      const uint64_t lb = line_bytes_;
      const uint64_t a = sp.address + uint64_t(row) * sp.pitch;
      const uint64_t lo = std::max(line * lb, a), hi = std::min((line + 1) * lb, a + sp.row_bytes);
      const uint64_t px0 = (lo - a) / sp.bpp, px1 = (hi - a + sp.bpp - 1) / sp.bpp;
      const uint64_t s0 = sp.src_address + uint64_t(row) * sp.src_pitch +
                          px0 * kMsaaSamples * sp.bpp;
      const uint64_t s1 = s0 + (px1 - px0) * kMsaaSamples * sp.bpp;
      for (uint64_t l = s0 / lb; l <= (s1 - 1) / lb; l++) {
         touch_line(l, true, false, false, txn, fills);
         n++;
      }
   }
   return n;
}

/* One cycle of the clear engine: steps issue at omu.clear_bytes_per_cycle
 * (bytes of the lines read and written), at most
 * omu.clear_lines_in_flight in flight, while the requests to the L2 leave
 * (a couple queued at most); the oldest steps whose reads are in write
 * their line. Returns true if it did something or waits for the rate;
 * clears clearing_ when every line is written. */
bool
Omu::clear_engine(Cycle now)
{
   constexpr size_t kQueued = kClearQueued;
   bool moved = false, more = true;
   for (unsigned k = 0; k < clear_per_tick_; k++) {
      if (clear_steps_.size() >= p_.omu_clear_lines_in_flight || mem.queued() >= kQueued)
         break;
      if (now < clear_due_)
         break; /* the rate */
      uint64_t line;
      const ClearSpan *sp;
      uint32_t row;
      if (!clear_next(line, sp, row)) {
         more = false;
         break;
      }
      uint32_t txn = 0;
      unsigned reads = 0;
      if (sp->rmw || sp->src_pitch) {
         std::vector<uint64_t> fills = take_fills();
         reads = clear_reads(line, *sp, row, txn, fills);
         count_.clear_line_reads += reads;
         if (txn)
            pending_.push_back(Pending{txn, std::move(fills)});
         else if (fills.capacity())
            spare_fills_.push_back(std::move(fills));
      }
      clear_moved_ += uint64_t(reads + 1) * line_bytes_;
      clear_due_ = clear_start_ + clear_moved_ / p_.omu_clear_bytes_per_cycle;
      clear_steps_.push_back(ClearStep{line, txn});
      moved = true;
   }
   /* write the lines whose reads are in, in order */
   while (!clear_steps_.empty() && mem.queued() < kQueued) {
      const ClearStep &st = clear_steps_.front();
      if (st.txn && !mem.done(st.txn))
         break;
      clear_write(st.line);
      ++count_.clear_lines;
      clear_steps_.pop_front();
      moved = true;
   }
   if (!more && clear_steps_.empty() && clear_span_ >= clear_spans_.size()) {
      clearing_ = false;
      return true;
   }
   return moved || now < clear_due_;
}

/*
 * Would the tick at t = now + 1 do nothing? Queue events that could change
 * that wake a sleeping OMU (an entry becoming readable on an input, a slot
 * freed in the full queue to the L2); without them the ticks after t would
 * do nothing either. During a clear (the late stage at its draw's mark,
 * ending_ and clearing_ set) a tick at t:
 *  - sends nothing: no request queued, or the queue to the L2 full;
 *  - receives nothing, takes no FS group, mark or run: none readable at t;
 *  - late stage: not waiting for late_until_; the clear engine issues no
 *    step (the steps in flight at the limit or kClearQueued requests
 *    queued; it is not ahead of its rate, else it counts as busy) and
 *    writes no line (none in flight, kClearQueued requests queued, or the
 *    oldest waits for its reads: they come through in_mem);
 *  - early stage: nothing held (then no depth/stencil interlock either);
 *  - no credits to return.
 * It then returns Stalled if requests wait for the full queue, else
 * Starved (not drained while clearing).
 */
bool
Omu::clear_waits(Cycle now, Activity &a) const
{
   const Cycle t = now + 1;
   if (!clearing_ || !ending_ || credits_ || !early_q_.empty() || t < late_until_ || t < clear_due_)
      return false;
   const QueueBase &out = *mem.out.queue();
   const bool out_full = out.occupancy() >= out.capacity();
   const size_t queued = mem.queued();
   if (queued && !out_full)
      return false;
   if (queued < kClearQueued) {
      if (clear_steps_.size() < p_.omu_clear_lines_in_flight)
         return false; /* issues a step */
      const ClearStep &st = clear_steps_.front();
      if (!(st.txn && !mem.done(st.txn)))
         return false; /* writes a line */
   }
   if (mem.in.queue()->head_ready() <= t || in_mark.queue()->head_ready() <= t ||
       in_early.queue()->head_ready() <= t)
      return false;
   for (const auto &in : in_fs)
      if (in->queue()->head_ready() <= t)
         return false;
   a = queued ? Activity::Stalled : Activity::Starved;
   return true;
}

/* touch_line(line, false, true, true, ...): a hit (through the memo as
 * lookup()) is marked dirty; a miss allocates the line valid and dirty
 * (its dirty victim written back) or, with every way pending, writes it
 * through to the L2. */
void
Omu::clear_write(uint64_t line)
{
   LineCache::Way *&m = memo_[memo_index(line)];
   if (LineCache::holds(m, line)) {
      cache_.touch(*m);
      m->dirty = true;
      return;
   }
   LineCache::Victim v;
   bool hit;
   LineCache::Way *w = cache_.lookup_or_allocate(line, v, hit);
   if (hit) {
      m = w;
      w->dirty = true;
      return;
   }
   if (v.evicted && v.dirty) {
      ++count_.cache_writebacks;
      mem.write(v.line * line_bytes_, line_bytes_);
   }
   if (w) {
      m = w;
      w->valid = true;
      w->dirty = true;
   } else {
      mem.write(line * line_bytes_, line_bytes_);
   }
}

/* ---- late stage --------------------------------------------------------- */

void
Omu::rob_insert(RobEntry e)
{
   const uint64_t seq = e.g->seq;
   while (rob_[seq & rob_mask_].g) {
      /* occupied by another group: double the ring (keeps every entry) */
      std::vector<RobEntry> old = std::move(rob_);
      rob_.clear();
      rob_.resize(old.size() * 2);
      rob_mask_ = rob_.size() - 1;
      for (RobEntry &o : old)
         if (o.g)
            rob_[o.g->seq & rob_mask_] = std::move(o);
   }
   rob_[seq & rob_mask_] = std::move(e);
   rob_count_++;
}

void
Omu::retire_group(FsGroup &g)
{
   DrawState &d = *g.draw;
   const OmuState &o = d.omu;
   const FsOutputPlan &plan = d.plan;
   const ThreadGroup &tg = *g.tg;
   const uint64_t killed = tg.killed_mask();
   bool any_blend = false;
   for (unsigned i = 0; i < kMaxColorBufs; i++)
      any_blend |= o.rt[i].written && o.rt[i].blend;
   uint32_t color[kMaxColorBufs][4][4] = {};
   /* functional.cpp FragmentBackend::flush, quad by quad */
   for (unsigned k = 0; k < g.nquads; k++) {
      const FsQuad &it = g.quads[k];
      frag_late_ops(o, plan, tg, k, killed, *it.setup, it.run_x, it.run_y, it.q, it.mask, any_blend,
                    d.stats, color);
   }
}

bool
Omu::late_stage(Cycle now, bool &blocked)
{
   bool moved = false;
   /* every arriving group enters the reorder buffer and prefetches its
    * lines (the SPCs' inputs in order; an empty one cannot be popped) */
   for (uint64_t m = fs_nonempty_; m; m &= m - 1) {
      InPort<std::unique_ptr<FsGroup>> &in = *in_fs[__builtin_ctzll(m)];
      if (!in.can_pop())
         continue;
      std::unique_ptr<FsGroup> g = in.pop();
      RobEntry e;
      if (!g->skip && !g->draw->aborted(now)) {
         std::vector<uint64_t> fills = take_fills();
         touch_group(*g, e.txn, fills, false);
         if (e.txn)
            pending_.push_back(Pending{e.txn, std::move(fills)});
         else if (fills.capacity())
            spare_fills_.push_back(std::move(fills));
      }
      const uint64_t seq = g->seq;
      /* an older group of this GPC is still missing: the SPCs finished out
       * of order */
      if (seq > arrived_upto_)
         ++count_.reordered_groups;
      e.g = std::move(g);
      rob_insert(std::move(e));
      while (rob_find(arrived_upto_))
         arrived_upto_++;
      moved = true;
   }
   if (in_mark.can_pop()) {
      marks_.push_back(in_mark.pop());
      moved = true;
   }
   if (now < late_until_) {
      w_backlog_ |= rob_find(next_seq_) != nullptr;
      return true;
   }
   /* groups retire in sequence order; a draw ends where its mark says */
   const bool draw_end = !marks_.empty() && next_seq_ == marks_.front().end_seq;
   if (!draw_end) {
      RobEntry *it = rob_find(next_seq_);
      if (!it)
         return moved;
      RobEntry &e = *it;
      if (e.txn && !mem.done(e.txn)) {
         w_lines_ = true;
         return moved; /* its lines are not all in */
      }
      FsGroup &g = *e.g;
      if (!g.skip && !g.draw->aborted(now)) {
         DrawState &d = *g.draw;
         guarded(d, [&] { retire_group(g); });
         uint32_t mark = kMark;
         std::vector<uint64_t> nofills;
         touch_group(g, mark, nofills, true); /* its lines are written */
         count_.late_quads += g.nquads;
         late_until_ = now + std::max<Cycle>(1, (g.nquads + p_.omu_quads_per_cycle - 1) /
                                                   p_.omu_quads_per_cycle);
      }
      ++count_.fs_groups;
      pool_.put(std::move(g.tg));
      e = RobEntry{};
      rob_count_--;
      next_seq_++;
      credits_++;
      return true;
   }
   /* the draw's groups are done */
   DrawState &d = *marks_.front().draw;
   if (!ending_) {
      ending_ = true;
      if (d.clear && d.loaded && !d.aborted(now)) {
         const bool ok = guarded(d, [&] {
            if (d.pkg.is_resolve()) {
               d.stats.resolve_pixels = omu_resolve_draw(d.pkg, *d.vram);
            } else {
               d.stats.clear = true;
               d.stats.clear_pixels = omu_clear(d.pkg, *d.vram);
            }
         });
         if (ok) {
            count_.clear_bytes += clear_bytes(d.pkg);
            clear_plan(d, now); /* its lines go through the clear engine */
            return true;
         }
      }
   }
   if (clearing_) {
      if (clear_engine(now) && clearing_)
         return true;
      if (clearing_)
         return moved; /* waiting for reads or for the L2 to take requests */
   }
   if (!cleaned_) {
      cleaned_ = true;
      cache_.clean_all([&](uint64_t line) {
         ++count_.cache_writebacks;
         mem.write(line * line_bytes_, line_bytes_);
      });
      return true;
   }
   if (mem.queued())
      return moved; /* write-backs still leaving */
   if (!out_last.can_push()) {
      blocked = true;
      return moved;
   }
   out_last.push(LastReport{d.seq});
   for (auto it = late_zs_.begin(); it != late_zs_.end(); ++it)
      if (*it == &d) {
         late_zs_.erase(it);
         break;
      }
   marks_.pop_front();
   ending_ = false;
   cleaned_ = false;
   return true;
}

Activity
Omu::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false, blocked = false;
   busy |= mem.send();
   if (mem.receive()) {
      busy = true;
      complete_fills();
   }
   w_backlog_ = w_lines_ = false;
   busy |= late_stage(now, blocked);
   w_interlock_ = false;
   busy |= early_stage(now, blocked);
   count_.zs_interlock_cycles.set(now, w_interlock_);
   quads_bound_.set(now, w_backlog_);
   lines_wait_.set(now, w_lines_);
   clear_bound_.set(now, clearing_);
   /* reorder-buffer space back to the PE */
   if (credits_ && out_credit.can_push()) {
      out_credit.push(Credit{credits_});
      credits_ = 0;
      busy = true;
   }
   /* requests queued this cycle leave now (one per cycle) */
   busy |= mem.send();
   if (busy) {
      /* host speed: not ticked next cycle only to find nothing to do */
      Activity a;
      if (clearing_ && !never_sleep_ && clear_waits(now, a))
         sleep_as(a);
      return Activity::Busy;
   }
   if (blocked || (mem.queued() && !mem.out.can_push()))
      return Activity::Stalled;
   return drained() ? Activity::Idle : Activity::Starved;
}

bool
Omu::drained() const
{
   return !wedged_ && early_q_.empty() && !rob_count_ && marks_.empty() && mem.idle() && !credits_ &&
          !clearing_;
}

std::string
Omu::state_report() const
{
   std::string r;
   if (!early_q_.empty()) {
      const EarlyEntry &e = early_q_.front();
      r += fmt::format("; early stage: {} run(s), the oldest a {} of draw {}", early_q_.size(),
                       e.run.last ? "`last` token" : "run", e.run.draw->seq);
      for (const DrawState *o : late_zs_)
         if (o->seq < e.run.draw->seq) {
            r += fmt::format(" waiting for draw {}'s late depth/stencil", o->seq);
            break;
         }
      if (e.txn && !mem.done(e.txn))
         r += " waiting for its depth/stencil lines";
   }
   r += fmt::format("; late stage: next FS group {}, {} in the reorder buffer", next_seq_,
                    rob_count_);
   if (!marks_.empty())
      r += fmt::format(", draw {} ends at group {}", marks_.front().draw->seq,
                       marks_.front().end_seq);
   if (clearing_)
      r += fmt::format("; clear engine: {} line(s) in flight, span {}/{} row {}",
                       clear_steps_.size(), clear_span_, clear_spans_.size(), clear_row_);
   return r;
}

} // namespace vlgpu::sim
