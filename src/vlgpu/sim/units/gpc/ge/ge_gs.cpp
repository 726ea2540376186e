/*
 * vlgpu cycle-mode GPU: the GE's geometry-shader stage (ge.h "Geometry
 * shaders"; docs/hw.md "Geometry shaders"). The functional equivalent is
 * run_gs_instance (sim/func/pipe/functional.cpp): the same input
 * primitives, PRIMITIVE_IDs, groups of W primitives per instance and output
 * order, so both modes write the same pixels and stream output.
 */
#include "sim/units/gpc/ge/ge.h"

#include <fmt/format.h>

#include "sim/func/pipe/dispatch.h"

namespace vlgpu::sim {

void
Ge::gs_take_block(Block &b, Cycle now)
{
   DrawState &d = *b.task.draw;
   GsInput &in = gsi_;
   if (in.draw != b.task.draw || !in.ga) {
      in = GsInput{};
      in.draw = b.task.draw;
      in.ga = std::make_unique<GsAssembler>(d.pkg.draw.prim, d.ge.flatshade_first);
   }
   const bool run = !b.batch->skip && !d.aborted(now);
   if (run) {
      const VertexBatch &batch = *b.batch;
      const uint32_t base = in.next_base;
      in.parts.push_back(GsInput::Part{base, uint32_t(b.ids.size()), b.batch});
      in.next_base += uint32_t(b.ids.size());
      guarded(d, [&] {
         auto take = [&](const GsPrim &p) { gs_add_prim(d, p); };
         for (uint32_t e : batch.elems) {
            if (e == VertexBatch::kRestart)
               in.ga->restart(take);
            else
               in.ga->push(base + e, take);
         }
         if (b.task.end_of_instance)
            in.ga->restart(take);
      });
   }
   if (b.task.end_of_instance || !run) {
      /* the instance's last group; PRIMITIVE_ID and the vertex numbering
       * start again (an aborted draw drops the rest) */
      gs_close_group();
      in = GsInput{};
      return;
   }
   /* free the VS vertices the assembler can no longer use */
   const uint32_t keep = in.ga->oldest_kept();
   while (!in.parts.empty() && in.parts.front().base + in.parts.front().count <= keep)
      in.parts.pop_front();
}

/* Input primitive @p (vertex numbers of the instance) becomes the next
 * gs.invocations lanes of the open GS group(s), one per invocation. */
void
Ge::gs_add_prim(DrawState &d, const GsPrim &p)
{
   GsInput &in = gsi_;
   const float *verts[6];
   for (unsigned j = 0; j < p.num_vertices; j++) {
      const uint32_t n = p.v[j];
      const GsInput::Part *part = nullptr;
      for (auto it = in.parts.rbegin(); it != in.parts.rend(); ++it)
         if (it->base <= n) {
            part = &*it;
            break;
         }
      if (!part || n >= part->base + part->count) /* oldest_kept() kept it: a simulator bug */
         throw SimError(fmt::format("{}: GS input vertex {} no longer held", name(), n));
      verts[j] = &part->batch->vdata[size_t(n - part->base) * part->batch->floats];
   }
   for (uint32_t inv = 0; inv < d.ge.gs.invocations; inv++) {
      if (!gs_open_) {
         auto g = std::make_unique<VsGroup>();
         g->draw = in.draw;
         g->tg =
            pool_.get(width_, d.pkg.gs.state.num_regs, VLG_SHADER_STAGE_GEOMETRY, group_no_++);
         g->gs = std::make_unique<GsOutput>();
         gs_open_ = std::move(g);
      }
      VsGroup &g = *gs_open_;
      gs_load_lane(d.ge, verts, in.prim_id, inv, *g.tg, g.lanes);
      g.lanes++;
      if (g.lanes == width_)
         gs_close_group();
   }
   in.prim_id++;
   ++count_.gs_primitives_in;
}

/* The open GS group (if any) is complete: to the send queue. */
void
Ge::gs_close_group()
{
   if (!gs_open_)
      return;
   VsGroup &g = *gs_open_;
   DrawState &d = *g.draw;
   g.tg->set_live_mask(g.lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << g.lanes) - 1);
   g.gs->begin(g.lanes);
   g.gs_seq = gs_seq_++;
   d.stats.gs_groups++;
   d.stats.gs_invocations += g.lanes;
   gs_out_.push_back(GsFlight{g.gs_seq, g.draw, nullptr, nullptr, 0});
   gs_send_.push_back(std::move(gs_open_));
}

bool
Ge::gs_send()
{
   if (gs_send_.empty() || !out_vs.can_push())
      return false;
   SpcTask t;
   t.vs = std::move(gs_send_.front());
   gs_send_.pop_front();
   ++count_.gs_groups;
   out_vs.push(std::move(t));
   return true;
}

void
Ge::gs_collect(std::unique_ptr<VsGroup> g)
{
   if (gs_out_.empty() || g->gs_seq < gs_out_.front().seq ||
       g->gs_seq - gs_out_.front().seq >= gs_out_.size())
      throw SimError(fmt::format("{}: GS group {} came back unexpected", name(), g->gs_seq));
   gs_out_[size_t(g->gs_seq - gs_out_.front().seq)].back = std::move(g);
}

bool
Ge::gs_output(Cycle now, bool &blocked)
{
   if (gs_out_.empty() || !gs_out_.front().back)
      return false;
   GsFlight &f = gs_out_.front();
   bool moved = false;
   if (!f.batch) {
      /* decompose the strips into the PE's list primitives, in order */
      DrawState &d = *f.draw;
      VsGroup &g = *f.back;
      auto batch = std::make_shared<VertexBatch>();
      batch->draw = f.draw;
      batch->floats = d.ge.layout.floats();
      if (g.skip || d.aborted(now)) {
         batch->skip = true;
      } else {
         const unsigned floats = batch->floats;
         const bool ok = guarded(d, [&] {
            g.gs->decompose(
               d.ge,
               [&](float *const *v, const uint32_t *clip, unsigned n) {
                  for (unsigned j = 0; j < n; j++) {
                     batch->elems.push_back(uint32_t(batch->clipmask.size()));
                     batch->vdata.insert(batch->vdata.end(), v[j], v[j] + floats);
                     batch->clipmask.push_back(clip[j]);
                  }
               },
               d.stats);
         });
         batch->skip = !ok;
         count_.gs_vertices_out += batch->elems.size();
      }
      pool_.put(std::move(g.tg));
      f.batch = std::move(batch);
      moved = true;
   }
   /* nothing to draw: no batch (the PEs see the draw through its token) */
   if (f.batch->skip || f.batch->elems.empty() || to_every_pe(f.batch, f.pe_sent, moved, blocked)) {
      gs_out_.pop_front();
      moved = true;
   }
   return moved;
}

} // namespace vlgpu::sim
