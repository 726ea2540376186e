/*
 * vlgpu simulator, functional pipeline: the PE (primitive engine, seed 001
 * fig. 2): clipping, perspective divide and viewport, culling, polygon
 * offset, point and line expansion, triangle setup, rasterisation into 2x2
 * quads, and the interpolation of fragment-shader inputs.
 *
 * softpipe (Mesa 22.3.6) is the reference renderer, so the PE repeats the
 * arithmetic of the pipeline softpipe runs, operation for operation in fp32
 * (built with -ffp-contract=off), which makes the pictures bit-identical:
 *  - post-VS clip test, divide and viewport: draw_cliptest_tmp.h (planes of
 *    draw_context.c: x, y always; near/far when depth_clip_near/far; user
 *    planes by clip_plane_enable; z in [0,1] with clip_halfz);
 *  - clipping: draw_pipe_clip.c (Sutherland-Hodgman per plane in ascending
 *    plane order, new vertices interpolated in clip space, noperspective
 *    inputs with the screen-space t, flat inputs from the provoking vertex,
 *    the polygon emitted as a fan that keeps the provoking vertex);
 *  - culling: draw_pipe_cull.c / sp_setup.c (det of window positions,
 *    front_ccw, zero-area triangles never drawn);
 *  - polygon modes: draw_pipe_unfilled.c after culling, offset and the
 *    flat-shade copy (boundary edges and edge flags of Primitive::edges and
 *    the EDGEFLAG output, kept through clipping as draw_pipe_clip.c does;
 *    docs/hw.md "Polygon modes");
 *  - polygon offset: draw_pipe_offset.c (units x minimum resolvable
 *    difference x 2 for unorm depth, units x 2^(exponent(max |z|) - 23) for
 *    float depth, + scale x max(|dz/dx|, |dz/dy|), clamp, applied to the
 *    vertices, result saturated) (GL ES 3.0 §3.6.2);
 *  - points: GL ES points (rasterizer.point_quad_rasterization) become two
 *    triangles with sprite coordinates as in draw_pipe_wide_point.c (that is
 *    what softpipe draws for every GLES point); legacy points use
 *    sp_setup.c sp_setup_point. Size: POINT_SIZE of the provoking vertex when
 *    point_size_per_vertex, else rasterizer.point_size, clamped to
 *    [kMinPointSize, kMaxPointSize] (GL ES 3.0 §3.4; softpipe advertises the
 *    same range);
 *  - lines: width rounding to 1 pixel use sp_setup.c's Bresenham
 *    (sp_setup_line, GL's diamond-exit rule is not implemented there either);
 *    wider lines become two triangles as in draw_pipe_wide_line.c; with
 *    multisample rasterization on 4 samples every line is the rectangle of
 *    GL ES 3.0 section 3.5.2 (llvmpipe's rectangular lines), two triangles;
 *  - triangles: sp_setup.c sp_setup_tri: vertices sorted by y, fp32 edge
 *    slopes, scan lines at pixel centres (half_pixel_center) with the
 *    top-inclusive/bottom-exclusive, left-exclusive/right-inclusive rule
 *    that its (int)(x + 0.5) produces, spans flushed in 2-row bands as quads
 *    left to right, clipped to the scissor/framebuffer rectangle;
 *    rasterizer.bottom_edge_rule is ignored, as softpipe ignores it;
 *  - interpolation: sp_setup.c coefficients (a0, dadx, dady per input) and
 *    tgsi_exec.c eval_*_coef per quad (perspective: divided by the
 *    interpolated 1/w).
 * Points and lines are front-facing (GL ES 3.0 §3.5.1); softpipe derives a
 * facing for the triangles it makes of them, which can be "back".
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "package.h"
#include "pipe_types.h"

namespace vlgpu::sim {

/** Point size range in pixels (GL ES 3.0 ALIASED_POINT_SIZE_RANGE as the
 * driver advertises it, the same as softpipe's PIPE_CAPF_*_POINT_SIZE). */
constexpr float kMinPointSize = 1.0f;
constexpr float kMaxPointSize = 255.0f;
/** Line width range in pixels (ALIASED_LINE_WIDTH_RANGE, softpipe's). */
constexpr float kMinLineWidth = 1.0f;
constexpr float kMaxLineWidth = 255.0f;

/** One FS input-map entry resolved against the vertex layout. */
struct FsInput {
   uint8_t reg = 0;  /**< destination register */
   uint8_t mask = 0; /**< components written */
   vlg_input_semantic semantic = VLG_INPUT_SEMANTIC_VARYING;
   vlg_interp interp = VLG_INTERP_PERSPECTIVE; /**< VARYING: PERSPECTIVE, LINEAR or FLAT */
   int16_t slot = -1;   /**< vertex slot of the VARYING (-1: VS does not write it: reads 0) */
   bool sprite = false; /**< VARYING replaced by the point coordinate for sprites */
};

/** Rectangle fragments may be generated in (scissor ∩ framebuffer), pixels,
 * max exclusive (softpipe compute_cliprect). */
struct Cliprect {
   int minx = 0, miny = 0, maxx = 0, maxy = 0;
};

/** PE state of one draw (make_pe_state). */
struct PeState {
   VLG_RASTERIZER rast = {};
   float scale[3] = {}, translate[3] = {}; /**< viewport transform */
   float planes[6 + 8][4] = {};            /**< frustum planes 0..5, user planes 6..13 */
   uint32_t clip_planes = 0;               /**< planes tested: bit i = planes[i] */
   /** User planes 6..13 are gl_ClipDistance[0..7] from these vertex slots
    *  (VertexLayout::clipdist_slot) instead of planes[] . position. */
   bool clip_distances = false;
   int clipdist_slot[2] = {-1, -1};
   /** Largest layer a primitive may write: the smallest layers - 1 of the
    *  framebuffer's surfaces (docs/hw.md "Layered rendering"; softpipe
    *  sp_setup_prepare clamps the same way). */
   uint32_t max_layer = 0;
   Cliprect cliprect;
   float pixel_offset = 0.5f; /**< 0.5 with half_pixel_center, else 0 */
   VertexLayout layout;
   FsInput inputs[kMaxShaderIo];
   unsigned num_inputs = 0;
   /** Slots the clipper interpolates: perspective-correctly, with the
    * screen-space t (noperspective), or copies from the provoking vertex. */
   std::vector<uint8_t> persp_slots, linear_slots, flat_slots;
   bool offset = false;       /**< polygon offset on filled triangles (offset_tri) */
   /** rasterizer.fill_front or fill_back is not FILL: triangles go through
    *  the polygon-mode path (docs/hw.md "Polygon modes") */
   bool unfilled = false;
   float offset_units = 0.0f; /**< draw_pipe_offset: units * mrd * 2 (unorm) or units (float) */
   float offset_scale = 0.0f, offset_clamp = 0.0f;
   bool float_depth = false;     /**< depth buffer is Z32F: units scale with max |z| */
   bool wide_lines = false;      /**< lines become two triangles */
   float line_width = 1.0f;      /**< clamped width */
   bool sprites = false;         /**< points become two triangles (point_quad_rasterization) */
   unsigned sprite_varyings = 0; /**< sprite_coord_enable */
   /** framebuffer.samples as a count: 1 or 4 (docs/hw.md "Multisampling"). */
   unsigned samples = 1;
   /** samples == 4 and rasterizer.multisample: triangles are sampled at the
    * 4 sample positions (else every sample gets the pixel's coverage). */
   bool msaa = false;
};

/**
 * Derive the PE state from a validated package and the vertex layout the GE
 * uses (make_ge_state). Resolves the FS input map: VARYING n -> its vertex
 * slot; sprite_coord_enable; the clipper's attribute classes.
 */
PeState make_pe_state(const DrawPackage &pkg, const VertexLayout &layout);

/**
 * Post-VS vertex processing (draw_cliptest_tmp.h): compute the clip mask of
 * the vertex at @v (layout of @s) from its clip position and, if the mask is
 * 0, its window position (kWinPos: x, y, z after divide and viewport, w =
 * 1/w_clip). Returns the clip mask.
 */
uint32_t pe_post_vs(const PeState &s, float *v);

/** Receives what the PE produces for one primitive: one PrimSetup per
 * rasterised triangle/line/point, followed by its quads (in the order the OMU
 * must apply them). */
class QuadSink {
 public:
   virtual ~QuadSink() = default;
   /** A new primitive setup; the quads that follow belong to it. Valid until
    * the next call to primitive(). */
   virtual void primitive(const PrimSetup &setup) = 0;
   /** @n quads (n <= 8) of the current primitive. */
   virtual void quads(const Quad *q, unsigned n) = 0;
};

/** PE counters (per draw, summed over primitives). */
struct PeStats {
   uint64_t prims_in = 0;      /**< primitives received from the GE */
   uint64_t prims_clipped = 0; /**< primitives that needed clipping (partly outside a plane) */
   uint64_t prims_trivially_rejected = 0; /**< all vertices outside one plane, or NaN */
   uint64_t prims_culled = 0;             /**< triangles dropped by face culling or for zero area */
   uint64_t triangles_setup = 0;          /**< triangles set up (after clipping and expansion) */
   uint64_t lines_setup = 0;              /**< 1-pixel lines set up */
   uint64_t points_setup = 0;             /**< legacy points set up */
   uint64_t quads = 0;                    /**< quads emitted */
   uint64_t fragments = 0;                /**< covered lanes in those quads */
};

/**
 * The PE for one draw: processes assembled primitives in draw order. Holds
 * scratch storage for vertices made by clipping and by point/line expansion
 * (no allocation per primitive).
 */
class PrimitiveEngine {
 public:
   explicit PrimitiveEngine(const PeState &s);

   /** Clip, cull, expand, set up and rasterise one primitive whose vertices
    * (pe_post_vs done) are @v[0..n-1] in assembly order (Primitive).
    * @primitive_id: the FS input PRIMITIVE_ID of its fragments unless the
    * layout has a GS output PRIMITIVE_ID, which the provoking vertex gives
    * (the GE's count of the instance's primitives without a GS). */
   void process(const VertexRef *v, unsigned n, QuadSink &sink, uint32_t primitive_id = 0,
                uint8_t edges = Primitive::kAllEdges);

   const PeStats &stats() const { return stats_; }

 private:
   void point(const VertexRef &v, QuadSink &sink);
   void line(VertexRef v0, VertexRef v1, QuadSink &sink);
   void triangle(const VertexRef &v0, const VertexRef &v1, const VertexRef &v2, QuadSink &sink);
   void clip_line(const VertexRef &v0, const VertexRef &v1, uint32_t mask, QuadSink &sink);
   void clip_triangle(const VertexRef *v, uint32_t mask, uint8_t edges, QuadSink &sink);
   void after_clip_tri(float *v0, float *v1, float *v2, uint8_t edges, QuadSink &sink);
   void offset_copies(const float *v0, const float *v1, const float *v2, float *c[3]);
   void polygon_offset(float *const c[3], float det) const;
   void unfilled_tri(float *v0, float *v1, float *v2, uint8_t edges, vlg_polygon_mode mode,
                     float det, QuadSink &sink);
   bool edge_flag(const float *v) const;
   void after_clip_line(float *v0, float *v1, QuadSink &sink);
   void after_clip_line_rectangle(float *v0, float *v1, const float *prov, QuadSink &sink);
   float line_plane_distance(const float *v, unsigned plane) const;
   uint32_t line_guard_mask(const float *v, uint32_t clipmask) const;
   void after_clip_point(float *v0, QuadSink &sink);
   float *tmp(unsigned i) { return &scratch_[size_t(i) * floats_]; }

   const PeState &s_;
   unsigned floats_;
   std::vector<float> scratch_;
   PrimSetup setup_;
   PeStats stats_;
};

/** Copy what the fragment stages read of @src (the interpolation of its
 *  first @num_inputs FS inputs, facing, kind, PRIMITIVE_ID) into @dst: a
 *  sink keeps a primitive's setup while its quads are in flight. */
inline void
pe_copy_setup(PrimSetup &dst, const PrimSetup &src, unsigned num_inputs)
{
   dst.pos = src.pos;
   std::memcpy(dst.in, src.in, sizeof(InterpCoef) * num_inputs);
   std::memcpy(dst.mode, src.mode, num_inputs);
   dst.back_facing = src.back_facing;
   dst.kind = src.kind;
   dst.primitive_id = src.primitive_id;
   dst.layer = src.layer;
   dst.layer_input = src.layer_input;
}

/**
 * Triangle setup and rasterisation of one triangle in window coordinates
 * (sp_setup.c sp_setup_tri): @v0..v2 in layout of @s with kWinPos set,
 * @provoking = 0 or 2 (flat inputs), @kind what the triangle comes from,
 * @cull whether face culling applies (triangles; not sprites/wide lines).
 * Calls sink.primitive() then sink.quads(). Returns false if the triangle
 * was culled or has zero area / non-finite coordinates.
 */
bool pe_setup_triangle(const PeState &s, const float *v0, const float *v1, const float *v2,
                       unsigned provoking, PrimKind kind, bool cull, PrimSetup &setup,
                       QuadSink &sink, PeStats &stats);

/** Setup and Bresenham rasterisation of a 1-pixel line (sp_setup_line). */
bool pe_setup_line(const PeState &s, const float *v0, const float *v1, PrimSetup &setup,
                   QuadSink &sink, PeStats &stats);

/** Setup and rasterisation of a legacy (non-sprite) point (sp_setup_point). */
void pe_setup_point(const PeState &s, const float *v0, float size, PrimSetup &setup, QuadSink &sink,
                    PeStats &stats);

/**
 * FS input values of the 4 lanes of @q (tgsi_exec.c eval_*_coef and
 * sp_fs_exec.c setup_pos_vector): out[i][lane][c] for each input-map entry i
 * of @s, as 32-bit words (fp32, or for FACE the ~0u/0 boolean). Components
 * outside an entry's mask are not written.
 */
void pe_interpolate_quad(const PeState &s, const PrimSetup &setup, const Quad &q,
                         uint32_t (*out)[4][4]);

/** Window depth of the 4 samples of the 4 lanes of @q (4-sample framebuffers):
 * z[lane][s] = the depth plane at sample position s of the lane's pixel
 * (kSamplePos4x), i.e. the pixel-centre depth of pe_quad_depth plus the
 * plane's slopes times the sample's offset from the centre. */
void pe_sample_depth(const PrimSetup &setup, const Quad &q, float z[4][kMsaaSamples]);

/** Interpolated window depth of the 4 lanes of @q (sp_quad_depth_test.c
 * interpolate_quad_depth; the same value as FRAG_COORD.z). */
void pe_quad_depth(const PrimSetup &setup, const Quad &q, float z[4]);

} // namespace vlgpu::sim
