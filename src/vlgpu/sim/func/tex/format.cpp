/*
 * vlgpu simulator: format conversions (see format.h for the contract).
 *
 * One table entry per vlg_format value holds its properties and pointers to
 * unpack/pack functions. The functions are template instantiations, one per
 * format, so every format -- B8G8R8A8_UNORM, R32G32B32A32_FLOAT and the other
 * hot ones included -- runs straight-line code with its channel sizes,
 * types and swizzle as compile-time constants: a call costs one table load
 * and one indirect call, never a switch on the format.
 *
 * The arithmetic follows Mesa 22.3.6 operation for operation (the comments
 * name the Mesa function each piece reproduces) because softpipe, the
 * reference renderer, uses it; see format.h for the GL ES 3.0 sections.
 * The file must be compiled without floating-point contraction (meson.build
 * passes -ffp-contract=off) so that a*b+c rounds twice, as in Mesa.
 */
#include "sim/func/tex/format.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/core/gpu_fault.h"
#include "common/bits.h"

namespace vlgpu::sim {

namespace {

/* ----------------------------------------------------------- scalars -- */

/* Mesa CLAMP(): NaN passes through (both comparisons false). */
inline float
mesa_clamp(float x, float lo, float hi)
{
   return x < lo ? lo : (x > hi ? hi : x);
}

/* Mesa util_iround() on x86-64 (the generic branch of u_math.h): halves
 * away from zero. NaN and out-of-int-range values give 0, where C would be
 * undefined (x86 cvttss2si returns INT_MIN, which every caller masks to 0). */
inline int32_t
mesa_iround(float f)
{
   if (!(f > -2147483520.0f && f < 2147483520.0f))
      return 0;
   return f >= 0.0f ? static_cast<int32_t>(f + 0.5f) : static_cast<int32_t>(f - 0.5f);
}

/* sRGB decode table, built exactly as Mesa's format_srgb.py builds
 * util_format_srgb_8unorm_to_linear_float_table: the double-precision sRGB
 * curve (GL ES 3.0 sRGB texture colour conversion) printed with '%.7e' and read back as a float. */
struct SrgbDecodeTable {
   float v[256];
   SrgbDecodeTable()
   {
      for (int i = 0; i < 256; i++) {
         const double x = i / 255.0;
         const double l = x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
         char buf[32];
         std::snprintf(buf, sizeof(buf), "%.7e", l);
         v[i] = std::strtof(buf, nullptr);
      }
   }
};

const SrgbDecodeTable &
srgb_decode_table()
{
   static const SrgbDecodeTable t;
   return t;
}

/* util_format_linear_to_srgb_helper_table[104] of Mesa 22.3.6, the output of
 * src/util/format_srgb.py (MIT, VMware): per bucket of 8 mantissa steps over
 * 13 binades, bias (high 16 bits) and scale (low 16 bits) of a linear fit of
 * the sRGB curve. tests/sim/func_tex regenerates it with the script's
 * algorithm and compares. */
constexpr uint32_t kLinearToSrgbHelper[104] = {
   0x0073000d, 0x007a000d, 0x0080000d, 0x0087000d, 0x008d000d, 0x0094000d, 0x009a000d, 0x00a1000d,
   0x00a7001a, 0x00b4001a, 0x00c1001a, 0x00ce001a, 0x00da001a, 0x00e7001a, 0x00f4001a, 0x0101001a,
   0x010e0033, 0x01280033, 0x01410033, 0x015b0033, 0x01750033, 0x018f0033, 0x01a80033, 0x01c20033,
   0x01dc0067, 0x020f0067, 0x02430067, 0x02760067, 0x02aa0067, 0x02dd0067, 0x03110067, 0x03440067,
   0x037800ce, 0x03df00ce, 0x044600ce, 0x04ad00ce, 0x051400ce, 0x057b00c5, 0x05dd00bc, 0x063b00b5,
   0x06970158, 0x07420142, 0x07e30130, 0x087b0120, 0x090b0112, 0x09940106, 0x0a1700fc, 0x0a9500f2,
   0x0b0f01cb, 0x0bf401ae, 0x0ccb0195, 0x0d950180, 0x0e56016e, 0x0f0d015e, 0x0fbc0150, 0x10630143,
   0x11070264, 0x1238023e, 0x1357021d, 0x14660201, 0x156601e9, 0x165a01d3, 0x174401c0, 0x182401af,
   0x18fe0331, 0x1a9602fe, 0x1c1502d2, 0x1d7e02ad, 0x1ed4028d, 0x201a0270, 0x21520256, 0x227d0240,
   0x239f0443, 0x25c003fe, 0x27bf03c4, 0x29a10392, 0x2b6a0367, 0x2d1d0341, 0x2ebe031f, 0x304d0300,
   0x31d105b0, 0x34a80555, 0x37520507, 0x39d504c5, 0x3c37048b, 0x3e7c0458, 0x40a8042a, 0x42bd0401,
   0x44c20798, 0x488e071e, 0x4c1c06b6, 0x4f76065d, 0x52a50610, 0x55ac05cc, 0x5892058f, 0x5b590559,
   0x5e0c0a23, 0x631c0980, 0x67db08f6, 0x6c55087f, 0x70940818, 0x74a007bd, 0x787d076c, 0x7c330723,
};

/* -------------------------------------------- packed float formats -- */

/* Mesa format_r11g11b10f.h uf11_to_f32 / uf10_to_f32 (exact). */
template <unsigned MBITS>
float
ufloat_to_f32(uint32_t val)
{
   const int exponent = (val >> MBITS) & 0x1f;
   const int mantissa = val & ((1u << MBITS) - 1);
   if (exponent == 0) {
      if (mantissa == 0)
         return 0.0f;
      const float scale = static_cast<float>(1.0 / (1 << (14 + MBITS)));
      return scale * mantissa;
   }
   if (exponent == 31)
      return as_float(0x7f800000u | mantissa);
   const int e = exponent - 15;
   const float scale = e < 0 ? 1.0f / static_cast<float>(1 << -e) : static_cast<float>(1 << e);
   const float decimal = 1.0f + static_cast<float>(mantissa) / (1 << MBITS);
   return scale * decimal;
}

/* Mesa f32_to_uf11 / f32_to_uf10: truncating, negative and -inf -> 0,
 * NaN -> NaN, finite values above the maximum -> the maximum, values below
 * the smallest normal -> 0 (GL ES 3.0 unsigned 11/10-bit floats, EXT_packed_float). */
template <unsigned MBITS>
uint32_t
f32_to_ufloat(float val)
{
   const uint32_t u = as_uint(val);
   const int sign = (u >> 16) & 0x8000;
   int exponent = static_cast<int>((u >> 23) & 0xff) - 127;
   int mantissa = u & 0x007fffff;
   const uint32_t max_exp = 0x1fu << MBITS;
   const float max_value = MBITS == 6 ? 65024.0f : 64512.0f;
   if (exponent == 128) {
      if (mantissa)
         return max_exp | 1;
      return sign ? 0 : max_exp;
   }
   if (sign)
      return 0;
   if (val > max_value)
      return (30u << MBITS) | ((1u << MBITS) - 1);
   if (exponent > -15) {
      exponent += 15;
      mantissa >>= 23 - MBITS;
      return static_cast<uint32_t>(exponent) << MBITS | static_cast<uint32_t>(mantissa);
   }
   return 0;
}

/* Mesa format_rgb9e5.h rgb9e5_to_float3 (exact). */
void
rgb9e5_to_float3(uint32_t rgb, float out[3])
{
   const int exponent = static_cast<int>(rgb >> 27) - 15 - 9;
   const float scale = as_float(static_cast<uint32_t>(exponent + 127) << 23);
   out[0] = static_cast<float>(rgb & 0x1ff) * scale;
   out[1] = static_cast<float>((rgb >> 9) & 0x1ff) * scale;
   out[2] = static_cast<float>((rgb >> 18) & 0x1ff) * scale;
}

/* Mesa rgb9e5_ClampRange: negative and NaN -> 0, large -> MAX_RGB9E5. */
uint32_t
rgb9e5_clamp_range(float x)
{
   const float max_rgb9e5 = 511.0f / 512.0f * 65536.0f;
   const uint32_t f = as_uint(x), max = as_uint(max_rgb9e5);
   if (f > 0x7f800000u)
      return 0;
   return f >= max ? max : f;
}

/* Mesa float3_to_rgb9e5 (the GL ES 3.0 RGB9E5 equations with the exponent adjust
 * folded into a rounding add). */
uint32_t
float3_to_rgb9e5(const float rgb[3])
{
   const uint32_t rc = rgb9e5_clamp_range(rgb[0]);
   const uint32_t gc = rgb9e5_clamp_range(rgb[1]);
   const uint32_t bc = rgb9e5_clamp_range(rgb[2]);
   uint32_t maxrgb = rc > gc ? rc : gc;
   maxrgb = maxrgb > bc ? maxrgb : bc;
   maxrgb += maxrgb & (1u << (23 - 9));
   const int biased = static_cast<int>(maxrgb >> 23);
   const int exp_shared = (biased > -15 - 1 + 127 ? biased : -15 - 1 + 127) + 1 + 15 - 127;
   const uint32_t revdenom_biasedexp = static_cast<uint32_t>(127 - (exp_shared - 15 - 9) + 1);
   const float revdenom = as_float(revdenom_biasedexp << 23);
   int rm = static_cast<int>(as_float(rc) * revdenom);
   int gm = static_cast<int>(as_float(gc) * revdenom);
   int bm = static_cast<int>(as_float(bc) * revdenom);
   rm = (rm & 1) + (rm >> 1);
   gm = (gm & 1) + (gm >> 1);
   bm = (bm & 1) + (bm >> 1);
   return static_cast<uint32_t>(exp_shared) << 27 | static_cast<uint32_t>(bm) << 18 |
          static_cast<uint32_t>(gm) << 9 | static_cast<uint32_t>(rm);
}

/* -------------------------------------------------- plain formats -- */

/* Channel types, named as the generated VLG_FORMAT_PLAIN_LIST spells them. */
enum class CT : uint8_t { UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT, FIXED };

/* Swizzle of a format: output component i takes channel (SWZ >> 3i) & 7;
 * 0-3 = stored channel, 4 = constant 0, 5 = constant 1 (u_format.csv). */
constexpr unsigned
sw(const char (&s)[5])
{
   unsigned r = 0;
   for (int i = 0; i < 4; i++) {
      const char c = s[i];
      const unsigned v = c == 'x'   ? 0
                         : c == 'y' ? 1
                         : c == 'z' ? 2
                         : c == 'w' ? 3
                         : c == '0' ? 4
                                    : 5;
      r |= v << (3 * i);
   }
   return r;
}

constexpr unsigned
swz_of(unsigned swz, unsigned i)
{
   return (swz >> (3 * i)) & 7;
}

/* Mesa inv_swizzles(): the first output component that reads channel c, or
 * -1 (L8 takes R, A8 takes A). */
constexpr int
inv_swz(unsigned swz, unsigned c)
{
   for (unsigned i = 0; i < 4; i++)
      if (swz_of(swz, i) == c)
         return static_cast<int>(i);
   return -1;
}

template <unsigned B>
constexpr uint32_t
mask_of()
{
   return B >= 32 ? 0xffffffffu : (1u << B) - 1;
}

template <unsigned B>
inline int32_t
sign_extend(uint32_t raw)
{
   if constexpr (B >= 32)
      return static_cast<int32_t>(raw);
   else
      return static_cast<int32_t>(raw << (32 - B)) >> (32 - B);
}

template <CT T>
constexpr uint32_t
one_of()
{
   return (T == CT::UINT || T == CT::SINT) ? 1u : 0x3f800000u;
}

/* One channel of B bits (zero-extended in raw) -> one output word
 * (u_format_pack.py conversion_expr towards float/unsigned/signed). */
template <CT T, unsigned B>
inline uint32_t
cvt_in(uint32_t raw)
{
   if constexpr (T == CT::UNORM) {
      if constexpr (B == 32)
         return as_uint(static_cast<float>(static_cast<double>(raw) * (1.0 / 4294967295.0)));
      else
         return as_uint(static_cast<float>(raw) * (1.0f / static_cast<float>(mask_of<B>())));
   } else if constexpr (T == CT::SNORM) {
      const int32_t s = sign_extend<B>(raw);
      if constexpr (B == 32) {
         const double d = static_cast<double>(s) * (1.0 / 2147483647.0);
         return as_uint(static_cast<float>(d < -1.0 ? -1.0 : d));
      } else {
         const float f = static_cast<float>(s) * (1.0f / static_cast<float>(mask_of<B - 1>()));
         return as_uint(f < -1.0f ? -1.0f : f); /* GL ES 3.0 section 2.1.6 */
      }
   } else if constexpr (T == CT::USCALED) {
      return as_uint(static_cast<float>(raw));
   } else if constexpr (T == CT::SSCALED) {
      return as_uint(static_cast<float>(sign_extend<B>(raw)));
   } else if constexpr (T == CT::UINT) {
      return raw;
   } else if constexpr (T == CT::SINT) {
      return static_cast<uint32_t>(sign_extend<B>(raw));
   } else if constexpr (T == CT::FLOAT) {
      static_assert(B == 16 || B == 32, "float channels are 16 or 32 bits");
      if constexpr (B == 16)
         return as_uint(half_to_float(static_cast<uint16_t>(raw)));
      else
         return raw;
   } else {
      static_assert(B == 32, "fixed channels are 32 bits (GL_FIXED)");
      return as_uint(
         static_cast<float>(static_cast<double>(static_cast<int32_t>(raw)) * (1.0 / 65536.0)));
   }
}

template <CT T, unsigned B>
inline uint32_t
cvt_in_opt(uint32_t raw)
{
   if constexpr (B == 0)
      return 0;
   else
      return cvt_in<T, B>(raw);
}

/* One input word -> one channel of B bits (masked), as Mesa's generated
 * util_format_*_pack_rgba_float / pack_unsigned / pack_signed. */
template <CT T, unsigned B>
inline uint32_t
cvt_out(uint32_t w)
{
   const float f = as_float(w);
   if constexpr (T == CT::UNORM) {
      if constexpr (B == 8) {
         return float_to_unorm8(f);
      } else if constexpr (B == 32) {
         const float c = mesa_clamp(f, 0.0f, 1.0f);
         return c == c ? static_cast<uint32_t>(static_cast<double>(c) * 4294967295.0) : 0;
      } else {
         const float c = mesa_clamp(f, 0.0f, 1.0f);
         return static_cast<uint32_t>(mesa_iround(c * static_cast<float>(mask_of<B>()))) &
                mask_of<B>();
      }
   } else if constexpr (T == CT::SNORM) {
      const float c = mesa_clamp(f, -1.0f, 1.0f);
      if constexpr (B == 32) {
         return c == c ? static_cast<uint32_t>(static_cast<int32_t>(c * 2147483647.0)) : 0;
      } else {
         return static_cast<uint32_t>(mesa_iround(c * static_cast<float>(mask_of<B - 1>()))) &
                mask_of<B>();
      }
   } else if constexpr (T == CT::USCALED) {
      /* u_format_pack.py clamp_expr: the top of the range truncated to a
       * float mantissa (4294967040.0f for 32 bits), then a C cast. */
      constexpr float hi = B >= 32 ? 4294967040.0f : static_cast<float>(mask_of<B>());
      const float c = mesa_clamp(f, 0.0f, hi);
      return c == c ? static_cast<uint32_t>(c) & mask_of<B>() : 0;
   } else if constexpr (T == CT::SSCALED) {
      constexpr float hi = B >= 32 ? 2147483520.0f : static_cast<float>(mask_of<B - 1>());
      constexpr float lo = B >= 32 ? -2147483648.0f : -static_cast<float>(mask_of<B - 1>()) - 1.0f;
      const float c = mesa_clamp(f, lo, hi);
      return c == c ? static_cast<uint32_t>(static_cast<int32_t>(c)) & mask_of<B>() : 0;
   } else if constexpr (T == CT::UINT) {
      if constexpr (B >= 32)
         return w;
      else
         return w > mask_of<B>() ? mask_of<B>() : w;
   } else if constexpr (T == CT::SINT) {
      if constexpr (B >= 32) {
         return w;
      } else {
         const int32_t v = static_cast<int32_t>(w);
         constexpr int32_t hi = static_cast<int32_t>(mask_of<B - 1>());
         constexpr int32_t lo = -hi - 1;
         return static_cast<uint32_t>(v < lo ? lo : (v > hi ? hi : v)) & mask_of<B>();
      }
   } else if constexpr (T == CT::FLOAT) {
      if constexpr (B == 16)
         return float_to_half_rtz(f);
      else
         return w;
   } else {
      /* 16.16 fixed; clamped to the representable range (Mesa's bound of
       * +-65536 would overflow int32). */
      const double c = f == f ? (f < -32768.0f ? -32768.0 : (f > 32767.0f ? 32767.0 : f)) : 0.0;
      const double d = c * 65536.0;
      return static_cast<uint32_t>(static_cast<int32_t>(d > 2147483647.0 ? 2147483647.0 : d));
   }
}

template <unsigned B>
inline uint32_t
load_le(const uint8_t *p)
{
   if constexpr (B == 8) {
      return p[0];
   } else if constexpr (B == 16) {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
   } else {
      static_assert(B == 32, "array channels are 8, 16 or 32 bits");
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
   }
}

template <unsigned B>
inline void
store_le(uint8_t *p, uint32_t v)
{
   if constexpr (B == 8) {
      p[0] = static_cast<uint8_t>(v);
   } else if constexpr (B == 16) {
      const uint16_t h = static_cast<uint16_t>(v);
      std::memcpy(p, &h, 2);
   } else {
      std::memcpy(p, &v, 4);
   }
}

/* Reads channel I (B bits) of a plain format. WORD = 0: array format, the
 * channel at byte OFF; WORD = 16/32: bitfield at bit OFF of one word. */
template <unsigned WORD, unsigned B, unsigned OFF>
inline uint32_t
read_chan(const uint8_t *src, uint32_t word)
{
   if constexpr (B == 0)
      return 0;
   else if constexpr (WORD == 0)
      return load_le<B>(src + OFF / 8);
   else
      return (word >> OFF) & mask_of<B>();
}

template <unsigned WORD>
inline uint32_t
read_word(const uint8_t *src)
{
   if constexpr (WORD == 0)
      return 0;
   else
      return load_le<WORD>(src);
}

template <CT T, unsigned WORD, unsigned B0, unsigned B1, unsigned B2, unsigned B3, unsigned SWZ,
          bool SRGB>
void
unpack_plain(const uint8_t *src, uint32_t out[4])
{
   const uint32_t word = read_word<WORD>(src);
   uint32_t raw[4], v[6];
   raw[0] = read_chan<WORD, B0, 0>(src, word);
   raw[1] = read_chan<WORD, B1, B0>(src, word);
   raw[2] = read_chan<WORD, B2, B0 + B1>(src, word);
   raw[3] = read_chan<WORD, B3, B0 + B1 + B2>(src, word);
   v[0] = cvt_in_opt<T, B0>(raw[0]);
   v[1] = cvt_in_opt<T, B1>(raw[1]);
   v[2] = cvt_in_opt<T, B2>(raw[2]);
   v[3] = cvt_in_opt<T, B3>(raw[3]);
   v[4] = 0;
   v[5] = one_of<T>();
   out[0] = v[swz_of(SWZ, 0)];
   out[1] = v[swz_of(SWZ, 1)];
   out[2] = v[swz_of(SWZ, 2)];
   out[3] = v[swz_of(SWZ, 3)];
   if constexpr (SRGB) {
      /* R, G, B through the sRGB table; alpha stays linear (u_format_pack.py). */
      const float *t = srgb_decode_table().v;
      for (unsigned i = 0; i < 3; i++)
         if (swz_of(SWZ, i) < 4)
            out[i] = as_uint(t[raw[swz_of(SWZ, i)] & 0xff]);
   }
}

template <CT T, unsigned B, unsigned SWZ, unsigned C, bool SRGB>
inline uint32_t
pack_chan(const uint32_t in[4])
{
   constexpr int i = inv_swz(SWZ, C);
   if constexpr (B == 0 || i < 0) {
      return 0;
   } else if constexpr (SRGB && i < 3) {
      return linear_to_srgb8(as_float(in[i]));
   } else {
      return cvt_out<T, B>(in[i]);
   }
}

template <CT T, unsigned WORD, unsigned B0, unsigned B1, unsigned B2, unsigned B3, unsigned PAD,
          unsigned SWZ, bool SRGB>
void
pack_plain(const uint32_t in[4], uint8_t *dst)
{
   const uint32_t c0 = pack_chan<T, B0, SWZ, 0, SRGB>(in);
   const uint32_t c1 = pack_chan<T, B1, SWZ, 1, SRGB>(in);
   const uint32_t c2 = pack_chan<T, B2, SWZ, 2, SRGB>(in);
   const uint32_t c3 = pack_chan<T, B3, SWZ, 3, SRGB>(in);
   if constexpr (WORD != 0) {
      const uint32_t word = c0 | c1 << B0 | c2 << (B0 + B1) | (B3 ? c3 << (B0 + B1 + B2) : 0);
      store_le<WORD>(dst, word);
   } else {
      if constexpr (B0 != 0)
         store_le<B0>(dst, c0);
      if constexpr (B1 != 0)
         store_le<B1>(dst + B0 / 8, c1);
      if constexpr (B2 != 0)
         store_le<B2>(dst + (B0 + B1) / 8, c2);
      if constexpr (B3 != 0)
         store_le<B3>(dst + (B0 + B1 + B2) / 8, c3);
      if constexpr (PAD != 0)
         std::memset(dst + (B0 + B1 + B2 + B3) / 8, 0, PAD / 8);
   }
}

/* ------------------------------------------------- special formats -- */

void
unpack_r11g11b10(const uint8_t *src, uint32_t out[4])
{
   const uint32_t v = load_le<32>(src);
   out[0] = as_uint(ufloat_to_f32<6>(v & 0x7ff));
   out[1] = as_uint(ufloat_to_f32<6>((v >> 11) & 0x7ff));
   out[2] = as_uint(ufloat_to_f32<5>((v >> 22) & 0x3ff));
   out[3] = 0x3f800000u;
}

void
pack_r11g11b10(const uint32_t in[4], uint8_t *dst)
{
   const uint32_t v = (f32_to_ufloat<6>(as_float(in[0])) & 0x7ff) |
                      (f32_to_ufloat<6>(as_float(in[1])) & 0x7ff) << 11 |
                      (f32_to_ufloat<5>(as_float(in[2])) & 0x3ff) << 22;
   store_le<32>(dst, v);
}

void
unpack_rgb9e5(const uint8_t *src, uint32_t out[4])
{
   float f[3];
   rgb9e5_to_float3(load_le<32>(src), f);
   out[0] = as_uint(f[0]);
   out[1] = as_uint(f[1]);
   out[2] = as_uint(f[2]);
   out[3] = 0x3f800000u;
}

void
pack_rgb9e5(const uint32_t in[4], uint8_t *dst)
{
   const float f[3] = {as_float(in[0]), as_float(in[1]), as_float(in[2])};
   store_le<32>(dst, float3_to_rgb9e5(f));
}

/* Depth/stencil layouts: where depth and stencil live. */
enum class Zs : uint8_t { None, Z16, Z24Lo, Z24Hi, Z32F, Z32FS8, S8 };

struct ZsLayout {
   Zs kind;
   uint8_t depth_bits; /* 16, 24, 32 (float) or 0 */
   bool stencil;
};

/* Raw depth and stencil access per layout (u_format_zs.c). */
inline uint32_t
zs_read_depth(Zs k, const uint8_t *src)
{
   switch (k) {
   case Zs::Z16:
      return load_le<16>(src);
   case Zs::Z24Lo:
      return load_le<32>(src) & 0xffffff;
   case Zs::Z24Hi:
      return load_le<32>(src) >> 8;
   case Zs::Z32F:
   case Zs::Z32FS8:
      return load_le<32>(src);
   default:
      return 0;
   }
}

inline void
zs_write_depth(Zs k, uint32_t raw, uint8_t *dst)
{
   switch (k) {
   case Zs::Z16:
      store_le<16>(dst, raw);
      break;
   case Zs::Z24Lo:
      store_le<32>(dst, (load_le<32>(dst) & 0xff000000u) | (raw & 0xffffff));
      break;
   case Zs::Z24Hi:
      store_le<32>(dst, (load_le<32>(dst) & 0xffu) | (raw << 8));
      break;
   case Zs::Z32F:
   case Zs::Z32FS8:
      store_le<32>(dst, raw);
      break;
   default:
      break;
   }
}

/* --------------------------------------------------------- the table -- */

using UnpackFn = void (*)(const uint8_t *, uint32_t *);
using PackFn = void (*)(const uint32_t *, uint8_t *);

struct Entry {
   FormatInfo info;
   UnpackFn unpack = nullptr;
   PackFn pack = nullptr;
   Zs zs = Zs::None;
   uint8_t depth_bits = 0;
};

void unpack_zs(Zs k, uint8_t bits, const uint8_t *src, uint32_t out[4]);

template <Zs K, uint8_t BITS>
void
unpack_zs_t(const uint8_t *src, uint32_t out[4])
{
   unpack_zs(K, BITS, src, out);
}

/* Stencil views of packed depth/stencil (X24S8_UINT & co.,
 * ARB_stencil_texturing): the stencil byte at @BYTE, (s, s, s, s) like
 * S8_UINT. */
template <unsigned BYTE>
void
unpack_stencil_view(const uint8_t *src, uint32_t out[4])
{
   out[0] = out[1] = out[2] = out[3] = src[BYTE];
}

/* ... and back: the stencil byte from the low 8 bits of the first word,
 * the depth bits untouched. */
template <unsigned BYTE>
void
pack_stencil_view(const uint32_t *in, uint8_t *dst)
{
   dst[BYTE] = static_cast<uint8_t>(in[0]);
}

struct Table {
   Entry e[256];
   Entry unknown;

   Table()
   {
      unknown.info = blank(VLG_FORMAT_NONE);
      unknown.info.name = "?";
      for (unsigned f = 0; f < 256; f++)
         e[f].info = blank(f);

      /* Channel layouts and swizzles: vlgpu_hw.xml (attribute layout of each
       * format, after Mesa 22.3.6 u_format.csv), through the lists gen_hw.py
       * generates into vlg_hw.h. */
#define VLG_PLAIN(NAME, T, WORD, B0, B1, B2, B3, PAD, SWZ, SRGB)                                  \
   plain<CT::T, WORD, B0, B1, B2, B3, PAD, sw(SWZ), SRGB != 0>(VLG_FORMAT_##NAME);
      VLG_FORMAT_PLAIN_LIST(VLG_PLAIN)
#undef VLG_PLAIN
#define VLG_SPECIAL(NAME, LAYOUT)                                                                  \
   special(VLG_FORMAT_##NAME, unpack_##LAYOUT, pack_##LAYOUT, 3, false, false);
      VLG_FORMAT_SPECIAL_LIST(VLG_SPECIAL)
#undef VLG_SPECIAL
#define VLG_ZS(NAME, ZS, DEPTH_BITS, STENCIL)                                                      \
   zs<Zs::ZS, DEPTH_BITS>(VLG_FORMAT_##NAME, (DEPTH_BITS != 0) + STENCIL, STENCIL != 0);
      VLG_FORMAT_DEPTH_STENCIL_LIST(VLG_ZS)
#undef VLG_ZS
#define VLG_STENCIL_VIEW(NAME, BYTE) stencil_view<BYTE>(VLG_FORMAT_##NAME, vlg_format_bytes(VLG_FORMAT_##NAME));
      VLG_FORMAT_STENCIL_VIEW_LIST(VLG_STENCIL_VIEW)
#undef VLG_STENCIL_VIEW

      /* sRGB formats and their linear twins (Mesa util_format_linear). */
#define VLG_LINEAR(NAME, LINEAR) e[VLG_FORMAT_##NAME].info.linear = VLG_FORMAT_##LINEAR;
      VLG_FORMAT_LINEAR_LIST(VLG_LINEAR)
#undef VLG_LINEAR
   }

   static FormatInfo blank(uint32_t f)
   {
      FormatInfo i{};
      const char *n = vlg_format_name(f);
      i.name = n ? n : "?";
      i.bytes = 0;
      i.usage = 0;
      i.supported = false;
      i.border_clamp = BorderClamp::None;
      i.linear = static_cast<vlg_format>(f);
      return i;
   }

   /* Border clamping by name, as Mesa's u_format_parse.py is_unorm/is_snorm
    * (a name with _UNORM or _SRGB is "unorm", Z24_UNORM_S8_UINT included). */
   static BorderClamp border_by_name(const char *n)
   {
      if (std::strstr(n, "_UNORM") || std::strstr(n, "_SRGB"))
         return BorderClamp::Unorm;
      if (std::strstr(n, "_SNORM"))
         return BorderClamp::Snorm;
      return BorderClamp::None;
   }

   void finish(uint32_t f, unsigned bytes, unsigned channels)
   {
      FormatInfo &i = e[f].info;
      i.bytes = static_cast<uint8_t>(bytes);
      i.usage = static_cast<uint8_t>(vlg_format_usage(f));
      i.channels = static_cast<uint8_t>(channels);
      i.supported = true;
      i.border_clamp = border_by_name(i.name);
   }

   template <CT T, unsigned WORD, unsigned B0, unsigned B1, unsigned B2, unsigned B3, unsigned PAD,
             unsigned SWZ, bool SRGB>
   void plain(vlg_format f)
   {
      Entry &x = e[f];
      x.unpack = &unpack_plain<T, WORD, B0, B1, B2, B3, SWZ, SRGB>;
      x.pack = &pack_plain<T, WORD, B0, B1, B2, B3, PAD, SWZ, SRGB>;
      finish(f, WORD ? WORD / 8 : (B0 + B1 + B2 + B3 + PAD) / 8,
             (B0 != 0) + (B1 != 0) + (B2 != 0) + (B3 != 0));
      FormatInfo &i = x.info;
      i.is_integer = T == CT::UINT || T == CT::SINT;
      i.is_signed =
         T == CT::SNORM || T == CT::SSCALED || T == CT::SINT || T == CT::FLOAT || T == CT::FIXED;
      i.is_normalized = T == CT::UNORM || T == CT::SNORM;
      i.is_srgb = SRGB;
      /* sp_tex_sample.c sample_compare: the reference is clamped unless the
       * channel that R reads is float (or a constant). */
      i.shadow_ref_clamp = swz_of(SWZ, 0) < 4 && T != CT::FLOAT;
   }

   void special(vlg_format f, UnpackFn u, PackFn p, unsigned channels, bool is_signed, bool integer)
   {
      e[f].unpack = u;
      e[f].pack = p;
      finish(f, 4, channels);
      e[f].info.is_signed = is_signed;
      e[f].info.is_integer = integer;
   }

   /* sampler-only stencil views: integer, no depth, never render targets */
   template <unsigned BYTE> void stencil_view(vlg_format f, unsigned bytes)
   {
      Entry &x = e[f];
      x.unpack = &unpack_stencil_view<BYTE>;
      x.pack = &pack_stencil_view<BYTE>;
      finish(f, bytes, 1);
      FormatInfo &i = x.info;
      i.is_integer = true;
      i.has_stencil = true;
      i.shadow_ref_clamp = true;
   }

   template <Zs K, uint8_t BITS> void zs(vlg_format f, unsigned channels, bool stencil)
   {
      Entry &x = e[f];
      x.unpack = &unpack_zs_t<K, BITS>;
      x.zs = K;
      x.depth_bits = BITS;
      finish(f, K == Zs::Z16 ? 2 : K == Zs::Z32FS8 ? 8 : K == Zs::S8 ? 1 : 4, channels);
      FormatInfo &i = x.info;
      i.is_depth = K != Zs::S8;
      i.has_stencil = stencil;
      i.is_integer = K == Zs::S8;
      i.is_signed = K == Zs::Z32F || K == Zs::Z32FS8;
      i.shadow_ref_clamp = BITS == 16 || BITS == 24 || K == Zs::S8;
   }
};

const Table &
table()
{
   static const Table t;
   return t;
}

inline const Entry &
entry(uint32_t f)
{
   const Table &t = table();
   return f < 256 ? t.e[f] : t.unknown;
}

[[noreturn]] void
unsupported(uint32_t f, const char *what)
{
   const char *n = vlg_format_name(f);
   char buf[160];
   std::snprintf(buf, sizeof(buf), "%s is not defined for format %s (%u)", what, n ? n : "?", f);
   throw GpuFault("FMT", "unsupported format conversion", buf);
}

void
unpack_zs(Zs k, uint8_t bits, const uint8_t *src, uint32_t out[4])
{
   uint32_t v;
   if (k == Zs::S8) {
      v = src[0];
   } else {
      const uint32_t raw = zs_read_depth(k, src);
      v = as_uint(bits == 16   ? static_cast<float>(raw) * (1.0f / 65535.0f)
                : bits == 24 ? static_cast<float>(raw * (1.0 / 0xffffff))
                             : as_float(raw));
   }
   out[0] = out[1] = out[2] = out[3] = v;
}

} // namespace

/* ---------------------------------------------------- scalar helpers -- */

float
half_to_float(uint16_t h)
{
   const uint32_t s = static_cast<uint32_t>(h & 0x8000) << 16;
   const uint32_t e = (h >> 10) & 0x1f;
   const uint32_t m = h & 0x3ff;
   if (e == 0) {
      /* zero or denormal: m * 2^-24, exact in fp32 */
      const float v = static_cast<float>(m) * (1.0f / 16777216.0f);
      return as_float(as_uint(v) | s);
   }
   if (e == 31)
      return as_float(s | 0x7f800000u | m << 13 | (m ? 0x400000u : 0));
   return as_float(s | (e + 112) << 23 | m << 13);
}

namespace {

/* float -> half rounded toward zero (@rtne false) or to nearest even: the
 * two differ only in the rounding of the dropped mantissa bits and in
 * overflow (to +-65504 or to infinity); NaN -> quiet NaN keeping the top
 * payload bits. */
uint16_t
float_to_half(float f, bool rtne)
{
   const uint32_t u = as_uint(f);
   const uint16_t s = static_cast<uint16_t>((u >> 16) & 0x8000);
   const int e = static_cast<int>((u >> 23) & 0xff);
   const uint32_t m = u & 0x7fffff;
   if (e == 255)
      return m ? static_cast<uint16_t>(s | 0x7e00 | (m >> 13)) : static_cast<uint16_t>(s | 0x7c00);
   const int he = e - 112;
   if (he >= 31)
      return static_cast<uint16_t>(s | (rtne ? 0x7c00 : 0x7bff));
   if (he <= 0) {
      const unsigned shift = static_cast<unsigned>(14 - he);
      if (shift > 24)
         return s;
      const uint32_t mant = m | 0x800000;
      uint32_t mm = mant >> shift;
      const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
      if (rtne && (rem > half || (rem == half && (mm & 1))))
         mm++;
      return static_cast<uint16_t>(s | mm);
   }
   uint32_t h = static_cast<uint32_t>(he) << 10 | m >> 13;
   const uint32_t rem = m & 0x1fff;
   if (rtne && (rem > 0x1000 || (rem == 0x1000 && (h & 1))))
      h++; /* may carry into the exponent, up to infinity: correct */
   return static_cast<uint16_t>(s | h);
}

} // namespace

uint16_t
float_to_half_rtz(float f)
{
   return float_to_half(f, false);
}

uint16_t
float_to_half_rtne(float f)
{
   return float_to_half(f, true);
}

float
srgb8_to_linear(uint8_t c)
{
   return srgb_decode_table().v[c];
}

uint8_t
linear_to_srgb8(float x)
{
   /* Mesa util_format_linear_float_to_srgb_8unorm (after
    * https://gist.github.com/rygorous/2203834): clamp to [2^-13, 1-eps],
    * NaN -> 2^-13 (-> 0), then table lookup and linear interpolation. */
   const uint32_t almostone = 0x3f7fffff, minval = (127u - 13u) << 23;
   if (!(x > as_float(minval)))
      x = as_float(minval);
   if (x > as_float(almostone))
      x = as_float(almostone);
   const uint32_t fu = as_uint(x);
   const uint32_t tab = kLinearToSrgbHelper[(fu - minval) >> 20];
   const uint32_t bias = (tab >> 16) << 9;
   const uint32_t scale = tab & 0xffff;
   const uint32_t t = (fu >> 12) & 0xff;
   return static_cast<uint8_t>((bias + scale * t) >> 16);
}

uint8_t
float_to_unorm8(float f)
{
   /* Mesa float_to_ubyte (u_math.h): round to nearest even of f * 255 with
    * the 2^15 magic number; NaN -> 0. */
   if (!(f > 0.0f))
      return 0;
   if (f >= 1.0f)
      return 255;
   const float t = f * (255.0f / 256.0f) + 32768.0f;
   return static_cast<uint8_t>(as_uint(t));
}

/* ---------------------------------------------------------- public -- */

const FormatInfo &
format_info(uint32_t f)
{
   return entry(f).info;
}

FormatUnpackFn
format_unpack_fn(uint32_t f)
{
   return entry(f).unpack;
}

void
format_unpack_rgba(vlg_format f, const uint8_t *src, uint32_t out[4])
{
   const Entry &x = entry(f);
   if (!x.unpack)
      unsupported(f, "unpack");
   x.unpack(src, out);
}

void
format_pack_rgba(vlg_format f, const uint32_t in[4], uint8_t *dst)
{
   const Entry &x = entry(f);
   if (x.pack) {
      x.pack(in, dst);
      return;
   }
   if (x.zs == Zs::None)
      unsupported(f, "pack");
   if (x.zs == Zs::S8)
      dst[0] = static_cast<uint8_t>(in[0] > 255 ? 255 : in[0]);
   else
      format_pack_depth(f, as_float(in[0]), dst);
}

void
format_fetch_vertex(vlg_format f, const uint8_t *src, uint32_t out[4])
{
   const Entry &x = entry(f);
   if (!(x.info.usage & VLG_FORMAT_USAGE_VERTEX) || !x.unpack)
      unsupported(f, "vertex fetch");
   x.unpack(src, out);
}

uint32_t
format_depth_to_raw(vlg_format f, double z, DepthRounding rounding)
{
   const Entry &x = entry(f);
   if (x.depth_bits == 0)
      unsupported(f, "depth conversion");
   if (x.depth_bits == 32)
      return as_uint(static_cast<float>(z));
   const uint32_t max = x.depth_bits == 16 ? 0xffffu : 0xffffffu;
   if (rounding == DepthRounding::Clear) {
      /* util_pack_z: double, lrint (round to nearest even). */
      if (!(z > 0.0))
         return 0;
      if (z >= 1.0)
         return max;
      return static_cast<uint32_t>(std::nearbyint(z * max));
   }
   float zf = mesa_clamp(static_cast<float>(z), 0.0f, 1.0f);
   if (zf != zf)
      zf = 0.0f;
   if (rounding == DepthRounding::Fragment)
      return static_cast<uint32_t>(zf * static_cast<float>(max));
   /* DepthRounding::UFormat */
   if (x.depth_bits == 16)
      return static_cast<uint32_t>(zf * 65535.0f + 0.5f);
   return static_cast<uint32_t>(static_cast<double>(zf) * 16777215.0) & 0xffffff;
}

uint32_t
format_read_depth_raw(vlg_format f, const uint8_t *src)
{
   const Entry &x = entry(f);
   if (x.depth_bits == 0)
      unsupported(f, "depth read");
   return zs_read_depth(x.zs, src);
}

void
format_write_depth_raw(vlg_format f, uint32_t raw, uint8_t *dst)
{
   const Entry &x = entry(f);
   if (x.depth_bits == 0)
      unsupported(f, "depth write");
   zs_write_depth(x.zs, raw, dst);
}

float
format_depth_raw_to_float(vlg_format f, uint32_t raw)
{
   const Entry &x = entry(f);
   if (x.depth_bits == 16)
      return static_cast<float>(raw) * (1.0f / 65535.0f);
   if (x.depth_bits == 24)
      return static_cast<float>((raw & 0xffffff) * (1.0 / 0xffffff));
   if (x.depth_bits == 32)
      return as_float(raw);
   unsupported(f, "depth conversion");
}

float
format_unpack_depth(vlg_format f, const uint8_t *src)
{
   return format_depth_raw_to_float(f, format_read_depth_raw(f, src));
}

void
format_pack_depth(vlg_format f, float z, uint8_t *dst)
{
   format_write_depth_raw(f, format_depth_to_raw(f, z, DepthRounding::UFormat), dst);
}

uint8_t
format_unpack_stencil(vlg_format f, const uint8_t *src)
{
   const Entry &x = entry(f);
   switch (x.zs) {
   case Zs::Z24Lo:
      return x.info.has_stencil ? src[3] : 0;
   case Zs::Z24Hi:
      return x.info.has_stencil ? src[0] : 0;
   case Zs::Z32FS8:
      return src[4];
   case Zs::S8:
      return src[0];
   case Zs::Z16:
   case Zs::Z32F:
      return 0;
   default:
      unsupported(f, "stencil read");
   }
}

void
format_pack_stencil(vlg_format f, uint8_t s, uint8_t *dst)
{
   const Entry &x = entry(f);
   switch (x.zs) {
   case Zs::Z24Lo:
      if (x.info.has_stencil)
         dst[3] = s;
      return;
   case Zs::Z24Hi:
      if (x.info.has_stencil)
         dst[0] = s;
      return;
   case Zs::Z32FS8:
      dst[4] = s;
      return;
   case Zs::S8:
      dst[0] = s;
      return;
   case Zs::Z16:
   case Zs::Z32F:
      return;
   default:
      unsupported(f, "stencil write");
   }
}

} // namespace vlgpu::sim
