/*
 * vlgpu simulator, functional pipeline: the OMU (output merge unit, seed 001
 * §3.2 and fig. 2): alpha, stencil and depth tests, blending with the 19
 * factors, colour write masks, writes to the render targets, and CLEAR.
 *
 * The functions work on one 2x2 quad at a time (lanes 0..3 = (x,y), (x+1,y),
 * (x,y+1), (x+1,y+1), docs/isa.md §1), in the order the PE delivers quads, so
 * the functional draw and the cycle-mode OMU module produce the same pixels.
 *
 * Arithmetic follows softpipe (Mesa 22.3.6), the reference renderer:
 *  - alpha test: sp_quad_depth_test.c alpha_test_quads (fp32 compare of the
 *    COLOR 0 alpha with alpha_ref);
 *  - stencil and depth: sp_quad_depth_test.c depth_test_quads_fallback,
 *    do_stencil_test, apply_stencil_op, depth_test_quad (GL ES 3.0 §4.1.4,
 *    §4.1.5): stencil first, then depth, stencil ops by outcome; depth
 *    converted to the buffer's integer with DepthRounding::Fragment
 *    (truncation, convert_quad_depth) and compared as integers (Z32F as
 *    floats);
 *  - blending: sp_quad_blend.c blend_quad (GL ES 3.0 §4.1.7, Table 4.1/4.2):
 *    fp32, source clamped to [0,1] before and the result after blending for
 *    normalized targets (blend colour clamped too), MIN/MAX ignore the
 *    factors, colour mask applied to the blended value, no blending on
 *    integer targets. Dual-source blending (SRC1_* factors, docs/hw.md):
 *    the second source colour is clamped for normalized targets too (GL ES
 *    3.2 §17.3.6.1 clamps "source and destination values"; softpipe leaves
 *    it unclamped: pictures differ only for second colours outside [0,1])
 *    and only colour buffer 0 is written.
 * One deliberate difference: softpipe keeps colour tiles as floats in a tile
 * cache and quantizes a tile only when it is evicted, so its results depend
 * on the cache; the OMU reads the pixel from VRAM (format_unpack_rgba) and
 * writes it back (format_pack_rgba) for every fragment, like hardware does.
 *
 * Fragment depth is clamped to the depth range [min(n,f), max(n,f)] of the
 * viewport (and to [0,1] for unorm buffers) before the test (GL ES 3.0
 * §2.13.1 / §4.1.5; softpipe clamps only with depth clipping off, but with it
 * on the values are already in range).
 *
 * Stencil and depth tests apply only if the depth/stencil buffer has that
 * component (GL ES 3.0 §4.1.4: "if there is no stencil buffer ... the
 * stencil test always passes"); softpipe reads garbage stencil from Z16.
 */
#pragma once

#include <cstdint>

#include "vlg_hw.h"

#include "package.h"
#include "pipe_types.h"
#include "sim/core/vram.h"

namespace vlgpu::sim {

/** How the OMU reads and writes a depth/stencil pixel (the layouts of the
 * zs formats, docs/hw.md format table); the conversions are those of
 * format.h (format_depth_to_raw with DepthRounding::Fragment,
 * format_read/write_depth_raw, format_unpack/pack_stencil), inlined. */
enum class ZsLayout : uint8_t {
   None,
   Z16,    /**< 16-bit unorm depth */
   Z24Lo,  /**< 32-bit word, depth bits 0..23, stencil (if any) bits 24..31 */
   Z24Hi,  /**< 32-bit word, stencil (if any) bits 0..7, depth bits 8..31 */
   Z32F,   /**< fp32 depth */
   Z32FS8, /**< fp32 depth, stencil in byte 4 */
   S8,     /**< 8-bit stencil */
};

/** Fast colour paths of 8-bit RGBA formats (format_unpack_rgba's c * (1/255)
 * and Mesa float_to_ubyte, inlined); Generic calls format.h. */
enum class ColorPath : uint8_t { Generic, RGBA8, BGRA8, RGBX8, BGRX8 };

/** Per render target state of the OMU, derived once per draw. */
struct OmuTarget {
   bool bound = false;   /**< cbufs[i] exists (i < nr_cbufs, format != NONE) */
   bool written = false; /**< bound, the FS has a COLOR i output and colormask != 0 */
   vlg_format format = VLG_FORMAT_NONE;
   uint8_t *base = nullptr;   /**< host pointer to pixel (0,0) in VRAM (bounds validated) */
   uint32_t pitch = 0;        /**< bytes per row */
   uint32_t bpp = 0;          /**< bytes per pixel (per sample) */
   uint32_t step = 0;         /**< bytes from a pixel to the next in a row: bpp x samples */
   uint32_t layer_stride = 0; /**< bytes from one layer to the next (surface.layer_stride) */
   bool is_integer = false;   /**< UINT/SINT target: no clamping, no blending */
   bool clamp = false;        /**< normalized target: clamp to [0,1] before/after blending */
   bool blend = false;        /**< blending enabled (never for integer targets, nor with a logic op) */
   /** blend.logicop_enable on a normalized or integer target that is not
    *  sRGB: the colour is packed to the format's bits and combined bitwise
    *  with the destination's (GL 4.6 section 17.3.9 "Logical Operation":
    *  no effect on floating-point or sRGB buffers, blending off either way). */
   bool logic = false;
   vlg_logicop logicop = VLG_LOGICOP_COPY; /**< blend.logicop_func */
   VLG_BLEND_RT rt = {};      /**< blend_rt that applies (rt[i] or rt[0], Gallium rule) */
   float const_color[4] = {}; /**< blend_color, clamped for normalized targets */
   ColorPath path = ColorPath::Generic;
};

/** OMU state of one draw (make_omu_state). Holds host pointers into VRAM. */
struct OmuState {
   VLG_DEPTH_STENCIL_ALPHA dsa = {};
   VLG_STENCIL_REF stencil_ref = {};
   OmuTarget rt[kMaxColorBufs];
   unsigned nr_cbufs = 0;
   /** Some sample enabled: sample_mask bit 0 (single-sampled), any of bits
    * 0..3 (4 samples); else the draw writes nothing. */
   bool sample_enabled = true;
   /** sample_mask bits 0..3 (4-sample framebuffers: ANDed with the coverage
    * of each pixel, frag_sample_coverage). */
   uint8_t sample_mask = 0xf;
   /** A written, blending target uses a SRC1_* factor: the FS output
    * DUAL_SOURCE_COLOR is the second source colour and only rt[0] is
    * written (docs/hw.md "Dual-source blending"). */
   bool dual_source = false;

   /* depth/stencil buffer */
   vlg_format zs_format = VLG_FORMAT_NONE;
   uint8_t *zs_base = nullptr;
   uint32_t zs_pitch = 0, zs_bpp = 0;
   uint32_t zs_step = 0; /**< bytes from a pixel to the next in a row: zs_bpp x samples */
   uint32_t zs_layer_stride = 0; /**< bytes from one layer to the next (zsbuf.layer_stride) */
   /** framebuffer.samples as a count, 1 or 4 (docs/hw.md "Multisampling"):
    * with 4, sample s of pixel (x, y) is at base + y * pitch + x * step +
    * s * bpp; z16_fast is off. */
   unsigned samples = 1;
   ZsLayout zs_layout = ZsLayout::None;
   int zs_stencil_byte = -1;                 /**< byte of the stencil value in a pixel, -1: none */
   bool zs_float = false;                    /**< Z32_FLOAT(_S8X24): compare depths as floats */
   bool depth_test = false;                  /**< depth_enable and the buffer has depth */
   bool depth_write = false;                 /**< depth_test and depth_writemask */
   bool stencil_test = false;                /**< stencil[0].enabled and the buffer has stencil */
   float depth_min = 0.0f, depth_max = 1.0f; /**< clamp range of fragment depth */

   /** Tests that run before the FS when the FS neither discards, writes
    * depth nor writes memory and alpha test is off (softpipe
    * sp_build_quad_pipeline; same pixels as testing after the FS), or when
    * the FS has early_fragment_tests (GL ES 3.1 §15.2.4; alpha test off). */
   bool early_z = false;
   /** Anything to do in omu_depth_stencil (depth or stencil test enabled). */
   bool any_zs = false;
   /** softpipe's Z16 fast path applies (omu_depth_z16_run): Z16 buffer,
    * depth test with writes, no stencil or alpha test, fragment depth
    * interpolated (FS does not write it), depth clipping on, func != NEVER. */
   bool z16_fast = false;
};

/**
 * Derive the OMU state from a validated package (load_draw_package). Host
 * pointers point into @vram's storage, which must outlive the state.
 * @fs_color_written: bit i set if the FS has a COLOR i output.
 */
OmuState make_omu_state(const DrawPackage &pkg, Vram &vram, unsigned fs_color_written);

/**
 * Alpha test on one quad (GL ES has none; Gallium's alpha_func/alpha_ref,
 * sp_quad_depth_test.c): @alpha = COLOR 0 alpha per lane (fp32, unclamped).
 * Returns @mask with the failing lanes cleared.
 */
unsigned omu_alpha_test(const OmuState &s, unsigned mask, const float alpha[4]);

/**
 * Stencil and depth test of one quad at (@x, @y) (even), lanes in @mask,
 * facing @back_facing (selects stencil[1] when two-sided stencil is on),
 * fragment depths @z (window z, unclamped). Reads and writes the
 * depth/stencil buffer. Returns the lanes that pass both tests.
 * No-op (returns @mask) if !s.any_zs.
 */
unsigned omu_depth_stencil(const OmuState &s, int x, int y, unsigned mask, bool back_facing,
                           const float z[4]);

/**
 * softpipe's Z16 fast path (sp_quad_depth_test_tmp.h, chosen by
 * choose_depth_test when OmuState::z16_fast): the depths of the quads of one
 * rasterisation run (a span chunk of sp_setup.c flush_spans, up to 8 quads
 * of one 2-row band, or the single quad of a point/line) are computed in
 * 16-bit integers from the run's first quad (@base_x, @base_y): the first
 * quad's four depths (unsigned short)(z * 65535.0f), plus dx times
 * (unsigned short)(dzdx * 65535.0f) with 16-bit wrap-around; then compared
 * with @s's depth func and written. The depth of a fragment so differs from
 * omu_depth_stencil's by the truncation of the step; mirrored so that
 * pictures match softpipe. @setup supplies the depth plane (PrimSetup::pos).
 * Returns the lanes of @mask that pass.
 */
unsigned omu_depth_z16_run(const OmuState &s, const PrimSetup &setup, int base_x, int base_y,
                           const Quad &q, unsigned mask);

/** Row of omu_write_color's @color that holds the second source colour
 * (DUAL_SOURCE_COLOR output) of a dual-source draw: render target 1 is never
 * written then. */
constexpr unsigned kDualSourceSlot = 1;

/**
 * Blend and write one quad to every written render target: @color[rt][lane]
 * is the FS COLOR rt output of each lane as 4 words (fp32 bits, or
 * uint32/int32 for integer targets); lanes in @mask are written. When
 * s.dual_source, @color[kDualSourceSlot] holds the DUAL_SOURCE_COLOR output
 * instead (fs_read_quad_colors puts it there).
 */
void omu_write_color(const OmuState &s, int x, int y, unsigned mask, const uint32_t (*color)[4][4]);

/**
 * Blend one pixel in fp32 as softpipe's blend_quad (exposed for tests and the
 * cycle-mode OMU): @src fragment colour (already clamped for normalized
 * targets), @dst the unpacked destination, @const_color the blend colour,
 * @src1 the second source colour of SRC1_* factors (nullptr: zeros).
 * Writes the blended colour (not yet clamped) to @out.
 */
void omu_blend_pixel(const VLG_BLEND_RT &rt, const float src[4], const float dst[4],
                     const float const_color[4], float out[4], const float src1[4] = nullptr);

/**
 * 4-sample framebuffers (docs/hw.md "Multisampling"): the state of @s seen
 * from sample @sample, i.e. every surface base moved to that sample, so that
 * the single-sample functions test and write sample @sample of each pixel.
 */
OmuState omu_sample_view(const OmuState &s, unsigned sample);

/**
 * Layered rendering (docs/hw.md "Layered rendering"): the state of @s seen
 * from layer @layer, every surface base moved by @layer x its layer_stride,
 * so that the single-layer functions test and write that layer. @layer is
 * a PrimSetup::layer: at most the smallest layers - 1 of the framebuffer
 * (checked by load_draw_package's ranges).
 */
OmuState omu_layer_view(const OmuState &s, unsigned layer);

/**
 * Stencil and depth test per sample of one quad of a 4-sample framebuffer:
 * @samples as Quad::samples (bit 4 * lane + s), @z[lane][s] the sample
 * depths (pe_sample_depth). Each sample is tested and its depth/stencil
 * updated on its own (GL ES 3.0 §4.1: per-sample operations). Returns the
 * samples that pass.
 */
uint16_t omu_depth_stencil_samples(const OmuState &s, int x, int y, uint16_t samples,
                                   bool back_facing, const float z[4][4]);

/** Blend and write the covered samples @samples (bit 4 * lane + s) of one
 * quad of a 4-sample framebuffer with the lane's colour (the FS runs once per
 * pixel). */
void omu_write_color_samples(const OmuState &s, int x, int y, uint16_t samples,
                             const uint32_t (*color)[4][4]);

/**
 * Resolve (docs/hw.md "Multisampling"): @width x @height pixels of the
 * 4-sample surface @src into the single-sample surface @dst (same format).
 * Colour formats that are not integer: the fp32 average (s0 + s1 + s2 + s3) *
 * 0.25 of the unpacked samples, packed with format_pack_rgba; integer and
 * depth/stencil formats: sample 0 (GL ES 3.0 §4.3.3 selects a single sample
 * for integer formats). Surfaces must be validated by the caller.
 */
void omu_resolve(Vram &vram, const VLG_SURFACE &src, const VLG_SURFACE &dst, unsigned width,
                 unsigned height);

/**
 * Execute a RESOLVE draw (draw_info.kind == RESOLVE, docs/hw.md
 * "Multisampling"): omu_resolve of framebuffer.cbufs[0] (or, without colour
 * buffers, zsbuf) into pkg.resolve_dst, framebuffer.width x height pixels.
 * The package must come from load_draw_package (surfaces validated).
 * Returns the pixels written.
 */
uint64_t omu_resolve_draw(const DrawPackage &pkg, Vram &vram);

/** A rectangle of pixels, [x0, x1) x [y0, y1). */
struct PixelRect {
   unsigned x0 = 0, y0 = 0, x1 = 0, y1 = 0;
   bool empty() const { return x0 >= x1 || y0 >= y1; }
   /** Pixels inside (0 when empty). */
   uint64_t area() const { return empty() ? 0 : uint64_t(x1 - x0) * (y1 - y0); }
};

/**
 * The pixels a CLEAR draw writes: draw_info.clear_rect (max exclusive)
 * clipped to the framebuffer's width x height; empty if nothing is left.
 */
PixelRect omu_clear_rect(const DrawPackage &pkg);

/**
 * Execute a CLEAR draw (draw_info.kind == CLEAR, docs/hw.md): clear the
 * colour buffers, depth and/or stencil selected by draw_info.clear_buffers
 * (PIPE_CLEAR_* layout) inside clear_rect (clipped to the framebuffer), in
 * every layer of each surface (docs/hw.md "Layered rendering"),
 * without masks or tests (pipe_context::clear; st/mesa draws masked or
 * scissored clears as quads). Colours are packed from the raw clear_color
 * words with format_pack_rgba; depth with DepthRounding::Clear (util_pack_z).
 * Buffers selected but not bound are ignored. Returns pixels written per
 * buffer summed.
 */
uint64_t omu_clear(const DrawPackage &pkg, Vram &vram);

} // namespace vlgpu::sim
