/*
 * vlgpu simulator: the functional compute dispatch (DISPATCH command,
 * docs/hw.md "Compute", docs/isa.md "Memory (MEM)").
 *
 *   ComputeLimits lim = compute_limits(thread_group_width, thread_groups_per_spc, shared_bytes);
 *   ComputeStats st = run_dispatch(vram, compute_info_address, opt, lim);  // GpuFault on error
 *
 * Workgroups run one after the other, x fastest, then y, then z. A workgroup
 * of n = block_x*block_y*block_z invocations is ceil(n/W) thread groups of W
 * lanes (thread group k holds local indices k*W..k*W+W-1; lanes past n are
 * not live) with its shared memory zeroed; the thread groups run in turn
 * (group 0 first), each until it ends or reaches MEM.BAR; when every group
 * is at the barrier or done, the barrier is released and the round repeats.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/package.h"

namespace vlgpu::sim {

class Program;
class ThreadGroup;
struct ShaderResources; /* executor.h (not included: its RunResult is not the engine's) */
struct TextureUnit;

/** What one workgroup may use on one SPC (docs/hw.md "Compute"). */
struct ComputeLimits {
   unsigned width = 16;               /**< W: lanes per thread group */
   unsigned max_thread_groups = 8;    /**< thread groups one SPC holds (thread_groups_per_spc) */
   unsigned max_regs = VLG_NUM_REGS;           /**< vec4 registers per lane (vec4_registers_per_lane) */
   uint32_t shared_memory_bytes = 32768; /**< shared memory of one SPC (spc.shared_memory_bytes) */
   /** Largest workgroup in invocations: max_thread_groups * width. */
   unsigned max_invocations() const { return max_thread_groups * width; }
};

/** Counters of one dispatch. */
struct ComputeStats {
   uint64_t workgroups = 0;       /**< workgroups run */
   uint64_t thread_groups = 0;    /**< thread groups run */
   uint64_t invocations = 0;      /**< live lanes */
   uint64_t instructions = 0;     /**< instructions issued */
   uint64_t lane_instructions = 0;
   uint64_t dual_issued = 0;
   uint64_t barriers = 0;         /**< barrier releases (per workgroup) */
   uint64_t mem_ops = 0;          /**< MEM ops issued (RunResult::mem_ops) */
};

/**
 * A DISPATCH ready to run, shared by the functional dispatch (run_dispatch)
 * and the cycle-mode CEs/SPCs (docs/simulator-modules.md "CE"): the package,
 * the decoded program, and the ShaderResources every workgroup copies
 * (`*res` points into `consts` and `units`: not copyable, keep it where
 * it was made). `res->shared`/`res->workgroup` are per workgroup.
 */
struct ComputeSetup {
   ComputePackage pkg;
   std::shared_ptr<const Program> prog;
   std::vector<uint32_t> consts;
   std::vector<TextureUnit> units;
   std::unique_ptr<ShaderResources> res;
   unsigned width = 16;         /**< W, lanes per thread group */
   uint64_t invocations = 0;    /**< per workgroup: block_x * block_y * block_z */
   uint32_t thread_groups = 0;  /**< per workgroup: ceil(invocations / W) */
   uint64_t workgroups = 0;     /**< grid_x * grid_y * grid_z */

   ComputeSetup();
   ~ComputeSetup();
   ComputeSetup(const ComputeSetup &) = delete;
   ComputeSetup &operator=(const ComputeSetup &) = delete;

   /** The id (x, y, z) of workgroup @i, x fastest (the functional order). */
   void workgroup_id(uint64_t i, uint32_t id[3]) const;
   /** Prepare thread group @k of a workgroup in @tg (reset for COMPUTE,
    *  local base k*W, live lanes); returns its live lanes. */
   uint64_t init_thread_group(ThreadGroup &tg, uint32_t k) const;
};

/**
 * Loads and checks the dispatch whose compute_info is at
 * @compute_info_address (load_compute_package, then the limits of @lim:
 * GpuFault "CP" "workgroup does not fit an SPC" when its thread groups,
 * registers or shared_size exceed one SPC), decodes its program (through
 * opt.programs if set) and makes its ShaderResources (global MEM on
 * @vram, watchdog opt.watchdog_instructions).
 */
std::unique_ptr<ComputeSetup> prepare_dispatch(Vram &vram, uint64_t compute_info_address,
                                               const FuncOptions &opt, const ComputeLimits &lim);

/**
 * Runs the dispatch whose compute_info is at @compute_info_address.
 * GpuFault ("CP" for a malformed package or a workgroup that does not fit
 * @lim, "SPC" for shader faults). Stores done before a fault stay in VRAM.
 */
ComputeStats run_dispatch(Vram &vram, uint64_t compute_info_address, const FuncOptions &opt,
                          const ComputeLimits &lim);

} // namespace vlgpu::sim
