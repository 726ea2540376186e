/*
 * Realistic scenes for the cycle-mode GPU tests (and its benchmark): each
 * builds a command queue of several draws in a Scene (units_test_util.h).
 * They cover the brief's list: the seed-001 square, a depth+stencil scene
 * (with a late-Z draw before an early-Z one), blending over overlapping
 * triangles, a textured quad with mipmaps, many small triangles (Z16), a
 * draw with discard, strips with restart and instancing, CLEARs.
 */
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "units_test_util.h"

namespace vlgpu::sim::test {

/* VS: position = matrix (columns C0..C3) x R0, colour R1 -> VARYING 0 */
inline const char *const kMatrixVs = R"(
   MUL R4, R0.xxxx, C0
   MAD R4, R0.yyyy, C1, R4
   MAD R4, R0.zzzz, C2, R4
   MAD R4, R0.wwww, C3, R4
   MOV R5, R1
   BRC.END
)";
/* VS: position and colour passed through */
inline const char *const kPassVs = R"(
   MOV R4, R0
   MOV R5, R1
   BRC.END
)";
/* FS: colour = VARYING 0 */
inline const char *const kColorFs = R"(
   MOV R1, R0
   BRC.END
)";

/** Pack @so into VRAM (16-byte aligned); its address, for
 *  draw_info.stream_output. */
inline uint64_t
put_so_block(TestDraw &t, const VLG_STREAM_OUTPUT &so)
{
   uint32_t w[VLG_STREAM_OUTPUT_LENGTH];
   VLG_STREAM_OUTPUT_pack(w, &so);
   return t.put(w, sizeof(w), 16);
}

/** Vertex format of the colour scenes: x y z w r g b a (32 bytes). */
inline void
color_pipeline(TestDraw &t, const std::vector<float> &verts, const char *vs = kPassVs)
{
   const unsigned vb = t.vertex_buffer(verts, 32);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 16);
   t.vs.code = assemble(vs);
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.fs.code = assemble(kColorFs);
   t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0xf, VLG_INTERP_PERSPECTIVE);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   if (t.draw.count == 0 && t.draw.index_size == VLG_INDEX_SIZE_NONE)
      t.draw.count = uint32_t(verts.size() / 8);
}

/** @n random triangles in clip space of side about @size (NDC units), z in
 *  [zlo, zhi], alpha in [alo, ahi]. */
inline std::vector<float>
random_triangles(Lcg &r, unsigned n, float size, float zlo = 0.0f, float zhi = 0.0f,
                 float alo = 1.0f, float ahi = 1.0f)
{
   std::vector<float> v;
   for (unsigned i = 0; i < n; i++) {
      const float cx = r.uniform(-1.0f, 1.0f), cy = r.uniform(-1.0f, 1.0f);
      const float z = r.uniform(zlo, zhi);
      const float col[4] = {r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1), r.uniform(alo, ahi)};
      for (int k = 0; k < 3; k++) {
         v.insert(v.end(), {cx + r.uniform(-size, size), cy + r.uniform(-size, size), z, 1.0f});
         v.insert(v.end(), col, col + 4);
      }
   }
   return v;
}

/** Seed 001 §3.3: the coloured square, drawn with a 4x4 matrix VS, indexed. */
/** One flat-coloured triangle covering a @w x @h framebuffer with full
 *  quads only (window (0,0), (2w,0), (0,2h) over a 2w x 2h viewport; as in
 *  test_tex_rate.cpp): the fill-rate scene (test_fill_rate.cpp,
 *  test_bottleneck.cpp); @zs: a depth/stencil buffer's format, if any. */
inline void
scene_fill(Scene &s, unsigned w, unsigned h, vlg_format zs = VLG_FORMAT_NONE)
{
   TestDraw &t = s.t;
   t.framebuffer(w, h, VLG_FORMAT_R8G8B8A8_UNORM, zs);
   t.viewport(0, 0, 2 * w, 2 * h);
   const std::vector<float> v = {-1, -1, 0, 1, 1, 0, 0, 1, 1,  -1, 0, 1, 1, 0, 0, 1,
                                 -1, 1,  0, 1, 1, 0, 0, 1};
   s.next_draw();
   color_pipeline(t, v);
   s.draw();
   s.sync(1);
   s.finish();
}

inline void
scene_square(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   const float black[4] = {0, 0, 0, 1};
   s.clear(1u << 2, black);
   const double c = std::cos(M_PI / 6) * 0.55, sn = std::sin(M_PI / 6) * 0.55;
   const float m[16] = {float(c), float(sn), 0, 0, float(-sn), float(c), 0, 0,
                        0,        0,         1, 0, 0.1f,       -0.05f,   0, 1};
   const std::vector<float> v = {-1, -1, 0.25f, 1, 1, 0, 0, 1,    1, -1, 0.25f, 1, 0, 1, 0, 1,
                                 1,  1,  0.25f, 1, 0, 0, 1, 1,    -1, 1, 0.25f, 1, 1, 1, 0, 0.5f};
   t.indices(std::vector<uint16_t>{0, 1, 2, 0, 2, 3});
   color_pipeline(t, v, kMatrixVs);
   t.vs.consts.assign(m, m + 16);
   s.draw();
   s.sync(1);
   s.finish();
}

/** Depth and stencil (Z24S8): early-Z draw with stencil INCR, a late-Z draw
 *  with discard and two-sided stencil, then an early-Z draw with a stencil
 *  EQUAL test that must see the late draw's results. */
inline void
scene_depth_stencil(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(96, 64, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   const float grey[4] = {0.2f, 0.2f, 0.2f, 1};
   s.clear((1u << 2) | 3u, grey, 1.0f, 0);
   Lcg r(11);
   VLG_DEPTH_STENCIL_ALPHA &dsa = t.pipe.depth_stencil_alpha;
   dsa.depth_enable = true;
   dsa.depth_writemask = true;
   dsa.depth_func = VLG_COMPARE_FUNC_LESS;
   dsa.stencil[0].enabled = true;
   dsa.stencil[0].func = VLG_COMPARE_FUNC_ALWAYS;
   dsa.stencil[0].zpass_op = VLG_STENCIL_OP_INCR;
   dsa.stencil[0].valuemask = dsa.stencil[0].writemask = 0xff;
   s.next_draw();
   color_pipeline(t, random_triangles(r, 40, 0.5f, -0.9f, 0.9f));
   s.draw();

   /* late Z: discard where VARYING 0 red < 0.3, two-sided stencil */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 30, 0.6f, -0.5f, 0.5f));
   t.fs.code = assemble(R"(
      MOV R3, C0
      PRED.LT P1, R0.x, R3.x
      BRC.KILL if P1
      MOV R1, R0
      BRC.END
   )");
   t.fs.consts = {0.3f, 0, 0, 0};
   t.fs.st.uses_discard = true;
   dsa.stencil[1] = dsa.stencil[0];
   dsa.stencil[1].zpass_op = VLG_STENCIL_OP_DECR_WRAP;
   s.draw();

   /* early Z again, stencil EQUAL 1 */
   s.next_draw();
   color_pipeline(t, random_triangles(r, 30, 0.7f, -0.95f, 0.95f));
   dsa.stencil[1].enabled = false;
   dsa.stencil[0].func = VLG_COMPARE_FUNC_EQUAL;
   dsa.stencil[0].zpass_op = VLG_STENCIL_OP_KEEP;
   t.pipe.stencil_ref.ref_value[0] = 1;
   s.draw();
   s.sync(7);
   s.finish();
}

/** Blending: overlapping translucent triangles (order matters), in one draw,
 *  then additive ones in a second. */
inline void
scene_blend(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(80, 60);
   const float bg[4] = {0.1f, 0.3f, 0.5f, 1};
   s.clear(1u << 2, bg);
   Lcg r(5);
   VLG_BLEND_RT &b = t.pipe.blend.rt[0];
   b.blend_enable = true;
   b.rgb_func = b.alpha_func = VLG_BLEND_FUNC_ADD;
   b.rgb_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
   b.rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   b.alpha_src_factor = VLG_BLEND_FACTOR_ONE;
   b.alpha_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   s.next_draw();
   color_pipeline(t, random_triangles(r, 60, 0.8f, 0, 0, 0.2f, 0.8f));
   s.draw();
   s.next_draw();
   b.rgb_src_factor = b.rgb_dst_factor = VLG_BLEND_FACTOR_ONE;
   color_pipeline(t, random_triangles(r, 20, 0.5f, 0, 0, 0.1f, 0.3f));
   s.draw();
   s.finish();
}

/** Dual-source blending (docs/hw.md): the FS writes COLOR 0 = VARYING 0 and
 *  DUAL_SOURCE_COLOR = its (z, x, y, w) swizzle; a draw blending with
 *  SRC1_COLOR / INV_SRC1_COLOR (alpha SRC1_ALPHA / INV_SRC1_ALPHA), then one
 *  with ONE / SRC1_ALPHA, over overlapping triangles. */
inline void
scene_dual_source(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(72, 56);
   const float bg[4] = {0.6f, 0.2f, 0.4f, 0.5f};
   s.clear(1u << 2, bg);
   Lcg r(23);
   VLG_BLEND_RT &b = t.pipe.blend.rt[0];
   b.blend_enable = true;
   b.rgb_func = b.alpha_func = VLG_BLEND_FUNC_ADD;
   b.rgb_src_factor = VLG_BLEND_FACTOR_SRC1_COLOR;
   b.rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC1_COLOR;
   b.alpha_src_factor = VLG_BLEND_FACTOR_SRC1_ALPHA;
   b.alpha_dst_factor = VLG_BLEND_FACTOR_INV_SRC1_ALPHA;
   const char *fs = "MOV R1, R0\nMOV R2, R0.zxyw\nBRC.END\n";
   s.next_draw();
   color_pipeline(t, random_triangles(r, 40, 0.7f, 0, 0, 0.1f, 0.9f));
   t.fs.code = assemble(fs);
   t.fs.output(2, VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0);
   s.draw();
   s.next_draw();
   b.rgb_src_factor = b.alpha_src_factor = VLG_BLEND_FACTOR_ONE;
   b.rgb_dst_factor = b.alpha_dst_factor = VLG_BLEND_FACTOR_SRC1_ALPHA;
   color_pipeline(t, random_triangles(r, 20, 0.5f, 0, 0, 0.2f, 0.6f));
   t.fs.code = assemble(fs);
   t.fs.output(2, VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0);
   s.draw();
   s.finish();
}

/**
 * A square 2D RGBA8_UNORM texture of @size texels with @levels mip levels
 * packed one after the other in VRAM (rows of n x 4 bytes), texel (x, y) of
 * level l (n = size >> l texels wide) = @texel(l, x, y, n).
 */
template <typename TexelFn>
inline VLG_TEXTURE
mip_texture_rgba8(TestDraw &t, unsigned size, unsigned levels, TexelFn texel)
{
   VLG_TEXTURE tex;
   VLG_TEXTURE_init(&tex);
   tex.target = VLG_TEXTURE_TARGET_2D;
   tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
   tex.width = tex.height = size;
   tex.num_levels = levels;
   tex.last_level = levels - 1;
   uint64_t total = 0;
   for (unsigned l = 0; l < levels; l++)
      total += uint64_t(size >> l) * (size >> l) * 4;
   tex.address = t.alloc(total);
   uint64_t off = 0;
   for (unsigned l = 0; l < levels; l++) {
      const unsigned n = size >> l;
      tex.level[l].offset = uint32_t(off);
      tex.level[l].row_pitch = n * 4;
      tex.level[l].layer_stride = n * n * 4;
      for (unsigned y = 0; y < n; y++)
         for (unsigned x = 0; x < n; x++) {
            const std::array<uint8_t, 4> px = texel(l, x, y, n);
            t.vram.write(tex.address + off + (uint64_t(y) * n + x) * 4, px.data(), 4, "test");
         }
      off += uint64_t(n) * n * 4;
   }
   return tex;
}

/** A perspective quad with a mipmapped RGBA8 texture, trilinear, REPEAT
 *  (helper lanes, LOD from derivatives, texel traffic). */
inline void
scene_texture(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(128, 96);
   const float black[4] = {0, 0, 0, 1};
   s.clear(1u << 2, black);
   s.next_draw();
   /* x y z w, u v 0 1: a floor going into the distance */
   const std::vector<float> v = {-1.0f, -1.0f, 0.5f, 1.0f, 0, 0, 0, 1,  1.0f, -1.0f, 0.5f, 1.0f,
                                 8,     0,     0,    1,    1.0f, 0.2f, 0.9f, 4.0f, 8, 12, 0, 1,
                                 -1.0f, 0.2f,  0.9f, 4.0f, 0, 12, 0, 1};
   t.indices(std::vector<uint8_t>{0, 1, 2, 0, 2, 3});
   color_pipeline(t, v);
   t.fs.code = assemble("MUL R2, R0, C0\nTEX R1, R2, T0\nBRC.END\n");
   t.fs.consts = {1, 1, 1, 1};
   t.fs.st.uses_derivatives = true;
   t.fs.st.num_samplers = 1;
   const VLG_TEXTURE tex =
      mip_texture_rgba8(t, 64, 7, [](unsigned l, unsigned x, unsigned y, unsigned n) {
         const bool on = ((x >> 2) ^ (y >> 2)) & 1;
         return std::array<uint8_t, 4>{uint8_t(on ? 230 : 20 + 30 * l), uint8_t(40 * l),
                                       uint8_t(x * 255 / n), 255};
      });
   VLG_SAMPLER smp;
   VLG_SAMPLER_init(&smp);
   smp.wrap_s = smp.wrap_t = smp.wrap_r = VLG_TEX_WRAP_REPEAT;
   smp.min_img_filter = smp.mag_img_filter = VLG_TEX_FILTER_LINEAR;
   smp.min_mip_filter = VLG_MIP_FILTER_LINEAR;
   t.fs_texture(tex, smp);
   s.draw();
   s.finish();
}

/** The framebuffer side of scene_fullscreen_texture (pixels). */
constexpr unsigned kFullscreenTextureSize = 64;

/** A full-screen textured triangle (test_tex_rate.cpp, test_shader_profile.cpp):
 *  a 64x64 framebuffer, one triangle with u, v = 0..1 across it sampling a
 *  256x256 texture of 9 levels (LOD 2 everywhere) with the FS @fs_code
 *  (varying R0 = u v 0 1, C0 = 1 1 1 1, texture unit 0; its output R1).
 *  @trilinear: LINEAR/LINEAR/mip LINEAR, else NEAREST/NEAREST/mip NONE. */
inline void
scene_fullscreen_texture(Scene &s, const char *fs_code, bool trilinear)
{
   constexpr unsigned kScreen = kFullscreenTextureSize, kTexSize = 256, kLevels = 9;
   TestDraw &t = s.t;
   t.framebuffer(kScreen, kScreen);
   /* one triangle that needs no clipping and covers the whole framebuffer:
    * window (0,0), (128,0), (0,128) with a 128x128 viewport over the 64x64
    * framebuffer (its hypotenuse x + y = 128 misses every pixel centre);
    * x y z w, u v 0 1 with u, v = 0..1 across the framebuffer (LOD
    * log2(256 / 64) = 2). One triangle: every quad is full, no helper lanes
    * (two triangles would both shade the diagonal's quads, with helpers). */
   t.viewport(0, 0, 2 * kScreen, 2 * kScreen);
   const std::vector<float> v = {-1, -1, 0, 1, 0, 0, 0, 1, 1, -1, 0, 1, 2, 0, 0, 1,
                                 -1, 1,  0, 1, 0, 2, 0, 1};
   color_pipeline(t, v);
   t.fs.code = assemble(fs_code);
   t.fs.consts = {1, 1, 1, 1};
   t.fs.st.uses_derivatives = true;
   t.fs.st.num_samplers = 1;
   const VLG_TEXTURE tex = mip_texture_rgba8(
      t, kTexSize, kLevels, [](unsigned l, unsigned x, unsigned y, unsigned) {
         return std::array<uint8_t, 4>{uint8_t(x * 3 + l * 40), uint8_t(y * 5), uint8_t(l * 29),
                                       255};
      });
   VLG_SAMPLER smp;
   VLG_SAMPLER_init(&smp);
   smp.wrap_s = smp.wrap_t = smp.wrap_r = VLG_TEX_WRAP_REPEAT;
   const vlg_tex_filter f = trilinear ? VLG_TEX_FILTER_LINEAR : VLG_TEX_FILTER_NEAREST;
   smp.min_img_filter = smp.mag_img_filter = f;
   smp.min_mip_filter = trilinear ? VLG_MIP_FILTER_LINEAR : VLG_MIP_FILTER_NONE;
   t.fs_texture(tex, smp);
   s.draw();
   s.finish();
}

/** Many small triangles with a Z16 depth test (softpipe's Z16 fast path in
 *  the early tests). */
inline void
scene_many_small(Scene &s, unsigned n = 1500, unsigned w = 160, unsigned h = 120)
{
   TestDraw &t = s.t;
   t.framebuffer(w, h, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z16_UNORM);
   const float black[4] = {0, 0, 0, 1};
   s.clear((1u << 2) | 1u, black, 1.0f);
   Lcg r(3);
   VLG_DEPTH_STENCIL_ALPHA &dsa = t.pipe.depth_stencil_alpha;
   dsa.depth_enable = true;
   dsa.depth_writemask = true;
   dsa.depth_func = VLG_COMPARE_FUNC_LESS;
   s.next_draw();
   color_pipeline(t, random_triangles(r, n, 0.05f, -1.0f, 1.0f));
   s.draw();
   s.finish();
}

/** Discard: a checker of killed fragments from the interpolated colour. */
inline void
scene_discard(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(64, 64);
   const float bg[4] = {0, 0, 0.5f, 1};
   s.clear(1u << 2, bg);
   s.next_draw();
   const std::vector<float> v = {-0.9f, -0.9f, 0, 1, 0, 0, 0, 1,   0.9f, -0.8f, 0, 1, 4, 0, 0, 1,
                                 0.1f,  0.95f, 0, 1, 2, 4, 0, 1};
   color_pipeline(t, v);
   t.fs.code = assemble(R"(
      FRC R2, R0
      ADD R3.x, R2.x, R2.y
      MOV R4, C0
      PRED.LT P0, R3.x, R4.x
      BRC.KILL if P0
      MOV R1, R2
      BRC.END
   )");
   t.fs.consts = {0.7f, 0, 0, 0};
   t.fs.st.uses_discard = true;
   s.draw();
   s.finish();
}

/** An indexed triangle strip with primitive restart, drawn twice
 *  (instancing, a per-instance offset attribute), and a fan. */
inline void
scene_strips(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(72, 72);
   const float bg[4] = {0, 0, 0, 1};
   s.clear(1u << 2, bg);
   s.next_draw();
   std::vector<float> v;
   for (int i = 0; i < 20; i++) {
      const float x = -0.9f + 0.09f * i;
      v.insert(v.end(), {x, -0.8f, 0, 1, 0.05f * i, 0.5f, 1, 1});
      v.insert(v.end(), {x, -0.2f + 0.02f * (i & 3), 0, 1, 1, 0.05f * i, 0.3f, 1});
   }
   std::vector<uint16_t> idx;
   for (int i = 0; i < 40; i++) {
      if (i == 17 || i == 30)
         idx.push_back(0xffff);
      idx.push_back(uint16_t(i));
   }
   t.indices(idx);
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   t.draw.instance_count = 2;
   color_pipeline(t, v, R"(
      ADD R4, R0, R2
      MOV R5, R1
      BRC.END
   )");
   const std::vector<float> offs = {0, 0, 0, 0, 0.1f, 0.9f, 0, 0};
   const unsigned vb = t.vertex_buffer(offs, 16);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0, 1);
   t.vs.input(2, VLG_INPUT_SEMANTIC_ATTRIBUTE, 2);
   s.draw();

   s.next_draw();
   std::vector<float> f = {0.5f, 0.5f, 0, 1, 1, 1, 1, 1};
   for (int i = 0; i <= 12; i++) {
      const float a = float(i) * 0.4f;
      f.insert(f.end(), {0.5f + 0.4f * std::cos(a), 0.5f + 0.4f * std::sin(a), 0, 1, 0.08f * i, 0,
                         1 - 0.08f * i, 1});
   }
   t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
   color_pipeline(t, f);
   s.draw();
   s.finish();
}

/** Desktop GL's polygon modes (docs/hw.md "Polygon modes"): quads drawn as
 *  lines (their diagonals not drawn), a quad strip filled on one face and
 *  outlined on the other, a polygon as 3-pixel points with polygon offset on
 *  points, wide lines (width 3) of a fan. */
inline void
scene_polygon_modes(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(72, 72, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   const float bg[4] = {0, 0, 0, 1};
   s.clear((1u << 2) | 3u, bg, 1.0f, 0);
   VLG_RASTERIZER &r = t.pipe.rasterizer;

   s.next_draw();
   std::vector<float> q;
   for (int i = 0; i < 3; i++) {
      const float x = -0.9f + 0.6f * i, y = 0.3f;
      for (auto [dx, dy] : {std::pair{0.0f, 0.0f}, {0.5f, 0.1f}, {0.45f, 0.6f}, {0.05f, 0.5f}})
         q.insert(q.end(), {x + dx, y + dy, 0, 1, 0.3f * i, 1 - dx, dy, 1});
   }
   t.draw.prim = VLG_PRIM_QUADS;
   r.fill_front = r.fill_back = VLG_POLYGON_MODE_LINE;
   color_pipeline(t, q);
   s.draw();

   s.next_draw();
   std::vector<float> st;
   for (int i = 0; i < 8; i++) {
      const float x = -0.9f + 0.25f * i;
      /* the winding flips halfway: quads 0..2 one face, 4..6 the other */
      const float y0 = i < 4 ? -0.6f : -0.1f, y1 = i < 4 ? -0.1f : -0.6f;
      st.insert(st.end(), {x, y0, 0.2f, 1, 1, 0.1f * i, 0, 1});
      st.insert(st.end(), {x, y1, 0.2f, 1, 0, 0.1f * i, 1, 1});
   }
   t.draw.prim = VLG_PRIM_QUAD_STRIP;
   r.fill_front = VLG_POLYGON_MODE_FILL;
   r.fill_back = VLG_POLYGON_MODE_LINE;
   color_pipeline(t, st);
   s.draw();

   s.next_draw();
   std::vector<float> p;
   for (int i = 0; i < 7; i++) {
      const float a = 0.9f * float(i);
      p.insert(p.end(), {0.5f * std::cos(a) * 0.8f, -0.75f + 0.2f * std::sin(a), 0.5f, 1, 1, 1,
                         0.1f * i, 1});
   }
   t.draw.prim = VLG_PRIM_POLYGON;
   r.fill_front = r.fill_back = VLG_POLYGON_MODE_POINT;
   r.point_size = 3.0f;
   r.offset_point = true;
   r.offset_units = 4.0f;
   t.pipe.depth_stencil_alpha.depth_enable = true;
   t.pipe.depth_stencil_alpha.depth_writemask = true;
   t.pipe.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   color_pipeline(t, p);
   s.draw();

   s.next_draw();
   std::vector<float> f = {0.6f, -0.6f, 0, 1, 1, 1, 1, 1};
   for (int i = 0; i <= 6; i++) {
      const float a = 0.5f * float(i);
      f.insert(f.end(), {0.6f + 0.3f * std::cos(a), -0.6f + 0.3f * std::sin(a), 0, 1, 0.15f * i, 0.5f,
                         1 - 0.15f * i, 1});
   }
   t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
   r.fill_front = r.fill_back = VLG_POLYGON_MODE_LINE;
   r.line_width = 3.0f;
   color_pipeline(t, f);
   s.draw();
   s.finish();
}

struct NamedScene {
   const char *name;
   void (*build)(Scene &);
};

inline const std::vector<NamedScene> &
all_scenes()
{
   static const std::vector<NamedScene> s = {
      {"square", scene_square},
      {"depth_stencil", scene_depth_stencil},
      {"blend", scene_blend},
      {"texture", scene_texture},
      {"many_small", [](Scene &sc) { scene_many_small(sc); }},
      {"discard", scene_discard},
      {"strips", scene_strips},
      {"dual_source", scene_dual_source},
      {"polygon_modes", scene_polygon_modes},
   };
   return s;
}

} // namespace vlgpu::sim::test
