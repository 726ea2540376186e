/*
 * vlgpu simulator: the texture unit (see texture.h for the contract).
 *
 * The sampling arithmetic is softpipe's (Mesa 22.3.6
 * src/gallium/drivers/softpipe/sp_tex_sample.c): the same wrap functions,
 * lerps, LOD formula and util_fast_log2, the same mip level choice and
 * cube-face mapping, in the same floating-point order, so the simulated GPU
 * filters texels exactly as the reference renderer does. Deliberate
 * differences, all inside what GL ES 3.0 allows or defines, are marked
 * "vlgpu:" below and listed in docs/simulator-texture.md.
 */
#include "sim/func/tex/texture.h"

#include <cinttypes>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/func/tex/compare_func.h"
#include "sim/func/tex/format.h"
#include "vlg_limits.h"
#include "common/bits.h"

namespace vlgpu::sim {

namespace {

constexpr unsigned kMaxLevels = VLG_HW_MAX_TEXTURE_LEVELS; /* texture.level[] */

/* Mesa util_ifloor (u_math.h, the non-asm branch): floor via two roundings
 * of 1.5 * 2^23 +- f. Valid for |f| < 2^22; outside that (and for NaN,
 * where Mesa returns garbage) vlgpu uses floorf clamped to +-2^30 so that
 * no input can make an index overflow. */
inline int
mesa_ifloor(float f)
{
   if (f > -2097152.0f && f < 2097152.0f) {
      const double af = (3 << 22) + 0.5 + static_cast<double>(f);
      const double bf = (3 << 22) + 0.5 - static_cast<double>(f);
      const int32_t ai = static_cast<int32_t>(as_uint(static_cast<float>(af)));
      const int32_t bi = static_cast<int32_t>(as_uint(static_cast<float>(bf)));
      return (ai - bi) >> 1;
   }
   if (f != f)
      return 0;
   if (f >= 1073741824.0f)
      return 1073741824;
   if (f <= -1073741824.0f)
      return -1073741824;
   return static_cast<int>(std::floor(f));
}

/* sp_tex_sample.c helpers */
inline float
frac(float f)
{
   return f - std::floor(f);
}

inline float
lerp(float a, float v0, float v1)
{
   return v0 + a * (v1 - v0);
}

inline float
lerp_2d(float a, float b, float v00, float v10, float v01, float v11)
{
   const float temp0 = lerp(a, v00, v10);
   const float temp1 = lerp(a, v01, v11);
   return lerp(b, temp0, temp1);
}

inline float
lerp_3d(float a, float b, float c, float v000, float v100, float v010, float v110, float v001,
        float v101, float v011, float v111)
{
   const float temp0 = lerp_2d(a, b, v000, v100, v010, v110);
   const float temp1 = lerp_2d(a, b, v001, v101, v011, v111);
   return lerp(c, temp0, temp1);
}

inline float
mesa_clamp(float x, float lo, float hi)
{
   return x < lo ? lo : (x > hi ? hi : x);
}

/* vlgpu: a true modulo; softpipe's (coord + size * 1024) % size goes
 * negative (and indexes outside the texture) below -1024 * size. */
inline int
repeat(int coord, int size)
{
   const int r = coord % size;
   return r < 0 ? r + size : r;
}

/* ---- wrap modes (GL ES 3.0 section 3.8; sp_tex_sample.c) ---- */
/* Nearest: texel index for coordinate s over size texels. Linear: the two
 * texel indices and the weight of the second. Indices may fall outside
 * [0, size) only for the border modes (-> border colour). off is the
 * instruction's texel offset (TOFF) for this coordinate, added in texels
 * where softpipe adds it: to the texel index (REPEAT), to s * size (the
 * clamp modes, |s * size + off| for the mirror-clamp modes), to s as
 * off / size (MIRROR_REPEAT), to s in texels (unnormalized coordinates). */

using WrapNearest = int (*)(float s, int size, int off);
using WrapLinear = void (*)(float s, int size, int off, int &i0, int &i1, float &w);

int
wn_repeat(float s, int size, int off)
{
   return repeat(mesa_ifloor(s * size) + off, size);
}

/* The CLAMP* modes of a coordinate u already in texels (s * size + off) */
int
wn_clamp_texels(float u, int size)
{
   if (u <= 0.0f)
      return 0;
   if (u >= size)
      return size - 1;
   return mesa_ifloor(u);
}

int
wn_clamp_to_edge_texels(float u, int size)
{
   const float min = 0.5f;
   const float max = static_cast<float>(size) - 0.5f;
   if (u < min)
      return 0;
   if (u > max)
      return size - 1;
   return mesa_ifloor(u);
}

int
wn_clamp_to_border_texels(float u, int size)
{
   const float min = -0.5f;
   const float max = size + 0.5f;
   if (u <= min)
      return -1;
   if (u >= max)
      return size;
   return mesa_ifloor(u);
}

int
wn_clamp(float s, int size, int off)
{
   return wn_clamp_texels(s * size + off, size);
}

int
wn_clamp_to_edge(float s, int size, int off)
{
   return wn_clamp_to_edge_texels(s * size + off, size);
}

int
wn_clamp_to_border(float s, int size, int off)
{
   return wn_clamp_to_border_texels(s * size + off, size);
}

int
wn_mirror_repeat(float s, int size, int off)
{
   const float min = 1.0f / (2.0f * size);
   const float max = 1.0f - min;
   s += static_cast<float>(off) / size;
   const int flr = mesa_ifloor(s);
   float u = frac(s);
   if (flr & 1)
      u = 1.0f - u;
   if (u < min)
      return 0;
   if (u > max)
      return size - 1;
   return mesa_ifloor(u * size);
}

/* The MIRROR_CLAMP modes are their CLAMP mode of |s * size + off|
 * (EXT_texture_mirror_clamp; softpipe). */
int
wn_mirror_clamp(float s, int size, int off)
{
   return wn_clamp_texels(std::fabs(s * size + off), size);
}

int
wn_mirror_clamp_to_edge(float s, int size, int off)
{
   return wn_clamp_to_edge_texels(std::fabs(s * size + off), size);
}

int
wn_mirror_clamp_to_border(float s, int size, int off)
{
   return wn_clamp_to_border_texels(std::fabs(s * size + off), size);
}

void
wl_repeat(float s, int size, int off, int &i0, int &i1, float &w)
{
   const float u = s * size - 0.5f;
   i0 = repeat(mesa_ifloor(u) + off, size);
   i1 = repeat(i0 + 1, size);
   w = frac(u);
}

/* The texels i0 = floor(u) and i1 = i0 + 1 around u (in texels, the texel
 * centres at whole numbers) and the weight of i1: how every linear wrap mode
 * but REPEAT and MIRROR_REPEAT ends. */
inline void
linear_taps(float u, int &i0, int &i1, float &w)
{
   i0 = mesa_ifloor(u);
   i1 = i0 + 1;
   w = frac(u);
}

/* The _TO_EDGE modes: a tap outside [0, size) takes the edge texel. */
inline void
clamp_taps_to_edge(int size, int &i0, int &i1)
{
   if (i0 < 0)
      i0 = 0;
   if (i1 >= size)
      i1 = size - 1;
}

/* The linear CLAMP modes of a coordinate t already in texels (s * size + off) */
void
wl_clamp_texels(float t, int size, int &i0, int &i1, float &w)
{
   linear_taps(mesa_clamp(t, 0.0f, static_cast<float>(size)) - 0.5f, i0, i1, w);
}

void
wl_clamp_to_edge_texels(float t, int size, int &i0, int &i1, float &w)
{
   wl_clamp_texels(t, size, i0, i1, w);
   clamp_taps_to_edge(size, i0, i1);
}

void
wl_clamp_to_border_texels(float t, int size, int &i0, int &i1, float &w)
{
   const float min = -1.0f;
   const float max = static_cast<float>(size) + 0.5f;
   linear_taps(mesa_clamp(t, min, max) - 0.5f, i0, i1, w);
}

void
wl_clamp(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_texels(s * size + off, size, i0, i1, w);
}

void
wl_clamp_to_edge(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_to_edge_texels(s * size + off, size, i0, i1, w);
}

void
wl_clamp_to_border(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_to_border_texels(s * size + off, size, i0, i1, w);
}

void
wl_mirror_repeat(float s, int size, int off, int &i0, int &i1, float &w)
{
   s += static_cast<float>(off) / size;
   const int flr = mesa_ifloor(s);
   const bool no_mirror = !(flr & 1);
   float u = frac(s);
   if (no_mirror) {
      u = u * size - 0.5f;
   } else {
      u = 1.0f - u;
      u = u * size + 0.5f;
   }
   i0 = mesa_ifloor(u);
   i1 = no_mirror ? i0 + 1 : i0 - 1;
   if (i0 < 0)
      i0 = 1 + i0;
   if (i0 >= size)
      i0 = size - 1;
   if (i1 >= size)
      i1 = size - 1;
   if (i1 < 0)
      i1 = 1 + i1;
   w = no_mirror ? frac(u) : frac(1.0f - u);
}

/* MIRROR_CLAMP*: CLAMP* of |s * size + off|, as the nearest modes */
void
wl_mirror_clamp(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_texels(std::fabs(s * size + off), size, i0, i1, w);
}

void
wl_mirror_clamp_to_edge(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_to_edge_texels(std::fabs(s * size + off), size, i0, i1, w);
}

void
wl_mirror_clamp_to_border(float s, int size, int off, int &i0, int &i1, float &w)
{
   wl_clamp_to_border_texels(std::fabs(s * size + off), size, i0, i1, w);
}

/* Unnormalized coordinates (samp.normalized_coords false): only the clamp
 * modes exist; the others act as CLAMP (softpipe get_*_unorm_wrap). */
int
wn_unorm_clamp(float s, int size, int off)
{
   const int i = mesa_ifloor(s) + off;
   return i < 0 ? 0 : (i > size - 1 ? size - 1 : i);
}

int
wn_unorm_clamp_to_border(float s, int size, int off)
{
   return mesa_ifloor(mesa_clamp(s + off, -0.5f, static_cast<float>(size) + 0.5f));
}

int
wn_unorm_clamp_to_edge(float s, int size, int off)
{
   return mesa_ifloor(mesa_clamp(s + off, 0.5f, static_cast<float>(size) - 0.5f));
}

void
wl_unorm_clamp(float s, int size, int off, int &i0, int &i1, float &w)
{
   linear_taps(mesa_clamp(s + off - 0.5f, 0.0f, static_cast<float>(size) - 1.0f), i0, i1, w);
}

void
wl_unorm_clamp_to_border(float s, int size, int off, int &i0, int &i1, float &w)
{
   linear_taps(mesa_clamp(s + off, -0.5f, static_cast<float>(size) + 0.5f) - 0.5f, i0, i1, w);
   if (i1 > size - 1)
      i1 = size - 1;
}

void
wl_unorm_clamp_to_edge(float s, int size, int off, int &i0, int &i1, float &w)
{
   linear_taps(mesa_clamp(s + off, 0.5f, static_cast<float>(size) - 0.5f) - 0.5f, i0, i1, w);
   if (i1 > size - 1)
      i1 = size - 1;
}

/* The wrap functions of one coordinate. */
struct WrapFunctions {
   WrapNearest nearest;
   WrapLinear linear;
};

/* Normalized coordinates: by vlg_tex_wrap value (a 3-bit field, all eight
 * named). */
constexpr WrapFunctions kWrapFunctions[8] = {
   {wn_repeat, wl_repeat},
   {wn_clamp, wl_clamp},
   {wn_clamp_to_edge, wl_clamp_to_edge},
   {wn_clamp_to_border, wl_clamp_to_border},
   {wn_mirror_repeat, wl_mirror_repeat},
   {wn_mirror_clamp, wl_mirror_clamp},
   {wn_mirror_clamp_to_edge, wl_mirror_clamp_to_edge},
   {wn_mirror_clamp_to_border, wl_mirror_clamp_to_border},
};

WrapFunctions
wrap_functions(vlg_tex_wrap mode, bool normalized)
{
   if (normalized)
      return kWrapFunctions[mode & 7];
   switch (mode) {
   case VLG_TEX_WRAP_CLAMP_TO_EDGE:
      return {wn_unorm_clamp_to_edge, wl_unorm_clamp_to_edge};
   case VLG_TEX_WRAP_CLAMP_TO_BORDER:
      return {wn_unorm_clamp_to_border, wl_unorm_clamp_to_border};
   default:
      return {wn_unorm_clamp, wl_unorm_clamp};
   }
}

/* ---- seamless cube maps (sp_tex_sample.c get_texel_cube_seamless) ---- */

/* Neighbour face of each face in the directions -x, +x, -y, +y of its
 * (s, t) plane. Faces are PIPE_TEX_FACE_* = layers +X -X +Y -Y +Z -Z. */
constexpr unsigned kFaceArray[6][4] = {
   {4, 5, 2, 3}, {5, 4, 2, 3}, {1, 0, 5, 4}, {1, 0, 4, 5}, {1, 0, 2, 3}, {0, 1, 2, 3},
};

int
next_xcoord(unsigned face, unsigned fall_off_index, int max, int xc, int yc)
{
   if ((face == 0 && fall_off_index != 1) || (face == 1 && fall_off_index == 0) ||
       (face == 4 && fall_off_index == 0) || (face == 5 && fall_off_index == 0))
      return max;
   if ((face == 1 && fall_off_index != 0) || (face == 0 && fall_off_index == 1) ||
       (face == 4 && fall_off_index == 1) || (face == 5 && fall_off_index == 1))
      return 0;
   if ((face == 4 && fall_off_index >= 2) || (face == 2 && fall_off_index == 3) ||
       (face == 3 && fall_off_index == 2))
      return xc;
   if ((face == 5 && fall_off_index >= 2) || (face == 2 && fall_off_index == 2) ||
       (face == 3 && fall_off_index == 3))
      return max - xc;
   if ((face == 2 && fall_off_index == 0) || (face == 3 && fall_off_index == 1))
      return yc;
   return max - yc;
}

int
next_ycoord(unsigned face, unsigned fall_off_index, int max, int xc, int yc)
{
   if ((fall_off_index <= 1) && (face <= 1 || face >= 4))
      return yc;
   if (face == 2 || (face == 4 && fall_off_index == 3) || (face == 5 && fall_off_index == 2))
      return 0;
   if (face == 3 || (face == 4 && fall_off_index == 2) || (face == 5 && fall_off_index == 3))
      return max;
   if ((face == 0 && fall_off_index == 3) || (face == 1 && fall_off_index == 2))
      return xc;
   return max - xc;
}

/* ------------------------------------------------------------ the unit -- */

struct LevelView {
   const uint8_t *base = nullptr; /* texel (0,0) of layer/slice 0 */
   uint64_t addr = 0;             /* its VRAM address */
   int w = 0, h = 0, d = 0;       /* texels; d = 3D depth or number of layers */
   uint32_t pitch = 0, stride = 0;
};

/* Calls a wrap function through its pointer, but the common modes (REPEAT,
 * CLAMP_TO_EDGE with normalized coordinates) directly so that they inline. */
inline int
wrap_nearest(WrapNearest f, float s, int size, int off)
{
   if (f == wn_clamp_to_edge)
      return wn_clamp_to_edge(s, size, off);
   if (f == wn_repeat)
      return wn_repeat(s, size, off);
   return f(s, size, off);
}

inline void
wrap_linear(WrapLinear f, float s, int size, int off, int &i0, int &i1, float &w)
{
   if (f == wl_clamp_to_edge)
      wl_clamp_to_edge(s, size, off, i0, i1, w);
   else if (f == wl_repeat)
      wl_repeat(s, size, off, i0, i1, w);
   else
      f(s, size, off, i0, i1, w);
}

/* Everything one instruction needs, prepared once per call. */
struct Unit {
   const VLG_TEXTURE &tex;
   const VLG_SAMPLER &samp;
   const FormatInfo *fi = nullptr;
   FormatUnpackFn unpack = nullptr;
   unsigned bpp = 0;
   bool integer = false;
   unsigned first = 0, last = 0;
   LevelView lv[kMaxLevels];
   uint32_t border[4] = {};
   uint32_t one = 0;
   unsigned swz[4] = {};
   bool swz_identity = false; /* swz is R, G, B, A: swizzle() copies */
   WrapNearest wn[3] = {};
   WrapLinear wl[3] = {};
   bool min_linear = false, mag_linear = false;
   vlg_mip_filter mip = VLG_MIP_FILTER_NONE;
   bool compare = false;
   bool ref_clamp = false;
   /** The instruction's texel offsets (u, v, w) in texels (TexInstr::offset). */
   int off[3] = {0, 0, 0};
   std::vector<uint64_t> *trace = nullptr;
   /** Filter units taken so far (texture_sample's return value, the cost
    *  rule of texture.h): counted where the levels are filtered. */
   mutable uint32_t filter_units = 0;

   Unit(const VLG_TEXTURE &t, const VLG_SAMPLER &s) : tex(t), samp(s) {}
};

[[noreturn]] void
bad_descriptor(const char *what, const std::string &why)
{
   throw GpuFault("TEX", std::string("invalid ") + what + " descriptor", why);
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

std::string
fmt(const char *f, ...)
{
   char buf[512];
   va_list ap;
   va_start(ap, f);
   std::vsnprintf(buf, sizeof(buf), f, ap);
   va_end(ap);
   return buf;
}

const char *
target_name(uint32_t t)
{
   const char *n = vlg_texture_target_name(t);
   return n ? n : "?";
}

bool
is_1d(vlg_texture_target t)
{
   return t == VLG_TEXTURE_TARGET_1D || t == VLG_TEXTURE_TARGET_1D_ARRAY;
}

/* CUBE and CUBE_ARRAY: faces chosen from a direction, seamless filtering. */
bool
is_cube(vlg_texture_target t)
{
   return t == VLG_TEXTURE_TARGET_CUBE || t == VLG_TEXTURE_TARGET_CUBE_ARRAY;
}

/* Largest BUFFER texture (vlgpu_hw.xml <limit name="buffer_texels">: Mesa's
 * limit for GL_MAX_TEXTURE_BUFFER_SIZE; the driver advertises the same). */
constexpr uint32_t kMaxBufferTexels = VLG_HW_MAX_BUFFER_TEXELS;

/* Texels of a BUFFER texture: width | height << 16 (vlgpu_hw.xml texture_target). */
uint32_t
buffer_texels(const VLG_TEXTURE &t)
{
   return t.width | t.height << 16;
}

/* Descriptor checks shared by texture_sample and texture_validate. */
void
check_texture(const VLG_TEXTURE &t)
{
   if (!vlg_texture_target_is_valid(t.target))
      bad_descriptor("texture", fmt("target %u is not a texture target", t.target));
   const FormatInfo &fi = format_info(t.format);
   if (!fi.supported || !(fi.usage & VLG_FORMAT_USAGE_TEX))
      bad_descriptor(
         "texture",
         fmt("format %s (%u) cannot be sampled (no tex usage in vlgpu_hw.xml)", fi.name, t.format));
   if (t.srgb && !fi.is_srgb)
      bad_descriptor("texture", fmt("srgb is set but format %s is not an sRGB format", fi.name));
   const uint32_t sw[4] = {t.swizzle_r, t.swizzle_g, t.swizzle_b, t.swizzle_a};
   for (unsigned i = 0; i < 4; i++)
      if (!vlg_swizzle_is_valid(sw[i]))
         bad_descriptor("texture", fmt("swizzle_%c = %u is not a swizzle", "rgba"[i], sw[i]));
   const char *tn = target_name(t.target);
   if (t.target == VLG_TEXTURE_TARGET_BUFFER) {
      if (t.depth != 1 || t.array_size != 1 || t.num_levels != 1 || t.first_level != 0 ||
          t.last_level != 0)
         bad_descriptor("texture", fmt("BUFFER texture with depth %u, array_size %u, levels %u "
                                       "(%u..%u): must be 1, 1, 1 (0..0)",
                                       t.depth, t.array_size, t.num_levels, t.first_level,
                                       t.last_level));
      if (buffer_texels(t) > kMaxBufferTexels)
         bad_descriptor("texture", fmt("BUFFER texture of %u texels (at most %u)", buffer_texels(t),
                                       kMaxBufferTexels));
      return;
   }
   if (t.width == 0 || t.height == 0 || t.depth == 0 || t.array_size == 0)
      bad_descriptor("texture", fmt("zero size: %ux%ux%u, %u layers", t.width, t.height, t.depth,
                                    t.array_size));
   if (is_1d(t.target) && t.height != 1)
      bad_descriptor("texture", fmt("%s texture with height %u (must be 1)", tn, t.height));
   if (t.target != VLG_TEXTURE_TARGET_3D && t.depth != 1)
      bad_descriptor("texture", fmt("%s texture with depth %u (must be 1)", tn, t.depth));
   if ((t.target == VLG_TEXTURE_TARGET_1D || t.target == VLG_TEXTURE_TARGET_2D ||
        t.target == VLG_TEXTURE_TARGET_3D) &&
       t.array_size != 1)
      bad_descriptor("texture", fmt("%s texture with array_size %u (must be 1)", tn, t.array_size));
   if (t.target == VLG_TEXTURE_TARGET_CUBE && (t.array_size != 6 || t.width != t.height))
      bad_descriptor("texture", fmt("CUBE texture %ux%u with %u layers (must be square, 6 layers)",
                                    t.width, t.height, t.array_size));
   if (t.target == VLG_TEXTURE_TARGET_CUBE_ARRAY && (t.array_size % 6 || t.width != t.height))
      bad_descriptor("texture", fmt("CUBE_ARRAY texture %ux%u with %u layers (must be square, "
                                    "a multiple of 6 layers)",
                                    t.width, t.height, t.array_size));
   if (t.num_levels < 1 || t.num_levels > kMaxLevels)
      bad_descriptor("texture", fmt("num_levels %u outside 1..%u", t.num_levels, kMaxLevels));
   if (t.first_level > t.last_level || t.last_level >= t.num_levels)
      bad_descriptor("texture", fmt("levels first %u .. last %u do not fit in num_levels %u",
                                    t.first_level, t.last_level, t.num_levels));
}

void
check_sampler(const VLG_SAMPLER &s)
{
   const uint32_t wraps[3] = {s.wrap_s, s.wrap_t, s.wrap_r};
   for (unsigned i = 0; i < 3; i++)
      if (!vlg_tex_wrap_is_valid(wraps[i]))
         bad_descriptor("sampler", fmt("wrap_%c = %u is not a wrap mode", "str"[i], wraps[i]));
   if (!vlg_tex_filter_is_valid(s.min_img_filter) || !vlg_tex_filter_is_valid(s.mag_img_filter))
      bad_descriptor(
         "sampler", fmt("image filters %u/%u are not filters", s.min_img_filter, s.mag_img_filter));
   if (!vlg_mip_filter_is_valid(s.min_mip_filter))
      bad_descriptor("sampler", fmt("min_mip_filter %u is not a mip filter", s.min_mip_filter));
   if (!vlg_compare_mode_is_valid(s.compare_mode) || !vlg_compare_func_is_valid(s.compare_func))
      bad_descriptor("sampler",
                     fmt("compare mode/func %u/%u invalid", s.compare_mode, s.compare_func));
}

/* Geometry of level L (GL ES 3.0: max(1, size >> L); layers are not minified). */
void
level_size(const VLG_TEXTURE &t, unsigned L, int &w, int &h, int &d)
{
   if (t.target == VLG_TEXTURE_TARGET_BUFFER) {
      w = static_cast<int>(buffer_texels(t));
      h = d = 1;
      return;
   }
   w = static_cast<int>(t.width >> L ? t.width >> L : 1);
   h = is_1d(t.target) ? 1 : static_cast<int>(t.height >> L ? t.height >> L : 1);
   if (t.target == VLG_TEXTURE_TARGET_3D)
      d = static_cast<int>(t.depth >> L ? t.depth >> L : 1);
   else
      d = static_cast<int>(t.array_size);
}

/* Checks that the texels of levels first..last lie inside VRAM and fills
 * their views; faults name the level and the bytes it spans. */
void
map_levels(const Vram &vram, Unit &u)
{
   const VLG_TEXTURE &t = u.tex;
   for (unsigned L = t.first_level; L <= t.last_level; L++) {
      LevelView &v = u.lv[L];
      level_size(t, L, v.w, v.h, v.d);
      v.pitch = t.level[L].row_pitch;
      v.stride = t.level[L].layer_stride;
      const uint64_t extent = static_cast<uint64_t>(v.d - 1) * v.stride +
                              static_cast<uint64_t>(v.h - 1) * v.pitch +
                              static_cast<uint64_t>(v.w) * u.bpp;
      if (extent == 0) { /* an empty BUFFER texture: nothing to read */
         v.addr = t.address;
         v.base = nullptr;
         continue;
      }
      const uint64_t off = t.level[L].offset;
      if (t.address > UINT64_MAX - off || !vram.contains(t.address + off, extent)) {
         throw GpuFault("TEX", "texture level outside VRAM",
                        fmt("level %u (%dx%dx%d %s, row_pitch %u, layer_stride %u) spans %" PRIu64
                            " bytes at 0x%" PRIx64 " + 0x%" PRIx64 "; VRAM is 0x0..0x%" PRIx64,
                            L, v.w, v.h, v.d, u.fi->name, v.pitch, v.stride, extent, t.address, off,
                            vram.size()));
      }
      v.addr = t.address + off;
      v.base = vram.ptr(v.addr, extent, "TEX");
   }
}

void
prepare(const Vram &vram, Unit &u, bool sampling, bool map)
{
   const VLG_TEXTURE &t = u.tex;
   check_texture(t);
   if (sampling)
      check_sampler(u.samp);
   /* vlgpu: an sRGB format with srgb off samples the encoded values
    * (EXT_texture_sRGB_decode's SKIP_DECODE), like st/mesa's linear view. */
   const vlg_format f = t.srgb ? t.format : format_info(t.format).linear;
   u.fi = &format_info(f);
   u.unpack = format_unpack_fn(f);
   u.bpp = u.fi->bytes;
   u.integer = u.fi->is_integer;
   u.first = t.first_level;
   u.last = t.last_level;
   u.one = u.integer ? 1u : 0x3f800000u;
   u.swz[0] = t.swizzle_r;
   u.swz[1] = t.swizzle_g;
   u.swz[2] = t.swizzle_b;
   u.swz[3] = t.swizzle_a;
   u.swz_identity = u.swz[0] == 0 && u.swz[1] == 1 && u.swz[2] == 2 && u.swz[3] == 3;
   if (map)
      map_levels(vram, u);
   if (!sampling)
      return;

   const VLG_SAMPLER &s = u.samp;
   const vlg_tex_wrap wraps[3] = {s.wrap_s, s.wrap_t, s.wrap_r};
   for (unsigned i = 0; i < 3; i++) {
      const WrapFunctions w = wrap_functions(wraps[i], s.normalized_coords);
      u.wn[i] = w.nearest;
      u.wl[i] = w.linear;
   }
   /* GL ES 3.0 texture completeness: integer textures are only complete with NEAREST
    * filtering; vlgpu samples them unfiltered whatever the sampler says. */
   u.min_linear = !u.integer && s.min_img_filter == VLG_TEX_FILTER_LINEAR;
   u.mag_linear = !u.integer && s.mag_img_filter == VLG_TEX_FILTER_LINEAR;
   u.mip = s.min_mip_filter;
   if (u.integer && u.mip == VLG_MIP_FILTER_LINEAR)
      u.mip = VLG_MIP_FILTER_NEAREST;

   /* Border colour, clamped to the format's range (sp_tex_sample.c
    * sp_tgsi_get_samples); integer formats use the raw words. */
   for (unsigned c = 0; c < 4; c++) {
      const float b = s.border_color[c];
      float v = b;
      if (!u.integer && u.fi->border_clamp == BorderClamp::Unorm)
         v = mesa_clamp(b, 0.0f, 1.0f);
      else if (!u.integer && u.fi->border_clamp == BorderClamp::Snorm)
         v = mesa_clamp(b, -1.0f, 1.0f);
      u.border[c] = as_uint(v);
   }
   u.ref_clamp = u.fi->shadow_ref_clamp;
}

/* One texel of level view l at (x, y, z|layer) -> 4 words; outside the
 * level: the border colour (sp_tex_sample.c get_texel_2d/3d). */
inline void
fetch(const Unit &u, const LevelView &l, int x, int y, int z, uint32_t w[4])
{
   if (static_cast<unsigned>(x) >= static_cast<unsigned>(l.w) ||
       static_cast<unsigned>(y) >= static_cast<unsigned>(l.h) ||
       static_cast<unsigned>(z) >= static_cast<unsigned>(l.d)) {
      w[0] = u.border[0];
      w[1] = u.border[1];
      w[2] = u.border[2];
      w[3] = u.border[3];
      return;
   }
   const uint64_t off = static_cast<uint64_t>(z) * l.stride + static_cast<uint64_t>(y) * l.pitch +
                        static_cast<uint64_t>(x) * u.bpp;
   u.unpack(l.base + off, w);
   if (u.trace)
      u.trace->push_back(l.addr + off);
}

/* A texel as the filters see it: the unpacked words, or with a shadow
 * compare the comparison result (r, r, r, 1) -- vlgpu: comparing every
 * texel before filtering gives GL's percentage-closer filtering; softpipe
 * compares the filtered depth instead (same result with NEAREST). */
struct Sampler {
   const Unit &u;
   bool cmp = false;
   float ref = 0.0f;

   inline void texel(const LevelView &l, int x, int y, int z, uint32_t w[4]) const
   {
      fetch(u, l, x, y, z, w);
      if (cmp) {
         const uint32_t k =
            compare_func_passes(u.samp.compare_func, ref, as_float(w[0])) ? 0x3f800000u : 0;
         w[0] = w[1] = w[2] = k;
         w[3] = 0x3f800000u;
      }
   }

   /* The 2x2 texels (x0|x1, y0|y1) of slice or layer @z into tx[0..3], in
    * footprint()'s order. */
   inline void quad(const LevelView &l, int x0, int x1, int y0, int y1, int z,
                    uint32_t tx[][4]) const
   {
      const auto in = [](int c, int size) {
         return static_cast<unsigned>(c) < static_cast<unsigned>(size);
      };
      if (cmp || !(in(x0, l.w) && in(x1, l.w) && in(y0, l.h) && in(y1, l.h) && in(z, l.d))) {
         texel(l, x0, y0, z, tx[0]);
         texel(l, x1, y0, z, tx[1]);
         texel(l, x0, y1, z, tx[2]);
         texel(l, x1, y1, z, tx[3]);
         return;
      }
      /* Host speed: fetch() of four texels inside the level, each
       * coordinate checked and scaled once (the same words and trace). */
      const uint64_t zo = static_cast<uint64_t>(z) * l.stride;
      const uint64_t r0 = zo + static_cast<uint64_t>(y0) * l.pitch;
      const uint64_t r1 = zo + static_cast<uint64_t>(y1) * l.pitch;
      const uint64_t c0 = static_cast<uint64_t>(x0) * u.bpp, c1 = static_cast<uint64_t>(x1) * u.bpp;
      u.unpack(l.base + r0 + c0, tx[0]);
      u.unpack(l.base + r0 + c1, tx[1]);
      u.unpack(l.base + r1 + c0, tx[2]);
      u.unpack(l.base + r1 + c1, tx[3]);
      if (u.trace) {
         u.trace->push_back(l.addr + r0 + c0);
         u.trace->push_back(l.addr + r0 + c1);
         u.trace->push_back(l.addr + r1 + c0);
         u.trace->push_back(l.addr + r1 + c1);
      }
   }

   /* seamless cube fetch: a texel off the face edge comes from the
    * neighbouring face of the same cube (softpipe's corner handling: the
    * coordinate that did not fall off is clamped). @layer = 6 x cube + face. */
   inline void cube_texel(const LevelView &l, int x, int y, int layer, uint32_t w[4]) const
   {
      const unsigned face = static_cast<unsigned>(layer % 6);
      const int cube_base = layer - static_cast<int>(face);
      const int max_x = l.w;
      int nx = x, ny = y;
      unsigned nf = face;
      if (x < 0 || x >= max_x) {
         const unsigned idx = x < 0 ? 0 : 1;
         if (y < 0 || y >= max_x)
            y = y < 0 ? 0 : max_x - 1;
         nx = next_xcoord(face, idx, max_x - 1, x, y);
         ny = next_ycoord(face, idx, max_x - 1, x, y);
         nf = kFaceArray[face][idx];
      } else if (y < 0 || y >= max_x) {
         const unsigned idx = y < 0 ? 2 : 3;
         nx = next_xcoord(face, idx, max_x - 1, x, y);
         ny = next_ycoord(face, idx, max_x - 1, x, y);
         nf = kFaceArray[face][idx];
      }
      texel(l, nx, ny, cube_base + static_cast<int>(nf), w);
   }

   /* One level, one image filter (sp_tex_sample.c img_filter_*). s, t are
    * face coordinates for CUBE and CUBE_ARRAY; layer is the array layer,
    * cube face or 6 x cube + face. */
   void image(unsigned level, bool linear, float s, float t, float p, int layer,
              uint32_t out[4]) const
   {
      const LevelView &l = u.lv[level];
      const vlg_texture_target target = u.tex.target;
      /* one bilinear unit per level filtered; a 3D LINEAR level is two
       * bilinear footprints (two slices) */
      u.filter_units += linear && target == VLG_TEXTURE_TARGET_3D ? 2 : 1;
      if (!linear) {
         int x = 0, y = 0, z = layer;
         if (is_cube(target) && u.samp.seamless_cube_map) {
            /* softpipe: NEAREST within a seamless cube face is CLAMP_TO_EDGE */
            x = wn_clamp_to_edge(s, l.w, u.off[0]);
            y = wn_clamp_to_edge(t, l.h, u.off[1]);
         } else {
            x = wrap_nearest(u.wn[0], s, l.w, u.off[0]);
            if (!is_1d(target))
               y = wrap_nearest(u.wn[1], t, l.h, u.off[1]);
            if (target == VLG_TEXTURE_TARGET_3D)
               z = wrap_nearest(u.wn[2], p, l.d, u.off[2]);
         }
         texel(l, x, y, z, out);
         return;
      }

      int x0 = 0, x1 = 0, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
      float xw = 0.0f, yw = 0.0f, zw = 0.0f;
      uint32_t tx[8][4];
      if (is_1d(target)) {
         wrap_linear(u.wl[0], s, l.w, u.off[0], x0, x1, xw);
         texel(l, x0, 0, layer, tx[0]);
         texel(l, x1, 0, layer, tx[1]);
         for (unsigned c = 0; c < 4; c++)
            out[c] = as_uint(lerp(xw, as_float(tx[0][c]), as_float(tx[1][c])));
         return;
      } else if (target == VLG_TEXTURE_TARGET_3D) {
         wrap_linear(u.wl[0], s, l.w, u.off[0], x0, x1, xw);
         wrap_linear(u.wl[1], t, l.h, u.off[1], y0, y1, yw);
         wrap_linear(u.wl[2], p, l.d, u.off[2], z0, z1, zw);
         quad(l, x0, x1, y0, y1, z0, tx);
         quad(l, x0, x1, y0, y1, z1, tx + 4);
         for (unsigned c = 0; c < 4; c++)
            out[c] = as_uint(lerp_3d(xw, yw, zw, as_float(tx[0][c]), as_float(tx[1][c]), as_float(tx[2][c]),
                                   as_float(tx[3][c]), as_float(tx[4][c]), as_float(tx[5][c]),
                                   as_float(tx[6][c]), as_float(tx[7][c])));
         return;
      }
      footprint(level, s, t, layer, tx, xw, yw);
      for (unsigned c = 0; c < 4; c++)
         out[c] = as_uint(
            lerp_2d(xw, yw, as_float(tx[0][c]), as_float(tx[1][c]), as_float(tx[2][c]), as_float(tx[3][c])));
   }

   /* The 2x2 LINEAR footprint of 2D, 2D-array and cube @level at
    * face/layer coordinates (s, t), in sp_tex_sample.c's texel order: tx[0]
    * (x0, y0), tx[1] (x1, y0), tx[2] (x0, y1), tx[3] (x1, y1), and the
    * weights xw, yw of x1 and y1. LINEAR filtering blends it; TG4 returns it
    * unfiltered (level first). */
   void footprint(unsigned level, float s, float t, int layer, uint32_t tx[][4], float &xw,
                  float &yw) const
   {
      const LevelView &l = u.lv[level];
      int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
      if (is_cube(u.tex.target) && u.samp.seamless_cube_map) {
         wl_clamp_to_border(s, l.w, u.off[0], x0, x1, xw);
         wl_clamp_to_border(t, l.h, u.off[1], y0, y1, yw);
         cube_texel(l, x0, y0, layer, tx[0]);
         cube_texel(l, x1, y0, layer, tx[1]);
         cube_texel(l, x0, y1, layer, tx[2]);
         cube_texel(l, x1, y1, layer, tx[3]);
         return;
      }
      wrap_linear(u.wl[0], s, l.w, u.off[0], x0, x1, xw);
      wrap_linear(u.wl[1], t, l.h, u.off[1], y0, y1, yw);
      quad(l, x0, x1, y0, y1, layer, tx);
   }

   /* Mip level choice and filtering (sp_tex_sample.c mip_filter_none /
    * _nearest / _linear). lod is relative to first_level, already clamped
    * to [min_lod, max_lod]. Magnification when lod <= 0: softpipe's
    * switch-over point c = 0 for every filter combination. */
   void mip(float lod, float s, float t, float p, int layer, uint32_t out[4]) const
   {
      const unsigned first = u.first, last = u.last;
      if (lod <= 0.0f) {
         image(first, u.mag_linear, s, t, p, layer, out);
         return;
      }
      switch (u.mip) {
      case VLG_MIP_FILTER_NONE:
         image(first, u.min_linear, s, t, p, layer, out);
         return;
      case VLG_MIP_FILTER_NEAREST: {
         const unsigned level = first + static_cast<unsigned>(static_cast<int>(lod + 0.5f));
         image(level < last ? level : last, u.min_linear, s, t, p, layer, out);
         return;
      }
      default: {
         const unsigned level0 = first + static_cast<unsigned>(static_cast<int>(lod));
         if (level0 >= last) {
            image(last, u.min_linear, s, t, p, layer, out);
            return;
         }
         const float blend = frac(lod);
         uint32_t a[4], b[4];
         image(level0, u.min_linear, s, t, p, layer, a);
         image(level0 + 1, u.min_linear, s, t, p, layer, b);
         for (unsigned c = 0; c < 4; c++)
            out[c] = as_uint(lerp(blend, as_float(a[c]), as_float(b[c])));
         return;
      }
      }
   }
};

/* Mesa's log2 table (u_math.c init_log2_table). */
struct Log2Table {
   float v[257];
   Log2Table()
   {
      for (unsigned i = 0; i < 257; i++)
         v[i] = static_cast<float>(std::log2(1.0 + i * (1.0 / 256)));
   }
};

/* Level-of-detail from derivatives (sp_tex_sample.c compute_lambda_*,
 * the GL ES 3.0 level-of-detail equations with rho = max over axes of the larger of the
 * x and y derivative, scaled by the base level size). Cube maps use the
 * direction vector's derivatives times width / 2 (softpipe). Unnormalized
 * coordinates are already in texels (GL: u = s for rectangle textures). */
float
lambda(const Unit &u, float dsdx, float dsdy, float dtdx, float dtdy, float dpdx, float dpdy)
{
   const VLG_TEXTURE &t = u.tex;
   const bool norm = u.samp.normalized_coords;
   const float w = static_cast<float>(t.width >> u.first ? t.width >> u.first : 1);
   const float h = static_cast<float>(t.height >> u.first ? t.height >> u.first : 1);
   const float d = static_cast<float>(t.depth >> u.first ? t.depth >> u.first : 1);
   dsdx = std::fabs(dsdx);
   dsdy = std::fabs(dsdy);
   dtdx = std::fabs(dtdx);
   dtdy = std::fabs(dtdy);
   dpdx = std::fabs(dpdx);
   dpdy = std::fabs(dpdy);
   const float maxs = dsdx > dsdy ? dsdx : dsdy;
   const float maxt = dtdx > dtdy ? dtdx : dtdy;
   const float maxp = dpdx > dpdy ? dpdx : dpdy;
   float rho;
   switch (t.target) {
   case VLG_TEXTURE_TARGET_1D:
   case VLG_TEXTURE_TARGET_1D_ARRAY:
      rho = norm ? maxs * w : maxs;
      break;
   case VLG_TEXTURE_TARGET_3D: {
      const float mx = norm ? maxs * w : maxs, my = norm ? maxt * h : maxt,
                  mz = norm ? maxp * d : maxp;
      rho = mx > my ? (mx > mz ? mx : mz) : (my > mz ? my : mz);
      break;
   }
   case VLG_TEXTURE_TARGET_CUBE:
   case VLG_TEXTURE_TARGET_CUBE_ARRAY: {
      const float m = maxs > maxt ? (maxs > maxp ? maxs : maxp) : (maxt > maxp ? maxt : maxp);
      rho = m * w / 2.0f;
      break;
   }
   default: {
      const float mx = norm ? maxs * w : maxs, my = norm ? maxt * h : maxt;
      rho = mx > my ? mx : my;
      break;
   }
   }
   return tex_fast_log2(rho);
}

/* Clamp to the sampler's LOD range (Mesa CLAMP). vlgpu: a NaN LOD (NaN
 * coordinates or descriptor values) becomes 0 and huge values are capped,
 * so the level arithmetic below never overflows. */
inline float
clamp_lod(const Unit &u, float lod)
{
   lod = mesa_clamp(lod, u.samp.min_lod, u.samp.max_lod);
   if (lod != lod)
      return 0.0f;
   return lod > 64.0f ? 64.0f : lod;
}

/* Cube face selection and face coordinates (GL ES 3.0 Table 3.21;
 * sp_tex_sample.c convert_cube). Returns the face = layer 0..5. */
unsigned
cube_face(float rx, float ry, float rz, float &sc, float &tc)
{
   const float arx = std::fabs(rx), ary = std::fabs(ry), arz = std::fabs(rz);
   if (arx >= ary && arx >= arz) {
      const float sign = rx >= 0.0f ? 1.0f : -1.0f;
      const float ima = -0.5f / std::fabs(rx);
      sc = sign * rz * ima + 0.5f;
      tc = ry * ima + 0.5f;
      return rx >= 0.0f ? 0 : 1;
   }
   if (ary >= arx && ary >= arz) {
      const float sign = ry >= 0.0f ? 1.0f : -1.0f;
      const float ima = -0.5f / std::fabs(ry);
      sc = -rx * ima + 0.5f;
      tc = sign * -rz * ima + 0.5f;
      return ry >= 0.0f ? 2 : 3;
   }
   const float sign = rz >= 0.0f ? 1.0f : -1.0f;
   const float ima = -0.5f / std::fabs(rz);
   sc = sign * -rx * ima + 0.5f;
   tc = ry * ima + 0.5f;
   return rz >= 0.0f ? 4 : 5;
}

/* sp_tex_sample.c coord_to_layer: round to nearest, clamp to the layers. */
inline int
coord_to_layer(float coord, int layers)
{
   const int c = mesa_ifloor(coord + 0.5f);
   return c < 0 ? 0 : (c > layers - 1 ? layers - 1 : c);
}

void
swizzle(const Unit &u, const uint32_t v[4], uint32_t out[4])
{
   if (u.swz_identity) {
      std::memcpy(out, v, 4 * sizeof(uint32_t));
      return;
   }
   for (unsigned i = 0; i < 4; i++) {
      const unsigned s = u.swz[i];
      out[i] = s < 4 ? v[s] : (s == VLG_SWIZZLE_ZERO ? 0u : u.one);
   }
}

/* The word other targets take from coord[3] (shadow reference, TG4
 * component): extra[3] for CUBE_ARRAY, whose coord[3] is the cube index
 * (the .CUBEARRAY operands, docs/isa.md TEX). */
inline uint32_t
ref_word(const Unit &u, const TexLaneIn &in)
{
   return u.tex.target == VLG_TEXTURE_TARGET_CUBE_ARRAY ? in.extra[3] : in.coord[3];
}

/* The face of direction (s, t, p) and the face coordinates; for CUBE_ARRAY
 * the layer 6 x cube + face, the cube index coord[3] rounded and clamped
 * like an array layer (GL 4.0 section 3.8.9, sp_tex_sample.c
 * sample_cube_array: layer = 6 x coord_to_layer(q) + face). */
inline int
cube_layer(const Unit &u, const TexLaneIn &in, float &s, float &t, float p)
{
   float sc, tc;
   int layer = static_cast<int>(cube_face(s, t, p, sc, tc));
   s = sc;
   t = tc;
   if (u.tex.target == VLG_TEXTURE_TARGET_CUBE_ARRAY)
      layer += 6 * coord_to_layer(as_float(in.coord[3]), static_cast<int>(u.tex.array_size / 6));
   return layer;
}

/* One lane of TEX/TXB/TXL/TXD with its LOD already computed. */
void
sample_lane(const Unit &u, bool shadow, float lod, const TexLaneIn &in, uint32_t out[4])
{
   float s = as_float(in.coord[0]), t = as_float(in.coord[1]), p = as_float(in.coord[2]);
   Sampler smp{u};
   if (shadow) {
      smp.cmp = true;
      const float ref = as_float(ref_word(u, in));
      smp.ref = u.ref_clamp ? mesa_clamp(ref, 0.0f, 1.0f) : ref;
   }
   int layer = 0;
   switch (u.tex.target) {
   case VLG_TEXTURE_TARGET_CUBE:
   case VLG_TEXTURE_TARGET_CUBE_ARRAY:
      layer = cube_layer(u, in, s, t, p);
      break;
   case VLG_TEXTURE_TARGET_1D_ARRAY:
      layer = coord_to_layer(t, static_cast<int>(u.tex.array_size));
      break;
   case VLG_TEXTURE_TARGET_2D_ARRAY:
      layer = coord_to_layer(p, static_cast<int>(u.tex.array_size));
      break;
   default:
      break;
   }
   uint32_t v[4];
   smp.mip(lod, s, t, p, layer, v);
   swizzle(u, v, out);
}

/* One lane of TG4 (sp_tex_sample.c get_gather_value: the component
 * through the view swizzle, results in GL's order i0j1 i1j1 i1j0 i0j0). */
void
gather_lane(const Unit &u, bool shadow, const TexLaneIn &in, uint32_t out[4])
{
   float s = as_float(in.coord[0]), t = as_float(in.coord[1]), p = as_float(in.coord[2]);
   Sampler smp{u};
   unsigned comp = 0;
   if (shadow) {
      smp.cmp = true;
      const float ref = as_float(ref_word(u, in));
      smp.ref = u.ref_clamp ? mesa_clamp(ref, 0.0f, 1.0f) : ref;
   } else {
      comp = ref_word(u, in); /* 0..3: texture_sample checked every lane */
   }
   int layer = 0;
   if (is_cube(u.tex.target)) {
      layer = cube_layer(u, in, s, t, p);
   } else if (u.tex.target == VLG_TEXTURE_TARGET_2D_ARRAY) {
      layer = coord_to_layer(p, static_cast<int>(u.tex.array_size));
   }
   uint32_t tx[4][4];
   float xw = 0.0f, yw = 0.0f; /* TG4 does not filter */
   u.filter_units++; /* one 2x2 footprint */
   smp.footprint(u.first, s, t, layer, tx, xw, yw);
   const unsigned sw = u.swz[comp];
   static const unsigned order[4] = {2, 3, 1, 0};
   for (unsigned i = 0; i < 4; i++)
      out[i] = sw < 4 ? tx[order[i]][sw] : (sw == VLG_SWIZZLE_ZERO ? 0u : u.one);
}

void
fetch_lane(const Unit &u, const TexLaneIn &in, uint32_t out[4])
{
   const int32_t x = static_cast<int32_t>(in.coord[0]), y = static_cast<int32_t>(in.coord[1]),
                 z = static_cast<int32_t>(in.coord[2]), lod = static_cast<int32_t>(in.coord[3]);
   uint32_t v[4] = {0, 0, 0, 0};
   u.filter_units++; /* one texel, through the unit like a NEAREST sample */
   if (lod >= 0 && lod <= static_cast<int32_t>(u.last - u.first)) {
      const LevelView &l = u.lv[u.first + static_cast<unsigned>(lod)];
      int tx = x, ty = y, tz = z;
      switch (u.tex.target) {
      case VLG_TEXTURE_TARGET_BUFFER:
      case VLG_TEXTURE_TARGET_1D:
         ty = 0;
         tz = 0;
         break;
      case VLG_TEXTURE_TARGET_1D_ARRAY:
         ty = 0;
         tz = y;
         break;
      case VLG_TEXTURE_TARGET_2D:
         tz = 0;
         break;
      default: /* 2D_ARRAY layer, 3D slice, CUBE face, CUBE_ARRAY 6 x cube + face in z */
         break;
      }
      if (static_cast<unsigned>(tx) < static_cast<unsigned>(l.w) &&
          static_cast<unsigned>(ty) < static_cast<unsigned>(l.h) &&
          static_cast<unsigned>(tz) < static_cast<unsigned>(l.d))
         fetch(u, l, tx, ty, tz, v);
   }
   swizzle(u, v, out);
}

void
query_lane(const Unit &u, const TexLaneIn &in, uint32_t out[4])
{
   const int32_t lod = static_cast<int32_t>(in.coord[0]);
   const uint32_t levels = u.last - u.first + 1;
   out[0] = out[1] = out[2] = 0;
   out[3] = levels;
   if (lod < 0 || static_cast<uint32_t>(lod) >= levels)
      return;
   int w, h, d;
   level_size(u.tex, u.first + static_cast<unsigned>(lod), w, h, d);
   out[0] = static_cast<uint32_t>(w);
   switch (u.tex.target) {
   case VLG_TEXTURE_TARGET_BUFFER:
   case VLG_TEXTURE_TARGET_1D:
      break;
   case VLG_TEXTURE_TARGET_1D_ARRAY:
      out[1] = u.tex.array_size;
      break;
   case VLG_TEXTURE_TARGET_2D:
   case VLG_TEXTURE_TARGET_CUBE:
      out[1] = static_cast<uint32_t>(h);
      break;
   case VLG_TEXTURE_TARGET_CUBE_ARRAY: /* GL: the number of cubes */
      out[1] = static_cast<uint32_t>(h);
      out[2] = u.tex.array_size / 6;
      break;
   default: /* 3D depth, 2D_ARRAY layers */
      out[1] = static_cast<uint32_t>(h);
      out[2] = static_cast<uint32_t>(d);
      break;
   }
}

} // namespace

float
tex_fast_log2(float x)
{
   /* Mesa util_fast_log2 (u_math.h). */
   static const Log2Table table;
   const uint32_t i = as_uint(x);
   const float epart = static_cast<float>(static_cast<int>((i & 0x7f800000) >> 23) - 127);
   const float mpart = table.v[((i & 0x007fffff) + (1u << (22 - 8))) >> (23 - 8)];
   return epart + mpart;
}

void
texture_validate(const Vram &vram, const VLG_TEXTURE &tex, const VLG_SAMPLER &samp, bool check_vram)
{
   Unit u(tex, samp);
   prepare(vram, u, true, check_vram);
}

uint32_t
texture_sample(const Vram &vram, const VLG_TEXTURE &tex, const VLG_SAMPLER &samp,
               const TexInstr &ins, bool fragment_quads, unsigned num_lanes, uint64_t lane_mask,
               const TexLaneIn *in, uint32_t (*out)[4], std::vector<uint64_t> *trace)
{
   const TexOp op = ins.op;
   const bool shadow = ins.shadow;
   if (num_lanes == 0 || num_lanes > 64)
      throw std::invalid_argument("texture_sample: num_lanes must be 1..64");
   if (fragment_quads && num_lanes % 4)
      throw std::invalid_argument("texture_sample: fragment quads need a multiple of 4 lanes");
   if (num_lanes < 64)
      lane_mask &= (uint64_t(1) << num_lanes) - 1;

   const bool sampling = op != TexOp::Txf && op != TexOp::Txq;
   if (sampling && tex.target == VLG_TEXTURE_TARGET_BUFFER)
      throw GpuFault("TEX", "sampling a BUFFER texture",
                     "texel buffers are read with TXF and TXQ only (vlgpu_hw.xml texture_target)");
   Unit u(tex, samp);
   prepare(vram, u, sampling, op != TexOp::Txq);
   u.trace = trace;
   if (sampling)
      for (unsigned c = 0; c < 3; c++)
         u.off[c] = ins.offset[c];

   if (op == TexOp::Tg4) {
      if (tex.target != VLG_TEXTURE_TARGET_2D && tex.target != VLG_TEXTURE_TARGET_2D_ARRAY &&
          !is_cube(tex.target))
         throw GpuFault("TEX", "TG4 on a texture that cannot be gathered",
                        fmt("target %s; TG4 gathers from 2D, 2D_ARRAY, CUBE and CUBE_ARRAY "
                            "textures",
                            target_name(tex.target)));
      for (unsigned i = 0; i < num_lanes; i++)
         if (!shadow && (lane_mask >> i & 1) && ref_word(u, in[i]) > 3)
            throw GpuFault("TEX", "TG4 component out of range",
                           fmt("lane %u: gather component %d (R[coord%s].w) is not 0..3", i,
                               static_cast<int32_t>(ref_word(u, in[i])),
                               tex.target == VLG_TEXTURE_TARGET_CUBE_ARRAY ? "+1" : ""));
      for (unsigned i = 0; i < num_lanes; i++)
         if (lane_mask >> i & 1)
            gather_lane(u, shadow, in[i], out[i]);
      return u.filter_units;
   }
   if (op == TexOp::Txq || op == TexOp::Txf) {
      for (unsigned i = 0; i < num_lanes; i++) {
         if (!(lane_mask >> i & 1))
            continue;
         if (op == TexOp::Txq)
            query_lane(u, in[i], out[i]);
         else
            fetch_lane(u, in[i], out[i]);
      }
      return u.filter_units;
   }

   const float bias = samp.lod_bias;
   const unsigned group = fragment_quads ? 4 : 1;
   for (unsigned q = 0; q < num_lanes; q += group) {
      const uint64_t active = (lane_mask >> q) & ((uint64_t(1) << group) - 1);
      if (!active)
         continue;
      /* Implicit LOD: one lambda per quad from its coordinate differences
       * (sp_tex_sample.c compute_gradient_*: d/dx = BR - BL, d/dy = TL - BL;
       * only magnitudes matter). Outside fragment shaders lambda is 0. */
      float quad_lambda = 0.0f;
      if (fragment_quads && (op == TexOp::Tex || op == TexOp::Txb)) {
         const TexLaneIn *l = in + q;
         float d[3][2];
         for (unsigned c = 0; c < 3; c++) {
            d[c][0] = as_float(l[3].coord[c]) - as_float(l[2].coord[c]);
            d[c][1] = as_float(l[0].coord[c]) - as_float(l[2].coord[c]);
         }
         quad_lambda = lambda(u, d[0][0], d[0][1], d[1][0], d[1][1], d[2][0], d[2][1]);
      }
      for (unsigned j = 0; j < group; j++) {
         if (!(active >> j & 1))
            continue;
         const TexLaneIn &l = in[q + j];
         float lod;
         switch (op) {
         case TexOp::Tex:
            lod = quad_lambda + bias;
            break;
         case TexOp::Txb:
            lod = (quad_lambda + bias) + as_float(l.extra[0]);
            break;
         case TexOp::Txl:
            lod = as_float(l.extra[0]) + bias;
            break;
         default: /* Txd; vlgpu: lod_bias added as GL says (softpipe omits it) */
            lod = lambda(u, as_float(l.extra[0]), as_float(l.extra2[0]), as_float(l.extra[1]),
                         as_float(l.extra2[1]), as_float(l.extra[2]), as_float(l.extra2[2])) +
                  bias;
            break;
         }
         sample_lane(u, shadow, clamp_lod(u, lod), l, out[q + j]);
      }
   }
   return u.filter_units;
}

} // namespace vlgpu::sim
