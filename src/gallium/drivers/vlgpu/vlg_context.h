/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_CONTEXT_H
#define VLG_CONTEXT_H

#include <stdint.h>

#include "pipe/p_context.h"
#include "pipe/p_state.h"

#include "vlg_screen.h"

struct vlg_shader_state;

/** Which groups of state changed since the last draw (VLG_DIRTY_*). */
enum vlg_dirty {
   VLG_DIRTY_BLEND          = 1 << 0,
   VLG_DIRTY_DSA            = 1 << 1,
   VLG_DIRTY_RASTERIZER     = 1 << 2,
   VLG_DIRTY_VERTEX_ELEMENTS = 1 << 3,
   VLG_DIRTY_VS             = 1 << 4,
   VLG_DIRTY_FS             = 1 << 5,
   VLG_DIRTY_SAMPLERS       = 1 << 6,
   VLG_DIRTY_SAMPLER_VIEWS  = 1 << 7,
   VLG_DIRTY_BLEND_COLOR    = 1 << 8,
   VLG_DIRTY_STENCIL_REF    = 1 << 9,
   VLG_DIRTY_CLIP           = 1 << 10,
   VLG_DIRTY_SAMPLE_MASK    = 1 << 11,
   VLG_DIRTY_SCISSOR        = 1 << 12,
   VLG_DIRTY_VIEWPORT       = 1 << 13,
   VLG_DIRTY_FRAMEBUFFER    = 1 << 14,
   VLG_DIRTY_VERTEX_BUFFERS = 1 << 15,
   VLG_DIRTY_CONSTBUF       = 1 << 16,
   VLG_DIRTY_STIPPLE        = 1 << 17,
};

/* CSOs: a copy of the gallium state.  The hardware-word packing (brief §5,
 * src/vlgpu/hw) will be added to these at creation time. */
struct vlg_blend_state {
   struct pipe_blend_state base;
};

struct vlg_depth_stencil_alpha_state {
   struct pipe_depth_stencil_alpha_state base;
};

struct vlg_rasterizer_state {
   struct pipe_rasterizer_state base;
};

struct vlg_sampler_state {
   struct pipe_sampler_state base;
};

struct vlg_vertex_elements_state {
   unsigned count;
   struct pipe_vertex_element elements[PIPE_MAX_ATTRIBS];
};

/** Per-stage bound texturing and constant state (VS, FS). */
struct vlg_stage_state {
   struct vlg_sampler_state *samplers[PIPE_MAX_SAMPLERS];
   unsigned num_samplers;
   struct pipe_sampler_view *views[PIPE_MAX_SHADER_SAMPLER_VIEWS];
   unsigned num_views;
   /** Constant buffer 0 holds the uniforms (no UBOs: one buffer). */
   struct pipe_constant_buffer constbuf;
};

/** The vlgpu pipe_context: bound state, mirrored for the draw path. */
struct vlg_context {
   struct pipe_context base;

   struct vlg_blend_state *blend;
   struct vlg_depth_stencil_alpha_state *dsa;
   struct vlg_rasterizer_state *rasterizer;
   struct vlg_vertex_elements_state *vertex_elements;
   struct vlg_shader_state *vs;
   struct vlg_shader_state *fs;

   struct vlg_stage_state stage[PIPE_SHADER_TYPES];

   struct pipe_vertex_buffer vertex_buffers[PIPE_MAX_ATTRIBS];
   uint32_t vertex_buffers_mask;

   struct pipe_framebuffer_state framebuffer;
   struct pipe_blend_color blend_color;
   struct pipe_stencil_ref stencil_ref;
   struct pipe_clip_state clip;
   struct pipe_poly_stipple stipple;
   struct pipe_scissor_state scissor;
   struct pipe_viewport_state viewport;
   unsigned sample_mask;

   /** VLG_DIRTY_* bits. */
   uint32_t dirty;

   /** Draw calls received and dropped because draw_vbo is not implemented. */
   uint64_t draws_dropped;
};

static inline struct vlg_context *
vlg_context(struct pipe_context *pctx)
{
   return (struct vlg_context *)pctx;
}

struct pipe_context *vlg_context_create(struct pipe_screen *pscreen,
                                        void *priv, unsigned flags);

void vlg_init_state_functions(struct pipe_context *pctx);
void vlg_init_blit_functions(struct pipe_context *pctx);
void vlg_init_query_functions(struct pipe_context *pctx);
void vlg_init_draw_functions(struct pipe_context *pctx);

/** Release every reference the bound state holds (context destruction). */
void vlg_state_cleanup(struct vlg_context *ctx);

#endif /* VLG_CONTEXT_H */
