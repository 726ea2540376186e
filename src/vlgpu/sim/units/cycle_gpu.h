/*
 * vlgpu cycle-mode GPU: the GPU assembled from the modules (brief §3, seed
 * 001 fig. 2), implementing the Gpu backend interface (sim/core/gpu.h).
 * docs/simulator-modules.md.
 *
 *   cp -> gts -> gpc<g>.ge -> gpc<g>.lts -> gpc<g>.spc<k> -> gpc<g>.ge
 *                gpc<g>.ge -> gpc<h>.pe (every GPC) <-> gpc<h>.omu (early tests)
 *                gpc<g>.pe -> gpc<g>.lts -> gpc<g>.spc<k> -> gpc<g>.omu
 *   cp, ge, spc, omu -> l2 -> mc; cp -> mc (DUMP)
 *   gts, ge, pe, lts, spc, omu -> cp (`last` token reports)
 *
 * execute() runs the command queue on the Engine until HALT (or the end of
 * the queue) and returns when every command has completed. Host hooks are
 * called between cycles: snapshot_draw and before_draw when the CP reads a
 * DRAW (a snapshot draw drains the pipeline first and runs alone),
 * after_draw when every module has passed the draw's `last` token.
 * Per draw, DrawReport::modules holds the statistics of the cycles
 * [begin_cycle, end_cycle) of the draw (other draws overlapping it included;
 * queue max_occupancy is the maximum since the submit began: a maximum
 * cannot be windowed from two snapshots).
 *
 * Faults: a GpuFault inside a module stops only its draw (the modules drop
 * the draw's work and pass its `last` token). A deadlock (Engine report) or
 * a simulator bug in a module becomes a fault of module "simulator" of every
 * draw in flight; the pipeline is rebuilt and the queue goes on with the
 * next command (a command other than DRAW that deadlocks is skipped).
 *
 * Trace: VLGPU_TRACE=file.json (or set_trace) writes the Perfetto trace of
 * the engine (docs/simulator.md "Trace"); it is complete after every
 * execute() (Engine::checkpoint_trace), so a program that exits without
 * destroying its GPU leaves a valid file, and finished when the CycleGpu is
 * destroyed (or set_trace("") is called). VLGPU_TRACE_CYCLES=BEGIN-END
 * (or set_trace_window) keeps only those cycles, VLGPU_TRACE_FRAMES=
 * FIRST-LAST (or set_trace_frames) only those frames (end_frame()). Besides
 * the modules' activity and the queues, the trace has one span per DRAW,
 * DISPATCH and COPY (render stages, named "draw N KIND vs ADDR fs ADDR",
 * N counted over the GPU's life) and the module counters at each one's end.
 */
#pragma once

#include <map>
#include <memory>
#include <string>

#include "sim/core/engine.h"
#include "sim/core/gpu.h"
#include "sim/func/pipe/functional.h"
#include "sim/func/shader/program.h"
#include "sim/units/common/unit.h"
#include "sim/units/gpc/spc/shader_profile.h"
#include "sim/core/config.h"

namespace vlgpu::sim {

class Cp;
struct SubmitState;

class CycleGpu final : public Gpu {
 public:
   /** @throws ConfigError (Config::validate). */
   explicit CycleGpu(const Config &p);
   ~CycleGpu() override;

   GpuMode mode() const override { return GpuMode::Cycle; }
   SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                        GpuHost &host) override;

   const Config &params() const { return p_; }
   /** The engine (rebuilt after a deadlock or a host exception). */
   Engine &engine();
   /** Write the Perfetto trace to @path from now on ("" stops and finishes it). */
   void set_trace(const std::string &path);
   /** Write only cycles [BEGIN, END) of the trace: @range "BEGIN-END" or
    *  "BEGIN-" (engine cycles; also VLGPU_TRACE_CYCLES). Takes effect when
    *  the trace starts. @throws ConfigError for a malformed range. */
   void set_trace_window(const std::string &range);
   /** Trace only frames FIRST..LAST (end_frame() ends a frame; frames
    *  count from 0): @range "FIRST-LAST", "FIRST-" or "N" (also
    *  VLGPU_TRACE_FRAMES). The trace starts when frame FIRST begins and is
    *  finished when frame LAST ends; a cycle window applies inside it.
    *  Takes effect at the next frame boundary or trace start. @throws
    *  ConfigError for a malformed range. */
   void set_trace_frames(const std::string &range);
   void end_frame() override;
   std::vector<ModuleName> modules() override;
   /** Fault injection for tests: make module @name (e.g. "gpc0.omu") hang
    *  from now on, until the pipeline is rebuilt. @throws ConfigError. */
   void wedge(const std::string &name);
   /** Tests: tick every module every cycle (Unit::never_sleep) until the
    *  pipeline is rebuilt; results and statistics must not change. */
   void never_sleep();
   /** Pipeline resets (deadlocks, simulator errors) so far. */
   uint64_t resets() const { return resets_; }
   /** Profile every shader instruction the SPCs run from now on
    *  (gpc/spc/shader_profile.h), and with a non-empty @path write it there
    *  as JSON at every end_frame() and when the GPU is destroyed, once a
    *  shader has run (also VLGPU_PROFILE=PATH; two GPUs of one process
    *  that both run shaders write the same file, the last one wins). */
   void enable_profile(const std::string &path = "");
   /** The profile so far, with every SPC's running stall charged up to the
    *  current cycle; nullptr unless enable_profile() was called. */
   const ShaderProfile *profile();

 private:
   void build();
   /** Engine::stats() with every module's cycle counters charged up to now. */
   Stats snapshot();
   /** Whether this submit's draws and dispatches get their module
    *  statistics (the host wants them, or a trace is written). */
   bool wants_modules(const SubmitState &ss) const;
   /** The start or end of a draw's or dispatch's window: a snapshot() when
    *  wants_modules(), else only the cycle (Stats::end; GpuHost::
    *  wants_draw_modules). */
   Stats window_mark(const SubmitState &ss);
   void finish_draw(SubmitState &ss, const DrawRef &d);
   void trace_draw(Tracer &t, const DrawState &d, const DrawReport &rep, const Stats &now);
   void recover(SubmitState &ss, const std::string &summary, const std::string &text);
   bool fail_running_copy(SubmitState &ss, const GpuFault &f);

   Config p_;
   ProgramCache programs_{256};
   /** FuncOptions of the functional units for submit @ss (watchdog, width, cache). */
   FuncOptions func_options(SubmitState &ss);
   void begin_dispatch_call(SubmitState &ss, Vram &vram, GpuHost &host);
   void end_dispatch_call(SubmitState &ss, SubmitResult &res);
   DispatchReport dispatch_rep_; /* the dispatch running (between the two calls) */
   Stats dispatch_begin_;        /* statistics at its start */
   ThreadGroupPool pool_;
   /** The bottleneck report's attribution (common/bottleneck.h); outlives
    *  eng_, which holds a pointer to it. */
   std::unique_ptr<CycleAttribution> attribution_;
   std::unique_ptr<Engine> eng_;
   Cp *cp_ = nullptr;
   std::string trace_path_;
   TraceOptions trace_opts_;
   std::unique_ptr<ShaderProfile> profile_;
   std::string profile_path_;
   void write_profile();
   /* frames ended so far, and the frames to trace [first, last] */
   uint64_t frame_ = 0, trace_first_frame_ = 0, trace_last_frame_ = kNever;
   bool in_trace_frames() const
   {
      return frame_ >= trace_first_frame_ && frame_ <= trace_last_frame_;
   }
   bool rebuild_ = true;
   uint64_t resets_ = 0;
   /* DRAW, DISPATCH and COPY commands run before the current submit (the
    * device-wide numbers of the trace's spans, as the device counts draws) */
   uint64_t draws_ = 0, dispatches_ = 0, copies_ = 0;
   std::map<uint32_t, Stats> begin_stats_;
};

/** Statistics of the cycles between two snapshots of the same engine (@a
 *  taken first): cycle counts, ticks, counters, queue pushes/pops/
 *  occupancy sums differences; max_occupancy is @b's. */
Stats stats_delta(const Stats &a, const Stats &b);

} // namespace vlgpu::sim
