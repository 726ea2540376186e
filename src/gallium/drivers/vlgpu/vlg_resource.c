/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Resources (buffers, textures, display targets), CPU transfers and
 * surfaces.  Follows softpipe's sp_texture.c: linear layout in host memory,
 * display targets through the sw winsys (displaytarget_create/map/unmap),
 * and Mesa's u_transfer helpers for subdata and flush_region.
 *
 * Not yet: storage in simulated VRAM (buffer objects of the DRM-style
 * interface, brief §5) and waiting for the simulator before CPU access.
 * Today no GPU work exists (draw_vbo is not implemented), so a CPU mapping
 * never has to wait.
 */

#include "pipe/p_defines.h"
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_transfer.h"

/* After the pipe headers, as in sp_texture.c. */
#include "frontend/sw_winsys.h"

#include "vlg_resource.h"
#include "vlg_screen.h"

/** Largest single resource: the whole simulated VRAM. */
#define VLG_MAX_RESOURCE_SIZE ((uint64_t)VLG_VRAM_SIZE_MB << 20)

/* Rows, layers and levels are 64-byte aligned so that a row of any format
 * starts on a cache line of the simulated L2. */
#define VLG_ALIGNMENT 64

/**
 * Compute the linear layout of \p rsc (softpipe_resource_layout() in
 * sp_texture.c).  \return false if the resource is larger than VRAM.
 */
static bool
vlg_resource_layout(struct vlg_resource *rsc)
{
   const struct pipe_resource *prsc = &rsc->base;
   unsigned width = prsc->width0;
   unsigned height = prsc->height0;
   unsigned depth = prsc->depth0;
   uint64_t size = 0;

   for (unsigned level = 0; level <= prsc->last_level; level++) {
      unsigned layers = prsc->target == PIPE_TEXTURE_3D ? depth
                                                        : prsc->array_size;
      unsigned nblocksy = util_format_get_nblocksy(prsc->format, height);
      uint64_t stride = util_format_get_stride(prsc->format, width);

      if (prsc->target != PIPE_BUFFER)
         stride = align64(stride, VLG_ALIGNMENT);

      uint64_t layer_stride = align64(stride * nblocksy, VLG_ALIGNMENT);
      if (stride > UINT32_MAX || layer_stride > UINT32_MAX)
         return false;

      rsc->stride[level] = stride;
      rsc->layer_stride[level] = layer_stride;
      rsc->level_offset[level] = size;
      size += layer_stride * layers;
      if (size > VLG_MAX_RESOURCE_SIZE)
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

static struct pipe_resource *
vlg_resource_create_front(struct pipe_screen *pscreen,
                          const struct pipe_resource *templat,
                          const void *map_front_private)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = CALLOC_STRUCT(vlg_resource);

   if (!rsc)
      return NULL;

   assert(templat->format != PIPE_FORMAT_NONE);
   rsc->base = *templat;
   pipe_reference_init(&rsc->base.reference, 1);
   rsc->base.screen = pscreen;

   if (vlg_is_display_target(templat)) {
      /* Display targets: storage from the winsys (sp_texture.c
       * softpipe_displaytarget_layout()). */
      struct sw_winsys *winsys = screen->winsys;

      rsc->dt = winsys->displaytarget_create(winsys, templat->bind,
                                             templat->format, templat->width0,
                                             templat->height0, VLG_ALIGNMENT,
                                             map_front_private,
                                             &rsc->stride[0]);
      if (!rsc->dt)
         goto fail;
      rsc->layer_stride[0] =
         rsc->stride[0] *
         util_format_get_nblocksy(templat->format, templat->height0);
   } else {
      if (!vlg_resource_layout(rsc))
         goto fail;
      rsc->data = align_malloc(MAX2(rsc->size, 1), VLG_ALIGNMENT);
      if (!rsc->data)
         goto fail;
   }

   return &rsc->base;

fail:
   FREE(rsc);
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
   return vlg_resource_layout(&rsc);
}

static void
vlg_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *prsc)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = vlg_resource(prsc);

   if (rsc->dt)
      screen->winsys->displaytarget_destroy(screen->winsys, rsc->dt);
   else
      align_free(rsc->data);
   FREE(rsc);
}

static struct pipe_resource *
vlg_resource_from_handle(struct pipe_screen *pscreen,
                         const struct pipe_resource *templat,
                         struct winsys_handle *whandle, unsigned usage)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = CALLOC_STRUCT(vlg_resource);

   if (!rsc)
      return NULL;

   rsc->base = *templat;
   pipe_reference_init(&rsc->base.reference, 1);
   rsc->base.screen = pscreen;
   rsc->dt = screen->winsys->displaytarget_from_handle(screen->winsys,
                                                       templat, whandle,
                                                       &rsc->stride[0]);
   if (!rsc->dt) {
      FREE(rsc);
      return NULL;
   }
   rsc->layer_stride[0] =
      rsc->stride[0] *
      util_format_get_nblocksy(templat->format, templat->height0);
   return &rsc->base;
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
 * Transfers (sp_texture.c softpipe_transfer_map/unmap).
 */

static void *
vlg_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc,
                 unsigned level, unsigned usage, const struct pipe_box *box,
                 struct pipe_transfer **out_transfer)
{
   struct vlg_screen *screen = vlg_screen(pctx->screen);
   struct vlg_resource *rsc = vlg_resource(prsc);
   enum pipe_format format = prsc->format;
   uint8_t *map;

   assert(level <= prsc->last_level);

   struct vlg_transfer *trans = CALLOC_STRUCT(vlg_transfer);
   if (!trans)
      return NULL;

   struct pipe_transfer *ptrans = &trans->base;
   pipe_resource_reference(&ptrans->resource, prsc);
   ptrans->level = level;
   ptrans->usage = usage;
   ptrans->box = *box;
   ptrans->stride = rsc->stride[level];
   ptrans->layer_stride = rsc->layer_stride[level];

   if (rsc->dt)
      map = screen->winsys->displaytarget_map(screen->winsys, rsc->dt, usage);
   else
      map = rsc->data;

   if (!map) {
      pipe_resource_reference(&ptrans->resource, NULL);
      FREE(trans);
      return NULL;
   }

   uint64_t offset = vlg_resource_offset(rsc, level, box->z) +
                     box->y / util_format_get_blockheight(format) *
                        (uint64_t)ptrans->stride +
                     box->x / util_format_get_blockwidth(format) *
                        util_format_get_blocksize(format);

   *out_transfer = ptrans;
   return map + offset;
}

static void
vlg_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct vlg_screen *screen = vlg_screen(pctx->screen);
   struct vlg_resource *rsc = vlg_resource(ptrans->resource);

   if (rsc->dt)
      screen->winsys->displaytarget_unmap(screen->winsys, rsc->dt);

   pipe_resource_reference(&ptrans->resource, NULL);
   FREE(ptrans);
}

/*
 * Surfaces (sp_texture.c softpipe_create_surface).
 */

static struct pipe_surface *
vlg_create_surface(struct pipe_context *pctx, struct pipe_resource *prsc,
                   const struct pipe_surface *tmpl)
{
   struct pipe_surface *psurf = CALLOC_STRUCT(pipe_surface);

   if (!psurf)
      return NULL;

   pipe_reference_init(&psurf->reference, 1);
   pipe_resource_reference(&psurf->texture, prsc);
   psurf->context = pctx;
   psurf->format = tmpl->format;

   if (prsc->target == PIPE_BUFFER) {
      psurf->width = tmpl->u.buf.last_element - tmpl->u.buf.first_element + 1;
      psurf->height = prsc->height0;
      psurf->u.buf = tmpl->u.buf;
   } else {
      unsigned level = tmpl->u.tex.level;

      assert(level <= prsc->last_level);
      psurf->width = u_minify(prsc->width0, level);
      psurf->height = u_minify(prsc->height0, level);
      psurf->u.tex = tmpl->u.tex;
   }
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
