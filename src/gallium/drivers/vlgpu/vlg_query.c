/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Queries.
 *
 * Occlusion queries (PIPE_QUERY_OCCLUSION_COUNTER, _PREDICATE,
 * _PREDICATE_CONSERVATIVE; PIPE_CAP_OCCLUSION_QUERY): each query owns an
 * 8-byte VRAM counter.  Every draw queued while the query is active (and
 * queries are not paused by set_active_query_state, u_blitter's blits) gets
 * draw_info.occlusion_counter = that counter, and the CP adds the draw's
 * passing fragments to it when the draw ends (docs/hw.md draw_info).
 * begin_query flushes the queue when earlier draws still use the counter,
 * then zeroes it; get_result flushes and reads it (submits are
 * synchronous).  PIPE_QUERY_GPU_FINISHED is for fences.  Timer,
 * pipeline-statistics and stream-output queries are not supported: the
 * screen does not advertise them and create_query returns NULL with a
 * warning.
 */

#include <string.h>

#include "util/log.h"
#include "util/u_memory.h"

#include "vlg_bo.h"
#include "vlg_context.h"
#include "vlg_screen.h"

struct vlg_query {
   unsigned type;
   /** Occlusion queries: the 64-bit counter the CP adds to. */
   struct vlg_bo *bo;
};

static bool
vlg_is_occlusion(unsigned type)
{
   return type == PIPE_QUERY_OCCLUSION_COUNTER ||
          type == PIPE_QUERY_OCCLUSION_PREDICATE ||
          type == PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE;
}

static struct pipe_query *
vlg_create_query(struct pipe_context *pctx, unsigned query_type,
                 unsigned index)
{
   if (query_type != PIPE_QUERY_GPU_FINISHED &&
       !vlg_is_occlusion(query_type)) {
      mesa_logw("query type %u is not supported by the GPU", query_type);
      return NULL;
   }

   struct vlg_query *q = CALLOC_STRUCT(vlg_query);
   if (!q)
      return NULL;
   q->type = query_type;
   if (vlg_is_occlusion(query_type)) {
      q->bo = vlg_bo_create(vlg_screen(pctx->screen), 8, 8,
                            "occlusion query counter");
      if (!q->bo) {
         FREE(q);
         return NULL;
      }
   }
   return (struct pipe_query *)q;
}

static void
vlg_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_query *q = (struct vlg_query *)pq;

   if (ctx->occlusion_query == q)
      ctx->occlusion_query = NULL;
   /* Queued draws hold their own reference to the counter. */
   vlg_bo_reference(&q->bo, NULL);
   FREE(q);
}

static bool
vlg_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_query *q = (struct vlg_query *)pq;

   if (!vlg_is_occlusion(q->type))
      return true;
   /* Draws of an earlier use of this query still add to the counter. */
   if (vlg_batch_uses_bo(&ctx->batch, q->bo))
      vlg_context_flush(ctx, NULL, 0);
   memset(q->bo->map, 0, 8);
   ctx->occlusion_query = q;
   return true;
}

static bool
vlg_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_query *q = (struct vlg_query *)pq;

   if (ctx->occlusion_query == q)
      ctx->occlusion_query = NULL;
   return true;
}

static bool
vlg_get_query_result(struct pipe_context *pctx, struct pipe_query *pq,
                     bool wait, union pipe_query_result *result)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_query *q = (struct vlg_query *)pq;

   /* Everything queued before the query has finished once it has been
    * submitted (submits are synchronous). */
   if (q->type == PIPE_QUERY_GPU_FINISHED ||
       vlg_batch_uses_bo(&ctx->batch, q->bo))
      vlg_context_flush(ctx, NULL, 0);

   if (q->type == PIPE_QUERY_GPU_FINISHED) {
      result->b = true;
      return true;
   }
   uint64_t count;
   memcpy(&count, q->bo->map, 8);
   if (q->type == PIPE_QUERY_OCCLUSION_COUNTER)
      result->u64 = count;
   else
      result->b = count != 0;
   return true;
}

/** The counter address for the draws queued now (0: no active query). */
uint64_t
vlg_query_occlusion_counter(struct vlg_context *ctx)
{
   struct vlg_query *q = ctx->occlusion_query;

   if (!q || !ctx->queries_active)
      return 0;
   vlg_batch_add_bo(&ctx->batch, q->bo);
   return q->bo->address;
}

static void
vlg_set_active_query_state(struct pipe_context *pctx, bool enable)
{
   vlg_context(pctx)->queries_active = enable;
}

void
vlg_init_query_functions(struct pipe_context *pctx)
{
   pctx->create_query = vlg_create_query;
   pctx->destroy_query = vlg_destroy_query;
   pctx->begin_query = vlg_begin_query;
   pctx->end_query = vlg_end_query;
   pctx->get_query_result = vlg_get_query_result;
   pctx->set_active_query_state = vlg_set_active_query_state;
   vlg_context(pctx)->queries_active = true;
}
