/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Resources (buffers, textures, render targets, display targets) in
 * simulated VRAM, CPU transfers and surfaces.
 *
 * Storage is one VRAM buffer object per resource (vlg_bo.c); the layout
 * follows softpipe's sp_texture.c (linear, level after level).  A transfer
 * maps straight into VRAM (vlg_drm_bo_map: VRAM is host memory).  Because
 * draws are queued and only run at flush, a map must first submit the
 * queued work that touches the resource (GPU results it reads, or data the
 * queued draws still have to read), unless the caller maps unsynchronized;
 * buffers whose whole contents are discarded get a fresh BO instead
 * (renaming, as u_transfer_helper-based drivers do), so orphaning a vertex
 * buffer every frame does not split the frame's queue.
 */

#include <inttypes.h>

#include "pipe/p_defines.h"
#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_transfer.h"

/* After the pipe headers, as in sp_texture.c. */
#include "frontend/sw_winsys.h"

#include "vlg_context.h"
#include "vlg_format.h"
#include "vlg_copy.h"
#include "vlg_resource.h"
#include "vlg_screen.h"

/* Rows, layers and levels are 64-byte aligned so that a row of any format
 * starts on a cache line of the simulated L2. */
#define VLG_ALIGNMENT 64

/**
 * Compute the linear layout of \p rsc (softpipe_resource_layout() in
 * sp_texture.c).  \return false if the resource is larger than VRAM or its
 * sizes do not fit the descriptors' fields.
 */
static bool
vlg_resource_layout(struct vlg_screen *screen, struct vlg_resource *rsc)
{
   const struct pipe_resource *prsc = &rsc->base;
   unsigned width = prsc->width0;
   unsigned height = prsc->height0;
   unsigned depth = prsc->depth0;
   uint64_t size = 0;

   if (prsc->target == PIPE_BUFFER) {
      rsc->stride[0] = prsc->width0;
      rsc->layer_stride[0] = prsc->width0;
      rsc->size = prsc->width0;
      return rsc->size <= screen->vram_size;
   }

   /* 4-sample resources: one 2D level, or one level of 2D layers
    * (GL 3.2 / OES_texture_storage_multisample_2d_array; docs/hw.md
    * "Multisampling"). */
   if (prsc->nr_samples > 1 &&
       (prsc->nr_samples != 4 || prsc->last_level != 0 ||
        (prsc->target != PIPE_TEXTURE_2D && prsc->target != PIPE_TEXTURE_RECT &&
         prsc->target != PIPE_TEXTURE_2D_ARRAY)))
      return false;

   /* texture.width/height/depth/array_size are 16-bit fields; a 4-sample
    * resource's view is 4 times as wide (vlg_create_sampler_view), so a
    * 4-sample texture can be at most 16383 pixels wide although
    * GL_MAX_TEXTURE_SIZE is 16384: creating a wider one fails (Mesa reports
    * GL_OUT_OF_MEMORY; dEQP-GLES31...texture_size.samples_*: 2d, listed in
    * tests/deqp/gles31-fails.txt) instead of reaching VLG_TEXTURE_pack's
    * assertion. */
   if ((uint64_t)width * MAX2(prsc->nr_samples, 1) > 0xffff ||
       height > 0xffff || depth > 0xffff || prsc->array_size > 0xffff)
      return false;

   for (unsigned level = 0; level <= prsc->last_level; level++) {
      unsigned layers = prsc->target == PIPE_TEXTURE_3D ? depth
                                                        : prsc->array_size;
      unsigned nblocksy = util_format_get_nblocksy(prsc->format, height);
      /* 4-sample resources (docs/hw.md "Multisampling"): a pixel is its
       * 4 samples in sample order, so a row is 4x as long. */
      uint64_t stride =
         align64((uint64_t)util_format_get_stride(prsc->format, width) *
                    MAX2(prsc->nr_samples, 1),
                 VLG_ALIGNMENT);
      uint64_t layer_stride = align64(stride * nblocksy, VLG_ALIGNMENT);

      if (stride > UINT32_MAX || layer_stride > UINT32_MAX)
         return false;

      rsc->stride[level] = stride;
      rsc->layer_stride[level] = layer_stride;
      rsc->level_offset[level] = size;
      size += layer_stride * layers;
      if (size > screen->vram_size)
         return false;

      width = u_minify(width, 1);
      height = u_minify(height, 1);
      depth = u_minify(depth, 1);
   }

   rsc->size = size;
   return true;
}

static bool
vlg_is_display_target(const struct pipe_resource *templat)
{
   return templat->bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT |
                           PIPE_BIND_SHARED);
}

static const char *
vlg_resource_kind(const struct pipe_resource *templat)
{
   if (templat->target == PIPE_BUFFER)
      return "buffer";
   if (vlg_is_display_target(templat))
      return "display target";
   if (templat->bind & PIPE_BIND_DEPTH_STENCIL)
      return "depth/stencil buffer";
   if (templat->bind & PIPE_BIND_RENDER_TARGET)
      return "render target";
   return "texture";
}

/* A resource of @templat with its layout (vlg_resource_layout) and no memory
 * yet; NULL when out of memory or when the layout is not supported. */
static struct vlg_resource *
vlg_resource_new(struct pipe_screen *pscreen, const struct pipe_resource *templat)
{
   struct vlg_resource *rsc = CALLOC_STRUCT(vlg_resource);

   if (!rsc)
      return NULL;
   rsc->base = *templat;
   pipe_reference_init(&rsc->base.reference, 1);
   rsc->base.screen = pscreen;
   if (!vlg_resource_layout(vlg_screen(pscreen), rsc)) {
      FREE(rsc);
      return NULL;
   }
   return rsc;
}

/* Free @rsc with its display target and its reference to the BO (queued
 * draws that use the BO keep it alive until they have run); also for a
 * resource creation that failed half-way. */
static void
vlg_resource_free(struct vlg_screen *screen, struct vlg_resource *rsc)
{
   if (rsc->dt)
      screen->winsys->displaytarget_destroy(screen->winsys, rsc->dt);
   vlg_bo_reference(&rsc->bo, NULL);
   FREE(rsc);
}

static struct pipe_resource *
vlg_resource_create_front(struct pipe_screen *pscreen,
                          const struct pipe_resource *templat,
                          const void *map_front_private)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = vlg_resource_new(pscreen, templat);

   if (!rsc)
      return NULL;

   rsc->bo = vlg_bo_create(screen, rsc->size, 256, vlg_resource_kind(templat));
   if (!rsc->bo)
      goto fail;

   if (vlg_is_display_target(templat)) {
      /* Display targets: presentation memory from the winsys
       * (sp_texture.c softpipe_displaytarget_layout()); the GPU renders
       * into VRAM and DUMPs into this memory at flush_frontbuffer. */
      struct sw_winsys *winsys = screen->winsys;

      rsc->dt = winsys->displaytarget_create(winsys, templat->bind,
                                             templat->format, templat->width0,
                                             templat->height0, VLG_ALIGNMENT,
                                             map_front_private,
                                             &rsc->dt_stride);
      if (!rsc->dt)
         goto fail;
   }

   return &rsc->base;

fail:
   vlg_resource_free(screen, rsc);
   return NULL;
}

static struct pipe_resource *
vlg_resource_create(struct pipe_screen *pscreen,
                    const struct pipe_resource *templat)
{
   return vlg_resource_create_front(pscreen, templat, NULL);
}

static bool
vlg_can_create_resource(struct pipe_screen *pscreen,
                        const struct pipe_resource *templat)
{
   struct vlg_resource rsc;

   memset(&rsc, 0, sizeof(rsc));
   rsc.base = *templat;
   /* st/mesa's proxy test (st_cb_texture.c st_TestProxyTexImage) asks with
    * the application's sample count, then allocates the next count
    * is_format_supported accepts (st_texture_storage: "if the user requests
    * 1x but only 4x or 8x msaa is supported, we'll use 4x"): judge 2 and 3
    * samples as the 4 the texture will get, so glTexImage2DMultisample(2)
    * is not GL_OUT_OF_MEMORY (GL 4.6 section 8.8: samples is a minimum). */
   if (rsc.base.nr_samples == 2 || rsc.base.nr_samples == 3)
      rsc.base.nr_samples = rsc.base.nr_storage_samples = 4;
   /* ... and for glTextureStorage2DMultisample without a level count, as if
    * the texture had a whole mip chain (last_level = log2(size)), although
    * a multisample texture has one level (GL 4.6 section 8.8) and st/mesa
    * creates it so. */
   if (rsc.base.nr_samples > 1)
      rsc.base.last_level = 0;
   return vlg_resource_layout(vlg_screen(pscreen), &rsc);
}

static void
vlg_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *prsc)
{
   vlg_resource_free(vlg_screen(pscreen), vlg_resource(prsc));
}

static struct pipe_resource *
vlg_resource_from_handle(struct pipe_screen *pscreen,
                         const struct pipe_resource *templat,
                         struct winsys_handle *whandle, unsigned usage)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = vlg_resource_new(pscreen, templat);

   if (!rsc)
      return NULL;
   rsc->dt = screen->winsys->displaytarget_from_handle(screen->winsys,
                                                       templat, whandle,
                                                       &rsc->dt_stride);
   if (!rsc->dt)
      goto fail;
   rsc->bo = vlg_bo_create(screen, rsc->size, 256, "imported display target");
   if (!rsc->bo)
      goto fail;

   /* The GPU renders in VRAM: start from the imported image. */
   void *src = screen->winsys->displaytarget_map(screen->winsys, rsc->dt,
                                                 PIPE_MAP_READ);
   if (src) {
      util_copy_rect(rsc->bo->map, templat->format, rsc->stride[0], 0, 0,
                     templat->width0, templat->height0, src, rsc->dt_stride,
                     0, 0);
      screen->winsys->displaytarget_unmap(screen->winsys, rsc->dt);
   }
   return &rsc->base;

fail:
   vlg_resource_free(screen, rsc);
   return NULL;
}

static bool
vlg_resource_get_handle(struct pipe_screen *pscreen, struct pipe_context *pctx,
                        struct pipe_resource *prsc,
                        struct winsys_handle *whandle, unsigned usage)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = vlg_resource(prsc);

   if (!rsc->dt)
      return false;
   return screen->winsys->displaytarget_get_handle(screen->winsys, rsc->dt,
                                                   whandle);
}

/*
 * Transfers.
 */

/**
 * Make the CPU's access to \p rsc safe: submit queued draws that use its
 * BO, or give a discarded buffer a new BO.
 */
static void
vlg_resource_sync_for_cpu(struct vlg_context *ctx, struct vlg_resource *rsc,
                          unsigned usage)
{
   if (usage & PIPE_MAP_UNSYNCHRONIZED)
      return;
   if (!vlg_batch_uses_bo(&ctx->batch, rsc->bo))
      return;

   if (rsc->base.target == PIPE_BUFFER &&
       (usage & PIPE_MAP_DISCARD_WHOLE_RESOURCE)) {
      struct vlg_bo *bo = vlg_bo_create(vlg_screen(ctx->base.screen),
                                        rsc->size, 256, "buffer");
      if (bo) {
         /* The queue keeps the old BO alive and reads the old contents. */
         vlg_bo_reference(&rsc->bo, NULL);
         rsc->bo = bo;
         return;
      }
   }

   vlg_context_flush(ctx, NULL, 0);
}

static void *
vlg_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc,
                 unsigned level, unsigned usage, const struct pipe_box *box,
                 struct pipe_transfer **out_transfer)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_resource *rsc = vlg_resource(prsc);
   enum pipe_format format = prsc->format;

   assert(level <= prsc->last_level);

   struct vlg_transfer *trans = CALLOC_STRUCT(vlg_transfer);
   if (!trans)
      return NULL;
   struct pipe_transfer *ptrans = &trans->base;

   pipe_resource_reference(&ptrans->resource, prsc);
   ptrans->level = level;
   ptrans->usage = usage;
   ptrans->box = *box;

   /* a write into a resource queued commands still use: into a staging
    * buffer, copied by the GPU at unmap (vlg_copy.c) */
   if (vlg_copy_want_staging(ctx, rsc, usage)) {
      void *map = vlg_copy_map_staging(ctx, trans);
      if (map) {
         *out_transfer = ptrans;
         return map;
      }
   }

   vlg_resource_sync_for_cpu(ctx, rsc, usage);
   ptrans->stride = rsc->stride[level];
   ptrans->layer_stride = rsc->layer_stride[level];

   uint64_t offset = vlg_resource_offset(rsc, level, box->z) +
                     box->y / util_format_get_blockheight(format) *
                        (uint64_t)ptrans->stride +
                     box->x / util_format_get_blockwidth(format) *
                        util_format_get_blocksize(format);

   *out_transfer = ptrans;
   return rsc->bo->map + offset;
}

static void
vlg_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct vlg_transfer *trans = (struct vlg_transfer *)ptrans;

   if (trans->staging)
      vlg_copy_unmap_staging(vlg_context(pctx), trans);
   pipe_resource_reference(&ptrans->resource, NULL);
   FREE(trans);
}

/*
 * Surfaces (sp_texture.c softpipe_create_surface) with their surface
 * descriptor (docs/hw.md struct surface).
 */

static struct pipe_surface *
vlg_create_surface(struct pipe_context *pctx, struct pipe_resource *prsc,
                   const struct pipe_surface *tmpl)
{
   struct vlg_resource *rsc = vlg_resource(prsc);
   struct vlg_surface *surf = CALLOC_STRUCT(vlg_surface);

   if (!surf)
      return NULL;

   struct pipe_surface *psurf = &surf->base;
   pipe_reference_init(&psurf->reference, 1);
   pipe_resource_reference(&psurf->texture, prsc);
   psurf->context = pctx;
   psurf->format = tmpl->format;

   if (prsc->target == PIPE_BUFFER) {
      /* Not a render target on this GPU (no PIPE_BIND_RENDER_TARGET for
       * buffers in is_format_supported). */
      psurf->width = tmpl->u.buf.last_element - tmpl->u.buf.first_element + 1;
      psurf->height = prsc->height0;
      psurf->u.buf = tmpl->u.buf;
      return psurf;
   }

   unsigned level = tmpl->u.tex.level;
   assert(level <= prsc->last_level);
   psurf->width = u_minify(prsc->width0, level);
   psurf->height = u_minify(prsc->height0, level);
   psurf->u.tex = tmpl->u.tex;

   /* Layers first_layer..last_layer (a layered attachment: array layers,
    * cube faces or 3D slices; docs/hw.md "Layered rendering"). */
   const unsigned format = vlg_format_from_pipe(tmpl->format);
   const unsigned usage = vlg_format_usage(format);
   struct VLG_SURFACE *s = &surf->desc;
   VLG_SURFACE_init(s);
   s->address = rsc->bo->address +
                vlg_resource_offset(rsc, level, tmpl->u.tex.first_layer);
   s->pitch = rsc->stride[level];
   if (usage & (VLG_FORMAT_USAGE_RT | VLG_FORMAT_USAGE_ZS))
      s->format = (enum vlg_format)format;
   s->width = psurf->width;
   s->height = psurf->height;
   s->layers = tmpl->u.tex.last_layer - tmpl->u.tex.first_layer + 1;
   s->layer_stride = rsc->layer_stride[level];
   return psurf;
}

static void
vlg_surface_destroy(struct pipe_context *pctx, struct pipe_surface *psurf)
{
   pipe_resource_reference(&psurf->texture, NULL);
   FREE(psurf);
}

void
vlg_init_screen_resource_functions(struct pipe_screen *pscreen)
{
   pscreen->resource_create = vlg_resource_create;
   pscreen->resource_create_front = vlg_resource_create_front;
   pscreen->resource_destroy = vlg_resource_destroy;
   pscreen->resource_from_handle = vlg_resource_from_handle;
   pscreen->resource_get_handle = vlg_resource_get_handle;
   pscreen->can_create_resource = vlg_can_create_resource;
}

void
vlg_init_context_resource_functions(struct pipe_context *pctx)
{
   pctx->buffer_map = vlg_transfer_map;
   pctx->buffer_unmap = vlg_transfer_unmap;
   pctx->texture_map = vlg_transfer_map;
   pctx->texture_unmap = vlg_transfer_unmap;
   pctx->transfer_flush_region = u_default_transfer_flush_region;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_subdata = u_default_texture_subdata;
   pctx->create_surface = vlg_create_surface;
   pctx->surface_destroy = vlg_surface_destroy;
}
