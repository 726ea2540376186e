/*
 * Test helpers for the functional pipeline: build a real per-draw package in
 * a Vram with the generated VLG_<STRUCT>_pack functions (the driver's side of
 * docs/hw.md), shaders assembled with vlg_assemble, and read pixels back.
 *
 * Nothing here calls the code under test: expected values in the tests are
 * computed independently (edge functions, GL formulas) from the inputs.
 */
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "vlg_hw.h"

#include "sim/core/vram.h"
#include "sim/func/pipe/package_writer.h"
#include "common/bits.h"

namespace vlgpu::sim::test {

using vlgpu::as_float;
using vlgpu::as_uint;

/** Assemble VL-IW text (vlg_assemble, docs/isa.md §7); throws
 * std::runtime_error with the assembler's message. Defined in
 * test_asm_util.cpp: vlg_isa.h and vlg_hw.h both define an enum vlg_format
 * and cannot be included in one translation unit. */
std::vector<uint32_t> assemble(const std::string &text);

/** A shader under construction (shader_state fields + code + constants). */
using TestShader = PackageShader;

/** Reference depth quantization of an fp32 fragment depth for 24-bit
 * buffers: the reference renderer computes z * 16777215.0f in fp32 and
 * truncates (sp_quad_depth_test.c convert_quad_depth). The product of two
 * 24-bit mantissas is exact in double; rounding it to float is that fp32
 * multiply. */
inline uint32_t
ref_z24(float z)
{
   return uint32_t(std::floor(float(double(z) * 16777215.0)));
}

/** The tests' own reference of the depth/stencil compare functions
 * (GLES 3.0 §4.1.4, §4.1.5), written independently of func_omu.cpp. */
inline bool
ref_compare(vlg_compare_func f, uint32_t a, uint32_t b)
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

/**
 * A draw package (PackageBuilder, sim/func/pipe/package_writer.h) over its own
 * Vram. Blocks are written by write(); surfaces and buffers are allocated
 * immediately (bump allocator, 256-byte aligned) so tests can fill and read
 * them.
 */
struct TestDraw : PackageBuilder {
   Vram vram;
   uint64_t next = 0x1000;

   /* 8 MiB: meson test sets MALLOC_PERTURB_, which makes calloc touch every page */
   explicit TestDraw(uint64_t vram_size = 8ull << 20) : vram(vram_size)
   {
      pipe.rasterizer.half_pixel_center = true;
      pipe.rasterizer.depth_clip_near = true;
      pipe.rasterizer.depth_clip_far = true;
      pipe.rasterizer.point_quad_rasterization = true;
   }

   uint64_t alloc(uint64_t size, uint64_t align = 256)
   {
      next = (next + align - 1) / align * align;
      const uint64_t a = next;
      next += size ? size : 1;
      if (next > vram.size())
         throw std::runtime_error("test VRAM exhausted");
      return a;
   }
   uint64_t put(const void *data, uint64_t size, uint64_t align = 256)
   {
      const uint64_t a = alloc(size, align);
      vram.write(a, data, size, "test");
      return a;
   }

   /** The put callback of the package builder: put() into this Vram. */
   PackagePut putter()
   {
      return [this](const void *data, uint64_t size, uint64_t align) {
         return put(data, size, align);
      };
   }

   /** Texture unit 0 of the fragment shader: @tex and @smp packed into VRAM
    *  (texture first) and named by draw_info (one texture, one sampler). */
   void fs_texture(const VLG_TEXTURE &tex, const VLG_SAMPLER &smp)
   {
      draw.fs_textures = put_block(putter(), tex);
      draw.fs_samplers = put_block(putter(), smp);
      draw.fs_num_textures = draw.fs_num_samplers = 1;
   }

   /** A w x h surface of @format, zero-filled; pitch = w * bpp. */
   VLG_SURFACE surface(vlg_format format, unsigned w, unsigned h)
   {
      VLG_SURFACE s;
      VLG_SURFACE_init(&s);
      s.format = format;
      s.width = w;
      s.height = h;
      s.pitch = w * vlg_format_bytes(format);
      s.address = alloc(uint64_t(s.pitch) * h);
      return s;
   }
   /** Framebuffer w x h with one colour buffer (and optional zs buffer);
    * viewport covering it with depth range [0,1] (GL glViewport rule). */
   void framebuffer(unsigned w, unsigned h, vlg_format color = VLG_FORMAT_R8G8B8A8_UNORM,
                    vlg_format zs = VLG_FORMAT_NONE, unsigned nr_cbufs = 1)
   {
      fb.width = w;
      fb.height = h;
      fb.nr_cbufs = nr_cbufs;
      for (unsigned i = 0; i < nr_cbufs; i++)
         fb.cbufs[i] = surface(color, w, h);
      if (zs != VLG_FORMAT_NONE)
         fb.zsbuf = surface(zs, w, h);
      viewport(0, 0, float(w), float(h));
   }
   /** glViewport(x, y, w, h) + glDepthRangef(n, f): set_viewport() of
    *  package_writer.h on pipe.viewport. */
   void viewport(float x, float y, float w, float h, float n = 0.0f, float f = 1.0f)
   {
      set_viewport(pipe.viewport, x, y, w, h, n, f);
   }

   /** A vertex buffer holding @data; returns its index. */
   unsigned vertex_buffer(const void *data, uint32_t size, uint32_t stride)
   {
      VLG_VERTEX_BUFFER vb;
      VLG_VERTEX_BUFFER_init(&vb);
      vb.address = put(data, size);
      vb.size = size;
      vb.stride = stride;
      buffers.push_back(vb);
      return unsigned(buffers.size() - 1);
   }
   unsigned vertex_buffer(const std::vector<float> &data, uint32_t stride)
   {
      return vertex_buffer(data.data(), uint32_t(data.size() * 4), stride);
   }
   /** Vertex element (= VS attribute number returned). */
   unsigned element(unsigned vb, vlg_format format, uint32_t offset = 0, uint32_t divisor = 0)
   {
      VLG_VERTEX_ELEMENT e;
      VLG_VERTEX_ELEMENT_init(&e);
      e.vertex_buffer_index = vb;
      e.format = format;
      e.src_offset = offset;
      e.instance_divisor = divisor;
      elements.push_back(e);
      return unsigned(elements.size() - 1);
   }
   template <typename T> void indices(const std::vector<T> &idx)
   {
      draw.index_size = vlg_index_size(sizeof(T));
      draw.index_buffer = put(idx.data(), idx.size() * sizeof(T));
      draw.index_buffer_size = uint32_t(idx.size() * sizeof(T));
      draw.count = uint32_t(idx.size());
   }

   /** Write every block (PackageBuilder::write); returns the draw_info address. */
   uint64_t write() { return PackageBuilder::write(putter()); }

   /** RGBA8 pixel (x, y) of colour buffer @i (R8G8B8A8_UNORM: bytes R, G, B, A). */
   const uint8_t *rgba8(unsigned x, unsigned y, unsigned i = 0) const
   {
      const VLG_SURFACE &s = fb.cbufs[i];
      return vram.data() + s.address + uint64_t(y) * s.pitch + uint64_t(x) * 4;
   }
   uint8_t *zs_ptr(unsigned x, unsigned y)
   {
      const VLG_SURFACE &s = fb.zsbuf;
      return vram.data() + s.address + uint64_t(y) * s.pitch +
             uint64_t(x) * vlg_format_bytes(s.format);
   }
};

/** Edge-function test of pixel centre (px+0.5, py+0.5) against a triangle of
 * window positions, in double precision, with the fill convention of
 * softpipe's scan converter (the reference renderer, docs/simulator-
 * pipeline.md): a centre exactly on an edge is inside for a top edge
 * (y-down: the edge is above the interior and horizontal) or a right edge,
 * outside for a bottom or left edge. Returns true if covered. */
inline bool
ref_covered(const double (*v)[2], double px, double py)
{
   const double cx = px + 0.5, cy = py + 0.5;
   double area =
      (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
   if (area == 0)
      return false;
   for (int i = 0; i < 3; i++) {
      const double *a = v[i], *b = v[(i + 1) % 3];
      /* edge function, positive inside for area > 0 */
      double e = (b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0]);
      if (area < 0)
         e = -e;
      if (e > 0)
         continue;
      if (e < 0)
         return false;
      /* on the edge: which side of the triangle is this edge? The interior
       * normal (pointing inside) n = (-(dy), dx) oriented to positive area. */
      double nx = -(b[1] - a[1]), ny = b[0] - a[0];
      if (area < 0)
         nx = -nx, ny = -ny;
      /* top edge: horizontal, interior below (ny > 0 in y-down);
       * right edge: interior to the left (nx < 0) */
      const bool top = ny > 0 && nx == 0;
      const bool right = nx < 0;
      if (!(top || right))
         return false;
   }
   return true;
}

/** GS: the input triangle passed through as a strip of its 3 vertices
 *  (inputs R0..R5 = position, VARYING 0 per vertex; outputs R8, R9): the
 *  pass-through of func_pipe/test_gs.cpp and units/gs_scenes.h. */
inline const char *const kPassTriangleGs = R"(
   MOV R8, R0
   MOV R9, R1
   MEM.EMIT
   MOV R8, R2
   MOV R9, R3
   MEM.EMIT
   MOV R8, R4
   MOV R9, R5
   MEM.EMIT
   BRC.END
)";

} // namespace vlgpu::sim::test
