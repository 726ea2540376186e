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
 *    (omu_write_color). A draw ends at the PE's DrawMark; a CLEAR or
 *    RESOLVE draw runs there (omu_clear / omu_resolve_draw: VRAM at once)
 *    and its lines go through the clear engine (below), then the OMU
 *    writes its dirty cache lines back to the L2 and reports the draw's
 *    `last` token to the CP.
 *  - clear engine: the lines a CLEAR writes (every selected buffer, rows of
 *    the clipped rect, each line once), or a RESOLVE's destination lines,
 *    one step per line at omu.clear_bytes_per_cycle bytes per cycle (the
 *    bytes of the lines read and written): a step first reads what it
 *    needs -- the line itself for a depth-only or stencil-only clear of a
 *    combined depth/stencil format (the other half stays), the 4-sample
 *    source lines of the line's pixels for a resolve -- through the cache
 *    (misses go to the L2), at most omu.clear_lines_in_flight steps in
 *    flight; then, in order, the line is written into the cache without a
 *    read (write-validate; a partial line at the rect's edge is a
 *    byte-masked write, as for draws). Evicted dirty lines are posted
 *    writes to the L2, which writes them back to the MC on eviction or at a
 *    flush: a large clear is bounded by the clear rate, the one line per
 *    cycle the OMU sends to the L2, and the MC bandwidth. The reorder buffer holds omu.reorder_groups
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
 * Counters: sim/units/counters.xml, <module class="Omu">.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"
#include "sim/core/ring.h"

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
   void on_finalize() override;

 private:
   std::string state_report() const override;

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
      uint32_t layer_stride; /**< a quad of layer L touches address + L * layer_stride */
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

   /* the clear engine (CLEAR and RESOLVE draws) */
   /** A rectangle of lines to write: @rows rows of @row_bytes bytes, row r
    *  at @address + r x @pitch. @rmw: each line is read before it is
    *  written. RESOLVE (@src_pitch != 0): pixel x of row r (@bpp bytes)
    *  needs the 4 samples at @src_address + r x @src_pitch + 4 x x x @bpp. */
   struct ClearSpan {
      uint64_t address, pitch, row_bytes;
      uint32_t rows;
      bool rmw;
      uint64_t src_address, src_pitch;
      uint32_t bpp;
   };
   /** A line waiting for its reads (@txn, 0: none) before it is written. */
   struct ClearStep {
      uint64_t line;
      uint32_t txn;
   };
   void clear_plan(const DrawState &d, Cycle now);
   bool clear_next(uint64_t &line, const ClearSpan *&span, uint32_t &row);
   unsigned clear_reads(uint64_t line, const ClearSpan &sp, uint32_t row, uint32_t &txn,
                        std::vector<uint64_t> &fills);
   bool clear_engine(Cycle now);
   /** The clear engine writes @line (touch_line(@line, write, dirty, mark)
    *  without its generic cases). */
   void clear_write(uint64_t line);
   /** After a busy tick during a clear: true if the ticks from now + 1 on
    *  would do nothing and return @a until a queue event wakes the OMU. */
   bool clear_waits(Cycle now, Activity &a) const;

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
   /** The runs the early stage holds, oldest first: a ring of kEarlyDepth
    *  entries (host speed: std::deque's size() and front() cost a few
    *  loads and a division each, on every tick). Entries stay constructed;
    *  a popped one holds only what was moved out of it. */
   class EarlyQueue {
    public:
      bool empty() const { return size_ == 0; }
      size_t size() const { return size_; }
      EarlyEntry &front() { return e_[head_]; }
      const EarlyEntry &front() const { return e_[head_]; }
      /** The slot of a new newest entry (size() < kEarlyDepth), reset. */
      EarlyEntry &push()
      {
         EarlyEntry &e = e_[(head_ + size_++) % kEarlyDepth];
         e.test = e.tested = false;
         e.txn = 0;
         return e;
      }
      void pop_front()
      {
         head_ = (head_ + 1) % kEarlyDepth;
         size_--;
      }

    private:
      EarlyEntry e_[kEarlyDepth];
      size_t head_ = 0, size_ = 0;
   };
   EarlyQueue early_q_;
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
   /** Host speed: bit k set while in_fs[k]'s queue is not empty (kept by
    *  the queues, QueueBase::set_nonempty_mask): most ticks no group
    *  arrives, and one word tells so. */
   uint64_t fs_nonempty_ = 0;
   std::deque<DrawMark> marks_;
   uint64_t next_seq_ = 0;
   /** Every group below this sequence number has arrived (>= next_seq_):
    *  a group arriving above it overtook an older one (reordered_groups). */
   uint64_t arrived_upto_ = 0;
   Cycle late_until_ = 0;
   bool ending_ = false; /* the front mark's groups are done: clear, write back, report */
   bool clearing_ = false; /* the clear engine works on the front mark's draw */
   bool cleaned_ = false;  /* the front mark's draw wrote its dirty lines back */
   std::vector<ClearSpan> clear_spans_;
   size_t clear_span_ = 0;   /* cursor: span, row, next line of the row */
   uint32_t clear_row_ = 0;
   bool clear_row_open_ = false;
   uint64_t clear_line_ = 0, clear_row_last_ = 0, clear_prev_ = ~uint64_t(0);
   Ring<ClearStep> clear_steps_; /* in flight, in order */
   Cycle clear_start_ = 0;
   uint64_t clear_moved_ = 0; /* bytes of the steps issued (the rate) */
   Cycle clear_due_ = 0;      /* clear_start_ + clear_moved_ / rate: next step not before */
   unsigned clear_per_tick_ = 1; /* steps issued per cycle at most */
   uint32_t credits_ = 0; /* retired groups not yet credited to the PE */
   static constexpr size_t kClearQueued = 2; /* clear engine: requests waiting to leave, at most */

   /** Statistics counters (counters.xml; count_.<key>). */
   OmuCounters count_{counter_registrar()};
   bool w_interlock_ = false;
   /* bottleneck report (common/bottleneck.h), decided per tick */
   bool w_backlog_ = false; /* a stage processes quads, its next work waits */
   bool w_lines_ = false;   /* a stage's next run/group waits for its lines */
   CauseFlag &quads_bound_ = add_cause_flag(Cause::OmuQuads);
   CauseFlag &lines_wait_ = add_cause_flag(Cause::OmuMemory);
   CauseFlag &clear_bound_ = add_cause_flag(Cause::Clear);
};

} // namespace vlgpu::sim
