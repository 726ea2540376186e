/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_RESOURCE_H
#define VLG_RESOURCE_H

#include <stdint.h>

#include "pipe/p_state.h"

#include "vlg_screen.h"

struct sw_displaytarget;

/**
 * A buffer or texture.
 *
 * Storage today: host memory (align_malloc), laid out linearly, mip level
 * after mip level, each level's layers/faces/slices after each other (the
 * layout of softpipe_resource_layout() in sp_texture.c); or, for display
 * targets, the sw winsys' display-target memory.  When the simulator is
 * wired in, resources move into simulated VRAM buffer objects.
 */
struct vlg_resource {
   struct pipe_resource base;

   /** Row pitch in bytes, per mip level. */
   unsigned stride[PIPE_MAX_TEXTURE_LEVELS];
   /** Bytes between two layers/faces/slices, per mip level. */
   unsigned layer_stride[PIPE_MAX_TEXTURE_LEVELS];
   /** Byte offset of each mip level from the start of the storage. */
   uint64_t level_offset[PIPE_MAX_TEXTURE_LEVELS];
   /** Total storage size in bytes (0 for display targets). */
   uint64_t size;

   /** Host storage, or NULL for display targets. */
   void *data;
   /** Display target from the sw winsys, or NULL. */
   struct sw_displaytarget *dt;
};

/** A CPU mapping of a resource region (pipe_transfer subclass). */
struct vlg_transfer {
   struct pipe_transfer base;
};

static inline struct vlg_resource *
vlg_resource(struct pipe_resource *prsc)
{
   return (struct vlg_resource *)prsc;
}

/** Byte offset of (level, layer) from the start of the resource storage. */
static inline uint64_t
vlg_resource_offset(const struct vlg_resource *rsc, unsigned level,
                    unsigned layer)
{
   return rsc->level_offset[level] +
          (uint64_t)layer * rsc->layer_stride[level];
}

void vlg_init_screen_resource_functions(struct pipe_screen *pscreen);
void vlg_init_context_resource_functions(struct pipe_context *pctx);

#endif /* VLG_RESOURCE_H */
