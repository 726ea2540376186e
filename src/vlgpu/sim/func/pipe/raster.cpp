/*
 * vlgpu simulator, functional pipeline: PE (see raster.h for the rules and
 * their sources). Comments name the softpipe/draw function each piece
 * mirrors; keep the order of fp32 operations when editing.
 */
#include "raster.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "common/bits.h"
#include "sim/func/tex/format.h"

namespace vlgpu::sim {

namespace {

/** (int)f as x86-64's cvttss2si computes it (what softpipe's casts do):
 * truncation, INT_MIN for NaN and out-of-range values, without C++ UB. */
inline int
trunc_int(float f)
{
   if (!(f > -2147483648.0f && f < 2147483648.0f))
      return INT_MIN;
   return int(f);
}
inline int
trunc_int(double f)
{
   if (!(f > -2147483649.0 && f < 2147483648.0))
      return INT_MIN;
   return int(f);
}

/** @f truncated to an integer, saturated at +-2^62 (NaN: -2^62): row and
 *  column arithmetic of far-off-screen vertices (window coordinates beyond
 *  int, e.g. from a huge viewport) in 64 bits cannot overflow, and the clip
 *  rectangle brings every result back into int range. */
inline int64_t
trunc_int64(float f)
{
   constexpr float kLimit = 4611686018427387904.0f; /* 2^62 */
   if (!(f > -kLimit))
      return -(int64_t(1) << 62);
   if (!(f < kLimit))
      return int64_t(1) << 62;
   return int64_t(f);
}

inline bool
inf_or_nan(float f)
{
   return !std::isfinite(f);
}

/* Signed distance of vertex @v (layout of @s) to clip plane @plane (0..13):
 * planes[plane] . clip position (draw_pipe_clip.c getclipdist), except user
 * planes 6..13 when the last vertex stage writes gl_ClipDistance: distance
 * plane - 6 (0 where it writes none). Kept where >= 0. */
inline float
pe_plane_distance(const PeState &s, const float *v, unsigned plane)
{
   if (plane >= 6 && s.clip_distances) {
      const unsigned i = plane - 6;
      const int slot = s.clipdist_slot[i / 4];
      return slot >= 0 ? v[unsigned(slot) * 4 + i % 4] : 0.0f;
   }
   const float *p = s.planes[plane];
   return v[0] * p[0] + v[1] * p[1] + v[2] * p[2] + v[3] * p[3];
}

inline int
block(int x)
{
   return x & ~(2 - 1);
}

inline int
block_x(int x)
{
   return x & ~(16 - 1);
}

enum : uint8_t { kModeConst = 0, kModeLinear = 1, kModePersp = 2 };

constexpr uint8_t kPop4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* Scratch vertex slots of the PrimitiveEngine. */
constexpr unsigned kMaxClipped = 2 * (6 + 8) + 1; /* draw_pipe_clip.c MAX_CLIPPED_VERTICES */
constexpr unsigned kClipTmp = 0;                  /* kMaxClipped + 1 slots */
constexpr unsigned kOffsetTmp = kClipTmp + kMaxClipped + 1; /* 3 slots */
constexpr unsigned kExpandTmp = kOffsetTmp + 3;             /* 4 slots */
constexpr unsigned kFlatTmp = kExpandTmp + 4;               /* 2 slots (line clip) */
constexpr unsigned kNumTmp = kFlatTmp + 2;

/** Mode of FS input @in for a primitive of @kind (sp_setup.c: points make
 * LINEAR constant). Returns the vertex slot to read in @slot (-1: zeros). */
inline uint8_t
input_mode(const FsInput &in, PrimKind kind, bool sprite_prim, int &slot)
{
   slot = in.slot;
   vlg_interp interp = in.interp;
   if (in.semantic == VLG_INPUT_SEMANTIC_POINT_COORD) {
      if (!sprite_prim) {
         slot = -1;
         return kModeConst;
      }
      slot = VertexLayout::kPointCoord;
      interp = VLG_INTERP_PERSPECTIVE; /* nir_to_tgsi declares PCOORD smooth */
   } else if (in.sprite && sprite_prim) {
      slot = VertexLayout::kPointCoord;
   }
   if (slot < 0)
      return kModeConst;
   switch (interp) {
   case VLG_INTERP_FLAT:
      return kModeConst;
   case VLG_INTERP_LINEAR:
      return kind == PrimKind::Point && !sprite_prim ? kModeConst : kModeLinear;
   default:
      return kModePersp;
   }
}

inline bool
is_interpolated(const FsInput &in)
{
   return in.semantic == VLG_INPUT_SEMANTIC_VARYING ||
          in.semantic == VLG_INPUT_SEMANTIC_CLIP_DISTANCE ||
          in.semantic == VLG_INPUT_SEMANTIC_POINT_COORD;
}

/* ------------------------------------------------------------------------
 * Triangle setup and rasterisation: sp_setup.c
 * ------------------------------------------------------------------------ */

struct Edge {
   float dx, dy, dxdy, sx, sy;
   int64_t lines; /**< rows (trunc_int64: a far-off-screen edge has more than int holds) */
};

struct TriSetup {
   const float *vmin, *vmid, *vmax, *vprovoke;
   Edge ebot, etop, emaj;
   float oneoverarea;
   float pixel_offset;
};

/** tri_linear_coeff */
inline void
tri_linear_coeff(const TriSetup &t, InterpCoef &c, unsigned i, float v0, float v1, float v2)
{
   const float botda = v1 - v0;
   const float majda = v2 - v0;
   const float a = t.ebot.dy * majda - botda * t.emaj.dy;
   const float b = t.emaj.dx * botda - majda * t.ebot.dx;
   const float dadx = a * t.oneoverarea;
   const float dady = b * t.oneoverarea;
   c.dadx[i] = dadx;
   c.dady[i] = dady;
   c.a0[i] = v0 - (dadx * (t.vmin[4] - t.pixel_offset) + dady * (t.vmin[5] - t.pixel_offset));
}

/** tri_persp_coeff: tri_linear_coeff of the values times each vertex's w
 *  (the same operations in the same order as sp_setup.c's own copy). */
inline void
tri_persp_coeff(const TriSetup &t, InterpCoef &c, unsigned i, float v0, float v1, float v2)
{
   tri_linear_coeff(t, c, i, v0 * t.vmin[7], v1 * t.vmid[7], v2 * t.vmax[7]);
}

inline void
const_coeff(InterpCoef &c, unsigned i, float v)
{
   c.dadx[i] = 0.0f;
   c.dady[i] = 0.0f;
   c.a0[i] = v;
}

/**
 * The loop over the FS inputs that setup_tri_coefficients, setup_line and
 * setup_point share (sp_setup.c): for every interpolated input i of a
 * primitive of @kind, ps.mode[i] = its mode; each enabled component j read
 * from no vertex slot is the constant 0 (1 for gl_PointCoord's w), every
 * other is left to @coeff(ps.in[i], j, o, mode), o = the component's float
 * offset in a vertex.
 */
template <typename F>
inline void
setup_input_coefficients(const PeState &s, PrimSetup &ps, PrimKind kind, bool sprite_prim,
                         F &&coeff)
{
   for (unsigned i = 0; i < s.num_inputs; i++) {
      const FsInput &in = s.inputs[i];
      if (!is_interpolated(in))
         continue;
      int slot;
      const uint8_t mode = input_mode(in, kind, sprite_prim, slot);
      ps.mode[i] = mode;
      InterpCoef &c = ps.in[i];
      for (unsigned j = 0; j < 4; j++) {
         if (!(in.mask >> j & 1))
            continue;
         if (slot < 0) {
            const_coeff(c, j,
                        in.semantic == VLG_INPUT_SEMANTIC_POINT_COORD && j == 3 ? 1.0f : 0.0f);
            continue;
         }
         coeff(c, j, unsigned(slot) * 4 + j, mode);
      }
   }
}

/** Quad emission of one primitive: announces the setup to the sink before
 * the first quads, counts quads and fragments. */
struct QuadOut {
   QuadSink &sink;
   const PrimSetup &setup;
   PeStats &stats;
   /** 4-sample framebuffer: quads without sample coverage (single-sample
    * rule) get all 4 samples of each covered lane (docs/hw.md
    * "Multisampling"). */
   bool expand = false;
   bool announced = false;

   void emit(const Quad *q, unsigned n)
   {
      if (!n)
         return;
      if (!announced) {
         sink.primitive(setup);
         announced = true;
      }
      for (unsigned i = 0; i < n; i++)
         stats.fragments += kPop4[q[i].mask & 0xf];
      stats.quads += n;
      if (expand) {
         Quad e[8];
         for (unsigned i = 0; i < n; i++) {
            e[i] = q[i];
            if (!e[i].samples)
               for (unsigned l = 0; l < 4; l++)
                  if (e[i].mask >> l & 1)
                     e[i].samples |= uint16_t(0xfu << (4 * l));
         }
         sink.quads(e, n);
         return;
      }
      sink.quads(q, n);
   }
};

/**
 * 4-sample rasterisation of a triangle in window coordinates (docs/hw.md
 * "Multisampling"): positions rounded to 1/256 pixel, the edge functions
 * evaluated exactly (64-bit integers) at the 4 sample positions of every
 * pixel of the bounding box within @clip, D3D top-left rule for samples on an
 * edge. Quads with a covered sample are emitted in 2-row bands top to bottom,
 * left to right, at most 8 per run.
 */
void
raster_tri_msaa(const Cliprect &clip, float pixel_offset, const float *v0, const float *v1,
                const float *v2, QuadOut &out)
{
   constexpr int kOrder = 8;
   constexpr double kOne = double(1 << kOrder);
   /* sample positions are relative to the pixel's corner with
    * half_pixel_center; without it the pixel centre is the integer point */
   const double shift = 0.5 - double(pixel_offset);
   int64_t px[3], py[3];
   const float *v[3] = {v0, v1, v2};
   for (int i = 0; i < 3; i++) {
      const double x = (double(v[i][4]) + shift) * kOne, y = (double(v[i][5]) + shift) * kOne;
      if (!(std::fabs(x) < 4e15) || !(std::fabs(y) < 4e15))
         return;
      px[i] = std::llround(x);
      py[i] = std::llround(y);
   }
   if (std::max({std::llabs(px[0]), std::llabs(px[1]), std::llabs(px[2]), std::llabs(py[0]),
                 std::llabs(py[1]), std::llabs(py[2])}) > (int64_t(1) << 28))
      return; /* outside any framebuffer by far (clipping keeps them in the viewport) */
   const int64_t area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
   if (area == 0)
      return;
   if (area < 0) {
      std::swap(px[1], px[2]);
      std::swap(py[1], py[2]);
   }
   /* edge i from vertex i to i+1; inside: E > 0, or E == 0 on a top edge
    * (dy == 0, dx > 0: the triangle lies below) or a left edge (dy < 0) */
   int64_t ex[3], ey[3], ec[3];
   for (int i = 0; i < 3; i++) {
      const int j = (i + 1) % 3;
      const int64_t dx = px[j] - px[i], dy = py[j] - py[i];
      const bool top_left = dy < 0 || (dy == 0 && dx > 0);
      /* E(p) = dx * (p.y - y_i) - dy * (p.x - x_i); bias so that inside is E > 0 */
      ex[i] = -dy;
      ey[i] = dx;
      ec[i] = dy * px[i] - dx * py[i] + (top_left ? 1 : 0);
   }
   const int64_t minx = std::min({px[0], px[1], px[2]}) >> kOrder;
   const int64_t maxx = (std::max({px[0], px[1], px[2]}) >> kOrder) + 1;
   const int64_t miny = std::min({py[0], py[1], py[2]}) >> kOrder;
   const int64_t maxy = (std::max({py[0], py[1], py[2]}) >> kOrder) + 1;
   const int x0 = int(std::max<int64_t>(minx, clip.minx)) & ~1;
   const int x1 = int(std::min<int64_t>(maxx, clip.maxx));
   const int y0 = int(std::max<int64_t>(miny, clip.miny)) & ~1;
   const int y1 = int(std::min<int64_t>(maxy, clip.maxy));
   int64_t sx[kMsaaSamples], sy[kMsaaSamples];
   for (unsigned s = 0; s < kMsaaSamples; s++) {
      sx[s] = int64_t(kSamplePos4x[s][0] * kOne);
      sy[s] = int64_t(kSamplePos4x[s][1] * kOne);
   }
   Quad q[8];
   for (int y = y0; y < y1; y += 2) {
      unsigned n = 0;
      for (int x = x0; x < x1; x += 2) {
         Quad qd{x, y, 0};
         for (unsigned l = 0; l < 4; l++) {
            const int fx = x + int(l & 1), fy = y + int(l >> 1);
            if (fx < clip.minx || fx >= clip.maxx || fy < clip.miny || fy >= clip.maxy)
               continue;
            for (unsigned s = 0; s < kMsaaSamples; s++) {
               const int64_t X = (int64_t(fx) << kOrder) + sx[s];
               const int64_t Y = (int64_t(fy) << kOrder) + sy[s];
               bool in = true;
               for (int e = 0; e < 3 && in; e++)
                  in = ex[e] * X + ey[e] * Y + ec[e] > 0;
               if (in)
                  qd.samples |= uint16_t(1u << (4 * l + s));
            }
            if (qd.samples >> (4 * l) & 0xf)
               qd.mask |= uint8_t(1u << l);
         }
         if (qd.mask) {
            q[n++] = qd;
            if (n == 8) {
               out.emit(q, n);
               n = 0;
            }
         }
      }
      out.emit(q, n);
   }
}

struct Spans {
   int left[2] = {1000000, 1000000};
   int right[2] = {0, 0};
   int y = 0;
};

/** flush_spans */
void
flush_spans(Spans &sp, QuadOut &out)
{
   const int step = 16;
   const int xleft0 = sp.left[0], xleft1 = sp.left[1];
   const int xright0 = sp.right[0], xright1 = sp.right[1];
   const int minleft = block_x(std::min(xleft0, xleft1));
   const int maxright = std::max(xright0, xright1);
   Quad q[8];
   for (int x = minleft; x < maxright; x += step) {
      const unsigned skip_left0 = unsigned(std::clamp(xleft0 - x, 0, step));
      const unsigned skip_left1 = unsigned(std::clamp(xleft1 - x, 0, step));
      const unsigned skip_right0 = unsigned(std::clamp(x + step - xright0, 0, step));
      const unsigned skip_right1 = unsigned(std::clamp(x + step - xright1, 0, step));
      const unsigned skipmask_left0 = (1u << skip_left0) - 1u;
      const unsigned skipmask_left1 = (1u << skip_left1) - 1u;
      const unsigned skipmask_right0 = ~0u << unsigned(step - int(skip_right0));
      const unsigned skipmask_right1 = ~0u << unsigned(step - int(skip_right1));
      unsigned mask0 = ~skipmask_left0 & ~skipmask_right0;
      unsigned mask1 = ~skipmask_left1 & ~skipmask_right1;
      unsigned n = 0;
      int lx = x;
      while (mask0 | mask1) {
         const unsigned quadmask = (mask0 & 3) | ((mask1 & 3) << 2);
         if (quadmask)
            q[n++] = Quad{lx, sp.y, uint8_t(quadmask)};
         mask0 >>= 2;
         mask1 >>= 2;
         lx += 2;
      }
      out.emit(q, n);
   }
   sp.y = 0;
   sp.right[0] = sp.right[1] = 0;
   sp.left[0] = sp.left[1] = 1000000;
}

/** subtriangle */
void
subtriangle(const Cliprect &clip, Spans &sp, QuadOut &out, Edge &eleft, Edge &eright,
            int64_t lines)
{
   /* rows and columns in 64 bits, clipped back into int (trunc_int64) */
   const int64_t sy = trunc_int64(eleft.sy);
   const int64_t start_y = std::max<int64_t>(sy, clip.miny) - sy;
   const int64_t finish_y = std::min<int64_t>(sy + lines, clip.maxy) - sy;
   for (int64_t y = start_y; y < finish_y; y++) {
      const int left = int(
         std::max<int64_t>(trunc_int64(eleft.sx + float(y) * eleft.dxdy), clip.minx));
      const int right = int(
         std::min<int64_t>(trunc_int64(eright.sx + float(y) * eright.dxdy), clip.maxx));
      if (left < right) {
         const int yy = int(sy + y);
         if (block(yy) != sp.y) {
            flush_spans(sp, out);
            sp.y = block(yy);
         }
         sp.left[yy & 1] = left;
         sp.right[yy & 1] = right;
      }
   }
   eleft.sx += float(lines) * eleft.dxdy;
   eright.sx += float(lines) * eright.dxdy;
   eleft.sy += float(lines);
   eright.sy += float(lines);
}

/** setup_sort_vertices: vmin, vmid, vmax of the triangle by window y (word
 *  5), for vertices @a, @b, @c with y(a) <= y(b); ties keep softpipe's order
 *  (its two branches are this with (v0, v1) and with (v1, v0)). */
void
sort_vertices(TriSetup &t, const float *a, const float *b, const float *c)
{
   if (b[5] <= c[5])
      t.vmin = a, t.vmid = b, t.vmax = c;
   else if (c[5] <= a[5])
      t.vmin = c, t.vmid = a, t.vmax = b;
   else
      t.vmin = a, t.vmid = c, t.vmax = b;
}

/** setup_tri_edges */
void
setup_tri_edges(TriSetup &t)
{
   const float vmin_x = t.vmin[4] + t.pixel_offset;
   const float vmid_x = t.vmid[4] + t.pixel_offset;
   const float vmin_y = t.vmin[5] - t.pixel_offset;
   const float vmid_y = t.vmid[5] - t.pixel_offset;
   const float vmax_y = t.vmax[5] - t.pixel_offset;

   t.emaj.sy = std::ceil(vmin_y);
   t.emaj.lines = trunc_int64(std::ceil(vmax_y - t.emaj.sy));
   t.emaj.dxdy = t.emaj.dy != 0.0f ? t.emaj.dx / t.emaj.dy : 0.0f;
   t.emaj.sx = vmin_x + (t.emaj.sy - vmin_y) * t.emaj.dxdy;

   t.etop.sy = std::ceil(vmid_y);
   t.etop.lines = trunc_int64(std::ceil(vmax_y - t.etop.sy));
   t.etop.dxdy = t.etop.dy != 0.0f ? t.etop.dx / t.etop.dy : 0.0f;
   t.etop.sx = vmid_x + (t.etop.sy - vmid_y) * t.etop.dxdy;

   t.ebot.sy = std::ceil(vmin_y);
   t.ebot.lines = trunc_int64(std::ceil(vmid_y - t.ebot.sy));
   t.ebot.dxdy = t.ebot.dy != 0.0f ? t.ebot.dx / t.ebot.dy : 0.0f;
   t.ebot.sx = vmin_x + (t.ebot.sy - vmin_y) * t.ebot.dxdy;
}

/** FS-input coefficients for a triangle (setup_tri_coefficients). */
void
setup_tri_coefficients(const PeState &s, const TriSetup &t, PrimSetup &ps, bool sprite_prim)
{
   /* window position is slot 1: floats 4..7 */
   tri_linear_coeff(t, ps.pos, 2, t.vmin[6], t.vmid[6], t.vmax[6]);
   tri_linear_coeff(t, ps.pos, 3, t.vmin[7], t.vmid[7], t.vmax[7]);
   setup_input_coefficients(s, ps, ps.kind, sprite_prim,
                            [&](InterpCoef &c, unsigned j, unsigned o, uint8_t mode) {
                               switch (mode) {
                               case kModeConst:
                                  const_coeff(c, j, t.vprovoke[o]);
                                  break;
                               case kModeLinear:
                                  tri_linear_coeff(t, c, j, t.vmin[o], t.vmid[o], t.vmax[o]);
                                  break;
                               default:
                                  tri_persp_coeff(t, c, j, t.vmin[o], t.vmid[o], t.vmax[o]);
                                  break;
                               }
                            });
}

/** calc_det (sp_setup.c) = cull_tri's det (draw_pipe_cull.c). */
inline float
calc_det(const float *v0, const float *v1, const float *v2)
{
   const float ex = v0[4] - v2[4];
   const float ey = v0[5] - v2[5];
   const float fx = v1[4] - v2[4];
   const float fy = v1[5] - v2[5];
   return ex * fy - ey * fx;
}

/** quad_clip (sp_setup.c) */
inline uint8_t
quad_clip(const Cliprect &c, int x0, int y0, uint8_t mask)
{
   if (x0 >= c.maxx || y0 >= c.maxy || x0 + 1 < c.minx || y0 + 1 < c.miny)
      return 0;
   if (x0 < c.minx)
      mask &= (2 | 8);
   if (y0 < c.miny)
      mask &= (4 | 8);
   if (x0 == c.maxx - 1)
      mask &= (4 | 1);
   if (y0 == c.maxy - 1)
      mask &= (1 | 2);
   return mask;
}

inline void
copy_slots(float *dst, const float *src, const std::vector<uint8_t> &slots)
{
   for (uint8_t sl : slots)
      std::memcpy(dst + sl * 4, src + sl * 4, 16);
}

} // namespace

/* ------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------ */

PeState
make_pe_state(const DrawPackage &pkg, const VertexLayout &layout)
{
   PeState s;
   s.rast = pkg.pipe.rasterizer;
   const VLG_RASTERIZER &r = s.rast;
   const VLG_VIEWPORT &vp = pkg.pipe.viewport;
   for (unsigned i = 0; i < 3; i++) {
      s.scale[i] = vp.scale[i];
      s.translate[i] = vp.translate[i];
   }
   /* draw_context.c draw_create / draw_pt_post_vs.c (halfz) */
   static const float frustum[6][4] = {{-1, 0, 0, 1}, {1, 0, 0, 1}, {0, -1, 0, 1},
                                       {0, 1, 0, 1},  {0, 0, 1, 1}, {0, 0, -1, 1}};
   std::memcpy(s.planes, frustum, sizeof(frustum));
   if (r.clip_halfz)
      s.planes[4][3] = 0.0f;
   for (unsigned i = 0; i < 8; i++) {
      const VLG_CLIP_PLANE &p = pkg.pipe.clip.plane[i];
      s.planes[6 + i][0] = p.a;
      s.planes[6 + i][1] = p.b;
      s.planes[6 + i][2] = p.c;
      s.planes[6 + i][3] = p.d;
   }
   s.clip_planes = 0xfu | (r.depth_clip_near ? 1u << 4 : 0) | (r.depth_clip_far ? 1u << 5 : 0) |
                   ((r.clip_plane_enable & 0xffu) << 6);
   s.clipdist_slot[0] = layout.clipdist_slot[0];
   s.clipdist_slot[1] = layout.clipdist_slot[1];
   s.clip_distances = layout.has_clip_distances();

   s.samples = pkg.fb.samples == kMsaaSamples ? kMsaaSamples : 1;
   uint32_t layers = pkg.fb.zsbuf.format != VLG_FORMAT_NONE ? pkg.fb.zsbuf.layers : ~0u;
   for (unsigned i = 0; i < pkg.fb.nr_cbufs && i < kMaxColorBufs; i++)
      if (pkg.fb.cbufs[i].format != VLG_FORMAT_NONE)
         layers = std::min(layers, pkg.fb.cbufs[i].layers);
   s.max_layer = layers == ~0u || layers == 0 ? 0 : layers - 1;
   s.msaa = s.samples == kMsaaSamples && r.multisample;

   /* compute_cliprect */
   s.cliprect = Cliprect{0, 0, int(pkg.fb.width), int(pkg.fb.height)};
   if (r.scissor_enable) {
      const VLG_SCISSOR &sc = pkg.pipe.scissor;
      s.cliprect.minx = std::max(int(sc.minx), 0);
      s.cliprect.miny = std::max(int(sc.miny), 0);
      s.cliprect.maxx = std::min(int(sc.maxx), int(pkg.fb.width));
      s.cliprect.maxy = std::min(int(sc.maxy), int(pkg.fb.height));
   }
   s.pixel_offset = r.half_pixel_center ? 0.5f : 0.0f;
   s.layout = layout;

   const VLG_SHADER_STATE &fs = pkg.fs.state;
   s.num_inputs = fs.num_inputs;
   int slot_interp[64];
   for (int &v : slot_interp)
      v = -1;
   for (unsigned i = 0; i < fs.num_inputs; i++) {
      const VLG_SHADER_INPUT &in = fs.inputs[i];
      FsInput &f = s.inputs[i];
      f.reg = uint8_t(in.reg);
      f.mask = uint8_t(in.mask);
      f.semantic = in.semantic;
      f.interp = in.interp;
      if (in.semantic == VLG_INPUT_SEMANTIC_VARYING) {
         f.slot = int16_t(layout.varying_slot[in.index]);
         f.sprite = in.index < 32 && (r.sprite_coord_enable >> in.index & 1);
      } else if (in.semantic == VLG_INPUT_SEMANTIC_CLIP_DISTANCE) {
         f.slot = int16_t(in.index < 2 ? layout.clipdist_slot[in.index] : -1);
      }
      if (f.slot >= 0 && slot_interp[f.slot] < 0)
         slot_interp[f.slot] = int(in.interp);
   }
   /* clip distances the FS does not read are still interpolated by the
    * clipper, in clip space (draw_pipe_clip.c: perspective by default) */
   for (int sl : layout.clipdist_slot)
      if (sl >= 0 && slot_interp[sl] < 0)
         slot_interp[sl] = VLG_INTERP_PERSPECTIVE;
   for (unsigned sl = 0; sl < layout.num_slots && sl < 64; sl++) {
      switch (slot_interp[sl]) {
      case VLG_INTERP_FLAT:
         s.flat_slots.push_back(uint8_t(sl));
         break;
      case VLG_INTERP_LINEAR:
         s.linear_slots.push_back(uint8_t(sl));
         break;
      case VLG_INTERP_PERSPECTIVE:
         s.persp_slots.push_back(uint8_t(sl));
         break;
      default:
         break;
      }
   }

   /* draw_pipe_offset.c offset_first_tri; mrd: util_get_depth_format_mrd */
   s.offset = r.offset_tri;
   s.unfilled = r.fill_front != VLG_POLYGON_MODE_FILL || r.fill_back != VLG_POLYGON_MODE_FILL;
   const vlg_format zf = pkg.fb.zsbuf.format;
   s.float_depth = zf == VLG_FORMAT_Z32_FLOAT || zf == VLG_FORMAT_Z32_FLOAT_S8X24_UINT;
   double mrd = 1.0 / ((1 << 24) - 1);
   if (zf == VLG_FORMAT_Z16_UNORM)
      mrd = 1.0 / ((1 << 16) - 1);
   s.offset_units = s.float_depth ? r.offset_units : float(double(r.offset_units) * mrd * 2);
   s.offset_scale = r.offset_scale;
   s.offset_clamp = r.offset_clamp;

   s.line_width = std::clamp(r.line_width, kMinLineWidth, kMaxLineWidth);
   /* draw_pipe_validate.c: wide_line_threshold 1 */
   s.wide_lines = s.line_width != 1.0f && std::round(s.line_width) > 1.0f;
   s.sprites = r.point_quad_rasterization;
   s.sprite_varyings = r.sprite_coord_enable;
   return s;
}

uint32_t
pe_post_vs(const PeState &s, float *v)
{
   const float *p = v; /* clip position, slot 0 */
   uint32_t mask = 0;
   /* draw_cliptest_tmp.h: NaNs make every test fail */
   if (!(-p[0] + p[3] >= 0))
      mask |= 1u << 0;
   if (!(p[0] + p[3] >= 0))
      mask |= 1u << 1;
   if (!(-p[1] + p[3] >= 0))
      mask |= 1u << 2;
   if (!(p[1] + p[3] >= 0))
      mask |= 1u << 3;
   if (s.clip_planes & (1u << 4)) {
      if (s.rast.clip_halfz ? !(p[2] >= 0) : !(p[2] + p[3] >= 0))
         mask |= 1u << 4;
   }
   if ((s.clip_planes & (1u << 5)) && !(-p[2] + p[3] >= 0))
      mask |= 1u << 5;
   for (uint32_t ucp = s.clip_planes >> 6; ucp; ucp &= ucp - 1) {
      const unsigned i = 6 + unsigned(__builtin_ctz(ucp));
      if (!(pe_plane_distance(s, v, i) >= 0))
         mask |= 1u << i;
   }
   if (mask == 0) {
      const float w = 1.0f / p[3];
      float *win = v + 4;
      win[0] = p[0] * w * s.scale[0] + s.translate[0];
      win[1] = p[1] * w * s.scale[1] + s.translate[1];
      win[2] = p[2] * w * s.scale[2] + s.translate[2];
      win[3] = w;
   }
   return mask;
}

/* ------------------------------------------------------------------------
 * Triangle, line and point setup
 * ------------------------------------------------------------------------ */

bool
pe_setup_triangle(const PeState &s, const float *v0, const float *v1, const float *v2,
                  unsigned provoking, PrimKind kind, bool cull, PrimSetup &ps, QuadSink &sink,
                  PeStats &stats)
{
   if (s.rast.rasterizer_discard)
      return false;
   const float det = calc_det(v0, v1, v2);
   TriSetup t;
   t.pixel_offset = s.pixel_offset;
   t.vprovoke = provoking == 0 ? v0 : v2;
   if (v0[5] <= v1[5])
      sort_vertices(t, v0, v1, v2);
   else
      sort_vertices(t, v1, v0, v2);
   t.ebot.dx = t.vmid[4] - t.vmin[4];
   t.ebot.dy = t.vmid[5] - t.vmin[5];
   t.emaj.dx = t.vmax[4] - t.vmin[4];
   t.emaj.dy = t.vmax[5] - t.vmin[5];
   t.etop.dx = t.vmax[4] - t.vmid[4];
   t.etop.dy = t.vmax[5] - t.vmid[5];
   const float area = t.emaj.dx * t.ebot.dy - t.ebot.dx * t.emaj.dy;
   t.oneoverarea = 1.0f / area;
   if (inf_or_nan(t.oneoverarea)) {
      stats.prims_culled++;
      return false;
   }
   /* 0 = front, 1 = back */
   const bool back = (det < 0.0f) != s.rast.front_ccw;
   if (cull) {
      const unsigned face = back ? VLG_FACE_BACK : VLG_FACE_FRONT;
      if (face & unsigned(s.rast.cull_face)) {
         stats.prims_culled++;
         return false;
      }
   }
   ps.kind = kind;
   ps.back_facing = kind == PrimKind::Triangle ? back : ps.polygon_back_facing;
   setup_tri_coefficients(s, t, ps, kind == PrimKind::Point);
   setup_tri_edges(t);
   stats.triangles_setup++;

   QuadOut out{sink, ps, stats, s.samples == kMsaaSamples};
   if (s.msaa) {
      raster_tri_msaa(s.cliprect, s.pixel_offset, v0, v1, v2, out);
      return true;
   }
   Spans sp;
   if (t.oneoverarea < 0.0f) {
      subtriangle(s.cliprect, sp, out, t.emaj, t.ebot, t.ebot.lines);
      subtriangle(s.cliprect, sp, out, t.emaj, t.etop, t.etop.lines);
   } else {
      subtriangle(s.cliprect, sp, out, t.ebot, t.emaj, t.ebot.lines);
      subtriangle(s.cliprect, sp, out, t.etop, t.emaj, t.etop.lines);
   }
   flush_spans(sp, out);
   return true;
}

bool
pe_setup_line(const PeState &s, const float *v0, const float *v1, PrimSetup &ps, QuadSink &sink,
              PeStats &stats)
{
   if (s.rast.rasterizer_discard)
      return false;
   /* int64: a viewport larger than int (a hardware word from a dump) puts
    * clipped endpoints beyond int, and a non-finite position saturates
    * (trunc_int64); the walk below skips to the cliprect. */
   const int64_t x0 = trunc_int64(v0[4]), x1 = trunc_int64(v1[4]);
   const int64_t y0 = trunc_int64(v0[5]), y1 = trunc_int64(v1[5]);
   const int64_t dx = x1 - x0; /* |.| <= 2^63 - 1: endpoints within +-2^62 */
   const int64_t dy = y1 - y0;
   if (dx == 0 && dy == 0)
      return false;

   /* setup_line_coefficients */
   const float *vprovoke = s.rast.flatshade_first ? v0 : v1;
   const float edx = v1[4] - v0[4];
   const float edy = v1[5] - v0[5];
   const float area = edx * edx + edy * edy;
   if (area == 0.0f || inf_or_nan(area))
      return false;
   const float oneoverarea = 1.0f / area;
   const float po = s.pixel_offset;
   auto linear = [&](InterpCoef &c, unsigned i, float a0v, float a1v) {
      const float da = a1v - a0v;
      const float dadx = da * edx * oneoverarea;
      const float dady = da * edy * oneoverarea;
      c.dadx[i] = dadx;
      c.dady[i] = dady;
      c.a0[i] = a0v - (dadx * (v0[4] - po) + dady * (v0[5] - po));
   };
   linear(ps.pos, 2, v0[6], v1[6]);
   linear(ps.pos, 3, v0[7], v1[7]);
   ps.kind = PrimKind::Line;
   ps.back_facing = ps.polygon_back_facing;
   setup_input_coefficients(s, ps, PrimKind::Line, false,
                            [&](InterpCoef &c, unsigned j, unsigned o, uint8_t mode) {
                               if (mode == kModeConst)
                                  const_coeff(c, j, vprovoke[o]);
                               else if (mode == kModeLinear)
                                  linear(c, j, v0[o], v1[o]);
                               else /* line_persp_coeff */
                                  linear(c, j, v0[o] * v0[7], v1[o] * v1[7]);
                            });
   stats.lines_setup++;

   QuadOut out{sink, ps, stats, s.samples == kMsaaSamples};
   Quad cur{-1, -1, 0};
   auto emit = [&](Quad q) {
      q.mask = quad_clip(s.cliprect, q.x, q.y, q.mask);
      if (q.mask)
         out.emit(&q, 1);
   };
   auto plot = [&](int x, int y) {
      const int iy = y & 1, ix = x & 1;
      const int qx = x - ix, qy = y - iy;
      const uint8_t m = uint8_t((1 << ix) << (2 * iy));
      if (qx != cur.x || qy != cur.y) {
         if (cur.x != -1)
            emit(cur);
         cur = Quad{qx, qy, 0};
      }
      cur.mask |= m;
   };
   /* Bresenham along the major axis, x when |dx| > |dy| (softpipe writes the
    * loop once per axis). Step i (0 <= i < dmajor) plots (major0 + i *
    * major_step, minor0 + j_i * minor_step), where the walk has stepped the
    * minor axis j_i = floor((2 dminor i + dmajor) / (2 dmajor)) times before
    * it and its error term is 2 dminor (i + 1) - dmajor - 2 dmajor j_i: that
    * closed form lets the walk start at the first step inside the cliprect
    * and stop after the last, with the pixels of the step-by-step walk (a
    * line is monotonic, so the skipped steps are clipped ones at its ends).
    * __int128: the products of lengths up to 2^63. */
   using i128 = __int128;
   const bool x_major = (dx < 0 ? -i128(dx) : i128(dx)) > (dy < 0 ? -i128(dy) : i128(dy));
   const int64_t major0 = x_major ? x0 : y0, minor0 = x_major ? y0 : x0;
   const int major_step = (x_major ? dx : dy) < 0 ? -1 : 1;
   const int minor_step = (x_major ? dy : dx) < 0 ? -1 : 1;
   const i128 dmajor = x_major ? (dx < 0 ? -i128(dx) : i128(dx)) : (dy < 0 ? -i128(dy) : i128(dy));
   const i128 dminor = x_major ? (dy < 0 ? -i128(dy) : i128(dy)) : (dx < 0 ? -i128(dx) : i128(dx));
   const int cmin = x_major ? s.cliprect.minx : s.cliprect.miny;
   const int cmax = x_major ? s.cliprect.maxx : s.cliprect.maxy; /* exclusive */
   const int nmin = x_major ? s.cliprect.miny : s.cliprect.minx;
   const int nmax = x_major ? s.cliprect.maxy : s.cliprect.maxx;
   /* steps whose major coordinate lies in [cmin, cmax) */
   i128 first = major_step > 0 ? i128(cmin) - major0 : i128(major0) - (cmax - 1);
   i128 last = major_step > 0 ? i128(cmax - 1) - major0 : i128(major0) - cmin;
   first = std::max<i128>(first, 0);
   last = std::min<i128>(last, dmajor - 1);
   const i128 errorInc = dminor + dminor;
   const i128 errorDec = errorInc - dmajor - dmajor;
   i128 j = first <= last ? (errorInc * first + dmajor) / (dmajor + dmajor) : 0;
   i128 error = errorInc * (first + 1) - dmajor - (dmajor + dmajor) * j;
   for (i128 i = first; i <= last; i++) {
      const i128 major = major0 + i * major_step, minor = minor0 + j * minor_step;
      if (minor >= nmin && minor < nmax) {
         if (x_major)
            plot(int(major), int(minor));
         else
            plot(int(minor), int(major));
      }
      if (error < 0) {
         error += errorInc;
      } else {
         error += errorDec;
         j++;
      }
   }
   if (cur.mask)
      emit(cur);
   return true;
}

void
pe_setup_point(const PeState &s, const float *v0, float size, PrimSetup &ps, QuadSink &sink,
               PeStats &stats)
{
   if (s.rast.rasterizer_discard)
      return;
   const float halfSize = 0.5f * size;
   const float x = v0[4], y = v0[5];
   const_coeff(ps.pos, 2, v0[6]);
   const_coeff(ps.pos, 3, v0[7]);
   ps.kind = PrimKind::Point;
   ps.back_facing = ps.polygon_back_facing;
   setup_input_coefficients(s, ps, PrimKind::Point, false,
                            [&](InterpCoef &c, unsigned j, unsigned o, uint8_t mode) {
                               /* point_persp_coeff: a0 = v * w, divided by w again
                                * per fragment */
                               const_coeff(c, j, mode == kModePersp ? v0[o] * v0[7] : v0[o]);
                            });
   stats.points_setup++;

   QuadOut out{sink, ps, stats, s.samples == kMsaaSamples};
   auto emit = [&](int qx, int qy, uint8_t m) {
      Quad q{qx, qy, quad_clip(s.cliprect, qx, qy, m)};
      if (q.mask)
         out.emit(&q, 1);
   };
   if (halfSize <= 0.5f) {
      const int ix = trunc_int(x) & 1;
      const int iy = trunc_int(y) & 1;
      emit(trunc_int(x) - ix, trunc_int(y) - iy, uint8_t((1 << ix) << (2 * iy)));
      return;
   }
   /* square points; the constants are doubles in sp_setup.c */
   const int xmin = trunc_int(double(x) + 0.75 - double(halfSize));
   const int ymin = trunc_int(double(y) + 0.25 - double(halfSize));
   const int xmax = xmin + trunc_int(size);
   const int ymax = ymin + trunc_int(size);
   const int ixmin = block(xmin), ixmax = block(xmax - 1);
   const int iymin = block(ymin), iymax = block(ymax - 1);
   for (int iy = iymin; iy <= iymax; iy += 2) {
      unsigned rowMask = 0xf;
      if (iy < ymin)
         rowMask &= (4 | 8);
      if (iy + 1 >= ymax)
         rowMask &= (1 | 2);
      for (int ix = ixmin; ix <= ixmax; ix += 2) {
         unsigned m = rowMask;
         if (ix < xmin)
            m &= (8 | 2);
         if (ix + 1 >= xmax)
            m &= (4 | 1);
         emit(ix, iy, uint8_t(m));
      }
   }
}

/* ------------------------------------------------------------------------
 * Interpolation
 * ------------------------------------------------------------------------ */

void
pe_sample_depth(const PrimSetup &ps, const Quad &q, float z[4][kMsaaSamples])
{
   float zc[4];
   pe_quad_depth(ps, q, zc);
   const float dzdx = ps.pos.dadx[2], dzdy = ps.pos.dady[2];
   for (unsigned s = 0; s < kMsaaSamples; s++) {
      const float off = dzdx * (kSamplePos4x[s][0] - 0.5f) + dzdy * (kSamplePos4x[s][1] - 0.5f);
      for (unsigned l = 0; l < 4; l++)
         z[l][s] = zc[l] + off;
   }
}

namespace {

/** Component @j of the plane @c (a0 + dadx * x + dady * y, sp_setup.c) at
 *  the four lanes of the quad whose top-left pixel is (@fx, @fy), in lane
 *  order (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1). */
void
quad_plane(const InterpCoef &c, unsigned j, float fx, float fy, float v[4])
{
   const float dadx = c.dadx[j], dady = c.dady[j];
   const float a0 = c.a0[j] + dadx * fx + dady * fy;
   v[0] = a0;
   v[1] = a0 + dadx;
   v[2] = a0 + dady;
   v[3] = a0 + dadx + dady;
}

} // namespace

void
pe_quad_depth(const PrimSetup &ps, const Quad &q, float z[4])
{
   quad_plane(ps.pos, 2, float(q.x), float(q.y), z);
}

void
pe_interpolate_quad(const PeState &s, const PrimSetup &ps, const Quad &q, uint32_t (*out)[4][4])
{
   const float fx = float(q.x), fy = float(q.y);
   /* setup_pos_vector: z and w of the 4 lanes */
   float pz[4], pw[4];
   quad_plane(ps.pos, 3, fx, fy, pw);
   bool have_z = false;
   for (unsigned i = 0; i < s.num_inputs; i++) {
      const FsInput &in = s.inputs[i];
      uint32_t(*o)[4] = out[i];
      switch (in.semantic) {
      case VLG_INPUT_SEMANTIC_FRAG_COORD: {
         if (!have_z) {
            pe_quad_depth(ps, q, pz);
            have_z = true;
         }
         const float x0 = s.pixel_offset + fx, y0 = s.pixel_offset + fy;
         const float xs[4] = {x0, x0 + 1.0f, x0, x0 + 1.0f};
         const float ys[4] = {y0, y0, y0 + 1.0f, y0 + 1.0f};
         for (unsigned l = 0; l < 4; l++) {
            std::memcpy(&o[l][0], &xs[l], 4);
            std::memcpy(&o[l][1], &ys[l], 4);
            std::memcpy(&o[l][2], &pz[l], 4);
            std::memcpy(&o[l][3], &pw[l], 4);
         }
         break;
      }
      case VLG_INPUT_SEMANTIC_FACE:
         for (unsigned l = 0; l < 4; l++) {
            o[l][0] = ps.back_facing ? 0u : ~0u;
            o[l][1] = o[l][2] = o[l][3] = 0;
         }
         break;
      case VLG_INPUT_SEMANTIC_PRIMITIVE_ID:
      case VLG_INPUT_SEMANTIC_LAYER:
         for (unsigned l = 0; l < 4; l++) {
            o[l][0] = in.semantic == VLG_INPUT_SEMANTIC_LAYER ? ps.layer_input : ps.primitive_id;
            o[l][1] = o[l][2] = o[l][3] = 0;
         }
         break;
      default: {
         const InterpCoef &c = ps.in[i];
         const uint8_t mode = ps.mode[i];
         for (unsigned j = 0; j < 4; j++) {
            if (!(in.mask >> j & 1))
               continue;
            float v[4];
            if (mode == kModeConst) {
               v[0] = v[1] = v[2] = v[3] = c.a0[j];
            } else {
               quad_plane(c, j, fx, fy, v);
               if (mode == kModePersp)
                  for (unsigned l = 0; l < 4; l++)
                     v[l] = v[l] / pw[l];
            }
            for (unsigned l = 0; l < 4; l++)
               std::memcpy(&o[l][j], &v[l], 4);
         }
         break;
      }
      }
   }
}

/* ------------------------------------------------------------------------
 * The primitive engine: clipping and the draw-module stages
 * ------------------------------------------------------------------------ */

PrimitiveEngine::PrimitiveEngine(const PeState &s)
    : s_(s), floats_(s.layout.floats()), scratch_(size_t(kNumTmp) * s.layout.floats(), 0.0f)
{
}

/* Boundary edges @edges (bit k: v[k] -> v[k+1]) less those whose first
 * vertex's edge flag @flag[k] is clear: the edges polygon mode draws
 * (draw_pipe_unfilled.c). */
static uint8_t
drawn_edges(uint8_t edges, const bool flag[3])
{
   for (unsigned k = 0; k < 3; k++)
      if (!flag[k])
         edges &= uint8_t(~(1u << k));
   return edges;
}

void
PrimitiveEngine::process(const VertexRef *v, unsigned n, QuadSink &sink, uint32_t primitive_id,
                         uint8_t edges)
{
   stats_.prims_in++;
   const float *prov = s_.rast.flatshade_first ? v[0].data : v[n - 1].data;
   if (s_.layout.primid_slot >= 0)
      std::memcpy(&primitive_id, prov + unsigned(s_.layout.primid_slot) * 4, 4);
   setup_.primitive_id = primitive_id;
   /* layered rendering: the GS output LAYER at the provoking vertex, clamped
    * to the framebuffer's layers (docs/hw.md "Layered rendering") */
   uint32_t layer = 0;
   if (s_.layout.layer_slot >= 0)
      std::memcpy(&layer, prov + unsigned(s_.layout.layer_slot) * 4, 4);
   setup_.layer_input = layer;
   setup_.layer = std::min(layer, s_.max_layer);
   if (n == 1) {
      /* clip_point: only points inside every plane survive */
      if (v[0].clipmask) {
         stats_.prims_trivially_rejected++;
         return;
      }
      after_clip_point(v[0].data, sink);
   } else if (n == 2) {
      /* multisample lines: x and y are clipped at a guard band half the line
       * width (and a pixel) outside the viewport, so a line leaving it keeps
       * its rectangle up to the framebuffer's edge (clipping at the viewport
       * first cut a wedge off; dEQP-GLES3 rasterization.fbo.rbo_multisample_*
       * primitives.lines_wide); the scissor/framebuffer rectangle does the
       * rest */
      const uint32_t m0 = s_.msaa ? line_guard_mask(v[0].data, v[0].clipmask) : v[0].clipmask;
      const uint32_t m1 = s_.msaa ? line_guard_mask(v[1].data, v[1].clipmask) : v[1].clipmask;
      const uint32_t any = m0 | m1;
      if (!(v[0].clipmask | v[1].clipmask)) {
         after_clip_line(v[0].data, v[1].data, sink);
      } else if (!(m0 & m1)) {
         stats_.prims_clipped++;
         clip_line(v[0], v[1], any, sink);
      } else {
         stats_.prims_trivially_rejected++;
      }
   } else {
      const uint32_t any = v[0].clipmask | v[1].clipmask | v[2].clipmask;
      if (!any) {
         /* an edge is drawn if it is a boundary edge and its first vertex's
          * edge flag is set (draw_pipe_unfilled.c) */
         const bool f[3] = {edge_flag(v[0].data), edge_flag(v[1].data), edge_flag(v[2].data)};
         after_clip_tri(v[0].data, v[1].data, v[2].data, drawn_edges(edges, f), sink);
      } else if (!(v[0].clipmask & v[1].clipmask & v[2].clipmask)) {
         stats_.prims_clipped++;
         clip_triangle(v, any, edges, sink);
      } else {
         stats_.prims_trivially_rejected++;
      }
   }
}

namespace {

/** draw_pipe_clip.c interp(): @dst = out + t * (in - out) in clip space, new
 * window position, perspective and noperspective inputs. */
void
clip_interp(const PeState &s, float *dst, float t, const float *out, const float *in)
{
   for (unsigned i = 0; i < 4; i++)
      dst[i] = out[i] + t * (in[i] - out[i]);
   const float oow = 1.0f / dst[3];
   dst[4] = dst[0] * oow * s.scale[0] + s.translate[0];
   dst[5] = dst[1] * oow * s.scale[1] + s.translate[1];
   dst[6] = dst[2] * oow * s.scale[2] + s.translate[2];
   dst[7] = oow;
   for (uint8_t sl : s.persp_slots)
      for (unsigned i = 0; i < 4; i++)
         dst[sl * 4 + i] = out[sl * 4 + i] + t * (in[sl * 4 + i] - out[sl * 4 + i]);
   if (!s.linear_slots.empty()) {
      float tn = t;
      for (unsigned k = 0; k < 2; k++) {
         if (in[k] != out[k]) {
            const float in_coord = in[k] / in[3];
            const float out_coord = out[k] / out[3];
            const float dst_coord = dst[k] / dst[3];
            tn = (dst_coord - out_coord) / (in_coord - out_coord);
            break;
         }
      }
      for (uint8_t sl : s.linear_slots)
         for (unsigned i = 0; i < 4; i++)
            dst[sl * 4 + i] = out[sl * 4 + i] + tn * (in[sl * 4 + i] - out[sl * 4 + i]);
   }
}

} // namespace

void
PrimitiveEngine::clip_triangle(const VertexRef *v, uint32_t clipmask, uint8_t edges,
                               QuadSink &sink)
{
   /* draw_pipe_clip.c do_clip_tri. With polygon modes, each list entry also
    * carries its boundary-edge flag (the edge to the next entry, from
    * @edges) and its vertex's edge flag: a vertex made where the polygon
    * leaves a frustum plane starts no drawn edge (the edge along the
    * plane), one made at a user plane does; one made where it comes back
    * copies the flag of the vertex outside (NVIDIA's behaviour, which draw
    * copies). */
   float *a[kMaxClipped + 1], *b[kMaxClipped + 1];
   float **inlist = a, **outlist = b;
   bool ea[kMaxClipped + 1], eb[kMaxClipped + 1], fa[kMaxClipped + 1], fb[kMaxClipped + 1];
   bool *in_edge = ea, *out_edge = eb, *in_flag = fa, *out_flag = fb;
   unsigned tmpnr = 0, n = 3;
   for (unsigned k = 0; k < 3; k++) {
      inlist[k] = v[k].data;
      in_edge[k] = edges >> k & 1;
      in_flag[k] = edge_flag(v[k].data);
   }
   float *const prov = s_.rast.flatshade_first ? v[0].data : v[2].data;

   while (clipmask && n >= 3) {
      const unsigned plane_idx = unsigned(__builtin_ctz(clipmask));
      float *vert_prev = inlist[0];
      bool edge_prev = in_edge[0], flag_prev = in_flag[0];
      float dp_prev = pe_plane_distance(s_, vert_prev, plane_idx);
      unsigned outcount = 0;
      const bool user_plane = plane_idx >= 6;
      clipmask &= ~(1u << plane_idx);
      if (inf_or_nan(dp_prev))
         return;
      if (n >= kMaxClipped)
         return;
      inlist[n] = inlist[0];
      in_edge[n] = in_edge[0];
      in_flag[n] = in_flag[0];
      for (unsigned i = 1; i <= n; i++) {
         float *vert = inlist[i];
         const float dp = pe_plane_distance(s_, vert, plane_idx);
         bool different_sign;
         if (inf_or_nan(dp))
            return;
         if (dp_prev >= 0.0f) {
            if (outcount >= kMaxClipped)
               return;
            out_edge[outcount] = edge_prev;
            out_flag[outcount] = flag_prev;
            outlist[outcount++] = vert_prev;
            different_sign = dp < 0.0f;
         } else {
            different_sign = !(dp < 0.0f);
         }
         if (different_sign) {
            if (tmpnr >= kMaxClipped + 1 || outcount >= kMaxClipped)
               return;
            float *nv = tmp(kClipTmp + tmpnr++);
            const float denom = dp - dp_prev;
            if (dp < 0.0f) {
               if (-dp < dp_prev)
                  clip_interp(s_, nv, dp / denom, vert, vert_prev);
               else
                  clip_interp(s_, nv, -dp_prev / denom, vert_prev, vert);
               /* going out: an edge along a user plane, none along the frustum */
               out_edge[outcount] = user_plane || edge_prev;
               out_flag[outcount] = user_plane;
            } else {
               if (-dp_prev < dp)
                  clip_interp(s_, nv, -dp_prev / denom, vert_prev, vert);
               else
                  clip_interp(s_, nv, dp / denom, vert, vert_prev);
               /* coming back in */
               out_edge[outcount] = edge_prev;
               out_flag[outcount] = flag_prev;
            }
            outlist[outcount++] = nv;
         }
         vert_prev = vert;
         edge_prev = in_edge[i];
         flag_prev = in_flag[i];
         dp_prev = dp;
      }
      std::swap(inlist, outlist);
      std::swap(in_edge, out_edge);
      std::swap(in_flag, out_flag);
      n = outcount;
   }
   if (n < 3)
      return;
   /* flat inputs: the polygon's vertex 0 gets the provoking vertex's values */
   if (!s_.flat_slots.empty() && inlist[0] != prov) {
      if (tmpnr >= kMaxClipped + 1)
         return;
      float *d = tmp(kClipTmp + tmpnr++);
      std::memcpy(d, inlist[0], sizeof(float) * floats_);
      copy_slots(d, prov, s_.flat_slots);
      inlist[0] = d;
   }
   /* emit_poly: fan around vertex 0 keeping the provoking vertex; the
    * polygon's edges 0 -> 1, i-1 -> i and n-1 -> 0 are the triangles' first,
    * middle and last (bit k: v[k] -> v[k+1]) */
   const bool first = s_.rast.flatshade_first;
   const uint8_t edge_first = first ? 1 : 4, edge_middle = first ? 2 : 1, edge_last = first ? 4 : 2;
   uint8_t flags = uint8_t((in_edge[0] ? edge_first : 0) | edge_middle);
   for (unsigned i = 2; i < n; i++, flags = edge_middle) {
      if (!in_edge[i - 1])
         flags &= uint8_t(~edge_middle);
      if (i == n - 1 && in_edge[i])
         flags |= edge_last;
      float *t[3];
      bool f[3];
      if (first) {
         t[0] = inlist[0], t[1] = inlist[i - 1], t[2] = inlist[i];
         f[0] = in_flag[0], f[1] = in_flag[i - 1], f[2] = in_flag[i];
      } else {
         t[0] = inlist[i - 1], t[1] = inlist[i], t[2] = inlist[0];
         f[0] = in_flag[i - 1], f[1] = in_flag[i], f[2] = in_flag[0];
      }
      after_clip_tri(t[0], t[1], t[2], drawn_edges(flags, f), sink);
   }
}

void
PrimitiveEngine::clip_line(const VertexRef &v0, const VertexRef &v1, uint32_t clipmask,
                           QuadSink &sink)
{
   /* draw_pipe_clip.c do_clip_line */
   float t0 = 0.0f, t1 = 0.0f;
   const float *prov = s_.rast.flatshade_first ? v0.data : v1.data;
   while (clipmask) {
      const unsigned plane_idx = unsigned(__builtin_ctz(clipmask));
      const float dp0 = line_plane_distance(v0.data, plane_idx);
      const float dp1 = line_plane_distance(v1.data, plane_idx);
      if (inf_or_nan(dp0) || inf_or_nan(dp1))
         return;
      if (dp1 < 0.0f) {
         const float t = dp1 / (dp1 - dp0);
         t1 = std::max(t1, t);
      }
      if (dp0 < 0.0f) {
         const float t = dp0 / (dp0 - dp1);
         t0 = std::max(t0, t);
      }
      if (t0 + t1 >= 1.0f)
         return;
      clipmask &= ~(1u << plane_idx);
   }
   float *n0 = v0.data, *n1 = v1.data;
   if (v0.clipmask) {
      n0 = tmp(kFlatTmp + 0);
      std::memcpy(n0, v0.data, sizeof(float) * floats_);
      clip_interp(s_, n0, t0, v0.data, v1.data);
      copy_slots(n0, prov, s_.flat_slots);
   }
   if (v1.clipmask) {
      n1 = tmp(kFlatTmp + 1);
      std::memcpy(n1, v1.data, sizeof(float) * floats_);
      clip_interp(s_, n1, t1, v1.data, v0.data);
      copy_slots(n1, prov, s_.flat_slots);
   }
   after_clip_line(n0, n1, sink);
}

/* Distance of clip-space vertex @v to clip plane @plane for lines: the
 * x/y planes of multisample lines lie (half width + 1 pixel) outside the
 * viewport (the guard band of PrimitiveEngine::process), the others as
 * for every primitive. */
float
PrimitiveEngine::line_plane_distance(const float *v, unsigned plane) const
{
   if (!s_.msaa || plane >= 4)
      return pe_plane_distance(s_, v, plane);
   const unsigned axis = plane / 2;
   const float scale = std::fabs(s_.scale[axis]);
   const float guard = scale > 0.0f ? (0.5f * s_.line_width + 1.0f) / scale : 0.0f;
   return (plane % 2 ? v[axis] : -v[axis]) + v[3] * (1.0f + guard);
}

/* @clipmask with its x/y bits recomputed against the guard band. */
uint32_t
PrimitiveEngine::line_guard_mask(const float *v, uint32_t clipmask) const
{
   uint32_t m = clipmask & ~0xfu;
   for (unsigned plane = 0; plane < 4; plane++)
      if (!(line_plane_distance(v, plane) >= 0)) /* NaNs make it fail */
         m |= 1u << plane;
   return m;
}

/* Copies of @v0..v2 in the offset scratch slots, into @c. */
void
PrimitiveEngine::offset_copies(const float *v0, const float *v1, const float *v2, float *c[3])
{
   const float *v[3] = {v0, v1, v2};
   for (unsigned k = 0; k < 3; k++) {
      c[k] = tmp(kOffsetTmp + k);
      std::memcpy(c[k], v[k], sizeof(float) * floats_);
   }
}

bool
PrimitiveEngine::edge_flag(const float *v) const
{
   /* draw_cliptest_tmp.h: set iff the EDGEFLAG output's x is 1.0 */
   return s_.layout.edgeflag_slot < 0 || v[unsigned(s_.layout.edgeflag_slot) * 4] == 1.0f;
}

/* draw_pipe_offset.c do_offset_tri on the copies @c (window z, saturated);
 * @det: calc_det of their window positions, which the offset does not change. */
void
PrimitiveEngine::polygon_offset(float *const c[3], float det) const
{
   const float inv_det = 1.0f / det;
   const float ex = c[0][4] - c[2][4], ey = c[0][5] - c[2][5], ez = c[0][6] - c[2][6];
   const float fx = c[1][4] - c[2][4], fy = c[1][5] - c[2][5], fz = c[1][6] - c[2][6];
   const float a = ey * fz - ez * fy;
   const float b = ez * fx - ex * fz;
   const float dzdx = std::fabs(a * inv_det);
   const float dzdy = std::fabs(b * inv_det);
   const float mult = (dzdx > dzdy ? dzdx : dzdy) * s_.offset_scale;
   float zoffset;
   if (s_.float_depth) {
      const double m = std::max(std::max(std::fabs(double(c[0][6])), std::fabs(double(c[1][6]))),
                                std::fabs(double(c[2][6])));
      const float mf = float(m);
      int32_t bits = bit_cast<int32_t>(mf);
      bits &= 0xff << 23;
      bits -= 23 << 23;
      bits = std::max(bits, 0);
      const float mrd = bit_cast<float>(bits);
      zoffset = s_.offset_units * mrd + mult;
   } else {
      zoffset = s_.offset_units + mult;
   }
   if (s_.offset_clamp != 0.0f)
      zoffset = s_.offset_clamp < 0.0f ? std::max(zoffset, s_.offset_clamp)
                                       : std::min(zoffset, s_.offset_clamp);
   for (unsigned k = 0; k < 3; k++) {
      const float z = c[k][6] + zoffset;
      c[k][6] = z < 0.0f ? 0.0f : (z > 1.0f ? 1.0f : z);
   }
}

void
PrimitiveEngine::after_clip_tri(float *v0, float *v1, float *v2, uint8_t edges, QuadSink &sink)
{
   const unsigned provoking = s_.rast.flatshade_first ? 0 : 2;
   if (!s_.offset && !s_.unfilled) {
      pe_setup_triangle(s_, v0, v1, v2, provoking, PrimKind::Triangle, true, setup_, sink, stats_);
      return;
   }
   /* draw_pipe_cull.c: det of the window positions; a zero-area triangle
    * counts as back-facing for culling */
   const float det = calc_det(v0, v1, v2);
   if (s_.rast.cull_face != VLG_FACE_NONE) {
      const bool back = det != 0.0f ? ((det < 0.0f) != s_.rast.front_ccw) : true;
      if ((back ? VLG_FACE_BACK : VLG_FACE_FRONT) & unsigned(s_.rast.cull_face)) {
         stats_.prims_culled++;
         return;
      }
   }
   /* draw_pipe_offset.c / draw_pipe_unfilled.c: the fill mode of the face,
    * det = 0 taken as clockwise */
   const bool back = (det < 0.0f) != s_.rast.front_ccw;
   const vlg_polygon_mode mode = back ? s_.rast.fill_back : s_.rast.fill_front;
   if (mode != VLG_POLYGON_MODE_FILL) {
      unfilled_tri(v0, v1, v2, edges, mode, det, sink);
      return;
   }
   if (!s_.offset) {
      pe_setup_triangle(s_, v0, v1, v2, provoking, PrimKind::Triangle, true, setup_, sink, stats_);
      return;
   }
   float *c[3];
   offset_copies(v0, v1, v2, c);
   polygon_offset(c, det);
   pe_setup_triangle(s_, c[0], c[1], c[2], provoking, PrimKind::Triangle, true, setup_, sink,
                     stats_);
}

/* Polygon mode LINE or POINT for one (culled, unclipped or clipped)
 * triangle (docs/hw.md "Polygon modes"), as draw's offset, flatshade and
 * unfilled stages do it: polygon offset if offset_line/offset_point asks,
 * the provoking vertex's flat inputs on every vertex, then the boundary
 * edges of @edges as lines (v2 -> v0, v0 -> v1, v1 -> v2) or their first
 * vertices as points (v0, v1, v2), through the usual line and point paths
 * (width, size, sprites, multisampling), with the polygon's facing. */
void
PrimitiveEngine::unfilled_tri(float *v0, float *v1, float *v2, uint8_t edges,
                              vlg_polygon_mode mode, float det, QuadSink &sink)
{
   const bool line = mode == VLG_POLYGON_MODE_LINE;
   float *c[3];
   offset_copies(v0, v1, v2, c);
   if (line ? s_.rast.offset_line : s_.rast.offset_point)
      polygon_offset(c, det);
   const float *prov = s_.rast.flatshade_first ? v0 : v2;
   for (float *vv : c)
      copy_slots(vv, prov, s_.flat_slots);
   /* draw_pipe_unfilled.c inject_front_face_info: front iff det says the
    * front winding (det = 0: back) */
   setup_.polygon_back_facing =
      !((s_.rast.front_ccw && det < 0.0f) || (!s_.rast.front_ccw && det > 0.0f));
   if (line) {
      static const unsigned order[3] = {2, 0, 1};
      for (unsigned k : order)
         if (edges >> k & 1)
            after_clip_line(c[k], c[(k + 1) % 3], sink);
   } else {
      for (unsigned k = 0; k < 3; k++)
         if (edges >> k & 1)
            after_clip_point(c[k], sink);
   }
   setup_.polygon_back_facing = false;
}

void
PrimitiveEngine::after_clip_line(float *v0, float *v1, QuadSink &sink)
{
   if (!s_.wide_lines && !s_.msaa) {
      pe_setup_line(s_, v0, v1, setup_, sink, stats_);
      return;
   }
   /* draw_pipe_flatshade.c (flat inputs of the provoking vertex on both),
    * then draw_pipe_wide_line.c wideline_line */
   const float *prov = s_.rast.flatshade_first ? v0 : v1;
   if (s_.msaa) {
      after_clip_line_rectangle(v0, v1, prov, sink);
      return;
   }
   float *w[4] = {tmp(kExpandTmp), tmp(kExpandTmp + 1), tmp(kExpandTmp + 2), tmp(kExpandTmp + 3)};
   std::memcpy(w[0], v0, sizeof(float) * floats_);
   std::memcpy(w[1], v0, sizeof(float) * floats_);
   std::memcpy(w[2], v1, sizeof(float) * floats_);
   std::memcpy(w[3], v1, sizeof(float) * floats_);
   for (float *vv : w)
      copy_slots(vv, prov, s_.flat_slots);
   float *p0 = w[0] + 4, *p1 = w[1] + 4, *p2 = w[2] + 4, *p3 = w[3] + 4;
   const float half_width = 0.5f * s_.line_width;
   const float dx = std::fabs(p0[0] - p2[0]);
   const float dy = std::fabs(p0[1] - p2[1]);
   const bool hpc = s_.rast.half_pixel_center;
   const float bias = hpc ? 0.125f : 0.0f;
   if (dx > dy) {
      p0[1] = p0[1] - half_width - bias;
      p1[1] = p1[1] + half_width - bias;
      p2[1] = p2[1] - half_width - bias;
      p3[1] = p3[1] + half_width - bias;
      if (hpc) {
         const float d = p0[0] < p2[0] ? -0.5f : 0.5f;
         p0[0] += d, p1[0] += d, p2[0] += d, p3[0] += d;
      }
   } else {
      p0[0] = p0[0] - half_width + bias;
      p1[0] = p1[0] + half_width + bias;
      p2[0] = p2[0] - half_width + bias;
      p3[0] = p3[0] + half_width + bias;
      if (hpc) {
         const float d = p0[1] < p2[1] ? -0.5f : 0.5f;
         p0[1] += d, p1[1] += d, p2[1] += d, p3[1] += d;
      }
   }
   const unsigned provoking = s_.rast.flatshade_first ? 0 : 2;
   pe_setup_triangle(s_, w[0], w[2], w[3], provoking, PrimKind::Line, false, setup_, sink, stats_);
   pe_setup_triangle(s_, w[0], w[3], w[1], provoking, PrimKind::Line, false, setup_, sink, stats_);
}

/* Multisample line rasterization (GL ES 3.0.6 section 3.5.2, "Line
 * Multisample Rasterization"): with multisample rasterization on a 4-sample
 * framebuffer a line of any width is the rectangle of that width centred on
 * the segment, running from one endpoint to the other, and covers the
 * samples inside it. Corners as llvmpipe's rectangular_lines
 * (lp_setup_line.c: offsets (-dy, dx) * width / 2 / length, no half-pixel
 * bias); the two triangles are sampled like any triangle (pe_setup_triangle,
 * PrimKind::Line: no culling, line statistics). A zero-length line covers
 * nothing. */
void
PrimitiveEngine::after_clip_line_rectangle(float *v0, float *v1, const float *prov,
                                           QuadSink &sink)
{
   const float dx = v1[4] - v0[4], dy = v1[5] - v0[5];
   const float len = std::sqrt(dx * dx + dy * dy);
   if (!(len > 0.0f))
      return;
   const float scale = 0.5f * s_.line_width / len;
   const float tx = -dy * scale, ty = dx * scale;
   float *w[4] = {tmp(kExpandTmp), tmp(kExpandTmp + 1), tmp(kExpandTmp + 2), tmp(kExpandTmp + 3)};
   const float *ends[4] = {v0, v1, v1, v0};
   const float sign[4] = {-1.0f, -1.0f, 1.0f, 1.0f};
   for (int i = 0; i < 4; i++) {
      std::memcpy(w[i], ends[i], sizeof(float) * floats_);
      copy_slots(w[i], prov, s_.flat_slots);
      w[i][4] += sign[i] * tx;
      w[i][5] += sign[i] * ty;
   }
   /* provoking vertex: one of v1's copies (w[1]) for flatshade_last, else v0's */
   pe_setup_triangle(s_, w[0], w[1], w[2], s_.rast.flatshade_first ? 0 : 1, PrimKind::Line,
                     false, setup_, sink, stats_);
   pe_setup_triangle(s_, w[0], w[2], w[3], s_.rast.flatshade_first ? 0 : 1, PrimKind::Line,
                     false, setup_, sink, stats_);
}

void
PrimitiveEngine::after_clip_point(float *v0, QuadSink &sink)
{
   float size = s_.rast.point_size;
   if (s_.rast.point_size_per_vertex && s_.layout.psize_slot >= 0)
      size = v0[s_.layout.psize_slot * 4];
   if (!(size >= kMinPointSize)) /* NaN too */
      size = kMinPointSize;
   size = std::min(size, kMaxPointSize);
   if (!s_.sprites) {
      pe_setup_point(s_, v0, size, setup_, sink, stats_);
      return;
   }
   /* draw_pipe_wide_point.c widepoint_point */
   float *w[4] = {tmp(kExpandTmp), tmp(kExpandTmp + 1), tmp(kExpandTmp + 2), tmp(kExpandTmp + 3)};
   for (float *vv : w)
      std::memcpy(vv, v0, sizeof(float) * floats_);
   const float half_size = size * 0.5f;
   const float xbias = s_.rast.half_pixel_center ? 0.125f : 0.0f;
   const float ybias = s_.rast.half_pixel_center ? -0.125f : 0.0f;
   const float left_adj = -half_size + xbias;
   const float right_adj = half_size + xbias;
   const float bot_adj = half_size + ybias;
   const float top_adj = -half_size + ybias;
   w[0][4] += left_adj;
   w[0][5] += top_adj;
   w[1][4] += left_adj;
   w[1][5] += bot_adj;
   w[2][4] += right_adj;
   w[2][5] += top_adj;
   w[3][4] += right_adj;
   w[3][5] += bot_adj;
   static const float tex[4][4] = {{0, 0, 0, 1}, {0, 1, 0, 1}, {1, 0, 0, 1}, {1, 1, 0, 1}};
   const bool lower_left = s_.rast.sprite_coord_mode == VLG_SPRITE_COORD_MODE_LOWER_LEFT;
   for (unsigned i = 0; i < 4; i++) {
      float *pc = w[i] + VertexLayout::kPointCoord * 4;
      pc[0] = tex[i][0];
      pc[1] = lower_left ? 1.0f - tex[i][1] : tex[i][1];
      pc[2] = tex[i][2];
      pc[3] = tex[i][3];
   }
   const unsigned provoking = s_.rast.flatshade_first ? 0 : 2;
   pe_setup_triangle(s_, w[0], w[2], w[3], provoking, PrimKind::Point, false, setup_, sink, stats_);
   pe_setup_triangle(s_, w[0], w[3], w[1], provoking, PrimKind::Point, false, setup_, sink, stats_);
}

} // namespace vlgpu::sim
