/*
 * vlgpu simulator core: Module, the base class of every simulated unit
 * (CP, GTS, GE, PE, LTS, SPC, OMU, L2, MC, ...).
 *
 * Model (seed 001 §2): the simulator is built from Modules connected by
 * Queues. A module declares named input and output ports (InPort<T>,
 * OutPort<T> members, see port.h); the Engine binds them to queues by name
 * and calls tick() once per cycle while the module is awake. See
 * docs/simulator.md for a worked example.
 */
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/attribution.h"
#include "sim/core/context.h"
#include "sim/core/types.h"

namespace vlgpu::sim {

class Engine;
class PortBase;
class QueueBase;

/**
 * A module-defined event counter (e.g. "fragments_written", "l2_misses"),
 * registered by name with Module::add_counter(). Appears under the module in
 * the statistics; reset with the other statistics (per draw/frame).
 */
class Counter {
 public:
   Counter(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}

   Counter &operator+=(uint64_t n)
   {
      value_ += n;
      return *this;
   }
   Counter &operator++()
   {
      ++value_;
      return *this;
   }
   uint64_t value() const { return value_; }
   const std::string &name() const { return name_; }
   const std::string &doc() const { return doc_; }
   void reset() { value_ = 0; }

 private:
   std::string name_;
   std::string doc_;
   uint64_t value_ = 0;
};

/** Raw per-module cycle accounting (see Stats for the snapshot form). */
struct ModuleStats {
   /** Number of times tick() was called. */
   uint64_t ticks = 0;
   /** Cycles per Activity (index = Activity value). Sleeping cycles count as
    *  the activity the module went to sleep with. */
   uint64_t cycles[kActivityCount] = {};
};

/**
 * Base class of every simulated unit.
 *
 * Subclasses implement tick(); ports are data members constructed with
 * `*this` and a port name. A module must communicate with other modules only
 * through its ports: that is what makes results independent of tick order.
 *
 * Sleeping (idle skipping): by default (auto-sleep), a module whose tick()
 * returns anything but Activity::Busy is put to sleep and not ticked again
 * until (a) an entry becomes visible on one of its input queues, (b) a slot
 * is freed in one of its output queues that was full, or (c) the cycle set
 * with wake_at() arrives. So a non-Busy return value promises: "ticking me
 * again with unchanged queues would do nothing until my alarm". A module that
 * waits on an internal latency either returns Busy every cycle or sets
 * wake_at(ready_cycle).
 */
class Module {
 public:
   /** @param name unique, made of [A-Za-z0-9_.] (dots for hierarchy:
    *  "gpc0.spc3"); checked by Engine::add (ConfigError). */
   explicit Module(std::string name);
   virtual ~Module();
   Module(const Module &) = delete;
   Module &operator=(const Module &) = delete;

   /**
    * Simulate one cycle. `now` is the current cycle. Read inputs with
    * InPort::can_pop()/peek()/pop(), write outputs with
    * OutPort::can_push()/push(); each queue allows at most `bandwidth`
    * (default 1) reads and writes per cycle. Entries pushed now become
    * visible to the reader at now + latency (>= 1).
    * @return what the module did this cycle (statistics, sleeping).
    */
   virtual Activity tick(Cycle now) = 0;

   /**
    * Human-readable description of what the module is waiting for, used in
    * deadlock reports, fault reports and stalled/starved trace spans. The
    * default lists the input ports with no visible entry and the full output
    * ports (port_report()); override to add internal state ("draw 3: waiting
    * for the last token from 2 of 4 SPCs"), typically
    * `return port_report() + "; " + ...`.
    */
   virtual std::string stall_report() const;

   /**
    * True when the module holds no unfinished work. The engine's run stops
    * with StopReason::Idle when every module is asleep with no wake-up
    * pending, every queue is empty and every module is drained(); if some
    * module is not drained at that point, it is a deadlock. Default: true.
    */
   virtual bool drained() const { return true; }

   /**
    * Bring module-defined counters up to cycle `now` before the engine reads
    * or resets the statistics (Engine::stats(), Engine::reset_stats()): a
    * module that counts cycles lazily while it sleeps (e.g. "cycles a
    * request waited") charges the cycles up to `now` here. Default: nothing.
    */
   virtual void sync_counters(Cycle now) {}

   /** Called by Engine::finalize() after every port is bound; may throw
    *  ConfigError (e.g. a queue too shallow for the module's protocol). */
   virtual void on_finalize() {}

   const std::string &name() const { return name_; }
   /** Registration index in the engine (tick order, trace tid - 1). */
   uint32_t index() const { return index_; }
   const std::vector<PortBase *> &ports() const { return ports_; }
   /** The port with this local name ("out_draw"), or nullptr. */
   PortBase *find_port(std::string_view port_name) const;
   const std::deque<Counter> &counters() const { return counters_; }
   /** Raw activity counters since the last statistics reset; sleeping
    *  cycles are added when the module wakes (use Engine::stats()). */
   const ModuleStats &raw_stats() const { return stats_; }
   bool asleep() const { return asleep_; }
   /** Activity returned by the last tick, and the cycle since which the
    *  module has reported it. */
   Activity last_activity() const { return last_activity_; }
   Cycle last_activity_since() const { return last_activity_since_; }
   /** The engine this module was added to (nullptr before Engine::add). */
   Engine *engine() const { return engine_; }

   /**
    * "inputs with no visible entry: in_a, in_b (next at cycle 107);
    * full outputs: out_c (4/4)" — or "no input waiting, no output full".
    */
   std::string port_report() const;

 protected:
   /** Register a named counter; the reference stays valid for the module's
    *  lifetime. Names must be unique within the module (SimError). */
   Counter &add_counter(std::string name, std::string doc = {});

   /** A flag of cause @cause of the engine's CycleAttribution (see
    *  attribution.h); the reference stays valid for the module's lifetime.
    *  Without an attribution (Engine::set_attribution) setting it does
    *  nothing but remember. */
   CauseFlag &add_cause_flag(uint32_t cause) { return cause_flags_.emplace_back(cause); }

   /**
    * Let the engine set flags of this module from tick()'s result: the
    * flag of @busy_cause holds while the module reports Busy, the one of
    * @active_cause while it reports anything but Idle (kNoCause: none).
    * Sleeping cycles keep what the last tick said, so a module using them
    * must not sleep_as() an activity other than the one its tick returned.
    */
   static constexpr uint32_t kNoCause = ~0u;
   void set_activity_causes(uint32_t busy_cause, uint32_t active_cause = kNoCause)
   {
      busy_flag_ = busy_cause == kNoCause ? nullptr : &add_cause_flag(busy_cause);
      active_flag_ = active_cause == kNoCause ? nullptr : &add_cause_flag(active_cause);
   }

   /** The current cycle (same as tick()'s argument during a tick). */
   Cycle now() const { return ctx_ ? ctx_->now : 0; }

   /**
    * Ask to be ticked at cycle `c` (> now; earlier values mean now + 1)
    * even if asleep. Only the earliest pending alarm is kept, and any tick
    * at or after it consumes it: re-arm if you still need it.
    */
   void wake_at(Cycle c)
   {
      /* inline: the SPCs re-arm their alarm on most ticks */
      const Cycle n = now();
      if (c <= n)
         c = n + 1;
      if (c < alarm_)
         alarm_ = c;
      if (asleep_)
         notify_engine(c);
   }

   /**
    * Go to sleep after this tick, whatever it returns, and do not tick
    * before cycle `c`: queue events in between do not wake the module (it
    * sees their effects at `c`). With kNever: sleep until a queue event.
    * A module that returns Busy and sleeps (e.g. for a fixed 200-cycle
    * memory latency) counts as busy, and as progress, while it sleeps.
    */
   void sleep_until(Cycle c = kNever);

   /**
    * Go to sleep after this tick, whatever it returns, as auto-sleep does
    * after a tick that returns @a: woken by its queues and its alarm, and
    * the cycles it sleeps count as @a (this tick counts as what tick()
    * returns). For a module that knows at the end of a busy tick that its
    * next ticks would do nothing and return @a until a queue event or its
    * alarm: the tick after a busy one is not made just to say so.
    */
   void sleep_as(Activity a)
   {
      force_sleep_ = true;
      sleep_as_set_ = true;
      sleep_as_ = a;
   }

   /** Turn auto-sleep off to be ticked every cycle (default: on). */
   void set_auto_sleep(bool on) { auto_sleep_ = on; }

   /** HALT: stop the engine's run() at the end of the current cycle. */
   void request_stop();

   /** True while a trace is written: guard costly trace-only work. */
   bool tracing() const { return ctx_ && ctx_->tracer; }

   /** Instant event on this module's trace track (no cost when off). */
   void trace_instant(std::string_view event_name) const
   {
      if (VLG_UNLIKELY(tracing()))
         trace_instant_slow(event_name);
   }

 private:
   friend class Engine;
   friend class PortBase;
   friend class QueueBase;

   void register_port(PortBase *p);
   void trace_instant_slow(std::string_view event_name) const;

   std::string name_;
   std::vector<PortBase *> ports_;
   std::deque<Counter> counters_;
   std::deque<CauseFlag> cause_flags_;
   CauseFlag *busy_flag_ = nullptr;   /* set_activity_causes() */
   CauseFlag *active_flag_ = nullptr; /* set_activity_causes() */

   /* Engine-managed scheduling state. */
   /** wake_at() of a sleeping module: tell the engine. */
   void notify_engine(Cycle c);
   Engine *engine_ = nullptr;
   SimContext *ctx_ = nullptr;
   uint32_t index_ = 0;
   bool asleep_ = false;
   bool auto_sleep_ = true;
   bool force_sleep_ = false;
   bool hard_sleep_ = false;   /* asleep via sleep_until(c): ignore queues */
   bool sleep_as_set_ = false; /* sleep_as() this tick */
   Activity sleep_as_ = Activity::Idle;
   Cycle hold_until_ = kNever; /* sleep_until() argument for this tick */
   Activity sleep_activity_ = Activity::Idle;
   Activity last_activity_ = Activity::Idle;
   Cycle last_activity_since_ = 0;
   Cycle sleep_from_ = 0;      /* first cycle not ticked because asleep */
   Cycle wake_cycle_ = kNever; /* scheduled timer while asleep */
   Cycle alarm_ = kNever;      /* wake_at() */
   std::vector<QueueBase *> in_queues_;
   std::vector<QueueBase *> out_queues_;
   ModuleStats stats_;
};

} // namespace vlgpu::sim
