/*
 * OMU: blending with every factor and function on a unorm8 target, colour
 * masks, independent blend, alpha/depth/stencil tests, CLEAR.
 *
 * Expected values come from the GL ES 3.0 formulas (§4.1.7 Tables 4.1, 4.2;
 * §4.1.4 stencil; §4.1.5 depth) evaluated here in double precision, then
 * rounded to 8 bits to nearest (what Mesa's float_to_ubyte does); a result
 * within 0.002 of a rounding boundary may differ by one step because the
 * OMU computes in fp32 like softpipe.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "pipe_test_util.h"
#include "sim/func/pipe/func_omu.h"
#include "sim/func/pipe/package.h"
#include "sim/func/tex/format.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** Minimal valid shaders so that the package loads. */
void
trivial_shaders(TestDraw &t)
{
   t.vs.code = assemble("BRC.END\n");
   t.vs.output(0, VLG_OUTPUT_SEMANTIC_POSITION);
   t.fs.code = assemble("BRC.END\n");
   t.fs.output(0, VLG_OUTPUT_SEMANTIC_COLOR, 0);
}

const vlg_blend_factor kFactors[] = {
   VLG_BLEND_FACTOR_ONE,
   VLG_BLEND_FACTOR_SRC_COLOR,
   VLG_BLEND_FACTOR_SRC_ALPHA,
   VLG_BLEND_FACTOR_DST_ALPHA,
   VLG_BLEND_FACTOR_DST_COLOR,
   VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE,
   VLG_BLEND_FACTOR_CONST_COLOR,
   VLG_BLEND_FACTOR_CONST_ALPHA,
   VLG_BLEND_FACTOR_ZERO,
   VLG_BLEND_FACTOR_INV_SRC_COLOR,
   VLG_BLEND_FACTOR_INV_SRC_ALPHA,
   VLG_BLEND_FACTOR_INV_DST_ALPHA,
   VLG_BLEND_FACTOR_INV_DST_COLOR,
   VLG_BLEND_FACTOR_INV_CONST_COLOR,
   VLG_BLEND_FACTOR_INV_CONST_ALPHA,
};
const vlg_blend_func kFuncs[] = {VLG_BLEND_FUNC_ADD, VLG_BLEND_FUNC_SUBTRACT,
                                 VLG_BLEND_FUNC_REVERSE_SUBTRACT, VLG_BLEND_FUNC_MIN,
                                 VLG_BLEND_FUNC_MAX};

/** GL ES 3.0 Table 4.2: factor for channel c (3 = alpha). */
double
gl_factor(vlg_blend_factor f, int c, const double *s, const double *d, const double *k)
{
   switch (f) {
   case VLG_BLEND_FACTOR_ZERO:
      return 0;
   case VLG_BLEND_FACTOR_ONE:
      return 1;
   case VLG_BLEND_FACTOR_SRC_COLOR:
      return s[c];
   case VLG_BLEND_FACTOR_INV_SRC_COLOR:
      return 1 - s[c];
   case VLG_BLEND_FACTOR_DST_COLOR:
      return d[c];
   case VLG_BLEND_FACTOR_INV_DST_COLOR:
      return 1 - d[c];
   case VLG_BLEND_FACTOR_SRC_ALPHA:
      return s[3];
   case VLG_BLEND_FACTOR_INV_SRC_ALPHA:
      return 1 - s[3];
   case VLG_BLEND_FACTOR_DST_ALPHA:
      return d[3];
   case VLG_BLEND_FACTOR_INV_DST_ALPHA:
      return 1 - d[3];
   case VLG_BLEND_FACTOR_CONST_COLOR:
      return k[c];
   case VLG_BLEND_FACTOR_INV_CONST_COLOR:
      return 1 - k[c];
   case VLG_BLEND_FACTOR_CONST_ALPHA:
      return k[3];
   case VLG_BLEND_FACTOR_INV_CONST_ALPHA:
      return 1 - k[3];
   case VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE:
      return c == 3 ? 1 : std::min(s[3], 1 - d[3]);
   default:
      ADD_FAILURE() << "unexpected factor";
      return 0;
   }
}

double
gl_blend(vlg_blend_func fn, double s, double sf, double d, double df)
{
   switch (fn) {
   case VLG_BLEND_FUNC_ADD:
      return s * sf + d * df;
   case VLG_BLEND_FUNC_SUBTRACT:
      return s * sf - d * df;
   case VLG_BLEND_FUNC_REVERSE_SUBTRACT:
      return d * df - s * sf;
   case VLG_BLEND_FUNC_MIN:
      return std::min(s, d);
   default:
      return std::max(s, d);
   }
}

/** Compare an 8-bit result with the exact value v in [0,1] (after clamp). */
::testing::AssertionResult
unorm8_matches(uint8_t got, double v)
{
   v = std::clamp(v, 0.0, 1.0);
   const double scaled = v * 255.0;
   const long want = std::lround(scaled);
   if (got == want)
      return ::testing::AssertionSuccess();
   const double frac = scaled - std::floor(scaled);
   if (std::fabs(frac - 0.5) < 0.002 * 255 && std::abs(long(got) - want) <= 1)
      return ::testing::AssertionSuccess();
   return ::testing::AssertionFailure()
          << "got " << int(got) << ", expected " << want << " (exact " << scaled << ")";
}

struct OmuFixture {
   TestDraw t;
   DrawPackage pkg;
   OmuState s;

   explicit OmuFixture(vlg_format zs = VLG_FORMAT_NONE, unsigned nr_cbufs = 1)
   {
      t.framebuffer(8, 8, VLG_FORMAT_R8G8B8A8_UNORM, zs, nr_cbufs);
      trivial_shaders(t);
      for (unsigned i = 1; i < nr_cbufs; i++)
         t.fs.output(0, VLG_OUTPUT_SEMANTIC_COLOR, i);
   }
   void load()
   {
      const uint64_t a = t.write();
      pkg = load_draw_package(t.vram, a);
      unsigned written = 0;
      for (unsigned i = 0; i < pkg.fs.state.num_outputs; i++)
         if (pkg.fs.state.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_COLOR)
            written |= 1u << pkg.fs.state.outputs[i].index;
      s = make_omu_state(pkg, t.vram, written);
   }
   uint8_t *px(unsigned x, unsigned y, unsigned rt = 0)
   {
      return const_cast<uint8_t *>(t.rgba8(x, y, rt));
   }
};

} // namespace

TEST(OmuBlend, EveryFactorAndFunction)
{
   OmuFixture f;
   const double k[4] = {0.25, 0.625, 0.8125, 0.375}; /* constant colour */
   f.t.pipe.blend_color.r = float(k[0]);
   f.t.pipe.blend_color.g = float(k[1]);
   f.t.pipe.blend_color.b = float(k[2]);
   f.t.pipe.blend_color.a = float(k[3]);
   f.t.pipe.blend.rt[0].blend_enable = true;
   f.load();

   std::mt19937 rng(1234);
   std::uniform_int_distribution<int> byte(0, 255);
   std::uniform_real_distribution<float> unit(-0.2f, 1.2f); /* exercises the clamp */
   unsigned checks = 0;
   for (vlg_blend_func fn : kFuncs) {
      for (vlg_blend_factor sfac : kFactors) {
         for (vlg_blend_factor dfac : kFactors) {
            /* RGB uses (sfac, dfac), alpha uses (dfac, sfac): both parts
             * see every factor */
            VLG_BLEND_RT &rt = f.s.rt[0].rt;
            rt.blend_enable = true;
            rt.rgb_func = fn;
            rt.alpha_func = fn;
            rt.rgb_src_factor = sfac;
            rt.rgb_dst_factor = dfac;
            rt.alpha_src_factor = dfac;
            rt.alpha_dst_factor = sfac;
            rt.colormask = 0xf;
            f.s.rt[0].blend = true;

            uint32_t color[kMaxColorBufs][4][4];
            double src[4][4], dst[4][4];
            for (unsigned l = 0; l < 4; l++) {
               uint8_t *p = f.px(l & 1, l >> 1);
               for (unsigned c = 0; c < 4; c++) {
                  const float sv = unit(rng);
                  color[0][l][c] = as_uint(sv);
                  src[l][c] = std::clamp(double(sv), 0.0, 1.0);
                  p[c] = uint8_t(byte(rng));
                  dst[l][c] = p[c] / 255.0;
               }
            }
            omu_write_color(f.s, 0, 0, 0xf, color);
            for (unsigned l = 0; l < 4; l++) {
               const uint8_t *p = f.px(l & 1, l >> 1);
               for (unsigned c = 0; c < 4; c++) {
                  const vlg_blend_factor a = c < 3 ? sfac : dfac;
                  const vlg_blend_factor b = c < 3 ? dfac : sfac;
                  const double want =
                     gl_blend(fn, src[l][c], gl_factor(a, int(c), src[l], dst[l], k), dst[l][c],
                              gl_factor(b, int(c), src[l], dst[l], k));
                  EXPECT_TRUE(unorm8_matches(p[c], want))
                     << "func " << vlg_blend_func_name(fn) << " src " << vlg_blend_factor_name(a)
                     << " dst " << vlg_blend_factor_name(b) << " channel " << c;
                  checks++;
               }
            }
         }
      }
   }
   EXPECT_EQ(checks, 5u * 15 * 15 * 16);
}

TEST(OmuBlend, ConstantColourIsClampedForUnormTargets)
{
   OmuFixture f;
   f.t.pipe.blend_color.r = 2.0f; /* clamped to 1 (GL ES 3.0 §4.1.7 BlendColor) */
   f.t.pipe.blend_color.a = -1.0f;
   f.t.pipe.blend.rt[0].blend_enable = true;
   f.t.pipe.blend.rt[0].rgb_src_factor = VLG_BLEND_FACTOR_CONST_COLOR;
   f.t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_ZERO;
   f.t.pipe.blend.rt[0].alpha_src_factor = VLG_BLEND_FACTOR_ONE;
   f.t.pipe.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_CONST_ALPHA;
   f.load();
   uint8_t *p = f.px(0, 0);
   p[3] = 200;
   uint32_t color[kMaxColorBufs][4][4] = {};
   color[0][0][0] = as_uint(0.5f);
   color[0][0][3] = as_uint(0.25f);
   omu_write_color(f.s, 0, 0, 0x1, color);
   EXPECT_EQ(p[0], 128); /* 0.5 * 1 */
   EXPECT_EQ(p[3], 64);  /* 0.25 + dst * 0 */
}

TEST(OmuBlend, ColorMaskAndDisabledBlend)
{
   OmuFixture f;
   f.t.pipe.blend.rt[0].colormask = 0x5; /* R and B */
   f.load();
   uint8_t *p = f.px(1, 1);
   p[0] = 10, p[1] = 20, p[2] = 30, p[3] = 40;
   uint32_t color[kMaxColorBufs][4][4] = {};
   for (unsigned c = 0; c < 4; c++)
      color[0][3][c] = as_uint(1.0f);
   omu_write_color(f.s, 0, 0, 0x8, color); /* lane 3 = (1, 1) */
   EXPECT_EQ(p[0], 255);
   EXPECT_EQ(p[1], 20);
   EXPECT_EQ(p[2], 255);
   EXPECT_EQ(p[3], 40);
   /* lanes outside the mask untouched */
   EXPECT_EQ(f.px(0, 0)[0], 0);
}

TEST(OmuBlend, IndependentBlendAndMultipleTargets)
{
   OmuFixture f(VLG_FORMAT_NONE, 2);
   f.t.pipe.blend.independent_blend_enable = true;
   f.t.pipe.blend.rt[0].blend_enable = true; /* ONE, ONE: additive */
   f.t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
   f.t.pipe.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_ONE;
   f.t.pipe.blend.rt[1].colormask = 0x2; /* G only, no blending */
   f.load();
   uint8_t *p0 = f.px(0, 0, 0), *p1 = f.px(0, 0, 1);
   for (unsigned c = 0; c < 4; c++)
      p0[c] = 100, p1[c] = 100;
   uint32_t color[kMaxColorBufs][4][4] = {};
   for (unsigned c = 0; c < 4; c++) {
      color[0][0][c] = as_uint(0.2f);
      color[1][0][c] = as_uint(0.6f);
   }
   omu_write_color(f.s, 0, 0, 0x1, color);
   for (unsigned c = 0; c < 4; c++)
      EXPECT_TRUE(unorm8_matches(p0[c], 0.2 + 100 / 255.0));
   EXPECT_EQ(p1[0], 100);
   EXPECT_TRUE(unorm8_matches(p1[1], 0.6));
   EXPECT_EQ(p1[2], 100);
}

namespace {

/** GL ES 3.2 Table 17.2 (EXT_blend_func_extended): the SRC1_* factors with
 * second source colour @s1, others as gl_factor. */
double
gl_factor1(vlg_blend_factor f, int c, const double *s, const double *s1, const double *d,
           const double *k)
{
   switch (f) {
   case VLG_BLEND_FACTOR_SRC1_COLOR:
      return s1[c];
   case VLG_BLEND_FACTOR_INV_SRC1_COLOR:
      return 1 - s1[c];
   case VLG_BLEND_FACTOR_SRC1_ALPHA:
      return s1[3];
   case VLG_BLEND_FACTOR_INV_SRC1_ALPHA:
      return 1 - s1[3];
   default:
      return gl_factor(f, c, s, d, k);
   }
}

} // namespace

/* Dual-source blending (docs/hw.md): every SRC1 factor as source and as
 * destination factor of both parts, against the GL formula; the second
 * colour comes from color[kDualSourceSlot] and colour buffer 1 (bound, with
 * a COLOR 1 output) is not written. */
TEST(OmuBlend, DualSourceFactors)
{
   const vlg_blend_factor src1[] = {VLG_BLEND_FACTOR_SRC1_COLOR, VLG_BLEND_FACTOR_SRC1_ALPHA,
                                    VLG_BLEND_FACTOR_INV_SRC1_COLOR,
                                    VLG_BLEND_FACTOR_INV_SRC1_ALPHA};
   std::mt19937 rng(99);
   std::uniform_int_distribution<int> byte(0, 255);
   std::uniform_real_distribution<float> unit(-0.2f, 1.2f); /* exercises the clamp */
   unsigned checks = 0;
   for (vlg_blend_factor f1 : src1) {
      for (vlg_blend_factor other :
           {VLG_BLEND_FACTOR_ONE, VLG_BLEND_FACTOR_SRC_COLOR, VLG_BLEND_FACTOR_INV_DST_ALPHA, f1}) {
         for (bool f1_is_src : {false, true}) {
            OmuFixture f(VLG_FORMAT_NONE, 2);
            VLG_BLEND_RT &rt = f.t.pipe.blend.rt[0];
            rt.blend_enable = true;
            rt.rgb_func = rt.alpha_func = VLG_BLEND_FUNC_ADD;
            rt.rgb_src_factor = f1_is_src ? f1 : other;
            rt.rgb_dst_factor = f1_is_src ? other : f1;
            rt.alpha_src_factor = rt.rgb_dst_factor; /* swapped: alpha sees both */
            rt.alpha_dst_factor = rt.rgb_src_factor;
            f.load();
            ASSERT_TRUE(f.s.dual_source);
            ASSERT_FALSE(f.s.rt[1].written);
            const double k[4] = {0, 0, 0, 0};
            uint32_t color[kMaxColorBufs][4][4] = {};
            double sv[4][4], s1v[4][4], dv[4][4];
            for (unsigned l = 0; l < 4; l++) {
               uint8_t *p = f.px(l & 1, l >> 1), *p1 = f.px(l & 1, l >> 1, 1);
               for (unsigned c = 0; c < 4; c++) {
                  const float a = unit(rng), b = unit(rng);
                  color[0][l][c] = as_uint(a);
                  color[kDualSourceSlot][l][c] = as_uint(b);
                  sv[l][c] = std::clamp(double(a), 0.0, 1.0);
                  s1v[l][c] = std::clamp(double(b), 0.0, 1.0);
                  p[c] = uint8_t(byte(rng));
                  dv[l][c] = p[c] / 255.0;
                  p1[c] = 77;
               }
            }
            omu_write_color(f.s, 0, 0, 0xf, color);
            for (unsigned l = 0; l < 4; l++) {
               const uint8_t *p = f.px(l & 1, l >> 1), *p1 = f.px(l & 1, l >> 1, 1);
               for (unsigned c = 0; c < 4; c++) {
                  const vlg_blend_factor a = c < 3 ? rt.rgb_src_factor : rt.alpha_src_factor;
                  const vlg_blend_factor b = c < 3 ? rt.rgb_dst_factor : rt.alpha_dst_factor;
                  const double want = gl_blend(
                     VLG_BLEND_FUNC_ADD, sv[l][c], gl_factor1(a, int(c), sv[l], s1v[l], dv[l], k),
                     dv[l][c], gl_factor1(b, int(c), sv[l], s1v[l], dv[l], k));
                  EXPECT_TRUE(unorm8_matches(p[c], want))
                     << "src " << vlg_blend_factor_name(a) << " dst " << vlg_blend_factor_name(b)
                     << " channel " << c;
                  EXPECT_EQ(p1[c], 77) << "colour buffer 1 written by a dual-source draw";
                  checks++;
               }
            }
         }
      }
   }
   EXPECT_EQ(checks, 4u * 4 * 2 * 16);
}

TEST(OmuBlend, NoDualSourceWithoutSrc1FactorOrBlending)
{
   OmuFixture f(VLG_FORMAT_NONE, 2);
   /* SRC1 factor but blending off: not dual-source, both targets written */
   f.t.pipe.blend.rt[0].rgb_src_factor = VLG_BLEND_FACTOR_SRC1_COLOR;
   f.load();
   EXPECT_FALSE(f.s.dual_source);
   EXPECT_TRUE(f.s.rt[1].written);
}

namespace {

uint32_t
read_u32(const uint8_t *p)
{
   uint32_t v;
   std::memcpy(&v, p, 4);
   return v;
}

void
write_u32(uint8_t *p, uint32_t v)
{
   std::memcpy(p, &v, 4);
}

} // namespace

TEST(OmuDepth, AllEightFunctionsZ24S8)
{
   const vlg_compare_func funcs[] = {VLG_COMPARE_FUNC_NEVER,   VLG_COMPARE_FUNC_LESS,
                                     VLG_COMPARE_FUNC_EQUAL,   VLG_COMPARE_FUNC_LEQUAL,
                                     VLG_COMPARE_FUNC_GREATER, VLG_COMPARE_FUNC_NOTEQUAL,
                                     VLG_COMPARE_FUNC_GEQUAL,  VLG_COMPARE_FUNC_ALWAYS};
   const float zf[4] = {0.3000001f, 0.5000002f, 0.7000003f, 0.5000002f};
   for (vlg_compare_func fn : funcs) {
      for (bool write : {false, true}) {
         OmuFixture f(VLG_FORMAT_Z24_UNORM_S8_UINT);
         f.t.pipe.depth_stencil_alpha.depth_enable = true;
         f.t.pipe.depth_stencil_alpha.depth_func = fn;
         f.t.pipe.depth_stencil_alpha.depth_writemask = write;
         f.load();
         /* stored depth: lane 3 equal to its fragment, others 0.5000002 quantized */
         const uint32_t stored = ref_z24(0.5000002f);
         for (unsigned l = 0; l < 4; l++)
            write_u32(f.t.zs_ptr(l & 1, l >> 1), stored | 0xab000000u);
         const unsigned got = omu_depth_stencil(f.s, 0, 0, 0xf, false, zf);
         unsigned want = 0;
         for (unsigned l = 0; l < 4; l++)
            if (ref_compare(fn, ref_z24(zf[l]), stored))
               want |= 1u << l;
         EXPECT_EQ(got, want) << vlg_compare_func_name(fn);
         for (unsigned l = 0; l < 4; l++) {
            const uint32_t v = read_u32(f.t.zs_ptr(l & 1, l >> 1));
            EXPECT_EQ(v >> 24, 0xabu) << "stencil bits kept";
            EXPECT_EQ(v & 0xffffff, (write && (want >> l & 1)) ? ref_z24(zf[l]) : stored)
               << vlg_compare_func_name(fn) << " lane " << l;
         }
      }
   }
}

TEST(OmuDepth, FragmentDepthClampedToDepthRange)
{
   OmuFixture f(VLG_FORMAT_Z24X8_UNORM);
   f.t.pipe.depth_stencil_alpha.depth_enable = true;
   f.t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_ALWAYS;
   f.t.pipe.depth_stencil_alpha.depth_writemask = true;
   f.t.viewport(0, 0, 8, 8, 0.25f, 0.75f);
   f.load();
   const float z[4] = {-1.0f, 2.0f, 0.5f, 0.0f};
   EXPECT_EQ(omu_depth_stencil(f.s, 0, 0, 0xf, false, z), 0xfu);
   EXPECT_EQ(read_u32(f.t.zs_ptr(0, 0)) & 0xffffff, ref_z24(0.25f));
   EXPECT_EQ(read_u32(f.t.zs_ptr(1, 0)) & 0xffffff, ref_z24(0.75f));
   EXPECT_EQ(read_u32(f.t.zs_ptr(0, 1)) & 0xffffff, ref_z24(0.5f));
   EXPECT_EQ(read_u32(f.t.zs_ptr(1, 1)) & 0xffffff, ref_z24(0.25f));
}

namespace {

/** GL ES 3.0 §4.1.4 stencil operations on 8-bit values. */
uint8_t
ref_stencil_op(vlg_stencil_op op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VLG_STENCIL_OP_KEEP:
      return s;
   case VLG_STENCIL_OP_ZERO:
      return 0;
   case VLG_STENCIL_OP_REPLACE:
      return ref;
   case VLG_STENCIL_OP_INCR:
      return s == 255 ? 255 : uint8_t(s + 1);
   case VLG_STENCIL_OP_DECR:
      return s == 0 ? 0 : uint8_t(s - 1);
   case VLG_STENCIL_OP_INCR_WRAP:
      return uint8_t((s + 1) % 256);
   case VLG_STENCIL_OP_DECR_WRAP:
      return uint8_t((s + 255) % 256);
   default:
      return uint8_t(255 - s);
   }
}

} // namespace

TEST(OmuStencil, EveryOpOnFailZfailZpassWithMasks)
{
   const vlg_stencil_op ops[] = {VLG_STENCIL_OP_KEEP,      VLG_STENCIL_OP_ZERO,
                                 VLG_STENCIL_OP_REPLACE,   VLG_STENCIL_OP_INCR,
                                 VLG_STENCIL_OP_DECR,      VLG_STENCIL_OP_INCR_WRAP,
                                 VLG_STENCIL_OP_DECR_WRAP, VLG_STENCIL_OP_INVERT};
   for (vlg_stencil_op op : ops) {
      OmuFixture f(VLG_FORMAT_Z24_UNORM_S8_UINT);
      VLG_DEPTH_STENCIL_ALPHA &dsa = f.t.pipe.depth_stencil_alpha;
      dsa.depth_enable = true;
      dsa.depth_func = VLG_COMPARE_FUNC_LESS;
      dsa.stencil[0].enabled = true;
      dsa.stencil[0].func = VLG_COMPARE_FUNC_EQUAL;
      dsa.stencil[0].valuemask = 0x0f;
      dsa.stencil[0].writemask = 0xf3;
      dsa.stencil[0].fail_op = op;
      dsa.stencil[0].zfail_op = op;
      dsa.stencil[0].zpass_op = op;
      f.t.pipe.stencil_ref.ref_value[0] = 0x35;
      f.load();
      /* lane 0: stencil test fails (low nibble 4 != 5); lane 1: passes,
       * depth fails; lane 2: both pass; lane 3: stored 0xff/0x00 wrap cases */
      const uint8_t st[4] = {0x04, 0x05, 0xf5, 0x05};
      const uint32_t zst[4] = {0x100000, 0x100000, 0xf00000, 0xffffff};
      for (unsigned l = 0; l < 4; l++)
         write_u32(f.t.zs_ptr(l & 1, l >> 1), uint32_t(st[l]) << 24 | zst[l]);
      const float z[4] = {0.5f, 0.5f, 0.5f, 0.5f}; /* 0x7fffff */
      const unsigned got = omu_depth_stencil(f.s, 0, 0, 0xf, false, z);
      EXPECT_EQ(got, 0xcu) << vlg_stencil_op_name(op);
      for (unsigned l = 0; l < 4; l++) {
         const uint8_t n = ref_stencil_op(op, st[l], 0x35);
         const uint8_t want = uint8_t((n & 0xf3) | (st[l] & ~0xf3));
         EXPECT_EQ(read_u32(f.t.zs_ptr(l & 1, l >> 1)) >> 24, want)
            << vlg_stencil_op_name(op) << " lane " << l;
      }
   }
}

TEST(OmuStencil, WrapAtLimits)
{
   OmuFixture f(VLG_FORMAT_S8_UINT_Z24_UNORM);
   VLG_DEPTH_STENCIL_ALPHA &dsa = f.t.pipe.depth_stencil_alpha;
   dsa.stencil[0].enabled = true;
   dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[0].zpass_op = VLG_STENCIL_OP_INCR_WRAP;
   dsa.stencil[1].enabled = true; /* two-sided: back faces decrement with wrap */
   dsa.stencil[1].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[1].zpass_op = VLG_STENCIL_OP_DECR_WRAP;
   f.load();
   const float z[4] = {};
   f.t.zs_ptr(0, 0)[0] = 0xff; /* S8 in the low byte */
   f.t.zs_ptr(1, 0)[0] = 0x00;
   omu_depth_stencil(f.s, 0, 0, 0x3, false, z);
   EXPECT_EQ(f.t.zs_ptr(0, 0)[0], 0x00);
   EXPECT_EQ(f.t.zs_ptr(1, 0)[0], 0x01);
   omu_depth_stencil(f.s, 0, 0, 0x3, true, z);
   omu_depth_stencil(f.s, 0, 0, 0x3, true, z);
   EXPECT_EQ(f.t.zs_ptr(0, 0)[0], 0xfe);
   EXPECT_EQ(f.t.zs_ptr(1, 0)[0], 0xff);
}

TEST(OmuStencil, TwoSidedUsesBackStateAndRef)
{
   OmuFixture f(VLG_FORMAT_Z24_UNORM_S8_UINT);
   VLG_DEPTH_STENCIL_ALPHA &dsa = f.t.pipe.depth_stencil_alpha;
   dsa.stencil[0].enabled = true;
   dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[0].zpass_op = VLG_STENCIL_OP_REPLACE;
   dsa.stencil[1].enabled = true;
   dsa.stencil[1].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[1].zpass_op = VLG_STENCIL_OP_REPLACE;
   f.t.pipe.stencil_ref.ref_value[0] = 7;
   f.t.pipe.stencil_ref.ref_value[1] = 9;
   f.load();
   const float z[4] = {};
   omu_depth_stencil(f.s, 0, 0, 0x1, false, z);
   omu_depth_stencil(f.s, 2, 0, 0x1, true, z);
   EXPECT_EQ(read_u32(f.t.zs_ptr(0, 0)) >> 24, 7u);
   EXPECT_EQ(read_u32(f.t.zs_ptr(2, 0)) >> 24, 9u);

   /* one-sided: back faces use the front state */
   OmuFixture g(VLG_FORMAT_Z24_UNORM_S8_UINT);
   g.t.pipe.depth_stencil_alpha = dsa;
   g.t.pipe.depth_stencil_alpha.stencil[1].enabled = false;
   g.t.pipe.stencil_ref = f.t.pipe.stencil_ref;
   g.load();
   omu_depth_stencil(g.s, 0, 0, 0x1, true, z);
   EXPECT_EQ(read_u32(g.t.zs_ptr(0, 0)) >> 24, 7u);
}

TEST(OmuStencil, NoStencilBufferMeansTestPasses)
{
   OmuFixture f(VLG_FORMAT_Z16_UNORM);
   f.t.pipe.depth_stencil_alpha.stencil[0].enabled = true;
   f.t.pipe.depth_stencil_alpha.stencil[0].func = VLG_COMPARE_FUNC_NEVER;
   f.load();
   const float z[4] = {};
   EXPECT_EQ(omu_depth_stencil(f.s, 0, 0, 0xf, false, z), 0xfu);
}

TEST(OmuAlpha, Functions)
{
   OmuFixture f;
   f.t.pipe.depth_stencil_alpha.alpha_enable = true;
   f.t.pipe.depth_stencil_alpha.alpha_func = VLG_COMPARE_FUNC_GEQUAL;
   f.t.pipe.depth_stencil_alpha.alpha_ref = 0.5f;
   f.load();
   const float a[4] = {0.25f, 0.5f, 0.75f, 0.4999f};
   EXPECT_EQ(omu_alpha_test(f.s, 0xf, a), 0x6u);
   EXPECT_EQ(omu_alpha_test(f.s, 0x4, a), 0x4u);
   EXPECT_FALSE(f.s.early_z);
}

TEST(OmuClear, ColourDepthStencilInsideRect)
{
   TestDraw t;
   t.framebuffer(8, 6, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT, 2);
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 0x1 | 0x2 | (1 << 2); /* depth, stencil, cbuf 0 */
   t.draw.clear_color[0] = as_uint(1.0f);
   t.draw.clear_color[1] = as_uint(0.5f);
   t.draw.clear_color[2] = as_uint(0.0f);
   t.draw.clear_color[3] = as_uint(0.2f);
   t.draw.clear_depth = 1.0f;
   t.draw.clear_stencil = 0x5a;
   t.draw.clear_rect.minx = 2;
   t.draw.clear_rect.miny = 1;
   t.draw.clear_rect.maxx = 100; /* clipped to the framebuffer */
   t.draw.clear_rect.maxy = 4;
   const uint64_t a = t.write();
   DrawPackage pkg = load_draw_package(t.vram, a);
   EXPECT_TRUE(pkg.is_clear());
   omu_clear(pkg, t.vram);
   for (unsigned y = 0; y < 6; y++) {
      for (unsigned x = 0; x < 8; x++) {
         const bool in = x >= 2 && y >= 1 && y < 4;
         const uint8_t *p = t.rgba8(x, y, 0);
         EXPECT_EQ(p[0], in ? 255 : 0);
         EXPECT_EQ(p[1], in ? 128 : 0); /* 0.5 * 255 = 127.5 rounds to even 128 */
         EXPECT_EQ(p[2], 0);
         EXPECT_EQ(p[3], in ? 51 : 0);
         EXPECT_EQ(t.rgba8(x, y, 1)[0], 0) << "cbuf 1 not selected";
         EXPECT_EQ(read_u32(t.zs_ptr(x, y)), in ? 0x5affffffu : 0u);
      }
   }
}

TEST(OmuClear, StencilOnlyKeepsDepth)
{
   TestDraw t;
   t.framebuffer(4, 4, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 0x2;
   t.draw.clear_stencil = 3;
   t.draw.clear_rect.maxx = 4;
   t.draw.clear_rect.maxy = 4;
   const uint64_t a = t.write();
   write_u32(t.zs_ptr(1, 1), 0x00123456);
   omu_clear(load_draw_package(t.vram, a), t.vram);
   EXPECT_EQ(read_u32(t.zs_ptr(1, 1)), 0x03123456u);
}

/* The OMU inlines the depth/stencil and 8-bit colour conversions of
 * sim/func/tex/format.h for speed; they must agree with that module. */
TEST(OmuFormats, InlineDepthStencilMatchesFormatModule)
{
   const vlg_format fmts[] = {VLG_FORMAT_Z16_UNORM,
                              VLG_FORMAT_Z24_UNORM_S8_UINT,
                              VLG_FORMAT_Z24X8_UNORM,
                              VLG_FORMAT_S8_UINT_Z24_UNORM,
                              VLG_FORMAT_X8Z24_UNORM,
                              VLG_FORMAT_Z32_FLOAT,
                              VLG_FORMAT_Z32_FLOAT_S8X24_UINT,
                              VLG_FORMAT_S8_UINT};
   std::mt19937 rng(99);
   std::uniform_real_distribution<float> unit(0.0f, 1.0f);
   for (vlg_format f : fmts) {
      OmuFixture o(f);
      VLG_DEPTH_STENCIL_ALPHA &dsa = o.t.pipe.depth_stencil_alpha;
      dsa.depth_enable = true;
      dsa.depth_writemask = true;
      dsa.depth_func = VLG_COMPARE_FUNC_ALWAYS;
      dsa.stencil[0].enabled = true;
      dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
      dsa.stencil[0].zpass_op = VLG_STENCIL_OP_REPLACE;
      o.load();
      const FormatInfo &fi = format_info(f);
      for (int it = 0; it < 200; it++) {
         const uint8_t ref = uint8_t(it * 37 + 1);
         o.s.stencil_ref.ref_value[0] = ref;
         float z[4] = {unit(rng), it == 0 ? 0.0f : unit(rng), it == 0 ? 1.0f : unit(rng),
                       0.5f + 1e-7f * float(it)};
         uint8_t *px[4];
         uint8_t before[4][8];
         for (unsigned l = 0; l < 4; l++) {
            px[l] = o.t.zs_ptr(l & 1, l >> 1);
            for (unsigned b = 0; b < fi.bytes; b++)
               px[l][b] = uint8_t(rng());
            std::memcpy(before[l], px[l], fi.bytes);
         }
         omu_depth_stencil(o.s, 0, 0, 0xf, false, z);
         for (unsigned l = 0; l < 4; l++) {
            uint8_t want[8];
            std::memcpy(want, before[l], fi.bytes);
            if (fi.is_depth)
               format_write_depth_raw(f, format_depth_to_raw(f, z[l], DepthRounding::Fragment),
                                      want);
            if (fi.has_stencil)
               format_pack_stencil(f, ref, want);
            EXPECT_EQ(std::memcmp(want, px[l], fi.bytes), 0) << vlg_format_name(f) << " z " << z[l];
         }
      }
   }
}

TEST(OmuFormats, InlineUnorm8ColourMatchesFormatModule)
{
   const vlg_format fmts[] = {VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_B8G8R8A8_UNORM,
                              VLG_FORMAT_R8G8B8X8_UNORM, VLG_FORMAT_B8G8R8X8_UNORM,
                              VLG_FORMAT_B5G6R5_UNORM};
   std::mt19937 rng(5);
   std::uniform_real_distribution<float> unit(-0.1f, 1.1f);
   for (vlg_format f : fmts) {
      OmuFixture o;
      o.t.fb.cbufs[0] = o.t.surface(f, 8, 8);
      o.t.pipe.blend.rt[0].blend_enable = true; /* ONE, ONE: dst + src */
      o.t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
      o.t.pipe.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_ONE;
      o.load();
      const unsigned bpp = vlg_format_bytes(f);
      for (int it = 0; it < 500; it++) {
         uint8_t *p = o.t.vram.data() + o.t.fb.cbufs[0].address;
         for (unsigned b = 0; b < bpp; b++)
            p[b] = uint8_t(rng());
         uint32_t dw[4];
         format_unpack_rgba(f, p, dw);
         uint32_t color[kMaxColorBufs][4][4] = {};
         uint32_t sum[4];
         for (unsigned c = 0; c < 4; c++) {
            const float sv = unit(rng);
            color[0][0][c] = as_uint(sv);
            sum[c] = as_uint(std::clamp(std::clamp(sv, 0.0f, 1.0f) + as_float(dw[c]), 0.0f, 1.0f));
         }
         uint8_t want[8] = {};
         format_pack_rgba(f, sum, want);
         omu_write_color(o.s, 0, 0, 0x1, color);
         EXPECT_EQ(std::memcmp(want, p, bpp), 0) << vlg_format_name(f);
      }
   }
}

TEST(OmuFormats, Unorm8RoundingMatchesFormatModuleEverywhere)
{
   /* every float between -0.01 and 1.01 in steps of 2^-20, plus specials,
    * written through an RGBA8 target without blending */
   OmuFixture o;
   o.load();
   uint8_t *p = o.px(0, 0);
   auto check = [&](float v) {
      uint32_t color[kMaxColorBufs][4][4] = {};
      for (unsigned c = 0; c < 4; c++)
         color[0][0][c] = as_uint(v);
      omu_write_color(o.s, 0, 0, 0x1, color);
      /* the OMU clamps first, then packs */
      ASSERT_EQ(p[0], float_to_unorm8(std::clamp(v, 0.0f, 1.0f))) << v;
   };
   for (int i = -10486; i <= 1059062; i++)
      check(float(i) * (1.0f / 1048576.0f));
   for (unsigned k = 0; k <= 255; k++) {
      const float v = float(k) / 255.0f;
      check(v);
      check(std::nextafter(v, 0.0f));
      check(std::nextafter(v, 1.0f));
      check((float(k) + 0.5f) / 255.0f);
   }
}

/* 4-sample OMU operations (docs/hw.md "Multisampling"). The loader does not
 * accept 4-sample framebuffers until the draws use these functions, so the
 * state is made for a single-sampled framebuffer 4 times as wide (the same
 * bytes: sample s of pixel (x, y) is pixel (4x + s, y) of it) and then
 * switched to 4 samples. */
namespace {

struct MsaaOmu : OmuFixture {
   explicit MsaaOmu(vlg_format zs) : OmuFixture(VLG_FORMAT_NONE)
   {
      t.framebuffer(4 * 4, 4, VLG_FORMAT_R8G8B8A8_UNORM, zs);
   }
   void load4()
   {
      load();
      s.samples = 4;
      s.rt[0].step = 4 * s.rt[0].bpp;
      s.zs_step = 4 * s.zs_bpp;
      s.z16_fast = false;
   }
};

} // namespace

TEST(OmuMsaa, DepthTestAndColourWritePerSample)
{
   MsaaOmu f(VLG_FORMAT_Z32_FLOAT);
   f.t.pipe.depth_stencil_alpha.depth_enable = true;
   f.t.pipe.depth_stencil_alpha.depth_writemask = true;
   f.t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   f.load4();
   ASSERT_TRUE(f.s.depth_test);
   for (unsigned x = 0; x < 16; x++)
      for (unsigned y = 0; y < 4; y++) {
         const float half = 0.5f;
         std::memcpy(f.t.zs_ptr(x, y), &half, 4);
      }
   /* quad (0, 0): lanes 0 and 3 fully covered, lane 1 samples 0 and 1 only,
    * lane 2 none; even samples in front (0.25), odd ones behind (0.75) */
   const uint16_t cov = 0xf00f | 0x0030;
   float z[4][4];
   for (unsigned l = 0; l < 4; l++)
      for (unsigned s = 0; s < 4; s++)
         z[l][s] = s & 1 ? 0.75f : 0.25f;
   const uint16_t pass = omu_depth_stencil_samples(f.s, 0, 0, cov, false, z);
   EXPECT_EQ(pass, 0x5005 | 0x0010);
   uint32_t color[kMaxColorBufs][4][4] = {};
   for (unsigned l = 0; l < 4; l++) {
      color[0][l][0] = 0x3f800000; /* (1, 0, 0, 1) */
      color[0][l][3] = 0x3f800000;
   }
   omu_write_color_samples(f.s, 0, 0, pass, color);
   for (unsigned l = 0; l < 4; l++) {
      const unsigned px = l & 1, py = l >> 1;
      for (unsigned s = 0; s < 4; s++) {
         const bool p = pass >> (4 * l + s) & 1;
         const uint8_t *c = f.t.rgba8(4 * px + s, py);
         EXPECT_EQ(c[0], p ? 255 : 0) << "lane " << l << " sample " << s;
         EXPECT_EQ(c[3], p ? 255 : 0) << "lane " << l << " sample " << s;
         float d;
         std::memcpy(&d, f.t.zs_ptr(4 * px + s, py), 4);
         EXPECT_EQ(d, p ? 0.25f : 0.5f) << "lane " << l << " sample " << s;
      }
   }
   /* the neighbouring pixel (2, 0) is untouched */
   EXPECT_EQ(f.t.rgba8(8, 0)[0], 0);
}

TEST(OmuMsaa, ResolveAveragesColourSamples)
{
   TestDraw t;
   VLG_SURFACE src = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, 4 * 2, 1); /* 2 pixels x 4 samples */
   src.width = 2;
   VLG_SURFACE dst = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, 2, 1);
   uint8_t *p = t.vram.data() + src.address;
   /* pixel 0: R 255 in 3 samples of 4 -> 0.75 -> 191; G 255, 0, 0, 0 -> 64;
    * B all 40; A 255 */
   const uint8_t s0[4][4] = {{255, 255, 40, 255},
                             {255, 0, 40, 255},
                             {255, 0, 40, 255},
                             {0, 0, 40, 255}};
   std::memcpy(p, s0, 16);
   /* pixel 1: all samples (10, 20, 30, 0) */
   for (unsigned s = 0; s < 4; s++) {
      const uint8_t v[4] = {10, 20, 30, 0};
      std::memcpy(p + 16 + 4 * s, v, 4);
   }
   omu_resolve(t.vram, src, dst, 2, 1);
   const uint8_t *d = t.vram.data() + dst.address;
   EXPECT_EQ(d[0], 191);
   EXPECT_EQ(d[1], 64);
   EXPECT_EQ(d[2], 40);
   EXPECT_EQ(d[3], 255);
   EXPECT_EQ(d[4], 10);
   EXPECT_EQ(d[5], 20);
   EXPECT_EQ(d[6], 30);
   EXPECT_EQ(d[7], 0);

   /* integer formats: sample 0 */
   VLG_SURFACE isrc = t.surface(VLG_FORMAT_R32_UINT, 4, 1);
   isrc.width = 1;
   VLG_SURFACE idst = t.surface(VLG_FORMAT_R32_UINT, 1, 1);
   const uint32_t iv[4] = {7, 100, 100, 100};
   std::memcpy(t.vram.data() + isrc.address, iv, 16);
   omu_resolve(t.vram, isrc, idst, 1, 1);
   uint32_t got;
   std::memcpy(&got, t.vram.data() + idst.address, 4);
   EXPECT_EQ(got, 7u);
}

namespace {

/** GL 4.6 Table 17.3 (LogicOp): the operation on source bits @s and
 *  destination bits @d, written out per operation. */
uint32_t
gl_logic_op(vlg_logicop op, uint32_t s, uint32_t d)
{
   switch (op) {
   case VLG_LOGICOP_CLEAR:
      return 0;
   case VLG_LOGICOP_AND:
      return s & d;
   case VLG_LOGICOP_AND_REVERSE:
      return s & ~d;
   case VLG_LOGICOP_COPY:
      return s;
   case VLG_LOGICOP_AND_INVERTED:
      return ~s & d;
   case VLG_LOGICOP_NOOP:
      return d;
   case VLG_LOGICOP_XOR:
      return s ^ d;
   case VLG_LOGICOP_OR:
      return s | d;
   case VLG_LOGICOP_NOR:
      return ~(s | d);
   case VLG_LOGICOP_EQUIV:
      return ~(s ^ d);
   case VLG_LOGICOP_INVERT:
      return ~d;
   case VLG_LOGICOP_OR_REVERSE:
      return s | ~d;
   case VLG_LOGICOP_COPY_INVERTED:
      return ~s;
   case VLG_LOGICOP_OR_INVERTED:
      return ~s | d;
   case VLG_LOGICOP_NAND:
      return ~(s & d);
   case VLG_LOGICOP_SET:
      return ~0u;
   }
   return 0;
}

/** Pixel (x, y) of colour buffer 0 of any format. */
uint8_t *
pixel_of(OmuFixture &f, unsigned x, unsigned y)
{
   const VLG_SURFACE &s = f.t.fb.cbufs[0];
   return f.t.vram.data() + s.address + uint64_t(y) * s.pitch +
          uint64_t(x) * vlg_format_bytes(s.format);
}

} // namespace

TEST(OmuLogicOp, EveryOperationOnUnorm8ReplacesBlending)
{
   /* Source colours that are exact unorm8 values (b / 255), so the packed
    * source is b; blending is enabled too (additive) and must not apply:
    * GL 4.6 section 17.3.9, logic op enabled = blending disabled. */
   OmuFixture f;
   f.t.pipe.blend.logicop_enable = true;
   f.t.pipe.blend.rt[0].blend_enable = true;
   f.t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
   f.t.pipe.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_ONE;
   std::mt19937 rng(77);
   std::uniform_int_distribution<int> byte(0, 255);
   for (unsigned op = 0; op < 16; op++) {
      f.t.pipe.blend.logicop_func = vlg_logicop(op);
      f.load();
      uint32_t color[kMaxColorBufs][4][4] = {};
      uint8_t src[4][4], dst[4][4];
      for (unsigned l = 0; l < 4; l++) {
         uint8_t *p = f.px(l & 1, l >> 1);
         for (unsigned c = 0; c < 4; c++) {
            src[l][c] = uint8_t(byte(rng));
            color[0][l][c] = as_uint(src[l][c] / 255.0f);
            p[c] = dst[l][c] = uint8_t(byte(rng));
         }
      }
      omu_write_color(f.s, 0, 0, 0xf, color);
      for (unsigned l = 0; l < 4; l++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(f.px(l & 1, l >> 1)[c],
                      uint8_t(gl_logic_op(vlg_logicop(op), src[l][c], dst[l][c])))
               << vlg_logicop_name(vlg_logicop(op)) << " lane " << l << " channel " << c;
   }
}

TEST(OmuLogicOp, ColorMaskKeepsTheDestinationsChannels)
{
   OmuFixture f;
   f.t.pipe.blend.logicop_enable = true;
   f.t.pipe.blend.logicop_func = VLG_LOGICOP_XOR;
   f.t.pipe.blend.rt[0].colormask = 0x6; /* G and B */
   f.load();
   uint8_t *p = f.px(0, 0);
   p[0] = 0x11, p[1] = 0x22, p[2] = 0x33, p[3] = 0x44;
   uint32_t color[kMaxColorBufs][4][4] = {};
   for (unsigned c = 0; c < 4; c++)
      color[0][0][c] = as_uint(1.0f); /* 0xff */
   omu_write_color(f.s, 0, 0, 0x1, color);
   EXPECT_EQ(p[0], 0x11);
   EXPECT_EQ(p[1], 0x22 ^ 0xff);
   EXPECT_EQ(p[2], 0x33 ^ 0xff);
   EXPECT_EQ(p[3], 0x44);
}

TEST(OmuLogicOp, IntegerTargetsCombineTheIntegerBits)
{
   OmuFixture f;
   f.t.framebuffer(8, 8, VLG_FORMAT_R32G32_UINT);
   f.t.pipe.blend.logicop_enable = true;
   f.t.pipe.blend.logicop_func = VLG_LOGICOP_AND_REVERSE; /* s & ~d */
   f.load();
   uint32_t *p = reinterpret_cast<uint32_t *>(pixel_of(f, 1, 0));
   p[0] = 0x0f0f0f0fu, p[1] = 0x12345678u;
   uint32_t color[kMaxColorBufs][4][4] = {};
   color[0][1][0] = 0xffff0000u;
   color[0][1][1] = 0xdeadbeefu;
   omu_write_color(f.s, 0, 0, 0x2, color); /* lane 1 = (1, 0) */
   EXPECT_EQ(p[0], 0xffff0000u & ~0x0f0f0f0fu);
   EXPECT_EQ(p[1], 0xdeadbeefu & ~0x12345678u);
}

TEST(OmuLogicOp, FloatTargetsTakeTheSourceUnblended)
{
   /* GL 4.6 section 17.3.9: no effect on a floating-point buffer, and
    * blending stays disabled */
   OmuFixture f;
   f.t.framebuffer(8, 8, VLG_FORMAT_R32G32B32A32_FLOAT);
   f.t.pipe.blend.logicop_enable = true;
   f.t.pipe.blend.logicop_func = VLG_LOGICOP_XOR;
   f.t.pipe.blend.rt[0].blend_enable = true;
   f.t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
   f.t.pipe.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_ONE;
   f.load();
   float *p = reinterpret_cast<float *>(pixel_of(f, 0, 0));
   const float dst[4] = {0.5f, 2.0f, -1.0f, 8.0f}, src[4] = {1.5f, -3.0f, 0.25f, 100.0f};
   std::memcpy(p, dst, sizeof(dst));
   uint32_t color[kMaxColorBufs][4][4] = {};
   for (unsigned c = 0; c < 4; c++)
      color[0][0][c] = as_uint(src[c]);
   omu_write_color(f.s, 0, 0, 0x1, color);
   for (unsigned c = 0; c < 4; c++)
      EXPECT_EQ(p[c], src[c]) << c;
}
