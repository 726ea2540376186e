/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_BO_H
#define VLG_BO_H

#include <stdint.h>

#include "util/u_inlines.h"

struct vlg_screen;

/**
 * A buffer object in simulated VRAM (vlgpu_drm.h vlg_drm_bo_create), the
 * storage of every resource, shader binary and per-draw package.
 *
 * Reference counted: a resource holds one reference, and every command
 * queue (vlg_batch) that uses the BO holds one until the queue has been
 * submitted and its fence has signalled, so freeing a resource while draws
 * that read it are still queued is safe (v3d_bo.c and lima_bo.c do the
 * same with their kernel BOs).
 */
struct vlg_bo {
   struct pipe_reference reference;
   struct vlg_screen *screen;
   uint32_t handle;  /**< vlgpu_drm.h handle (> 0) */
   uint64_t address; /**< VRAM byte address of byte 0 */
   uint64_t size;    /**< bytes */
   uint8_t *map;     /**< CPU pointer to byte 0 (VRAM is host memory) */
   const char *name; /**< what it holds, for messages */

   /** vlg_batch::id of the last unsubmitted batch that uses the BO, and
    *  the batch itself; vlg_batch_add_bo() sets them, the batch clears
    *  them when it is submitted. */
   uint64_t batch_id;
   struct vlg_batch *batch;
};

/**
 * Allocate @size bytes of VRAM aligned to @align bytes (power of two; 0 =
 * 256), zero-filled.  \return NULL when VRAM is exhausted (the error is
 * logged with the size and what it was for).
 */
struct vlg_bo *vlg_bo_create(struct vlg_screen *screen, uint64_t size,
                             uint32_t align, const char *name);

void vlg_bo_destroy(struct vlg_bo *bo);
/** Give @bo a debug label in the device (vlg_drm_bo_set_label: the shader
 *  profile names shader code by it); a failure only loses the label. */
void vlg_bo_set_label(struct vlg_bo *bo, const char *label);

static inline void
vlg_bo_reference(struct vlg_bo **dst, struct vlg_bo *src)
{
   struct vlg_bo *old = *dst;

   if (pipe_reference(old ? &old->reference : NULL,
                      src ? &src->reference : NULL))
      vlg_bo_destroy(old);
   *dst = src;
}

#endif /* VLG_BO_H */
