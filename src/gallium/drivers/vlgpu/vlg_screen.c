/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The vlgpu pipe_screen: the simulated GPU (vlgpu_drm.h device), names,
 * capabilities, formats, compiler options, fences and presentation.
 *
 * The capabilities describe what the hardware words (docs/hw.md), the
 * VL-IW ISA and compiler (docs/isa.md, docs/compiler.md) and the simulator
 * (docs/simulator-*.md) implement, and nothing more: OpenGL ES 2.0 (GLSL
 * 1.20 / ESSL 1.00), up to 4 render targets, instancing, primitive restart.
 * Not ES 3.0: uniform blocks need a buffer descriptor for LDB in the
 * hardware words, and there are no occlusion queries, transform feedback
 * or multisampling (docs/driver.md "Not implemented").
 *
 * Structure follows softpipe (sp_screen.c: sw winsys, display targets,
 * flush_frontbuffer) and lima (lima_screen.c: an ES 2.0 class GPU's caps).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/p_defines.h"
#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_atomic.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_screen.h"

/* After the pipe headers, as in sp_screen.c. */
#include "frontend/sw_winsys.h"

#include "vlg_bo.h"
#include "vlg_context.h"
#include "vlg_debug.h"
#include "vlg_fence.h"
#include "vlg_format.h"
#include "vlg_program.h"
#include "vlg_public.h"
#include "vlg_resource.h"
#include "vlg_screen.h"
#include "vlg_driver_query.h"
#include "vlg_stats.h"
#include "vlgpu_drm.h"

/* The display a DUMP copies the presented frame into (vlg_drm_display_set). */
#define VLG_PRESENT_DISPLAY 1

uint64_t
vlg_screen_next_batch_id(struct vlg_screen *screen)
{
   return p_atomic_inc_return(&screen->next_batch_id);
}

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

/* draw_info.prim (docs/hw.md enum prim): the GL ES primitive types, desktop
 * GL's quads and polygons (the GE splits them into triangles and keeps their
 * inner edges out of polygon mode LINE/POINT: u_vbuf's conversion to
 * triangles would draw them), the adjacency types. */
#define VLG_PRIM_MODES                                                        \
   (BITFIELD_BIT(PIPE_PRIM_POINTS) | BITFIELD_BIT(PIPE_PRIM_LINES) |          \
    BITFIELD_BIT(PIPE_PRIM_LINE_LOOP) | BITFIELD_BIT(PIPE_PRIM_LINE_STRIP) |  \
    BITFIELD_BIT(PIPE_PRIM_TRIANGLES) |                                       \
    BITFIELD_BIT(PIPE_PRIM_TRIANGLE_STRIP) |                                  \
    BITFIELD_BIT(PIPE_PRIM_TRIANGLE_FAN) | BITFIELD_BIT(PIPE_PRIM_QUADS) |    \
    BITFIELD_BIT(PIPE_PRIM_QUAD_STRIP) | BITFIELD_BIT(PIPE_PRIM_POLYGON) |    \
    BITFIELD_BIT(PIPE_PRIM_LINES_ADJACENCY) |                                 \
    BITFIELD_BIT(PIPE_PRIM_LINE_STRIP_ADJACENCY) |                            \
    BITFIELD_BIT(PIPE_PRIM_TRIANGLES_ADJACENCY) |                             \
    BITFIELD_BIT(PIPE_PRIM_TRIANGLE_STRIP_ADJACENCY))

/* Compute shaders, SSBOs and images: off with VLGPU_DEBUG=es2 (ES 3.0). */
static bool
vlg_compute_enabled(void)
{
   return !vlg_debug_enabled(VLG_DEBUG_ES2);
}

static int
vlg_screen_get_param(struct pipe_screen *pscreen, enum pipe_cap param)
{
   struct vlg_screen *screen = vlg_screen(pscreen);

   switch (param) {
   /* OpenGL ES 2.0 requirements (main/version.c compute_version_es2()). */
   case PIPE_CAP_NPOT_TEXTURES:
   case PIPE_CAP_BLEND_EQUATION_SEPARATE:
      return 1;
   /* OMU SRC1_* blend factors from the FS DUAL_SOURCE_COLOR output, colour
    * buffer 0 only (docs/hw.md "Dual-source blending"):
    * EXT_blend_func_extended. */
   case PIPE_CAP_MAX_DUAL_SOURCE_RENDER_TARGETS:
      return 1;
   /* clear_texture is a FILL of the CP's DMA engine (vlg_copy.c, docs/hw.md
    * "Copies"): ARB_clear_texture (desktop GL) */
   case PIPE_CAP_CLEAR_TEXTURE:
      return 1;
   /* ARB_copy_image, OES/EXT_copy_image (st_extensions.c).  st/mesa's
    * glCopyImageSubData (st_cb_copyimage.c) asks for resource_copy_region
    * between formats of one texel size and for blits with one view format
    * on both sides of resources of other formats: both are COPY commands
    * (vlg_copy.c, vlg_blit.c vlg_blit_is_byte_copy).  The GPU has no
    * compressed formats, so no compressed resource reaches the driver:
    * st/mesa copies the compressed formats it decompresses (ETC1/ETC2, ASTC)
    * on the CPU (fallback_copy_image). */
   case PIPE_CAP_COPY_BETWEEN_COMPRESSED_AND_PLAIN_FORMATS:
      return 1;

   /* GLSL 1.30 feature level (ESSL 3.00) and transform feedback give
    * OpenGL ES 3.0 (main/version.c compute_version_es2; docs/driver.md
    * "OpenGL ES 3.0").  VLGPU_DEBUG=es2 reports the ES 2.0 configuration
    * (GLSL 1.20, no stream output, no array textures) for comparisons. */
   case PIPE_CAP_GLSL_FEATURE_LEVEL:
   case PIPE_CAP_GLSL_FEATURE_LEVEL_COMPATIBILITY:
      /* GLSL 1.50: geometry shaders (draw_info.gs, docs/hw.md "Geometry
       * shaders") and texel buffers give desktop OpenGL 3.2. */
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 120 : 150;
   /* ESSL 3.10 tells st/mesa the ES 3.1 context may have the ES geometry
    * shader family (st_extensions.c): OES/EXT_geometry_shader (GS stage,
    * MAX_GS_INVOCATIONS >= 32: instancing, layered rendering, gl_PrimitiveID
    * in the FS), then OES/EXT_texture_cube_map_array (PIPE_CAP_CUBE_MAP_ARRAY)
    * and OES/EXT_primitive_bounding_box (st/mesa keeps the box as state:
    * NoPrimitiveBoundingBoxOutput, a hint no GPU has to use). 320 turns on
    * EXT/OES_gpu_shader5 as well (and nothing else here: OES_sample_variables
    * also needs PIPE_CAP_SAMPLE_SHADING; the context stays ES 3.1 without
    * tessellation): run-time indices of sampler and uniform block arrays
    * (vlg_nir_indexing.cpp), fma, precise, gather offsets (docs/driver.md
    * "OpenGL ES 3.2-era extensions on ES 3.1"). */
   case PIPE_CAP_ESSL_FEATURE_LEVEL:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 320;

   /* Geometry shaders: a lane's output strips hold at most 256 vertices
    * (shader_state.gs_max_vertices); GL 3.2's minimums (table 6.43). */
   case PIPE_CAP_MAX_GEOMETRY_OUTPUT_VERTICES:
      return 256;
   case PIPE_CAP_MAX_GEOMETRY_TOTAL_OUTPUT_COMPONENTS:
      return 1024;
   /* layout(invocations): shader_state.gs_invocations lanes per input
    * primitive with INVOCATION_ID (docs/hw.md "Geometry shaders"); was the
    * u_screen default 32 while the compiler refused invocations > 1. */
   case PIPE_CAP_MAX_GS_INVOCATIONS:
      return VLG_HW_MAX_GS_INVOCATIONS;

   /* Desktop OpenGL 3.0 (main/version.c compute_version) also needs
    * ARB_color_buffer_float and NV_conditional_render.  Colour clamping:
    * unclamped vertex colours are possible and no fixed-function clamp
    * exists, so st/mesa clamps in the shaders when GL asks for it
    * (st_context.c clamp_vert_color_in_shader / clamp_frag_color_in_shader).
    * Conditional rendering is decided by the driver from the query result
    * before each draw, clear and blit (vlg_query.c vlg_check_render_cond). */
   case PIPE_CAP_VERTEX_COLOR_UNCLAMPED:
   case PIPE_CAP_CONDITIONAL_RENDER:
      return 1;
   case PIPE_CAP_VERTEX_COLOR_CLAMPED:
   case PIPE_CAP_FRAGMENT_COLOR_CLAMPED:
      return 0;

   /* Desktop OpenGL 3.1: texel buffers (ARB_texture_buffer_object,
    * ARB_texture_buffer_range) are the texture unit's BUFFER target, read
    * by TXF/TXQ (docs/hw.md texture_target; vlg_state.c
    * vlg_create_sampler_view). */
   case PIPE_CAP_TEXTURE_BUFFER_OBJECTS:
      return 1;
   case PIPE_CAP_MAX_TEXEL_BUFFER_ELEMENTS_UINT:
      return VLG_HW_MAX_BUFFER_TEXELS;
   case PIPE_CAP_TEXTURE_BUFFER_OFFSET_ALIGNMENT:
      return 16;

   /* EXT_transform_feedback: draw_info.stream_output, written by the
    * geometry stage in both simulator modes (docs/hw.md "Stream output",
    * vlg_so.c): 4 buffers; any so_output entry goes to any buffer at any
    * dword offset, so one buffer (separate mode: one varying, e.g. a mat4
    * or a vec4[16]) takes as many components as all of them interleaved:
    * 64 (softpipe's value; GL ES 3.0 table 6.35 minimums 4 and 64).
    * Pause/resume is rebinding with offset (unsigned)-1: the GPU appends
    * at the target's filled_size (ARB_transform_feedback2, ES 3.0). */
   case PIPE_CAP_MAX_STREAM_OUTPUT_BUFFERS:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : VLG_HW_MAX_SO_BUFFERS;
   case PIPE_CAP_MAX_STREAM_OUTPUT_SEPARATE_COMPONENTS:
   case PIPE_CAP_MAX_STREAM_OUTPUT_INTERLEAVED_COMPONENTS:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : VLG_HW_MAX_SO_OUTPUTS;
   case PIPE_CAP_STREAM_OUTPUT_PAUSE_RESUME:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* Quads of 2x2 fragments give DDX/DDY (OES_standard_derivatives) and the
    * texture unit samples with bias/explicit LOD (docs/isa.md). */
   case PIPE_CAP_FRAGMENT_SHADER_DERIVATIVES:
   case PIPE_CAP_FRAGMENT_SHADER_TEXTURE_LOD:
      return 1;

   /* PE: upper-left origin, pixel centres at .5 (FRAG_COORD input);
    * st/mesa transforms gl_FragCoord for the other conventions. */
   case PIPE_CAP_FS_COORD_ORIGIN_UPPER_LEFT:
   case PIPE_CAP_FS_COORD_PIXEL_CENTER_HALF_INTEGER:
      return 1;
   case PIPE_CAP_FS_COORD_ORIGIN_LOWER_LEFT:
   case PIPE_CAP_FS_COORD_PIXEL_CENTER_INTEGER:
      return 0;

   /* Fixed-function features st/mesa lowers into its shaders: user clip
    * planes (into gl_ClipDistance, which the PE applies: docs/hw.md "Clip
    * distances"; GL ES has none; MaxClipPlanes stays 8, GL 3.0's
    * MAX_CLIP_DISTANCES), two-sided colour, flat shading of colours,
    * per-vertex point size. */
   case PIPE_CAP_CLIP_PLANES:
   case PIPE_CAP_TWO_SIDED_COLOR:
   case PIPE_CAP_FLATSHADE:
   case PIPE_CAP_POINT_SIZE_FIXED:
      return 0;
   /* The OMU has the alpha test (depth_stencil_alpha). */
   case PIPE_CAP_ALPHA_TEST:
      return 1;

   /* OMU: 4 colour buffers with independent blending and masks. */
   case PIPE_CAP_MAX_RENDER_TARGETS:
      return VLG_HW_MAX_COLOR_BUFS;
   case PIPE_CAP_INDEP_BLEND_ENABLE:
   case PIPE_CAP_INDEP_BLEND_FUNC:
      return 1;

   case PIPE_CAP_MAX_VARYINGS:
      return VLG_MAX_VARYINGS;
   /* Keep NIR's varying slots (TEXn, PNTC, VARn): without this st/mesa
    * renumbers them the TGSI way (st_nir_fixup_varying_slots: PNTC ->
    * VAR8, VARn -> VARn+9), and the compiler needs gl_PointCoord as PNTC
    * for its POINT_COORD input and VAR0..VAR15 for VARYING 0..15. */
   case PIPE_CAP_TGSI_TEXCOORD:
      return 1;

   /* Texture unit (docs/simulator-texture.md). */
   case PIPE_CAP_MAX_TEXTURE_2D_SIZE:
      return 1 << (screen->max_2d_levels - 1);
   case PIPE_CAP_MAX_TEXTURE_3D_LEVELS:
      return VLG_MAX_TEXTURE_3D_LEVELS;
   case PIPE_CAP_MAX_TEXTURE_CUBE_LEVELS:
      return screen->max_2d_levels;
   /* The texture unit samples 1D/2D arrays (texture.array_size, the layer
    * from the coordinate, docs/simulator-texture.md) and the compiler
    * passes the layer (GLSL 1.30 / ESSL 3.00; not with VLGPU_DEBUG=es2). */
   case PIPE_CAP_MAX_TEXTURE_ARRAY_LAYERS:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 256;
   /* The texture unit filters every format the same way, on the fp32
    * values it unpacked (docs/simulator-texture.md "Filters"), half and
    * full floats included (OES_texture_{half_,}float_linear). */
   case PIPE_CAP_TEXTURE_HALF_FLOAT_LINEAR:
   case PIPE_CAP_TEXTURE_FLOAT_LINEAR:
      return 1;
   /* The texture unit's CUBE_ARRAY target: the face from the direction,
    * the cube from the fourth coordinate, seamless within the cube; the
    * compiler's .CUBEARRAY operands (docs/isa.md TEX). ARB_ and (with
    * OES_geometry_shader) OES_texture_cube_map_array. */
   case PIPE_CAP_CUBE_MAP_ARRAY:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;
   case PIPE_CAP_TEXTURE_SWIZZLE:
   case PIPE_CAP_TEXTURE_MIRROR_CLAMP:
   case PIPE_CAP_TEXTURE_MIRROR_CLAMP_TO_EDGE:
   case PIPE_CAP_SEAMLESS_CUBE_MAP:
   case PIPE_CAP_SEAMLESS_CUBE_MAP_PER_TEXTURE:
      return 1;

   /* PE: depth clipping can be turned off (depth_clip_near/far). */
   case PIPE_CAP_DEPTH_CLIP_DISABLE:
      return 1;
   /* PE: rasterizer.clip_halfz clips z to [0, w] instead of [-w, w]
    * (raster.cpp pe_post_vs); st/mesa folds the rest of glClipControl into
    * the viewport (depth scale f - n, translate n; a negative y scale for
    * GL_UPPER_LEFT) and front_ccw: ARB_clip_control, EXT_clip_control. */
   case PIPE_CAP_CLIP_HALFZ:
      return 1;

   /* GE: the GL ES primitive types, primitive restart with any index,
    * instanced attributes, first instance (draw_info). */
   case PIPE_CAP_SUPPORTED_PRIM_MODES:
   case PIPE_CAP_SUPPORTED_PRIM_MODES_WITH_RESTART:
      return VLG_PRIM_MODES;
   case PIPE_CAP_PRIMITIVE_RESTART:
   case PIPE_CAP_PRIMITIVE_RESTART_FIXED_INDEX:
   case PIPE_CAP_VERTEX_ELEMENT_INSTANCE_DIVISOR:
   case PIPE_CAP_START_INSTANCE:
      return 1;
   /* gl_InstanceID: shader input INSTANCE_ID (ARB_draw_instanced). */
   case PIPE_CAP_VS_INSTANCEID:
      return 1;
   case PIPE_CAP_USER_VERTEX_BUFFERS:
      return 0; /* uploaded by u_vbuf/st into VRAM buffers */
   /* Quads and quad strips (desktop GL) reach the GPU as triangles made by
    * u_vbuf's u_primconvert, which keeps the API's provoking vertex
    * (rasterizer flatshade_first): quads follow the convention. */
   case PIPE_CAP_QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION:
      return 1;

   /* Attachments of different sizes: each surface has its own size and
    * pitch, and rasterization stops at framebuffer.width/height, which
    * st/mesa sets to the smallest attachment (the GL rule).  Gives
    * ARB_framebuffer_object in desktop contexts (Piglit's -fbo mode). */
   case PIPE_CAP_MIXED_FRAMEBUFFER_SIZES:
      return 1;

   /* CLEAR draws take a rectangle (draw_info.clear_rect). */
   case PIPE_CAP_CLEAR_SCISSORED:
      return 1;

   /* Uniforms are copied into each draw's global-buffer image, one vec4
    * entry = 16 bytes; LDB reads whole vec4s of a uniform block. */
   case PIPE_CAP_CONSTANT_BUFFER_OFFSET_ALIGNMENT:
      return 16;
   /* Uniform blocks (LDB): the size of one block; LDB reaches any vec4 of
    * it (constant offsets up to 4 KiB in the instruction, larger ones
    * through A0). */
   case PIPE_CAP_MAX_CONSTANT_BUFFER_SIZE_UINT:
      return VLG_MAX_UBO_SIZE;

   /* The compiler keeps packHalf2x16/unpackHalf2x16 as CONV ops. */
   case PIPE_CAP_SHADER_PACK_HALF_FLOAT:
      return 1;

   /* ARB_framebuffer_no_attachments: a framebuffer block with only width,
    * height and samples rasterizes normally; the OMU has nothing to write
    * and occlusion counting still works (tests/sim/units/
    * test_draw_indirect.cpp, NoAttachments).  Multisampled ones need
    * is_format_supported(PIPE_FORMAT_NONE, samples) once MSAA exists. */
   case PIPE_CAP_FRAMEBUFFER_NO_ATTACHMENT:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* ARB_texture_multisample: 4-sample textures are fetched per sample
    * (txf_ms -> TXF on a 4-times-wide view, vlg_nir.cpp lower_ms_tex). */
   case PIPE_CAP_TEXTURE_MULTISAMPLE:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* Compute shaders (DISPATCH, vlg_compute.c) with SSBOs (MEM on VRAM
    * addresses: dword alignment is all MEM needs) and images. */
   case PIPE_CAP_COMPUTE:
      return vlg_compute_enabled();
   case PIPE_CAP_SHADER_BUFFER_OFFSET_ALIGNMENT:
      return vlg_compute_enabled() ? 4 : 0;

   /* ARB_draw_indirect: the CP reads the draw parameters from VRAM
    * (draw_info.indirect, vlg_draw.c).  Mesa exposes it in ES 3.1 and GL
    * 3.1 core only, neither of which vlgpu offers yet. */
   case PIPE_CAP_DRAW_INDIRECT:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* Texel offsets (textureOffset & co.): the texture unit adds them to the
    * texel coordinates of the level it reads, the range of the TOFF Sub
    * unit's 4-bit fields (docs/isa.md "toff"; -8..7, GL ES 3.0's minimum
    * range). */
   case PIPE_CAP_MIN_TEXEL_OFFSET:
      return VLG_MIN_TEXEL_OFFSET;
   case PIPE_CAP_MAX_TEXEL_OFFSET:
      return VLG_MAX_TEXEL_OFFSET;

   /* ARB_gpu_shader_int64 (desktop GL; Mesa offers it on core contexts):
    * the 64-bit integer ops are 32-bit ones on the halves (nir_lower_int64,
    * lower_int64_options), 64-bit memory access and varyings are pairs of
    * dwords (vlg_nir_64bit.cpp, docs/compiler.md "64-bit integers"). No
    * fp64: docs/driver.md "Not implemented". */
   case PIPE_CAP_INT64:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* ARB_texture_gather: the texture unit's TG4 gathers any of the four
    * components (docs/isa.md), constant offsets through TOFF as above
    * (run-time ones are added to the coordinates by nir_lower_tex). */
   case PIPE_CAP_MAX_TEXTURE_GATHER_COMPONENTS:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 4;
   case PIPE_CAP_MIN_TEXTURE_GATHER_OFFSET:
      return VLG_MIN_TEXEL_OFFSET;
   case PIPE_CAP_MAX_TEXTURE_GATHER_OFFSET:
      return VLG_MAX_TEXEL_OFFSET;

   /* ARB/OES_texture_view (st_extensions.c): a sampler view may have
    * another target and format than its resource. The descriptor of
    * vlg_create_sampler_view is built from the view alone (its target,
    * format, level range and first layer; the resource gives addresses and
    * pitches), so a 2D-array texture sampled as a cube, a cube as a 2D
    * array or RGBA8 as R32UI needs nothing more: the texel bytes are the
    * same (GL 4.6 section 8.18, compatible view classes). */
   case PIPE_CAP_SAMPLER_VIEW_TARGET:
      return vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : 1;

   /* Texture uploads and downloads are CPU copies into VRAM (no blit
    * engine). */
   case PIPE_CAP_TEXTURE_TRANSFER_MODES:
      return 0;
   /* VRAM is host memory: mappings are coherent. */
   case PIPE_CAP_BUFFER_MAP_PERSISTENT_COHERENT:
      return 1;
   /* No dma-buf import/export on the sw winsys. */
   case PIPE_CAP_DMABUF:
      return 0;

   /* Occlusion queries: draw_info.occlusion_counter, to which the CP adds
    * the draw's passing fragments (vlg_query.c).  No timer or statistics
    * counters in the hardware words. */
   case PIPE_CAP_OCCLUSION_QUERY:
      return 1;
   case PIPE_CAP_QUERY_TIME_ELAPSED:
   case PIPE_CAP_QUERY_TIMESTAMP:
   case PIPE_CAP_QUERY_PIPELINE_STATISTICS:
      return 0;

   /* A software model on the host CPU with its own (simulated) VRAM. */
   case PIPE_CAP_ACCELERATED:
      return 0;
   case PIPE_CAP_UMA:
      return 0;
   case PIPE_CAP_VIDEO_MEMORY:
      return screen->vram_size >> 20;
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
   /* Vertex, fragment and compute stages; 0 instructions = stage
    * unsupported (compute too with VLGPU_DEBUG=es2). */
   const bool compute = shader == PIPE_SHADER_COMPUTE;
   const bool geometry = shader == PIPE_SHADER_GEOMETRY;
   if (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT &&
       !(compute && vlg_compute_enabled()) &&
       !(geometry && !vlg_debug_enabled(VLG_DEBUG_ES2)))
      return 0;

   switch (param) {
   /* Compute, vertex and fragment shaders (vlg_compute.c, docs/compiler.md
    * "Compute shaders", "Memory in vertex and fragment shaders"): SSBOs and
    * images lowered to MEM on VRAM addresses from the driver uniforms; no
    * hardware atomic counters, so st/mesa lowers them to SSBO atomics and
    * gives half of the 16 shader buffers to them (GL ES 3.1 allows 0 in the
    * VS; Piglit's vs-*-atomic-counter tests need them). Only with ES 3.1
    * (not with VLGPU_DEBUG=es2); geometry shaders too (OES_geometry_shader
    * allows 0, softpipe has them: dEQP-GLES31 program_interface_query and
    * opaque_type_indexing use them). */
   case PIPE_SHADER_CAP_MAX_SHADER_BUFFERS:
      return vlg_compute_enabled() ? VLG_MAX_SHADER_BUFFERS : 0;
   case PIPE_SHADER_CAP_MAX_SHADER_IMAGES:
      return vlg_compute_enabled() ? VLG_MAX_SHADER_IMAGES : 0;
   case PIPE_SHADER_CAP_MAX_INPUTS:
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      if (compute)
         return 0;
      break;
   default:
      break;
   }

   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS:
      return 16384;
   case PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH:
      return 32;

   case PIPE_SHADER_CAP_MAX_INPUTS:
      /* GS: per input vertex, like the FS's varyings. */
      return shader == PIPE_SHADER_VERTEX ? VLG_MAX_VERTEX_ATTRIBS
                                          : VLG_MAX_VARYINGS;
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      /* VS, GS: position, point size and the varyings; FS: colours +
       * depth. */
      return shader == PIPE_SHADER_FRAGMENT ? VLG_HW_MAX_COLOR_BUFS + 1
                                            : VLG_MAX_VARYINGS + 2;

   /* Uniforms live in the global buffer (C0..C511) next to the compiler's
    * literals: VLG_MAX_UNIFORM_VECS of it for uniforms.  Constant buffers
    * 1..15 are uniform blocks, read by LDB from buffer slots B1..B15
    * (shader_state.buffers, docs/hw.md "Uniform buffers"). */
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return VLG_MAX_UNIFORM_VECS * 16;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      return VLG_NUM_BUFFERS;

   case PIPE_SHADER_CAP_MAX_TEMPS:
      return VLG_NUM_REGS;

   /* ADDR -> LDC addresses the global buffer indirectly (seed 004); there
    * is no indirect register file access (the compiler unrolls it). */
   case PIPE_SHADER_CAP_INDIRECT_CONST_ADDR:
      return 1;
   case PIPE_SHADER_CAP_INDIRECT_INPUT_ADDR:
   case PIPE_SHADER_CAP_INDIRECT_OUTPUT_ADDR:
   case PIPE_SHADER_CAP_INDIRECT_TEMP_ADDR:
   case PIPE_SHADER_CAP_SUBROUTINES:
      return 0;

   /* VL-IW has integer ops (docs/isa.md). */
   case PIPE_SHADER_CAP_INTEGERS:
   case PIPE_SHADER_CAP_CONT_SUPPORTED:
      return 1;

   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return VLG_NUM_TEX_UNITS;

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

/*
 * Compute limits (GL ES 3.1 table 20.45 minimums in brackets), from the
 * simulated GPU (VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS etc.): it runs a
 * workgroup as ceil(n / W) thread groups resident in one SPC at once, so
 * the largest workgroup holds for shaders of up to max_compute_regs
 * registers (128 invocations and 128 registers by default; vlg_compute.c
 * skips dispatches of shaders above that with a message); shared memory
 * 32 KiB by default [16 KiB].
 */

static int
vlg_screen_get_compute_param(struct pipe_screen *pscreen,
                             enum pipe_shader_ir ir, enum pipe_compute_cap param,
                             void *ret)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
#define RET(type, ...)                                                         \
   do {                                                                      \
      type v[] = {__VA_ARGS__};                                              \
      if (ret)                                                               \
         memcpy(ret, v, sizeof(v));                                          \
      return sizeof(v);                                                      \
   } while (0)

   switch (param) {
   case PIPE_COMPUTE_CAP_IR_TARGET:
      if (ret)
         strcpy(ret, "vlgpu");
      return strlen("vlgpu") + 1;
   case PIPE_COMPUTE_CAP_GRID_DIMENSION:
      RET(uint64_t, 3);
   case PIPE_COMPUTE_CAP_MAX_GRID_SIZE: /* [65535 each] */
      RET(uint64_t, 65535, 65535, 65535);
   case PIPE_COMPUTE_CAP_MAX_BLOCK_SIZE: /* [128, 128, 64] */
      RET(uint64_t, screen->max_compute_invocations,
          screen->max_compute_invocations,
          MIN2(screen->max_compute_invocations, 64));
   case PIPE_COMPUTE_CAP_MAX_THREADS_PER_BLOCK: /* [128] */
      RET(uint64_t, screen->max_compute_invocations);
   case PIPE_COMPUTE_CAP_MAX_LOCAL_SIZE: /* shared memory [16384] */
      RET(uint64_t, screen->compute_shared_size);
   case PIPE_COMPUTE_CAP_MAX_GLOBAL_SIZE:
   case PIPE_COMPUTE_CAP_MAX_MEM_ALLOC_SIZE:
      RET(uint64_t, screen->vram_size);
   case PIPE_COMPUTE_CAP_MAX_PRIVATE_SIZE:
   case PIPE_COMPUTE_CAP_MAX_INPUT_SIZE:
      RET(uint64_t, 0);
   case PIPE_COMPUTE_CAP_MAX_CLOCK_FREQUENCY:
      RET(uint32_t, 1000);
   case PIPE_COMPUTE_CAP_MAX_COMPUTE_UNITS:
      RET(uint32_t, 1);
   case PIPE_COMPUTE_CAP_IMAGES_SUPPORTED:
      RET(uint32_t, 1);
   case PIPE_COMPUTE_CAP_SUBGROUP_SIZE:
      RET(uint32_t, 16);
   case PIPE_COMPUTE_CAP_ADDRESS_BITS:
      RET(uint32_t, 32);
   case PIPE_COMPUTE_CAP_MAX_VARIABLE_THREADS_PER_BLOCK:
      RET(uint64_t, 0);
   default:
      return 0;
   }
#undef RET
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
   /* The PE clamps point sizes and line widths to [1, 255]
    * (docs/simulator-pipeline.md), softpipe's range. */
   case PIPE_CAPF_MAX_LINE_WIDTH:
   case PIPE_CAPF_MAX_LINE_WIDTH_AA:
   case PIPE_CAPF_MAX_POINT_SIZE:
   case PIPE_CAPF_MAX_POINT_SIZE_AA:
      return 255.0f;
   case PIPE_CAPF_MAX_TEXTURE_ANISOTROPY:
      return 1.0f; /* no anisotropic filtering in the sampler */
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

   /* 1 or 4 samples (docs/hw.md "Multisampling"); 4-sample resources are
    * 2D render targets or depth/stencil buffers, and textures
    * (ARB_texture_multisample: texelFetch of one sample reads a view 4
    * times as wide, vlg_state.c; not with VLGPU_DEBUG=es2); 4-sample 2D
    * arrays too (GL 3.2 core, OES_texture_storage_multisample_2d_array):
    * each layer is laid out as a 4-sample 2D surface. */
   const unsigned samples = MAX2(sample_count, 1);
   if ((samples != 1 && samples != 4) ||
       MAX2(storage_sample_count, 1) != samples)
      return false;
   const unsigned ms_binds =
      PIPE_BIND_RENDER_TARGET | PIPE_BIND_DEPTH_STENCIL |
      (vlg_debug_enabled(VLG_DEBUG_ES2) ? 0 : PIPE_BIND_SAMPLER_VIEW);
   if (samples == 4 &&
       ((target != PIPE_TEXTURE_2D && target != PIPE_TEXTURE_RECT &&
         (target != PIPE_TEXTURE_2D_ARRAY || vlg_debug_enabled(VLG_DEBUG_ES2))) ||
        (bind & ~ms_binds) || !bind))
      return false;

   /* ARB_framebuffer_no_attachments: a framebuffer without attachments
    * rasterizes with 1 or 4 samples (st/mesa asks with PIPE_FORMAT_NONE for
    * MaxFramebufferSamples). */
   if (format == PIPE_FORMAT_NONE)
      return bind == PIPE_BIND_RENDER_TARGET &&
             !vlg_debug_enabled(VLG_DEBUG_ES2);

   /* 1D/2D/3D/cube/rect textures, 1D/2D/cube arrays unless
    * PIPE_CAP_MAX_TEXTURE_ARRAY_LAYERS is 0 (VLGPU_DEBUG=es2). */
   if ((target == PIPE_TEXTURE_1D_ARRAY || target == PIPE_TEXTURE_2D_ARRAY ||
        target == PIPE_TEXTURE_CUBE_ARRAY) &&
       !pscreen->get_param(pscreen, PIPE_CAP_MAX_TEXTURE_ARRAY_LAYERS))
      return false;

   /* Display targets must also suit the winsys (sp_screen.c). */
   if ((bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT |
                PIPE_BIND_SHARED)) &&
       !screen->winsys->is_displaytarget_format_supported(screen->winsys,
                                                          bind, format))
      return false;

   return vlg_format_supported(format, bind, target == PIPE_BUFFER);
}

/*
 * Presentation: the GPU's DUMP command copies the finished render target
 * into the sw winsys' display-target memory (seed 001 §3.2: "the memory
 * controller copies the frame buffer to the display"), then the winsys
 * shows it, as softpipe_flush_frontbuffer() does with its own memory.
 */
static void
vlg_present(struct vlg_screen *screen, struct vlg_resource *rsc,
            unsigned level, unsigned layer, void *map,
            const struct pipe_box *sub_box)
{
   const struct pipe_resource *prsc = &rsc->base;
   const unsigned format = vlg_format_from_pipe(prsc->format);
   const unsigned width = u_minify(prsc->width0, level);
   const unsigned height = u_minify(prsc->height0, level);
   struct vlg_bo *bo = screen->present_bo;

   if (!format) {
      mesa_logw_once("cannot present %s frames: not a GPU format",
                     util_format_short_name(prsc->format));
      return;
   }

   /* The display must have the surface's format: DUMP does not convert. */
   struct vlg_drm_display display = {
      .data = map,
      .stride = rsc->dt_stride,
      .width = width,
      .height = height,
      .format = format,
   };

   /* present_bo: surface descriptor at 0, fence at 64, queue at 128. */
   struct VLG_SURFACE surf;
   VLG_SURFACE_init(&surf);
   surf.address = rsc->bo->address + vlg_resource_offset(rsc, level, layer);
   surf.pitch = rsc->stride[level];
   surf.format = (enum vlg_format)format;
   surf.width = width;
   surf.height = height;

   struct VLG_CMD_DUMP dump;
   VLG_CMD_DUMP_init(&dump);
   dump.surface = bo->address;
   dump.display_id = VLG_PRESENT_DISPLAY;
   dump.rect.minx = sub_box ? sub_box->x : 0;
   dump.rect.miny = sub_box ? sub_box->y : 0;
   dump.rect.maxx = sub_box ? sub_box->x + sub_box->width : width;
   dump.rect.maxy = sub_box ? sub_box->y + sub_box->height : height;

   const uint64_t seqno = vlg_fence_next_seqno(screen);
   struct VLG_CMD_SYNC sync;
   VLG_CMD_SYNC_init(&sync);
   sync.fence_address = bo->address + 64;
   sync.fence_value = (uint32_t)seqno;

   uint32_t *queue = (uint32_t *)(bo->map + 128);
   VLG_SURFACE_pack((uint32_t *)bo->map, &surf);
   VLG_CMD_DUMP_pack(queue, &dump);
   VLG_CMD_SYNC_pack(queue + VLG_CMD_DUMP_LENGTH, &sync);

   struct vlg_drm_submit args = {
      .cmd_address = bo->address + 128,
      .cmd_dwords = VLG_CMD_DUMP_LENGTH + VLG_CMD_SYNC_LENGTH,
   };

   simple_mtx_lock(&screen->device_lock);
   int ret = vlg_drm_display_set(screen->dev, VLG_PRESENT_DISPLAY, &display);
   if (ret == 0) {
      ret = vlg_drm_submit(screen->dev, &args);
      if (ret)
         mesa_loge("presenting a frame failed: %s",
                   ret == -EIO ? vlg_drm_get_fault(screen->dev)
                               : strerror(-ret));
      else if (screen->stats)
         vlg_stats_add_submit(screen->stats,
                              vlg_stats_submit_json(screen->stats, screen->dev),
                              NULL, 0);
      vlg_drm_display_remove(screen->dev, VLG_PRESENT_DISPLAY);
   } else {
      mesa_loge("cannot register the display (%ux%u, stride %u): %s", width,
                height, rsc->dt_stride, strerror(-ret));
   }
   simple_mtx_unlock(&screen->device_lock);
   vlg_fence_signal(screen, seqno);
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
   struct sw_winsys *winsys = screen->winsys;

   /* Every draw of the frame first (st/mesa has flushed already; a
    * front-buffer flush from another path may not have). */
   if (pctx)
      vlg_context_flush(vlg_context(pctx), NULL, 0);

   if (!rsc->dt)
      return;

   void *map = winsys->displaytarget_map(winsys, rsc->dt, PIPE_MAP_WRITE);
   if (map) {
      vlg_present(screen, rsc, level, layer, map, sub_box);
      winsys->displaytarget_unmap(winsys, rsc->dt);
   }
   winsys->displaytarget_display(winsys, rsc->dt, context_private, sub_box);

   p_atomic_inc(&screen->frames_presented);
   vlg_screen_end_frame(screen);
}

void
vlg_screen_end_frame(struct vlg_screen *screen)
{
   simple_mtx_lock(&screen->device_lock);
   if (screen->stats)
      vlg_stats_end_frame(screen->stats);
   int ret = vlg_drm_end_frame(screen->dev);
   if (ret)
      mesa_loge("ending a frame failed: %s",
                ret == -EIO ? vlg_drm_get_fault(screen->dev) : strerror(-ret));
   simple_mtx_unlock(&screen->device_lock);
}

struct vlg_stats *
vlg_screen_stats_for_queries(struct vlg_screen *screen)
{
   simple_mtx_lock(&screen->device_lock);
   if (!screen->stats)
      screen->stats = vlg_stats_create(NULL, false, screen->mode == VLG_DRM_MODE_CYCLE,
                                       true, vlg_drm_get_modules_json(screen->dev));
   struct vlg_stats *stats = screen->stats;
   simple_mtx_unlock(&screen->device_lock);
   return stats;
}

static void
vlg_screen_destroy(struct pipe_screen *pscreen)
{
   struct vlg_screen *screen = vlg_screen(pscreen);

   vlg_stats_destroy(screen->stats);
   vlg_driver_queries_destroy(screen);
   vlg_bo_reference(&screen->present_bo, NULL);
   vlg_bo_reference(&screen->dummy_texture, NULL);
   if (screen->dev)
      vlg_drm_device_destroy(screen->dev);
   if (screen->winsys && screen->winsys->destroy)
      screen->winsys->destroy(screen->winsys);
   simple_mtx_destroy(&screen->fence_lock);
   simple_mtx_destroy(&screen->device_lock);
   FREE(screen);
}

static bool
vlg_stats_path_is_dir(const char *path)
{
   size_t n = path ? strlen(path) : 0;

   return n && !(n >= 4 && strcmp(path + n - 4, ".csv") == 0) &&
          !(n >= 6 && strcmp(path + n - 6, ".jsonl") == 0);
}

/**
 * Create the GPU from the environment (docs/driver.md):
 *   VLGPU_CONFIG=FILE       GPU configuration (JSON, docs/simulator.md)
 *   VLGPU_SET=k=v,...       configuration overrides
 *   VLGPU_DEBUG=functional  functional mode (else cycle mode, which falls
 *                           back to functional with a warning while the
 *                           cycle-mode GPU does not exist)
 *   VLGPU_STATS=DIR         the device writes each submit's statistics there
 *   VLGPU_DUMP=DIR          per-draw readable dump (docs/dump.md)
 *   VLGPU_DUMP_DRAWS=LIST   which draws to dump ("0,5,10-20")
 *   VLGPU_CAPTURE=DIR       frame capture (docs/capture.md), replayable with
 *                           ./vlgpu replay DIR
 *   VLGPU_CAPTURE_FRAMES=R  which frames: FIRST-LAST, FIRST- or N (default all)
 * The cycle-mode GPU itself reads VLGPU_TRACE=FILE.json (Perfetto/Chrome
 * JSON trace), VLGPU_TRACE_CYCLES=BEGIN-END and VLGPU_TRACE_FRAMES=
 * FIRST-LAST (frames as vlg_screen_end_frame counts them).
 */
static bool
vlg_screen_create_device(struct vlg_screen *screen)
{
   static bool warned_cycle;
   const char *stats = getenv("VLGPU_STATS");
   const char *dump = getenv("VLGPU_DUMP");
   char err[1024] = "";

   if ((!dump || !*dump) && vlg_debug_enabled(VLG_DEBUG_DUMP))
      dump = "vlgpu-dump";

   struct vlg_drm_create_args args = {
      .config_path = getenv("VLGPU_CONFIG"),
      .config_overrides = getenv("VLGPU_SET"),
      .mode = vlg_debug_enabled(VLG_DEBUG_FUNCTIONAL)
                 ? VLG_DRM_MODE_FUNCTIONAL : VLG_DRM_MODE_CYCLE,
      .stats_dir = vlg_stats_path_is_dir(stats) ? stats : NULL,
      .dump_dir = dump,
      .dump_draws = getenv("VLGPU_DUMP_DRAWS"),
      .capture_dir = getenv("VLGPU_CAPTURE"),
      .capture_frames = getenv("VLGPU_CAPTURE_FRAMES"),
      .sample = getenv("VLGPU_SAMPLE"),
      /* only the statistics tables read each draw's module statistics
       * (vlg_stats.cpp draw_row: the per-draw bottleneck); queries and the
       * HUD read the submits' totals */
      .omit_draw_modules = (!stats || !*stats) && !vlg_debug_enabled(VLG_DEBUG_STATS),
#ifdef PACKAGE_VERSION
      .client = "Mesa " PACKAGE_VERSION,
#else
      .client = "Mesa",
#endif
   };

   int ret = vlg_drm_device_create(&args, &screen->dev, err, sizeof(err));
   if (ret == -ENOTSUP && args.mode == VLG_DRM_MODE_CYCLE) {
      if (!warned_cycle)
         mesa_logw("cycle mode is not available (%s); simulating in "
                   "functional mode: same pixels, no cycle counts "
                   "(VLGPU_DEBUG=functional silences this)", err);
      warned_cycle = true;
      args.mode = VLG_DRM_MODE_FUNCTIONAL;
      err[0] = 0;
      ret = vlg_drm_device_create(&args, &screen->dev, err, sizeof(err));
   }
   if (ret) {
      mesa_loge("cannot create the simulated GPU: %s (%s)",
                err[0] ? err : "no reason given", strerror(-ret));
      return false;
   }
   screen->mode = args.mode;

   uint64_t vram = 0, max_tex = 0;
   vlg_drm_get_param(screen->dev, VLG_DRM_PARAM_VRAM_SIZE, &vram);
   vlg_drm_get_param(screen->dev, VLG_DRM_PARAM_MAX_TEXTURE_SIZE, &max_tex);
   screen->vram_size = vram;
   screen->max_2d_levels =
      MIN2(util_logbase2(MAX2(max_tex, 1)) + 1, PIPE_MAX_TEXTURE_LEVELS);
   uint64_t inv = 0, shared = 0, regs = 0;
   vlg_drm_get_param(screen->dev, VLG_DRM_PARAM_MAX_COMPUTE_INVOCATIONS, &inv);
   vlg_drm_get_param(screen->dev, VLG_DRM_PARAM_COMPUTE_SHARED_MEMORY, &shared);
   vlg_drm_get_param(screen->dev, VLG_DRM_PARAM_MAX_COMPUTE_REGS, &regs);
   screen->max_compute_invocations = MIN2(inv, 1024);
   screen->compute_shared_size = MIN2(shared, 1u << 20);
   screen->max_compute_regs = regs;

   screen->stats = vlg_stats_create(stats, vlg_debug_enabled(VLG_DEBUG_STATS),
                                    args.mode == VLG_DRM_MODE_CYCLE, false,
                                    vlg_drm_get_modules_json(screen->dev));
   return true;
}

struct pipe_screen *
vlgpu_create_screen(struct sw_winsys *winsys)
{
   struct vlg_screen *screen = CALLOC_STRUCT(vlg_screen);

   if (!screen)
      return NULL;

   vlg_debug_init();
   simple_mtx_init(&screen->fence_lock, mtx_plain);
   simple_mtx_init(&screen->device_lock, mtx_plain);

   if (!vlg_screen_create_device(screen))
      goto fail;

   screen->present_bo = vlg_bo_create(screen, 4096, 256, "present queue");
   screen->dummy_texture = vlg_bo_create(screen, 4, 64, "dummy texture");
   if (!screen->present_bo || !screen->dummy_texture)
      goto fail;
   const uint8_t black[4] = {0, 0, 0, 255};
   memcpy(screen->dummy_texture->map, black, sizeof(black));

   screen->winsys = winsys;

   struct pipe_screen *pscreen = &screen->base;
   pscreen->destroy = vlg_screen_destroy;
   pscreen->get_name = vlg_screen_get_name;
   pscreen->get_vendor = vlg_screen_get_vendor;
   pscreen->get_device_vendor = vlg_screen_get_device_vendor;
   pscreen->get_param = vlg_screen_get_param;
   pscreen->get_shader_param = vlg_screen_get_shader_param;
   pscreen->get_compute_param = vlg_screen_get_compute_param;
   pscreen->get_paramf = vlg_screen_get_paramf;
   pscreen->get_timestamp = u_default_get_timestamp;
   pscreen->is_format_supported = vlg_screen_is_format_supported;
   pscreen->get_compiler_options = vlg_program_get_compiler_options;
   pscreen->context_create = vlg_context_create;
   pscreen->flush_frontbuffer = vlg_screen_flush_frontbuffer;
   pscreen->get_driver_query_info = vlg_get_driver_query_info;
   pscreen->get_driver_query_group_info = vlg_get_driver_query_group_info;

   vlg_init_screen_resource_functions(pscreen);
   vlg_init_screen_fence_functions(pscreen);

   return pscreen;

fail:
   /* The winsys stays the caller's on failure. */
   screen->winsys = NULL;
   vlg_screen_destroy(&screen->base);
   return NULL;
}
