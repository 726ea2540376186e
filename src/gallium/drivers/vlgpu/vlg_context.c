/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The pipe_context: creation, destruction, flush.  State is in
 * vlg_state.c/vlg_program.c, draws in vlg_draw.c, the command queue in
 * vlg_batch.c, clears/blits in vlg_blit.c, transfers and surfaces in
 * vlg_resource.c, queries in vlg_query.c (the split of v3d_context.c and
 * lima_context.c).
 */

#include "util/u_blitter.h"
#include "util/u_debug_cb.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

#include "vlg_batch.h"
#include "vlg_context.h"
#include "vlg_copy.h"
#include "vlg_fence.h"
#include "vlg_format.h"
#include "vlg_program.h"
#include "vlg_resource.h"
#include "vlg_so.h"
#include "vlg_stats.h"
#include "vlgpu_drm.h"

/* Name the image an off-screen frame ends with, the bound colour buffer 0,
 * for a frame capture and its replay (vlg_drm_set_frame_image,
 * docs/capture.md). */
static void
vlg_set_frame_image(struct vlg_context *ctx)
{
   struct vlg_screen *screen = vlg_screen(ctx->base.screen);
   struct pipe_surface *surf = ctx->framebuffer.cbufs[0];

   if (!surf || !surf->texture || surf->texture->target == PIPE_BUFFER)
      return;
   struct vlg_resource *rsc = vlg_resource(surf->texture);
   const unsigned level = surf->u.tex.level;
   struct vlg_drm_frame_image img = {
      .address = rsc->bo->address +
                 vlg_resource_offset(rsc, level, surf->u.tex.first_layer),
      .stride = rsc->stride[level],
      .width = surf->width,
      .height = surf->height,
      .format = vlg_format_from_pipe(surf->format),
   };
   simple_mtx_lock(&screen->device_lock);
   /* -EINVAL (a format without a vlg_format): the frame has no image */
   vlg_drm_set_frame_image(screen->dev, &img);
   simple_mtx_unlock(&screen->device_lock);
}

void
vlg_context_flush(struct vlg_context *ctx, struct pipe_fence_handle **fence,
                  unsigned flags)
{
   struct vlg_screen *screen = vlg_screen(ctx->base.screen);
   uint64_t seqno = vlg_batch_submit(&ctx->batch);

   /* glFinish ends a frame (statistics, trace frames) for programs that
    * never present (off-screen rendering, e.g. glmark2 --off-screen). */
   if ((flags & PIPE_FLUSH_HINT_FINISH) && !p_atomic_read(&screen->frames_presented)) {
      vlg_set_frame_image(ctx);
      vlg_screen_end_frame(screen);
   }

   if (fence) {
      ctx->base.screen->fence_reference(ctx->base.screen, fence, NULL);
      *fence = vlg_fence_create(seqno);
   }
}

static void
vlg_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence,
          unsigned flags)
{
   vlg_context_flush(vlg_context(pctx), fence, flags);
}

static void
vlg_texture_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* Draws run in queue order and the OMU writes before the next draw's
    * texture reads: nothing to wait for. */
}

static void
vlg_context_destroy(struct pipe_context *pctx)
{
   struct vlg_context *ctx = vlg_context(pctx);

   if (ctx->batch.ctx) {
      vlg_context_flush(ctx, NULL, 0);

      /* HALT: the context's last command queue (seed 001 §3.2). */
      struct VLG_CMD_HALT halt;
      uint32_t dw[VLG_CMD_HALT_LENGTH];
      VLG_CMD_HALT_init(&halt);
      VLG_CMD_HALT_pack(dw, &halt);
      vlg_batch_submit_raw(&ctx->batch, dw, VLG_CMD_HALT_LENGTH);
   }

   if (ctx->blitter)
      util_blitter_destroy(ctx->blitter);
   vlg_state_cleanup(ctx);
   vlg_compute_cleanup(ctx);
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   if (ctx->batch.ctx)
      vlg_batch_fini(&ctx->batch);
   vlg_bo_reference(&ctx->fence_bo, NULL);
   FREE(ctx);
}

struct pipe_context *
vlg_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_context *ctx = CALLOC_STRUCT(vlg_context);

   if (!ctx)
      return NULL;

   struct pipe_context *pctx = &ctx->base;
   pctx->screen = pscreen;
   pctx->priv = priv;
   pctx->destroy = vlg_context_destroy;
   pctx->flush = vlg_flush;
   pctx->texture_barrier = vlg_texture_barrier;
   /* GL_KHR_debug: st/mesa installs its callback while GL_DEBUG_OUTPUT is
    * on; failed shader compiles are reported through it (vlg_program.c) */
   pctx->set_debug_callback = u_default_set_debug_callback;

   /* Every other hook is installed by the file that implements it
    * (docs/driver.md has one row per file), as softpipe and llvmpipe do. */
   vlg_init_context_resource_functions(pctx);
   vlg_init_state_functions(pctx);
   vlg_init_program_functions(pctx);
   vlg_init_compute_functions(pctx); /* memory_barrier too */
   vlg_init_blit_functions(pctx);
   vlg_init_copy_functions(pctx);
   vlg_init_query_functions(pctx);
   vlg_init_draw_functions(pctx);
   vlg_init_so_functions(pctx);

   vlg_state_init(ctx);
   /* until u_blitter pauses them (set_active_query_state) */
   ctx->queries_active = true;

   ctx->fence_bo = vlg_bo_create(screen, 4, 64, "fence");
   if (!ctx->fence_bo)
      goto fail;
   vlg_batch_init(&ctx->batch, ctx);

   /* Vertex/index/constant uploads go to ordinary VRAM buffers
    * (PIPE_CAP_USER_VERTEX_BUFFERS is off), like softpipe. */
   pctx->stream_uploader = u_upload_create_default(pctx);
   if (!pctx->stream_uploader)
      goto fail;
   pctx->const_uploader = pctx->stream_uploader;

   ctx->blitter = util_blitter_create(pctx);
   if (!ctx->blitter)
      goto fail;

   return pctx;

fail:
   vlg_context_destroy(pctx);
   return NULL;
}
