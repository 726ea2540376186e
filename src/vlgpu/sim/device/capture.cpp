/*
 * vlgpu simulator: the frame capture writer (capture.h, docs/capture.md).
 */
#include "sim/device/capture.h"

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <xxhash.h>
#include <zstd.h>

#include "sim/dump/dump.h"
#include "sim/dump/image.h"
#include "vlg_hw.h"

namespace fs = std::filesystem;

namespace vlgpu::sim {

namespace {

constexpr int kZstdLevel = 3;
/** Events kept in memory before they are compressed without waiting for
 *  the end of the frame. */
constexpr size_t kMaxPendingBytes = 1 << 20;

std::string
errno_text()
{
   return std::strerror(errno);
}

/** The command line of this process (/proc/self/cmdline), or [] when unreadable. */
nlohmann::ordered_json
app_cmdline()
{
   nlohmann::ordered_json a = nlohmann::ordered_json::array();
   std::ifstream f("/proc/self/cmdline", std::ios::binary);
   std::string arg;
   while (std::getline(f, arg, '\0'))
      a.push_back(arg);
   return a;
}

} // namespace

std::string
capture_page_hash(const uint8_t *data, uint64_t size)
{
   const XXH128_hash_t h = XXH3_128bits(data, size);
   return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::string
display_hash(const Display &d)
{
   XXH3_state_t *st = XXH3_createState();
   if (!st)
      throw std::bad_alloc();
   XXH3_128bits_reset(st);
   const uint64_t row = uint64_t(d.width) * vlg_format_bytes(d.format);
   for (uint32_t y = 0; d.data && y < d.height; y++)
      XXH3_128bits_update(st, d.data + uint64_t(y) * d.stride, row);
   const XXH128_hash_t h = XXH3_128bits_digest(st);
   XXH3_freeState(st);
   return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::pair<uint64_t, uint64_t>
parse_capture_frames(const std::string &range)
{
   try {
      return parse_range(range, true, "VLGPU_CAPTURE_FRAMES",
                         "FIRST-LAST, FIRST- or N (frames from 0, LAST >= FIRST)");
   } catch (const ConfigError &e) {
      throw CaptureError(e.what());
   }
}

/** The event log: events.jsonl.zst, one zstd frame per captured frame.
 *  A frame's events are kept in memory until it ends (a few bytes per
 *  event: page hashes, not pages; at most kMaxPendingBytes) and then
 *  compressed as one zstd frame, so a program that exits without destroying its device (_exit) leaves
 *  a log of whole frames. */
struct CaptureWriter::Log {
   std::string path;
   std::FILE *f = nullptr;
   ZSTD_CCtx *cctx = nullptr;
   std::vector<char> out = std::vector<char>(ZSTD_CStreamOutSize());
   uint64_t bytes = 0; /* compressed bytes written */

   explicit Log(const std::string &p) : path(p)
   {
      f = std::fopen(path.c_str(), "wb");
      if (!f)
         throw CaptureError(fmt::format("{}: cannot create: {}", path, errno_text()));
      cctx = ZSTD_createCCtx();
      if (!cctx)
         throw std::bad_alloc();
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel);
   }
   ~Log()
   {
      ZSTD_freeCCtx(cctx);
      if (f)
         std::fclose(f);
   }
   std::string pending; /* the events of the frame being captured */

   /** Add @text; @end compresses what the frame has as one zstd frame
    *  and flushes the file. */
   void put(const std::string &text, bool end)
   {
      pending += text;
      if (!end && pending.size() < kMaxPendingBytes)
         return;
      ZSTD_inBuffer in{pending.data(), pending.size(), 0};
      for (;;) {
         ZSTD_outBuffer o{out.data(), out.size(), 0};
         const size_t left = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_end);
         if (ZSTD_isError(left))
            throw CaptureError(fmt::format("{}: zstd: {}", path, ZSTD_getErrorName(left)));
         if (o.pos && std::fwrite(out.data(), 1, o.pos, f) != o.pos)
            throw CaptureError(fmt::format("{}: write error: {}", path, errno_text()));
         bytes += o.pos;
         if (left == 0)
            break;
      }
      pending.clear();
      if (std::fflush(f) != 0)
         throw CaptureError(fmt::format("{}: write error: {}", path, errno_text()));
   }
};

CaptureWriter::CaptureWriter(const Info &info, const Config &cfg) : info_(info)
{
   std::error_code ec;
   fs::create_directories(fs::path(info_.dir) / "blobs", ec);
   if (ec)
      throw CaptureError(
         fmt::format("{}: cannot create the capture directory: {}", info_.dir, ec.message()));
   try {
      cfg.write_json((fs::path(info_.dir) / "config.json").string());
   } catch (const ConfigError &e) {
      throw CaptureError(e.what());
   }
   config_ = cfg.to_json();
   known_.assign(cfg.vram_size_bytes / kCapturePageBytes + 1, std::string());
   log_ = std::make_unique<Log>((fs::path(info_.dir) / "events.jsonl.zst").string());
   write_manifest(false);
}

CaptureWriter::~CaptureWriter() = default;

void
CaptureWriter::event(const std::string &line)
{
   log_->put(line + "\n", false);
}

std::vector<std::pair<uint64_t, std::string>>
CaptureWriter::changed_pages(const uint8_t *vram, uint64_t vram_size,
                             const std::vector<CaptureRange> &ranges)
{
   std::vector<std::pair<uint64_t, std::string>> changed;
   std::vector<bool> seen(known_.size(), false);
   for (const CaptureRange &r : ranges) {
      if (r.size == 0)
         continue;
      for (uint64_t p = r.address / kCapturePageBytes;
           p <= (r.address + r.size - 1) / kCapturePageBytes && p < known_.size(); p++) {
         if (seen[p])
            continue;
         seen[p] = true;
         const uint64_t a = p * kCapturePageBytes;
         if (a + kCapturePageBytes > vram_size)
            continue; /* vram.size_bytes is a multiple of 1 MiB: never */
         std::string h = capture_page_hash(vram + a, kCapturePageBytes);
         if (h != known_[p]) {
            known_[p] = h;
            changed.emplace_back(a, std::move(h));
         }
      }
   }
   return changed;
}

void
CaptureWriter::before_submit(const uint8_t *vram, uint64_t vram_size,
                             const std::vector<CaptureRange> &ranges, uint64_t submit,
                             uint64_t fence, uint64_t draws, uint64_t cmd_address,
                             uint32_t cmd_dwords)
{
   const auto changed = changed_pages(vram, vram_size, ranges);
   if (!changed.empty()) {
      nlohmann::ordered_json pages = nlohmann::ordered_json::array();
      std::vector<char> z(ZSTD_compressBound(kCapturePageBytes));
      for (const auto &[a, h] : changed) {
         pages.push_back({a, h});
         pages_++;
         raw_bytes_ += kCapturePageBytes;
         if (blobs_.count(h))
            continue;
         const size_t n = ZSTD_compress(z.data(), z.size(), vram + a, kCapturePageBytes, kZstdLevel);
         if (ZSTD_isError(n))
            throw CaptureError(fmt::format("zstd: {}", ZSTD_getErrorName(n)));
         const std::string path = (fs::path(info_.dir) / "blobs" / (h + ".zst")).string();
         try {
            dump::write_file(path, z.data(), n);
         } catch (const DumpError &e) {
            throw CaptureError(e.what());
         }
         blobs_.insert(h);
         blob_bytes_ += n;
      }
      nlohmann::ordered_json ev = {{"ev", "pages"}, {"pages", std::move(pages)}};
      event(ev.dump());
   }
   submits_++;
   nlohmann::ordered_json ev = {{"ev", "submit"},          {"submit", submit},
                                {"fence", fence},          {"draws", draws},
                                {"cmd_address", cmd_address}, {"cmd_dwords", cmd_dwords}};
   event(ev.dump());
}

void
CaptureWriter::after_submit(const uint8_t *vram, uint64_t vram_size,
                            const std::vector<CaptureRange> &ranges)
{
   changed_pages(vram, vram_size, ranges);
}

void
CaptureWriter::display(uint32_t id, const Display &d)
{
   nlohmann::ordered_json ev = {{"ev", "display"}, {"id", id},         {"width", d.width},
                                {"height", d.height}, {"stride", d.stride}, {"format", d.format}};
   event(ev.dump());
}

void
CaptureWriter::display_remove(uint32_t id)
{
   event(nlohmann::ordered_json{{"ev", "display_remove"}, {"id", id}}.dump());
}

void
CaptureWriter::display_image(uint32_t id, const Display &d)
{
   event(nlohmann::ordered_json{{"ev", "display_image"}, {"id", id}, {"hash", display_hash(d)}}
            .dump());
}

void
CaptureWriter::frame_image(uint64_t address, const Display &d)
{
   event(nlohmann::ordered_json{{"ev", "frame_image"}, {"address", address}, {"stride", d.stride},
                                {"width", d.width},    {"height", d.height}, {"format", d.format},
                                {"hash", display_hash(d)}}
            .dump());
}

void
CaptureWriter::label(uint64_t address, uint64_t size, const std::string &text)
{
   nlohmann::ordered_json ev = {
      {"ev", "label"}, {"address", address}, {"size", size}, {"label", text}};
   event(ev.dump());
}

void
CaptureWriter::end_frame(uint64_t frame)
{
   log_->put(nlohmann::ordered_json{{"ev", "end_frame"}, {"frame", frame}}.dump() + "\n", true);
   frames_++;
   first_seen_frame_ = std::min(first_seen_frame_, frame);
   last_seen_frame_ = frame;
   /* at most once a second: creating the file costs more host time than
    * the rest of the capture of a small frame */
   const auto now = std::chrono::steady_clock::now();
   if (frames_ == 1 || now - manifest_time_ >= std::chrono::seconds(1)) {
      write_manifest(false);
      manifest_time_ = now;
   }
}

void
CaptureWriter::finish(bool complete)
{
   if (finished_)
      return;
   finished_ = true;
   if (!log_->pending.empty())
      log_->put("", true);
   write_manifest(complete);
}

void
CaptureWriter::write_manifest(bool complete)
{
   nlohmann::ordered_json m;
   m["format"] = "vlgpu-capture";
   m["version"] = 1;
   m["complete"] = complete;
   m["app"] = app_cmdline();
   m["client"] = info_.client;
#ifdef VLGPU_GIT_COMMIT
   m["vlgpu_commit"] = VLGPU_GIT_COMMIT;
#else
   m["vlgpu_commit"] = nullptr;
#endif
   m["mode"] = gpu_mode_name(info_.mode);
   m["config"] = config_;
   m["driver_params"] = driver_params_;
   m["frame_range"] = {{"first", info_.first_frame},
                       {"last", info_.last_frame == UINT64_MAX
                                   ? nlohmann::ordered_json(nullptr)
                                   : nlohmann::ordered_json(info_.last_frame)}};
   m["frames"] = frames_;
   m["first_frame"] = frames_ ? nlohmann::ordered_json(first_seen_frame_) : nullptr;
   m["last_frame"] = frames_ ? nlohmann::ordered_json(last_seen_frame_) : nullptr;
   m["submits"] = submits_;
   m["page_bytes"] = kCapturePageBytes;
   m["pages_recorded"] = pages_;
   m["page_bytes_recorded"] = raw_bytes_;
   m["blobs"] = blobs_.size();
   m["blob_bytes"] = blob_bytes_;
   m["log_bytes"] = log_ ? log_->bytes : 0;
   const std::string path = (fs::path(info_.dir) / "manifest.json").string();
   const std::string tmp = path + ".tmp";
   try {
      dump::write_text(tmp, m.dump(2) + "\n");
   } catch (const DumpError &e) {
      throw CaptureError(e.what());
   }
   std::error_code ec;
   fs::rename(tmp, path, ec);
   if (ec)
      throw CaptureError(fmt::format("{}: cannot write: {}", path, ec.message()));
}

} // namespace vlgpu::sim
