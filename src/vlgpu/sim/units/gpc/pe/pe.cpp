/*
 * vlgpu cycle-mode GPU: the primitive engine (pe.h).
 */
#include "sim/units/gpc/pe/pe.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sim/func/pipe/dispatch.h"
#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/stream_output.h"

namespace vlgpu::sim {

namespace {
/** Rasterisation runs the PE keeps ready for the OMU before it takes the
 *  next primitive. */
constexpr size_t kRunQueue = 64;

unsigned
pop64(uint64_t m)
{
   return unsigned(__builtin_popcountll(m));
}
} // namespace

Pe::Pe(std::string name, const Config &p, uint32_t gpc, ThreadGroupPool &pool)
    : Unit(std::move(name)), p_(p), pool_(pool), gpc_(gpc), gpcs_(p.gpcs),
      width_(p.thread_group_width), quads_per_group_(p.thread_group_width / 4),
      rob_free_(p.omu_reorder_groups)
{
   set_activity_causes(Cause::Pe); /* bottleneck report */
   for (uint32_t g = 0; g < gpcs_; g++)
      in_ge.push_back(std::make_unique<InPort<BatchRef>>(
         *this, fmt::format("in_ge{}", g), fmt::format("shaded sub-blocks from GPC {}'s GE", g)));
   if (gpc_ == 0)
      mem_ = std::make_unique<MemClient>(*this, "mem");
}

/* ---- stage 1: assembly and rasterisation ------------------------------ */

void
Pe::begin_draw(const DrawRef &d)
{
   draw_ = d;
   engine_.reset();
   pa_.reset();
   inst_prims_ = 0;
   owned_quads_ = owned_frags_ = 0;
   if (d->loaded && !d->clear) {
      engine_ = std::make_unique<PrimitiveEngine>(d->pe);
      /* with a GS, the GE sends its output decomposed into lists */
      const vlg_prim prim = d->ge.gs.enabled ? gs_output_list_prim(d->ge.gs.output_prim)
                                             : vlg_prim(d->pkg.draw.prim);
      pa_.emplace(prim, d->ge.flatshade_first);
      if (gpc_ == 0 && d->ge.so.enabled) {
         /* start offsets (append: filled_size) are read now; the CP's
          * interlock kept this draw until earlier writers of them ended */
         guarded(*d, [&] { d->so = std::make_unique<StreamOutput>(d->ge.so, *d->vram); });
         so_pa_.emplace(prim, d->ge.flatshade_first);
      }
   }
   vn_ = 0;
   first_n_ = ~0u;
   at_first_ = true;
}

void
Pe::end_draw()
{
   DrawState &d = *draw_;
   if (engine_) {
      const PeStats &s = engine_->stats();
      if (gpcs_ == 1) {
         d.stats.pe = s;
      } else {
         if (gpc_ == 0) {
            const uint64_t q = d.stats.pe.quads, f = d.stats.pe.fragments;
            d.stats.pe = s;
            d.stats.pe.quads = q;
            d.stats.pe.fragments = f;
         }
         d.stats.pe.quads += owned_quads_;
         d.stats.pe.fragments += owned_frags_;
      }
   }
   QuadRun last;
   last.draw = draw_;
   last.last = true;
   runs_.push_back(std::move(last));
   if (d.so) {
      d.stats.ge.so_generated = d.so->generated();
      d.stats.ge.so_written = d.so->written();
   }
   if (d.has_gs()) /* the GTS moved on to the next GPC after it */
      rr_ = (rr_ + 1) % gpcs_;
   engine_.reset();
   pa_.reset();
   so_pa_.reset();
   draw_.reset();
   setup_.reset();
   for (VRef &r : ring_)
      r.batch.reset();
   first_.batch.reset();
}

void
Pe::primitive(const PrimSetup &s)
{
   /* the quads that follow keep this setup until they are retired */
   auto c = std::make_shared<PrimSetup>();
   pe_copy_setup(*c, s, draw_->pe.num_inputs);
   setup_ = std::move(c);
}

/* Triangles, lines and points the functional PE has set up so far in this
 * draw (raster.cpp counts every primitive that survives clipping and
 * culling, whether or not it covers a pixel centre). */
static uint64_t
setups_of(const PeStats &s)
{
   return s.triangles_setup + s.lines_setup + s.points_setup;
}

void
Pe::quads(const Quad *q, unsigned n)
{
   if (!n)
      return;
   QuadRun r;
   r.draw = draw_;
   r.run_x = q[0].x;
   r.run_y = q[0].y;
   r.setup = setup_;
   const uint32_t shift = uint32_t(__builtin_ctz(p_.pe_tile_pixels));
   for (unsigned i = 0; i < n; i++) {
      if (gpcs_ > 1) {
         const uint32_t owner =
            (uint32_t(q[i].x >> shift) + uint32_t(q[i].y >> shift)) % gpcs_;
         if (owner != gpc_)
            continue;
         owned_quads_++;
         owned_frags_ += pop64(q[i].mask & 0xf);
      }
      Quad c = q[i];
      if (frag_sample_coverage(draw_->omu, c)) /* sample_mask (4 samples) */
         r.q[r.n++] = c;
   }
   if (!draw_->omu.sample_enabled || !r.n)
      return; /* sample_mask bit 0 clear: no coverage (as the functional OMU) */
   count_.quads += r.n;
   runs_.push_back(std::move(r));
}

void
Pe::emit(const Primitive &prim)
{
   DrawState &d = *draw_;
   VertexRef refs[3];
   for (unsigned j = 0; j < prim.num_vertices; j++) {
      VRef &v = vref(prim.v[j]);
      const VertexBatch &b = *v.batch;
      refs[j] = VertexRef{const_cast<float *>(&b.vdata[size_t(v.index) * b.floats]),
                          b.clipmask[v.index]};
   }
   ++count_.primitives;
   if (gpc_ == 0)
      d.stats.ge.primitives++;
   /* every primitive set up costs pe.setup_cycles, also one that covers no
    * pixel centre (the PrimitiveEngine calls primitive() only before quads);
    * the instance's primitives numbered for the FS input PRIMITIVE_ID (a GS
    * draw's come from the GS output) */
   const uint64_t before = setups_of(engine_->stats());
   engine_->process(refs, prim.num_vertices, *this, d.has_gs() ? 0u : inst_prims_++, prim.edges);
   const uint64_t n = setups_of(engine_->stats()) - before;
   setups_now_ += uint32_t(n);
   count_.setups += n;
}

void
Pe::so_emit(const Primitive &prim)
{
   DrawState &d = *draw_;
   if (!d.so)
      return;
   const float *v[3];
   for (unsigned j = 0; j < prim.num_vertices; j++) {
      VRef &r = vref(prim.v[j]);
      v[j] = &r.batch->vdata[size_t(r.index) * r.batch->floats];
   }
   const uint64_t lb = p_.l2_line_bytes;
   d.so->primitive(*d.vram, v, prim.num_vertices, [&](uint64_t addr, uint64_t bytes) {
      for (uint64_t line = addr / lb; line <= (addr + bytes - 1) / lb; line++) {
         if (line == so_last_line_)
            continue;
         so_last_line_ = line;
         mem_->write(line * lb, uint32_t(lb));
         ++count_.so_lines;
      }
   });
}

/* Assemble and rasterise until one primitive went out (or nothing to do).
 * Returns true if something happened. */
bool
Pe::assemble(Cycle now)
{
   if (!batch_) {
      InPort<BatchRef> &in = *in_ge[rr_];
      if (last_mask_) {
         /* the draw's data is exhausted: collect its token from every GE */
         bool got = false;
         for (uint32_t g = 0; g < gpcs_; g++)
            if (!(last_mask_ >> g & 1) && in_ge[g]->can_pop()) {
               in_ge[g]->pop();
               last_mask_ |= uint64_t(1) << g;
               got = true;
            }
         const uint64_t all = gpcs_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << gpcs_) - 1;
         if (last_mask_ == all) {
            last_mask_ = 0;
            end_draw();
            return true;
         }
         return got;
      }
      if (!in.can_pop())
         return false;
      const BatchRef &head = in.peek();
      if (head->draw != draw_)
         begin_draw(head->draw);
      if (head->last) {
         in.pop();
         last_mask_ = uint64_t(1) << rr_;
         if (gpcs_ == 1) {
            last_mask_ = 0;
            end_draw();
         }
         return true;
      }
      batch_ = in.pop();
      if (!draw_->has_gs()) /* a GS draw comes from one GE (DrawState::has_gs) */
         rr_ = (rr_ + 1) % gpcs_;
      elem_ = 0;
      if (batch_->skip || draw_->aborted(now) || !pa_)
         batch_.reset();
      return true;
   }
   DrawState &d = *draw_;
   if (d.aborted(now)) {
      batch_.reset();
      return true;
   }
   setups_now_ = 0;
   uint64_t prims_before = count_.primitives.value();
   const bool ok = guarded(d, [&] {
      auto em = [&](const Primitive &p) { emit(p); };
      auto sem = [&](const Primitive &p) { so_emit(p); };
      const std::vector<uint32_t> &elems = batch_->elems;
      while (elem_ < elems.size() && count_.primitives.value() == prims_before) {
         const uint32_t e = elems[elem_++];
         if (e == VertexBatch::kRestart) {
            /* stream output first: it reads the vertices of the primitive
             * the restart completes (a line loop's closing line) */
            if (so_pa_)
               so_pa_->restart(sem);
            pa_->restart(em);
            at_first_ = true;
            continue;
         }
         const uint32_t n = vn_++;
         VRef &slot = ring_[n & 3];
         slot.batch = batch_;
         slot.index = e;
         if (at_first_) {
            first_n_ = n;
            first_ = slot;
            at_first_ = false;
         }
         if (so_pa_)
            so_pa_->push(n, sem);
         pa_->push(n, em);
      }
      if (elem_ >= elems.size() && batch_->end_of_instance &&
          count_.primitives.value() == prims_before) {
         if (so_pa_)
            so_pa_->restart(sem);
         pa_->restart(em);
         at_first_ = true;
         inst_prims_ = 0;
         batch_.reset();
      } else if (elem_ >= elems.size() && !batch_->end_of_instance) {
         batch_.reset();
      }
   });
   if (!ok) {
      batch_.reset();
      return true;
   }
   if (count_.primitives.value() != prims_before)
      raster_until_ = now + p_.pe_prim_cycles + Cycle(p_.pe_setup_cycles) * setups_now_;
   return true;
}

/* ---- stage 3: FS thread-group packing --------------------------------- */

bool
Pe::send_group()
{
   if (!out_fs.can_push() || !rob_free_)
      return false;
   rob_free_--;
   DrawState &d = *group_->draw;
   if (!group_->skip) {
      uint8_t masks[kMaxLanes / 4];
      for (unsigned k = 0; k < group_->nquads; k++)
         masks[k] = group_->quads[k].mask;
      const FsLaneMasks lm =
         fs_lane_masks(masks, group_->nquads, d.pkg.fs.state.uses_derivatives);
      group_->tg->set_live_mask(lm.live);
      group_->tg->set_helper_mask(lm.helper);
      d.stats.fs_groups++;
      d.stats.fs_quads += group_->nquads;
      d.stats.fs_invocations += pop64(lm.covered);
      d.stats.fs_helper_lanes += pop64(lm.helper);
   }
   ++count_.fs_groups;
   SpcTask t;
   t.fs = std::move(group_);
   out_fs.push(std::move(t));
   return true;
}

bool
Pe::pack(Cycle now)
{
   /* a full (or abandoned) group leaves first (one push per cycle on
    * out_fs); the next group is packed in the same cycle, so a group can
    * leave every cycle (packing and sending are two pipeline steps, not one
    * serialised two-cycle step per group) */
   bool moved = false;
   if (group_ && (group_->skip || group_->nquads == quads_per_group_)) {
      if (!send_group())
         return false;
      moved = true;
   }
   if (end_ != End::None) {
      const DrawRef d = cur_.draw;
      switch (end_) {
      case End::Flush:
         end_ = End::Token;
         if (group_ && group_->nquads) /* the draw's partial group */
            return send_group() ? true : (end_ = End::Flush, moved);
         [[fallthrough]];
      case End::Token:
         if (!out_fs.can_push())
            return moved;
         {
            SpcTask t;
            t.last_of = d;
            out_fs.push(std::move(t));
         }
         end_ = End::Mark;
         moved = true;
         [[fallthrough]];
      case End::Mark:
         if (!out_mark.can_push())
            return moved;
         out_mark.push(DrawMark{d, seq_});
         end_ = End::Report;
         moved = true;
         [[fallthrough]];
      case End::Report:
         if (!out_last.can_push())
            return moved;
         out_last.push(LastReport{d->seq});
         end_ = End::None;
         have_cur_ = false;
         cur_ = QuadRun{};
         return true;
      default:
         return moved;
      }
   }
   if (!have_cur_) {
      if (!in_early.can_pop())
         return moved;
      cur_ = in_early.pop();
      have_cur_ = true;
      cur_pos_ = 0;
      if (cur_.last) {
         end_ = End::Flush;
         return true;
      }
   }
   DrawState &d = *cur_.draw;
   if (d.aborted(now)) {
      if (group_)
         group_->skip = true;
      have_cur_ = false;
      return true;
   }
   const bool ok = guarded(d, [&] {
      while (cur_pos_ < cur_.n && (!group_ || group_->nquads < quads_per_group_)) {
         const Quad &q = cur_.q[cur_pos_++];
         if (!(q.mask & 0xf))
            continue; /* every fragment failed the early tests */
         if (!group_) {
            group_ = std::make_unique<FsGroup>();
            group_->draw = cur_.draw;
            group_->seq = seq_++;
            group_->tg = pool_.get(width_, d.pkg.fs.state.num_regs, VLG_SHADER_STAGE_FRAGMENT,
                                   group_no_++);
         }
         FsQuad &fq = group_->quads[group_->nquads];
         fq.q = q;
         fq.mask = q.mask & 0xf;
         fq.run_x = cur_.run_x;
         fq.run_y = cur_.run_y;
         fq.setup = cur_.setup;
         fs_load_quad(d.pe, *cur_.setup, q, *group_->tg, group_->nquads);
         group_->nquads++;
      }
   });
   if (!ok) {
      if (group_)
         group_->skip = true;
      have_cur_ = false;
      return true;
   }
   if (cur_pos_ >= cur_.n)
      have_cur_ = false;
   return true;
}

Activity
Pe::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false, blocked = false;

   if (in_credit.can_pop()) {
      rob_free_ += in_credit.pop().amount;
      busy = true;
   }
   if (mem_) {
      mem_->receive();
      if (mem_->send())
         busy = true;
      else if (mem_->queued())
         blocked = true;
   }
   /* stage 3 first: it frees what stage 2 fills */
   if (pack(now))
      busy = true;
   else if (have_cur_ || end_ != End::None || (group_ && group_->nquads == quads_per_group_))
      blocked = true;

   /* stage 2: runs to the OMU */
   if (!runs_.empty() && now >= emit_until_) {
      if (out_early.can_push()) {
         const unsigned n = runs_.front().n;
         out_early.push(std::move(runs_.front()));
         runs_.pop_front();
         emit_until_ = now + std::max<Cycle>(1, (n + p_.pe_quads_per_cycle - 1) /
                                                   p_.pe_quads_per_cycle);
         busy = true;
      } else {
         blocked = true;
      }
   }

   /* stage 1 */
   if (now >= raster_until_ && runs_.size() < kRunQueue) {
      if (assemble(now))
         busy = true;
   }
   if (now < raster_until_ || now < emit_until_)
      busy = true;
   if (busy)
      return Activity::Busy;
   if (blocked)
      return Activity::Stalled;
   return drained() ? Activity::Idle : Activity::Starved;
}

bool
Pe::drained() const
{
   return !wedged_ && !draw_ && !batch_ && runs_.empty() && !have_cur_ && !group_ &&
          end_ == End::None && !last_mask_ && (!mem_ || mem_->idle());
}

std::string
Pe::state_report() const
{
   std::string r;
   if (draw_)
      r += fmt::format("; rasterising draw {}{}", draw_->seq,
                       last_mask_ ? " (collecting its `last` token from the GEs)" : "");
   r += fmt::format("; {} run(s) waiting for the OMU", runs_.size());
   if (have_cur_)
      r += fmt::format("; packing a run of draw {} ({} of {} quads)", cur_.draw->seq, cur_pos_,
                       cur_.n);
   if (group_)
      r += fmt::format("; FS group {} holds {} quad(s)", group_->seq, group_->nquads);
   if (end_ != End::None)
      r += "; finishing a draw (flush, `last` token, draw mark, report)";
   return r;
}

} // namespace vlgpu::sim
