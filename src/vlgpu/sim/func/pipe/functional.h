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

#include "dispatch.h"
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
   /** Per-submit instruction budget left (ShaderResources::
    *  submit_instructions_left); null: none. Not owned. */
   uint64_t *submit_instructions_left = nullptr;
   /** Decoded-program cache shared across draws (may be null: a cache local
    * to the call is used). Not owned. */
   ProgramCache *programs = nullptr;
};

/** What one draw did. Counts are per draw (all instances). */
struct DrawStats {
   bool clear = false;        /**< the draw was a CLEAR */
   uint64_t clear_pixels = 0; /**< CLEAR: pixels written, summed over buffers */
   uint64_t resolve_pixels = 0; /**< RESOLVE: destination pixels written */

   GeStats ge; /**< indices, vertices fetched/reused, primitives */
   PeStats pe; /**< primitives in/clipped/culled, quads, fragments */

   uint64_t vs_invocations = 0;       /**< vertices shaded (live VS lanes) */
   uint64_t vs_groups = 0;            /**< VS thread groups */
   uint64_t vs_instructions = 0;      /**< instructions issued by VS groups */
   uint64_t vs_lane_instructions = 0; /**< sum of executing lanes over VS instructions */
   uint64_t vs_dual_issued = 0;       /**< VS instructions with both phases */

   /* geometry shader (draw_info.gs; docs/hw.md "Geometry shaders") */
   uint64_t gs_invocations = 0;       /**< input primitives shaded (live GS lanes) */
   uint64_t gs_groups = 0;            /**< GS thread groups */
   uint64_t gs_instructions = 0;      /**< instructions issued by GS groups */
   uint64_t gs_lane_instructions = 0; /**< sum of executing lanes over GS instructions */
   uint64_t gs_dual_issued = 0;       /**< GS instructions with both phases */
   uint64_t gs_output_vertices = 0;   /**< vertices emitted and kept (MEM.EMIT within max_vertices) */
   uint64_t gs_output_primitives = 0; /**< primitives decomposed from the output strips */
   uint64_t gs_emits_dropped = 0;     /**< MEM.EMITs of lanes past gs_max_vertices */

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
   /** Samples that passed every test and were written: fragments_passed for
    * single-sampled framebuffers, the covered samples of the passed
    * fragments for 4-sample ones (what the occlusion counter adds: GL ES 3.0
    * §4.1.6, SAMPLES_PASSED counts samples). */
   uint64_t samples_passed = 0;
};

/*
 * The OMU's per-quad work, shared by the functional draw (render_draw) and
 * the cycle-mode OMU module so that both produce the same pixels and
 * counters. Fragments are counted per pixel (lane); with a 4-sample
 * framebuffer (OmuState::samples == 4) each lane carries the covered
 * samples in Quad::samples (bit 4 * lane + s) and depth/stencil and colour
 * are handled per sample (docs/hw.md "Multisampling").
 */

/**
 * Coverage of a quad from the PE after sample_mask (4-sample framebuffers:
 * Quad::samples &= sample_mask.mask bits 0..3 in every lane, Quad::mask =
 * the lanes with a sample left; single-sampled: unchanged, sample_mask bit 0
 * is applied by the caller through OmuState::sample_enabled). Returns the
 * new lane mask.
 */
unsigned frag_sample_coverage(const OmuState &o, Quad &q);

/**
 * Early depth/stencil test (OmuState::early_z) of the lanes @mask of @q of
 * primitive @setup, whose rasterisation run starts at (@run_x, @run_y)
 * (Z16 fast path). 4-sample: per sample (pe_sample_depth,
 * omu_depth_stencil_samples), q.samples keeps the samples that passed.
 * Counts early_z_quads and fragments_early_rejected in @st. Returns the
 * lanes that passed. Both this and frag_late_ops work on the primitive's
 * layer, setup.layer (omu_layer_view).
 */
unsigned frag_early_tests(const OmuState &o, const PrimSetup &setup, int32_t run_x, int32_t run_y,
                          Quad &q, unsigned mask, DrawStats &st);

/**
 * Everything after the FS for quad @slot of the finished FS thread group
 * @tg: kill (@killed: the group's killed-lane mask), alpha test, late
 * depth/stencil (when !early_z; FS depth output or interpolated depth; with
 * 4 samples the FS depth applies to every sample, else pe_sample_depth),
 * blend and write (per covered sample with 4 samples); @mask the lanes left
 * after the early tests, @q the quad (q.samples their samples). Counts
 * fragments_* and samples_passed in @st. @color is scratch storage.
 */
void frag_late_ops(const OmuState &o, const FsOutputPlan &plan, const ThreadGroup &tg,
                   unsigned slot, uint64_t killed, const PrimSetup &setup, int32_t run_x,
                   int32_t run_y, const Quad &q, unsigned mask, bool any_blend, DrawStats &st,
                   uint32_t (*color)[4][4]);

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
