/*
 * PE: coverage of triangles (edge functions in double precision), shared
 * edges, scissor, clipping (frustum sides, near plane, user planes), face
 * culling, viewport and depth range, interpolation (perspective, linear,
 * flat, FRAG_COORD, FACE), points (sprites, sizes), lines, polygon offset.
 *
 * Vertices are built in clip space and go through pe_post_vs and
 * PrimitiveEngine::process exactly as in a draw; expected values are computed
 * here from the window-space geometry (GL ES 3.0 §2.13, §3.4-3.6).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "pipe_test_util.h"
#include "sim/func/pipe/geometry.h"
#include "sim/func/pipe/raster.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

struct Recorder : QuadSink {
   std::vector<PrimSetup> setups;
   struct Q {
      Quad q;
      size_t setup;
   };
   std::vector<Q> qs;
   void primitive(const PrimSetup &s) override { setups.push_back(s); }
   void quads(const Quad *q, unsigned n) override
   {
      for (unsigned i = 0; i < n; i++)
         qs.push_back(Q{q[i], setups.size() - 1});
   }
   /** Coverage count per pixel. */
   std::map<std::pair<int, int>, int> coverage() const
   {
      std::map<std::pair<int, int>, int> m;
      for (const Q &q : qs)
         for (unsigned l = 0; l < 4; l++)
            if (q.q.mask >> l & 1)
               m[{q.q.x + int(l & 1), q.q.y + int(l >> 1)}]++;
      return m;
   }
};

/** A PE test bench: framebuffer w x h, viewport covering it, an FS that
 * reads the inputs given (VARYING 0 = colour-like data). */
struct Bench {
   TestDraw t;
   DrawPackage pkg;
   GeState ge;
   PeState pe;
   std::vector<std::vector<float>> verts;

   Bench(unsigned w = 64, unsigned h = 64) { t.framebuffer(w, h); }

   void fs_inputs(std::initializer_list<std::pair<vlg_input_semantic, vlg_interp>> ins)
   {
      unsigned reg = 0, var = 0;
      for (auto &p : ins) {
         t.fs.input(reg++, p.first, p.first == VLG_INPUT_SEMANTIC_VARYING ? var : 0, 0xf, p.second);
         if (p.first == VLG_INPUT_SEMANTIC_VARYING)
            t.vs.output(1 + var, VLG_OUTPUT_SEMANTIC_VARYING, var), var++;
      }
   }
   void load()
   {
      if (t.vs.code.empty()) {
         t.vs.code = assemble("BRC.END\n");
         t.vs.output(0, VLG_OUTPUT_SEMANTIC_POSITION);
      }
      if (t.fs.code.empty()) {
         t.fs.code = assemble("BRC.END\n");
         t.fs.output(0, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      }
      pkg = load_draw_package(t.vram, t.write());
      ge = make_ge_state(pkg);
      pe = make_pe_state(pkg, ge.layout);
   }
   /** A vertex from its clip position and varyings 0.. (4 floats each). */
   VertexRef vertex(const double clip[4], std::initializer_list<std::array<float, 4>> vary = {},
                    float psize = 0)
   {
      std::vector<float> v(ge.layout.floats(), 0.0f);
      for (int i = 0; i < 4; i++)
         v[i] = float(clip[i]);
      unsigned n = 0;
      for (auto &a : vary) {
         const int s = ge.layout.varying_slot[n++];
         if (s >= 0)
            std::copy(a.begin(), a.end(), v.begin() + s * 4);
      }
      if (ge.layout.psize_slot >= 0)
         v[ge.layout.psize_slot * 4] = psize;
      verts.push_back(std::move(v));
      float *d = verts.back().data();
      return VertexRef{d, pe_post_vs(pe, d)};
   }
   /** Clip position of window point (x, y) with depth z and clip w (the
    * viewport maps NDC [-1,1] onto the framebuffer). */
   void clip_of(double x, double y, double z, double w, double out[4]) const
   {
      const VLG_VIEWPORT &vp = pkg.pipe.viewport;
      out[0] = (x - vp.translate[0]) / vp.scale[0] * w;
      out[1] = (y - vp.translate[1]) / vp.scale[1] * w;
      out[2] = (z - vp.translate[2]) / vp.scale[2] * w;
      out[3] = w;
   }
};

/** The full-NDC quad at z_ndc @z (window: the viewport rectangle), two
 * triangles through a PrimitiveEngine; what it rasterised. */
Recorder
draw_ndc_quad(Bench &b, double z)
{
   const double q[4][4] = {{-1, -1, z, 1}, {1, -1, z, 1}, {1, 1, z, 1}, {-1, 1, z, 1}};
   VertexRef v[4];
   for (int i = 0; i < 4; i++)
      v[i] = b.vertex(q[i]);
   Recorder r;
   PrimitiveEngine eng(b.pe);
   VertexRef t0[3] = {v[0], v[1], v[2]}, t1[3] = {v[0], v[2], v[3]};
   eng.process(t0, 3, r);
   eng.process(t1, 3, r);
   return r;
}

/** Smallest distance from pixel centre (px+.5, py+.5) to the triangle's edge lines. */
double
edge_distance(const double (*v)[2], int px, int py)
{
   double best = 1e30;
   for (int i = 0; i < 3; i++) {
      const double *a = v[i], *b = v[(i + 1) % 3];
      const double dx = b[0] - a[0], dy = b[1] - a[1];
      const double len = std::hypot(dx, dy);
      if (len == 0)
         continue;
      best = std::min(best, std::fabs(dx * (py + 0.5 - a[1]) - dy * (px + 0.5 - a[0])) / len);
   }
   return best;
}

} // namespace

TEST(RasterTriangle, CoverageMatchesEdgeFunctionsIncludingFrustumClipping)
{
   Bench b;
   b.load();
   std::mt19937 rng(7);
   std::uniform_real_distribution<double> coord(-20.0, 84.0);
   unsigned compared = 0;
   for (int iter = 0; iter < 200; iter++) {
      double win[3][2];
      VertexRef v[3];
      for (int i = 0; i < 3; i++) {
         win[i][0] = std::ldexp(std::round(std::ldexp(coord(rng), 8)), -8);
         win[i][1] = std::ldexp(std::round(std::ldexp(coord(rng), 8)), -8);
         double clip[4];
         b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
         v[i] = b.vertex(clip);
      }
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 3, r);
      const auto cov = r.coverage();
      for (int y = 0; y < 64; y++) {
         for (int x = 0; x < 64; x++) {
            if (edge_distance(win, x, y) < 1e-3)
               continue;
            const bool want = ref_covered(win, x, y);
            auto it = cov.find({x, y});
            const int got = it == cov.end() ? 0 : it->second;
            ASSERT_EQ(got, want ? 1 : 0) << "triangle " << iter << " pixel " << x << "," << y;
            compared++;
         }
      }
   }
   EXPECT_GT(compared, 200u * 4000u);
}

/* A viewport far larger than int (found by the cp fuzz target: rows and
 * edge lengths saturated to INT_MIN and their sum overflowed, and an edge
 * beyond int dropped its pixels): the NDC triangle (-1,-1), (1,-1), (0,1)
 * through a 6e9-pixel viewport whose NDC origin is the framebuffer's corner
 * has window vertices (-3e9, -3e9), (3e9, -3e9), (0, 3e9); the 64 x 64
 * framebuffer lies over a billion pixels inside every edge, so every pixel
 * is covered, once. */
TEST(RasterTriangle, FarOffScreenVerticesStayInIntRange)
{
   Bench b(64, 64);
   b.t.viewport(-3e9f, -3e9f, 6e9f, 6e9f);
   b.load();
   const double c[3][4] = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, 0, 1}};
   VertexRef v[3] = {b.vertex(c[0]), b.vertex(c[1]), b.vertex(c[2])};
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   const auto cov = r.coverage();
   EXPECT_EQ(cov.size(), 64u * 64u);
   for (const auto &[xy, n] : cov)
      EXPECT_EQ(n, 1) << xy.first << "," << xy.second;
}

TEST(RasterTriangle, TieRuleOnPixelCentres)
{
   /* Edges through pixel centres: a right triangle with a vertical left edge
    * at x = 2.5, a horizontal top edge at y = 2.5, hypotenuse far away. */
   Bench b;
   b.load();
   const double win[3][2] = {{2.5, 2.5}, {12.5, 2.5}, {2.5, 12.5}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double clip[4];
      b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
      v[i] = b.vertex(clip);
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   const auto cov = r.coverage();
   /* top edge inclusive: row 2 (centre y = 2.5) covered; left edge
    * exclusive: column 2 (centre x = 2.5) not */
   EXPECT_EQ(cov.count({3, 2}), 1u);
   EXPECT_EQ(cov.count({2, 3}), 0u);
   for (int y = 0; y < 16; y++)
      for (int x = 0; x < 16; x++)
         EXPECT_EQ(cov.count({x, y}), ref_covered(win, x, y) ? 1u : 0u) << x << "," << y;
}

TEST(RasterTriangle, SharedEdgesCoverEachPixelOnce)
{
   /* A 5x5 grid of jittered points over [4, 60]^2 split into triangles:
    * every pixel centre inside the hull is hit exactly once. */
   Bench b;
   b.load();
   std::mt19937 rng(3);
   std::uniform_real_distribution<double> jit(-3.7, 3.7);
   double p[5][5][2];
   for (int j = 0; j < 5; j++)
      for (int i = 0; i < 5; i++) {
         const bool border = i == 0 || j == 0 || i == 4 || j == 4;
         p[j][i][0] = 4 + 14 * i + (border ? 0 : jit(rng));
         p[j][i][1] = 4 + 14 * j + (border ? 0 : jit(rng));
      }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   for (int j = 0; j < 4; j++) {
      for (int i = 0; i < 4; i++) {
         const double *c[4] = {p[j][i], p[j][i + 1], p[j + 1][i + 1], p[j + 1][i]};
         const int tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
         for (auto &t : tris) {
            VertexRef v[3];
            for (int k = 0; k < 3; k++) {
               double clip[4];
               b.clip_of(c[t[k]][0], c[t[k]][1], 0.5, 1.0, clip);
               v[k] = b.vertex(clip);
            }
            eng.process(v, 3, r);
         }
      }
   }
   const auto cov = r.coverage();
   for (int y = 4; y < 60; y++)
      for (int x = 4; x < 60; x++) {
         auto it = cov.find({x, y});
         EXPECT_TRUE(it != cov.end() && it->second == 1) << x << "," << y;
      }
   for (auto &kv : cov)
      EXPECT_EQ(kv.second, 1);
}

TEST(RasterTriangle, ScissorLimitsCoverage)
{
   Bench b;
   b.t.pipe.rasterizer.scissor_enable = true;
   b.t.pipe.scissor.minx = 10;
   b.t.pipe.scissor.miny = 7;
   b.t.pipe.scissor.maxx = 33;
   b.t.pipe.scissor.maxy = 41;
   b.load();
   const double win[3][2] = {{1.3, 0.7}, {60.2, 20.1}, {20.6, 62.9}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double clip[4];
      b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
      v[i] = b.vertex(clip);
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   const auto cov = r.coverage();
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         if (edge_distance(win, x, y) < 1e-3)
            continue;
         const bool in = x >= 10 && x < 33 && y >= 7 && y < 41 && ref_covered(win, x, y);
         EXPECT_EQ(cov.count({x, y}), in ? 1u : 0u) << x << "," << y;
      }
}

TEST(RasterTriangle, FaceCulling)
{
   /* (0,0) (20,0) (0,20) in window coordinates with row 0 at the top is
    * clockwise on the screen; its reverse is counter-clockwise. */
   const double cw[3][2] = {{2, 2}, {22, 2}, {2, 22}};
   const double ccw[3][2] = {{2, 2}, {2, 22}, {22, 2}};
   struct Case {
      bool front_ccw;
      vlg_face cull;
      bool cw_drawn, ccw_drawn;
   } cases[] = {
      {true, VLG_FACE_NONE, true, true},    {true, VLG_FACE_BACK, false, true},
      {true, VLG_FACE_FRONT, true, false},  {false, VLG_FACE_BACK, true, false},
      {false, VLG_FACE_FRONT, false, true}, {true, VLG_FACE_FRONT_AND_BACK, false, false},
   };
   for (const Case &c : cases) {
      Bench b;
      b.t.pipe.rasterizer.front_ccw = c.front_ccw;
      b.t.pipe.rasterizer.cull_face = c.cull;
      b.fs_inputs({{VLG_INPUT_SEMANTIC_FACE, VLG_INTERP_CONSTANT}});
      b.load();
      for (int which = 0; which < 2; which++) {
         const double(*w)[2] = which ? ccw : cw;
         VertexRef v[3];
         for (int i = 0; i < 3; i++) {
            double clip[4];
            b.clip_of(w[i][0], w[i][1], 0.5, 1.0, clip);
            v[i] = b.vertex(clip);
         }
         Recorder r;
         PrimitiveEngine eng(b.pe);
         eng.process(v, 3, r);
         const bool drawn = which ? c.ccw_drawn : c.cw_drawn;
         EXPECT_EQ(!r.qs.empty(), drawn)
            << "front_ccw " << c.front_ccw << " cull " << c.cull << " ccw " << which;
         if (!r.qs.empty()) {
            uint32_t vals[kMaxShaderIo][4][4];
            pe_interpolate_quad(b.pe, r.setups[0], r.qs[0].q, vals);
            const bool front = which ? c.front_ccw : !c.front_ccw;
            EXPECT_EQ(vals[0][0][0], front ? ~0u : 0u);
            EXPECT_EQ(eng.stats().prims_culled, 0u);
         } else {
            EXPECT_EQ(eng.stats().prims_culled, 1u);
         }
      }
   }
}

namespace {

struct InterpCase {
   double win[3][2];
   double z[3];
   double w[3];
   float a[3][4];
};

void
barycentric(const double (*v)[2], double x, double y, double l[3])
{
   const double area =
      (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
   for (int i = 0; i < 3; i++) {
      const double *a = v[(i + 1) % 3], *b = v[(i + 2) % 3];
      l[i] = ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])) / area;
   }
}

} // namespace

TEST(RasterInterpolation, PerspectiveLinearFlatFragCoord)
{
   Bench b;
   b.fs_inputs({{VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_PERSPECTIVE},
                {VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_LINEAR},
                {VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_FLAT},
                {VLG_INPUT_SEMANTIC_FRAG_COORD, VLG_INTERP_CONSTANT}});
   b.load();
   const InterpCase c = {{{3.3, 5.1}, {58.7, 12.2}, {20.4, 60.9}},
                         {0.1, 0.9, 0.4},
                         {1.0, 4.0, 2.5},
                         {{1, 0, 0, 1}, {0, 1, 0.5f, 2}, {0, 0, 1, -3}}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double clip[4];
      b.clip_of(c.win[i][0], c.win[i][1], c.z[i], c.w[i], clip);
      const std::array<float, 4> a = {c.a[i][0], c.a[i][1], c.a[i][2], c.a[i][3]};
      v[i] = b.vertex(clip, {a, a, a});
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   ASSERT_FALSE(r.qs.empty());
   unsigned checked = 0;
   double max_err = 0;
   for (const auto &q : r.qs) {
      uint32_t vals[kMaxShaderIo][4][4];
      pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
      for (unsigned l = 0; l < 4; l++) {
         if (!(q.q.mask >> l & 1))
            continue;
         const double x = q.q.x + (l & 1) + 0.5, y = q.q.y + (l >> 1) + 0.5;
         double lam[3];
         barycentric(c.win, x, y, lam);
         const double inv_w = lam[0] / c.w[0] + lam[1] / c.w[1] + lam[2] / c.w[2];
         for (unsigned ch = 0; ch < 4; ch++) {
            double persp = 0, lin = 0;
            for (int i = 0; i < 3; i++) {
               persp += lam[i] * c.a[i][ch] / c.w[i];
               lin += lam[i] * c.a[i][ch];
            }
            persp /= inv_w;
            const double e0 = std::fabs(as_float(vals[0][l][ch]) - persp);
            const double e1 = std::fabs(as_float(vals[1][l][ch]) - lin);
            max_err = std::max({max_err, e0, e1});
            EXPECT_NEAR(as_float(vals[0][l][ch]), persp, 2e-5) << "perspective";
            EXPECT_NEAR(as_float(vals[1][l][ch]), lin, 2e-5) << "linear";
            EXPECT_EQ(as_float(vals[2][l][ch]), c.a[2][ch]) << "flat = last vertex";
         }
         EXPECT_EQ(as_float(vals[3][l][0]), float(x));
         EXPECT_EQ(as_float(vals[3][l][1]), float(y));
         EXPECT_NEAR(as_float(vals[3][l][2]), lam[0] * c.z[0] + lam[1] * c.z[1] + lam[2] * c.z[2],
                     1e-6);
         EXPECT_NEAR(as_float(vals[3][l][3]), inv_w, 1e-6);
         checked++;
      }
   }
   EXPECT_GT(checked, 1000u);
   /* perspective correction matters here: a linear guess would be far off */
   EXPECT_LT(max_err, 2e-5);
}

TEST(RasterInterpolation, FlatUsesFirstVertexWithFlatshadeFirst)
{
   Bench b;
   b.t.pipe.rasterizer.flatshade_first = true;
   b.fs_inputs({{VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_FLAT}});
   b.load();
   const double win[3][2] = {{3, 3}, {40, 5}, {10, 40}};
   const std::array<float, 4> vals3[3] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double clip[4];
      b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
      v[i] = b.vertex(clip, {vals3[i]});
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   ASSERT_FALSE(r.qs.empty());
   uint32_t vals[kMaxShaderIo][4][4];
   pe_interpolate_quad(b.pe, r.setups[0], r.qs[5].q, vals);
   for (unsigned ch = 0; ch < 4; ch++)
      EXPECT_EQ(as_float(vals[0][0][ch]), vals3[0][ch]);
}

namespace {

/** Sutherland-Hodgman clip of a clip-space polygon against the near plane,
 * z >= -w (GL ES 3.0 §2.13), or z >= 0 with @halfz (GL_ZERO_TO_ONE of
 * glClipControl, GL 4.5 §13.5), then projection to window coordinates
 * (§2.14). */
std::vector<std::array<double, 2>>
clip_near_and_project(const std::vector<std::array<double, 4>> &poly, const Bench &b,
                      bool halfz = false)
{
   std::vector<std::array<double, 4>> out;
   for (size_t i = 0; i < poly.size(); i++) {
      const auto &p = poly[i], &q = poly[(i + 1) % poly.size()];
      const double dp = halfz ? p[2] : p[2] + p[3], dq = halfz ? q[2] : q[2] + q[3];
      if (dp >= 0)
         out.push_back(p);
      if ((dp >= 0) != (dq >= 0)) {
         const double t = dp / (dp - dq);
         std::array<double, 4> n;
         for (int k = 0; k < 4; k++)
            n[k] = p[k] + t * (q[k] - p[k]);
         out.push_back(n);
      }
   }
   const VLG_VIEWPORT &vp = b.pkg.pipe.viewport;
   std::vector<std::array<double, 2>> win;
   for (auto &p : out)
      win.push_back({p[0] / p[3] * vp.scale[0] + vp.translate[0],
                     p[1] / p[3] * vp.scale[1] + vp.translate[1]});
   return win;
}

/** Convex polygon containment of pixel centre; sets @near_edge within 1e-3. */
bool
inside_convex(const std::vector<std::array<double, 2>> &poly, int px, int py, bool &near_edge)
{
   const double x = px + 0.5, y = py + 0.5;
   double area = 0;
   for (size_t i = 0; i < poly.size(); i++) {
      const auto &a = poly[i], &c = poly[(i + 1) % poly.size()];
      area += a[0] * c[1] - c[0] * a[1];
   }
   bool in = true;
   near_edge = false;
   for (size_t i = 0; i < poly.size(); i++) {
      const auto &a = poly[i], &c = poly[(i + 1) % poly.size()];
      const double dx = c[0] - a[0], dy = c[1] - a[1];
      double e = dx * (y - a[1]) - dy * (x - a[0]);
      if (area < 0)
         e = -e;
      const double len = std::hypot(dx, dy);
      if (len > 0 && std::fabs(e) / len < 1e-3)
         near_edge = true;
      if (e < 0)
         in = false;
   }
   return in;
}

/** Triangle @clip (clip coordinates, the third vertex beyond the near plane)
 * through a PrimitiveEngine, which must clip it; what it rasterised. */
Recorder
draw_near_clipped(Bench &b, const std::vector<std::array<double, 4>> &clip)
{
   VertexRef v[3];
   for (int i = 0; i < 3; i++)
      v[i] = b.vertex(clip[i].data());
   EXPECT_NE(v[2].clipmask & (1u << 4), 0u);
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   EXPECT_EQ(eng.stats().prims_clipped, 1u);
   return r;
}

} // namespace

TEST(RasterClip, TriangleCrossingNearPlane)
{
   Bench b;
   b.load();
   /* a perspective-looking triangle: one vertex behind the near plane */
   const std::vector<std::array<double, 4>> clip = {{-0.5, -0.6, 0.5, 1.0},
                                                    {0.7, -0.2, 0.9, 1.5},
                                                    {0.1, 0.9, -3.0, 2.0}};
   const Recorder r = draw_near_clipped(b, clip);
   const auto poly = clip_near_and_project(clip, b);
   const auto cov = r.coverage();
   unsigned inside = 0;
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         bool near_edge;
         const bool want = inside_convex(poly, x, y, near_edge);
         if (near_edge)
            continue;
         inside += want;
         EXPECT_EQ(cov.count({x, y}), want ? 1u : 0u) << x << "," << y;
      }
   EXPECT_GT(inside, 300u);
}

/* glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE) as st/mesa hands it to the
 * driver (st_atom_rasterizer.c, viewport.c _mesa_get_viewport_xform):
 * rasterizer.clip_halfz, and the depth transform z_w = z_ndc * (f - n) + n
 * instead of z_ndc * (f - n) / 2 + (n + f) / 2 (GL 4.5 §13.6.1). */
void
set_halfz(Bench &b, float n, float f)
{
   b.t.pipe.rasterizer.clip_halfz = true;
   b.t.pipe.viewport.scale[2] = f - n;
   b.t.pipe.viewport.translate[2] = n;
}

TEST(RasterClip, HalfZNearPlaneIsZZero)
{
   /* z_clip = -0.5 w: inside [-w, w], outside [0, w] */
   const double behind[3][4] = {{-0.5, -0.5, -0.5, 1.0}, {0.5, -0.5, -0.5, 1.0}, {0.0, 0.5, -0.5, 1.0}};
   for (const bool halfz : {false, true}) {
      Bench b;
      if (halfz)
         set_halfz(b, 0.0f, 1.0f);
      b.load();
      VertexRef v[3];
      for (int i = 0; i < 3; i++)
         v[i] = b.vertex(behind[i]);
      EXPECT_EQ(v[0].clipmask & (1u << 4), halfz ? 1u << 4 : 0u) << "halfz " << halfz;
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 3, r);
      EXPECT_EQ(r.qs.empty(), halfz) << "halfz " << halfz;
      EXPECT_EQ(eng.stats().prims_trivially_rejected, halfz ? 1u : 0u);
   }

   /* a triangle crossing z = 0 is cut there, not at z = -w */
   Bench b;
   set_halfz(b, 0.0f, 1.0f);
   b.load();
   const std::vector<std::array<double, 4>> clip = {{-0.8, -0.7, 0.5, 1.0},
                                                    {0.7, -0.4, 0.3, 1.2},
                                                    {0.1, 0.9, -0.6, 1.0}};
   const Recorder r = draw_near_clipped(b, clip);
   const auto poly = clip_near_and_project(clip, b, true);
   const auto full = clip_near_and_project(clip, b, false); /* nothing cut at z = -w */
   ASSERT_EQ(full.size(), 3u);
   const auto cov = r.coverage();
   unsigned inside = 0, cut = 0;
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         bool near_edge, near_edge2;
         const bool want = inside_convex(poly, x, y, near_edge);
         const bool in_full = inside_convex(full, x, y, near_edge2);
         if (near_edge || near_edge2)
            continue;
         inside += want;
         cut += in_full && !want;
         EXPECT_EQ(cov.count({x, y}), want ? 1u : 0u) << x << "," << y;
      }
   EXPECT_GT(inside, 300u);
   EXPECT_GT(cut, 100u); /* the z = 0 cut removed part of the triangle */
}

TEST(RasterViewport, HalfZDepthTransform)
{
   Bench b;
   b.t.viewport(0, 0, 64, 64, 0.25f, 0.75f); /* glDepthRangef(0.25, 0.75) */
   set_halfz(b, 0.25f, 0.75f);
   b.fs_inputs({{VLG_INPUT_SEMANTIC_FRAG_COORD, VLG_INTERP_CONSTANT}});
   b.load();
   /* a full-screen quad at z_ndc = 0.5: z_w = 0.5 * 0.5 + 0.25 = 0.5 (the
    * [-1, 1] transform would give 0.625) */
   const Recorder r = draw_ndc_quad(b, 0.5);
   EXPECT_EQ(r.coverage().size(), 64u * 64u);
   uint32_t vals[kMaxShaderIo][4][4];
   pe_interpolate_quad(b.pe, r.setups[0], r.qs[0].q, vals);
   EXPECT_FLOAT_EQ(as_float(vals[0][0][2]), 0.5f);
   /* z_ndc = 0 (the near plane with halfz) maps to n = 0.25 */
   const Recorder r0 = draw_ndc_quad(b, 0.0);
   ASSERT_FALSE(r0.qs.empty());
   pe_interpolate_quad(b.pe, r0.setups[0], r0.qs[0].q, vals);
   EXPECT_FLOAT_EQ(as_float(vals[0][0][2]), 0.25f);
}

TEST(RasterClip, DepthClipOffDrawsBeyondFarPlaneWithClampedDepth)
{
   Bench b;
   b.t.pipe.rasterizer.depth_clip_near = false;
   b.t.pipe.rasterizer.depth_clip_far = false;
   b.load();
   const double clip[3][4] = {{-0.5, -0.5, 2.0, 1.0}, {0.5, -0.5, 2.0, 1.0}, {0.0, 0.5, 2.0, 1.0}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++)
      v[i] = b.vertex(clip[i]);
   EXPECT_EQ(v[0].clipmask, 0u);
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   EXPECT_FALSE(r.qs.empty());

   Bench c; /* with clipping on, it is entirely beyond the far plane */
   c.load();
   for (int i = 0; i < 3; i++)
      v[i] = c.vertex(clip[i]);
   Recorder r2;
   PrimitiveEngine eng2(c.pe);
   eng2.process(v, 3, r2);
   EXPECT_TRUE(r2.qs.empty());
   EXPECT_EQ(eng2.stats().prims_trivially_rejected, 1u);
}

TEST(RasterClip, UserClipPlane)
{
   Bench b;
   b.t.pipe.rasterizer.clip_plane_enable = 0x4; /* plane 2: keep x >= 0.25 w */
   b.t.pipe.clip.plane[2].a = 1.0f;
   b.t.pipe.clip.plane[2].d = -0.25f;
   b.load();
   const double win[3][2] = {{4.3, 4.1}, {60.2, 8.7}, {30.9, 59.4}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double clip[4];
      b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
      v[i] = b.vertex(clip);
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   const auto cov = r.coverage();
   const double xcut = 0.25 * 32 + 32; /* window x of NDC 0.25 */
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         if (edge_distance(win, x, y) < 1e-3 || std::fabs(x + 0.5 - xcut) < 1e-3)
            continue;
         const bool want = ref_covered(win, x, y) && x + 0.5 >= xcut;
         EXPECT_EQ(cov.count({x, y}), want ? 1u : 0u) << x << "," << y;
      }
}

TEST(RasterClip, ClipDistancesReplaceTheUserPlanes)
{
   /* docs/hw.md "Clip distances" (GL 3.0 section 2.17): the VS writes
    * gl_ClipDistance[0..3] in CLIP_DISTANCE 0 (R1) and [4..7] in CLIP_DISTANCE
    * 1 (R2); enabled user plane i keeps the points with distance i >= 0. The
    * triangle of UserClipPlane with distance 0 = x_clip - 0.25 w gives its
    * coverage; pipe_state.clip.plane[0] would reject everything, distance 1
    * (-1 everywhere) is not enabled; the FS reads distance 0 interpolated. */
   Bench b;
   b.t.vs.code = assemble("BRC.END\n");
   b.t.vs.output(0, VLG_OUTPUT_SEMANTIC_POSITION);
   b.t.vs.output(1, VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE, 0);
   b.t.vs.output(2, VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE, 1);
   b.t.fs.input(0, VLG_INPUT_SEMANTIC_CLIP_DISTANCE, 0, 0xf, VLG_INTERP_PERSPECTIVE);
   b.t.pipe.rasterizer.clip_plane_enable = 0x1;
   b.t.pipe.clip.plane[0].d = -1.0f;
   b.load();
   ASSERT_GE(b.ge.layout.clipdist_slot[0], 0);
   ASSERT_GE(b.ge.layout.clipdist_slot[1], 0);
   const double win[3][2] = {{4.3, 4.1}, {60.2, 8.7}, {30.9, 59.4}};
   auto draw = [&](float dist5) {
      b.verts.clear();
      VertexRef v[3];
      for (int i = 0; i < 3; i++) {
         double clip[4];
         b.clip_of(win[i][0], win[i][1], 0.5, 1.0, clip);
         std::vector<float> d(b.ge.layout.floats(), 0.0f);
         for (int c = 0; c < 4; c++)
            d[c] = float(clip[c]);
         float *cd0 = &d[b.ge.layout.clipdist_slot[0] * 4];
         float *cd1 = &d[b.ge.layout.clipdist_slot[1] * 4];
         cd0[0] = float(clip[0] - 0.25 * clip[3]);
         cd0[1] = -1.0f;  /* distance 1: not enabled */
         cd1[1] = dist5; /* distance 5 */
         b.verts.push_back(std::move(d));
         v[i] = VertexRef{b.verts.back().data(), pe_post_vs(b.pe, b.verts.back().data())};
      }
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 3, r);
      return r;
   };
   Recorder r = draw(-1.0f);
   const auto cov = r.coverage();
   const double xcut = 0.25 * 32 + 32; /* window x of NDC 0.25 */
   unsigned inside = 0;
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         if (edge_distance(win, x, y) < 1e-3 || std::fabs(x + 0.5 - xcut) < 1e-3)
            continue;
         const bool want = ref_covered(win, x, y) && x + 0.5 >= xcut;
         inside += want;
         EXPECT_EQ(cov.count({x, y}), want ? 1u : 0u) << x << "," << y;
      }
   EXPECT_GT(inside, 200u);
   /* the interpolated distance at a fragment: x_ndc - 0.25 = (x + 0.5 - 32) / 32 - 0.25 */
   ASSERT_FALSE(r.qs.empty());
   uint32_t vals[kMaxShaderIo][4][4];
   const Recorder::Q &q = r.qs[r.qs.size() / 2];
   pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
   for (unsigned l = 0; l < 4; l++)
      if (q.q.mask >> l & 1)
         EXPECT_NEAR(as_float(vals[0][l][0]), (q.q.x + int(l & 1) + 0.5 - 32) / 32 - 0.25, 1e-5);

   /* enabling distance 5 (-1 at every vertex) rejects the triangle */
   b.t.pipe.rasterizer.clip_plane_enable = 0x21;
   b.load();
   Recorder none = draw(-1.0f);
   EXPECT_TRUE(none.qs.empty());
   /* ... and +1 keeps what distance 0 keeps */
   EXPECT_EQ(draw(1.0f).coverage(), cov);
}

TEST(RasterViewport, OffsetViewportAndDepthRange)
{
   Bench b(64, 64);
   b.t.viewport(16, 8, 32, 16, 0.25f, 0.75f); /* glViewport(16, 8, 32, 16), DepthRange(.25,.75) */
   b.fs_inputs({{VLG_INPUT_SEMANTIC_FRAG_COORD, VLG_INTERP_CONSTANT}});
   b.load();
   /* full-NDC quad at z_ndc = 0.5 covers exactly the viewport rectangle */
   const Recorder r = draw_ndc_quad(b, 0.5);
   const auto cov = r.coverage();
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++)
         EXPECT_EQ(cov.count({x, y}), (x >= 16 && x < 48 && y >= 8 && y < 24) ? 1u : 0u)
            << x << "," << y;
   uint32_t vals[kMaxShaderIo][4][4];
   pe_interpolate_quad(b.pe, r.setups[0], r.qs[0].q, vals);
   /* window z = 0.5 * (f - n) / 2 + (n + f) / 2 = 0.625 */
   EXPECT_FLOAT_EQ(as_float(vals[0][0][2]), 0.625f);
}

TEST(RasterPoints, SpriteCoverageAndCoordinates)
{
   Bench b;
   b.t.pipe.rasterizer.point_size = 4.0f;
   b.fs_inputs({{VLG_INPUT_SEMANTIC_POINT_COORD, VLG_INTERP_CONSTANT}});
   b.load();
   const double px = 20.3, py = 30.6; /* point centre, window coordinates */
   double clip[4];
   b.clip_of(px, py, 0.5, 1.0, clip);
   VertexRef v = b.vertex(clip);
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(&v, 1, r);
   /* GL ES 3.0 §3.4: the square [x - 2, x + 2] x [y - 2, y + 2]; the reference
    * (draw_pipe_wide_point.c) shifts it by (+1/8, -1/8) pixel so that centres
    * on its sides are decided consistently; the sprite coordinate follows. */
   const double x0 = px - 2 + 0.125, y0 = py - 2 - 0.125;
   const auto cov = r.coverage();
   unsigned n = 0;
   for (int y = 0; y < 64; y++)
      for (int x = 0; x < 64; x++) {
         const bool in = x + 0.5 > x0 && x + 0.5 < x0 + 4 && y + 0.5 > y0 && y + 0.5 < y0 + 4;
         EXPECT_EQ(cov.count({x, y}), in ? 1u : 0u) << x << "," << y;
         n += in;
      }
   EXPECT_EQ(n, 16u);
   for (const auto &q : r.qs) {
      uint32_t vals[kMaxShaderIo][4][4];
      pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
      for (unsigned l = 0; l < 4; l++) {
         if (!(q.q.mask >> l & 1))
            continue;
         const double cx = q.q.x + (l & 1) + 0.5, cy = q.q.y + (l >> 1) + 0.5;
         EXPECT_NEAR(as_float(vals[0][l][0]), (cx - x0) / 4, 1e-5);
         EXPECT_NEAR(as_float(vals[0][l][1]), (cy - y0) / 4, 1e-5); /* UPPER_LEFT origin */
         EXPECT_EQ(as_float(vals[0][l][3]), 1.0f);
      }
   }
}

TEST(RasterPoints, PerVertexSizeIsClampedAndCentreClipped)
{
   Bench b;
   b.t.pipe.rasterizer.point_size_per_vertex = true;
   b.t.vs.output(3, VLG_OUTPUT_SEMANTIC_POINT_SIZE, 0, 0x1);
   b.load();
   ASSERT_GE(b.ge.layout.psize_slot, 0);
   auto count = [&](double x, double y, float size) {
      double clip[4];
      b.clip_of(x, y, 0.5, 1.0, clip);
      VertexRef v = b.vertex(clip, {}, size);
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(&v, 1, r);
      return r.coverage().size();
   };
   EXPECT_EQ(count(20.5, 20.5, 6.0f), 36u);
   EXPECT_EQ(count(20.5, 20.5, 0.25f), 1u);          /* clamped up to 1 pixel */
   EXPECT_EQ(count(-0.5, 20.5, 6.0f), 0u);           /* centre outside: whole point clipped */
   EXPECT_EQ(count(32.5, 32.5, 1000.0f), 64u * 64u); /* clamped to 255, covers the fb */
}

TEST(RasterLines, OnePixelLinesBresenham)
{
   Bench b;
   b.load();
   auto pixels = [&](double x0, double y0, double x1, double y1) {
      VertexRef v[2];
      double c[4];
      b.clip_of(x0, y0, 0.5, 1.0, c);
      v[0] = b.vertex(c);
      b.clip_of(x1, y1, 0.5, 1.0, c);
      v[1] = b.vertex(c);
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 2, r);
      std::vector<std::pair<int, int>> px;
      for (auto &kv : r.coverage())
         px.push_back(kv.first);
      return px;
   };
   using P = std::vector<std::pair<int, int>>;
   /* the last pixel is not drawn (GL's half-open segments) */
   EXPECT_EQ(pixels(2.5, 3.5, 8.5, 3.5), (P{{2, 3}, {3, 3}, {4, 3}, {5, 3}, {6, 3}, {7, 3}}));
   EXPECT_EQ(pixels(5.5, 9.5, 5.5, 6.5), (P{{5, 7}, {5, 8}, {5, 9}}));
   EXPECT_EQ(pixels(2.5, 2.5, 6.5, 6.5), (P{{2, 2}, {3, 3}, {4, 4}, {5, 5}}));
}

/* Lines whose window endpoints lie beyond int (a 6e9-pixel viewport, as in
 * RasterTriangle.FarOffScreenVerticesStayInIntRange; found by UBSan in
 * Piglit's overflow-edge-cases, where a non-finite position saturated):
 * the walk covers the 64 x 64 framebuffer as the exact line does. The
 * diagonal from window (-3e9, -3e9) to (3e9, 3e9) crosses pixels (k, k); the
 * line y = x / 2 from (-3e9, -1.5e9) to (3e9, 1.5e9) is x-major, and
 * Bresenham's midpoint rule rounds its y = k / 2 half up: pixel
 * (k, floor((k + 1) / 2)). Both directions draw the same pixels. */
TEST(RasterLines, FarOffScreenEndpointsWalkOnlyTheFramebuffer)
{
   Bench b(64, 64);
   b.t.viewport(-3e9f, -3e9f, 6e9f, 6e9f);
   b.load();
   auto pixels = [&](const double (&c0)[4], const double (&c1)[4]) {
      VertexRef v[2] = {b.vertex(c0), b.vertex(c1)};
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 2, r);
      return r.coverage();
   };
   std::map<std::pair<int, int>, int> diagonal, half;
   for (int k = 0; k < 64; k++) {
      diagonal[{k, k}] = 1;
      half[{k, (k + 1) / 2}] = 1;
   }
   const double lo[4] = {-1, -1, 0, 1}, hi[4] = {1, 1, 0, 1};
   const double hlo[4] = {-1, -0.5, 0, 1}, hhi[4] = {1, 0.5, 0, 1};
   EXPECT_EQ(pixels(lo, hi), diagonal);
   EXPECT_EQ(pixels(hi, lo), diagonal);
   EXPECT_EQ(pixels(hlo, hhi), half);
}

/* A non-finite position (GL leaves its rendering undefined) ends the line
 * quickly and inside the framebuffer: its endpoint saturates at -2^62
 * (trunc_int64), and the walk skips to the cliprect (before the fix: int
 * overflow, and 2^31 steps). */
TEST(RasterLines, NonFiniteEndpointStaysInTheFramebuffer)
{
   Bench b(64, 64);
   b.load();
   const double nan = std::numeric_limits<double>::quiet_NaN();
   const double c0[4] = {nan, nan, 0, 1}, c1[4] = {0.25, 0.5, 0, 1};
   VertexRef v[2] = {b.vertex(c0), b.vertex(c1)};
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 2, r);
   for (const auto &[xy, n] : r.coverage()) {
      EXPECT_TRUE(xy.first >= 0 && xy.first < 64 && xy.second >= 0 && xy.second < 64)
         << xy.first << "," << xy.second;
      EXPECT_EQ(n, 1);
   }
}

TEST(RasterLines, WideLineIsARectangle)
{
   Bench b;
   b.t.pipe.rasterizer.line_width = 3.0f;
   b.load();
   VertexRef v[2];
   double c[4];
   b.clip_of(2.0, 5.5, 0.5, 1.0, c);
   v[0] = b.vertex(c);
   b.clip_of(10.0, 5.5, 0.5, 1.0, c);
   v[1] = b.vertex(c);
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 2, r);
   const auto cov = r.coverage();
   /* GL ES 3.0 §3.5: a 3-pixel-wide x-major segment covers 3 rows centred
    * on it along its length: rows 4..6, columns 2..9 */
   for (int y = 0; y < 16; y++)
      for (int x = 0; x < 16; x++)
         EXPECT_EQ(cov.count({x, y}), (x >= 2 && x <= 9 && y >= 4 && y <= 6) ? 1u : 0u)
            << x << "," << y;
}

TEST(RasterOffset, UnitsAndSlope)
{
   for (bool sloped : {false, true}) {
      Bench b;
      b.t.framebuffer(64, 64, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
      b.t.pipe.rasterizer.offset_tri = true;
      b.t.pipe.rasterizer.offset_units = 4.0f;
      b.t.pipe.rasterizer.offset_scale = 2.0f;
      b.fs_inputs({{VLG_INPUT_SEMANTIC_FRAG_COORD, VLG_INTERP_CONSTANT}});
      b.load();
      const double win[3][2] = {{2, 2}, {60, 3}, {5, 61}};
      /* z = 0.25 + 0.004 * x (sloped) in window space */
      double z[3];
      for (int i = 0; i < 3; i++)
         z[i] = 0.25 + (sloped ? 0.004 * win[i][0] : 0.0);
      VertexRef v[3];
      for (int i = 0; i < 3; i++) {
         double clip[4];
         b.clip_of(win[i][0], win[i][1], z[i], 1.0, clip);
         v[i] = b.vertex(clip);
      }
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(v, 3, r);
      ASSERT_FALSE(r.qs.empty());
      /* GL ES 3.0 §3.6.2: o = m * factor + r * units, m = max |dz/dx|, |dz/dy|;
       * r = 2 / (2^24 - 1) for a 24-bit buffer (the reference renderer's
       * minimum resolvable difference, draw_pipe_offset.c) */
      const double m = sloped ? 0.004 : 0.0;
      const double o = m * 2.0 + 4.0 * 2.0 / 16777215.0;
      const auto &q = r.qs[r.qs.size() / 2];
      uint32_t vals[kMaxShaderIo][4][4];
      pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
      const double x = q.q.x + 0.5;
      EXPECT_NEAR(as_float(vals[0][0][2]), 0.25 + (sloped ? 0.004 * x : 0.0) + o, 2e-6);
   }
}

TEST(RasterPoints, SpriteCoordEnableReplacesVaryingOnlyForPoints)
{
   Bench b;
   b.t.pipe.rasterizer.point_size = 4.0f;
   b.t.pipe.rasterizer.sprite_coord_enable = 0x2; /* VARYING 1 */
   b.t.pipe.rasterizer.sprite_coord_mode = VLG_SPRITE_COORD_MODE_LOWER_LEFT;
   b.fs_inputs({{VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_PERSPECTIVE},
                {VLG_INPUT_SEMANTIC_VARYING, VLG_INTERP_PERSPECTIVE}});
   b.load();
   const std::array<float, 4> v0 = {5, 6, 7, 8}, v1 = {9, 9, 9, 9};
   double clip[4];
   b.clip_of(20.3, 30.6, 0.5, 1.0, clip);
   VertexRef v = b.vertex(clip, {v0, v1});
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(&v, 1, r);
   ASSERT_FALSE(r.qs.empty());
   const double x0 = 20.3 - 2 + 0.125, y0 = 30.6 - 2 - 0.125;
   for (const auto &q : r.qs) {
      uint32_t vals[kMaxShaderIo][4][4];
      pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
      for (unsigned l = 0; l < 4; l++) {
         if (!(q.q.mask >> l & 1))
            continue;
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(as_float(vals[0][l][c]), v0[c]); /* VARYING 0 untouched */
         const double cx = q.q.x + (l & 1) + 0.5, cy = q.q.y + (l >> 1) + 0.5;
         EXPECT_NEAR(as_float(vals[1][l][0]), (cx - x0) / 4, 1e-5);
         EXPECT_NEAR(as_float(vals[1][l][1]), 1.0 - (cy - y0) / 4, 1e-5); /* LOWER_LEFT */
         EXPECT_EQ(as_float(vals[1][l][2]), 0.0f);
         EXPECT_EQ(as_float(vals[1][l][3]), 1.0f);
      }
   }
   /* a triangle keeps the VS value of VARYING 1 */
   VertexRef t[3];
   const double w[3][2] = {{2, 2}, {30, 3}, {4, 30}};
   for (int i = 0; i < 3; i++) {
      b.clip_of(w[i][0], w[i][1], 0.5, 1.0, clip);
      t[i] = b.vertex(clip, {v0, v1});
   }
   Recorder rt;
   PrimitiveEngine eng2(b.pe);
   eng2.process(t, 3, rt);
   ASSERT_FALSE(rt.qs.empty());
   uint32_t vals[kMaxShaderIo][4][4];
   pe_interpolate_quad(b.pe, rt.setups[0], rt.qs[3].q, vals);
   EXPECT_EQ(as_float(vals[1][0][0]), 9.0f);
}

/* sprite_coord_enable covers every VARYING number: the compiler gives GL
 * texture coordinates VARYING 21..28 (vlg_varying_index), which GL ES 1 /
 * desktop GL_COORD_REPLACE replaces. */
TEST(RasterPoints, SpriteCoordEnableReachesVaryingsAbove15)
{
   for (unsigned idx : {21u, 28u, 31u}) {
      Bench b;
      b.t.pipe.rasterizer.point_size = 4.0f;
      b.t.pipe.rasterizer.sprite_coord_enable = 1u << idx;
      b.t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0xf, VLG_INTERP_PERSPECTIVE);
      b.t.fs.input(1, VLG_INPUT_SEMANTIC_VARYING, idx, 0xf, VLG_INTERP_PERSPECTIVE);
      b.t.vs.output(1, VLG_OUTPUT_SEMANTIC_VARYING, 0);
      b.t.vs.output(2, VLG_OUTPUT_SEMANTIC_VARYING, idx);
      b.load();
      ASSERT_GE(b.ge.layout.varying_slot[idx], 0);
      const std::array<float, 4> v0 = {5, 6, 7, 8}, v1 = {9, 9, 9, 9};
      double clip[4];
      b.clip_of(20.3, 30.6, 0.5, 1.0, clip);
      VertexRef v = b.vertex(clip, {v0});
      float *d = b.verts.back().data();
      std::copy(v1.begin(), v1.end(), d + b.ge.layout.varying_slot[idx] * 4);
      Recorder r;
      PrimitiveEngine eng(b.pe);
      eng.process(&v, 1, r);
      ASSERT_FALSE(r.qs.empty());
      const double x0 = 20.3 - 2 + 0.125, y0 = 30.6 - 2 - 0.125;
      unsigned lanes = 0;
      for (const auto &q : r.qs) {
         uint32_t vals[kMaxShaderIo][4][4];
         pe_interpolate_quad(b.pe, r.setups[q.setup], q.q, vals);
         for (unsigned l = 0; l < 4; l++) {
            if (!(q.q.mask >> l & 1))
               continue;
            for (unsigned c = 0; c < 4; c++)
               EXPECT_EQ(as_float(vals[0][l][c]), v0[c]) << "VARYING 0 untouched";
            const double cx = q.q.x + (l & 1) + 0.5, cy = q.q.y + (l >> 1) + 0.5;
            EXPECT_NEAR(as_float(vals[1][l][0]), (cx - x0) / 4, 1e-5) << "VARYING " << idx;
            EXPECT_NEAR(as_float(vals[1][l][1]), (cy - y0) / 4, 1e-5) << "UPPER_LEFT";
            EXPECT_EQ(as_float(vals[1][l][2]), 0.0f);
            EXPECT_EQ(as_float(vals[1][l][3]), 1.0f);
            lanes++;
         }
      }
      EXPECT_EQ(lanes, 16u); /* a 4x4 point */
   }
}

/* ------------------------------------------------------------------------
 * 4-sample coverage (docs/hw.md "Multisampling", GL ES 3.0 §3.6.3): the
 * package loader does not accept 4-sample framebuffers until the OMU does, so
 * these tests set PeState::samples / msaa after make_pe_state.
 * ------------------------------------------------------------------------ */

namespace {

/** Samples covered per (x, y, s); asserts each quad's mask agrees with its
 * samples. */
std::map<std::array<int, 3>, int>
sample_coverage(const Recorder &r)
{
   std::map<std::array<int, 3>, int> m;
   for (const Recorder::Q &q : r.qs) {
      for (unsigned l = 0; l < 4; l++) {
         const unsigned sm = q.q.samples >> (4 * l) & 0xf;
         EXPECT_EQ(sm != 0, (q.q.mask >> l & 1) != 0) << q.q.x << "," << q.q.y << " lane " << l;
         for (unsigned s = 0; s < 4; s++)
            if (sm >> s & 1)
               m[{q.q.x + int(l & 1), q.q.y + int(l >> 1), int(s)}]++;
      }
   }
   return m;
}

/** Draw window-space triangles into a 4-sample bench; returns the recorder. */
Recorder
draw_msaa(const std::vector<std::array<double, 6>> &tris, bool multisample = true,
          Cliprect *clip = nullptr)
{
   Bench b;
   b.load();
   b.pe.samples = 4;
   b.pe.msaa = multisample;
   if (clip)
      b.pe.cliprect = *clip;
   Recorder r;
   PrimitiveEngine eng(b.pe);
   for (const auto &t : tris) {
      VertexRef v[3];
      for (int i = 0; i < 3; i++) {
         double c[4];
         b.clip_of(t[2 * i], t[2 * i + 1], 0.5, 1.0, c);
         v[i] = b.vertex(c);
      }
      eng.process(v, 3, r);
   }
   return r;
}

/** Signed distance-like edge test in double: > 0 strictly inside (either winding). */
double
inside_margin(const std::array<double, 6> &t, double x, double y)
{
   double m = 1e30;
   const double area = (t[2] - t[0]) * (t[5] - t[1]) - (t[4] - t[0]) * (t[3] - t[1]);
   for (int i = 0; i < 3; i++) {
      const int j = (i + 1) % 3;
      const double dx = t[2 * j] - t[2 * i], dy = t[2 * j + 1] - t[2 * i + 1];
      const double e = (dx * (y - t[2 * i + 1]) - dy * (x - t[2 * i])) / std::hypot(dx, dy);
      m = std::min(m, area > 0 ? e : -e);
   }
   return m;
}

} // namespace

TEST(RasterMsaa, EdgePixelCoverageIsTheFractionOfCoveredSamplePositions)
{
   /* A vertical edge at x = 10 + f covers, in column 10, the samples whose x
    * offset (0.375, 0.875, 0.125, 0.625) is above f: for f = 0.5 samples 1
    * and 3 (2 of 4); f = 0.25: 0, 1, 3 (3/4); f = 0.75: 1 (1/4). The rest of
    * the rectangle [10+f, 30] x [8, 24) is fully covered. */
   const double fs[3] = {0.5, 0.25, 0.75};
   const unsigned want[3] = {0xa, 0xb, 0x2};
   for (int k = 0; k < 3; k++) {
      const double x0 = 10 + fs[k];
      Recorder r = draw_msaa({{x0, 8, 30, 8, 30, 24}, {x0, 8, 30, 24, x0, 24}});
      const auto cov = sample_coverage(r);
      for (int y = 8; y < 24; y++) {
         unsigned got = 0;
         for (int s = 0; s < 4; s++) {
            auto it = cov.find({10, y, s});
            if (it != cov.end()) {
               EXPECT_EQ(it->second, 1);
               got |= 1u << s;
            }
            EXPECT_EQ(cov.count({9, y, s}), 0u);
            EXPECT_EQ(cov.count({20, y, s}), 1u);
         }
         EXPECT_EQ(got, want[k]) << "f = " << fs[k] << " row " << y;
      }
      EXPECT_EQ(cov.size(), 16u * (19u * 4u + unsigned(__builtin_popcount(want[k]))));
   }
}

TEST(RasterMsaa, CoverageMatchesSamplePositionsOfRandomTriangles)
{
   /* Vertices on a 1/16 grid (exact in the PE's 1/256 fixed point); every
    * sample farther than 1e-6 from an edge must be covered iff inside. */
   std::mt19937 rng(6);
   std::uniform_int_distribution<int> c(0, 16 * 64); /* inside the viewport: no clipping */
   size_t compared = 0, covered = 0;
   for (int iter = 0; iter < 100; iter++) {
      std::array<double, 6> t;
      for (double &v : t)
         v = c(rng) / 16.0;
      Recorder r = draw_msaa({t});
      const auto cov = sample_coverage(r);
      for (int y = 0; y < 64; y++)
         for (int x = 0; x < 64; x++)
            for (int s = 0; s < 4; s++) {
               const double m = inside_margin(t, x + kSamplePos4x[s][0], y + kSamplePos4x[s][1]);
               if (std::fabs(m) < 1e-6)
                  continue;
               auto it = cov.find({x, y, s});
               const int got = it == cov.end() ? 0 : it->second;
               ASSERT_EQ(got, m > 0 ? 1 : 0)
                  << "triangle " << iter << " pixel " << x << "," << y << " sample " << s;
               compared++;
               covered += got;
            }
   }
   EXPECT_GT(compared, 100u * 16000u);
   EXPECT_GT(covered, 100000u);
}

TEST(RasterMsaa, SharedEdgesThroughSamplesCoverEachSampleOnce)
{
   /* A parallelogram split along x - y = 0.25, which passes through sample 0
    * (0.375, 0.125) of every pixel (k, k), and a fan around (32.375, 32.125)
    * (sample 0 of pixel (32, 32)) whose spokes pass through further samples:
    * no sample may be covered twice; the samples strictly inside the outline
    * are covered once (GL ES 3.0 §3.6.1). */
   const std::array<double, 6> a{0.25, 0, 40.25, 0, 56.25, 56}, b{0.25, 0, 56.25, 56, 16.25, 56};
   Recorder r = draw_msaa({a, b});
   auto cov = sample_coverage(r);
   for (auto &e : cov)
      ASSERT_EQ(e.second, 1) << e.first[0] << "," << e.first[1] << " s" << e.first[2];
   unsigned on_diag = 0;
   for (int k = 1; k < 55; k++) {
      EXPECT_EQ(cov.count({k, k, 0}), 1u) << k;
      on_diag++;
   }
   EXPECT_EQ(on_diag, 54u);

   const double cx = 32.375, cy = 32.125;
   const double ring[8][2] = {{cx + 8, cy}, {cx + 8, cy + 8}, {cx, cy + 8}, {cx - 8, cy + 8},
                              {cx - 8, cy}, {cx - 8, cy - 8}, {cx, cy - 8}, {cx + 8, cy - 8}};
   std::vector<std::array<double, 6>> fan;
   for (int i = 0; i < 8; i++) {
      const int j = (i + 1) % 8;
      fan.push_back({cx, cy, ring[i][0], ring[i][1], ring[j][0], ring[j][1]});
   }
   Recorder rf = draw_msaa(fan);
   cov = sample_coverage(rf);
   for (auto &e : cov)
      ASSERT_EQ(e.second, 1) << e.first[0] << "," << e.first[1] << " s" << e.first[2];
   /* every sample of the square (cx +- 8, cy +- 8) strictly inside is covered,
    * the centre sample included: per axis 15 positions for offset 0.375 (x) /
    * 0.125 (y) of sample 0, whose ends lie on the border, 16 for the others:
    * 15 * 15 + 3 * 16 * 16 = 993 */
   unsigned inside = 0;
   for (int y = 20; y < 45; y++)
      for (int x = 20; x < 45; x++)
         for (int s = 0; s < 4; s++) {
            const double sx = x + kSamplePos4x[s][0], sy = y + kSamplePos4x[s][1];
            if (std::fabs(sx - cx) < 8 && std::fabs(sy - cy) < 8) {
               EXPECT_EQ(cov.count({x, y, s}), 1u) << x << "," << y << " s" << s;
               inside++;
            }
         }
   EXPECT_EQ(cov.count({32, 32, 0}), 1u);
   EXPECT_EQ(inside, 993u);
}

TEST(RasterMsaa, ScissorAndQuadOrder)
{
   Cliprect clip{5, 7, 21, 19};
   Recorder r = draw_msaa({{0, 0, 64, 0, 0, 64}}, true, &clip);
   const auto cov = sample_coverage(r);
   for (auto &e : cov) {
      EXPECT_GE(e.first[0], 5);
      EXPECT_LT(e.first[0], 21);
      EXPECT_GE(e.first[1], 7);
      EXPECT_LT(e.first[1], 19);
   }
   EXPECT_EQ(cov.size(), 16u * 12u * 4u);
   /* 2-row bands top to bottom, quads left to right */
   for (size_t i = 1; i < r.qs.size(); i++) {
      const Quad &p = r.qs[i - 1].q, &q = r.qs[i].q;
      EXPECT_TRUE(q.y > p.y || (q.y == p.y && q.x > p.x)) << i;
   }
}

TEST(RasterMsaa, MultisampleOffGivesEverySampleThePixelCoverage)
{
   const std::array<double, 6> t{3.3, 2.7, 50.1, 9.9, 20.2, 60.6};
   Recorder on = draw_msaa({t}, false);
   Bench b;
   b.load();
   Recorder single;
   {
      PrimitiveEngine eng(b.pe);
      VertexRef v[3];
      for (int i = 0; i < 3; i++) {
         double c[4];
         b.clip_of(t[2 * i], t[2 * i + 1], 0.5, 1.0, c);
         v[i] = b.vertex(c);
      }
      eng.process(v, 3, single);
   }
   ASSERT_EQ(on.qs.size(), single.qs.size());
   for (size_t i = 0; i < on.qs.size(); i++) {
      const Quad &a = on.qs[i].q, &s = single.qs[i].q;
      EXPECT_EQ(a.x, s.x);
      EXPECT_EQ(a.y, s.y);
      EXPECT_EQ(a.mask, s.mask);
      EXPECT_EQ(s.samples, 0u);
      for (unsigned l = 0; l < 4; l++)
         EXPECT_EQ(a.samples >> (4 * l) & 0xf, (s.mask >> l & 1) ? 0xfu : 0u);
   }
}

TEST(RasterMsaa, PerSampleDepthIsThePlaneAtTheSamplePosition)
{
   /* z = 0.1 + x / 128 + y / 256 over the framebuffer */
   Bench b;
   b.load();
   b.pe.samples = 4;
   b.pe.msaa = true;
   auto zf = [](double x, double y) { return 0.1 + x / 128 + y / 256; };
   const double w[3][2] = {{0, 0}, {64, 0}, {0, 64}};
   VertexRef v[3];
   for (int i = 0; i < 3; i++) {
      double c[4];
      b.clip_of(w[i][0], w[i][1], zf(w[i][0], w[i][1]), 1.0, c);
      v[i] = b.vertex(c);
   }
   Recorder r;
   PrimitiveEngine eng(b.pe);
   eng.process(v, 3, r);
   ASSERT_FALSE(r.qs.empty());
   for (const Recorder::Q &q : r.qs) {
      float z[4][kMsaaSamples];
      pe_sample_depth(r.setups[q.setup], q.q, z);
      for (unsigned l = 0; l < 4; l++)
         for (unsigned s = 0; s < 4; s++) {
            const double x = q.q.x + int(l & 1) + kSamplePos4x[s][0];
            const double y = q.q.y + int(l >> 1) + kSamplePos4x[s][1];
            EXPECT_NEAR(z[l][s], zf(x, y), 2e-6) << x << "," << y;
         }
   }
}
