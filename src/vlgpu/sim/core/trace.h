/*
 * vlgpu simulator core: trace writer, Chrome/Perfetto "Trace Event Format"
 * JSON ({"traceEvents": [...]}), viewable in https://ui.perfetto.dev or
 * chrome://tracing.
 *
 * Time unit: the format's "ts"/"dur" are microseconds; we write simulated
 * cycles there, so 1 us in the viewer = 1 cycle.
 *
 * Content:
 *  - pid 1 "vlgpu modules": one thread per module (tid = index + 1, named by
 *    "M" thread_name events, sorted by registration order). "X" events named
 *    "busy", "stalled", "starved" cover maximal runs of cycles with the same
 *    activity (idle is not drawn); stalled/starved spans carry the module's
 *    stall_report() at the start of the span in args.waiting_for.
 *    Module::trace_instant() adds "i" events.
 *  - pid 2 "vlgpu queues": one "C" counter per queue, named after the queue,
 *    args.occupancy = entries at the end of the cycle ts, written when it
 *    changes.
 *  - pid 3 "vlgpu GPU render stages": one "X" span per GPU command (DRAW,
 *    DISPATCH, COPY) from command(), on lanes (threads "commands N") so
 *    that overlapping commands never share a thread.
 *  - pid 4 "vlgpu module counters": from module_counters(), one "C" event
 *    per module with counters, args = every counter's total since the
 *    engine started (one counter track per counter in the viewer).
 *
 * Cost when off: the engine and queues test one pointer (SimContext::tracer)
 * — a single predictable branch per tick and per queue cycle roll-over.
 */
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/module.h"
#include "sim/core/types.h"

namespace vlgpu::sim {

class QueueBase;
struct Stats;

struct TraceOptions {
   /** Put stall_report() in stalled/starved spans (costs a string per span). */
   bool stall_reasons = true;
   /** Only cycles [window_begin, window_end) are written (spans are cut at
    *  the window's edges; a queue's occupancy at window_begin is written
    *  at window_begin): a short trace of a long run. Default: everything. */
   Cycle window_begin = 0;
   Cycle window_end = kNever;
};

class Tracer {
 public:
   /** Opens `path` for writing. @throws ConfigError if it cannot. */
   Tracer(const std::string &path, const TraceOptions &opts);
   /** Finishes the file if finish() was not called. */
   ~Tracer();
   Tracer(const Tracer &) = delete;
   Tracer &operator=(const Tracer &) = delete;

   /** Metadata for every module and queue, initial counters at `now`. */
   void begin(const std::vector<Module *> &modules, const std::vector<QueueBase *> &queues,
              Cycle now);
   /** Module `m` returned `a` from its tick at cycle `now`. */
   void activity(const Module &m, Cycle now, Activity a)
   {
      Span &s = spans_[m.index()];
      if (a != s.activity)
         change(m, now, a);
   }
   /** Queue occupancy at the end of cycle `ts`. */
   void counter(const QueueBase &q, Cycle ts, uint64_t value);
   void instant(const Module &m, Cycle ts, std::string_view name);
   /** A GPU command (a draw, dispatch or copy) that ran during cycles
    *  [begin, end): an "X" span named @name on pid 3, @args_json a JSON
    *  object ("" for none), cut at the window's edges (nothing when it lies
    *  outside). The format nests the spans of one thread and commands
    *  overlap in a pipelined GPU, so the span goes to the first lane (tid
    *  1, 2, ...) whose spans all ended by @begin, a new lane if none. */
   void command(std::string_view name, Cycle begin, Cycle end, std::string_view args_json);
   /** The counters of every module of @stats (Stats::modules[].counters,
    *  totals since the engine started) at cycle @ts, if inside the window:
    *  one "C" event per module that has counters, on pid 4. */
   void module_counters(const Stats &stats, Cycle ts);
   /** Close open spans at `now`, write the end of the file, close it. */
   void finish(Cycle now);
   /** Make the file a complete trace of the cycles before `now` and go on:
    *  open spans are written up to `now` (and continue from `now` as new
    *  spans), the end of the file is written and flushed to the OS, and the
    *  next event overwrites it. A process that ends without finish() (exit()
    *  while its GPU is still alive, as st/mesa and EGL leave it) then leaves
    *  a valid file up to the last checkpoint. Output that cannot be rewound
    *  (a pipe) is only flushed. A write error is reported by finish(). */
   void checkpoint(Cycle now);

   const std::string &path() const { return path_; }

 private:
   struct Span {
      Activity activity = Activity::Idle;
      Cycle start = 0;
      std::string reason;
   };
   void change(const Module &m, Cycle now, Activity a);
   void close_span(uint32_t tid, Span &s, Cycle end);
   void event_prefix();
   void flush(bool force);
   /** Close every open span at `now` and write the counters still held
    *  back for the window (finish and checkpoint). */
   void close_all(Cycle now);

   std::string path_;
   TraceOptions opts_;
   FILE *f_ = nullptr;
   bool seekable_ = false; /* a file checkpoint() can rewind (not a pipe) */
   bool failed_ = false;   /* a checkpoint could not flush or rewind */
   std::string buf_;
   bool first_ = true;
   std::vector<Span> spans_;
   std::vector<std::string> module_names_; /* JSON-escaped, quoted */
   std::vector<std::string> queue_names_;
   std::vector<Cycle> lane_end_; /* per render-stages lane: end of its last span */
   /* per queue: occupancy before the window not yet written (-1: none) */
   std::vector<int64_t> before_window_;
   void write_counter(uint32_t q, Cycle ts, uint64_t value);
};

} // namespace vlgpu::sim
