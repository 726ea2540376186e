/*
 * Micro-benchmark of the functional draw (Google Benchmark; not a test):
 * render_draw of 800x600 frames.
 *
 *   build/<dir>/bench/sim/bench_pipe
 *
 * Scenes (RGBA8 colour + Z24S8 depth, depth test LESS, VS = seed 001 matrix
 * transform, FS = interpolated colour):
 *  - BM_Triangles/N: N random triangles of about 40x40 pixels (~800 covered
 *    pixels each) in one indexed draw;
 *  - BM_FullScreen: two triangles covering the frame (480000 fragments),
 *    with SRC_ALPHA/INV_SRC_ALPHA blending;
 *  - BM_SmallTriangles/N: N triangles of ~3 pixels (setup-bound).
 */
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "vlg_isa.h"

#include "sim/func/pipe/functional.h"
#include "sim/func/pipe/package_writer.h"
#include "sim/func/shader/program.h"

using namespace vlgpu::sim;

namespace {

struct Scene {
   Vram vram{256ull << 20};
   uint64_t next = 0x1000;
   uint64_t draw_info = 0;
   ProgramCache cache;

   uint64_t alloc(uint64_t n)
   {
      next = (next + 255) & ~uint64_t(255);
      const uint64_t a = next;
      next += n;
      return a;
   }
   /** The package builder's put (sim/func/pipe/package_writer.h): every
    *  block at a 256-byte boundary. */
   const PackagePut put = [this](const void *p, uint64_t n, uint64_t) {
      const uint64_t a = alloc(n);
      vram.write(a, p, n, "bench");
      return a;
   };
   static std::vector<uint32_t> assemble(const char *text)
   {
      vlg_program prog{};
      vlg_isa_error err{};
      if (vlg_assemble(text, "bench", &prog, &err) != 0)
         throw std::runtime_error(err.msg);
      std::vector<uint32_t> u(prog.units, prog.units + prog.count);
      vlg_program_free(&prog);
      return u;
   }

   /** @verts: x, y, z, w, r, g, b, a per vertex (clip space); @idx: triangles. */
   Scene(const std::vector<float> &verts, const std::vector<uint32_t> &idx, bool blend)
   {
      const unsigned W = 800, H = 600;
      VLG_FRAMEBUFFER fb;
      VLG_FRAMEBUFFER_init(&fb);
      fb.width = W;
      fb.height = H;
      fb.nr_cbufs = 1;
      VLG_SURFACE_init(&fb.cbufs[0]);
      fb.cbufs[0].format = VLG_FORMAT_R8G8B8A8_UNORM;
      fb.cbufs[0].width = W;
      fb.cbufs[0].height = H;
      fb.cbufs[0].pitch = W * 4;
      fb.cbufs[0].address = alloc(uint64_t(W) * H * 4);
      fb.zsbuf = fb.cbufs[0];
      fb.zsbuf.format = VLG_FORMAT_Z24_UNORM_S8_UINT;
      fb.zsbuf.address = alloc(uint64_t(W) * H * 4);
      std::memset(vram.data() + fb.zsbuf.address, 0xff, size_t(W) * H * 4);

      VLG_PIPE_STATE ps = depth_tested_pipe_state(W, H);
      if (blend) {
         ps.depth_stencil_alpha.depth_enable = false;
         ps.blend.rt[0].blend_enable = true;
         ps.blend.rt[0].rgb_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
         ps.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
         ps.blend.rt[0].alpha_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
         ps.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
      }

      PackageShader vs(VLG_SHADER_STAGE_VERTEX, 8);
      vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
      vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
      vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION, 0);
      vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
      vs.code = assemble("MUL R4, R0.xxxx, C0\nMAD R4, R0.yyyy, C1, R4\nMAD R4, R0.zzzz, C2, R4\n"
                         "MAD R4, R0.wwww, C3, R4\nMOV R5, R1\nBRC.END\n");
      vs.consts = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
      VLG_DRAW_INFO d;
      VLG_DRAW_INFO_init(&d);
      d.vs = put_shader(put, vs);
      PackageShader fs(VLG_SHADER_STAGE_FRAGMENT, 4);
      fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
      fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      fs.code = assemble("MOV R1, R0\nBRC.END\n");
      d.fs = put_shader(put, fs);
      d.pipe_state = put_block(put, ps);
      d.framebuffer = put_block(put, fb);

      VLG_VERTEX_BUFFER vb;
      VLG_VERTEX_BUFFER_init(&vb);
      vb.size = uint32_t(verts.size() * 4);
      vb.address = put_data(put, verts);
      vb.stride = 32;
      d.vertex_buffers = put_block(put, vb);
      d.num_vertex_buffers = 1;
      std::vector<VLG_VERTEX_ELEMENT> ve(2);
      for (unsigned i = 0; i < 2; i++) {
         VLG_VERTEX_ELEMENT_init(&ve[i]);
         ve[i].format = VLG_FORMAT_R32G32B32A32_FLOAT;
         ve[i].src_offset = 16 * i;
      }
      d.vertex_elements = put_block(put, ve);
      d.num_vertex_elements = 2;

      d.kind = VLG_DRAW_KIND_PRIMITIVES;
      d.prim = VLG_PRIM_TRIANGLES;
      d.vertices_per_prim = 3;
      d.index_size = VLG_INDEX_SIZE_U32;
      d.index_buffer = put_data(put, idx);
      d.index_buffer_size = uint32_t(idx.size() * 4);
      d.count = uint32_t(idx.size());
      draw_info = put_block(put, d);
   }
};

void
random_triangles(unsigned n, float size_px, std::vector<float> &v, std::vector<uint32_t> &idx)
{
   std::mt19937 rng(42);
   std::uniform_real_distribution<float> u(-1.0f, 1.0f), c(0.0f, 1.0f);
   const float sx = size_px / 400.0f, sy = size_px / 300.0f;
   for (unsigned t = 0; t < n; t++) {
      const float cx = u(rng), cy = u(rng), z = c(rng) * 0.9f;
      for (int k = 0; k < 3; k++) {
         v.insert(v.end(), {cx + u(rng) * sx, cy + u(rng) * sy, z, 1.0f});
         v.insert(v.end(), {c(rng), c(rng), c(rng), 1.0f});
         idx.push_back(uint32_t(3 * t + k));
      }
   }
}

void
run(benchmark::State &state, Scene &s)
{
   FuncOptions o;
   o.programs = &s.cache;
   uint64_t frags = 0;
   for (auto _ : state) {
      const DrawStats st = render_draw(s.vram, s.draw_info, o);
      frags = st.pe.fragments;
   }
   state.counters["fragments"] = double(frags);
   state.counters["fragments/s"] =
      benchmark::Counter(double(frags), benchmark::Counter::kIsIterationInvariantRate);
}

void
BM_Triangles(benchmark::State &state)
{
   std::vector<float> v;
   std::vector<uint32_t> idx;
   random_triangles(unsigned(state.range(0)), 80.0f, v, idx);
   Scene s(v, idx, false);
   run(state, s);
}
BENCHMARK(BM_Triangles)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void
BM_SmallTriangles(benchmark::State &state)
{
   std::vector<float> v;
   std::vector<uint32_t> idx;
   random_triangles(unsigned(state.range(0)), 4.0f, v, idx);
   Scene s(v, idx, false);
   run(state, s);
}
BENCHMARK(BM_SmallTriangles)->Arg(10000)->Unit(benchmark::kMillisecond);

void
BM_FullScreen(benchmark::State &state)
{
   const std::vector<float> v = {-1, -1, 0.5f, 1, 1, 0, 0, 0.5f, 1,  -1, 0.5f, 1, 0, 1, 0, 0.5f,
                                 1,  1,  0.5f, 1, 0, 0, 1, 0.5f, -1, 1,  0.5f, 1, 1, 1, 1, 0.5f};
   const std::vector<uint32_t> idx = {0, 1, 2, 0, 2, 3};
   Scene s(v, idx, true);
   run(state, s);
}
BENCHMARK(BM_FullScreen)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
