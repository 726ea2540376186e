/*
 * 4x multisampling through the whole GPU (docs/hw.md "Multisampling"): a
 * scene of CLEAR and triangle draws on a 4-sample RGBA8 + Z24S8
 * framebuffer, run on the functional GPU and on the cycle-mode GPU in every
 * test configuration. Checked against values computed here from the
 * inputs, not by the code under test:
 *  - every sample of the colour buffer: the colour of the nearest triangle
 *    whose interior holds the sample point (D3D10 4x positions, docs/hw.md),
 *    with the draw's sample_mask and a depth test (LESS) per sample; the
 *    vertices are chosen so that no sample lies exactly on an edge (checked),
 *    so the tie rule does not enter the expectation;
 *  - the occlusion counters: samples that passed per draw (GL: SAMPLES_PASSED);
 *  - the resolve (omu_resolve) of the colour buffer: the mean of the 4
 *    samples per pixel, and edge pixels have values between the two colours.
 * The two modes must also give bit-identical colour and depth/stencil
 * samples and the same fragment counters.
 */
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "unit_configs.h"
#include "scenes.h"
#include "sim/func/pipe/func_omu.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

constexpr unsigned kW = 32, kH = 32;

/* sample positions of docs/hw.md, written out here (not kSamplePos4x) */
constexpr double kPos[4][2] = {{0.375, 0.125}, {0.875, 0.375}, {0.125, 0.625}, {0.625, 0.875}};

struct Tri {
   double x[3], y[3]; /* window coordinates, y down; multiples of 1/64 */
   float z;
   uint8_t rgba[4];
   unsigned sample_mask;
   bool alpha_test; /* alpha test on (ALWAYS passes): late depth test after the FS */
};

const Tri kTris[] = {
   {{2.0 + 5 / 64.0, 29.0 + 3 / 64.0, 9.0 + 17 / 64.0},
    {3.0 + 11 / 64.0, 7.0 + 1 / 64.0, 28.0 + 33 / 64.0},
    0.5f,
    {255, 0, 0, 255},
    0xf,
    false},
   {{30.0 + 7 / 64.0, 4.0 + 21 / 64.0, 25.0 + 9 / 64.0},
    {1.0 + 5 / 64.0, 12.0 + 3 / 64.0, 30.0 + 13 / 64.0},
    0.25f,
    {0, 255, 0, 255},
    0xb,
    false},
   {{0.0 + 1 / 64.0, 31.0 + 45 / 64.0, 15.0 + 19 / 64.0},
    {16.0 + 7 / 64.0, 20.0 + 27 / 64.0, 31.0 + 61 / 64.0},
    0.75f,
    {0, 0, 255, 255},
    0xf,
    false},
   {{6.0 + 3 / 64.0, 26.0 + 41 / 64.0, 12.0 + 23 / 64.0},
    {14.0 + 9 / 64.0, 16.0 + 5 / 64.0, 26.0 + 51 / 64.0},
    0.125f,
    {255, 255, 0, 255},
    0x6,
    true},
};
constexpr unsigned kNumTris = sizeof(kTris) / sizeof(kTris[0]);

/** Sample point (px, py) strictly inside the triangle (either winding);
 *  sets *on_edge if it lies exactly on an edge line within the edge. */
bool
inside(const Tri &t, double px, double py, bool *on_edge)
{
   double e[3];
   for (unsigned i = 0; i < 3; i++) {
      const unsigned j = (i + 1) % 3;
      e[i] = (t.x[j] - t.x[i]) * (py - t.y[i]) - (t.y[j] - t.y[i]) * (px - t.x[i]);
   }
   const bool pos = e[0] >= 0 && e[1] >= 0 && e[2] >= 0;
   const bool neg = e[0] <= 0 && e[1] <= 0 && e[2] <= 0;
   if ((pos || neg) && (e[0] == 0 || e[1] == 0 || e[2] == 0))
      *on_edge = true;
   return (e[0] > 0 && e[1] > 0 && e[2] > 0) || (e[0] < 0 && e[1] < 0 && e[2] < 0);
}

struct Expected {
   std::vector<std::array<uint8_t, 4>> color; /* [(y * kW + x) * 4 + s] */
   uint64_t passed[kNumTris] = {};
};

Expected
expected_scene()
{
   Expected ex;
   ex.color.assign(size_t(kW) * kH * 4, {0, 0, 0, 255});
   std::vector<float> depth(size_t(kW) * kH * 4, 1.0f);
   for (unsigned t = 0; t < kNumTris; t++)
      for (unsigned y = 0; y < kH; y++)
         for (unsigned x = 0; x < kW; x++)
            for (unsigned s = 0; s < 4; s++) {
               bool edge = false;
               const bool in = inside(kTris[t], x + kPos[s][0], y + kPos[s][1], &edge);
               EXPECT_FALSE(edge) << "test setup: sample " << s << " of (" << x << ", " << y
                                  << ") lies on an edge of triangle " << t;
               const size_t i = (size_t(y) * kW + x) * 4 + s;
               if (!in || !(kTris[t].sample_mask >> s & 1) || !(kTris[t].z < depth[i]))
                  continue;
               depth[i] = kTris[t].z;
               for (unsigned c = 0; c < 4; c++)
                  ex.color[i][c] = kTris[t].rgba[c];
               ex.passed[t]++;
            }
   return ex;
}

VLG_SURFACE
msaa_surface(TestDraw &t, vlg_format f)
{
   VLG_SURFACE s = t.surface(f, 4 * kW, kH); /* pitch 4 x width x bytes */
   s.width = kW;
   return s;
}

struct MsaaScene {
   Scene s;
   uint64_t counters[kNumTris] = {};
   VLG_SURFACE resolved = {}; /* destination of the RESOLVE draw */
};

void
build(MsaaScene &m)
{
   Scene &s = m.s;
   TestDraw &t = s.t;
   t.framebuffer(kW, kH, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   t.fb.samples = 4;
   t.fb.cbufs[0] = msaa_surface(t, VLG_FORMAT_R8G8B8A8_UNORM);
   t.fb.zsbuf = msaa_surface(t, VLG_FORMAT_Z24_UNORM_S8_UINT);
   t.pipe.rasterizer.multisample = true;
   t.pipe.depth_stencil_alpha.depth_enable = true;
   t.pipe.depth_stencil_alpha.depth_writemask = true;
   t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   const float black[4] = {0, 0, 0, 1};
   s.clear((1u << 2) | 3u, black, 1.0f, 0); /* PIPE_CLEAR_COLOR0 | DEPTH | STENCIL */
   for (unsigned i = 0; i < kNumTris; i++) {
      const Tri &tr = kTris[i];
      s.next_draw();
      std::vector<float> v;
      for (unsigned k = 0; k < 3; k++) {
         /* NDC from window coordinates: exact for multiples of 1/64 */
         v.insert(v.end(), {float(tr.x[k] * 2.0 / kW - 1.0), float(tr.y[k] * 2.0 / kH - 1.0),
                            tr.z * 2.0f - 1.0f, 1.0f});
         for (unsigned c = 0; c < 4; c++)
            v.push_back(tr.rgba[c] / 255.0f);
      }
      color_pipeline(t, v);
      t.pipe.sample_mask.mask = tr.sample_mask;
      t.pipe.depth_stencil_alpha.alpha_enable = tr.alpha_test;
      t.pipe.depth_stencil_alpha.alpha_func = VLG_COMPARE_FUNC_ALWAYS;
      m.counters[i] = t.alloc(8, 8);
      t.draw.occlusion_counter = m.counters[i];
      s.draw();
   }
   /* RESOLVE of colour buffer 0 into a single-sample surface */
   s.next_draw();
   m.resolved = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, kW, kH);
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &m.resolved);
   t.draw.kind = VLG_DRAW_KIND_RESOLVE;
   t.draw.resolve_dst = t.put(sw, sizeof(sw));
   s.draw();
   s.sync(1);
   s.finish();
}

uint64_t
read64(const Vram &v, uint64_t a)
{
   uint64_t x;
   v.read(a, &x, 8, "test");
   return x;
}

/** Mismatching samples of the colour buffer against @ex (first one reported). */
unsigned
check_colors(const VLG_SURFACE &cb, const Vram &v, const Expected &ex, const std::string &what)
{
   unsigned bad = 0;
   for (unsigned y = 0; y < kH; y++)
      for (unsigned x = 0; x < kW; x++)
         for (unsigned s = 0; s < 4; s++) {
            const uint8_t *p = v.data() + cb.address + size_t(y) * cb.pitch + (4 * x + s) * 4;
            const auto &e = ex.color[(size_t(y) * kW + x) * 4 + s];
            if (std::equal(e.begin(), e.end(), p))
               continue;
            if (bad++ == 0)
               ADD_FAILURE() << what << ": sample " << s << " of (" << x << ", " << y << ") is "
                             << int(p[0]) << "," << int(p[1]) << "," << int(p[2]) << ","
                             << int(p[3]) << ", expected " << int(e[0]) << "," << int(e[1]) << ","
                             << int(e[2]) << "," << int(e[3]);
         }
   return bad;
}

/** Check a resolved surface against the mean of the expected samples;
 *  returns the pixels whose red channel lies strictly between 0 and 255. */
unsigned
check_resolved(const VLG_SURFACE &dst, const Vram &v, const Expected &ex, const std::string &what)
{
   unsigned mixed = 0, bad = 0;
   for (unsigned y = 0; y < kH; y++)
      for (unsigned x = 0; x < kW; x++) {
         const uint8_t *p = v.data() + dst.address + size_t(y) * dst.pitch + x * 4;
         for (unsigned c = 0; c < 4; c++) {
            double sum = 0;
            for (unsigned s = 0; s < 4; s++)
               sum += ex.color[(size_t(y) * kW + x) * 4 + s][c];
            const double want = sum / 4.0; /* 0, 63.75, 127.5, 191.25 or 255 */
            if (std::fabs(p[c] - want) > 0.5 + 1e-9 && bad++ == 0)
               ADD_FAILURE() << what << ": resolved (" << x << ", " << y << ") channel " << c
                             << " is " << int(p[c]) << ", expected " << want;
            mixed += c == 0 && p[c] != 0 && p[c] != 255;
         }
      }
   return mixed;
}

class Msaa : public ::testing::TestWithParam<size_t> {};

TEST_P(Msaa, BothModesMatchTheCoverage)
{
   const NamedConfig &cf = kConfigs[GetParam()];
   const Config p = params(cf);
   MsaaScene m;
   build(m);
   const Expected ex = expected_scene();
   unsigned partly = 0; /* pixels with 1..3 samples of a triangle: the test means something */
   for (unsigned i = 0; i < size_t(kW) * kH; i++) {
      unsigned n = 0;
      for (unsigned s = 0; s < 4; s++)
         n += ex.color[i * 4 + s] != ex.color[i * 4];
      partly += n != 0;
   }
   EXPECT_GT(partly, 40u);

   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(m.s, *fgpu);
   const ModeRun c = run_scene(m.s, cgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   ASSERT_EQ(f.res.draws.size(), 2 + kNumTris);
   ASSERT_EQ(c.res.draws.size(), 2 + kNumTris);

   const VLG_FRAMEBUFFER &fb = m.s.t.fb;
   EXPECT_EQ(check_colors(fb.cbufs[0], *f.vram, ex, "functional"), 0u);
   EXPECT_EQ(check_colors(fb.cbufs[0], *c.vram, ex, std::string("cycle ") + cf.name), 0u);
   EXPECT_GT(check_resolved(m.resolved, *f.vram, ex, "functional RESOLVE"), 20u);
   EXPECT_GT(check_resolved(m.resolved, *c.vram, ex, std::string("cycle RESOLVE ") + cf.name), 20u);
   EXPECT_EQ(f.res.draws[1 + kNumTris].counters.resolve_pixels, kW * kH);
   EXPECT_EQ(c.res.draws[1 + kNumTris].counters.resolve_pixels, kW * kH);
   for (const VLG_SURFACE *sf : {&fb.cbufs[0], &fb.zsbuf}) {
      const uint64_t n = surface_extent_bytes(*sf, 4);
      EXPECT_EQ(std::memcmp(f.vram->data() + sf->address, c.vram->data() + sf->address, n), 0)
         << cf.name << ": surface at 0x" << std::hex << sf->address << " differs";
   }
   for (unsigned i = 0; i < kNumTris; i++) {
      EXPECT_EQ(read64(*f.vram, m.counters[i]), ex.passed[i]) << "functional, draw " << i;
      EXPECT_EQ(read64(*c.vram, m.counters[i]), ex.passed[i]) << cf.name << ", draw " << i;
      const DrawStats &fs = f.res.draws[1 + i].counters, &cs = c.res.draws[1 + i].counters;
      EXPECT_EQ(fs.samples_passed, ex.passed[i]);
      EXPECT_EQ(cs.samples_passed, ex.passed[i]);
      EXPECT_EQ(fs.fragments_passed, cs.fragments_passed) << i;
      EXPECT_EQ(fs.fragments_early_rejected, cs.fragments_early_rejected) << i;
      EXPECT_EQ(fs.fragments_zs_failed, cs.fragments_zs_failed) << i;
      EXPECT_EQ(fs.early_z_quads, cs.early_z_quads) << i;
      EXPECT_EQ(fs.fs_invocations, cs.fs_invocations) << i;
      EXPECT_EQ(fs.early_z_quads != 0, !kTris[i].alpha_test) << i;
   }
}

INSTANTIATE_TEST_SUITE_P(Configs, Msaa, ::testing::Range<size_t>(0, std::size(kConfigs)),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                            return std::string(kConfigs[info.param].name);
                         });

TEST(Msaa, ResolveAveragesTheSamples)
{
   /* omu_resolve itself, on the functional GPU's samples */
   MsaaScene m;
   build(m);
   const Expected ex = expected_scene();
   auto fgpu = make_functional_gpu(Config{});
   const ModeRun f = run_scene(m.s, *fgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   const VLG_SURFACE dst = m.s.t.surface(VLG_FORMAT_R8G8B8A8_UNORM, kW, kH);
   omu_resolve(*f.vram, m.s.t.fb.cbufs[0], dst, kW, kH);
   EXPECT_GT(check_resolved(dst, *f.vram, ex, "omu_resolve"), 20u)
      << "edges must show intermediate values after the resolve";
}

TEST(Msaa, ResolveRejectsBadPackages)
{
   TestDraw t;
   t.framebuffer(8, 8, VLG_FORMAT_R8G8B8A8_UNORM);
   VLG_SURFACE dst = t.surface(VLG_FORMAT_B8G8R8A8_UNORM, 8, 8);
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &dst);
   t.draw.kind = VLG_DRAW_KIND_RESOLVE;
   t.draw.resolve_dst = t.put(sw, sizeof(sw));
   try { /* single-sampled source */
      load_draw_package(t.vram, t.write());
      ADD_FAILURE() << "no fault";
   } catch (const GpuFault &e) {
      EXPECT_NE(std::string(e.what()).find("4-sample"), std::string::npos) << e.what();
   }
   t.fb.samples = 4;
   t.fb.cbufs[0] = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, 32, 8);
   t.fb.cbufs[0].width = 8;
   try { /* formats differ */
      load_draw_package(t.vram, t.write());
      ADD_FAILURE() << "no fault";
   } catch (const GpuFault &e) {
      EXPECT_NE(std::string(e.what()).find("resolve_dst"), std::string::npos) << e.what();
   }
}

} // namespace

namespace {

/* Multisample lines (GL ES 3.0.6 section 3.5.2, "Line Multisample
 * Rasterization"): with multisample rasterization on a 4-sample framebuffer a
 * line covers the samples inside the rectangle of its width centred on the
 * segment, from endpoint to endpoint, whatever its width (1 included). The
 * expected coverage is that rectangle, computed here in double precision;
 * the endpoints are chosen so that no sample lies within 1/64 pixel of a
 * rectangle side (checked), so the PE's fp32 corners and 1/256-pixel snapping
 * cannot decide a sample. Before, a 1-pixel line took the single-sample
 * (Bresenham) rule for all 4 samples of a pixel and a wide line
 * draw_pipe_wide_line.c's parallelogram, and a line leaving the viewport was
 * clipped there before it became a rectangle. */
struct Line {
   double x0, y0, x1, y1, width;
   uint8_t rgba[4];
};

const Line kLines[] = { /* multiples of 1/64 pixel: exact in NDC */
   {28.0 + 29 / 64.0, 28.0 + 52 / 64.0, 11.0 + 31 / 64.0, 11.0 + 50 / 64.0, 1.0, {255, 0, 0, 255}},
   {11.0 + 23 / 64.0, 28.0 + 19 / 64.0, 17.0 + 20 / 64.0, 10.0 + 36 / 64.0, 2.5, {0, 255, 0, 255}},
   {15.0, 10.0 + 61 / 64.0, 15.0 + 6 / 64.0, 29.0 + 26 / 64.0, 1.0, {0, 0, 255, 255}},
   /* leaves the viewport (and framebuffer) through its right edge: its rectangle must reach
    * the edge whole, not cut perpendicular to the line where the line crosses it */
   {18.0 + 21 / 64.0, 14.0 + 8 / 64.0, 38.0 + 13 / 64.0, 4.0 + 16 / 64.0, 3.0, {255, 255, 0, 255}},
};

/** Sample (px, py) inside line @l's rectangle; *margin = its distance to the
 *  rectangle's boundary in pixels (inside or outside). */
bool
in_line_rect(const Line &l, double px, double py, double *margin)
{
   const double dx = l.x1 - l.x0, dy = l.y1 - l.y0, len = std::sqrt(dx * dx + dy * dy);
   const double ux = dx / len, uy = dy / len;
   const double a = (px - l.x0) * ux + (py - l.y0) * uy;   /* along the line */
   const double b = -(px - l.x0) * uy + (py - l.y0) * ux;  /* across it */
   const bool in = a > 0 && a < len && std::fabs(b) < l.width / 2;
   *margin = in ? std::min({a, len - a, l.width / 2 - std::fabs(b)})
                : std::hypot(std::max({0.0, -a, a - len}), std::max(0.0, std::fabs(b) - l.width / 2));
   return in;
}

TEST(MsaaLines, EveryWidthCoversTheSamplesOfItsRectangle)
{
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(kW, kH, VLG_FORMAT_R8G8B8A8_UNORM);
   t.fb.samples = 4;
   t.fb.cbufs[0] = msaa_surface(t, VLG_FORMAT_R8G8B8A8_UNORM);
   t.pipe.rasterizer.multisample = true;
   const float black[4] = {0, 0, 0, 1};
   s.clear(1u << 2, black);
   for (const Line &l : kLines) {
      s.next_draw();
      std::vector<float> v;
      for (const auto &[x, y] : {std::pair{l.x0, l.y0}, std::pair{l.x1, l.y1}}) {
         v.insert(v.end(), {float(x * 2.0 / kW - 1.0), float(y * 2.0 / kH - 1.0), 0.0f, 1.0f});
         for (unsigned c = 0; c < 4; c++)
            v.push_back(l.rgba[c] / 255.0f);
      }
      t.draw.prim = VLG_PRIM_LINES;
      t.draw.vertices_per_prim = 2;
      t.pipe.rasterizer.line_width = float(l.width);
      color_pipeline(t, v);
      s.draw();
   }
   s.sync(1);
   s.finish();

   Expected ex;
   ex.color.assign(size_t(kW) * kH * 4, {0, 0, 0, 255});
   unsigned partly = 0;
   for (unsigned y = 0; y < kH; y++)
      for (unsigned x = 0; x < kW; x++) {
         unsigned n = 0;
         for (unsigned smp = 0; smp < 4; smp++)
            for (const Line &l : kLines) {
               double margin;
               const bool in = in_line_rect(l, x + kPos[smp][0], y + kPos[smp][1], &margin);
               EXPECT_GT(margin, 1.0 / 64) << "test setup: sample " << smp << " of (" << x << ", "
                                           << y << ") is too close to a side";
               if (in) {
                  std::copy(l.rgba, l.rgba + 4, ex.color[(size_t(y) * kW + x) * 4 + smp].begin());
                  n += &l == &kLines[0];
               }
            }
         partly += n != 0 && n != 4;
      }
   EXPECT_GT(partly, 20u) << "the first line should cover some pixels partly";

   const Config p = params(kConfigs[0]);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(s, *fgpu);
   const ModeRun c = run_scene(s, cgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   EXPECT_EQ(check_colors(t.fb.cbufs[0], *f.vram, ex, "functional"), 0u);
   EXPECT_EQ(check_colors(t.fb.cbufs[0], *c.vram, ex, "cycle"), 0u);
}

} // namespace
