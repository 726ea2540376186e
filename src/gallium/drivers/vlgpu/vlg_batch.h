/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_BATCH_H
#define VLG_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "util/u_dynarray.h"

#include "vlg_stats.h"

struct vlg_bo;
struct vlg_context;

/** Bytes of one package chunk BO (draw_info, pipe_state, shader_state,
 *  global-buffer images, descriptors, uploaded indices, the queue). */
#define VLG_BATCH_CHUNK_SIZE (1u << 20)

/**
 * The context's command queue under construction (seed 001 §3.2: DRAW,
 * SYNC, DUMP, HALT) and the VRAM its draws' packages live in.
 *
 * Packages are carved out of 1 MiB chunk BOs (a bump allocator); chunks
 * come back to the context's free list once the queue that used them has
 * been submitted and its fence has signalled (vlg_drm_submit is
 * synchronous, so that is when it returns).  Every BO a queued draw reads
 * or writes is referenced by the batch until then.
 */
struct vlg_batch {
   struct vlg_context *ctx;
   /** Unique over the screen's life; a new id after each submit. */
   uint64_t id;
   /** The queue: packed commands (uint32_t), copied to VRAM at submit. */
   struct util_dynarray cmds;
   /** struct vlg_bo * referenced by queued commands. */
   struct util_dynarray bos;
   /** struct vlg_draw_record, one per queued DRAW. */
   struct util_dynarray draws;

   /** Current package chunk and bytes used in it. */
   struct vlg_bo *chunk;
   uint64_t chunk_used;
   /** Chunks filled by this batch (referenced), back to free after submit. */
   struct util_dynarray full_chunks;
   /** Chunks ready for reuse. */
   struct util_dynarray free_chunks;
};

void vlg_batch_init(struct vlg_batch *batch, struct vlg_context *ctx);
void vlg_batch_fini(struct vlg_batch *batch);

/**
 * @size bytes of package memory aligned to @align (power of two, <= 256),
 * valid until the batch is submitted.  \return the CPU pointer (contents
 * undefined) and the VRAM address in @address, or NULL when VRAM is full.
 */
void *vlg_batch_alloc(struct vlg_batch *batch, uint64_t size, unsigned align,
                      uint64_t *address);

/** vlg_batch_alloc + copy; \return the VRAM address, 0 when VRAM is full. */
uint64_t vlg_batch_upload(struct vlg_batch *batch, const void *data,
                          uint64_t size, unsigned align);

/** Keep @bo alive and mark it used until this batch is submitted. */
void vlg_batch_add_bo(struct vlg_batch *batch, struct vlg_bo *bo);

/** Whether an unsubmitted batch uses @bo (the CPU must submit before it
 *  reads GPU results from it or changes what queued draws read). */
static inline bool
vlg_batch_uses_bo(const struct vlg_batch *batch, const struct vlg_bo *bo);

/** Append @n packed command dwords. */
void vlg_batch_emit(struct vlg_batch *batch, const uint32_t *dw, unsigned n);

/**
 * Append command VLG_CMD_<NAME> (a cmd_* struct of vlgpu_hw.xml) with its
 * defaults and @field = @value: the commands that point at one block, DRAW
 * (draw_info), DISPATCH (compute_info) and COPY (copy_info), whose @value is
 * that block's VRAM address.  The caller includes the generated vlg_hw.h.
 */
#define vlg_batch_emit_cmd(batch, NAME, field, value)                          \
   do {                                                                        \
      struct VLG_CMD_##NAME cmd_;                                              \
      uint32_t dw_[VLG_CMD_##NAME##_LENGTH];                                   \
      VLG_CMD_##NAME##_init(&cmd_);                                            \
      cmd_.field = (value);                                                    \
      VLG_CMD_##NAME##_pack(dw_, &cmd_);                                       \
      vlg_batch_emit((batch), dw_, VLG_CMD_##NAME##_LENGTH);                   \
   } while (0)

/** Record a DRAW (after emitting it) for the statistics. */
void vlg_batch_record_draw(struct vlg_batch *batch,
                           const struct vlg_draw_record *rec);

static inline bool
vlg_batch_is_empty(const struct vlg_batch *batch)
{
   return batch->cmds.size == 0;
}

/**
 * Append SYNC (the screen's next fence sequence number, written by the CP
 * into the context's fence BO), copy the queue into VRAM, submit it, wait,
 * check the fence, report faults and statistics, and release everything the
 * batch held.  An empty batch is not submitted.
 * \return the fence sequence number of this submit, or the last one if
 *         nothing was submitted.
 */
uint64_t vlg_batch_submit(struct vlg_batch *batch);

/** Submit a queue that consists of @n command dwords only (no SYNC): for
 *  HALT at context destruction. */
void vlg_batch_submit_raw(struct vlg_batch *batch, const uint32_t *dw,
                          unsigned n);

#include "vlg_bo.h"

static inline bool
vlg_batch_uses_bo(const struct vlg_batch *batch, const struct vlg_bo *bo)
{
   return bo->batch == batch && bo->batch_id == batch->id;
}

#endif /* VLG_BATCH_H */
