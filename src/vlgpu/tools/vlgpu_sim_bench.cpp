/*
 * vlgpu-sim-bench: benchmarks of the simulator on a fixed, realistic
 * package (not a test). `./vlgpu bench sim` runs `vlgpu-sim-bench sim`.
 *
 *   vlgpu-sim-bench sim [--draws N] [--triangles N] [--size PX] [--repeat N]
 *                       [--config K=V,..] [--units K=V,..] [--trace FILE]
 *                       [--stats FILE]
 *
 * The frame: 800x600 RGBA8 + Z24S8, a CLEAR, then --draws draws of
 * --triangles random triangles each (about --size pixels across), depth
 * tested (LESS), textured (256x256 RGBA8, 9 mip levels, trilinear, the
 * texture times the interpolated colour), all built in code with the
 * generated VLG_*_pack functions and the assembler. The same queue runs in
 * functional mode and in cycle mode (pixels compared); printed: host CPU
 * time per draw in both modes (the fastest of --repeat runs), simulated cycles, simulated cycles per host
 * second, and the peak resident set size (getrusage ru_maxrss).
 */
#include <sys/resource.h>

#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "vlg_hw.h"

#include "sim/device/gpu.h"
#include "sim/func/shader/vlg_isa_compat.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

std::vector<uint32_t>
assemble(const char *text)
{
   vlg_program prog{};
   vlg_isa_error err{};
   if (vlg_assemble(text, "bench", &prog, &err) != 0)
      throw std::runtime_error(std::string("assembler: ") + err.msg);
   std::vector<uint32_t> u(prog.units, prog.units + prog.count);
   vlg_program_free(&prog);
   return u;
}

struct Rng {
   uint64_t s;
   float next()
   {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return float(uint32_t(s >> 40)) / 16777216.0f;
   }
};

/** The benchmark frame in its own VRAM. */
struct Frame {
   std::unique_ptr<Vram> vram;
   uint64_t next = 0x10000;
   uint64_t queue = 0;
   uint32_t dwords = 0;
   VLG_SURFACE rt{}, zs{};
   unsigned draws = 0;

   uint64_t alloc(uint64_t size, uint64_t align = 256)
   {
      next = (next + align - 1) / align * align;
      const uint64_t a = next;
      next += size ? size : 1;
      if (next > vram->size())
         throw std::runtime_error("benchmark VRAM too small");
      return a;
   }
   uint64_t put(const void *d, uint64_t size, uint64_t align = 256)
   {
      const uint64_t a = alloc(size, align);
      vram->write(a, d, size, "bench");
      return a;
   }
   template <typename T> uint64_t put(const std::vector<T> &v)
   {
      return put(v.data(), v.size() * sizeof(T));
   }
};

Frame
build_frame(unsigned ndraws, unsigned ntris, float size_px)
{
   const unsigned W = 800, H = 600;
   Frame f;
   f.vram = std::make_unique<Vram>(64ull << 20);
   VLG_SURFACE_init(&f.rt);
   f.rt.format = VLG_FORMAT_R8G8B8A8_UNORM;
   f.rt.width = W;
   f.rt.height = H;
   f.rt.pitch = W * 4;
   f.rt.address = f.alloc(uint64_t(W) * H * 4);
   f.zs = f.rt;
   f.zs.format = VLG_FORMAT_Z24_UNORM_S8_UINT;
   f.zs.address = f.alloc(uint64_t(W) * H * 4);
   VLG_FRAMEBUFFER fb;
   VLG_FRAMEBUFFER_init(&fb);
   fb.width = W;
   fb.height = H;
   fb.nr_cbufs = 1;
   fb.cbufs[0] = f.rt;
   fb.zsbuf = f.zs;
   uint32_t fbw[VLG_FRAMEBUFFER_LENGTH];
   VLG_FRAMEBUFFER_pack(fbw, &fb);
   const uint64_t fb_addr = f.put(fbw, sizeof(fbw));

   VLG_PIPE_STATE ps;
   VLG_PIPE_STATE_init(&ps);
   ps.rasterizer.half_pixel_center = true;
   ps.rasterizer.depth_clip_near = ps.rasterizer.depth_clip_far = true;
   ps.viewport.scale[0] = W / 2.0f;
   ps.viewport.scale[1] = H / 2.0f;
   ps.viewport.scale[2] = 0.5f;
   ps.viewport.translate[0] = W / 2.0f;
   ps.viewport.translate[1] = H / 2.0f;
   ps.viewport.translate[2] = 0.5f;
   ps.viewport.depth_far = 1.0f;
   ps.depth_stencil_alpha.depth_enable = true;
   ps.depth_stencil_alpha.depth_writemask = true;
   ps.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
   uint32_t pw[VLG_PIPE_STATE_LENGTH];
   VLG_PIPE_STATE_pack(pw, &ps);
   const uint64_t ps_addr = f.put(pw, sizeof(pw));

   /* texture: 256x256 RGBA8, full mip chain */
   const unsigned ts = 256, levels = 9;
   VLG_TEXTURE tex;
   VLG_TEXTURE_init(&tex);
   tex.target = VLG_TEXTURE_TARGET_2D;
   tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
   tex.width = tex.height = ts;
   tex.num_levels = levels;
   tex.last_level = levels - 1;
   uint64_t total = 0;
   for (unsigned l = 0; l < levels; l++)
      total += uint64_t(ts >> l) * (ts >> l) * 4;
   tex.address = f.alloc(total);
   uint64_t off = 0;
   for (unsigned l = 0; l < levels; l++) {
      const unsigned n = ts >> l;
      tex.level[l].offset = uint32_t(off);
      tex.level[l].row_pitch = n * 4;
      tex.level[l].layer_stride = n * n * 4;
      for (unsigned y = 0; y < n; y++)
         for (unsigned x = 0; x < n; x++) {
            const bool on = ((x * 8 / n) ^ (y * 8 / n)) & 1;
            const uint8_t px[4] = {uint8_t(on ? 240 : 60), uint8_t(x * 255 / n),
                                   uint8_t(y * 255 / n), 255};
            f.vram->write(tex.address + off + (uint64_t(y) * n + x) * 4, px, 4, "bench");
         }
      off += uint64_t(n) * n * 4;
   }
   VLG_SAMPLER smp;
   VLG_SAMPLER_init(&smp);
   smp.wrap_s = smp.wrap_t = smp.wrap_r = VLG_TEX_WRAP_REPEAT;
   smp.min_img_filter = smp.mag_img_filter = VLG_TEX_FILTER_LINEAR;
   smp.min_mip_filter = VLG_MIP_FILTER_LINEAR;
   uint32_t tw[VLG_TEXTURE_LENGTH], sw[VLG_SAMPLER_LENGTH];
   VLG_TEXTURE_pack(tw, &tex);
   VLG_SAMPLER_pack(sw, &smp);
   const uint64_t tex_addr = f.put(tw, sizeof(tw)), smp_addr = f.put(sw, sizeof(sw));

   /* VS: position, colour and texture coordinate passed through */
   VLG_SHADER_STATE vs;
   VLG_SHADER_STATE_init(&vs);
   vs.stage = VLG_SHADER_STAGE_VERTEX;
   vs.num_regs = 8;
   const std::vector<uint32_t> vcode = assemble("MOV R4, R0\nMOV R5, R1\nMOV R6, R2\nBRC.END\n");
   vs.code = f.put(vcode);
   vs.code_size = uint32_t(vcode.size());
   for (unsigned i = 0; i < 3; i++) {
      vs.inputs[i].reg = i;
      vs.inputs[i].mask = 0xf;
      vs.inputs[i].semantic = VLG_INPUT_SEMANTIC_ATTRIBUTE;
      vs.inputs[i].index = i;
   }
   vs.num_inputs = 3;
   vs.outputs[0] = {4, 0xf, VLG_OUTPUT_SEMANTIC_POSITION, 0};
   vs.outputs[1] = {5, 0xf, VLG_OUTPUT_SEMANTIC_VARYING, 0};
   vs.outputs[2] = {6, 0xf, VLG_OUTPUT_SEMANTIC_VARYING, 1};
   vs.num_outputs = 3;
   uint32_t vsw[VLG_SHADER_STATE_LENGTH];
   VLG_SHADER_STATE_pack(vsw, &vs);
   const uint64_t vs_addr = f.put(vsw, sizeof(vsw));

   /* FS: texture(T0, VARYING 1) x VARYING 0 */
   VLG_SHADER_STATE fs;
   VLG_SHADER_STATE_init(&fs);
   fs.stage = VLG_SHADER_STAGE_FRAGMENT;
   fs.num_regs = 4;
   const std::vector<uint32_t> fcode = assemble("TEX R3, R2, T0\nMUL R1, R3, R0\nBRC.END\n");
   fs.code = f.put(fcode);
   fs.code_size = uint32_t(fcode.size());
   for (unsigned i = 0; i < 2; i++) {
      fs.inputs[i].reg = i ? 2 : 0;
      fs.inputs[i].mask = 0xf;
      fs.inputs[i].semantic = VLG_INPUT_SEMANTIC_VARYING;
      fs.inputs[i].index = i;
      fs.inputs[i].interp = VLG_INTERP_PERSPECTIVE;
   }
   fs.num_inputs = 2;
   fs.outputs[0] = {1, 0xf, VLG_OUTPUT_SEMANTIC_COLOR, 0};
   fs.num_outputs = 1;
   fs.uses_derivatives = true;
   fs.num_samplers = 1;
   uint32_t fsw[VLG_SHADER_STATE_LENGTH];
   VLG_SHADER_STATE_pack(fsw, &fs);
   const uint64_t fs_addr = f.put(fsw, sizeof(fsw));

   std::vector<uint32_t> ew(3 * VLG_VERTEX_ELEMENT_LENGTH);
   for (unsigned i = 0; i < 3; i++) {
      VLG_VERTEX_ELEMENT e;
      VLG_VERTEX_ELEMENT_init(&e);
      e.format = VLG_FORMAT_R32G32B32A32_FLOAT;
      e.src_offset = 16 * i;
      VLG_VERTEX_ELEMENT_pack(&ew[i * VLG_VERTEX_ELEMENT_LENGTH], &e);
   }
   const uint64_t ew_addr = f.put(ew);

   std::vector<uint32_t> q;
   auto cmd_draw = [&](uint64_t di) {
      VLG_CMD_DRAW c;
      VLG_CMD_DRAW_init(&c);
      c.draw_info = di;
      uint32_t w[VLG_CMD_DRAW_LENGTH];
      VLG_CMD_DRAW_pack(w, &c);
      q.insert(q.end(), w, w + VLG_CMD_DRAW_LENGTH);
   };
   /* CLEAR colour, depth and stencil */
   {
      VLG_DRAW_INFO di;
      VLG_DRAW_INFO_init(&di);
      di.kind = VLG_DRAW_KIND_CLEAR;
      di.clear_buffers = (1u << 2) | 3u;
      const float c[4] = {0.1f, 0.1f, 0.15f, 1};
      for (unsigned i = 0; i < 4; i++)
         std::memcpy(&di.clear_color[i], &c[i], 4);
      di.clear_depth = 1.0f;
      di.clear_rect.maxx = W;
      di.clear_rect.maxy = H;
      di.framebuffer = fb_addr;
      uint32_t dw[VLG_DRAW_INFO_LENGTH];
      VLG_DRAW_INFO_pack(dw, &di);
      cmd_draw(f.put(dw, sizeof(dw)));
      f.draws++;
   }
   Rng rng{12345};
   const float sx = size_px / W, sy = size_px / H; /* NDC half-extent of a triangle */
   for (unsigned d = 0; d < ndraws; d++) {
      std::vector<float> v;
      for (unsigned t = 0; t < ntris; t++) {
         const float cx = rng.next() * 2 - 1, cy = rng.next() * 2 - 1, z = rng.next() * 1.8f - 0.9f;
         const float col[4] = {0.5f + 0.5f * rng.next(), 0.5f + 0.5f * rng.next(),
                               0.5f + 0.5f * rng.next(), 1};
         for (int k = 0; k < 3; k++) {
            const float px = cx + (rng.next() * 2 - 1) * sx, py = cy + (rng.next() * 2 - 1) * sy;
            v.insert(v.end(), {px, py, z, 1.0f});
            v.insert(v.end(), col, col + 4);
            v.insert(v.end(), {px * 2.0f, py * 1.5f, 0, 1});
         }
      }
      VLG_VERTEX_BUFFER vb;
      VLG_VERTEX_BUFFER_init(&vb);
      vb.address = f.put(v);
      vb.size = uint32_t(v.size() * 4);
      vb.stride = 48;
      uint32_t vbw[VLG_VERTEX_BUFFER_LENGTH];
      VLG_VERTEX_BUFFER_pack(vbw, &vb);
      VLG_DRAW_INFO di;
      VLG_DRAW_INFO_init(&di);
      di.kind = VLG_DRAW_KIND_PRIMITIVES;
      di.prim = VLG_PRIM_TRIANGLES;
      di.vertices_per_prim = 3;
      di.count = ntris * 3;
      di.pipe_state = ps_addr;
      di.vs = vs_addr;
      di.fs = fs_addr;
      di.framebuffer = fb_addr;
      di.vertex_elements = ew_addr;
      di.num_vertex_elements = 3;
      di.vertex_buffers = f.put(vbw, sizeof(vbw));
      di.num_vertex_buffers = 1;
      di.fs_textures = tex_addr;
      di.fs_samplers = smp_addr;
      di.fs_num_textures = di.fs_num_samplers = 1;
      uint32_t dw[VLG_DRAW_INFO_LENGTH];
      VLG_DRAW_INFO_pack(dw, &di);
      cmd_draw(f.put(dw, sizeof(dw)));
      f.draws++;
   }
   VLG_CMD_HALT h;
   VLG_CMD_HALT_init(&h);
   uint32_t hw;
   VLG_CMD_HALT_pack(&hw, &h);
   q.push_back(hw);
   f.queue = f.put(q.data(), q.size() * 4, 4);
   f.dwords = uint32_t(q.size());
   return f;
}

struct NullHost final : GpuHost {
   const Display *display(uint32_t) const override { return nullptr; }
   bool snapshot_draw(const DrawContext &) override { return false; }
   void before_draw(const DrawContext &, const Vram &) override {}
   void after_draw(const DrawContext &, const Vram &, const DrawReport &) override {}
};

/** CPU seconds of this process (the machine is shared: CPU time varies
 *  less than wall-clock time under load). */
double
cpu_seconds()
{
   timespec ts;
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int
bench_sim(unsigned ndraws, unsigned ntris, float size, unsigned repeat, const std::string &config,
          const std::string &units, const std::string &trace, const std::string &stats_path)
{
   Config cfg;
   if (!config.empty())
      cfg.apply_overrides(config);
   UnitParams p(cfg);
   if (!units.empty())
      p.apply_overrides(units);
   p.validate();
   Frame frame = build_frame(ndraws, ntris, size);
   std::printf("vlgpu-sim-bench sim: 800x600 RGBA8 + Z24S8, 1 CLEAR + %u draws x %u textured "
               "depth-tested triangles of ~%.0f px, %u repetition(s)\n",
               ndraws, ntris, size, repeat);

   NullHost host;
   auto fgpu = make_functional_gpu(p.core);
   double fsec = 1e30;
   std::unique_ptr<Vram> fv;
   SubmitResult fr;
   for (unsigned r = 0; r < repeat; r++) {
      auto v = std::make_unique<Vram>(frame.vram->size());
      std::memcpy(v->data(), frame.vram->data(), frame.next);
      const double t0 = cpu_seconds();
      fr = fgpu->execute(*v, frame.queue, frame.dwords, host);
      fsec = std::min(fsec, cpu_seconds() - t0);
      fv = std::move(v);
   }
   double csec = 1e30;
   std::unique_ptr<Vram> cv;
   SubmitResult cr;
   for (unsigned r = 0; r < repeat; r++) {
      CycleGpu gpu(p);
      if (!trace.empty() && r == 0)
         gpu.set_trace(trace);
      auto v = std::make_unique<Vram>(frame.vram->size());
      std::memcpy(v->data(), frame.vram->data(), frame.next);
      const double t0 = cpu_seconds();
      cr = gpu.execute(*v, frame.queue, frame.dwords, host);
      csec = std::min(csec, cpu_seconds() - t0);
      cv = std::move(v);
   }
   if (!fr.faults.empty() || !cr.faults.empty()) {
      std::fprintf(stderr, "fault: %s\n",
                   (!fr.faults.empty() ? fr.faults : cr.faults)[0].text.c_str());
      return 1;
   }
   const uint64_t bytes = uint64_t(frame.rt.pitch) * frame.rt.height;
   const bool same =
      std::memcmp(fv->data() + frame.rt.address, cv->data() + frame.rt.address, bytes) == 0 &&
      std::memcmp(fv->data() + frame.zs.address, cv->data() + frame.zs.address, bytes) == 0;
   uint64_t frags = 0, passed = 0, fs_instr = 0;
   for (const DrawReport &d : cr.draws) {
      frags += d.counters.fs_invocations;
      passed += d.counters.fragments_passed;
      fs_instr += d.counters.fs_instructions;
   }
   struct rusage ru;
   getrusage(RUSAGE_SELF, &ru);
   std::printf("fragments shaded %llu, passed %llu, FS instructions %llu; pictures %s\n",
               (unsigned long long)frags, (unsigned long long)passed,
               (unsigned long long)fs_instr, same ? "identical" : "DIFFER");
   std::printf("functional: %.1f ms (CPU) per frame, %.3f ms per draw\n", fsec * 1e3,
               fsec * 1e3 / frame.draws);
   std::printf("cycle:      %.1f ms (CPU) per frame, %.3f ms per draw, %llu cycles, %.2f M simulated "
               "cycles per host second\n",
               csec * 1e3, csec * 1e3 / frame.draws, (unsigned long long)cr.cycles,
               double(cr.cycles) / csec / 1e6);
   std::printf("peak RSS: %.1f MiB\n", double(ru.ru_maxrss) / 1024.0);
   if (!stats_path.empty()) {
      std::ofstream(stats_path) << cr.stats.dump(1) << "\n";
      std::printf("statistics: %s\n", stats_path.c_str());
   }
   return same ? 0 : 1;
}

} // namespace

int
main(int argc, char **argv)
{
   CLI::App app{"vlgpu simulator benchmarks"};
   app.require_subcommand(1);
   CLI::App *sim = app.add_subcommand(
      "sim", "cycle mode vs functional mode on an 800x600 frame of textured, depth-tested "
             "triangles: simulated cycles per host second, ms per draw, peak RSS");
   unsigned draws = 8, tris = 500, repeat = 3;
   float size = 48;
   std::string config, units, trace, stats;
   sim->add_option("--draws", draws, "draws after the CLEAR")->capture_default_str();
   sim->add_option("--triangles", tris, "triangles per draw")->capture_default_str();
   sim->add_option("--size", size, "triangle size in pixels (about)")->capture_default_str();
   sim->add_option("--repeat", repeat, "repetitions (the fastest is printed)")
      ->capture_default_str();
   sim->add_option("--config", config, "sim core config overrides (gpcs=2,...)");
   sim->add_option("--units", units, "module parameter overrides (pe.quads_per_cycle=2,...)");
   sim->add_option("--trace", trace, "write the Perfetto trace of the first cycle-mode run");
   sim->add_option("--stats", stats, "write the cycle-mode statistics JSON");
   CLI11_PARSE(app, argc, argv);
   try {
      if (repeat == 0)
         repeat = 1;
      return bench_sim(draws, tris, size, repeat, config, units, trace, stats);
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu-sim-bench: %s\n", e.what());
      return 1;
   }
}
