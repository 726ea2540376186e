/*
 * vlgpu simulator core: Engine — assembles modules and queues by name and
 * runs cycles.
 *
 *    Engine eng(config);
 *    auto &cp = eng.add<Cp>("cp", ...);        // modules, in tick order
 *    auto &gts = eng.add<Gts>("gts", ...);
 *    eng.connect("cp.out_draw", "gts.in_draw"); // a queue, sized by config
 *    eng.finalize();                            // every port bound?
 *    RunResult r = eng.run(1'000'000);          // until idle/stop/limit/deadlock
 *    std::cout << eng.stats().to_text();
 *
 * Scheduling: modules are ticked in registration order, but only while
 * awake; sleeping modules cost nothing (see Module). When every module
 * sleeps, the clock jumps to the earliest scheduled wake-up (fast-forward).
 * Results never depend on tick order because queue latency is >= 1 and a
 * popped slot is reusable only from the next cycle.
 */
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/context.h"
#include "sim/core/error.h"
#include "sim/core/module.h"
#include "sim/core/port.h"
#include "sim/core/queue.h"
#include "sim/core/stats.h"
#include "sim/core/trace.h"

namespace vlgpu::sim {

enum class StopReason {
   /** Every module asleep with no wake-up pending, every queue empty, every
    *  module drained(): the GPU has nothing left to do. */
   Idle,
   /** Engine::request_stop() / Module::request_stop() (HALT) or the
    *  run_until() condition became true. */
   Stopped,
   /** The cycle budget of run() was used up. */
   CycleLimit,
   /** No progress for deadlock.window_cycles cycles, or every module asleep
    *  forever with work left. RunResult::deadlock holds the report. */
   Deadlock,
};

const char *stop_reason_name(StopReason r);

/** State of the whole GPU when a deadlock was detected. */
struct DeadlockReport {
   struct ModuleState {
      std::string name;
      bool asleep = false;
      Activity activity = Activity::Idle; /**< last tick's result */
      Cycle since = 0;                    /**< reported since this cycle */
      bool drained = true;
      std::string report; /**< stall_report() */
   };
   struct QueueState {
      std::string name;
      uint32_t occupancy = 0, capacity = 0, visible = 0;
      Cycle head_ready = kNever; /**< oldest entry readable since */
   };

   Cycle cycle = 0;         /**< detection cycle (Engine::now()) */
   Cycle last_progress = 0; /**< last cycle of this run with progress, kNever if none */
   std::string cause;
   std::vector<ModuleState> modules; /**< every module */
   std::vector<QueueState> queues;   /**< every non-empty queue */

   const ModuleState *module(std::string_view name) const;
   /** Multi-line text: cause, one line per module, one per queue. */
   std::string to_string() const;
};

struct RunResult {
   StopReason reason = StopReason::Idle;
   Cycle begin = 0; /**< first cycle of this run */
   Cycle end = 0;   /**< Engine::now() after the run: cycles [begin, end) ran */
   std::optional<DeadlockReport> deadlock;

   Cycle cycles() const { return end - begin; }
};

class Engine {
 public:
   /** Queue sizes and the deadlock window come from `config`. */
   explicit Engine(const Config &config = Config{});
   ~Engine();
   Engine(const Engine &) = delete;
   Engine &operator=(const Engine &) = delete;

   /* ---- assembly ---- */

   /** Construct and add a module: `M(args...)`. Tick order = add order.
    *  @throws ConfigError for a duplicate or malformed module or port name,
    *  or after finalize(). */
   template <class M, class... Args> M &add(Args &&...args)
   {
      auto m = std::make_unique<M>(std::forward<Args>(args)...);
      M &ref = *m;
      add_module(std::move(m));
      return ref;
   }
   Module &add_module(std::unique_ptr<Module> m);

   /**
    * Bind output port `from` ("module.port") to input port `to` with a new
    * queue named "from->to". Its parameters are `base` (or
    * queues.default.* when omitted) with any matching queues.<name> override
    * of the configuration applied.
    * @throws ConfigError naming the port: unknown module/port (with "did you
    * mean"), wrong direction, already bound, element type mismatch, invalid
    * queue parameters.
    */
   QueueBase &connect(std::string_view from, std::string_view to);
   QueueBase &connect(std::string_view from, std::string_view to, const QueueParams &base);

   /**
    * Check the assembly: every port bound (all unbound ports listed in one
    * ConfigError), every queues.<name> override of the config used; then
    * call Module::on_finalize(). Called by run() if needed.
    */
   void finalize();
   /** Attribute every cycle to a cause (attribution.h): the flags of every
    *  module are bound to @a at finalize(), and stats() reports its totals
    *  in Stats::causes. Call before finalize(); @a must outlive the engine.
    *  Without it Stats::causes is empty. */
   void set_attribution(CycleAttribution *a) { attribution_ = a; }
   bool finalized() const { return finalized_; }

   /* ---- running ---- */

   /** Simulate at most `max_cycles` cycles; stops early when idle, stopped
    *  or deadlocked (see StopReason). */
   RunResult run(Cycle max_cycles = kNever);
   /** Same, and also stops when `done()` (checked after every simulated
    *  cycle and before the first) returns true. */
   RunResult run_until(const std::function<bool()> &done, Cycle max_cycles = kNever);
   /** HALT: make run() return StopReason::Stopped after the current cycle. */
   void request_stop() { stop_requested_ = true; }
   /** Wake a sleeping module: now if between runs, else next cycle (for
    *  the driver after it puts new work in VRAM). */
   void wake(Module &m);

   /** Next cycle to simulate (between runs) or the current one (in tick). */
   Cycle now() const { return ctx_.now; }
   const Config &config() const { return config_; }
   SimContext &context() { return ctx_; }

   /** Strict queue checks (throw) vs. counting; see SimContext::strict. */
   void set_strict(bool strict) { ctx_.strict = strict; }
   /** Override deadlock.window_cycles (0 = off). */
   void set_deadlock_window(Cycle cycles) { deadlock_window_ = cycles; }

   const std::vector<Module *> &modules() const { return module_ptrs_; }
   const std::vector<QueueBase *> &queues() const { return queue_ptrs_; }
   /** By name; nullptr if absent. */
   Module *module(std::string_view name) const;
   QueueBase *queue(std::string_view name) const;
   /** Total tick() calls since construction. */
   uint64_t total_ticks() const { return total_ticks_; }

   /* ---- statistics, reports, trace ---- */

   /** Statistics since the last reset_stats() (or construction) up to now. */
   Stats stats() const;
   /** Start a new statistics period at now() (e.g. per draw or frame). */
   void reset_stats();
   /** The deadlock report for the current state (also usable as a fault
    *  report: every module's stall_report and every non-empty queue). */
   DeadlockReport make_report(std::string cause) const;

   /** Start writing a trace to `path` (see trace.h); finalizes the assembly
    *  first. @throws ConfigError if the file cannot be created. */
   void start_trace(const std::string &path, const TraceOptions &opts = {});
   /** Finish and close the trace file (also done by the destructor). */
   void stop_trace();
   /** Make the trace file a complete trace up to now and go on tracing
    *  (Tracer::checkpoint): the owner calls it when the simulated GPU goes
    *  idle (CycleGpu: at the end of every submit), so a process that exits
    *  without destroying the GPU still leaves a valid file. */
   void checkpoint_trace();
   bool tracing() const { return tracer_ != nullptr; }
   /** The trace being written, nullptr when none: for owners that add
    *  their own events (CycleGpu: the render-stages spans). */
   Tracer *tracer() { return tracer_.get(); }

 private:
   /** trace_flush() every queue; false when no trace is being written. */
   bool flush_queue_traces();
   friend class Module;
   friend class QueueBase;

   struct Timer {
      Cycle cycle;
      uint32_t module;
      bool operator>(const Timer &o) const
      {
         return cycle != o.cycle ? cycle > o.cycle : module > o.module;
      }
   };

   PortBase &resolve(std::string_view endpoint, PortDir want) const;
   RunResult run_loop(const std::function<bool()> *done, Cycle max_cycles);
   void tick_awake(Cycle now);
   void put_to_sleep(Module &m, Activity a, Cycle now);
   void wake_now(Module &m, Cycle now);
   /** A sleeping module must be ticked at `c` (alarm, external wake). */
   void notify(Module &m, Cycle c);
   /** Same, from a queue event: ignored during sleep_until(c). */
   void notify_queue(Module &m, Cycle c)
   {
      if (!m.hard_sleep_)
         notify(m, c);
   }
   void wake_due(Cycle now);
   /** Earliest valid timer (stale ones discarded), kNever if none. */
   Cycle next_timer();
   bool all_done() const;

   Config config_;
   SimContext ctx_;
   Cycle deadlock_window_;
   std::vector<std::unique_ptr<Module>> modules_;
   std::vector<Module *> module_ptrs_;
   std::unordered_map<std::string, Module *> module_by_name_;
   std::vector<std::unique_ptr<QueueBase>> queues_;
   std::vector<QueueBase *> queue_ptrs_;
   std::vector<std::string> used_overrides_;
   bool finalized_ = false;
   CycleAttribution *attribution_ = nullptr;
   bool in_run_ = false;
   bool stop_requested_ = false;

   std::vector<uint64_t> awake_; /* bit per module index */
   uint32_t awake_count_ = 0;
   uint32_t busy_sleepers_ = 0;
   std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
   /* Host speed (same wake-ups as the heap alone): a wake-up 1 to
    * kRingCycles - 1 cycles ahead is a bit in ring_[cycle % kRingCycles]
    * (bit = module index; engines of at most 64 modules), later ones go to
    * timers_. ring_used_ has bit s set when ring_[s] is not 0. Every cycle
    * is either run (wake_ring) or jumped over with no entry in its slot, so
    * a slot only ever holds wake-ups of one cycle. */
   static constexpr unsigned kRingCycles = 64;
   uint64_t ring_[kRingCycles] = {};
   uint64_t ring_used_ = 0;
   bool ring_ok_ = false; /* at most 64 modules (set by finalize) */
   void wake_ring(Cycle now);
   /** Earliest valid wake-up in the ring (stale slots cleared), kNever if none. */
   Cycle next_ring();
   uint64_t total_ticks_ = 0;
   Cycle stats_begin_ = 0;
   Cycle run_begin_ = 0;
   std::unique_ptr<Tracer> tracer_;
};

} // namespace vlgpu::sim
