/*
 * Tests of src/vlgpu/sim/func/tex/texture.*: small textures built here in a
 * Vram, sampled at hand-chosen coordinates; every expected value is worked
 * out in the test from the GL ES 3.0 section 3.8 formulas (the comments show
 * the arithmetic), not taken from the implementation.
 */
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/func/tex/format.h"
#include "sim/func/tex/texture.h"
#include "common/bits.h"

using namespace vlgpu::sim;

using vlgpu::as_float;
using vlgpu::as_uint;

namespace {

using Vec4 = std::array<float, 4>;

/* A texture in a 1 MiB VRAM: levels placed one after the other from
 * 0x1000, rows padded by 8 bytes so that the row pitch matters. */
struct Tex {
   Vram vram{1 << 20};
   VLG_TEXTURE tex;
   VLG_SAMPLER samp;
   std::vector<uint64_t> trace;
   bool quads = false;

   Tex(vlg_texture_target target, vlg_format format, unsigned w, unsigned h, unsigned d_or_layers,
       unsigned levels)
   {
      VLG_TEXTURE_init(&tex);
      VLG_SAMPLER_init(&samp);
      tex.target = target;
      tex.format = format;
      tex.width = w;
      tex.height = h;
      tex.depth = target == VLG_TEXTURE_TARGET_3D ? d_or_layers : 1;
      tex.array_size = target == VLG_TEXTURE_TARGET_3D ? 1 : d_or_layers;
      tex.num_levels = levels;
      tex.first_level = 0;
      tex.last_level = levels - 1;
      tex.address = 0x1000;
      const unsigned bpp = vlg_format_bytes(format);
      uint32_t off = 0x40;
      for (unsigned l = 0; l < levels; l++) {
         const unsigned lw = std::max(1u, w >> l), lh = std::max(1u, h >> l);
         const unsigned ld =
            target == VLG_TEXTURE_TARGET_3D ? std::max(1u, d_or_layers >> l) : d_or_layers;
         tex.level[l].offset = off;
         tex.level[l].row_pitch = lw * bpp + 8;
         tex.level[l].layer_stride = tex.level[l].row_pitch * lh + 16;
         off += tex.level[l].layer_stride * ld;
      }
      samp.normalized_coords = true;
   }

   uint64_t addr(unsigned level, unsigned x, unsigned y, unsigned z) const
   {
      return tex.address + tex.level[level].offset + uint64_t(z) * tex.level[level].layer_stride +
             uint64_t(y) * tex.level[level].row_pitch + uint64_t(x) * vlg_format_bytes(tex.format);
   }
   /* writes one texel through the format's packer (the packers are tested
    * in test_format.cpp) */
   void set(unsigned level, unsigned x, unsigned y, unsigned z, Vec4 v)
   {
      const uint32_t w[4] = {as_uint(v[0]), as_uint(v[1]), as_uint(v[2]), as_uint(v[3])};
      format_pack_rgba(tex.format, w, vram.data() + addr(level, x, y, z));
   }
   void set_int(unsigned level, unsigned x, unsigned y, unsigned z, std::array<uint32_t, 4> v)
   {
      format_pack_rgba(tex.format, v.data(), vram.data() + addr(level, x, y, z));
   }
   void set_bytes(unsigned level, unsigned x, unsigned y, unsigned z, std::vector<uint8_t> b)
   {
      std::memcpy(vram.data() + addr(level, x, y, z), b.data(), b.size());
   }
   void filter(vlg_tex_filter min, vlg_tex_filter mag, vlg_mip_filter mip)
   {
      samp.min_img_filter = min;
      samp.mag_img_filter = mag;
      samp.min_mip_filter = mip;
   }
   void wrap(vlg_tex_wrap w) { samp.wrap_s = samp.wrap_t = samp.wrap_r = w; }
   /** texel offsets (TOFF) of the instructions raw(), sample() and sample_quad() issue */
   std::array<int8_t, 3> offset{};

   /* one lane, no quads (implicit LOD 0) */
   std::array<uint32_t, 4> raw(TexOp op, std::array<uint32_t, 4> coord,
                               std::array<uint32_t, 4> extra = {}, bool shadow = false)
   {
      TexLaneIn in{};
      std::memcpy(in.coord, coord.data(), 16);
      std::memcpy(in.extra, extra.data(), 16);
      uint32_t out[1][4] = {};
      texture_sample(vram, tex, samp, {op, shadow, {offset[0], offset[1], offset[2]}}, false, 1, 1,
                     &in, out, &trace);
      return {out[0][0], out[0][1], out[0][2], out[0][3]};
   }
   Vec4 sample(float s, float t = 0, float r = 0, float q = 0, TexOp op = TexOp::Tex, float lod = 0,
               bool shadow = false)
   {
      const auto o = raw(op, {as_uint(s), as_uint(t), as_uint(r), as_uint(q)}, {as_uint(lod), 0, 0, 0}, shadow);
      return {as_float(o[0]), as_float(o[1]), as_float(o[2]), as_float(o[3])};
   }
   /* a 2x2 quad whose lanes are (s,t), (s+dx,t), (s,t+dy), (s+dx,t+dy):
    * returns lane 0 */
   Vec4 sample_quad(float s, float t, float dx, float dy, TexOp op = TexOp::Tex, float bias = 0)
   {
      TexLaneIn in[4] = {};
      for (unsigned j = 0; j < 4; j++) {
         in[j].coord[0] = as_uint(s + (j & 1) * dx);
         in[j].coord[1] = as_uint(t + (j >> 1) * dy);
         in[j].extra[0] = as_uint(bias);
      }
      uint32_t out[4][4] = {};
      texture_sample(vram, tex, samp, {op, false, {offset[0], offset[1], offset[2]}}, true, 4, 0xf,
                     in, out, nullptr);
      return {as_float(out[0][0]), as_float(out[0][1]), as_float(out[0][2]), as_float(out[0][3])};
   }
};

/* 4x4 R32_FLOAT texture with texel (x, y) = x + 10 y */
Tex
grid4()
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R32_FLOAT, 4, 4, 1, 1);
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 4; x++)
         t.set(0, x, y, 0, {float(x + 10 * y), 0, 0, 1});
   return t;
}

float
grid(int x, int y)
{
   return float(x + 10 * y);
}

} // namespace

/* ------------------------------------------------- 2D filtering -- */

TEST(TexFilter, Nearest2D)
{
   Tex t = grid4();
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   /* GL nearest: i = floor(s * 4), j = floor(t * 4) */
   EXPECT_EQ(t.sample(0.125f, 0.125f)[0], grid(0, 0));
   EXPECT_EQ(t.sample(0.375f, 0.875f)[0], grid(1, 3));
   EXPECT_EQ(t.sample(0.49f, 0.51f)[0], grid(1, 2));
   EXPECT_EQ(t.sample(0.999f, 0.0f)[0], grid(3, 0));
   EXPECT_EQ(t.sample(0.5f, 0.25f)[0], grid(2, 1)); /* on a texel edge: floor(2.0) = 2 */
   const Vec4 v = t.sample(0.625f, 0.375f);
   EXPECT_EQ(v[0], grid(2, 1));
   EXPECT_EQ(v[1], 0.0f); /* R32_FLOAT: (R, 0, 0, 1) */
   EXPECT_EQ(v[2], 0.0f);
   EXPECT_EQ(v[3], 1.0f);
}

TEST(TexFilter, Linear2D)
{
   Tex t = grid4();
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   /* GL linear: u = s*4 - 0.5, v = t*4 - 0.5; i0 = floor(u), a = frac(u);
    * s = 0.3: u = 0.7 -> i0 0, a 0.7;  t = 0.45: v = 1.3 -> j0 1, b 0.3 */
   const double a = 0.7, b = 0.3;
   const double expect = (1 - a) * (1 - b) * grid(0, 1) + a * (1 - b) * grid(1, 1) +
                         (1 - a) * b * grid(0, 2) + a * b * grid(1, 2);
   EXPECT_NEAR(t.sample(0.3f, 0.45f)[0], expect, 1e-5);
   /* at a texel centre the filter returns the texel: s = 2.5/4, t = 1.5/4 */
   EXPECT_EQ(t.sample(0.625f, 0.375f)[0], grid(2, 1));
   /* half way between (1,1) and (2,1) */
   EXPECT_NEAR(t.sample(0.5f, 0.375f)[0], (grid(1, 1) + grid(2, 1)) / 2, 1e-6);
}

/* ------------------------------------------------------ wrap modes -- */

struct WrapCase {
   vlg_tex_wrap mode;
   float s;
   int texel;   /* -1 = border */
   int off = 0; /* texel offset (TOFF) of the coordinate: the wrap mode applies after it */
};

TEST(TexWrap, NearestEveryModeOutsideZeroOne)
{
   /* 4 texels across; the expected index follows GL ES 3.0 section 3.8 (plus
    * GL 4.6 for CLAMP / MIRROR_CLAMP*): worked below. */
   const WrapCase cases[] = {
      {VLG_TEX_WRAP_REPEAT, 1.3f, 1},        /* frac 0.3 -> floor(1.2) = 1 */
      {VLG_TEX_WRAP_REPEAT, -0.2f, 3},       /* frac 0.8 -> floor(3.2) = 3 */
      {VLG_TEX_WRAP_REPEAT, 7.9f, 3},        /* frac 0.9 -> 3 */
      {VLG_TEX_WRAP_CLAMP_TO_EDGE, 1.3f, 3}, /* clamp to [1/8, 7/8] */
      {VLG_TEX_WRAP_CLAMP_TO_EDGE, -0.2f, 0},
      {VLG_TEX_WRAP_CLAMP, 1.3f, 3}, /* clamp to [0, 1]: floor(4) -> 3 */
      {VLG_TEX_WRAP_CLAMP, -5.0f, 0},
      {VLG_TEX_WRAP_CLAMP_TO_BORDER, 1.3f, -1},  /* i = 5 is outside 0..3 */
      {VLG_TEX_WRAP_CLAMP_TO_BORDER, -0.2f, -1}, /* i = -1 */
      {VLG_TEX_WRAP_CLAMP_TO_BORDER, 0.9f, 3},
      {VLG_TEX_WRAP_MIRROR_REPEAT, 1.3f, 2},         /* floor 1 odd: 1 - 0.3 = 0.7 -> 2 */
      {VLG_TEX_WRAP_MIRROR_REPEAT, -0.2f, 0},        /* floor -1 odd: 1 - 0.8 = 0.2 -> 0 */
      {VLG_TEX_WRAP_MIRROR_REPEAT, 2.3f, 1},         /* floor 2 even: 0.3 -> 1 */
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_EDGE, -0.3f, 1}, /* |s| = 0.3 -> 1 */
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_EDGE, -1.3f, 3}, /* |s| = 1.3, clamped -> 3 */
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_EDGE, 1.3f, 3},
      {VLG_TEX_WRAP_MIRROR_CLAMP, -0.6f, 2}, /* |s| = 0.6 -> 2 */
      {VLG_TEX_WRAP_MIRROR_CLAMP, -3.0f, 3},
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_BORDER, -0.3f, 1},
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_BORDER, -1.3f, -1}, /* |s| * 4 = 5.2 > 4.5 */
      /* s = 0.125 (texel 0) with offset -1: texel -1 (s * 4 - 1 = -0.5) */
      {VLG_TEX_WRAP_REPEAT, 0.125f, 3, -1},           /* -1 mod 4 */
      {VLG_TEX_WRAP_CLAMP_TO_EDGE, 0.125f, 0, -1},    /* -0.5 < 0.5 */
      {VLG_TEX_WRAP_CLAMP, 0.125f, 0, -1},            /* -0.5 <= 0 */
      {VLG_TEX_WRAP_CLAMP_TO_BORDER, 0.125f, -1, -1}, /* -0.5 <= -0.5 */
      {VLG_TEX_WRAP_MIRROR_REPEAT, 0.125f, 0, -1},    /* s - 1/4 = -0.125: mirrored to 0.125 */
      {VLG_TEX_WRAP_MIRROR_CLAMP, 0.125f, 0, -1},     /* |0.5 - 1| = 0.5 */
      {VLG_TEX_WRAP_MIRROR_CLAMP_TO_BORDER, 0.875f, -1, 2}, /* |3.5 + 2| = 5.5 > 4.5 */
   };
   for (const WrapCase &c : cases) {
      Tex t = grid4();
      t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
      t.samp.wrap_s = c.mode;
      t.samp.wrap_t = VLG_TEX_WRAP_CLAMP_TO_EDGE;
      t.samp.border_color[0] = 77.0f;
      t.offset = {int8_t(c.off), 0, 0};
      const float expect = c.texel < 0 ? 77.0f : grid(c.texel, 2);
      EXPECT_EQ(t.sample(c.s, 0.6f)[0], expect) << vlg_tex_wrap_name(c.mode) << " s = " << c.s;
      /* the same along t (wrap_t, texel row) */
      t.samp.wrap_s = VLG_TEX_WRAP_CLAMP_TO_EDGE;
      t.samp.wrap_t = c.mode;
      t.offset = {0, int8_t(c.off), 0};
      const float expect_t = c.texel < 0 ? 77.0f : grid(1, c.texel);
      EXPECT_EQ(t.sample(0.3f, c.s)[0], expect_t) << vlg_tex_wrap_name(c.mode) << " t = " << c.s;
   }
}

TEST(TexWrap, LinearAtTheEdges)
{
   Tex t = grid4();
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.samp.wrap_t = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   t.samp.border_color[0] = 100.0f;
   const float t_row = 0.625f; /* v = 2.0: row 2 exactly */
   /* REPEAT, s = 0: u = -0.5 -> i0 = -1 -> 3, i1 = 0, a = 0.5 */
   t.samp.wrap_s = VLG_TEX_WRAP_REPEAT;
   EXPECT_NEAR(t.sample(0.0f, t_row)[0], (grid(3, 2) + grid(0, 2)) / 2, 1e-6);
   /* CLAMP_TO_EDGE, s = 1.2: u = min(4.8, 4) - 0.5 = 3.5 -> texels 3 and 3 */
   t.samp.wrap_s = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   EXPECT_EQ(t.sample(1.2f, t_row)[0], grid(3, 2));
   /* CLAMP (GL_CLAMP), s = 1.0: u = 3.5 -> texel 3 and i = 4 (the border), a = 0.5 */
   t.samp.wrap_s = VLG_TEX_WRAP_CLAMP;
   EXPECT_NEAR(t.sample(1.0f, t_row)[0], (grid(3, 2) + 100.0f) / 2, 1e-5);
   /* CLAMP_TO_BORDER, s = -0.125: u = -1 -> i0 = -1 (border), i1 = 0, a = 0 */
   t.samp.wrap_s = VLG_TEX_WRAP_CLAMP_TO_BORDER;
   EXPECT_EQ(t.sample(-0.125f, t_row)[0], 100.0f);
   /* s = 0: u = -0.5 -> half border, half texel 0 */
   EXPECT_NEAR(t.sample(0.0f, t_row)[0], (100.0f + grid(0, 2)) / 2, 1e-5);
   /* MIRROR_REPEAT, s = 0: u = -0.5 mirrors onto texel 0 twice */
   t.samp.wrap_s = VLG_TEX_WRAP_MIRROR_REPEAT;
   EXPECT_EQ(t.sample(0.0f, t_row)[0], grid(0, 2));
   /* s = 1.0: mirror(1.0) -> 1 - 0 = 1 -> u = 3.5 -> texel 3 and its mirror 3 */
   EXPECT_NEAR(t.sample(1.0f, t_row)[0], grid(3, 2), 1e-6);
   /* MIRROR_CLAMP, s = -1.0: |s * 4| = 4 -> 3.5: texel 3 and the border */
   t.samp.wrap_s = VLG_TEX_WRAP_MIRROR_CLAMP;
   EXPECT_NEAR(t.sample(-1.0f, t_row)[0], (grid(3, 2) + 100.0f) / 2, 1e-5);
   /* MIRROR_CLAMP_TO_EDGE, s = -1.0: texel 3 twice */
   t.samp.wrap_s = VLG_TEX_WRAP_MIRROR_CLAMP_TO_EDGE;
   EXPECT_EQ(t.sample(-1.0f, t_row)[0], grid(3, 2));
   /* MIRROR_CLAMP_TO_BORDER, s = -2.0: |s*4| = 8 -> clamped to 4.5 -> u = 4: border */
   t.samp.wrap_s = VLG_TEX_WRAP_MIRROR_CLAMP_TO_BORDER;
   EXPECT_EQ(t.sample(-2.0f, t_row)[0], 100.0f);
}

TEST(TexWrap, BorderColourIsClampedForNormalizedFormats)
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8G8B8A8_UNORM, 2, 2, 1, 1);
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   t.samp.border_color[0] = 2.0f;
   t.samp.border_color[1] = -1.0f;
   t.samp.border_color[2] = 0.5f;
   t.samp.border_color[3] = 1.0f;
   EXPECT_EQ(t.sample(-1.0f, 0.5f), (Vec4{1.0f, 0.0f, 0.5f, 1.0f}));
   /* a float format keeps it */
   Tex f(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R16G16B16A16_FLOAT, 2, 2, 1, 1);
   f.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   f.samp.border_color[0] = 2.0f;
   f.samp.border_color[1] = -1.0f;
   EXPECT_EQ(f.sample(-1.0f, 0.5f)[0], 2.0f);
   EXPECT_EQ(f.sample(-1.0f, 0.5f)[1], -1.0f);
   /* integer formats: the raw words */
   Tex i(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R32G32B32A32_SINT, 2, 2, 1, 1);
   i.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   i.samp.border_color[0] = as_float(static_cast<uint32_t>(-7));
   EXPECT_EQ(static_cast<int32_t>(i.raw(TexOp::Tex, {as_uint(-1.0f), as_uint(0.5f), 0, 0})[0]), -7);
}

TEST(TexWrap, UnnormalizedCoordinates)
{
   Tex t = grid4();
   t.samp.normalized_coords = false;
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   EXPECT_EQ(t.sample(2.5f, 1.2f)[0], grid(2, 1));
   EXPECT_EQ(t.sample(9.0f, -3.0f)[0], grid(3, 0));
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   /* u = 1.75 - 0.5 = 1.25: texels 1 and 2 with a = 0.25; v = 2.5 - 0.5 = 2 */
   EXPECT_NEAR(t.sample(1.75f, 2.5f)[0], 0.75 * grid(1, 2) + 0.25 * grid(2, 2), 1e-5);
}

/* ------------------------------------------------------ mipmapping -- */

namespace {

/* 8x8 R32_FLOAT, 4 levels, REPEAT: texel (x, y) of level L = value(L, x, y) */
Tex
mip8_of(float (*value)(int level, int x, int y))
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R32_FLOAT, 8, 8, 1, 4);
   for (unsigned l = 0; l < 4; l++)
      for (unsigned y = 0; y < (8u >> l); y++)
         for (unsigned x = 0; x < (8u >> l); x++)
            t.set(l, x, y, 0, {value(l, x, y), 0, 0, 1});
   t.wrap(VLG_TEX_WRAP_REPEAT);
   return t;
}

/* every texel of level L = 10 L + 1 */
Tex
mip8()
{
   return mip8_of([](int level, int, int) { return float(10 * level + 1); });
}

} // namespace

TEST(TexMip, QuadDerivativesPickLevelOne)
{
   Tex t = mip8();
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   /* ds/dx = 2/8: rho = 0.25 * 8 = 2, lambda = log2 2 = 1 -> level 1 */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.25f, 0.0f)[0], 11.0f);
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.0f, 0.25f)[0], 11.0f); /* dt/dy alone */
   /* rho = 1 texel per pixel: lambda 0 -> magnification filter on level 0 */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.125f, 0.125f)[0], 1.0f);
   /* rho = 4: level 2; rho = 64: beyond the last level -> level 3 */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.5f, 0.0f)[0], 21.0f);
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 8.0f, 0.0f)[0], 31.0f);
   /* LINEAR between levels: lambda exactly 1 -> only level 1 */
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_LINEAR);
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.25f, 0.0f)[0], 11.0f);
   /* rho = 2 * sqrt 2: lambda 1.5 -> halfway between 11 and 21 (util_fast_log2
    * is within 0.003 of log2) */
   EXPECT_NEAR(t.sample_quad(0.3f, 0.3f, 0.25f * std::sqrt(2.0f), 0.0f)[0], 16.0, 0.05);
   /* no mipmapping: always the base level */
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.5f, 0.0f)[0], 1.0f);
}

TEST(TexMip, BiasExplicitLodAndGradients)
{
   Tex t = mip8();
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   /* TXB: lambda 1 + bias 1 = 2 */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.25f, 0.0f, TexOp::Txb, 1.0f)[0], 21.0f);
   /* sampler lod_bias adds too */
   t.samp.lod_bias = 1.0f;
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.25f, 0.0f)[0], 21.0f);
   t.samp.lod_bias = 0.0f;
   /* TXL: nearest level = floor(lod + 0.5) (GL rounds the level up at .5) */
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.25f)[0], 11.0f);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.75f)[0], 21.0f);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 9.0f)[0], 31.0f);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, -2.0f)[0], 1.0f);
   /* LINEAR mip: lod 1.25 -> 11 + 0.25 * (21 - 11) = 13.5 */
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_LINEAR);
   EXPECT_NEAR(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.25f)[0], 13.5, 1e-5);
   /* LOD beyond the last level: the last level alone */
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 3.5f)[0], 31.0f);
   /* min_lod / max_lod clamp the LOD */
   t.samp.max_lod = 1.0f;
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 3.0f)[0], 11.0f);
   t.samp.max_lod = 1000.0f;
   t.samp.min_lod = 2.0f;
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 0.0f)[0], 21.0f);
   t.samp.min_lod = 0.0f;
   /* TXD: gradients (2/8, 0) and (0, 2/8): rho 2 -> level 1; (4/8, 0): level 2 */
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   TexLaneIn in{};
   in.coord[0] = as_uint(0.3f);
   in.coord[1] = as_uint(0.3f);
   in.extra[0] = as_uint(0.25f);
   in.extra2[1] = as_uint(0.25f);
   uint32_t out[1][4];
   texture_sample(t.vram, t.tex, t.samp, {TexOp::Txd, false}, false, 1, 1, &in, out, nullptr);
   EXPECT_EQ(as_float(out[0][0]), 11.0f);
   in.extra[0] = as_uint(-0.5f);
   texture_sample(t.vram, t.tex, t.samp, {TexOp::Txd, false}, false, 1, 1, &in, out, nullptr);
   EXPECT_EQ(as_float(out[0][0]), 21.0f);
   /* outside fragment quads implicit LOD is 0: base level */
   EXPECT_EQ(t.sample(0.3f, 0.3f)[0], 1.0f);
}

TEST(TexMip, BaseLevelAndMagnificationSwitch)
{
   Tex t = mip8();
   /* first_level 1: LOD 0 is level 1, LOD 1 is level 2 */
   t.tex.first_level = 1;
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 0.0f)[0], 11.0f);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], 21.0f);
   /* ds/dx = 2/4 over the 4x4 base: rho 2 -> one level down from the base */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.5f, 0.0f)[0], 21.0f);
   /* last_level 2 caps it */
   t.tex.last_level = 2;
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 5.0f)[0], 21.0f);

   /* mag LINEAR, min NEAREST on a 2x1 ramp: LOD <= 0 filters, LOD > 0 does not */
   Tex r(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R32_FLOAT, 2, 1, 1, 1);
   r.set(0, 0, 0, 0, {0, 0, 0, 1});
   r.set(0, 1, 0, 0, {1, 0, 0, 1});
   r.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   r.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   EXPECT_NEAR(r.sample(0.5f, 0.5f, 0, 0, TexOp::Txl, -1.0f)[0], 0.5, 1e-6);
   EXPECT_EQ(r.sample(0.5f, 0.5f, 0, 0, TexOp::Txl, 0.5f)[0], 1.0f); /* floor(0.5*2) = 1 */
}

TEST(TexMip, FastLog2)
{
   EXPECT_EQ(tex_fast_log2(1.0f), 0.0f);
   EXPECT_EQ(tex_fast_log2(2.0f), 1.0f);
   EXPECT_EQ(tex_fast_log2(0.25f), -2.0f);
   for (float x = 0.01f; x < 1000.0f; x *= 1.37f)
      EXPECT_NEAR(tex_fast_log2(x), std::log2(x), 0.003) << x;
}

/* ------------------------------------------------------ cube maps -- */

namespace {

/* 2x2 faces, texel (x, y) of face f = 100 f + 10 y + x */
Tex
cube2()
{
   Tex t(VLG_TEXTURE_TARGET_CUBE, VLG_FORMAT_R32_FLOAT, 2, 2, 6, 1);
   for (unsigned f = 0; f < 6; f++)
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            t.set(0, x, y, f, {float(100 * f + 10 * y + x), 0, 0, 1});
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   return t;
}

} // namespace

TEST(TexCube, FaceSelectionAndCoordinates)
{
   Tex t = cube2();
   /* GL ES 3.0 Table 3.21: major axis -> face, (sc, tc, ma); then
    * s = (sc/|ma| + 1)/2, t = (tc/|ma| + 1)/2 (the face coordinate equations). Each direction below
    * has minor components +-0.5 so s, t are 0.25 or 0.75 -> texel 0 or 1. */
   struct {
      float rx, ry, rz;
      unsigned face;
      float sc, tc;
   } cases[] = {
      {1.0f, -0.5f, 0.5f, 0, -0.5f, 0.5f},  /* +X: sc = -rz, tc = -ry */
      {-1.0f, -0.5f, 0.5f, 1, 0.5f, 0.5f},  /* -X: sc = +rz, tc = -ry */
      {0.5f, 1.0f, -0.5f, 2, 0.5f, -0.5f},  /* +Y: sc = +rx, tc = +rz */
      {0.5f, -1.0f, -0.5f, 3, 0.5f, 0.5f},  /* -Y: sc = +rx, tc = -rz */
      {-0.5f, 0.5f, 1.0f, 4, -0.5f, -0.5f}, /* +Z: sc = +rx, tc = -ry */
      {-0.5f, 0.5f, -1.0f, 5, 0.5f, -0.5f}, /* -Z: sc = -rx, tc = -ry */
   };
   for (const auto &c : cases) {
      const float s = (c.sc / 1.0f + 1) / 2, tt = (c.tc / 1.0f + 1) / 2;
      const int x = s < 0.5f ? 0 : 1, y = tt < 0.5f ? 0 : 1;
      EXPECT_EQ(t.sample(c.rx, c.ry, c.rz)[0], float(100 * c.face + 10 * y + x))
         << "face " << c.face;
      /* scaling the direction changes nothing */
      EXPECT_EQ(t.sample(3 * c.rx, 3 * c.ry, 3 * c.rz)[0], float(100 * c.face + 10 * y + x));
   }
   /* the six major axes */
   EXPECT_EQ(int(t.sample(1, 0, 0)[0]) / 100, 0);
   EXPECT_EQ(int(t.sample(-1, 0, 0)[0]) / 100, 1);
   EXPECT_EQ(int(t.sample(0, 1, 0)[0]) / 100, 2);
   EXPECT_EQ(int(t.sample(0, -1, 0)[0]) / 100, 3);
   EXPECT_EQ(int(t.sample(0, 0, 1)[0]) / 100, 4);
   EXPECT_EQ(int(t.sample(0, 0, -1)[0]) / 100, 5);
}

TEST(TexCube, SeamlessLinearCrossesTheEdge)
{
   Tex t = cube2();
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.samp.seamless_cube_map = true;
   /* direction (1, -0.5, -1) selects +X (a tie of |rx| and |rz| goes to X) with
    * sc = -rz = 1: s = 1, the right edge; tc = -ry = 0.5: t = 0.75, row 1.
    * u = 2*1 - 0.5 = 1.5: texel x = 1 of +X and the texel beyond the edge,
    * each with weight 0.5. The +X face's right edge
    * (sc = +1, i.e. rz = -|rx|) is shared with -Z, whose sc = -rx = -1 there:
    * column 0, and whose tc = -ry: the same row 1. */
   const float v = t.sample(1.0f, -0.5f, -1.0f)[0];
   EXPECT_NEAR(v, 0.5 * (100 * 0 + 10 * 1 + 1) + 0.5 * (100 * 5 + 10 * 1 + 0), 1e-4);
   /* without seamless filtering the clamp-to-edge wrap stays on +X */
   t.samp.seamless_cube_map = false;
   EXPECT_EQ(t.sample(1.0f, -0.5f, -1.0f)[0], 11.0f);
}

TEST(TexCube, SeamlessNearestStaysOnTheFace)
{
   /* direction (1, 0, -1): +X with s = 1.0 exactly. REPEAT would wrap
    * floor(2.0) = 2 to texel 0; a seamless cube clamps within the face. */
   Tex t = cube2();
   t.wrap(VLG_TEX_WRAP_REPEAT);
   t.samp.seamless_cube_map = true;
   EXPECT_EQ(t.sample(1.0f, 0.0f, -1.0f)[0], 11.0f);
}

TEST(TexCube, ImplicitLod)
{
   /* 16x16 faces, 3 levels, level L constant 10 L + 1. A quad on +Z (rz = 1)
    * whose rx grows by 0.25 per pixel: s = (rx / |rz| + 1) / 2 grows by
    * 0.125 per pixel = 2 texels of the 16-texel face: rho 2, lambda 1. */
   Tex t(VLG_TEXTURE_TARGET_CUBE, VLG_FORMAT_R32_FLOAT, 16, 16, 6, 3);
   for (unsigned l = 0; l < 3; l++)
      for (unsigned f = 0; f < 6; f++)
         for (unsigned y = 0; y < (16u >> l); y++)
            for (unsigned x = 0; x < (16u >> l); x++)
               t.set(l, x, y, f, {float(10 * l + 1), 0, 0, 1});
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   TexLaneIn in[4] = {};
   for (unsigned j = 0; j < 4; j++) {
      in[j].coord[0] = as_uint(-0.1f + (j & 1) * 0.25f);
      in[j].coord[1] = as_uint(0.1f);
      in[j].coord[2] = as_uint(1.0f);
   }
   uint32_t out[4][4];
   texture_sample(t.vram, t.tex, t.samp, {TexOp::Tex, false}, true, 4, 0xf, in, out, nullptr);
   for (unsigned j = 0; j < 4; j++)
      EXPECT_EQ(as_float(out[j][0]), 11.0f) << j;
}

/* ------------------------------------------------ cube-map arrays -- */

namespace {

/* 3 cubes of 2x2 faces (18 layers), texel (x, y) of face f of cube c =
 * 1000 c + 100 f + 10 y + x */
Tex
cube_array3()
{
   Tex t(VLG_TEXTURE_TARGET_CUBE_ARRAY, VLG_FORMAT_R32_FLOAT, 2, 2, 18, 1);
   for (unsigned c = 0; c < 3; c++)
      for (unsigned f = 0; f < 6; f++)
         for (unsigned y = 0; y < 2; y++)
            for (unsigned x = 0; x < 2; x++)
               t.set(0, x, y, 6 * c + f, {float(1000 * c + 100 * f + 10 * y + x), 0, 0, 1});
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   return t;
}

} // namespace

TEST(TexCubeArray, FaceFromTheDirectionCubeFromTheFourthCoordinate)
{
   Tex t = cube_array3();
   /* GL 4.0 section 3.8.9 / ARB_texture_cube_map_array: (s, t, r) picks the
    * face as for a cube map (Table 3.21), q the cube: layer = clamp(floor(q
    * + 0.5), 0, cubes - 1), texel layer 6 x cube + face. Direction (-0.5,
    * 0.5, 1): +Z (face 4), sc = +rx = -0.5, tc = -ry = -0.5 -> s = t = 0.25:
    * texel (0, 0). */
   const struct {
      float q;
      unsigned cube;
   } cases[] = {{0.0f, 0}, {0.4f, 0}, {0.6f, 1}, {1.49f, 1}, {1.5f, 2}, {2.0f, 2},
                {-3.0f, 0}, {7.0f, 2}};
   for (const auto &c : cases)
      EXPECT_EQ(t.sample(-0.5f, 0.5f, 1.0f, c.q)[0], float(1000 * c.cube + 100 * 4))
         << "q = " << c.q;
   /* -Y (face 3) of cube 2: (0.5, -1, -0.5): sc = +rx = 0.5, tc = -rz = 0.5:
    * s = t = 0.75, texel (1, 1) */
   EXPECT_EQ(t.sample(0.5f, -1.0f, -0.5f, 2.0f)[0], 2000.0f + 300 + 11);
}

TEST(TexCubeArray, SeamlessLinearStaysInTheCube)
{
   /* As TexCube.SeamlessLinearCrossesTheEdge, in cube 1: +X texel (1, 1)
    * and, beyond its right edge, -Z texel (0, 1) of the same cube, 0.5 each. */
   Tex t = cube_array3();
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.samp.seamless_cube_map = true;
   const float v = t.sample(1.0f, -0.5f, -1.0f, 1.0f)[0];
   EXPECT_NEAR(v, 0.5 * (1000 + 100 * 0 + 10 * 1 + 1) + 0.5 * (1000 + 100 * 5 + 10 * 1 + 0), 1e-3);
   /* the last cube's -Z neighbour is its own, not past the array */
   const float w = t.sample(1.0f, -0.5f, -1.0f, 2.0f)[0];
   EXPECT_NEAR(w, 0.5 * (2000 + 11) + 0.5 * (2000 + 510), 1e-3);
}

TEST(TexCubeArray, ShadowReferenceAndGatherComponentInExtraW)
{
   /* R32_FLOAT depth-like values; the reference comes from extra[3]
    * (R[coord+1].w), coord[3] is the cube index. Face +Z of cube 1 texel
    * (0, 0) = 1400: LEQUAL 1500 <= 1400 fails -> 0, 1300 <= 1400 -> 1. */
   Tex t = cube_array3();
   t.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   t.samp.compare_func = VLG_COMPARE_FUNC_LEQUAL;
   const std::array<uint32_t, 4> dir = {as_uint(-0.5f), as_uint(0.5f), as_uint(1.0f),
                                        as_uint(1.0f)};
   EXPECT_EQ(as_float(t.raw(TexOp::Tex, dir, {0, 0, 0, as_uint(1500.0f)}, true)[0]), 0.0f);
   EXPECT_EQ(as_float(t.raw(TexOp::Tex, dir, {0, 0, 0, as_uint(1300.0f)}, true)[0]), 1.0f);

   /* TG4 of component 0 (R) in extra[3]: the 2x2 footprint of face +Z of
    * cube 2 at its centre (direction (0, 0, 1): s = t = 0.5), GL order
    * (i0,j1), (i1,j1), (i1,j0), (i0,j0) = texels 10, 11, 1, 0 */
   Tex g = cube_array3();
   const auto o =
      g.raw(TexOp::Tg4, {as_uint(0.0f), as_uint(0.0f), as_uint(1.0f), as_uint(2.0f)}, {0, 0, 0, 0});
   EXPECT_EQ(as_float(o[0]), 2410.0f);
   EXPECT_EQ(as_float(o[1]), 2411.0f);
   EXPECT_EQ(as_float(o[2]), 2401.0f);
   EXPECT_EQ(as_float(o[3]), 2400.0f);
   /* the component index comes from extra[3], not from the cube index
    * coord[3] = 7 (which clamps to cube 2) */
   EXPECT_THROW(g.raw(TexOp::Tg4, {as_uint(0.0f), as_uint(0.0f), as_uint(1.0f), as_uint(7.0f)},
                      {0, 0, 0, 4}),
                GpuFault);
   EXPECT_EQ(as_float(g.raw(TexOp::Tg4,
                            {as_uint(0.0f), as_uint(0.0f), as_uint(1.0f), as_uint(7.0f)},
                            {0, 0, 0, 0})[0]),
             2410.0f);
}

TEST(TexCubeArray, SizeQueryFetchAndDescriptorChecks)
{
   Tex t = cube_array3();
   /* textureSize(samplerCubeArray): (w, h, cubes) = (2, 2, 18 / 6) */
   const auto q = t.raw(TexOp::Txq, {0, 0, 0, 0});
   EXPECT_EQ(q[0], 2u);
   EXPECT_EQ(q[1], 2u);
   EXPECT_EQ(q[2], 3u);
   EXPECT_EQ(q[3], 1u);
   /* TXF addresses layer-faces: z = 6 x 2 + 5, texel (1, 0) */
   EXPECT_EQ(as_float(t.raw(TexOp::Txf, {1, 0, 17, 0})[0]), 2000.0f + 500 + 1);
   /* a layer count that is not whole cubes, or non-square faces */
   Tex bad = cube_array3();
   bad.tex.array_size = 16;
   EXPECT_THROW(bad.sample(0, 0, 1, 0), GpuFault);
   Tex rect = cube_array3();
   rect.tex.height = 1;
   EXPECT_THROW(rect.sample(0, 0, 1, 0), GpuFault);
}

/* ------------------------------------------------- arrays and 3D -- */

TEST(TexArray, LayerIsRoundedAndClamped)
{
   Tex t(VLG_TEXTURE_TARGET_2D_ARRAY, VLG_FORMAT_R32_FLOAT, 2, 2, 3, 1);
   for (unsigned l = 0; l < 3; l++)
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            t.set(0, x, y, l, {float(l), 0, 0, 1});
   /* layer = clamp(floor(r + 0.5), 0, 2) (GL ES 3.0 array layer selection) */
   EXPECT_EQ(t.sample(0.5f, 0.5f, 0.4f)[0], 0.0f);
   EXPECT_EQ(t.sample(0.5f, 0.5f, 0.6f)[0], 1.0f);
   EXPECT_EQ(t.sample(0.5f, 0.5f, 1.5f)[0], 2.0f);
   EXPECT_EQ(t.sample(0.5f, 0.5f, 1.49f)[0], 1.0f);
   EXPECT_EQ(t.sample(0.5f, 0.5f, -1.0f)[0], 0.0f);
   EXPECT_EQ(t.sample(0.5f, 0.5f, 7.0f)[0], 2.0f);
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   EXPECT_EQ(t.sample(0.5f, 0.5f, 1.2f)[0], 1.0f); /* no filtering across layers */

   Tex a(VLG_TEXTURE_TARGET_1D_ARRAY, VLG_FORMAT_R32_FLOAT, 4, 1, 2, 1);
   for (unsigned l = 0; l < 2; l++)
      for (unsigned x = 0; x < 4; x++)
         a.set(0, x, 0, l, {float(10 * l + x), 0, 0, 1});
   EXPECT_EQ(a.sample(0.6f, 0.7f)[0], 12.0f); /* x = 2, layer round(0.7) = 1 */
}

TEST(Tex3D, TrilinearOn2x2x2)
{
   Tex t(VLG_TEXTURE_TARGET_3D, VLG_FORMAT_R32_FLOAT, 2, 2, 2, 1);
   for (unsigned z = 0; z < 2; z++)
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            t.set(0, x, y, z, {float(x + 2 * y + 4 * z), 0, 0, 1});
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   /* centre: the mean of the 8 texels = (0 + ... + 7) / 8 = 3.5 */
   EXPECT_NEAR(t.sample(0.5f, 0.5f, 0.5f)[0], 3.5, 1e-6);
   /* (0.3, 0.6, 0.7): u = 0.1, v = 0.7, w = 0.9 inside the cube of texel
    * centres; trilinear interpolation of the linear function x + 2y + 4z
    * is exact: 0.1 + 1.4 + 3.6 = 5.1 */
   EXPECT_NEAR(t.sample(0.3f, 0.6f, 0.7f)[0], 5.1, 1e-5);
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   EXPECT_EQ(t.sample(0.3f, 0.6f, 0.7f)[0], 0 + 2 + 4); /* (0, 1, 1) */
   t.samp.wrap_r = VLG_TEX_WRAP_REPEAT;
   EXPECT_EQ(t.sample(0.3f, 0.6f, 1.7f)[0], 0 + 2 + 4); /* r wraps too */
}

/* ------------------------------------------------ texel offsets -- */
/* TOFF (docs/isa.md): GL ES 3.0.6 section 3.8.10, u = s * w_level + offset_u:
 * the offset is in texels of the level the LOD selects, added after the LOD
 * is chosen, before the wrap mode; never to the array layer. */

namespace {

/* texel (x, y) of level L = 100 L + x + 10 y */
float
mipgrid(int level, int x, int y)
{
   return float(100 * level + x + 10 * y);
}

/* 8x8, 4 levels of mipgrid, NEAREST with NEAREST mipmapping, REPEAT */
Tex
mipgrid8()
{
   Tex t = mip8_of(mipgrid);
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NEAREST);
   return t;
}

} // namespace

TEST(TexOffset, InTexelsOfTheSelectedLevel)
{
   Tex t = mipgrid8();
   /* s = t = 0.3: level 0 texel floor(2.4) = 2, level 1 floor(1.2) = 1,
    * level 2 floor(0.6) = 0 */
   t.offset = {2, 1, 0};
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 0.0f)[0], mipgrid(0, 4, 3));
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], mipgrid(1, 3, 2));
   /* level 2 is 2x2: (0 + 2, 0 + 1) wraps (REPEAT) to (0, 1) */
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 2.0f)[0], mipgrid(2, 0, 1));
   /* TXB and TXD choose level 1 the same way: rho = 2 texels per pixel */
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.25f, 0.0f)[0], mipgrid(1, 3, 2));
   EXPECT_EQ(t.sample_quad(0.3f, 0.3f, 0.125f, 0.0f, TexOp::Txb, 1.0f)[0], mipgrid(1, 3, 2));
   /* negative offsets wrap below 0 (REPEAT): level 1 texel (1, 1) - (3, 2) = (-2, -1) -> (2, 3) */
   t.offset = {-3, -2, 0};
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], mipgrid(1, 2, 3));
   /* and clamp with CLAMP_TO_EDGE: (-2, -1) -> (0, 0); +7 -> the last texel */
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], mipgrid(1, 0, 0));
   t.offset = {7, 0, 0};
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], mipgrid(1, 3, 1));
   /* a w offset does nothing to a 2D texture */
   t.offset = {0, 0, 5};
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.0f)[0], mipgrid(1, 1, 1));
}

TEST(TexOffset, EachLevelOfATrilinearSampleInItsOwnTexels)
{
   Tex t = mipgrid8();
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_LINEAR);
   t.offset = {1, 0, 0};
   /* LOD 1.5: level 1 texel (1, 1) + (1, 0) = (2, 1), level 2 texel (0, 0) +
    * (1, 0) = (1, 0), blended half and half. (Moving s by 1/8, one level-0
    * texel, would read (1, 1) and (0, 0) instead.) */
   const float want = mipgrid(1, 2, 1) + 0.5f * (mipgrid(2, 1, 0) - mipgrid(1, 2, 1));
   EXPECT_EQ(t.sample(0.3f, 0.3f, 0, 0, TexOp::Txl, 1.5f)[0], want);
}

TEST(TexOffset, LinearFootprintMovesWholeTexels)
{
   Tex t = grid4();
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   /* as TexFilter.Linear2D (s = 0.3, t = 0.2: u = 0.7, v = 0.3) with offset
    * (2, 1): the texels (2..3, 1..2) with the same weights */
   t.offset = {2, 1, 0};
   const double a = 0.7, b = 0.3;
   const double expect = (1 - a) * (1 - b) * grid(2, 1) + a * (1 - b) * grid(3, 1) +
                         (1 - a) * b * grid(2, 2) + a * b * grid(3, 2);
   EXPECT_NEAR(t.sample(0.3f, 0.2f)[0], expect, 1e-5);
   /* CLAMP_TO_EDGE after the offset: u = clamp(0.3 * 4 + 3, 0, 4) - 0.5 = 3.5: texel 3 alone */
   t.offset = {3, 0, 0};
   EXPECT_NEAR(t.sample(0.3f, 0.375f)[0], grid(3, 1), 1e-6);
}

TEST(TexOffset, ArrayLayersAndThirdDimension)
{
   /* 2D array: u and v move, the layer does not (w is ignored) */
   Tex a(VLG_TEXTURE_TARGET_2D_ARRAY, VLG_FORMAT_R32_FLOAT, 4, 4, 3, 1);
   for (unsigned l = 0; l < 3; l++)
      for (unsigned y = 0; y < 4; y++)
         for (unsigned x = 0; x < 4; x++)
            a.set(0, x, y, l, {float(100 * l + x + 10 * y), 0, 0, 1});
   a.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   a.offset = {1, 2, 1};
   EXPECT_EQ(a.sample(0.125f, 0.125f, 1.0f)[0], 100 + 1 + 20);
   /* 1D array: u moves, v (the layer coordinate) does not */
   Tex b(VLG_TEXTURE_TARGET_1D_ARRAY, VLG_FORMAT_R32_FLOAT, 4, 1, 2, 1);
   for (unsigned l = 0; l < 2; l++)
      for (unsigned x = 0; x < 4; x++)
         b.set(0, x, 0, l, {float(10 * l + x), 0, 0, 1});
   b.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   b.offset = {2, 1, 0};
   EXPECT_EQ(b.sample(0.125f, 0.0f)[0], 0 + 2);
   /* 3D: u, v and w move */
   Tex c(VLG_TEXTURE_TARGET_3D, VLG_FORMAT_R32_FLOAT, 4, 4, 4, 1);
   for (unsigned z = 0; z < 4; z++)
      for (unsigned y = 0; y < 4; y++)
         for (unsigned x = 0; x < 4; x++)
            c.set(0, x, y, z, {float(x + 10 * y + 100 * z), 0, 0, 1});
   c.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   c.offset = {1, 2, 3};
   EXPECT_EQ(c.sample(0.125f, 0.125f, 0.125f)[0], 1 + 20 + 300);
   c.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   c.offset = {0, 0, -1};
   /* the centre of texel (1, 1, 2), one slice down: exactly texel (1, 1, 1) */
   EXPECT_NEAR(c.sample(0.375f, 0.375f, 0.625f)[0], 1 + 10 + 100, 1e-5);
}

TEST(TexOffset, UnnormalizedShadowAndGather)
{
   /* unnormalized coordinates (rectangle textures): s in texels plus the offset */
   Tex t = grid4();
   t.samp.normalized_coords = false;
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   t.offset = {2, -1, 0};
   EXPECT_EQ(t.sample(1.5f, 2.5f)[0], grid(3, 1));
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   /* u = 0.75 + 2 - 0.5 = 2.25: texels 2 and 3 with a = 0.25; v = 2.5 - 1 - 0.5 = 1 */
   EXPECT_NEAR(t.sample(0.75f, 2.5f)[0], 0.75 * grid(2, 1) + 0.25 * grid(3, 1), 1e-5);

   /* shadow: the comparison reads the offset texel (LESS: r < d) */
   Tex z(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_Z32_FLOAT, 2, 1, 1, 1);
   z.set(0, 0, 0, 0, {0.2f, 0, 0, 0});
   z.set(0, 1, 0, 0, {0.8f, 0, 0, 0});
   z.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   z.samp.compare_func = VLG_COMPARE_FUNC_LESS;
   z.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   EXPECT_EQ(z.sample(0.25f, 0.5f, 0, 0.5f, TexOp::Tex, 0, true)[0], 0.0f); /* 0.5 < 0.2 */
   z.offset = {1, 0, 0};
   EXPECT_EQ(z.sample(0.25f, 0.5f, 0, 0.5f, TexOp::Tex, 0, true)[0], 1.0f); /* 0.5 < 0.8 */

   /* TG4: the 2x2 footprint moves; (0.375, 0.375) on 4x4 gathers texels
    * (1..2, 1..2), offset (1, 1) gathers (2..3, 2..3): i0j1 i1j1 i1j0 i0j0 */
   Tex g = grid4();
   g.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   g.offset = {1, 1, 0};
   const auto o = g.raw(TexOp::Tg4, {as_uint(0.375f), as_uint(0.375f), 0, 0});
   EXPECT_EQ(as_float(o[0]), grid(2, 3));
   EXPECT_EQ(as_float(o[1]), grid(3, 3));
   EXPECT_EQ(as_float(o[2]), grid(3, 2));
   EXPECT_EQ(as_float(o[3]), grid(2, 2));
   /* TXF ignores them (the compiler adds TXF offsets to its integer coordinates) */
   EXPECT_EQ(as_float(g.raw(TexOp::Txf, {1, 1, 0, 0})[0]), grid(1, 1));
}

/* --------------------------------------------------------- shadow -- */

TEST(TexShadow, EveryCompareFunction)
{
   /* Z32_FLOAT texel 0.5; reference r = coord.w: result = r OP d (texture comparison functions) */
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_Z32_FLOAT, 1, 1, 1, 1);
   t.set(0, 0, 0, 0, {0.5f, 0, 0, 0});
   t.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   const struct {
      vlg_compare_func f;
      float below, equal, above; /* results for r = 0.25, 0.5, 0.75 */
   } cases[] = {
      {VLG_COMPARE_FUNC_NEVER, 0, 0, 0},   {VLG_COMPARE_FUNC_LESS, 1, 0, 0},
      {VLG_COMPARE_FUNC_EQUAL, 0, 1, 0},   {VLG_COMPARE_FUNC_LEQUAL, 1, 1, 0},
      {VLG_COMPARE_FUNC_GREATER, 0, 0, 1}, {VLG_COMPARE_FUNC_NOTEQUAL, 1, 0, 1},
      {VLG_COMPARE_FUNC_GEQUAL, 0, 1, 1},  {VLG_COMPARE_FUNC_ALWAYS, 1, 1, 1},
   };
   for (const auto &c : cases) {
      t.samp.compare_func = c.f;
      const Vec4 b = t.sample(0.5f, 0.5f, 0, 0.25f, TexOp::Tex, 0, true);
      EXPECT_EQ(b, (Vec4{c.below, c.below, c.below, 1.0f})) << vlg_compare_func_name(c.f);
      EXPECT_EQ(t.sample(0.5f, 0.5f, 0, 0.5f, TexOp::Tex, 0, true)[0], c.equal)
         << vlg_compare_func_name(c.f);
      EXPECT_EQ(t.sample(0.5f, 0.5f, 0, 0.75f, TexOp::Tex, 0, true)[0], c.above)
         << vlg_compare_func_name(c.f);
   }
   /* without the shadow bit the depth itself is returned: (d, d, d, d) */
   EXPECT_EQ(t.sample(0.5f, 0.5f, 0, 0.75f), (Vec4{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(TexShadow, LinearFilterAveragesTheComparisons)
{
   /* 2x2 Z16 depths 0.2 0.4 / 0.6 0.8, sampled at the centre with LINEAR:
    * r = 0.5, LESS (r < d) passes for 0.6 and 0.8: (0 + 0 + 1 + 1) / 4 = 0.5 */
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_Z16_UNORM, 2, 2, 1, 1);
   t.set(0, 0, 0, 0, {0.2f, 0, 0, 0});
   t.set(0, 1, 0, 0, {0.4f, 0, 0, 0});
   t.set(0, 0, 1, 0, {0.6f, 0, 0, 0});
   t.set(0, 1, 1, 0, {0.8f, 0, 0, 0});
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   t.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   t.samp.compare_func = VLG_COMPARE_FUNC_LESS;
   EXPECT_EQ(t.sample(0.5f, 0.5f, 0, 0.5f, TexOp::Tex, 0, true), (Vec4{0.5f, 0.5f, 0.5f, 1.0f}));
   /* r = 0.3: only 0.2 fails -> 0.75; weights (0.75, 0.25) along s at s = 0.375:
    * u = 0.25 -> row 0: 0.75 * [0.3<0.2 = 0] + 0.25 * [0.3<0.4 = 1] = 0.25, row 1: 1 -> 0.625 */
   EXPECT_NEAR(t.sample(0.5f, 0.5f, 0, 0.3f, TexOp::Tex, 0, true)[0], 0.75, 1e-6);
   EXPECT_NEAR(t.sample(0.375f, 0.5f, 0, 0.3f, TexOp::Tex, 0, true)[0], 0.625, 1e-6);
   /* fixed-point depth: the reference is clamped to [0, 1] (GL ES 3.0 texture comparison modes),
    * so r = -0.5 acts as 0.0 and 0.0 >= 0.0 passes GEQUAL against d = 0 */
   Tex zero(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_Z16_UNORM, 1, 1, 1, 1);
   zero.set(0, 0, 0, 0, {0.0f, 0, 0, 0});
   zero.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   zero.samp.compare_func = VLG_COMPARE_FUNC_GEQUAL;
   EXPECT_EQ(zero.sample(0.5f, 0.5f, 0, -0.5f, TexOp::Tex, 0, true)[0], 1.0f);
   /* a float depth texture does not clamp: -0.5 >= 0.0 fails */
   Tex f(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_Z32_FLOAT, 1, 1, 1, 1);
   f.set(0, 0, 0, 0, {0.0f, 0, 0, 0});
   f.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   f.samp.compare_func = VLG_COMPARE_FUNC_GEQUAL;
   EXPECT_EQ(f.sample(0.5f, 0.5f, 0, -0.5f, TexOp::Tex, 0, true)[0], 0.0f);
}

/* ----------------------------------------------------- TXF and TXQ -- */

TEST(TexFetch, InRangeAndOutOfRange)
{
   Tex t = mip8();
   t.set(0, 5, 6, 0, {42.0f, 0, 0, 1});
   t.set(1, 3, 2, 0, {43.0f, 0, 0, 1});
   auto txf = [&](int x, int y, int lod) {
      return as_float(t.raw(TexOp::Txf, {uint32_t(x), uint32_t(y), 0, uint32_t(lod)})[0]);
   };
   t.samp.border_color[0] = 5.0f; /* TXF never reads the border */
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   EXPECT_EQ(txf(5, 6, 0), 42.0f);
   EXPECT_EQ(txf(3, 2, 1), 43.0f);
   EXPECT_EQ(txf(0, 0, 3), 31.0f);
   /* out of range reads 0 (docs/isa.md TXF) */
   EXPECT_EQ(txf(-1, 0, 0), 0.0f);
   EXPECT_EQ(txf(8, 0, 0), 0.0f);
   EXPECT_EQ(txf(0, 8, 0), 0.0f);
   EXPECT_EQ(txf(4, 0, 1), 0.0f); /* level 1 is 4x4 */
   EXPECT_EQ(txf(0, 0, 4), 0.0f);
   EXPECT_EQ(txf(0, 0, -1), 0.0f);
   /* the zero texel is swizzled like any other: (0, 0, 0, 0) -> ONE stays 1 */
   t.tex.swizzle_a = VLG_SWIZZLE_ONE;
   EXPECT_EQ(as_float(t.raw(TexOp::Txf, {uint32_t(-1), 0, 0, 0})[3]), 1.0f);
   EXPECT_EQ(as_float(t.raw(TexOp::Txf, {uint32_t(-1), 0, 0, 0})[1]), 0.0f);
   /* TXF ignores the sampler, even an invalid one */
   t.samp.min_mip_filter = static_cast<vlg_mip_filter>(3);
   EXPECT_EQ(txf(5, 6, 0), 42.0f);
   /* arrays: the layer in z; first_level shifts the LOD */
   Tex a(VLG_TEXTURE_TARGET_2D_ARRAY, VLG_FORMAT_R32G32B32A32_UINT, 2, 2, 3, 2);
   a.set_int(1, 0, 0, 2, {7, 8, 9, 10});
   a.tex.first_level = 1;
   EXPECT_EQ(a.raw(TexOp::Txf, {0, 0, 2, 0}), (std::array<uint32_t, 4>{7, 8, 9, 10}));
   EXPECT_EQ(a.raw(TexOp::Txf, {0, 0, 3, 0}), (std::array<uint32_t, 4>{0, 0, 0, 0}));
   a.samp.border_color[0] = as_float(99);
   a.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   EXPECT_EQ(a.raw(TexOp::Txf, {0, 0, 0, 1}), (std::array<uint32_t, 4>{0, 0, 0, 0})); /* level 2 */
}

TEST(TexQuery, Sizes)
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8_UNORM, 8, 4, 1, 4);
   auto txq = [](Tex &x, int lod) { return x.raw(TexOp::Txq, {uint32_t(lod), 0, 0, 0}); };
   using A = std::array<uint32_t, 4>;
   EXPECT_EQ(txq(t, 0), (A{8, 4, 0, 4}));
   EXPECT_EQ(txq(t, 2), (A{2, 1, 0, 4}));
   EXPECT_EQ(txq(t, 3), (A{1, 1, 0, 4}));
   EXPECT_EQ(txq(t, 4), (A{0, 0, 0, 4}));
   EXPECT_EQ(txq(t, -1), (A{0, 0, 0, 4}));
   t.tex.first_level = 1;
   t.tex.last_level = 2;
   EXPECT_EQ(txq(t, 0), (A{4, 2, 0, 2}));
   Tex v(VLG_TEXTURE_TARGET_3D, VLG_FORMAT_R8_UNORM, 8, 8, 4, 2);
   EXPECT_EQ(txq(v, 1), (A{4, 4, 2, 2}));
   Tex a(VLG_TEXTURE_TARGET_2D_ARRAY, VLG_FORMAT_R8_UNORM, 8, 8, 5, 2);
   EXPECT_EQ(txq(a, 1), (A{4, 4, 5, 2}));
   Tex c(VLG_TEXTURE_TARGET_CUBE, VLG_FORMAT_R8_UNORM, 16, 16, 6, 1);
   EXPECT_EQ(txq(c, 0), (A{16, 16, 0, 1}));
   Tex l(VLG_TEXTURE_TARGET_1D_ARRAY, VLG_FORMAT_R8_UNORM, 16, 1, 3, 1);
   EXPECT_EQ(txq(l, 0), (A{16, 3, 0, 1}));
   Tex o(VLG_TEXTURE_TARGET_1D, VLG_FORMAT_R8_UNORM, 16, 1, 1, 1);
   EXPECT_EQ(txq(o, 0), (A{16, 0, 0, 1}));
}

/* A BUFFER texture (texel buffer, GL 3.1 ARB_texture_buffer_object) of
 * R16G16_UNORM: texel i at address + level[0].offset + 4 i; width | height
 * << 16 texels (docs/hw.md texture_target). */
TEST(TexBuffer, FetchQueryAndFaults)
{
   Vram vram(1 << 20);
   VLG_TEXTURE tex;
   VLG_SAMPLER samp;
   VLG_TEXTURE_init(&tex);
   VLG_SAMPLER_init(&samp);
   tex.target = VLG_TEXTURE_TARGET_BUFFER;
   tex.format = VLG_FORMAT_R16G16_UNORM;
   const uint32_t texels = 70000; /* above 65535: height holds the high bits */
   tex.width = texels & 0xffff;
   tex.height = texels >> 16;
   tex.address = 0x1000;
   tex.level[0].offset = 0x20;
   tex.level[0].row_pitch = texels * 4;
   /* texel i = (i mod 65536, 65535 - (i mod 65536)) as little-endian 16-bit words */
   for (uint32_t i = 0; i < texels; i++) {
      uint8_t *p = vram.data() + 0x1020 + 4 * i;
      const uint16_t r = uint16_t(i), g = uint16_t(65535 - uint16_t(i));
      std::memcpy(p, &r, 2);
      std::memcpy(p + 2, &g, 2);
   }
   auto run = [&](TexOp op, uint32_t x) {
      TexLaneIn in{};
      in.coord[0] = x;
      uint32_t out[1][4] = {};
      texture_sample(vram, tex, samp, {op, false}, false, 1, 1, &in, out, nullptr);
      return std::array<uint32_t, 4>{out[0][0], out[0][1], out[0][2], out[0][3]};
   };
   /* unorm16: v / 65535 (GL 3.2 core §2.1.6.1); missing blue reads 0, alpha 1 */
   auto t = run(TexOp::Txf, 0);
   EXPECT_EQ(as_float(t[0]), 0.0f);
   EXPECT_EQ(as_float(t[1]), 1.0f);
   EXPECT_EQ(as_float(t[2]), 0.0f);
   EXPECT_EQ(as_float(t[3]), 1.0f);
   t = run(TexOp::Txf, 69999); /* 69999 mod 65536 = 4463 */
   EXPECT_FLOAT_EQ(as_float(t[0]), 4463.0f / 65535.0f);
   EXPECT_FLOAT_EQ(as_float(t[1]), (65535.0f - 4463.0f) / 65535.0f);
   /* out of range: (0, 0, 0, 0) */
   EXPECT_EQ(run(TexOp::Txf, 70000), (std::array<uint32_t, 4>{0, 0, 0, 0}));
   EXPECT_EQ(run(TexOp::Txf, uint32_t(-1)), (std::array<uint32_t, 4>{0, 0, 0, 0}));
   /* TXQ: x = texels, one level */
   EXPECT_EQ(run(TexOp::Txq, 0), (std::array<uint32_t, 4>{70000, 0, 0, 1}));
   /* sampling ops fault */
   EXPECT_THROW(run(TexOp::Tex, 0), GpuFault);
   /* an empty buffer reads zeros, its size is 0 */
   tex.width = tex.height = 0;
   EXPECT_EQ(run(TexOp::Txf, 0), (std::array<uint32_t, 4>{0, 0, 0, 0}));
   EXPECT_EQ(run(TexOp::Txq, 0), (std::array<uint32_t, 4>{0, 0, 0, 1}));
   /* more than one level is a bad descriptor */
   tex.width = 4;
   tex.num_levels = 2;
   EXPECT_THROW(run(TexOp::Txf, 0), GpuFault);
}

/* ------------------------------------- swizzle, sRGB, integers, misc -- */

TEST(TexSwizzle, ComponentsZeroAndOne)
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8G8B8A8_UNORM, 1, 1, 1, 1);
   t.set_bytes(0, 0, 0, 0, {10, 20, 30, 40});
   t.tex.swizzle_r = VLG_SWIZZLE_W;
   t.tex.swizzle_g = VLG_SWIZZLE_ZERO;
   t.tex.swizzle_b = VLG_SWIZZLE_ONE;
   t.tex.swizzle_a = VLG_SWIZZLE_X;
   const Vec4 v = t.sample(0.5f, 0.5f);
   EXPECT_NEAR(v[0], 40 / 255.0, 1e-7);
   EXPECT_EQ(v[1], 0.0f);
   EXPECT_EQ(v[2], 1.0f);
   EXPECT_NEAR(v[3], 10 / 255.0, 1e-7);
   /* integer texture: ONE is integer 1 */
   Tex i(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8G8B8A8_UINT, 1, 1, 1, 1);
   i.set_bytes(0, 0, 0, 0, {10, 20, 30, 40});
   i.tex.swizzle_r = VLG_SWIZZLE_Z;
   i.tex.swizzle_g = VLG_SWIZZLE_ONE;
   i.tex.swizzle_b = VLG_SWIZZLE_ZERO;
   EXPECT_EQ(i.raw(TexOp::Tex, {as_uint(0.5f), as_uint(0.5f), 0, 0}),
             (std::array<uint32_t, 4>{30, 1, 0, 40}));
}

TEST(TexSrgb, DecodedBeforeFiltering)
{
   /* texels 0 and 255 (sRGB): decoded to 0.0 and 1.0, then filtered -> 0.5.
    * Filtering the encoded values first would give decode(127.5) ~ 0.21. */
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8G8B8A8_SRGB, 2, 1, 1, 1);
   t.tex.srgb = true;
   t.set_bytes(0, 0, 0, 0, {0, 0, 0, 255});
   t.set_bytes(0, 1, 0, 0, {255, 255, 255, 255});
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   EXPECT_NEAR(t.sample(0.5f, 0.5f)[0], 0.5, 1e-6);
   /* nearest: the decoded value of 188 is ~0.5029 (the sRGB decode curve) */
   t.set_bytes(0, 0, 0, 0, {188, 0, 0, 128});
   t.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   const double cs = 188 / 255.0, lin = std::pow((cs + 0.055) / 1.055, 2.4);
   EXPECT_NEAR(t.sample(0.25f, 0.5f)[0], lin, 1e-6);
   EXPECT_NEAR(t.sample(0.25f, 0.5f)[3], 128 / 255.0, 1e-7); /* alpha is linear */
   /* srgb off on an sRGB format: the stored values (skip decode) */
   t.tex.srgb = false;
   EXPECT_NEAR(t.sample(0.25f, 0.5f)[0], 188 / 255.0, 1e-7);
}

TEST(TexSrgb, RedAndRedGreenFormatsDecodeTheirChannelsOnly)
{
   /* GL_SRG8_EXT: texels (0, 255) and (255, 0) decode to (0, 1) and (1, 0),
    * the linear filter between them gives (0.5, 0.5), B = 0, A = 1 */
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8G8_SRGB, 2, 1, 1, 1);
   t.tex.srgb = true;
   t.set_bytes(0, 0, 0, 0, {0, 255});
   t.set_bytes(0, 1, 0, 0, {255, 0});
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   const auto v = t.sample(0.5f, 0.5f);
   EXPECT_NEAR(v[0], 0.5, 1e-6);
   EXPECT_NEAR(v[1], 0.5, 1e-6);
   EXPECT_EQ(v[2], 0.0f);
   EXPECT_EQ(v[3], 1.0f);
   /* GL_SR8_EXT, nearest: decode(64) by the GL ES 3.0 curve */
   Tex r(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R8_SRGB, 1, 1, 1, 1);
   r.tex.srgb = true;
   r.set_bytes(0, 0, 0, 0, {64});
   r.filter(VLG_TEX_FILTER_NEAREST, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
   const double cs = 64 / 255.0, lin = std::pow((cs + 0.055) / 1.055, 2.4);
   const auto w = r.sample(0.5f, 0.5f);
   EXPECT_NEAR(w[0], lin, 1e-6);
   EXPECT_EQ(w[1], 0.0f);
   EXPECT_EQ(w[2], 0.0f);
   EXPECT_EQ(w[3], 1.0f);
   /* EXT_texture_sRGB_decode SKIP_DECODE: the stored value */
   r.tex.srgb = false;
   EXPECT_NEAR(r.sample(0.5f, 0.5f)[0], 64 / 255.0, 1e-7);
}

TEST(TexInteger, NeverFiltered)
{
   Tex t(VLG_TEXTURE_TARGET_2D, VLG_FORMAT_R16_SINT, 2, 1, 1, 1);
   t.set_int(0, 0, 0, 0, {static_cast<uint32_t>(-100), 0, 0, 0});
   t.set_int(0, 1, 0, 0, {300, 0, 0, 0});
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_LINEAR);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   const auto a = t.raw(TexOp::Tex, {as_uint(0.2f), as_uint(0.5f), 0, 0});
   EXPECT_EQ(static_cast<int32_t>(a[0]), -100);
   EXPECT_EQ(a[3], 1u);
   EXPECT_EQ(static_cast<int32_t>(t.raw(TexOp::Tex, {as_uint(0.6f), as_uint(0.5f), 0, 0})[0]), 300);
   /* minification (LOD 1) is not filtered either: s = 0.4 would blend
    * texels 0 and 1 with weight 0.3 if it were */
   t.set_int(0, 0, 0, 0, {100, 0, 0, 0});
   EXPECT_EQ(static_cast<int32_t>(t.raw(TexOp::Txl, {as_uint(0.4f), as_uint(0.5f), 0, 0}, {as_uint(1.0f)})[0]),
             100);
   EXPECT_EQ(static_cast<int32_t>(t.raw(TexOp::Txl, {as_uint(0.4f), as_uint(0.5f), 0, 0}, {as_uint(-1.0f)})[0]),
             100);
}

TEST(TexLanes, MaskQuadsAndTrace)
{
   Tex t = grid4();
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_EDGE);
   TexLaneIn in[8] = {};
   for (unsigned i = 0; i < 8; i++) {
      in[i].coord[0] = as_uint((i % 4 + 0.5f) / 4);
      in[i].coord[1] = as_uint((i / 4 + 0.5f) / 4);
   }
   uint32_t out[8][4];
   for (auto &o : out)
      for (auto &w : o)
         w = 0xdeadbeefu;
   std::vector<uint64_t> trace;
   texture_sample(t.vram, t.tex, t.samp, {TexOp::Tex, false}, true, 8, 0x24, in, out, &trace);
   for (unsigned i = 0; i < 8; i++) {
      if (i == 2 || i == 5)
         EXPECT_EQ(as_float(out[i][0]), grid(i % 4, i / 4)) << i;
      else
         EXPECT_EQ(out[i][0], 0xdeadbeefu) << "lane " << i << " is not in the mask";
   }
   /* nearest: one texel read per active lane, at address + offset + y*pitch + x*4 */
   ASSERT_EQ(trace.size(), 2u);
   EXPECT_EQ(trace[0], t.addr(0, 2, 0, 0));
   EXPECT_EQ(trace[1], t.addr(0, 1, 1, 0));
   /* linear: four reads; border texels are no reads */
   t.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   t.trace.clear();
   t.sample(0.5f, 0.5f);
   EXPECT_EQ(t.trace.size(), 4u);
   t.wrap(VLG_TEX_WRAP_CLAMP_TO_BORDER);
   t.trace.clear();
   t.sample(-2.0f, -2.0f);
   EXPECT_EQ(t.trace.size(), 0u);
   /* host misuse */
   EXPECT_THROW(
      texture_sample(t.vram, t.tex, t.samp, {TexOp::Tex, false}, true, 6, 1, in, out, nullptr),
      std::invalid_argument);
   EXPECT_THROW(
      texture_sample(t.vram, t.tex, t.samp, {TexOp::Tex, false}, false, 65, 1, in, out, nullptr),
      std::invalid_argument);
}

/* ---------------------------------------------------------- faults -- */

namespace {

std::string
fault_of(Tex &t, TexOp op = TexOp::Tex)
{
   TexLaneIn in{};
   uint32_t out[1][4] = {{1, 2, 3, 4}};
   try {
      texture_sample(t.vram, t.tex, t.samp, {op, false}, false, 1, 1, &in, out, nullptr);
   } catch (const GpuFault &e) {
      EXPECT_EQ(e.module(), "TEX");
      EXPECT_EQ(out[0][0], 1u) << "a faulting instruction wrote its result";
      return e.what();
   }
   return "";
}

} // namespace

TEST(TexFault, BadDescriptors)
{
   auto expect_fault = [](const char *what, auto mutate, const char *needle) {
      Tex t = grid4();
      mutate(t);
      const std::string f = fault_of(t);
      EXPECT_NE(f.find(needle), std::string::npos) << what << ": '" << f << "'";
   };
   expect_fault(
      "width 0", [](Tex &t) { t.tex.width = 0; }, "zero size");
   expect_fault(
      "16 levels", [](Tex &t) { t.tex.num_levels = 16; }, "num_levels 16");
   expect_fault(
      "no levels", [](Tex &t) { t.tex.num_levels = 0; }, "num_levels 0");
   expect_fault(
      "first > last", [](Tex &t) { t.tex.first_level = 1; }, "first 1 .. last 0");
   expect_fault(
      "last >= num", [](Tex &t) { t.tex.last_level = 2; }, "last 2");
   expect_fault(
      "vertex-only format", [](Tex &t) { t.tex.format = VLG_FORMAT_R8G8B8_UNORM; }, "R8G8B8_UNORM");
   expect_fault(
      "format NONE", [](Tex &t) { t.tex.format = VLG_FORMAT_NONE; }, "cannot be sampled");
   expect_fault(
      "srgb on UNORM", [](Tex &t) { t.tex.srgb = true; }, "not an sRGB format");
   expect_fault(
      "target 5", [](Tex &t) { t.tex.target = static_cast<vlg_texture_target>(5); }, "target 5");
   expect_fault(
      "swizzle 6", [](Tex &t) { t.tex.swizzle_g = static_cast<vlg_swizzle>(6); }, "swizzle_g");
   expect_fault(
      "2D depth", [](Tex &t) { t.tex.depth = 2; }, "depth 2");
   expect_fault(
      "1D height", [](Tex &t) { t.tex.target = VLG_TEXTURE_TARGET_1D; }, "height 4");
   expect_fault(
      "cube not square",
      [](Tex &t) {
         t.tex.target = VLG_TEXTURE_TARGET_CUBE;
         t.tex.array_size = 6;
         t.tex.height = 2;
      },
      "must be square");
   expect_fault(
      "mip filter 3", [](Tex &t) { t.samp.min_mip_filter = static_cast<vlg_mip_filter>(3); },
      "min_mip_filter 3");
   expect_fault(
      "level beyond VRAM", [](Tex &t) { t.tex.address = (1 << 20) - 64; }, "outside VRAM");
   expect_fault(
      "address overflow", [](Tex &t) { t.tex.address = UINT64_MAX - 16; }, "outside VRAM");
   expect_fault(
      "huge layer stride",
      [](Tex &t) {
         t.tex.target = VLG_TEXTURE_TARGET_2D_ARRAY;
         t.tex.array_size = 2;
         t.tex.level[0].layer_stride = 0xfffffff0u;
      },
      "outside VRAM");
   /* TXQ needs no memory: a texture outside VRAM can still be queried */
   Tex q = grid4();
   q.tex.address = UINT64_MAX - 16;
   EXPECT_EQ(fault_of(q, TexOp::Txq), "");
   /* texture_validate reports the same */
   Tex v = grid4();
   EXPECT_NO_THROW(texture_validate(v.vram, v.tex, v.samp, true));
   v.tex.address = (1 << 20) - 64;
   EXPECT_NO_THROW(texture_validate(v.vram, v.tex, v.samp, false));
   EXPECT_THROW(texture_validate(v.vram, v.tex, v.samp, true), GpuFault);
}

TEST(TexFault, GarbageCoordinatesNeverEscapeTheTexture)
{
   /* NaN, infinities and huge values with every wrap mode and filter: the
    * results may be anything, but every texel read is inside the level. */
   const float bad[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 3e9f, -7e6f, 0.5f};
   for (unsigned mode = 0; mode < 8; mode++) {
      for (int linear = 0; linear < 2; linear++) {
         Tex t = grid4();
         t.wrap(static_cast<vlg_tex_wrap>(mode));
         const vlg_tex_filter f = linear ? VLG_TEX_FILTER_LINEAR : VLG_TEX_FILTER_NEAREST;
         t.filter(f, f, VLG_MIP_FILTER_LINEAR);
         for (float s : bad)
            for (float tt : bad) {
               t.sample(s, tt);
               t.sample(s, tt, 0, 0, TexOp::Txl, s);
            }
         for (uint64_t a : t.trace) {
            EXPECT_GE(a, t.addr(0, 0, 0, 0));
            EXPECT_LE(a, t.addr(0, 3, 3, 0));
         }
      }
   }
   Tex c = cube2();
   c.filter(VLG_TEX_FILTER_LINEAR, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
   c.samp.seamless_cube_map = true;
   for (float s : bad)
      for (float tt : bad)
         c.sample(s, tt, 1.0f);
   for (uint64_t a : c.trace) {
      EXPECT_GE(a, c.addr(0, 0, 0, 0));
      EXPECT_LE(a, c.addr(0, 1, 1, 5));
   }
}
