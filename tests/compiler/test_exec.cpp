/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Execution tests: GLSL ES compiled by vlg_compile_nir, run on the
 * simulator's SPC executor (sim/func/shader) with the inputs preloaded as
 * the input map says and the global buffer built from the constant image and
 * the uniform copy map, exactly as the driver is to do; every expected value
 * is computed here on the host with the C++ standard library from the same
 * inputs (never from the compiler's output).
 */
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>

#include "sim/func/shader/executor.h"
#include "vlg_corpus.h"
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;
namespace sim = vlgpu::sim;

namespace {

using Vec = std::array<uint32_t, 4>;

struct Inputs {
   /* VS: attribute index -> value per lane; FS: varying slot -> value per lane */
   std::map<unsigned, std::vector<Vec>> attrs;
   std::map<int, std::vector<Vec>> varyings;
};

struct Machine {
   std::vector<uint32_t> cb0; /* constant buffer 0, dwords (vec4 slots) */
   sim::TextureUnit units[VLG_NUM_TEX_UNITS];
   unsigned num_units = 0;
   sim::Vram *vram = nullptr;
   sim::BufferSlot buffers[VLG_NUM_BUFFERS];
};

struct Result {
   std::map<int, std::vector<Vec>> out; /* output location -> value per lane */
   uint64_t killed = 0;
   uint64_t instructions = 0;
   bool ok = false;
   std::string fault;
};

Vec
fvec(float x, float y, float z, float w)
{
   return {fbits(x), fbits(y), fbits(z), fbits(w)};
}

Vec
ivec(int32_t x, int32_t y, int32_t z, int32_t w)
{
   return {(uint32_t)x, (uint32_t)y, (uint32_t)z, (uint32_t)w};
}

/* Run @cs on one thread group of @lanes lanes (fragment groups: quads). */
Result
run(const vlg_compiled_shader *cs, unsigned lanes, const Inputs &in, const Machine &m)
{
   Result r;
   bool fs = cs->stage == MESA_SHADER_FRAGMENT;
   unsigned width = fs ? (lanes + 3) / 4 * 4 : lanes;
   sim::ThreadGroup tg(width, cs->state.num_regs, (vlg_shader_stage)cs->stage);
   tg.set_live_mask(lanes >= 64 ? ~0ull : (1ull << lanes) - 1);

   /* the global-buffer image the driver builds */
   std::vector<uint32_t> image_words(4 * cs->num_consts);
   auto image = reinterpret_cast<uint32_t(*)[4]>(image_words.data());
   for (unsigned e = 0; e < cs->num_consts; e++)
      for (unsigned c = 0; c < 4; c++)
         image[e][c] = cs->consts[e][c];
   for (unsigned i = 0; i < cs->num_uniform_copies; i++) {
      const vlg_uniform_copy &u = cs->uniform_copies[i];
      for (unsigned k = 0; k < u.count; k++) {
         unsigned dst = u.dst + k, src = u.src + k;
         image[dst / 4][dst % 4] = src < m.cb0.size() ? m.cb0[src] : 0;
      }
   }

   for (unsigned k = 0; k < cs->state.num_inputs; k++) {
      const VLG_SHADER_INPUT &d = cs->state.inputs[k];
      for (unsigned l = 0; l < lanes; l++) {
         Vec v = {0, 0, 0, 0};
         switch (d.semantic) {
         case VLG_INPUT_SEMANTIC_ATTRIBUTE:
            v = in.attrs.at(d.index).at(l);
            break;
         case VLG_INPUT_SEMANTIC_VARYING:
            v = in.varyings.at(cs->input_locations[k]).at(l);
            break;
         case VLG_INPUT_SEMANTIC_FRAG_COORD: {
            unsigned q = l / 4;
            v = fvec(2 * q + (l & 1) + 0.5f, ((l >> 1) & 1) + 0.5f, 0.5f, 1.0f);
            break;
         }
         case VLG_INPUT_SEMANTIC_FACE:
            v = {~0u, 0, 0, 0};
            break;
         default:
            break;
         }
         for (unsigned c = 0; c < 4; c++)
            if (d.mask & (1u << c))
               tg.set(l, d.reg, c, v[c]);
      }
   }

   sim::Program prog(cs->code, cs->state.code_size, cs->state.entry);
   sim::ShaderResources res;
   res.stage = (vlg_shader_stage)cs->stage;
   res.consts = cs->num_consts ? image : nullptr;
   res.num_consts = cs->num_consts;
   res.textures = m.num_units ? m.units : nullptr;
   res.num_textures = m.num_units;
   res.vram = m.vram;
   for (unsigned i = 0; i < VLG_NUM_BUFFERS; i++)
      res.buffers[i] = m.buffers[i];
   res.max_instructions = 1u << 20;
   try {
      sim::RunResult rr = sim::run(tg, prog, res);
      r.instructions = rr.instructions;
   } catch (const std::exception &e) {
      r.fault = e.what();
      return r;
   }
   r.killed = tg.killed_mask();
   for (unsigned k = 0; k < cs->state.num_outputs; k++) {
      const VLG_SHADER_OUTPUT &d = cs->state.outputs[k];
      std::vector<Vec> vals(lanes);
      for (unsigned l = 0; l < lanes; l++)
         for (unsigned c = 0; c < 4; c++)
            vals[l][c] = (d.mask & (1u << c)) ? tg.get(l, d.reg, c) : 0;
      r.out[cs->output_locations[k]] = vals;
   }
   r.ok = true;
   return r;
}

/* Deterministic inputs: a small LCG, values in [lo, hi]. */
struct Rng {
   uint32_t s;
   explicit Rng(uint32_t seed) : s(seed) {}
   float next(float lo, float hi)
   {
      s = s * 1664525u + 1013904223u;
      return lo + (hi - lo) * ((s >> 8) / 16777216.0f);
   }
};

bool
close(float got, float want, float rel = 1e-5f, float abs_tol = 1e-6f)
{
   if (std::isnan(want))
      return std::isnan(got);
   return std::fabs(got - want) <= abs_tol + rel * std::fabs(want);
}

#define EXPECT_CLOSE(got, want, rel, abs_tol, what)                                                \
   EXPECT_TRUE(close((got), (want), (rel), (abs_tol)))                                             \
      << what << ": got " << (got) << ", want " << (want)

/* Slot of element @i of the VS output array @name. */
int
out_slot(const CompiledProgram &p, const std::string &name, unsigned i)
{
   return p.vs_out.at(name) + i;
}

const unsigned kLanes = 16;

/**
 * Unit 0 of @m: a w x h 2D texture of @format at VRAM @address (rows packed,
 * @bytes_per_texel each, one level), NEAREST filtering, CLAMP_TO_EDGE on
 * every axis; @m reads @vram. Tests change the sampler afterwards as needed.
 */
sim::TextureUnit &
bind_2d_texture(Machine &m, sim::Vram &vram, vlg_format format, unsigned w, unsigned h,
                uint64_t address, unsigned bytes_per_texel)
{
   m.vram = &vram;
   m.num_units = 1;
   sim::TextureUnit &u = m.units[0];
   u.valid = true;
   VLG_TEXTURE_init(&u.tex);
   u.tex.target = VLG_TEXTURE_TARGET_2D;
   u.tex.format = format;
   u.tex.width = w;
   u.tex.height = h;
   u.tex.address = address;
   u.tex.level[0].row_pitch = w * bytes_per_texel;
   u.tex.level[0].layer_stride = w * h * bytes_per_texel;
   VLG_SAMPLER_init(&u.samp);
   u.samp.wrap_s = u.samp.wrap_t = u.samp.wrap_r = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   u.samp.min_img_filter = u.samp.mag_img_filter = VLG_TEX_FILTER_NEAREST;
   return u;
}

} // namespace

TEST(Exec, ArithmeticAndBuiltins)
{
   const char *vs = R"(
      attribute vec4 a;
      attribute vec4 b;
      uniform vec4 u;
      uniform float s;
      varying vec4 r[8];
      void main() {
         r[0] = a * b + u;
         r[1] = vec4(dot(a.xyz, b.xyz), dot(a, b), length(a.xy), distance(a, b));
         r[2] = normalize(a);
         r[3] = vec4(max(a.x, b.x), min(a.y, b.y), clamp(a.z, 0.0, 1.0), abs(a.w));
         r[4] = vec4(floor(a.x), fract(a.y), mod(a.z, 1.5), sign(a.w));
         r[5] = vec4(sqrt(abs(a.x)), inversesqrt(abs(a.y) + 1.0), exp2(a.z), log2(abs(a.w) + 1.0));
         r[6] = vec4(pow(abs(a.x) + 0.5, 1.5), sin(a.y), cos(a.z), a.w / (b.x + 3.0));
         r[7] = mix(a, b, s) + step(0.5, a) + vec4(ceil(b.x), -b.y, b.z * s, 1.0 - b.w);
         gl_Position = a;
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   Rng rng(1);
   std::vector<std::array<float, 4>> A(kLanes), B(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      for (unsigned c = 0; c < 4; c++) {
         A[l][c] = rng.next(-2.0f, 2.0f);
         B[l][c] = rng.next(-2.0f, 2.0f);
      }
      in.attrs[p.attribute.at("a")].push_back(fvec(A[l][0], A[l][1], A[l][2], A[l][3]));
      in.attrs[p.attribute.at("b")].push_back(fvec(B[l][0], B[l][1], B[l][2], B[l][3]));
   }
   const float U[4] = {0.5f, -1.25f, 3.0f, 0.125f}, S = 0.25f;
   Machine m;
   m.cb0.assign(64, 0);
   for (unsigned c = 0; c < 4; c++)
      m.cb0[p.uniform_slot.at("u") * 4 + c] = fbits(U[c]);
   m.cb0[p.uniform_slot.at("s") * 4] = fbits(S);
   Result r = run(p.vs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      const auto &a = A[l], &b = B[l];
      auto got = [&](unsigned i, unsigned c) { return bitsf(r.out.at(out_slot(p, "r", i))[l][c]); };
      auto len = [](float x, float y, float z, float w) {
         return std::sqrt(x * x + y * y + z * z + w * w);
      };
      float want[8][4] = {
         {a[0] * b[0] + U[0], a[1] * b[1] + U[1], a[2] * b[2] + U[2], a[3] * b[3] + U[3]},
         {a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
          a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], len(a[0], a[1], 0, 0),
          len(a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])},
         {a[0] / len(a[0], a[1], a[2], a[3]), a[1] / len(a[0], a[1], a[2], a[3]),
          a[2] / len(a[0], a[1], a[2], a[3]), a[3] / len(a[0], a[1], a[2], a[3])},
         {std::max(a[0], b[0]), std::min(a[1], b[1]), std::min(std::max(a[2], 0.0f), 1.0f),
          std::fabs(a[3])},
         {std::floor(a[0]), a[1] - std::floor(a[1]), a[2] - 1.5f * std::floor(a[2] / 1.5f),
          (float)((a[3] > 0) - (a[3] < 0))},
         {std::sqrt(std::fabs(a[0])), 1.0f / std::sqrt(std::fabs(a[1]) + 1.0f), std::exp2(a[2]),
          std::log2(std::fabs(a[3]) + 1.0f)},
         {std::pow(std::fabs(a[0]) + 0.5f, 1.5f), std::sin(a[1]), std::cos(a[2]),
          a[3] / (b[0] + 3.0f)},
         {a[0] + (b[0] - a[0]) * S + (a[0] >= 0.5f ? 1.f : 0.f) + std::ceil(b[0]),
          a[1] + (b[1] - a[1]) * S + (a[1] >= 0.5f ? 1.f : 0.f) - b[1],
          a[2] + (b[2] - a[2]) * S + (a[2] >= 0.5f ? 1.f : 0.f) + b[2] * S,
          a[3] + (b[3] - a[3]) * S + (a[3] >= 0.5f ? 1.f : 0.f) + 1.0f - b[3]},
      };
      for (unsigned i = 0; i < 8; i++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_CLOSE(got(i, c), want[i][c], 2e-5f, 2e-5f,
                         "lane " << l << " r[" << i << "]."
                                 << "xyzw"[c]);
   }
}

TEST(Exec, IntegerFunctionsAndPacking)
{
   /* GLSL ES 3.10 integer built-ins (MESA_shader_integer_functions, which
    * st/mesa offers with GLSL 1.30) and the packing built-ins
    * (ARB_shading_language_packing; packSnorm4x8 & co. are ESSL 3.10 only,
    * so this is a desktop GLSL 1.30 shader); every expected value is
    * computed below with host integer arithmetic. */
   const char *vs = R"(#version 130
      #extension GL_MESA_shader_integer_functions : require
      #extension GL_ARB_shading_language_packing : require
      #extension GL_ARB_shader_bit_encoding : require
      in uvec4 ua;
      in ivec4 ia;
      in vec4 fa;
      flat out ivec4 r[8];
      void main() {
         r[0] = ivec4(findMSB(ua.x), findMSB(ia.y), findLSB(ua.z), findLSB(ia.w));
         r[1] = ivec4(bitCount(ua.x), bitCount(ia.y), int(bitfieldReverse(ua.z)), bitfieldReverse(ia.w));
         r[2] = ivec4(int(bitfieldExtract(ua.x, 3, 11)), bitfieldExtract(ia.y, 5, 9),
                      int(bitfieldInsert(ua.z, ua.w, 7, 13)), bitfieldInsert(ia.w, ia.x, 0, 32));
         uint carry, borrow;
         uint s = uaddCarry(ua.x, ua.z, carry);
         uint d = usubBorrow(ua.x, ua.z, borrow);
         r[3] = ivec4(int(s), int(carry), int(d), int(borrow));
         uint hi, lo;
         umulExtended(ua.x, ua.z, hi, lo);
         int ihi, ilo;
         imulExtended(ia.y, ia.w, ihi, ilo);
         r[4] = ivec4(int(hi), int(lo), ihi, ilo);
         int e;
         float m = frexp(fa.x, e);
         r[5] = ivec4(floatBitsToInt(m), e, floatBitsToInt(ldexp(fa.y, ia.x & 15)), 0);
         r[6] = ivec4(int(packSnorm4x8(fa)), int(packUnorm4x8(fa * 0.5 + 0.5)),
                      int(packSnorm2x16(fa.xy)), int(packUnorm2x16(fa.zw * 0.5 + 0.5)));
         vec4 us = unpackSnorm4x8(ua.x);
         vec4 uu = unpackUnorm4x8(ua.z);
         r[7] = ivec4(floatBitsToInt(us.x + us.w), floatBitsToInt(uu.y + uu.z),
                      floatBitsToInt(unpackSnorm2x16(ua.w).y), floatBitsToInt(unpackUnorm2x16(ua.w).x));
         gl_Position = vec4(0.0);
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   std::vector<std::array<uint32_t, 4>> UA(kLanes), IA(kLanes);
   std::vector<std::array<float, 4>> FA(kLanes);
   Rng rng(77);
   for (unsigned l = 0; l < kLanes; l++) {
      uint32_t k = l * 2654435761u;
      UA[l] = {l == 0 ? 0u : k >> (l % 7), l == 1 ? 0u : k ^ 0x80000001u, (k * 3) << (l % 5),
               0x12345678u + 0x1000u * l};
      IA[l] = {(uint32_t)(l * 7), (uint32_t)(int32_t)(l == 2 ? -1 : (int32_t)(k ^ 0xa5a5a5a5u)),
               (uint32_t)(1000 - (int)l), l == 3 ? 0u : (uint32_t)(-(int32_t)(k >> 3))};
      FA[l] = {rng.next(-3.0f, 3.0f) * float(1 << l), rng.next(-1.2f, 1.2f), rng.next(-1.1f, 1.1f),
               rng.next(-1.0f, 1.0f)};
      in.attrs[p.attribute.at("ua")].push_back({UA[l][0], UA[l][1], UA[l][2], UA[l][3]});
      in.attrs[p.attribute.at("ia")].push_back({IA[l][0], IA[l][1], IA[l][2], IA[l][3]});
      in.attrs[p.attribute.at("fa")].push_back(fvec(FA[l][0], FA[l][1], FA[l][2], FA[l][3]));
   }
   Result r = run(p.vs.get(), kLanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;

   auto msb = [](uint32_t x) -> int32_t {
      int32_t b = -1;
      for (int i = 0; i < 32; i++)
         if (x >> i & 1)
            b = i;
      return b;
   };
   auto lsb = [](uint32_t x) -> int32_t {
      for (int i = 0; i < 32; i++)
         if (x >> i & 1)
            return i;
      return -1;
   };
   auto pop = [](uint32_t x) {
      int32_t n = 0;
      for (int i = 0; i < 32; i++)
         n += x >> i & 1;
      return n;
   };
   auto rev = [](uint32_t x) {
      uint32_t y = 0;
      for (int i = 0; i < 32; i++)
         y |= (x >> i & 1) << (31 - i);
      return y;
   };
   auto snorm8 = [](float v) {
      return (uint32_t)(int32_t)(int8_t)std::lround(std::fmin(std::fmax(v, -1.0f), 1.0f) * 127.0f) &
             0xffu;
   };
   auto unorm8 = [](float v) {
      return (uint32_t)std::lround(std::fmin(std::fmax(v, 0.0f), 1.0f) * 255.0f);
   };
   auto snorm16 = [](float v) {
      return (uint32_t)(int32_t)(int16_t)std::lround(std::fmin(std::fmax(v, -1.0f), 1.0f) *
                                                    32767.0f) &
             0xffffu;
   };
   auto unorm16 = [](float v) {
      return (uint32_t)std::lround(std::fmin(std::fmax(v, 0.0f), 1.0f) * 65535.0f);
   };
   for (unsigned l = 0; l < kLanes; l++) {
      const auto &u = UA[l];
      const auto &ia = IA[l];
      const auto &f = FA[l];
      int32_t y = (int32_t)ia[1];
      /* findMSB of a negative int: the most significant 0 bit (GLSL ES 3.10 8.8) */
      int32_t imsb = y < 0 ? msb(~(uint32_t)y) : msb((uint32_t)y);
      uint32_t ext_u = (u[0] >> 3) & 0x7ffu;
      int32_t ext_i = (int32_t)((uint32_t)y << (32 - 5 - 9)) >> (32 - 9);
      uint32_t ins_mask = ((1u << 13) - 1) << 7;
      uint32_t ins = (u[2] & ~ins_mask) | ((u[3] << 7) & ins_mask);
      uint64_t uprod = (uint64_t)u[0] * u[2];
      int64_t iprod = (int64_t)(int32_t)ia[1] * (int32_t)ia[3];
      int e = 0;
      float m = std::frexp(f[0], &e);
      float ld = std::ldexp(f[1], (int)(ia[0] & 15));
      float usx = std::fmax((int8_t)(u[0] & 0xff) / 127.0f, -1.0f);
      float usw = std::fmax((int8_t)(u[0] >> 24) / 127.0f, -1.0f);
      float uuy = ((u[2] >> 8) & 0xff) / 255.0f, uuz = ((u[2] >> 16) & 0xff) / 255.0f;
      float s2y = std::fmax((int16_t)(u[3] >> 16) / 32767.0f, -1.0f);
      float u2x = (u[3] & 0xffff) / 65535.0f;
      uint32_t want[8][4] = {
         {(uint32_t)msb(u[0]), (uint32_t)imsb, (uint32_t)lsb(u[2]), (uint32_t)lsb(ia[3])},
         {(uint32_t)pop(u[0]), (uint32_t)pop(ia[1]), rev(u[2]), rev(ia[3])},
         {ext_u, (uint32_t)ext_i, ins, ia[0]},
         {u[0] + u[2], (uint32_t)(u[0] + (uint64_t)u[2] > 0xffffffffull), u[0] - u[2],
          (uint32_t)(u[0] < u[2])},
         {(uint32_t)(uprod >> 32), (uint32_t)uprod, (uint32_t)((uint64_t)iprod >> 32),
          (uint32_t)iprod},
         {fbits(m), (uint32_t)e, fbits(ld), 0},
         {snorm8(f[0]) | snorm8(f[1]) << 8 | snorm8(f[2]) << 16 | snorm8(f[3]) << 24,
          unorm8(f[0] * 0.5f + 0.5f) | unorm8(f[1] * 0.5f + 0.5f) << 8 |
             unorm8(f[2] * 0.5f + 0.5f) << 16 | unorm8(f[3] * 0.5f + 0.5f) << 24,
          snorm16(f[0]) | snorm16(f[1]) << 16,
          unorm16(f[2] * 0.5f + 0.5f) | unorm16(f[3] * 0.5f + 0.5f) << 16},
         {fbits(usx + usw), fbits(uuy + uuz), fbits(s2y), fbits(u2x)},
      };
      for (unsigned i = 0; i < 8; i++)
         for (unsigned c = 0; c < 4; c++) {
            uint32_t got = r.out.at(out_slot(p, "r", i))[l][c];
            if (i == 7) /* float unpacks: within 1 ulp-ish of the host's division */
               EXPECT_CLOSE(bitsf(got), bitsf(want[i][c]), 1e-6f, 1e-7f,
                            "lane " << l << " r[7]." << "xyzw"[c]);
            else
               EXPECT_EQ(got, want[i][c]) << "lane " << l << " r[" << i << "]." << "xyzw"[c]
                                          << " inputs " << std::hex << u[0] << " " << ia[1]
                                          << " " << u[2] << " " << ia[3];
         }
   }
}

TEST(Exec, SwizzlesAndWriteMasks)
{
   const char *vs = R"(
      attribute vec4 a;
      attribute vec4 b;
      varying vec4 r[3];
      void main() {
         r[0] = a.wzyx;
         vec4 t = vec4(0.0);
         t.xz = b.yy;
         t.yw = a.xx * b.zw;
         r[1] = t;
         r[2] = vec4(a.x, 1.0, b.y, 2.0) - vec4(b.w);
         gl_Position = a;
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++) {
      in.attrs[p.attribute.at("a")].push_back(fvec(l, l + 0.5f, -1.0f * l, 100 + l));
      in.attrs[p.attribute.at("b")].push_back(fvec(2 * l, 3 + l, 0.25f * l, -7.0f));
   }
   Result r = run(p.vs.get(), kLanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      float a[4] = {(float)l, l + 0.5f, -1.0f * l, 100.0f + l},
            b[4] = {2.0f * l, 3.0f + l, 0.25f * l, -7.0f};
      float want[3][4] = {{a[3], a[2], a[1], a[0]},
                          {b[1], a[0] * b[2], b[1], a[0] * b[3]},
                          {a[0] - b[3], 1.0f - b[3], b[1] - b[3], 2.0f - b[3]}};
      for (unsigned i = 0; i < 3; i++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(bitsf(r.out.at(out_slot(p, "r", i))[l][c]), want[i][c])
               << "lane " << l << " r[" << i << "]."
               << "xyzw"[c];
   }
}

TEST(Exec, IntegerOps)
{
   const char *vs = R"(#version 300 es
      in ivec4 ia;
      in ivec4 ib;
      in uvec4 ua;
      flat out ivec4 r[6];
      void main() {
         r[0] = ivec4(ia.x + ib.x, ia.y * ib.y, ia.z - ib.z, -ia.w);
         r[1] = ivec4(ia.x / ib.x, ib.y / 3, ia.x << 3, ia.y >> 2);
         r[2] = ivec4(ia.x & ib.x, ia.y | ib.y, ia.z ^ ib.z, ~ia.w);
         r[3] = ivec4(min(ia.x, ib.x), max(ia.y, ib.y), abs(ia.z), sign(ia.w));
         r[4] = ivec4(ua.x / ua.y, ua.z % ua.y, min(ua.x, ua.w), max(ua.z, ua.w));
         r[5] = ivec4(int(float(ia.x) * 0.5), uint(ua.x >> 1u), ia.x < ib.x ? 1 : 0, ua.z >= ua.w ? 7 : 9);
         gl_Position = vec4(0.0);
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   std::vector<std::array<int32_t, 4>> IA(kLanes), IB(kLanes);
   std::vector<std::array<uint32_t, 4>> UA(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      int s = (int)l - 8;
      IA[l] = {s * 37 + 5, s * 11 - 3, 1000 - 7 * s, s * 5};
      IB[l] = {(s % 5) + (s % 5 >= 0 ? 1 : -1) * 3, 12 - s, s * s, 3};
      UA[l] = {4000000000u - 12345u * l, 7u + l, 3000000000u + 99u * l, 2147483648u + l};
      in.attrs[p.attribute.at("ia")].push_back(ivec(IA[l][0], IA[l][1], IA[l][2], IA[l][3]));
      in.attrs[p.attribute.at("ib")].push_back(ivec(IB[l][0], IB[l][1], IB[l][2], IB[l][3]));
      in.attrs[p.attribute.at("ua")].push_back({UA[l][0], UA[l][1], UA[l][2], UA[l][3]});
   }
   Result r = run(p.vs.get(), kLanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      const auto &a = IA[l], &b = IB[l];
      const auto &u = UA[l];
      int32_t want[6][4] = {
         {a[0] + b[0], a[1] * b[1], a[2] - b[2], -a[3]},
         {a[0] / b[0], b[1] / 3, (int32_t)((uint32_t)a[0] << 3), a[1] >> 2},
         {a[0] & b[0], a[1] | b[1], a[2] ^ b[2], ~a[3]},
         {std::min(a[0], b[0]), std::max(a[1], b[1]), std::abs(a[2]), (a[3] > 0) - (a[3] < 0)},
         {(int32_t)(u[0] / u[1]), (int32_t)(u[2] % u[1]), (int32_t)std::min(u[0], u[3]),
          (int32_t)std::max(u[2], u[3])},
         {(int32_t)(a[0] * 0.5f), (int32_t)(u[0] >> 1), a[0] < b[0] ? 1 : 0, u[2] >= u[3] ? 7 : 9},
      };
      for (unsigned i = 0; i < 6; i++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ((int32_t)r.out.at(out_slot(p, "r", i))[l][c], want[i][c])
               << "lane " << l << " r[" << i << "]."
               << "xyzw"[c];
   }
}

TEST(Exec, RoundAndRoundEven)
{
   /* GLSL ES 3.00 section 8.3: roundEven(x) is the nearest integer, a
    * fractional part of 0.5 going to the nearest even integer; round(x) is
    * the nearest integer with the direction of 0.5 left to the
    * implementation (here it must be one rule for every tie). Every float
    * with |x| >= 2^23 is an integer already, so both return x
    * (dEQP-GLES3 builtin_functions.common.round: round(-9644825.0) came back
    * -9644824.0). r[2] = roundEven(-x) passes a negated operand. */
   const char *vs = R"(#version 300 es
      in vec4 a;
      out vec4 r[3];
      void main() {
         r[0] = round(a);
         r[1] = roundEven(a);
         r[2] = roundEven(-a);
         gl_Position = vec4(0.0);
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   const float two23 = 8388608.0f;
   const std::vector<float> X = {-9644825.0f,
                                 two23 + 1.0f,
                                 16777219.0f,
                                 -0.5f,
                                 0.5f,
                                 1.5f,
                                 2.5f,
                                 -2.5f,
                                 -(two23 + 1.0f),
                                 two23 - 0.5f,
                                 two23 - 1.5f,
                                 0.49999997f,
                                 -3.5f,
                                 4.75f,
                                 -4.25f,
                                 1e30f,
                                 -0.25f,
                                 0.0f,
                                 16777216.0f + 2.0f,
                                 -(two23 + 3.0f)};
   /* 2^24 + 3 is not a float: the literal is 2^24 + 4 (ties to even) */
   ASSERT_EQ(X[2], 16777220.0f);
   const unsigned lanes = (unsigned)(X.size() + 3) / 4;
   Inputs in;
   for (unsigned l = 0; l < lanes; l++) {
      float v[4];
      for (unsigned c = 0; c < 4; c++)
         v[c] = 4 * l + c < X.size() ? X[4 * l + c] : 0.0f;
      in.attrs[p.attribute.at("a")].push_back(fvec(v[0], v[1], v[2], v[3]));
   }
   Result r = run(p.vs.get(), lanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;

   /* The rules, in double (exact for these floats): floor, the fraction, and
    * the tie. */
   auto nearest = [](double x, bool *tie) {
      const double f = std::floor(x), frac = x - f;
      *tie = frac == 0.5;
      if (frac < 0.5)
         return f;
      if (frac > 0.5)
         return f + 1.0;
      return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0; /* to even */
   };
   enum { EVEN, AWAY_FROM_ZERO, UP, DOWN, RULES };
   bool rule_holds[RULES] = {true, true, true, true};
   unsigned ties = 0;
   for (unsigned i = 0; i < X.size(); i++) {
      const unsigned l = i / 4, c = i % 4;
      auto got = [&](unsigned k) { return bitsf(r.out.at(out_slot(p, "r", k))[l][c]); };
      const double x = X[i];
      if (std::fabs(x) >= 8388608.0)
         ASSERT_EQ(std::floor(x), x) << x << ": not an integer";
      bool tie = false, tie_neg = false;
      const double even = nearest(x, &tie), even_neg = nearest(-x, &tie_neg);
      EXPECT_EQ(got(1), (float)even)
         << std::setprecision(10) << "roundEven(" << x << ") = " << got(1) << ", want " << even;
      EXPECT_EQ(got(2), (float)even_neg) << std::setprecision(10) << "roundEven(" << -x
                                         << ") = " << got(2) << ", want " << even_neg;
      /* IEEE 754 roundToIntegral keeps the sign: roundEven(-0.25) = -0 */
      EXPECT_EQ(std::signbit(got(1)), std::signbit(x)) << "sign of roundEven(" << x << ")";
      if (!tie) {
         EXPECT_EQ(got(0), (float)even)
            << std::setprecision(10) << "round(" << x << ") = " << got(0) << ", want " << even;
         continue;
      }
      ties++;
      const double lo = std::floor(x), hi = lo + 1.0, g = got(0);
      EXPECT_TRUE(g == lo || g == hi) << "round(" << x << ") = " << g;
      rule_holds[EVEN] &= g == even;
      rule_holds[AWAY_FROM_ZERO] &= g == (x < 0 ? lo : hi);
      rule_holds[UP] &= g == hi;
      rule_holds[DOWN] &= g == lo;
   }
   EXPECT_EQ(ties, 8u); /* +-0.5, 1.5, +-2.5, -3.5, 2^23 - 0.5, 2^23 - 1.5 */
   EXPECT_TRUE(rule_holds[EVEN] || rule_holds[AWAY_FROM_ZERO] || rule_holds[UP] || rule_holds[DOWN])
      << "round() sends halves in no single direction";
}

TEST(Exec, ControlFlowWithNestedLoops)
{
   /* Loop bounds come from a uniform, so NIR cannot unroll: real backward
    * branches, break and continue with lane-dependent trip counts. */
   const char *vs = R"(
      attribute vec4 a;
      uniform vec4 lim;
      varying vec4 r;
      void main() {
         float acc;
         if (a.x > 0.5)
            acc = a.x * 2.0;
         else if (a.x < -0.5)
            acc = -a.x;
         else
            acc = 7.0;
         int n = int(a.y);
         float inner = 0.0;
         for (int i = 0; i < int(lim.x); i++) {
            if (i >= n)
               break;
            if (i == 3)
               continue;
            acc += float(i);
            for (int j = 0; j < int(lim.y); j++) {
               if (j > i)
                  break;
               inner += 0.5;
            }
         }
         float w = a.z;
         int k = 0;
         while (w > 1.0 && k < 50) {
            w = w * 0.5;
            k++;
         }
         r = vec4(acc, inner, w, float(k));
         gl_Position = a;
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   std::string d = disasm_code(p.vs.get());
   EXPECT_NE(d.find("BRC.JMP"), std::string::npos) << d;
   Inputs in;
   std::vector<std::array<float, 4>> A(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      A[l] = {(float)l * 0.25f - 2.0f, (float)(l % 9), 1.0f + 3.7f * l, 0.0f};
      in.attrs[p.attribute.at("a")].push_back(fvec(A[l][0], A[l][1], A[l][2], A[l][3]));
   }
   Machine m;
   m.cb0.assign(16, 0);
   m.cb0[p.uniform_slot.at("lim") * 4 + 0] = fbits(12.0f);
   m.cb0[p.uniform_slot.at("lim") * 4 + 1] = fbits(5.0f);
   Result r = run(p.vs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      float x = A[l][0];
      float acc = x > 0.5f ? x * 2.0f : x < -0.5f ? -x : 7.0f;
      int n = (int)A[l][1];
      float inner = 0;
      for (int i = 0; i < 12; i++) {
         if (i >= n)
            break;
         if (i == 3)
            continue;
         acc += (float)i;
         for (int j = 0; j < 5; j++) {
            if (j > i)
               break;
            inner += 0.5f;
         }
      }
      float w = A[l][2];
      int k = 0;
      while (w > 1.0f && k < 50) {
         w *= 0.5f;
         k++;
      }
      const Vec &o = r.out.at(p.vs_out.at("r"))[l];
      EXPECT_EQ(bitsf(o[0]), acc) << "lane " << l;
      EXPECT_EQ(bitsf(o[1]), inner) << "lane " << l;
      EXPECT_EQ(bitsf(o[2]), w) << "lane " << l;
      EXPECT_EQ(bitsf(o[3]), (float)k) << "lane " << l;
   }
}

TEST(Exec, ConditionalBreakAtTheEndOfABlock)
{
   /* `if (c) break;` / `if (c) continue;` is one conditional jump; when it
    * is the last thing in a loop body the back edge must still follow it,
    * and when it ends a then-block the jump over the else must too (the
    * conditional jump falls through; glsl-vs-continue-inside-do-while). */
   const char *vs = R"(
      attribute vec4 a;
      uniform vec4 lim;
      varying vec4 r;
      void main() {
         float acc = 0.0;
         float other = 0.0;
         int i = 0;
         while (true) {
            acc += 1.0 + a.y;
            i++;
            if (float(i) >= lim.x || acc > a.x)
               break;
         }
         for (int j = 0; j < int(lim.y); j++) {
            if (a.z > float(j)) {
               other += 1.0;
               if (other > a.w)
                  break;
            } else {
               other += 10.0;
            }
         }
         /* piglit glsl-vs-continue-inside-do-while, lane-dependent bound */
         int x = 0;
         int y = 0;
         do {
            ++x;
            if (x >= 4)
               break;
            if (x >= 2)
               continue;
            ++y;
         } while (x < int(a.z));
         r = vec4(acc, float(i), other, float(x * 10 + y));
         gl_Position = a;
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   std::vector<std::array<float, 4>> A(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      A[l] = {(float)(l % 7) * 1.5f, (float)(l % 3), (float)(l % 5), (float)(l % 4) + 0.5f};
      in.attrs[p.attribute.at("a")].push_back(fvec(A[l][0], A[l][1], A[l][2], A[l][3]));
   }
   Machine m;
   m.cb0.assign(16, 0);
   m.cb0[p.uniform_slot.at("lim") * 4 + 0] = fbits(20.0f);
   m.cb0[p.uniform_slot.at("lim") * 4 + 1] = fbits(6.0f);
   Result r = run(p.vs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      float acc = 0, other = 0;
      int i = 0;
      while (true) {
         acc += 1.0f + A[l][1];
         i++;
         if ((float)i >= 20.0f || acc > A[l][0])
            break;
      }
      for (int j = 0; j < 6; j++) {
         if (A[l][2] > (float)j) {
            other += 1.0f;
            if (other > A[l][3])
               break;
         } else {
            other += 10.0f;
         }
      }
      int x = 0, y = 0;
      do {
         ++x;
         if (x >= 4)
            break;
         if (x >= 2)
            continue;
         ++y;
      } while (x < (int)A[l][2]);
      const Vec &o = r.out.at(p.vs_out.at("r"))[l];
      EXPECT_EQ(bitsf(o[0]), acc) << "lane " << l;
      EXPECT_EQ(bitsf(o[1]), (float)i) << "lane " << l;
      EXPECT_EQ(bitsf(o[2]), other) << "lane " << l;
      EXPECT_EQ(bitsf(o[3]), (float)(x * 10 + y)) << "lane " << l;
   }
}

TEST(Exec, DiscardKillsTheRightLanes)
{
   const char *fs = R"(
      precision mediump float;
      varying vec4 c;
      void main() {
         if (c.x < 0.5)
            discard;
         gl_FragColor = c * 2.0;
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   EXPECT_TRUE(p.fs->state.uses_discard);
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++)
      in.varyings[p.fs_in.at("c")].push_back(fvec((l % 3) * 0.4f, l, 1, 2));
   Result r = run(p.fs.get(), kLanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      bool kill = (l % 3) * 0.4f < 0.5f;
      EXPECT_EQ((r.killed >> l) & 1, kill ? 1u : 0u) << "lane " << l;
      if (!kill) {
         const Vec &o = r.out.at(FRAG_RESULT_COLOR)[l];
         EXPECT_EQ(bitsf(o[0]), (l % 3) * 0.4f * 2.0f);
         EXPECT_EQ(bitsf(o[1]), 2.0f * l);
      }
   }
}

TEST(Exec, UniformArrayWithIndirectIndexing)
{
   const char *vs = R"(
      attribute vec4 a;
      uniform vec4 arr[8];
      uniform float scale;
      varying vec4 r[2];
      void main() {
         r[0] = arr[int(a.x)] * scale;
         r[1] = arr[int(a.y)].yzwx + arr[3];
         gl_Position = a;
      }
   )";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   std::string d = disasm_code(p.vs.get());
   EXPECT_NE(d.find("C[A0"), std::string::npos) << d; /* LDC with A0 */
   Machine m;
   m.cb0.assign(64, 0);
   unsigned base = p.uniform_slot.at("arr");
   for (unsigned e = 0; e < 8; e++)
      for (unsigned c = 0; c < 4; c++)
         m.cb0[(base + e) * 4 + c] = fbits(10.0f * e + c);
   m.cb0[p.uniform_slot.at("scale") * 4] = fbits(-0.5f);
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++)
      in.attrs[p.attribute.at("a")].push_back(fvec(l % 8, 7 - (l % 8), 0, 1));
   Result r = run(p.vs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      unsigned i = l % 8, j = 7 - i;
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(bitsf(r.out.at(out_slot(p, "r", 0))[l][c]), (10.0f * i + c) * -0.5f);
         EXPECT_EQ(bitsf(r.out.at(out_slot(p, "r", 1))[l][c]),
                   (10.0f * j + (c + 1) % 4) + (30.0f + c));
      }
   }
}

TEST(Exec, HighRegisterPressure)
{
   /* 48 vec4 values live at once: the allocator must use the high bank
    * (registers >= 32, reached through the Sub unit). Small integers keep
    * every sum exact so the order of additions does not matter. */
   std::string vs = "attribute vec4 a;\nattribute vec4 b;\nvarying vec4 r;\nvoid main() {\n";
   const int N = 48;
   for (int i = 0; i < N; i++)
      vs += "  vec4 t" + std::to_string(i) + " = a * " + std::to_string(i + 1) + ".0 + b.wzyx * " +
            std::to_string(N - i) + ".0;\n";
   vs += "  vec4 s = vec4(0.0);\n";
   for (int i = N - 1; i >= 0; i--)
      vs += "  s = s + t" + std::to_string(i) + " * t" + std::to_string((i * 7) % N) + ";\n";
   vs += "  r = s;\n  gl_Position = a;\n}\n";
   CompiledProgram p = compile_glsl(vs, "");
   ASSERT_TRUE(p.vs) << p.error;
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++) {
      in.attrs[p.attribute.at("a")].push_back(fvec((int)l % 3 - 1, 1, 0, (int)l % 2));
      in.attrs[p.attribute.at("b")].push_back(fvec(0, 1, -1, (int)l % 4 - 2));
   }
   Result r = run(p.vs.get(), kLanes, in, Machine());
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      double a[4] = {(double)((int)l % 3 - 1), 1, 0, (double)((int)l % 2)};
      double b[4] = {0, 1, -1, (double)((int)l % 4 - 2)};
      double bw[4] = {b[3], b[2], b[1], b[0]};
      for (unsigned c = 0; c < 4; c++) {
         double t[N], s = 0;
         for (int i = 0; i < N; i++)
            t[i] = a[c] * (i + 1) + bw[c] * (N - i);
         for (int i = N - 1; i >= 0; i--)
            s = s + t[i] * t[(i * 7) % N];
         EXPECT_EQ(bitsf(r.out.at(p.vs_out.at("r"))[l][c]), (float)s) << "lane " << l << " " << c;
      }
   }
   EXPECT_GT(p.vs->state.num_regs, 32u) << "the test should need the high bank";
   printf("high pressure VS: %u registers, max pressure %u\n", p.vs->state.num_regs,
          p.vs->stats.max_pressure);
}

TEST(Exec, TextureSampleFetchAndSize)
{
   /* 4x4 RGBA32F texture, texel (x, y) = (x, y, 10x + y, 1); NEAREST */
   sim::Vram vram(1 << 16);
   const uint64_t base = 0x1000;
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 4; x++) {
         const float t[4] = {float(x), float(y), float(10 * x + y), 1.0f};
         vram.write(base + y * 64 + x * 16, t, 16, "test");
      }
   Machine m;
   bind_2d_texture(m, vram, VLG_FORMAT_R32G32B32A32_FLOAT, 4, 4, base, 16);

   const char *fs = R"(#version 300 es
      precision highp float;
      uniform sampler2D t;
      in vec2 uv;
      flat in ivec2 tc;
      out vec4 o[3];
      void main() {
         o[0] = texture(t, uv) * 2.0;
         o[1] = texelFetch(t, tc, 0) + textureLod(t, uv.yx, 0.0);
         o[2] = vec4(textureSize(t, 0), 0, 0);
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   EXPECT_EQ(p.fs->state.num_samplers, 1u);
   Inputs in;
   /* each quad samples the same texel with all four lanes (uniform LOD 0) */
   for (unsigned l = 0; l < kLanes; l++) {
      unsigned q = l / 4;
      in.varyings[p.fs_in.at("uv")].push_back(
         fvec((q + 0.5f) / 4.0f, ((q * 3) % 4 + 0.5f) / 4.0f, 0, 0));
      in.varyings[p.fs_in.at("tc")].push_back(ivec(l % 4, (l / 4) % 4, 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   auto texel = [](unsigned x, unsigned y, unsigned c) {
      const float t[4] = {float(x), float(y), float(10 * x + y), 1.0f};
      return t[c];
   };
   for (unsigned l = 0; l < kLanes; l++) {
      unsigned q = l / 4, x = q, y = (q * 3) % 4;
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0)[l][c]), 2.0f * texel(x, y, c)) << l;
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 1)[l][c]),
                   texel(l % 4, (l / 4) % 4, c) + texel(y, x, c))
            << l;
      }
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 2)[l][0]), 4.0f); /* float(textureSize) */
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 2)[l][1]), 4.0f);
   }
}

TEST(Exec, TextureGather)
{
   /* textureGather / textureGatherOffset (ARB_texture_gather, GLSL 1.30) on
    * a 5x3 RGBA32F texture, texel (x, y) = (x, y, 10x + y, 100 + x*y),
    * REPEAT in s, CLAMP_TO_EDGE in t, NEAREST filters (gather ignores them);
    * the expected texels come from the GL ES 3.1 section 8.14.2 footprint
    * computed here: i0 = floor(u - 0.5), j0 = floor(v - 0.5), result
    * (T(i0,j1), T(i1,j1), T(i1,j0), T(i0,j0)). */
   const int W = 5, H = 3;
   sim::Vram vram(1 << 16);
   const uint64_t base = 0x1000;
   auto texel = [](int x, int y, unsigned c) {
      const float t[4] = {float(x), float(y), float(10 * x + y), 100.0f + x * y};
      return t[c];
   };
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const float t[4] = {texel(x, y, 0), texel(x, y, 1), texel(x, y, 2), texel(x, y, 3)};
         vram.write(base + y * W * 16 + x * 16, t, 16, "test");
      }
   Machine m;
   sim::TextureUnit &u = bind_2d_texture(m, vram, VLG_FORMAT_R32G32B32A32_FLOAT, W, H, base, 16);
   u.samp.wrap_s = VLG_TEX_WRAP_REPEAT;

   const char *fs = R"(#version 130
      #extension GL_ARB_texture_gather : require
      uniform sampler2D t;
      in vec2 uv;
      out vec4 o[2];
      void main() {
         o[0] = textureGather(t, uv);
         o[1] = textureGatherOffset(t, uv, ivec2(-1, 1));
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   Inputs in;
   std::vector<std::array<float, 2>> UV(kLanes);
   Rng rng(5);
   for (unsigned l = 0; l < kLanes; l++) {
      UV[l] = {rng.next(-1.3f, 2.2f), rng.next(-0.4f, 1.4f)};
      in.varyings[p.fs_in.at("uv")].push_back(fvec(UV[l][0], UV[l][1], 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   auto repeat = [](int i, int n) { return ((i % n) + n) % n; };
   auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
   for (unsigned l = 0; l < kLanes; l++)
      for (int k = 0; k < 2; k++) {
         /* offsets are added in texels (the TOFF Sub unit) */
         const int ox = k ? -1 : 0, oy = k ? 1 : 0;
         const int i0 = (int)std::floor(UV[l][0] * W - 0.5f) + ox;
         const int j0 = (int)std::floor(UV[l][1] * H - 0.5f) + oy;
         const int xs[2] = {repeat(i0, W), repeat(i0 + 1, W)};
         const int ys[2] = {clamp(j0, H), clamp(j0 + 1, H)};
         const float want[4] = {texel(xs[0], ys[1], 0), texel(xs[1], ys[1], 0),
                                texel(xs[1], ys[0], 0), texel(xs[0], ys[0], 0)};
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + k)[l][c]), want[c])
               << "lane " << l << " o[" << k << "]." << "xyzw"[c] << " uv " << UV[l][0] << ","
               << UV[l][1];
      }

   /* The texture unit's TG4 directly: every component (through a swizzle
    * with ZERO), a shadow gather, and the faults. */
   u.tex.swizzle_r = VLG_SWIZZLE_Z; /* B */
   u.tex.swizzle_g = VLG_SWIZZLE_X;
   u.tex.swizzle_b = VLG_SWIZZLE_ZERO;
   u.tex.swizzle_a = VLG_SWIZZLE_W;
   sim::TexLaneIn lin[4] = {};
   uint32_t out[4][4];
   const float s0 = 0.45f, t0 = 0.5f; /* i0 = 1, j0 = 1 */
   for (unsigned c = 0; c < 4; c++) {
      lin[c].coord[0] = fbits(s0);
      lin[c].coord[1] = fbits(t0);
      lin[c].coord[3] = c;
   }
   sim::texture_sample(vram, u.tex, u.samp, {sim::TexOp::Tg4, false}, false, 4, 0xf, lin, out,
                       nullptr);
   const unsigned src[4] = {2, 0, 4, 3}; /* 4: ZERO */
   const int fx[4] = {1, 2, 2, 1}, fy[4] = {2, 2, 1, 1};
   for (unsigned c = 0; c < 4; c++)
      for (unsigned i = 0; i < 4; i++)
         EXPECT_EQ(bitsf(out[c][i]), src[c] == 4 ? 0.0f : texel(fx[i], fy[i], src[c]))
            << "component " << c << " texel " << i;

   /* shadow: depth-like compare of the red channel (x) against 1.5, LESS */
   u.tex.swizzle_r = VLG_SWIZZLE_X;
   u.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   u.samp.compare_func = VLG_COMPARE_FUNC_LESS;
   lin[0].coord[3] = fbits(1.5f);
   sim::texture_sample(vram, u.tex, u.samp, {sim::TexOp::Tg4, true}, false, 1, 0x1, lin, out,
                       nullptr);
   for (unsigned i = 0; i < 4; i++)
      EXPECT_EQ(bitsf(out[0][i]), 1.5f < texel(fx[i], fy[i], 0) ? 1.0f : 0.0f) << i;

   lin[0].coord[3] = 4;
   EXPECT_THROW(sim::texture_sample(vram, u.tex, u.samp, {sim::TexOp::Tg4, false}, false, 1, 0x1,
                                    lin, out, nullptr),
                sim::GpuFault);
   u.tex.target = VLG_TEXTURE_TARGET_3D;
   u.tex.depth = 1;
   lin[0].coord[3] = 0;
   EXPECT_THROW(sim::texture_sample(vram, u.tex, u.samp, {sim::TexOp::Tg4, false}, false, 1, 0x1,
                                    lin, out, nullptr),
                sim::GpuFault);
}

namespace {

/* Unit 0 of @m: an R32_FLOAT texture of @target, w x h x d (d: 3D depth or
 * layers) with @levels levels (each level's rows packed, one level after the
 * other from VRAM 0x1000), texel (x, y, z) of level L = tex_value(L, x, y, z);
 * NEAREST filters with NEAREST mipmapping, REPEAT on every axis. */
float
tex_value(int level, int x, int y, int z)
{
   return float(1000 * level + 100 * z + 10 * y + x);
}

sim::TextureUnit &
bind_r32f_texture(Machine &m, sim::Vram &vram, vlg_texture_target target, unsigned w, unsigned h,
                  unsigned d, unsigned levels)
{
   sim::TextureUnit &u = bind_2d_texture(m, vram, VLG_FORMAT_R32_FLOAT, w, h, 0x1000, 4);
   u.tex.target = target;
   u.tex.depth = target == VLG_TEXTURE_TARGET_3D ? d : 1;
   u.tex.array_size = target == VLG_TEXTURE_TARGET_3D ? 1 : d;
   u.tex.num_levels = levels;
   u.tex.last_level = levels - 1;
   uint32_t off = 0;
   for (unsigned l = 0; l < levels; l++) {
      const unsigned lw = std::max(1u, w >> l), lh = std::max(1u, h >> l);
      const unsigned ld = target == VLG_TEXTURE_TARGET_3D ? std::max(1u, d >> l) : d;
      u.tex.level[l].offset = off;
      u.tex.level[l].row_pitch = lw * 4;
      u.tex.level[l].layer_stride = lw * lh * 4;
      for (unsigned z = 0; z < ld; z++)
         for (unsigned y = 0; y < lh; y++)
            for (unsigned x = 0; x < lw; x++) {
               const float v = tex_value(l, x, y, z);
               vram.write(u.tex.address + off + (z * lh + y) * lw * 4 + x * 4, &v, 4, "test");
            }
      off += lw * lh * ld * 4;
   }
   u.samp.wrap_s = u.samp.wrap_t = u.samp.wrap_r = VLG_TEX_WRAP_REPEAT;
   u.samp.min_mip_filter = VLG_MIP_FILTER_NEAREST;
   return u;
}

/* GL ES 3.0.6 section 3.8.10 with NEAREST and REPEAT: the texel index of
 * coordinate @s with texel offset @off in a level of @size texels */
int
nearest_repeat(float s, int size, int off)
{
   const int i = (int)std::floor(s * (float)size) + off;
   return ((i % size) + size) % size;
}

} // namespace

/* The *Offset texture functions (GLSL ES 3.00 section 8.8) with a LOD
 * above 0: the offset is in texels of the selected level (GL ES 3.0.6
 * section 3.8.10), in every way the LOD is chosen (explicit LOD, projective
 * with LOD, gradients, fragment derivatives); 2D-array offsets never move
 * the layer, 3D ones move the slice. Lowering the offset to the coordinates
 * (offset / level-0 size) reads other texels at levels 1..3. */
TEST(Exec, TextureOffsetsAreTexelsOfTheSelectedLevel)
{
   sim::Vram vram(1 << 16);
   Machine m;
   bind_r32f_texture(m, vram, VLG_TEXTURE_TARGET_2D, 16, 16, 1, 5);
   const char *fs = R"(#version 300 es
      precision highp float;
      uniform highp sampler2D t;
      in vec2 uv;
      flat in float lod;
      flat in float g;
      out vec4 o[4];
      void main() {
         o[0] = textureLodOffset(t, uv, lod, ivec2(3, -1));
         o[1] = textureProjLodOffset(t, vec3(2.0 * uv, 2.0), lod, ivec2(-8, 7));
         o[2] = textureGradOffset(t, uv, vec2(g, 0.0), vec2(0.0, g), ivec2(1, 2));
         o[3] = textureOffset(t, uv, ivec2(-2, 5));
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   Inputs in;
   Rng rng(11);
   std::vector<std::array<float, 2>> UV(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      const unsigned q = l / 4, level = q; /* quad q: level q */
      /* quad lanes (x, y), (x+1, y), (x, y+1), (x+1, y+1): d/dx = d/dy =
       * 2^level / 16, so rho = 2^level texels per pixel, lambda = level */
      const float step = float(1u << level) / 16.0f;
      if (l % 4 == 0)
         UV[l] = {rng.next(0.0f, 0.9f), rng.next(0.0f, 0.9f)};
      else
         UV[l] = {UV[l - l % 4][0] + (l & 1) * step, UV[l - l % 4][1] + ((l >> 1) & 1) * step};
      in.varyings[p.fs_in.at("uv")].push_back(fvec(UV[l][0], UV[l][1], 0, 0));
      in.varyings[p.fs_in.at("lod")].push_back(fvec(float(level), 0, 0, 0));
      in.varyings[p.fs_in.at("g")].push_back(fvec(step, 0, 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   const int offs[4][2] = {{3, -1}, {-8, 7}, {1, 2}, {-2, 5}};
   for (unsigned l = 0; l < kLanes; l++) {
      const int level = int(l / 4), size = 16 >> level;
      for (unsigned k = 0; k < 4; k++) {
         const float want = tex_value(level, nearest_repeat(UV[l][0], size, offs[k][0]),
                                      nearest_repeat(UV[l][1], size, offs[k][1]), 0);
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + k)[l][0]), want)
            << "lane " << l << " level " << level << " o[" << k << "] uv " << UV[l][0] << ","
            << UV[l][1];
      }
   }

   /* 2D array: the layer coordinate is not offset; 3D: the slice is */
   for (int three_d = 0; three_d < 2; three_d++) {
      const vlg_texture_target target =
         three_d ? VLG_TEXTURE_TARGET_3D : VLG_TEXTURE_TARGET_2D_ARRAY;
      bind_r32f_texture(m, vram, target, 8, 8, 8, 3);
      const std::string sampler = three_d ? "sampler3D" : "sampler2DArray";
      const std::string offset = three_d ? "ivec3(2, -3, 1)" : "ivec2(2, -3)";
      const std::string fs3 = "#version 300 es\n"
                              "precision highp float;\n"
                              "uniform highp " +
                              sampler +
                              " t;\n"
                              "in vec3 uvw;\n"
                              "flat in float lod;\n"
                              "out vec4 o;\n"
                              "void main() { o = textureLodOffset(t, uvw, lod, " +
                              offset + "); }\n";
      CompiledProgram p3 = compile_glsl("", fs3);
      ASSERT_TRUE(p3.fs) << p3.error;
      Inputs in3;
      std::vector<std::array<float, 3>> P(kLanes);
      for (unsigned l = 0; l < kLanes; l++) {
         P[l] = {rng.next(0.0f, 1.0f), rng.next(0.0f, 1.0f),
                 three_d ? rng.next(0.0f, 1.0f) : float(l % 8)};
         in3.varyings[p3.fs_in.at("uvw")].push_back(fvec(P[l][0], P[l][1], P[l][2], 0));
         in3.varyings[p3.fs_in.at("lod")].push_back(fvec(float(l % 3), 0, 0, 0));
      }
      Result r3 = run(p3.fs.get(), kLanes, in3, m);
      ASSERT_TRUE(r3.ok) << r3.fault;
      for (unsigned l = 0; l < kLanes; l++) {
         const int level = int(l % 3), size = 8 >> level;
         const int z = three_d ? nearest_repeat(P[l][2], size, 1) : int(l % 8);
         const float want = tex_value(level, nearest_repeat(P[l][0], size, 2),
                                      nearest_repeat(P[l][1], size, -3), z);
         EXPECT_EQ(bitsf(r3.out.at(FRAG_RESULT_DATA0)[l][0]), want)
            << (three_d ? "3D" : "2D array") << " lane " << l << " level " << level;
      }
   }
}

/* Rectangle textures (GL 3.1 sampler2DRect) are sampled in texels: the
 * driver's sampler says normalized_coords = false for them, as st/mesa
 * asks (PIPE_CAP_TEXRECT), so the compiler must not normalise their
 * coordinates. texture, textureProj and textureOffset. */
TEST(Exec, RectangleTexturesAreSampledInTexels)
{
   sim::Vram vram(1 << 16);
   Machine m;
   sim::TextureUnit &u = bind_r32f_texture(m, vram, VLG_TEXTURE_TARGET_2D, 13, 7, 1, 1);
   u.samp.normalized_coords = false;
   u.samp.wrap_s = u.samp.wrap_t = u.samp.wrap_r = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   u.samp.min_mip_filter = VLG_MIP_FILTER_NONE;
   const char *fs = R"(#version 140
      uniform sampler2DRect t;
      in vec2 st;
      out vec4 o[3];
      void main() {
         o[0] = texture(t, st);
         o[1] = textureProj(t, vec3(st * 4.0, 4.0));
         o[2] = textureOffset(t, st, ivec2(-3, 2));
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   Inputs in;
   Rng rng(3);
   std::vector<std::array<float, 2>> ST(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      ST[l] = {rng.next(0.0f, 13.0f), rng.next(0.0f, 7.0f)};
      in.varyings[p.fs_in.at("st")].push_back(fvec(ST[l][0], ST[l][1], 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   /* GL: i = clamp(floor(s + offset), 0, w - 1) for unnormalized coordinates */
   auto texel = [](float s, float t, int ox, int oy) {
      const int i = std::min(std::max((int)std::floor(s + ox), 0), 12);
      const int j = std::min(std::max((int)std::floor(t + oy), 0), 6);
      return tex_value(0, i, j, 0);
   };
   for (unsigned l = 0; l < kLanes; l++) {
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0)[l][0]), texel(ST[l][0], ST[l][1], 0, 0)) << l;
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 1)[l][0]), texel(ST[l][0], ST[l][1], 0, 0)) << l;
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 2)[l][0]), texel(ST[l][0], ST[l][1], -3, 2))
         << l;
   }
}

TEST(Exec, StencilTexturing)
{
   /* ARB_stencil_texturing: a usampler2D over the X24S8_UINT stencil view of
    * a Z24_UNORM_S8_UINT surface returns the stencil byte; texel (x, y)
    * holds depth 0x123456 + x and stencil 17 * x + 3 * y (+ 1). */
   sim::Vram vram(1 << 16);
   const uint64_t base = 0x1000;
   auto stencil = [](unsigned x, unsigned y) { return (17u * x + 3u * y + 1u) & 0xffu; };
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 4; x++) {
         const uint32_t w = (stencil(x, y) << 24) | (0x123456u + x);
         vram.write(base + y * 16 + x * 4, &w, 4, "test");
      }
   Machine m;
   bind_2d_texture(m, vram, VLG_FORMAT_X24S8_UINT, 4, 4, base, 4);

   const char *fs = R"(#version 300 es
      precision highp float;
      uniform highp usampler2D t;
      flat in ivec2 tc;
      in vec2 uv;
      out uvec4 o[2];
      void main() {
         o[0] = texelFetch(t, tc, 0);
         o[1] = textureLod(t, uv, 0.0);
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++) {
      in.varyings[p.fs_in.at("tc")].push_back(ivec(l % 4, l / 4, 0, 0));
      in.varyings[p.fs_in.at("uv")].push_back(fvec((3 - l % 4 + 0.5f) / 4, (l / 4 + 0.5f) / 4, 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      EXPECT_EQ(r.out.at(FRAG_RESULT_DATA0)[l][0], stencil(l % 4, l / 4)) << l;
      EXPECT_EQ(r.out.at(FRAG_RESULT_DATA0 + 1)[l][0], stencil(3 - l % 4, l / 4)) << l;
   }
}

TEST(Exec, CubeMapArray)
{
   /* ARB_texture_cube_map_array: samplerCubeArray and samplerCubeArrayShadow
    * (texture, textureLod, textureGather, textureSize) on 3 cubes of 2x2
    * R32F faces, layer-face 6c + f texel (x, y) = 1000c + 100f + 10y + x.
    * Expected texels from GL 4.0 section 3.8.9: the face and (s, t) from
    * the major axis (Table 3.21), the cube clamp(floor(q + 0.5), 0, 2). */
   sim::Vram vram(1 << 16);
   const uint64_t base = 0x1000;
   const unsigned cubes = 3;
   auto texel = [](unsigned c, unsigned f, unsigned x, unsigned y) {
      return float(1000 * c + 100 * f + 10 * y + x);
   };
   for (unsigned c = 0; c < cubes; c++)
      for (unsigned f = 0; f < 6; f++)
         for (unsigned y = 0; y < 2; y++)
            for (unsigned x = 0; x < 2; x++) {
               const float v = texel(c, f, x, y);
               vram.write(base + (6 * c + f) * 16 + y * 8 + x * 4, &v, 4, "test");
            }
   Machine m;
   sim::TextureUnit &u = bind_2d_texture(m, vram, VLG_FORMAT_R32_FLOAT, 2, 2, base, 4);
   u.tex.target = VLG_TEXTURE_TARGET_CUBE_ARRAY;
   u.tex.array_size = 6 * cubes;
   u.samp.seamless_cube_map = true;

   /* directions with minor components +-0.5: s, t = 0.25 or 0.75 */
   struct Dir {
      float rx, ry, rz;
      unsigned face, x, y;
   };
   const Dir dirs[6] = {
      {1.0f, -0.5f, 0.5f, 0, 0, 1},  /* +X: sc = -rz, tc = -ry */
      {-1.0f, -0.5f, 0.5f, 1, 1, 1}, /* -X: sc = +rz, tc = -ry */
      {0.5f, 1.0f, -0.5f, 2, 1, 0},  /* +Y: sc = +rx, tc = +rz */
      {0.5f, -1.0f, -0.5f, 3, 1, 1}, /* -Y: sc = +rx, tc = -rz */
      {-0.5f, 0.5f, 1.0f, 4, 0, 0},  /* +Z: sc = +rx, tc = -ry */
      {-0.5f, 0.5f, -1.0f, 5, 1, 0}, /* -Z: sc = -rx, tc = -ry */
   };
   const float qs[5] = {0.2f, 0.8f, 1.6f, 3.0f, -1.0f};
   const unsigned cube_of_q[5] = {0, 1, 2, 2, 0};

   const char *fs = R"(#version 130
      #extension GL_ARB_texture_cube_map_array : require
      #extension GL_ARB_texture_gather : require
      uniform samplerCubeArray t;
      in vec4 p;
      out vec4 o[4];
      void main() {
         o[0] = texture(t, p);
         o[1] = textureLod(t, p, 0.0);
         o[2] = textureGather(t, vec4(0.0, 0.0, 1.0, p.w));
         o[3] = vec4(textureSize(t, 0), 0.0);
      }
   )";
   CompiledProgram prog = compile_glsl("", fs);
   ASSERT_TRUE(prog.fs) << prog.error;
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++) {
      const Dir &d = dirs[l % 6];
      in.varyings[prog.fs_in.at("p")].push_back(fvec(d.rx, d.ry, d.rz, qs[l % 5]));
   }
   Result r = run(prog.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      const Dir &d = dirs[l % 6];
      const unsigned c = cube_of_q[l % 5];
      const float want = texel(c, d.face, d.x, d.y);
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0)[l][0]), want) << "lane " << l;
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 1)[l][0]), want) << "lane " << l;
      /* gather at the centre of +Z (s = t = 0.5): texels (0,1), (1,1), (1,0), (0,0) */
      const float g[4] = {texel(c, 4, 0, 1), texel(c, 4, 1, 1), texel(c, 4, 1, 0),
                          texel(c, 4, 0, 0)};
      for (unsigned k = 0; k < 4; k++)
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 2)[l][k]), g[k]) << "lane " << l;
      /* textureSize: (2, 2, cubes) */
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 3)[l][0]), 2.0f);
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 3)[l][1]), 2.0f);
      EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 3)[l][2]), float(cubes));
   }

   /* samplerCubeArrayShadow: texture(t, p, ref) with LEQUAL, ref = the
    * texel's value -/+ 0.5: passes (1) below it, fails (0) above it */
   const char *shadow_fs = R"(#version 130
      #extension GL_ARB_texture_cube_map_array : require
      uniform samplerCubeArrayShadow t;
      in vec4 p;
      in float ref;
      out vec4 o;
      void main() { o = vec4(texture(t, p, ref)); }
   )";
   CompiledProgram sp = compile_glsl("", shadow_fs);
   ASSERT_TRUE(sp.fs) << sp.error;
   u.samp.compare_mode = VLG_COMPARE_MODE_R_TO_TEXTURE;
   u.samp.compare_func = VLG_COMPARE_FUNC_LEQUAL;
   Inputs sin;
   for (unsigned l = 0; l < kLanes; l++) {
      const Dir &d = dirs[l % 6];
      const float want = texel(cube_of_q[l % 5], d.face, d.x, d.y);
      sin.varyings[sp.fs_in.at("p")].push_back(fvec(d.rx, d.ry, d.rz, qs[l % 5]));
      sin.varyings[sp.fs_in.at("ref")].push_back(fvec(want + (l & 1 ? 0.5f : -0.5f), 0, 0, 0));
   }
   Result sr = run(sp.fs.get(), kLanes, sin, m);
   ASSERT_TRUE(sr.ok) << sr.fault;
   for (unsigned l = 0; l < kLanes; l++)
      EXPECT_EQ(bitsf(sr.out.at(FRAG_RESULT_DATA0)[l][0]), l & 1 ? 0.0f : 1.0f) << "lane " << l;
}

TEST(Exec, Es2gearsVertexShader)
{
   std::string dir = VLG_COMPILER_TESTS_DIR "/data/";
   std::ifstream f(dir + "es2gears.vert");
   std::stringstream ss;
   ss << f.rdbuf();
   CompiledProgram p = compile_glsl(ss.str(), "");
   ASSERT_TRUE(p.vs) << p.error;
   /* column-major matrices as st/mesa stores them: slot k = column k */
   float mvp[16], nm[16];
   for (int i = 0; i < 16; i++) {
      mvp[i] = 0.1f * (i + 1) - (i % 5 == 0 ? 1.0f : 0.0f);
      nm[i] = (i % 5 == 0) ? 1.0f : 0.05f * i;
   }
   const float light[4] = {5.0f, 5.0f, 10.0f, 0.0f}, mat[4] = {0.8f, 0.1f, 0.0f, 1.0f};
   Machine m;
   m.cb0.assign(128, 0);
   for (int k = 0; k < 4; k++)
      for (int c = 0; c < 4; c++) {
         m.cb0[(p.uniform_slot.at("ModelViewProjectionMatrix") + k) * 4 + c] =
            fbits(mvp[k * 4 + c]);
         m.cb0[(p.uniform_slot.at("NormalMatrix") + k) * 4 + c] = fbits(nm[k * 4 + c]);
      }
   for (int c = 0; c < 4; c++) {
      m.cb0[p.uniform_slot.at("LightSourcePosition") * 4 + c] = fbits(light[c]);
      m.cb0[p.uniform_slot.at("MaterialColor") * 4 + c] = fbits(mat[c]);
   }
   Inputs in;
   Rng rng(7);
   std::vector<std::array<float, 3>> P(kLanes), N(kLanes);
   for (unsigned l = 0; l < kLanes; l++) {
      for (int c = 0; c < 3; c++) {
         P[l][c] = rng.next(-3, 3);
         N[l][c] = rng.next(-1, 1);
      }
      in.attrs[p.attribute.at("position")].push_back(fvec(P[l][0], P[l][1], P[l][2], 0));
      in.attrs[p.attribute.at("normal")].push_back(fvec(N[l][0], N[l][1], N[l][2], 0));
   }
   Result r = run(p.vs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      double n4[4] = {N[l][0], N[l][1], N[l][2], 1}, p4[4] = {P[l][0], P[l][1], P[l][2], 1};
      double tn[3] = {0, 0, 0}, pos[4] = {0, 0, 0, 0};
      for (int row = 0; row < 4; row++)
         for (int k = 0; k < 4; k++) {
            if (row < 3)
               tn[row] += nm[k * 4 + row] * n4[k];
            pos[row] += mvp[k * 4 + row] * p4[k];
         }
      double ln = std::sqrt(tn[0] * tn[0] + tn[1] * tn[1] + tn[2] * tn[2]);
      double ll = std::sqrt(light[0] * light[0] + light[1] * light[1] + light[2] * light[2]);
      double diffuse =
         std::max(0.0, (tn[0] * light[0] + tn[1] * light[1] + tn[2] * light[2]) / (ln * ll));
      double color[4] = {(0.2 + diffuse) * mat[0], (0.2 + diffuse) * mat[1],
                         (0.2 + diffuse) * mat[2], mat[3]};
      for (int c = 0; c < 4; c++) {
         EXPECT_CLOSE(bitsf(r.out.at(VARYING_SLOT_POS)[l][c]), (float)pos[c], 1e-5f, 1e-5f,
                      "lane " << l << " position."
                              << "xyzw"[c]);
         EXPECT_CLOSE(bitsf(r.out.at(p.vs_out.at("Color"))[l][c]), (float)color[c], 1e-5f, 1e-5f,
                      "lane " << l << " Color."
                              << "xyzw"[c]);
      }
   }
}

TEST(Exec, EveryOptimisationSwitchKeepsTheResults)
{
   /* The same shader with each optimisation off computes the same values. */
   const char *vs = R"(
      attribute vec4 a;
      uniform vec4 k[4];
      varying vec4 r;
      void main() {
         vec4 acc = vec4(0.0);
         for (int i = 0; i < 4; i++)
            acc += k[i] * a[i] + vec4(0.5, 1.5, 2.5, 3.5);
         r = acc * acc.wzyx + a;
         gl_Position = a;
      }
   )";
   /* every switch vlgpu-cc has (vlg_corpus.cpp's table), one at a time */
   std::vector<vlg_compile_options> variants;
   for (const Config &c : switch_configs())
      variants.push_back(c.opts);
   ASSERT_GE(variants.size(), 9u);
   std::vector<std::vector<Vec>> results;
   for (const vlg_compile_options &o : variants) {
      CompiledProgram p = compile_glsl(vs, "", o);
      ASSERT_TRUE(p.vs) << p.error;
      Machine m;
      m.cb0.assign(64, 0);
      for (unsigned e = 0; e < 4; e++)
         for (unsigned c = 0; c < 4; c++)
            m.cb0[(p.uniform_slot.at("k") + e) * 4 + c] = fbits(e + 0.25f * c);
      Inputs in;
      for (unsigned l = 0; l < kLanes; l++)
         in.attrs[p.attribute.at("a")].push_back(fvec(l, -1, 0.5f, 2));
      Result r = run(p.vs.get(), kLanes, in, m);
      ASSERT_TRUE(r.ok) << r.fault;
      results.push_back(r.out.at(p.vs_out.at("r")));
   }
   for (unsigned l = 0; l < kLanes; l++) {
      float a[4] = {(float)l, -1, 0.5f, 2};
      float acc[4] = {0, 0, 0, 0};
      for (int i = 0; i < 4; i++)
         for (int c = 0; c < 4; c++)
            acc[c] += (i + 0.25f * c) * a[i] + (0.5f + c);
      for (unsigned v = 0; v < results.size(); v++)
         for (int c = 0; c < 4; c++)
            EXPECT_CLOSE(bitsf(results[v][l][c]), acc[c] * acc[3 - c] + a[c], 1e-6f, 1e-5f,
                         "variant " << v << " lane " << l << " comp " << c);
   }
}

TEST(Exec, LongSumsSplitIntoPartialSums)
{
   /* 24 products summed (split_long_sums: 4 partial sums); small integers so
    * every ordering of the sum is exact and the results must match bit for
    * bit, with the pass and without it */
   std::string body = "r = ";
   for (unsigned i = 0; i < 24; i++)
      body +=
         std::string(i ? " + " : "") + "a." + "xyzw"[i % 4] + " * k[" + std::to_string(i) + "]";
   std::string vs = "attribute vec4 a;\nuniform vec4 k[24];\nvarying vec4 r;\n"
                    "void main() {\n" +
                    body + ";\ngl_Position = a;\n}\n";
   for (bool reassoc : {true, false}) {
      vlg_compile_options o = {};
      o.no_reassoc = !reassoc;
      CompiledProgram p = compile_glsl(vs, "", o);
      ASSERT_TRUE(p.vs) << p.error;
      Machine m;
      m.cb0.assign(4 * 64, 0);
      float K[24][4];
      for (unsigned e = 0; e < 24; e++)
         for (unsigned c = 0; c < 4; c++) {
            K[e][c] = (float)((int)(e * 7 + c * 3) % 11 - 5);
            m.cb0[(p.uniform_slot.at("k") + e) * 4 + c] = fbits(K[e][c]);
         }
      Inputs in;
      for (unsigned l = 0; l < kLanes; l++)
         in.attrs[p.attribute.at("a")].push_back(fvec(l, -3.0f + l, 2.0f, -1.0f * (l % 5)));
      Result r = run(p.vs.get(), kLanes, in, m);
      ASSERT_TRUE(r.ok) << r.fault;
      for (unsigned l = 0; l < kLanes; l++) {
         float a[4] = {(float)l, -3.0f + l, 2.0f, -1.0f * (l % 5)};
         for (unsigned c = 0; c < 4; c++) {
            float want = 0;
            for (unsigned i = 0; i < 24; i++)
               want += a[i % 4] * K[i][c];
            EXPECT_EQ(bitsf(r.out.at(p.vs_out.at("r"))[l][c]), want)
               << "reassoc " << reassoc << " lane " << l << " comp " << c;
         }
      }
   }
}

TEST(Exec, UniformBlocks)
{
   /* std140: c at byte 0, f at 16, arr[4] at 32..95 */
   const char *fs = R"(#version 300 es
      precision highp float;
      layout(std140) uniform Block { vec4 c; float f; vec4 arr[4]; };
      flat in int i;
      out vec4 o;
      void main() { o = c * f + arr[i].wzyx; }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   EXPECT_EQ(p.fs->buffers_used, 1u << 1); /* block 0 = constant buffer 1 = B1 */
   sim::Vram vram(1 << 16);
   const uint64_t base = 0x400;
   float data[24] = {1, 2, 3, 4, 0.5f, 0, 0, 0};
   for (int e = 0; e < 4; e++)
      for (int c = 0; c < 4; c++)
         data[8 + e * 4 + c] = 100.0f * e + c;
   vram.write(base, data, sizeof(data), "test");
   Machine m;
   m.vram = &vram;
   m.buffers[1] = sim::BufferSlot{base, sizeof(data)};
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++)
      in.varyings[p.fs_in.at("i")].push_back(ivec(l % 4, 0, 0, 0));
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++)
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0)[l][c]),
                   data[c] * 0.5f + (100.0f * (l % 4) + (3 - c)))
            << "lane " << l << " comp " << c;
}

TEST(Exec, SamplerAndBlockArraysIndexedAtRunTime)
{
   /* EXT_gpu_shader5 (GLSL ES 3.20 sections 4.1.7.1, 4.3.9): sampler and
    * uniform block arrays indexed by a dynamically uniform expression. TEX
    * units and LDB slots are instruction fields, so the compiler branches to
    * one constant-index copy per element (vlg_nir_indexing.cpp). Three
    * 2x2 RGBA32F textures, texel (x, y) of unit k = (k, x, y, 100k + 10x +
    * y); three blocks, block k's v = (k + 1, 2k, -k, 0.5). The index varies
    * per quad (each quad's lanes agree, as dynamically uniform indexing
    * needs for the derivatives of texture()); every lane must read the
    * element its own index names. */
   sim::Vram vram(1 << 16);
   Machine m;
   m.vram = &vram;
   m.num_units = 3;
   auto texel = [](unsigned k, unsigned x, unsigned y) {
      return std::array<float, 4>{float(k), float(x), float(y), 100.0f * k + 10.0f * x + y};
   };
   for (unsigned k = 0; k < 3; k++) {
      const uint64_t base = 0x1000 + 0x100 * k;
      for (unsigned y = 0; y < 2; y++)
         for (unsigned x = 0; x < 2; x++)
            vram.write(base + y * 32 + x * 16, texel(k, x, y).data(), 16, "test");
      sim::TextureUnit &u = m.units[k];
      u.valid = true;
      VLG_TEXTURE_init(&u.tex);
      u.tex.target = VLG_TEXTURE_TARGET_2D;
      u.tex.format = VLG_FORMAT_R32G32B32A32_FLOAT;
      u.tex.width = u.tex.height = 2;
      u.tex.address = base;
      u.tex.level[0].row_pitch = 32;
      u.tex.level[0].layer_stride = 64;
      VLG_SAMPLER_init(&u.samp);
      u.samp.wrap_s = u.samp.wrap_t = u.samp.wrap_r = VLG_TEX_WRAP_CLAMP_TO_EDGE;
      u.samp.min_img_filter = u.samp.mag_img_filter = VLG_TEX_FILTER_NEAREST;
   }
   auto block = [](unsigned k) {
      return std::array<float, 4>{k + 1.0f, 2.0f * k, -float(k), 0.5f};
   };
   for (unsigned k = 0; k < 3; k++) {
      const uint64_t base = 0x2000 + 0x100 * k;
      vram.write(base, block(k).data(), 16, "test");
      m.buffers[k + 1] = sim::BufferSlot{base, 16}; /* block k = constant buffer k + 1 */
   }

   const char *fs = R"(#version 310 es
      #extension GL_EXT_gpu_shader5 : require
      precision highp float;
      uniform sampler2D t[3];
      layout(std140) uniform B { vec4 v; } blk[3];
      flat in int i;
      in vec2 uv;
      out vec4 o[3];
      void main() {
         o[0] = texture(t[i], uv);
         o[1] = blk[i].v * 2.0;
         o[2] = texelFetch(t[i], ivec2(1, 1), 0) + vec4(textureSize(t[i], 0), 0, 0);
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   EXPECT_EQ(p.fs->buffers_used, 0xeu); /* B1..B3 */
   EXPECT_EQ(p.fs->state.num_samplers, 3u);
   Inputs in;
   for (unsigned l = 0; l < kLanes; l++) {
      const unsigned q = l / 4, x = l & 1, y = (l >> 1) & 1;
      in.varyings[p.fs_in.at("i")].push_back(ivec(int(q % 3), 0, 0, 0));
      in.varyings[p.fs_in.at("uv")].push_back(fvec((x + 0.5f) / 2, (y + 0.5f) / 2, 0, 0));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   for (unsigned l = 0; l < kLanes; l++) {
      const unsigned k = (l / 4) % 3, x = l & 1, y = (l >> 1) & 1;
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0)[l][c]), texel(k, x, y)[c])
            << "lane " << l << " comp " << c;
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 1)[l][c]), 2.0f * block(k)[c])
            << "lane " << l << " comp " << c;
         /* texelFetch and textureSize (ops without a sampler) too */
         EXPECT_EQ(bitsf(r.out.at(FRAG_RESULT_DATA0 + 2)[l][c]),
                   texel(k, 1, 1)[c] + (c < 2 ? 2.0f : 0.0f))
            << "lane " << l << " comp " << c;
      }
   }
}

TEST(Exec, Int64ArithmeticOnThirtyTwoBitRegisters)
{
   /* ARB_gpu_shader_int64: nir_lower_int64 and vlg_nir_64bit.cpp make every
    * 64-bit value a pair of 32-bit components; the expected values are the
    * host's int64_t/uint64_t arithmetic on the same inputs. Inputs: a flat
    * ivec4 (x, y: one int64 as low/high halves; z, w: another) and a
    * uniform int64 (a 64-bit uniform load). */
   const char *fs = R"(#version 150
      #extension GL_ARB_gpu_shader_int64 : require
      flat in ivec4 v;
      uniform int64_t k;
      out ivec4 o[4];
      void main() {
         int64_t a = packInt2x32(v.xy), b = packInt2x32(v.zw);
         uint64_t ua = uint64_t(a), ub = uint64_t(b);
         o[0] = ivec4(unpackInt2x32(a * b + k), unpackInt2x32(a / (b | 1l)));
         o[1] = ivec4(unpackUint2x32(ua >> 7 ^ ub << 13), unpackUint2x32(ua % (ub | 1ul)));
         o[2] = ivec4(a < b ? 1 : 0, ua < ub ? 1 : 0, int(a >> 40), int(max(a, b) == a));
         o[3] = ivec4(unpackInt2x32(abs(a) - b), unpackInt2x32(-a));
      }
   )";
   CompiledProgram p = compile_glsl("", fs);
   ASSERT_TRUE(p.fs) << p.error;
   Rng rng(64);
   const int64_t kval = int64_t(0x123456789abcdefll);
   Machine m;
   m.cb0.assign(64, 0);
   const unsigned ks = p.uniform_slot.at("k");
   m.cb0[ks * 4] = uint32_t(uint64_t(kval));
   m.cb0[ks * 4 + 1] = uint32_t(uint64_t(kval) >> 32);
   Inputs in;
   std::vector<std::pair<int64_t, int64_t>> ab;
   for (unsigned l = 0; l < kLanes; l++) {
      auto r64 = [&] {
         const uint64_t hi = uint32_t(rng.next(0.0f, 1.0f) * 4294967295.0);
         const uint64_t lo = uint32_t(rng.next(0.0f, 1.0f) * 4294967295.0);
         return int64_t((hi << 32) | lo) >> (l % 5) * 12; /* small and large magnitudes */
      };
      const int64_t a = r64(), b = l == 3 ? a : r64();
      ab.push_back({a, b});
      in.varyings[p.fs_in.at("v")].push_back(
         ivec(int32_t(uint64_t(a)), int32_t(uint64_t(a) >> 32), int32_t(uint64_t(b)),
              int32_t(uint64_t(b) >> 32)));
   }
   Result r = run(p.fs.get(), kLanes, in, m);
   ASSERT_TRUE(r.ok) << r.fault;
   auto halves = [](uint64_t x) { return std::array<uint32_t, 2>{uint32_t(x), uint32_t(x >> 32)}; };
   for (unsigned l = 0; l < kLanes; l++) {
      const int64_t a = ab[l].first, b = ab[l].second;
      const uint64_t ua = uint64_t(a), ub = uint64_t(b);
      const uint64_t want[4][4] = {
         {halves(ua * ub + uint64_t(kval))[0], halves(ua * ub + uint64_t(kval))[1],
          halves(uint64_t(a / (b | 1)))[0], halves(uint64_t(a / (b | 1)))[1]},
         {halves((ua >> 7) ^ (ub << 13))[0], halves((ua >> 7) ^ (ub << 13))[1],
          halves(ua % (ub | 1))[0], halves(ua % (ub | 1))[1]},
         {a < b ? 1u : 0u, ua < ub ? 1u : 0u, uint32_t(int32_t(a >> 40)), std::max(a, b) == a},
         {halves(uint64_t(std::llabs(a)) - ub)[0], halves(uint64_t(std::llabs(a)) - ub)[1],
          halves(0 - ua)[0], halves(0 - ua)[1]},
      };
      for (unsigned i = 0; i < 4; i++)
         for (unsigned c = 0; c < 4; c++)
            EXPECT_EQ(r.out.at(FRAG_RESULT_DATA0 + int(i))[l][c], uint32_t(want[i][c]))
               << "lane " << l << " o[" << i << "]." << "xyzw"[c] << " a " << a << " b " << b;
   }
}
