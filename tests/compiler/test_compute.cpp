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
#include "util/format_r11g11b10f.h"
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
      sim::ThreadGroup tg(16, cs->state.num_regs, VLG_SHADER_STAGE_COMPUTE);
      tg.set_live_mask((1ull << n) - 1);
      tg.set_local_base(0);
      sim::Program prog(cs->code, cs->state.code_size, cs->state.entry);
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

TEST(ComputeExec, ImageBuffers)
{
   /* OES_texture_buffer's imageBuffer: texel i of the bound range at its
    * address + i x bytes per texel; loads outside the range read 0 and
    * stores outside it are dropped (ES 3.2 section 8.26); imageSize is the
    * texel count. Image 0: rgba32f store, image 1: r32ui atomics + load. */
   CompiledCompute c = compile_compute(R"(#version 310 es
#extension GL_OES_texture_buffer : require
#extension GL_OES_shader_image_atomic : require
layout(local_size_x = 16) in;
layout(rgba32f, binding = 0) writeonly uniform highp imageBuffer dst;
layout(r32ui, binding = 1) uniform highp uimageBuffer counts;
layout(std430, binding = 0) buffer Out { uint before[16]; int sizes[2]; uint outside; } o;
void main() {
   int i = int(gl_LocalInvocationIndex);
   float t = float(i);
   imageStore(dst, i, vec4(t, -t, t * 0.5, 1.0));
   imageStore(dst, i + 12, vec4(99.0)); /* texels 12..15 in range, 16..27 dropped */
   o.before[i] = imageAtomicAdd(counts, i % 3, uint(i + 1));
   if (i == 0) {
      o.sizes[0] = imageSize(dst);
      o.sizes[1] = imageSize(counts);
      o.outside = imageLoad(counts, 5).x + imageLoad(counts, -1).x + 7u;
   }
}
)");
   ASSERT_TRUE(c.cs) << c.error;
   ComputeRun r;
   /* image 0: 16 rgba32f texels at 0x20000 (then a guard word); image 1: 3
    * r32ui texels at 0x21000, followed by words that are not in it */
   const uint32_t d0[8] = {0x20000, 0, 0, 0, 16, 1, 1, 0};
   const uint32_t d1[8] = {0x21000, 0, 0, 0, 3, 1, 1, 0};
   std::memcpy(r.image_desc[0], d0, sizeof(d0));
   std::memcpy(r.image_desc[1], d1, sizeof(d1));
   r.set_word(0x20000 + 16 * 16, 0xdeadbeef);
   for (unsigned k = 0; k < 4; k++)
      r.set_word(0x21000 + 4 * k, k == 3 ? 1234 : 100 * k);
   ASSERT_TRUE(r.run(c.cs.get())) << r.fault;
   for (unsigned i = 0; i < 16; i++) {
      const float want[4] = {float(i), -float(i), i * 0.5f, 1.0f};
      for (unsigned k = 0; k < 4; k++) {
         float v;
         std::memcpy(&v, r.vram.data() + 0x20000 + 16 * i + 4 * k, 4);
         EXPECT_EQ(v, i >= 12 ? 99.0f : want[k]) << "texel " << i << " comp " << k;
      }
   }
   EXPECT_EQ(r.word(0x20000 + 16 * 16), 0xdeadbeefu) << "store beyond the range";
   /* atomics: counter j gets the i + 1 of every i with i % 3 == j */
   for (unsigned j = 0; j < 3; j++) {
      uint32_t sum = 100 * j;
      for (unsigned i = j; i < 16; i += 3)
         sum += i + 1;
      EXPECT_EQ(r.word(0x21000 + 4 * j), sum) << "counter " << j;
   }
   EXPECT_EQ(r.word(0x21000 + 12), 1234u) << "atomic beyond the range";
   EXPECT_EQ(r.word(r.ssbo_addr[0] + 64), 16u);
   EXPECT_EQ(r.word(r.ssbo_addr[0] + 68), 3u);
   EXPECT_EQ(r.word(r.ssbo_addr[0] + 72), 7u); /* both loads outside: 0 */
}

/* The GL_NV_image_formats formats (and rgba16 integer: two dwords): every
 * invocation of a 4x4 workgroup stores a value of its own into image 0 and
 * loads texel (x, y) of image 1, prefilled here, into an SSBO. Texels of 1
 * and 2 bytes share dwords with the neighbours other lanes store in the
 * same instruction (the compare-and-swap loop). Expected bytes and values
 * come from Mesa's util helpers and the GL conversion rules (ES 3.1 §2.3.4). */
namespace {

struct FormatCase {
   const char *glsl;  /* layout qualifier */
   const char *type;  /* vec4 / ivec4 / uvec4 */
   unsigned n, bits;  /* components, bits per component (0: packed) */
   char kind;         /* 'u'norm, 's'norm, 'f'loat, 'i'nt, 'U'int, 'r' 11f11f10f, 'a' 10-10-10-2 */
};

uint32_t
expected_component(const FormatCase &f, unsigned k, double v, unsigned bits)
{
   const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
   switch (f.kind) {
   case 'u':
      return uint32_t(std::lrint(std::min(1.0, std::max(0.0, v)) * double(mask)));
   case 's': {
      const double m = double((1u << (bits - 1)) - 1);
      return uint32_t(int32_t(std::lrint(std::min(1.0, std::max(-1.0, v)) * m))) & mask;
   }
   case 'f':
      if (bits == 32) {
         float fv = float(v);
         uint32_t u;
         std::memcpy(&u, &fv, 4);
         return u;
      }
      return _mesa_float_to_half(float(v));
   case 'i': {
      const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
      return uint32_t(int32_t(std::min<int64_t>(hi, std::max<int64_t>(lo, int64_t(v))))) & mask;
   }
   default: /* 'U', 'a' */
      return uint32_t(std::min<int64_t>(int64_t(mask), std::max<int64_t>(0, int64_t(v))));
   }
   (void)k;
}

} // namespace

TEST(ComputeExec, NvImageFormatsStoreAndLoad)
{
   const FormatCase cases[] = {
      {"r8", "vec4", 1, 8, 'u'},         {"rg8", "vec4", 2, 8, 'u'},
      {"r16", "vec4", 1, 16, 'u'},       {"rg16", "vec4", 2, 16, 'u'},
      {"rgba16", "vec4", 4, 16, 'u'},    {"r8_snorm", "vec4", 1, 8, 's'},
      {"rg8_snorm", "vec4", 2, 8, 's'},  {"r16_snorm", "vec4", 1, 16, 's'},
      {"rg16_snorm", "vec4", 2, 16, 's'}, {"rgba16_snorm", "vec4", 4, 16, 's'},
      {"r16f", "vec4", 1, 16, 'f'},      {"rg16f", "vec4", 2, 16, 'f'},
      {"rg32f", "vec4", 2, 32, 'f'},     {"r8i", "ivec4", 1, 8, 'i'},
      {"rg8i", "ivec4", 2, 8, 'i'},      {"r16i", "ivec4", 1, 16, 'i'},
      {"rg16i", "ivec4", 2, 16, 'i'},    {"rg32i", "ivec4", 2, 32, 'i'},
      {"rgba16i", "ivec4", 4, 16, 'i'},  {"r8ui", "uvec4", 1, 8, 'U'},
      {"rg8ui", "uvec4", 2, 8, 'U'},     {"r16ui", "uvec4", 1, 16, 'U'},
      {"rg16ui", "uvec4", 2, 16, 'U'},   {"rg32ui", "uvec4", 2, 32, 'U'},
      {"rgba16ui", "uvec4", 4, 16, 'U'}, {"rgb10_a2ui", "uvec4", 4, 0, 'a'},
      {"rgb10_a2", "vec4", 4, 0, 'u'},   {"r11f_g11f_b10f", "vec4", 3, 0, 'r'},
   };
   for (const FormatCase &f : cases) {
      SCOPED_TRACE(f.glsl);
      const std::string prefix = f.type[0] == 'i' ? "i" : f.type[0] == 'u' ? "u" : "";
      const bool is_f = prefix.empty();
      /* values: unorm/snorm in and out of [-1, 1] (none a rounding tie),
       * integers beyond 8 bits, floats exact in 10/11-bit floats (1 + k/32) */
      std::string src = std::string("#version 310 es\n") +
                        (std::string(f.glsl) == "rgba16i" || std::string(f.glsl) == "rgba16ui"
                            ? ""
                            : "#extension GL_NV_image_formats : require\n") +
                        "layout(local_size_x = 4, local_size_y = 4) in;\n"
                        "layout(" + f.glsl + ", binding = 0) writeonly uniform highp " + prefix +
                        "image2D dst;\n"
                        "layout(" + f.glsl + ", binding = 1) readonly uniform highp " + prefix +
                        "image2D src;\n"
                        "layout(std430, binding = 0) buffer Out { highp " + f.type +
                        " loaded[16]; } o;\n"
                        "void main() {\n"
                        "   ivec2 p = ivec2(gl_LocalInvocationID.xy);\n"
                        "   float t = float(gl_LocalInvocationIndex);\n";
      if (is_f && f.kind == 'r')
         src += "   vec4 v = vec4(1.0 + t / 32.0, 2.0 + t / 16.0, 0.5 + t / 64.0, 1.0);\n";
      else if (is_f)
         src += "   vec4 v = vec4(t * 0.09 - 0.3, 1.15 - t * 0.1, t / 15.0, -0.75);\n";
      else if (prefix == "i")
         src += "   ivec4 v = ivec4(int(t) * 20 - 150, int(t) * 3000 - 20000, 7, -1);\n";
      else
         src += "   uvec4 v = uvec4(uint(t) * 20u, uint(t) * 4500u, 7u, uint(t) / 4u);\n";
      src += "   imageStore(dst, p, v);\n"
             "   o.loaded[gl_LocalInvocationIndex] = imageLoad(src, p);\n"
             "}\n";
      CompiledCompute c = compile_compute(src);
      ASSERT_TRUE(c.cs) << c.error;
      EXPECT_TRUE(c.cs->state.writes_memory);
      const unsigned bpp = f.bits == 0 ? 4 : f.n * f.bits / 8; /* packed formats: 32 bits */
      ComputeRun r;
      const uint32_t base[2] = {0x20000, 0x21000}, pitch = 4 * bpp + 4;
      for (unsigned i = 0; i < 2; i++) {
         uint32_t d[8] = {base[i], pitch, 4096, 0, 4, 4, 1, 0};
         std::memcpy(r.image_desc[i], d, sizeof(d));
      }
      /* image 1: texel t = bytes (t * 37 + b * 11) & 0xff */
      for (unsigned t = 0; t < 16; t++)
         for (unsigned b = 0; b < bpp; b++)
            r.vram.data()[base[1] + (t / 4) * pitch + (t % 4) * bpp + b] =
               uint8_t((t * 37 + b * 11) & 0xff);
      /* guard bytes after each row of image 0 must survive */
      for (unsigned y = 0; y < 4; y++)
         r.set_word(base[0] + y * pitch + 4 * bpp, 0xA5A5A5A5u);
      ASSERT_TRUE(r.run(c.cs.get())) << r.fault;
      for (unsigned t = 0; t < 16; t++) {
         const unsigned x = t % 4, y = t / 4;
         const double tf = t;
         double v[4];
         if (f.kind == 'r') {
            const double w[4] = {1 + tf / 32, 2 + tf / 16, 0.5 + tf / 64, 1};
            std::copy(w, w + 4, v);
         } else if (is_f) { /* float arithmetic, as the shader's */
            const float t32 = float(t);
            const float w[4] = {t32 * 0.09f - 0.3f, 1.15f - t32 * 0.1f, t32 / 15.0f, -0.75f};
            std::copy(w, w + 4, v);
         } else if (prefix == "i") {
            const double w[4] = {tf * 20 - 150, tf * 3000 - 20000, 7, -1};
            std::copy(w, w + 4, v);
         } else {
            const double w[4] = {tf * 20, tf * 4500, 7, double(t / 4)};
            std::copy(w, w + 4, v);
         }
         /* stored texel, little-endian */
         uint64_t want = 0, got = 0;
         std::memcpy(&got, r.vram.data() + base[0] + y * pitch + x * bpp, bpp);
         if (f.kind == 'r') {
            const float fv[3] = {float(v[0]), float(v[1]), float(v[2])};
            want = float3_to_r11g11b10f(fv);
         } else if (f.bits == 0) { /* 10-10-10-2 */
            const unsigned bits[4] = {10, 10, 10, 2};
            for (unsigned k = 0, sh = 0; k < 4; sh += bits[k], k++)
               want |= uint64_t(expected_component(f, k, v[k], bits[k])) << sh;
         } else {
            for (unsigned k = 0; k < f.n; k++)
               want |= uint64_t(expected_component(f, k, v[k], f.bits)) << (k * f.bits);
         }
         if (f.bits == 32) { /* two dwords: compare the first one here, the second below */
            uint32_t w1;
            std::memcpy(&w1, r.vram.data() + base[0] + y * pitch + x * bpp + 4, 4);
            EXPECT_EQ(w1, expected_component(f, 1, v[1], 32)) << "texel " << t << " component 1";
            want = expected_component(f, 0, v[0], 32);
            got &= 0xffffffffu;
         }
         EXPECT_EQ(got, want) << "stored texel " << t;
         /* loaded texel: the reference unpacking of the prefilled bytes */
         uint64_t raw = 0;
         std::memcpy(&raw, r.vram.data() + base[1] + y * pitch + x * bpp, std::min(bpp, 8u));
         double want_l[4] = {0, 0, 0, 1};
         if (f.kind == 'r') {
            float o3[3];
            r11g11b10f_to_float3(uint32_t(raw), o3);
            want_l[0] = o3[0], want_l[1] = o3[1], want_l[2] = o3[2];
         } else {
            const unsigned bits10[4] = {10, 10, 10, 2};
            for (unsigned k = 0, sh = 0; k < f.n; k++) {
               const unsigned nb = f.bits ? f.bits : bits10[k];
               const uint64_t u = nb == 64 ? raw : (raw >> sh) & ((uint64_t(1) << nb) - 1);
               sh += nb;
               const int64_t s = int64_t(u << (64 - nb)) >> (64 - nb);
               switch (f.kind) {
               case 'u': want_l[k] = double(u) / double((uint64_t(1) << nb) - 1); break;
               case 's': want_l[k] = std::max(-1.0, double(s) / double((int64_t(1) << (nb - 1)) - 1)); break;
               case 'f':
                  if (nb == 32) {
                     float fv;
                     uint32_t u32 = uint32_t(u);
                     std::memcpy(&fv, &u32, 4);
                     want_l[k] = fv;
                  } else {
                     want_l[k] = _mesa_half_to_float(uint16_t(u));
                  }
                  break;
               case 'i': want_l[k] = double(s); break;
               default: want_l[k] = double(u); break;
               }
            }
         }
         for (unsigned k = 0; k < 4; k++) {
            uint32_t w = r.word(r.ssbo_addr[0] + 16 * t + 4 * k);
            if (is_f && std::isnan(want_l[k])) {
               EXPECT_TRUE(std::isnan(bitsf(w))) << "loaded texel " << t << " comp " << k;
            } else if (is_f) {
               EXPECT_FLOAT_EQ(bitsf(w), float(want_l[k])) << "loaded texel " << t << " comp " << k;
            } else {
               EXPECT_EQ(int64_t(prefix == "i" ? int64_t(int32_t(w)) : int64_t(w)),
                         int64_t(want_l[k]))
                  << "loaded texel " << t << " comp " << k;
            }
         }
      }
      for (unsigned y = 0; y < 4; y++)
         EXPECT_EQ(r.word(base[0] + y * pitch + 4 * bpp), 0xA5A5A5A5u) << "guard after row " << y;
   }
}
