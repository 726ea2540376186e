/*
 * vlgpu simulator: the functional GPU (gpu.h). The CP interprets the queue
 * command by command; a DRAW runs render_draw() (sim/func/pipe), which
 * returns only when the draw is complete, so SYNC finds the pipeline idle
 * and DUMP finds every earlier draw finished by construction.
 */
#include <fmt/format.h>

#include "sim/core/gpu.h"
#include "sim/func/cp/copy.h"
#include "sim/func/cp/func_cp.h"
#include "sim/func/shader/program.h"

namespace vlgpu::sim {

namespace {

FaultRecord
record(const GpuFault &f, uint32_t offset, int32_t draw)
{
   return FaultRecord{f.module(), f.summary(), f.what(), offset, draw};
}

class FunctionalGpu final : public Gpu {
 public:
   FunctionalGpu(const Config &cfg, bool skip_work) : skip_work_(skip_work), programs_(256)
   {
      if (cfg.thread_group_width < 4 || cfg.thread_group_width > 64 ||
          cfg.thread_group_width % 4 != 0)
         throw ConfigError(fmt::format("thread_group_width = {}: the functional GPU runs thread "
                                       "groups of 4..64 lanes, a multiple of 4",
                                       cfg.thread_group_width));
      opt_.thread_group_width = cfg.thread_group_width;
      opt_.watchdog_instructions = cfg.watchdog_instructions_per_thread_group
                                      ? cfg.watchdog_instructions_per_thread_group
                                      : UINT64_MAX;
      submit_budget_ = cfg.watchdog_instructions_per_submit;
      opt_.programs = &programs_;
      limits_ = compute_limits(cfg);
   }

   GpuMode mode() const override { return GpuMode::Functional; }

   SubmitResult execute(Vram &vram, uint64_t cmd_address, uint32_t cmd_dwords,
                        GpuHost &host) override
   {
      SubmitResult res;
      /* watchdog.instructions_per_submit: counted down by every thread group */
      budget_left_ = submit_budget_;
      opt_.submit_instructions_left = submit_budget_ ? &budget_left_ : nullptr;
      try {
         cp_check_queue(vram, cmd_address, cmd_dwords);
      } catch (const GpuFault &f) {
         res.faults.push_back(record(f, 0, -1));
         return res;
      }
      uint32_t off = 0, draw_index = 0, dispatch_index = 0, copy_index = 0;
      while (off < cmd_dwords) {
         Command c;
         try {
            c = cp_decode_command(vram, cmd_address, cmd_dwords, off);
         } catch (const GpuFault &f) {
            /* the CP cannot find the next command: the rest of the queue is skipped */
            res.commands++;
            res.faults.push_back(record(f, off, -1));
            return res;
         }
         res.commands++;
         switch (c.opcode) {
         case VLG_CMD_OPCODE_DRAW:
            run_draw(vram, cmd_address, cmd_dwords, c, draw_index++, host, res);
            break;
         case VLG_CMD_OPCODE_DISPATCH:
            run_dispatch_cmd(vram, c, dispatch_index++, host, res);
            break;
         case VLG_CMD_OPCODE_COPY: {
            /* every earlier command is complete: the copy runs now */
            CopyReport rep;
            rep.cmd_offset_dw = off;
            rep.index_in_queue = copy_index++;
            rep.copy_info_address = c.copy.copy_info;
            VLG_COPY_INFO ci;
            cp_copy_command(vram, rep, res, ci);
            res.copies.push_back(std::move(rep));
            break;
         }
         case VLG_CMD_OPCODE_SYNC:
            try {
               cp_write_fence(vram, c.sync);
            } catch (const GpuFault &f) {
               res.faults.push_back(record(f, off, -1));
            }
            break;
         case VLG_CMD_OPCODE_DUMP:
            try {
               cp_dump_to_display(vram, c.dump, host);
            } catch (const GpuFault &f) {
               res.faults.push_back(record(f, off, -1));
            }
            break;
         case VLG_CMD_OPCODE_HALT:
            res.halted = true;
            return res;
         }
         off += c.length;
      }
      return res;
   }

 private:
   void run_draw(Vram &vram, uint64_t queue, uint32_t dwords, const Command &c, uint32_t index,
                 GpuHost &host, SubmitResult &res)
   {
      DrawReport rep;
      DrawContext &ctx = rep.ctx;
      ctx.queue_address = queue;
      ctx.queue_dwords = dwords;
      ctx.cmd_offset_dw = c.offset_dw;
      ctx.index_in_queue = index;
      for (unsigned i = 0; i < VLG_CMD_DRAW_LENGTH; i++)
         ctx.cmd_words[i] = c.words[i];
      ctx.draw_info_address = c.draw.draw_info;
      if (skip_work_) { /* make_functional_gpu_skipping_work: reported, not run */
         res.draws.push_back(std::move(rep));
         return;
      }

      /* functional mode: every earlier command is complete, nothing later has
       * started, so the snapshots are exact whatever the host asks */
      (void)host.snapshot_draw(ctx);
      host.before_draw(ctx, vram);
      run_command(
         rep, [&] { rep.counters = render_draw(vram, ctx.draw_info_address, opt_); },
         [&](const GpuFault &f) { res.faults.push_back(record(f, c.offset_dw, int32_t(index))); });
      host.after_draw(ctx, vram, rep);
      res.draws.push_back(std::move(rep));
   }

   /* DISPATCH: functional mode runs it to completion, so every earlier draw
    * has finished and every store is in VRAM when the next command starts. */
   void run_dispatch_cmd(Vram &vram, const Command &c, uint32_t index, GpuHost &host,
                         SubmitResult &res)
   {
      DispatchReport rep;
      rep.cmd_offset_dw = c.offset_dw;
      rep.index_in_queue = index;
      rep.compute_info_address = c.dispatch.compute_info;
      if (skip_work_) {
         res.dispatches.push_back(std::move(rep));
         return;
      }
      host.on_dispatch(rep, vram);
      run_command(
         rep, [&] { rep.counters = run_dispatch(vram, rep.compute_info_address, opt_, limits_); },
         [&](const GpuFault &f) {
            FaultRecord fr = record(f, c.offset_dw, -1);
            fr.dispatch_index = int32_t(index);
            res.faults.push_back(fr);
         });
      res.dispatches.push_back(std::move(rep));
   }

   const bool skip_work_; /**< DRAW and DISPATCH are reported, not run */
   FuncOptions opt_;
   ComputeLimits limits_;
   uint64_t submit_budget_ = 0; /**< watchdog.instructions_per_submit (0: none) */
   uint64_t budget_left_ = 0;   /**< of the submit being executed */
   ProgramCache programs_;
};

} // namespace

std::unique_ptr<Gpu>
make_functional_gpu(const Config &cfg)
{
   return std::make_unique<FunctionalGpu>(cfg, false);
}

std::unique_ptr<Gpu>
make_functional_gpu_skipping_work(const Config &cfg)
{
   return std::make_unique<FunctionalGpu>(cfg, true);
}

} // namespace vlgpu::sim
