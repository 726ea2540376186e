/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Compute (GL ES 3.1 §17, Gallium launch_grid): shader buffers, images,
 * memory barriers and the DISPATCH command (docs/hw.md "Compute",
 * docs/driver.md "Compute").
 *
 * A dispatch writes into the batch's package memory
 *   shader_state     the compute shader (vlg_emit_shader), whose
 *                    global-buffer image carries the driver uniforms
 *                    (vlg_compiler.h VLG_DU_*): the grid size, the VRAM
 *                    address and size of each bound shader buffer and the
 *                    linear layout of each bound image level;
 *   texture[]/sampler[] of the compute stage;
 *   compute_info     block and grid size, indirect grid address, shader,
 *                    textures, shared memory size;
 * and appends DISPATCH.  SSBO and image addresses are not hardware state:
 * the shader computes VRAM addresses from them (contract: no per-buffer
 * bounds check; out-of-range image coordinates are checked in the shader).
 *
 * Vertex and fragment shaders have shader buffers and images too (GL ES
 * 3.1 graphics stages, nv_image_formats): each draw writes the same driver
 * uniforms into their global-buffer images (vlg_emit.c
 * vlg_graphics_driver_uniforms, called by vlg_draw.c) and adds the buffers
 * to the batch.
 *
 * Ordering: the CP runs commands in order, waits for earlier draws before a
 * DISPATCH and for the DISPATCH's stores to reach VRAM before the next
 * command; a draw whose shaders use MEM waits for every earlier draw and
 * later draws wait for it (docs/hw.md "Memory in vertex and fragment
 * shaders"). So later draws, copies and CPU maps (vlg_batch_uses_bo: the map
 * submits first) see what a dispatch or a draw wrote; memory_barrier has
 * nothing to add.
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_math.h"

#include "vlg_bo.h"
#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_emit.h"
#include "vlg_program.h"
#include "vlg_resource.h"

static void
vlg_set_shader_buffers(struct pipe_context *pctx, enum pipe_shader_type shader,
                       unsigned start, unsigned count,
                       const struct pipe_shader_buffer *buffers,
                       unsigned writable_bitmask)
{
   struct vlg_context *ctx = vlg_context(pctx);

   (void)writable_bitmask;
   assert(shader < PIPE_SHADER_TYPES);
   assert(start + count <= VLG_MAX_SHADER_BUFFERS);
   util_set_shader_buffers_mask(ctx->ssbo[shader], &ctx->ssbo_mask[shader],
                                buffers, start, count);
}

static void
vlg_set_shader_images(struct pipe_context *pctx, enum pipe_shader_type shader,
                      unsigned start, unsigned count,
                      unsigned unbind_num_trailing_slots,
                      const struct pipe_image_view *images)
{
   struct vlg_context *ctx = vlg_context(pctx);

   assert(shader < PIPE_SHADER_TYPES);
   assert(start + count + unbind_num_trailing_slots <= VLG_MAX_SHADER_IMAGES);
   for (unsigned i = 0; i < count + unbind_num_trailing_slots; i++) {
      const unsigned slot = start + i;
      const struct pipe_image_view *src =
         images && i < count ? &images[i] : NULL;
      util_copy_image_view(&ctx->images[shader][slot], src);
      if (src && src->resource)
         ctx->image_mask[shader] |= BITFIELD_BIT(slot);
      else
         ctx->image_mask[shader] &= ~BITFIELD_BIT(slot);
   }
}

static void
vlg_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* Commands run in order and a DISPATCH drains its stores before the next
    * command starts; CPU access submits first (transfer_map). Nothing is
    * cached between commands. */
   (void)pctx;
   (void)flags;
}

/* The grid of an indirect dispatch, read on the CPU for gl_NumWorkGroups
 * (the CP reads it again for the grid itself): work still queued that
 * writes the buffer is submitted first. */
static bool
vlg_read_indirect_grid(struct vlg_context *ctx, const struct pipe_grid_info *info,
                       uint32_t grid[3])
{
   struct vlg_resource *rsc = vlg_resource(info->indirect);

   if (info->indirect_offset + 12 > rsc->size)
      return false;
   if (vlg_batch_uses_bo(&ctx->batch, rsc->bo))
      vlg_batch_submit(&ctx->batch);
   memcpy(grid, rsc->bo->map + info->indirect_offset, 12);
   return true;
}

static void
vlg_launch_grid(struct pipe_context *pctx, const struct pipe_grid_info *info)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_shader_state *so = ctx->cs;

   if (!so || !so->cs) {
      mesa_logw_once("vlgpu: dispatch without a compiled compute shader "
                     "skipped");
      return;
   }
   const struct vlg_compiled_shader *cs = so->cs;
   const struct vlg_screen *screen = vlg_screen(pctx->screen);
   if (cs->state.num_regs > screen->max_compute_regs) {
      /* the workgroup would not fit in one SPC (a GPU fault at dispatch) */
      mesa_loge("vlgpu: compute shader %u uses %u registers, the GPU runs "
                "workgroups of shaders of up to %u: dispatch skipped",
                so->id, cs->state.num_regs, screen->max_compute_regs);
      return;
   }

   uint32_t grid[3] = {info->grid[0], info->grid[1], info->grid[2]};
   if (info->indirect && !vlg_read_indirect_grid(ctx, info, grid)) {
      mesa_logw("vlgpu: indirect dispatch buffer too small, skipped");
      return;
   }
   if (!grid[0] || !grid[1] || !grid[2])
      return;

   uint32_t du[VLG_DU_SLOTS * 4] = {0};
   memcpy(&du[VLG_DU_NUM_WORKGROUPS * 4], grid, sizeof(grid));
   vlg_memory_uniforms(ctx, PIPE_SHADER_COMPUTE, cs, du);

   struct VLG_COMPUTE_INFO ci;
   VLG_COMPUTE_INFO_init(&ci);
   unsigned num_textures;
   if (!vlg_emit_shader(ctx, so, du, &ci.cs) ||
       !vlg_emit_stage_textures(ctx, so, &ci.textures, &ci.samplers,
                                &num_textures)) {
      mesa_loge("vlgpu: out of VRAM for a dispatch, skipped");
      return;
   }
   ci.num_textures = ci.num_samplers = num_textures;
   /* st/mesa passes the shader's local size (no variable group size) */
   ci.block_x = info->block[0];
   ci.block_y = info->block[1];
   ci.block_z = info->block[2];
   ci.grid_x = grid[0];
   ci.grid_y = grid[1];
   ci.grid_z = grid[2];
   if (info->indirect) {
      struct vlg_resource *rsc = vlg_resource(info->indirect);
      ci.indirect = rsc->bo->address + info->indirect_offset;
      vlg_batch_add_bo(&ctx->batch, rsc->bo);
   }
   ci.shared_size = cs->shared_size;

   uint32_t words[VLG_COMPUTE_INFO_LENGTH];
   VLG_COMPUTE_INFO_pack(words, &ci);
   uint64_t ci_address =
      vlg_batch_upload(&ctx->batch, words, sizeof(words), 16);
   if (!ci_address) {
      mesa_loge("vlgpu: out of VRAM for a dispatch, skipped");
      return;
   }

   vlg_batch_emit_cmd(&ctx->batch, DISPATCH, compute_info, ci_address);
}

void
vlg_compute_cleanup(struct vlg_context *ctx)
{
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++) {
      for (unsigned i = 0; i < VLG_MAX_SHADER_BUFFERS; i++)
         pipe_resource_reference(&ctx->ssbo[s][i].buffer, NULL);
      for (unsigned i = 0; i < VLG_MAX_SHADER_IMAGES; i++)
         pipe_resource_reference(&ctx->images[s][i].resource, NULL);
      ctx->ssbo_mask[s] = ctx->image_mask[s] = 0;
   }
}

void
vlg_init_compute_functions(struct pipe_context *pctx)
{
   pctx->set_shader_buffers = vlg_set_shader_buffers;
   pctx->set_shader_images = vlg_set_shader_images;
   pctx->memory_barrier = vlg_memory_barrier;
   pctx->launch_grid = vlg_launch_grid;
}
