/*
 * vlgpu cycle-mode GPU: helpers shared by the modules.
 *
 *  - Unit: a Module that can record a draw's fault and can be wedged (fault
 *    injection for the deadlock tests);
 *  - LineCache: a set-associative LRU cache of line tags (L2, SPC L1 and
 *    instruction cache, OMU cache): timing only, no data;
 *  - MemClient: a module's request/response port pair to the L2 or MC, with
 *    transactions (a set of line requests waited for as one);
 *  - ThreadGroupPool: reuses ThreadGroup storage between thread groups.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/module.h"
#include "sim/core/port.h"
#include "sim/core/ring.h"
#include "sim/core/gpu_fault.h"
#include "sim/func/shader/thread_group.h"
#include "sim/units/common/bottleneck.h"
#include "sim/units/common/draw_state.h"
#include "sim/units/common/messages.h"

namespace vlgpu::sim {

/**
 * Cycles spent in a condition (a counter of the module's statistics),
 * exact whether or not the module sleeps: the module says at every tick
 * whether the condition holds (set); the cycles it sleeps count as its last
 * tick said; sync() charges the cycles up to now (the Engine calls it,
 * through Module::sync_counters, before it reads or resets the statistics).
 */
class CycleCounter {
 public:
   explicit CycleCounter(Counter &c) : c_(c) {}
   /** From cycle @now on the condition holds (@on) or not. */
   void set(Cycle now, bool on)
   {
      if (on == on_)
         return;
      if (on)
         since_ = now;
      else
         c_ += now - since_;
      on_ = on;
   }
   void sync(Cycle now)
   {
      if (on_ && now > since_) {
         c_ += now - since_;
         since_ = now;
      }
   }

 private:
   Counter &c_;
   bool on_ = false;
   Cycle since_ = 0;
};

class Unit;

/**
 * What a module's counter struct (`<Class>Counters` in the generated
 * sim/units/unit_counters.h, one per <module> of sim/units/counters.xml)
 * registers its counters through, in the order of the file: event() is
 * Module::add_counter(), cycles() Unit::add_cycle_counter(). Only a Unit
 * makes one, for itself (Unit::counter_registrar()).
 */
class CounterRegistrar {
 public:
   /** An event counter named @name (the statistics key), described by @doc. */
   inline Counter &event(std::string name, std::string doc);
   /** A CycleCounter named @name, described by @doc. */
   inline CycleCounter &cycles(std::string name, std::string doc);
   /** The module's class in counters.xml ("Spc"): Unit::module_class(). */
   inline const char *module_class(const char *cls);

 private:
   friend class Unit;
   explicit CounterRegistrar(Unit &u) : u_(u) {}
   Unit &u_;
};

/** Base class of the cycle-mode modules. */
class Unit : public Module {
 public:
   using Module::Module;

   /** Fault injection (tests of the deadlock report): from the next tick on
    *  the module does nothing and holds whatever it has, as a hardware unit
    *  that hangs would. */
   void wedge() { wedged_ = true; }
   bool wedged() const { return wedged_; }

   /** Charge the running CycleCounters up to @now (Engine::stats() and
    *  Engine::reset_stats() call it, between cycles). */
   void sync_counters(Cycle now) override
   {
      for (CycleCounter &c : cycle_counters_)
         c.sync(now);
   }

   /**
    * What the module waits for: port_report(), then the module's own
    * state_report(), then "; WEDGED (fault injection)" once wedge() was
    * called.
    */
   std::string stall_report() const override;

   /** The module's class, as counters.xml names it ("Spc", "L2", ...: one
    *  for every SPC); the generated counter struct sets it. "" before. */
   const char *module_class() const { return module_class_; }

   /** Tick this module every cycle, never letting it sleep (tests: the
    *  sleeping rules must not change any result or statistic). */
   void never_sleep()
   {
      never_sleep_ = true;
      set_auto_sleep(false);
   }

 protected:
   /** The module's part of stall_report(): its state as "; "-led phrases
    *  ("; draw 3: splitting into sub-blocks"), "" when it has none. */
   virtual std::string state_report() const { return {}; }

   /** A flag of a bottleneck-report cause (common/bottleneck.h). */
   CauseFlag &add_cause_flag(Cause c) { return Module::add_cause_flag(uint32_t(c)); }
   /** The engine sets the flag of @busy while tick() returns Busy, and of
    *  @active (if given) while it returns anything but Idle. */
   void set_activity_causes(Cause busy) { Module::set_activity_causes(uint32_t(busy)); }
   void set_activity_causes(Cause busy, Cause active)
   {
      Module::set_activity_causes(uint32_t(busy), uint32_t(active));
   }

   /** A counter of the cycles a condition holds (see CycleCounter). */
   CycleCounter &add_cycle_counter(std::string name, std::string doc)
   {
      cycle_counters_.emplace_back(add_counter(std::move(name), std::move(doc)));
      return cycle_counters_.back();
   }

   /** For the module's counter struct: `XCounters count_{counter_registrar()};`
    *  registers the counters of X in counters.xml. */
   CounterRegistrar counter_registrar() { return CounterRegistrar(*this); }

   /** set_auto_sleep() unless never_sleep() was called. */
   void auto_sleep(bool on) { set_auto_sleep(on && !never_sleep_); }

   /**
    * Run @f (functional work for draw @d); a GpuFault it throws is recorded
    * as @d's fault at the current cycle, any other std::exception (a
    * simulator bug) as a fault of module "simulator"; std::bad_alloc
    * propagates. Returns false if @f threw.
    */
   template <typename F> bool guarded(DrawState &d, F &&f)
   {
      try {
         f();
         return true;
      } catch (const GpuFault &e) {
         d.raise(e, now(), index());
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         d.raise(GpuFault("simulator", "internal error", e.what()), now(), index());
      }
      return false;
   }

   bool wedged_ = false;
   bool never_sleep_ = false;
   std::deque<CycleCounter> cycle_counters_;

 private:
   const char *module_class_ = "";
   friend class CounterRegistrar;
};

inline Counter &
CounterRegistrar::event(std::string name, std::string doc)
{
   return u_.add_counter(std::move(name), std::move(doc));
}

inline CycleCounter &
CounterRegistrar::cycles(std::string name, std::string doc)
{
   return u_.add_cycle_counter(std::move(name), std::move(doc));
}

inline const char *
CounterRegistrar::module_class(const char *cls)
{
   u_.module_class_ = cls;
   return cls;
}

/**
 * Tags of a set-associative cache with LRU replacement, per line of
 * @line_bytes bytes (no data: the model is timing-only). Lines are named by
 * their line number (byte address / line_bytes). A line is Valid, or
 * Pending (a fill is on its way; not chosen as a victim).
 */
class LineCache {
 public:
   struct Way {
      uint64_t line = 0;
      uint64_t lru = 0;
      bool valid = false;
      bool pending = false;
      bool dirty = false;
      /** For the owner (cleared when the way is allocated): the SPC's L1
       *  keeps the transaction of a pending line's fill here. */
      uint32_t fill = 0;
   };
   /** What allocate() threw out. */
   struct Victim {
      bool evicted = false;
      bool dirty = false;
      uint64_t line = 0;
   };

   /** @size_bytes / (@ways x @line_bytes) sets (at least 1). The set of a
    *  line is line mod sets, or with @hashed the XOR of the line number's
    *  set-index-wide fields mod sets (spreads the rows of 2D surfaces, whose
    *  pitch is often a multiple of sets x line_bytes, over the sets). */
   LineCache(uint64_t size_bytes, uint32_t ways, uint32_t line_bytes, bool hashed = false);

   uint32_t line_bytes() const { return line_bytes_; }
   uint32_t sets() const { return sets_; }
   uint32_t ways() const { return ways_; }
   uint64_t line_of(uint64_t addr) const { return addr / line_bytes_; }
   /** The set @line maps to. */
   uint32_t set_of(uint64_t line) const
   {
      if (hashed_)
         line ^= (line >> set_bits_) ^ (line >> (2 * set_bits_));
      return uint32_t(pow2_ ? line & (sets_ - 1) : line % sets_);
   }

   /** The way holding @line (valid or pending), nullptr if none; a hit
    *  becomes the most recently used. */
   Way *lookup(uint64_t line);
   /** Same, without touching the LRU order. */
   const Way *probe(uint64_t line) const;
   /** Does @w (a way of this cache, or nullptr) hold @line (valid or
    *  pending)? A line is held by at most one way, so then @w is what
    *  lookup(@line) would return. */
   static bool holds(const Way *w, uint64_t line)
   {
      return w && w->line == line && (w->valid || w->pending);
   }
   /** A hit on @w found without lookup() (holds() is true): it becomes the
    *  most recently used, as lookup() does. */
   void touch(Way &w) { w.lru = ++clock_; }
   /**
    * Make room for @line in its set: the least recently used way that is
    * not pending (an invalid way first) is cleared and returned, with what
    * it held in @victim. nullptr if every way of the set is pending.
    */
   Way *allocate(uint64_t line, Victim &victim);
   /**
    * lookup(@line), and on a miss allocate(@line, @victim), in one pass over
    * the set (the same way, victim and LRU order as the two calls). @hit:
    * the line was held (a lookup hit, @victim untouched); else the returned
    * way is the allocated one, nullptr if every way of the set is pending.
    */
   Way *lookup_or_allocate(uint64_t line, Victim &victim, bool &hit);

 private:
   Way *install(Way *best, uint64_t line, Victim &victim);

 public:
   /** Every dirty line, marked clean (for write-backs), in set order. */
   template <typename F> void clean_all(F &&f)
   {
      for (Way &w : ways_v_)
         if (w.valid && w.dirty) {
            w.dirty = false;
            f(w.line);
         }
   }
   void invalidate_all();

 private:
   uint32_t line_bytes_, sets_, ways_;
   bool hashed_;
   bool pow2_ = false; /* sets_ is a power of two: mask instead of divide */
   unsigned set_bits_ = 1;
   uint64_t clock_ = 0;
   std::vector<Way> ways_v_;
};

/**
 * A module's requests to the L2 (or the MC): the ports `out_<name>` and
 * `in_<name>` and the bookkeeping of transactions. A transaction is a set of
 * requests (lines) the module waits for as one: begin(), read(), then poll
 * done(). Requests leave one per cycle (the queue's bandwidth) in order.
 */
class MemClient {
 public:
   MemClient(Module &m, const std::string &name = "mem");

   OutPort<MemReq> out;
   InPort<MemResp> in;

   /** A new transaction id (never 0). */
   uint32_t begin()
   {
      uint32_t t = ++next_txn_;
      if (!t)
         t = ++next_txn_;
      Slot &s = ring_[t & kRingMask];
      if (s.count) /* still outstanding after kRing newer ones: keep it aside */
         overflow_[s.txn] = s.count;
      s = Slot{t, 0};
      return t;
   }
   /** Queue a read of @bytes bytes at @addr as part of @txn. */
   void read(uint32_t txn, uint64_t addr, uint32_t bytes)
   {
      queue(addr, bytes, txn, false);
      add(txn);
   }
   /** Queue a posted write (no transaction; the L2 does not answer). */
   void write(uint64_t addr, uint32_t bytes) { queue(addr, bytes, 0, true); }
   /** Queue a write that is answered (the MC acknowledges writes). */
   void write_acked(uint32_t txn, uint64_t addr, uint32_t bytes)
   {
      queue(addr, bytes, txn, true);
      add(txn);
   }
   /** Every request of @txn answered (true for a transaction without any). */
   bool done(uint32_t txn) const
   {
      const Slot &s = ring_[txn & kRingMask];
      if (s.txn == txn)
         return s.count == 0;
      return overflow_.empty() || overflow_.find(txn) == overflow_.end();
   }

   /** Push the oldest queued request if the queue takes it. (The checks
    *  inline: most modules call this every tick with nothing to send.) */
   bool send()
   {
      if (pending_.empty() || !out.can_push())
         return false;
      send_one();
      return true;
   }
   /** Pop one response if there is one; true if popped. */
   bool receive()
   {
      if (!in.can_pop())
         return false;
      receive_one();
      return true;
   }
   /** Requests queued and not yet sent. */
   size_t queued() const { return pending_.size(); }
   /** Transactions with answers outstanding. */
   size_t outstanding() const { return outstanding_; }
   /** Requests sent since construction. */
   uint64_t requests() const { return requests_; }
   /** Transactions whose last answer arrived, since construction: done()
    *  of a transaction with requests turns true only when this moves. */
   uint64_t completed() const { return completed_; }
   bool idle() const { return pending_.empty() && outstanding_ == 0; }

 private:
   /* outstanding counts by transaction id: a ring indexed by the id (ids are
    * handed out in order), an overflow map for the rare old one */
   static constexpr uint32_t kRing = 4096, kRingMask = kRing - 1;
   struct Slot {
      uint32_t txn = 0, count = 0;
   };
   void send_one();
   void receive_one();
   void queue(uint64_t addr, uint32_t bytes, uint32_t tag, bool write)
   {
      MemReq &r = pending_.push(); /* field by field: no whole-struct copy */
      r.addr = addr;
      r.bytes = bytes;
      r.tag = tag;
      r.write = write;
   }
   void add(uint32_t txn)
   {
      Slot &s = ring_[txn & kRingMask];
      if (s.txn == txn) {
         if (s.count++ == 0)
            outstanding_++;
      } else if (overflow_[txn]++ == 0) {
         outstanding_++;
      }
   }
   Ring<MemReq> pending_;
   std::vector<Slot> ring_ = std::vector<Slot>(kRing);
   std::unordered_map<uint32_t, uint32_t> overflow_;
   size_t outstanding_ = 0;
   uint32_t next_txn_ = 0;
   uint64_t requests_ = 0;
   uint64_t completed_ = 0;
};

/** Reusable ThreadGroup objects (their register storage is kept). */
class ThreadGroupPool {
 public:
   std::unique_ptr<ThreadGroup> get(unsigned width, unsigned num_regs, vlg_shader_stage stage,
                                    uint32_t group_id)
   {
      if (free_.empty())
         return std::make_unique<ThreadGroup>(width, num_regs, stage, group_id);
      std::unique_ptr<ThreadGroup> tg = std::move(free_.back());
      free_.pop_back();
      tg->reset(width, num_regs, stage, group_id);
      return tg;
   }
   void put(std::unique_ptr<ThreadGroup> tg)
   {
      if (tg && free_.size() < 1024)
         free_.push_back(std::move(tg));
   }

 private:
   std::vector<std::unique_ptr<ThreadGroup>> free_;
};

/** Call @f(line number) for every line of [addr, addr + bytes). */
template <typename F>
inline void
for_each_line(uint64_t addr, uint64_t bytes, uint32_t line_bytes, F &&f)
{
   if (!bytes)
      return;
   const uint64_t first = addr / line_bytes, last = (addr + bytes - 1) / line_bytes;
   for (uint64_t l = first; l <= last; l++)
      f(l);
}

} // namespace vlgpu::sim
