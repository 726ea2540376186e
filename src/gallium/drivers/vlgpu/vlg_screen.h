/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_SCREEN_H
#define VLG_SCREEN_H

#include <stdint.h>

#include "pipe/p_screen.h"
#include "util/simple_mtx.h"
#include "vlg_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sw_winsys;
struct vlg_bo;
struct vlg_drm_device;
struct vlg_stats;

/*
 * Limits the screen advertises that are choices of the driver, below what the
 * machine provides (docs/driver.md).  The machine's own limits are in the
 * generated vlg_limits.h (isa.py and vlgpu_hw.xml; docs/hw.md "Limits") and
 * are used by name: texture units VLG_NUM_TEX_UNITS, buffer slots
 * VLG_NUM_BUFFERS, registers VLG_NUM_REGS, colour buffers
 * VLG_HW_MAX_COLOR_BUFS, BUFFER texels VLG_HW_MAX_BUFFER_TEXELS.
 */
#define VLG_MAX_TEXTURE_3D_LEVELS   12  /* 2048^3 (GL ES 3.0 minimum MAX_3D_TEXTURE_SIZE 256) */
#define VLG_MAX_VERTEX_ATTRIBS      16  /* VS inputs (GLES 2.0 minimum: 8; the
                                           I/O maps take VLG_HW_MAX_IO_INDICES) */
#define VLG_MAX_VARYINGS            16  /* GLSL VAR0..VAR15 map to VARYING
                                           0..15 (vlg_compiler.cpp); the I/O
                                           maps take VLG_HW_MAX_IO_INDICES */
/* Default-block uniforms per stage, in vec4s: GL ES 3.0's minimum of 256
 * vertex uniform vectors plus the 9 st/mesa reserves for lowered state
 * (8 clip planes, point size; st_extensions.c), rounded up to 272.  The
 * compiler's literals use the rest of C0..C511 (it reports a shader that
 * needs more). */
#define VLG_MAX_UNIFORM_VECS        272
#define VLG_MAX_UBO_SIZE            16384 /* GL ES 3.0 minimum MAX_UNIFORM_BLOCK_SIZE */

/** Subclass of pipe_screen: one per sw winsys (softpipe_screen style) and
 *  one simulated GPU (vlgpu_drm.h device) per screen. */
struct vlg_screen {
   struct pipe_screen base;

   /** Display targets (X11 drisw or the null winsys); owned by the screen. */
   struct sw_winsys *winsys;

   /** The GPU.  vlgpu_drm.h is not thread-safe: every call on it holds
    *  device_lock. */
   struct vlg_drm_device *dev;
   simple_mtx_t device_lock;
   uint64_t vram_size;        /**< bytes */
   unsigned max_2d_levels;    /**< log2(VLG_DRM_PARAM_MAX_TEXTURE_SIZE) + 1 */
   /** Compute limits of the simulated GPU (docs/hw.md "Compute"): the
    *  largest workgroup for shaders of up to max_compute_regs registers,
    *  shared memory per workgroup in bytes. */
   unsigned max_compute_invocations;
   unsigned compute_shared_size;
   unsigned max_compute_regs;
   uint32_t mode;             /**< enum vlg_drm_mode actually used */

   /** Fence sequence numbers (vlg_fence.c); a SYNC writes one. */
   simple_mtx_t fence_lock;
   uint64_t last_submitted_seqno;
   uint64_t last_completed_seqno;

   /** Source of vlg_batch ids (atomic). */
   uint64_t next_batch_id;

   /** Presentation (flush_frontbuffer): a small BO holding the DUMP queue
    *  and its surface descriptor, and the number of frames presented. */
   struct vlg_bo *present_bo;
   uint64_t frames_presented;

   /** Texture read by units a shader samples with nothing bound (GL ES 2.0
    *  §3.8.2: incomplete textures sample as (0, 0, 0, 1)); created on
    *  first use. */
   struct vlg_bo *dummy_texture;

   /** Per-frame/per-draw statistics (VLGPU_STATS, VLGPU_DEBUG=stats), or
    *  NULL; made at the first driver query otherwise
    *  (vlg_screen_stats_for_queries). Set and read under device_lock. */
   struct vlg_stats *stats;
   /** The driver queries (vlg_driver_query.cpp), made on first use under
    *  device_lock. */
   void *driver_queries;
};

static inline struct vlg_screen *
vlg_screen(struct pipe_screen *pscreen)
{
   return (struct vlg_screen *)pscreen;
}

/** Next unique batch id. */
uint64_t vlg_screen_next_batch_id(struct vlg_screen *screen);

/** A frame ended: at flush_frontbuffer, or at glFinish for programs that
 *  never present (docs/driver.md "Statistics"). The statistics write the
 *  frame's rows and the device moves its trace to the next frame
 *  (vlg_drm_end_frame: VLGPU_TRACE_FRAMES). */
void vlg_screen_end_frame(struct vlg_screen *screen);

/** The statistics, made now (counting only) if neither VLGPU_STATS nor
 *  VLGPU_DEBUG=stats made them: the driver queries read their totals.
 *  NULL when out of host memory. */
struct vlg_stats *vlg_screen_stats_for_queries(struct vlg_screen *screen);

#ifdef __cplusplus
}
#endif

#endif /* VLG_SCREEN_H */
