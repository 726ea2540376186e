/*
 * vlgpu simulator: frame capture (VLGPU_CAPTURE, docs/capture.md) and its
 * replay by the simulator alone (vlgpu-sim replay CAPTURE, ./vlgpu replay).
 *
 * A capture is a directory:
 *   manifest.json       what was captured (format, app, versions, frame
 *                       range, counts and byte sizes); rewritten after the
 *                       first captured frame, then at most once a second at
 *                       frame ends, and when the capture ends ("complete":
 *                       true then)
 *   config.json         the GPU configuration of the live run (Config::write_json)
 *   events.jsonl.zst    the ordered event log: JSON lines in concatenated
 *                       zstd frames, one per captured frame (more for a
 *                       frame of over 1 MiB of events)
 *   blobs/HASH.zst      one VRAM page (kCapturePageBytes bytes) per distinct
 *                       content, zstd-compressed, named by the XXH3-128 hash
 *                       of the content (32 hex digits)
 *
 * Events (one JSON object per line, "ev" says which):
 *   {"ev":"pages","pages":[[ADDRESS,"HASH"],...]}  VRAM pages (byte address
 *       of the page, a multiple of kCapturePageBytes) that hold new contents
 *       since the previous record: written before each submit that follows a
 *       CPU write; pages the GPU itself wrote are not recorded (the replay
 *       writes them again)
 *   {"ev":"display","id":ID,"width":W,"height":H,"stride":S,"format":F}
 *   {"ev":"display_remove","id":ID}
 *   {"ev":"display_image","id":ID,"hash":"HASH"}  what display ID showed in the
 *       live run (display_hash) before it was removed, and at each frame end:
 *       the replay compares its own pixels with it and writes them as PNG
 *   {"ev":"label","address":A,"size":S,"label":"TEXT"}
 *   {"ev":"submit","submit":N,"fence":F,"draws":D,"cmd_address":A,"cmd_dwords":W}
 *       N, F, D: the device's submit number, last fence and draw count
 *       before this submit (the replay continues from them)
 *   {"ev":"end_frame","frame":K}
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/gpu.h"

struct vlg_drm_device;

namespace vlgpu::sim {

/** Bytes of one captured VRAM page (the unit of change detection and of
 *  deduplication). */
constexpr uint64_t kCapturePageBytes = 64 * 1024;

/** A capture that cannot be written (the message names the file and the
 *  system's reason) or read (malformed: "FILE: what", or "FILE:LINE: what"
 *  for the event log). */
class CaptureError : public std::runtime_error {
 public:
   explicit CaptureError(const std::string &msg) : std::runtime_error(msg) {}
};

/** 128-bit content hash of a page as 32 lower-case hex digits. */
std::string capture_page_hash(const uint8_t *data, uint64_t size);
/** The same hash of a display's pixels: its height rows of width x
 *  bytes-per-pixel bytes (the padding of each row left out). */
std::string display_hash(const Display &d);

/**
 * Parse a frame range "FIRST-LAST", "FIRST-" (no end) or "N" (frames count
 * from 0, as vlg_drm_end_frame counts them). @throws CaptureError
 * "VLGPU_CAPTURE_FRAMES 'TEXT': expected ..." when malformed.
 */
std::pair<uint64_t, uint64_t> parse_capture_frames(const std::string &range);

/** One VRAM byte range of a buffer object [address, address + size). */
struct CaptureRange {
   uint64_t address = 0, size = 0;
};

/**
 * The writer behind VLGPU_CAPTURE. Memory: one 16-byte hash per VRAM page
 * plus one per distinct page content written (the set of blob names), and
 * the events of the current frame (at most 1 MiB of text, then compressed);
 * everything else goes to disk as it comes. Every method
 * throws CaptureError on an I/O error (the device then stops capturing and
 * says why on stderr) and std::bad_alloc.
 */
class CaptureWriter {
 public:
   struct Info {
      std::string dir;      /**< created if missing */
      uint64_t first_frame = 0, last_frame = UINT64_MAX; /**< inclusive */
      std::string client;   /**< who made the device (e.g. "Mesa 22.3.6"), may be "" */
      GpuMode mode = GpuMode::Functional;
   };
   /** Create @info.dir, blobs/, config.json (@cfg) and the event log. */
   CaptureWriter(const Info &info, const Config &cfg);
   ~CaptureWriter();
   CaptureWriter(const CaptureWriter &) = delete;
   CaptureWriter &operator=(const CaptureWriter &) = delete;

   /** Record the pages of @ranges whose contents changed since the last
    *  record or after_submit(); then the submit. */
   void before_submit(const uint8_t *vram, uint64_t vram_size, const std::vector<CaptureRange> &ranges,
                      uint64_t submit, uint64_t fence, uint64_t draws, uint64_t cmd_address,
                      uint32_t cmd_dwords);
   /** Take the contents the GPU left in the pages of @ranges as known (not recorded). */
   void after_submit(const uint8_t *vram, uint64_t vram_size, const std::vector<CaptureRange> &ranges);
   void display(uint32_t id, const Display &d);
   void display_remove(uint32_t id);
   /** Record what display @id shows now (display_hash of @d). */
   void display_image(uint32_t id, const Display &d);
   /** Record the image the frame ends with (vlg_drm_set_frame_image): VRAM
    *  at @address as @d describes it (d.data points there), by its hash. */
   void frame_image(uint64_t address, const Display &d);
   void label(uint64_t address, uint64_t size, const std::string &text);
   /** The device parameters the client has read so far (vlg_drm_param_name
    *  -> value): manifest.json "driver_params", from the next manifest write. */
   void set_driver_params(const std::map<std::string, uint64_t> &params) { driver_params_ = params; }
   /** Frame @frame ended: close its zstd frame of the log, rewrite the manifest. */
   void end_frame(uint64_t frame);
   /** Close the log and write the final manifest ("complete": @complete). */
   void finish(bool complete);

   const Info &info() const { return info_; }
   uint64_t blob_bytes() const { return blob_bytes_; }

 private:
   struct Log;
   void event(const std::string &line);
   void write_manifest(bool complete);
   /** Pages of @ranges whose hash differs from the last known one: their
    *  addresses and new hashes, with the known hashes updated. */
   std::vector<std::pair<uint64_t, std::string>>
   changed_pages(const uint8_t *vram, uint64_t vram_size, const std::vector<CaptureRange> &ranges);

   Info info_;
   nlohmann::ordered_json config_;
   std::map<std::string, uint64_t> driver_params_;
   std::unique_ptr<Log> log_;
   std::vector<std::string> known_;              /* hash per VRAM page, "" = unknown */
   std::unordered_set<std::string> blobs_;       /* blob names written */
   uint64_t frames_ = 0, submits_ = 0, pages_ = 0, blob_bytes_ = 0, raw_bytes_ = 0;
   uint64_t first_seen_frame_ = UINT64_MAX, last_seen_frame_ = 0;
   bool finished_ = false;
   std::chrono::steady_clock::time_point manifest_time_;
};

/** What a replay of a capture does and where its outputs go. */
struct CaptureReplayOptions {
   std::string dir;                  /**< the capture */
   std::string out;                  /**< output directory (created) */
   GpuMode mode = GpuMode::Cycle;
   std::string config;               /**< configuration file instead of the capture's, or "" */
   std::string overrides;            /**< "k=v,..." after the configuration file */
   /** false: compare the frames' images with the live run's (by hash) but
    *  write no PNG (PNG encoding is a third of a small frame's replay) */
   bool write_pngs = true;
   /** "PERIOD[:WARMUP]": a sampled replay (vlg_drm_create_args::sample), or "" */
   std::string sample;
};

/** The mode of the live run ("cycle" or "functional") from CAPTURE/manifest.json.
 *  @throws CaptureError naming the file. */
std::string capture_mode(const std::string &dir);

/** Per frame of a replay. */
struct CaptureReplayFrame {
   uint64_t frame = 0, submits = 0, draws = 0, cycles = 0, faults = 0;
   /** images of the frame compared with the live run's (displays' and the
    *  off-screen frame image), and how many differ; a frame a sampled replay
    *  skips (--sample ...,skip) is neither compared nor written as PNG */
   uint64_t images = 0, images_differing = 0;
   /** a sampled replay (--sample, frame_sampling.h): the frame's role
    *  ("measured", "warmup", "functional", "skipped") and block, as its
    *  submits' statistics say; "" and -1 otherwise */
   std::string sample;
   int64_t sample_block = -1;
   /** host time of the frame's replay, milliseconds: wall (steady clock) and
    *  this process's CPU time (CLOCK_PROCESS_CPUTIME_ID), from the previous
    *  frame end (the first frame: from opening the capture) to this one's,
    *  PNG writing included (as the live driver's frames.csv `host_ms`) */
   double host_ms = 0, cpu_ms = 0;
   /** OUT/frame-NNNNNN-display-ID.png and frame-NNNNNN-image.png written */
   std::vector<std::string> pngs;
};

/**
 * Replay a capture with the simulator alone: a device of the capture's
 * configuration (plus @opts.overrides) in @opts.mode, its VRAM pages and
 * displays re-created in order, every submit run; statistics go to
 * OUT/stats/ as with VLGPU_STATS=DIR (submit-NNNNNN.json, config.json);
 * each display's image (where the live run recorded one: before the
 * display was removed, at frame ends) is compared with the live run's and
 * the last one of each display in a frame written as
 * OUT/frame-NNNNNN-display-ID.png; a line of OUT/frames.jsonl per frame
 * ({"frame", "submits", "draws", "cycles", "faults", "images",
 * "images_differing"}).
 * @throws CaptureError naming the file for a malformed capture (missing
 * blob, truncated log, bad JSON) or an unwritable output; ConfigError for
 * a bad configuration.
 */
std::vector<CaptureReplayFrame> replay_capture(const CaptureReplayOptions &opts);

/* Device internals the replay uses (device.cpp). */
uint8_t *device_vram(vlg_drm_device *dev, uint64_t *size);
/** Label VRAM [address, address + size) as vlg_drm_bo_set_label does a buffer. */
void device_set_label(vlg_drm_device *dev, uint64_t address, uint64_t size, std::string label);
/** Continue counting submits, fences and draws from these values. */
void device_set_counters(vlg_drm_device *dev, uint64_t submits, uint64_t fence, uint64_t draws);

} // namespace vlgpu::sim
