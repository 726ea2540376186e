/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Constant state objects (create/bind/delete) and the set_* functions.
 *
 * Every piece of state st/mesa can set on an ES 2.0 context is kept in
 * struct vlg_context with a dirty bit, ready for the draw path, which will
 * pack it into hardware words (pipe_state for PE and OMU, brief §5).  The
 * shape follows v3d_state.c and lima_state.c; the CSOs for stages vlgpu does
 * not have (geometry, tessellation, compute) are not provided, and the
 * screen reports those stages as unsupported.
 */

#include "util/u_framebuffer.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vlg_context.h"
#include "vlg_program.h"

/*
 * Blend, depth/stencil/alpha, rasterizer, sampler CSOs.
 */

static void *
vlg_create_blend_state(struct pipe_context *pctx,
                       const struct pipe_blend_state *cso)
{
   struct vlg_blend_state *so = CALLOC_STRUCT(vlg_blend_state);

   if (so)
      so->base = *cso;
   return so;
}

static void
vlg_bind_blend_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->blend = hwcso;
   ctx->dirty |= VLG_DIRTY_BLEND;
}

static void *
vlg_create_dsa_state(struct pipe_context *pctx,
                     const struct pipe_depth_stencil_alpha_state *cso)
{
   struct vlg_depth_stencil_alpha_state *so =
      CALLOC_STRUCT(vlg_depth_stencil_alpha_state);

   if (so)
      so->base = *cso;
   return so;
}

static void
vlg_bind_dsa_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->dsa = hwcso;
   ctx->dirty |= VLG_DIRTY_DSA;
}

static void *
vlg_create_rasterizer_state(struct pipe_context *pctx,
                            const struct pipe_rasterizer_state *cso)
{
   struct vlg_rasterizer_state *so = CALLOC_STRUCT(vlg_rasterizer_state);

   if (so)
      so->base = *cso;
   return so;
}

static void
vlg_bind_rasterizer_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->rasterizer = hwcso;
   ctx->dirty |= VLG_DIRTY_RASTERIZER;
}

static void *
vlg_create_sampler_state(struct pipe_context *pctx,
                         const struct pipe_sampler_state *cso)
{
   struct vlg_sampler_state *so = CALLOC_STRUCT(vlg_sampler_state);

   if (so)
      so->base = *cso;
   return so;
}

static void
vlg_bind_sampler_states(struct pipe_context *pctx,
                        enum pipe_shader_type shader, unsigned start,
                        unsigned count, void **hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_stage_state *stage = &ctx->stage[shader];

   assert(start + count <= PIPE_MAX_SAMPLERS);
   for (unsigned i = 0; i < count; i++)
      stage->samplers[start + i] = hwcso ? hwcso[i] : NULL;

   /* Number of slots up to the last bound sampler. */
   stage->num_samplers = 0;
   for (unsigned i = 0; i < PIPE_MAX_SAMPLERS; i++) {
      if (stage->samplers[i])
         stage->num_samplers = i + 1;
   }
   ctx->dirty |= VLG_DIRTY_SAMPLERS;
}

/* One delete for every CSO that is a plain malloc'ed copy. */
static void
vlg_delete_state(struct pipe_context *pctx, void *hwcso)
{
   FREE(hwcso);
}

/*
 * Vertex elements.
 */

static void *
vlg_create_vertex_elements_state(struct pipe_context *pctx, unsigned count,
                                 const struct pipe_vertex_element *elements)
{
   struct vlg_vertex_elements_state *so =
      CALLOC_STRUCT(vlg_vertex_elements_state);

   if (!so)
      return NULL;

   assert(count <= PIPE_MAX_ATTRIBS);
   so->count = count;
   memcpy(so->elements, elements, count * sizeof(*elements));
   return so;
}

static void
vlg_bind_vertex_elements_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->vertex_elements = hwcso;
   ctx->dirty |= VLG_DIRTY_VERTEX_ELEMENTS;
}

/*
 * Shaders (created in vlg_program.c).
 */

static void
vlg_bind_vs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->vs = hwcso;
   ctx->dirty |= VLG_DIRTY_VS;
}

static void
vlg_bind_fs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->fs = hwcso;
   ctx->dirty |= VLG_DIRTY_FS;
}

/*
 * Sampler views.
 */

static struct pipe_sampler_view *
vlg_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *prsc,
                        const struct pipe_sampler_view *tmpl)
{
   struct pipe_sampler_view *view = CALLOC_STRUCT(pipe_sampler_view);

   if (!view)
      return NULL;

   *view = *tmpl;
   view->texture = NULL;
   pipe_resource_reference(&view->texture, prsc);
   pipe_reference_init(&view->reference, 1);
   view->context = pctx;
   return view;
}

static void
vlg_sampler_view_destroy(struct pipe_context *pctx,
                         struct pipe_sampler_view *view)
{
   pipe_resource_reference(&view->texture, NULL);
   FREE(view);
}

static void
vlg_set_sampler_views(struct pipe_context *pctx, enum pipe_shader_type shader,
                      unsigned start, unsigned count,
                      unsigned unbind_num_trailing_slots, bool take_ownership,
                      struct pipe_sampler_view **views)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_stage_state *stage = &ctx->stage[shader];
   unsigned i;

   assert(start + count + unbind_num_trailing_slots <=
          PIPE_MAX_SHADER_SAMPLER_VIEWS);

   for (i = 0; i < count; i++) {
      struct pipe_sampler_view **slot = &stage->views[start + i];
      struct pipe_sampler_view *view = views ? views[i] : NULL;

      if (take_ownership) {
         pipe_sampler_view_reference(slot, NULL);
         *slot = view;
      } else {
         pipe_sampler_view_reference(slot, view);
      }
   }
   for (; i < count + unbind_num_trailing_slots; i++)
      pipe_sampler_view_reference(&stage->views[start + i], NULL);

   stage->num_views = 0;
   for (i = 0; i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++) {
      if (stage->views[i])
         stage->num_views = i + 1;
   }
   ctx->dirty |= VLG_DIRTY_SAMPLER_VIEWS;
}

/*
 * Non-CSO state.
 */

static void
vlg_set_blend_color(struct pipe_context *pctx,
                    const struct pipe_blend_color *color)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->blend_color = *color;
   ctx->dirty |= VLG_DIRTY_BLEND_COLOR;
}

static void
vlg_set_stencil_ref(struct pipe_context *pctx, const struct pipe_stencil_ref ref)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->stencil_ref = ref;
   ctx->dirty |= VLG_DIRTY_STENCIL_REF;
}

static void
vlg_set_clip_state(struct pipe_context *pctx,
                   const struct pipe_clip_state *clip)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->clip = *clip;
   ctx->dirty |= VLG_DIRTY_CLIP;
}

static void
vlg_set_polygon_stipple(struct pipe_context *pctx,
                        const struct pipe_poly_stipple *stipple)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->stipple = *stipple;
   ctx->dirty |= VLG_DIRTY_STIPPLE;
}

static void
vlg_set_sample_mask(struct pipe_context *pctx, unsigned sample_mask)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->sample_mask = sample_mask;
   ctx->dirty |= VLG_DIRTY_SAMPLE_MASK;
}

static void
vlg_set_scissor_states(struct pipe_context *pctx, unsigned start_slot,
                       unsigned num_scissors,
                       const struct pipe_scissor_state *scissors)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* PIPE_CAP_MAX_VIEWPORTS is 1. */
   assert(start_slot == 0 && num_scissors >= 1);
   ctx->scissor = scissors[0];
   ctx->dirty |= VLG_DIRTY_SCISSOR;
}

static void
vlg_set_viewport_states(struct pipe_context *pctx, unsigned start_slot,
                        unsigned num_viewports,
                        const struct pipe_viewport_state *viewports)
{
   struct vlg_context *ctx = vlg_context(pctx);

   assert(start_slot == 0 && num_viewports >= 1);
   ctx->viewport = viewports[0];
   ctx->dirty |= VLG_DIRTY_VIEWPORT;
}

static void
vlg_set_framebuffer_state(struct pipe_context *pctx,
                          const struct pipe_framebuffer_state *fb)
{
   struct vlg_context *ctx = vlg_context(pctx);

   util_copy_framebuffer_state(&ctx->framebuffer, fb);
   ctx->dirty |= VLG_DIRTY_FRAMEBUFFER;
}

static void
vlg_set_vertex_buffers(struct pipe_context *pctx, unsigned start_slot,
                       unsigned count, unsigned unbind_num_trailing_slots,
                       bool take_ownership,
                       const struct pipe_vertex_buffer *buffers)
{
   struct vlg_context *ctx = vlg_context(pctx);

   util_set_vertex_buffers_mask(ctx->vertex_buffers, &ctx->vertex_buffers_mask,
                                buffers, start_slot, count,
                                unbind_num_trailing_slots, take_ownership);
   ctx->dirty |= VLG_DIRTY_VERTEX_BUFFERS;
}

static void
vlg_set_constant_buffer(struct pipe_context *pctx, enum pipe_shader_type shader,
                        uint index, bool take_ownership,
                        const struct pipe_constant_buffer *cb)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* PIPE_SHADER_CAP_MAX_CONST_BUFFERS is 1: uniforms only, no UBOs. */
   if (index != 0) {
      assert(!cb);
      return;
   }

   /* A user_buffer pointer stays valid until the next set_constant_buffer
    * (st/mesa's parameter storage); the draw path copies it into the global
    * buffer image. */
   util_copy_constant_buffer(&ctx->stage[shader].constbuf, cb, take_ownership);
   ctx->dirty |= VLG_DIRTY_CONSTBUF;
}

void
vlg_state_cleanup(struct vlg_context *ctx)
{
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++) {
      struct vlg_stage_state *stage = &ctx->stage[s];

      for (unsigned i = 0; i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++)
         pipe_sampler_view_reference(&stage->views[i], NULL);
      pipe_resource_reference(&stage->constbuf.buffer, NULL);
   }
   for (unsigned i = 0; i < PIPE_MAX_ATTRIBS; i++)
      pipe_vertex_buffer_unreference(&ctx->vertex_buffers[i]);
   util_unreference_framebuffer_state(&ctx->framebuffer);
}

void
vlg_init_state_functions(struct pipe_context *pctx)
{
   pctx->create_blend_state = vlg_create_blend_state;
   pctx->bind_blend_state = vlg_bind_blend_state;
   pctx->delete_blend_state = vlg_delete_state;

   pctx->create_depth_stencil_alpha_state = vlg_create_dsa_state;
   pctx->bind_depth_stencil_alpha_state = vlg_bind_dsa_state;
   pctx->delete_depth_stencil_alpha_state = vlg_delete_state;

   pctx->create_rasterizer_state = vlg_create_rasterizer_state;
   pctx->bind_rasterizer_state = vlg_bind_rasterizer_state;
   pctx->delete_rasterizer_state = vlg_delete_state;

   pctx->create_sampler_state = vlg_create_sampler_state;
   pctx->bind_sampler_states = vlg_bind_sampler_states;
   pctx->delete_sampler_state = vlg_delete_state;

   pctx->create_vertex_elements_state = vlg_create_vertex_elements_state;
   pctx->bind_vertex_elements_state = vlg_bind_vertex_elements_state;
   pctx->delete_vertex_elements_state = vlg_delete_state;

   pctx->bind_vs_state = vlg_bind_vs_state;
   pctx->bind_fs_state = vlg_bind_fs_state;

   pctx->create_sampler_view = vlg_create_sampler_view;
   pctx->sampler_view_destroy = vlg_sampler_view_destroy;
   pctx->set_sampler_views = vlg_set_sampler_views;

   pctx->set_blend_color = vlg_set_blend_color;
   pctx->set_stencil_ref = vlg_set_stencil_ref;
   pctx->set_clip_state = vlg_set_clip_state;
   pctx->set_polygon_stipple = vlg_set_polygon_stipple;
   pctx->set_sample_mask = vlg_set_sample_mask;
   pctx->set_scissor_states = vlg_set_scissor_states;
   pctx->set_viewport_states = vlg_set_viewport_states;
   pctx->set_framebuffer_state = vlg_set_framebuffer_state;
   pctx->set_vertex_buffers = vlg_set_vertex_buffers;
   pctx->set_constant_buffer = vlg_set_constant_buffer;
}
