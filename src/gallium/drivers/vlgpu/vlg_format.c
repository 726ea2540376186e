/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The formats vlgpu supports, as one table (like lima_format.c and
 * v3d_formats.c).  The set is what an OpenGL ES 2.0 application needs
 * (GLES 2.0 §3.7.1 table 3.4 texture formats, §4.4.5 table 4.5 renderbuffer
 * formats, plus the BGRA/X8 variants the X11 visuals and st/mesa choose),
 * the common ES 2.0 extensions OES_depth_texture/OES_packed_depth_stencil,
 * and the vertex formats of glVertexAttribPointer; u_vbuf converts the others
 * (GL_FIXED, 32-bit integers) on the CPU.  Not yet rendered by anything:
 * draw_vbo is not implemented (see vlg_screen.c).
 */

#include "pipe/p_defines.h"
#include "util/macros.h"

#include "vlg_format.h"

enum vlg_format_usage {
   VLG_FMT_RT      = 1 << 0, /* colour render target (blendable) */
   VLG_FMT_TEX     = 1 << 1, /* sampler view */
   VLG_FMT_ZS      = 1 << 2, /* depth/stencil buffer */
   VLG_FMT_VERTEX  = 1 << 3, /* vertex attribute fetch by GE */
   VLG_FMT_INDEX   = 1 << 4, /* index buffer */
};

static const struct {
   enum pipe_format format;
   unsigned usage;
} vlg_formats[] = {
   /* Colour: RGBA8, RGB8 (as X8), RGB565, RGBA4, RGB5A1. */
   {PIPE_FORMAT_B8G8R8A8_UNORM, VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_B8G8R8X8_UNORM, VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_R8G8B8A8_UNORM, VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_R8G8B8X8_UNORM, VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_B5G6R5_UNORM,   VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_B4G4R4A4_UNORM, VLG_FMT_RT | VLG_FMT_TEX},
   {PIPE_FORMAT_B5G5R5A1_UNORM, VLG_FMT_RT | VLG_FMT_TEX},

   /* GL_LUMINANCE, GL_ALPHA, GL_LUMINANCE_ALPHA textures. */
   {PIPE_FORMAT_L8_UNORM,       VLG_FMT_TEX},
   {PIPE_FORMAT_A8_UNORM,       VLG_FMT_TEX},
   {PIPE_FORMAT_L8A8_UNORM,     VLG_FMT_TEX},

   /* Depth/stencil: DEPTH_COMPONENT16, DEPTH24_STENCIL8, DEPTH_COMPONENT24,
    * DEPTH_COMPONENT32; sampled for OES_depth_texture. */
   {PIPE_FORMAT_Z16_UNORM,         VLG_FMT_ZS | VLG_FMT_TEX},
   {PIPE_FORMAT_Z24_UNORM_S8_UINT, VLG_FMT_ZS | VLG_FMT_TEX},
   {PIPE_FORMAT_Z24X8_UNORM,       VLG_FMT_ZS | VLG_FMT_TEX},
   {PIPE_FORMAT_Z32_UNORM,         VLG_FMT_ZS | VLG_FMT_TEX},

   /* Vertex attributes: GL_FLOAT, GL_(UNSIGNED_)BYTE, GL_(UNSIGNED_)SHORT,
    * normalized or not, 1-4 components. */
   {PIPE_FORMAT_R32_FLOAT,          VLG_FMT_VERTEX},
   {PIPE_FORMAT_R32G32_FLOAT,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R32G32B32_FLOAT,    VLG_FMT_VERTEX},
   {PIPE_FORMAT_R32G32B32A32_FLOAT, VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8_UNORM,           VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8_UNORM,         VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8_UNORM,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8A8_UNORM,     VLG_FMT_VERTEX}, /* also RT|TEX above */
   {PIPE_FORMAT_R8_SNORM,           VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8_SNORM,         VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8_SNORM,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8A8_SNORM,     VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8_USCALED,         VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8_USCALED,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8_USCALED,     VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8A8_USCALED,   VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8_SSCALED,         VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8_SSCALED,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8_SSCALED,     VLG_FMT_VERTEX},
   {PIPE_FORMAT_R8G8B8A8_SSCALED,   VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16_UNORM,          VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16_UNORM,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16_UNORM,    VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16A16_UNORM, VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16_SNORM,          VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16_SNORM,       VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16_SNORM,    VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16A16_SNORM, VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16_USCALED,        VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16_USCALED,     VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16_USCALED,  VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16A16_USCALED, VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16_SSCALED,        VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16_SSCALED,     VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16_SSCALED,  VLG_FMT_VERTEX},
   {PIPE_FORMAT_R16G16B16A16_SSCALED, VLG_FMT_VERTEX},

   /* Index buffers: GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT (GLES 2.0), and
    * GL_UNSIGNED_INT (OES_element_index_uint). */
   {PIPE_FORMAT_R8_UINT,            VLG_FMT_INDEX},
   {PIPE_FORMAT_R16_UINT,           VLG_FMT_INDEX},
   {PIPE_FORMAT_R32_UINT,           VLG_FMT_INDEX},
};

/* Binds that do not depend on the format, or that the caller checks against
 * the winsys (display targets). */
#define VLG_BIND_ANY_FORMAT                                                   \
   (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT | PIPE_BIND_SHARED |         \
    PIPE_BIND_LINEAR | PIPE_BIND_USE_FRONT_RENDERING)

static unsigned
vlg_format_usage(enum pipe_format format)
{
   unsigned usage = 0;

   for (unsigned i = 0; i < ARRAY_SIZE(vlg_formats); i++) {
      if (vlg_formats[i].format == format)
         usage |= vlg_formats[i].usage;
   }
   return usage;
}

bool
vlg_format_supported(enum pipe_format format, unsigned bind, bool is_buffer)
{
   const unsigned usage = vlg_format_usage(format);
   unsigned needed = 0;

   bind &= ~VLG_BIND_ANY_FORMAT;

   if (is_buffer) {
      /* Buffers hold raw bytes; only attribute and index fetch interpret
       * them.  No texture buffers, stream output or shader storage. */
      if (bind & ~(PIPE_BIND_VERTEX_BUFFER | PIPE_BIND_INDEX_BUFFER |
                   PIPE_BIND_CONSTANT_BUFFER))
         return false;
      if (bind & PIPE_BIND_VERTEX_BUFFER)
         needed |= VLG_FMT_VERTEX;
      if (bind & PIPE_BIND_INDEX_BUFFER)
         needed |= VLG_FMT_INDEX;
      return (usage & needed) == needed;
   }

   if (bind & ~(PIPE_BIND_RENDER_TARGET | PIPE_BIND_BLENDABLE |
                PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_DEPTH_STENCIL))
      return false;
   if (bind & (PIPE_BIND_RENDER_TARGET | PIPE_BIND_BLENDABLE))
      needed |= VLG_FMT_RT;
   if (bind & PIPE_BIND_SAMPLER_VIEW)
      needed |= VLG_FMT_TEX;
   if (bind & PIPE_BIND_DEPTH_STENCIL)
      needed |= VLG_FMT_ZS;

   /* bind == 0 asks whether a resource of this format can exist at all
    * (e.g. a staging texture for transfers). */
   if (!needed)
      return (usage & (VLG_FMT_RT | VLG_FMT_TEX | VLG_FMT_ZS)) != 0;

   return (usage & needed) == needed;
}
