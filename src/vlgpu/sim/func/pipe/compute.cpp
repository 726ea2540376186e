/*
 * The functional compute dispatch (compute.h; docs/hw.md "Compute").
 */
#include "sim/func/pipe/compute.h"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "sim/func/pipe/package.h"
#include "sim/func/pipe/stage_resources.h"
#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

ComputeSetup::ComputeSetup() = default;
ComputeSetup::~ComputeSetup() = default;

void
ComputeSetup::workgroup_id(uint64_t i, uint32_t id[3]) const
{
   const VLG_COMPUTE_INFO &ci = pkg.info;
   id[0] = uint32_t(i % ci.grid_x);
   id[1] = uint32_t(i / ci.grid_x % ci.grid_y);
   id[2] = uint32_t(i / ci.grid_x / ci.grid_y);
}

uint64_t
ComputeSetup::init_thread_group(ThreadGroup &tg, uint32_t k) const
{
   tg.reset(width, pkg.cs.state.num_regs, VLG_SHADER_STAGE_COMPUTE, k);
   tg.set_local_base(uint32_t(uint64_t(k) * width));
   const uint64_t live = std::min<uint64_t>(width, invocations - uint64_t(k) * width);
   tg.set_live_mask(live == 64 ? ~uint64_t(0) : (uint64_t(1) << live) - 1);
   return live;
}

std::unique_ptr<ComputeSetup>
prepare_dispatch(Vram &vram, uint64_t compute_info_address, const FuncOptions &opt,
                 const ComputeLimits &lim)
{
   const unsigned W = lim.width;
   if (W < 1 || W > kMaxLanes)
      throw std::invalid_argument("ComputeLimits::width must be 1..64");
   auto setup = std::make_unique<ComputeSetup>();
   ComputeSetup &su = *setup;
   su.pkg = load_compute_package(vram, compute_info_address);
   const VLG_COMPUTE_INFO &ci = su.pkg.info;
   const VLG_SHADER_STATE &cs = su.pkg.cs.state;

   const uint64_t n = uint64_t(ci.block_x) * ci.block_y * ci.block_z;
   const uint64_t groups = (n + W - 1) / W;
   if (groups > lim.max_thread_groups || cs.num_regs > lim.max_regs)
      throw GpuFault("CP", "workgroup does not fit an SPC",
                     fmt::format("block {}x{}x{} = {} invocations with {} registers: {} thread "
                                 "groups of {} lanes; an SPC holds {} thread groups ({} "
                                 "invocations) of at most {} registers per lane",
                                 ci.block_x, ci.block_y, ci.block_z, n, cs.num_regs, groups, W,
                                 lim.max_thread_groups, lim.max_invocations(), lim.max_regs));
   if (ci.shared_size > lim.shared_memory_bytes)
      throw GpuFault("CP", "workgroup does not fit an SPC",
                     fmt::format("shared_size = {} bytes; an SPC has {} bytes of shared memory "
                                 "(spc.shared_memory_bytes)",
                                 ci.shared_size, lim.shared_memory_bytes));
   su.width = W;
   su.invocations = n;
   su.thread_groups = uint32_t(groups);
   su.workgroups = uint64_t(ci.grid_x) * ci.grid_y * ci.grid_z;

   std::unique_ptr<ProgramCache> local_cache;
   ProgramCache *cache = opt.programs;
   if (!cache) {
      local_cache = std::make_unique<ProgramCache>(4);
      cache = local_cache.get();
   }
   su.prog = cache->get(vram, cs.code, cs.code_size, cs.entry);
   su.consts = read_consts(vram, cs);
   su.units = texture_units(su.pkg.textures, su.pkg.samplers);
   su.res = std::make_unique<ShaderResources>(stage_resources(
      VLG_SHADER_STAGE_COMPUTE, su.pkg.cs, su.consts, su.units, vram, opt.watchdog_instructions,
      nullptr, opt.submit_instructions_left));
   ShaderResources &res = *su.res;
   res.global = &vram;
   res.shared = nullptr;
   res.shared_size = ci.shared_size;
   res.block[0] = ci.block_x;
   res.block[1] = ci.block_y;
   res.block[2] = ci.block_z;
   return setup;
}

ComputeStats
run_dispatch(Vram &vram, uint64_t compute_info_address, const FuncOptions &opt,
             const ComputeLimits &lim)
{
   ComputeStats st;
   const std::unique_ptr<ComputeSetup> setup =
      prepare_dispatch(vram, compute_info_address, opt, lim);
   const ComputeSetup &su = *setup;
   const VLG_COMPUTE_INFO &ci = su.pkg.info;
   const VLG_SHADER_STATE &cs = su.pkg.cs.state;
   const Program *prog = su.prog.get();
   const uint64_t groups = su.thread_groups;
   const unsigned W = su.width;
   ShaderResources res = *su.res;
   std::vector<uint32_t> shared(ci.shared_size / 4);
   res.shared = shared.data();

   std::vector<ThreadGroup> tgs;
   tgs.reserve(groups);
   for (uint64_t k = 0; k < groups; k++)
      tgs.emplace_back(W, cs.num_regs, VLG_SHADER_STAGE_COMPUTE, uint32_t(k));

   const auto add = [&st](const RunResult &r) {
      st.instructions += r.instructions;
      st.lane_instructions += r.lane_instructions;
      st.dual_issued += r.dual_issued;
      st.mem_ops += r.mem_ops;
   };
   for (uint32_t z = 0; z < ci.grid_z; z++) {
      for (uint32_t y = 0; y < ci.grid_y; y++) {
         for (uint32_t x = 0; x < ci.grid_x; x++) {
            res.workgroup[0] = x;
            res.workgroup[1] = y;
            res.workgroup[2] = z;
            std::fill(shared.begin(), shared.end(), 0u); /* deterministic, docs/hw.md */
            for (uint64_t k = 0; k < groups; k++) {
               st.invocations += su.init_thread_group(tgs[k], uint32_t(k));
            }
            st.workgroups++;
            st.thread_groups += groups;
            for (;;) {
               bool all_done = true;
               for (ThreadGroup &tg : tgs) {
                  if (!tg.done()) {
                     add(run(tg, *prog, res));
                     all_done &= tg.done();
                  }
               }
               if (all_done)
                  break;
               /* every group is at the barrier or done: release the barrier */
               st.barriers++;
               for (ThreadGroup &tg : tgs)
                  tg.release_barrier();
            }
         }
      }
   }
   return st;
}

} // namespace vlgpu::sim
