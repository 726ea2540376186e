/*
 * vlgpu simulator: the GPU backend interface.
 *
 * A `Gpu` runs a command queue (DRAW / SYNC / DUMP / HALT / DISPATCH / COPY, docs/hw.md "The
 * per-draw package", seed 001 §3.2) that sits in VRAM. Two backends
 * implement it over one functional core (brief §3):
 *
 *   FunctionalGpu (sim/func/functional_gpu.cpp)  the CP interprets the queue and
 *       calls render_draw() (sim/func/pipe/functional.h) per DRAW; no timing.
 *   CycleGpu (src/vlgpu/sim/units, to be written)  the CP, GTS, GPCs, L2
 *       and MC as Modules on the sim core's Engine; cycle statistics.
 *
 * Both must produce the same pixels, the same fence writes, the same display
 * contents and the same fault reports for the same queue; the device
 * (device.cpp, vlgpu_drm.h) and the per-draw dump (sim/dump) work with either
 * through this interface only.
 *
 * The contract between a Gpu and its GpuHost (the device, or the replay tool):
 *
 *  - execute() runs the queue synchronously: when it returns every command
 *    has completed (seed 001: the simulator returns from the queue after
 *    HALT) and VRAM holds every result.
 *  - Commands run in queue order from dword 0. A command is a cmd_header
 *    (opcode, length in dwords, header included) followed by the rest of its
 *    vlg_hw struct; the length must be exactly VLG_CMD_<OP>_LENGTH.
 *  - HALT ends the queue; reaching the end of the queue exactly after a
 *    command ends it too (an implicit HALT, SubmitResult::halted = false).
 *  - A malformed command (opcode 0 or unnamed, set reserved bits, a length
 *    that is wrong for the opcode or runs past the queue) is a GpuFault
 *    "malformed command at dword offset N" of module CP. The CP cannot know
 *    where the next command starts, so the rest of the queue is skipped.
 *  - DRAW: the GPU calls host.snapshot_draw(ctx) once when the CP reads the
 *    command, then host.before_draw(ctx, vram) before the draw touches VRAM
 *    and host.after_draw(ctx, vram, report) when the draw has completed or
 *    faulted, for every DRAW, in queue order. When snapshot_draw() returned
 *    true, before_draw() must see VRAM with every earlier command complete
 *    and this draw not started, and after_draw() must see VRAM with this
 *    draw complete and no later command started: a pipelined GPU drains its
 *    pipeline around such a draw (this changes its timing, not its pixels).
 *    For other draws a pipelined GPU may call before_draw() when the CP
 *    fetches the DRAW and after_draw() when the draw's `last` token has left
 *    the OMU, overlapping other draws.
 *  - A GpuFault during a DRAW (malformed package, VRAM access out of
 *    bounds, illegal instruction, watchdog, ...) stops that draw only: the
 *    render targets may be partly written, the fault is recorded in the
 *    DrawReport and in SubmitResult::faults, and the CP goes on with the next
 *    command.
 *  - SYNC: the CP waits until every earlier draw has completed (in
 *    functional mode the pipeline is idle by construction) and then the CP
 *    writes fence_value (32 bits, little-endian) to fence_address. The GPU
 *    writes the in-queue fence; the host's submit fence (vlgpu_drm.h) is the
 *    host's own counter and is signalled when execute() returns.
 *  - DUMP: after every earlier draw has completed, the memory controller
 *    copies `rect` of the surface to host.display(display_id), clipped to
 *    both the surface and the display; an unknown display, a display of
 *    another format or a malformed surface is a GpuFault of module CP that
 *    skips this command only.
 *  - COPY (docs/hw.md "Copies"): copies or fills the box of its copy_info
 *    after every earlier command that reads or writes the bytes it touches
 *    has completed, before any later command starts (cp_load_copy_info,
 *    cp_run_copy: sim/func/cp/copy.h); a bad copy_info is a GpuFault of
 *    module CP that skips this COPY only (CopyReport::faulted, FaultRecord::
 *    copy_index). Cycle mode: the CP's DMA engine streams the lines through
 *    the L2 and MC (sim/units/cp/dma.h).
 *  - A GpuFault outside a draw (SYNC to an address outside VRAM, DUMP
 *    errors) is recorded in SubmitResult::faults and skips that command.
 *  - Exceptions: execute() throws nothing but std::bad_alloc and errors of
 *    the host's own hooks (a GpuHost may throw from its hooks; the GPU lets
 *    such exceptions propagate). Simulator bugs met during a draw
 *    (std::exception other than GpuFault) are recorded as faults of module
 *    "simulator" so a host never dies of them.
 *
 * Statistics per draw (DrawReport): the DrawStats counters of the
 * functional pipeline (vertices, primitives, quads, fragments, shader
 * instructions, early/late test results) in both modes, with the same
 * meaning; `cycles` (0 in functional mode; cycle mode: from the CP reading
 * the DRAW to its last token leaving the OMU); `modules` (cycle mode: the
 * Engine's Stats::to_json() of the cycles the draw ran, per module busy /
 * stalled / starved / idle cycles and counters, per queue occupancy; null
 * in functional mode).
 */
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/config.h"
#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"
#include "sim/func/pipe/compute.h"
#include "sim/func/pipe/functional.h"

namespace vlgpu::sim {

/** Timing model (values of enum vlg_drm_mode, vlgpu_drm.h). */
enum class GpuMode : uint32_t {
   Cycle = 0,      /**< modules and queues tick; cycle statistics */
   Functional = 1, /**< functional units called directly; no timing */
};

/** "cycle" / "functional". */
const char *gpu_mode_name(GpuMode m);

/**
 * A display (the display engine's scanout buffer) a DUMP copies into: host
 * memory outside VRAM, @stride bytes per row, @height rows of @width pixels
 * of @format (enum vlg_format of vlg_hw.h; no conversion is done).
 */
struct Display {
   uint8_t *data = nullptr;
   uint32_t stride = 0; /**< bytes from one row to the next */
   uint32_t width = 0;  /**< pixels */
   uint32_t height = 0; /**< rows */
   uint32_t format = 0; /**< enum vlg_format */
};

/** Where a DRAW sits in its command queue (filled by the GPU's CP). */
struct DrawContext {
   uint64_t queue_address = 0;     /**< VRAM byte address of dword 0 of the queue */
   uint32_t queue_dwords = 0;      /**< queue length in dwords */
   uint32_t cmd_offset_dw = 0;     /**< dword offset of the DRAW command in the queue */
   uint32_t index_in_queue = 0;    /**< DRAW commands before this one in the queue */
   uint32_t cmd_words[3] = {};     /**< the packed DRAW command (VLG_CMD_DRAW_LENGTH dwords) */
   uint64_t draw_info_address = 0; /**< cmd_draw.draw_info */
};

/** What one DRAW did. */
struct DrawReport {
   DrawContext ctx;
   bool faulted = false;
   std::string fault_module; /**< GpuFault::module() ("CP", "GE", "SPC", ...), "" if none */
   std::string fault;        /**< GpuFault::what(): the readable report, "" if none */
   /** Cycle mode: GPU cycles from the CP reading the DRAW to its last token
    *  leaving the OMU; 0 in functional mode. */
   uint64_t cycles = 0;
   uint64_t begin_cycle = 0, end_cycle = 0; /**< cycle mode: [begin, end) of the draw */
   /** Counters of the draw (both modes; partial when the draw faulted). */
   DrawStats counters;
   /** Cycle mode: per-module and per-queue statistics over the draw's cycles
    *  (Stats::to_json(), docs/simulator.md); null in functional mode. */
   nlohmann::ordered_json modules;
};

/** One fault met while running a queue. */
/** One DISPATCH command (docs/hw.md "Compute"). */
struct DispatchReport {
   uint32_t cmd_offset_dw = 0;        /**< dword offset of the DISPATCH in the queue */
   uint32_t index_in_queue = 0;       /**< DISPATCH commands before this one in the queue */
   uint64_t compute_info_address = 0; /**< cmd_dispatch.compute_info */
   bool faulted = false;
   std::string fault_module; /**< GpuFault::module(), "" if none */
   std::string fault;        /**< GpuFault::what(), "" if none */
   uint64_t cycles = 0;      /**< cycle mode: cycles of the dispatch (end - begin); 0 in
                                  functional mode */
   uint64_t begin_cycle = 0, end_cycle = 0; /**< cycle mode: [begin, end): from the CP handing
                                                 it to the CEs to the last CE's done report */
   ComputeStats counters;    /**< partial when the dispatch faulted */
   /** Cycle mode: per-module and per-queue statistics over [begin, end)
    *  (Stats::to_json of the delta, as DrawReport::modules); null otherwise. */
   nlohmann::ordered_json modules;
};

/** One COPY command (docs/hw.md "Copies"): a copy or fill of a box. */
struct CopyReport {
   uint32_t cmd_offset_dw = 0;     /**< dword offset of the COPY in the queue */
   uint32_t index_in_queue = 0;    /**< COPY commands before this one in the queue */
   uint64_t copy_info_address = 0; /**< cmd_copy.copy_info */
   /** enum vlg_copy_mode of the copy_info (COPY or FILL); unset (0 = COPY)
    *  when the copy_info could not be loaded */
   uint32_t mode = 0;
   uint64_t bytes = 0; /**< bytes of the box (width_bytes x height x depth); 0 after a fault */
   bool faulted = false;
   std::string fault_module; /**< GpuFault::module() ("CP"), "" if none */
   std::string fault;        /**< GpuFault::what(), "" if none */
   /** Cycle mode: [begin, end) from the CP decoding the COPY to the DMA engine
    *  completing it (0 in functional mode) and cycles = end - begin. */
   uint64_t begin_cycle = 0, end_cycle = 0, cycles = 0;
   /** Cycle mode: L2 lines the DMA engine read and wrote (whole lines). */
   uint64_t lines_read = 0, lines_written = 0;
};

/** The compute limits of a configuration (both modes): W, thread groups and
 *  registers per SPC, shared memory (docs/hw.md "Compute"). */
ComputeLimits compute_limits(const Config &cfg);

struct FaultRecord {
   std::string module;      /**< GpuFault::module() */
   std::string summary;     /**< GpuFault::summary() */
   std::string text;        /**< GpuFault::what(): the full report */
   uint32_t cmd_offset_dw;  /**< dword offset of the command that faulted */
   int32_t draw_index = -1; /**< DrawContext::index_in_queue of a faulting DRAW, else -1 */
   int32_t dispatch_index = -1; /**< DispatchReport::index_in_queue of a faulting DISPATCH, else -1 */
   int32_t copy_index = -1;     /**< CopyReport::index_in_queue of a faulting COPY, else -1 */
};

/**
 * Runs @a work, one DRAW, DISPATCH or COPY. A GpuFault it throws, or any
 * other exception but std::bad_alloc (a simulator bug, reported as the fault
 * "simulator: internal error"), stops only this command: it is recorded in
 * @a rep (a DrawReport, DispatchReport or CopyReport: faulted, fault_module,
 * fault) and handed to @a on_fault (which adds its FaultRecord).
 */
template <typename Report, typename Work, typename OnFault>
void
run_command(Report &rep, Work work, OnFault on_fault)
{
   const auto fault = [&](const GpuFault &f) {
      rep.faulted = true;
      rep.fault_module = f.module();
      rep.fault = f.what();
      on_fault(f);
   };
   try {
      work();
   } catch (const GpuFault &f) {
      fault(f);
   } catch (const std::bad_alloc &) {
      throw;
   } catch (const std::exception &e) {
      fault(GpuFault("simulator", "internal error", e.what()));
   }
}

/** Result of Gpu::execute. */
struct SubmitResult {
   std::vector<DrawReport> draws;   /**< one per DRAW command executed, in queue order */
   std::vector<DispatchReport> dispatches; /**< one per DISPATCH command, in queue order */
   std::vector<CopyReport> copies;         /**< one per COPY command, in queue order */
   std::vector<FaultRecord> faults; /**< in the order they happened */
   uint32_t commands = 0;           /**< commands read (including faulting ones) */
   bool halted = false;             /**< a HALT command ended the queue */
   uint64_t cycles = 0; /**< cycle mode: cycles of the whole queue; 0 in functional mode */
   /** Cycle mode: Stats::to_json() of the whole queue; null in functional mode. */
   nlohmann::ordered_json stats;
};

/**
 * What a GPU needs from whoever runs it: the displays (for DUMP) and the
 * per-draw hooks (for the readable dump and per-draw statistics). See the
 * file comment for when each is called.
 */
class GpuHost {
 public:
   virtual ~GpuHost() = default;
   /** Display @id, or nullptr when none is registered (the DUMP faults). */
   virtual const Display *display(uint32_t id) const = 0;
   /** True when the host needs exact VRAM snapshots around this draw. */
   virtual bool snapshot_draw(const DrawContext &ctx) = 0;
   /** Before the draw touches VRAM. */
   virtual void before_draw(const DrawContext &ctx, const Vram &vram) = 0;
   /** After the draw completed or faulted (@report.faulted). */
   virtual void after_draw(const DrawContext &ctx, const Vram &vram, const DrawReport &report) = 0;
   /** Whether the host reads each draw's and dispatch's module statistics
    *  (DrawReport::modules, DispatchReport::modules). When false the
    *  cycle-mode GPU leaves them null and takes no engine snapshot per draw
    *  (two per draw otherwise: host time on submits of many draws); cycles,
    *  counters and every other result are the same. Default: true. */
   virtual bool wants_draw_modules() const { return true; }
   /** Before a DISPATCH runs (@report holds its position and compute_info
    *  address only). Default: nothing (per-draw dumps skip dispatches). */
   virtual void on_dispatch(const DispatchReport &report, const Vram &vram)
   {
      (void)report;
      (void)vram;
   }
};

/** A GPU model that runs command queues (see the file comment). */
class Gpu {
 public:
   virtual ~Gpu() = default;
   virtual GpuMode mode() const = 0;
   /**
    * Run the queue of @cmd_dwords dwords at VRAM byte address @cmd_address
    * (dword aligned; a queue not inside VRAM is a CP fault recorded in the
    * result). See the file comment for the contract.
    */
   virtual SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                                GpuHost &host) = 0;
   /** The host's frame ended (the driver: a present, or glFinish in a
    *  program that never presents; frames count from 0). Cycle mode: the
    *  trace's frame range (VLGPU_TRACE_FRAMES). Default: nothing. */
   virtual void end_frame() {}

   /** A module of the timed model and its class in sim/units/counters.xml. */
   struct ModuleName {
      std::string name;         /**< "cp", "gpc0.spc1", ...: the statistics' module key */
      std::string module_class; /**< "Cp", "Spc", ...: counters.xml <module class> */
   };
   /** Cycle mode: every module, in the order of the statistics (Stats::modules);
    *  the functional GPU has none. Not const: the cycle-mode GPU builds its
    *  modules on first use. */
   virtual std::vector<ModuleName> modules() { return {}; }

   /**
    * Name the VRAM bytes [@address, @address + @size) (a buffer object's
    * debug label, vlg_drm_bo_set_label): the shader profile calls a shader
    * whose code starts there by it. An empty @label removes the name; a new
    * label of the same @address replaces it. Ranges do not overlap (buffer
    * objects do not).
    */
   void set_label(uint64_t address, uint64_t size, std::string label);
   /** The label of the named range holding VRAM byte @address, "" if none. */
   std::string label_at(uint64_t address) const;

 private:
   struct Label {
      uint64_t size;
      std::string text;
   };
   std::map<uint64_t, Label> labels_; /**< by start address */
};

/**
 * The functional GPU for @cfg: thread_group_width (4..64 here: the
 * functional pipeline's limit) and the watchdog's
 * watchdog.instructions_per_thread_group and watchdog.instructions_per_submit
 * (the cycle-mode GPU counts the same instructions). @throws ConfigError for
 * a thread_group_width the functional pipeline does not support.
 */
std::unique_ptr<Gpu> make_functional_gpu(const Config &cfg);

/**
 * A functional GPU that does not draw: DRAW and DISPATCH commands are decoded
 * and reported (a DrawReport / DispatchReport with their context and zero
 * counters, no host hooks called) but not run, so they write nothing; SYNC,
 * DUMP, COPY and HALT run as on make_functional_gpu(). For the frames a
 * sampled run skips (VLGPU_SAMPLE "skip", sim/device/frame_sampling.h).
 * @throws ConfigError as make_functional_gpu.
 */
std::unique_ptr<Gpu> make_functional_gpu_skipping_work(const Config &cfg);

/** True when this build contains the cycle-mode GPU (src/vlgpu/sim/units). */
bool cycle_gpu_available();

/**
 * The GPU of @mode for @cfg. @throws ConfigError with a readable reason
 * (cycle mode in a build without the cycle-mode GPU, bad configuration).
 */
std::unique_ptr<Gpu> make_gpu(GpuMode mode, const Config &cfg);

/**
 * Provided by the cycle-mode GPU (src/vlgpu/sim/units) when it exists: its
 * meson.build declares idep_vlg_sim_units and the device library then calls
 * this from make_gpu(GpuMode::Cycle, ...).
 */
std::unique_ptr<Gpu> make_cycle_gpu(const Config &cfg);

/** The DrawStats counters as a JSON object, every field by name. */
nlohmann::ordered_json draw_stats_json(const DrawStats &s);

/** A DrawReport as JSON: position, cycles, counters, modules, fault. */
nlohmann::ordered_json draw_report_json(const DrawReport &r);

/** A DispatchReport as JSON: index_in_queue, cmd_offset_dw, compute_info,
 *  cycles, counters {workgroups, thread_groups, invocations, instructions,
 *  lane_instructions, dual_issued, barriers, mem_ops}, fault. */
nlohmann::ordered_json dispatch_report_json(const DispatchReport &r);

/** A CopyReport as JSON: index_in_queue, cmd_offset_dw, copy_info, mode
 *  ("COPY"/"FILL"), bytes, cycles, cycle_range (cycle mode), lines_read,
 *  lines_written, fault. */
nlohmann::ordered_json copy_report_json(const CopyReport &r);

} // namespace vlgpu::sim
