/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * COPY commands: copies, fills and staged uploads as GPU work (vlg_copy.c,
 * docs/hw.md "Copies").
 */

#ifndef VLG_COPY_H
#define VLG_COPY_H

#include <stdbool.h>

#include "pipe/p_state.h"

struct pipe_context;
struct vlg_bo;
struct vlg_context;
struct vlg_resource;

/** A transfer (map) of a resource: direct, or through a staging buffer. */
struct vlg_transfer {
   struct pipe_transfer base;
   /** Staging buffer the CPU writes; its contents go to the resource by a
    *  COPY queued at unmap.  NULL for a direct map of the resource's VRAM. */
   struct vlg_bo *staging;
};

/** resource_copy_region, clear_buffer, clear_texture. */
void vlg_init_copy_functions(struct pipe_context *pctx);

/**
 * Whether a map of @rsc with @usage should write into a staging buffer: a
 * write that replaces the whole mapped range (PIPE_MAP_DISCARD_RANGE, no
 * READ/UNSYNCHRONIZED/PERSISTENT/COHERENT/FLUSH_EXPLICIT) while the
 * unsubmitted batch still uses the resource's BO.
 */
bool vlg_copy_want_staging(struct vlg_context *ctx, struct vlg_resource *rsc,
                           unsigned usage);

/**
 * Allocate @trans's staging buffer for its box (sets base.stride and
 * base.layer_stride to the packed box's).  \return the CPU pointer, or NULL
 * when VRAM is full (the caller then maps directly).
 */
void *vlg_copy_map_staging(struct vlg_context *ctx, struct vlg_transfer *trans);

/** Queue the COPY from @trans's staging buffer into its box and drop the
 *  transfer's reference to the staging buffer (the batch keeps one). */
void vlg_copy_unmap_staging(struct vlg_context *ctx, struct vlg_transfer *trans);

#endif /* VLG_COPY_H */
