/*
 * vlgpu simulator, functional pipeline: OMU (see func_omu.h).
 */
#include "func_omu.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "sim/func/tex/compare_func.h"
#include "sim/func/tex/format.h"
#include "common/bits.h"

namespace vlgpu::sim {

namespace {

/** softpipe CLAMP(x, 0, 1): NaN passes through (it is packed as 0 later). */
inline float
clamp01(float x)
{
   return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

/** The 8-bit RGBA formats with a fast colour path (ColorPath); every other
 *  format takes ColorPath::Generic. */
constexpr std::pair<vlg_format, ColorPath> kColorPaths[] = {
   {VLG_FORMAT_R8G8B8A8_UNORM, ColorPath::RGBA8},
   {VLG_FORMAT_B8G8R8A8_UNORM, ColorPath::BGRA8},
   {VLG_FORMAT_R8G8B8X8_UNORM, ColorPath::RGBX8},
   {VLG_FORMAT_B8G8R8X8_UNORM, ColorPath::BGRX8},
};

/** The pixel layout of each depth/stencil format (docs/hw.md format table)
 *  and the byte of a pixel its stencil value is in (-1: none). */
struct ZsFormatLayout {
   vlg_format format;
   ZsLayout layout;
   int stencil_byte;
};
constexpr ZsFormatLayout kZsLayouts[] = {
   {VLG_FORMAT_Z16_UNORM, ZsLayout::Z16, -1},
   {VLG_FORMAT_Z24_UNORM_S8_UINT, ZsLayout::Z24Lo, 3},
   {VLG_FORMAT_Z24X8_UNORM, ZsLayout::Z24Lo, -1},
   {VLG_FORMAT_S8_UINT_Z24_UNORM, ZsLayout::Z24Hi, 0},
   {VLG_FORMAT_X8Z24_UNORM, ZsLayout::Z24Hi, -1},
   {VLG_FORMAT_Z32_FLOAT, ZsLayout::Z32F, -1},
   {VLG_FORMAT_Z32_FLOAT_S8X24_UINT, ZsLayout::Z32FS8, 4},
   {VLG_FORMAT_S8_UINT, ZsLayout::S8, 0},
};

/** sp_quad_depth_test.c apply_stencil_op for one value (8-bit stencil). */
inline uint8_t
stencil_op(vlg_stencil_op op, uint8_t s, uint8_t ref, uint8_t writemask)
{
   uint8_t n = s;
   switch (op) {
   case VLG_STENCIL_OP_KEEP:
      return s;
   case VLG_STENCIL_OP_ZERO:
      n = 0;
      break;
   case VLG_STENCIL_OP_REPLACE:
      n = ref;
      break;
   case VLG_STENCIL_OP_INCR:
      n = s < 0xff ? uint8_t(s + 1) : s;
      break;
   case VLG_STENCIL_OP_DECR:
      n = s > 0 ? uint8_t(s - 1) : s;
      break;
   case VLG_STENCIL_OP_INCR_WRAP:
      n = uint8_t(s + 1);
      break;
   case VLG_STENCIL_OP_DECR_WRAP:
      n = uint8_t(s - 1);
      break;
   case VLG_STENCIL_OP_INVERT:
      n = uint8_t(~s);
      break;
   }
   return uint8_t((writemask & n) | (~writemask & s));
}

/* The blend factor of the RGB part (3 channels) and of the alpha part, GL
 * ES 3.0 Table 4.2 (SRC1_*: GL ES 3.2 Table 17.2, EXT_blend_func_extended),
 * as softpipe's blend_quad computes them; @s1 is the second source colour of
 * a dual-source draw. ONE and ZERO do not multiply (softpipe copies the term
 * or writes 0). */
enum : uint8_t { kMul, kOne, kZero };

bool
is_src1_factor(vlg_blend_factor f)
{
   return f == VLG_BLEND_FACTOR_SRC1_COLOR || f == VLG_BLEND_FACTOR_SRC1_ALPHA ||
          f == VLG_BLEND_FACTOR_INV_SRC1_COLOR || f == VLG_BLEND_FACTOR_INV_SRC1_ALPHA;
}

/* The vector a blend factor reads, by bits 3..0 of the factor (vlgpu_hw.xml
 * blend_factor: bit 4 is "one minus"), and whether its RGB part is that
 * vector's RGB (the *_COLOR factors) rather than its alpha; nullptr for ONE,
 * SRC_ALPHA_SATURATE and values that are no factor (bits above 4 set
 * included). */
[[gnu::always_inline]] inline const float *
factor_vector(unsigned f, const float s[4], const float s1[4], const float d[4], const float k[4],
              bool &per_channel)
{
   per_channel = f == VLG_BLEND_FACTOR_SRC_COLOR || f == VLG_BLEND_FACTOR_DST_COLOR ||
                 f == VLG_BLEND_FACTOR_CONST_COLOR || f == VLG_BLEND_FACTOR_SRC1_COLOR;
   switch (f) {
   case VLG_BLEND_FACTOR_SRC_COLOR:
   case VLG_BLEND_FACTOR_SRC_ALPHA:
      return s;
   case VLG_BLEND_FACTOR_DST_COLOR:
   case VLG_BLEND_FACTOR_DST_ALPHA:
      return d;
   case VLG_BLEND_FACTOR_CONST_COLOR:
   case VLG_BLEND_FACTOR_CONST_ALPHA:
      return k;
   case VLG_BLEND_FACTOR_SRC1_COLOR:
   case VLG_BLEND_FACTOR_SRC1_ALPHA:
      return s1;
   default:
      return nullptr;
   }
}

/* bit 4 of a blend factor: one minus the factor of bits 3..0 */
constexpr unsigned kInvFactor = 0x10;

[[gnu::always_inline]] inline uint8_t
rgb_factor(vlg_blend_factor f, const float s[4], const float s1[4], const float d[4],
           const float k[4], float out[3])
{
   if (f == VLG_BLEND_FACTOR_ONE)
      return kOne;
   if (f == VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE) {
      const float diff = 1.0f - d[3];
      out[0] = out[1] = out[2] = s[3] < diff ? s[3] : diff; /* VEC4_MIN */
      return kMul;
   }
   bool per_channel;
   const float *v = factor_vector(f & ~kInvFactor, s, s1, d, k, per_channel);
   if (!v) /* ZERO (one minus ONE); no other values pass load_draw_package */
      return kZero;
   for (unsigned c = 0; c < 3; c++) {
      const float x = per_channel ? v[c] : v[3];
      out[c] = f & kInvFactor ? 1.0f - x : x;
   }
   return kMul;
}

[[gnu::always_inline]] inline uint8_t
alpha_factor(vlg_blend_factor f, const float s[4], const float s1[4], const float d[4],
             const float k[4], float &out)
{
   if (f == VLG_BLEND_FACTOR_ONE || f == VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE)
      return kOne;
   bool per_channel;
   const float *v = factor_vector(f & ~kInvFactor, s, s1, d, k, per_channel);
   if (!v) /* ZERO (one minus ONE); no other values pass load_draw_package */
      return kZero;
   out = f & kInvFactor ? 1.0f - v[3] : v[3];
   return kMul;
}

inline float
term(uint8_t how, float v, float factor)
{
   return how == kMul ? v * factor : (how == kOne ? v : 0.0f);
}

inline float
combine(vlg_blend_func fn, float s, float d, float src, float dst)
{
   switch (fn) {
   case VLG_BLEND_FUNC_ADD:
      return s + d;
   case VLG_BLEND_FUNC_SUBTRACT:
      return s - d;
   case VLG_BLEND_FUNC_REVERSE_SUBTRACT:
      return d - s;
   case VLG_BLEND_FUNC_MIN: /* factors ignored (GL ES 3.0 Table 4.1) */
      return src < dst ? src : dst;
   case VLG_BLEND_FUNC_MAX:
      return src > dst ? src : dst;
   }
   return s + d;
}

constexpr uint8_t kPop4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

inline uint32_t
rd32(const uint8_t *p)
{
   uint32_t v;
   std::memcpy(&v, p, 4);
   return v;
}

inline void
wr32(uint8_t *p, uint32_t v)
{
   std::memcpy(p, &v, 4);
}

/** float_to_unorm8 of format.h (Mesa float_to_ubyte, u_math.h: round to
 * nearest even of f * 255 through the 2^15 magic number, NaN -> 0),
 * inlined; a test checks it against format.h. */
inline uint8_t
unorm8(float f)
{
   if (!(f > 0.0f))
      return 0;
   if (f >= 1.0f)
      return 255;
   return uint8_t(as_uint(f * (255.0f / 256.0f) + 32768.0f));
}

inline uint8_t *
pixel(uint8_t *base, uint32_t pitch, uint32_t bpp, int x, int y)
{
   return base + size_t(y) * pitch + size_t(x) * bpp;
}

[[gnu::always_inline]] inline void
blend_pixel(const VLG_BLEND_RT &rt, const float src[4], const float src1[4], const float dst[4],
            const float k[4], float out[4], bool clamp = false)
{
   float sf[3] = {0, 0, 0}, df[3] = {0, 0, 0}, saf = 0.0f, daf = 0.0f;
   const uint8_t hs = rgb_factor(rt.rgb_src_factor, src, src1, dst, k, sf);
   const uint8_t hd = rgb_factor(rt.rgb_dst_factor, src, src1, dst, k, df);
   /* clamp per channel as it is computed (normalized targets): no array
    * round trip through memory */
   for (unsigned c = 0; c < 3; c++) {
      const float v =
         combine(rt.rgb_func, term(hs, src[c], sf[c]), term(hd, dst[c], df[c]), src[c], dst[c]);
      out[c] = clamp ? clamp01(v) : v;
   }
   const uint8_t has = alpha_factor(rt.alpha_src_factor, src, src1, dst, k, saf);
   const uint8_t had = alpha_factor(rt.alpha_dst_factor, src, src1, dst, k, daf);
   const float a =
      combine(rt.alpha_func, term(has, src[3], saf), term(had, dst[3], daf), src[3], dst[3]);
   out[3] = clamp ? clamp01(a) : a;
}

} // namespace

void
omu_blend_pixel(const VLG_BLEND_RT &rt, const float src[4], const float dst[4], const float k[4],
                float out[4], const float src1[4])
{
   static const float zero[4] = {0, 0, 0, 0};
   blend_pixel(rt, src, src1 ? src1 : zero, dst, k, out);
}

OmuState
make_omu_state(const DrawPackage &pkg, Vram &vram, unsigned fs_color_written)
{
   OmuState s;
   s.dsa = pkg.pipe.depth_stencil_alpha;
   s.stencil_ref = pkg.pipe.stencil_ref;
   s.nr_cbufs = pkg.fb.nr_cbufs;
   s.samples = pkg.fb.samples == kMsaaSamples ? kMsaaSamples : 1;
   s.sample_mask = uint8_t(pkg.pipe.sample_mask.mask & 0xf);
   s.sample_enabled = (pkg.pipe.sample_mask.mask & (s.samples == kMsaaSamples ? 0xfu : 1u)) != 0;
   const VLG_BLEND &b = pkg.pipe.blend;
   const VLG_BLEND_COLOR &bc = pkg.pipe.blend_color;
   /* dual-source (docs/hw.md "Dual-source blending", u_dual_blend.h): a
    * blending target that the draw writes uses a SRC1 factor */
   for (unsigned i = 0; i < kMaxColorBufs; i++) {
      const VLG_BLEND_RT &rt = b.independent_blend_enable ? b.rt[i] : b.rt[0];
      const bool bound = i < pkg.fb.nr_cbufs && pkg.fb.cbufs[i].format != VLG_FORMAT_NONE;
      if (bound && rt.blend_enable && (fs_color_written >> i & 1) && rt.colormask != 0 &&
          (is_src1_factor(rt.rgb_src_factor) || is_src1_factor(rt.rgb_dst_factor) ||
           is_src1_factor(rt.alpha_src_factor) || is_src1_factor(rt.alpha_dst_factor)))
         s.dual_source = true;
   }
   for (unsigned i = 0; i < kMaxColorBufs; i++) {
      OmuTarget &t = s.rt[i];
      const VLG_SURFACE &surf = pkg.fb.cbufs[i];
      t.bound = i < pkg.fb.nr_cbufs && surf.format != VLG_FORMAT_NONE;
      if (!t.bound)
         continue;
      const FormatInfo &fi = format_info(surf.format);
      t.format = surf.format;
      t.pitch = surf.pitch;
      t.bpp = fi.bytes;
      t.step = t.bpp * s.samples;
      t.base = vram.data() + surf.address; /* range validated by load_draw_package */
      t.layer_stride = surf.layers > 1 ? surf.layer_stride : 0;
      t.is_integer = fi.is_integer;
      t.clamp = fi.is_normalized;
      t.rt = b.independent_blend_enable ? b.rt[i] : b.rt[0];
      t.blend = t.rt.blend_enable && !t.is_integer && !b.logicop_enable;
      t.logic = b.logicop_enable && (fi.is_normalized || fi.is_integer) && !fi.is_srgb;
      t.logicop = b.logicop_func;
      t.written = (fs_color_written >> i & 1) && t.rt.colormask != 0 && !(s.dual_source && i > 0);
      t.path = ColorPath::Generic;
      for (const auto &[format, path] : kColorPaths) {
         if (format == surf.format)
            t.path = path;
      }
      const float k[4] = {bc.r, bc.g, bc.b, bc.a};
      for (unsigned c = 0; c < 4; c++)
         t.const_color[c] = t.clamp ? clamp01(k[c]) : k[c];
   }

   const VLG_SURFACE &zs = pkg.fb.zsbuf;
   if (zs.format != VLG_FORMAT_NONE) {
      const FormatInfo &fi = format_info(zs.format);
      s.zs_format = zs.format;
      s.zs_base = vram.data() + zs.address;
      s.zs_pitch = zs.pitch;
      s.zs_bpp = fi.bytes;
      s.zs_step = s.zs_bpp * s.samples;
      s.zs_layer_stride = zs.layers > 1 ? zs.layer_stride : 0;
      s.zs_float =
         zs.format == VLG_FORMAT_Z32_FLOAT || zs.format == VLG_FORMAT_Z32_FLOAT_S8X24_UINT;
      for (const ZsFormatLayout &l : kZsLayouts) {
         if (l.format == zs.format) {
            s.zs_layout = l.layout;
            s.zs_stencil_byte = l.stencil_byte;
         }
      }
      s.depth_test = fi.is_depth && s.dsa.depth_enable;
      s.depth_write = s.depth_test && s.dsa.depth_writemask;
      s.stencil_test = fi.has_stencil && s.dsa.stencil[0].enabled;
   }
   const VLG_VIEWPORT &vp = pkg.pipe.viewport;
   s.depth_min = std::min(vp.depth_near, vp.depth_far);
   s.depth_max = std::max(vp.depth_near, vp.depth_far);
   if (!s.zs_float) {
      s.depth_min = std::max(s.depth_min, 0.0f);
      s.depth_max = std::min(s.depth_max, 1.0f);
   }
   s.any_zs = s.depth_test || s.stencil_test;
   s.z16_fast = s.samples == 1 && s.zs_layout == ZsLayout::Z16 && s.depth_test && s.depth_write &&
                !s.dsa.stencil[0].enabled && !s.dsa.alpha_enable && !pkg.fs.state.writes_depth &&
                pkg.pipe.rasterizer.depth_clip_near && s.dsa.depth_func != VLG_COMPARE_FUNC_NEVER;
   /* GL ES 3.1 §15.2.4: an FS with memory side effects (writes_memory)
    * sees the fragments that fail depth/stencil too unless it asks for
    * early_fragment_tests, which also forces the tests first when the FS
    * discards or writes depth (its depth output is then ignored) */
   const VLG_SHADER_STATE &fss = pkg.fs.state;
   s.early_z = s.any_zs && !s.dsa.alpha_enable &&
               (fss.early_fragment_tests ||
                (!fss.uses_discard && !fss.writes_depth && !fss.writes_memory));
   return s;
}

unsigned
omu_alpha_test(const OmuState &s, unsigned mask, const float alpha[4])
{
   if (!s.dsa.alpha_enable)
      return mask;
   const float ref = s.dsa.alpha_ref;
   unsigned pass = 0;
   for (unsigned j = 0; j < 4; j++)
      if (compare_func_passes(s.dsa.alpha_func, alpha[j], ref))
         pass |= 1u << j;
   return mask & pass;
}

namespace {

/** format_read_depth_raw for the layout. */
inline uint32_t
read_depth(ZsLayout l, const uint8_t *p)
{
   switch (l) {
   case ZsLayout::Z16:
      return uint32_t(p[0]) | uint32_t(p[1]) << 8;
   case ZsLayout::Z24Lo:
      return rd32(p) & 0xffffffu;
   case ZsLayout::Z24Hi:
      return rd32(p) >> 8;
   default:
      return rd32(p); /* Z32F, Z32FS8 */
   }
}

/** format_write_depth_raw (stencil bits kept). */
inline void
write_depth(ZsLayout l, uint32_t raw, uint8_t *p)
{
   switch (l) {
   case ZsLayout::Z16:
      p[0] = uint8_t(raw), p[1] = uint8_t(raw >> 8);
      break;
   case ZsLayout::Z24Lo:
      wr32(p, (rd32(p) & 0xff000000u) | (raw & 0xffffffu));
      break;
   case ZsLayout::Z24Hi:
      wr32(p, (rd32(p) & 0xffu) | raw << 8);
      break;
   default:
      wr32(p, raw);
      break;
   }
}

/** format_depth_to_raw(f, z, DepthRounding::Fragment): softpipe's
 * convert_quad_depth, z clamped to [0,1] (NaN -> 0) and truncated; fp32 bits
 * for float depth. */
inline uint32_t
fragment_depth(ZsLayout l, float z)
{
   if (l == ZsLayout::Z32F || l == ZsLayout::Z32FS8)
      return as_uint(z);
   float zf = z < 0.0f ? 0.0f : (z > 1.0f ? 1.0f : z);
   if (zf != zf)
      zf = 0.0f;
   return l == ZsLayout::Z16 ? uint32_t(zf * 65535.0f) : uint32_t(zf * 16777215.0f);
}

} // namespace

unsigned
omu_depth_stencil(const OmuState &s, int x, int y, unsigned mask, bool back_facing,
                  const float z[4])
{
   if (!s.any_zs || !mask)
      return mask;
   uint8_t *px[4] = {};
   uint32_t bz[4] = {}, qz[4] = {};
   uint8_t st[4] = {};
   const ZsLayout L = s.zs_layout;
   for (unsigned j = 0; j < 4; j++) {
      if (!(mask >> j & 1))
         continue;
      px[j] = pixel(s.zs_base, s.zs_pitch, s.zs_step, x + int(j & 1), y + int(j >> 1));
      if (s.depth_test) {
         bz[j] = read_depth(L, px[j]);
         float zc = z[j];
         zc = zc < s.depth_min ? s.depth_min : (zc > s.depth_max ? s.depth_max : zc);
         qz[j] = fragment_depth(L, zc);
      }
      if (s.stencil_test)
         st[j] = px[j][s.zs_stencil_byte];
   }

   auto depth_pass = [&](unsigned m) {
      unsigned zmask = 0;
      const vlg_compare_func f = s.dsa.depth_func;
      for (unsigned j = 0; j < 4; j++) {
         if (!(m >> j & 1))
            continue;
         const bool pass = s.zs_float ? compare_func_passes(f, as_float(qz[j]), as_float(bz[j]))
                                      : compare_func_passes(f, qz[j], bz[j]);
         if (pass)
            zmask |= 1u << j;
      }
      return zmask;
   };

   unsigned out = mask;
   if (s.stencil_test) {
      const unsigned face = (back_facing && s.dsa.stencil[1].enabled) ? 1 : 0;
      const VLG_STENCIL &sf = s.dsa.stencil[face];
      const uint8_t ref = uint8_t(s.stencil_ref.ref_value[face]);
      const uint8_t vm = uint8_t(sf.valuemask), wm = uint8_t(sf.writemask);
      for (unsigned j = 0; j < 4; j++) {
         if (!(mask >> j & 1))
            continue;
         /* (ref & valuemask) func (stored & valuemask), GL ES 3.0 §4.1.4 */
         if (!compare_func_passes(sf.func, uint32_t(ref & vm), uint32_t(st[j] & vm))) {
            out &= ~(1u << j);
            st[j] = stencil_op(sf.fail_op, st[j], ref, wm);
         }
      }
      if (out) {
         if (s.depth_test) {
            const unsigned zpass = depth_pass(out);
            for (unsigned j = 0; j < 4; j++) {
               if (!(out >> j & 1))
                  continue;
               st[j] = stencil_op((zpass >> j & 1) ? sf.zpass_op : sf.zfail_op, st[j], ref, wm);
            }
            out = zpass;
         } else {
            for (unsigned j = 0; j < 4; j++)
               if (out >> j & 1)
                  st[j] = stencil_op(sf.zpass_op, st[j], ref, wm);
         }
      }
      for (unsigned j = 0; j < 4; j++)
         if (mask >> j & 1)
            px[j][s.zs_stencil_byte] = st[j];
   } else {
      out = depth_pass(mask);
   }
   if (s.depth_write)
      for (unsigned j = 0; j < 4; j++)
         if (out >> j & 1)
            write_depth(L, qz[j], px[j]);
   return out;
}

unsigned
omu_depth_z16_run(const OmuState &s, const PrimSetup &setup, int base_x, int base_y, const Quad &q,
                  unsigned mask)
{
   if (!mask)
      return 0;
   /* sp_quad_depth_test_tmp.h: (ushort) casts of floats truncate through a
    * 32-bit integer on x86-64 (cvttss2si) */
   auto us = [](float f) -> uint16_t {
      const int32_t i = (f > -2147483648.0f && f < 2147483648.0f) ? int32_t(f) : INT32_MIN;
      return uint16_t(i);
   };
   const float fx = float(base_x), fy = float(base_y);
   const float dzdx = setup.pos.dadx[2], dzdy = setup.pos.dady[2];
   const float z0 = setup.pos.a0[2] + dzdx * fx + dzdy * fy;
   const float scale = 65535.0f;
   const uint16_t init[4] = {us(z0 * scale), us((z0 + dzdx) * scale), us((z0 + dzdy) * scale),
                             us((z0 + dzdx + dzdy) * scale)};
   const uint16_t step = us(dzdx * scale);
   const int dx = q.x - base_x;
   unsigned out = 0;
   for (unsigned j = 0; j < 4; j++) {
      if (!(mask >> j & 1))
         continue;
      const uint16_t iz = uint16_t(init[j] + dx * step);
      /* the row is the run's first quad's (all quads of a run share it) */
      uint8_t *p = pixel(s.zs_base, s.zs_pitch, 2, q.x + int(j & 1), base_y + int(j >> 1));
      const uint16_t stored = uint16_t(p[0] | p[1] << 8);
      if (compare_func_passes(s.dsa.depth_func, iz, stored)) {
         p[0] = uint8_t(iz);
         p[1] = uint8_t(iz >> 8);
         out |= 1u << j;
      }
   }
   return out;
}

namespace {

/** Destination pixel as fp32 RGBA (format_unpack_rgba). */
[[gnu::always_inline]] inline void
load_dst(const OmuTarget &t, const uint8_t *p, float d[4])
{
   constexpr float k = 1.0f / 255.0f; /* ubyte_to_float */
   switch (t.path) {
   case ColorPath::RGBA8:
      d[0] = float(p[0]) * k, d[1] = float(p[1]) * k, d[2] = float(p[2]) * k,
      d[3] = float(p[3]) * k;
      return;
   case ColorPath::BGRA8:
      d[0] = float(p[2]) * k, d[1] = float(p[1]) * k, d[2] = float(p[0]) * k,
      d[3] = float(p[3]) * k;
      return;
   case ColorPath::RGBX8:
      d[0] = float(p[0]) * k, d[1] = float(p[1]) * k, d[2] = float(p[2]) * k, d[3] = 1.0f;
      return;
   case ColorPath::BGRX8:
      d[0] = float(p[2]) * k, d[1] = float(p[1]) * k, d[2] = float(p[0]) * k, d[3] = 1.0f;
      return;
   default: {
      uint32_t w[4];
      format_unpack_rgba(t.format, p, w);
      for (unsigned c = 0; c < 4; c++)
         d[c] = as_float(w[c]);
      return;
   }
   }
}

/** format_pack_rgba of fp32 RGBA (padding written 0). */
[[gnu::always_inline]] inline void
store(const OmuTarget &t, uint8_t *p, const float v[4])
{
   switch (t.path) {
   case ColorPath::RGBA8:
      p[0] = unorm8(v[0]), p[1] = unorm8(v[1]), p[2] = unorm8(v[2]), p[3] = unorm8(v[3]);
      return;
   case ColorPath::BGRA8:
      p[0] = unorm8(v[2]), p[1] = unorm8(v[1]), p[2] = unorm8(v[0]), p[3] = unorm8(v[3]);
      return;
   case ColorPath::RGBX8:
      p[0] = unorm8(v[0]), p[1] = unorm8(v[1]), p[2] = unorm8(v[2]), p[3] = 0;
      return;
   case ColorPath::BGRX8:
      p[0] = unorm8(v[2]), p[1] = unorm8(v[1]), p[2] = unorm8(v[0]), p[3] = 0;
      return;
   default: {
      uint32_t w[4];
      for (unsigned c = 0; c < 4; c++)
         w[c] = as_uint(v[c]);
      format_pack_rgba(t.format, w, p);
      return;
   }
   }
}

/* PIPE_LOGICOP_* (and so vlg_logicop) is the operation's truth table: bit
 * (2s + d) of the value is the result for source bit s and destination bit
 * d (COPY = 0b1100, NOOP = 0b1010, AND = 0b1000, NOR = 0b0001). */
static_assert(VLG_LOGICOP_COPY == 12 && VLG_LOGICOP_NOOP == 10 && VLG_LOGICOP_AND == 8 &&
                 VLG_LOGICOP_NOR == 1 && VLG_LOGICOP_SET == 15,
              "vlg_logicop is a truth table");

inline uint8_t
logic_op(vlg_logicop f, uint8_t s, uint8_t d)
{
   return uint8_t(((f & 8) ? s & d : 0) | ((f & 4) ? s & ~d : 0) | ((f & 2) ? ~s & d : 0) |
                  ((f & 1) ? ~s & ~d : 0));
}

/** One pixel (or sample) of a logic-op target: the source packed like a
 *  store (normalized: clamped, then converted), combined byte by byte with
 *  the destination; channels outside @cmask keep the destination's bits. */
void
write_logic_op(const OmuTarget &t, uint8_t *p, const uint32_t src[4], unsigned cmask)
{
   uint8_t s[16], r[16];
   if (t.is_integer) {
      format_pack_rgba(t.format, src, s);
   } else {
      float sf[4];
      for (unsigned c = 0; c < 4; c++)
         sf[c] = clamp01(as_float(src[c]));
      store(t, s, sf);
   }
   for (unsigned i = 0; i < t.bpp; i++)
      r[i] = logic_op(t.logicop, s[i], p[i]);
   if (cmask != 0xf) {
      uint32_t rw[4], dw[4];
      format_unpack_rgba(t.format, r, rw);
      format_unpack_rgba(t.format, p, dw);
      for (unsigned c = 0; c < 4; c++)
         if (!(cmask >> c & 1))
            rw[c] = dw[c];
      format_pack_rgba(t.format, rw, r);
   }
   std::memcpy(p, r, t.bpp);
}

} // namespace

/* Not vectorized: the per-channel stores of the blend followed by 16-byte
 * vector loads stall on store forwarding (measured: a third of the time). */
__attribute__((optimize("no-tree-vectorize"))) void
omu_write_color(const OmuState &s, int x, int y, unsigned mask, const uint32_t (*color)[4][4])
{
   if (!s.sample_enabled)
      return;
   for (unsigned i = 0; i < s.nr_cbufs; i++) {
      const OmuTarget &t = s.rt[i];
      if (!t.written)
         continue;
      const unsigned cmask = t.rt.colormask;
      const bool need_dst = t.blend || cmask != 0xf;
      for (unsigned j = 0; j < 4; j++) {
         if (!(mask >> j & 1))
            continue;
         uint8_t *p = pixel(t.base, t.pitch, t.step, x + int(j & 1), y + int(j >> 1));
         const uint32_t *src = color[i][j];
         const uint32_t *src1 = color[kDualSourceSlot][j]; /* read if s.dual_source */
         if (t.logic) {
            write_logic_op(t, p, src, cmask);
            continue;
         }
         if (t.is_integer) {
            uint32_t outw[4];
            if (cmask != 0xf) {
               uint32_t dst[4];
               format_unpack_rgba(t.format, p, dst);
               for (unsigned c = 0; c < 4; c++)
                  outw[c] = (cmask >> c & 1) ? src[c] : dst[c];
            } else {
               std::memcpy(outw, src, sizeof(outw));
            }
            format_pack_rgba(t.format, outw, p);
            continue;
         }
         float sf[4], res[4], df[4];
         for (unsigned c = 0; c < 4; c++)
            sf[c] = t.clamp ? clamp01(as_float(src[c])) : as_float(src[c]);
         if (need_dst)
            load_dst(t, p, df);
         if (t.blend) {
            float s1[4] = {0, 0, 0, 0};
            if (s.dual_source)
               for (unsigned c = 0; c < 4; c++)
                  s1[c] = t.clamp ? clamp01(as_float(src1[c])) : as_float(src1[c]);
            blend_pixel(t.rt, sf, s1, df, t.const_color, res, t.clamp);
         } else {
            std::memcpy(res, sf, sizeof(res));
         }
         if (cmask != 0xf)
            for (unsigned c = 0; c < 4; c++)
               if (!(cmask >> c & 1))
                  res[c] = df[c];
         store(t, p, res);
      }
   }
}

PixelRect
omu_clear_rect(const DrawPackage &pkg)
{
   const VLG_DRAW_INFO &d = pkg.draw;
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   PixelRect r;
   r.x0 = std::min(d.clear_rect.minx, fb.width);
   r.y0 = std::min(d.clear_rect.miny, fb.height);
   r.x1 = std::min(d.clear_rect.maxx, fb.width);
   r.y1 = std::min(d.clear_rect.maxy, fb.height);
   return r;
}

uint64_t
omu_clear(const DrawPackage &pkg, Vram &vram)
{
   const VLG_DRAW_INFO &d = pkg.draw;
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   const PixelRect rect = omu_clear_rect(pkg);
   if (rect.empty())
      return 0;
   const unsigned x0 = rect.x0, y0 = rect.y0, x1 = rect.x1, y1 = rect.y1;
   uint64_t written = 0;
   const uint64_t area = rect.area();
   /* 4-sample surfaces: every sample of the pixels (docs/hw.md "Multisampling") */
   const unsigned ns = fb.samples == kMsaaSamples ? kMsaaSamples : 1;
   const unsigned sx0 = unsigned(x0) * ns, sx1 = unsigned(x1) * ns;

   auto fill = [&](const VLG_SURFACE &surf, const uint8_t *value, unsigned bpp) {
      const size_t row_bytes = size_t(sx1 - sx0) * bpp;
      for (unsigned layer = 0; layer < std::max(surf.layers, 1u); layer++) {
         uint8_t *base = vram.data() + surf.address + size_t(layer) * surf.layer_stride;
         for (unsigned y = y0; y < y1; y++) {
            uint8_t *row = base + size_t(y) * surf.pitch + size_t(sx0) * bpp;
            /* the value, then the row's filled part copied after itself: the
             * same bytes as one copy per pixel, in fewer calls */
            std::memcpy(row, value, bpp);
            for (size_t done = bpp; done < row_bytes;) {
               const size_t n = std::min(done, row_bytes - done);
               std::memcpy(row + done, row, n);
               done += n;
            }
         }
         written += area;
      }
   };

   for (unsigned i = 0; i < fb.nr_cbufs && i < kMaxColorBufs; i++) {
      const VLG_SURFACE &surf = fb.cbufs[i];
      if (!(d.clear_buffers >> (2 + i) & 1) || surf.format == VLG_FORMAT_NONE)
         continue;
      uint8_t value[16] = {};
      const uint32_t words[4] = {d.clear_color[0], d.clear_color[1], d.clear_color[2],
                                 d.clear_color[3]};
      format_pack_rgba(surf.format, words, value);
      fill(surf, value, vlg_format_bytes(surf.format));
   }

   const VLG_SURFACE &zs = fb.zsbuf;
   const unsigned zsbits = d.clear_buffers & 3u;
   if (zsbits && zs.format != VLG_FORMAT_NONE) {
      const FormatInfo &fi = format_info(zs.format);
      const bool do_depth = (zsbits & 1) && fi.is_depth;
      const bool do_stencil = (zsbits & 2) && fi.has_stencil;
      const bool whole = (do_depth || !fi.is_depth) && (do_stencil || !fi.has_stencil);
      const unsigned bpp = fi.bytes;
      const uint32_t raw =
         do_depth ? format_depth_to_raw(zs.format, d.clear_depth, DepthRounding::Clear) : 0;
      const uint8_t sval = uint8_t(d.clear_stencil);
      if (whole) {
         uint8_t value[8] = {};
         if (do_depth)
            format_write_depth_raw(zs.format, raw, value);
         if (do_stencil)
            format_pack_stencil(zs.format, sval, value);
         fill(zs, value, bpp);
      } else if (do_depth || do_stencil) {
         for (unsigned layer = 0; layer < std::max(zs.layers, 1u); layer++) {
            uint8_t *base = vram.data() + zs.address + size_t(layer) * zs.layer_stride;
            for (unsigned y = y0; y < y1; y++) {
               uint8_t *p = base + size_t(y) * zs.pitch + size_t(sx0) * bpp;
               for (unsigned x = sx0; x < sx1; x++, p += bpp) {
                  if (do_depth)
                     format_write_depth_raw(zs.format, raw, p);
                  if (do_stencil)
                     format_pack_stencil(zs.format, sval, p);
               }
            }
            written += area;
         }
      }
   }
   return written;
}

OmuState
omu_layer_view(const OmuState &s, unsigned layer)
{
   OmuState v = s;
   for (OmuTarget &t : v.rt)
      if (t.bound)
         t.base += size_t(layer) * t.layer_stride;
   if (v.zs_base)
      v.zs_base += size_t(layer) * v.zs_layer_stride;
   return v;
}

OmuState
omu_sample_view(const OmuState &s, unsigned sample)
{
   OmuState v = s;
   for (OmuTarget &t : v.rt)
      if (t.bound)
         t.base += size_t(sample) * t.bpp;
   if (v.zs_base)
      v.zs_base += size_t(sample) * v.zs_bpp;
   return v;
}

namespace {

/** Lanes of @samples (bit 4 * lane + s) that have sample @sample. */
inline unsigned
sample_lanes(uint16_t samples, unsigned sample)
{
   unsigned m = 0;
   for (unsigned l = 0; l < 4; l++)
      m |= (samples >> (4 * l + sample) & 1u) << l;
   return m;
}

} // namespace

uint16_t
omu_depth_stencil_samples(const OmuState &s, int x, int y, uint16_t samples, bool back_facing,
                          const float z[4][4])
{
   if (!s.any_zs)
      return samples;
   uint16_t pass = 0;
   for (unsigned smp = 0; smp < kMsaaSamples; smp++) {
      const unsigned lanes = sample_lanes(samples, smp);
      if (!lanes)
         continue;
      const OmuState v = omu_sample_view(s, smp);
      const float zs[4] = {z[0][smp], z[1][smp], z[2][smp], z[3][smp]};
      const unsigned p = omu_depth_stencil(v, x, y, lanes, back_facing, zs);
      for (unsigned l = 0; l < 4; l++)
         pass |= uint16_t((p >> l & 1u) << (4 * l + smp));
   }
   return pass;
}

void
omu_write_color_samples(const OmuState &s, int x, int y, uint16_t samples,
                        const uint32_t (*color)[4][4])
{
   for (unsigned smp = 0; smp < kMsaaSamples; smp++) {
      const unsigned lanes = sample_lanes(samples, smp);
      if (lanes)
         omu_write_color(omu_sample_view(s, smp), x, y, lanes, color);
   }
}

void
omu_resolve(Vram &vram, const VLG_SURFACE &src, const VLG_SURFACE &dst, unsigned width,
            unsigned height)
{
   const FormatInfo &fi = format_info(src.format);
   const unsigned bpp = fi.bytes;
   const bool average = !fi.is_integer && !(vlg_format_usage(src.format) & VLG_FORMAT_USAGE_ZS);
   for (unsigned y = 0; y < height; y++) {
      const uint8_t *srow = vram.data() + src.address + size_t(y) * src.pitch;
      uint8_t *drow = vram.data() + dst.address + size_t(y) * dst.pitch;
      for (unsigned x = 0; x < width; x++) {
         const uint8_t *sp = srow + size_t(x) * bpp * kMsaaSamples;
         uint8_t *dp = drow + size_t(x) * bpp;
         if (!average) {
            std::memcpy(dp, sp, bpp);
            continue;
         }
         float sum[4] = {0, 0, 0, 0};
         for (unsigned smp = 0; smp < kMsaaSamples; smp++) {
            uint32_t w[4];
            format_unpack_rgba(src.format, sp + smp * bpp, w);
            for (unsigned c = 0; c < 4; c++)
               sum[c] += as_float(w[c]);
         }
         uint32_t out[4];
         for (unsigned c = 0; c < 4; c++)
            out[c] = as_uint(sum[c] * 0.25f);
         format_pack_rgba(dst.format, out, dp);
      }
   }
}

uint64_t
omu_resolve_draw(const DrawPackage &pkg, Vram &vram)
{
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   const bool color = fb.nr_cbufs >= 1 && fb.cbufs[0].format != VLG_FORMAT_NONE;
   omu_resolve(vram, color ? fb.cbufs[0] : fb.zsbuf, pkg.resolve_dst, fb.width, fb.height);
   return uint64_t(fb.width) * fb.height;
}

} // namespace vlgpu::sim
