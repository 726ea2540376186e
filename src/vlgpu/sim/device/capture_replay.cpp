/*
 * vlgpu simulator: replay of a frame capture by the simulator alone
 * (capture.h, docs/capture.md): a vlgpu_drm.h device, its VRAM pages and
 * displays re-created from the capture, every submit run again.
 */
#include <cerrno>
#include <cmath>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <zstd.h>

#include "vlgpu_drm.h"
#include "sim/device/capture.h"
#include "sim/dump/dump.h"
#include "sim/dump/image.h"
#include "vlg_hw.h"

namespace fs = std::filesystem;

namespace vlgpu::sim {

namespace {

/** The event log read line by line (zstd stream, concatenated frames). */
class LogReader {
 public:
   explicit LogReader(const std::string &path) : path_(path)
   {
      f_ = std::fopen(path.c_str(), "rb");
      if (!f_)
         throw CaptureError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
      d_ = ZSTD_createDCtx();
      if (!d_)
         throw std::bad_alloc();
   }
   ~LogReader()
   {
      ZSTD_freeDCtx(d_);
      std::fclose(f_);
   }
   LogReader(const LogReader &) = delete;
   LogReader &operator=(const LogReader &) = delete;

   /** The next line (without '\n'); false at the end of the log.
    *  @throws CaptureError for corrupt or truncated data. */
   bool next(std::string &line)
   {
      for (;;) {
         const size_t nl = text_.find('\n', pos_);
         if (nl != std::string::npos) {
            line = text_.substr(pos_, nl - pos_);
            pos_ = nl + 1;
            line_no_++;
            return true;
         }
         text_.erase(0, pos_);
         pos_ = 0;
         if (!fill()) {
            if (!text_.empty())
               throw CaptureError(
                  fmt::format("{}:{}: truncated (last line has no end)", path_, line_no_ + 1));
            return false;
         }
      }
   }
   uint64_t line_no() const { return line_no_; }
   const std::string &path() const { return path_; }

 private:
   /** Decompress more into text_; false at the end of the file. */
   bool fill()
   {
      for (;;) {
         if (in_pos_ == in_size_) {
            in_size_ = std::fread(in_.data(), 1, in_.size(), f_);
            in_pos_ = 0;
            if (in_size_ == 0) {
               if (std::ferror(f_))
                  throw CaptureError(fmt::format("{}: read error", path_));
               if (mid_frame_)
                  throw CaptureError(fmt::format(
                     "{}: truncated after line {} (the zstd stream ends inside a frame)", path_,
                     line_no_));
               return false;
            }
         }
         ZSTD_inBuffer in{in_.data(), in_size_, in_pos_};
         ZSTD_outBuffer o{out_.data(), out_.size(), 0};
         const size_t r = ZSTD_decompressStream(d_, &o, &in);
         if (ZSTD_isError(r))
            throw CaptureError(fmt::format("{}: corrupt after line {}: zstd: {}", path_,
                                           line_no_, ZSTD_getErrorName(r)));
         in_pos_ = in.pos;
         mid_frame_ = r != 0;
         if (o.pos) {
            text_.append(out_.data(), o.pos);
            return true;
         }
      }
   }

   std::string path_;
   std::FILE *f_ = nullptr;
   ZSTD_DCtx *d_ = nullptr;
   std::vector<char> in_ = std::vector<char>(ZSTD_DStreamInSize());
   std::vector<char> out_ = std::vector<char>(ZSTD_DStreamOutSize());
   size_t in_size_ = 0, in_pos_ = 0;
   bool mid_frame_ = false;
   std::string text_;
   size_t pos_ = 0;
   uint64_t line_no_ = 0;
};

/** The replay's state: the device, the displays' memory, the frame so far. */
struct Replay {
   const CaptureReplayOptions &opts;
   vlg_drm_device *dev = nullptr;
   uint8_t *vram = nullptr;
   uint64_t vram_size = 0;
   std::map<uint32_t, std::vector<uint8_t>> display_mem;
   std::map<uint32_t, Display> displays;
   CaptureReplayFrame frame;
   /** The last image of each display in this frame (Display.data into image_mem). */
   std::map<uint32_t, Display> images;
   std::map<uint32_t, std::vector<uint8_t>> image_mem;
   /** The frame's off-screen image (frame_image event; data into frame_image_mem). */
   std::optional<Display> frame_image;
   std::vector<uint8_t> frame_image_mem;
   std::vector<CaptureReplayFrame> frames;
   std::FILE *frames_file = nullptr;
   /** host clocks at the previous frame end (or the capture's opening) */
   std::chrono::steady_clock::time_point wall_mark = std::chrono::steady_clock::now();
   double cpu_mark_ms = 0;

   explicit Replay(const CaptureReplayOptions &o) : opts(o) {}
   ~Replay()
   {
      vlg_drm_device_destroy(dev);
      if (frames_file)
         std::fclose(frames_file);
   }
};

template <typename T>
T
field(const nlohmann::json &j, const char *key, const LogReader &log)
{
   if (!j.contains(key))
      throw CaptureError(fmt::format("{}:{}: event without \"{}\"", log.path(), log.line_no(), key));
   try {
      return j.at(key).get<T>();
   } catch (const nlohmann::json::exception &) {
      throw CaptureError(
         fmt::format("{}:{}: \"{}\" has the wrong type", log.path(), log.line_no(), key));
   }
}

void
load_page(Replay &rp, uint64_t address, const std::string &hash, const LogReader &log)
{
   /* (no address + page size: it wraps for an address near 2^64) */
   if (address % kCapturePageBytes || rp.vram_size < kCapturePageBytes ||
       address > rp.vram_size - kCapturePageBytes)
      throw CaptureError(
         fmt::format("{}:{}: page address 0x{:x} outside VRAM ({} bytes)", log.path(),
                     log.line_no(), address, rp.vram_size));
   const std::string path = (fs::path(rp.opts.dir) / "blobs" / (hash + ".zst")).string();
   std::vector<uint8_t> z;
   try {
      z = dump::read_file(path, ZSTD_compressBound(kCapturePageBytes));
   } catch (const DumpError &e) {
      throw CaptureError(fmt::format("{} (page 0x{:x} of {}:{})", e.what(), address, log.path(),
                                     log.line_no()));
   }
   const size_t n = ZSTD_decompress(rp.vram + address, kCapturePageBytes, z.data(), z.size());
   if (ZSTD_isError(n) || n != kCapturePageBytes)
      throw CaptureError(fmt::format("{}: not a zstd-compressed page of {} bytes{}{}", path,
                                     kCapturePageBytes, ZSTD_isError(n) ? ": " : "",
                                     ZSTD_isError(n) ? ZSTD_getErrorName(n) : ""));
   if (capture_page_hash(rp.vram + address, kCapturePageBytes) != hash)
      throw CaptureError(fmt::format("{}: the contents do not match the name (hash)", path));
}

void
set_display(Replay &rp, const nlohmann::json &ev, const LogReader &log)
{
   const uint32_t id = field<uint32_t>(ev, "id", log);
   Display d;
   d.width = field<uint32_t>(ev, "width", log);
   d.height = field<uint32_t>(ev, "height", log);
   d.stride = field<uint32_t>(ev, "stride", log);
   d.format = field<uint32_t>(ev, "format", log);
   std::vector<uint8_t> &mem = rp.display_mem[id];
   mem.assign(size_t(d.stride) * d.height, 0);
   d.data = mem.empty() ? nullptr : mem.data();
   vlg_drm_display disp{d.data, d.stride, d.width, d.height, d.format};
   if (vlg_drm_display_set(rp.dev, id, &disp) != 0)
      throw CaptureError(fmt::format("{}:{}: display {} rejected by the device", log.path(),
                                     log.line_no(), id));
   rp.displays[id] = d;
}

void
run_submit(Replay &rp, const nlohmann::json &ev, const LogReader &log)
{
   device_set_counters(rp.dev, field<uint64_t>(ev, "submit", log), field<uint64_t>(ev, "fence", log),
                       field<uint64_t>(ev, "draws", log));
   struct vlg_drm_submit s {};
   s.cmd_address = field<uint64_t>(ev, "cmd_address", log);
   s.cmd_dwords = field<uint32_t>(ev, "cmd_dwords", log);
   const int r = vlg_drm_submit(rp.dev, &s);
   if (r == -EINVAL)
      throw CaptureError(fmt::format("{}:{}: submit rejected by the device (queue 0x{:x}, {} dwords)",
                                     log.path(), log.line_no(), s.cmd_address, s.cmd_dwords));
   if (r != 0)
      std::fprintf(stderr, "vlgpu-sim: %s\n", vlg_drm_get_fault(rp.dev));
   const nlohmann::json st = nlohmann::json::parse(vlg_drm_get_draw_stats_json(rp.dev), nullptr,
                                                   false);
   rp.frame.submits++;
   if (st.is_object()) {
      rp.frame.cycles += st.value("cycles", uint64_t(0));
      if (st.contains("sample") && st["sample"].is_object()) {
         rp.frame.sample = st["sample"].value("role", std::string());
         rp.frame.sample_block = st["sample"].value("block", int64_t(-1));
      }
      if (st.contains("draws") && st["draws"].is_array())
         rp.frame.draws += st["draws"].size();
      if (st.contains("faults") && st["faults"].is_array())
         rp.frame.faults += st["faults"].size();
   }
}

/** Whether the frame under way is one a sampled replay does not draw
 *  (frame_sampling.h "skip"): its images are not the live run's. */
bool
skipped(const Replay &rp)
{
   return rp.frame.sample == "skipped";
}

/** display_image: compare display @id with the live run's hash, keep a copy for the PNG. */
void
display_image(Replay &rp, const nlohmann::json &ev, const LogReader &log)
{
   const uint32_t id = field<uint32_t>(ev, "id", log);
   const std::string hash = field<std::string>(ev, "hash", log);
   auto it = rp.displays.find(id);
   if (it == rp.displays.end())
      throw CaptureError(fmt::format("{}:{}: image of display {}, which is not registered",
                                     log.path(), log.line_no(), id));
   if (skipped(rp))
      return;
   rp.frame.images++;
   if (display_hash(it->second) != hash)
      rp.frame.images_differing++;
   rp.image_mem[id] = rp.display_mem[id];
   Display copy = it->second;
   copy.data = rp.image_mem[id].empty() ? nullptr : rp.image_mem[id].data();
   rp.images[id] = copy;
}

/** This process's CPU time so far, milliseconds (CLOCK_PROCESS_CPUTIME_ID). */
double
process_cpu_ms()
{
   timespec ts{};
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

/** frame_image: compare the replay's VRAM where the live frame's image was
 *  with its hash, keep a copy for the PNG. */
void
frame_image(Replay &rp, const nlohmann::json &ev, const LogReader &log)
{
   Display d;
   const uint64_t address = field<uint64_t>(ev, "address", log);
   d.stride = field<uint32_t>(ev, "stride", log);
   d.width = field<uint32_t>(ev, "width", log);
   d.height = field<uint32_t>(ev, "height", log);
   d.format = field<uint32_t>(ev, "format", log);
   const std::string hash = field<std::string>(ev, "hash", log);
   const uint64_t row = uint64_t(d.width) * vlg_format_bytes(d.format);
   if (row == 0 || d.height == 0 || d.stride < row || address > rp.vram_size ||
       (uint64_t(d.height) - 1) * d.stride + row > rp.vram_size - address)
      throw CaptureError(fmt::format("{}:{}: frame image {}x{} (stride {}, format {}) at 0x{:x} "
                                     "is not an image of a known format inside VRAM",
                                     log.path(), log.line_no(), d.width, d.height, d.stride,
                                     d.format, address));
   d.data = rp.vram + address;
   if (skipped(rp))
      return;
   rp.frame.images++;
   if (display_hash(d) != hash)
      rp.frame.images_differing++;
   rp.frame_image_mem.assign(d.data, d.data + (uint64_t(d.height) - 1) * d.stride + row);
   d.data = rp.frame_image_mem.data();
   rp.frame_image = d;
}

/** Write @d as OUT/@name (a PNG) unless the options say no PNGs or its
 *  format has no PNG form; the path goes to the frame's list. */
void
write_frame_png(Replay &rp, const Display &d, const std::string &name)
{
   const dump::ImageCodec c = dump::image_codec(d.format);
   if (!rp.opts.write_pngs || !c.supported || !d.width || !d.height)
      return;
   const std::string path = (fs::path(rp.opts.out) / name).string();
   const std::vector<uint8_t> px = dump::image_to_png_pixels(c, d.data, d.stride, d.width, d.height);
   try {
      dump::write_png(path, d.width, d.height, c.channels, px.data());
   } catch (const DumpError &e) {
      throw CaptureError(e.what());
   }
   rp.frame.pngs.push_back(path);
}

void
end_frame(Replay &rp, uint64_t number)
{
   vlg_drm_end_frame(rp.dev);
   rp.frame.frame = number;
   for (const auto &[id, d] : rp.images)
      write_frame_png(rp, d, fmt::format("frame-{:06}-display-{}.png", number, id));
   if (rp.frame_image)
      write_frame_png(rp, *rp.frame_image, fmt::format("frame-{:06}-image.png", number));
   const auto now = std::chrono::steady_clock::now();
   const double cpu_now = process_cpu_ms();
   rp.frame.host_ms = std::chrono::duration<double, std::milli>(now - rp.wall_mark).count();
   rp.frame.cpu_ms = cpu_now - rp.cpu_mark_ms;
   rp.wall_mark = now;
   rp.cpu_mark_ms = cpu_now;
   const CaptureReplayFrame &f = rp.frame;
   const std::string line =
      nlohmann::ordered_json{{"frame", f.frame},   {"submits", f.submits},
                             {"draws", f.draws},   {"cycles", f.cycles},
                             {"faults", f.faults}, {"images", f.images},
                             {"images_differing", f.images_differing},
                             {"sample", f.sample},
                             {"sample_block", f.sample_block},
                             {"host_ms", std::round(f.host_ms * 1000) / 1000},
                             {"cpu_ms", std::round(f.cpu_ms * 1000) / 1000}}
         .dump() +
      "\n";
   if (std::fputs(line.c_str(), rp.frames_file) < 0)
      throw CaptureError(fmt::format("{}/frames.jsonl: write error", rp.opts.out));
   rp.frames.push_back(std::move(rp.frame));
   rp.frame = CaptureReplayFrame{};
   rp.images.clear();
   rp.image_mem.clear();
   rp.frame_image.reset();
   rp.frame_image_mem.clear();
}

void
run_event(Replay &rp, const std::string &line, const LogReader &log)
{
   const nlohmann::json ev = nlohmann::json::parse(line, nullptr, false);
   if (!ev.is_object() || !ev.contains("ev") || !ev["ev"].is_string())
      throw CaptureError(fmt::format("{}:{}: not an event (a JSON object with \"ev\")", log.path(),
                                     log.line_no()));
   const std::string kind = ev["ev"];
   if (kind == "pages") {
      const nlohmann::json pages = ev.value("pages", nlohmann::json());
      if (!pages.is_array())
         throw CaptureError(fmt::format("{}:{}: \"pages\" is not an array", log.path(), log.line_no()));
      for (const nlohmann::json &p : pages) {
         if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_string())
            throw CaptureError(
               fmt::format("{}:{}: a page is not [ADDRESS, \"HASH\"]", log.path(), log.line_no()));
         load_page(rp, p[0].get<uint64_t>(), p[1].get<std::string>(), log);
      }
   } else if (kind == "display") {
      set_display(rp, ev, log);
   } else if (kind == "frame_image") {
      frame_image(rp, ev, log);
   } else if (kind == "display_remove") {
      const uint32_t id = field<uint32_t>(ev, "id", log);
      vlg_drm_display_remove(rp.dev, id);
      rp.displays.erase(id);
      rp.display_mem.erase(id);
   } else if (kind == "display_image") {
      display_image(rp, ev, log);
   } else if (kind == "label") {
      /* the shader profile's names (VLGPU_PROFILE of a replay) */
      device_set_label(rp.dev, field<uint64_t>(ev, "address", log), field<uint64_t>(ev, "size", log),
                       field<std::string>(ev, "label", log));
   } else if (kind == "submit") {
      run_submit(rp, ev, log);
   } else if (kind == "end_frame") {
      end_frame(rp, field<uint64_t>(ev, "frame", log));
   } else {
      throw CaptureError(
         fmt::format("{}:{}: unknown event \"{}\"", log.path(), log.line_no(), kind));
   }
}

/** Field @key of the manifest @m (a JSON object) as T, @fallback when it is
 *  absent; a value of another type is a CaptureError naming @path and @key. */
template <typename T>
T
manifest_value(const nlohmann::json &m, const char *key, T fallback, const std::string &path)
{
   const auto it = m.find(key);
   if (it == m.end())
      return fallback;
   try {
      return it->get<T>();
   } catch (const nlohmann::json::exception &) {
      throw CaptureError(fmt::format("{}: \"{}\" has the wrong type", path, key));
   }
}

/** CAPTURE/manifest.json, checked: readable, this format. */
nlohmann::json
read_manifest(const std::string &dir)
{
   const std::string mpath = (fs::path(dir) / "manifest.json").string();
   std::string text;
   try {
      text = dump::read_text(mpath);
   } catch (const DumpError &e) {
      throw CaptureError(e.what());
   }
   const nlohmann::json m = nlohmann::json::parse(text, nullptr, false);
   if (!m.is_object() || manifest_value<std::string>(m, "format", "", mpath) != "vlgpu-capture")
      throw CaptureError(fmt::format("{}: not a vlgpu capture manifest (JSON with \"format\": "
                                     "\"vlgpu-capture\")",
                                     mpath));
   const int64_t version = manifest_value<int64_t>(m, "version", 0, mpath);
   if (version != 1)
      throw CaptureError(
         fmt::format("{}: capture format version {} (this vlgpu reads 1)", mpath, version));
   if (manifest_value<uint64_t>(m, "page_bytes", 0, mpath) != kCapturePageBytes)
      throw CaptureError(fmt::format("{}: page_bytes is not {}", mpath, kCapturePageBytes));
   return m;
}

/** Say on stderr which device parameters the captured client read
 *  (manifest "driver_params") this replay's device answers differently:
 *  the captured commands were made for the capture's values. */
void
note_driver_params(Replay &rp, const nlohmann::json &manifest)
{
   const nlohmann::json params = manifest.value("driver_params", nlohmann::json::object());
   if (!params.is_object())
      throw CaptureError(fmt::format("{}/manifest.json: \"driver_params\" is not an object",
                                     rp.opts.dir));
   for (uint32_t p = 0; p < VLG_DRM_PARAM_COUNT; p++) {
      const char *name = vlg_drm_param_name(p);
      uint64_t v = 0;
      if (!params.contains(name) || !params[name].is_number_unsigned() ||
          vlg_drm_get_param(rp.dev, p, &v) != 0 || v == params[name].get<uint64_t>())
         continue;
      std::fprintf(stderr,
                   "vlgpu-sim: note: the captured client read %s = %llu, this configuration "
                   "gives %llu: the replay runs commands made for the capture's value\n",
                   name, (unsigned long long)params[name].get<uint64_t>(),
                   (unsigned long long)v);
   }
}

/** Check the manifest and make the device. */
void
open_capture(Replay &rp)
{
   const nlohmann::json manifest = read_manifest(rp.opts.dir);
   std::error_code ec;
   fs::create_directories(fs::path(rp.opts.out) / "stats", ec);
   if (ec)
      throw CaptureError(fmt::format("{}: cannot create: {}", rp.opts.out, ec.message()));
   const std::string cfg = rp.opts.config.empty()
                              ? (fs::path(rp.opts.dir) / "config.json").string()
                              : rp.opts.config;
   const std::string stats = (fs::path(rp.opts.out) / "stats").string();
   vlg_drm_create_args a{};
   a.config_path = cfg.c_str();
   a.config_overrides = rp.opts.overrides.c_str();
   a.mode = uint32_t(rp.opts.mode);
   a.stats_dir = stats.c_str();
   a.client = "vlgpu-sim replay";
   a.sample = rp.opts.sample.c_str();
   char err[1024] = "";
   if (vlg_drm_device_create(&a, &rp.dev, err, sizeof(err)) != 0)
      throw ConfigError(err);
   rp.vram = device_vram(rp.dev, &rp.vram_size);
   note_driver_params(rp, manifest);
   const std::string fpath = (fs::path(rp.opts.out) / "frames.jsonl").string();
   rp.frames_file = std::fopen(fpath.c_str(), "w");
   if (!rp.frames_file)
      throw CaptureError(fmt::format("{}: cannot create: {}", fpath, std::strerror(errno)));
   rp.wall_mark = std::chrono::steady_clock::now();
   rp.cpu_mark_ms = process_cpu_ms();
}

} // namespace

std::string
capture_mode(const std::string &dir)
{
   const nlohmann::json m = read_manifest(dir);
   const std::string mode =
      manifest_value<std::string>(m, "mode", "", (fs::path(dir) / "manifest.json").string());
   if (mode != "cycle" && mode != "functional")
      throw CaptureError(fmt::format("{}/manifest.json: \"mode\" is not \"cycle\" or "
                                     "\"functional\"",
                                     dir));
   return mode;
}

std::vector<CaptureReplayFrame>
replay_capture(const CaptureReplayOptions &opts)
{
   Replay rp(opts);
   open_capture(rp);
   LogReader log((fs::path(opts.dir) / "events.jsonl.zst").string());
   std::string line;
   while (log.next(line))
      run_event(rp, line, log);
   return std::move(rp.frames);
}

} // namespace vlgpu::sim
