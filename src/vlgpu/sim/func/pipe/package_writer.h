/*
 * The per-draw package written from C++ (docs/hw.md "The per-draw package"):
 * the blocks packed with the generated VLG_<STRUCT>_pack functions and
 * placed in VRAM through a caller's put callback, so one builder serves the
 * tests' own Vram (tests/sim/func_pipe/pipe_test_util.h TestDraw), buffer
 * objects of the device (tests/sim/device/device_test_util.h Square), the
 * micro-benchmark (bench/sim/bench_pipe.cpp) and vlgpu-sim-bench
 * (src/vlgpu/tools/vlgpu_sim_bench.cpp).
 *
 * It lives beside package.cpp, which loads and checks the same blocks, and
 * not under tests/, because a tool in src/vlgpu/tools uses it too. The
 * driver does not: it packs its blocks in C at CSO creation (vlg_emit.c).
 * Header-only; needs only vlg_hw.h (idep_vlg_hw).
 */
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vlg_hw.h"

namespace vlgpu::sim {

/** Places @size bytes of @data in VRAM at a multiple of @align bytes and
 *  returns the VRAM byte address. @data may be null when @size is 0 (an
 *  empty block still gets an address). Errors (VRAM exhausted) are the
 *  callback's to throw. */
using PackagePut = std::function<uint64_t(const void *data, uint64_t size, uint64_t align)>;

/** Alignment of every package block, in bytes: the one all the users have
 *  always used, so that their VRAM layouts (and with them the cycle-mode
 *  timings pinned by tests/sim/corpus/cycles.json) stay as they were. */
constexpr uint64_t kPackageBlockAlign = 256;

/** Packs @v (one struct of vlgpu_hw.xml) and puts its VLG_<STRUCT>_LENGTH
 *  dwords; returns their VRAM address. */
#define VLG_PACKAGE_PUT_BLOCK(NAME)                                                                \
   inline uint64_t put_block(const PackagePut &put, const VLG_##NAME &v)                           \
   {                                                                                               \
      uint32_t w[VLG_##NAME##_LENGTH];                                                             \
      VLG_##NAME##_pack(w, &v);                                                                    \
      return put(w, sizeof(w), kPackageBlockAlign);                                                \
   }
VLG_PACKAGE_PUT_BLOCK(DRAW_INFO)
VLG_PACKAGE_PUT_BLOCK(PIPE_STATE)
VLG_PACKAGE_PUT_BLOCK(FRAMEBUFFER)
VLG_PACKAGE_PUT_BLOCK(SURFACE)
VLG_PACKAGE_PUT_BLOCK(SHADER_STATE)
VLG_PACKAGE_PUT_BLOCK(TEXTURE)
VLG_PACKAGE_PUT_BLOCK(SAMPLER)
VLG_PACKAGE_PUT_BLOCK(VERTEX_BUFFER)
#undef VLG_PACKAGE_PUT_BLOCK

/** Packs @v back to back (element i at address + i * LENGTH * 4 bytes, the
 *  array rule of docs/hw.md "Conventions") and puts them; returns the
 *  address of element 0. An empty array is one zero dword, so it still has
 *  an address of its own. */
template <typename T, unsigned Length>
inline uint64_t
put_array(const PackagePut &put, const std::vector<T> &v, void (*pack)(uint32_t *, const T *))
{
   std::vector<uint32_t> w(v.empty() ? 1 : v.size() * Length);
   for (size_t i = 0; i < v.size(); i++)
      pack(&w[i * Length], &v[i]);
   return put(w.data(), w.size() * 4, kPackageBlockAlign);
}
inline uint64_t
put_block(const PackagePut &put, const std::vector<VLG_VERTEX_ELEMENT> &v)
{
   return put_array<VLG_VERTEX_ELEMENT, VLG_VERTEX_ELEMENT_LENGTH>(put, v, VLG_VERTEX_ELEMENT_pack);
}
inline uint64_t
put_block(const PackagePut &put, const std::vector<VLG_VERTEX_BUFFER> &v)
{
   return put_array<VLG_VERTEX_BUFFER, VLG_VERTEX_BUFFER_LENGTH>(put, v, VLG_VERTEX_BUFFER_pack);
}

/** Puts @v (any plain data: vertices, indices, texels) at a block boundary;
 *  returns its VRAM address. */
template <typename T>
inline uint64_t
put_data(const PackagePut &put, const std::vector<T> &v)
{
   return put(v.data(), v.size() * sizeof(T), kPackageBlockAlign);
}

/** A shader of a package: its shader_state, VL-IW code (units) and global
 *  buffer constants (4 floats per C entry). */
struct PackageShader {
   VLG_SHADER_STATE st;
   std::vector<uint32_t> code;
   std::vector<float> consts;

   /** shader_state with its XML defaults, @stage and @num_regs vec4
    *  registers per lane. */
   explicit PackageShader(vlg_shader_stage stage = VLG_SHADER_STAGE_VERTEX, unsigned num_regs = 16)
   {
      VLG_SHADER_STATE_init(&st);
      st.stage = stage;
      st.num_regs = num_regs;
   }
   /** Appends inputs[num_inputs]: register @reg (components @mask) preloaded
    *  with @sem / @index, interpolated as @interp (FS). */
   void input(unsigned reg, vlg_input_semantic sem, unsigned index = 0, unsigned mask = 0xf,
              vlg_interp interp = VLG_INTERP_PERSPECTIVE)
   {
      VLG_SHADER_INPUT &in = st.inputs[st.num_inputs++];
      in.reg = reg;
      in.mask = mask;
      in.semantic = sem;
      in.index = index;
      in.interp = interp;
   }
   /** Appends outputs[num_outputs]: register @reg (components @mask) holds
    *  @sem / @index when the shader ends. */
   void output(unsigned reg, vlg_output_semantic sem, unsigned index = 0, unsigned mask = 0xf)
   {
      VLG_SHADER_OUTPUT &o = st.outputs[st.num_outputs++];
      o.reg = reg;
      o.mask = mask;
      o.semantic = sem;
      o.index = index;
   }
};

/** Puts the code, then the constants (if any), then the shader_state naming
 *  them (st.code, code_size, consts, num_consts are set here); returns the
 *  shader_state's address. */
inline uint64_t
put_shader(const PackagePut &put, PackageShader &s)
{
   s.st.code = put_data(put, s.code);
   s.st.code_size = uint32_t(s.code.size());
   if (!s.consts.empty()) {
      s.st.consts = put_data(put, s.consts);
      s.st.num_consts = uint32_t(s.consts.size() / 4);
   }
   return put_block(put, s.st);
}

/** glViewport(@x, @y, @w, @h) + glDepthRangef(@n, @f) into @v, on a surface
 *  whose row 0 is the top (Gallium's window coordinates, y down): scale =
 *  (w/2, h/2, (f-n)/2), translate = (x + w/2, y + h/2, (n+f)/2); x, y, w, h
 *  in pixels. */
inline void
set_viewport(VLG_VIEWPORT &v, float x, float y, float w, float h, float n = 0.0f, float f = 1.0f)
{
   v.scale[0] = w / 2;
   v.scale[1] = h / 2;
   v.scale[2] = (f - n) / 2;
   v.translate[0] = x + w / 2;
   v.translate[1] = y + h / 2;
   v.translate[2] = (n + f) / 2;
   v.depth_near = n;
   v.depth_far = f;
}

/** The pipe_state of a benchmark frame of @width x @height pixels: XML
 *  defaults, GL's rasterisation rules (half-pixel centres, near and far depth
 *  clipping), the viewport of the whole surface with depth range [0, 1], and
 *  the depth test LESS with depth writes (bench/sim/bench_pipe.cpp,
 *  vlgpu-sim-bench). */
inline VLG_PIPE_STATE
depth_tested_pipe_state(unsigned width, unsigned height)
{
   VLG_PIPE_STATE ps;
   VLG_PIPE_STATE_init(&ps);
   ps.rasterizer.half_pixel_center = true;
   ps.rasterizer.depth_clip_near = ps.rasterizer.depth_clip_far = true;
   set_viewport(ps.viewport, 0.0f, 0.0f, float(width), float(height));
   ps.depth_stencil_alpha.depth_enable = true;
   ps.depth_stencil_alpha.depth_writemask = true;
   ps.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   return ps;
}

/**
 * One draw's blocks, to be written (the reader is load_draw_package,
 * package.h). Blocks the caller places itself before write()
 * (surfaces, vertex data, index buffer, textures and samplers) are named in
 * draw / fb / buffers by their addresses.
 */
struct PackageBuilder {
   VLG_DRAW_INFO draw;
   VLG_PIPE_STATE pipe;
   VLG_FRAMEBUFFER fb;
   PackageShader vs{VLG_SHADER_STAGE_VERTEX}, fs{VLG_SHADER_STAGE_FRAGMENT};
   /** Geometry shader, written (draw_info.gs) when use_gs is set. */
   PackageShader gs{VLG_SHADER_STAGE_GEOMETRY};
   bool use_gs = false;
   std::vector<VLG_VERTEX_ELEMENT> elements;
   std::vector<VLG_VERTEX_BUFFER> buffers;

   /** XML defaults; a PRIMITIVES draw of TRIANGLES. */
   PackageBuilder()
   {
      VLG_DRAW_INFO_init(&draw);
      VLG_PIPE_STATE_init(&pipe);
      VLG_FRAMEBUFFER_init(&fb);
      draw.kind = VLG_DRAW_KIND_PRIMITIVES;
      draw.prim = VLG_PRIM_TRIANGLES;
      draw.vertices_per_prim = 3;
   }

   /** Puts, in this order (the VRAM layout the cycle corpus was recorded
    *  with): for a PRIMITIVES draw the VS, FS and (use_gs) GS (put_shader
    *  each), pipe_state, the vertex elements and the vertex buffers; then
    *  for every draw the framebuffer and draw_info, whose addresses and
    *  counts are set here. Returns the draw_info address. */
   uint64_t write(const PackagePut &put)
   {
      if (draw.kind == VLG_DRAW_KIND_PRIMITIVES) {
         draw.vs = put_shader(put, vs);
         draw.fs = put_shader(put, fs);
         draw.gs = use_gs ? put_shader(put, gs) : 0;
         draw.pipe_state = put_block(put, pipe);
         draw.vertex_elements = put_block(put, elements);
         draw.num_vertex_elements = unsigned(elements.size());
         draw.vertex_buffers = put_block(put, buffers);
         draw.num_vertex_buffers = unsigned(buffers.size());
      }
      draw.framebuffer = put_block(put, fb);
      return put_block(put, draw);
   }
};

} // namespace vlgpu::sim
