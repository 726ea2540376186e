/*
 * Fuzz target "dump": the per-draw dump reader and replay
 * (src/vlgpu/sim/dump/reader.cpp, docs/dump.md) on a whole draw directory
 * made from the input: the directory's files in the container of
 * fuzz_container.h ("--- NAME" lines:
 *
 *     --- command.txt
 *     [cmd_draw] ...
 *     --- draw.txt
 *     ...
 *
 * scripts/fuzz_seeds.py packs the repository's dumps this way). The
 * directory is written to a
 * private temporary directory and replayed in functional mode on at most
 * kMaxVram bytes of VRAM (the dump's config.json is read, as replay reads
 * it, then the VRAM size is capped and the watchdog bounded). Every error
 * must be a DumpError or ConfigError (dump.h); a GPU fault is a result, not
 * an error. docs/fuzzing.md.
 */
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_container.h"
#include "sim/core/error.h"
#include "sim/dump/dump.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxVram = 32ull << 20;
constexpr uint64_t kWatchdogSubmit = 1u << 20; /* thread-group instructions */
constexpr uint64_t kWatchdogGroup = 1u << 16;

/** Write the files of the container @input into @dir. */
void
unpack(const std::string &input, const fs::path &dir)
{
   for (const auto &[name, text] : vlgpu::fuzz::unpack_container(input))
      std::ofstream(dir / name, std::ios::binary).write(text.data(), std::streamsize(text.size()));
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const fs::path dir = vlgpu::fuzz::fresh_work_dir("dump");
   unpack(std::string(reinterpret_cast<const char *>(data), size), dir);
   try {
      Config cfg = dump_config(dir.string());
      cfg.vram_size_bytes = std::min(cfg.vram_size_bytes, kMaxVram);
      cfg.watchdog_instructions_per_submit = kWatchdogSubmit;
      cfg.watchdog_instructions_per_thread_group = kWatchdogGroup;
      std::unique_ptr<Gpu> gpu = make_functional_gpu(cfg);
      replay_dump(dir.string(), *gpu, cfg, "");
   } catch (const DumpError &) {
   } catch (const ConfigError &) {
   }
   return 0;
}
