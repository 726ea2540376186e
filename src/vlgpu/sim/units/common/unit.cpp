/*
 * vlgpu cycle-mode GPU: module helpers (unit.h).
 */
#include "sim/units/common/unit.h"

#include <algorithm>

namespace vlgpu::sim {

std::string
Unit::stall_report() const
{
   std::string r = port_report() + state_report();
   if (wedged_)
      r += "; WEDGED (fault injection)";
   return r;
}

LineCache::LineCache(uint64_t size_bytes, uint32_t ways, uint32_t line_bytes, bool hashed)
    : line_bytes_(line_bytes ? line_bytes : 64), ways_(ways ? ways : 1), hashed_(hashed)
{
   const uint64_t sets = size_bytes / (uint64_t(ways_) * line_bytes_);
   sets_ = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(sets, 1u << 26)));
   while ((1ull << set_bits_) < sets_)
      set_bits_++;
   pow2_ = (sets_ & (sets_ - 1)) == 0;
   ways_v_.resize(size_t(sets_) * ways_);
}

LineCache::Way *
LineCache::lookup(uint64_t line)
{
   Way *set = &ways_v_[size_t(set_of(line)) * ways_];
   for (uint32_t i = 0; i < ways_; i++) {
      Way &w = set[i];
      if (w.line == line && (w.valid || w.pending)) /* the tag first: most ways differ */ {
         w.lru = ++clock_;
         return &w;
      }
   }
   return nullptr;
}

const LineCache::Way *
LineCache::probe(uint64_t line) const
{
   const Way *set = &ways_v_[size_t(set_of(line)) * ways_];
   for (uint32_t i = 0; i < ways_; i++) {
      const Way &w = set[i];
      if (w.line == line && (w.valid || w.pending)) /* the tag first: most ways differ */
         return &w;
   }
   return nullptr;
}

/* Put @line into way @best (null: no way free, nothing happens), noting in
 * @victim the valid line it held; shared by allocate and lookup_or_allocate. */
LineCache::Way *
LineCache::install(Way *best, uint64_t line, Victim &victim)
{
   if (!best)
      return nullptr;
   if (best->valid) {
      victim.evicted = true;
      victim.dirty = best->dirty;
      victim.line = best->line;
   }
   *best = Way{};
   best->line = line;
   best->lru = ++clock_;
   return best;
}

LineCache::Way *
LineCache::allocate(uint64_t line, Victim &victim)
{
   victim = Victim{};
   Way *set = &ways_v_[size_t(set_of(line)) * ways_];
   Way *best = nullptr;
   for (uint32_t i = 0; i < ways_; i++) {
      Way &w = set[i];
      if (w.pending)
         continue;
      if (!w.valid) {
         best = &w;
         break;
      }
      if (!best || w.lru < best->lru)
         best = &w;
   }
   return install(best, line, victim);
}

LineCache::Way *
LineCache::lookup_or_allocate(uint64_t line, Victim &victim, bool &hit)
{
   Way *set = &ways_v_[size_t(set_of(line)) * ways_];
   /* allocate()'s choice: the first way neither valid nor pending, else
    * the first least recently used valid one that is not pending */
   Way *free = nullptr, *lru = nullptr;
   for (uint32_t i = 0; i < ways_; i++) {
      Way &w = set[i];
      if (w.line == line && (w.valid || w.pending)) { /* the tag first: most ways differ */
         w.lru = ++clock_;
         hit = true;
         return &w;
      }
      if (w.pending)
         continue;
      if (!w.valid) {
         if (!free)
            free = &w;
      } else if (!lru || w.lru < lru->lru) {
         lru = &w;
      }
   }
   hit = false;
   victim = Victim{};
   Way *best = free ? free : lru;
   return install(best, line, victim);
}

void
LineCache::invalidate_all()
{
   for (Way &w : ways_v_)
      w = Way{};
}

MemClient::MemClient(Module &m, const std::string &name)
    : out(m, "out_" + name, "memory requests (address, bytes)"),
      in(m, "in_" + name, "memory responses (read data arrived)")
{
}

void
MemClient::send_one()
{
   out.push(pending_.front());
   pending_.pop_front();
   ++requests_;
}

void
MemClient::receive_one()
{
   const MemResp r = in.pop();
   Slot &s = ring_[r.tag & kRingMask];
   if (s.txn == r.tag) {
      if (s.count && --s.count == 0) {
         outstanding_--;
         completed_++;
      }
   } else if (!overflow_.empty()) {
      auto it = overflow_.find(r.tag);
      if (it != overflow_.end() && --it->second == 0) {
         overflow_.erase(it);
         outstanding_--;
         completed_++;
      }
   }
}

} // namespace vlgpu::sim
