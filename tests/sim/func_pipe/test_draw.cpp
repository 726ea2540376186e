/*
 * Functional draws end to end (render_draw): packages written with the
 * VLG_*_pack functions, shaders assembled from VL-IW text and run on the SPC
 * executor, pixels compared with references computed here (edge functions
 * and barycentrics in double precision, GL ES 3.0 rules).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <functional>

#include "pipe_test_util.h"
#include "sim/func/pipe/functional.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/* VS of seed 001 table 1/2: position = matrix (columns C0..C3) x R0, colour
 * passed through. */
const char *kMatrixVs = R"(
   MUL R4, R0.xxxx, C0
   MAD R4, R0.yyyy, C1, R4
   MAD R4, R0.zzzz, C2, R4
   MAD R4, R0.wwww, C3, R4
   MOV R5, R1
   BRC.END
)";

/* VS: position and colour passed through */
const char *kPassVs = R"(
   MOV R4, R0
   MOV R5, R1
   BRC.END
)";

/* FS: colour = interpolated VARYING 0 */
const char *kColorFs = R"(
   MOV R1, R0
   BRC.END
)";

/** Set up the seed-001 style pipeline: attribute 0 = position (vec4),
 * attribute 1 = colour (vec4) interleaved, VARYING 0 = colour with @interp. */
void
color_pipeline(TestDraw &t, const std::vector<float> &verts, const char *vs = kPassVs,
               vlg_interp interp = VLG_INTERP_PERSPECTIVE)
{
   const unsigned vb = t.vertex_buffer(verts, 32);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 16);
   t.vs.code = assemble(vs);
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.fs.code = assemble(kColorFs);
   t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0xf, interp);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   if (t.draw.count == 0)
      t.draw.count = uint32_t(verts.size() / 8);
}

DrawStats
render(TestDraw &t, unsigned width = 16)
{
   const uint64_t a = t.write();
   FuncOptions o;
   o.thread_group_width = width;
   return render_draw(t.vram, a, o);
}

/** unorm8 of v in [0,1] (round to nearest). */
long
u8(double v)
{
   return std::lround(std::clamp(v, 0.0, 1.0) * 255.0);
}

::testing::AssertionResult
near_u8(uint8_t got, double v)
{
   const double s = std::clamp(v, 0.0, 1.0) * 255.0;
   if (got == u8(v))
      return ::testing::AssertionSuccess();
   if (std::fabs(s - std::floor(s) - 0.5) < 0.01 && std::abs(long(got) - u8(v)) <= 1)
      return ::testing::AssertionSuccess();
   return ::testing::AssertionFailure() << int(got) << " != " << u8(v) << " (" << s << ")";
}

/** Pixel centre distance to the nearest triangle edge line (pixels). */
double
edge_dist(const double (*v)[2], int px, int py)
{
   double best = 1e30;
   for (int i = 0; i < 3; i++) {
      const double *a = v[i], *b = v[(i + 1) % 3];
      const double dx = b[0] - a[0], dy = b[1] - a[1];
      best = std::min(best, std::fabs(dx * (py + 0.5 - a[1]) - dy * (px + 0.5 - a[0])) /
                               std::hypot(dx, dy));
   }
   return best;
}

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

void
expect_fault(const std::function<void()> &f, const char *module, const char *needle)
{
   try {
      f();
      ADD_FAILURE() << "no GpuFault";
   } catch (const GpuFault &e) {
      EXPECT_EQ(e.module(), module) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
   }
}

} // namespace

TEST(Draw, Seed001ColouredSquare)
{
   const unsigned W = 96, H = 80;
   TestDraw t;
   t.framebuffer(W, H);
   /* the square (-1..1)^2 in object space with a colour per corner */
   const double obj[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
   const float col[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 1}};
   std::vector<float> verts;
   for (int i = 0; i < 4; i++) {
      verts.insert(verts.end(), {float(obj[i][0]), float(obj[i][1]), 0.0f, 1.0f});
      verts.insert(verts.end(), col[i], col[i] + 4);
   }
   t.indices(std::vector<uint16_t>{0, 1, 2, 0, 2, 3});
   color_pipeline(t, verts, kMatrixVs);
   /* matrix: rotate 30 degrees, scale 0.55, translate (0.1, -0.05); column i in C_i */
   const double c = std::cos(M_PI / 6) * 0.55, s = std::sin(M_PI / 6) * 0.55;
   const double m[4][4] = {{c, -s, 0, 0.1}, {s, c, 0, -0.05}, {0, 0, 1, 0}, {0, 0, 0, 1}};
   for (int col_i = 0; col_i < 4; col_i++)
      for (int row = 0; row < 4; row++)
         t.vs.consts.push_back(float(m[row][col_i]));
   const DrawStats st = render(t);

   /* reference: transform in double, viewport, edge functions, barycentrics */
   double win[4][2];
   for (int i = 0; i < 4; i++) {
      const double x = m[0][0] * obj[i][0] + m[0][1] * obj[i][1] + m[0][3];
      const double y = m[1][0] * obj[i][0] + m[1][1] * obj[i][1] + m[1][3];
      win[i][0] = x * W / 2 + W / 2.0;
      win[i][1] = y * H / 2 + H / 2.0;
   }
   const int tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
   unsigned inside = 0, compared = 0;
   for (unsigned y = 0; y < H; y++) {
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = t.rgba8(x, y);
         bool skip = false, covered = false;
         double want[4] = {0, 0, 0, 0};
         for (auto &tri : tris) {
            const double v[3][2] = {{win[tri[0]][0], win[tri[0]][1]},
                                    {win[tri[1]][0], win[tri[1]][1]},
                                    {win[tri[2]][0], win[tri[2]][1]}};
            if (edge_dist(v, int(x), int(y)) < 1e-3)
               skip = true;
            if (ref_covered(v, x, y)) {
               covered = true;
               double l[3];
               barycentric(v, x + 0.5, y + 0.5, l);
               for (int ch = 0; ch < 4; ch++)
                  want[ch] =
                     l[0] * col[tri[0]][ch] + l[1] * col[tri[1]][ch] + l[2] * col[tri[2]][ch];
            }
         }
         if (skip)
            continue;
         compared++;
         inside += covered;
         for (int ch = 0; ch < 4; ch++)
            ASSERT_TRUE(near_u8(p[ch], want[ch])) << "pixel " << x << "," << y << " ch " << ch;
      }
   }
   EXPECT_GT(inside, 1500u);
   EXPECT_GT(compared, W * H - 400);
   EXPECT_EQ(st.ge.vertices_fetched, 4u);
   EXPECT_EQ(st.ge.vertices_reused, 2u);
   EXPECT_EQ(st.ge.primitives, 2u);
   EXPECT_EQ(st.fs_invocations, st.pe.fragments);
   EXPECT_EQ(st.fragments_passed, st.pe.fragments);
   EXPECT_GT(st.vs_instructions, 0u);
   EXPECT_GT(st.fs_instructions, 0u);
}

TEST(Draw, ThreadGroupWidthDoesNotChangePixels)
{
   std::vector<std::vector<uint8_t>> images;
   for (unsigned w : {4u, 16u, 64u}) {
      TestDraw t;
      t.framebuffer(40, 40);
      std::vector<float> verts;
      for (int i = 0; i < 12; i++) {
         /* a band across the target, jittered, w varying (perspective) */
         const double w = 1.0 + 0.1 * i;
         verts.insert(verts.end(), {float((-0.93 + 0.16 * i) * w),
                                    float(((i % 2) ? 0.8 : -0.75) + 0.05 * std::sin(i)) * float(w),
                                    float((0.1 * i - 0.5) * w), float(w)});
         verts.insert(verts.end(), {float(i / 12.0), float(1 - i / 12.0), 0.5f, 1.0f});
      }
      t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
      color_pipeline(t, verts);
      render(t, w);
      const uint8_t *p = t.rgba8(0, 0);
      images.emplace_back(p, p + 40 * 40 * 4);
   }
   unsigned written = 0;
   for (size_t i = 3; i < images[0].size(); i += 4)
      written += images[0][i] != 0;
   EXPECT_GT(written, 800u); /* about 60% of the target */
   EXPECT_EQ(images[0], images[1]);
   EXPECT_EQ(images[0], images[2]);
}

namespace {

/** Flat-coloured small triangles: vertex i gets colour (i/16, 0, 0, 1); a
 * triangle's colour is its provoking vertex's. */
struct FlatScene {
   TestDraw t;
   explicit FlatScene(unsigned w = 32, unsigned h = 32) { t.framebuffer(w, h); }
   /* vertex list of window positions (pixel units) */
   void vertices(const std::vector<std::array<double, 2>> &pos)
   {
      std::vector<float> v;
      const VLG_VIEWPORT &vp = t.pipe.viewport;
      for (size_t i = 0; i < pos.size(); i++) {
         v.insert(v.end(), {float((pos[i][0] - vp.translate[0]) / vp.scale[0]),
                            float((pos[i][1] - vp.translate[1]) / vp.scale[1]), 0.0f, 1.0f});
         v.insert(v.end(), {float(i) / 16.0f, 0.0f, 0.0f, 1.0f});
      }
      color_pipeline(t, v, kPassVs, VLG_INTERP_FLAT);
   }
   /** red channel at pixel (x, y) as a vertex number, -1 if unwritten */
   int vertex_at(unsigned x, unsigned y) const
   {
      const uint8_t *p = t.rgba8(x, y);
      if (p[3] == 0)
         return -1;
      return int(std::lround(p[0] / 255.0 * 16.0));
   }
};

} // namespace

TEST(Draw, ProvokingVertexOfEveryPrimitiveType)
{
   /* a strip of 5 vertices zig-zagging: triangles 0..2 each contain the
    * centroid of their three vertices */
   const std::vector<std::array<double, 2>> zig = {{2, 2}, {2, 28}, {12, 2}, {12, 28}, {22, 2}};
   struct Case {
      vlg_prim prim;
      bool first;
      std::vector<std::array<int, 4>> tris; /* vertices, provoking */
   } cases[] = {
      {VLG_PRIM_TRIANGLE_STRIP, false, {{0, 1, 2, 2}, {1, 2, 3, 3}, {2, 3, 4, 4}}},
      {VLG_PRIM_TRIANGLE_STRIP, true, {{0, 1, 2, 0}, {1, 2, 3, 1}, {2, 3, 4, 2}}},
      {VLG_PRIM_TRIANGLES, false, {{0, 1, 2, 2}}},
      {VLG_PRIM_TRIANGLES, true, {{0, 1, 2, 0}}},
   };
   for (const Case &c : cases) {
      FlatScene s;
      s.t.draw.prim = c.prim;
      s.t.pipe.rasterizer.flatshade_first = c.first;
      s.vertices(zig);
      render(s.t);
      for (auto &tri : c.tris) {
         double cx = 0, cy = 0;
         for (int k = 0; k < 3; k++)
            cx += zig[tri[k]][0] / 3, cy += zig[tri[k]][1] / 3;
         EXPECT_EQ(s.vertex_at(unsigned(cx), unsigned(cy)), tri[3])
            << vlg_prim_name(c.prim) << " first=" << c.first;
      }
   }
   /* fan around vertex 0 */
   const std::vector<std::array<double, 2>> fan = {{16, 16}, {30, 16}, {30, 30}, {16, 30}, {2, 30}};
   for (bool first : {false, true}) {
      FlatScene s;
      s.t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
      s.t.pipe.rasterizer.flatshade_first = first;
      s.vertices(fan);
      render(s.t);
      for (int i = 1; i <= 3; i++) {
         const double cx = (fan[0][0] + fan[i][0] + fan[i + 1][0]) / 3;
         const double cy = (fan[0][1] + fan[i][1] + fan[i + 1][1]) / 3;
         EXPECT_EQ(s.vertex_at(unsigned(cx), unsigned(cy)), first ? i : i + 1) << "fan " << first;
      }
   }
}

TEST(Draw, LinesAndLineLoopAndPoints)
{
   {
      FlatScene s;
      s.t.draw.prim = VLG_PRIM_LINE_LOOP;
      s.t.draw.vertices_per_prim = 2;
      s.vertices({{4.5, 4.5}, {20.5, 4.5}, {20.5, 20.5}});
      render(s.t);
      EXPECT_EQ(s.vertex_at(10, 4), 1);  /* segment 0-1, provoking 1 */
      EXPECT_EQ(s.vertex_at(20, 10), 2); /* segment 1-2 */
      EXPECT_EQ(s.vertex_at(12, 12), 0); /* closing segment 2-0, provoking 0 */
   }
   {
      FlatScene s;
      s.t.draw.prim = VLG_PRIM_POINTS;
      s.t.draw.vertices_per_prim = 1;
      s.t.pipe.rasterizer.point_size = 3.0f;
      s.vertices({{5.5, 5.5}, {15.5, 9.5}});
      const DrawStats st = render(s.t);
      EXPECT_EQ(s.vertex_at(5, 5), 0);
      EXPECT_EQ(s.vertex_at(4, 6), 0);
      EXPECT_EQ(s.vertex_at(16, 10), 1);
      EXPECT_EQ(s.vertex_at(7, 5), -1);
      EXPECT_EQ(st.fragments_passed, 18u);
   }
}

TEST(Draw, IndexSizesRestartAndBaseVertex)
{
   /* quads of two triangles as strips separated by restart indices, drawn
    * with base_vertex 2 (the first two vertices are decoys) */
   for (unsigned size : {1u, 2u, 4u}) {
      FlatScene s;
      std::vector<std::array<double, 2>> pos = {{0, 0}, {0, 0}}; /* decoys */
      for (int q = 0; q < 3; q++) {
         const double x0 = 2 + 10 * q;
         pos.push_back({x0, 4});
         pos.push_back({x0, 12});
         pos.push_back({x0 + 8, 4});
         pos.push_back({x0 + 8, 12});
      }
      s.t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
      s.t.draw.primitive_restart = true;
      const uint32_t R = size == 1 ? 0xff : size == 2 ? 0xffff : 0xffffffffu;
      s.t.draw.restart_index = R;
      const std::vector<uint32_t> idx = {0, 1, 2, 3, R, 4, 5, 6, 7, R, 8, 9, 10, 11};
      if (size == 1)
         s.t.indices(std::vector<uint8_t>(idx.begin(), idx.end()));
      else if (size == 2)
         s.t.indices(std::vector<uint16_t>(idx.begin(), idx.end()));
      else
         s.t.indices(idx);
      s.t.draw.base_vertex = 2;
      s.vertices(pos);
      const DrawStats st = render(s.t);
      EXPECT_EQ(st.ge.restarts, 2u);
      EXPECT_EQ(st.ge.primitives, 6u);
      for (int q = 0; q < 3; q++) {
         /* lower-left triangle (v0, v1, v2) provoking v2 = 2 + 4q + 2 */
         EXPECT_EQ(s.vertex_at(unsigned(3 + 10 * q), 6), 2 + 4 * q + 2) << size;
         EXPECT_EQ(s.vertex_at(unsigned(8 + 10 * q), 10), 2 + 4 * q + 3) << size;
      }
      EXPECT_EQ(s.vertex_at(1, 8), -1); /* gap between quads stays empty */
   }
}

TEST(Draw, InstancingWithDivisors)
{
   TestDraw t;
   t.framebuffer(32, 32);
   /* a small square at the origin (in window units relative to the top-left
    * quarter), per-instance offset (divisor 1) and colour (divisor 2) */
   const std::vector<float> quad = {-1.0f, -1.0f, -0.75f, -1.0f, -1.0f, -0.75f, -0.75f, -0.75f};
   const unsigned vb0 = t.vertex_buffer(quad, 8);
   const std::vector<float> offs = {0.0f, 0.0f, 0.5f, 0.0f, 1.0f, 0.0f, 1.5f, 0.0f};
   const unsigned vb1 = t.vertex_buffer(offs, 8);
   const std::vector<float> colors = {0.2f, 0.4f, 0.6f, 0.8f};
   const unsigned vb2 = t.vertex_buffer(colors, 4);
   t.element(vb0, VLG_FORMAT_R32G32_FLOAT);
   t.element(vb1, VLG_FORMAT_R32G32_FLOAT, 0, 1);
   t.element(vb2, VLG_FORMAT_R32_FLOAT, 0, 2);
   t.vs.code = assemble(R"(
      ADD R4.xy, R0, R1
      MOV R4.zw, R3.xxxy
      MOV R5, R2.xxxx
      BRC.END
   )");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.input(2, VLG_INPUT_SEMANTIC_ATTRIBUTE, 2);
   t.vs.input(3, VLG_INPUT_SEMANTIC_ATTRIBUTE, 3, 0x3); /* R3 = (0, 1) constant attribute */
   const std::vector<float> zw = {0.0f, 1.0f};
   const unsigned vb3 = t.vertex_buffer(zw, 0);
   t.element(vb3, VLG_FORMAT_R32G32_FLOAT);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.fs.code = assemble(kColorFs);
   t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.count = 4;
   t.draw.instance_count = 4;
   /* colour of instance i = colors[i / 2] */
   const DrawStats st = render(t);
   EXPECT_EQ(st.vs_invocations, 16u);
   for (int i = 0; i < 4; i++) {
      /* square i covers window x in [8i, 8i + 4), y in [0, 4) */
      const uint8_t *p = t.rgba8(unsigned(8 * i + 2), 2);
      EXPECT_TRUE(near_u8(p[0], colors[i / 2])) << "instance " << i;
      EXPECT_EQ(t.rgba8(unsigned(8 * i + 6), 2)[3], 0) << "gap after instance " << i;
   }
}

TEST(Draw, StartInstanceOffsetsPerInstanceFetch)
{
   TestDraw t;
   t.framebuffer(8, 8);
   const std::vector<float> tri = {-1, -1, 3, -1, -1, 3}; /* covers the framebuffer */
   const unsigned vb0 = t.vertex_buffer(tri, 8);
   const std::vector<float> colors = {0.2f, 0.4f, 0.6f, 0.8f};
   const unsigned vb1 = t.vertex_buffer(colors, 4);
   t.element(vb0, VLG_FORMAT_R32G32_FLOAT);
   t.element(vb1, VLG_FORMAT_R32_FLOAT, 0, 1);
   t.vs.code = assemble("MOV R4, R0\nMOV R5, R1.xxxx\nBRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0); /* (x, y, 0, 1) */
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.fs.code = assemble(kColorFs);
   t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.draw.count = 3;
   t.draw.instance_count = 1;
   t.draw.start_instance = 2;
   render(t);
   EXPECT_TRUE(near_u8(t.rgba8(3, 3)[0], 0.6));
}

namespace {

/** Two overlapping axis-aligned quads (A: x 4..20, z 0.5, red; B: x 12..28,
 * z @zb, green) in a 32x16 target with a Z24S8 buffer. */
struct TwoQuads {
   TestDraw t;
   explicit TwoQuads(float zb)
   {
      t.framebuffer(32, 16, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
      auto ndc = [](double x) { return float(x / 16.0 - 1.0); };
      std::vector<float> v;
      auto quad = [&](double x0, double x1, float z, std::array<float, 4> c, bool ccw) {
         const double ys[2] = {-1.0, 1.0};
         const double pts[6][2] = {{x0, ys[0]}, {x1, ys[0]}, {x1, ys[1]},
                                   {x0, ys[0]}, {x1, ys[1]}, {x0, ys[1]}};
         for (int k = 0; k < 6; k++) {
            const int kk = ccw ? k : (k % 3 == 1 ? k + 1 : k % 3 == 2 ? k - 1 : k);
            v.insert(v.end(), {ndc(pts[kk][0]), float(pts[kk][1]), z, 1.0f});
            v.insert(v.end(), c.begin(), c.end());
         }
      };
      quad(4, 20, 0.0f, {1, 0, 0, 1}, true);               /* window z 0.5 */
      quad(12, 28, zb * 2.0f - 1.0f, {0, 1, 0, 1}, false); /* window z zb, other winding */
      color_pipeline(t, v);
   }
};

} // namespace

TEST(Draw, DepthTestAllFunctionsOnOverlappingQuads)
{
   const vlg_compare_func funcs[] = {VLG_COMPARE_FUNC_NEVER,   VLG_COMPARE_FUNC_LESS,
                                     VLG_COMPARE_FUNC_EQUAL,   VLG_COMPARE_FUNC_LEQUAL,
                                     VLG_COMPARE_FUNC_GREATER, VLG_COMPARE_FUNC_NOTEQUAL,
                                     VLG_COMPARE_FUNC_GEQUAL,  VLG_COMPARE_FUNC_ALWAYS};
   for (float zb : {0.25f, 0.5f, 0.75f}) {
      for (vlg_compare_func f : funcs) {
         TwoQuads q(zb);
         q.t.pipe.depth_stencil_alpha.depth_enable = true;
         q.t.pipe.depth_stencil_alpha.depth_writemask = true;
         q.t.pipe.depth_stencil_alpha.depth_func = f;
         /* depth buffer cleared to 1.0 beforehand */
         for (unsigned y = 0; y < 16; y++)
            for (unsigned x = 0; x < 32; x++) {
               const uint32_t one = 0xffffff;
               std::memcpy(q.t.zs_ptr(x, y), &one, 4);
            }
         const DrawStats st = render(q.t);
         /* depth quantization of the reference: fp32 z * 16777215 truncated */
         const uint32_t za = ref_z24(0.5f), zbq = ref_z24(zb), cleared = 0xffffff;
         /* columns: 6 = A only, 16 = overlap, 24 = B only */
         const bool a_drawn = ref_compare(f, za, cleared);
         const uint32_t after_a = a_drawn ? za : cleared;
         const bool b_over_a = ref_compare(f, zbq, after_a);
         const bool b_alone = ref_compare(f, zbq, cleared);
         auto green = [&](unsigned x) { return q.t.rgba8(x, 8)[1] == 255; };
         auto red = [&](unsigned x) { return q.t.rgba8(x, 8)[0] == 255; };
         EXPECT_EQ(red(6), a_drawn) << vlg_compare_func_name(f) << " zb " << zb;
         EXPECT_EQ(green(24), b_alone) << vlg_compare_func_name(f) << " zb " << zb;
         EXPECT_EQ(green(16), b_over_a) << vlg_compare_func_name(f) << " zb " << zb;
         EXPECT_EQ(red(16), a_drawn && !b_over_a) << vlg_compare_func_name(f) << " zb " << zb;
         uint32_t stored;
         std::memcpy(&stored, q.t.zs_ptr(16, 8), 4);
         EXPECT_EQ(stored & 0xffffff, b_over_a ? zbq : after_a) << vlg_compare_func_name(f);
         EXPECT_TRUE(st.early_z_quads > 0) << "no discard, no depth write: early test";
      }
   }
}

TEST(Draw, StencilMaskingAndTwoSidedWrap)
{
   /* pass 1: quad A writes stencil 1 (REPLACE) without colour; pass 2: quad
    * B draws only where stencil == 1 */
   TwoQuads q(0.5f);
   VLG_DEPTH_STENCIL_ALPHA &dsa = q.t.pipe.depth_stencil_alpha;
   dsa.stencil[0].enabled = true;
   dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[0].zpass_op = VLG_STENCIL_OP_INCR_WRAP;
   dsa.stencil[1].enabled = true; /* B is wound the other way: back-facing */
   dsa.stencil[1].func = VLG_COMPARE_FUNC_EQUAL;
   dsa.stencil[1].valuemask = 0xff;
   dsa.stencil[1].zpass_op = VLG_STENCIL_OP_DECR_WRAP;
   dsa.stencil[1].fail_op = VLG_STENCIL_OP_INVERT;
   q.t.pipe.stencil_ref.ref_value[0] = 0;
   q.t.pipe.stencil_ref.ref_value[1] = 1;
   q.t.pipe.rasterizer.front_ccw = false; /* A is clockwise on the screen: front */
   render(q.t);
   auto stencil = [&](unsigned x) { return q.t.zs_ptr(x, 8)[3]; };
   auto green = [&](unsigned x) { return q.t.rgba8(x, 8)[1] == 255; };
   /* A (front): 0 -> 1. B (back): EQUAL 1 passes on the
    * overlap (1 -> 0 by DECR_WRAP), fails elsewhere (0 -> ~0 = 255) */
   EXPECT_EQ(stencil(6), 1);
   EXPECT_EQ(stencil(16), 0);
   EXPECT_EQ(stencil(24), 255);
   EXPECT_TRUE(green(16));
   EXPECT_FALSE(green(24));
   EXPECT_FALSE(green(6));
}

TEST(Draw, BlendingAndColorMaskThroughThePipeline)
{
   TestDraw t;
   t.framebuffer(8, 8);
   const std::vector<float> v = {-1, -1, 0, 1, 0.8f, 0.4f, 0.2f, 0.5f,
                                 3,  -1, 0, 1, 0.8f, 0.4f, 0.2f, 0.5f,
                                 -1, 3,  0, 1, 0.8f, 0.4f, 0.2f, 0.5f};
   color_pipeline(t, v);
   VLG_BLEND_RT &rt = t.pipe.blend.rt[0];
   rt.blend_enable = true;
   rt.rgb_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
   rt.rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   rt.alpha_src_factor = VLG_BLEND_FACTOR_ONE;
   rt.alpha_dst_factor = VLG_BLEND_FACTOR_ZERO;
   rt.colormask = 0xb; /* R, G, A */
   for (unsigned y = 0; y < 8; y++)
      for (unsigned x = 0; x < 8; x++) {
         uint8_t *p = const_cast<uint8_t *>(t.rgba8(x, y));
         p[0] = 0, p[1] = 200, p[2] = 100, p[3] = 255;
      }
   const DrawStats st = render(t);
   const uint8_t *p = t.rgba8(3, 3);
   EXPECT_TRUE(near_u8(p[0], 0.8 * 0.5));
   EXPECT_TRUE(near_u8(p[1], 0.4 * 0.5 + 200 / 255.0 * 0.5));
   EXPECT_EQ(p[2], 100); /* masked */
   EXPECT_TRUE(near_u8(p[3], 0.5));
   EXPECT_EQ(st.fragments_blended, 64u);
}

TEST(Draw, MultipleRenderTargets)
{
   TestDraw t;
   t.framebuffer(8, 8, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_NONE, 3);
   t.fb.cbufs[2] = t.surface(VLG_FORMAT_R32G32B32A32_FLOAT, 8, 8);
   const std::vector<float> v = {-1, -1, 0, 1, 0.25f, 0.5f, 0.75f, 1,
                                 3,  -1, 0, 1, 0.25f, 0.5f, 0.75f, 1,
                                 -1, 3,  0, 1, 0.25f, 0.5f, 0.75f, 1};
   color_pipeline(t, v);
   /* COLOR0 = c, COLOR1 = 1 - c (written with colour mask G only), COLOR2 = 2c (float) */
   t.fs.code = assemble(R"(
      MOV R1, R0
      ADD R2, C0, -R0
      ADD R3, R0, R0
      BRC.END
   )");
   t.fs.consts = {1, 1, 1, 1};
   t.fs.output(2, VLG_OUTPUT_SEMANTIC_COLOR, 1);
   t.fs.output(3, VLG_OUTPUT_SEMANTIC_COLOR, 2);
   t.pipe.blend.independent_blend_enable = true;
   t.pipe.blend.rt[1].colormask = 0x2;
   render(t);
   const uint8_t *p0 = t.rgba8(4, 4, 0), *p1 = t.rgba8(4, 4, 1);
   EXPECT_EQ(p0[0], 64);
   EXPECT_EQ(p0[2], 191);
   EXPECT_EQ(p1[0], 0);
   EXPECT_EQ(p1[1], 128);
   EXPECT_EQ(p1[2], 0);
   float f[4];
   std::memcpy(f, t.vram.data() + t.fb.cbufs[2].address + 4 * 16 * 8 + 4 * 16, 16);
   EXPECT_EQ(f[0], 0.5f);
   EXPECT_EQ(f[1], 1.0f);
   EXPECT_EQ(f[2], 1.5f); /* float target: not clamped */
   EXPECT_EQ(f[3], 2.0f);
}

/* Eight colour buffers (GL 3.0 MAX_DRAW_BUFFERS 8): COLOR 7 reaches
 * cbufs[7] with rt[7]'s blend state, and a CLEAR of bit 2 + 7 clears it. */
TEST(Draw, EightRenderTargets)
{
   TestDraw t;
   t.framebuffer(8, 8, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_NONE, 8);
   t.fb.cbufs[7] = t.surface(VLG_FORMAT_R32G32B32A32_FLOAT, 8, 8);
   const std::vector<float> v = {-1, -1, 0, 1, 0.25f, 0.5f, 0.75f, 1,
                                 3,  -1, 0, 1, 0.25f, 0.5f, 0.75f, 1,
                                 -1, 3,  0, 1, 0.25f, 0.5f, 0.75f, 1};
   color_pipeline(t, v);
   t.fs.code = assemble(R"(
      ADD R3, R0, R0
      BRC.END
   )");
   t.fs.output(3, VLG_OUTPUT_SEMANTIC_COLOR, 7);
   t.pipe.blend.independent_blend_enable = true;
   t.pipe.blend.rt[7].colormask = 0x5; /* R and B */
   render(t);
   float f[4];
   std::memcpy(f, t.vram.data() + t.fb.cbufs[7].address + 4 * 16 * 8 + 4 * 16, 16);
   EXPECT_EQ(f[0], 0.5f); /* 2 x 0.25 */
   EXPECT_EQ(f[1], 0.0f); /* masked: the zeroed surface */
   EXPECT_EQ(f[2], 1.5f);
   EXPECT_EQ(f[3], 0.0f);

   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 1u << (2 + 7);
   t.draw.clear_color[0] = t.draw.clear_color[1] = t.draw.clear_color[2] =
      t.draw.clear_color[3] = as_uint(-2.0f);
   t.draw.clear_rect.maxx = t.draw.clear_rect.maxy = 8;
   render(t);
   std::memcpy(f, t.vram.data() + t.fb.cbufs[7].address, 16);
   EXPECT_EQ(f[0], -2.0f);
   EXPECT_EQ(f[3], -2.0f);
}

TEST(Draw, ClearDraw)
{
   TestDraw t;
   t.framebuffer(8, 8, VLG_FORMAT_B8G8R8A8_UNORM);
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 1 << 2;
   t.draw.clear_color[0] = as_uint(0.0f);
   t.draw.clear_color[1] = as_uint(0.25f);
   t.draw.clear_color[2] = as_uint(1.0f);
   t.draw.clear_color[3] = as_uint(1.0f);
   t.draw.clear_rect.maxx = 8;
   t.draw.clear_rect.maxy = 8;
   const DrawStats st = render(t);
   EXPECT_TRUE(st.clear);
   EXPECT_EQ(st.clear_pixels, 64u);
   const uint8_t *p = t.rgba8(7, 7); /* B G R A in memory */
   EXPECT_EQ(p[0], 255);
   EXPECT_EQ(p[1], 64);
   EXPECT_EQ(p[2], 0);
   EXPECT_EQ(p[3], 255);
}

TEST(Draw, DiscardAndDepthOutput)
{
   TestDraw t;
   t.framebuffer(16, 16, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z32_FLOAT);
   const std::vector<float> v = {-1, -1, 0, 1, 1,  1, 1, 1, 3, -1, 0, 1,
                                 1,  1,  1, 1, -1, 3, 0, 1, 1, 1,  1, 1};
   color_pipeline(t, v);
   /* FS: kill fragments with x < 8 (FRAG_COORD.x < 8.0), depth = 0.125 */
   t.fs.code = assemble(R"(
      PRED.LT P1, R2.x, R3.x
      BRC.KILL if P1
      MOV R1, R0
      MOV R6.x, C0.xxxx
      BRC.END
   )");
   t.fs.st.uses_discard = true;
   t.fs.st.writes_depth = true;
   t.fs.input(2, VLG_INPUT_SEMANTIC_FRAG_COORD, 0, 0xf, VLG_INTERP_CONSTANT);
   t.fs.input(3, VLG_INPUT_SEMANTIC_VARYING, 1, 0x1, VLG_INTERP_FLAT);
   t.vs.output(6, VLG_OUTPUT_SEMANTIC_VARYING, 1);
   t.vs.code = assemble("MOV R4, R0\nMOV R5, R1\nMOV R6, C0\nBRC.END\n");
   t.vs.consts = {8.0f, 0, 0, 0};
   t.fs.consts = {0.125f, 0, 0, 0};
   t.fs.output(6, VLG_OUTPUT_SEMANTIC_DEPTH, 0, 0x1);
   t.pipe.depth_stencil_alpha.depth_enable = true;
   t.pipe.depth_stencil_alpha.depth_writemask = true;
   t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_ALWAYS;
   const DrawStats st = render(t);
   for (unsigned x = 0; x < 16; x++) {
      EXPECT_EQ(t.rgba8(x, 5)[0], x < 8 ? 0 : 255) << x;
      float z;
      std::memcpy(&z, t.zs_ptr(x, 5), 4);
      EXPECT_EQ(z, x < 8 ? 0.0f : 0.125f) << x;
   }
   EXPECT_EQ(st.fragments_killed, 128u);
   EXPECT_EQ(st.fragments_passed, 128u);
   EXPECT_EQ(st.early_z_quads, 0u);
}

TEST(Draw, Faults)
{
   {
      TestDraw t; /* index past the end of the index buffer */
      t.framebuffer(8, 8);
      color_pipeline(t,
                     {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, -1, 1, 0, 1, 1, 1, 1, 1});
      t.indices(std::vector<uint16_t>{0, 1, 2});
      t.draw.count = 6;
      expect_fault([&] { render(t); }, "GE", "index fetch out of bounds");
   }
   {
      TestDraw t; /* vertex past the end of its buffer */
      t.framebuffer(8, 8);
      color_pipeline(t,
                     {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, -1, 1, 0, 1, 1, 1, 1, 1});
      t.draw.count = 4;
      t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
      expect_fault([&] { render(t); }, "GE", "vertex fetch out of bounds");
   }
   {
      TestDraw t; /* a shader that never ends: the watchdog */
      t.framebuffer(8, 8);
      color_pipeline(t,
                     {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, -1, 1, 0, 1, 1, 1, 1, 1});
      t.vs.code = assemble("loop:\n BRC.JMP loop\n");
      const uint64_t a = t.write();
      FuncOptions o;
      o.watchdog_instructions = 1000;
      expect_fault([&] { render_draw(t.vram, a, o); }, "SPC", "did not end");
   }
   {
      TestDraw t; /* an undescribed bit in the rasterizer state */
      t.framebuffer(8, 8);
      color_pipeline(t,
                     {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, -1, 1, 0, 1, 1, 1, 1, 1});
      const uint64_t a = t.write();
      uint32_t w = t.vram.read32(t.draw.pipe_state, "test") | 0x80000000u;
      t.vram.write(t.draw.pipe_state, &w, 4, "test");
      expect_fault([&] { render_draw(t.vram, a); }, "CP", "pipe_state");
   }
   {
      TestDraw t; /* a runaway count with a stride-0 attribute */
      t.framebuffer(8, 8);
      color_pipeline(t,
                     {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, -1, 1, 0, 1, 1, 1, 1, 1});
      t.buffers[0].stride = 0;
      t.draw.count = 0xfffffff0u;
      expect_fault([&] { render(t); }, "GE", "draw too large");
   }
   EXPECT_THROW(
      {
         TestDraw t;
         t.framebuffer(8, 8);
         t.draw.kind = VLG_DRAW_KIND_CLEAR;
         FuncOptions o;
         o.thread_group_width = 6;
         render_draw(t.vram, t.write(), o);
      },
      std::invalid_argument);
}

TEST(Draw, PointSpritesWithPerVertexSize)
{
   TestDraw t;
   t.framebuffer(32, 32);
   /* two points: sizes 8 and 4; FS colour = (s, t, 0, 1) of the sprite */
   const std::vector<float> v = {-0.5f, -0.5f, 0, 1, 8, 0, 0, 0, 0.5f, 0.5f, 0, 1, 4, 0, 0, 0};
   const unsigned vb = t.vertex_buffer(v, 32);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 16);
   t.vs.code = assemble("MOV R4, R0\nMOV R5, R1\nBRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_POINT_SIZE, 0, 0x1);
   t.fs.code = assemble("MOV R1.xy, R0\nMOV R1.zw, C0\nBRC.END\n");
   t.fs.consts = {0, 0, 0, 1};
   t.fs.input(0, VLG_INPUT_SEMANTIC_POINT_COORD, 0, 0x3, VLG_INTERP_CONSTANT);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   t.draw.count = 2;
   t.pipe.rasterizer.point_size_per_vertex = true;
   const DrawStats st = render(t);
   EXPECT_EQ(st.fragments_passed, 64u + 16u);
   /* point 0 at window (8, 8), size 8: pixels 4..11; sprite s = (cx - x0) / 8
    * with x0 = 4 + 1/8 (the reference's bias, see test_raster.cpp) */
   for (unsigned x = 4; x < 12; x++) {
      const double s = (x + 0.5 - 4.125) / 8;
      EXPECT_TRUE(near_u8(t.rgba8(x, 6)[0], s)) << x;
   }
   for (unsigned y = 4; y < 12; y++) {
      const double tt = (y + 0.5 - (4 - 0.125)) / 8;
      EXPECT_TRUE(near_u8(t.rgba8(6, y)[1], tt)) << y;
   }
   EXPECT_EQ(t.rgba8(3, 6)[3], 0);
   EXPECT_EQ(t.rgba8(12, 6)[3], 0);
   EXPECT_EQ(t.rgba8(23, 23)[3], 255); /* point 1 at (24, 24), size 4: 22..25 */
   EXPECT_EQ(t.rgba8(21, 23)[3], 0);
}

namespace {

/** A quad 4.5 .. 24.5 (pixel centres on its outline) drawn as GL_QUADS in
 *  polygon mode @mode (both faces), vertices 0..3 counter-clockwise on the
 *  screen from the top left. */
FlatScene
quad_in_mode(vlg_polygon_mode mode)
{
   FlatScene s;
   s.t.draw.prim = VLG_PRIM_QUADS;
   s.t.pipe.rasterizer.fill_front = s.t.pipe.rasterizer.fill_back = mode;
   s.vertices({{4.5, 4.5}, {24.5, 4.5}, {24.5, 24.5}, {4.5, 24.5}});
   return s;
}

} // namespace

TEST(Draw, PolygonModeLineDrawsTheOutlineOfAQuadNotItsDiagonal)
{
   /* GL 4.6 compatibility section 14.6.4: LINE draws the boundary edges;
    * the quad's two triangles share an interior edge (its diagonal, through
    * pixel (14, 14)). Flat colour: the quad's provoking vertex, the last
    * (3), on every edge. */
   FlatScene filled = quad_in_mode(VLG_POLYGON_MODE_FILL);
   render(filled.t);
   EXPECT_EQ(filled.vertex_at(14, 14), 3);

   FlatScene s = quad_in_mode(VLG_POLYGON_MODE_LINE);
   const DrawStats st = render(s.t);
   for (auto [x, y] : {std::pair{14u, 4u}, {24u, 14u}, {14u, 24u}, {4u, 14u}})
      EXPECT_EQ(s.vertex_at(x, y), 3) << x << "," << y;
   for (auto [x, y] : {std::pair{14u, 14u}, {10u, 10u}, {18u, 10u}, {10u, 18u}, {18u, 18u}})
      EXPECT_EQ(s.vertex_at(x, y), -1) << x << "," << y;
   /* four 1-pixel lines of 20 pixels each (Bresenham, the last pixel of
    * each left out, sp_setup_line): the outline's 80 pixels */
   EXPECT_EQ(st.fragments_passed, 80u);
}

TEST(Draw, PolygonModePointDrawsTheVertices)
{
   FlatScene s = quad_in_mode(VLG_POLYGON_MODE_POINT);
   s.t.pipe.rasterizer.point_size = 1.0f;
   const DrawStats st = render(s.t);
   for (auto [x, y] : {std::pair{4u, 4u}, {24u, 4u}, {24u, 24u}, {4u, 24u}})
      EXPECT_EQ(s.vertex_at(x, y), 3) << x << "," << y;
   EXPECT_EQ(s.vertex_at(14, 4), -1);
   EXPECT_EQ(st.fragments_passed, 4u);
}

TEST(Draw, PolygonModePerFaceAndTheFacingOfItsLines)
{
   /* draw_pipe_cull.c's det of window positions: (4.5,4.5) (14.5,4.5)
    * (4.5,14.5) is clockwise on the screen, front with front_ccw false;
    * the second triangle is wound the other way: back */
   const std::vector<std::array<double, 2>> tris = {{4.5, 4.5},   {14.5, 4.5},  {4.5, 14.5},
                                                    {16.5, 16.5}, {16.5, 26.5}, {26.5, 16.5}};
   for (bool two_sided : {false, true}) {
      FlatScene s;
      s.t.framebuffer(32, 32, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
      s.t.pipe.rasterizer.front_ccw = false;
      s.t.pipe.rasterizer.fill_front = VLG_POLYGON_MODE_FILL;
      s.t.pipe.rasterizer.fill_back = VLG_POLYGON_MODE_LINE;
      if (two_sided) {
         /* back-facing fragments fail: the lines of a back-facing polygon
          * are back-facing (GL 4.6 compatibility section 14.6.4) */
         VLG_DEPTH_STENCIL_ALPHA &dsa = s.t.pipe.depth_stencil_alpha;
         dsa.stencil[0].enabled = true;
         dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
         dsa.stencil[1].enabled = true;
         dsa.stencil[1].func = VLG_COMPARE_FUNC_NEVER;
      }
      s.vertices(tris);
      render(s.t);
      EXPECT_EQ(s.vertex_at(7, 7), 2);    /* front: filled */
      EXPECT_EQ(s.vertex_at(19, 19), -1); /* back: outline only */
      EXPECT_EQ(s.vertex_at(16, 21), two_sided ? -1 : 5) << two_sided;
   }
}

TEST(Draw, EdgeFlagsAndUserClipPlanesInPolygonModeLine)
{
   /* the VS output EDGEFLAG (attribute 1's y here): an edge is drawn if its
    * first vertex's flag is 1.0 (draw_cliptest_tmp.h, draw_pipe_unfilled.c) */
   auto scene = [](float flag1) {
      FlatScene s;
      s.t.pipe.rasterizer.fill_front = s.t.pipe.rasterizer.fill_back = VLG_POLYGON_MODE_LINE;
      /* FlatScene::vertices with attribute 1 = (i/16, edge flag, 0, 1) */
      TestDraw &t = s.t;
      std::vector<float> v;
      const VLG_VIEWPORT &vp = t.pipe.viewport;
      const double pos[3][2] = {{4.5, 4.5}, {24.5, 4.5}, {4.5, 24.5}};
      for (unsigned i = 0; i < 3; i++) {
         v.insert(v.end(), {float((pos[i][0] - vp.translate[0]) / vp.scale[0]),
                            float((pos[i][1] - vp.translate[1]) / vp.scale[1]), 0.0f, 1.0f});
         v.insert(v.end(), {float(i) / 16.0f, i == 1 ? flag1 : 1.0f, 0.0f, 1.0f});
      }
      color_pipeline(t, v, R"(
         MOV R4, R0
         MOV R5, R1
         MOV R6, R1.yyyy
         BRC.END
      )",
                     VLG_INTERP_FLAT);
      t.vs.output(6, VLG_OUTPUT_SEMANTIC_EDGEFLAG);
      return s;
   };
   {
      FlatScene s = scene(1.0f);
      render(s.t);
      EXPECT_EQ(s.vertex_at(14, 14), 2); /* edge 1 -> 2 through (14.5, 14.5) */
      EXPECT_EQ(s.vertex_at(14, 4), 2);
   }
   {
      FlatScene s = scene(0.0f);
      render(s.t);
      EXPECT_EQ(s.vertex_at(14, 14), -1); /* vertex 1's flag clear: its edge is gone */
      EXPECT_EQ(s.vertex_at(14, 4), 2);   /* 0 -> 1 */
      EXPECT_EQ(s.vertex_at(4, 14), 2);   /* 2 -> 0 */
   }
   {
      /* user clip plane keeping window x <= 14.5: the polygon gets an edge
       * along the plane, which is drawn (draw_pipe_clip.c: user planes make
       * boundary edges, frustum planes do not) */
      FlatScene s = scene(1.0f);
      s.t.pipe.rasterizer.clip_plane_enable = 0x1;
      s.t.pipe.clip.plane[0].a = -1.0f;
      s.t.pipe.clip.plane[0].d = float((14.5 - s.t.pipe.viewport.translate[0]) /
                                       s.t.pipe.viewport.scale[0]);
      render(s.t);
      EXPECT_EQ(s.vertex_at(14, 8), 2);
      EXPECT_EQ(s.vertex_at(20, 4), -1); /* beyond the plane */
   }
}
