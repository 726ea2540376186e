/*
 * vlgpu simulator: scalar semantics of the VL-IW ALU ops that are more than
 * one host operator (docs/isa.md section 5, "IEEE and corner cases").
 * Internal to the executor; compiled with -ffp-contract=off.
 *
 * All values are raw 32-bit words; as_float()/as_uint() (common/bits.h)
 * reinterpret them.
 */
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/bits.h"
#include "sim/func/tex/format.h" /* float_to_half_rtne */

namespace vlgpu::sim::shader_alu {

/** Boolean as a 32-bit mask: ~0 true, 0 false (docs/isa.md section 4). */
inline uint32_t
mask(bool b)
{
   return b ? ~0u : 0u;
}

/** Float source modifiers act on the sign bit: abs first, then negate. */
inline uint32_t
fmod_bits(uint32_t v, bool abs, bool neg)
{
   if (abs)
      v &= 0x7FFFFFFFu;
   if (neg)
      v ^= 0x80000000u;
   return v;
}

/** Integer source modifiers: two's complement abs, then negate (wrapping:
 *  -INT_MIN = INT_MIN). */
inline uint32_t
imod(uint32_t v, bool abs, bool neg)
{
   if (abs && int32_t(v) < 0)
      v = 0u - v;
   if (neg)
      v = 0u - v;
   return v;
}

/** Saturate: clamp to [0, 1]; NaN gives 0 and -0 gives +0. */
inline uint32_t
sat_bits(uint32_t v)
{
   const float f = as_float(v);
   return as_uint(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f);
}

/** IEEE 754-2008 minNum (@a Max false) or maxNum of two fp32 words: the
 *  non-NaN operand if one is NaN (two NaNs: @a a quieted); min(-0, +0) = -0,
 *  max(-0, +0) = +0. */
template <bool Max>
inline uint32_t
fminmax_num(uint32_t a, uint32_t b)
{
   const float x = as_float(a), y = as_float(b);
   if (x != x)
      return y != y ? (a | 0x00400000u) : b;
   if (y != y)
      return a;
   if (Max ? x > y : x < y)
      return a;
   if (Max ? y > x : y < x)
      return b;
   /* equal: identical words, or +0/-0 -> +0 for max, -0 for min */
   return Max ? a & b : a | b;
}

/** IEEE 754-2008 minNum; min(-0, +0) = -0. */
inline uint32_t
fmin_num(uint32_t a, uint32_t b)
{
   return fminmax_num<false>(a, b);
}

/** IEEE 754-2008 maxNum; max(-0, +0) = +0. */
inline uint32_t
fmax_num(uint32_t a, uint32_t b)
{
   return fminmax_num<true>(a, b);
}

/** DP3 summed left to right, every product and sum rounded. */
inline float
dot3(float a0, float a1, float a2, float b0, float b1, float b2)
{
   float s = a0 * b0;
   float p1 = a1 * b1;
   s = s + p1;
   float p2 = a2 * b2;
   return s + p2;
}

inline float
dot4(float a0, float a1, float a2, float a3, float b0, float b1, float b2, float b3)
{
   float s = dot3(a0, a1, a2, b0, b1, b2);
   float p3 = a3 * b3;
   return s + p3;
}

/** RSQ: 1/sqrt(x) in double precision, rounded once more to binary32
 *  (error below 1 ulp). RSQ(+0) = +inf, RSQ(-0) = -inf, RSQ(x<0) = NaN,
 *  RSQ(+inf) = +0. */
inline float
rsq(float x)
{
   return float(1.0 / std::sqrt(double(x)));
}

/** MAN: frexp mantissa, 0.5 <= |m| < 1, sign kept; +-0, +-inf and NaN pass. */
inline uint32_t
man(uint32_t v)
{
   const float f = as_float(v);
   if (f == 0.0f || !std::isfinite(f))
      return v;
   int e;
   return as_uint(std::frexp(f, &e));
}

/** EXP: frexp exponent as int32; 0 for zero, infinity and NaN. */
inline uint32_t
exp_of(uint32_t v)
{
   const float f = as_float(v);
   if (f == 0.0f || !std::isfinite(f))
      return 0;
   int e;
   std::frexp(f, &e);
   return uint32_t(int32_t(e));
}

/** CONV.F2I: toward zero, saturating to int32, NaN -> 0. */
inline uint32_t
f2i(uint32_t v)
{
   const float f = as_float(v);
   if (f != f)
      return 0;
   if (f >= 2147483648.0f)
      return 0x7FFFFFFFu;
   if (f <= -2147483648.0f)
      return 0x80000000u;
   return uint32_t(int32_t(f));
}

/** CONV.F2U: toward zero, saturating to uint32; NaN and negatives -> 0. */
inline uint32_t
f2u(uint32_t v)
{
   const float f = as_float(v);
   if (!(f > 0.0f))
      return 0;
   if (f >= 4294967296.0f)
      return 0xFFFFFFFFu;
   return uint32_t(f);
}

/** CONV.F2H: IEEE binary16 bits of a binary32 value in the low 16 bits,
 *  round to nearest even; overflow -> +-inf; NaN stays NaN (quiet, top
 *  payload bits kept); subnormal halves are produced: float_to_half_rtne
 *  (format.h), the conversion GLSL packHalf2x16 uses. */
inline uint32_t
f2h(uint32_t v)
{
   return float_to_half_rtne(as_float(v));
}

/** CONV.H2F: the binary16 value in the low 16 bits as binary32 (exact). */
inline uint32_t
h2f(uint32_t v)
{
   const uint32_t h = v & 0xFFFFu;
   const uint32_t sign = (h & 0x8000u) << 16;
   const uint32_t exp = (h >> 10) & 0x1Fu;
   const uint32_t mant = h & 0x3FFu;
   if (exp == 0)
      return sign | as_uint(float(mant) * 0x1p-24f); /* zero or subnormal: exact */
   if (exp == 31)
      return sign | 0x7F800000u | (mant << 13);
   return sign | ((exp + 112u) << 23) | (mant << 13);
}

/** ADDR.FLOOR: floor of a float saturated to int32 (NaN -> 0), plus the
 *  immediate, saturating. */
inline int32_t
addr_floor(float f, int32_t imm)
{
   double d = std::floor(double(f));
   if (d != d)
      d = 0;
   d += imm;
   if (d >= 2147483647.0)
      return 0x7FFFFFFF;
   if (d <= -2147483648.0)
      return int32_t(0x80000000u);
   return int32_t(d);
}

} // namespace vlgpu::sim::shader_alu
