/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The vlgpu pipe_screen: names, capabilities, formats, compiler options,
 * fences and presentation.
 *
 * STATUS — RENDERING IS NOT IMPLEMENTED YET.  The screen and contexts are
 * real (st/mesa creates OpenGL ES 2.0 contexts on them, all state is
 * tracked, clears/copies run on the CPU, frames are presented through the
 * sw winsys), but draw_vbo drops every draw (vlg_draw.c): no shader is
 * compiled and the simulator is not wired in yet.  The capabilities below
 * describe the OpenGL ES 2.0 class GPU being modelled (brief §1, §3, §4),
 * not ES 3.0: GLSL 1.20 / ESSL 1.00, one render target, no UBOs, no
 * integer textures, no MSAA, no transform feedback, vertex and fragment
 * stages only.
 *
 * Structure follows softpipe (sp_screen.c: sw winsys, display targets,
 * flush_frontbuffer) and lima (lima_screen.c: an ES 2.0 class GPU's caps).
 */

#include "pipe/p_defines.h"
#include "util/format/u_format.h"
#include "util/u_memory.h"
#include "util/u_screen.h"

/* After the pipe headers, as in sp_screen.c. */
#include "frontend/sw_winsys.h"

#include "vlg_context.h"
#include "vlg_debug.h"
#include "vlg_fence.h"
#include "vlg_format.h"
#include "vlg_program.h"
#include "vlg_public.h"
#include "vlg_resource.h"
#include "vlg_screen.h"

static const char *
vlg_screen_get_name(struct pipe_screen *pscreen)
{
   /* This is GL_RENDERER (main/getstring.c returns get_name()). */
   return "vlgpu (VL-IW GPU simulator)";
}

static const char *
vlg_screen_get_vendor(struct pipe_screen *pscreen)
{
   return "vlgpu";
}

static const char *
vlg_screen_get_device_vendor(struct pipe_screen *pscreen)
{
   return "vlgpu (simulated VL-IW GPU)";
}

static int
vlg_screen_get_param(struct pipe_screen *pscreen, enum pipe_cap param)
{
   switch (param) {
   /* OpenGL ES 2.0 requirements (main/version.c compute_version_es2()). */
   case PIPE_CAP_NPOT_TEXTURES:
   case PIPE_CAP_BLEND_EQUATION_SEPARATE:
      return 1;

   /* ESSL 1.00 for ES 2.0 and GLSL 1.20 for desktop contexts; not the
    * GLSL 1.30 level ES 3.0 needs (st_extensions.c). */
   case PIPE_CAP_GLSL_FEATURE_LEVEL:
   case PIPE_CAP_GLSL_FEATURE_LEVEL_COMPATIBILITY:
      return 120;

   /* Quads of 2x2 fragments give DDX/DDY (OES_standard_derivatives) and the
    * texture unit samples with bias/explicit LOD (brief §3, §4.5). */
   case PIPE_CAP_FRAGMENT_SHADER_DERIVATIVES:
   case PIPE_CAP_FRAGMENT_SHADER_TEXTURE_LOD:
      return 1;

   /* PE rasterises with the upper-left origin and pixel centres at .5;
    * st/mesa transforms gl_FragCoord for the other conventions. */
   case PIPE_CAP_FS_COORD_ORIGIN_UPPER_LEFT:
   case PIPE_CAP_FS_COORD_PIXEL_CENTER_HALF_INTEGER:
      return 1;
   case PIPE_CAP_FS_COORD_ORIGIN_LOWER_LEFT:
   case PIPE_CAP_FS_COORD_PIXEL_CENTER_INTEGER:
      return 0;

   /* Fixed-function features left to st/mesa's shader lowering. */
   case PIPE_CAP_CLIP_PLANES:
   case PIPE_CAP_TWO_SIDED_COLOR:
   case PIPE_CAP_FLATSHADE:
      return 0;
   /* OMU does the alpha test (brief §1: pipe_state holds alpha). */
   case PIPE_CAP_ALPHA_TEST:
      return 1;

   case PIPE_CAP_MAX_RENDER_TARGETS:
      return 1;
   case PIPE_CAP_MAX_VARYINGS:
      return VLG_MAX_VARYINGS;
   case PIPE_CAP_MAX_TEXTURE_2D_SIZE:
      return 1 << (VLG_MAX_TEXTURE_2D_LEVELS - 1);
   case PIPE_CAP_MAX_TEXTURE_3D_LEVELS:
      return VLG_MAX_TEXTURE_3D_LEVELS;
   case PIPE_CAP_MAX_TEXTURE_CUBE_LEVELS:
      return VLG_MAX_TEXTURE_CUBE_LEVELS;
   case PIPE_CAP_CONSTANT_BUFFER_OFFSET_ALIGNMENT:
      return 16; /* one vec4 global-buffer entry */

   /* Texture uploads and downloads are CPU copies (no blit engine). */
   case PIPE_CAP_TEXTURE_TRANSFER_MODES:
      return 0;
   /* No dma-buf import/export on the sw winsys. */
   case PIPE_CAP_DMABUF:
      return 0;

   /* A software model on the host CPU with its own (simulated) VRAM. */
   case PIPE_CAP_ACCELERATED:
      return 0;
   case PIPE_CAP_UMA:
      return 0;
   case PIPE_CAP_VIDEO_MEMORY:
      return VLG_VRAM_SIZE_MB;
   case PIPE_CAP_PCI_GROUP:
   case PIPE_CAP_PCI_BUS:
   case PIPE_CAP_PCI_DEVICE:
   case PIPE_CAP_PCI_FUNCTION:
      return 0;

   default:
      return u_pipe_screen_get_param_defaults(pscreen, param);
   }
}

static int
vlg_screen_get_shader_param(struct pipe_screen *pscreen,
                            enum pipe_shader_type shader,
                            enum pipe_shader_cap param)
{
   /* Vertex and fragment stages only; 0 instructions = stage unsupported. */
   if (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT)
      return 0;

   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS:
      return 16384;
   case PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH:
      return 32;

   case PIPE_SHADER_CAP_MAX_INPUTS:
      return shader == PIPE_SHADER_VERTEX ? VLG_MAX_VERTEX_ATTRIBS
                                          : VLG_MAX_VARYINGS;
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      /* VS: position, point size and the varyings; FS: one colour. */
      return shader == PIPE_SHADER_VERTEX ? VLG_MAX_VARYINGS + 2 : 1;

   /* Uniforms live in the global buffer: one constant buffer, no UBOs. */
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return VLG_MAX_UNIFORM_VEC4 * 4 * sizeof(float);
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      return 1;

   case PIPE_SHADER_CAP_MAX_TEMPS:
      return VLG_MAX_TEMPS;

   /* ADDR -> MEM addresses the global buffer indirectly (seed 004); there
    * is no indirect register file access and no stack. */
   case PIPE_SHADER_CAP_INDIRECT_CONST_ADDR:
      return 1;
   case PIPE_SHADER_CAP_INDIRECT_INPUT_ADDR:
   case PIPE_SHADER_CAP_INDIRECT_OUTPUT_ADDR:
   case PIPE_SHADER_CAP_INDIRECT_TEMP_ADDR:
   case PIPE_SHADER_CAP_SUBROUTINES:
      return 0;

   /* VL-IW has integer ops (AND/OR/XOR/SHF/CONV, brief §4.5). */
   case PIPE_SHADER_CAP_INTEGERS:
      return 1;
   case PIPE_SHADER_CAP_CONT_SUPPORTED:
      return 1;

   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return VLG_MAX_SAMPLERS;

   case PIPE_SHADER_CAP_PREFERRED_IR:
      return PIPE_SHADER_IR_NIR;
   case PIPE_SHADER_CAP_SUPPORTED_IRS:
      /* TGSI is accepted and converted with tgsi_to_nir (vlg_program.c). */
      return (1 << PIPE_SHADER_IR_NIR) | (1 << PIPE_SHADER_IR_TGSI);

   default:
      /* No fp16/int16, SSBOs, images, atomics, double precision. */
      return 0;
   }
}

static float
vlg_screen_get_paramf(struct pipe_screen *pscreen, enum pipe_capf param)
{
   switch (param) {
   case PIPE_CAPF_MIN_LINE_WIDTH:
   case PIPE_CAPF_MIN_LINE_WIDTH_AA:
   case PIPE_CAPF_MIN_POINT_SIZE:
   case PIPE_CAPF_MIN_POINT_SIZE_AA:
      return 1.0f;
   case PIPE_CAPF_POINT_SIZE_GRANULARITY:
   case PIPE_CAPF_LINE_WIDTH_GRANULARITY:
      return 0.1f;
   case PIPE_CAPF_MAX_LINE_WIDTH:
   case PIPE_CAPF_MAX_LINE_WIDTH_AA:
      return 8.0f;
   case PIPE_CAPF_MAX_POINT_SIZE:
   case PIPE_CAPF_MAX_POINT_SIZE_AA:
      return 64.0f;
   case PIPE_CAPF_MAX_TEXTURE_ANISOTROPY:
      return 1.0f; /* PIPE_CAP_ANISOTROPIC_FILTER is off */
   case PIPE_CAPF_MAX_TEXTURE_LOD_BIAS:
      return 16.0f;
   case PIPE_CAPF_MIN_CONSERVATIVE_RASTER_DILATE:
   case PIPE_CAPF_MAX_CONSERVATIVE_RASTER_DILATE:
   case PIPE_CAPF_CONSERVATIVE_RASTER_DILATE_GRANULARITY:
      return 0.0f;
   }
   return 0.0f;
}

static bool
vlg_screen_is_format_supported(struct pipe_screen *pscreen,
                               enum pipe_format format,
                               enum pipe_texture_target target,
                               unsigned sample_count,
                               unsigned storage_sample_count, unsigned bind)
{
   struct vlg_screen *screen = vlg_screen(pscreen);

   /* No MSAA. */
   if (MAX2(sample_count, 1) != 1 || MAX2(storage_sample_count, 1) != 1)
      return false;

   /* 1D/2D/3D/cube/rect textures; no texture arrays
    * (PIPE_CAP_MAX_TEXTURE_ARRAY_LAYERS is 0). */
   if (target == PIPE_TEXTURE_1D_ARRAY || target == PIPE_TEXTURE_2D_ARRAY ||
       target == PIPE_TEXTURE_CUBE_ARRAY)
      return false;

   /* Display targets must also suit the winsys (sp_screen.c). */
   if ((bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT |
                PIPE_BIND_SHARED)) &&
       !screen->winsys->is_displaytarget_format_supported(screen->winsys,
                                                          bind, format))
      return false;

   return vlg_format_supported(format, bind, target == PIPE_BUFFER);
}

static void
vlg_screen_flush_frontbuffer(struct pipe_screen *pscreen,
                             struct pipe_context *pctx,
                             struct pipe_resource *prsc, unsigned level,
                             unsigned layer, void *context_private,
                             struct pipe_box *sub_box)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   struct vlg_resource *rsc = vlg_resource(prsc);

   /* Like softpipe_flush_frontbuffer(): hand the display target to the
    * winsys (XPutImage/XShm for drisw).  Once the simulator renders, its
    * DUMP command must have written the frame before flush returns. */
   assert(rsc->dt);
   if (rsc->dt)
      screen->winsys->displaytarget_display(screen->winsys, rsc->dt,
                                            context_private, sub_box);
}

static void
vlg_screen_destroy(struct pipe_screen *pscreen)
{
   struct vlg_screen *screen = vlg_screen(pscreen);

   if (screen->winsys->destroy)
      screen->winsys->destroy(screen->winsys);
   simple_mtx_destroy(&screen->fence_lock);
   FREE(screen);
}

struct pipe_screen *
vlgpu_create_screen(struct sw_winsys *winsys)
{
   struct vlg_screen *screen = CALLOC_STRUCT(vlg_screen);

   if (!screen)
      return NULL;

   vlg_debug_init();

   screen->winsys = winsys;
   simple_mtx_init(&screen->fence_lock, mtx_plain);

   struct pipe_screen *pscreen = &screen->base;
   pscreen->destroy = vlg_screen_destroy;
   pscreen->get_name = vlg_screen_get_name;
   pscreen->get_vendor = vlg_screen_get_vendor;
   pscreen->get_device_vendor = vlg_screen_get_device_vendor;
   pscreen->get_param = vlg_screen_get_param;
   pscreen->get_shader_param = vlg_screen_get_shader_param;
   pscreen->get_paramf = vlg_screen_get_paramf;
   pscreen->get_timestamp = u_default_get_timestamp;
   pscreen->is_format_supported = vlg_screen_is_format_supported;
   pscreen->get_compiler_options = vlg_program_get_compiler_options;
   pscreen->context_create = vlg_context_create;
   pscreen->flush_frontbuffer = vlg_screen_flush_frontbuffer;

   vlg_init_screen_resource_functions(pscreen);
   vlg_init_screen_fence_functions(pscreen);

   return pscreen;
}
