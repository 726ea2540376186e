/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_CONTEXT_H
#define VLG_CONTEXT_H

#include <stdint.h>

#include "pipe/p_context.h"
#include "pipe/p_state.h"

#include "vlg_batch.h"
#include "vlg_compiler.h"
#include "vlg_hw.h"
#include "vlg_screen.h"

#ifdef __cplusplus
extern "C" {
#endif

struct blitter_context;
struct vlg_shader_state;

/*
 * CSOs: the Gallium state (kept for the draw path's decisions and for
 * u_blitter's save/restore) and its hardware words, packed once when the
 * CSO is created (brief §1, seed 001 §3.2: the driver turns pipe state into
 * 32-bit words; docs/hw.md).  draw_vbo only copies words.
 */
struct vlg_blend_state {
   struct pipe_blend_state base;
   uint32_t words[VLG_BLEND_LENGTH];
};

struct vlg_depth_stencil_alpha_state {
   struct pipe_depth_stencil_alpha_state base;
   uint32_t words[VLG_DEPTH_STENCIL_ALPHA_LENGTH];
};

struct vlg_rasterizer_state {
   struct pipe_rasterizer_state base;
   uint32_t words[VLG_RASTERIZER_LENGTH];
};

struct vlg_sampler_state {
   struct pipe_sampler_state base;
   uint32_t words[VLG_SAMPLER_LENGTH];
};

struct vlg_vertex_elements_state {
   unsigned count;
   struct pipe_vertex_element elements[PIPE_MAX_ATTRIBS];
   /** vertex_element blocks, element i for VS input ATTRIBUTE i. */
   uint32_t words[PIPE_MAX_ATTRIBS][VLG_VERTEX_ELEMENT_LENGTH];
};

/** A sampler view and its texture descriptor (docs/hw.md struct texture),
 *  packed at creation: textures are never moved in VRAM. */
struct vlg_sampler_view {
   struct pipe_sampler_view base;
   uint32_t words[VLG_TEXTURE_LENGTH];
   /** false when the GPU cannot sample this view (format, target): the
    *  unit then reads the screen's dummy texture and a warning is given. */
   bool valid;
   /** A texel buffer view (PIPE_BUFFER): words hold address 0, and the
    *  buffer's current VRAM address is added when a draw packs the
    *  descriptor (a discarding map gives the buffer new storage). */
   bool buffer;
};

/** A render target or depth/stencil view and its surface descriptor
 *  (docs/hw.md struct surface; format NONE when the GPU cannot render to
 *  the view's format). */
struct vlg_surface {
   struct pipe_surface base;
   struct VLG_SURFACE desc;
};

/** Per-stage bound texturing and constant state (VS, FS). */
struct vlg_stage_state {
   struct vlg_sampler_state *samplers[PIPE_MAX_SAMPLERS];
   unsigned num_samplers;
   struct pipe_sampler_view *views[PIPE_MAX_SHADER_SAMPLER_VIEWS];
   unsigned num_views;
   /** Constant buffer 0: the uniforms, copied into each draw's global-buffer
    *  image through the compiler's uniform copy map. */
   struct pipe_constant_buffer constbuf;
   /** Constant buffers 1..VLG_NUM_BUFFERS-1: uniform blocks, read
    *  by LDB from slot Bi (shader_state.buffers, docs/hw.md "Uniform
    *  buffers"); ubo[0] is unused. */
   struct pipe_constant_buffer ubo[VLG_NUM_BUFFERS];
};

struct vlg_query;

/** The vlgpu pipe_context. */
struct vlg_context {
   struct pipe_context base;

   /** Commands and packages not submitted yet. */
   struct vlg_batch batch;
   /** Where the CP writes the fence of each submit (cmd_sync). */
   struct vlg_bo *fence_bo;
   /** u_blitter for scaled/converting blits and mipmap generation. */
   struct blitter_context *blitter;

   struct vlg_blend_state *blend;
   struct vlg_depth_stencil_alpha_state *dsa;
   struct vlg_rasterizer_state *rasterizer;
   struct vlg_vertex_elements_state *vertex_elements;
   struct vlg_shader_state *vs;
   /** Bound geometry shader or NULL (GL 3.2; draw_info.gs). */
   struct vlg_shader_state *gs;
   struct vlg_shader_state *fs;
   /** Compute (vlg_compute.c): the bound compute shader; the shader
    *  buffers and images of each stage (PIPE_SHADER_VERTEX, _FRAGMENT and
    *  _COMPUTE have them; their addresses are driver uniforms). */
   struct vlg_shader_state *cs;
   struct pipe_shader_buffer ssbo[PIPE_SHADER_TYPES][VLG_MAX_SHADER_BUFFERS];
   uint32_t ssbo_mask[PIPE_SHADER_TYPES];
   struct pipe_image_view images[PIPE_SHADER_TYPES][VLG_MAX_SHADER_IMAGES];
   uint32_t image_mask[PIPE_SHADER_TYPES];

   struct vlg_stage_state stage[PIPE_SHADER_TYPES];

   struct pipe_vertex_buffer vertex_buffers[PIPE_MAX_ATTRIBS];
   uint32_t vertex_buffers_mask;

   struct pipe_framebuffer_state framebuffer;
   /** framebuffer block of the bound framebuffer (docs/hw.md). */
   uint32_t fb_words[VLG_FRAMEBUFFER_LENGTH];

   struct pipe_blend_color blend_color;
   struct pipe_stencil_ref stencil_ref;
   struct pipe_clip_state clip;
   struct pipe_poly_stipple stipple;
   struct pipe_scissor_state scissor;
   struct pipe_viewport_state viewport;
   unsigned sample_mask;

   /** Packed non-CSO state blocks of pipe_state (set_* functions). */
   uint32_t scissor_words[VLG_SCISSOR_LENGTH];
   uint32_t clip_words[VLG_CLIP_LENGTH];
   uint32_t stencil_ref_words[VLG_STENCIL_REF_LENGTH];
   uint32_t blend_color_words[VLG_BLEND_COLOR_LENGTH];
   uint32_t sample_mask_words[VLG_SAMPLE_MASK_LENGTH];

   /** Stream-output (transform feedback) targets (vlg_so.c). */
   struct pipe_stream_output_target *so_targets[PIPE_MAX_SO_BUFFERS];
   unsigned num_so_targets;
   /** Active primitive queries (vlg_query.c): counter slot i of
    *  so_counters (16 bytes each) belongs to so_slot[i]. */
   struct vlg_query *so_slot[4];
   unsigned num_so_queries;
   struct vlg_bo *so_counters;

   /** The active occlusion query (vlg_query.c), NULL if none. */
   struct vlg_query *occlusion_query;
   /** set_active_query_state: false while u_blitter blits. */
   bool queries_active;
   /** pipe_context::render_condition (NV_conditional_render, vlg_query.c):
    *  the query, NULL when rendering is unconditional. */
   struct pipe_query *render_cond_query;
   bool render_cond_cond;
   enum pipe_render_cond_flag render_cond_mode;

   /** Draws that referenced a shader that failed to compile (skipped). */
   uint64_t draws_skipped;
};

static inline struct vlg_context *
vlg_context(struct pipe_context *pctx)
{
   return (struct vlg_context *)pctx;
}

static inline struct vlg_surface *
vlg_surface(struct pipe_surface *psurf)
{
   return (struct vlg_surface *)psurf;
}

static inline struct vlg_sampler_view *
vlg_sampler_view(struct pipe_sampler_view *pview)
{
   return (struct vlg_sampler_view *)pview;
}

struct pipe_context *vlg_context_create(struct pipe_screen *pscreen,
                                        void *priv, unsigned flags);

/**
 * Submit everything queued (SYNC + vlg_drm_submit) and, if \p fence is not
 * NULL, return a fence for it.  \p flags are PIPE_FLUSH_*; a flush with
 * PIPE_FLUSH_HINT_FINISH (glFinish) ends a statistics frame when nothing
 * has been presented (off-screen rendering, vlg_stats.h).
 */
void vlg_context_flush(struct vlg_context *ctx,
                       struct pipe_fence_handle **fence, unsigned flags);

void vlg_init_state_functions(struct pipe_context *pctx);
void vlg_init_blit_functions(struct pipe_context *pctx);
void vlg_init_query_functions(struct pipe_context *pctx);
void vlg_init_draw_functions(struct pipe_context *pctx);

/** draw_info.occlusion_counter for a draw queued now: the active occlusion
 *  query's counter (kept alive by the batch), or 0 (vlg_query.c). */
uint64_t vlg_query_occlusion_counter(struct vlg_context *ctx);
unsigned vlg_query_so_counters(struct vlg_context *ctx, uint64_t *address);

/** Whether draws, clears and blits may run under the current render
 *  condition (vlg_query.c; follows softpipe_check_render_cond). */
bool vlg_check_render_cond(struct vlg_context *ctx);

/** Compute (vlg_compute.c): launch_grid, shader buffers, images, memory
 *  barriers; vlg_compute_cleanup drops their references. */
void vlg_init_compute_functions(struct pipe_context *pctx);
void vlg_compute_cleanup(struct vlg_context *ctx);

/** Pack the defaults of the non-CSO blocks (blend colour, stencil
 *  reference, clip planes, sample mask, scissor) until st/mesa sets them
 *  (context creation). */
void vlg_state_init(struct vlg_context *ctx);
/** Release every reference the bound state holds (context destruction). */
void vlg_state_cleanup(struct vlg_context *ctx);

/** Pack the framebuffer block of \p fb into \p words (vlg_state.c). */
void vlg_pack_framebuffer(const struct pipe_framebuffer_state *fb,
                          uint32_t *words);

#ifdef __cplusplus
}
#endif

#endif /* VLG_CONTEXT_H */
