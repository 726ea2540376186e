/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Clears, copies and blits.
 *
 * Today these run on the CPU through Mesa's u_surface.c helpers on the
 * mapped resources (util_clear_render_target, util_clear_depth_stencil,
 * util_resource_copy_region, util_try_blit_via_copy_region), like softpipe's
 * sp_clear.c/sp_surface.c fallbacks.  Not yet: clears and blits as GPU work
 * in the simulator, scaled or format-converting blits (they need draw_vbo,
 * via u_blitter), and scissored clears (PIPE_CAP_CLEAR_SCISSORED is off, so
 * st/mesa draws a quad for those).
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_surface.h"

#include "vlg_context.h"

static void
vlg_clear(struct pipe_context *pctx, unsigned buffers,
          const struct pipe_scissor_state *scissor_state,
          const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct vlg_context *ctx = vlg_context(pctx);
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;

   /* scissor_state is only passed with PIPE_CAP_CLEAR_SCISSORED. */
   assert(!scissor_state);

   for (unsigned i = 0; i < fb->nr_cbufs; i++) {
      struct pipe_surface *cbuf = fb->cbufs[i];

      if (cbuf && (buffers & (PIPE_CLEAR_COLOR0 << i)))
         util_clear_render_target(pctx, cbuf, color, 0, 0, cbuf->width,
                                  cbuf->height);
   }

   if (fb->zsbuf && (buffers & PIPE_CLEAR_DEPTHSTENCIL)) {
      util_clear_depth_stencil(pctx, fb->zsbuf,
                               buffers & PIPE_CLEAR_DEPTHSTENCIL, depth,
                               stencil, 0, 0, fb->zsbuf->width,
                               fb->zsbuf->height);
   }
}

static void
vlg_clear_render_target(struct pipe_context *pctx, struct pipe_surface *dst,
                        const union pipe_color_union *color, unsigned dstx,
                        unsigned dsty, unsigned width, unsigned height,
                        bool render_condition_enabled)
{
   util_clear_render_target(pctx, dst, color, dstx, dsty, width, height);
}

static void
vlg_clear_depth_stencil(struct pipe_context *pctx, struct pipe_surface *dst,
                        unsigned clear_flags, double depth, unsigned stencil,
                        unsigned dstx, unsigned dsty, unsigned width,
                        unsigned height, bool render_condition_enabled)
{
   util_clear_depth_stencil(pctx, dst, clear_flags, depth, stencil, dstx,
                            dsty, width, height);
}

static void
vlg_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   /* Same size, compatible formats, no scissor/filter: a copy. */
   if (util_try_blit_via_copy_region(pctx, info, false))
      return;

   /* Once per process: mipmap generation alone issues one per level. */
   mesa_logw_once("scaled/format-converting blit not implemented yet (needs "
                  "draw_vbo), destinations are left unchanged; first: "
                  "%s %ux%u -> %s %ux%u",
                  util_format_short_name(info->src.format), info->src.box.width,
                  info->src.box.height, util_format_short_name(info->dst.format),
                  info->dst.box.width, info->dst.box.height);
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
