/*
 * vlgpu cycle-mode GPU: the L2 cache (l2.h).
 */
#include "sim/units/l2/l2.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/units/mc/mc.h"

namespace vlgpu::sim {

L2::L2(std::string name, const Config &p, const std::vector<std::string> &clients)
    : Unit(std::move(name)), line_bytes_(p.l2_line_bytes),
      line_shift_(unsigned(__builtin_ctz(p.l2_line_bytes))),
      hit_latency_(p.l2_hit_latency_cycles), per_cycle_(std::max(1u, p.l2_requests_per_cycle)),
      mshrs_(std::max(1u, p.l2_mshrs)),
      cache_(p.l2_size_bytes, p.l2_ways, p.l2_line_bytes)
{
   clients_.reserve(clients.size());
   for (const std::string &c : clients)
      clients_.emplace_back(*this, c);
   mshr_.resize(mshrs_);
   free_mshrs_.assign((mshrs_ + 63) / 64, 0);
   for (uint32_t i = 0; i < mshrs_; i++)
      free_mshrs_[i / 64] |= uint64_t(1) << (i % 64);
   size_t slots = 16;
   while (slots < 4 * size_t(mshrs_))
      slots *= 2;
   by_tag_.resize(slots);
   if (clients_.size() > 64)
      throw ConfigError(fmt::format("{}: {} clients (at most 64)", this->name(), clients_.size()));
}

void
L2::on_finalize()
{
   in_nonempty_ = 0;
   for (size_t i = 0; i < clients_.size(); i++) {
      Client &c = clients_[i];
      c.bind();
      c.inq->set_nonempty_mask(&in_nonempty_, uint64_t(1) << i);
   }
   in_mc_q_ = &in_mc.typed_queue();
   out_mc_q_ = &out_mc.typed_queue();
}

L2::Mshr *
L2::mshr_of_line(uint64_t line)
{
   for (Mshr &m : mshr_)
      if (m.tag && m.line == line)
         return &m;
   return nullptr;
}

L2::Mshr *
L2::mshr_of_tag(uint32_t tag)
{
   const TagSlot &t = by_tag_[tag & (by_tag_.size() - 1)];
   if (t.tag == tag)
      return &mshr_[t.mshr];
   for (Mshr &m : mshr_)
      if (m.tag == tag)
         return &m;
   return nullptr;
}

L2::Mshr &
L2::claim_mshr(uint32_t tag)
{
   size_t w = 0;
   while (!free_mshrs_[w]) /* the caller checked mshr_used_ < mshrs_ */
      w++;
   const uint32_t idx = uint32_t(w * 64) + uint32_t(__builtin_ctzll(free_mshrs_[w]));
   free_mshrs_[w] &= free_mshrs_[w] - 1;
   TagSlot &t = by_tag_[tag & (by_tag_.size() - 1)];
   if (!t.tag)
      t = TagSlot{tag, idx};
   Mshr &m = mshr_[idx];
   m.tag = tag;
   return m;
}

void
L2::release_mshr(Mshr &m)
{
   const uint32_t idx = uint32_t(&m - mshr_.data());
   free_mshrs_[idx / 64] |= uint64_t(1) << (idx % 64);
   TagSlot &t = by_tag_[m.tag & (by_tag_.size() - 1)];
   if (t.tag == m.tag && t.mshr == idx)
      t = TagSlot{};
   m.tag = 0;
}

void
L2::respond(uint32_t c, uint32_t tag, Cycle at)
{
   ready_mask_ |= uint64_t(1) << c;
   /* after every response due no later (in the order they were given) */
   clients_[c].ready.insert_sorted(Ready{at, tag}, [](const Ready &r) { return r.at; });
}

/* An acknowledged write (MemClient::write_acked: a non-zero tag) is
 * answered l2.hit_latency_cycles after it was taken, as a read hit: the
 * line is in the L2, the point where every client sees it. */
void
L2::ack_write(uint32_t c, const MemReq &r, Cycle now)
{
   if (r.tag)
      respond(c, r.tag, now + hit_latency_);
}

void
L2::line_to_mc(uint64_t line, uint32_t tag, bool write)
{
   MemReq &r = to_mc_.push(); /* field by field: no whole-struct copy */
   r.addr = line * line_bytes_;
   r.bytes = line_bytes_;
   r.tag = tag;
   r.write = write;
}

void
L2::evict(const LineCache::Victim &v)
{
   if (!v.evicted)
      return;
   ++count_.evictions;
   if (v.dirty) {
      ++count_.writebacks;
      line_to_mc(v.line, kWritebackTag, true);
   }
}

bool
L2::accept(uint32_t c, const MemReq &r, Cycle now)
{
   const uint64_t line = r.addr >> line_shift_;
   if (r.write) {
      LineCache::Victim v;
      bool hit;
      LineCache::Way *w = cache_.lookup_or_allocate(line, v, hit);
      if (hit) {
         if (w->pending) {
            if (Mshr *m = mshr_of_line(line))
               m->dirty = true;
         }
         else
            w->dirty = true;
         ++count_.write_hits;
         ack_write(c, r, now);
         return true;
      }
      if (!w) { /* every way of the set is being filled: wait */
         return false;
      }
      evict(v);
      w->valid = true;
      w->dirty = true;
      ++count_.write_misses;
      ack_write(c, r, now);
      return true;
   }
   LineCache::Way *w = cache_.lookup(line);
   if (w)
      state_++; /* the lookup refreshed the line's LRU position */
   if (w && w->valid) {
      ++count_.read_hits;
      respond(c, r.tag, now + hit_latency_);
      return true;
   }
   if (w && w->pending) {
      if (Mshr *m = mshr_of_line(line)) {
         ++count_.read_merged;
         m->waiters.push_back(Waiter{c, r.tag});
         return true;
      }
   }
   if (mshr_used_ >= mshrs_)
      return false;
   LineCache::Victim v;
   w = cache_.allocate(line, v);
   if (!w)
      return false;
   evict(v);
   w->pending = true;
   uint32_t tag = next_fill_tag_++;
   if (next_fill_tag_ < 2)
      next_fill_tag_ = 2;
   Mshr &m = claim_mshr(tag);
   m.line = line;
   m.dirty = false;
   m.waiters.clear();
   m.waiters.push_back(Waiter{c, r.tag});
   mshr_used_++;
   line_to_mc(line, tag, false);
   ++count_.read_misses;
   return true;
}

Activity
L2::tick(Cycle now)
{
   if (VLG_UNLIKELY(wedged_))
      return Activity::Stalled;
   bool busy = false, blocked = false;

   /* fills and write acknowledgements from the MC */
   if (in_mc_q_->can_pop()) {
      const MemResp r = in_mc_q_->pop();
      busy = true;
      state_++;
      if (r.write) {
         if (r.tag == kFlushTag && flush_outstanding_)
            flush_outstanding_--;
      } else {
         if (Mshr *mp = r.tag >= 2 ? mshr_of_tag(r.tag) : nullptr) {
            Mshr &m = *mp;
            LineCache::Way *w = cache_.lookup(m.line);
            if (w && w->pending) {
               w->pending = false;
               w->valid = true;
               w->dirty = m.dirty;
            }
            for (const Waiter &wt : m.waiters)
               respond(wt.client, wt.tag, now);
            release_mshr(m);
            mshr_used_--;
         }
      }
   }

   /* the clients with a non-empty input queue now (an empty one cannot be
    * popped: skipping it changes nothing) */
   const uint32_t n = uint32_t(clients_.size());
   const uint64_t nonempty = in_nonempty_;

   /* flush request: once every request sent before it has been taken
    * (the clients' input queues are empty), so that the writes of the
    * draws the CP waited for are flushed too */
   if (!flushing_ && !nonempty && in_flush.can_pop()) {
      flush_tag_ = in_flush.pop().tag;
      flushing_ = true;
      state_++;
      flush_lines_ = 0;
      cache_.clean_all([&](uint64_t line) {
         line_to_mc(line, kFlushTag, true);
         flush_lines_++;
      });
      flush_outstanding_ = flush_lines_;
      count_.flushed_lines += flush_lines_;
      busy = true;
   }

   /* look up requests, round-robin over the clients; hold back when the
    * queue to the MC is long (write-backs pile up behind a slow MC) */
   uint32_t taken = 0;
   if (!nonempty) {
      /* nothing to look up */
   } else if (to_mc_.size() < 2 * size_t(mshrs_) + 8) {
      /* round-robin from the client after the last one accepted: clients
       * start..n-1, then 0..start-1, non-empty ones only. rr_ changes only
       * when a request is accepted (sleeping does not change results). A
       * start from the cycle number (now % n) starved a client whose reads
       * waited for an MSHR: MSHRs freed in step with the MC's transfers,
       * always in the same phase of now % n (streaming compute). */
      const uint32_t start = rr_; /* < n <= 64 */
      /* bit b of the mask rotated right by start is client (b + start) % 64:
       * in increasing b, clients start..n-1, then 0..start-1 */
      uint64_t part = start ? nonempty >> start | nonempty << (64 - start) : nonempty;
      for (; part && taken < per_cycle_; part &= part - 1) {
         const uint32_t c = (uint32_t(__builtin_ctzll(part)) + start) & 63;
         Client &cl = clients_[c];
         if (!cl.inq->can_pop())
            continue;
         if (cl.refused_at == state_) { /* accept() would refuse it again */
            blocked = true;
            continue;
         }
         const uint64_t before = state_;
         if (accept(c, cl.inq->peek(), now)) {
            cl.inq->pop();
            rr_ = c + 1 < n ? c + 1 : 0;
            taken++;
            busy = true;
            state_++;
         } else {
            blocked = true;
            if (state_ == before)
               cl.refused_at = before;
         }
      }
   } else {
      for (uint64_t m = nonempty; m; m &= m - 1)
         blocked |= clients_[__builtin_ctzll(m)].inq->can_pop();
   }
   count_.mshr_full_cycles.set(now, blocked);
   mshr_bound_.set(now, blocked);
   lookup_bound_.set(now, taken == per_cycle_ && uint32_t(__builtin_popcountll(nonempty)) > taken);

   /* one request per cycle to the MC */
   if (!to_mc_.empty() && out_mc_q_->can_push()) {
      out_mc_q_->push(to_mc_.front());
      to_mc_.pop_front();
      busy = true;
   }

   /* responses whose time has come */
   Cycle next = kNever;
   for (uint64_t m = ready_mask_; m; m &= m - 1) {
      const uint32_t c = uint32_t(__builtin_ctzll(m));
      Client &cl = clients_[c];
      if (cl.ready.front().at <= now && cl.outq->can_push()) {
         cl.outq->push(MemResp{cl.ready.front().tag, false});
         cl.ready.pop_front();
         busy = true;
      }
      if (!cl.ready.empty())
         next = std::min(next, std::max(cl.ready.front().at, now + 1));
      else
         ready_mask_ &= ~(uint64_t(1) << c);
   }

   if (flushing_ && to_mc_.empty() && flush_outstanding_ == 0 && out_flush.can_push()) {
      out_flush.push(FlushDone{flush_tag_, flush_lines_});
      flushing_ = false;
      busy = true;
   }

   fills_out_.set(now, mshr_used_ != 0);
   if (busy) {
      auto_sleep(true);
      return Activity::Busy;
   }
   /* an event within a few cycles: stay awake (cheaper than a timer) */
   auto_sleep(next > now + 4);
   if (next != kNever)
      wake_at(next);
   if (!to_mc_.empty() || blocked)
      return Activity::Stalled;
   return !mshr_used_ && !flushing_ ? Activity::Idle : Activity::Starved;
}

bool
L2::drained() const
{
   if (mshr_used_ || !to_mc_.empty() || flushing_)
      return false;
   for (const Client &c : clients_)
      if (!c.ready.empty())
         return false;
   return true;
}

std::string
L2::state_report() const
{
   size_t ready = 0;
   for (const Client &c : clients_)
      ready += c.ready.size();
   return fmt::format(
      "; {}/{} fills outstanding, {} request(s) queued for the MC, {} response(s) "
      "waiting to leave{}",
      mshr_used_, mshrs_, to_mc_.size(), ready,
      flushing_ ? fmt::format(", flushing ({} write-backs unacknowledged)", flush_outstanding_)
                : "");
}

} // namespace vlgpu::sim
