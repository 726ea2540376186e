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
 * written once.  Clears are CLEAR draws (vlg_emit_clear).
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
#include "vlg_program.h"
#include "vlg_resource.h"
#include "vlg_so.h"

/* pipe_state sub-blocks, back to back in XML order (docs/hw.md
 * "The per-draw package"); vlg_draw_check_layout() verifies the offsets
 * against the generated field table once. */
#define PS_RASTERIZER 0
#define PS_VIEWPORT   (PS_RASTERIZER + VLG_RASTERIZER_LENGTH)
#define PS_SCISSOR    (PS_VIEWPORT + VLG_VIEWPORT_LENGTH)
#define PS_CLIP       (PS_SCISSOR + VLG_SCISSOR_LENGTH)
#define PS_DSA        (PS_CLIP + VLG_CLIP_LENGTH)
#define PS_STENCIL_REF (PS_DSA + VLG_DEPTH_STENCIL_ALPHA_LENGTH)
#define PS_BLEND      (PS_STENCIL_REF + VLG_STENCIL_REF_LENGTH)
#define PS_BLEND_COLOR (PS_BLEND + VLG_BLEND_LENGTH)
#define PS_SAMPLE_MASK (PS_BLEND_COLOR + VLG_BLEND_COLOR_LENGTH)
static_assert(PS_SAMPLE_MASK + VLG_SAMPLE_MASK_LENGTH == VLG_PIPE_STATE_LENGTH,
              "pipe_state is its sub-blocks back to back");

bool
vlg_draw_check_layout(void)
{
   static const struct {
      const char *field;
      unsigned word;
   } blocks[] = {
      {"rasterizer.front_ccw", PS_RASTERIZER},
      {"viewport.scale[0]", PS_VIEWPORT},
      {"scissor.minx", PS_SCISSOR},
      {"clip.plane[0].a", PS_CLIP},
      {"depth_stencil_alpha.depth_enable", PS_DSA},
      {"stencil_ref.ref_value[0]", PS_STENCIL_REF},
      {"blend.independent_blend_enable", PS_BLEND},
      {"blend_color.r", PS_BLEND_COLOR},
      {"sample_mask.mask", PS_SAMPLE_MASK},
   };
   for (unsigned i = 0; i < ARRAY_SIZE(blocks); i++) {
      const struct vlg_hw_field_info *f = vlg_hw_field_by_name(
         &VLG_PIPE_STATE_info, blocks[i].field, strlen(blocks[i].field));
      if (!f || f->word != blocks[i].word) {
         mesa_loge("pipe_state layout of vlg_hw.h differs from the driver's "
                   "(%s)", blocks[i].field);
         return false;
      }
   }
   return true;
}

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
vlg_emit_pipe_state(struct vlg_context *ctx, uint64_t *address)
{
   uint32_t *w = vlg_batch_alloc(&ctx->batch, VLG_PIPE_STATE_LENGTH * 4, 64,
                                 address);
   if (!w)
      return false;

   memcpy(w + PS_RASTERIZER, ctx->rasterizer->words,
          sizeof(ctx->rasterizer->words));

   /* Viewport: pipe_viewport_state + the depth range it implies (GL ES
    * 2.0 §2.12.1; the PE clamps fragment depth to it). */
   struct VLG_VIEWPORT vp;
   float zmin, zmax;
   VLG_VIEWPORT_init(&vp);
   for (unsigned i = 0; i < 3; i++) {
      vp.scale[i] = ctx->viewport.scale[i];
      vp.translate[i] = ctx->viewport.translate[i];
   }
   util_viewport_zmin_zmax(&ctx->viewport, ctx->rasterizer->base.clip_halfz,
                           &zmin, &zmax);
   vp.depth_near = zmin;
   vp.depth_far = zmax;
   VLG_VIEWPORT_pack(w + PS_VIEWPORT, &vp);

   memcpy(w + PS_SCISSOR, ctx->scissor_words, sizeof(ctx->scissor_words));
   memcpy(w + PS_CLIP, ctx->clip_words, sizeof(ctx->clip_words));
   memcpy(w + PS_DSA, ctx->dsa->words, sizeof(ctx->dsa->words));
   memcpy(w + PS_STENCIL_REF, ctx->stencil_ref_words,
          sizeof(ctx->stencil_ref_words));
   memcpy(w + PS_BLEND, ctx->blend->words, sizeof(ctx->blend->words));
   memcpy(w + PS_BLEND_COLOR, ctx->blend_color_words,
          sizeof(ctx->blend_color_words));
   memcpy(w + PS_SAMPLE_MASK, ctx->sample_mask_words,
          sizeof(ctx->sample_mask_words));
   return true;
}

/**
 * The global-buffer image of a shader: the compiler's constants, then every
 * range of the uniform copy map from constant buffer 0 (docs/compiler.md
 * "Uniform copy map"; dwords the bound buffer does not hold are 0), or,
 * from the compiler's driver_uniform_base on, from @driver_uniforms
 * (VLG_DU_SLOTS vec4s of a dispatch, or of a VS/FS with shader buffers or
 * images; NULL otherwise).
 */
static bool
vlg_emit_consts(struct vlg_context *ctx, const struct vlg_compiled_shader *cs,
                const struct pipe_constant_buffer *cb,
                const uint32_t *driver_uniforms, uint64_t *address)
{
   *address = 0;
   if (!cs->num_consts)
      return true;

   uint32_t *image = vlg_batch_alloc(&ctx->batch, cs->num_consts * 16, 16,
                                     address);
   if (!image)
      return false;
   memcpy(image, cs->consts, cs->num_consts * 16);

   const uint32_t *src = NULL;
   unsigned src_dwords = 0;
   if (cb->user_buffer) {
      src = (const uint32_t *)cb->user_buffer;
      src_dwords = cb->buffer_size / 4;
   } else if (cb->buffer) {
      struct vlg_resource *rsc = vlg_resource(cb->buffer);
      if (cb->buffer_offset < rsc->size) {
         src = (const uint32_t *)(rsc->bo->map + cb->buffer_offset);
         src_dwords = MIN2(cb->buffer_size, rsc->size - cb->buffer_offset) / 4;
      }
   }

   for (unsigned i = 0; i < cs->num_uniform_copies; i++) {
      const struct vlg_uniform_copy *c = &cs->uniform_copies[i];
      for (unsigned k = 0; k < c->count; k++) {
         const unsigned s = c->src + k;
         const unsigned du = cs->driver_uniform_base * 4;
         /* only shaders with driver uniforms read them; without, the copy
          * map reads constant buffer 0 whatever the slot */
         if (driver_uniforms && s >= du)
            image[c->dst + k] = s - du < VLG_DU_SLOTS * 4 ? driver_uniforms[s - du]
                                                          : 0;
         else
            image[c->dst + k] = s < src_dwords ? src[s] : 0;
      }
   }
   return true;
}

/**
 * The LDB buffer slots of a shader (docs/hw.md "Uniform buffers"): slot Bi
 * is Gallium constant buffer i (uniform block i - 1); slots the shader does
 * not read stay unbound (size 0).  A buffer resource is read in place; a
 * user buffer is copied into the batch.
 */
static bool
vlg_emit_buffers(struct vlg_context *ctx, const struct vlg_compiled_shader *cs,
                 struct vlg_stage_state *stage, struct VLG_SHADER_STATE *ss)
{
   const uint32_t used =
      cs->buffers_used & BITFIELD_MASK(VLG_MAX_CONST_BUFFERS);

   ss->num_buffers = 0;
   ss->buffers = 0;
   if (!used)
      return true;

   const unsigned n = util_last_bit(used);
   uint32_t *w = vlg_batch_alloc(&ctx->batch, n * VLG_BUFFER_LENGTH * 4, 16,
                                 &ss->buffers);
   if (!w)
      return false;
   for (unsigned i = 0; i < n; i++) {
      const struct pipe_constant_buffer *cb = &stage->ubo[i];
      struct VLG_BUFFER b;

      VLG_BUFFER_init(&b);
      if (i > 0 && (used & BITFIELD_BIT(i))) {
         if (cb->user_buffer && cb->buffer_size) {
            b.address = vlg_batch_upload(&ctx->batch, cb->user_buffer,
                                         cb->buffer_size, 16);
            if (!b.address)
               return false;
            b.size = cb->buffer_size;
         } else if (cb->buffer) {
            struct vlg_resource *rsc = vlg_resource(cb->buffer);
            if (cb->buffer_offset < rsc->size) {
               b.address = rsc->bo->address + cb->buffer_offset;
               b.size = MIN2(cb->buffer_size, rsc->size - cb->buffer_offset);
               vlg_batch_add_bo(&ctx->batch, rsc->bo);
            }
         }
      }
      VLG_BUFFER_pack(w + i * VLG_BUFFER_LENGTH, &b);
   }
   ss->num_buffers = n;
   return true;
}

bool
vlg_emit_shader(struct vlg_context *ctx, struct vlg_shader_state *so,
                const uint32_t *driver_uniforms, uint64_t *address)
{
   const struct vlg_compiled_shader *cs = so->cs;
   struct VLG_SHADER_STATE ss = so->state;
   uint64_t consts;

   if (!vlg_emit_consts(ctx, cs, &ctx->stage[so->stage].constbuf,
                        driver_uniforms, &consts))
      return false;
   ss.consts = consts;
   ss.num_consts = cs->num_consts;
   if (!vlg_emit_buffers(ctx, cs, &ctx->stage[so->stage], &ss))
      return false;

   /* gl_FragColor is meant for every colour buffer (GL ES 3.0 §3.9.2.3,
    * PIPE_CAP_... broadcast semantics of TGSI_PROPERTY_FS_COLOR0_WRITES_
    * ALL_CBUFS): one COLOR i output per bound buffer, all from COLOR 0's
    * register. */
   if (so->stage == PIPE_SHADER_FRAGMENT && cs->color_broadcast) {
      int color0 = -1;
      for (unsigned i = 0; i < ss.num_outputs; i++) {
         if (ss.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_COLOR &&
             ss.outputs[i].index == 0)
            color0 = i;
      }
      const unsigned nr_cbufs =
         MIN2(ctx->framebuffer.nr_cbufs, VLG_MAX_RENDER_TARGETS);
      for (unsigned rt = 1; color0 >= 0 && rt < nr_cbufs; rt++) {
         if (!ctx->framebuffer.cbufs[rt] ||
             ss.num_outputs >= VLG_COMPILER_MAX_IO)
            continue;
         ss.outputs[ss.num_outputs] = ss.outputs[color0];
         ss.outputs[ss.num_outputs].index = rt;
         ss.num_outputs++;
      }
   }

   uint32_t *w = vlg_batch_alloc(&ctx->batch, VLG_SHADER_STATE_LENGTH * 4, 64,
                                 address);
   if (!w)
      return false;
   VLG_SHADER_STATE_pack(w, &ss);
   vlg_batch_add_bo(&ctx->batch, so->code_bo);
   return true;
}

/* Words of the texture every unit without a (usable) view reads: the
 * screen's 1x1 R8G8B8A8 texel (0, 0, 0, 1), GL ES 2.0 §3.8.2 incomplete
 * textures. */
static void
vlg_dummy_texture(struct vlg_context *ctx, uint32_t *words)
{
   struct vlg_screen *screen = vlg_screen(ctx->base.screen);
   struct VLG_TEXTURE t;

   VLG_TEXTURE_init(&t);
   t.target = VLG_TEXTURE_TARGET_2D;
   t.format = VLG_FORMAT_R8G8B8A8_UNORM;
   t.address = screen->dummy_texture->address;
   t.level[0].row_pitch = 4;
   t.level[0].layer_stride = 4;
   VLG_TEXTURE_pack(words, &t);
   vlg_batch_add_bo(&ctx->batch, screen->dummy_texture);
}

/* Texture and sampler descriptor arrays of one stage: units 0 ..
 * num_samplers-1 of its shader (*num of them). */
bool
vlg_emit_stage_textures(struct vlg_context *ctx, struct vlg_shader_state *so,
                        uint64_t *textures, uint64_t *samplers, unsigned *num)
{
   const struct vlg_stage_state *stage = &ctx->stage[so->stage];
   const unsigned n = so->cs->num_samplers;

   *num = n;
   *textures = *samplers = 0;
   if (!n)
      return true;

   uint32_t *tex = vlg_batch_alloc(&ctx->batch, n * VLG_TEXTURE_LENGTH * 4, 64,
                                   textures);
   uint32_t *smp = vlg_batch_alloc(&ctx->batch, n * VLG_SAMPLER_LENGTH * 4, 64,
                                   samplers);
   if (!tex || !smp)
      return false;

   for (unsigned i = 0; i < n; i++) {
      struct vlg_sampler_view *view =
         i < stage->num_views && stage->views[i]
            ? vlg_sampler_view(stage->views[i]) : NULL;

      if (view && view->valid) {
         struct vlg_bo *bo = vlg_resource(view->base.texture)->bo;
         memcpy(tex + i * VLG_TEXTURE_LENGTH, view->words, sizeof(view->words));
         if (view->buffer) {
            struct VLG_TEXTURE t;
            VLG_TEXTURE_unpack(view->words, &t);
            t.address = bo->address;
            VLG_TEXTURE_pack(tex + i * VLG_TEXTURE_LENGTH, &t);
         }
         vlg_batch_add_bo(&ctx->batch, bo);
      } else {
         vlg_dummy_texture(ctx, tex + i * VLG_TEXTURE_LENGTH);
      }

      if (i < stage->num_samplers && stage->samplers[i]) {
         memcpy(smp + i * VLG_SAMPLER_LENGTH, stage->samplers[i]->words,
                sizeof(stage->samplers[i]->words));
      } else {
         struct VLG_SAMPLER s;
         VLG_SAMPLER_init(&s);
         VLG_SAMPLER_pack(smp + i * VLG_SAMPLER_LENGTH, &s);
      }
   }
   return true;
}

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

static void
vlg_add_framebuffer_bos(struct vlg_context *ctx,
                        struct pipe_surface *const *surfaces, unsigned n)
{
   for (unsigned i = 0; i < n; i++) {
      if (surfaces[i])
         vlg_batch_add_bo(&ctx->batch,
                          vlg_resource(surfaces[i]->texture)->bo);
   }
}

static bool
vlg_emit_draw_blocks(struct vlg_context *ctx, struct vlg_draw_blocks *blocks)
{
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;
   /* shader buffers and images of the VS and FS (vlg_compute.c) */
   uint32_t vs_du[VLG_DU_SLOTS * 4], fs_du[VLG_DU_SLOTS * 4];

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
   if (ctx->gs && (!vlg_emit_shader(ctx, ctx->gs, NULL, &blocks->gs) ||
                   !vlg_emit_textures(ctx, ctx->gs, blocks, 2)))
      return false;

   blocks->framebuffer = vlg_batch_upload(&ctx->batch, ctx->fb_words,
                                          sizeof(ctx->fb_words), 16);
   if (!blocks->framebuffer)
      return false;
   vlg_add_framebuffer_bos(ctx, fb->cbufs, fb->nr_cbufs);
   vlg_add_framebuffer_bos(ctx, &fb->zsbuf, 1);
   return true;
}

static void
vlg_emit_draw_command(struct vlg_context *ctx, uint64_t draw_info)
{
   struct VLG_CMD_DRAW cmd;
   uint32_t dw[VLG_CMD_DRAW_LENGTH];

   VLG_CMD_DRAW_init(&cmd);
   cmd.draw_info = draw_info;
   VLG_CMD_DRAW_pack(dw, &cmd);
   vlg_batch_emit(&ctx->batch, dw, VLG_CMD_DRAW_LENGTH);
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
   /* PIPE_CAP_SUPPORTED_PRIM_MODES has the 7 GL ES types and the four
    * adjacency types (u_vbuf converts quads and polygons); GL only lets
    * adjacency types reach a draw with a geometry shader (GL 3.2 core
    * §2.12.1: INVALID_OPERATION otherwise). */
   assert(info->mode <= PIPE_PRIM_TRIANGLE_FAN ||
          (info->mode >= PIPE_PRIM_LINES_ADJACENCY &&
           info->mode <= PIPE_PRIM_TRIANGLE_STRIP_ADJACENCY));
   if (info->mode > PIPE_PRIM_TRIANGLE_FAN && !ctx->gs) {
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

      uint64_t address;
      uint32_t *w = vlg_batch_alloc(&ctx->batch, VLG_DRAW_INFO_LENGTH * 4, 64,
                                    &address);
      if (!w)
         goto oom;
      VLG_DRAW_INFO_pack(w, &di);
      vlg_emit_draw_command(ctx, address);
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

bool
vlg_emit_clear(struct vlg_context *ctx, const uint32_t *fb_words,
               struct pipe_surface *const *surfaces, unsigned num_surfaces,
               unsigned buffers, const struct VLG_SCISSOR *rect,
               const union pipe_color_union *color, double depth,
               unsigned stencil)
{
   uint64_t fb = vlg_batch_upload(&ctx->batch, fb_words,
                                  VLG_FRAMEBUFFER_LENGTH * 4, 16);
   if (!fb)
      return false;

   struct VLG_DRAW_INFO di;
   VLG_DRAW_INFO_init(&di);
   di.kind = VLG_DRAW_KIND_CLEAR;
   di.prim = VLG_PRIM_POINTS;
   di.vertices_per_prim = 1;
   di.clear_buffers = buffers & (PIPE_CLEAR_DEPTHSTENCIL | PIPE_CLEAR_COLOR);
   for (unsigned i = 0; i < 4; i++)
      di.clear_color[i] = color ? color->ui[i] : 0;
   di.clear_depth = depth;
   di.clear_stencil = stencil & 0xff;
   di.clear_rect = *rect;
   di.framebuffer = fb;

   if (!vlg_emit_fixed_draw(ctx, &di))
      return false;
   vlg_add_framebuffer_bos(ctx, surfaces, num_surfaces);
   return true;
}

bool
vlg_emit_fixed_draw(struct vlg_context *ctx, const struct VLG_DRAW_INFO *di)
{
   uint64_t address;
   uint32_t *w = vlg_batch_alloc(&ctx->batch, VLG_DRAW_INFO_LENGTH * 4, 64,
                                 &address);
   if (!w)
      return false;
   VLG_DRAW_INFO_pack(w, di);
   vlg_emit_draw_command(ctx, address);

   struct vlg_draw_record rec = {.kind = di->kind};
   vlg_batch_record_draw(&ctx->batch, &rec);
   return true;
}

void
vlg_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = vlg_draw_vbo;
   vlg_init_so_functions(pctx);
}
