/*
 * vlgpu-sim — run the simulator outside a GL program (./vlgpu replay).
 *
 *   vlgpu-sim replay DIR [--mode cycle|functional] [-o OUT_DIR] [--config FILE]
 *                        [--set key=value,...]
 *      Replay one draw of a per-draw dump (DIR = DUMP/draw-NNNNNN, written
 *      with VLGPU_DUMP=DUMP, docs/dump.md), edited or not: rebuild its package
 *      in a fresh VRAM, run the DRAW, write OUT_DIR/rt<i>.png and .bin (raw),
 *      zs.bin, stats.json, and print a one-line summary that says whether the
 *      render targets equal the dump's "-after" images.
 *   vlgpu-sim replay CAPTURE [--mode cycle|functional] [-o OUT_DIR] [--config FILE]
 *                            [--set key=value,...]
 *      Replay a frame capture (CAPTURE has a manifest.json: written with
 *      VLGPU_CAPTURE=CAPTURE, docs/capture.md) by the simulator alone: every
 *      frame's displays as OUT_DIR/frame-NNNNNN-display-ID.png, the
 *      statistics as VLGPU_STATS=DIR writes them (OUT_DIR/stats/
 *      submit-NNNNNN.json), one line per frame in OUT_DIR/frames.jsonl and
 *      on stdout. Default mode: the capture's; default OUT_DIR CAPTURE/replay.
 *   vlgpu-sim bench
 *      Not here: the benchmarks are `vlgpu-sim-bench sim` (./vlgpu bench sim,
 *      docs/perf/README.md); this subcommand says so.
 *
 * Cycle-mode trace of a replay: VLGPU_TRACE=file.json, optionally
 * VLGPU_TRACE_CYCLES=BEGIN-END (docs/simulator.md "Trace").
 *
 * Configuration: the dump's config.json (the configuration of the live run),
 * or --config FILE instead, then --set overrides (docs/simulator.md).
 *
 * Exit status: 0 success; 1 malformed dump or capture, bad configuration or
 * a GPU fault of the replayed draw or frames (the readable report on
 * stderr); 2 usage errors (CLI11) and `bench`; 3 a replayed capture's
 * display pixels differ from the live run's.
 */
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vlgpu_drm.h"
#include "sim/core/gpu.h"
#include "sim/device/capture.h"
#include "sim/dump/dump.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

uint64_t
counter_or(const DrawStats &s, bool clear)
{
   return clear ? s.clear_pixels : s.fragments_passed;
}

int
replay(const std::string &dir, const std::string &mode_name, std::string out,
       const std::string &config, const std::string &set)
{
   GpuMode mode;
   if (mode_name.empty()) {
      mode = cycle_gpu_available() ? GpuMode::Cycle : GpuMode::Functional;
      if (!cycle_gpu_available())
         std::fprintf(stderr, "note: functional mode (this build has no cycle-mode GPU yet)\n");
   } else {
      mode = mode_name == "cycle" ? GpuMode::Cycle : GpuMode::Functional;
   }
   if (out.empty())
      out = (std::filesystem::path(dir) / "replay").string();

   try {
      Config cfg = config.empty() ? dump_config(dir) : Config::load(config);
      if (!set.empty())
         cfg.apply_overrides(set);
      cfg.validate();
      std::unique_ptr<Gpu> gpu = make_gpu(mode, cfg);
      const ReplayResult r = replay_dump(dir, *gpu, cfg, out);
      for (const std::string &n : r.notes)
         std::fprintf(stderr, "note: %s\n", n.c_str());

      const DrawStats &c = r.report.counters;
      std::string line = fmt::format("draw {} ({}) replayed in {} mode: {} cycles", r.draw_number,
                                     r.kind, gpu_mode_name(gpu->mode()), r.report.cycles);
      if (c.clear)
         line += fmt::format(", {} pixels cleared", counter_or(c, true));
      else
         line +=
            fmt::format(", {} vertices shaded, {} primitives, {} fragments shaded, {} "
                        "passed",
                        c.vs_invocations, c.ge.primitives, c.fs_invocations, counter_or(c, false));
      for (const ReplayComparison &cmp : r.comparisons) {
         if (!cmp.compared)
            line += fmt::format("; {}: no dump {} to compare", cmp.name,
                                std::strcmp(cmp.unit, "pixels") == 0 ? "image" : "file");
         else if (cmp.differing == 0)
            line += fmt::format("; {} identical to the dump", cmp.name);
         else
            line += fmt::format("; {}: {} of {} {} differ from the dump, first at {}", cmp.name,
                                cmp.differing, cmp.pixels, cmp.unit, cmp.first_difference);
      }
      line += fmt::format("; output in {}", out);
      if (r.report.faulted || !r.submit.faults.empty()) {
         for (const FaultRecord &f : r.submit.faults)
            std::fprintf(stderr, "%s\n", f.text.c_str());
         std::printf("%s; GPU FAULT\n", line.c_str());
         return 1;
      }
      std::printf("%s\n", line.c_str());
      return 0;
   } catch (const DumpError &e) {
      std::fprintf(stderr, "vlgpu-sim: %s\n", e.what());
      return 1;
   } catch (const ConfigError &e) {
      std::fprintf(stderr, "vlgpu-sim: configuration: %s\n", e.what());
      return 1;
   } catch (const std::bad_alloc &) {
      std::fprintf(stderr, "vlgpu-sim: out of host memory\n");
      return 1;
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu-sim: internal error: %s\n", e.what());
      return 1;
   }
}

/** `replay CAPTURE`: replay_capture() and a line per frame. */
int
replay_capture_dir(const std::string &dir, const std::string &mode_name, std::string out,
                   const std::string &config, const std::string &set, bool no_png,
                   const std::string &sample)
{
   if (out.empty())
      out = (std::filesystem::path(dir) / "replay").string();
   try {
      CaptureReplayOptions o;
      o.dir = dir;
      o.out = out;
      o.config = config;
      o.overrides = set;
      o.write_pngs = !no_png;
      o.sample = sample;
      /* a sampled replay times frames: cycle mode unless told otherwise */
      std::string m = !mode_name.empty() ? mode_name : !sample.empty() ? "cycle" : capture_mode(dir);
      if (m == "cycle" && !cycle_gpu_available()) {
         std::fprintf(stderr, "note: functional mode (this build has no cycle-mode GPU)\n");
         m = "functional";
      }
      o.mode = m == "cycle" ? GpuMode::Cycle : GpuMode::Functional;
      const std::vector<CaptureReplayFrame> frames = replay_capture(o);
      bool differ = false;
      for (const CaptureReplayFrame &f : frames) {
         std::string pixels = f.sample == "skipped" ? "skipped (sampled replay)"
                              : f.images == 0       ? "no image"
                              : f.images_differing == 0
                                 ? fmt::format("pixels identical to the live run ({} image{})",
                                               f.images, f.images == 1 ? "" : "s")
                                 : fmt::format("{} of {} images DIFFER from the live run",
                                               f.images_differing, f.images);
         differ |= f.images_differing != 0;
         std::printf("frame %llu: %llu submits, %llu draws, %llu cycles, %s%s (host %.1f ms, "
                     "CPU %.1f ms)\n",
                     (unsigned long long)f.frame, (unsigned long long)f.submits,
                     (unsigned long long)f.draws, (unsigned long long)f.cycles, pixels.c_str(),
                     f.faults ? ", GPU FAULTS" : "", f.host_ms, f.cpu_ms);
      }
      std::printf("%zu frames replayed in %s mode; output in %s\n", frames.size(),
                  gpu_mode_name(o.mode), out.c_str());
      for (const CaptureReplayFrame &f : frames)
         if (f.faults)
            return 1;
      return differ ? 3 : 0;
   } catch (const CaptureError &e) {
      std::fprintf(stderr, "vlgpu-sim: %s\n", e.what());
   } catch (const ConfigError &e) {
      std::fprintf(stderr, "vlgpu-sim: configuration: %s\n", e.what());
   } catch (const std::bad_alloc &) {
      std::fprintf(stderr, "vlgpu-sim: out of host memory\n");
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu-sim: internal error: %s\n", e.what());
   }
   return 1;
}

/** `params`: every device parameter (vlg_drm_get_param) of a device made
 *  with @config and @set in @mode_name, as one JSON object on stdout. */
int
print_params(const std::string &config, const std::string &set, const std::string &mode_name)
{
   vlg_drm_create_args a{};
   a.config_path = config.empty() ? nullptr : config.c_str();
   a.config_overrides = set.c_str();
   a.mode = mode_name == "functional" ? VLG_DRM_MODE_FUNCTIONAL : VLG_DRM_MODE_CYCLE;
   a.client = "vlgpu-sim params";
   vlg_drm_device *dev = nullptr;
   char err[1024] = "";
   if (vlg_drm_device_create(&a, &dev, err, sizeof(err)) != 0) {
      std::fprintf(stderr, "vlgpu-sim: configuration: %s\n", err);
      return 1;
   }
   nlohmann::ordered_json out = nlohmann::ordered_json::object();
   for (uint32_t p = 0; p < VLG_DRM_PARAM_COUNT; p++) {
      uint64_t v = 0;
      if (vlg_drm_get_param(dev, p, &v) == 0)
         out[vlg_drm_param_name(p)] = v;
   }
   vlg_drm_device_destroy(dev);
   std::printf("%s\n", out.dump().c_str());
   return 0;
}

} // namespace

int
main(int argc, char **argv)
{
   CLI::App app{"vlgpu-sim: run the vlgpu simulator outside a GL program"};
   app.require_subcommand(1);

   std::string dir, mode, out, config, set;
   CLI::App *rp = app.add_subcommand(
      "replay", "replay one draw of a per-draw dump (DIR = DUMP/draw-NNNNNN, docs/dump.md), "
                "edited or not, and compare the result with the dump's -after images; or "
                "the frames of a capture (DIR has a manifest.json: VLGPU_CAPTURE=DIR, "
                "docs/capture.md)");
   rp->add_option("DIR", dir,
                  "draw directory of a dump (written with VLGPU_DUMP=DUMP), or a capture")
      ->required()
      ->check(CLI::ExistingDirectory);
   rp->add_option("--mode", mode,
                  "GPU model: cycle (default when this build has the cycle-mode GPU) or "
                  "functional")
      ->check(CLI::IsMember({"cycle", "functional"}));
   rp->add_option("-o,--out", out,
                  "output directory (default DIR/replay): rt<i>.png, "
                  "rt<i>.bin (raw pixels), zs.bin, stats.json");
   rp->add_option("--config", config,
                  "GPU configuration file (JSON, docs/simulator.md) instead of DIR/config.json");
   rp->add_option("--set", set, "configuration overrides key=value,key=value (after the file)");
   std::string sample;
   rp->add_option("--sample", sample,
                  "a capture in cycle mode: PERIOD[:WARMUP][,seed=N][,skip] times frame 0 and "
                  "one random frame of every block of PERIOD frames after it, with the WARMUP "
                  "frames before that one; the others run functionally, or with skip are not "
                  "drawn; frames.jsonl says each frame's role (docs/simulator.md \"Sampled "
                  "simulation\", scripts/sampling.py estimates the total)");
   bool no_png = false;
   rp->add_flag("--no-png", no_png,
                "a capture: compare each frame's images with the live run's (by hash) but write "
                "no PNG (sweeps; PNG encoding is a third of a small frame's replay)");

   std::string pconfig, pset, pmode = "cycle";
   CLI::App *params = app.add_subcommand(
      "params", "print the device parameters a driver reads (vlg_drm_get_param: VRAM size, "
                "compute limits, ...) for a configuration, as one JSON object; a capture's "
                "manifest.json \"driver_params\" holds those its client read (docs/capture.md)");
   params->add_option("--config", pconfig, "GPU configuration file (JSON, docs/simulator.md)");
   params->add_option("--set", pset, "configuration overrides key=value,key=value (after the file)");
   params->add_option("--mode", pmode, "GPU model the device is made for (default cycle)")
      ->check(CLI::IsMember({"cycle", "functional"}));

   CLI::App *bench = app.add_subcommand(
      "bench", "not here: run vlgpu-sim-bench sim (./vlgpu bench sim, docs/perf/README.md)");

   CLI11_PARSE(app, argc, argv);
   if (*rp && std::filesystem::exists(std::filesystem::path(dir) / "manifest.json"))
      return replay_capture_dir(dir, mode, out, config, set, no_png, sample);
   if (*rp && (no_png || !sample.empty())) {
      std::fprintf(stderr, "vlgpu-sim replay: --no-png and --sample apply to frame captures; "
                           "%s has no manifest.json\n",
                   dir.c_str());
      return 2;
   }
   if (*rp)
      return replay(dir, mode, out, config, set);
   if (*params)
      return print_params(pconfig, pset, pmode);
   if (*bench) {
      std::fprintf(stderr, "vlgpu-sim bench: the benchmarks are in vlgpu-sim-bench: run "
                           "`vlgpu-sim-bench sim --help` (./vlgpu bench sim)\n");
      return 2;
   }
   return 2;
}
