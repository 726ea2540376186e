/*
 * vlgpu simulator, functional pipeline: data types shared by GE, PE, the FS
 * dispatch and the OMU (and by the cycle-mode modules that carry them in
 * their queues).
 */
#pragma once

#include <cstdint>

#include "package.h"

namespace vlgpu::sim {

/**
 * Where a shaded vertex keeps its values. A vertex is an array of
 * VertexLayout::num_slots vec4 slots of fp32 (16 bytes each), contiguous.
 * Fixed slots:
 *  - kClipPos:    VS POSITION output, clip coordinates (x, y, z, w);
 *  - kWinPos:     filled by the PE (pe_post_vs, clipping): window x, y in
 *                 pixels (origin top-left), z depth after the viewport
 *                 transform, w = 1 / w_clip; meaningful only if the vertex's
 *                 clip mask is 0 or the vertex was made by the clipper;
 *  - kPointCoord: point-sprite coordinate (s, t, 0, 1) of the vertices the PE
 *                 makes for a sprite (undefined elsewhere).
 * Then one slot per VS output the pipeline needs: POINT_SIZE (x) and each
 * VARYING n the FS reads (slots of varyings nobody reads are not stored).
 */
struct VertexLayout {
   static constexpr unsigned kClipPos = 0;
   static constexpr unsigned kWinPos = 1;
   static constexpr unsigned kPointCoord = 2;
   unsigned num_slots = 3;         /**< vec4 slots per vertex */
   int psize_slot = -1;            /**< slot of POINT_SIZE, -1 if the VS has none */
   int varying_slot[kMaxVaryings]; /**< slot of VARYING n, -1 if not stored */
   /** slots of CLIP_DISTANCE 0 and 1 (gl_ClipDistance[0..3], [4..7]), -1 if
    *  the last vertex stage does not write them (docs/hw.md "Clip distances") */
   int clipdist_slot[2] = {-1, -1};
   /** slot of the GS output PRIMITIVE_ID (gl_PrimitiveID), -1 if none */
   int primid_slot = -1;
   /** slot of the GS output LAYER (gl_Layer), -1 if none */
   int layer_slot = -1;
   /** slot of the VS output EDGEFLAG (glEdgeFlag), -1 if none: every flag set */
   int edgeflag_slot = -1;

   VertexLayout()
   {
      for (int &s : varying_slot)
         s = -1;
   }
   /** The last vertex stage writes gl_ClipDistance: user planes test it. */
   bool has_clip_distances() const { return clipdist_slot[0] >= 0 || clipdist_slot[1] >= 0; }
   unsigned floats() const { return num_slots * 4; }
};

/** A vertex handed to the PE: its data (VertexLayout) and its clip mask
 * (bit i: outside clip plane i, pe_post_vs; 0 = inside every plane). */
struct VertexRef {
   float *data;
   uint32_t clipmask;
};

/** An assembled primitive: vertex numbers (indices into the draw's shaded
 * vertices) in the order the PE must use them, the provoking vertex being
 * v[0] (flatshade_first) or v[n-1] (GL's last-vertex convention), as Gallium's
 * draw module orders them (draw_decompose_tmp.h). */
struct Primitive {
   uint32_t v[3];
   uint8_t num_vertices; /**< 1 point, 2 line, 3 triangle */
   /** triangles: bit k set if the edge v[k] -> v[(k + 1) % 3] is a boundary
    *  edge of the polygon (drawn in polygon mode LINE/POINT), clear for the
    *  interior edges of a decomposed quad or polygon (Gallium's
    *  DRAW_PIPE_EDGE_FLAG_k, draw_decompose_tmp.h) */
   uint8_t edges = kAllEdges;
   static constexpr uint8_t kAllEdges = 7;
};

/** Plane equation of one fragment-shader input component set, in window
 * coordinates: value(x, y) = a0 + dadx * x + dady * y, with (x, y) the
 * pixel's integer coordinates (the pixel centre offset is folded into a0, as
 * softpipe's sp_setup.c does). Perspective inputs hold value/w; the FS
 * dispatch divides by the interpolated 1/w. */
struct InterpCoef {
   float a0[4], dadx[4], dady[4];
};

/** What a primitive was before setup (points and lines become triangles for
 * sprites and wide lines; faces and statistics need the original kind). */
enum class PrimKind : uint8_t { Point, Line, Triangle };

/**
 * Everything the FS dispatch needs to turn a quad of a primitive into FS
 * inputs: the plane equations of depth and 1/w, one per FS input-map entry
 * (PeState::inputs order), and the facing.
 */
struct PrimSetup {
   InterpCoef pos;              /**< [2] window z, [3] 1/w; linear in window space */
   InterpCoef in[kMaxShaderIo]; /**< per FS input-map entry (VARYING, POINT_COORD) */
   /** How in[i] is evaluated: 0 constant (a0), 1 linear, 2 perspective
    * (linear value divided by the interpolated 1/w). */
   uint8_t mode[kMaxShaderIo] = {};
   bool back_facing = false; /**< polygon is back-facing (points, lines: front) */
   /** lines and points of a polygon drawn in polygon mode LINE/POINT take
    *  the polygon's facing (GL 4.6 compatibility section 14.6.4; they are
    *  still polygons for gl_FrontFacing and two-sided stencil) */
   bool polygon_back_facing = false;
   uint32_t primitive_id = 0; /**< the FS input PRIMITIVE_ID of every fragment */
   uint32_t layer = 0;        /**< framebuffer layer written: LAYER clamped to PeState::max_layer */
   uint32_t layer_input = 0;  /**< the FS input LAYER: the GS output LAYER as written */
   PrimKind kind = PrimKind::Triangle;
};

/**
 * A 2x2 quad of fragments: lanes 0..3 are the pixels (x, y), (x+1, y),
 * (x, y+1), (x+1, y+1) (docs/isa.md §1), x and y even. @mask: bit i set if
 * lane i is covered (inside the primitive, scissor and framebuffer);
 * uncovered lanes are helpers. @samples: 4-sample framebuffers only (PeState::
 * samples == 4, docs/hw.md "Multisampling"): bit 4 * lane + s set if sample s
 * of lane is covered (a lane is in @mask iff one of its samples is); 0 for
 * single-sampled framebuffers.
 */
struct Quad {
   int32_t x, y;
   uint8_t mask;
   uint16_t samples = 0;
};

/** Number of samples of a 4-sample pixel (docs/hw.md "Multisampling"). */
constexpr unsigned kMsaaSamples = 4;
/** The standard 4x sample positions (D3D10 pattern, llvmpipe lp_sample_pos_4x),
 * pixel units from the pixel's top-left corner. */
constexpr float kSamplePos4x[kMsaaSamples][2] = {
   {0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};

} // namespace vlgpu::sim
