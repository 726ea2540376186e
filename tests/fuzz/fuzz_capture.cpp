/*
 * Fuzz target "capture": the frame-capture reader and its replay
 * (src/vlgpu/sim/device/capture_replay.cpp, docs/capture.md) on a whole
 * capture directory made from the input, a container of files
 * (fuzz_container.h, "--- NAME" lines):
 *
 *   manifest.json, config.json  written as they are
 *   events.jsonl                the event log as text, compressed by the target
 *                               into events.jsonl.zst (one zstd frame); "@N" in it
 *                               stands for the content hash of file blob-N, so
 *                               that fuzzed events can name fuzzed pages
 *   events.jsonl.zst            written as it is (when there is no events.jsonl)
 *   blob-N                      a VRAM page (cut or zero-padded to 64 KiB), written
 *                               compressed as blobs/HASH.zst (HASH: its content hash)
 *   HASH.zst (32 hex digits)    written into blobs/ as it is
 *
 * scripts/fuzz_seeds.py makes seeds from the cp target's (a corpus draw's
 * VRAM pages, its queue submitted, a frame end). The directory is written to a
 * private temporary directory and replayed in functional mode with the VRAM
 * capped at 32 MiB, the watchdog bounded and no PNG written. Every error must
 * be a CaptureError, ConfigError or DumpError; a GPU fault is a result, not an
 * error. docs/fuzzing.md.
 */
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <zstd.h>

#include "fuzz_container.h"
#include "sim/core/error.h"
#include "sim/device/capture.h"
#include "sim/dump/dump.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

namespace fs = std::filesystem;

/* what every replay is held to (the capture's config.json is read first) */
constexpr const char *kLimits = "vram.size_bytes=33554432,"
                                "watchdog.instructions_per_submit=1048576,"
                                "watchdog.instructions_per_thread_group=65536";

void
write(const fs::path &p, const std::string &text)
{
   std::ofstream(p, std::ios::binary).write(text.data(), std::streamsize(text.size()));
}

std::string
zstd(const std::string &text)
{
   std::string z(ZSTD_compressBound(text.size()), '\0');
   const size_t n = ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 1);
   z.resize(ZSTD_isError(n) ? 0 : n);
   return z;
}

bool
is_hash_blob(const std::string &name)
{
   return name.size() == 36 && name.compare(32, 4, ".zst") == 0 &&
          name.find_first_not_of("0123456789abcdef") == 32;
}

/** Write the capture directory of the container @input into @dir. */
void
unpack(const std::string &input, const fs::path &dir)
{
   std::map<std::string, std::string> hashes; /* "@N" -> hash of blob-N */
   std::string events;
   bool have_events = false;
   for (const auto &[name, text] : vlgpu::fuzz::unpack_container(input)) {
      if (name.rfind("blob-", 0) == 0 && name.size() <= 8) {
         std::string page = text;
         page.resize(kCapturePageBytes, '\0');
         const std::string hash =
            capture_page_hash(reinterpret_cast<const uint8_t *>(page.data()), page.size());
         hashes["@" + name.substr(5)] = hash;
         write(dir / "blobs" / (hash + ".zst"), zstd(page));
      } else if (is_hash_blob(name)) {
         write(dir / "blobs" / name, text);
      } else if (name == "events.jsonl") {
         events = text;
         have_events = true;
      } else if (name == "manifest.json" || name == "config.json" || name == "events.jsonl.zst") {
         write(dir / name, text);
      }
   }
   if (!have_events)
      return;
   /* "@N" -> the hash, longest names first so that "@12" is not read as "@1" "2" */
   for (auto it = hashes.rbegin(); it != hashes.rend(); ++it)
      for (size_t at = events.find(it->first); at != std::string::npos;
           at = events.find(it->first, at + it->second.size()))
         events.replace(at, it->first.size(), it->second);
   write(dir / "events.jsonl.zst", zstd(events));
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const fs::path dir = vlgpu::fuzz::fresh_work_dir("capture");
   fs::create_directories(dir / "cap" / "blobs");
   unpack(std::string(reinterpret_cast<const char *>(data), size), dir / "cap");
   CaptureReplayOptions o;
   o.dir = (dir / "cap").string();
   o.out = (dir / "out").string();
   o.mode = GpuMode::Functional;
   o.overrides = kLimits;
   o.write_pngs = false;
   try {
      replay_capture(o);
   } catch (const CaptureError &) {
   } catch (const ConfigError &) {
   } catch (const DumpError &) {
   }
   return 0;
}
