/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Clears, copies and blits.
 *
 * Clears are GPU work: CLEAR draws (draw_info.kind = CLEAR, docs/hw.md),
 * which the OMU executes and which count as draw calls (seed 001 table 3).
 * Scaled or format-converting blits and mipmap generation draw textured
 * quads through u_blitter, with the util_blitter_save_* calls of softpipe's
 * sp_surface.c sp_blit().  Same-format copies without scaling
 * (util_try_blit_via_copy_region, resource_copy_region) are CPU copies of
 * VRAM (the GPU has no copy engine); the transfer maps they use submit the
 * queued draws that touch either resource first.
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_blitter.h"
#include "util/u_surface.h"

#include "vlg_context.h"
#include "vlg_resource.h"

static struct VLG_SCISSOR
vlg_rect(unsigned minx, unsigned miny, unsigned maxx, unsigned maxy)
{
   struct VLG_SCISSOR r;

   VLG_SCISSOR_init(&r);
   r.minx = MIN2(minx, 0xffff);
   r.miny = MIN2(miny, 0xffff);
   r.maxx = MIN2(maxx, 0xffff);
   r.maxy = MIN2(maxy, 0xffff);
   return r;
}

static void
vlg_clear(struct pipe_context *pctx, unsigned buffers,
          const struct pipe_scissor_state *scissor_state,
          const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct vlg_context *ctx = vlg_context(pctx);
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;

   /* PIPE_CAP_CLEAR_SCISSORED: the GL scissor box, else everything. */
   struct VLG_SCISSOR rect =
      scissor_state ? vlg_rect(scissor_state->minx, scissor_state->miny,
                               scissor_state->maxx, scissor_state->maxy)
                    : vlg_rect(0, 0, fb->width, fb->height);

   /* The surfaces the clear writes (their BOs stay referenced until the
    * queue has run). */
   struct pipe_surface *surfaces[PIPE_MAX_COLOR_BUFS + 1];
   unsigned n = 0;
   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      if (buffers & (PIPE_CLEAR_COLOR0 << i))
         surfaces[n++] = fb->cbufs[i];
   }
   if (buffers & PIPE_CLEAR_DEPTHSTENCIL)
      surfaces[n++] = fb->zsbuf;

   if (!vlg_emit_clear(ctx, ctx->fb_words, surfaces, n, buffers, &rect, color,
                       depth, stencil))
      mesa_loge("VRAM full: clear dropped");
}

/* A framebuffer block with @surf as colour buffer 0 or depth/stencil. */
static void
vlg_single_surface_fb(struct pipe_surface *surf, bool zs, uint32_t *words)
{
   struct pipe_framebuffer_state fb;

   memset(&fb, 0, sizeof(fb));
   fb.width = surf->width;
   fb.height = surf->height;
   if (zs) {
      fb.zsbuf = surf;
   } else {
      fb.nr_cbufs = 1;
      fb.cbufs[0] = surf;
   }
   vlg_pack_framebuffer(&fb, words);
}

static void
vlg_clear_render_target(struct pipe_context *pctx, struct pipe_surface *dst,
                        const union pipe_color_union *color, unsigned dstx,
                        unsigned dsty, unsigned width, unsigned height,
                        bool render_condition_enabled)
{
   struct vlg_context *ctx = vlg_context(pctx);
   uint32_t fb[VLG_FRAMEBUFFER_LENGTH];

   if (!vlg_surface(dst)->desc.format) {
      /* Not a render-target format of the GPU: clear in VRAM by CPU. */
      util_clear_render_target(pctx, dst, color, dstx, dsty, width, height);
      return;
   }
   vlg_single_surface_fb(dst, false, fb);
   struct VLG_SCISSOR rect =
      vlg_rect(dstx, dsty, dstx + width, dsty + height);
   if (!vlg_emit_clear(ctx, fb, &dst, 1, PIPE_CLEAR_COLOR0, &rect, color, 0,
                       0))
      mesa_loge("VRAM full: clear dropped");
}

static void
vlg_clear_depth_stencil(struct pipe_context *pctx, struct pipe_surface *dst,
                        unsigned clear_flags, double depth, unsigned stencil,
                        unsigned dstx, unsigned dsty, unsigned width,
                        unsigned height, bool render_condition_enabled)
{
   struct vlg_context *ctx = vlg_context(pctx);
   uint32_t fb[VLG_FRAMEBUFFER_LENGTH];

   if (!vlg_surface(dst)->desc.format) {
      util_clear_depth_stencil(pctx, dst, clear_flags, depth, stencil, dstx,
                               dsty, width, height);
      return;
   }
   vlg_single_surface_fb(dst, true, fb);
   struct VLG_SCISSOR rect =
      vlg_rect(dstx, dsty, dstx + width, dsty + height);
   if (!vlg_emit_clear(ctx, fb, &dst, 1,
                       clear_flags & PIPE_CLEAR_DEPTHSTENCIL, &rect, NULL,
                       depth, stencil))
      mesa_loge("VRAM full: clear dropped");
}

static void
vlg_blitter_save(struct vlg_context *ctx)
{
   struct blitter_context *blitter = ctx->blitter;
   struct vlg_stage_state *fs = &ctx->stage[PIPE_SHADER_FRAGMENT];

   /* sp_surface.c sp_blit(), minus the stages vlgpu does not have. */
   util_blitter_save_vertex_buffer_slot(blitter, ctx->vertex_buffers);
   util_blitter_save_vertex_elements(blitter, ctx->vertex_elements);
   util_blitter_save_vertex_shader(blitter, ctx->vs);
   util_blitter_save_so_targets(blitter, ctx->num_so_targets, ctx->so_targets);
   util_blitter_save_rasterizer(blitter, ctx->rasterizer);
   util_blitter_save_viewport(blitter, &ctx->viewport);
   util_blitter_save_scissor(blitter, &ctx->scissor);
   util_blitter_save_fragment_shader(blitter, ctx->fs);
   util_blitter_save_blend(blitter, ctx->blend);
   util_blitter_save_depth_stencil_alpha(blitter, ctx->dsa);
   util_blitter_save_stencil_ref(blitter, &ctx->stencil_ref);
   util_blitter_save_sample_mask(blitter, ctx->sample_mask, 0);
   util_blitter_save_framebuffer(blitter, &ctx->framebuffer);
   util_blitter_save_fragment_sampler_states(blitter, fs->num_samplers,
                                             (void **)fs->samplers);
   util_blitter_save_fragment_sampler_views(blitter, fs->num_views, fs->views);
   util_blitter_save_fragment_constant_buffer_slot(blitter, &fs->constbuf);
}

static void
vlg_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* Same size, compatible formats, no scissor/filter: a copy. */
   if (util_try_blit_via_copy_region(pctx, info, false))
      return;

   if (!util_blitter_is_blit_supported(ctx->blitter, info)) {
      mesa_logw_once("blit %s -> %s is not supported; destination left "
                     "unchanged",
                     util_format_short_name(info->src.format),
                     util_format_short_name(info->dst.format));
      return;
   }

   vlg_blitter_save(ctx);
   util_blitter_blit(ctx->blitter, info);
}

static void
vlg_flush_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
   /* Nothing to resolve: no compression, no tiling, no MSAA. */
}

void
vlg_init_blit_functions(struct pipe_context *pctx)
{
   pctx->clear = vlg_clear;
   pctx->clear_render_target = vlg_clear_render_target;
   pctx->clear_depth_stencil = vlg_clear_depth_stencil;
   pctx->clear_texture = util_clear_texture;
   pctx->resource_copy_region = util_resource_copy_region;
   pctx->blit = vlg_blit;
   pctx->flush_resource = vlg_flush_resource;
}
