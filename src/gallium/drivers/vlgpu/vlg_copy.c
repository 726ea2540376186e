/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Copies and fills as GPU work: COPY commands (docs/hw.md "Copies"), which
 * the CP's DMA engine executes in queue order with the draws and dispatches,
 * moving the bytes through the L2 and the MC like any other GPU traffic.
 *
 *  - resource_copy_region (and so util_try_blit_via_copy_region's
 *    same-format, unscaled blits): one COPY of the box;
 *  - clear_buffer (ARB_clear_buffer_object): one FILL;
 *  - clear_texture (ARB_clear_texture): one FILL of the box per call;
 *  - writes into a resource that queued commands still use
 *    (glBufferSubData / glTexSubImage while a draw in the batch reads the
 *    old contents): the map returns a staging buffer and the unmap queues a
 *    COPY from it, as hardware drivers do (e.g. freedreno's
 *    fd_resource_transfer_map "staging" path, iris's iris_map_copy_region),
 *    instead of submitting the batch and waiting.
 *
 * CPU maps of idle resources stay direct CPU access to VRAM
 * (vlg_resource.c).  Every box is linear (vlg_resource_layout): rows of
 * stride[level] bytes, layers/slices of layer_stride[level] bytes, and a
 * 4-sample pixel is its 4 samples side by side (docs/hw.md "Multisampling").
 */

#include <string.h>

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_inlines.h"
#include "util/u_surface.h"
#include "util/u_transfer.h"

#include "vlg_batch.h"
#include "vlg_context.h"
#include "vlg_copy.h"
#include "vlg_resource.h"

/** Bytes of one block (texel) of @prsc with its samples (a 4-sample pixel is
 *  4 texels side by side). */
static unsigned
vlg_pixel_bytes(const struct pipe_resource *prsc)
{
   return util_format_get_blocksize(prsc->format) * MAX2(prsc->nr_samples, 1);
}

/** VRAM byte address of pixel (x, y) of layer/slice z of @level; x and y in
 *  pixels, block aligned. */
static uint64_t
vlg_box_address(const struct vlg_resource *rsc, unsigned level, unsigned x,
                unsigned y, unsigned z)
{
   const enum pipe_format f = rsc->base.format;

   if (rsc->base.target == PIPE_BUFFER)
      return rsc->bo->address + x;
   return rsc->bo->address + vlg_resource_offset(rsc, level, z) +
          (uint64_t)(y / util_format_get_blockheight(f)) * rsc->stride[level] +
          (uint64_t)(x / util_format_get_blockwidth(f)) * vlg_pixel_bytes(&rsc->base);
}

/**
 * Queue one COPY command for @ci, keeping @src (may be NULL for a FILL) and
 * @dst alive and marked used by the batch, so a later CPU map submits the
 * batch first.  \return false when VRAM has no room for the copy_info block
 * (logged by the caller's fallback).
 */
static bool
vlg_emit_copy(struct vlg_context *ctx, const struct VLG_COPY_INFO *ci,
              struct vlg_bo *src, struct vlg_bo *dst)
{
   uint32_t words[VLG_COPY_INFO_LENGTH];
   VLG_COPY_INFO_pack(words, ci);
   const uint64_t address =
      vlg_batch_upload(&ctx->batch, words, sizeof(words), 16);
   if (!address)
      return false;
   if (src)
      vlg_batch_add_bo(&ctx->batch, src);
   vlg_batch_add_bo(&ctx->batch, dst);
   vlg_batch_emit_cmd(&ctx->batch, COPY, copy_info, address);
   return true;
}

/** The destination part of a copy_info: the box (w x h pixels x d layers) of
 *  @rsc at (x, y, z) of @level; width in bytes. */
static void
vlg_copy_info_dst(struct VLG_COPY_INFO *ci, const struct vlg_resource *rsc,
                  unsigned level, unsigned x, unsigned y, unsigned z,
                  unsigned w, unsigned h, unsigned d)
{
   const enum pipe_format f = rsc->base.format;

   ci->dst = vlg_box_address(rsc, level, x, y, z);
   if (rsc->base.target == PIPE_BUFFER) {
      ci->width_bytes = w;
      ci->height = ci->depth = 1;
      ci->dst_row_stride = ci->dst_slice_stride = w;
      return;
   }
   ci->width_bytes = util_format_get_nblocksx(f, w) * vlg_pixel_bytes(&rsc->base);
   ci->height = util_format_get_nblocksy(f, h);
   ci->depth = d;
   ci->dst_row_stride = rsc->stride[level];
   ci->dst_slice_stride = rsc->layer_stride[level];
}

/* pipe_context::resource_copy_region (p_context.h): a box of the source
 * level copied byte for byte to (dstx, dsty, dstz) of the destination level;
 * the formats have the same block size (util_resource_copy_region asserts
 * it, and so do we: a mismatch is a state-tracker bug, logged and ignored).
 * The formats may differ (glCopyImageSubData within a size class).  The GPU
 * has no compressed formats (vlgpu_hw.xml), so
 * PIPE_CAP_COPY_BETWEEN_COMPRESSED_AND_PLAIN_FORMATS never brings one here:
 * st/mesa copies the compressed formats it decompresses on the CPU
 * (st_cb_copyimage.c fallback_copy_image).  A compressed hardware format
 * would need the box counted in source blocks here (u_surface.c
 * util_resource_copy_region), which the block-shape check below refuses
 * until then. */
static void
vlg_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                         unsigned dst_level, unsigned dstx, unsigned dsty,
                         unsigned dstz, struct pipe_resource *src,
                         unsigned src_level, const struct pipe_box *src_box)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_resource *s = vlg_resource(src), *d = vlg_resource(dst);

   if (src_box->width <= 0 || src_box->height <= 0 || src_box->depth <= 0)
      return;
   if ((src->target == PIPE_BUFFER) != (dst->target == PIPE_BUFFER) ||
       (src->target != PIPE_BUFFER &&
        (vlg_pixel_bytes(src) != vlg_pixel_bytes(dst) ||
         util_format_get_blockwidth(src->format) !=
            util_format_get_blockwidth(dst->format) ||
         util_format_get_blockheight(src->format) !=
            util_format_get_blockheight(dst->format)))) {
      mesa_loge("vlgpu: resource_copy_region between incompatible resources "
                "(%s -> %s), ignored",
                util_format_short_name(src->format),
                util_format_short_name(dst->format));
      return;
   }

   struct VLG_COPY_INFO ci;
   VLG_COPY_INFO_init(&ci);
   ci.mode = VLG_COPY_MODE_COPY;
   vlg_copy_info_dst(&ci, d, dst_level, dstx, dsty, dstz, src_box->width,
                     src_box->height, src_box->depth);
   ci.src = vlg_box_address(s, src_level, src_box->x, src_box->y, src_box->z);
   if (src->target == PIPE_BUFFER) {
      ci.src_row_stride = ci.src_slice_stride = src_box->width;
   } else {
      ci.src_row_stride = s->stride[src_level];
      ci.src_slice_stride = s->layer_stride[src_level];
   }
   if (!vlg_emit_copy(ctx, &ci, s->bo, d->bo)) {
      mesa_loge("vlgpu: out of VRAM for a copy, done by the CPU");
      util_resource_copy_region(pctx, dst, dst_level, dstx, dsty, dstz, src,
                                src_level, src_box);
   }
}

/**
 * A FILL pattern for a texel of @bytes bytes: the texel itself, or repeated
 * to 12 bytes for 3- and 6-byte texels (FILL patterns are 1, 2, 4, 8, 12 or
 * 16 bytes, docs/hw.md "Copies").  \return false for other sizes.
 */
static bool
vlg_fill_pattern(struct VLG_COPY_INFO *ci, const void *texel, unsigned bytes)
{
   uint8_t pattern[16] = {0};
   unsigned n;

   switch (bytes) {
   case 1: case 2: case 4: case 8: case 12: case 16:
      n = bytes;
      break;
   case 3: case 6:
      n = 12;
      break;
   default:
      return false;
   }
   for (unsigned i = 0; i < n; i += bytes)
      memcpy(pattern + i, texel, bytes);
   memcpy(ci->fill_value, pattern, sizeof(pattern));
   ci->fill_bytes = n;
   return true;
}

/* pipe_context::clear_buffer: @size bytes at @offset filled with the
 * @clear_value_size-byte value (st/mesa passes a power of two up to 16 and
 * clears other sizes on the CPU itself, _mesa_ClearBufferSubData_sw). */
static void
vlg_clear_buffer(struct pipe_context *pctx, struct pipe_resource *prsc,
                 unsigned offset, unsigned size, const void *clear_value,
                 int clear_value_size)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_resource *rsc = vlg_resource(prsc);
   struct VLG_COPY_INFO ci;

   if (!size)
      return;
   VLG_COPY_INFO_init(&ci);
   ci.mode = VLG_COPY_MODE_FILL;
   vlg_copy_info_dst(&ci, rsc, 0, offset, 0, 0, size, 1, 1);
   if (vlg_fill_pattern(&ci, clear_value, clear_value_size) &&
       vlg_emit_copy(ctx, &ci, NULL, rsc->bo))
      return;
   mesa_loge("vlgpu: clear_buffer with a %d-byte value or out of VRAM, done "
             "by the CPU",
             clear_value_size);
   u_default_clear_buffer(pctx, prsc, offset, size, clear_value,
                          clear_value_size);
}

/* pipe_context::clear_texture: @data is one texel packed in the resource's
 * format (p_context.h), depth/stencil included, so the box is filled with
 * its bytes (util_clear_texture unpacks and repacks the same texel). */
static void
vlg_clear_texture(struct pipe_context *pctx, struct pipe_resource *prsc,
                  unsigned level, const struct pipe_box *box, const void *data)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct vlg_resource *rsc = vlg_resource(prsc);
   struct VLG_COPY_INFO ci;

   if (level > prsc->last_level || box->width <= 0 || box->height <= 0 ||
       box->depth <= 0)
      return;
   VLG_COPY_INFO_init(&ci);
   ci.mode = VLG_COPY_MODE_FILL;
   vlg_copy_info_dst(&ci, rsc, level, box->x, box->y, box->z, box->width,
                     box->height, box->depth);
   if (vlg_fill_pattern(&ci, data, util_format_get_blocksize(prsc->format)) &&
       vlg_emit_copy(ctx, &ci, NULL, rsc->bo))
      return;
   mesa_loge("vlgpu: clear_texture of %s (a texel of %u bytes) or out of "
             "VRAM, done by the CPU",
             util_format_short_name(prsc->format),
             util_format_get_blocksize(prsc->format));
   util_clear_texture(pctx, prsc, level, box, data);
}

/*
 * Staged writes (vlg_copy.h).
 */

bool
vlg_copy_want_staging(struct vlg_context *ctx, struct vlg_resource *rsc,
                      unsigned usage)
{
   /* only writes that replace the whole mapped range (DISCARD_RANGE, as
    * buffer_subdata and texture_subdata map): the staging buffer does not
    * hold the old contents; FLUSH_EXPLICIT would leave unflushed bytes
    * undefined, persistent/coherent maps need the real storage */
   const unsigned need = PIPE_MAP_WRITE | PIPE_MAP_DISCARD_RANGE;
   const unsigned never = PIPE_MAP_READ | PIPE_MAP_UNSYNCHRONIZED |
                          PIPE_MAP_PERSISTENT | PIPE_MAP_COHERENT |
                          PIPE_MAP_FLUSH_EXPLICIT | PIPE_MAP_DIRECTLY;

   return (usage & need) == need && !(usage & never) && rsc->bo &&
          vlg_batch_uses_bo(&ctx->batch, rsc->bo);
}

void *
vlg_copy_map_staging(struct vlg_context *ctx, struct vlg_transfer *trans)
{
   struct pipe_transfer *pt = &trans->base;
   const struct pipe_resource *prsc = pt->resource;
   const struct pipe_box *box = &pt->box;

   if (prsc->target == PIPE_BUFFER) {
      pt->stride = pt->layer_stride = box->width;
   } else {
      pt->stride = util_format_get_nblocksx(prsc->format, box->width) *
                   vlg_pixel_bytes(prsc);
      pt->layer_stride =
         pt->stride * util_format_get_nblocksy(prsc->format, box->height);
   }
   const uint64_t size = (uint64_t)pt->layer_stride * box->depth;
   trans->staging = vlg_bo_create(vlg_screen(ctx->base.screen), MAX2(size, 1),
                                  256, "staging");
   return trans->staging ? trans->staging->map : NULL;
}

void
vlg_copy_unmap_staging(struct vlg_context *ctx, struct vlg_transfer *trans)
{
   struct pipe_transfer *pt = &trans->base;
   struct vlg_resource *rsc = vlg_resource(pt->resource);
   const struct pipe_box *box = &pt->box;
   struct VLG_COPY_INFO ci;

   VLG_COPY_INFO_init(&ci);
   ci.mode = VLG_COPY_MODE_COPY;
   vlg_copy_info_dst(&ci, rsc, pt->level, box->x, box->y, box->z, box->width,
                     box->height, box->depth);
   ci.src = trans->staging->address;
   ci.src_row_stride = pt->stride;
   ci.src_slice_stride = pt->layer_stride;
   if (!vlg_emit_copy(ctx, &ci, trans->staging, rsc->bo)) {
      /* no room for 15 words of copy_info: write the data directly after
       * the queued commands that use the resource have run */
      mesa_loge("vlgpu: out of VRAM for a staged upload, submitting first");
      vlg_context_flush(ctx, NULL, 0);
      for (int z = 0; z < box->depth; z++)
         for (unsigned y = 0; y < ci.height; y++)
            memcpy(rsc->bo->map + (ci.dst - rsc->bo->address) +
                      (uint64_t)z * ci.dst_slice_stride +
                      (uint64_t)y * ci.dst_row_stride,
                   trans->staging->map + (uint64_t)z * pt->layer_stride +
                      (uint64_t)y * pt->stride,
                   ci.width_bytes);
   }
   /* the batch holds its own reference until the COPY has run */
   vlg_bo_reference(&trans->staging, NULL);
}

void
vlg_init_copy_functions(struct pipe_context *pctx)
{
   pctx->resource_copy_region = vlg_resource_copy_region;
   pctx->clear_buffer = vlg_clear_buffer;
   pctx->clear_texture = vlg_clear_texture;
}
