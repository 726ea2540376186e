/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The command queue of a context and the VRAM of its per-draw packages
 * (seed 001 §3.2; docs/hw.md "The per-draw package"; docs/driver.md "The
 * package and the queue").
 *
 * draw_vbo and clear append DRAW commands and write their packages into
 * package chunks; flush appends SYNC and submits the queue through
 * vlg_drm_submit().  The simulator runs the queue synchronously, so when
 * the submit returns the CP has written the fence and every chunk and BO
 * the queue used can be recycled (the role v3d_job.c's job and lima_job.c's
 * job play for their kernel submits).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "util/log.h"
#include "util/u_math.h"

#include "vlg_batch.h"
#include "vlg_context.h"
#include "vlg_debug.h"
#include "vlg_fence.h"
#include "vlg_hw.h"
#include "vlg_screen.h"
#include "vlg_stats.h"
#include "vlgpu_drm.h"

/* Free chunks a context keeps for reuse (the rest are freed). */
#define VLG_BATCH_MAX_FREE_CHUNKS 16

void
vlg_batch_init(struct vlg_batch *batch, struct vlg_context *ctx)
{
   memset(batch, 0, sizeof(*batch));
   batch->ctx = ctx;
   batch->id = vlg_screen_next_batch_id(vlg_screen(ctx->base.screen));
   util_dynarray_init(&batch->cmds, NULL);
   util_dynarray_init(&batch->bos, NULL);
   util_dynarray_init(&batch->draws, NULL);
   util_dynarray_init(&batch->full_chunks, NULL);
   util_dynarray_init(&batch->free_chunks, NULL);
}

static void
vlg_batch_release(struct vlg_batch *batch)
{
   util_dynarray_foreach (&batch->bos, struct vlg_bo *, bo) {
      if ((*bo)->batch == batch)
         (*bo)->batch = NULL;
      vlg_bo_reference(bo, NULL);
   }
   util_dynarray_clear(&batch->bos);
   util_dynarray_clear(&batch->cmds);
   util_dynarray_clear(&batch->draws);

   /* Chunks come back for reuse: the queue that used them has completed. */
   util_dynarray_foreach (&batch->full_chunks, struct vlg_bo *, chunk) {
      if (util_dynarray_num_elements(&batch->free_chunks, struct vlg_bo *) <
          VLG_BATCH_MAX_FREE_CHUNKS && (*chunk)->size == VLG_BATCH_CHUNK_SIZE)
         util_dynarray_append(&batch->free_chunks, struct vlg_bo *, *chunk);
      else
         vlg_bo_reference(chunk, NULL);
   }
   util_dynarray_clear(&batch->full_chunks);
   batch->chunk_used = 0;
   batch->id = vlg_screen_next_batch_id(vlg_screen(batch->ctx->base.screen));
}

void
vlg_batch_fini(struct vlg_batch *batch)
{
   vlg_batch_release(batch);
   vlg_bo_reference(&batch->chunk, NULL);
   util_dynarray_foreach (&batch->free_chunks, struct vlg_bo *, chunk)
      vlg_bo_reference(chunk, NULL);
   util_dynarray_fini(&batch->free_chunks);
   util_dynarray_fini(&batch->full_chunks);
   util_dynarray_fini(&batch->cmds);
   util_dynarray_fini(&batch->bos);
   util_dynarray_fini(&batch->draws);
}

void *
vlg_batch_alloc(struct vlg_batch *batch, uint64_t size, unsigned align,
                uint64_t *address)
{
   struct vlg_screen *screen = vlg_screen(batch->ctx->base.screen);

   assert(util_is_power_of_two_nonzero(align) && align <= 256);
   size = MAX2(size, 4);

   /* Large blocks (big user index arrays) get a BO of their own. */
   if (size > VLG_BATCH_CHUNK_SIZE / 4) {
      struct vlg_bo *bo = vlg_bo_create(screen, size, 256, "large package block");
      if (!bo)
         return NULL;
      util_dynarray_append(&batch->full_chunks, struct vlg_bo *, bo);
      *address = bo->address;
      return bo->map;
   }

   uint64_t offset = align64(batch->chunk_used, align);
   if (!batch->chunk || offset + size > batch->chunk->size) {
      if (batch->chunk && batch->chunk_used)
         util_dynarray_append(&batch->full_chunks, struct vlg_bo *, batch->chunk);
      else
         vlg_bo_reference(&batch->chunk, NULL);
      batch->chunk = NULL;
      if (util_dynarray_num_elements(&batch->free_chunks, struct vlg_bo *))
         batch->chunk = util_dynarray_pop(&batch->free_chunks, struct vlg_bo *);
      else
         batch->chunk = vlg_bo_create(screen, VLG_BATCH_CHUNK_SIZE, 256,
                                      "draw packages");
      if (!batch->chunk)
         return NULL;
      offset = 0;
   }

   batch->chunk_used = offset + size;
   *address = batch->chunk->address + offset;
   return batch->chunk->map + offset;
}

uint64_t
vlg_batch_upload(struct vlg_batch *batch, const void *data, uint64_t size,
                 unsigned align)
{
   uint64_t address;
   void *map = vlg_batch_alloc(batch, size, align, &address);

   if (!map)
      return 0;
   memcpy(map, data, size);
   return address;
}

void
vlg_batch_add_bo(struct vlg_batch *batch, struct vlg_bo *bo)
{
   if (vlg_batch_uses_bo(batch, bo))
      return;
   bo->batch = batch;
   bo->batch_id = batch->id;
   struct vlg_bo *ref = NULL;
   vlg_bo_reference(&ref, bo);
   util_dynarray_append(&batch->bos, struct vlg_bo *, ref);
}

void
vlg_batch_emit(struct vlg_batch *batch, const uint32_t *dw, unsigned n)
{
   void *dst = util_dynarray_grow(&batch->cmds, uint32_t, n);
   memcpy(dst, dw, n * sizeof(uint32_t));
}

void
vlg_batch_record_draw(struct vlg_batch *batch,
                      const struct vlg_draw_record *rec)
{
   util_dynarray_append(&batch->draws, struct vlg_draw_record, *rec);
}

/* Print the fault report of the last submit (logged once per distinct
 * summary line, so a broken shader does not flood stderr every frame). */
static void
vlg_report_fault(struct vlg_screen *screen, const char *fault)
{
   static uint64_t reported;

   if (!fault || !*fault)
      return;
   if (reported < 20 || vlg_debug_enabled(VLG_DEBUG_STATS)) {
      mesa_loge("GPU fault:\n%s", fault);
      if (++reported == 20)
         mesa_loge("(further GPU faults are not printed; VLGPU_DEBUG=stats "
                   "prints all of them)");
   }
}

/* Submit @n dwords at the start of @map/@address (already in VRAM). */
static void
vlg_submit_queue(struct vlg_batch *batch, uint64_t address, unsigned n,
                 bool collect_stats)
{
   struct vlg_screen *screen = vlg_screen(batch->ctx->base.screen);
   struct vlg_drm_submit args = {
      .cmd_address = address,
      .cmd_dwords = n,
   };

   simple_mtx_lock(&screen->device_lock);
   int ret = vlg_drm_submit(screen->dev, &args);
   if (ret == -EIO)
      vlg_report_fault(screen, vlg_drm_get_fault(screen->dev));
   else if (ret)
      mesa_loge("command queue of %u dwords at VRAM 0x%" PRIx64
                " was refused: %s", n, address, strerror(-ret));
   if (collect_stats && screen->stats && ret != -EINVAL)
      vlg_stats_add_submit(screen->stats,
                           vlg_stats_submit_json(screen->stats, screen->dev),
                           util_dynarray_begin(&batch->draws),
                           util_dynarray_num_elements(&batch->draws,
                                                      struct vlg_draw_record));
   simple_mtx_unlock(&screen->device_lock);
}

uint64_t
vlg_batch_submit(struct vlg_batch *batch)
{
   struct vlg_context *ctx = batch->ctx;
   struct vlg_screen *screen = vlg_screen(ctx->base.screen);

   if (vlg_batch_is_empty(batch))
      return vlg_fence_last_submitted(screen);

   /* SYNC: the CP writes the fence once every draw has completed. */
   uint64_t seqno = vlg_fence_next_seqno(screen);
   struct VLG_CMD_SYNC sync;
   uint32_t dw[VLG_CMD_SYNC_LENGTH];
   VLG_CMD_SYNC_init(&sync);
   sync.fence_address = ctx->fence_bo->address;
   sync.fence_value = (uint32_t)seqno;
   VLG_CMD_SYNC_pack(dw, &sync);
   vlg_batch_emit(batch, dw, VLG_CMD_SYNC_LENGTH);
   vlg_batch_add_bo(batch, ctx->fence_bo);

   const unsigned n = util_dynarray_num_elements(&batch->cmds, uint32_t);
   uint64_t address =
      vlg_batch_upload(batch, util_dynarray_begin(&batch->cmds),
                       n * sizeof(uint32_t), 64);
   if (address) {
      vlg_submit_queue(batch, address, n, true);
      const uint32_t written = *(volatile uint32_t *)ctx->fence_bo->map;
      if (written != (uint32_t)seqno)
         mesa_loge("the GPU did not write fence %" PRIu64 " (fence word holds "
                   "%u): a SYNC was skipped", seqno, written);
   } else {
      mesa_loge("VRAM full: %u queued commands dropped", n);
   }

   /* Synchronous execution: the submit has completed either way. */
   vlg_fence_signal(screen, seqno);
   vlg_batch_release(batch);
   return seqno;
}

void
vlg_batch_submit_raw(struct vlg_batch *batch, const uint32_t *dw, unsigned n)
{
   uint64_t address = vlg_batch_upload(batch, dw, n * sizeof(uint32_t), 64);

   if (address)
      vlg_submit_queue(batch, address, n, false);
   vlg_batch_release(batch);
}
