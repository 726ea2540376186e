/*
 * vlgpu simulator, functional pipeline: the glue between the fixed-function
 * stages and the SPC's thread groups (sim/func/shader/thread_group.h), i.e.
 * what the LTS/SPC do when they load a VS or FS thread group and read it
 * back. The functional draw and the cycle-mode modules use the same
 * functions, so registers are preloaded and outputs read identically.
 *
 * Register layout and lanes follow docs/isa.md §1: an FS thread group of W
 * lanes holds W/4 quads, quad k in lanes 4k..4k+3 = (x,y), (x+1,y),
 * (x,y+1), (x+1,y+1).
 */
#pragma once

#include <cstdint>

#include "geometry.h"
#include "func_omu.h"
#include "raster.h"
#include "sim/func/shader/thread_group.h"

namespace vlgpu::sim {

/** Preload the VS inputs of one vertex into lane @lane of @tg
 * (ge_fetch_vs_inputs, each input-map entry's components by its mask).
 * GpuFault("GE") as ge_fetch_vs_inputs. */
void vs_load_lane(const GeState &ge, const Vram &vram, int64_t vertex_id, uint32_t instance,
                  ThreadGroup &tg, unsigned lane);

/** Copy the VS outputs of lane @lane of a finished @tg into @vertex
 * (VertexLayout of @ge; ge_store_vs_outputs). */
void vs_store_lane(const GeState &ge, const ThreadGroup &tg, unsigned lane, float *vertex);

/** Floats of one vertex as vs_store_lane writes it: the VertexLayout, or
 * with a geometry shader the GsPlan's VS vertex (vs_slots vec4). */
unsigned vs_vertex_floats(const GeState &ge);

/** Preload the geometry-shader inputs of invocation @invocation of one
 * input primitive into lane @lane of @tg (docs/hw.md "Geometry shaders"):
 * per-vertex inputs (POSITION, POINT_SIZE, VARYING, CLIP_DISTANCE) from the
 * VS vertices @verts[0..gs.vertices_in-1] (vs_store_lane's GsPlan layout; a
 * VS output the VS does not write reads 0) into register reg + v *
 * gs.input_stride, PRIMITIVE_ID = @primitive_id and INVOCATION_ID =
 * @invocation in x (y, z, w 0). */
void gs_load_lane(const GeState &ge, const float *const *verts, uint32_t primitive_id,
                  uint32_t invocation, ThreadGroup &tg, unsigned lane);

/** The current values of the GS output-map registers of lane @lane as one
 * output vertex in the VertexLayout of @ge (what MEM.EMIT appends). */
void gs_store_vertex(const GeState &ge, const ThreadGroup &tg, unsigned lane, float *vertex);

/** Lane masks of an FS thread group holding @nquads quads whose coverage
 * masks are @masks[0..nquads-1]: live and helper masks as the SPC needs
 * them. With @derivatives (shader_state.uses_derivatives) uncovered lanes
 * of the quads are live helper lanes (they execute so DDX/DDY and implicit
 * LOD are defined); without, they are not live at all. */
struct FsLaneMasks {
   uint64_t covered; /**< lanes inside the primitive */
   uint64_t live;    /**< ThreadGroup::set_live_mask */
   uint64_t helper;  /**< ThreadGroup::set_helper_mask */
};
FsLaneMasks fs_lane_masks(const uint8_t *masks, unsigned nquads, bool derivatives);

/** Interpolate the FS inputs of quad @q of primitive @setup and write them
 * into lanes 4*slot..4*slot+3 of @tg (every lane of the quad, helpers
 * included; pe_interpolate_quad). */
void fs_load_quad(const PeState &pe, const PrimSetup &setup, const Quad &q, ThreadGroup &tg,
                  unsigned slot);

/** Where the FS leaves its results (from shader_state.outputs). */
struct FsOutputPlan {
   int color_reg[kMaxColorBufs] = {-1, -1, -1, -1,
                                   -1, -1, -1, -1}; /**< COLOR i register, -1 if none */
   int depth_reg = -1;                              /**< DEPTH register (x), -1 if none */
   int dual_source_reg = -1;                        /**< DUAL_SOURCE_COLOR register, -1 if none */
   unsigned color_mask = 0;                         /**< bit i: COLOR i written */
};
FsOutputPlan fs_output_plan(const VLG_SHADER_STATE &fs);

/** COLOR outputs of the 4 lanes of quad @slot for the OMU:
 * color[rt][lane][c] for every target @omu writes (others untouched); for a
 * dual-source draw (OmuState::dual_source) also the DUAL_SOURCE_COLOR output
 * in color[kDualSourceSlot] (zeros if the FS has none). */
void fs_read_quad_colors(const FsOutputPlan &plan, const OmuState &omu, const ThreadGroup &tg,
                         unsigned slot, uint32_t (*color)[4][4]);

} // namespace vlgpu::sim
