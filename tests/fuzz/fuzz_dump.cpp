/*
 * Fuzz target "dump": the per-draw dump reader and replay
 * (src/vlgpu/sim/dump/reader.cpp, docs/dump.md) on a whole draw directory
 * made from the input. The input is the directory's files, each one
 * introduced by a line "--- NAME" (at the start of the input or after a
 * newline) and running up to the next such line:
 *
 *     --- command.txt
 *     [cmd_draw] ...
 *     --- draw.txt
 *     ...
 *
 * (the newline before a "--- " line separates, it belongs to no file). NAME
 * is a plain file name ([A-Za-z0-9._-], at most 64 characters, not
 * starting with '.'); files with other names are dropped. scripts/fuzz_seeds.py
 * packs the repository's dumps this way. The directory is written to a
 * private temporary directory and replayed in functional mode on at most
 * kMaxVram bytes of VRAM (the dump's config.json is read, as replay reads
 * it, then the VRAM size is capped and the watchdog bounded). Every error
 * must be a DumpError or ConfigError (dump.h); a GPU fault is a result, not
 * an error. docs/fuzzing.md.
 */
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.h"
#include "sim/dump/dump.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxVram = 32ull << 20;
constexpr uint64_t kWatchdogSubmit = 1u << 20; /* thread-group instructions */
constexpr uint64_t kWatchdogGroup = 1u << 16;

bool
plain_name(const std::string &n)
{
   if (n.empty() || n.size() > 64 || n[0] == '.')
      return false;
   return std::all_of(n.begin(), n.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '-';
   });
}

/** Write the files of @input (the container of the file comment) into @dir. A
 *  file ends before the newline that precedes the next "--- " line. */
void
unpack(const std::string &input, const fs::path &dir)
{
   size_t pos = input.compare(0, 4, "--- ") == 0 ? 0 : input.find("\n--- ");
   if (pos != std::string::npos && pos != 0)
      pos++;
   while (pos != std::string::npos) {
      const size_t name_end = input.find('\n', pos);
      if (name_end == std::string::npos)
         return;
      const std::string name = input.substr(pos + 4, name_end - pos - 4);
      const size_t next = input.find("\n--- ", name_end);
      const size_t end = next == std::string::npos ? input.size() : next;
      const size_t len = end > name_end ? end - name_end - 1 : 0; /* "--- a\n--- b": empty */
      if (plain_name(name))
         std::ofstream(dir / name, std::ios::binary)
            .write(input.data() + name_end + 1, std::streamsize(len));
      pos = next == std::string::npos ? next : next + 1;
   }
}

const fs::path &
work_dir()
{
   static const fs::path dir = fs::temp_directory_path() /
                               ("vlgpu-fuzz-dump-" + std::to_string(::getpid()));
   return dir;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const fs::path &dir = work_dir();
   fs::remove_all(dir);
   fs::create_directories(dir);
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
