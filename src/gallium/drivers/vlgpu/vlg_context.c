/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The pipe_context: creation, destruction, flush.  State is in
 * vlg_state.c/vlg_program.c, draws in vlg_draw.c, clears/blits in
 * vlg_blit.c, transfers and surfaces in vlg_resource.c, queries in
 * vlg_query.c (the split of v3d_context.c and lima_context.c).
 */

#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

#include "vlg_context.h"
#include "vlg_fence.h"
#include "vlg_program.h"
#include "vlg_resource.h"

static void
vlg_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence,
          unsigned flags)
{
   struct vlg_screen *screen = vlg_screen(pctx->screen);

   /* Nothing is recorded yet (draw_vbo is not implemented; clears and
    * copies already ran on the CPU), so there is no command queue to submit
    * and the submission completes at once. */
   if (fence) {
      struct pipe_fence_handle *f = vlg_fence_create(screen);

      if (f)
         vlg_fence_signal(screen, f->seqno);
      pctx->screen->fence_reference(pctx->screen, fence, NULL);
      *fence = f;
   }
}

static void
vlg_texture_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* In-order, synchronous execution: nothing to wait for. */
}

static void
vlg_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* In-order, synchronous execution: nothing to wait for. */
}

static void
vlg_context_destroy(struct pipe_context *pctx)
{
   struct vlg_context *ctx = vlg_context(pctx);

   vlg_state_cleanup(ctx);
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   FREE(ctx);
}

struct pipe_context *
vlg_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct vlg_context *ctx = CALLOC_STRUCT(vlg_context);

   if (!ctx)
      return NULL;

   struct pipe_context *pctx = &ctx->base;
   pctx->screen = pscreen;
   pctx->priv = priv;
   pctx->destroy = vlg_context_destroy;
   pctx->flush = vlg_flush;
   pctx->texture_barrier = vlg_texture_barrier;
   pctx->memory_barrier = vlg_memory_barrier;

   vlg_init_context_resource_functions(pctx);
   vlg_init_state_functions(pctx);
   vlg_init_program_functions(pctx);
   vlg_init_blit_functions(pctx);
   vlg_init_query_functions(pctx);
   vlg_init_draw_functions(pctx);

   /* Vertex/index/constant uploads go to ordinary buffers
    * (PIPE_CAP_USER_VERTEX_BUFFERS is off), like softpipe. */
   pctx->stream_uploader = u_upload_create_default(pctx);
   if (!pctx->stream_uploader) {
      FREE(ctx);
      return NULL;
   }
   pctx->const_uploader = pctx->stream_uploader;

   ctx->sample_mask = ~0u;
   ctx->dirty = ~0u;
   return pctx;
}
