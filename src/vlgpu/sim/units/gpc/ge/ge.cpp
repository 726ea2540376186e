/*
 * vlgpu cycle-mode GPU: the geometry engine (ge.h).
 */
#include "sim/units/gpc/ge/ge.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/func/pipe/dispatch.h"

namespace vlgpu::sim {

Ge::Ge(std::string name, const Config &p, ThreadGroupPool &pool)
    : Unit(std::move(name)), p_(p), pool_(pool), width_(p.thread_group_width),
      line_bytes_(p.l2_line_bytes)
{
   set_activity_causes(Cause::Ge); /* bottleneck report */
   for (uint32_t k = 0; k < p.spcs_per_gpc; k++)
      in_vs.push_back(std::make_unique<InPort<std::unique_ptr<VsGroup>>>(
         *this, fmt::format("in_vs{}", k), fmt::format("finished VS groups from SPC {}", k)));
   for (uint32_t g = 0; g < p.gpcs; g++)
      out_pe.push_back(std::make_unique<OutPort<BatchRef>>(
         *this, fmt::format("out_pe{}", g), fmt::format("shaded sub-blocks to GPC {}'s PE", g)));
}

Ge::Block *
Ge::find(uint32_t id)
{
   for (Block &b : blocks_)
      if (b.id == id)
         return &b;
   return nullptr;
}

void
Ge::skip_block(Block &b)
{
   b.batch->skip = true;
   b.batch->elems.clear();
   b.stage = Stage::Sent;
   b.groups_total = b.groups_sent;
}

void
Ge::start_block(Block &b, Cycle now)
{
   auto batch = std::make_shared<VertexBatch>();
   batch->draw = b.task.draw;
   batch->last = b.task.last;
   batch->end_of_instance = b.task.end_of_instance;
   batch->instance = b.task.instance;
   b.batch = batch;
   if (b.task.last) {
      b.stage = Stage::Token; /* to the LTS after the draw's VS groups */
      return;
   }
   DrawState &d = *b.task.draw;
   ++count_.sub_blocks;
   count_.elements += b.task.count;
   if (d.aborted(now)) {
      skip_block(b);
      return;
   }
   const VLG_DRAW_INFO &di = d.pkg.draw;
   if (d.pkg.indexed()) {
      const uint64_t isize = uint64_t(di.index_size);
      const uint64_t addr = di.index_buffer + (uint64_t(di.start) + b.task.first) * isize;
      const uint64_t bytes = uint64_t(b.task.count) * isize;
      b.txn = mem.begin();
      if (d.vram->contains(addr, bytes))
         for_each_line(addr, bytes, line_bytes_, [&](uint64_t l) {
            mem.read(b.txn, l * line_bytes_, line_bytes_);
            ++count_.index_lines;
         });
      b.stage = Stage::IndexWait;
      return;
   }
   build_block(b);
}

void
Ge::VertexIds::reset(uint32_t count)
{
   size_t want = 16;
   while (want < 2 * size_t(count))
      want *= 2;
   if (want > slots_.size()) {
      slots_.assign(want, Slot{0, 0, 0});
      gen_ = 0;
   }
   if (++gen_ == 0) { /* wrapped: no slot may look current */
      std::fill(slots_.begin(), slots_.end(), Slot{0, 0, 0});
      gen_ = 1;
   }
}

/* Elements -> vertex ids, distinct ids in order of first use. */
void
Ge::build_block(Block &b)
{
   DrawState &d = *b.task.draw;
   VertexBatch &batch = *b.batch;
   const VLG_DRAW_INFO &di = d.pkg.draw;
   const bool indexed = d.pkg.indexed();
   batch.elems.resize(b.task.count);
   b.ids.clear();
   dedupe_.reset(b.task.count);
   uint64_t restarts = 0, used = 0;
   const bool ok = guarded(d, [&] {
      for (uint32_t i = 0; i < b.task.count; i++) {
         int64_t id;
         if (indexed) {
            const IndexFetch f = ge_fetch_index(d.ge, *d.vram, b.task.first + i);
            if (f.restart) {
               batch.elems[i] = VertexBatch::kRestart;
               restarts++;
               continue;
            }
            id = int64_t(f.index) + di.base_vertex;
         } else {
            id = int64_t(di.start) + b.task.first + i;
         }
         used++;
         bool inserted;
         batch.elems[i] = dedupe_.find_or_insert(id, uint32_t(b.ids.size()), inserted);
         if (inserted)
            b.ids.push_back(id);
      }
   });
   if (indexed) {
      d.stats.ge.indices += b.task.count;
      d.stats.ge.restarts += restarts;
   }
   if (!ok) {
      skip_block(b);
      return;
   }
   const size_t n = b.ids.size();
   d.stats.ge.vertices_fetched += n;
   d.stats.ge.vertices_reused += used - n;
   count_.vertices += n;
   /* with a GS the VS vertices are the GS's inputs (vs_store_lane's GsPlan
    * layout), not the PE's */
   batch.floats = d.ge.gs.enabled ? vs_vertex_floats(d.ge) : d.ge.layout.floats();
   batch.vdata.assign(n * batch.floats, 0.0f);
   batch.clipmask.assign(n, 0);
   b.groups_total = uint32_t((n + width_ - 1) / width_);
   b.groups_sent = b.groups_done = 0;
   b.stage = b.groups_total ? Stage::Groups : Stage::Sent;
}

/* Fetch the attributes of the block's next groups and send them. Returns
 * true if something moved. */
bool
Ge::fetch_groups(Block &b, Cycle now)
{
   bool moved = false;
   DrawState &d = *b.task.draw;
   const uint32_t queued = uint32_t(fetching_.size());
   if (queued < 2 && b.groups_sent + queued < b.groups_total) {
      Fetch f;
      f.block = b.id;
      f.first = (b.groups_sent + queued) * width_;
      f.lanes = std::min<uint32_t>(width_, uint32_t(b.ids.size()) - f.first);
      f.txn = mem.begin();
      lines_.clear();
      const uint32_t inst = b.task.instance;
      for (const GeAttrib &a : d.ge.attribs) {
         for (uint32_t l = 0; l < f.lanes; l++) {
            const int64_t e = a.divisor
                                 ? int64_t(d.pkg.draw.start_instance) + int64_t(inst / a.divisor)
                                 : b.ids[f.first + l];
            if (e < 0)
               continue;
            const uint64_t addr = a.vb_address + uint64_t(e) * a.stride + a.src_offset;
            if (!d.vram->contains(addr, a.bytes))
               continue;
            for_each_line(addr, a.bytes, line_bytes_, [&](uint64_t line) { lines_.push_back(line); });
            if (a.divisor)
               break; /* same element for every lane */
         }
      }
      std::sort(lines_.begin(), lines_.end());
      lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
      for (uint64_t line : lines_)
         mem.read(f.txn, line * line_bytes_, line_bytes_);
      count_.attribute_lines += lines_.size();
      fetching_.push_back(f);
      moved = true;
   }
   if (!fetching_.empty() && fetching_.front().block == b.id && mem.done(fetching_.front().txn) &&
       !lts_pushed_ && out_vs.can_push()) {
      const Fetch f = fetching_.front();
      fetching_.pop_front();
      const VLG_SHADER_STATE &vs = d.pkg.vs.state;
      auto g = std::make_unique<VsGroup>();
      g->draw = b.task.draw;
      g->block = b.id;
      g->first = f.first;
      g->lanes = f.lanes;
      g->tg = pool_.get(width_, vs.num_regs, VLG_SHADER_STAGE_VERTEX, group_no_++);
      g->tg->set_live_mask(f.lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << f.lanes) - 1);
      const bool ok = !d.aborted(now) && guarded(d, [&] {
         for (uint32_t l = 0; l < f.lanes; l++)
            vs_load_lane(d.ge, *d.vram, b.ids[f.first + l], b.task.instance, *g->tg, l);
      });
      if (!ok) {
         pool_.put(std::move(g->tg));
         /* groups already sent come back; the rest are not sent */
         fetching_.clear();
         skip_block(b);
         return true;
      }
      d.stats.vs_groups++;
      d.stats.ge.vs_groups++;
      d.stats.vs_invocations += f.lanes;
      ++count_.vs_groups;
      SpcTask t;
      t.vs = std::move(g);
      out_vs.push(std::move(t));
      b.groups_sent++;
      if (b.groups_sent == b.groups_total)
         b.stage = Stage::Sent;
      moved = true;
   }
   return moved;
}

/* Push @batch to every PE not in @sent yet (bit g: GPC g's PE has it).
 * True once all have it; @moved/@blocked say what happened. */
bool
Ge::to_every_pe(const BatchRef &batch, uint64_t &sent, bool &moved, bool &blocked)
{
   bool all = true;
   for (uint32_t g = 0; g < out_pe.size(); g++) {
      if (sent >> g & 1)
         continue;
      if (out_pe[g]->can_push()) {
         out_pe[g]->push(batch);
         sent |= uint64_t(1) << g;
         moved = true;
      } else {
         all = false;
         blocked = true;
      }
   }
   return all;
}

void
Ge::collect(std::unique_ptr<VsGroup> g)
{
   if (g->gs) {
      gs_collect(std::move(g));
      return;
   }
   Block *b = find(g->block);
   if (b) {
      DrawState &d = *g->draw;
      if (!g->skip && !b->batch->skip && !d.aborted(now())) {
         VertexBatch &batch = *b->batch;
         const bool ok = guarded(d, [&] {
            for (uint32_t l = 0; l < g->lanes; l++) {
               const uint32_t v = g->first + l;
               float *vert = &batch.vdata[size_t(v) * batch.floats];
               vs_store_lane(d.ge, *g->tg, l, vert);
               if (!d.ge.gs.enabled) /* with a GS, the GS's outputs are the PE's */
                  batch.clipmask[v] = pe_post_vs(d.pe, vert);
            }
         });
         if (!ok)
            skip_block(*b);
      }
      b->groups_done++;
   }
   pool_.put(std::move(g->tg));
}

void
Ge::on_finalize()
{
   track_nonempty(*this, in_vs, vs_nonempty_);
}

Activity
Ge::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false, blocked = false;
   busy |= mem.send();
   busy |= mem.receive();

   /* the SPCs' inputs in order (an empty one cannot be popped) */
   for (uint64_t m = vs_nonempty_; m; m &= m - 1) {
      InPort<std::unique_ptr<VsGroup>> &in = *in_vs[__builtin_ctzll(m)];
      if (in.can_pop()) {
         collect(in.pop());
         busy = true;
      }
   }

   if (blocks_.size() < p_.ge_sub_blocks_in_flight && in_task.can_pop()) {
      Block b;
      b.id = next_block_++;
      b.task = in_task.pop();
      blocks_.push_back(std::move(b));
      start_block(blocks_.back(), now);
      busy = true;
   }

   /* GS groups go to the LTS first: they are older work than the VS
    * groups of later sub-blocks */
   lts_pushed_ = gs_send();
   busy |= lts_pushed_;

   /* the oldest block still fetching */
   for (Block &b : blocks_) {
      if (b.stage == Stage::Sent)
         continue;
      if (b.stage == Stage::Token) {
         /* a GS draw's token follows its last GS group */
         if (b.task.draw->has_gs() && (&b != &blocks_.front() || !gs_token_ready(*b.task.draw))) {
            blocked |= !gs_send_.empty();
         } else if (!lts_pushed_ && out_vs.can_push()) {
            SpcTask t;
            t.last_of = b.task.draw;
            out_vs.push(std::move(t));
            b.stage = Stage::Sent;
            busy = true;
         } else {
            blocked = true;
         }
      } else if (b.stage == Stage::IndexWait) {
         if (b.task.draw->aborted(now)) {
            skip_block(b);
            busy = true;
         } else if (mem.done(b.txn)) {
            build_block(b);
            busy = true;
         }
      } else if (b.task.draw->aborted(now)) {
         fetching_.clear();
         skip_block(b);
         busy = true;
      } else {
         if (fetch_groups(b, now))
            busy = true;
         else if (!fetching_.empty() && mem.done(fetching_.front().txn))
            blocked = true; /* LTS queue full */
      }
      break;
   }

   busy |= gs_output(now, blocked);

   /* the oldest block leaves when complete, to every PE (a GS draw's: to the
    * GS input assembly; its `last` token once its GS outputs have gone) */
   if (!blocks_.empty() && blocks_.front().task.draw->has_gs()) {
      Block &b = blocks_.front();
      if (b.stage == Stage::Sent && b.groups_done == b.groups_sent && !b.task.last) {
         if (gs_send_.size() < 2) {
            gs_take_block(b, now);
            blocks_.pop_front();
            busy = true;
         } else {
            blocked = true;
         }
      }
   }
   if (!blocks_.empty()) {
      Block &b = blocks_.front();
      /* a GS draw's sub-blocks went to the GS input above; a token waits
       * for every GS output before it */
      const bool gs_pending = !gs_out_.empty() || gs_open_ || !gs_send_.empty();
      const bool waits = b.task.last ? gs_pending : b.task.draw->has_gs();
      if (!waits && b.stage == Stage::Sent && b.groups_done == b.groups_sent) {
         if (to_every_pe(b.batch, b.pe_sent, busy, blocked)) {
            if (!b.task.last) {
               blocks_.pop_front();
            } else if (out_last.can_push()) {
               out_last.push(LastReport{b.task.draw->seq});
               blocks_.pop_front();
               busy = true;
            } else {
               blocked = true;
            }
         }
      }
   }
   /* requests queued this cycle leave now (one per cycle) */
   busy |= mem.send();
   if (busy)
      return Activity::Busy;
   if (blocked || (mem.queued() && !mem.out.can_push()))
      return Activity::Stalled;
   return blocks_.empty() ? Activity::Idle : Activity::Starved;
}

std::string
Ge::state_report() const
{
   std::string r;
   r += fmt::format("; {} sub-block(s) in flight", blocks_.size());
   if (!blocks_.empty()) {
      const Block &b = blocks_.front();
      if (b.task.last)
         r += fmt::format("; oldest: `last` token of draw {}", b.task.draw->seq);
      else
         r += fmt::format("; oldest: draw {} instance {} elements {}+{}: {} of {} VS groups "
                          "sent, {} back",
                          b.task.draw->seq, b.task.instance, b.task.first, b.task.count,
                          b.groups_sent, b.groups_total, b.groups_done);
   }
   r += fmt::format("; {} group(s) fetching attributes, {} request(s) queued", fetching_.size(),
                    mem.queued());
   if (gs_open_ || !gs_send_.empty() || !gs_out_.empty())
      r += fmt::format("; GS: {} lane(s) in the open group, {} group(s) waiting for the LTS, {} "
                       "out (oldest {})",
                       gs_open_ ? gs_open_->lanes : 0, gs_send_.size(), gs_out_.size(),
                       gs_out_.empty() ? "-" : gs_out_.front().back ? "back" : "on an SPC");
   return r;
}

} // namespace vlgpu::sim
