/*
 * vlgpu simulator: pixel, texel and vertex format conversions.
 *
 * Every value of enum vlg_format that src/vlgpu/hw/vlgpu_hw.xml marks usable
 * (rt, tex, zs or vertex) converts here, between its bytes in VRAM and four
 * 32-bit words: fp32 bit patterns for normalized, scaled, fixed and float
 * formats, int32/uint32 for pure integer formats. The texture unit, vertex
 * fetch (GE) and the OMU all call these functions, so both simulator modes
 * produce the same pixels.
 *
 * Sources, in order of authority:
 *  - OpenGL ES 3.0.6 specification: section 2.1.6 (fixed-point <-> float of
 *    normalized values), chapter 2.1 (16-bit floats, unsigned 11- and 10-bit
 *    floats), section 2.9 (vertex attributes: GL_FIXED, 2_10_10_10, pure
 *    integer attributes), section 3.8 (texel conversion: the shared-exponent
 *    RGB9E5 equations of "Texture Image Specification", "sRGB Texture Color
 *    Conversion") and chapter 4 (sRGB encoding of framebuffer writes);
 *  - Mesa 22.3.6 util/format (u_format.csv channel layouts and swizzles,
 *    u_format_pack.py conversions, format_srgb.py, format_r11g11b10f.h,
 *    format_rgb9e5.h, half_float.h, u_format_zs.c) and softpipe, which is
 *    vlgpu's reference renderer: where the spec leaves a choice (rounding of
 *    unorm packing, half-float rounding, sRGB encode), the arithmetic here is
 *    Mesa's, operation for operation, so results are bit-identical.
 *  The one deliberate difference from Mesa: snorm unpack clamps to -1.0
 *  (max(c / (2^(b-1) - 1), -1), GL ES 3.0 section 2.1.6); Mesa returns -1.0079 for
 *  -128. docs/simulator-texture.md lists every conversion.
 *
 * Layout: every format is little-endian in VRAM (the in-process simulator's
 * host order). Components are in memory order as the format name says
 * (B8G8R8A8: B at byte 0); packed formats (B5G6R5, R10G10B10A2, ...) are one
 * 16/32-bit word, first-named field in the least significant bits.
 *
 * Include as "sim/func/tex/format.h" (dependency idep_vlg_sim_tex).
 */
#pragma once

#include <cstdint>

#include "vlg_hw.h"

namespace vlgpu::sim {

/** How a border colour is clamped for a format (sp_tex_sample.c). */
enum class BorderClamp : uint8_t {
   None,  /**< float and integer formats: border words used as they are */
   Unorm, /**< every stored channel unorm: clamp to [0, 1] */
   Snorm, /**< every stored channel snorm: clamp to [-1, 1] */
};

/**
 * Static properties of one format (one table lookup; no switch).
 * `supported` is true exactly for the formats with a non-empty usage in
 * vlgpu_hw.xml; the other fields are meaningful only then.
 */
struct FormatInfo {
   const char *name; /**< "B8G8R8A8_UNORM"; "?" for unknown values */
   uint8_t bytes;    /**< bytes per pixel / vertex element (vlg_format_bytes) */
   uint8_t usage;    /**< VLG_FORMAT_USAGE_* mask (vlg_format_usage) */
   uint8_t channels; /**< stored components, padding (X) excluded: L8A8 = 2, Z24S8 = 2 */
   bool supported;   /**< converted by this file */
   bool is_integer;  /**< pure integer (UINT/SINT, S8_UINT): unpack gives integers, no filtering */
   bool is_signed;   /**< stored values can be negative (SNORM, SSCALED, SINT, FIXED, FLOAT) */
   bool is_normalized;    /**< UNORM or SNORM colour channels (sRGB included) */
   bool is_depth;         /**< has a depth component (Z16, Z24*, Z32F*) */
   bool has_stencil;      /**< has a stencil component (Z24S8, S8Z24, Z32F_S8X24, S8) */
   bool is_srgb;          /**< R, G, B are sRGB-encoded */
   bool shadow_ref_clamp; /**< shadow reference is clamped to [0,1] (fixed-point depth, GL ES 3.0
                             "Texture Comparison Modes") */
   BorderClamp border_clamp;
   vlg_format
      linear; /**< the same format without sRGB (R8G8B8A8_SRGB -> R8G8B8A8_UNORM), else itself */
};

/** Properties of format value @f (any 32-bit value; unknown values give an
 *  entry with supported = false). O(1). */
const FormatInfo &format_info(uint32_t f);

/* ------------------------------------------------------------------------
 * Colour conversions. A call with a format that has no such conversion
 * (NONE, unknown values) throws GpuFault("FMT", ...): callers validate the
 * format of a descriptor once (format_info(f).usage) and report their own
 * fault; this is the safety net that keeps the host alive.
 * ------------------------------------------------------------------------ */

/** Unpacks one pixel/texel, format_info(f).bytes bytes at @src, into 4 words.
 *
 * - UNORM c (b bits) -> fp32 c * (1.0f / (2^b - 1)) (GL ES 3.0 section 2.1.6; the
 *   reciprocal multiply is Mesa's ubyte_to_float / u_format_pack.py; b = 32
 *   in double). SNORM -> max(c * (1.0f / (2^(b-1) - 1)), -1) (2.1.6).
 * - USCALED/SSCALED -> (float)c; FIXED (16.16) -> c / 65536 (section 2.9).
 * - FLOAT16 -> exact fp32 (chapter 2.1, 16-bit floats); FLOAT32 bits unchanged (NaN payloads too).
 * - R11G11B10_FLOAT, R9G9B9E5_FLOAT -> fp32 (chapter 2.1, section 3.8); alpha 1.0.
 * - sRGB formats: R, G, B decoded to linear with Mesa's 256-entry table
 *   (util_format_srgb_8unorm_to_linear_float, GL ES 3.0 "sRGB Texture Color
 *   Conversion"); A linear.
 * - UINT/SINT -> uint32/int32 (sign-extended).
 * - Missing components: (0, 0, 0, 1), 1 being 1.0f or integer 1; X padding
 *   reads as 1 in alpha. L8 -> (L, L, L, 1), A8 -> (0, 0, 0, A),
 *   L8A8 -> (L, L, L, A) (GL ES 3.0 luminance/alpha texel mapping; u_format.csv).
 * - Depth formats -> (d, d, d, d), d as format_unpack_depth; S8_UINT ->
 *   (s, s, s, s) uint32 (what softpipe's tile cache gives, util/u_tile.c;
 *   st/mesa's view swizzle turns it into GL's (d, 0, 0, 1)).
 */
void format_unpack_rgba(vlg_format f, const uint8_t *src, uint32_t out[4]);

/** Packs 4 words into one pixel of @f (format_info(f).bytes bytes at @dst;
 *  padding bits are written 0). For every supported colour format, as Mesa's
 *  util_format_pack_rgba (u_format_pack.py):
 *
 * - input: fp32 bits for non-integer formats, uint32 for UINT, int32 for SINT.
 * - UNORM8: Mesa float_to_ubyte (clamp to [0,1], NaN -> 0, round to nearest
 *   even of f*255 via the 2^15 magic); other UNORM/SNORM widths: clamp, then
 *   (int)(f * (2^b-1) + 0.5f) (Mesa util_iround, halves away from zero).
 * - FLOAT16: round toward zero, overflow to 65504 (Mesa packs half floats with
 *   _mesa_float_to_float16_rtz); FLOAT32 unchanged.
 * - R11G11B10: Mesa f32_to_uf11/uf10 (truncate, negative -> 0, large -> max);
 *   R9G9B9E5: Mesa float3_to_rgb9e5 (the GL ES 3.0 section 3.8 RGB9E5 equations).
 * - sRGB formats: R, G, B encoded with Mesa's
 *   util_format_linear_float_to_srgb_8unorm (the exact-to-0.6-ulp
 *   table+interpolation of format_srgb.py), alpha as UNORM8.
 * - UINT: min(v, 2^b-1); SINT: clamp to [-2^(b-1), 2^(b-1)-1] (integer
 *   render targets, as Mesa's pack_unsigned / pack_signed).
 * - USCALED/SSCALED/FIXED: clamp and truncate (u_format_pack.py).
 * - L8 takes R, A8 takes A, L8A8 takes R and A (Mesa inv_swizzles).
 * - Depth/stencil formats: in[0] as fp32 depth through format_pack_depth
 *   (stencil kept); S8_UINT: in[0] as uint32, clamped to 255.
 */
void format_pack_rgba(vlg_format f, const uint32_t in[4], uint8_t *dst);

/** The unpack function of @f (what format_unpack_rgba calls), or nullptr if
 *  @f has none: lets a hot loop (the texture unit) skip the per-call lookup. */
using FormatUnpackFn = void (*)(const uint8_t *src, uint32_t out[4]);
FormatUnpackFn format_unpack_fn(uint32_t f);

/** Fetches one vertex attribute element of @f at @src (GL ES 3.0 section 2.9,
 *  Table 2.2): normalized formats as format_unpack_rgba, scaled formats to
 *  float without normalisation, FIXED 16.16 to float, pure integer formats
 *  stay integer; missing components (0, 0, 0, 1) with 1.0f or integer 1.
 *  GpuFault("FMT") if @f has no VLG_FORMAT_USAGE_VERTEX. */
void format_fetch_vertex(vlg_format f, const uint8_t *src, uint32_t out[4]);

/* ------------------------------------------------------------------------
 * Depth and stencil. GpuFault("FMT") for formats without depth
 * (depth functions) or for colour formats (stencil functions).
 * ------------------------------------------------------------------------ */

/** How a float depth becomes a stored unorm value. Three different roundings
 *  exist in Mesa and the OMU must use the one softpipe uses for the same job
 *  to get the same depth-test results. Z32F is never rounded (fp32 bits). */
enum class DepthRounding : uint8_t {
   /** u_format_zs.c (util_format_*_pack_z_float, blits/uploads):
    *  Z16 (uint16_t)(z * 65535.0f + 0.5f), Z24 (uint32_t)(z * (double)0xffffff). */
   UFormat,
   /** softpipe's depth test and depth write of fragments (sp_quad_depth_test.c
    *  convert_quad_depth): Z16 (unsigned)(z * 65535.0f), Z24 (unsigned)(z * 16777215.0f),
    * truncation. */
   Fragment,
   /** clears (u_pack_color.h util_pack_z): lrint(z * (2^b - 1)) in double, round to nearest even.
    */
   Clear,
};

/** Depth value @z (NDC depth after viewport, normally in [0,1]) as the raw
 *  value stored in @f: unorm formats an integer 0..2^b-1 (clamped, NaN -> 0),
 *  Z24 formats in bits 0..23 whatever their position in memory;
 *  Z32_FLOAT(_S8X24) the fp32 bits of (float)z (not clamped). */
uint32_t format_depth_to_raw(vlg_format f, double z, DepthRounding rounding);

/** The raw depth stored at @src (see format_depth_to_raw). Raw values of one
 *  unorm format compare like the depths they hold; Z32F raw values must be
 *  compared as floats. */
uint32_t format_read_depth_raw(vlg_format f, const uint8_t *src);

/** Stores raw depth @raw at @dst, keeping the stencil bits of packed formats. */
void format_write_depth_raw(vlg_format f, uint32_t raw, uint8_t *dst);

/** Raw depth -> float: Z16 raw * (1.0f / 65535.0f), Z24 (float)(raw * (1.0 / 0xffffff)),
 *  Z32F the float (u_format_zs.c, util/u_tile.c). */
float format_depth_raw_to_float(vlg_format f, uint32_t raw);

/** Depth at @src as a float in [0,1] (Z32F: as stored). */
float format_unpack_depth(vlg_format f, const uint8_t *src);

/** Stores depth @z at @dst with DepthRounding::UFormat (GL ES 3.0 section 2.1.6 via
 *  Mesa u_format_zs.c), keeping the stencil bits of Z24S8/S8Z24/Z32F_S8X24. */
void format_pack_depth(vlg_format f, float z, uint8_t *dst);

/** Stencil at @src; 0 for depth formats without stencil. */
uint8_t format_unpack_stencil(vlg_format f, const uint8_t *src);

/** Stores stencil @s at @dst keeping the depth bits; no-op for depth formats
 *  without stencil. */
void format_pack_stencil(vlg_format f, uint8_t s, uint8_t *dst);

/* ------------------------------------------------------------------------
 * Scalar conversions (exposed for the shader executor and the tests).
 * ------------------------------------------------------------------------ */

/** IEEE half -> float, exact; NaNs stay NaN (quiet bit set, as F16C's vcvtph2ps). */
float half_to_float(uint16_t h);
/** float -> half, round toward zero, finite overflow to +-65504, NaN -> quiet
 *  NaN (Mesa _mesa_float_to_float16_rtz / vcvtps2ph with imm 3). */
uint16_t float_to_half_rtz(float f);
/** float -> half, round to nearest even, overflow to infinity (GLSL packHalf2x16;
 *  Mesa _mesa_float_to_half). */
uint16_t float_to_half_rtne(float f);
/** sRGB-encoded 8-bit value -> linear float (Mesa's table of the GL ES 3.0 sRGB curve). */
float srgb8_to_linear(uint8_t c);
/** linear float -> sRGB 8-bit (Mesa util_format_linear_float_to_srgb_8unorm;
 *  the GL ES 3.0 sRGB encoding with Mesa's table approximation, NaN -> 0). */
uint8_t linear_to_srgb8(float l);
/** float -> unorm8 as Mesa float_to_ubyte (clamped, NaN -> 0). */
uint8_t float_to_unorm8(float f);

} // namespace vlgpu::sim
