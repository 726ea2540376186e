/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The emission layer (as v3d's v3dx_emit.c): every block of the per-draw
 * and per-dispatch packages that more than one kind of GPU work writes
 * (docs/hw.md "The per-draw package", "Compute"), used by draw_vbo
 * (vlg_draw.c), launch_grid (vlg_compute.c) and clears and resolves
 * (vlg_blit.c), none of which calls another:
 *   pipe_state       the CSOs' pre-packed words + viewport, scissor, clip,
 *                    stencil_ref, blend_color, sample_mask
 *   shader_state     binary address, I/O maps, the global-buffer image (the
 *                    compiler's constants, the uniforms copied from
 *                    constant buffer 0, the driver uniforms of shader
 *                    buffers and images) and the LDB buffer slots
 *   texture[]/sampler[] of one stage
 *   draw_info + DRAW of draws without the vertex/fragment pipeline (CLEAR,
 *                    RESOLVE), and the DRAW command itself.
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "util/u_viewport.h"

#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_emit.h"
#include "vlg_program.h"
#include "vlg_resource.h"

/* pipe_state sub-blocks, back to back in XML order (docs/hw.md
 * "The per-draw package"); vlg_emit_check_layout() verifies the offsets
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
vlg_emit_check_layout(void)
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

bool
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

/* Driver uniforms of shader buffer @i of @stage: (address, size, 0, 0). */
static void
vlg_ssbo_uniforms(struct vlg_context *ctx, enum pipe_shader_type stage,
                  unsigned i, uint32_t *du)
{
   const struct pipe_shader_buffer *sb = &ctx->ssbo[stage][i];

   if (!(ctx->ssbo_mask[stage] & BITFIELD_BIT(i)) || !sb->buffer)
      return;
   struct vlg_resource *rsc = vlg_resource(sb->buffer);
   if (sb->buffer_offset >= rsc->size)
      return;
   const uint64_t address = rsc->bo->address + sb->buffer_offset;
   /* MEM takes 32-bit byte addresses (docs/isa.md) */
   if (address + sb->buffer_size > UINT32_MAX) {
      mesa_loge("vlgpu: shader buffer above 4 GiB of VRAM (MEM addresses are "
                "32-bit)");
      return;
   }
   du[0] = (uint32_t)address;
   du[1] = MIN2(sb->buffer_size, rsc->size - sb->buffer_offset);
   vlg_batch_add_bo(&ctx->batch, rsc->bo);
}

/* Driver uniforms of image unit @i: (address of texel (0,0) of the first
 * layer of the bound level, row pitch, layer stride, 0), (width, height,
 * depth or layers, 0) -- docs/compiler.md "Compute shaders". */
static void
vlg_image_uniforms(struct vlg_context *ctx, enum pipe_shader_type stage,
                   unsigned i, uint32_t *du)
{
   const struct pipe_image_view *view = &ctx->images[stage][i];

   if (!(ctx->image_mask[stage] & BITFIELD_BIT(i)) || !view->resource)
      return;
   struct pipe_resource *prsc = view->resource;
   struct vlg_resource *rsc = vlg_resource(prsc);
   if (prsc->target == PIPE_BUFFER || prsc->nr_samples > 1) {
      /* image buffers and multisample images are not in GL ES 3.1 */
      mesa_logw_once("vlgpu: buffer and multisample images are not "
                     "supported; image unit reads 0");
      return;
   }
   /* layers first_layer..last_layer of the level: array layers, cube faces
    * or 3D slices (a non-layered binding is one of them); layer_stride is
    * the distance of all three (docs/hw.md "struct texture_level") */
   const unsigned level = view->u.tex.level;
   const unsigned layers = view->u.tex.last_layer - view->u.tex.first_layer + 1;
   const uint64_t address =
      rsc->bo->address +
      vlg_resource_offset(rsc, level, view->u.tex.first_layer);
   if (address + (uint64_t)layers * rsc->layer_stride[level] > UINT32_MAX) {
      mesa_loge("vlgpu: image above 4 GiB of VRAM (MEM addresses are 32-bit)");
      return;
   }
   /* the shader lays texels out by the view's format (its layout
    * qualifier); GL ES 3.1 §8.22 requires the same texel size as the
    * texture's (format compatibility by size) */
   if (util_format_get_blocksize(view->format) !=
       util_format_get_blocksize(prsc->format))
      mesa_logw_once("vlgpu: image view format %s on a %s texture: texel sizes "
                     "differ, image access reads and writes the wrong bytes",
                     util_format_short_name(view->format),
                     util_format_short_name(prsc->format));
   du[0] = (uint32_t)address;
   du[1] = rsc->stride[level];
   du[2] = rsc->layer_stride[level];
   du[4] = u_minify(prsc->width0, level);
   du[5] = u_minify(prsc->height0, level);
   du[6] = layers;
   vlg_batch_add_bo(&ctx->batch, rsc->bo);
}

/* Driver uniforms of the shader buffers and images @cs reads, for @stage. */
void
vlg_memory_uniforms(struct vlg_context *ctx, enum pipe_shader_type stage,
                    const struct vlg_compiled_shader *cs, uint32_t *du)
{
   u_foreach_bit (i, cs->ssbos_used & BITFIELD_MASK(VLG_MAX_SHADER_BUFFERS))
      vlg_ssbo_uniforms(ctx, stage, i, &du[(VLG_DU_SSBO + i) * 4]);
   u_foreach_bit (i, cs->images_used & BITFIELD_MASK(VLG_MAX_SHADER_IMAGES))
      vlg_image_uniforms(ctx, stage, i, &du[(VLG_DU_IMAGE + 2 * i) * 4]);
}

const uint32_t *
vlg_graphics_driver_uniforms(struct vlg_context *ctx,
                             const struct vlg_shader_state *so, uint32_t *du)
{
   if (!so || !so->cs || !(so->cs->ssbos_used | so->cs->images_used))
      return NULL;
   memset(du, 0, VLG_DU_SLOTS * 16);
   vlg_memory_uniforms(ctx, so->stage, so->cs, du);
   return du;
}

void
vlg_emit_framebuffer_bos(struct vlg_context *ctx,
                        struct pipe_surface *const *surfaces, unsigned n)
{
   for (unsigned i = 0; i < n; i++) {
      if (surfaces[i])
         vlg_batch_add_bo(&ctx->batch,
                          vlg_resource(surfaces[i]->texture)->bo);
   }
}

void
vlg_emit_draw_command(struct vlg_context *ctx, uint64_t draw_info)
{
   struct VLG_CMD_DRAW cmd;
   uint32_t dw[VLG_CMD_DRAW_LENGTH];

   VLG_CMD_DRAW_init(&cmd);
   cmd.draw_info = draw_info;
   VLG_CMD_DRAW_pack(dw, &cmd);
   vlg_batch_emit(&ctx->batch, dw, VLG_CMD_DRAW_LENGTH);
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
   vlg_emit_framebuffer_bos(ctx, surfaces, num_surfaces);
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
