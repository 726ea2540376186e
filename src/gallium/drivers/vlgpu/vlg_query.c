/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Queries.  The GPU has no occlusion or pipeline-statistics counters in
 * its hardware words (docs/driver.md says what would be needed), and the
 * screen advertises none: PIPE_CAP_OCCLUSION_QUERY, QUERY_TIME_ELAPSED,
 * QUERY_TIMESTAMP and QUERY_PIPELINE_STATISTICS are 0.  st/mesa then only
 * creates PIPE_QUERY_GPU_FINISHED (glClientWaitSync/fences), and the
 * cso/u_blitter code toggles set_active_query_state.  Other types return
 * NULL with a warning.
 */

#include "util/log.h"
#include "util/u_memory.h"

#include "vlg_context.h"

struct vlg_query {
   unsigned type;
};

static struct pipe_query *
vlg_create_query(struct pipe_context *pctx, unsigned query_type,
                 unsigned index)
{
   if (query_type != PIPE_QUERY_GPU_FINISHED) {
      mesa_logw("query type %u is not supported by the GPU", query_type);
      return NULL;
   }

   struct vlg_query *q = CALLOC_STRUCT(vlg_query);
   if (q)
      q->type = query_type;
   return (struct pipe_query *)q;
}

static void
vlg_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   FREE(pq);
}

static bool
vlg_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   return true;
}

static bool
vlg_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   return true;
}

static bool
vlg_get_query_result(struct pipe_context *pctx, struct pipe_query *pq,
                     bool wait, union pipe_query_result *result)
{
   struct vlg_query *q = (struct vlg_query *)pq;

   assert(q->type == PIPE_QUERY_GPU_FINISHED);
   /* Everything queued before the query has finished once it has been
    * submitted (submits are synchronous). */
   vlg_context_flush(vlg_context(pctx), NULL, 0);
   result->b = true;
   return true;
}

static void
vlg_set_active_query_state(struct pipe_context *pctx, bool enable)
{
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
}
