/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Gallium formats -> vlgpu formats, and what the GPU supports them for.
 *
 * One table, and it is not ours: vlgpu_hw.xml lists every format the
 * simulated GPU implements with its usage (docs/hw.md "enum format",
 * docs/simulator-texture.md), and keeps Gallium's names.  The mapping is
 * VLG_FORMAT_LIST expanded into a switch on PIPE_FORMAT_<name>, so a format
 * added to the XML is supported by the driver without touching this file.
 * (lima_format.c and v3d_formats.c keep a table like this by hand because
 * their hardware enums have other names.)
 */

#include "pipe/p_defines.h"
#include "util/format/u_format.h"
#include "util/macros.h"

#include "vlg_compiler.h"
#include "vlg_format.h"
#include "vlg_hw.h"

unsigned
vlg_format_from_pipe(enum pipe_format format)
{
   switch (format) {
#define VLG_MAP_FORMAT(name, value)                                           \
   case PIPE_FORMAT_##name:                                                   \
      return VLG_FORMAT_##name;
      VLG_FORMAT_LIST(VLG_MAP_FORMAT)
#undef VLG_MAP_FORMAT
   default:
      return VLG_FORMAT_NONE;
   }
}

/* Binds that do not depend on the format, or that the caller checks against
 * the winsys (display targets). */
#define VLG_BIND_ANY_FORMAT                                                   \
   (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT | PIPE_BIND_SHARED |         \
    PIPE_BIND_LINEAR | PIPE_BIND_USE_FRONT_RENDERING)

/* draw_info.index_size: U8, U16, U32 (docs/hw.md enum index_size). */
static bool
vlg_is_index_format(enum pipe_format format)
{
   return format == PIPE_FORMAT_R8_UINT || format == PIPE_FORMAT_R16_UINT ||
          format == PIPE_FORMAT_R32_UINT;
}

bool
vlg_format_supported(enum pipe_format format, unsigned bind, bool is_buffer)
{
   const unsigned usage = vlg_format_usage(vlg_format_from_pipe(format));

   bind &= ~VLG_BIND_ANY_FORMAT;

   if (is_buffer) {
      /* Buffers hold raw bytes; attribute and index fetch, texel buffers
       * (the texture unit's BUFFER target, any format it can sample) and
       * image buffers (MEM with the compiler's conversion of the image
       * format, OES_texture_buffer's imageBuffer) interpret them. */
      if (bind & ~(PIPE_BIND_VERTEX_BUFFER | PIPE_BIND_INDEX_BUFFER |
                   PIPE_BIND_CONSTANT_BUFFER | PIPE_BIND_SAMPLER_VIEW |
                   PIPE_BIND_SHADER_IMAGE))
         return false;
      if ((bind & PIPE_BIND_SHADER_IMAGE) &&
          !vlg_compiler_image_format_supported(format))
         return false;
      if ((bind & PIPE_BIND_SAMPLER_VIEW) && !(usage & VLG_FORMAT_USAGE_TEX))
         return false;
      if ((bind & PIPE_BIND_VERTEX_BUFFER) &&
          !(usage & VLG_FORMAT_USAGE_VERTEX))
         return false;
      if ((bind & PIPE_BIND_INDEX_BUFFER) && !vlg_is_index_format(format))
         return false;
      return true;
   }

   if (bind & ~(PIPE_BIND_RENDER_TARGET | PIPE_BIND_BLENDABLE |
                PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_DEPTH_STENCIL |
                PIPE_BIND_SHADER_IMAGE))
      return false;

   /* 12-byte texels (R32G32B32_*) in texel buffers only (above:
    * ARB_texture_buffer_object_rgb32). As textures st/mesa would choose
    * them for GL_RGB32UI/I but RGBA32 for GL_RGB32F (it asks for a
    * render target first, and they are none), and glCopyImageSubData
    * between the two then fails an assertion in st_cb_copyimage.c
    * swizzled_copy (96 vs 128 bits; dEQP-GLES31 copy_image
    * viewclass_96_bits): RGB32 textures stay RGBA32 (padded by st/mesa). */
   if (util_format_get_blocksize(format) == 12)
      return false;

   /* Images: MEM on the texture's linear layout with the conversion the
    * compiler writes out for the GL ES 3.1 and GL_NV_image_formats formats
    * (vlg_nir_memory.cpp), on textures the GPU can hold (image buffers:
    * above). */
   if ((bind & PIPE_BIND_SHADER_IMAGE) &&
       (!vlg_compiler_image_format_supported(format) ||
        !(usage & VLG_FORMAT_USAGE_TEX)))
      return false;
   bind &= ~PIPE_BIND_SHADER_IMAGE;
   if (!bind)
      return true;

   unsigned needed = 0;
   if (bind & (PIPE_BIND_RENDER_TARGET | PIPE_BIND_BLENDABLE))
      needed |= VLG_FORMAT_USAGE_RT;
   if (bind & PIPE_BIND_SAMPLER_VIEW)
      needed |= VLG_FORMAT_USAGE_TEX;
   if (bind & PIPE_BIND_DEPTH_STENCIL)
      needed |= VLG_FORMAT_USAGE_ZS;

   /* bind == 0 asks whether a resource of this format can exist at all
    * (e.g. a staging texture for transfers). */
   if (!needed)
      return (usage & (VLG_FORMAT_USAGE_RT | VLG_FORMAT_USAGE_TEX |
                       VLG_FORMAT_USAGE_ZS)) != 0;

   /* Integer render targets are not blendable (GL ES 3.0 §4.1.7). */
   if ((bind & PIPE_BIND_BLENDABLE) && util_format_is_pure_integer(format))
      return false;

   return (usage & needed) == needed;
}
