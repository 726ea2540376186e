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
 * synchronous).  PIPE_QUERY_GPU_FINISHED is for fences.
 *
 * Primitive queries (PIPE_QUERY_PRIMITIVES_GENERATED, _EMITTED,
 * SO_STATISTICS, SO_OVERFLOW_PREDICATE, SO_OVERFLOW_ANY_PREDICATE; stream
 * 0 only): up to 4 active at once, each in a 16-byte slot of the context's
 * so_counters BO; every draw queued while one is active carries a
 * stream_output block whose counters cover the used slots, and the GE adds
 * the draw's generated and written primitives to each (docs/hw.md "Stream
 * output").  begin flushes if queued draws still add to the slots and
 * zeroes the query's slot; end flushes and keeps the slot's values.
 * Timer and pipeline-statistics queries are not supported: the screen does
 * not advertise them and create_query returns NULL with a warning.
 *
 * Driver queries (types from PIPE_QUERY_DRIVER_SPECIFIC: the simulated
 * GPU's counters for GALLIUM_HUD) are vlg_driver_query.cpp's; each entry
 * point here hands them over.
 */

#include <string.h>

#include "util/log.h"
#include "util/u_memory.h"

#include "vlg_bo.h"
#include "vlg_context.h"
#include "vlg_driver_query.h"
#include "vlg_screen.h"

struct vlg_query {
   unsigned type; /**< first: a driver query (vlg_driver_query.cpp) starts so too */
   /** Occlusion queries: the 64-bit counter the CP adds to. */
   struct vlg_bo *bo;
   /** Primitive queries: slot in ctx->so_counters while active (-1 not),
    *  and the generated / written counts at end_query. */
   int slot;
   uint64_t prims[2];
};

static bool
vlg_is_prim_query(unsigned type)
{
   return type == PIPE_QUERY_PRIMITIVES_GENERATED ||
          type == PIPE_QUERY_PRIMITIVES_EMITTED ||
          type == PIPE_QUERY_SO_STATISTICS ||
          type == PIPE_QUERY_SO_OVERFLOW_PREDICATE ||
          type == PIPE_QUERY_SO_OVERFLOW_ANY_PREDICATE;
}

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
   if (vlg_is_driver_query(query_type))
      return vlg_driver_query_create(pctx, query_type);
   if (vlg_is_prim_query(query_type) && index != 0) {
      mesa_logw("query type %u of vertex stream %u: the GPU has stream 0 "
                "only", query_type, index);
      return NULL;
   }
   if (query_type != PIPE_QUERY_GPU_FINISHED &&
       !vlg_is_occlusion(query_type) && !vlg_is_prim_query(query_type)) {
      mesa_logw("query type %u is not supported by the GPU", query_type);
      return NULL;
   }

   struct vlg_query *q = CALLOC_STRUCT(vlg_query);
   if (!q)
      return NULL;
   q->type = query_type;
   q->slot = -1;
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

/* Draws queued from now on no longer count for @q: it leaves
 * ctx->occlusion_query, and its so_counters slot is freed (-1). */
static void
vlg_query_stop(struct vlg_context *ctx, struct vlg_query *q)
{
   if (ctx->occlusion_query == q)
      ctx->occlusion_query = NULL;
   if (q->slot >= 0) {
      ctx->so_slot[q->slot] = NULL;
      ctx->num_so_queries--;
      q->slot = -1;
   }
}

static void
vlg_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vlg_query *q = (struct vlg_query *)pq;

   if (vlg_is_driver_query(q->type)) {
      vlg_driver_query_destroy(pq);
      return;
   }
   vlg_query_stop(vlg_context(pctx), q);
   /* Queued draws hold their own reference to the counter. */
   vlg_bo_reference(&q->bo, NULL);
   FREE(q);
}

static bool
vlg_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_query *q = (struct vlg_query *)pq;

   if (vlg_is_driver_query(q->type))
      return vlg_driver_query_begin(pctx, pq);
   if (vlg_is_prim_query(q->type)) {
      struct vlg_screen *screen = vlg_screen(pctx->screen);
      int slot = -1;
      for (int i = ARRAY_SIZE(ctx->so_slot) - 1; i >= 0; i--)
         if (!ctx->so_slot[i])
            slot = i;
      if (slot < 0) {
         mesa_logw("more than %u primitive queries active at once",
                   (unsigned)ARRAY_SIZE(ctx->so_slot));
         return false;
      }
      if (!ctx->so_counters) {
         ctx->so_counters = vlg_bo_create(screen, 16 * ARRAY_SIZE(ctx->so_slot),
                                          8, "primitive query counters");
         if (!ctx->so_counters)
            return false;
      } else if (vlg_batch_uses_bo(&ctx->batch, ctx->so_counters)) {
         vlg_context_flush(ctx, NULL, 0);
      }
      memset(ctx->so_counters->map + 16 * slot, 0, 16);
      ctx->so_slot[slot] = q;
      ctx->num_so_queries++;
      q->slot = slot;
      q->prims[0] = q->prims[1] = 0;
      return true;
   }
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

   if (vlg_is_driver_query(q->type))
      return vlg_driver_query_end(pctx, pq);
   if (q->slot >= 0) {
      if (vlg_batch_uses_bo(&ctx->batch, ctx->so_counters))
         vlg_context_flush(ctx, NULL, 0);
      memcpy(q->prims, ctx->so_counters->map + 16 * q->slot, 16);
   }
   vlg_query_stop(ctx, q);
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
   if (vlg_is_driver_query(q->type))
      return vlg_driver_query_result(pq, result);
   if (vlg_is_prim_query(q->type)) {
      /* end_query kept the counts */
      switch (q->type) {
      case PIPE_QUERY_PRIMITIVES_GENERATED:
         result->u64 = q->prims[0];
         break;
      case PIPE_QUERY_PRIMITIVES_EMITTED:
         result->u64 = q->prims[1];
         break;
      case PIPE_QUERY_SO_STATISTICS:
         result->so_statistics.num_primitives_written = q->prims[1];
         result->so_statistics.primitives_storage_needed = q->prims[0];
         break;
      default:
         result->b = q->prims[0] != q->prims[1];
         break;
      }
      return true;
   }
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

/** The primitive-query counter pairs for the draws queued now: returns
 *  how many (slots 0..n-1 of ctx->so_counters, unused ones in between are
 *  zeroed at the next begin), 0 if no primitive query is active. */
unsigned
vlg_query_so_counters(struct vlg_context *ctx, uint64_t *address)
{
   unsigned n = 0;

   *address = 0;
   if (!ctx->num_so_queries || !ctx->queries_active)
      return 0;
   for (unsigned i = 0; i < ARRAY_SIZE(ctx->so_slot); i++)
      if (ctx->so_slot[i])
         n = i + 1;
   vlg_batch_add_bo(&ctx->batch, ctx->so_counters);
   *address = ctx->so_counters->address;
   return n;
}

/*
 * Conditional rendering (NV_conditional_render, GL 3.0 section 2.18; Gallium
 * pipe_context::render_condition).  The GPU model has no predication in its
 * CP: like softpipe (sp_query.c softpipe_check_render_cond) the driver reads
 * the occlusion result on the CPU before each draw, clear or blit.  The WAIT
 * modes submit the queued work and wait for it (submits are synchronous);
 * the NO_WAIT modes render when the result is not available yet, which never
 * happens here because get_query_result always has it after a submit.
 */
static void
vlg_render_condition(struct pipe_context *pctx, struct pipe_query *query,
                     bool condition, enum pipe_render_cond_flag mode)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->render_cond_query = query;
   ctx->render_cond_cond = condition;
   ctx->render_cond_mode = mode;
}

bool
vlg_check_render_cond(struct vlg_context *ctx)
{
   struct pipe_context *pctx = &ctx->base;
   struct pipe_query *pq = ctx->render_cond_query;
   union pipe_query_result result;

   if (!pq)
      return true;
   const bool wait = ctx->render_cond_mode == PIPE_RENDER_COND_WAIT ||
                     ctx->render_cond_mode == PIPE_RENDER_COND_BY_REGION_WAIT;
   if (!pctx->get_query_result(pctx, pq, wait, &result))
      return true;
   /* the boolean result types, else a count (softpipe is_result_nonzero) */
   const unsigned type = ((struct vlg_query *)pq)->type;
   const bool nonzero = type == PIPE_QUERY_OCCLUSION_PREDICATE ||
                              type == PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE ||
                              type == PIPE_QUERY_SO_OVERFLOW_PREDICATE ||
                              type == PIPE_QUERY_SO_OVERFLOW_ANY_PREDICATE ||
                              type == PIPE_QUERY_GPU_FINISHED
                           ? result.b
                           : result.u64 != 0;
   /* condition true: render when the result is zero (GL's inverted modes) */
   return nonzero != ctx->render_cond_cond;
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
   pctx->render_condition = vlg_render_condition;
}
