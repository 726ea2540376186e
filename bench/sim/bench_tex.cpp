/*
 * Micro-benchmark of the texture unit and the format conversions (Google
 * Benchmark). Not a test: it measures, the unit tests check.
 *
 *   build/<dir>/bench/sim/bench_tex
 *
 * Figures of merit: "lanes_per_second" for texture_sample (16-lane fragment
 * thread groups, 64x64 RGBA8 mipmapped texture, trilinear) and
 * "pixels_per_second" for unpack/pack of the common formats.
 */
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "sim/func/tex/format.h"
#include "sim/func/tex/texture.h"
#include "common/bits.h"

using namespace vlgpu::sim;

using vlgpu::as_float;
using vlgpu::as_uint;

namespace {

void
BM_Sample(benchmark::State &state, vlg_tex_filter filter, vlg_mip_filter mip)
{
   Vram vram(1 << 20);
   VLG_TEXTURE tex;
   VLG_TEXTURE_init(&tex);
   tex.target = VLG_TEXTURE_TARGET_2D;
   tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
   tex.width = tex.height = 64;
   tex.num_levels = 7;
   tex.last_level = 6;
   tex.address = 0x1000;
   uint32_t off = 0;
   for (unsigned l = 0; l < 7; l++) {
      const uint32_t w = 64 >> l;
      tex.level[l].offset = off;
      tex.level[l].row_pitch = w * 4;
      tex.level[l].layer_stride = w * w * 4;
      off += w * w * 4;
   }
   for (uint32_t i = 0; i < off; i++)
      vram.data()[0x1000 + i] = static_cast<uint8_t>(i * 7);
   VLG_SAMPLER samp;
   VLG_SAMPLER_init(&samp);
   samp.min_img_filter = samp.mag_img_filter = filter;
   samp.min_mip_filter = mip;

   constexpr unsigned kLanes = 16;
   TexLaneIn in[kLanes] = {};
   uint32_t out[kLanes][4];
   float base = 0.0f;
   for (auto _ : state) {
      for (unsigned q = 0; q < kLanes / 4; q++)
         for (unsigned j = 0; j < 4; j++) {
            in[q * 4 + j].coord[0] = as_uint(base + q * 0.05f + (j & 1) * 0.03f);
            in[q * 4 + j].coord[1] = as_uint(base + (j >> 1) * 0.03f);
         }
      texture_sample(vram, tex, samp, {TexOp::Tex, false}, true, kLanes, 0xffff, in, out, nullptr);
      benchmark::DoNotOptimize(out);
      base += 0.001f;
   }
   state.counters["lanes_per_second"] =
      benchmark::Counter(double(state.iterations()) * kLanes, benchmark::Counter::kIsRate);
}

void
BM_Unpack(benchmark::State &state, vlg_format f)
{
   std::vector<uint8_t> px(4096 * 16);
   for (size_t i = 0; i < px.size(); i++)
      px[i] = static_cast<uint8_t>(i * 13);
   const unsigned bpp = format_info(f).bytes;
   uint32_t out[4];
   for (auto _ : state) {
      for (unsigned i = 0; i < 4096; i++) {
         format_unpack_rgba(f, px.data() + i * bpp, out);
         benchmark::DoNotOptimize(out);
      }
   }
   state.counters["pixels_per_second"] =
      benchmark::Counter(double(state.iterations()) * 4096, benchmark::Counter::kIsRate);
}

void
BM_Pack(benchmark::State &state, vlg_format f)
{
   std::vector<uint8_t> px(4096 * 16);
   const unsigned bpp = format_info(f).bytes;
   uint32_t in[4] = {as_uint(0.25f), as_uint(0.5f), as_uint(0.75f), as_uint(1.0f)};
   for (auto _ : state) {
      for (unsigned i = 0; i < 4096; i++) {
         in[0] = as_uint(i * (1.0f / 4096));
         format_pack_rgba(f, in, px.data() + i * bpp);
      }
      benchmark::DoNotOptimize(px.data());
   }
   state.counters["pixels_per_second"] =
      benchmark::Counter(double(state.iterations()) * 4096, benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK_CAPTURE(BM_Sample, nearest, VLG_TEX_FILTER_NEAREST, VLG_MIP_FILTER_NONE);
BENCHMARK_CAPTURE(BM_Sample, bilinear, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_NONE);
BENCHMARK_CAPTURE(BM_Sample, trilinear, VLG_TEX_FILTER_LINEAR, VLG_MIP_FILTER_LINEAR);
BENCHMARK_CAPTURE(BM_Unpack, B8G8R8A8_UNORM, VLG_FORMAT_B8G8R8A8_UNORM);
BENCHMARK_CAPTURE(BM_Unpack, R32G32B32A32_FLOAT, VLG_FORMAT_R32G32B32A32_FLOAT);
BENCHMARK_CAPTURE(BM_Unpack, R8G8B8A8_SRGB, VLG_FORMAT_R8G8B8A8_SRGB);
BENCHMARK_CAPTURE(BM_Pack, B8G8R8A8_UNORM, VLG_FORMAT_B8G8R8A8_UNORM);
BENCHMARK_CAPTURE(BM_Pack, R8G8B8A8_SRGB, VLG_FORMAT_R8G8B8A8_SRGB);
BENCHMARK_CAPTURE(BM_Pack, R16G16B16A16_FLOAT, VLG_FORMAT_R16G16B16A16_FLOAT);

BENCHMARK_MAIN();
