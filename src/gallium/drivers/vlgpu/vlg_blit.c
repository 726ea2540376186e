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
 * (util_try_blit_via_copy_region -> resource_copy_region) are COPY
 * commands of the CP's DMA engine (vlg_copy.c, docs/hw.md "Copies").
 * Blits that write stencil, which u_blitter cannot do without a stencil
 * output of the FS, draw one pass per stencil bit
 * (util_blitter_stencil_fallback, vlg_blit_stencil).
 *
 * Multisample resolves (a blit from a 4-sample resource to a single-sample
 * one, same format, same size, no scissor, every component) are RESOLVE
 * draws (draw_info.kind = RESOLVE, docs/hw.md "Multisampling"): the OMU
 * averages the 4 samples (sample 0 for integer and depth/stencil formats).
 * softpipe and llvmpipe resolve through u_blitter's TXF_MS shaders
 * (util_blitter_blit with PIPE_CAP_TEXTURE_MULTISAMPLE); vlgpu has no
 * texture fetch of one sample yet, so any other blit from a 4-sample
 * resource (scaled, format-converting, partial mask, flipped: st/mesa's
 * resolve into a window) resolves into a single-sample temporary first and
 * blits that (vlg_blit_via_resolve).
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_blitter.h"
#include "util/u_box.h"
#include "util/u_inlines.h"
#include "util/u_surface.h"

#include "vlg_batch.h"
#include "vlg_context.h"
#include "vlg_emit.h"
#include "vlg_format.h"
#include "vlg_resource.h"
#include "vlg_stats.h"

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

   if (!vlg_check_render_cond(ctx))
      return;

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

   if (render_condition_enabled && !vlg_check_render_cond(ctx))
      return;
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

   if (render_condition_enabled && !vlg_check_render_cond(ctx))
      return;
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
   util_blitter_save_geometry_shader(blitter, ctx->gs);
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
   util_blitter_save_render_condition(blitter, ctx->render_cond_query,
                                      ctx->render_cond_cond,
                                      ctx->render_cond_mode);
   util_blitter_save_fragment_sampler_states(blitter, fs->num_samplers,
                                             (void **)fs->samplers);
   util_blitter_save_fragment_sampler_views(blitter, fs->num_views, fs->views);
   util_blitter_save_fragment_constant_buffer_slot(blitter, &fs->constbuf);
}

/* Surface descriptor of the pixel at (@box.x, @box.y) of layer @box.z of
 * level 0 of @rsc (@samples per pixel), @box.width x @box.height pixels. */
static bool
vlg_box_surface(struct vlg_resource *rsc, const struct pipe_box *box,
                unsigned samples, struct VLG_SURFACE *s)
{
   const unsigned format = vlg_format_from_pipe(rsc->base.format);
   const unsigned bpp = util_format_get_blocksize(rsc->base.format);

   VLG_SURFACE_init(s);
   if (!(vlg_format_usage(format) &
         (VLG_FORMAT_USAGE_RT | VLG_FORMAT_USAGE_ZS)))
      return false;
   s->format = (enum vlg_format)format;
   s->pitch = rsc->stride[0];
   s->address = rsc->bo->address + vlg_resource_offset(rsc, 0, box->z) +
                (uint64_t)box->y * rsc->stride[0] +
                (uint64_t)box->x * bpp * samples;
   s->width = box->width;
   s->height = box->height;
   return true;
}

/* A blit the OMU's RESOLVE does: 4 samples -> 1, same format and size, no
 * scissor, flip or layer count > 1, every component of the format. */
static bool
vlg_blit_is_resolve(const struct pipe_blit_info *info)
{
   const struct pipe_resource *src = info->src.resource;
   const struct pipe_resource *dst = info->dst.resource;
   const enum pipe_format f = src->format;
   const unsigned all =
      util_format_is_depth_or_stencil(f)
         ? (util_format_has_depth(util_format_description(f)) ? PIPE_MASK_Z : 0) |
              (util_format_has_stencil(util_format_description(f)) ? PIPE_MASK_S : 0)
         : PIPE_MASK_RGBA;

   return src->nr_samples == 4 && dst->nr_samples <= 1 &&
          dst->format == f && info->src.format == f && info->dst.format == f &&
          info->dst.level == 0 && !info->scissor_enable &&
          info->src.box.width == info->dst.box.width &&
          info->src.box.height == info->dst.box.height &&
          info->src.box.width > 0 && info->src.box.height > 0 &&
          info->src.box.depth == 1 && info->dst.box.depth == 1 &&
          info->src.box.x >= 0 && info->src.box.y >= 0 &&
          info->dst.box.x >= 0 && info->dst.box.y >= 0 &&
          info->src.box.x + info->src.box.width <= (int)src->width0 &&
          info->src.box.y + info->src.box.height <= (int)src->height0 &&
          info->dst.box.x + info->dst.box.width <=
             (int)u_minify(dst->width0, info->dst.level) &&
          info->dst.box.y + info->dst.box.height <=
             (int)u_minify(dst->height0, info->dst.level) &&
          !info->alpha_blend && !info->window_rectangle_include &&
          info->num_window_rectangles == 0 && (info->mask & all) == all;
}

/* Queue a RESOLVE draw (docs/hw.md "Multisampling") for @info. */
static bool
vlg_emit_resolve(struct vlg_context *ctx, const struct pipe_blit_info *info)
{
   struct vlg_resource *src = vlg_resource(info->src.resource);
   struct vlg_resource *dst = vlg_resource(info->dst.resource);
   const bool zs = util_format_is_depth_or_stencil(src->base.format);
   struct VLG_SURFACE ss, ds;

   if (!vlg_box_surface(src, &info->src.box, 4, &ss) ||
       !vlg_box_surface(dst, &info->dst.box, 1, &ds))
      return false;

   struct VLG_FRAMEBUFFER f;
   VLG_FRAMEBUFFER_init(&f);
   f.width = info->src.box.width;
   f.height = info->src.box.height;
   f.samples = 4;
   if (zs) {
      f.zsbuf = ss;
   } else {
      f.nr_cbufs = 1;
      f.cbufs[0] = ss;
   }
   uint32_t fw[VLG_FRAMEBUFFER_LENGTH], sw[VLG_SURFACE_LENGTH];
   VLG_FRAMEBUFFER_pack(fw, &f);
   VLG_SURFACE_pack(sw, &ds);
   const uint64_t fb = vlg_batch_upload(&ctx->batch, fw, sizeof(fw), 16);
   const uint64_t dsurf = vlg_batch_upload(&ctx->batch, sw, sizeof(sw), 16);
   if (!fb || !dsurf)
      return false;

   struct VLG_DRAW_INFO di;
   vlg_fixed_draw_info(&di, VLG_DRAW_KIND_RESOLVE);
   di.framebuffer = fb;
   di.resolve_dst = dsurf;
   if (!vlg_emit_fixed_draw(ctx, &di))
      return false;
   vlg_batch_add_bo(&ctx->batch, src->bo);
   vlg_batch_add_bo(&ctx->batch, dst->bo);
   return true;
}

static void vlg_blit(struct pipe_context *pctx, const struct pipe_blit_info *info);

/*
 * Any other blit from a 4-sample resource (flipped, scaled, format
 * converting, scissored, partial mask — st/mesa's resolve into a window
 * framebuffer is y-flipped and BGRA): RESOLVE the source box into a
 * single-sample temporary of the source's format, then blit that like any
 * single-sample resource (u_blitter or a copy). The same two steps as
 * freedreno's and iris's resolve-then-blit fallbacks; the average is taken
 * before scaling/conversion, which GL ES 3.0 §4.3.3 allows ("the samples
 * ... are resolved to a single color ... before being written").
 */
static bool
vlg_blit_via_resolve(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct pipe_resource *src = info->src.resource;
   const int x0 = MIN2(info->src.box.x, info->src.box.x + info->src.box.width);
   const int y0 = MIN2(info->src.box.y, info->src.box.y + info->src.box.height);
   const int w = abs(info->src.box.width), h = abs(info->src.box.height);
   const bool zs = util_format_is_depth_or_stencil(src->format);

   if (w == 0 || h == 0 || info->src.box.depth != 1)
      return false;

   struct pipe_resource tmpl = *src;
   tmpl.target = PIPE_TEXTURE_2D;
   tmpl.width0 = w;
   tmpl.height0 = h;
   tmpl.depth0 = 1;
   tmpl.array_size = 1;
   tmpl.last_level = 0;
   tmpl.nr_samples = tmpl.nr_storage_samples = 0;
   tmpl.bind = PIPE_BIND_SAMPLER_VIEW |
               (zs ? PIPE_BIND_DEPTH_STENCIL : PIPE_BIND_RENDER_TARGET);
   tmpl.flags = 0;
   struct pipe_resource *tmp = pctx->screen->resource_create(pctx->screen, &tmpl);
   if (!tmp)
      return false;

   struct pipe_blit_info r;
   memset(&r, 0, sizeof(r));
   r.src.resource = src;
   r.src.format = src->format;
   r.src.level = 0;
   u_box_3d(x0, y0, info->src.box.z, w, h, 1, &r.src.box);
   r.dst.resource = tmp;
   r.dst.format = src->format;
   u_box_3d(0, 0, 0, w, h, 1, &r.dst.box);
   r.mask = zs ? (util_format_has_depth(util_format_description(src->format)) ? PIPE_MASK_Z : 0) |
                    (util_format_has_stencil(util_format_description(src->format)) ? PIPE_MASK_S : 0)
               : PIPE_MASK_RGBA;
   r.filter = PIPE_TEX_FILTER_NEAREST;

   bool ok = vlg_blit_is_resolve(&r) && vlg_emit_resolve(vlg_context(pctx), &r);
   if (ok) {
      struct pipe_blit_info b = *info;
      b.src.resource = tmp;
      b.src.level = 0;
      b.src.box.x = info->src.box.x - x0;
      b.src.box.y = info->src.box.y - y0;
      b.src.box.z = 0;
      vlg_blit(pctx, &b);
   }
   pipe_resource_reference(&tmp, NULL);
   return ok;
}

/*
 * A blit that writes stencil (GL ES 3.0 §4.3.3: depth and stencil blits
 * use NEAREST, scaling and flips allowed).  The FS has no stencil output
 * (no PIPE_CAP_SHADER_STENCIL_EXPORT), so u_blitter refuses any blit with
 * PIPE_MASK_S (util_blitter_is_blit_supported).  Depth, if asked for, goes
 * through u_blitter alone; stencil through util_blitter_stencil_fallback,
 * as zink and crocus do: it clears the destination box's stencil to 0, then
 * draws the box once per stencil bit with a REPLACE write mask of that bit
 * and an FS that fetches the source stencil (the stencil-only view:
 * X24S8_UINT, X32_S8X24_UINT, S8_UINT; nearest texel) and discards where
 * the bit is 0.  One layer per blit, as glBlitFramebuffer gives.
 */
static void
vlg_blit_stencil(struct vlg_context *ctx, const struct pipe_blit_info *info)
{
   if (info->dst.box.depth != 1 || abs(info->src.box.depth) != 1) {
      mesa_logw_once("stencil blit of %d layers: not supported; destination "
                     "left unchanged",
                     info->dst.box.depth);
      return;
   }
   if (info->mask & PIPE_MASK_Z) {
      struct pipe_blit_info depth = *info;
      depth.mask = PIPE_MASK_Z;
      if (util_blitter_is_blit_supported(ctx->blitter, &depth)) {
         vlg_blitter_save(ctx);
         util_blitter_blit(ctx->blitter, &depth);
      } else {
         mesa_logw_once("depth blit %s -> %s is not supported; depth left "
                        "unchanged",
                        util_format_short_name(info->src.format),
                        util_format_short_name(info->dst.format));
      }
   }
   vlg_blitter_save(ctx);
   util_blitter_stencil_fallback(ctx->blitter, info->dst.resource,
                                 info->dst.level, &info->dst.box,
                                 info->src.resource, info->src.level,
                                 &info->src.box,
                                 info->scissor_enable ? &info->scissor : NULL);
}

/**
 * Whether @info copies the texels' bytes unchanged: the same colour view
 * format on both sides, each the size of its resource's pixels, no scaling,
 * every component, same sample count (util_can_blit_via_copy_region's tight
 * check).  The resources' own formats do not matter then (every layout is
 * linear and a format's bytes are Gallium's), so the blit is a COPY.  This is
 * st/mesa's glCopyImageSubData between formats of one compatibility class
 * (st_cb_copyimage.c swizzled_copy views both sides as one canonical
 * UINT/UNORM format: RGBA8 -> R32F as R8G8B8A8_UNORM, RGB32F -> RGB32I as
 * R32G32B32_UINT, which is no render target), and it keeps 4-sample ->
 * 4-sample blits from being resolved.  Depth/stencil views are left to
 * util_try_blit_via_copy_region: their mask may select one of two
 * components sharing a pixel.
 */
static bool
vlg_blit_is_byte_copy(struct vlg_context *ctx,
                      const struct pipe_blit_info *info)
{
   const enum pipe_format f = info->src.format;

   return info->src.resource->target != PIPE_BUFFER &&
          !util_format_is_depth_or_stencil(f) &&
          util_format_get_blocksize(f) ==
             util_format_get_blocksize(info->src.resource->format) &&
          util_format_get_blocksize(f) ==
             util_format_get_blocksize(info->dst.resource->format) &&
          util_can_blit_via_copy_region(info, true,
                                        ctx->render_cond_query != NULL);
}

static void
vlg_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct vlg_context *ctx = vlg_context(pctx);

   if (info->render_condition_enable && !vlg_check_render_cond(ctx))
      return;
   if (vlg_blit_is_byte_copy(ctx, info)) {
      pctx->resource_copy_region(pctx, info->dst.resource, info->dst.level,
                                 info->dst.box.x, info->dst.box.y,
                                 info->dst.box.z, info->src.resource,
                                 info->src.level, &info->src.box);
      return;
   }
   if (info->src.resource->nr_samples > 1) {
      if (vlg_blit_is_resolve(info)) {
         if (!vlg_emit_resolve(ctx, info))
            mesa_loge("VRAM full or format not renderable: resolve dropped");
         return;
      }
      if (vlg_blit_via_resolve(pctx, info))
         return;
      mesa_logw_once("blit from a %u-sample %s to %s (%dx%d -> %dx%d) could not "
                     "be resolved (VRAM full or a layered box); destination left "
                     "unchanged",
                     info->src.resource->nr_samples,
                     util_format_short_name(info->src.format),
                     util_format_short_name(info->dst.format),
                     info->src.box.width, info->src.box.height,
                     info->dst.box.width, info->dst.box.height);
      return;
   }

   /* Same size, compatible formats, no scissor/filter: a copy. */
   if (util_try_blit_via_copy_region(pctx, info,
                                     ctx->render_cond_query != NULL))
      return;

   if ((info->mask & PIPE_MASK_S) &&
       util_format_has_stencil(util_format_description(info->dst.format))) {
      vlg_blit_stencil(ctx, info);
      return;
   }

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
   /* Nothing to do: no compression, no tiling; multisample resolves are
    * explicit blits (st/mesa resolves before presenting). */
}

void
vlg_init_blit_functions(struct pipe_context *pctx)
{
   pctx->clear = vlg_clear;
   pctx->clear_render_target = vlg_clear_render_target;
   pctx->clear_depth_stencil = vlg_clear_depth_stencil;
   pctx->blit = vlg_blit;
   pctx->flush_resource = vlg_flush_resource;
}
