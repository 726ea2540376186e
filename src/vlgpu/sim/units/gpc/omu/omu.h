/*
 * vlgpu cycle-mode GPU: the OMU (output merge unit of a GPC, seed 001 §3.2
 * and fig. 2). docs/simulator-modules.md "OMU".
 *
 * Two stages, each processing omu.quads_per_cycle quads per cycle, with the
 * functional OMU calls (omu.h), in exactly the order the functional draw
 * makes them:
 *  - early stage: the PE's rasterisation runs, in order. For a draw with
 *    early depth/stencil (OmuState::early_z: the FS neither discards nor
 *    writes depth, no alpha test) it tests each quad (omu_depth_stencil, or
 *    omu_depth_z16_run for softpipe's Z16 path) before the FS; the runs go
 *    back to the PE with the surviving lanes. Other draws' runs pass
 *    through. A draw's early tests wait until the late stage has finished
 *    every earlier draw whose late stage touches depth/stencil (late tests,
 *    a depth/stencil CLEAR), so depth/stencil see the functional order.
 *  - late stage: FS thread groups arrive from the SPCs in any order and are
 *    retired in the PE's sequence order (the reorder buffer): per quad,
 *    killed lanes, alpha test, late depth/stencil, blend and colour write
 *    (omu_write_color). A draw ends at the PE's DrawMark; a CLEAR draw
 *    clears there (omu_clear, omu.clear_bytes_per_cycle), then the OMU
 *    writes its dirty cache lines back to the L2 and reports the draw's
 *    `last` token to the CP. The reorder buffer holds omu.reorder_groups
 *    groups: the PE sends no more FS groups than that beyond the oldest one
 *    not yet retired (credits on out_credit), so a group the OMU waits for
 *    can always reach it.
 * Memory: a write-back colour/depth/stencil cache (omu.cache_bytes,
 * omu.cache_ways, lines of l2.line_bytes). A group's or run's lines are
 * looked up when it arrives (prefetch): lines it must read (depth/stencil,
 * blended or colour-masked targets) are requested from the L2 and the quads
 * wait for them; lines it only overwrites are allocated without a read.
 * Evicted dirty lines are posted writes to the L2.
 *
 * Ports: in_early / out_early (QuadRun from/to the PE), in_mark (DrawMark),
 * in_fs<k> (FS groups from SPC k), out_credit (Credit: retired groups, to
 * the PE), out_last, out_mem/in_mem (L2).
 * Counters: early_quads, late_quads, fs_groups, reordered_groups, cache_hits, cache_misses,
 * cache_writebacks, zs_interlock_cycles, clear_bytes.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/core/config.h"

namespace vlgpu::sim {

class Omu final : public Unit {
 public:
   Omu(std::string name, const Config &p, ThreadGroupPool &pool);

   InPort<QuadRun> in_early{*this, "in_early", "rasterisation runs from the PE"};
   OutPort<QuadRun> out_early{*this, "out_early", "runs after the early tests, to the PE"};
   InPort<DrawMark> in_mark{*this, "in_mark", "draw boundaries from the PE"};
   std::vector<std::unique_ptr<InPort<std::unique_ptr<FsGroup>>>> in_fs; /**< from SPC k */
   OutPort<Credit> out_credit{*this, "out_credit",
                              "reorder-buffer entries freed (FS groups retired), to the PE"};
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};
   MemClient mem{*this, "mem"};

   Activity tick(Cycle now) override;
   bool drained() const override;
   std::string stall_report() const override;

 private:
   struct RobEntry {
      std::unique_ptr<FsGroup> g;
      uint32_t txn = 0;
   };
   /** Fills in flight: the lines to mark valid when @txn is answered. */
   struct Pending {
      uint32_t txn;
      std::vector<uint64_t> fills;
   };
   /** touch_*'s @txn value for "mark the lines written" (no request). */
   static constexpr uint32_t kMark = ~0u;

   /** A surface a group or run touches: its lines are read before they are
    *  written (@read), the written lines become dirty (@dirty). */
   struct TouchSurface {
      uint64_t address;
      uint32_t pitch, bpp;
      bool read, dirty;
   };
   /** At most: depth/stencil and every colour buffer. */
   static constexpr unsigned kTouchSurfaces = 1 + kMaxColorBufs;
   /** The lines [first, last] of one row of a quad in one surface. */
   struct LineSpan {
      uint64_t first, last;
      bool operator==(const LineSpan &o) const { return first == o.first && last == o.last; }
   };
   /**
    * Look up the lines of the @n quads @quad(0..n-1) (const Quad &) of the
    * surfaces @s[0..@ns), quad by quad, each quad's surfaces in order, each
    * surface's rows 0 and 1: lines to read are requested in @txn (allocated
    * when first needed) and listed in @fills; @txn == kMark: the quads were
    * just merged, their lines are written (no read, no counting).
    */
   template <typename QuadAt>
   void touch_quads(const TouchSurface *s, unsigned ns, unsigned n, QuadAt &&quad, uint32_t &txn,
                    std::vector<uint64_t> &fills);
   /** One line of touch_quads; true if touching it again right now would
    *  change nothing but the hit count (it hit, or it is a write-only mark
    *  of a line the cache does not hold). */
   bool touch_line(uint64_t line, bool read, bool dirty, bool mark, uint32_t &txn,
                   std::vector<uint64_t> &fills);
   void touch_group(const FsGroup &g, uint32_t &txn, std::vector<uint64_t> &fills, bool dirty);
   void touch_run(const QuadRun &r, uint32_t &txn, std::vector<uint64_t> &fills, bool dirty);
   void filled(const std::vector<uint64_t> &fills);
   void complete_fills();
   bool early_stage(Cycle now, bool &blocked);
   bool late_stage(Cycle now, bool &blocked);
   void retire_group(FsGroup &g);

   /** The way of @line (a hit: the most recently used) or nullptr: as
    *  LineCache::lookup, but first through memo_. */
   LineCache::Way *lookup(uint64_t line)
   {
      LineCache::Way *&m = memo_[memo_index(line)];
      if (LineCache::holds(m, line)) {
         cache_.touch(*m);
         return m;
      }
      LineCache::Way *w = cache_.lookup(line);
      if (w)
         m = w;
      return w;
   }
   static unsigned memo_index(uint64_t line)
   {
      return unsigned(line ^ (line >> 3) ^ (line >> 7)) & (kMemo - 1);
   }

   Config p_;
   ThreadGroupPool &pool_;
   uint32_t line_bytes_;
   int line_shift_ = -1; /* log2(line_bytes_) if a power of two */
   LineCache cache_;
   /** Ways of recently touched lines, direct-mapped by a hash of the line
    *  number: the quads of a group or run mostly touch the lines the quads
    *  before them touched. An entry is only used while it still holds its
    *  line (LineCache::holds), so lookups give what LineCache::lookup gives
    *  (same hits, misses and LRU order): a host-speed shortcut only. */
   static constexpr unsigned kMemo = 16;
   LineCache::Way *memo_[kMemo] = {};

   /* early stage: runs in order, their lines prefetched on arrival */
   struct EarlyEntry {
      QuadRun run;
      bool test = false, tested = false;
      uint32_t txn = 0;
   };
   std::vector<Pending> pending_;
   /** Cleared fill lists of answered transactions, reused (no allocation
    *  per run or group). */
   std::vector<std::vector<uint64_t>> spare_fills_;
   std::vector<uint64_t> take_fills()
   {
      if (spare_fills_.empty())
         return {};
      std::vector<uint64_t> v = std::move(spare_fills_.back());
      spare_fills_.pop_back();
      return v;
   }
   /** Runs the early stage holds (prefetching) at once. */
   static constexpr size_t kEarlyDepth = 16;
   std::deque<EarlyEntry> early_q_;
   Cycle early_until_ = 0;
   DrawRef early_draw_; /* the draw the early stage saw last (held: no address reuse) */
   std::deque<const DrawState *> late_zs_; /* draws whose late stage touches depth/stencil */

   /* late stage */
   /** The reorder buffer: groups by sequence number in a ring of a power
    *  of two >= omu.reorder_groups entries (slot seq & mask; the PE's
    *  credits keep the groups in flight within that many of next_seq_; a
    *  group that would land on an occupied slot doubles the ring). */
   std::vector<RobEntry> rob_;
   uint64_t rob_mask_ = 0;
   size_t rob_count_ = 0;
   RobEntry *rob_find(uint64_t seq)
   {
      RobEntry &e = rob_[seq & rob_mask_];
      return e.g && e.g->seq == seq ? &e : nullptr;
   }
   void rob_insert(RobEntry e);
   std::deque<DrawMark> marks_;
   uint64_t next_seq_ = 0;
   /** Every group below this sequence number has arrived (>= next_seq_):
    *  a group arriving above it overtook an older one (reordered_groups). */
   uint64_t arrived_upto_ = 0;
   Cycle late_until_ = 0;
   bool ending_ = false; /* the front mark's groups are done: clear, write back, report */
   uint32_t credits_ = 0; /* retired groups not yet credited to the PE */

   Counter &early_quads_ = add_counter("early_quads", "quads through the early tests");
   Counter &late_quads_ = add_counter("late_quads", "quads merged by the late stage");
   Counter &groups_ = add_counter("fs_groups", "FS thread groups retired");
   Counter &reordered_ = add_counter("reordered_groups", "FS groups that arrived before an older "
                                                         "one (the reorder buffer put them back "
                                                         "in order)");
   Counter &hits_ = add_counter("cache_hits", "cache line hits");
   Counter &misses_ = add_counter("cache_misses", "cache line misses");
   Counter &writebacks_ = add_counter("cache_writebacks", "dirty lines written back to the L2");
   CycleCounter &interlock_ = add_cycle_counter(
      "zs_interlock_cycles", "cycles early tests waited for an earlier draw's late depth/stencil");
   bool w_interlock_ = false;
   Counter &clear_bytes_ = add_counter("clear_bytes", "bytes written by CLEAR draws");
};

} // namespace vlgpu::sim
