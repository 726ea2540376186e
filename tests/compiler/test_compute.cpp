/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Compute shaders (GLSL ES 3.10) through the front end and vlg_compile_nir:
 * what the compiler reports to the driver (workgroup size, shared memory,
 * SSBO and image slots, driver uniforms) and the MEM operations it selects
 * (docs/compiler.md "Compute shaders").
 */
#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/func/shader/executor.h"
#include "util/half_float.h"
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace sim = vlgpu::sim;

namespace {

/* One workgroup of @cs (at most 16 invocations: one thread group of the
 * default SPC width) on the functional executor, the way the driver and
 * the simulator's dispatch do it: driver uniforms in the global-buffer
 * image, SSBO i at VRAM address ssbo_addr[i], shared memory zeroed, the
 * group re-run after each MEM.BAR (it is the only group of the workgroup). */
struct ComputeRun {
   sim::Vram vram{1 << 20};
   uint32_t ssbo_addr[4] = {0x1000, 0x8000, 0x10000, 0x18000};
   uint32_t ssbo_size[4] = {0x4000, 0x4000, 0x4000, 0x4000};
   uint32_t grid[3] = {1, 1, 1};
   uint32_t workgroup[3] = {0, 0, 0};
   /* image unit i: (address, row pitch, layer stride, 0), (w, h, layers, 0) */
   uint32_t image_desc[4][8] = {};
   std::string fault;
   unsigned barriers = 0;

   uint32_t word(uint32_t addr) const
   {
      uint32_t v;
      std::memcpy(&v, vram.data() + addr, 4);
      return v;
   }
   void set_word(uint32_t addr, uint32_t v) { std::memcpy(vram.data() + addr, &v, 4); }

   bool run(const vlg_compiled_shader *cs)
   {
      const unsigned n = cs->workgroup_size[0] * cs->workgroup_size[1] * cs->workgroup_size[2];
      if (n > 16)
         return false;
      std::vector<uint32_t> du(VLG_DU_SLOTS * 4, 0);
      std::memcpy(&du[VLG_DU_NUM_WORKGROUPS * 4], grid, sizeof(grid));
      for (unsigned i = 0; i < 4; i++) {
         du[(VLG_DU_SSBO + i) * 4] = ssbo_addr[i];
         du[(VLG_DU_SSBO + i) * 4 + 1] = ssbo_size[i];
      }
      for (unsigned i = 0; i < 4; i++)
         std::memcpy(&du[(VLG_DU_IMAGE + 2 * i) * 4], image_desc[i], sizeof(image_desc[i]));
      std::vector<uint32_t> image(4 * cs->num_consts);
      for (unsigned e = 0; e < cs->num_consts; e++)
         for (unsigned c = 0; c < 4; c++)
            image[4 * e + c] = cs->consts[e][c];
      for (unsigned i = 0; i < cs->num_uniform_copies; i++) {
         const vlg_uniform_copy &u = cs->uniform_copies[i];
         for (unsigned k = 0; k < u.count; k++) {
            const unsigned src = u.src + k, base = cs->driver_uniform_base * 4;
            image[u.dst + k] = src >= base && src - base < du.size() ? du[src - base] : 0;
         }
      }
      std::vector<uint32_t> shared(cs->shared_size / 4 + 1, 0);
      sim::ThreadGroup tg(16, cs->num_regs, VLG_SHADER_STAGE_COMPUTE);
      tg.set_live_mask((1ull << n) - 1);
      tg.set_local_base(0);
      sim::Program prog(cs->code, cs->code_size, cs->entry);
      sim::ShaderResources res;
      res.stage = VLG_SHADER_STAGE_COMPUTE;
      res.consts = cs->num_consts ? reinterpret_cast<uint32_t(*)[4]>(image.data()) : nullptr;
      res.num_consts = cs->num_consts;
      res.vram = &vram;
      res.global = &vram;
      res.shared = shared.data();
      res.shared_size = cs->shared_size;
      for (unsigned i = 0; i < 3; i++) {
         res.block[i] = cs->workgroup_size[i];
         res.workgroup[i] = workgroup[i];
      }
      res.max_instructions = 1u << 20;
      try {
         for (;;) {
            sim::run(tg, prog, res);
            if (!tg.at_barrier())
               break;
            barriers++;
            tg.release_barrier();
         }
      } catch (const std::exception &e) {
         fault = e.what();
         return false;
      }
      return true;
   }
};

bool
has(const std::string &text, const std::string &what)
{
   return text.find(what) != std::string::npos;
}

} // namespace

TEST(Compute, SsboStoreOfLocalIds)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 8, local_size_y = 2) in;
layout(std430, binding = 0) buffer Out { uint v[]; } o;
void main() {
   uint i = gl_LocalInvocationIndex + gl_WorkGroupID.x * 16u;
   o.v[i] = gl_LocalInvocationID.x + 100u * gl_LocalInvocationID.y + 10000u * gl_NumWorkGroups.x;
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   const vlg_compiled_shader *cs = c.cs.get();
   EXPECT_EQ(cs->stage, MESA_SHADER_COMPUTE);
   EXPECT_EQ(cs->workgroup_size[0], 8u);
   EXPECT_EQ(cs->workgroup_size[1], 2u);
   EXPECT_EQ(cs->workgroup_size[2], 1u);
   EXPECT_EQ(cs->shared_size, 0u);
   EXPECT_EQ(cs->ssbos_used, 0x1u);
   EXPECT_EQ(cs->images_used, 0u);
   /* reads the SSBO 0 descriptor and the grid size from the driver uniforms */
   bool ssbo0 = false, grid = false;
   for (unsigned i = 0; i < cs->num_uniform_copies; i++) {
      const vlg_uniform_copy &u = cs->uniform_copies[i];
      for (unsigned k = 0; k < u.count; k++) {
         unsigned s = u.src + k;
         if (s == (cs->driver_uniform_base + VLG_DU_SSBO) * 4)
            ssbo0 = true;
         if (s == (cs->driver_uniform_base + VLG_DU_NUM_WORKGROUPS) * 4)
            grid = true;
      }
   }
   EXPECT_TRUE(ssbo0);
   EXPECT_TRUE(grid);
   std::string d = disasm_code(cs);
   EXPECT_TRUE(has(d, "MEM.ST")) << d;
   EXPECT_TRUE(has(d, "LID")) << d;
   EXPECT_TRUE(has(d, "WGID")) << d;
}

TEST(Compute, SharedMemoryBarrierAndAtomics)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 64) in;
shared uint partial[64];
layout(std430, binding = 1) buffer Data { uint total; uint maxv; uint data[]; } d;
void main() {
   uint l = gl_LocalInvocationIndex;
   partial[l] = d.data[gl_GlobalInvocationID.x];
   barrier();
   for (uint s = 32u; s > 0u; s >>= 1) {
      if (l < s)
         partial[l] += partial[l + s];
      barrier();
   }
   if (l == 0u)
      atomicAdd(d.total, partial[0]);
   atomicMax(d.maxv, d.data[gl_GlobalInvocationID.x]);
   memoryBarrierBuffer();
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   const vlg_compiled_shader *cs = c.cs.get();
   EXPECT_EQ(cs->workgroup_size[0], 64u);
   EXPECT_EQ(cs->shared_size, 256u);
   /* slot = block index (gl_nir_lower_buffers; st/mesa binds SSBOs by
    * block index), not the binding */
   EXPECT_EQ(cs->ssbos_used, 0x1u);
   std::string d = disasm_code(cs);
   EXPECT_TRUE(has(d, "MEM.BAR")) << d;
   EXPECT_TRUE(has(d, "MEM.FENCE")) << d;
   EXPECT_TRUE(has(d, "MEM.ATOM_ADD")) << d;
   EXPECT_TRUE(has(d, "MEM.ATOM_UMAX")) << d;
   EXPECT_TRUE(has(d, "MEM.LD.S") || has(d, ".S ")) << d;
}

TEST(Compute, ImagesAndAtomicCounters)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 4, local_size_y = 4) in;
layout(rgba8, binding = 0) writeonly uniform highp image2D img;
layout(r32ui, binding = 1) uniform highp uimage2D counts;
layout(rgba16f, binding = 2) readonly uniform highp image2D src;
layout(binding = 0) uniform atomic_uint ctr;
void main() {
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   vec4 s = imageLoad(src, p);
   imageStore(img, p, s * 0.5 + vec4(imageSize(img), 0, 0) / 256.0);
   imageStore(counts, p, uvec4(imageLoad(counts, p).x + 1u));
   atomicCounterIncrement(ctr);
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   const vlg_compiled_shader *cs = c.cs.get();
   EXPECT_EQ(cs->images_used, 0x7u);
   EXPECT_NE(cs->ssbos_used, 0u); /* the atomic counter buffer, after the SSBOs */
   std::string d = disasm_code(cs);
   EXPECT_TRUE(has(d, "MEM.ATOM_ADD")) << d; /* the counter */
   EXPECT_TRUE(has(d, "MEM.ST")) << d;
   EXPECT_TRUE(has(d, "MEM.LD")) << d;
}

/* Execution on the functional executor; every expected value is computed
 * here from the inputs. */
TEST(ComputeExec, SsboStoreOfLocalIdsAndGridSize)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 4, local_size_y = 2, local_size_z = 2) in;
layout(std430, binding = 0) buffer Out { uvec4 v[]; } o;
void main() {
   o.v[gl_LocalInvocationIndex] = uvec4(gl_LocalInvocationID,
      gl_WorkGroupID.x * 1000u + gl_NumWorkGroups.x * 100u + gl_GlobalInvocationID.x);
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   ComputeRun r;
   r.grid[0] = 7;
   r.workgroup[0] = 3;
   ASSERT_TRUE(r.run(c.cs.get())) << r.fault;
   for (unsigned i = 0; i < 16; i++) {
      unsigned x = i % 4, y = i / 4 % 2, z = i / 8;
      uint32_t a = r.ssbo_addr[0] + 16 * i;
      EXPECT_EQ(r.word(a), x) << i;
      EXPECT_EQ(r.word(a + 4), y) << i;
      EXPECT_EQ(r.word(a + 8), z) << i;
      EXPECT_EQ(r.word(a + 12), 3 * 1000u + 7 * 100u + 3 * 4 + x) << i;
   }
}

TEST(ComputeExec, SharedMemoryReductionWithBarrierAndAtomics)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 16) in;
shared uint partial[16];
shared uint smax;
layout(std430, binding = 0) buffer Res {
   uint d[16]; uint sum; uint total; uint maxv; uint minv; uint old[16];
} res;
void main() {
   uint l = gl_LocalInvocationIndex;
   uint d = res.d[l];
   partial[l] = d;
   if (l == 0u)
      smax = 0u;
   barrier();
   atomicMax(smax, d);
   for (uint s = 8u; s > 0u; s >>= 1) {
      if (l < s)
         partial[l] += partial[l + s];
      barrier();
   }
   if (l == 0u) {
      res.sum = partial[0];
      res.maxv = smax;
   }
   res.old[l] = atomicAdd(res.total, d);
   atomicMin(res.minv, d);
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   ComputeRun r;
   uint32_t d[16], seed = 99, sum = 0, mx = 0, mn = ~0u;
   for (unsigned i = 0; i < 16; i++) {
      seed = seed * 1664525u + 1013904223u;
      d[i] = seed >> 12;
      r.set_word(r.ssbo_addr[0] + 4 * i, d[i]);
      sum += d[i];
      mx = std::max(mx, d[i]);
      mn = std::min(mn, d[i]);
   }
   const uint32_t res = r.ssbo_addr[0] + 64; /* after d[16] */
   r.set_word(res + 4, 5);                   /* total starts at 5 */
   r.set_word(res + 12, ~0u);                /* minv */
   ASSERT_TRUE(r.run(c.cs.get())) << r.fault;
   EXPECT_GE(r.barriers, 5u);
   EXPECT_EQ(r.word(res), sum);
   EXPECT_EQ(r.word(res + 4), 5 + sum);
   EXPECT_EQ(r.word(res + 8), mx);
   EXPECT_EQ(r.word(res + 12), mn);
   /* lanes are processed in lane order: lane l saw 5 + d[0] + ... + d[l-1] */
   uint32_t acc = 5;
   for (unsigned i = 0; i < 16; i++) {
      EXPECT_EQ(r.word(res + 16 + 4 * i), acc) << i;
      acc += d[i];
   }
}

/* imageStore/imageLoad format conversion (nir_format_convert.h lowering)
 * against host packing: a 4x4 image per format, one invocation per texel. */
TEST(ComputeExec, ImageFormatsPackAndUnpack)
{
   CompiledCompute c = compile_compute(R"(#version 310 es
layout(local_size_x = 4, local_size_y = 4) in;
layout(rgba16f, binding = 0) writeonly uniform highp image2D h;
layout(rgba8_snorm, binding = 1) writeonly uniform highp image2D sn;
layout(rgba8i, binding = 2) writeonly uniform highp iimage2D si;
layout(rgba8, binding = 3) readonly uniform highp image2D un;
layout(std430, binding = 0) buffer Out { vec4 loaded[16]; vec4 outside; } o;
void main() {
   ivec2 p = ivec2(gl_LocalInvocationID.xy);
   float t = float(gl_LocalInvocationIndex);
   vec4 v = vec4(t * 0.37 - 2.0, -t * 0.11, t / 15.0, 0.5 - t * 0.2);
   imageStore(h, p, v);
   imageStore(sn, p, v);
   imageStore(si, p, ivec4(int(t) * 20 - 150, -int(t) * 3, int(t) * 9, 200));
   o.loaded[gl_LocalInvocationIndex] = imageLoad(un, p);
   if (gl_LocalInvocationIndex == 0u)
      o.outside = imageLoad(un, ivec2(4, 0)) + imageLoad(un, ivec2(-1, 2)) + vec4(0.25);
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   EXPECT_EQ(c.cs->images_used, 0xfu);
   ComputeRun r;
   const uint32_t base[4] = {0x20000, 0x21000, 0x22000, 0x23000};
   const uint32_t bpp[4] = {8, 4, 4, 4};
   for (unsigned i = 0; i < 4; i++) {
      uint32_t d[8] = {base[i], 4 * bpp[i] + 16, 4096, 0, 4, 4, 1, 0};
      std::memcpy(r.image_desc[i], d, sizeof(d));
   }
   uint8_t un[16][4];
   for (unsigned t = 0; t < 16; t++)
      for (unsigned k = 0; k < 4; k++) {
         un[t][k] = uint8_t(t * 17 + k * 60);
         r.vram.data()[base[3] + (t / 4) * (16 + 16) + (t % 4) * 4 + k] = un[t][k];
      }
   ASSERT_TRUE(r.run(c.cs.get())) << r.fault;
   for (unsigned t = 0; t < 16; t++) {
      const unsigned x = t % 4, y = t / 4;
      float v[4] = {t * 0.37f - 2.0f, -(float)t * 0.11f, t / 15.0f, 0.5f - t * 0.2f};
      int iv[4] = {int(t) * 20 - 150, -int(t) * 3, int(t) * 9, 200};
      for (unsigned k = 0; k < 4; k++) {
         uint16_t hv;
         std::memcpy(&hv, r.vram.data() + base[0] + y * (32 + 16) + x * 8 + 2 * k, 2);
         EXPECT_EQ(hv, _mesa_float_to_half(v[k])) << "rgba16f texel " << t << " comp " << k;
         int8_t sv = (int8_t)r.vram.data()[base[1] + y * 32 + x * 4 + k];
         float cl = std::min(1.0f, std::max(-1.0f, v[k]));
         EXPECT_EQ(sv, (int8_t)std::lrint(cl * 127.0f)) << "rgba8_snorm texel " << t;
         int8_t iv8 = (int8_t)r.vram.data()[base[2] + y * 32 + x * 4 + k];
         EXPECT_EQ(iv8, (int8_t)std::min(127, std::max(-128, iv[k]))) << "rgba8i texel " << t;
         float lv;
         std::memcpy(&lv, r.vram.data() + r.ssbo_addr[0] + 16 * t + 4 * k, 4);
         EXPECT_FLOAT_EQ(lv, un[t][k] / 255.0f) << "rgba8 load texel " << t;
      }
   }
   /* out-of-range loads are 0 (ES 3.1 §8.22) */
   for (unsigned k = 0; k < 4; k++) {
      float lv;
      std::memcpy(&lv, r.vram.data() + r.ssbo_addr[0] + 256 + 4 * k, 4);
      EXPECT_EQ(lv, 0.25f);
   }
}
