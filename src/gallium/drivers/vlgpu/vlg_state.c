/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Constant state objects and the set_* functions: Gallium state becomes
 * the hardware words of docs/hw.md when it is created or set (brief §1,
 * seed 001 §3.2: rasterizer, viewport, scissor and clip for the PE; alpha,
 * depth, stencil and blend for the OMU; texture and sampler descriptors;
 * vertex elements; the framebuffer).  draw_vbo (vlg_draw.c) only copies
 * these words into the draw's package.
 *
 * vlgpu_hw.xml keeps Gallium's enum values where Gallium has the concept,
 * so most fields are casts; the static asserts below hold the two
 * definitions together.  The shape follows v3d_state.c and lima_state.c.
 */

#include "compiler/shader_enums.h"
#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_framebuffer.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_format.h"
#include "vlg_program.h"
#include "vlg_resource.h"

/* Enums whose values docs/hw.md says are Gallium's (compared as ints: they
 * are different C enum types). */
#define VLG_SAME(a, b) ((int)(a) == (int)(b))
static_assert(VLG_SAME(VLG_PRIM_TRIANGLE_FAN, PIPE_PRIM_TRIANGLE_FAN), "prim");
static_assert(VLG_SAME(VLG_FACE_FRONT_AND_BACK, PIPE_FACE_FRONT_AND_BACK), "face");
static_assert(VLG_SAME(VLG_POLYGON_MODE_POINT, PIPE_POLYGON_MODE_POINT), "polygon");
static_assert(VLG_SAME(VLG_SPRITE_COORD_MODE_LOWER_LEFT, PIPE_SPRITE_COORD_LOWER_LEFT),
              "sprite_coord_mode");
static_assert(VLG_SAME(VLG_COMPARE_FUNC_LESS, PIPE_FUNC_LESS) &&
              VLG_SAME(VLG_COMPARE_FUNC_ALWAYS, PIPE_FUNC_ALWAYS), "compare_func");
static_assert(VLG_SAME(VLG_STENCIL_OP_INCR_WRAP, PIPE_STENCIL_OP_INCR_WRAP) &&
              VLG_SAME(VLG_STENCIL_OP_INVERT, PIPE_STENCIL_OP_INVERT), "stencil_op");
static_assert(VLG_SAME(VLG_BLEND_FUNC_REVERSE_SUBTRACT, PIPE_BLEND_REVERSE_SUBTRACT) &&
              VLG_SAME(VLG_BLEND_FUNC_MAX, PIPE_BLEND_MAX), "blend_func");
static_assert(VLG_SAME(VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE, PIPE_BLENDFACTOR_SRC_ALPHA_SATURATE) &&
              VLG_SAME(VLG_BLEND_FACTOR_CONST_ALPHA, PIPE_BLENDFACTOR_CONST_ALPHA) &&
              VLG_SAME(VLG_BLEND_FACTOR_ZERO, PIPE_BLENDFACTOR_ZERO) &&
              VLG_SAME(VLG_BLEND_FACTOR_INV_CONST_ALPHA, PIPE_BLENDFACTOR_INV_CONST_ALPHA) &&
              VLG_SAME(VLG_BLEND_FACTOR_INV_SRC1_ALPHA, PIPE_BLENDFACTOR_INV_SRC1_ALPHA), "blend_factor");
static_assert(VLG_SAME(VLG_LOGICOP_SET, PIPE_LOGICOP_SET), "logicop");
static_assert(VLG_SAME(VLG_TEX_WRAP_MIRROR_CLAMP_TO_BORDER, PIPE_TEX_WRAP_MIRROR_CLAMP_TO_BORDER), "tex_wrap");
static_assert(VLG_SAME(VLG_TEX_FILTER_LINEAR, PIPE_TEX_FILTER_LINEAR), "tex_filter");
static_assert(VLG_SAME(VLG_MIP_FILTER_NONE, PIPE_TEX_MIPFILTER_NONE), "mip_filter");
static_assert(VLG_SAME(VLG_COMPARE_MODE_R_TO_TEXTURE, PIPE_TEX_COMPARE_R_TO_TEXTURE),
              "compare_mode");
static_assert(VLG_SAME(VLG_SWIZZLE_ONE, PIPE_SWIZZLE_1), "swizzle");
static_assert(VLG_SAME(VLG_TEXTURE_TARGET_2D_ARRAY, PIPE_TEXTURE_2D_ARRAY) &&
              VLG_SAME(VLG_TEXTURE_TARGET_CUBE, PIPE_TEXTURE_CUBE) &&
              VLG_SAME(VLG_TEXTURE_TARGET_CUBE_ARRAY, PIPE_TEXTURE_CUBE_ARRAY),
              "texture_target");
static_assert(PIPE_CLEAR_DEPTH == 1 && PIPE_CLEAR_STENCIL == 2 &&
              PIPE_CLEAR_COLOR0 == 4, "draw_info.clear_buffers layout");

/*
 * Blend (OMU).
 */

static void *
vlg_create_blend_state(struct pipe_context *pctx,
                       const struct pipe_blend_state *cso)
{
   struct vlg_blend_state *so = CALLOC_STRUCT(vlg_blend_state);

   if (!so)
      return NULL;
   so->base = *cso;

   struct VLG_BLEND b;
   VLG_BLEND_init(&b);
   b.independent_blend_enable = cso->independent_blend_enable;
   /* glLogicOp (desktop GL): the OMU combines the packed colour with the
    * destination (docs/hw.md "Logic ops"); it replaces blending. */
   b.logicop_enable = cso->logicop_enable;
   b.logicop_func = (enum vlg_logicop)cso->logicop_func;
   b.dither = cso->dither;
   for (unsigned i = 0; i < VLG_HW_MAX_COLOR_BUFS; i++) {
      const struct pipe_rt_blend_state *rt = &cso->rt[i];
      struct VLG_BLEND_RT *hw = &b.rt[i];

      hw->colormask = rt->colormask;
      /* Gallium leaves the factors of a disabled blend undefined (st/mesa
       * writes 0, which is no factor): keep the defaults VLG_BLEND_init
       * wrote, vlgpu_hw.xml's (ADD, ONE, ZERO). */
      if (!rt->blend_enable)
         continue;
      hw->blend_enable = true;
      hw->rgb_func = (enum vlg_blend_func)rt->rgb_func;
      hw->rgb_src_factor = (enum vlg_blend_factor)rt->rgb_src_factor;
      hw->rgb_dst_factor = (enum vlg_blend_factor)rt->rgb_dst_factor;
      hw->alpha_func = (enum vlg_blend_func)rt->alpha_func;
      hw->alpha_src_factor = (enum vlg_blend_factor)rt->alpha_src_factor;
      hw->alpha_dst_factor = (enum vlg_blend_factor)rt->alpha_dst_factor;
   }
   VLG_BLEND_pack(so->words, &b);
   return so;
}

static void
vlg_bind_blend_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->blend = hwcso;
}

/*
 * Depth, stencil, alpha (OMU).
 */

static void *
vlg_create_dsa_state(struct pipe_context *pctx,
                     const struct pipe_depth_stencil_alpha_state *cso)
{
   struct vlg_depth_stencil_alpha_state *so =
      CALLOC_STRUCT(vlg_depth_stencil_alpha_state);

   if (!so)
      return NULL;
   so->base = *cso;

   struct VLG_DEPTH_STENCIL_ALPHA d;
   VLG_DEPTH_STENCIL_ALPHA_init(&d);
   d.depth_enable = cso->depth_enabled;
   d.depth_writemask = cso->depth_enabled && cso->depth_writemask;
   d.depth_func = (enum vlg_compare_func)cso->depth_func;
   d.alpha_enable = cso->alpha_enabled;
   d.alpha_func = (enum vlg_compare_func)cso->alpha_func;
   d.alpha_ref = cso->alpha_ref_value;
   for (unsigned i = 0; i < 2; i++) {
      const struct pipe_stencil_state *s = &cso->stencil[i];

      d.stencil[i].enabled = s->enabled;
      d.stencil[i].func = (enum vlg_compare_func)s->func;
      d.stencil[i].fail_op = (enum vlg_stencil_op)s->fail_op;
      d.stencil[i].zfail_op = (enum vlg_stencil_op)s->zfail_op;
      d.stencil[i].zpass_op = (enum vlg_stencil_op)s->zpass_op;
      d.stencil[i].valuemask = s->valuemask;
      d.stencil[i].writemask = s->writemask;
   }
   /* depth_bounds_test is desktop GL (EXT_depth_bounds_test), not
    * advertised. */
   VLG_DEPTH_STENCIL_ALPHA_pack(so->words, &d);
   return so;
}

static void
vlg_bind_dsa_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->dsa = hwcso;
}

/*
 * Rasterizer (PE).
 */

static void *
vlg_create_rasterizer_state(struct pipe_context *pctx,
                            const struct pipe_rasterizer_state *cso)
{
   struct vlg_rasterizer_state *so = CALLOC_STRUCT(vlg_rasterizer_state);

   if (!so)
      return NULL;
   so->base = *cso;

   struct VLG_RASTERIZER r;
   VLG_RASTERIZER_init(&r);
   r.front_ccw = cso->front_ccw;
   r.cull_face = (enum vlg_face)cso->cull_face;
   /* glPolygonMode (desktop GL): the PE draws the boundary edges or vertices
    * of LINE/POINT polygons (docs/hw.md "Polygon modes") */
   r.fill_front = (enum vlg_polygon_mode)cso->fill_front;
   r.fill_back = (enum vlg_polygon_mode)cso->fill_back;
   r.flatshade = cso->flatshade;
   r.flatshade_first = cso->flatshade_first;
   r.point_size_per_vertex = cso->point_size_per_vertex;
   r.sprite_coord_mode = (enum vlg_sprite_coord_mode)cso->sprite_coord_mode;
   r.point_quad_rasterization = cso->point_quad_rasterization;
   r.scissor_enable = cso->scissor;
   r.depth_clip_near = cso->depth_clip_near;
   r.depth_clip_far = cso->depth_clip_far;
   r.half_pixel_center = cso->half_pixel_center;
   r.bottom_edge_rule = cso->bottom_edge_rule;
   r.offset_point = cso->offset_point;
   r.offset_line = cso->offset_line;
   r.offset_tri = cso->offset_tri;
   r.rasterizer_discard = cso->rasterizer_discard;
   r.multisample = cso->multisample; /* used with 4-sample framebuffers */
   r.clip_halfz = cso->clip_halfz;
   r.clip_plane_enable = cso->clip_plane_enable & 0xff;
   /* GL_COORD_REPLACE point sprites (GL ES 1, desktop GL): with
    * PIPE_CAP_TGSI_TEXCOORD bit i of sprite_coord_enable is texture
    * coordinate i (VARYING_SLOT_TEX0 + i); the PE replaces the fragment
    * input VARYING n of the compiler's number n for that slot.  GL ES 2+
    * reads gl_PointCoord, the compiler's POINT_COORD input instead. */
   r.sprite_coord_enable = 0;
   u_foreach_bit(i, cso->sprite_coord_enable & 0xff) {
      const int n = vlg_varying_index(VARYING_SLOT_TEX0 + i);
      if (n >= 0)
         r.sprite_coord_enable |= 1u << n;
   }
   r.point_size = cso->point_size;
   r.line_width = cso->line_width;
   r.offset_units = cso->offset_units;
   r.offset_scale = cso->offset_scale;
   r.offset_clamp = cso->offset_clamp;
   VLG_RASTERIZER_pack(so->words, &r);
   return so;
}

static void
vlg_bind_rasterizer_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->rasterizer = hwcso;
}

/*
 * Samplers: sampler descriptors (texture unit).
 */

static void *
vlg_create_sampler_state(struct pipe_context *pctx,
                         const struct pipe_sampler_state *cso)
{
   struct vlg_sampler_state *so = CALLOC_STRUCT(vlg_sampler_state);

   if (!so)
      return NULL;
   so->base = *cso;

   struct VLG_SAMPLER s;
   VLG_SAMPLER_init(&s);
   s.wrap_s = (enum vlg_tex_wrap)cso->wrap_s;
   s.wrap_t = (enum vlg_tex_wrap)cso->wrap_t;
   s.wrap_r = (enum vlg_tex_wrap)cso->wrap_r;
   s.min_img_filter = (enum vlg_tex_filter)cso->min_img_filter;
   s.mag_img_filter = (enum vlg_tex_filter)cso->mag_img_filter;
   s.min_mip_filter = (enum vlg_mip_filter)cso->min_mip_filter;
   s.compare_mode = (enum vlg_compare_mode)cso->compare_mode;
   s.compare_func = (enum vlg_compare_func)cso->compare_func;
   s.seamless_cube_map = cso->seamless_cube_map;
   s.normalized_coords = !cso->unnormalized_coords;
   s.lod_bias = cso->lod_bias;
   s.min_lod = cso->min_lod;
   s.max_lod = cso->max_lod;
   /* Raw words: float bits, or int32/uint32 for integer textures. */
   for (unsigned i = 0; i < 4; i++)
      memcpy(&s.border_color[i], &cso->border_color.ui[i], 4);
   VLG_SAMPLER_pack(so->words, &s);
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
}

/* One delete for every CSO that is a plain malloc'ed copy. */
static void
vlg_delete_state(struct pipe_context *pctx, void *hwcso)
{
   FREE(hwcso);
}

/*
 * Vertex elements (GE).
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

   for (unsigned i = 0; i < count; i++) {
      struct VLG_VERTEX_ELEMENT e;
      VLG_VERTEX_ELEMENT_init(&e);
      e.src_offset = elements[i].src_offset;
      e.vertex_buffer_index = elements[i].vertex_buffer_index;
      /* u_vbuf translates the formats is_format_supported refuses. */
      e.format = (enum vlg_format)vlg_format_from_pipe(elements[i].src_format);
      assert(vlg_format_usage(e.format) & VLG_FORMAT_USAGE_VERTEX);
      e.instance_divisor = elements[i].instance_divisor;
      VLG_VERTEX_ELEMENT_pack(so->words[i], &e);
   }
   return so;
}

static void
vlg_bind_vertex_elements_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->vertex_elements = hwcso;
}

/*
 * Shaders (created in vlg_program.c).
 */

static void
vlg_bind_vs_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->vs = hwcso;
}

static void
vlg_bind_fs_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->fs = hwcso;
}

static void
vlg_bind_gs_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->gs = hwcso;
}

/*
 * Sampler views: texture descriptors.
 */

static enum vlg_texture_target
vlg_texture_target(enum pipe_texture_target target, bool *ok)
{
   *ok = true;
   switch (target) {
   case PIPE_TEXTURE_1D:
      return VLG_TEXTURE_TARGET_1D;
   case PIPE_TEXTURE_2D:
   case PIPE_TEXTURE_RECT: /* sampled in texels: the sampler's normalized_coords is false */
      return VLG_TEXTURE_TARGET_2D;
   case PIPE_TEXTURE_3D:
      return VLG_TEXTURE_TARGET_3D;
   case PIPE_TEXTURE_CUBE:
      return VLG_TEXTURE_TARGET_CUBE;
   case PIPE_TEXTURE_1D_ARRAY:
      return VLG_TEXTURE_TARGET_1D_ARRAY;
   case PIPE_TEXTURE_2D_ARRAY:
      return VLG_TEXTURE_TARGET_2D_ARRAY;
   case PIPE_TEXTURE_CUBE_ARRAY:
      return VLG_TEXTURE_TARGET_CUBE_ARRAY;
   default: /* BUFFER: handled by the caller */
      *ok = false;
      return VLG_TEXTURE_TARGET_2D;
   }
}

/* Texel buffers of the legacy one- and two-channel formats (GL_ALPHA16,
 * GL_LUMINANCE8_ALPHA8, GL_INTENSITY32F... of ARB_texture_buffer_object in
 * compatibility contexts) have no format of their own in the texture unit:
 * read the red (red-green) format whose channels are stored the same way
 * and move them with the swizzle of the legacy format's description.
 * Returns PIPE_FORMAT_NONE when there is none. */
static enum pipe_format
vlg_texel_buffer_equivalent(enum pipe_format format, unsigned char swizzle[4])
{
   const struct util_format_description *d = util_format_description(format);

   if (!d || d->layout != UTIL_FORMAT_LAYOUT_PLAIN || d->nr_channels > 2)
      return PIPE_FORMAT_NONE;
   for (unsigned c = 1; c < PIPE_FORMAT_COUNT; c++) {
      const struct util_format_description *e =
         util_format_description((enum pipe_format)c);
      if (!e || e->layout != UTIL_FORMAT_LAYOUT_PLAIN ||
          e->nr_channels != d->nr_channels ||
          e->block.bits != d->block.bits ||
          e->colorspace != d->colorspace)
         continue;
      bool same = true;
      for (unsigned i = 0; i < d->nr_channels; i++) {
         same &= memcmp(&e->channel[i], &d->channel[i],
                        sizeof(d->channel[i])) == 0 &&
                 e->swizzle[i] == PIPE_SWIZZLE_X + i;
      }
      if (!same || !(vlg_format_usage(vlg_format_from_pipe(c)) &
                     VLG_FORMAT_USAGE_TEX))
         continue;
      memcpy(swizzle, d->swizzle, 4);
      return (enum pipe_format)c;
   }
   return PIPE_FORMAT_NONE;
}

/* The texture descriptor's swizzle: PIPE_SWIZZLE_* values, which are
 * vlgpu_hw.xml's (static assert above). */
static void
vlg_texture_swizzle(struct VLG_TEXTURE *t, const unsigned char swizzle[4])
{
   t->swizzle_r = (enum vlg_swizzle)swizzle[0];
   t->swizzle_g = (enum vlg_swizzle)swizzle[1];
   t->swizzle_b = (enum vlg_swizzle)swizzle[2];
   t->swizzle_a = (enum vlg_swizzle)swizzle[3];
}

static struct pipe_sampler_view *
vlg_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *prsc,
                        const struct pipe_sampler_view *tmpl)
{
   struct vlg_sampler_view *so = CALLOC_STRUCT(vlg_sampler_view);

   if (!so)
      return NULL;

   struct pipe_sampler_view *view = &so->base;
   *view = *tmpl;
   view->texture = NULL;
   pipe_resource_reference(&view->texture, prsc);
   pipe_reference_init(&view->reference, 1);
   view->context = pctx;

   struct vlg_resource *rsc = vlg_resource(prsc);
   struct VLG_TEXTURE t;
   bool target_ok;
   const unsigned char view_swizzle[4] = {tmpl->swizzle_r, tmpl->swizzle_g, tmpl->swizzle_b,
                                          tmpl->swizzle_a};
   VLG_TEXTURE_init(&t);

   if (prsc->target == PIPE_BUFFER) {
      /* Texel buffer (GL 3.1 ARB_texture_buffer_object): the texture
       * unit's BUFFER target reads width | height << 16 texels from
       * address + level[0].offset (docs/hw.md texture_target). */
      t.target = VLG_TEXTURE_TARGET_BUFFER;
      t.format = (enum vlg_format)vlg_format_from_pipe(tmpl->format);
      unsigned char swizzle[4] = {PIPE_SWIZZLE_X, PIPE_SWIZZLE_Y,
                                  PIPE_SWIZZLE_Z, PIPE_SWIZZLE_W};
      if (!(vlg_format_usage(t.format) & VLG_FORMAT_USAGE_TEX)) {
         const enum pipe_format eq =
            vlg_texel_buffer_equivalent(tmpl->format, swizzle);
         if (eq != PIPE_FORMAT_NONE)
            t.format = (enum vlg_format)vlg_format_from_pipe(eq);
      }
      unsigned char final_swizzle[4];
      util_format_compose_swizzles(swizzle, view_swizzle, final_swizzle);
      if (!(vlg_format_usage(t.format) & VLG_FORMAT_USAGE_TEX)) {
         mesa_logw("the GPU cannot read %s texel buffers; the unit reads "
                   "(0, 0, 0, 1)", util_format_short_name(tmpl->format));
         return view;
      }
      const unsigned bpp = vlg_format_bytes(t.format);
      const unsigned offset = MIN2(tmpl->u.buf.offset, prsc->width0);
      const unsigned texels =
         MIN2(MIN2(tmpl->u.buf.size, prsc->width0 - offset) / bpp,
              VLG_HW_MAX_BUFFER_TEXELS);
      t.width = texels & 0xffff;
      t.height = texels >> 16;
      t.depth = t.array_size = t.num_levels = 1;
      t.address = 0; /* + the buffer's address when a draw packs it */
      t.level[0].offset = offset;
      t.level[0].row_pitch = texels * bpp;
      vlg_texture_swizzle(&t, final_swizzle);
      VLG_TEXTURE_pack(so->words, &t);
      so->valid = so->buffer = true;
      return view;
   }

   t.target = vlg_texture_target(tmpl->target, &target_ok);
   t.format = (enum vlg_format)vlg_format_from_pipe(tmpl->format);
   if (!target_ok || !(vlg_format_usage(t.format) & VLG_FORMAT_USAGE_TEX)) {
      mesa_logw("the GPU cannot sample %s textures of target %u; the unit "
                "reads (0, 0, 0, 1)", util_format_short_name(tmpl->format),
                tmpl->target);
      return view;
   }
   t.srgb = util_format_is_srgb(tmpl->format);
   vlg_texture_swizzle(&t, view_swizzle);
   /* A 4-sample resource keeps the samples of a pixel side by side (docs/hw.md
    * "Multisampling"): its view is a 2D texture 4 times as wide, sample s of
    * pixel x being texel 4x + s; the compiler turns texelFetch(sampler2DMS)
    * into TXF there and divides textureSize's x by 4 (vlg_nir.cpp
    * lower_ms_tex). */
   t.width = prsc->width0 * MAX2(prsc->nr_samples, 1);
   t.height = tmpl->target == PIPE_TEXTURE_1D ||
                    tmpl->target == PIPE_TEXTURE_1D_ARRAY
                 ? 1 : prsc->height0;
   t.depth = tmpl->target == PIPE_TEXTURE_3D ? prsc->depth0 : 1;

   /* The descriptor has no first layer: a view of a layer range starts at
    * its first layer in every level. */
   unsigned first_layer = 0;
   switch (tmpl->target) {
   case PIPE_TEXTURE_CUBE:
      t.array_size = 6;
      first_layer = tmpl->u.tex.first_layer;
      break;
   case PIPE_TEXTURE_1D_ARRAY:
   case PIPE_TEXTURE_2D_ARRAY:
   case PIPE_TEXTURE_CUBE_ARRAY: /* 6 x cubes layer-faces (st/mesa) */
      t.array_size = tmpl->u.tex.last_layer - tmpl->u.tex.first_layer + 1;
      first_layer = tmpl->u.tex.first_layer;
      break;
   case PIPE_TEXTURE_3D:
      t.array_size = 1;
      break;
   default:
      t.array_size = 1;
      first_layer = tmpl->u.tex.first_layer;
      break;
   }

   t.num_levels = prsc->last_level + 1;
   t.first_level = tmpl->u.tex.first_level;
   t.last_level = MIN2(tmpl->u.tex.last_level, prsc->last_level);
   t.address = rsc->bo->address;
   for (unsigned l = 0; l <= prsc->last_level; l++) {
      t.level[l].offset = vlg_resource_offset(rsc, l, first_layer);
      t.level[l].row_pitch = rsc->stride[l];
      t.level[l].layer_stride = rsc->layer_stride[l];
   }
   VLG_TEXTURE_pack(so->words, &t);
   so->valid = true;
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
}

/*
 * Non-CSO state, packed when set.
 */

static void
vlg_set_blend_color(struct pipe_context *pctx,
                    const struct pipe_blend_color *color)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct VLG_BLEND_COLOR c;

   ctx->blend_color = *color;
   VLG_BLEND_COLOR_init(&c);
   c.r = color->color[0];
   c.g = color->color[1];
   c.b = color->color[2];
   c.a = color->color[3];
   VLG_BLEND_COLOR_pack(ctx->blend_color_words, &c);
}

static void
vlg_set_stencil_ref(struct pipe_context *pctx, const struct pipe_stencil_ref ref)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct VLG_STENCIL_REF r;

   ctx->stencil_ref = ref;
   VLG_STENCIL_REF_init(&r);
   r.ref_value[0] = ref.ref_value[0];
   r.ref_value[1] = ref.ref_value[1];
   VLG_STENCIL_REF_pack(ctx->stencil_ref_words, &r);
}

static void
vlg_set_clip_state(struct pipe_context *pctx,
                   const struct pipe_clip_state *clip)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct VLG_CLIP c;

   ctx->clip = *clip;
   VLG_CLIP_init(&c);
   for (unsigned i = 0; i < 8; i++) {
      c.plane[i].a = clip->ucp[i][0];
      c.plane[i].b = clip->ucp[i][1];
      c.plane[i].c = clip->ucp[i][2];
      c.plane[i].d = clip->ucp[i][3];
   }
   VLG_CLIP_pack(ctx->clip_words, &c);
}

static void
vlg_set_polygon_stipple(struct pipe_context *pctx,
                        const struct pipe_poly_stipple *stipple)
{
   /* Desktop GL only; not in the hardware words (and not advertised by
    * any extension GL ES uses). */
   vlg_context(pctx)->stipple = *stipple;
}

static void
vlg_set_sample_mask(struct pipe_context *pctx, unsigned sample_mask)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct VLG_SAMPLE_MASK m;

   ctx->sample_mask = sample_mask;
   VLG_SAMPLE_MASK_init(&m);
   m.mask = sample_mask;
   VLG_SAMPLE_MASK_pack(ctx->sample_mask_words, &m);
}

static void
vlg_set_scissor_states(struct pipe_context *pctx, unsigned start_slot,
                       unsigned num_scissors,
                       const struct pipe_scissor_state *scissors)
{
   struct vlg_context *ctx = vlg_context(pctx);
   struct VLG_SCISSOR s;

   /* PIPE_CAP_MAX_VIEWPORTS is 1. */
   assert(start_slot == 0 && num_scissors >= 1);
   ctx->scissor = scissors[0];
   VLG_SCISSOR_init(&s);
   s.minx = MIN2(scissors[0].minx, 0xffff);
   s.miny = MIN2(scissors[0].miny, 0xffff);
   s.maxx = MIN2(scissors[0].maxx, 0xffff);
   s.maxy = MIN2(scissors[0].maxy, 0xffff);
   VLG_SCISSOR_pack(ctx->scissor_words, &s);
}

static void
vlg_set_viewport_states(struct pipe_context *pctx, unsigned start_slot,
                        unsigned num_viewports,
                        const struct pipe_viewport_state *viewports)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* Packed per draw: the depth range depends on rasterizer.clip_halfz. */
   assert(start_slot == 0 && num_viewports >= 1);
   ctx->viewport = viewports[0];
}

void
vlg_pack_framebuffer(const struct pipe_framebuffer_state *fb, uint32_t *words)
{
   struct VLG_FRAMEBUFFER f;

   VLG_FRAMEBUFFER_init(&f);
   f.width = MIN2(fb->width, 0xffff);
   f.height = MIN2(fb->height, 0xffff);
   f.nr_cbufs = MIN2(fb->nr_cbufs, VLG_HW_MAX_COLOR_BUFS);
   /* 1 or 4 (is_format_supported admits no other counts); GL ES 3.0
    * §4.4.4: every attachment of a complete framebuffer has as many */
   f.samples = MAX2(util_framebuffer_get_num_samples(fb), 1);
   for (unsigned i = 0; i < f.nr_cbufs; i++) {
      if (fb->cbufs[i]) {
         f.cbufs[i] = vlg_surface(fb->cbufs[i])->desc;
         if (!f.cbufs[i].format)
            mesa_logw_once("the GPU cannot render to %s: colour buffer "
                           "left unchanged",
                           util_format_short_name(fb->cbufs[i]->format));
      }
   }
   if (fb->zsbuf) {
      f.zsbuf = vlg_surface(fb->zsbuf)->desc;
      if (!f.zsbuf.format)
         mesa_logw_once("the GPU cannot use %s as depth/stencil buffer",
                        util_format_short_name(fb->zsbuf->format));
   }
   VLG_FRAMEBUFFER_pack(words, &f);
}

/* Sample positions (docs/hw.md "Multisampling"): the D3D10 4x pattern of
 * llvmpipe (lp_sample_pos_4x), pixel units from the top-left corner; the
 * pixel centre for one sample. */
static void
vlg_get_sample_position(struct pipe_context *pctx, unsigned sample_count,
                        unsigned sample_index, float *out_value)
{
   static const float pos4[4][2] = {
      {0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};

   if (sample_count == 4 && sample_index < 4) {
      out_value[0] = pos4[sample_index][0];
      out_value[1] = pos4[sample_index][1];
   } else {
      out_value[0] = out_value[1] = 0.5f;
   }
}

static void
vlg_set_framebuffer_state(struct pipe_context *pctx,
                          const struct pipe_framebuffer_state *fb)
{
   struct vlg_context *ctx = vlg_context(pctx);

   util_copy_framebuffer_state(&ctx->framebuffer, fb);
   vlg_pack_framebuffer(fb, ctx->fb_words);
}

static void
vlg_set_vertex_buffers(struct pipe_context *pctx, unsigned start_slot,
                       unsigned count, unsigned unbind_num_trailing_slots,
                       bool take_ownership,
                       const struct pipe_vertex_buffer *buffers)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* Addresses are taken at draw time: a buffer may get a new BO
    * (vlg_resource.c renaming). */
   util_set_vertex_buffers_mask(ctx->vertex_buffers, &ctx->vertex_buffers_mask,
                                buffers, start_slot, count,
                                unbind_num_trailing_slots, take_ownership);
}

static void
vlg_set_constant_buffer(struct pipe_context *pctx, enum pipe_shader_type shader,
                        uint index, bool take_ownership,
                        const struct pipe_constant_buffer *cb)
{
   struct vlg_context *ctx = vlg_context(pctx);

   /* Uniform blocks: constant buffer i >= 1 goes to LDB slot Bi when a
    * shader using it is drawn (vlg_draw.c). */
   if (index != 0) {
      if (index < VLG_NUM_BUFFERS) {
         util_copy_constant_buffer(&ctx->stage[shader].ubo[index], cb,
                                   take_ownership);
      } else if (cb && take_ownership) {
         pipe_resource_reference((struct pipe_resource **)&cb->buffer, NULL);
      }
      return;
   }

   /* A user_buffer stays valid until the next set_constant_buffer
    * (st/mesa's parameter storage); draw_vbo copies what the shaders read
    * into their global-buffer images right away. */
   util_copy_constant_buffer(&ctx->stage[shader].constbuf, cb, take_ownership);
}

void
vlg_state_init(struct vlg_context *ctx)
{
   struct pipe_context *pctx = &ctx->base;
   struct pipe_blend_color bc = {{0}};
   struct pipe_stencil_ref sr = {{0}};
   struct pipe_clip_state clip;
   struct pipe_scissor_state sc = {0, 0, 0xffff, 0xffff};
   memset(&clip, 0, sizeof(clip));
   vlg_set_blend_color(pctx, &bc);
   vlg_set_stencil_ref(pctx, sr);
   vlg_set_clip_state(pctx, &clip);
   vlg_set_sample_mask(pctx, ~0u);
   vlg_set_scissor_states(pctx, 0, 1, &sc);
}

void
vlg_state_cleanup(struct vlg_context *ctx)
{
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++) {
      struct vlg_stage_state *stage = &ctx->stage[s];

      for (unsigned i = 0; i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++)
         pipe_sampler_view_reference(&stage->views[i], NULL);
      pipe_resource_reference(&stage->constbuf.buffer, NULL);
      for (unsigned i = 0; i < VLG_NUM_BUFFERS; i++)
         pipe_resource_reference(&stage->ubo[i].buffer, NULL);
   }
   for (unsigned i = 0; i < PIPE_MAX_ATTRIBS; i++)
      pipe_vertex_buffer_unreference(&ctx->vertex_buffers[i]);
   util_unreference_framebuffer_state(&ctx->framebuffer);
   for (unsigned i = 0; i < PIPE_MAX_SO_BUFFERS; i++)
      pipe_so_target_reference(&ctx->so_targets[i], NULL);
   vlg_bo_reference(&ctx->so_counters, NULL);
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
   pctx->bind_gs_state = vlg_bind_gs_state;

   pctx->create_sampler_view = vlg_create_sampler_view;
   pctx->sampler_view_destroy = vlg_sampler_view_destroy;
   pctx->set_sampler_views = vlg_set_sampler_views;

   pctx->set_blend_color = vlg_set_blend_color;
   pctx->set_stencil_ref = vlg_set_stencil_ref;
   pctx->set_clip_state = vlg_set_clip_state;
   pctx->set_polygon_stipple = vlg_set_polygon_stipple;
   pctx->set_sample_mask = vlg_set_sample_mask;
   pctx->get_sample_position = vlg_get_sample_position;
   pctx->set_scissor_states = vlg_set_scissor_states;
   pctx->set_viewport_states = vlg_set_viewport_states;
   pctx->set_framebuffer_state = vlg_set_framebuffer_state;
   pctx->set_vertex_buffers = vlg_set_vertex_buffers;
   pctx->set_constant_buffer = vlg_set_constant_buffer;
}
