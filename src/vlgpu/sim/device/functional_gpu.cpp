/*
 * vlgpu simulator: the functional GPU (gpu.h). The CP interprets the queue
 * command by command; a DRAW runs render_draw() (sim/func/pipe), which
 * returns only when the draw is complete, so SYNC finds the pipeline idle
 * and DUMP finds every earlier draw finished by construction.
 */
#include <fmt/format.h>

#include "sim/device/copy.h"
#include "sim/device/cp.h"
#include "sim/device/gpu.h"
#include "sim/func/shader/program.h"

namespace vlgpu::sim {

namespace {

FaultRecord
record(const GpuFault &f, uint32_t offset, int32_t draw)
{
   return FaultRecord{f.module(), f.summary(), f.what(), offset, draw};
}

class FunctionalGpu final : public Gpu {
 public:
   explicit FunctionalGpu(const Config &cfg) : programs_(256)
   {
      if (cfg.thread_group_width < 4 || cfg.thread_group_width > 64 ||
          cfg.thread_group_width % 4 != 0)
         throw ConfigError(fmt::format("thread_group_width = {}: the functional GPU runs thread "
                                       "groups of 4..64 lanes, a multiple of 4",
                                       cfg.thread_group_width));
      opt_.thread_group_width = cfg.thread_group_width;
      opt_.watchdog_instructions = cfg.watchdog_instructions_per_thread_group
                                      ? cfg.watchdog_instructions_per_thread_group
                                      : UINT64_MAX;
      submit_budget_ = cfg.watchdog_instructions_per_submit;
      opt_.programs = &programs_;
      limits_ = compute_limits(cfg);
   }

   GpuMode mode() const override { return GpuMode::Functional; }

   SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                        GpuHost &host) override
   {
      SubmitResult res;
      /* watchdog.instructions_per_submit: counted down by every thread group */
      budget_left_ = submit_budget_;
      opt_.submit_instructions_left = submit_budget_ ? &budget_left_ : nullptr;
      try {
         cp_check_queue(vram, cmd_address, cmd_dwords);
      } catch (const GpuFault &f) {
         res.faults.push_back(record(f, 0, -1));
         return res;
      }
      uint32_t off = 0, draw_index = 0, dispatch_index = 0, copy_index = 0;
      while (off < cmd_dwords) {
         Command c;
         try {
            c = cp_decode_command(vram, cmd_address, cmd_dwords, off);
         } catch (const GpuFault &f) {
            /* the CP cannot find the next command: the rest of the queue is skipped */
            res.commands++;
            res.faults.push_back(record(f, off, -1));
            return res;
         }
         res.commands++;
         switch (c.opcode) {
         case VLG_CMD_OPCODE_DRAW:
            run_draw(vram, cmd_address, cmd_dwords, c, draw_index++, host, res);
            break;
         case VLG_CMD_OPCODE_DISPATCH:
            run_dispatch_cmd(vram, c, dispatch_index++, host, res);
            break;
         case VLG_CMD_OPCODE_COPY: {
            /* every earlier command is complete: the copy runs now */
            CopyReport rep;
            rep.cmd_offset_dw = off;
            rep.index_in_queue = copy_index++;
            rep.copy_info_address = c.copy.copy_info;
            VLG_COPY_INFO ci;
            cp_copy_command(vram, rep, res, ci);
            res.copies.push_back(std::move(rep));
            break;
         }
         case VLG_CMD_OPCODE_SYNC:
            try {
               cp_write_fence(vram, c.sync);
            } catch (const GpuFault &f) {
               res.faults.push_back(record(f, off, -1));
            }
            break;
         case VLG_CMD_OPCODE_DUMP:
            try {
               cp_dump_to_display(vram, c.dump, host);
            } catch (const GpuFault &f) {
               res.faults.push_back(record(f, off, -1));
            }
            break;
         case VLG_CMD_OPCODE_HALT:
            res.halted = true;
            return res;
         }
         off += c.length;
      }
      return res;
   }

 private:
   void run_draw(Vram &vram, uint64_t queue, uint32_t dwords, const Command &c, uint32_t index,
                 GpuHost &host, SubmitResult &res)
   {
      DrawReport rep;
      DrawContext &ctx = rep.ctx;
      ctx.queue_address = queue;
      ctx.queue_dwords = dwords;
      ctx.cmd_offset_dw = c.offset_dw;
      ctx.index_in_queue = index;
      for (unsigned i = 0; i < VLG_CMD_DRAW_LENGTH; i++)
         ctx.cmd_words[i] = c.words[i];
      ctx.draw_info_address = c.draw.draw_info;

      /* functional mode: every earlier command is complete, nothing later has
       * started, so the snapshots are exact whatever the host asks */
      (void)host.snapshot_draw(ctx);
      host.before_draw(ctx, vram);
      try {
         rep.counters = render_draw(vram, ctx.draw_info_address, opt_);
      } catch (const GpuFault &f) {
         rep.faulted = true;
         rep.fault_module = f.module();
         rep.fault = f.what();
         res.faults.push_back(record(f, c.offset_dw, int32_t(index)));
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         /* a simulator bug, not a GPU fault: still stop only this draw */
         const GpuFault f("simulator", "internal error", e.what());
         rep.faulted = true;
         rep.fault_module = f.module();
         rep.fault = f.what();
         res.faults.push_back(record(f, c.offset_dw, int32_t(index)));
      }
      host.after_draw(ctx, vram, rep);
      res.draws.push_back(std::move(rep));
   }

   /* DISPATCH: functional mode runs it to completion, so every earlier draw
    * has finished and every store is in VRAM when the next command starts. */
   void run_dispatch_cmd(Vram &vram, const Command &c, uint32_t index, GpuHost &host,
                         SubmitResult &res)
   {
      DispatchReport rep;
      rep.cmd_offset_dw = c.offset_dw;
      rep.index_in_queue = index;
      rep.compute_info_address = c.dispatch.compute_info;
      host.on_dispatch(rep, vram);
      try {
         rep.counters = run_dispatch(vram, rep.compute_info_address, opt_, limits_);
      } catch (const GpuFault &f) {
         rep.faulted = true;
         rep.fault_module = f.module();
         rep.fault = f.what();
         FaultRecord fr = record(f, c.offset_dw, -1);
         fr.dispatch_index = int32_t(index);
         res.faults.push_back(fr);
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         const GpuFault f("simulator", "internal error", e.what());
         rep.faulted = true;
         rep.fault_module = f.module();
         rep.fault = f.what();
         FaultRecord fr = record(f, c.offset_dw, -1);
         fr.dispatch_index = int32_t(index);
         res.faults.push_back(fr);
      }
      res.dispatches.push_back(std::move(rep));
   }

   FuncOptions opt_;
   ComputeLimits limits_;
   uint64_t submit_budget_ = 0; /**< watchdog.instructions_per_submit (0: none) */
   uint64_t budget_left_ = 0;   /**< of the submit being executed */
   ProgramCache programs_;
};

} // namespace

ComputeLimits
compute_limits(const Config &cfg)
{
   ComputeLimits l;
   l.width = cfg.thread_group_width;
   l.max_thread_groups = cfg.thread_groups_per_spc;
   l.max_regs = cfg.vec4_registers_per_lane;
   l.shared_memory_bytes = cfg.shared_memory_bytes;
   return l;
}

const char *
gpu_mode_name(GpuMode m)
{
   return m == GpuMode::Cycle ? "cycle" : "functional";
}

std::unique_ptr<Gpu>
make_functional_gpu(const Config &cfg)
{
   return std::make_unique<FunctionalGpu>(cfg);
}

bool
cycle_gpu_available()
{
#ifdef VLG_HAVE_CYCLE_GPU
   return true;
#else
   return false;
#endif
}

std::unique_ptr<Gpu>
make_gpu(GpuMode mode, const Config &cfg)
{
   if (mode == GpuMode::Functional)
      return make_functional_gpu(cfg);
   if (mode != GpuMode::Cycle)
      throw ConfigError(fmt::format("unknown GPU mode {}", uint32_t(mode)));
#ifdef VLG_HAVE_CYCLE_GPU
   return make_cycle_gpu(cfg);
#else
   throw ConfigError("cycle mode is not available in this build: the cycle-mode GPU "
                     "(src/vlgpu/sim/units: CP, GTS, GPC, L2, MC modules) is not written yet; use "
                     "functional mode (VLGPU_DEBUG=functional, vlgpu-sim --mode functional)");
#endif
}

nlohmann::ordered_json
draw_stats_json(const DrawStats &s)
{
   nlohmann::ordered_json j;
   j["clear"] = s.clear;
   if (s.resolve_pixels)
      j["resolve_pixels"] = s.resolve_pixels;
   j["clear_pixels"] = s.clear_pixels;
   j["ge"] = {{"indices", s.ge.indices},
              {"restarts", s.ge.restarts},
              {"vertices_fetched", s.ge.vertices_fetched},
              {"vertices_reused", s.ge.vertices_reused},
              {"primitives", s.ge.primitives},
              {"vs_groups", s.ge.vs_groups}};
   j["pe"] = {{"prims_in", s.pe.prims_in},
              {"prims_clipped", s.pe.prims_clipped},
              {"prims_trivially_rejected", s.pe.prims_trivially_rejected},
              {"prims_culled", s.pe.prims_culled},
              {"triangles_setup", s.pe.triangles_setup},
              {"lines_setup", s.pe.lines_setup},
              {"points_setup", s.pe.points_setup},
              {"quads", s.pe.quads},
              {"fragments", s.pe.fragments}};
   j["vs"] = {{"invocations", s.vs_invocations},
              {"groups", s.vs_groups},
              {"instructions", s.vs_instructions},
              {"lane_instructions", s.vs_lane_instructions},
              {"dual_issued", s.vs_dual_issued},
              {"dual_issue_rate",
               s.vs_instructions ? double(s.vs_dual_issued) / double(s.vs_instructions) : 0.0}};
   /* geometry shader (docs/hw.md "Geometry shaders"); zeros without one */
   j["gs"] = {{"invocations", s.gs_invocations},
              {"groups", s.gs_groups},
              {"instructions", s.gs_instructions},
              {"lane_instructions", s.gs_lane_instructions},
              {"dual_issued", s.gs_dual_issued},
              {"output_vertices", s.gs_output_vertices},
              {"output_primitives", s.gs_output_primitives},
              {"emits_dropped", s.gs_emits_dropped}};
   j["fs"] = {{"groups", s.fs_groups},
              {"quads", s.fs_quads},
              {"invocations", s.fs_invocations},
              {"helper_lanes", s.fs_helper_lanes},
              {"instructions", s.fs_instructions},
              {"lane_instructions", s.fs_lane_instructions},
              {"dual_issued", s.fs_dual_issued},
              {"dual_issue_rate",
               s.fs_instructions ? double(s.fs_dual_issued) / double(s.fs_instructions) : 0.0}};
   j["omu"] = {{"early_z_quads", s.early_z_quads},
               {"fragments_early_rejected", s.fragments_early_rejected},
               {"fragments_killed", s.fragments_killed},
               {"fragments_alpha_failed", s.fragments_alpha_failed},
               {"fragments_zs_failed", s.fragments_zs_failed},
               {"fragments_passed", s.fragments_passed},
               {"fragments_blended", s.fragments_blended},
               {"samples_passed", s.samples_passed}};
   return j;
}

/** The "fault" member of a command's report: {module, report}, or null. */
static nlohmann::ordered_json
fault_json(bool faulted, const std::string &module, const std::string &report)
{
   if (!faulted)
      return nullptr;
   return {{"module", module}, {"report", report}};
}

nlohmann::ordered_json
dispatch_report_json(const DispatchReport &r)
{
   nlohmann::ordered_json j;
   j["index_in_queue"] = r.index_in_queue;
   j["cmd_offset_dw"] = r.cmd_offset_dw;
   j["compute_info"] = fmt::format("0x{:x}", r.compute_info_address);
   j["cycles"] = r.cycles;
   if (r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   const ComputeStats &c = r.counters;
   j["counters"] = {{"workgroups", c.workgroups},
                    {"thread_groups", c.thread_groups},
                    {"invocations", c.invocations},
                    {"instructions", c.instructions},
                    {"lane_instructions", c.lane_instructions},
                    {"dual_issued", c.dual_issued},
                    {"barriers", c.barriers},
                    {"mem_ops", c.mem_ops}};
   j["fault"] = fault_json(r.faulted, r.fault_module, r.fault);
   if (!r.modules.is_null())
      j["modules"] = r.modules;
   return j;
}

nlohmann::ordered_json
copy_report_json(const CopyReport &r)
{
   nlohmann::ordered_json j;
   j["index_in_queue"] = r.index_in_queue;
   j["cmd_offset_dw"] = r.cmd_offset_dw;
   j["copy_info"] = fmt::format("0x{:x}", r.copy_info_address);
   const char *m = vlg_copy_mode_name(vlg_copy_mode(r.mode));
   j["mode"] = m ? m : "?";
   j["bytes"] = r.bytes;
   j["cycles"] = r.cycles;
   if (r.cycles || r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   j["lines_read"] = r.lines_read;
   j["lines_written"] = r.lines_written;
   j["fault"] = fault_json(r.faulted, r.fault_module, r.fault);
   return j;
}

nlohmann::ordered_json
draw_report_json(const DrawReport &r)
{
   nlohmann::ordered_json j;
   j["index_in_queue"] = r.ctx.index_in_queue;
   j["cmd_offset_dw"] = r.ctx.cmd_offset_dw;
   j["draw_info"] = fmt::format("0x{:x}", r.ctx.draw_info_address);
   j["cycles"] = r.cycles;
   if (r.cycles || r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   j["counters"] = draw_stats_json(r.counters);
   j["modules"] = r.modules;
   j["fault"] = fault_json(r.faulted, r.fault_module, r.fault);
   return j;
}

} // namespace vlgpu::sim
