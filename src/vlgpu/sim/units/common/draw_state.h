/*
 * vlgpu cycle-mode GPU: the state of one draw shared by the modules it
 * flows through (docs/simulator-modules.md "A draw through the modules").
 *
 * The CP unpacks and validates a DRAW's package once (load_draw_package)
 * and derives the per-stage states the functional units need (GE, PE, OMU
 * states, decoded programs, shader resources). Messages carry a DrawRef to
 * it, the way hardware carries a state pointer with its work: the modules
 * never talk through it (they talk through their ports); it is read-only
 * after the CP made it, except for
 *  - the draw's DrawStats counters, each field added to by the one module
 *    kind that counts it, read by the CP only once every module has reported
 *    the draw's `last` token;
 *  - the fault record: the first GpuFault a module meets while working on
 *    the draw. Other modules see the draw as aborted from the next cycle on
 *    (aborted(now)), so what they do does not depend on tick order, and drop
 *    its remaining work while still passing its `last` token on.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/types.h"
#include "sim/core/gpu.h"
#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"
#include "sim/func/pipe/compute.h"
#include "sim/func/pipe/dispatch.h"
#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/func_omu.h"
#include "sim/func/pipe/raster.h"

namespace vlgpu::sim {

class Program;
struct DrawShaders; /* programs and ShaderResources (draw_shaders.h) */

/** One VRAM byte range [address, address + size). */
struct MemRange {
   uint64_t address = 0;
   uint64_t size = 0;
   bool overlaps(const MemRange &o) const
   {
      return size && o.size && address < o.address + o.size && o.address < address + size;
   }
};

struct DrawState {
   DrawState();
   ~DrawState();
   DrawState(const DrawState &) = delete;
   DrawState &operator=(const DrawState &) = delete;

   /** Draw number in its command queue (DrawContext::index_in_queue); the
    *  `last` reports to the CP carry it. */
   uint32_t seq = 0;
   DrawContext ctx;
   /** The VRAM the draw runs in (the functional units read and write it). */
   Vram *vram = nullptr;

   /** The package loaded and validated (false: the CP faulted on it, the
    *  draw only carries its `last` token through the pipeline). */
   bool loaded = false;
   bool clear = false; /**< draw_info.kind == CLEAR (OMU only) */
   DrawPackage pkg;
   GeState ge;
   PeState pe;
   OmuState omu;
   FsOutputPlan plan;
   std::unique_ptr<DrawShaders> shaders;
   /** The OMU's late stage touches the depth/stencil buffer (late tests, or
    *  a CLEAR of depth or stencil): a later draw's early tests wait for it. */
   bool late_zs = false;
   /** Memory the draw reads (vertex/index buffers, textures) and writes
    *  (render targets, depth/stencil buffer), for the CP's draw interlock. */
   std::vector<MemRange> reads, writes;

   /** Stream output of the draw (GPC 0's PE makes it at the draw's start;
    *  the CycleGpu stores its results at the end), null if none. */
   std::unique_ptr<class StreamOutput> so;

   /** Counters (same meaning as functional mode, docs/simulator-pipeline.md). */
   DrawStats stats;

   /** A DISPATCH (docs/simulator-modules.md "CE") travels as a DrawState
    *  too, for its fault record (raise/aborted, Unit::guarded) and its
    *  counters: `compute` is its prepared package (null for a draw, or when
    *  the CP faulted on the package), `compute_stats` its counters (the CEs
    *  add workgroups, thread_groups, invocations; the SPCs the rest), read
    *  by the CycleGpu once every CE has reported the dispatch done. */
   std::unique_ptr<ComputeSetup> compute;
   ComputeStats compute_stats;

   /** Cycle of the first fault, kNever if none. */
   Cycle fault_cycle = kNever;
   /** Index (Module::index) of the module that raised it. */
   uint32_t fault_by = 0;
   std::string fault_module, fault_summary, fault_text;

   /** A draw with a geometry shader (package loaded): all its sub-blocks go
    *  to one GPC's GE (the GS input assembly needs every vertex of a strip
    *  in one place), and the GTS and the PEs move on to the next GPC after
    *  it (docs/simulator-modules.md "GTS"). */
   bool has_gs() const { return loaded && !clear && ge.gs.enabled; }

   /** True if a fault was raised before cycle @now: drop the draw's work. */
   bool aborted(Cycle now) const { return fault_cycle < now; }
   bool faulted() const { return fault_cycle != kNever; }
   /**
    * Record @f raised at cycle @now by module @who (Module::index). The
    * earliest fault wins; at equal cycles the lower module index, so the
    * record does not depend on tick order.
    */
   void raise(const GpuFault &f, Cycle now, uint32_t who);
};

using DrawRef = std::shared_ptr<DrawState>;

/**
 * Load the package of @d (d.ctx.draw_info_address) from @vram and derive
 * every per-stage state, as render_draw() does (same checks, same faults:
 * GpuFault "CP" for a malformed package). Also computes the interlock
 * ranges. @programs: decoded-program cache shared over draws; @watchdog:
 * ShaderResources::max_instructions (0: none); @submit_instructions_left:
 * ShaderResources::submit_instructions_left (null: no budget).
 */
void draw_state_load(DrawState &d, const Vram &vram, class ProgramCache &programs,
                     uint64_t watchdog, uint64_t *submit_instructions_left = nullptr);

} // namespace vlgpu::sim
