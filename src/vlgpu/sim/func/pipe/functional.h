/*
 * vlgpu simulator, functional pipeline: one draw through CP (package
 * loading), GE (index/vertex fetch, VS thread groups, primitive assembly),
 * PE (clip, setup, rasterisation into quads), the SPC (FS thread groups of W
 * lanes = W/4 quads) and the OMU, with no timing (seed 001 fig. 2; brief §3
 * "functional mode"). The cycle-mode modules call the same stage functions
 * (package.h, geometry.h, raster.h, omu.h) per item and produce the same
 * pixels; docs/simulator-pipeline.md describes the stages.
 */
#pragma once

#include <cstdint>

#include "geometry.h"
#include "package.h"
#include "raster.h"

namespace vlgpu::sim {

class ProgramCache;

/** Most elements (draw_info.count) one functional draw processes: it keeps
 * every element and shaded vertex in host memory. A larger draw is a
 * GpuFault("GE", "draw too large for the functional model"). */
constexpr uint32_t kMaxFunctionalDrawElements = 1u << 24;

/** Options of the functional draw (architectural values come from the
 * simulator configuration). */
struct FuncOptions {
   /** Lanes per thread group, 4..64, a multiple of 4 (docs/isa.md §1;
    * default 16). Other values: std::invalid_argument. */
   unsigned thread_group_width = 16;
   /** Watchdog: instructions one thread group may issue before the draw
    * faults with "shader did not end" (ShaderResources::max_instructions). */
   uint64_t watchdog_instructions = 1u << 22;
   /** Decoded-program cache shared across draws (may be null: a cache local
    * to the call is used). Not owned. */
   ProgramCache *programs = nullptr;
};

/** What one draw did. Counts are per draw (all instances). */
struct DrawStats {
   bool clear = false;        /**< the draw was a CLEAR */
   uint64_t clear_pixels = 0; /**< CLEAR: pixels written, summed over buffers */

   GeStats ge; /**< indices, vertices fetched/reused, primitives */
   PeStats pe; /**< primitives in/clipped/culled, quads, fragments */

   uint64_t vs_invocations = 0;       /**< vertices shaded (live VS lanes) */
   uint64_t vs_groups = 0;            /**< VS thread groups */
   uint64_t vs_instructions = 0;      /**< instructions issued by VS groups */
   uint64_t vs_lane_instructions = 0; /**< sum of executing lanes over VS instructions */
   uint64_t vs_dual_issued = 0;       /**< VS instructions with both phases */

   uint64_t fs_groups = 0;       /**< FS thread groups */
   uint64_t fs_quads = 0;        /**< quads shaded */
   uint64_t fs_invocations = 0;  /**< covered lanes shaded */
   uint64_t fs_helper_lanes = 0; /**< uncovered lanes run as helpers (derivatives) */
   uint64_t fs_instructions = 0; /**< instructions issued by FS groups */
   uint64_t fs_lane_instructions = 0;
   uint64_t fs_dual_issued = 0;

   uint64_t early_z_quads = 0;            /**< quads tested before the FS */
   uint64_t fragments_early_rejected = 0; /**< fragments failing the early depth/stencil test */
   uint64_t fragments_killed = 0;         /**< fragments discarded by the FS (BRC.KILL) */
   uint64_t fragments_alpha_failed = 0;   /**< fragments failing the alpha test */
   uint64_t fragments_zs_failed = 0;      /**< fragments failing the late depth/stencil test */
   uint64_t fragments_passed = 0;         /**< fragments that passed every test */
   uint64_t fragments_blended = 0;        /**< passed fragments written to a blending target */
};

/**
 * Render the draw whose draw_info block is at @draw_info_address, writing
 * the render targets and depth/stencil buffer in @vram.
 *
 * Errors: GpuFault with the faulting module (CP: malformed package; GE:
 * index or vertex fetch out of bounds, draw larger than
 * kMaxFunctionalDrawElements; SPC: illegal instruction, watchdog,
 * ...; TEX: bad texture descriptor); the render targets may then be partly
 * written (the draw stops where the fault happened, like hardware).
 * std::invalid_argument for bad @opt.
 */
DrawStats render_draw(Vram &vram, uint64_t draw_info_address, const FuncOptions &opt = {});

} // namespace vlgpu::sim
