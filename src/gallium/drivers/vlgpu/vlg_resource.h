/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_RESOURCE_H
#define VLG_RESOURCE_H

#include <stdint.h>

#include "pipe/p_state.h"

#include "vlg_bo.h"
#include "vlg_screen.h"

struct sw_displaytarget;

/**
 * A buffer or texture, stored in a VRAM buffer object.
 *
 * Textures are linear (docs/hw.md: the texture descriptor locates every
 * level explicitly): mip level after mip level, each level's layers (cube
 * faces, array layers, 3D slices) after each other, rows and layers 64-byte
 * aligned — the layout of softpipe_resource_layout() in sp_texture.c.
 *
 * Display targets (window back buffers) are rendered in VRAM like any
 * render target; flush_frontbuffer has the GPU DUMP them into the sw
 * winsys' display-target memory (vlg_screen.c).
 */
struct vlg_resource {
   struct pipe_resource base;

   /** The storage.  Buffers may get a new BO when the CPU discards their
    *  contents while queued draws still read the old one (renaming). */
   struct vlg_bo *bo;

   /** Row pitch in bytes, per mip level. */
   unsigned stride[PIPE_MAX_TEXTURE_LEVELS];
   /** Bytes between two layers/faces/slices, per mip level. */
   unsigned layer_stride[PIPE_MAX_TEXTURE_LEVELS];
   /** Byte offset of each mip level from the start of the storage. */
   uint64_t level_offset[PIPE_MAX_TEXTURE_LEVELS];
   /** Storage size in bytes. */
   uint64_t size;

   /** Display target from the sw winsys (presentation), or NULL. */
   struct sw_displaytarget *dt;
   /** Row pitch of the display target's memory, bytes. */
   unsigned dt_stride;
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
