/*
 * vlgpu-sim-bench: benchmarks of the simulator on fixed, realistic packages
 * without GL (not a test). `./vlgpu bench sim` runs `vlgpu-sim-bench sim`.
 *
 *   vlgpu-sim-bench sim [--dump DIR]... [--draws N] [--triangles N] [--size PX]
 *                       [--repeat N] [--config K=V,..]
 *                       [--trace FILE] [--stats FILE] [--json FILE]
 *
 * Packages: the replayed per-draw dumps given with --dump (docs/dump.md;
 * replay_dump through a Gpu wrapper that times only Gpu::execute), or by
 * default the synthetic frame: 800x600 RGBA8 + Z24S8, a CLEAR, then --draws
 * draws of --triangles random triangles each (about --size pixels across),
 * depth tested (LESS), textured (256x256 RGBA8, 9 mip levels, trilinear, the
 * texture times the interpolated colour), built in code with the generated
 * VLG_*_pack functions and the assembler. Each package runs --repeat times
 * in functional mode and in cycle mode; printed per package: simulated
 * cycles, host CPU ms per package and per draw in both modes (median and
 * minimum), simulated cycles per host second (cycles / median), whether the
 * pictures agree (synthetic: both modes byte-identical; dumps: both modes
 * identical to the dump's -after images); then the peak resident set size
 * (getrusage ru_maxrss). --json writes the same figures (keys in --help and
 * docs/perf/README.md).
 */
#include <sys/resource.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <functional>
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

#include "common/bits.h"
#include "sim/core/gpu.h"
#include "sim/dump/dump.h"
#include "sim/func/pipe/package_writer.h"
#include "vlg_isa.h"
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
   /** put() as the package builder's callback (sim/func/pipe/package_writer.h). */
   PackagePut putter()
   {
      return [this](const void *d, uint64_t size, uint64_t align) { return put(d, size, align); };
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
   const PackagePut put = f.putter();
   const uint64_t fb_addr = put_block(put, fb);

   const uint64_t ps_addr = put_block(put, depth_tested_pipe_state(W, H));

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
   const uint64_t tex_addr = put_block(put, tex), smp_addr = put_block(put, smp);

   /* VS: position, colour and texture coordinate passed through */
   PackageShader vs(VLG_SHADER_STAGE_VERTEX, 8);
   vs.code = assemble("MOV R4, R0\nMOV R5, R1\nMOV R6, R2\nBRC.END\n");
   for (unsigned i = 0; i < 3; i++)
      vs.input(i, VLG_INPUT_SEMANTIC_ATTRIBUTE, i);
   vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   vs.output(6, VLG_OUTPUT_SEMANTIC_VARYING, 1);
   const uint64_t vs_addr = put_shader(put, vs);

   /* FS: texture(T0, VARYING 1) x VARYING 0 */
   PackageShader fs(VLG_SHADER_STAGE_FRAGMENT, 4);
   fs.code = assemble("TEX R3, R2, T0\nMUL R1, R3, R0\nBRC.END\n");
   fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
   fs.input(2, VLG_INPUT_SEMANTIC_VARYING, 1);
   fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   fs.st.uses_derivatives = true;
   fs.st.num_samplers = 1;
   const uint64_t fs_addr = put_shader(put, fs);

   std::vector<VLG_VERTEX_ELEMENT> elements(3);
   for (unsigned i = 0; i < 3; i++) {
      VLG_VERTEX_ELEMENT_init(&elements[i]);
      elements[i].format = VLG_FORMAT_R32G32B32A32_FLOAT;
      elements[i].src_offset = 16 * i;
   }
   const uint64_t ew_addr = put_block(put, elements);

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
         di.clear_color[i] = vlgpu::as_uint(c[i]);
      di.clear_depth = 1.0f;
      di.clear_rect.maxx = W;
      di.clear_rect.maxy = H;
      di.framebuffer = fb_addr;
      cmd_draw(put_block(put, di));
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
      vb.address = put_data(put, v);
      vb.size = uint32_t(v.size() * 4);
      vb.stride = 48;
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
      di.vertex_buffers = put_block(put, vb);
      di.num_vertex_buffers = 1;
      di.fs_textures = tex_addr;
      di.fs_samplers = smp_addr;
      di.fs_num_textures = di.fs_num_samplers = 1;
      cmd_draw(put_block(put, di));
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

/** A Gpu that times the execute() calls of the Gpu it wraps (CPU time):
 *  the replay's file loading and image comparison stay outside. */
class TimedGpu final : public Gpu {
 public:
   explicit TimedGpu(Gpu &inner) : inner_(inner) {}
   GpuMode mode() const override { return inner_.mode(); }
   SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                        GpuHost &host) override
   {
      const double t0 = cpu_seconds();
      SubmitResult r = inner_.execute(vram, cmd_address, cmd_dwords, host);
      seconds += cpu_seconds() - t0;
      return r;
   }
   double seconds = 0;

 private:
   Gpu &inner_;
};

double
median(std::vector<double> v)
{
   std::sort(v.begin(), v.end());
   const size_t n = v.size();
   return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/** One run of a workload on one GPU. */
struct RunOut {
   SubmitResult result;
   double seconds = 0;       /**< CPU seconds inside Gpu::execute */
   std::string picture;      /**< render-target + depth bytes (synthetic) */
   bool matches_dump = true; /**< dump: every render target equals the dump's */
   std::string mismatch;
};

/** A package to run: the synthetic frame or one replayed dump draw. */
struct Workload {
   std::string name;
   Config cfg;
   std::function<RunOut(Gpu &)> run;
};

struct ModeFigures {
   std::vector<double> seconds;
   RunOut last;
};

/** Options of `sim`. */
struct SimOptions {
   unsigned draws = 8, tris = 500, repeat = 3;
   float size = 48;
   std::vector<std::string> dumps;
   std::string config, trace, stats, json;
};

Workload
synthetic_workload(const SimOptions &o, const Config &cfg, std::shared_ptr<Frame> frame)
{
   Workload w;
   w.name = fmt::format("synthetic 800x600 frame: 1 CLEAR + {} draws x {} textured depth-tested "
                        "triangles of ~{:.0f} px",
                        o.draws, o.tris, o.size);
   w.cfg = cfg;
   w.run = [frame](Gpu &gpu) {
      NullHost host;
      auto v = std::make_unique<Vram>(frame->vram->size());
      std::memcpy(v->data(), frame->vram->data(), frame->next);
      RunOut out;
      const double t0 = cpu_seconds();
      out.result = gpu.execute(*v, frame->queue, frame->dwords, host);
      out.seconds = cpu_seconds() - t0;
      const uint64_t bytes = uint64_t(frame->rt.pitch) * frame->rt.height;
      out.picture.assign(reinterpret_cast<const char *>(v->data() + frame->rt.address), bytes);
      out.picture.append(reinterpret_cast<const char *>(v->data() + frame->zs.address), bytes);
      return out;
   };
   return w;
}

Workload
dump_workload(const std::string &dir, const SimOptions &o)
{
   Workload w;
   w.name = dir;
   w.cfg = dump_config(dir);
   if (!o.config.empty())
      w.cfg.apply_overrides(o.config);
   w.cfg.validate();
   w.run = [dir, cfg = w.cfg](Gpu &gpu) {
      TimedGpu timed(gpu);
      const ReplayResult r = replay_dump(dir, timed, cfg, "");
      RunOut out;
      out.result = r.submit;
      out.seconds = timed.seconds;
      for (const ReplayComparison &c : r.comparisons)
         if (c.compared && c.differing) {
            out.matches_dump = false;
            out.mismatch = fmt::format("{}: {} of {} {} differ from the dump, first at {}", c.name,
                                       c.differing, c.pixels, c.unit, c.first_difference);
         }
      return out;
   };
   return w;
}

/** Expand a dump's top directory into its draw-NNNNNN directories. */
std::vector<std::string>
expand_dumps(const std::vector<std::string> &args)
{
   namespace fs = std::filesystem;
   std::vector<std::string> out;
   for (const std::string &a : args) {
      if (fs::exists(fs::path(a) / "command.txt")) {
         out.push_back(a);
         continue;
      }
      std::vector<std::string> sub;
      if (fs::is_directory(a))
         for (const auto &e : fs::directory_iterator(a))
            if (e.is_directory() && e.path().filename().string().rfind("draw-", 0) == 0 &&
                fs::exists(e.path() / "command.txt"))
               sub.push_back(e.path().string());
      if (sub.empty())
         throw std::runtime_error(
            fmt::format("{}: neither a draw directory of a dump (draw-NNNNNN with command.txt) "
                        "nor a dump directory holding some",
                        a));
      std::sort(sub.begin(), sub.end());
      out.insert(out.end(), sub.begin(), sub.end());
   }
   return out;
}

int
bench_sim(const SimOptions &o)
{
   Config base;
   if (!o.config.empty())
      base.apply_overrides(o.config);
   std::vector<Workload> work;
   std::shared_ptr<Frame> frame;
   if (o.dumps.empty()) {
      frame = std::make_shared<Frame>(build_frame(o.draws, o.tris, o.size));
      work.push_back(synthetic_workload(o, base, frame));
   } else {
      for (const std::string &d : expand_dumps(o.dumps))
         work.push_back(dump_workload(d, o));
   }
   std::printf("vlgpu-sim-bench sim: %zu package(s), %u repetition(s) per mode, medians of CPU "
               "time inside Gpu::execute\n",
               work.size(), o.repeat);

   nlohmann::ordered_json jpk = nlohmann::ordered_json::array();
   uint64_t tot_draws = 0, tot_cycles = 0;
   double tot_f = 0, tot_c = 0;
   bool all_same = true;
   nlohmann::ordered_json last_stats;
   bool traced = false;
   for (const Workload &w : work) {
      Config p(w.cfg);
      p.validate();
      ModeFigures f, c;
      for (unsigned r = 0; r < o.repeat; r++) {
         auto fgpu = make_functional_gpu(w.cfg);
         f.last = w.run(*fgpu);
         f.seconds.push_back(f.last.seconds);
      }
      for (unsigned r = 0; r < o.repeat; r++) {
         CycleGpu gpu(p);
         if (!o.trace.empty() && !traced) {
            gpu.set_trace(o.trace);
            traced = true;
         }
         c.last = w.run(gpu);
         c.seconds.push_back(c.last.seconds);
      }
      for (const RunOut *ro : {&f.last, &c.last})
         if (!ro->result.faults.empty()) {
            std::fprintf(stderr, "%s: GPU fault (%s mode): %s\n", w.name.c_str(),
                         ro == &f.last ? "functional" : "cycle", ro->result.faults[0].text.c_str());
            return 1;
         }
      const bool same =
         f.last.picture == c.last.picture && f.last.matches_dump && c.last.matches_dump;
      all_same &= same;
      const unsigned draws = unsigned(c.last.result.draws.size());
      const uint64_t cycles = c.last.result.cycles;
      const double fs = median(f.seconds), cs = median(c.seconds);
      const double fmin = *std::min_element(f.seconds.begin(), f.seconds.end());
      const double cmin = *std::min_element(c.seconds.begin(), c.seconds.end());
      uint64_t frags = 0, fs_instr = 0, dual = 0;
      for (const DrawReport &d : c.last.result.draws) {
         frags += d.counters.fs_invocations;
         fs_instr += d.counters.fs_instructions;
         dual += d.counters.fs_dual_issued;
      }
      std::printf("%s\n  %u draw(s), %llu cycles, %llu fragments shaded, %llu FS instructions; "
                  "pictures %s\n",
                  w.name.c_str(), draws, (unsigned long long)cycles, (unsigned long long)frags,
                  (unsigned long long)fs_instr,
                  same ? (frame ? "identical in both modes" : "identical to the dump in both modes")
                       : "DIFFER");
      if (!same && !f.last.mismatch.empty())
         std::printf("  functional: %s\n", f.last.mismatch.c_str());
      if (!same && !c.last.mismatch.empty())
         std::printf("  cycle: %s\n", c.last.mismatch.c_str());
      std::printf("  functional: %8.1f ms per package (min %.1f), %8.3f ms per draw\n", fs * 1e3,
                  fmin * 1e3, fs * 1e3 / std::max(1u, draws));
      std::printf("  cycle:      %8.1f ms per package (min %.1f), %8.3f ms per draw, %.3f M "
                  "simulated cycles per host second\n",
                  cs * 1e3, cmin * 1e3, cs * 1e3 / std::max(1u, draws), double(cycles) / cs / 1e6);
      jpk.push_back({{"name", w.name},
                     {"draws", draws},
                     {"cycles", cycles},
                     {"fragments_shaded", frags},
                     {"fs_instructions", fs_instr},
                     {"fs_dual_issued", dual},
                     {"identical", same},
                     {"functional_ms", fs * 1e3},
                     {"functional_ms_min", fmin * 1e3},
                     {"functional_ms_per_draw", fs * 1e3 / std::max(1u, draws)},
                     {"cycle_ms", cs * 1e3},
                     {"cycle_ms_min", cmin * 1e3},
                     {"cycle_ms_per_draw", cs * 1e3 / std::max(1u, draws)},
                     {"cycles_per_second", double(cycles) / cs}});
      tot_draws += draws;
      tot_cycles += cycles;
      tot_f += fs;
      tot_c += cs;
      last_stats = c.last.result.stats;
   }
   struct rusage ru;
   getrusage(RUSAGE_SELF, &ru);
   const double rss_mib = double(ru.ru_maxrss) / 1024.0;
   if (work.size() > 1)
      std::printf("total: %llu draws, %llu cycles; functional %.3f ms per draw; cycle %.3f ms per "
                  "draw, %.3f M simulated cycles per host second\n",
                  (unsigned long long)tot_draws, (unsigned long long)tot_cycles,
                  tot_f * 1e3 / std::max<uint64_t>(1, tot_draws),
                  tot_c * 1e3 / std::max<uint64_t>(1, tot_draws), double(tot_cycles) / tot_c / 1e6);
   std::printf("peak RSS: %.1f MiB\n", rss_mib);
   if (!o.stats.empty()) {
      std::ofstream(o.stats) << last_stats.dump(1) << "\n";
      std::printf("statistics (cycle mode, last package): %s\n", o.stats.c_str());
   }
   if (!o.json.empty()) {
      nlohmann::ordered_json j;
      j["tool"] = "vlgpu-sim-bench sim";
      j["workload"] = frame ? "synthetic" : "dumps";
      j["repeat"] = o.repeat;
      j["timing"] = "median CPU time (CLOCK_PROCESS_CPUTIME_ID) inside Gpu::execute";
      j["packages"] = jpk;
      j["total"] = {{"draws", tot_draws},
                    {"cycles", tot_cycles},
                    {"functional_ms", tot_f * 1e3},
                    {"functional_ms_per_draw", tot_f * 1e3 / std::max<uint64_t>(1, tot_draws)},
                    {"cycle_ms", tot_c * 1e3},
                    {"cycle_ms_per_draw", tot_c * 1e3 / std::max<uint64_t>(1, tot_draws)},
                    {"cycles_per_second", double(tot_cycles) / tot_c},
                    {"identical", all_same}};
      j["peak_rss_mib"] = rss_mib;
      std::ofstream jf(o.json);
      if (!jf)
         throw std::runtime_error(o.json + ": cannot be written");
      jf << j.dump(2) << "\n";
      std::printf("JSON: %s\n", o.json.c_str());
   }
   return all_same ? 0 : 1;
}

} // namespace

int
main(int argc, char **argv)
{
   CLI::App app{"vlgpu simulator benchmarks (not tests)"};
   app.require_subcommand(1);
   CLI::App *sim = app.add_subcommand(
      "sim",
      "cycle mode vs functional mode on packages without GL: the built-in synthetic frame "
      "(default) or replayed per-draw dumps (--dump). Prints per package the simulated cycles, "
      "the host CPU ms per package and per draw in both modes (median and minimum of --repeat "
      "runs, CPU time inside Gpu::execute only), the simulated cycles per host second of cycle "
      "mode, whether both modes give the same pictures, and the peak RSS of the process. "
      "Exit 1 if a package faults or the pictures differ.\n"
      "--json FILE writes: {tool, workload (\"synthetic\"|\"dumps\"), repeat, timing, "
      "packages: [{name, draws, cycles, fragments_shaded, fs_instructions, fs_dual_issued, "
      "identical, functional_ms, functional_ms_min, functional_ms_per_draw, cycle_ms, "
      "cycle_ms_min, cycle_ms_per_draw, cycles_per_second}], total: {draws, cycles, "
      "functional_ms, functional_ms_per_draw, cycle_ms, cycle_ms_per_draw, cycles_per_second, "
      "identical}, peak_rss_mib}; *_ms are medians in milliseconds of CPU time, "
      "cycles_per_second = cycles / median cycle-mode seconds, peak_rss_mib = getrusage "
      "ru_maxrss in MiB (docs/perf/README.md)");
   SimOptions o;
   sim->add_option("--dump", o.dumps,
                   "replay this dump draw (DUMP/draw-NNNNNN, docs/dump.md) instead of the "
                   "synthetic frame; a dump directory means all its draws; repeatable. "
                   "Configuration: the dump's config.json, then --config")
      ->check(CLI::ExistingDirectory);
   sim->add_option("--draws", o.draws, "synthetic frame: draws after the CLEAR")
      ->capture_default_str();
   sim->add_option("--triangles", o.tris, "synthetic frame: triangles per draw")
      ->capture_default_str();
   sim->add_option("--size", o.size, "synthetic frame: triangle size in pixels (about)")
      ->capture_default_str();
   sim->add_option("--repeat", o.repeat,
                   "runs per package and mode (the median and the minimum are printed)")
      ->capture_default_str();
   sim->add_option("--config", o.config,
                   "GPU configuration overrides key=value,... over every key of docs/simulator.md "
                   "\"Configuration\", e.g. gpcs=2,spcs_per_gpc=8,pe.quads_per_cycle=2");
   sim->add_option("--trace", o.trace,
                   "write the Perfetto trace (docs/simulator.md \"Trace\") of the first "
                   "cycle-mode run of the first package to this file");
   sim->add_option("--stats", o.stats,
                   "write the cycle-mode statistics (Stats JSON of the whole queue) of the "
                   "last package to this file");
   sim->add_option("--json", o.json, "write the figures as JSON to this file (keys above)");
   CLI11_PARSE(app, argc, argv);
   try {
      if (o.repeat == 0)
         o.repeat = 1;
      return bench_sim(o);
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu-sim-bench: %s\n", e.what());
      return 1;
   }
}
