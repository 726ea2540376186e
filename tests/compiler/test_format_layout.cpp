/*
 * The format layouts of vlgpu_hw.xml (docs/hw.md "Format layouts"), as
 * generated into vlg_hw.h, against Mesa 22.3.6's own description of the
 * format of the same name (util_format_description, from u_format.csv):
 * size, channel widths, positions and types, swizzle, sRGB, depth and
 * stencil. The simulator's conversion table (sim/func/tex/format.cpp) is
 * expanded from these lists, so this checks it against Mesa's.
 *
 * Here, among the compiler's tests, because this is the unit-test binary
 * built against Mesa (util/format); the standalone build has no Mesa.
 */
#include <gtest/gtest.h>

#include <string>

#include "util/format/u_format.h"

#include "vlg_hw.h"

namespace {

struct Plain {
   const char *name;
   unsigned bytes;
   pipe_format pf;
   const char *type;
   unsigned word, bits[4], pad;
   const char *swizzle;
   bool srgb;
};

const Plain kPlain[] = {
#define X(NAME, T, WORD, B0, B1, B2, B3, PAD, SWZ, SRGB)                                           \
   {#NAME,                                                                                         \
    vlg_format_bytes(VLG_FORMAT_##NAME),                                                           \
    PIPE_FORMAT_##NAME,                                                                            \
    #T,                                                                                            \
    WORD,                                                                                          \
    {B0, B1, B2, B3},                                                                              \
    PAD,                                                                                           \
    SWZ,                                                                                           \
    SRGB != 0},
   VLG_FORMAT_PLAIN_LIST(X)
#undef X
};

/** Our channel type as Mesa's (type, normalized, pure_integer). */
void
expect_type(const util_format_channel_description &c, const std::string &t, const char *name)
{
   const bool sign = t == "SNORM" || t == "SSCALED" || t == "SINT";
   if (t == "FLOAT") {
      EXPECT_EQ(c.type, UTIL_FORMAT_TYPE_FLOAT) << name;
   } else if (t == "FIXED") {
      EXPECT_EQ(c.type, UTIL_FORMAT_TYPE_FIXED) << name;
   } else {
      EXPECT_EQ(c.type, sign ? UTIL_FORMAT_TYPE_SIGNED : UTIL_FORMAT_TYPE_UNSIGNED) << name;
      EXPECT_EQ(bool(c.normalized), t == "UNORM" || t == "SNORM") << name;
      EXPECT_EQ(bool(c.pure_integer), t == "UINT" || t == "SINT") << name;
   }
}

TEST(FormatLayout, PlainFormatsAreMesas)
{
   ASSERT_GT(sizeof(kPlain) / sizeof(kPlain[0]), 100u);
   for (const Plain &p : kPlain) {
      const struct util_format_description *d = util_format_description(p.pf);
      ASSERT_NE(d, nullptr) << p.name;
      EXPECT_EQ(d->block.bits, p.bytes * 8) << p.name;
      EXPECT_EQ(d->layout, UTIL_FORMAT_LAYOUT_PLAIN) << p.name;
      unsigned shift = 0, n = 0;
      for (unsigned i = 0; i < 4 && p.bits[i]; i++, n++) {
         const util_format_channel_description &c = d->channel[i];
         EXPECT_EQ(c.size, p.bits[i]) << p.name << " channel " << i;
         EXPECT_EQ(c.shift, shift) << p.name << " channel " << i;
         expect_type(c, p.type, p.name);
         shift += p.bits[i];
      }
      if (p.pad) {
         EXPECT_EQ(d->channel[n].type, UTIL_FORMAT_TYPE_VOID) << p.name << " padding";
         EXPECT_EQ(d->channel[n].size, p.pad) << p.name << " padding";
         n++;
      }
      EXPECT_EQ(d->nr_channels, n) << p.name;
      /* an array format: whole-byte channels; a packed one: one word */
      if (p.word)
         EXPECT_EQ(p.word, d->block.bits) << p.name;
      else
         EXPECT_TRUE(d->is_array) << p.name;
      for (unsigned i = 0; i < 4; i++) {
         const char want = "xyzw01"[d->swizzle[i] <= PIPE_SWIZZLE_1 ? d->swizzle[i] : 4];
         EXPECT_EQ(p.swizzle[i], want) << p.name << " swizzle " << i;
      }
      EXPECT_EQ(p.srgb, d->colorspace == UTIL_FORMAT_COLORSPACE_SRGB) << p.name;
   }
}

TEST(FormatLayout, SrgbTwinsAreMesas)
{
#define X(NAME, LINEAR)                                                                            \
   EXPECT_EQ(util_format_linear(PIPE_FORMAT_##NAME), PIPE_FORMAT_##LINEAR) << #NAME;
   VLG_FORMAT_LINEAR_LIST(X)
#undef X
}

TEST(FormatLayout, SpecialFormatsAreOneWord)
{
#define X(NAME, LAYOUT)                                                                            \
   EXPECT_EQ(util_format_description(PIPE_FORMAT_##NAME)->block.bits, 32u) << #NAME;               \
   EXPECT_EQ(vlg_format_bytes(VLG_FORMAT_##NAME), 4u) << #NAME;                                    \
   EXPECT_EQ(util_format_description(PIPE_FORMAT_##NAME)->layout, UTIL_FORMAT_LAYOUT_OTHER)        \
      << #NAME;
   VLG_FORMAT_SPECIAL_LIST(X)
#undef X
}

/** The channel of @d a Z/S swizzle component (0 depth, 1 stencil) reads, or
 *  nullptr. */
const util_format_channel_description *
zs_channel(const struct util_format_description *d, unsigned component)
{
   const unsigned s = d->swizzle[component];
   return s <= PIPE_SWIZZLE_W ? &d->channel[s] : nullptr;
}

TEST(FormatLayout, DepthStencilFormatsAreMesas)
{
   struct Zs {
      const char *name;
      pipe_format pf;
      unsigned bytes;
      std::string zs;
      unsigned depth_bits;
      bool stencil;
   };
   const Zs kZs[] = {
#define X(NAME, ZS, DEPTH_BITS, STENCIL)                                                           \
   {#NAME, PIPE_FORMAT_##NAME, vlg_format_bytes(VLG_FORMAT_##NAME), #ZS, DEPTH_BITS, STENCIL != 0},
      VLG_FORMAT_DEPTH_STENCIL_LIST(X)
#undef X
   };
   for (const Zs &z : kZs) {
      const struct util_format_description *d = util_format_description(z.pf);
      EXPECT_EQ(d->block.bits, z.bytes * 8) << z.name;
      EXPECT_EQ(util_format_has_depth(d), z.depth_bits != 0) << z.name;
      EXPECT_EQ(util_format_has_stencil(d), z.stencil) << z.name;
      if (const util_format_channel_description *c = z.depth_bits ? zs_channel(d, 0) : nullptr) {
         EXPECT_EQ(c->size, z.depth_bits) << z.name;
         EXPECT_EQ(c->type == UTIL_FORMAT_TYPE_FLOAT, z.zs == "Z32F" || z.zs == "Z32FS8") << z.name;
         /* Z24Lo: depth in bits 0-23; Z24Hi: in bits 8-31 */
         EXPECT_EQ(c->shift, z.zs == "Z24Hi" ? 8u : 0u) << z.name;
      }
   }
}

TEST(FormatLayout, StencilViewsAreMesas)
{
#define X(NAME, BYTE)                                                                              \
   {                                                                                               \
      const struct util_format_description *d = util_format_description(PIPE_FORMAT_##NAME);       \
      EXPECT_EQ(d->block.bits, vlg_format_bytes(VLG_FORMAT_##NAME) * 8) << #NAME;                  \
      const util_format_channel_description *c = zs_channel(d, 1);                                 \
      ASSERT_NE(c, nullptr) << #NAME;                                                              \
      EXPECT_EQ(c->size, 8u) << #NAME;                                                             \
      EXPECT_TRUE(c->pure_integer) << #NAME;                                                       \
      EXPECT_EQ(c->shift, BYTE * 8u) << #NAME;                                                     \
   }
   VLG_FORMAT_STENCIL_VIEW_LIST(X)
#undef X
}

} // namespace
