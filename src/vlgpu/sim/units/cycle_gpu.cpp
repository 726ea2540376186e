/*
 * vlgpu cycle-mode GPU: assembly and the Gpu interface (cycle_gpu.h).
 */
#include "sim/units/cycle_gpu.h"

#include <cstdio>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>

#include "vlgpu_stats_keys.h"

#include "sim/func/cp/func_cp.h"
#include "sim/units/common/bottleneck.h"
#include "sim/units/cp/cp.h"
#include "sim/units/gpc/ce/ce.h"
#include "sim/units/gpc/ge/ge.h"
#include "sim/units/gpc/lts/lts.h"
#include "sim/units/gpc/omu/omu.h"
#include "sim/units/gpc/pe/pe.h"
#include "sim/units/gpc/spc/spc.h"
#include "sim/units/gts/gts.h"
#include "sim/units/l2/l2.h"
#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/stream_output.h"
#include "sim/units/mc/mc.h"

namespace vlgpu::sim {

namespace K = vlgpu::stats_key;

namespace {

/** @m -= @o: ticks, activity cycles and counters (matched by name) of one
 *  module's statistics. */
void
subtract(ModuleStatsSnapshot &m, const ModuleStatsSnapshot &o)
{
   m.ticks -= o.ticks;
   m.busy -= o.busy;
   m.stalled -= o.stalled;
   m.starved -= o.starved;
   m.idle -= o.idle;
   for (size_t j = 0; j < m.counters.size(); j++) {
      auto &[k, v] = m.counters[j];
      if (j < o.counters.size() && o.counters[j].first == k) {
         v -= o.counters[j].second;
         continue;
      }
      for (const auto &[ok, ov] : o.counters)
         if (ok == k) {
            v -= ov;
            break;
         }
   }
}

/** @q -= @o for one queue's statistics; @q's period starts where @o's ends. */
void
subtract(QueueStatsSnapshot &q, const QueueStatsSnapshot &o)
{
   QueueStats &s = q.stats;
   s.begin = o.stats.begin + o.stats.cycles;
   s.cycles -= o.stats.cycles;
   s.pushes -= o.stats.pushes;
   s.pops -= o.stats.pops;
   s.occupancy_sum -= o.stats.occupancy_sum;
   s.full_cycles -= o.stats.full_cycles;
   s.empty_cycles -= o.stats.empty_cycles;
   s.violations -= o.stats.violations;
}

/**
 * subtract(entry, its match) for every entry of @after (the modules or
 * queues of a snapshot) that @before has too. The match of after[i] is
 * before[i] when it has the same name (snapshots of one engine keep the
 * same order), else @find(name) (nullptr: none).
 */
template <typename T, typename Find>
void
subtract_matches(std::vector<T> &after, const std::vector<T> &before, Find &&find)
{
   for (size_t i = 0; i < after.size(); i++) {
      T &e = after[i];
      const T *o = i < before.size() && before[i].name == e.name ? &before[i] : find(e.name);
      if (o)
         subtract(e, *o);
   }
}

} // namespace

Stats
stats_delta(const Stats &a, const Stats &b)
{
   /* Both snapshots normally come from the same engine, so the same index
    * holds the same module, counter or queue: try it before searching by
    * name (per draw in cycle mode; the searches were quadratic). */
   Stats d = b;
   d.begin = a.end;
   subtract_matches(d.modules, a.modules, [&](const std::string &n) { return a.module(n); });
   for (size_t i = 0; i < d.causes.size() && i < a.causes.size(); i++)
      if (a.causes[i].first == d.causes[i].first)
         d.causes[i].second -= a.causes[i].second;
   subtract_matches(d.queues, a.queues, [&](const std::string &n) { return a.queue(n); });
   return d;
}

CycleGpu::CycleGpu(const Config &p) : p_(p)
{
   p_.validate();
   /* the SPC's lane masks are 64 bits (spc.h); functional mode runs wider groups */
   const unsigned w = p_.thread_group_width;
   if (w > 64)
      throw ConfigError(fmt::format("thread_group_width = {}: the cycle-mode GPU runs thread "
                                    "groups of 4..64 lanes, a multiple of 4",
                                    w));
   if (const char *t = std::getenv("VLGPU_TRACE"))
      trace_path_ = t;
   if (const char *w = std::getenv("VLGPU_TRACE_CYCLES"))
      set_trace_window(w);
   if (const char *f = std::getenv("VLGPU_TRACE_FRAMES"))
      set_trace_frames(f);
   if (const char *f = std::getenv("VLGPU_PROFILE"); f && *f)
      enable_profile(f);
}

void
CycleGpu::enable_profile(const std::string &path)
{
   if (!profile_) {
      profile_ = std::make_unique<ShaderProfile>();
      profile_->set_namer([this](uint64_t code) { return label_at(code); });
   }
   profile_path_ = path;
   if (eng_)
      for (Module *m : eng_->modules())
         if (auto *spc = dynamic_cast<Spc *>(m))
            spc->set_profile(profile_.get());
}

const ShaderProfile *
CycleGpu::profile()
{
   if (profile_ && eng_)
      snapshot(); /* Spc::sync_counters charges the running stalls */
   return profile_.get();
}

void
CycleGpu::write_profile()
{
   /* not while empty: a GL program may make a second device that runs no
    * shader (glmark2 probes one), whose file would replace the real one */
   if (profile_ && !profile_path_.empty() && !profile_->empty())
      profile()->write(profile_path_);
}

void
CycleGpu::set_trace_window(const std::string &range)
{
   std::tie(trace_opts_.window_begin, trace_opts_.window_end) =
      parse_range(range, false, "trace window",
                  "BEGIN-END or BEGIN- in cycles (VLGPU_TRACE_CYCLES), END > BEGIN");
}

void
CycleGpu::set_trace_frames(const std::string &range)
{
   std::tie(trace_first_frame_, trace_last_frame_) =
      parse_range(range, true, "trace frames",
                  "FIRST-LAST, FIRST- or N, frames from 0 (VLGPU_TRACE_FRAMES), LAST >= FIRST");
}

void
CycleGpu::end_frame()
{
   write_profile();
   const bool was = in_trace_frames();
   frame_++;
   if (trace_path_.empty() || !eng_ || rebuild_ || was == in_trace_frames())
      return; /* (build() starts the trace if the frame is one to trace) */
   if (was)
      eng_->stop_trace(); /* frame LAST ended: the file is finished */
   else
      eng_->start_trace(trace_path_, trace_opts_);
}

CycleGpu::~CycleGpu()
{
   if (eng_)
      eng_->stop_trace();
   try {
      write_profile();
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu: %s\n", e.what());
   }
}

Engine &
CycleGpu::engine()
{
   if (!eng_ || rebuild_)
      build();
   return *eng_;
}

void
CycleGpu::set_trace(const std::string &path)
{
   if (eng_ && eng_->tracing())
      eng_->stop_trace();
   trace_path_ = path;
   if (eng_ && !rebuild_ && !path.empty() && in_trace_frames())
      eng_->start_trace(path, trace_opts_);
}

void
CycleGpu::wedge(const std::string &name)
{
   Module *m = engine().module(name);
   auto *u = dynamic_cast<Unit *>(m);
   if (!u)
      throw ConfigError(fmt::format("wedge: no module '{}'", name));
   u->wedge();
}

Stats
CycleGpu::snapshot()
{
   return eng_->stats(); /* syncs the modules' cycle counters */
}

std::vector<Gpu::ModuleName>
CycleGpu::modules()
{
   std::vector<ModuleName> v;
   for (const Module *m : engine().modules()) {
      const auto *u = dynamic_cast<const Unit *>(m);
      v.push_back({m->name(), u ? u->module_class() : ""});
   }
   return v;
}

void
CycleGpu::never_sleep()
{
   for (Module *m : engine().modules())
      if (auto *u = dynamic_cast<Unit *>(m))
         u->never_sleep();
}

void
CycleGpu::build()
{
   if (eng_)
      eng_->stop_trace();
   cp_ = nullptr;
   eng_.reset();
   auto eng = std::make_unique<Engine>(p_);
   Engine &e = *eng;
   attribution_ = std::make_unique<CycleAttribution>(cause_names());
   e.set_attribution(attribution_.get());
   const uint32_t G = p_.gpcs, S = p_.spcs_per_gpc;

   std::vector<std::string> reporters = {"gts"};
   std::vector<std::string> l2_clients = {"cp"};
   for (uint32_t g = 0; g < G; g++) {
      const std::string gp = fmt::format("gpc{}", g);
      reporters.push_back(gp + ".ge"); /* the CE reports dispatches only (in_ce<g>) */
      reporters.push_back(gp + ".pe");
      reporters.push_back(gp + ".lts");
      l2_clients.push_back(gp + ".ge");
      for (uint32_t k = 0; k < S; k++) {
         reporters.push_back(fmt::format("{}.spc{}", gp, k));
         l2_clients.push_back(fmt::format("{}.spc{}", gp, k));
      }
      reporters.push_back(gp + ".omu");
      l2_clients.push_back(gp + ".omu");
   }
   l2_clients.push_back("gpc0.pe"); /* stream-output writes (pe.h) */

   cp_ = &e.add<Cp>("cp", p_, reporters, programs_);
   e.add<Gts>("gts", p_);
   for (uint32_t g = 0; g < G; g++) {
      const std::string gp = fmt::format("gpc{}", g);
      e.add<Ce>(gp + ".ce", p_, g, pool_);
      e.add<Ge>(gp + ".ge", p_, pool_);
      e.add<Pe>(gp + ".pe", p_, g, pool_);
      e.add<Lts>(gp + ".lts", p_);
      for (uint32_t k = 0; k < S; k++)
         e.add<Spc>(fmt::format("{}.spc{}", gp, k), p_, pool_);
      e.add<Omu>(gp + ".omu", p_, pool_);
   }
   /* the CP's DMA engine (COPY): reads and writes on two L2 ports */
   e.add<Dma>("cp.dma", p_);
   std::vector<std::string> l2_ports = l2_clients;
   l2_ports.push_back("cp.dma.rd");
   l2_ports.push_back("cp.dma.wr");
   e.add<L2>("l2", p_, l2_ports);
   e.add<Mc>("mc", p_, std::vector<std::string>{"l2", "cp"});

   /* every queue has queues.default.* (4 entries, latency 1, one entry per
    * cycle: enough to stream) unless queues.<name> overrides it */
   e.connect("cp.out_draw", "gts.in_draw");
   for (uint32_t g = 0; g < G; g++) {
      const std::string gp = fmt::format("gpc{}", g);
      e.connect(fmt::format("gts.out_ge{}", g), gp + ".ge.in_task");
      e.connect(fmt::format("cp.out_ce{}", g), gp + ".ce.in_dispatch");
      e.connect(gp + ".ce.out_lts", gp + ".lts.in_cs");
      e.connect(gp + ".lts.out_ce", gp + ".ce.in_done");
      e.connect(gp + ".ce.out_done", fmt::format("cp.in_ce{}", g));
      e.connect(gp + ".ge.out_vs", gp + ".lts.in_vs");
      e.connect(gp + ".pe.out_fs", gp + ".lts.in_fs");
      e.connect(gp + ".pe.out_early", gp + ".omu.in_early");
      e.connect(gp + ".omu.out_early", gp + ".pe.in_early");
      e.connect(gp + ".pe.out_mark", gp + ".omu.in_mark");
      e.connect(gp + ".omu.out_credit", gp + ".pe.in_credit");
      for (uint32_t h = 0; h < G; h++)
         e.connect(fmt::format("{}.ge.out_pe{}", gp, h), fmt::format("gpc{}.pe.in_ge{}", h, g));
      for (uint32_t k = 0; k < S; k++) {
         const std::string sp = fmt::format("{}.spc{}", gp, k);
         e.connect(fmt::format("{}.lts.out_spc{}", gp, k), sp + ".in_task");
         e.connect(sp + ".out_vs", fmt::format("{}.ge.in_vs{}", gp, k));
         e.connect(sp + ".out_fs", fmt::format("{}.omu.in_fs{}", gp, k));
         e.connect(sp + ".out_credit", fmt::format("{}.lts.in_credit{}", gp, k));
      }
   }
   for (const std::string &r : reporters)
      e.connect(r + ".out_last", "cp.in_last_" + Mc::port_name(r));
   for (const std::string &c : l2_clients) {
      e.connect(c + ".out_mem", "l2.in_" + Mc::port_name(c));
      e.connect("l2.out_" + Mc::port_name(c), c + ".in_mem");
   }
   e.connect("cp.out_copy", "cp.dma.in_job");
   e.connect("cp.dma.out_done", "cp.in_copy_done");
   for (const char *c : {"rd", "wr"}) {
      e.connect(fmt::format("cp.dma.out_{}", c), fmt::format("l2.in_cp_dma_{}", c));
      e.connect(fmt::format("l2.out_cp_dma_{}", c), fmt::format("cp.dma.in_{}", c));
   }
   e.connect("cp.out_flush", "l2.in_flush");
   e.connect("l2.out_flush", "cp.in_flush");
   e.connect("l2.out_mc", "mc.in_l2");
   e.connect("mc.out_l2", "l2.in_mc");
   e.connect("cp.out_mc", "mc.in_cp");
   e.connect("mc.out_cp", "cp.in_mc");
   e.finalize();
   eng_ = std::move(eng);
   rebuild_ = false;
   begin_stats_.clear();
   if (profile_)
      enable_profile(profile_path_);
   if (!trace_path_.empty() && in_trace_frames())
      eng_->start_trace(trace_path_, trace_opts_);
}

/* The render-stages span of a finished draw (named with its number, kind
 * and shaders; its report without the module breakdown as args) and the
 * module counters at its end. */
void
CycleGpu::trace_draw(Tracer &t, const DrawState &d, const DrawReport &rep, const Stats &now)
{
   const uint64_t n = draws_ + d.ctx.index_in_queue;
   nlohmann::ordered_json args = draw_report_json(rep);
   args.erase(K::modules);
   std::string name = fmt::format("draw {} ", n);
   args["draw"] = n;
   if (!d.loaded) {
      name += "(package fault)";
   } else {
      const VLG_DRAW_INFO &di = d.pkg.draw;
      const char *kind =
         d.pkg.is_primitives() ? vlg_prim_name(di.prim) : vlg_draw_kind_name(di.kind);
      args["kind"] = kind ? kind : "?";
      name += kind ? kind : "?";
      if (d.pkg.is_primitives()) {
         args["count"] = di.count;
         args["instances"] = di.instance_count;
         /* a shader is named by its shader_state block's VRAM address */
         for (const auto &[stage, sh] :
              {std::pair<const char *, const ShaderPackage *>{"vs", &d.pkg.vs},
               {"gs", &d.pkg.gs},
               {"fs", &d.pkg.fs}}) {
            if (!sh->address)
               continue;
            args[stage] = fmt::format("0x{:x}", sh->address);
            name += fmt::format(" {} 0x{:x}", stage, sh->address);
         }
      }
   }
   t.command(name, rep.begin_cycle, rep.end_cycle, args.dump());
   t.module_counters(now, now.end);
}

bool
CycleGpu::wants_modules(const SubmitState &ss) const
{
   return ss.host->wants_draw_modules() || eng_->tracing();
}

Stats
CycleGpu::window_mark(const SubmitState &ss)
{
   if (wants_modules(ss))
      return snapshot();
   Stats s; /* the cycle only: no module wants its counters synced for a delta */
   s.begin = s.end = eng_->now();
   return s;
}

void
CycleGpu::finish_draw(SubmitState &ss, const DrawRef &dr)
{
   const DrawState &d = *dr;
   DrawReport rep;
   rep.ctx = d.ctx;
   rep.faulted = d.faulted();
   if (rep.faulted) {
      rep.fault_module = d.fault_module;
      rep.fault = d.fault_text;
      ss.result->faults.push_back(FaultRecord{d.fault_module, d.fault_summary, d.fault_text,
                                              d.ctx.cmd_offset_dw, int32_t(d.seq)});
   }
   rep.counters = d.stats;
   /* the CP's end-of-draw occlusion-counter update, as in functional mode
    * (render_draw): after the OMU's `last` token, in draw order */
   if (!rep.faulted && d.loaded) {
      if (d.so) /* stream output: filled sizes and counters (stream_output.h) */
         d.so->finish(*ss.vram);
      cp_add_occlusion(*ss.vram, d.pkg, d.stats.samples_passed);
   }
   const Stats now = window_mark(ss);
   auto it = begin_stats_.find(d.seq);
   if (it != begin_stats_.end()) {
      rep.begin_cycle = it->second.end;
      rep.end_cycle = now.end;
      rep.cycles = rep.end_cycle - rep.begin_cycle;
      if (wants_modules(ss))
         rep.modules = stats_delta(it->second, now).to_json();
      begin_stats_.erase(it);
   } else {
      rep.begin_cycle = rep.end_cycle = now.end;
   }
   if (Tracer *t = eng_->tracer())
      trace_draw(*t, d, rep, now);
   ss.host->after_draw(d.ctx, *ss.vram, rep);
   ss.result->draws.push_back(std::move(rep));
}

/* A COPY the CP was running when the GPU hung (its CopyReport is not
 * complete): report the fault as the COPY's and skip it. Its bytes may have
 * moved already, so running it again could give other bytes (overlap). */
bool
CycleGpu::fail_running_copy(SubmitState &ss, const GpuFault &f)
{
   if (ss.result->copies.empty())
      return false;
   CopyReport &c = ss.result->copies.back();
   if (c.cmd_offset_dw != ss.next_offset || c.faulted || c.end_cycle != 0)
      return false;
   c.faulted = true;
   c.fault_module = f.module();
   c.fault = f.what();
   FaultRecord fr{f.module(), f.summary(), f.what(), c.cmd_offset_dw, -1};
   fr.copy_index = int32_t(c.index_in_queue);
   ss.result->faults.push_back(fr);
   ss.next_offset += VLG_CMD_COPY_LENGTH;
   return true;
}

void
CycleGpu::recover(SubmitState &ss, const std::string &summary, const std::string &text)
{
   resets_++;
   const GpuFault f("simulator", summary, text);
   const Cycle now = eng_->now();
   const bool copy = fail_running_copy(ss, f);
   if (!ss.inflight.empty()) {
      while (!ss.inflight.empty()) {
         DrawRef d = ss.inflight.front();
         d->raise(f, now, ~0u);
         finish_draw(ss, d);
         ss.inflight.pop_front();
      }
   } else if (copy) {
      /* reported and skipped by fail_running_copy */
   } else if (ss.next_offset < ss.queue_dwords) {
      /* the command being executed hangs the GPU: report it and skip it */
      ss.result->faults.push_back(FaultRecord{f.module(), f.summary(), f.what(), ss.next_offset, -1});
      try {
         const Command c = cp_decode_command(*ss.vram, ss.queue_address, ss.queue_dwords,
                                             ss.next_offset);
         ss.next_offset += c.length;
      } catch (const GpuFault &) {
         ss.next_offset = ss.queue_dwords;
      }
   } else {
      ss.result->faults.push_back(FaultRecord{f.module(), f.summary(), f.what(), ss.next_offset, -1});
   }
   ss.call = SubmitState::Call::None;
   rebuild_ = true;
   build();
   cp_->start(ss);
}

/* The functional units' options for this submit: thread-group width, the
 * watchdog of both modes (watchdog.instructions_per_thread_group, the
 * submit's budget) and the shared program cache. */
FuncOptions
CycleGpu::func_options(SubmitState &ss)
{
   FuncOptions opt;
   opt.thread_group_width = p_.thread_group_width;
   opt.watchdog_instructions = p_.watchdog_instructions_per_thread_group
                                  ? p_.watchdog_instructions_per_thread_group
                                  : UINT64_MAX;
   opt.submit_instructions_left =
      p_.watchdog_instructions_per_submit ? &ss.instructions_left : nullptr;
   opt.programs = &programs_;
   return opt;
}

/* DISPATCH in cycle mode (docs/simulator.md "Compute"), first call: the
 * CP has drained every earlier draw; the host hook runs, the dispatch is
 * loaded and checked against the SPC limits (prepare_dispatch: the same
 * faults as functional mode) into the DrawState the CP sends to the CEs. */
void
CycleGpu::begin_dispatch_call(SubmitState &ss, Vram &vram, GpuHost &host)
{
   DispatchReport &rep = dispatch_rep_;
   rep = DispatchReport();
   rep.cmd_offset_dw = ss.dispatch_offset;
   rep.index_in_queue = ss.dispatches++;
   rep.compute_info_address = ss.dispatch.dispatch.compute_info;
   host.on_dispatch(rep, vram);
   const FuncOptions opt = func_options(ss);
   auto d = std::make_shared<DrawState>();
   d->seq = rep.index_in_queue;
   d->vram = &vram;
   try {
      d->compute = prepare_dispatch(vram, rep.compute_info_address, opt, compute_limits(p_));
   } catch (const GpuFault &f) {
      d->raise(f, eng_->now(), cp_->index());
   } catch (const std::bad_alloc &) {
      throw;
   } catch (const std::exception &e) {
      d->raise(GpuFault("simulator", "internal error", e.what()), eng_->now(), cp_->index());
   }
   ss.dispatch_state = d;
   dispatch_begin_ = window_mark(ss);
}

/* Second call: every CE reported the dispatch done (all its workgroups
 * left the SPCs): its DispatchReport with the counters the CEs and SPCs
 * added, its cycle range and the modules' statistics of that range. */
void
CycleGpu::end_dispatch_call(SubmitState &ss, SubmitResult &res)
{
   DispatchReport &rep = dispatch_rep_;
   const DrawState &d = *ss.dispatch_state;
   rep.counters = d.compute_stats;
   if (d.faulted()) {
      rep.faulted = true;
      rep.fault_module = d.fault_module;
      rep.fault = d.fault_text;
      FaultRecord fr{d.fault_module, d.fault_summary, d.fault_text, ss.dispatch_offset, -1};
      fr.dispatch_index = int32_t(rep.index_in_queue);
      res.faults.push_back(fr);
   }
   const Stats now = window_mark(ss);
   rep.begin_cycle = dispatch_begin_.end;
   rep.end_cycle = now.end;
   rep.cycles = rep.end_cycle - rep.begin_cycle;
   if (wants_modules(ss))
      rep.modules = stats_delta(dispatch_begin_, now).to_json();
   ss.dispatch_mem_ops = rep.counters.mem_ops;
   if (Tracer *t = eng_->tracer()) {
      nlohmann::ordered_json args = dispatch_report_json(rep);
      args.erase(K::modules);
      args["dispatch"] = dispatches_ + rep.index_in_queue;
      t->command(fmt::format("dispatch {}", dispatches_ + rep.index_in_queue), rep.begin_cycle,
                 rep.end_cycle, args.dump());
      t->module_counters(now, now.end);
   }
   res.dispatches.push_back(std::move(rep));
}

SubmitResult
CycleGpu::execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords, GpuHost &host)
{
   SubmitResult res;
   try {
      cp_check_queue(vram, cmd_address, cmd_dwords);
   } catch (const GpuFault &f) {
      res.faults.push_back(FaultRecord{f.module(), f.summary(), f.what(), 0, -1});
      return res;
   }
   if (!eng_ || rebuild_)
      build();
   /* a host hook that throws leaves the pipeline mid-draw: rebuild next time */
   struct Dirty {
      bool &flag;
      bool armed = true;
      ~Dirty()
      {
         if (armed)
            flag = true;
      }
   } dirty{rebuild_};

   const uint64_t resets_before = resets_;
   SubmitState ss;
   ss.vram = &vram;
   ss.host = &host;
   ss.result = &res;
   ss.queue_address = cmd_address;
   ss.queue_dwords = cmd_dwords;
   ss.instructions_left = p_.watchdog_instructions_per_submit;
   begin_stats_.clear();
   /* statistics of this submit: since the start, or since the last reset */
   Stats s0 = snapshot();
   Cycle c0 = eng_->now();
   uint64_t cycles_before = 0;
   const auto reset = [&](const std::string &summary, const std::string &text) {
      cycles_before += eng_->now() - c0;
      recover(ss, summary, text);
      s0 = snapshot();
      c0 = eng_->now();
   };
   cp_->start(ss);
   eng_->wake(*cp_);

   const auto pending = [&] { return ss.call != SubmitState::Call::None || ss.finished; };
   for (;;) {
      RunResult r;
      try {
         r = eng_->run_until(pending);
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         /* a simulator bug (queue misuse, ...) */
         reset("internal error", e.what());
         continue;
      }
      if (r.reason == StopReason::Deadlock) {
         reset("deadlock", r.deadlock->to_string());
         continue;
      }
      if (r.reason == StopReason::Idle && !pending()) {
         reset("internal error", "the pipeline went idle before the command queue finished");
         continue;
      }
      switch (ss.call) {
      case SubmitState::Call::DrawBegin: {
         const DrawRef d = ss.call_draw;
         begin_stats_[d->seq] = window_mark(ss);
         ss.snapshot = host.snapshot_draw(d->ctx);
         if (!ss.snapshot)
            host.before_draw(d->ctx, vram);
         break;
      }
      case SubmitState::Call::BeforeDraw:
         host.before_draw(ss.call_draw->ctx, vram);
         break;
      case SubmitState::Call::DrawEnd: {
         const DrawRef d = ss.inflight.front();
         finish_draw(ss, d);
         ss.inflight.pop_front();
         break;
      }
      case SubmitState::Call::Dump:
         try {
            const uint64_t px = cp_dump_to_display(vram, ss.dump.dump, host);
            const VLG_SURFACE s =
               read_hw_block<VLG_SURFACE>(vram, ss.dump.dump.surface, "CP", "surface");
            ss.dump_bytes = px * vlg_format_bytes(s.format);
         } catch (const GpuFault &f) {
            res.faults.push_back(
               FaultRecord{f.module(), f.summary(), f.what(), ss.dump_offset, -1});
            ss.dump_bytes = 0;
         }
         break;
      case SubmitState::Call::Dispatch:
         begin_dispatch_call(ss, vram, host);
         break;
      case SubmitState::Call::DispatchEnd:
         end_dispatch_call(ss, res);
         break;
      case SubmitState::Call::None:
         break;
      }
      const bool was_call = ss.call != SubmitState::Call::None;
      ss.call = SubmitState::Call::None;
      ss.call_draw.reset();
      if (was_call) {
         eng_->wake(*cp_);
         continue;
      }
      if (ss.finished)
         break;
   }
   res.cycles = cycles_before + (eng_->now() - c0);
   res.stats = stats_delta(s0, snapshot()).to_json();
   dirty.armed = false;
   if (Tracer *t = eng_->tracer(); t && resets_ == resets_before) {
      /* (after a reset the copies before it ran on the old engine's trace) */
      for (const CopyReport &c : res.copies) {
         const nlohmann::ordered_json args = copy_report_json(c);
         t->command(fmt::format("copy {} {} {} bytes", copies_ + c.index_in_queue,
                                args.value("mode", "?"), c.bytes),
                    c.begin_cycle, c.end_cycle, args.dump());
      }
      if (!res.copies.empty())
         t->module_counters(snapshot(), eng_->now());
   }
   draws_ += res.draws.size();
   dispatches_ += res.dispatches.size();
   copies_ += res.copies.size();
   /* the GPU is idle until the next submit, and the process may exit
    * without destroying it (st/mesa and EGL keep the screen at exit()):
    * leave a complete trace file now */
   eng_->checkpoint_trace();
   return res;
}

std::unique_ptr<Gpu>
make_cycle_gpu(const Config &cfg)
{
   Config p(cfg);
   /* VLGPU_UNITS_CONFIG held the module keys before they joined Config
    * (they were a second table): still honoured, with a warning */
   if (const char *o = std::getenv("VLGPU_UNITS_CONFIG")) {
      static bool warned = false;
      if (!warned)
         fmt::print(stderr, "vlgpu: VLGPU_UNITS_CONFIG is deprecated: every key is a "
                            "configuration key now, use VLGPU_SET={} (docs/simulator.md)\n",
                    o);
      warned = true;
      p.apply_overrides(o);
   }
   return std::make_unique<CycleGpu>(p);
}

} // namespace vlgpu::sim
