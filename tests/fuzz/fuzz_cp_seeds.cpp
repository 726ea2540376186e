/*
 * vlgpu-fuzz-cp-seeds OUT_DIR DUMP_DIR...: seed inputs of the "cp" fuzz
 * target (format: fuzz_cp_input.h), written by scripts/fuzz_seeds.py.
 *  - every DUMP_DIR (a draw-NNNNNN directory) is loaded by the dump reader
 *    (replay_dump) into a fresh VRAM, which is captured, instead of run, when
 *    replay submits its DRAW + HALT queue: the VRAM up to its last non-zero
 *    byte is the seed (skipped above kMaxSeed bytes);
 *  - one small queue per CP command that needs no package: SYNC, then HALT.
 * Exit status 0, or 1 with the reason on stderr.
 */
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../sim/cmd_test_util.h"
#include "fuzz_cp_input.h"
#include "sim/core/error.h"
#include "sim/dump/dump.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

constexpr uint64_t kMaxSeed = 4u << 20;

/** A Gpu that keeps the queue and VRAM it is given instead of running them. */
class CaptureGpu : public Gpu {
 public:
   std::vector<uint8_t> seed;
   GpuMode mode() const override { return GpuMode::Functional; }
   SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                        GpuHost &) override
   {
      uint64_t used = vram.size();
      while (used > 0 && vram.data()[used - 1] == 0)
         used--;
      if (used > kMaxSeed || cmd_address > UINT32_MAX)
         return {};
      seed.resize(fuzz::kCpHeaderBytes + used);
      const uint32_t header[2] = {uint32_t(cmd_address), cmd_dwords};
      std::memcpy(seed.data(), header, sizeof(header));
      std::memcpy(seed.data() + fuzz::kCpHeaderBytes, vram.data(), used);
      return {};
   }
};

void
write_seed(const std::string &path, const std::vector<uint8_t> &bytes)
{
   std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

/** SYNC (fence at 0x100) + HALT, the queue at address 0. */
std::vector<uint8_t>
sync_seed()
{
   std::vector<uint32_t> q;
   test::cmd_sync(q, 0x100, 7);
   test::cmd_halt(q);
   const uint32_t header[2] = {0, uint32_t(q.size())};
   std::vector<uint8_t> seed(fuzz::kCpHeaderBytes + q.size() * 4);
   std::memcpy(seed.data(), header, sizeof(header));
   std::memcpy(seed.data() + fuzz::kCpHeaderBytes, q.data(), q.size() * 4);
   return seed;
}

} // namespace

int
main(int argc, char **argv)
{
   if (argc < 2) {
      std::fprintf(stderr, "usage: %s OUT_DIR DUMP_DIR...\n", argv[0]);
      return 1;
   }
   const std::string out = argv[1];
   write_seed(out + "/sync-halt", sync_seed());
   for (int i = 2; i < argc; i++) {
      CaptureGpu gpu;
      try {
         replay_dump(argv[i], gpu, dump_config(argv[i]), "");
      } catch (const std::exception &e) {
         std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
         return 1;
      }
      if (gpu.seed.empty()) {
         std::fprintf(stderr, "%s: no queue captured (VRAM over %llu bytes?)\n", argv[i],
                      (unsigned long long)kMaxSeed);
         continue;
      }
      const std::string base = std::string(argv[i]);
      write_seed(out + "/" + base.substr(base.find_last_of('/') + 1), gpu.seed);
   }
   return 0;
}
