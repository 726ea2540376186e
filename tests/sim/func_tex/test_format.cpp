/*
 * Tests of src/vlgpu/sim/func/tex/format.*: every usable vlg_format
 * converts, on values worked out by hand (in the comments) from the GL ES
 * 3.0 formulas, plus the bit-exact Mesa 22.3.6 behaviours softpipe relies on
 * (expected values for those are Mesa's own formulas or constants copied
 * from Mesa, never the code under test).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sim/core/gpu_fault.h"
#include "sim/func/tex/format.h"
#include "common/bits.h"

using namespace vlgpu::sim;

using vlgpu::as_float;
using vlgpu::as_uint;

namespace {

struct Rgba {
   uint32_t w[4];
   float f(unsigned i) const { return as_float(w[i]); }
};

Rgba
unpack(vlg_format f, std::vector<uint8_t> bytes)
{
   Rgba r;
   format_unpack_rgba(f, bytes.data(), r.w);
   return r;
}

Rgba
unpack32(vlg_format f, uint32_t word)
{
   uint8_t b[16] = {};
   std::memcpy(b, &word, 4);
   Rgba r;
   format_unpack_rgba(f, b, r.w);
   return r;
}

Rgba
unpack16(vlg_format f, uint16_t word)
{
   uint8_t b[16] = {};
   std::memcpy(b, &word, 2);
   Rgba r;
   format_unpack_rgba(f, b, r.w);
   return r;
}

std::vector<uint8_t>
pack(vlg_format f, float r, float g, float b, float a)
{
   const uint32_t in[4] = {as_uint(r), as_uint(g), as_uint(b), as_uint(a)};
   std::vector<uint8_t> out(format_info(f).bytes + 4, 0xcd);
   format_pack_rgba(f, in, out.data());
   out.resize(format_info(f).bytes);
   return out;
}

std::vector<uint8_t>
pack_int(vlg_format f, uint32_t r, uint32_t g, uint32_t b, uint32_t a)
{
   const uint32_t in[4] = {r, g, b, a};
   std::vector<uint8_t> out(format_info(f).bytes, 0xcd);
   format_pack_rgba(f, in, out.data());
   return out;
}

uint32_t
word_of(const std::vector<uint8_t> &b)
{
   uint32_t w = 0;
   std::memcpy(&w, b.data(), b.size() < 4 ? b.size() : 4);
   return w;
}

/* Distance in units in the last place between two finite floats. */
int64_t
ulps(float a, float b)
{
   auto key = [](float f) {
      const int32_t i = static_cast<int32_t>(as_uint(f));
      return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
   };
   const int64_t d = key(a) - key(b);
   return d < 0 ? -d : d;
}

} // namespace

/* ------------------------------------------------------- coverage -- */

/* every value of enum vlg_format, from the generated X-macro */
#define FORMAT_ENTRY(NAME_, VALUE_) {#NAME_, VALUE_},
const struct {
   const char *name;
   uint32_t value;
} kFormats[] = {VLG_FORMAT_LIST(FORMAT_ENTRY)};
#undef FORMAT_ENTRY

TEST(FormatTable, EveryUsableFormatIsDescribedWithTheXmlSize)
{
   unsigned usable = 0;
   for (const auto &fmt : kFormats) {
      const FormatInfo &i = format_info(fmt.value);
      if (vlg_format_usage(fmt.value) == 0) {
         EXPECT_FALSE(i.supported) << fmt.name;
         continue;
      }
      EXPECT_TRUE(i.supported) << fmt.name;
      EXPECT_STREQ(i.name, fmt.name);
      EXPECT_EQ(i.bytes, vlg_format_bytes(fmt.value)) << fmt.name;
      EXPECT_EQ(i.usage, vlg_format_usage(fmt.value)) << fmt.name;
      usable++;
   }
   EXPECT_EQ(usable, 129u); /* every value but NONE has a usage in vlgpu_hw.xml */
   EXPECT_FALSE(format_info(VLG_FORMAT_NONE).supported);
   EXPECT_FALSE(format_info(130).supported);
   EXPECT_FALSE(format_info(0x12345678).supported);
   EXPECT_STREQ(format_info(0x12345678).name, "?");
}

TEST(FormatTable, EveryUsableFormatUnpacksPacksAndFetches)
{
   unsigned checked = 0;
   for (const auto &fmt : kFormats) {
      const vlg_format f = static_cast<vlg_format>(fmt.value);
      const FormatInfo &i = format_info(f);
      if (!i.supported)
         continue;
      uint8_t px[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
      uint32_t w[4];
      EXPECT_NO_THROW(format_unpack_rgba(f, px, w)) << fmt.name;
      if (i.usage & VLG_FORMAT_USAGE_VERTEX)
         EXPECT_NO_THROW(format_fetch_vertex(f, px, w)) << fmt.name;
      else
         EXPECT_THROW(format_fetch_vertex(f, px, w), GpuFault) << fmt.name;
      uint8_t outb[17];
      std::memset(outb, 0xee, sizeof(outb));
      const uint32_t in[4] = {0x3f000000u, 0x3e800000u, 0u, 0x3f800000u};
      EXPECT_NO_THROW(format_pack_rgba(f, in, outb)) << fmt.name;
      EXPECT_EQ(outb[i.bytes], 0xee) << fmt.name << ": pack wrote past the pixel";
      checked++;
   }
   EXPECT_EQ(checked, 129u);
}

TEST(FormatTable, Queries)
{
   EXPECT_TRUE(format_info(VLG_FORMAT_R8G8B8A8_UINT).is_integer);
   EXPECT_TRUE(format_info(VLG_FORMAT_S8_UINT).is_integer);
   EXPECT_FALSE(format_info(VLG_FORMAT_R8G8B8A8_USCALED).is_integer);
   EXPECT_TRUE(format_info(VLG_FORMAT_R16_SINT).is_signed);
   EXPECT_FALSE(format_info(VLG_FORMAT_R16_UINT).is_signed);
   EXPECT_TRUE(format_info(VLG_FORMAT_R8_SNORM).is_signed);
   EXPECT_TRUE(format_info(VLG_FORMAT_Z24_UNORM_S8_UINT).is_depth);
   EXPECT_FALSE(format_info(VLG_FORMAT_S8_UINT).is_depth);
   EXPECT_TRUE(format_info(VLG_FORMAT_S8_UINT_Z24_UNORM).has_stencil);
   EXPECT_FALSE(format_info(VLG_FORMAT_Z24X8_UNORM).has_stencil);
   EXPECT_TRUE(format_info(VLG_FORMAT_B8G8R8A8_SRGB).is_srgb);
   EXPECT_FALSE(format_info(VLG_FORMAT_B8G8R8A8_UNORM).is_srgb);
   EXPECT_EQ(format_info(VLG_FORMAT_L8A8_UNORM).channels, 2u);
   EXPECT_EQ(format_info(VLG_FORMAT_B8G8R8X8_UNORM).channels, 3u);
   EXPECT_EQ(format_info(VLG_FORMAT_R32G32B32A32_FLOAT).channels, 4u);
   EXPECT_EQ(format_info(VLG_FORMAT_R8G8B8A8_SRGB).linear, VLG_FORMAT_R8G8B8A8_UNORM);
   EXPECT_EQ(format_info(VLG_FORMAT_R8G8_UNORM).linear, VLG_FORMAT_R8G8_UNORM);
   EXPECT_EQ(format_info(VLG_FORMAT_R8G8B8A8_UNORM).border_clamp, BorderClamp::Unorm);
   EXPECT_EQ(format_info(VLG_FORMAT_R8G8B8A8_SNORM).border_clamp, BorderClamp::Snorm);
   EXPECT_EQ(format_info(VLG_FORMAT_R16G16_FLOAT).border_clamp, BorderClamp::None);
}

TEST(FormatTable, UnsupportedConversionsAreGpuFaults)
{
   uint8_t px[16] = {};
   uint32_t w[4] = {};
   try {
      format_unpack_rgba(VLG_FORMAT_NONE, px, w);
      FAIL() << "no fault";
   } catch (const GpuFault &e) {
      EXPECT_EQ(e.module(), "FMT");
      EXPECT_NE(std::string(e.what()).find("NONE"), std::string::npos) << e.what();
   }
   EXPECT_THROW(format_unpack_rgba(static_cast<vlg_format>(200), px, w), GpuFault);
   EXPECT_THROW(format_pack_rgba(static_cast<vlg_format>(200), w, px), GpuFault);
   EXPECT_THROW(format_fetch_vertex(VLG_FORMAT_B8G8R8X8_UNORM, px, w), GpuFault);
   /* B8G8R8A8_UNORM is a vertex format (GL 3.2 EXT_vertex_array_bgra): memory
    * B, G, R, A = 0, 51, 102, 255 fetches R, G, B, A = 0.4, 0.2, 0, 1 */
   const uint8_t bgra[4] = {0, 51, 102, 255};
   format_fetch_vertex(VLG_FORMAT_B8G8R8A8_UNORM, bgra, w);
   float f[4];
   std::memcpy(f, w, sizeof(f));
   EXPECT_FLOAT_EQ(f[0], 0.4f);
   EXPECT_FLOAT_EQ(f[1], 0.2f);
   EXPECT_EQ(f[2], 0.0f);
   EXPECT_EQ(f[3], 1.0f);
   EXPECT_THROW(format_unpack_depth(VLG_FORMAT_R8G8B8A8_UNORM, px), GpuFault);
   EXPECT_THROW(format_unpack_depth(VLG_FORMAT_S8_UINT, px), GpuFault);
   EXPECT_THROW(format_unpack_stencil(VLG_FORMAT_R32_FLOAT, px), GpuFault);
   EXPECT_THROW(format_pack_stencil(VLG_FORMAT_R32_FLOAT, 1, px), GpuFault);
}

/* -------------------------------------------------------- unpack -- */

TEST(FormatUnpack, B5G6R5)
{
   /* 0xF800: R = 31 -> 1; G = B = 0 -> 0; no alpha -> 1 */
   Rgba r = unpack16(VLG_FORMAT_B5G6R5_UNORM, 0xF800);
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(1), 0.0f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   r = unpack16(VLG_FORMAT_B5G6R5_UNORM, 0x07E0); /* G = 63 */
   EXPECT_EQ(r.f(0), 0.0f);
   EXPECT_EQ(r.f(1), 1.0f);
   r = unpack16(VLG_FORMAT_B5G6R5_UNORM, 0x0010); /* B = 16 -> 16/31 */
   EXPECT_NEAR(r.f(2), 16.0 / 31.0, 1e-7);
}

TEST(FormatUnpack, Unorm8IsCOver255)
{
   for (unsigned c = 0; c < 256; c++) {
      const Rgba r = unpack(VLG_FORMAT_R8_UNORM, {static_cast<uint8_t>(c)});
      /* GL ES 3.0 section 2.1.6: c / (2^8 - 1), within one ulp ... */
      EXPECT_LE(ulps(r.f(0), static_cast<float>(c / 255.0)), 1) << c;
      /* ... and bit-exactly Mesa's ubyte_to_float: c * (1.0f / 255.0f) */
      EXPECT_EQ(r.w[0], as_uint(static_cast<float>(c) * (1.0f / 255.0f))) << c;
      EXPECT_EQ(r.f(1), 0.0f);
      EXPECT_EQ(r.f(2), 0.0f);
      EXPECT_EQ(r.f(3), 1.0f);
   }
   EXPECT_EQ(unpack(VLG_FORMAT_R8_UNORM, {128}).w[0], as_uint(128.0f * (1.0f / 255.0f)));
}

TEST(FormatUnpack, ComponentOrderAndMissingComponents)
{
   /* memory B=0x10 G=0x20 R=0x30 A=0x40 */
   Rgba r = unpack(VLG_FORMAT_B8G8R8A8_UNORM, {0x10, 0x20, 0x30, 0x40});
   EXPECT_EQ(r.w[0], as_uint(0x30 * (1.0f / 255.0f)));
   EXPECT_EQ(r.w[1], as_uint(0x20 * (1.0f / 255.0f)));
   EXPECT_EQ(r.w[2], as_uint(0x10 * (1.0f / 255.0f)));
   EXPECT_EQ(r.w[3], as_uint(0x40 * (1.0f / 255.0f)));
   r = unpack(VLG_FORMAT_B8G8R8X8_UNORM, {0x10, 0x20, 0x30, 0x40});
   EXPECT_EQ(r.f(3), 1.0f); /* X reads as 1 */
   r = unpack(VLG_FORMAT_R8G8_UNORM, {255, 0});
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   /* L -> (L, L, L, 1), A -> (0, 0, 0, A), LA -> (L, L, L, A) (luminance/alpha texels) */
   r = unpack(VLG_FORMAT_L8_UNORM, {255});
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(1), 1.0f);
   EXPECT_EQ(r.f(2), 1.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   r = unpack(VLG_FORMAT_A8_UNORM, {255});
   EXPECT_EQ(r.f(0), 0.0f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   r = unpack(VLG_FORMAT_L8A8_UNORM, {255, 0});
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(2), 1.0f);
   EXPECT_EQ(r.f(3), 0.0f);
   /* integer formats: missing alpha is integer 1 */
   r = unpack(VLG_FORMAT_R8G8_UINT, {200, 7});
   EXPECT_EQ(r.w[0], 200u);
   EXPECT_EQ(r.w[1], 7u);
   EXPECT_EQ(r.w[2], 0u);
   EXPECT_EQ(r.w[3], 1u);
   r = unpack(VLG_FORMAT_R16G16B16X16_SINT, {0xff, 0xff, 0x00, 0x80, 5, 0, 0x33, 0x33});
   EXPECT_EQ(static_cast<int32_t>(r.w[0]), -1);
   EXPECT_EQ(static_cast<int32_t>(r.w[1]), -32768);
   EXPECT_EQ(r.w[2], 5u);
   EXPECT_EQ(r.w[3], 1u);
}

TEST(FormatUnpack, SnormClampsToMinusOne)
{
   /* GL ES 3.0 section 2.1.6: max(c / 127, -1): -128 and -127 both give -1 */
   EXPECT_EQ(unpack(VLG_FORMAT_R8_SNORM, {0x80}).f(0), -1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R8_SNORM, {0x81}).f(0), -1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R8_SNORM, {0x7f}).f(0), 1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R8_SNORM, {0}).f(0), 0.0f);
   EXPECT_NEAR(unpack(VLG_FORMAT_R8_SNORM, {64}).f(0), 64.0 / 127.0, 1e-7);
   EXPECT_EQ(unpack(VLG_FORMAT_R16_SNORM, {0x00, 0x80}).f(0), -1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R16_SNORM, {0xff, 0x7f}).f(0), 1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R32_SNORM, {0, 0, 0, 0x80}).f(0), -1.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R32_SNORM, {0xff, 0xff, 0xff, 0x7f}).f(0), 1.0f);
}

TEST(FormatUnpack, HalfFloat)
{
   /* sign 1 bit, exponent 5 bits (bias 15), mantissa 10 bits */
   EXPECT_EQ(half_to_float(0x3C00), 1.0f);                    /* e = 15, m = 0 */
   EXPECT_EQ(half_to_float(0xC000), -2.0f);                   /* sign, e = 16 */
   EXPECT_EQ(half_to_float(0x3555), 0x555 / 1024.0f * 0.25f); /* e = 13: (1 + 341/1024) / 4 */
   EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);                /* largest finite */
   EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));   /* smallest denormal */
   EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));
   EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14)); /* smallest normal */
   EXPECT_EQ(as_uint(half_to_float(0x8000)), 0x80000000u);       /* -0 */
   EXPECT_TRUE(std::isinf(half_to_float(0x7C00)) && half_to_float(0x7C00) > 0);
   EXPECT_TRUE(std::isinf(half_to_float(0xFC00)) && half_to_float(0xFC00) < 0);
   EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
   EXPECT_TRUE(std::isnan(half_to_float(0x7C01)));
   const Rgba r = unpack(VLG_FORMAT_R16G16_FLOAT, {0x00, 0x3C, 0x00, 0xC0});
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(1), -2.0f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
}

TEST(FormatUnpack, Rgb9e5)
{
   /* E = 16, R = 256, G = 128, B = 0: scale 2^(16 - 15 - 9) = 2^-8, so
    * (256/256, 128/256, 0) = (1, 0.5, 0) (GL ES 3.0 RGB9E5 decode). Word:
    * 16 << 27 | 0 << 18 | 128 << 9 | 256 = 0x80010100. */
   Rgba r = unpack32(VLG_FORMAT_R9G9B9E5_FLOAT, 0x80010100u);
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(1), 0.5f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   /* E = 31 (max), B = 511: 511 * 2^(31-24) = 65408 */
   r = unpack32(VLG_FORMAT_R9G9B9E5_FLOAT, (31u << 27) | (511u << 18));
   EXPECT_EQ(r.f(2), 65408.0f);
   /* E = 0, R = 1: 2^-24 */
   r = unpack32(VLG_FORMAT_R9G9B9E5_FLOAT, 1u);
   EXPECT_EQ(r.f(0), std::ldexp(1.0f, -24));
}

TEST(FormatUnpack, R11G11B10Float)
{
   /* uf11: 5-bit exponent (bias 15), 6-bit mantissa; uf10: 5 + 5.
    * R = 0x3C0 (e 15, m 0) = 1.0; G = 0x400 (e 16) = 2.0;
    * B = 0x1C0 (e 14, m 0) = 0.5:  0x3C0 | 0x400 << 11 | 0x1C0 << 22 = 0x702003C0 */
   Rgba r = unpack32(VLG_FORMAT_R11G11B10_FLOAT, 0x702003C0u);
   EXPECT_EQ(r.f(0), 1.0f);
   EXPECT_EQ(r.f(1), 2.0f);
   EXPECT_EQ(r.f(2), 0.5f);
   EXPECT_EQ(r.f(3), 1.0f);
   /* R = 0x3C1: 1 + 1/64; B = 0x1E1: e 15, m 1: 1 + 1/32; G = e 0, m 1: 2^-14 / 64 */
   r = unpack32(VLG_FORMAT_R11G11B10_FLOAT, 0x3C1u | (1u << 11) | (0x1E1u << 22));
   EXPECT_EQ(r.f(0), 1.0f + 1.0f / 64);
   EXPECT_EQ(r.f(1), std::ldexp(1.0f, -20));
   EXPECT_EQ(r.f(2), 1.0f + 1.0f / 32);
   /* e 31, m 0: +inf */
   r = unpack32(VLG_FORMAT_R11G11B10_FLOAT, 0x7C0u);
   EXPECT_TRUE(std::isinf(r.f(0)));
}

TEST(FormatUnpack, SrgbDecodeIsMesasTable)
{
   /* Entries of Mesa 22.3.6's generated util_format_srgb_8unorm_to_linear_float_table */
   const struct {
      uint8_t c;
      float v;
   } mesa[] = {{0, 0.0000000e+00f},   {1, 3.0352698e-04f},   {10, 3.0352698e-03f},
               {11, 3.3465358e-03f},  {64, 5.1269458e-02f},  {128, 2.1586050e-01f},
               {188, 5.0288646e-01f}, {254, 9.9110210e-01f}, {255, 1.0000000e+00f}};
   for (const auto &m : mesa)
      EXPECT_EQ(srgb8_to_linear(m.c), m.v) << unsigned(m.c);
   for (unsigned c = 0; c < 256; c++) {
      /* the GL ES 3.0 sRGB decode curve */
      const double cs = c / 255.0;
      const double l = cs <= 0.04045 ? cs / 12.92 : std::pow((cs + 0.055) / 1.055, 2.4);
      EXPECT_NEAR(srgb8_to_linear(static_cast<uint8_t>(c)), l, 1e-7) << c;
   }
   /* R, G, B decoded, A linear */
   const Rgba r = unpack(VLG_FORMAT_R8G8B8A8_SRGB, {188, 128, 1, 128});
   EXPECT_EQ(r.f(0), 5.0288646e-01f);
   EXPECT_EQ(r.f(1), 2.1586050e-01f);
   EXPECT_EQ(r.f(2), 3.0352698e-04f);
   EXPECT_EQ(r.w[3], as_uint(128 * (1.0f / 255.0f)));
   const Rgba b = unpack(VLG_FORMAT_B8G8R8A8_SRGB, {1, 128, 188, 255});
   EXPECT_EQ(b.f(0), 5.0288646e-01f);
   EXPECT_EQ(b.f(2), 3.0352698e-04f);
   EXPECT_EQ(b.f(3), 1.0f);
}

TEST(FormatUnpack, SrgbRedAndRedGreen)
{
   /* GL_SR8_EXT, GL_SRG8_EXT (EXT_texture_sRGB_R8/_RG8): the stored channels
    * through the sRGB decode (the table entries of SrgbDecodeIsMesasTable),
    * the missing ones 0, alpha 1 */
   const Rgba r = unpack(VLG_FORMAT_R8_SRGB, {188});
   EXPECT_EQ(r.f(0), 5.0288646e-01f);
   EXPECT_EQ(r.f(1), 0.0f);
   EXPECT_EQ(r.f(2), 0.0f);
   EXPECT_EQ(r.f(3), 1.0f);
   const Rgba rg = unpack(VLG_FORMAT_R8G8_SRGB, {1, 128});
   EXPECT_EQ(rg.f(0), 3.0352698e-04f);
   EXPECT_EQ(rg.f(1), 2.1586050e-01f);
   EXPECT_EQ(rg.f(2), 0.0f);
   EXPECT_EQ(rg.f(3), 1.0f);
   EXPECT_EQ(format_info(VLG_FORMAT_R8_SRGB).linear, VLG_FORMAT_R8_UNORM);
   EXPECT_EQ(format_info(VLG_FORMAT_R8G8_SRGB).linear, VLG_FORMAT_R8G8_UNORM);
   EXPECT_TRUE(format_info(VLG_FORMAT_R8G8_SRGB).is_srgb);
   /* every code decodes to the GL ES 3.0 curve (§3.8.16) in each channel */
   for (unsigned c = 0; c < 256; c++) {
      const double cs = c / 255.0;
      const double l = cs <= 0.04045 ? cs / 12.92 : std::pow((cs + 0.055) / 1.055, 2.4);
      const Rgba v = unpack(VLG_FORMAT_R8G8_SRGB, {uint8_t(c), uint8_t(255 - c)});
      EXPECT_NEAR(v.f(0), l, 1e-7) << c;
      EXPECT_EQ(v.f(1), srgb8_to_linear(uint8_t(255 - c))) << c;
   }
}

TEST(FormatUnpack, ScaledAndFixed)
{
   EXPECT_EQ(unpack(VLG_FORMAT_R8_USCALED, {200}).f(0), 200.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R8_SSCALED, {0x80}).f(0), -128.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R16_SSCALED, {0x18, 0xfc}).f(0), -1000.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R32_USCALED, {0xff, 0xff, 0xff, 0xff}).f(0), 4294967296.0f);
   EXPECT_EQ(unpack(VLG_FORMAT_R32_SSCALED, {0x00, 0x00, 0x00, 0x80}).f(0), -2147483648.0f);
   /* GL_FIXED 16.16 (section 2.9): 0x00018000 = 1.5, 0xFFFF0000 = -1, 0xFFFFC000 = -0.25 */
   const Rgba r = unpack(VLG_FORMAT_R32G32B32_FIXED,
                         {0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0xc0, 0xff, 0xff});
   EXPECT_EQ(r.f(0), 1.5f);
   EXPECT_EQ(r.f(1), -1.0f);
   EXPECT_EQ(r.f(2), -0.25f);
   EXPECT_EQ(r.f(3), 1.0f);
}

TEST(FormatUnpack, DepthStencilAsColour)
{
   /* depth formats read (d, d, d, d), S8 (s, s, s, s) (softpipe's u_tile) */
   Rgba r = unpack32(VLG_FORMAT_Z24_UNORM_S8_UINT, 0xAB000000u | 0xffffffu);
   for (unsigned i = 0; i < 4; i++)
      EXPECT_EQ(r.f(i), 1.0f);
   r = unpack(VLG_FORMAT_S8_UINT, {77});
   for (unsigned i = 0; i < 4; i++)
      EXPECT_EQ(r.w[i], 77u);
   r = unpack16(VLG_FORMAT_Z16_UNORM, 0);
   EXPECT_EQ(r.f(0), 0.0f);
   EXPECT_EQ(r.f(3), 0.0f);
}

/* ---------------------------------------------------------- pack -- */

TEST(FormatPack, Unorm8RoundingAndClamping)
{
   for (unsigned c = 0; c < 256; c++)
      EXPECT_EQ(pack(VLG_FORMAT_R8_UNORM, c / 255.0f, 0, 0, 0)[0], c) << c;
   EXPECT_EQ(pack(VLG_FORMAT_R8_UNORM, 0.5f, 0, 0, 0)[0], 128); /* 127.5 -> nearest even */
   EXPECT_EQ(pack(VLG_FORMAT_R8_UNORM, -3.0f, 0, 0, 0)[0], 0);
   EXPECT_EQ(pack(VLG_FORMAT_R8_UNORM, 7.0f, 0, 0, 0)[0], 255);
   EXPECT_EQ(pack(VLG_FORMAT_R8_UNORM, NAN, 0, 0, 0)[0], 0);
   EXPECT_EQ(float_to_unorm8(1.5f / 255.0f), 2); /* 1.5 -> 2 (even) */
   EXPECT_EQ(float_to_unorm8(2.5f / 255.0f), 2); /* 2.5 -> 2 (even) */
   /* order: B G R A in memory */
   EXPECT_EQ(pack(VLG_FORMAT_B8G8R8A8_UNORM, 1.0f, 0.0f, 0.2f, 0.6f),
             (std::vector<uint8_t>{51, 0, 255, 153}));
   EXPECT_EQ(pack(VLG_FORMAT_B8G8R8X8_UNORM, 1.0f, 0.0f, 0.2f, 0.6f),
             (std::vector<uint8_t>{51, 0, 255, 0})); /* X written 0 */
   EXPECT_EQ(pack(VLG_FORMAT_A8_UNORM, 1.0f, 1.0f, 1.0f, 0.2f), (std::vector<uint8_t>{51}));
   EXPECT_EQ(pack(VLG_FORMAT_L8A8_UNORM, 0.2f, 1.0f, 1.0f, 0.6f), (std::vector<uint8_t>{51, 153}));
}

TEST(FormatPack, SmallUnormRoundsHalfUp)
{
   /* Mesa util_iround(CLAMP(f, 0, 1) * (2^b - 1)) = (int)(x + 0.5f):
    * B5G6R5 (1, 0.5, 0): R 31, G (int)(31.5 + 0.5) = 32, B 0 */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_B5G6R5_UNORM, 1.0f, 0.5f, 0.0f, 1.0f)),
             (31u << 11) | (32u << 5));
   /* B4G4R4A4: (0.5 -> 8, 0, 1 -> 15, 0.2 -> (int)(3 + 0.5) = 3) */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_B4G4R4A4_UNORM, 0.5f, 0.0f, 1.0f, 0.2f)),
             (3u << 12) | (8u << 8) | 15u);
   /* B5G5R5A1: alpha 0.49 -> 0, 0.5 -> 1 */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_B5G5R5A1_UNORM, 0, 0, 0, 0.49f)), 0u);
   EXPECT_EQ(word_of(pack(VLG_FORMAT_B5G5R5A1_UNORM, 0, 0, 0, 0.5f)), 0x8000u);
   /* R10G10B10A2: (1, 0.5 -> (int)(511.5 + 0.5) = 512, 0, 1 -> 3) */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_R10G10B10A2_UNORM, 1.0f, 0.5f, -1.0f, 1.0f)),
             1023u | (512u << 10) | (3u << 30));
}

TEST(FormatPack, UnpackPackRoundTripsEveryUnormValue)
{
   const vlg_format f16[] = {VLG_FORMAT_B5G6R5_UNORM,   VLG_FORMAT_B4G4R4A4_UNORM,
                             VLG_FORMAT_B5G5R5A1_UNORM, VLG_FORMAT_R16_UNORM,
                             VLG_FORMAT_L8A8_UNORM,     VLG_FORMAT_R8G8_UNORM};
   for (vlg_format f : f16) {
      for (uint32_t v = 0; v < 65536; v++) {
         uint8_t px[2] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8)}, back[2];
         uint32_t w[4];
         format_unpack_rgba(f, px, w);
         format_pack_rgba(f, w, back);
         ASSERT_EQ(back[0] | back[1] << 8, v) << format_info(f).name;
      }
   }
   const vlg_format f8[] = {VLG_FORMAT_R8_UNORM, VLG_FORMAT_A8_UNORM, VLG_FORMAT_L8_UNORM};
   for (vlg_format f : f8) {
      for (uint32_t v = 0; v < 256; v++) {
         uint8_t px = static_cast<uint8_t>(v), back;
         uint32_t w[4];
         format_unpack_rgba(f, &px, w);
         format_pack_rgba(f, w, &back);
         ASSERT_EQ(back, v) << format_info(f).name;
      }
   }
   /* 4-byte formats: every value in every channel position (others varied) */
   const vlg_format f32[] = {VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_B8G8R8A8_UNORM,
                             VLG_FORMAT_R8G8B8A8_SRGB,  VLG_FORMAT_B8G8R8A8_SRGB,
                             VLG_FORMAT_R16G16_UNORM,   VLG_FORMAT_R10G10B10A2_UNORM};
   for (vlg_format f : f32) {
      for (uint32_t v = 0; v < 65536; v++) {
         const uint32_t word = v * 0x9E3779B1u; /* spread over all bits */
         uint8_t px[4], back[4];
         std::memcpy(px, &word, 4);
         uint32_t w[4];
         format_unpack_rgba(f, px, w);
         format_pack_rgba(f, w, back);
         uint32_t got;
         std::memcpy(&got, back, 4);
         ASSERT_EQ(got, word) << format_info(f).name << " value " << v;
      }
   }
}

TEST(FormatPack, IntegerRenderTargetsClamp)
{
   EXPECT_EQ(pack_int(VLG_FORMAT_R8_UINT, 300, 0, 0, 0)[0], 255);
   EXPECT_EQ(pack_int(VLG_FORMAT_R8_UINT, 0xffffffffu, 0, 0, 0)[0], 255); /* uint32 input */
   EXPECT_EQ(pack_int(VLG_FORMAT_R8_SINT, static_cast<uint32_t>(-200), 0, 0, 0)[0], 0x80);
   EXPECT_EQ(pack_int(VLG_FORMAT_R8_SINT, 200, 0, 0, 0)[0], 0x7f);
   EXPECT_EQ(pack_int(VLG_FORMAT_R8_SINT, static_cast<uint32_t>(-5), 0, 0, 0)[0], 0xfb);
   EXPECT_EQ(word_of(pack_int(VLG_FORMAT_R16G16_SINT, 40000, static_cast<uint32_t>(-40000), 0, 0)),
             0x80007fffu);
   EXPECT_EQ(word_of(pack_int(VLG_FORMAT_R10G10B10A2_UINT, 5000, 17, 1023, 9)),
             1023u | (17u << 10) | (1023u << 20) | (3u << 30));
   EXPECT_EQ(word_of(pack_int(VLG_FORMAT_R32_UINT, 0xdeadbeefu, 0, 0, 0)), 0xdeadbeefu);
}

TEST(FormatPack, HalfFloatRoundsTowardZero)
{
   EXPECT_EQ(float_to_half_rtz(1.0f), 0x3C00);
   EXPECT_EQ(float_to_half_rtz(-2.0f), 0xC000);
   EXPECT_EQ(float_to_half_rtz(65504.0f), 0x7BFF);
   EXPECT_EQ(float_to_half_rtz(70000.0f), 0x7BFF); /* RTZ overflow: largest finite */
   EXPECT_EQ(float_to_half_rtz(-1e10f), 0xFBFF);
   EXPECT_EQ(float_to_half_rtz(INFINITY), 0x7C00);
   EXPECT_EQ(float_to_half_rtz(1.0f + 1.0f / 1024), 0x3C01);
   EXPECT_EQ(float_to_half_rtz(1.0f + 1.9f / 1024), 0x3C01); /* truncated, not 0x3C02 */
   EXPECT_EQ(float_to_half_rtz(std::ldexp(1.0f, -24)), 0x0001);
   EXPECT_EQ(float_to_half_rtz(std::ldexp(1.5f, -24)), 0x0001);
   EXPECT_EQ(float_to_half_rtz(std::ldexp(1.0f, -25)), 0x0000);
   EXPECT_EQ(float_to_half_rtz(std::ldexp(1.9f, -15)),
             0x03CC); /* denormal: 1.9*2^-15 / 2^-24 = 972.8 */
   EXPECT_EQ(float_to_half_rtz(-0.0f), 0x8000);
   const uint16_t n = float_to_half_rtz(NAN);
   EXPECT_EQ(n & 0x7C00, 0x7C00);
   EXPECT_NE(n & 0x3FF, 0);
   /* round to nearest even, for GLSL packHalf2x16 */
   EXPECT_EQ(float_to_half_rtne(1.0f + 1.9f / 1024), 0x3C02);
   EXPECT_EQ(float_to_half_rtne(1.0f + 0.5f / 1024), 0x3C00); /* tie -> even */
   EXPECT_EQ(float_to_half_rtne(1.0f + 1.5f / 1024), 0x3C02); /* tie -> even */
   EXPECT_EQ(float_to_half_rtne(70000.0f), 0x7C00);
   EXPECT_EQ(float_to_half_rtne(65519.0f), 0x7BFF);
   EXPECT_EQ(float_to_half_rtne(std::ldexp(1.5f, -24)), 0x0002);
   EXPECT_EQ(float_to_half_rtne(std::ldexp(1.0f, -25)), 0x0000);
   EXPECT_EQ(float_to_half_rtne(std::ldexp(1.01f, -25)), 0x0001);
   /* every finite half survives unpack + pack (both rounding modes) */
   for (uint32_t h = 0; h < 65536; h++) {
      if ((h & 0x7C00) == 0x7C00)
         continue;
      ASSERT_EQ(float_to_half_rtz(half_to_float(static_cast<uint16_t>(h))), h);
      ASSERT_EQ(float_to_half_rtne(half_to_float(static_cast<uint16_t>(h))), h);
   }
   EXPECT_EQ(word_of(pack(VLG_FORMAT_R16G16_FLOAT, 1.0f, 70000.0f, 0, 0)), 0x7BFF3C00u);
}

TEST(FormatPack, FloatRenderTargetsWithoutAlpha)
{
   /* GL_RGB16F / GL_RGB32F render targets (EXT_color_buffer_half_float):
    * R, G, B stored (half: round toward zero, as above), alpha dropped, the
    * pad written 0; alpha reads back as 1 (blending's DST_ALPHA) */
   EXPECT_EQ(pack(VLG_FORMAT_R16G16B16X16_FLOAT, 1.0f, -2.0f, 70000.0f, 0.25f),
             (std::vector<uint8_t>{0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x00, 0x00}));
   /* 0.1 = 0x3DCCCCCD: exponent -4 -> 11, mantissa 0x4CCCCD >> 13 = 0x266 -> 0x2E66 */
   EXPECT_EQ(pack(VLG_FORMAT_R16G16B16X16_FLOAT, 0.1f, 0.0f, -0.0f, 1.0f),
             (std::vector<uint8_t>{0x66, 0x2E, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00}));
   const Rgba h = unpack(VLG_FORMAT_R16G16B16X16_FLOAT, {0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x55, 0x55});
   EXPECT_EQ(h.f(0), 1.0f);
   EXPECT_EQ(h.f(1), -2.0f);
   EXPECT_EQ(h.f(2), 65504.0f);
   EXPECT_EQ(h.f(3), 1.0f); /* whatever the pad holds */
   const std::vector<uint8_t> f = pack(VLG_FORMAT_R32G32B32X32_FLOAT, 1.5f, -3.0f, 1e30f, 0.5f);
   uint32_t w[4];
   std::memcpy(w, f.data(), 16);
   EXPECT_EQ(w[0], 0x3FC00000u);
   EXPECT_EQ(w[1], 0xC0400000u);
   EXPECT_EQ(w[2], as_uint(1e30f));
   EXPECT_EQ(w[3], 0u);
   EXPECT_EQ(unpack(VLG_FORMAT_R32G32B32X32_FLOAT, f).f(3), 1.0f);
   EXPECT_NE(vlg_format_usage(VLG_FORMAT_R16G16B16X16_FLOAT) & VLG_FORMAT_USAGE_RT, 0u);
   EXPECT_NE(vlg_format_usage(VLG_FORMAT_R32G32B32X32_FLOAT) & VLG_FORMAT_USAGE_RT, 0u);
}

TEST(FormatPack, SrgbEncode)
{
   /* linear 0.5: 1.055 * 0.5^(1/2.4) - 0.055 = 0.73536 (the sRGB encode curve),
    * * 255 = 187.52 -> 188 */
   const double cl = 0.5;
   const double cs = 1.055 * std::pow(cl, 1 / 2.4) - 0.055;
   EXPECT_EQ(static_cast<int>(cs * 255.0 + 0.5), 188);
   EXPECT_EQ(pack(VLG_FORMAT_R8G8B8A8_SRGB, 0.5f, 0.0f, 1.0f, 0.5f),
             (std::vector<uint8_t>{188, 0, 255, 128})); /* alpha linear: 127.5 -> 128 */
   EXPECT_EQ(pack(VLG_FORMAT_B8G8R8A8_SRGB, 0.5f, 0.0f, 1.0f, 0.5f),
             (std::vector<uint8_t>{255, 0, 188, 128}));
   EXPECT_EQ(linear_to_srgb8(NAN), 0);
   EXPECT_EQ(linear_to_srgb8(-1.0f), 0);
   EXPECT_EQ(linear_to_srgb8(2.0f), 255);
   /* the table approximation stays within one step of the exact curve */
   for (int i = 0; i <= 10000; i++) {
      const float l = i / 10000.0f;
      const double c = l < 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
      const int exact = static_cast<int>(c * 255.0 + 0.5);
      EXPECT_LE(std::abs(linear_to_srgb8(l) - exact), 1) << l;
   }
   /* decode then encode gives every code back */
   for (unsigned c = 0; c < 256; c++)
      EXPECT_EQ(linear_to_srgb8(srgb8_to_linear(static_cast<uint8_t>(c))), c);
}

/* Mesa's format_srgb.py builds util_format_linear_to_srgb_helper_table by a
 * least-squares fit; this is that algorithm (Python doubles = C doubles)
 * and Mesa's lookup, to show the table compiled into format.cpp is Mesa's
 * for every bucket. */
TEST(FormatPack, SrgbEncodeTableIsFormatSrgbPy)
{
   const int numexp = 13, mantissa_msb = 3, stepshift = 5, mantshift = 12;
   const int nbuckets = numexp << mantissa_msb;
   const int bucketsize = (1 << (23 - mantissa_msb)) >> stepshift;
   std::vector<uint32_t> table;
   const double sum_aa = bucketsize;
   double sum_ab = 0, sum_bb = 0;
   for (int i = 0; i < bucketsize; i++) {
      const int j = (i << stepshift) >> mantshift;
      sum_ab += j;
      sum_bb += static_cast<double>(j * j);
   }
   const double inv_det = 1.0 / (sum_aa * sum_bb - sum_ab * sum_ab);
   for (int bucket = 0; bucket < nbuckets; bucket++) {
      const uint32_t start = ((127u - numexp) << 23) + bucket * (bucketsize << stepshift);
      double sum_a = 0, sum_b = 0;
      for (int i = 0; i < bucketsize; i++) {
         const int j = (i << stepshift) >> mantshift;
         const double x = as_float(start + (static_cast<uint32_t>(i) << stepshift));
         const double s = x >= 0.0031308 ? 1.055 * std::pow(x, 0.41666666) - 0.055 : 12.92 * x;
         const double val = s * 255.0 + 0.5;
         sum_a += val;
         sum_b += j * val;
      }
      const double solved_a = inv_det * (sum_bb * sum_a - sum_ab * sum_b);
      const double solved_b = inv_det * (sum_aa * sum_b - sum_ab * sum_a);
      const int64_t int_a = static_cast<int64_t>(solved_a * 65536.0 / 512.0 + 0.5);
      const int64_t int_b = static_cast<int64_t>(solved_b * 65536.0 + 0.5);
      table.push_back(static_cast<uint32_t>((int_a << 16) + int_b));
   }
   auto mesa_encode = [&](float x) {
      const uint32_t almostone = 0x3f7fffff, minval = (127u - 13u) << 23;
      if (!(x > as_float(minval)))
         x = as_float(minval);
      if (x > as_float(almostone))
         x = as_float(almostone);
      const uint32_t u = as_uint(x);
      const uint32_t tab = table[(u - minval) >> 20];
      const uint32_t bias = (tab >> 16) << 9, scale = tab & 0xffff;
      return static_cast<uint8_t>((bias + scale * ((u >> 12) & 0xff)) >> 16);
   };
   /* 64 samples in each of the 104 buckets */
   for (uint32_t u = (127u - 13u) << 23; u < 0x3f800000u; u += 1u << 14)
      ASSERT_EQ(linear_to_srgb8(as_float(u)), mesa_encode(as_float(u))) << as_float(u);
}

TEST(FormatPack, PackedFloats)
{
   /* R11G11B10: (1, 2, 0.5) -> 0x702003C0 (see the unpack test); negative -> 0,
    * above 65024 -> 65024 = e 30 m 63; mantissa truncated: 1 + 1.9/64 -> m 1 */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_R11G11B10_FLOAT, 1.0f, 2.0f, 0.5f, 0.0f)), 0x702003C0u);
   EXPECT_EQ(word_of(pack(VLG_FORMAT_R11G11B10_FLOAT, -1.0f, 1e9f, 1.0f + 1.9f / 32, 0)),
             0u | ((30u << 6 | 63u) << 11) | (0x1E1u << 22));
   /* RGB9E5 of (1, 0.5, 0) -> 0x80010100 (GL ES 3.0 RGB9E5 equations:
    * max 1.0 -> exp_shared = floor(log2 1) + 1 + 15 = 16; 1 * 2^8 = 256, 0.5 -> 128) */
   EXPECT_EQ(word_of(pack(VLG_FORMAT_R9G9B9E5_FLOAT, 1.0f, 0.5f, 0.0f, 0.0f)), 0x80010100u);
   /* GL's equations evaluated in double on a few more values */
   /* 0.9995 * 2^9 + 0.5 rounds to 512: the shared exponent goes up by one */
   const float vals[][3] = {{0.1f, 0.2f, 0.3f},
                            {100.0f, 1.0f, 0.001f},
                            {3.0f, -1.0f, 7.5f},
                            {0.9995f, 0.25f, 0.0f},
                            {1e9f, 0.0f, 0.0f}};
   for (const auto &v : vals) {
      double c[3], maxc = 0;
      for (int i = 0; i < 3; i++) {
         c[i] = std::fmax(0.0, std::fmin(v[i], 511.0 / 512 * 65536));
         maxc = std::fmax(maxc, c[i]);
      }
      int e = std::max(-16, static_cast<int>(std::floor(std::log2(maxc)))) + 1 + 15;
      if (static_cast<int>(std::floor(maxc / std::ldexp(1.0, e - 24) + 0.5)) == 512)
         e++;
      uint32_t expect = static_cast<uint32_t>(e) << 27;
      for (int i = 0; i < 3; i++)
         expect |= static_cast<uint32_t>(std::floor(c[i] / std::ldexp(1.0, e - 24) + 0.5))
                   << (9 * i);
      EXPECT_EQ(word_of(pack(VLG_FORMAT_R9G9B9E5_FLOAT, v[0], v[1], v[2], 0)), expect)
         << v[0] << " " << v[1] << " " << v[2];
   }
}

/* -------------------------------------------------- vertex fetch -- */

TEST(FormatVertex, Conversions)
{
   uint32_t w[4];
   /* R32G32_FIXED: 2.5 (0x00028000) and -0.5 (0xFFFF8000); missing (0, 1) */
   const uint8_t fixed[] = {0x00, 0x80, 0x02, 0x00, 0x00, 0x80, 0xff, 0xff};
   format_fetch_vertex(VLG_FORMAT_R32G32_FIXED, fixed, w);
   EXPECT_EQ(as_float(w[0]), 2.5f);
   EXPECT_EQ(as_float(w[1]), -0.5f);
   EXPECT_EQ(as_float(w[2]), 0.0f);
   EXPECT_EQ(as_float(w[3]), 1.0f);
   /* R10G10B10A2_SNORM: R = 0x200 (-512 -> -1 clamped), G = 0x1FF (511 -> 1),
    * B = 0x3FF (-1 -> -1/511), A = 0b10 (-2 -> -1 clamped) */
   uint32_t word = 0x200u | (0x1FFu << 10) | (0x3FFu << 20) | (2u << 30);
   format_fetch_vertex(VLG_FORMAT_R10G10B10A2_SNORM, reinterpret_cast<uint8_t *>(&word), w);
   EXPECT_EQ(as_float(w[0]), -1.0f);
   EXPECT_EQ(as_float(w[1]), 1.0f);
   EXPECT_NEAR(as_float(w[2]), -1.0 / 511, 1e-8);
   EXPECT_EQ(as_float(w[3]), -1.0f);
   /* USCALED / SSCALED: no normalisation */
   format_fetch_vertex(VLG_FORMAT_R10G10B10A2_USCALED, reinterpret_cast<uint8_t *>(&word), w);
   EXPECT_EQ(as_float(w[0]), 512.0f);
   EXPECT_EQ(as_float(w[2]), 1023.0f);
   EXPECT_EQ(as_float(w[3]), 2.0f);
   format_fetch_vertex(VLG_FORMAT_R10G10B10A2_SSCALED, reinterpret_cast<uint8_t *>(&word), w);
   EXPECT_EQ(as_float(w[0]), -512.0f);
   EXPECT_EQ(as_float(w[1]), 511.0f);
   EXPECT_EQ(as_float(w[2]), -1.0f);
   EXPECT_EQ(as_float(w[3]), -2.0f);
   /* R10G10B10A2_UNORM */
   format_fetch_vertex(VLG_FORMAT_R10G10B10A2_UNORM, reinterpret_cast<uint8_t *>(&word), w);
   EXPECT_EQ(w[0], as_uint(512.0f * (1.0f / 1023.0f)));
   EXPECT_EQ(w[3], as_uint(2.0f * (1.0f / 3.0f)));
   /* pure integer attributes stay integer, missing alpha integer 1 */
   const uint8_t sint[] = {0xfe, 0xff, 0x05, 0x00, 0x00, 0x80};
   format_fetch_vertex(VLG_FORMAT_R16G16B16_SINT, sint, w);
   EXPECT_EQ(static_cast<int32_t>(w[0]), -2);
   EXPECT_EQ(w[1], 5u);
   EXPECT_EQ(static_cast<int32_t>(w[2]), -32768);
   EXPECT_EQ(w[3], 1u);
   /* R32G32B32_FLOAT: alpha 1.0 */
   const float f3[3] = {1.5f, -2.0f, 1e30f};
   format_fetch_vertex(VLG_FORMAT_R32G32B32_FLOAT, reinterpret_cast<const uint8_t *>(f3), w);
   EXPECT_EQ(as_float(w[0]), 1.5f);
   EXPECT_EQ(as_float(w[1]), -2.0f);
   EXPECT_EQ(as_float(w[2]), 1e30f);
   EXPECT_EQ(as_float(w[3]), 1.0f);
   /* R8G8B8_SNORM: -128 clamps to -1 */
   const uint8_t sn[] = {0x80, 0x7f, 0xc0};
   format_fetch_vertex(VLG_FORMAT_R8G8B8_SNORM, sn, w);
   EXPECT_EQ(as_float(w[0]), -1.0f);
   EXPECT_EQ(as_float(w[1]), 1.0f);
   EXPECT_NEAR(as_float(w[2]), -64.0 / 127, 1e-7);
   /* R32_UNORM: 0xffffffff -> 1.0, 0x80000000 -> 0.5 */
   const uint32_t un[1] = {0xffffffffu};
   format_fetch_vertex(VLG_FORMAT_R32_UNORM, reinterpret_cast<const uint8_t *>(un), w);
   EXPECT_EQ(as_float(w[0]), 1.0f);
}

/* The format named @name ("B10G10R10A2_SNORM"), or VLG_FORMAT_NONE: the
 * 2_10_10_10 test below looks formats up by name so that a format missing
 * from vlgpu_hw.xml is a test failure, not a build error. */
static vlg_format
format_named(const std::string &name)
{
   for (unsigned f = 1; f < 256; f++) {
      const char *n = vlg_format_name(f);
      if (n && name == n)
         return static_cast<vlg_format>(f);
   }
   return VLG_FORMAT_NONE;
}

/* GL_UNSIGNED_INT_2_10_10_10_REV / GL_INT_2_10_10_10_REV attributes (GL ES
 * 3.0 section 2.9, table 2.5; with GL_BGRA size, ARB_vertex_type_2_10_10_10_rev
 * and GL 4.x section 10.3.8): one 32-bit word, bits 0-9 the first component
 * (R for size 4, B for GL_BGRA), 10-19 G, 20-29 the third (B, or R), 30-31 A.
 * st/mesa needs all eight Gallium formats (st_extensions.c vertex_mapping).
 * Expected values come from the spec's formulas, evaluated here in double:
 * UNORM c / (2^b - 1), SNORM max(c / (2^(b-1) - 1), -1) (ES 3.0 section
 * 2.1.6.1, GL 4.x section 2.3.5.1), USCALED c, SSCALED c, c two's-complement
 * signed for SNORM and SSCALED. */
TEST(FormatVertex, TwoTenTenTenInRgbaAndBgraOrder)
{
   /* Two words whose fields all differ, with every field's extremes among them:
    * word 0: bits 0-9 = 341, 10-19 = 683 (-341), 20-29 = 512 (-512), 30-31 = 1;
    * word 1: bits 0-9 = 1023 (-1), 10-19 = 511, 20-29 = 0, 30-31 = 2 (-2). */
   const uint32_t words[2] = {341u | 683u << 10 | 512u << 20 | 1u << 30,
                              1023u | 511u << 10 | 0u << 20 | 2u << 30};
   const char *types[4] = {"UNORM", "SNORM", "USCALED", "SSCALED"};
   for (const bool bgra : {false, true}) {
      /* bit offset of R, G, B, A */
      const unsigned shift[4] = {bgra ? 20u : 0u, 10u, bgra ? 0u : 20u, 30u};
      for (unsigned t = 0; t < 4; t++) {
         const std::string name = std::string(bgra ? "B10G10R10A2_" : "R10G10B10A2_") + types[t];
         const vlg_format f = format_named(name);
         ASSERT_NE(f, VLG_FORMAT_NONE) << name << " is not a vlgpu_hw.xml format";
         EXPECT_TRUE(format_info(f).usage & VLG_FORMAT_USAGE_VERTEX) << name;
         EXPECT_EQ(format_info(f).bytes, 4u) << name;
         for (const uint32_t word : words) {
            uint32_t w[4];
            format_fetch_vertex(f, reinterpret_cast<const uint8_t *>(&word), w);
            for (unsigned c = 0; c < 4; c++) {
               const unsigned b = c == 3 ? 2 : 10;
               const uint32_t u = (word >> shift[c]) & ((1u << b) - 1);
               const int32_t s = u >= (1u << (b - 1)) ? static_cast<int32_t>(u) - (1 << b)
                                                      : static_cast<int32_t>(u);
               const double want = t == 0   ? u / double((1u << b) - 1)
                                   : t == 1 ? std::max(s / double((1 << (b - 1)) - 1), -1.0)
                                   : t == 2 ? double(u)
                                            : double(s);
               /* one float ulp of slack for the normalized types (a reciprocal
                * multiply, as Mesa does it, instead of a division) */
               EXPECT_NEAR(as_float(w[c]), want, t < 2 ? 1.2e-7 : 0.0)
                  << name << " word 0x" << std::hex << word << std::dec << " component "
                  << "RGBA"[c];
            }
         }
      }
   }
}

/* ---------------------------------------------------- depth/stencil -- */

TEST(FormatDepth, PackKeepsStencilAndUnpackKeepsDepth)
{
   uint32_t word = 0xAB000000u;
   uint8_t *p = reinterpret_cast<uint8_t *>(&word);
   format_pack_depth(VLG_FORMAT_Z24_UNORM_S8_UINT, 1.0f, p);
   EXPECT_EQ(word, 0xABFFFFFFu);
   format_pack_stencil(VLG_FORMAT_Z24_UNORM_S8_UINT, 0x12, p);
   EXPECT_EQ(word, 0x12FFFFFFu);
   EXPECT_EQ(format_unpack_stencil(VLG_FORMAT_Z24_UNORM_S8_UINT, p), 0x12);
   EXPECT_EQ(format_unpack_depth(VLG_FORMAT_Z24_UNORM_S8_UINT, p), 1.0f);
   format_pack_depth(VLG_FORMAT_Z24_UNORM_S8_UINT, 0.0f, p);
   EXPECT_EQ(word, 0x12000000u);

   word = 0x000000CDu; /* S8Z24: stencil in the low byte */
   format_pack_depth(VLG_FORMAT_S8_UINT_Z24_UNORM, 1.0f, p);
   EXPECT_EQ(word, 0xFFFFFFCDu);
   format_pack_stencil(VLG_FORMAT_S8_UINT_Z24_UNORM, 0x34, p);
   EXPECT_EQ(word, 0xFFFFFF34u);
   EXPECT_EQ(format_unpack_stencil(VLG_FORMAT_S8_UINT_Z24_UNORM, p), 0x34);

   uint8_t z32s8[8] = {0, 0, 0, 0, 0x55, 0xaa, 0xaa, 0xaa};
   format_pack_depth(VLG_FORMAT_Z32_FLOAT_S8X24_UINT, 0.25f, z32s8);
   float d;
   std::memcpy(&d, z32s8, 4);
   EXPECT_EQ(d, 0.25f);
   EXPECT_EQ(z32s8[4], 0x55);
   format_pack_stencil(VLG_FORMAT_Z32_FLOAT_S8X24_UINT, 0x66, z32s8);
   EXPECT_EQ(z32s8[4], 0x66);
   std::memcpy(&d, z32s8, 4);
   EXPECT_EQ(d, 0.25f);
   EXPECT_EQ(format_unpack_depth(VLG_FORMAT_Z32_FLOAT_S8X24_UINT, z32s8), 0.25f);

   uint8_t s8 = 0;
   format_pack_stencil(VLG_FORMAT_S8_UINT, 200, &s8);
   EXPECT_EQ(format_unpack_stencil(VLG_FORMAT_S8_UINT, &s8), 200);
   /* depth-only formats: no stencil, writes ignored */
   uint16_t z16 = 0x1234;
   format_pack_stencil(VLG_FORMAT_Z16_UNORM, 9, reinterpret_cast<uint8_t *>(&z16));
   EXPECT_EQ(z16, 0x1234);
   EXPECT_EQ(format_unpack_stencil(VLG_FORMAT_Z16_UNORM, reinterpret_cast<uint8_t *>(&z16)), 0);
}

TEST(FormatDepth, Roundings)
{
   /* Z16 at 0.5: 32767.5 -> UFormat (int)(x + 0.5) = 32768, Fragment truncates
    * to 32767, Clear rounds to nearest even = 32768 */
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z16_UNORM, 0.5, DepthRounding::UFormat), 32768u);
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z16_UNORM, 0.5, DepthRounding::Fragment), 32767u);
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z16_UNORM, 0.5, DepthRounding::Clear), 32768u);
   /* Z24 at 0.5: 8388607.5 -> UFormat and Fragment truncate (8388607), Clear -> even 8388608 */
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z24X8_UNORM, 0.5, DepthRounding::UFormat), 8388607u);
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z24X8_UNORM, 0.5, DepthRounding::Fragment), 8388607u);
   EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z24X8_UNORM, 0.5, DepthRounding::Clear), 8388608u);
   /* clamped, NaN -> 0 */
   for (DepthRounding r : {DepthRounding::UFormat, DepthRounding::Fragment, DepthRounding::Clear}) {
      EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z16_UNORM, 2.0, r), 0xffffu);
      EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_X8Z24_UNORM, -1.0, r), 0u);
      EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z24_UNORM_S8_UINT, 1.0, r), 0xffffffu);
      EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z16_UNORM, NAN, r), 0u);
      EXPECT_EQ(format_depth_to_raw(VLG_FORMAT_Z32_FLOAT, 0.75, r), as_uint(0.75f));
   }
   /* raw values and the float they stand for */
   EXPECT_EQ(format_depth_raw_to_float(VLG_FORMAT_Z16_UNORM, 0xffff), 1.0f);
   EXPECT_EQ(format_depth_raw_to_float(VLG_FORMAT_Z16_UNORM, 32768), 32768.0f * (1.0f / 65535.0f));
   EXPECT_EQ(format_depth_raw_to_float(VLG_FORMAT_Z24X8_UNORM, 0xffffff), 1.0f);
   EXPECT_NEAR(format_depth_raw_to_float(VLG_FORMAT_Z24X8_UNORM, 0x800000), 0.5, 1e-7);
   uint32_t word = 0x77000000u;
   format_write_depth_raw(VLG_FORMAT_Z24_UNORM_S8_UINT, 0x123456,
                          reinterpret_cast<uint8_t *>(&word));
   EXPECT_EQ(word, 0x77123456u);
   EXPECT_EQ(
      format_read_depth_raw(VLG_FORMAT_Z24_UNORM_S8_UINT, reinterpret_cast<uint8_t *>(&word)),
      0x123456u);
   word = 0x00000077u;
   format_write_depth_raw(VLG_FORMAT_X8Z24_UNORM, 0x123456, reinterpret_cast<uint8_t *>(&word));
   EXPECT_EQ(word, 0x12345677u);
   /* pack through the colour path: R = depth */
   const uint32_t in[4] = {as_uint(1.0f), 0, 0, 0};
   uint16_t z16 = 0;
   format_pack_rgba(VLG_FORMAT_Z16_UNORM, in, reinterpret_cast<uint8_t *>(&z16));
   EXPECT_EQ(z16, 0xffff);
}
