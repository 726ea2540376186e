/*
 * Fuzz target "cp": the functional GPU's CP (src/vlgpu/sim/func/cp/,
 * functional_gpu.cpp) run over a VRAM whose command queue and packages come
 * from the input (format: fuzz_cp_input.h). The queue's command checks, the
 * package loads every command does (draw_info, pipe_state, shaders,
 * framebuffer, compute_info, COPY, DUMP to a 16 x 16 display) and what the
 * draws run are all reached. The watchdog is bounded (kWatchdog*), so a
 * runaway shader is a fault report, not a timeout. A GPU fault is a result
 * (SubmitResult::faults); any exception escaping Gpu::execute is a crash
 * (gpu.h: "a GPU fault stops that draw only"). docs/fuzzing.md.
 */
#include <cstring>

#include "fuzz_cp_input.h"
#include "sim/core/config.h"
#include "sim/core/gpu.h"
#include "sim/core/vram.h"
#include "vlg_hw.h"

using namespace vlgpu;
using namespace vlgpu::sim;

namespace {

constexpr uint64_t kWatchdogSubmit = 1u << 20; /* thread-group instructions */
constexpr uint64_t kWatchdogGroup = 1u << 16;
constexpr uint32_t kDisplaySize = 16; /* pixels, R8G8B8A8_UNORM, display id 0 */

class FuzzHost : public GpuHost {
 public:
   FuzzHost()
   {
      d_.data = pixels_;
      d_.stride = kDisplaySize * 4;
      d_.width = d_.height = kDisplaySize;
      d_.format = VLG_FORMAT_R8G8B8A8_UNORM;
   }
   const Display *display(uint32_t id) const override { return id == 0 ? &d_ : nullptr; }
   bool snapshot_draw(const DrawContext &) override { return false; }
   void before_draw(const DrawContext &, const Vram &) override {}
   void after_draw(const DrawContext &, const Vram &, const DrawReport &) override {}

 private:
   uint8_t pixels_[kDisplaySize * kDisplaySize * 4] = {};
   Display d_;
};

Gpu &
gpu()
{
   static std::unique_ptr<Gpu> g = [] {
      Config cfg;
      cfg.watchdog_instructions_per_submit = kWatchdogSubmit;
      cfg.watchdog_instructions_per_thread_group = kWatchdogGroup;
      return make_functional_gpu(cfg);
   }();
   return *g;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (size < fuzz::kCpHeaderBytes)
      return 0;
   uint32_t queue_address, queue_dwords;
   std::memcpy(&queue_address, data, 4);
   std::memcpy(&queue_dwords, data + 4, 4);
   const size_t payload = size - fuzz::kCpHeaderBytes;
   Vram vram(fuzz::cp_vram_size(payload));
   std::memcpy(vram.data(), data + fuzz::kCpHeaderBytes, payload);
   FuzzHost host;
   gpu().execute(vram, queue_address, queue_dwords, host);
   return 0;
}
