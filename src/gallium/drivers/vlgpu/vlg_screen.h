/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_SCREEN_H
#define VLG_SCREEN_H

#include <stdint.h>

#include "pipe/p_screen.h"
#include "util/simple_mtx.h"

struct sw_winsys;

/*
 * Limits the screen advertises (GL ES 2.0 class; brief §3/§4).  They are the
 * driver's promises to st/mesa and must stay within what the VL-IW ISA and
 * the simulator configuration provide once those are wired in.
 */
#define VLG_MAX_TEXTURE_2D_LEVELS   13  /* 4096 x 4096 */
#define VLG_MAX_TEXTURE_3D_LEVELS   12  /* 2048^3 */
#define VLG_MAX_TEXTURE_CUBE_LEVELS 13
#define VLG_MAX_VERTEX_ATTRIBS      16  /* VS inputs (GLES 2.0 minimum: 8) */
#define VLG_MAX_VARYINGS            12  /* vec4 varyings (GLES 2.0 minimum: 8) */
#define VLG_MAX_SAMPLERS            8   /* per stage (GLES 2.0 minimum FS: 8) */
#define VLG_MAX_UNIFORM_VEC4        256 /* global buffer vec4 entries for uniforms */
#define VLG_MAX_TEMPS               128 /* R0-R127, vec4 of 32-bit (brief §4.6) */
#define VLG_VRAM_SIZE_MB            256 /* default simulated VRAM size */

/** Subclass of pipe_screen: one per sw winsys (softpipe_screen style). */
struct vlg_screen {
   struct pipe_screen base;

   /** Display targets (X11 drisw or the null winsys); owned by the screen. */
   struct sw_winsys *winsys;

   /** Fence sequence numbers; see vlg_fence.c. */
   simple_mtx_t fence_lock;
   uint64_t last_submitted_seqno;
   uint64_t last_completed_seqno;
};

static inline struct vlg_screen *
vlg_screen(struct pipe_screen *pscreen)
{
   return (struct vlg_screen *)pscreen;
}

#endif /* VLG_SCREEN_H */
