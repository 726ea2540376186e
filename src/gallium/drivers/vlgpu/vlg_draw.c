/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Draw calls: the per-draw package (docs/hw.md "The per-draw package",
 * seed 001 §3.2) and the DRAW command.
 *
 * For each draw of a draw_vbo call the driver writes into the batch's
 * package memory (vlg_batch.c):
 *   draw_info        kind, primitive, start/count, indices, instancing, and
 *                    the addresses of every block below
 *   pipe_state       the CSOs' pre-packed words (rasterizer, depth/stencil/
 *                    alpha, blend) + viewport, scissor, clip, stencil_ref,
 *                    blend_color, sample_mask (64 dwords)
 *   shader_state x2  VS and FS: binary address (in the CSO's BO), register
 *                    count, I/O maps, and the global-buffer image: the
 *                    compiler's constants with the uniforms copied from
 *                    constant buffer 0 by the uniform copy map
 *   framebuffer      the bound colour buffers and depth/stencil buffer
 *   vertex_element[] the CSO's pre-packed words
 *   vertex_buffer[]  addresses of the bound vertex buffers
 *   texture[]/sampler[] per stage, pre-packed by the sampler view / sampler
 *                    CSOs
 *   stream_output    per draw when transform feedback or a primitive query
 *                    is active (vlg_so.c)
 * and appends a DRAW command.  Blocks shared by the draws of one call are
 * written once.  The blocks dispatches and clears write too (pipe_state,
 * shader_state, textures, the DRAW command) come from vlg_emit.c; clears
 * are CLEAR draws (vlg_emit_clear, called by vlg_blit.c).
 */

#include <inttypes.h>

#include "util/log.h"
#include "util/u_draw.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_prim.h"
#include "util/u_viewport.h"

#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_debug.h"
#include "vlg_emit.h"
#include "vlg_program.h"
#include "vlg_resource.h"
#include "vlg_so.h"

/* Vertices per primitive for primitive assembly (draw_info). */
static unsigned
vlg_vertices_per_prim(enum pipe_prim_type prim)
{
   switch (prim) {
   case PIPE_PRIM_POINTS:
      return 1;
   case PIPE_PRIM_LINES:
   case PIPE_PRIM_LINE_LOOP:
   case PIPE_PRIM_LINE_STRIP:
      return 2;
   case PIPE_PRIM_LINES_ADJACENCY:
   case PIPE_PRIM_LINE_STRIP_ADJACENCY:
      return 4;
   case PIPE_PRIM_TRIANGLES_ADJACENCY:
   case PIPE_PRIM_TRIANGLE_STRIP_ADJACENCY:
      return 6;
   default:
      return 3;
   }
}

/* The blocks every draw of one draw_vbo call shares. */
struct vlg_draw_blocks {
   uint64_t pipe_state, vs, fs, gs, framebuffer;
   uint64_t vertex_elements, vertex_buffers;
   unsigned num_vertex_elements, num_vertex_buffers;
   /* [0] VS, [1] FS, [2] GS */
   uint64_t textures[3], samplers[3];
   unsigned num_textures[3];
};

static bool
vlg_emit_textures(struct vlg_context *ctx, struct vlg_shader_state *so,
                  struct vlg_draw_blocks *blocks, unsigned slot)
{
   return vlg_emit_stage_textures(ctx, so, &blocks->textures[slot],
                                  &blocks->samplers[slot],
                                  &blocks->num_textures[slot]);
}

static bool
vlg_emit_vertex_input(struct vlg_context *ctx, struct vlg_draw_blocks *blocks)
{
   const struct vlg_vertex_elements_state *ve = ctx->vertex_elements;

   blocks->num_vertex_elements = ve ? ve->count : 0;
   blocks->vertex_elements = 0;
   if (blocks->num_vertex_elements) {
      blocks->vertex_elements = vlg_batch_upload(
         &ctx->batch, ve->words,
         ve->count * VLG_VERTEX_ELEMENT_LENGTH * 4, 16);
      if (!blocks->vertex_elements)
         return false;
   }

   unsigned n = util_last_bit(ctx->vertex_buffers_mask);
   for (unsigned i = 0; ve && i < ve->count; i++)
      n = MAX2(n, ve->elements[i].vertex_buffer_index + 1);
   blocks->num_vertex_buffers = n;
   blocks->vertex_buffers = 0;
   if (!n)
      return true;

   uint32_t *w = vlg_batch_alloc(&ctx->batch, n * VLG_VERTEX_BUFFER_LENGTH * 4,
                                 16, &blocks->vertex_buffers);
   if (!w)
      return false;
   for (unsigned i = 0; i < n; i++) {
      const struct pipe_vertex_buffer *vb = &ctx->vertex_buffers[i];
      struct VLG_VERTEX_BUFFER b;

      VLG_VERTEX_BUFFER_init(&b);
      if ((ctx->vertex_buffers_mask & BITFIELD_BIT(i)) && !vb->is_user_buffer &&
          vb->buffer.resource) {
         struct vlg_resource *rsc = vlg_resource(vb->buffer.resource);
         b.address = rsc->bo->address + vb->buffer_offset;
         b.size = vb->buffer_offset < rsc->size
                     ? rsc->size - vb->buffer_offset : 0;
         b.stride = vb->stride;
         vlg_batch_add_bo(&ctx->batch, rsc->bo);
      }
      VLG_VERTEX_BUFFER_pack(w + i * VLG_VERTEX_BUFFER_LENGTH, &b);
   }
   return true;
}

static bool
vlg_emit_draw_blocks(struct vlg_context *ctx, struct vlg_draw_blocks *blocks)
{
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;
   /* shader buffers and images of the VS, FS and GS (vlg_emit.c) */
   uint32_t vs_du[VLG_DU_SLOTS * 4], fs_du[VLG_DU_SLOTS * 4], gs_du[VLG_DU_SLOTS * 4];

   if (!vlg_emit_pipe_state(ctx, &blocks->pipe_state) ||
       !vlg_emit_shader(ctx, ctx->vs,
                        vlg_graphics_driver_uniforms(ctx, ctx->vs, vs_du),
                        &blocks->vs) ||
       !vlg_emit_shader(ctx, ctx->fs,
                        vlg_graphics_driver_uniforms(ctx, ctx->fs, fs_du),
                        &blocks->fs) ||
       !vlg_emit_textures(ctx, ctx->vs, blocks, 0) ||
       !vlg_emit_textures(ctx, ctx->fs, blocks, 1) ||
       !vlg_emit_vertex_input(ctx, blocks))
      return false;
   blocks->gs = 0;
   blocks->textures[2] = blocks->samplers[2] = 0;
   blocks->num_textures[2] = 0;
   if (ctx->gs && (!vlg_emit_shader(ctx, ctx->gs,
                                    vlg_graphics_driver_uniforms(ctx, ctx->gs, gs_du),
                                    &blocks->gs) ||
                   !vlg_emit_textures(ctx, ctx->gs, blocks, 2)))
      return false;

   blocks->framebuffer = vlg_batch_upload(&ctx->batch, ctx->fb_words,
                                          sizeof(ctx->fb_words), 16);
   if (!blocks->framebuffer)
      return false;
   vlg_emit_framebuffer_bos(ctx, fb->cbufs, fb->nr_cbufs);
   vlg_emit_framebuffer_bos(ctx, &fb->zsbuf, 1);
   return true;
}

/* Why a draw cannot run, or NULL. */
static const char *
vlg_draw_unrunnable(struct vlg_context *ctx)
{
   if (!ctx->vs || !ctx->fs)
      return "no vertex or fragment shader bound";
   if (!ctx->vs->cs || !ctx->fs->cs || (ctx->gs && !ctx->gs->cs))
      return "a bound shader did not compile";
   if (!ctx->rasterizer || !ctx->dsa || !ctx->blend)
      return "rasterizer, depth/stencil/alpha or blend state missing";
   if (!ctx->framebuffer.width || !ctx->framebuffer.height)
      return "empty framebuffer";
   return NULL;
}

static void
vlg_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
             unsigned drawid_offset,
             const struct pipe_draw_indirect_info *indirect,
             const struct pipe_draw_start_count_bias *draws,
             unsigned num_draws)
{
   struct vlg_context *ctx = vlg_context(pctx);

   if (!vlg_check_render_cond(ctx))
      return;

   /* ARB_draw_indirect (PIPE_CAP_DRAW_INDIRECT): the GPU's CP reads count,
    * instance count, first and base vertex/instance from the buffer when it
    * loads the draw (draw_info.indirect, docs/hw.md "Indirect draws"); the
    * driver never reads them.  One draw per call: no multi-draw-indirect
    * or indirect draw counts (caps 0). */
   uint64_t indirect_address = 0;
   struct pipe_draw_start_count_bias indirect_draw = {0};
   if (indirect && indirect->buffer) {
      if (indirect->draw_count > 1 || indirect->indirect_draw_count) {
         mesa_logw_once("multi-draw-indirect is not supported: draw skipped");
         return;
      }
      struct vlg_resource *ib = vlg_resource(indirect->buffer);
      indirect_address = ib->bo->address + indirect->offset;
      vlg_batch_add_bo(&ctx->batch, ib->bo);
      draws = &indirect_draw;
      num_draws = 1;
   }
   struct pipe_draw_start_count_bias auto_draw;
   if (indirect && indirect->count_from_stream_output) {
      /* glDrawTransformFeedback: the vertex count the target's last draw
       * left in filled_size (vlg_so.c; flushes and reads it back). */
      auto_draw.start = 0;
      auto_draw.index_bias = 0;
      auto_draw.count =
         vlg_so_vertex_count(ctx, indirect->count_from_stream_output);
      draws = &auto_draw;
      num_draws = 1;
   }
   if (!info->instance_count && !indirect_address)
      return;

   const char *why = vlg_draw_unrunnable(ctx);
   if (why) {
      ctx->draws_skipped += num_draws;
      mesa_logw_once("draw skipped: %s", why);
      return;
   }
   /* PIPE_CAP_SUPPORTED_PRIM_MODES has every type up to
    * TRIANGLE_STRIP_ADJACENCY (quads and polygons included); GL only lets
    * adjacency types reach a draw with a geometry shader (GL 3.2 core
    * §2.12.1: INVALID_OPERATION otherwise) and quads and polygons only one
    * without (main/draw_validate.c keeps them out of a GS's input modes). */
   assert(info->mode <= PIPE_PRIM_TRIANGLE_STRIP_ADJACENCY);
   if (info->mode >= PIPE_PRIM_QUADS && info->mode <= PIPE_PRIM_POLYGON && ctx->gs) {
      mesa_logw_once("draw skipped: quads or polygons with a geometry shader");
      return;
   }
   if (info->mode >= PIPE_PRIM_LINES_ADJACENCY && !ctx->gs) {
      mesa_logw_once("draw skipped: adjacency primitives without a "
                     "geometry shader");
      return;
   }

   struct vlg_draw_blocks blocks;
   if (!vlg_emit_draw_blocks(ctx, &blocks))
      goto oom;

   for (unsigned d = 0; d < num_draws; d++) {
      const struct pipe_draw_start_count_bias *draw = &draws[d];

      if (!draw->count && !indirect_address)
         continue;

      struct VLG_DRAW_INFO di;
      VLG_DRAW_INFO_init(&di);
      di.kind = VLG_DRAW_KIND_PRIMITIVES;
      di.prim = (enum vlg_prim)info->mode;
      di.vertices_per_prim = vlg_vertices_per_prim(info->mode);
      di.start = draw->start;
      di.count = draw->count;
      di.instance_count = info->instance_count;
      di.start_instance = info->start_instance;
      di.indirect = indirect_address;
      di.occlusion_counter = vlg_query_occlusion_counter(ctx);
      if (!vlg_so_emit(ctx, &di.stream_output))
         goto oom;

      if (info->index_size) {
         di.index_size = (enum vlg_index_size)info->index_size;
         di.primitive_restart = info->primitive_restart;
         di.restart_index = info->restart_index;
         di.base_vertex = draw->index_bias;
         if (info->has_user_indices) {
            /* User index arrays go into the package, from index 0. */
            const uint64_t size = (uint64_t)draw->count * info->index_size;
            di.index_buffer = vlg_batch_upload(
               &ctx->batch,
               (const uint8_t *)info->index.user +
                  (uint64_t)draw->start * info->index_size,
               size, 4);
            if (!di.index_buffer)
               goto oom;
            di.index_buffer_size = size;
            di.start = 0;
         } else {
            struct vlg_resource *rsc = vlg_resource(info->index.resource);
            di.index_buffer = rsc->bo->address;
            di.index_buffer_size = rsc->size;
            vlg_batch_add_bo(&ctx->batch, rsc->bo);
         }
      }

      di.pipe_state = blocks.pipe_state;
      di.vs = blocks.vs;
      di.fs = blocks.fs;
      di.framebuffer = blocks.framebuffer;
      di.vertex_elements = blocks.vertex_elements;
      di.vertex_buffers = blocks.vertex_buffers;
      di.num_vertex_elements = blocks.num_vertex_elements;
      di.num_vertex_buffers = blocks.num_vertex_buffers;
      di.vs_textures = blocks.textures[0];
      di.vs_samplers = blocks.samplers[0];
      di.vs_num_textures = di.vs_num_samplers = blocks.num_textures[0];
      di.fs_textures = blocks.textures[1];
      di.fs_samplers = blocks.samplers[1];
      di.fs_num_textures = di.fs_num_samplers = blocks.num_textures[1];
      di.gs = blocks.gs;
      di.gs_textures = blocks.textures[2];
      di.gs_samplers = blocks.samplers[2];
      di.gs_num_textures = di.gs_num_samplers = blocks.num_textures[2];

      if (!vlg_emit_draw(ctx, &di))
         goto oom;
      if (di.stream_output)
         vlg_so_draw_done(ctx);

      struct vlg_draw_record rec = {
         .kind = VLG_DRAW_KIND_PRIMITIVES,
         .prim = info->mode,
         .index_size = info->index_size,
         .count = draw->count,
         .instances = info->instance_count,
         .vs_id = ctx->vs->id,
         .fs_id = ctx->fs->id,
      };
      vlg_batch_record_draw(&ctx->batch, &rec);
   }
   return;

oom:
   mesa_loge("VRAM full: draw dropped");
}

void
vlg_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = vlg_draw_vbo;
}
