/*
 * vlgpu simulator: which Gpu the device runs (gpu.h make_gpu): the
 * functional GPU (sim/func/functional_gpu.cpp), or the cycle-mode GPU
 * (sim/units/cycle_gpu.cpp) when this build has it (VLG_HAVE_CYCLE_GPU,
 * set by meson when idep_vlg_sim_units exists).
 */
#include <fmt/format.h>

#include "sim/core/gpu.h"

namespace vlgpu::sim {

bool
cycle_gpu_available()
{
#ifdef VLG_HAVE_CYCLE_GPU
   return true;
#else
   return false;
#endif
}

std::unique_ptr<Gpu>
make_gpu(GpuMode mode, const Config &cfg)
{
   if (mode == GpuMode::Functional)
      return make_functional_gpu(cfg);
   if (mode != GpuMode::Cycle)
      throw ConfigError(fmt::format("unknown GPU mode {}", uint32_t(mode)));
#ifdef VLG_HAVE_CYCLE_GPU
   return make_cycle_gpu(cfg);
#else
   throw ConfigError("cycle mode is not available in this build: the cycle-mode GPU "
                     "(src/vlgpu/sim/units: CP, GTS, GPC, L2, MC modules) is not written yet; use "
                     "functional mode (VLGPU_DEBUG=functional, vlgpu-sim --mode functional)");
#endif
}

} // namespace vlgpu::sim
