/*
 * vlgpu simulator, functional pipeline: OMU (see omu.h).
 */
#include "omu.h"

#include <algorithm>
#include <cstring>

#include "sim/func/tex/format.h"

namespace vlgpu::sim {

namespace {

inline float
u2f(uint32_t u)
{
   float f;
   std::memcpy(&f, &u, 4);
   return f;
}

inline uint32_t
f2u(float f)
{
   uint32_t u;
   std::memcpy(&u, &f, 4);
   return u;
}

/** softpipe CLAMP(x, 0, 1): NaN passes through (it is packed as 0 later). */
inline float
clamp01(float x)
{
   return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

inline bool
compare(vlg_compare_func f, uint32_t a, uint32_t b)
{
   switch (f) {
   case VLG_COMPARE_FUNC_NEVER:
      return false;
   case VLG_COMPARE_FUNC_LESS:
      return a < b;
   case VLG_COMPARE_FUNC_EQUAL:
      return a == b;
   case VLG_COMPARE_FUNC_LEQUAL:
      return a <= b;
   case VLG_COMPARE_FUNC_GREATER:
      return a > b;
   case VLG_COMPARE_FUNC_NOTEQUAL:
      return a != b;
   case VLG_COMPARE_FUNC_GEQUAL:
      return a >= b;
   default:
      return true;
   }
}

inline bool
comparef(vlg_compare_func f, float a, float b)
{
   switch (f) {
   case VLG_COMPARE_FUNC_NEVER:
      return false;
   case VLG_COMPARE_FUNC_LESS:
      return a < b;
   case VLG_COMPARE_FUNC_EQUAL:
      return a == b;
   case VLG_COMPARE_FUNC_LEQUAL:
      return a <= b;
   case VLG_COMPARE_FUNC_GREATER:
      return a > b;
   case VLG_COMPARE_FUNC_NOTEQUAL:
      return a != b;
   case VLG_COMPARE_FUNC_GEQUAL:
      return a >= b;
   default:
      return true;
   }
}

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

/* Blend factor of the RGB part (channel c of 0..2) and the alpha part, GL ES
 * 3.0 Table 4.2, as softpipe's blend_quad computes them. */
inline float
rgb_factor(vlg_blend_factor f, unsigned c, const float s[4], const float d[4], const float k[4])
{
   switch (f) {
   case VLG_BLEND_FACTOR_ONE:
      return 1.0f;
   case VLG_BLEND_FACTOR_SRC_COLOR:
      return s[c];
   case VLG_BLEND_FACTOR_SRC_ALPHA:
      return s[3];
   case VLG_BLEND_FACTOR_DST_ALPHA:
      return d[3];
   case VLG_BLEND_FACTOR_DST_COLOR:
      return d[c];
   case VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE: {
      const float diff = 1.0f - d[3];
      return s[3] < diff ? s[3] : diff; /* VEC4_MIN */
   }
   case VLG_BLEND_FACTOR_CONST_COLOR:
      return k[c];
   case VLG_BLEND_FACTOR_CONST_ALPHA:
      return k[3];
   case VLG_BLEND_FACTOR_ZERO:
      return 0.0f;
   case VLG_BLEND_FACTOR_INV_SRC_COLOR:
      return 1.0f - s[c];
   case VLG_BLEND_FACTOR_INV_SRC_ALPHA:
      return 1.0f - s[3];
   case VLG_BLEND_FACTOR_INV_DST_ALPHA:
      return 1.0f - d[3];
   case VLG_BLEND_FACTOR_INV_DST_COLOR:
      return 1.0f - d[c];
   case VLG_BLEND_FACTOR_INV_CONST_COLOR:
      return 1.0f - k[c];
   case VLG_BLEND_FACTOR_INV_CONST_ALPHA:
      return 1.0f - k[3];
   default: /* SRC1 factors are rejected by load_draw_package */
      return 0.0f;
   }
}

inline float
alpha_factor(vlg_blend_factor f, const float s[4], const float d[4], const float k[4])
{
   switch (f) {
   case VLG_BLEND_FACTOR_ONE:
   case VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE:
      return 1.0f;
   case VLG_BLEND_FACTOR_SRC_COLOR:
   case VLG_BLEND_FACTOR_SRC_ALPHA:
      return s[3];
   case VLG_BLEND_FACTOR_DST_COLOR:
   case VLG_BLEND_FACTOR_DST_ALPHA:
      return d[3];
   case VLG_BLEND_FACTOR_CONST_COLOR:
   case VLG_BLEND_FACTOR_CONST_ALPHA:
      return k[3];
   case VLG_BLEND_FACTOR_ZERO:
      return 0.0f;
   case VLG_BLEND_FACTOR_INV_SRC_COLOR:
   case VLG_BLEND_FACTOR_INV_SRC_ALPHA:
      return 1.0f - s[3];
   case VLG_BLEND_FACTOR_INV_DST_COLOR:
   case VLG_BLEND_FACTOR_INV_DST_ALPHA:
      return 1.0f - d[3];
   case VLG_BLEND_FACTOR_INV_CONST_COLOR:
   case VLG_BLEND_FACTOR_INV_CONST_ALPHA:
      return 1.0f - k[3];
   default:
      return 0.0f;
   }
}

/* The product term: ONE and ZERO are exact in softpipe (copy / zero), every
 * other factor is one fp32 multiply. */
inline float
term(vlg_blend_factor f, float v, float factor)
{
   if (f == VLG_BLEND_FACTOR_ONE)
      return v;
   if (f == VLG_BLEND_FACTOR_ZERO)
      return 0.0f;
   return v * factor;
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

inline uint8_t *
pixel(uint8_t *base, uint32_t pitch, uint32_t bpp, int x, int y)
{
   return base + size_t(y) * pitch + size_t(x) * bpp;
}

} // namespace

void
omu_blend_pixel(const VLG_BLEND_RT &rt, const float src[4], const float dst[4],
                const float k[4], float out[4])
{
   for (unsigned c = 0; c < 3; c++) {
      const float s = term(rt.rgb_src_factor, src[c], rgb_factor(rt.rgb_src_factor, c, src, dst, k));
      const float d = term(rt.rgb_dst_factor, dst[c], rgb_factor(rt.rgb_dst_factor, c, src, dst, k));
      out[c] = combine(rt.rgb_func, s, d, src[c], dst[c]);
   }
   const float s = term(rt.alpha_src_factor, src[3], alpha_factor(rt.alpha_src_factor, src, dst, k));
   const float d = term(rt.alpha_dst_factor, dst[3], alpha_factor(rt.alpha_dst_factor, src, dst, k));
   out[3] = combine(rt.alpha_func, s, d, src[3], dst[3]);
}

OmuState
make_omu_state(const DrawPackage &pkg, Vram &vram, unsigned fs_color_written)
{
   OmuState s;
   s.dsa = pkg.pipe.depth_stencil_alpha;
   s.stencil_ref = pkg.pipe.stencil_ref;
   s.nr_cbufs = pkg.fb.nr_cbufs;
   s.sample_enabled = (pkg.pipe.sample_mask.mask & 1) != 0;
   const VLG_BLEND &b = pkg.pipe.blend;
   const VLG_BLEND_COLOR &bc = pkg.pipe.blend_color;
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
      t.base = vram.data() + surf.address; /* range validated by load_draw_package */
      t.is_integer = fi.is_integer;
      t.clamp = fi.is_normalized;
      t.rt = b.independent_blend_enable ? b.rt[i] : b.rt[0];
      t.blend = t.rt.blend_enable && !t.is_integer;
      t.written = (fs_color_written >> i & 1) && t.rt.colormask != 0;
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
      s.zs_float = zs.format == VLG_FORMAT_Z32_FLOAT || zs.format == VLG_FORMAT_Z32_FLOAT_S8X24_UINT;
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
   s.early_z = s.any_zs && !s.dsa.alpha_enable && !pkg.fs.state.uses_discard &&
               !pkg.fs.state.writes_depth;
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
      if (comparef(s.dsa.alpha_func, alpha[j], ref))
         pass |= 1u << j;
   return mask & pass;
}

unsigned
omu_depth_stencil(const OmuState &s, int x, int y, unsigned mask, bool back_facing,
                  const float z[4])
{
   if (!s.any_zs || !mask)
      return mask;
   uint8_t *px[4] = {};
   uint32_t bz[4] = {}, qz[4] = {};
   uint8_t st[4] = {};
   for (unsigned j = 0; j < 4; j++) {
      if (!(mask >> j & 1))
         continue;
      px[j] = pixel(s.zs_base, s.zs_pitch, s.zs_bpp, x + int(j & 1), y + int(j >> 1));
      if (s.depth_test) {
         bz[j] = format_read_depth_raw(s.zs_format, px[j]);
         float zc = z[j];
         zc = zc < s.depth_min ? s.depth_min : (zc > s.depth_max ? s.depth_max : zc);
         qz[j] = format_depth_to_raw(s.zs_format, zc, DepthRounding::Fragment);
      }
      if (s.stencil_test)
         st[j] = format_unpack_stencil(s.zs_format, px[j]);
   }

   auto depth_pass = [&](unsigned m) {
      unsigned zmask = 0;
      const vlg_compare_func f = s.dsa.depth_func;
      for (unsigned j = 0; j < 4; j++) {
         if (!(m >> j & 1))
            continue;
         const bool pass = s.zs_float ? comparef(f, u2f(qz[j]), u2f(bz[j]))
                                      : compare(f, qz[j], bz[j]);
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
         if (!compare(sf.func, uint32_t(ref & vm), uint32_t(st[j] & vm))) {
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
            format_pack_stencil(s.zs_format, st[j], px[j]);
   } else {
      out = depth_pass(mask);
   }
   if (s.depth_write)
      for (unsigned j = 0; j < 4; j++)
         if (out >> j & 1)
            format_write_depth_raw(s.zs_format, qz[j], px[j]);
   return out;
}

void
omu_write_color(const OmuState &s, int x, int y, unsigned mask, const uint32_t (*color)[4][4])
{
   if (!s.sample_enabled)
      return;
   for (unsigned i = 0; i < s.nr_cbufs; i++) {
      const OmuTarget &t = s.rt[i];
      if (!t.written)
         continue;
      const unsigned cmask = t.rt.colormask;
      for (unsigned j = 0; j < 4; j++) {
         if (!(mask >> j & 1))
            continue;
         uint8_t *p = pixel(t.base, t.pitch, t.bpp, x + int(j & 1), y + int(j >> 1));
         const uint32_t *src = color[i][j];
         uint32_t outw[4];
         if (t.is_integer) {
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
         float sf[4], res[4];
         for (unsigned c = 0; c < 4; c++)
            sf[c] = t.clamp ? clamp01(u2f(src[c])) : u2f(src[c]);
         float df[4] = {0, 0, 0, 0};
         if (t.blend || cmask != 0xf) {
            uint32_t dw[4];
            format_unpack_rgba(t.format, p, dw);
            for (unsigned c = 0; c < 4; c++)
               df[c] = u2f(dw[c]);
         }
         if (t.blend) {
            omu_blend_pixel(t.rt, sf, df, t.const_color, res);
            if (t.clamp)
               for (unsigned c = 0; c < 4; c++)
                  res[c] = clamp01(res[c]);
         } else {
            std::memcpy(res, sf, sizeof(res));
         }
         for (unsigned c = 0; c < 4; c++)
            outw[c] = f2u((cmask >> c & 1) ? res[c] : df[c]);
         format_pack_rgba(t.format, outw, p);
      }
   }
}

uint64_t
omu_clear(const DrawPackage &pkg, Vram &vram)
{
   const VLG_DRAW_INFO &d = pkg.draw;
   const VLG_FRAMEBUFFER &fb = pkg.fb;
   const unsigned x0 = std::min(d.clear_rect.minx, fb.width);
   const unsigned y0 = std::min(d.clear_rect.miny, fb.height);
   const unsigned x1 = std::min(d.clear_rect.maxx, fb.width);
   const unsigned y1 = std::min(d.clear_rect.maxy, fb.height);
   if (x0 >= x1 || y0 >= y1)
      return 0;
   uint64_t written = 0;
   const uint64_t area = uint64_t(x1 - x0) * (y1 - y0);

   auto fill = [&](const VLG_SURFACE &surf, const uint8_t *value, unsigned bpp) {
      uint8_t *base = vram.data() + surf.address;
      for (unsigned y = y0; y < y1; y++) {
         uint8_t *row = base + size_t(y) * surf.pitch + size_t(x0) * bpp;
         for (unsigned x = x0; x < x1; x++, row += bpp)
            std::memcpy(row, value, bpp);
      }
      written += area;
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
         uint8_t *base = vram.data() + zs.address;
         for (unsigned y = y0; y < y1; y++) {
            uint8_t *p = base + size_t(y) * zs.pitch + size_t(x0) * bpp;
            for (unsigned x = x0; x < x1; x++, p += bpp) {
               if (do_depth)
                  format_write_depth_raw(zs.format, raw, p);
               if (do_stencil)
                  format_pack_stencil(zs.format, sval, p);
            }
         }
         written += area;
      }
   }
   return written;
}

} // namespace vlgpu::sim
