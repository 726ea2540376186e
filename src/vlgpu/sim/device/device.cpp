/*
 * vlgpu simulator: the device behind vlgpu_drm.h — the in-process GPU the
 * Gallium driver talks to, like v3d's v3d_simulator.c (brief §5).
 *
 * Every function of vlgpu_drm.h is implemented here in C++ behind
 * extern "C"; no C++ exception crosses the C boundary: each entry point runs
 * its body inside guarded() (vlg_drm_device_create, the statistics and
 * vlg_drm_get_fault have their own equivalents), where std::bad_alloc
 * becomes -ENOMEM, any other exception -EIO, with "ENTRY: out of host
 * memory" / "ENTRY: internal error: WHAT" in vlg_drm_get_fault (pointer
 * results: NULL). device_hooks.h lets tests throw from inside every entry.
 *
 * VRAM is one Vram of vram.size_bytes; buffer objects are carved out of it
 * by a best-fit VramAllocator (allocator.h). The first 4 KiB are never
 * handed out, so a zero address in a descriptor never points into a
 * buffer. New buffer objects are zero-filled (like DRM GEM objects).
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "vlgpu_drm.h"
#include "vlgpu_stats_keys.h"

#include "sim/device/allocator.h"
#include "sim/device/capture.h"
#include "sim/device/device_hooks.h"
#include "sim/device/draw_set.h"
#include "sim/device/frame_sampling.h"
#include "sim/core/gpu.h"
#include "sim/dump/dump.h"
#include "sim/dump/image.h"

using namespace vlgpu;
using namespace vlgpu::sim;
namespace K = vlgpu::stats_key;

namespace {

/** Bytes at the start of VRAM that no buffer object gets. */
constexpr uint64_t kReservedVram = 4096;
/** Largest texture side: 15 mip levels (texture.num_levels 1..15, docs/hw.md). */
constexpr uint64_t kMaxTextureSize = 16384;

struct Bo {
   uint64_t address = 0;
   uint64_t size = 0;
};

} // namespace

struct vlg_drm_device {
   Config cfg;
   GpuMode mode = GpuMode::Functional;
   std::unique_ptr<Gpu> gpu;
   /* VLGPU_SAMPLE (frame_sampling.h): the frames `gpu` (cycle mode) times;
    * the others run on `functional_gpu` (one that skips DRAW and DISPATCH
    * with the plan's "skip") */
   FrameSampling sampling;
   std::unique_ptr<Gpu> functional_gpu;
   std::unique_ptr<Vram> vram;
   std::unique_ptr<VramAllocator> alloc;
   std::map<uint32_t, Bo> bos;
   uint32_t next_handle = 1;
   std::map<uint32_t, Display> displays;
   uint64_t fence = 0;   /* fence of the last submit */
   uint64_t submits = 0; /* submits so far */
   uint64_t draws = 0;   /* DRAW commands executed over the device's life */
   std::string fault;    /* faults of the last submit */
   std::string stats = "{}";
   /* What `stats` is made from, until someone asks for it
    * (vlg_drm_get_stats_json, VLGPU_STATS_DIR): building and printing the
    * JSON of every draw's module statistics costs more host time than
    * simulating small draws in cycle mode (docs/perf/README.md). */
   struct PendingStats {
      uint64_t submit, fence, first_draw;
      struct vlg_drm_submit args;
      SubmitResult result;
      std::vector<std::string> host_errors;
      GpuMode mode;              /* of the GPU that ran the submit */
      FrameSampling::Role role;  /* of its frame, when sampling */
      uint64_t frame;
   };
   std::optional<PendingStats> pending_stats;
   bool stats_made = true, draw_stats_made = false;
   std::string draw_stats = "{}";
   std::string modules; /* vlg_drm_get_modules_json, made on first use */
   std::string stats_dir, dump_dir;
   /* whether the draws' module statistics are made (GpuHost::
    * wants_draw_modules): not when the client omits them
    * (vlg_drm_create_args::omit_draw_modules) and no file holds them */
   bool draw_modules = true;
   DrawSet dump_draws;
   uint64_t frame = 0; /* frames ended so far (vlg_drm_end_frame) */
   /* VLGPU_CAPTURE (capture.h): what to capture, the writer while the
    * frames in range run, and whether it is over (range done, or an error) */
   std::optional<CaptureWriter::Info> capture_info;
   std::unique_ptr<CaptureWriter> capture;
   bool capture_over = false;
   /* the parameters the client read (vlg_drm_get_param) and their values:
    * what its commands may depend on besides VRAM (capture manifests) */
   std::map<std::string, uint64_t> params_read;
   /* vlg_drm_set_frame_image: where in VRAM the image this frame ends with
    * is (checked against the VRAM size when set), or none */
   std::optional<vlg_drm_frame_image> frame_image;
};

namespace {

void
set_err(char *err, size_t size, const std::string &msg)
{
   if (err && size) {
      std::snprintf(err, size, "%s", msg.c_str());
   }
}

/* set_err without allocating: "@prefix@what" */
void
set_err(char *err, size_t size, const char *prefix, const char *what) noexcept
{
   if (err && size)
      std::snprintf(err, size, "%s%s", prefix, what);
}

/* device_hooks.h */
void (*g_entry_hook)(const char *entry) = nullptr;

void
entry_hook(const char *entry)
{
   if (g_entry_hook)
      g_entry_hook(entry);
}

/** Capture directories of the devices of this process that capture now
 *  (devices of different threads may start and stop captures at once). */
std::set<std::string> g_capture_dirs;
std::mutex g_capture_dirs_lock;

/** End the capture of @dev (the writer closed with @complete, errors ignored). */
void
capture_stop(vlg_drm_device &dev, bool complete) noexcept
{
   if (!dev.capture)
      return;
   try {
      dev.capture->finish(complete);
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu: VLGPU_CAPTURE=%s: %s\n", dev.capture->info().dir.c_str(),
                   e.what());
   } catch (...) {
   }
   {
      std::lock_guard<std::mutex> lock(g_capture_dirs_lock);
      g_capture_dirs.erase(dev.capture->info().dir);
   }
   dev.capture.reset();
   dev.capture_over = true;
}

/** Run @f on the capture writer; an error ends the capture (with the
 *  reason on stderr), never the program. */
template <typename F>
void
capture_guard(vlg_drm_device &dev, F &&f) noexcept
{
   if (!dev.capture)
      return;
   try {
      f(*dev.capture);
      return;
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu: VLGPU_CAPTURE=%s: %s; capture stopped\n",
                   dev.capture->info().dir.c_str(), e.what());
   } catch (...) {
      std::fprintf(stderr, "vlgpu: VLGPU_CAPTURE: unknown error; capture stopped\n");
   }
   capture_stop(dev, false);
}

/** Start the capture when the current frame is the first of its range
 *  (creating the writer and recording the displays and labels of now);
 *  true while capturing. A device that starts capturing while another
 *  device of the process captures into DIR writes DIR-2 (then DIR-3...). */
bool
capture_active(vlg_drm_device &dev) noexcept
{
   if (dev.capture)
      return true;
   if (!dev.capture_info || dev.capture_over || dev.frame < dev.capture_info->first_frame ||
       dev.frame > dev.capture_info->last_frame)
      return false;
   CaptureWriter::Info info = *dev.capture_info;
   try {
      std::lock_guard<std::mutex> lock(g_capture_dirs_lock);
      for (unsigned n = 2; g_capture_dirs.count(info.dir); n++)
         info.dir = fmt::format("{}-{}", dev.capture_info->dir, n);
      dev.capture = std::make_unique<CaptureWriter>(info, dev.cfg);
      dev.capture->set_driver_params(dev.params_read);
      g_capture_dirs.insert(info.dir);
   } catch (const std::exception &e) {
      std::fprintf(stderr, "vlgpu: VLGPU_CAPTURE=%s: %s; no capture\n", info.dir.c_str(),
                   e.what());
      dev.capture_over = true;
      return false;
   }
   capture_guard(dev, [&](CaptureWriter &w) {
      for (const auto &[id, d] : dev.displays)
         w.display(id, d);
      for (const auto &[h, bo] : dev.bos)
         if (std::string label = dev.gpu->label_at(bo.address); !label.empty())
            w.label(bo.address, bo.size, label);
   });
   return bool(dev.capture);
}

/** Record an event: start the capture if its first frame has come
 *  (capture_active), then run @f on the writer (capture_guard). */
template <typename F>
void
capture_record(vlg_drm_device &dev, F &&f) noexcept
{
   if (capture_active(dev))
      capture_guard(dev, std::forward<F>(f));
}

/** The VRAM ranges of every buffer object. */
std::vector<CaptureRange>
bo_ranges(const vlg_drm_device &dev)
{
   std::vector<CaptureRange> r;
   r.reserve(dev.bos.size());
   for (const auto &[h, bo] : dev.bos)
      r.push_back({bo.address, bo.size});
   return r;
}

/** The device's GpuHost for one submit: displays, the dump, per-draw statistics. */
class DeviceHost final : public GpuHost {
 public:
   DeviceHost(vlg_drm_device &dev, uint64_t submit) : dev_(dev), submit_(submit) {}

   const Display *display(uint32_t id) const override
   {
      auto it = dev_.displays.find(id);
      return it == dev_.displays.end() ? nullptr : &it->second;
   }

   bool snapshot_draw(const DrawContext &ctx) override { return dumping(ctx); }

   bool wants_draw_modules() const override { return dev_.draw_modules; }

   void before_draw(const DrawContext &ctx, const Vram &vram) override
   {
      if (!dumping(ctx))
         return;
      const uint64_t n = number(ctx);
      try {
         DumpDrawInfo info;
         info.draw_number = n;
         info.submit = submit_;
         info.mode = dev_.mode;
         const std::string dir =
            (std::filesystem::path(dev_.dump_dir) / dump_draw_dir_name(n)).string();
         auto w = std::make_unique<DrawDumpWriter>(dir, info, ctx, dev_.cfg);
         w->begin(vram);
         writers_[ctx.index_in_queue] = std::move(w);
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         host_error(fmt::format("dump of draw {}: {}", n, e.what()));
      }
   }

   void after_draw(const DrawContext &ctx, const Vram &vram, const DrawReport &report) override
   {
      auto it = writers_.find(ctx.index_in_queue);
      if (it == writers_.end())
         return;
      try {
         it->second->finish(vram, report);
      } catch (const std::bad_alloc &) {
         throw;
      } catch (const std::exception &e) {
         host_error(fmt::format("dump of draw {}: {}", number(ctx), e.what()));
      }
      writers_.erase(it);
   }

   void on_dispatch(const DispatchReport &report, const Vram &) override
   {
      /* Per-draw dumps do not include DISPATCH commands yet (docs/dump.md). */
      static bool warned = false;
      if (!dev_.dump_dir.empty() && !warned) {
         warned = true;
         std::fprintf(stderr,
                      "vlgpu: VLGPU_DUMP: DISPATCH commands are not dumped (first one at queue "
                      "dword %u); replays of later draws may differ where they read what a "
                      "compute shader wrote\n",
                      report.cmd_offset_dw);
      }
   }

   uint64_t number(const DrawContext &ctx) const { return dev_.draws + ctx.index_in_queue; }
   const std::vector<std::string> &host_errors() const { return errors_; }

   void host_error(const std::string &msg)
   {
      std::fprintf(stderr, "vlgpu: %s\n", msg.c_str());
      errors_.push_back(msg);
   }

 private:
   bool dumping(const DrawContext &ctx) const
   {
      return !dev_.dump_dir.empty() && dev_.dump_draws.contains(number(ctx));
   }

   vlg_drm_device &dev_;
   uint64_t submit_;
   std::map<uint32_t, std::unique_ptr<DrawDumpWriter>> writers_;
   std::vector<std::string> errors_;
};

std::string
fault_text(uint64_t submit, uint64_t first_draw, const SubmitResult &r)
{
   if (r.faults.empty())
      return {};
   std::string t = fmt::format("submit {}: {} fault{}", submit, r.faults.size(),
                               r.faults.size() == 1 ? "" : "s");
   for (const FaultRecord &f : r.faults) {
      t += "\n\n";
      if (f.draw_index >= 0) {
         uint64_t info = 0;
         for (const DrawReport &d : r.draws)
            if (d.ctx.index_in_queue == uint32_t(f.draw_index))
               info = d.ctx.draw_info_address;
         t += fmt::format("draw {} (DRAW command at dword offset {} of the queue, draw_info "
                          "0x{:x}):\n",
                          first_draw + uint64_t(f.draw_index), f.cmd_offset_dw, info);
      } else {
         t += fmt::format("command at dword offset {} of the queue:\n", f.cmd_offset_dw);
      }
      t += f.text;
   }
   return t;
}

nlohmann::ordered_json
stats_json(const vlg_drm_device &dev, vlg_drm_device::PendingStats &p, bool full)
{
   const uint64_t first_draw = p.first_draw;
   const struct vlg_drm_submit &args = p.args;
   SubmitResult &r = p.result;
   const std::vector<std::string> &host_errors = p.host_errors;
   nlohmann::ordered_json j;
   j[K::submit] = p.submit;
   j["fence"] = p.fence;
   j["mode"] = gpu_mode_name(p.mode);
   if (dev.sampling.enabled())
      j["sample"] = {{"frame", p.frame},
                     {"role", FrameSampling::role_name(p.role)},
                     {"block", dev.sampling.block(p.frame)}};
   j["queue"] = {{"address", fmt::format("0x{:x}", args.cmd_address)}, {"dwords", args.cmd_dwords}};
   j["commands"] = r.commands;
   j["halted"] = r.halted;
   j[K::cycles] = r.cycles;
   nlohmann::ordered_json draws = nlohmann::ordered_json::array();
   /* the draws' module statistics are copied once (not through
    * draw_report_json); without `full`, only their "cycles" and "modules" */
   for (DrawReport &d : r.draws) {
      nlohmann::ordered_json dj;
      dj[K::draw] = first_draw + d.ctx.index_in_queue;
      nlohmann::ordered_json modules;
      modules.swap(d.modules);
      nlohmann::ordered_json rj = draw_report_json(d);
      d.modules.swap(modules);
      for (auto it = rj.begin(); it != rj.end(); ++it) {
         if (it.key() != K::modules) {
            dj[it.key()] = std::move(it.value());
         } else if (full || !d.modules.is_object()) {
            dj[K::modules] = d.modules;
         } else {
            /* {"cycles", "modules": {name: {ticks, busy, stalled, starved,
             * idle}}}: no queues, no module counters */
            nlohmann::ordered_json m = nlohmann::ordered_json::object();
            if (d.modules.contains(K::cycles))
               m[K::cycles] = d.modules[K::cycles];
            if (d.modules.contains(K::bottleneck))
               m[K::bottleneck] = d.modules[K::bottleneck];
            if (d.modules.contains(K::modules) && d.modules[K::modules].is_object()) {
               nlohmann::ordered_json mods = nlohmann::ordered_json::object();
               for (const auto &[name, mod] : d.modules[K::modules].items()) {
                  nlohmann::ordered_json o = nlohmann::ordered_json::object();
#define COPY_KEY(k)                                                                                \
   if (mod.is_object() && mod.contains(K::k))                                                      \
      o[K::k] = mod[K::k];
                  VLG_STATS_MODULE_CYCLE_KEYS(COPY_KEY)
#undef COPY_KEY
                  mods[name] = std::move(o);
               }
               m[K::modules] = std::move(mods);
            }
            dj[K::modules] = std::move(m);
         }
      }
      draws.push_back(std::move(dj));
   }
   j[K::draws] = std::move(draws);
   nlohmann::ordered_json dispatches = nlohmann::ordered_json::array();
   for (const DispatchReport &d : r.dispatches)
      dispatches.push_back(dispatch_report_json(d));
   j["dispatches"] = std::move(dispatches);
   nlohmann::ordered_json copies = nlohmann::ordered_json::array();
   for (const CopyReport &c : r.copies)
      copies.push_back(copy_report_json(c));
   j["copies"] = std::move(copies);
   nlohmann::ordered_json faults = nlohmann::ordered_json::array();
   for (const FaultRecord &f : r.faults)
      faults.push_back(
         {{"module", f.module},
          {"summary", f.summary},
          {"cmd_offset_dw", f.cmd_offset_dw},
          {"draw", f.draw_index >= 0 ? nlohmann::ordered_json(first_draw + uint64_t(f.draw_index))
                                     : nlohmann::ordered_json(nullptr)},
          {"dispatch", f.dispatch_index >= 0 ? nlohmann::ordered_json(f.dispatch_index)
                                             : nlohmann::ordered_json(nullptr)},
          {"copy", f.copy_index >= 0 ? nlohmann::ordered_json(f.copy_index)
                                     : nlohmann::ordered_json(nullptr)}});
   j["faults"] = std::move(faults);
   j["host_errors"] = host_errors;
   if (full) {
      j[K::stats] = r.stats;
   } else if (r.stats.is_object()) {
      /* the whole queue's breakdown and modules (their cycles and counters,
       * not the queues): the frame's figures (draw windows overlap) */
      nlohmann::ordered_json st = nlohmann::ordered_json::object();
      if (r.stats.contains(K::modules))
         st[K::modules] = r.stats[K::modules];
      if (r.stats.contains(K::bottleneck))
         st[K::bottleneck] = r.stats[K::bottleneck];
      j[K::stats] = std::move(st);
   }
   return j;
}

/** Print the statistics of the last submit into dev.stats (everything) or
 *  dev.draw_stats (`full` false: vlg_drm_get_draw_stats_json) if not yet
 *  done. */
void
make_stats(vlg_drm_device &dev, bool full)
{
   bool &made = full ? dev.stats_made : dev.draw_stats_made;
   if (made || !dev.pending_stats)
      return;
   vlg_drm_device::PendingStats &p = *dev.pending_stats;
   /* indented for the files of VLGPU_STATS=DIR, compact for the driver's
    * parser */
   (full ? dev.stats : dev.draw_stats) =
      stats_json(dev, p, full)
         .dump(full && !dev.stats_dir.empty() ? 2 : -1);
   made = true;
}

/** Set dev->fault to "@entry: @what" without letting an exception out. */
void
set_fault(vlg_drm_device *dev, const char *entry, const char *what) noexcept
{
   if (!dev)
      return;
   try {
      dev->fault = fmt::format("{}: {}", entry, what);
   } catch (...) {
      dev->fault.clear(); /* out of memory for the text: no reason, still the code */
   }
}

/** Run @f (the body of entry point @entry), turning every exception into
 *  @nomem (std::bad_alloc) or @error (anything else) with the reason in
 *  dev->fault: no exception crosses the C boundary. */
template <typename R, typename F>
R
guarded(vlg_drm_device *dev, const char *entry, R nomem, R error, F &&f) noexcept
{
   try {
      entry_hook(entry);
      return f();
   } catch (const std::bad_alloc &) {
      set_fault(dev, entry, "out of host memory");
      return nomem;
   } catch (const std::exception &e) {
      try {
         set_fault(dev, entry, ("internal error: " + std::string(e.what())).c_str());
      } catch (...) {
         set_fault(dev, entry, "internal error");
      }
      return error;
   } catch (...) {
      set_fault(dev, entry, "internal error: unknown exception");
      return error;
   }
}

/** guarded() for the functions that return an errno value. */
template <typename F>
int
guarded(vlg_drm_device *dev, const char *entry, F &&f) noexcept
{
   return guarded<int>(dev, entry, -ENOMEM, -EIO, std::forward<F>(f));
}

/** The text vlg_drm_get_stats_json (@full) or vlg_drm_get_draw_stats_json
 *  returns: make_stats(), "{}" without a device, {"error": what} when the
 *  statistics cannot be made (the driver only reads this text). */
const char *
stats_text(vlg_drm_device *dev, bool full) noexcept
{
   if (!dev)
      return "{}";
   const char *entry = full ? "vlg_drm_get_stats_json" : "vlg_drm_get_draw_stats_json";
   std::string &text = full ? dev->stats : dev->draw_stats;
   std::string what = "out of host memory";
   try {
      entry_hook(entry);
      make_stats(*dev, full);
      return text.c_str();
   } catch (const std::bad_alloc &) {
   } catch (const std::exception &e) {
      try {
         what = std::string("internal error: ") + e.what();
      } catch (...) {
      }
   } catch (...) {
      what = "internal error: unknown exception";
   }
   (full ? dev->stats_made : dev->draw_stats_made) = true;
   try {
      text = nlohmann::ordered_json{{"error", fmt::format("{}: {}", entry, what)}}.dump(2);
      return text.c_str();
   } catch (...) {
      return "{\"error\": \"out of host memory\"}";
   }
}

/** vlg_drm_device_create without the exception guard: throws std::bad_alloc
 *  (out of host memory) and whatever else fails unexpectedly. */
int
create_device(const vlg_drm_create_args *args, vlg_drm_device **out, char *err, size_t err_size)
{
   auto dev = std::make_unique<vlg_drm_device>();
   try {
      dev->cfg =
         args->config_path && *args->config_path ? Config::load(args->config_path) : Config{};
      if (args->config_overrides && *args->config_overrides)
         dev->cfg.apply_overrides(args->config_overrides);
      dev->cfg.validate();
   } catch (const ConfigError &e) {
      set_err(err, err_size, e.what());
      return -EINVAL;
   }
   if (args->mode != VLG_DRM_MODE_CYCLE && args->mode != VLG_DRM_MODE_FUNCTIONAL) {
      set_err(err, err_size,
              fmt::format("unknown mode {} (VLG_DRM_MODE_CYCLE = 0, "
                          "VLG_DRM_MODE_FUNCTIONAL = 1)",
                          args->mode));
      return -EINVAL;
   }
   dev->mode = GpuMode(args->mode);
   if (dev->mode == GpuMode::Cycle && !cycle_gpu_available()) {
      try {
         make_gpu(GpuMode::Cycle, dev->cfg);
      } catch (const ConfigError &e) {
         set_err(err, err_size, e.what());
      }
      return -ENOTSUP;
   }
   try {
      dev->gpu = make_gpu(dev->mode, dev->cfg);
   } catch (const ConfigError &e) {
      set_err(err, err_size, e.what());
      return -EINVAL;
   }
   if (args->sample && *args->sample) {
      try {
         dev->sampling = FrameSampling::parse(args->sample);
      } catch (const std::invalid_argument &e) {
         set_err(err, err_size, e.what());
         return -EINVAL;
      }
      if (dev->mode != GpuMode::Cycle) {
         set_err(err, err_size,
                 fmt::format("sample '{}': sampling times frames in cycle mode; this device "
                             "is functional",
                             args->sample));
         return -EINVAL;
      }
      dev->functional_gpu = dev->sampling.skip()
                               ? make_functional_gpu_skipping_work(dev->cfg)
                               : make_gpu(GpuMode::Functional, dev->cfg);
   }
   if (args->dump_draws) {
      try {
         dev->dump_draws = DrawSet::parse(args->dump_draws);
      } catch (const std::invalid_argument &e) {
         set_err(err, err_size, e.what());
         return -EINVAL;
      }
   }
   auto make_dir = [&](const char *what, const char *path, std::string &into) {
      if (!path || !*path)
         return true;
      std::error_code ec;
      std::filesystem::create_directories(path, ec);
      if (ec) {
         set_err(
            err, err_size,
            fmt::format("{} '{}': cannot create the directory: {}", what, path, ec.message()));
         return false;
      }
      into = path;
      return true;
   };
   if (!make_dir("dump_dir", args->dump_dir, dev->dump_dir) ||
       !make_dir("stats_dir", args->stats_dir, dev->stats_dir))
      return -EINVAL;
   dev->draw_modules = !args->omit_draw_modules || !dev->stats_dir.empty() || !dev->dump_dir.empty();
   if (args->capture_dir && *args->capture_dir) {
      if (dev->sampling.skip()) {
         /* a capture records what the live run drew, for replays to compare with */
         set_err(err, err_size,
                 fmt::format("sample '{}': a capture (capture_dir) cannot be taken of a run that "
                             "skips frames; sample the capture's replay instead (vlgpu-sim "
                             "replay --sample)",
                             args->sample));
         return -EINVAL;
      }
      CaptureWriter::Info ci;
      try {
         if (args->capture_frames && *args->capture_frames)
            std::tie(ci.first_frame, ci.last_frame) = parse_capture_frames(args->capture_frames);
      } catch (const CaptureError &e) {
         set_err(err, err_size, e.what());
         return -EINVAL;
      }
      if (!make_dir("capture_dir", args->capture_dir, ci.dir))
         return -EINVAL;
      ci.client = args->client ? args->client : "";
      ci.mode = dev->mode;
      dev->capture_info = ci;
   }
   if (!dev->stats_dir.empty()) {
      try {
         dev->cfg.write_json((std::filesystem::path(dev->stats_dir) / "config.json").string());
      } catch (const ConfigError &e) {
         set_err(err, err_size, fmt::format("stats_dir: {}", e.what()));
         return -EINVAL;
      }
   }
   dev->vram = std::make_unique<Vram>(dev->cfg.vram_size_bytes);
   dev->alloc =
      std::make_unique<VramAllocator>(kReservedVram, dev->cfg.vram_size_bytes - kReservedVram);
   *out = dev.release();
   return 0;
}

} // namespace

namespace {

/** vlg_drm_get_param's answer (dev, value not NULL). */
int
get_param(const vlg_drm_device *dev, uint32_t param, uint64_t *value)
{
   switch (param) {
   case VLG_DRM_PARAM_VRAM_SIZE:
      *value = dev->cfg.vram_size_bytes;
      return 0;
   case VLG_DRM_PARAM_NUM_GPCS:
      *value = dev->cfg.gpcs;
      return 0;
   case VLG_DRM_PARAM_SPCS_PER_GPC:
      *value = dev->cfg.spcs_per_gpc;
      return 0;
   case VLG_DRM_PARAM_THREADGROUP_WIDTH:
      *value = dev->cfg.thread_group_width;
      return 0;
   case VLG_DRM_PARAM_MAX_TEXTURE_SIZE:
      *value = kMaxTextureSize;
      return 0;
   case VLG_DRM_PARAM_MODE:
      *value = uint64_t(dev->mode);
      return 0;
   case VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS:
      *value = vlgpu::sim::compute_limits(dev->cfg).max_invocations();
      return 0;
   case VLG_DRM_PARAM_COMPUTE_SHARED_MEMORY:
      *value = vlgpu::sim::compute_limits(dev->cfg).shared_memory_bytes;
      return 0;
   case VLG_DRM_PARAM_MAX_COMPUTE_REGS:
      *value = vlgpu::sim::compute_limits(dev->cfg).max_regs;
      return 0;
   default:
      return -EINVAL;
   }
}

} // namespace

uint8_t *
vlgpu::sim::device_vram(vlg_drm_device *dev, uint64_t *size)
{
   *size = dev->vram->size();
   return dev->vram->data();
}

void
vlgpu::sim::device_set_label(vlg_drm_device *dev, uint64_t address, uint64_t size,
                             std::string label)
{
   if (dev->functional_gpu)
      dev->functional_gpu->set_label(address, size, label);
   dev->gpu->set_label(address, size, std::move(label));
}

void
vlgpu::sim::device_set_counters(vlg_drm_device *dev, uint64_t submits, uint64_t fence,
                                uint64_t draws)
{
   dev->submits = submits;
   dev->fence = fence;
   dev->draws = draws;
}

void
vlgpu::sim::set_device_entry_hook_for_tests(void (*hook)(const char *entry))
{
   g_entry_hook = hook;
}

extern "C" {

int
vlg_drm_device_create(const struct vlg_drm_create_args *args, struct vlg_drm_device **out,
                      char *err, size_t err_size)
{
   if (out)
      *out = nullptr;
   if (!args || !out) {
      set_err(err, err_size, "vlg_drm_device_create: ", "args and out must not be NULL");
      return -EINVAL;
   }
   try {
      entry_hook("vlg_drm_device_create");
      return create_device(args, out, err, err_size);
   } catch (const std::bad_alloc &) {
      set_err(err, err_size, "vlg_drm_device_create: ",
              "out of host memory (VRAM is allocated lazily; is vram.size_bytes larger than the "
              "address space?)");
      return -ENOMEM;
   } catch (const std::exception &e) {
      set_err(err, err_size, "vlg_drm_device_create: internal error: ", e.what());
      return -EIO;
   } catch (...) {
      set_err(err, err_size, "vlg_drm_device_create: ", "internal error: unknown exception");
      return -EIO;
   }
}

void
vlg_drm_device_destroy(struct vlg_drm_device *dev)
{
   /* destructors do not throw (C++11: noexcept): no guard */
   if (dev)
      capture_stop(*dev, true);
   delete dev;
}

int
vlg_drm_get_param(struct vlg_drm_device *dev, uint32_t param, uint64_t *value)
{
   if (!dev || !value)
      return -EINVAL;
   return guarded(dev, "vlg_drm_get_param", [&] {
      const int r = get_param(dev, param, value);
      if (r == 0) {
         dev->params_read[vlg_drm_param_name(param)] = *value;
         if (dev->capture)
            dev->capture->set_driver_params(dev->params_read);
      }
      return r;
   });
}

const char *
vlg_drm_param_name(uint32_t param)
{
   switch (param) {
   case VLG_DRM_PARAM_VRAM_SIZE: return "vram_size";
   case VLG_DRM_PARAM_NUM_GPCS: return "num_gpcs";
   case VLG_DRM_PARAM_SPCS_PER_GPC: return "spcs_per_gpc";
   case VLG_DRM_PARAM_THREADGROUP_WIDTH: return "threadgroup_width";
   case VLG_DRM_PARAM_MAX_TEXTURE_SIZE: return "max_texture_size";
   case VLG_DRM_PARAM_MODE: return "mode";
   case VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS: return "max_compute_invocations";
   case VLG_DRM_PARAM_COMPUTE_SHARED_MEMORY: return "compute_shared_memory";
   case VLG_DRM_PARAM_MAX_COMPUTE_REGS: return "max_compute_regs";
   default: return nullptr;
   }
}

int
vlg_drm_bo_create(struct vlg_drm_device *dev, struct vlg_drm_bo_create *args)
{
   if (!dev || !args)
      return -EINVAL;
   return guarded(dev, "vlg_drm_bo_create", [&] {
      const uint64_t align = args->align ? args->align : 256;
      if (args->size == 0 || (align & (align - 1)) != 0)
         return -EINVAL;
      const std::optional<uint64_t> a = dev->alloc->alloc(args->size, align);
      if (!a)
         return -ENOMEM;
      uint32_t h = dev->next_handle;
      while (h == 0 || dev->bos.count(h))
         h++;
      dev->next_handle = h + 1;
      dev->bos[h] = Bo{*a, args->size};
      std::memset(dev->vram->data() + *a, 0, args->size);
      args->handle = h;
      args->address = *a;
      return 0;
   });
}

void *
vlg_drm_bo_map(struct vlg_drm_device *dev, uint32_t handle)
{
   if (!dev)
      return nullptr;
   return guarded<void *>(dev, "vlg_drm_bo_map", nullptr, nullptr, [&]() -> void * {
      auto it = dev->bos.find(handle);
      if (it == dev->bos.end())
         return nullptr;
      return dev->vram->data() + it->second.address;
   });
}

int
vlg_drm_bo_free(struct vlg_drm_device *dev, uint32_t handle)
{
   if (!dev)
      return -EINVAL;
   return guarded(dev, "vlg_drm_bo_free", [&] {
      auto it = dev->bos.find(handle);
      if (it == dev->bos.end())
         return -ENOENT;
      dev->alloc->free(it->second.address);
      device_set_label(dev, it->second.address, it->second.size, {});
      dev->bos.erase(it);
      return 0;
   });
}

int
vlg_drm_bo_set_label(struct vlg_drm_device *dev, uint32_t handle, const char *label)
{
   if (!dev)
      return -EINVAL;
   return guarded(dev, "vlg_drm_bo_set_label", [&] {
      auto it = dev->bos.find(handle);
      if (it == dev->bos.end())
         return -ENOENT;
      std::string text = label ? std::string(label).substr(0, VLG_DRM_LABEL_MAX) : std::string();
      capture_record(*dev, [&](CaptureWriter &w) {
         w.label(it->second.address, it->second.size, text);
      });
      device_set_label(dev, it->second.address, it->second.size, std::move(text));
      return 0;
   });
}

int
vlg_drm_display_set(struct vlg_drm_device *dev, uint32_t id, const struct vlg_drm_display *display)
{
   if (!dev || !display || id == 0)
      return -EINVAL;
   const unsigned bpp = vlg_format_bytes(display->format);
   if (!vlg_format_is_valid(display->format) || bpp == 0)
      return -EINVAL;
   if (display->width && display->height) {
      if (!display->data)
         return -EINVAL;
      if (uint64_t(display->stride) < uint64_t(display->width) * bpp)
         return -EINVAL;
   }
   return guarded(dev, "vlg_drm_display_set", [&] {
      Display d;
      d.data = static_cast<uint8_t *>(display->data);
      d.stride = display->stride;
      d.width = display->width;
      d.height = display->height;
      d.format = display->format;
      dev->displays[id] = d;
      capture_record(*dev, [&](CaptureWriter &w) { w.display(id, d); });
      return 0;
   });
}

int
vlg_drm_display_remove(struct vlg_drm_device *dev, uint32_t id)
{
   if (!dev)
      return -EINVAL;
   return guarded(dev, "vlg_drm_display_remove", [&] {
      auto it = dev->displays.find(id);
      if (it == dev->displays.end())
         return -ENOENT;
      capture_record(*dev, [&](CaptureWriter &w) {
         w.display_image(id, it->second);
         w.display_remove(id);
      });
      dev->displays.erase(it);
      return 0;
   });
}

int
vlg_drm_submit(struct vlg_drm_device *dev, struct vlg_drm_submit *args)
{
   if (!dev || !args)
      return -EINVAL;
   if (args->flags != 0 || args->cmd_dwords == 0 || args->cmd_address % 4 != 0 ||
       !dev->vram->contains(args->cmd_address, uint64_t(args->cmd_dwords) * 4))
      return -EINVAL;
   return guarded(dev, "vlg_drm_submit", [&] {
      const uint64_t submit = ++dev->submits;
      const uint64_t first_draw = dev->draws;
      dev->fault.clear();
      DeviceHost host(*dev, submit);
      dev->pending_stats.reset();
      dev->stats_made = dev->draw_stats_made = false;
      capture_record(*dev, [&](CaptureWriter &w) {
         w.before_submit(dev->vram->data(), dev->vram->size(), bo_ranges(*dev), submit - 1,
                         dev->fence, first_draw, args->cmd_address, args->cmd_dwords);
      });
      /* a sampled run's functional or skipped frames: the functional GPU */
      const FrameSampling::Role role = dev->sampling.role(dev->frame);
      const bool timed = role == FrameSampling::Role::Measured || role == FrameSampling::Role::Warmup;
      Gpu &gpu = timed ? *dev->gpu : *dev->functional_gpu;
      SubmitResult r = gpu.execute(*dev->vram, args->cmd_address, args->cmd_dwords, host);
      /* (no-op unless the capture recorded the submit) */
      capture_guard(*dev, [&](CaptureWriter &w) {
         w.after_submit(dev->vram->data(), dev->vram->size(), bo_ranges(*dev));
      });
      dev->draws += r.draws.size();
      args->fence = ++dev->fence;
      dev->fault = fault_text(submit, first_draw, r);
      const int ret = r.faults.empty() ? 0 : -EIO;
      dev->pending_stats =
         vlg_drm_device::PendingStats{submit,      args->fence, first_draw,  *args,
                                      std::move(r), host.host_errors(), gpu.mode(), role,
                                      dev->frame};
      if (!dev->stats_dir.empty()) {
         make_stats(*dev, true);
         const std::string path =
            (std::filesystem::path(dev->stats_dir) / fmt::format("submit-{:06}.json", submit))
               .string();
         try {
            dump::write_text(path, dev->stats + "\n");
         } catch (const DumpError &e) {
            host.host_error(fmt::format("statistics: {}", e.what()));
         }
      }
      return ret;
   });
}

int
vlg_drm_end_frame(struct vlg_drm_device *dev)
{
   if (!dev)
      return -EINVAL;
   return guarded(dev, "vlg_drm_end_frame", [&] {
      dev->gpu->end_frame();
      capture_record(*dev, [&](CaptureWriter &w) {
         for (const auto &[id, d] : dev->displays)
            w.display_image(id, d);
         if (dev->frame_image) {
            const vlg_drm_frame_image &f = *dev->frame_image;
            w.frame_image(f.address, Display{dev->vram->data() + f.address, f.stride, f.width,
                                             f.height, f.format});
         }
         w.end_frame(dev->frame);
      });
      dev->frame_image.reset();
      if (dev->capture && dev->frame >= dev->capture_info->last_frame)
         capture_stop(*dev, true);
      dev->frame++;
      return 0;
   });
}

int
vlg_drm_set_frame_image(struct vlg_drm_device *dev, const struct vlg_drm_frame_image *img)
{
   if (!dev)
      return -EINVAL;
   return guarded(dev, "vlg_drm_set_frame_image", [&] {
      if (!img) {
         dev->frame_image.reset();
         return 0;
      }
      const uint64_t bpp = vlg_format_bytes(img->format);
      const uint64_t row = uint64_t(img->width) * bpp;
      if (bpp == 0 || img->width == 0 || img->height == 0 || img->stride < row ||
          img->address > dev->cfg.vram_size_bytes ||
          (uint64_t(img->height) - 1) * img->stride + row >
             dev->cfg.vram_size_bytes - img->address)
         return -EINVAL;
      dev->frame_image = *img;
      return 0;
   });
}

int
vlg_drm_wait(struct vlg_drm_device *dev, uint64_t fence, uint64_t timeout_ns)
{
   (void)timeout_ns; /* submits run synchronously: a fence is signalled once issued */
   if (!dev || fence == 0 || fence > dev->fence)
      return -EINVAL;
   return guarded(dev, "vlg_drm_wait", [] { return 0; });
}

const char *
vlg_drm_get_fault(struct vlg_drm_device *dev)
{
   /* nothing here can throw: no guard */
   return dev ? dev->fault.c_str() : "";
}

const char *
vlg_drm_get_stats_json(struct vlg_drm_device *dev)
{
   return stats_text(dev, true);
}

const char *
vlg_drm_get_draw_stats_json(struct vlg_drm_device *dev)
{
   return stats_text(dev, false);
}

const char *
vlg_drm_get_modules_json(struct vlg_drm_device *dev)
{
   if (!dev)
      return "[]";
   return guarded<const char *>(dev, "vlg_drm_get_modules_json", "[]", "[]", [&] {
      if (dev->modules.empty()) {
         nlohmann::ordered_json j = nlohmann::ordered_json::array();
         for (const Gpu::ModuleName &m : dev->gpu->modules())
            j.push_back({{"name", m.name}, {"class", m.module_class}});
         dev->modules = j.dump();
      }
      return dev->modules.c_str();
   });
}

} /* extern "C" */
