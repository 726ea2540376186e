/*
 * vlgpu simulator: the texture unit (functional; no timing).
 *
 * Samples a texture described by the hardware words VLG_TEXTURE + VLG_SAMPLER
 * (src/vlgpu/hw/vlgpu_hw.xml) for a group of shader lanes, as the VL-IW TEX
 * family does (docs/isa.md section 5: TEX, TXB, TXL, TXD, TXF, TXQ). The SPC's
 * shader executor calls it in both simulator modes; in cycle mode the texel
 * address trace feeds the cache model.
 *
 * The rules are GL ES 3.0.6 section 3.8 (cube map face selection, Table
 * 3.21; wrap modes; level of detail, minification, magnification and
 * mipmapping; texture comparison modes; sRGB texture colour conversion)
 * and, where the spec leaves a choice, what softpipe does
 * (src/gallium/drivers/softpipe/sp_tex_sample.c of Mesa 22.3.6), since
 * softpipe is vlgpu's reference renderer. docs/simulator-texture.md has the
 * details and the list of what is not implemented.
 *
 * Include as "sim/func/tex/texture.h" (dependency idep_vlg_sim_tex).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"
#include "vlg_hw.h"

namespace vlgpu::sim {

/** The texture instructions (docs/isa.md section 5). */
enum class TexOp : uint8_t {
   Tex, /**< implicit LOD: quad derivatives in fragment shaders, 0 elsewhere */
   Txb, /**< implicit LOD + bias extra[0] (fp32) */
   Txl, /**< explicit LOD extra[0] (fp32) */
   Txd, /**< explicit gradients: d/dx extra[0..2], d/dy extra2[0..2] (fp32) */
   Txf, /**< texel fetch: int32 coords coord[0..2], int32 LOD coord[3], no filtering */
   Txq, /**< size query of level int32 coord[0] */
   Tg4, /**< gather: component int32 coord[3] (shadow: reference in coord[3]) */
};

/** What the texture instruction itself says (its Main unit and TOFF Sub
 *  unit, docs/isa.md): the op, the shadow bit and the texel offsets. */
struct TexInstr {
   TexOp op = TexOp::Tex;
   /** Depth compare against the reference coord[3] with samp.compare_func
    *  (ignored for TXF/TXQ, which cannot compare). */
   bool shadow = false;
   /** Texel offsets (u, v, w), VLG_MIN_TEXEL_OFFSET..VLG_MAX_TEXEL_OFFSET
    *  (TOFF; GL ES 3.0.6 section 3.8.10): added to the texel coordinates of
    *  every level TEX/TXB/TXL/TXD/TG4 read, after the LOD is chosen and
    *  before the wrap mode, as softpipe adds them (sp_tex_sample.c wrap_*:
    *  to the texel index for REPEAT, to s * size for the clamp modes, as
    *  offset / size to s for MIRROR_REPEAT). u moves 1D and 1D-array
    *  textures, u and v 2D, 2D-array and cube faces, u, v and w 3D; never
    *  the array layer, never the LOD. TXF and TXQ ignore them. */
   int8_t offset[3] = {0, 0, 0};
};

/** One lane's operands: the registers R[coord], R[coord+1], R[coord+2] of
 *  the instruction (docs/isa.md: TXB/TXL put bias/LOD in R[coord+1].x, TXD
 *  its gradients in R[coord+1].xyz and R[coord+2].xyz; .CUBEARRAY the cube
 *  index in R[coord].w and the shadow reference or TG4 component in
 *  R[coord+1].w). Raw 32-bit words. */
struct TexLaneIn {
   uint32_t coord[4]; /**< s, t, r (or layer), q: fp32; int32 for TXF/TXQ; shadow reference or
                           TG4 component in [3], except CUBE_ARRAY: cube index (fp32) */
   uint32_t extra[4];  /**< TXB bias / TXL LOD in [0]; TXD d(s,t,r)/dx; CUBE_ARRAY: shadow
                            reference or TG4 component in [3] */
   uint32_t extra2[4]; /**< TXD d(s,t,r)/dy */
};

/**
 * Executes one texture instruction for up to 64 lanes.
 *
 * @vram       VRAM holding the texels.
 * @tex, @samp the descriptors of the texture unit, unpacked (VLG_TEXTURE_unpack,
 *             VLG_SAMPLER_unpack); texture_sample validates them itself.
 * @ins        the instruction: op, shadow bit (compare the texel against the
 *             reference coord[3] with samp.compare_func and return the
 *             filtered comparison result) and texel offsets (TexInstr).
 * @fragment_quads  true for fragment thread groups: lanes 4k..4k+3 are the
 *             pixels (x,y), (x+1,y), (x,y+1), (x+1,y+1) of a quad and TEX/TXB
 *             take their LOD from the quad's coordinate differences (every
 *             lane of a quad with an active lane must hold valid coordinates,
 *             helper lanes included). False: implicit LOD is 0 (vertex shaders).
 * @num_lanes  lanes in @in and @out, 1..64 (a multiple of 4 with fragment_quads).
 * @lane_mask  bit i set: lane i is computed and out[i] written; other
 *             out[] entries are left untouched.
 * @in         num_lanes operand sets. @out num_lanes results.
 * @trace      if not null, the VRAM byte address of every texel read is
 *             appended, in read order, duplicates included (border texels
 *             and out-of-range TXF reads are not memory reads and are not listed).
 *
 * Results (4 words per lane, after the descriptor's swizzle; ZERO gives 0,
 * ONE gives 1.0f or integer 1 for integer formats):
 *  - TEX/TXB/TXL/TXD: filtered fp32 colour (normalized and float formats,
 *    sRGB decoded before filtering), or uint32/int32 for integer formats
 *    (always NEAREST, no filtering). Shadow: (r, r, r, 1) with r the
 *    comparison result in [0,1] (PCF: each texel compared, results filtered).
 *    Depth textures unshadowed give (d, d, d, d) before the swizzle.
 *  - TXF: the texel at integer (x, y, z|layer) of level first_level + lod,
 *    no sampler state involved; any coordinate or LOD out of range reads as
 *    (0, 0, 0, 0) before the swizzle.
 *  - TG4 (textureGather): the four texels of the LINEAR footprint at
 *    (s, t) in level first_level, whatever the sampler's filters (wrap
 *    modes, border colour and seamless cube edges as for LINEAR):
 *    (T(i0,j1), T(i1,j1), T(i1,j0), T(i0,j0)), GL ES 3.1 section 8.14.2,
 *    each the component coord[3] (0..3; anything else faults) taken
 *    through the descriptor's swizzle (ZERO/ONE give 0/1). Shadow: each
 *    texel's comparison result against the reference coord[3] (0.0 or
 *    1.0) through the swizzle of component 0. 2D, 2D_ARRAY, CUBE and
 *    CUBE_ARRAY only (a GpuFault for 1D and 3D, which GLSL cannot gather
 *    from).
 *  - CUBE_ARRAY: the face from the direction (s, t, r) as for CUBE, the
 *    cube from coord[3] rounded to nearest and clamped to 0..array_size/6-1
 *    (like an array layer), layer 6 x cube + face; seamless filtering stays
 *    within the cube; reference / component in extra[3].
 *  - TXQ: int32 (width, height, depth or layers, levels) of level
 *    first_level + coord[0]; components a target does not have are 0
 *    (1D: height and depth; 2D/CUBE: depth; 1D_ARRAY: layers in y;
 *    CUBE_ARRAY: cubes = array_size / 6 in z); levels =
 *    last_level - first_level + 1; a level outside the view gives (0,0,0,levels).
 *
 * Errors: GpuFault (module "TEX") for a descriptor the unit cannot use --
 * unknown target, format without VLG_FORMAT_USAGE_TEX, zero or inconsistent
 * sizes (CUBE not square or array_size != 6, CUBE_ARRAY not square or
 * array_size not a multiple of 6, height != 1 for 1D, ...),
 * num_levels outside 1..15, first_level > last_level >= num_levels, an
 * unnamed enum value, srgb set on a non-sRGB format -- and for any used level
 * (first_level..last_level) whose texels are not inside VRAM. The check is
 * made before any lane is sampled, so nothing is written on a fault.
 * std::invalid_argument for host-side misuse (num_lanes 0 or > 64, or not a
 * multiple of 4 with fragment_quads).
 *
 * Returns the filter work in bilinear units (the cycle-mode SPC charges its
 * texture unit spc.tex_bilinear_per_cycle of them per cycle,
 * docs/simulator-texture.md "Filter rate"), summed over the lanes of
 * @lane_mask (helper lanes included, other lanes free): each level a lane
 * filters costs 1 (NEAREST or LINEAR 1D/2D/array/cube: one 2x2 footprint),
 * 2 for a LINEAR level of a 3D texture (two slices); so a lane with
 * mip filter LINEAR between two levels costs 2 (4 for 3D), one level 1 (2
 * for 3D). A shadow compare adds nothing. TG4: 1 per lane; TXF: 1 per lane;
 * TXQ: 0 (no texel).
 */
uint32_t texture_sample(const Vram &vram, const VLG_TEXTURE &tex, const VLG_SAMPLER &samp,
                        const TexInstr &ins, bool fragment_quads, unsigned num_lanes,
                        uint64_t lane_mask, const TexLaneIn *in, uint32_t (*out)[4],
                        std::vector<uint64_t> *trace);

/**
 * Checks a texture + sampler pair as texture_sample does (same GpuFault
 * reasons), so a module can reject a bad descriptor when it binds it.
 * @check_vram also checks that levels first_level..last_level lie in VRAM.
 */
void texture_validate(const Vram &vram, const VLG_TEXTURE &tex, const VLG_SAMPLER &samp,
                      bool check_vram);

/** Mesa's util_fast_log2 (u_math.h, a 257-entry table over the mantissa):
 *  the log2 softpipe uses for the LOD; |error| < 0.003, exact on powers of
 *  two. Exposed for the tests. */
float tex_fast_log2(float x);

} // namespace vlgpu::sim
