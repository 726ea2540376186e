/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_nir_memory.cpp — shader memory access (compute, vertex and fragment
 * shaders) lowered to what the VL-IW op MEM takes (docs/isa.md,
 * docs/compiler.md "Compute shaders"):
 *
 *  - SSBOs (load_ssbo / store_ssbo / ssbo_atomic_* / get_ssbo_size, from
 *    st/mesa's gl_nir_lower_buffers with nir_address_format_32bit_index_offset,
 *    and atomic counters after nir_lower_atomics_to_ssbo) become
 *    load_global / store_global / global_atomic_* on a 32-bit VRAM byte
 *    address: the buffer's base address from the driver uniforms plus the
 *    offset (no bounds check: GL ES 3.1 §7.8 leaves out-of-bounds SSBO
 *    access undefined and robust access is not offered);
 *  - images (image_load / image_store / image_atomic_* / image_size after
 *    gl_nir_lower_images) become global memory access on the bound level's
 *    linear layout (docs/hw.md "struct texture": row_pitch, layer_stride) with
 *    the format conversion written out in NIR (Mesa's nir_format_convert.h),
 *    for the GL ES 3.1 image formats (ES 3.1 §8.23 table 8.27) and those of
 *    GL_NV_image_formats; texels of 1 or 2 bytes are stored with a
 *    compare-and-swap loop on their dword. Out-of-range
 *    coordinates load 0 and do not store (ES 3.1 §8.22 "invalid image
 *    accesses"): an if around the access;
 *  - load_num_workgroups reads the driver uniforms.
 *
 * The driver uniforms are vec4 slots appended after the shader's own
 * uniforms: slot driver_base + VLG_DU_* (vlg_compiler.h), read as
 * load_uniform so they go through the same global-buffer copy map.
 * Shared memory (load_shared etc.) needs nothing here: st/mesa lowered it to
 * 32-bit offsets (nir_lower_explicit_io), vlg_nir.cpp does the same for
 * shaders from elsewhere.
 */
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_format_convert.h"
#include "util/format/u_format.h"

#include "vlg_compiler.h"
#include "vlg_passes.h"

namespace vlgpu {

namespace {

struct State {
   unsigned driver_base; /**< vec4 slot of VLG_DU_NUM_WORKGROUPS */
   uint32_t ssbos_used = 0, images_used = 0;
};

/** vec4 of driver uniform slot @slot (+ @indirect vec4 slots if not NULL). */
nir_ssa_def *
driver_uniform(nir_builder *b, State &st, unsigned slot, nir_ssa_def *indirect, unsigned range)
{
   return nir_load_uniform(b, 4, 32, indirect ? indirect : nir_imm_int(b, 0),
                           .base = (int)(st.driver_base + slot), .range = range,
                           .dest_type = nir_type_uint32);
}

nir_ssa_def *
ssbo_descriptor(nir_builder *b, State &st, nir_src &index)
{
   if (nir_src_is_const(index)) {
      unsigned i = nir_src_as_uint(index);
      if (i >= VLG_MAX_SHADER_BUFFERS)
         throw CompileError("shader storage buffer " + std::to_string(i) + " beyond the " +
                            std::to_string(VLG_MAX_SHADER_BUFFERS) + " slots");
      st.ssbos_used |= 1u << i;
      return driver_uniform(b, st, VLG_DU_SSBO + i, nullptr, 1);
   }
   /* dynamically uniform index (arrays of buffer blocks): any slot */
   st.ssbos_used |= (1u << VLG_MAX_SHADER_BUFFERS) - 1;
   return driver_uniform(b, st, VLG_DU_SSBO, index.ssa, VLG_MAX_SHADER_BUFFERS);
}

nir_intrinsic_op
global_atomic_of(nir_intrinsic_op op)
{
   switch (op) {
#define CASE(x)                                                                                    \
   case nir_intrinsic_ssbo_atomic_##x:                                                             \
   case nir_intrinsic_image_atomic_##x:                                                            \
      return nir_intrinsic_global_atomic_##x;
      CASE(add)
      CASE(imin)
      CASE(umin)
      CASE(imax)
      CASE(umax)
      CASE(and)
      CASE(or)
      CASE(xor)
      CASE(exchange)
      CASE(comp_swap)
#undef CASE
   default:
      return nir_num_intrinsics;
   }
}

/** global atomic @op at @addr with @data (and @data2 for comp_swap: NIR order compare, data). */
nir_ssa_def *
global_atomic(nir_builder *b, nir_intrinsic_op op, nir_ssa_def *addr, nir_ssa_def *data,
              nir_ssa_def *data2)
{
   nir_intrinsic_instr *a = nir_intrinsic_instr_create(b->shader, op);
   a->src[0] = nir_src_for_ssa(addr);
   a->src[1] = nir_src_for_ssa(data);
   if (data2)
      a->src[2] = nir_src_for_ssa(data2);
   nir_ssa_dest_init(&a->instr, &a->dest, 1, 32, NULL);
   nir_builder_instr_insert(b, &a->instr);
   return &a->dest.ssa;
}

bool
lower_ssbo(nir_builder *b, nir_intrinsic_instr *intr, State &st)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_load_ssbo: {
      if (nir_dest_bit_size(intr->dest) != 32)
         throw CompileError(std::to_string(nir_dest_bit_size(intr->dest)) +
                            "-bit shader storage buffer loads are not supported");
      nir_ssa_def *desc = ssbo_descriptor(b, st, intr->src[0]);
      nir_ssa_def *addr = nir_iadd(b, nir_channel(b, desc, 0), intr->src[1].ssa);
      nir_ssa_def *v = nir_load_global(b, addr, 4, nir_dest_num_components(intr->dest), 32);
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, v);
      break;
   }
   case nir_intrinsic_store_ssbo: {
      if (nir_src_bit_size(intr->src[0]) != 32)
         throw CompileError(std::to_string(nir_src_bit_size(intr->src[0])) +
                            "-bit shader storage buffer stores are not supported");
      nir_ssa_def *desc = ssbo_descriptor(b, st, intr->src[1]);
      nir_ssa_def *addr = nir_iadd(b, nir_channel(b, desc, 0), intr->src[2].ssa);
      nir_store_global(b, addr, 4, intr->src[0].ssa, nir_intrinsic_write_mask(intr));
      break;
   }
   case nir_intrinsic_get_ssbo_size: {
      nir_ssa_def *desc = ssbo_descriptor(b, st, intr->src[0]);
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, nir_channel(b, desc, 1));
      break;
   }
   default: {
      nir_intrinsic_op g = global_atomic_of(intr->intrinsic);
      if (g == nir_num_intrinsics)
         return false;
      if (nir_dest_bit_size(intr->dest) != 32)
         throw CompileError("64-bit atomics are not supported");
      nir_ssa_def *desc = ssbo_descriptor(b, st, intr->src[0]);
      nir_ssa_def *addr = nir_iadd(b, nir_channel(b, desc, 0), intr->src[1].ssa);
      nir_ssa_def *r =
         global_atomic(b, g, addr, intr->src[2].ssa,
                       g == nir_intrinsic_global_atomic_comp_swap ? intr->src[3].ssa : nullptr);
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, r);
      break;
   }
   }
   nir_instr_remove(&intr->instr);
   return true;
}

/* ---- images ---- */

struct ImageFormat {
   unsigned n;         /**< components */
   unsigned bits[4];   /**< bits per component (0 = absent) */
   nir_alu_type type;  /**< nir_type_float / int / uint (norm formats: int / uint) */
   bool norm;          /**< unorm/snorm */
   bool r11g11b10;     /**< R11G11B10_FLOAT (nir_format_pack/unpack_11f11f10f) */
   unsigned bpp;       /**< bytes per texel: 1, 2, 4, 8 or 16 */
};

/** The image formats of GL ES 3.1 (§8.23 table 8.27) and GL_NV_image_formats
 *  (the GL 4.2 formats of ARB_shader_image_load_store without rgba10 snorm
 *  variants), described by util_format_description. */
bool
image_format(enum pipe_format f, ImageFormat &out)
{
   switch (f) {
   /* GL ES 3.1 */
   case PIPE_FORMAT_R32G32B32A32_FLOAT:
   case PIPE_FORMAT_R16G16B16A16_FLOAT:
   case PIPE_FORMAT_R32_FLOAT:
   case PIPE_FORMAT_R8G8B8A8_UNORM:
   case PIPE_FORMAT_R8G8B8A8_SNORM:
   case PIPE_FORMAT_R32G32B32A32_SINT:
   case PIPE_FORMAT_R16G16B16A16_SINT:
   case PIPE_FORMAT_R8G8B8A8_SINT:
   case PIPE_FORMAT_R32_SINT:
   case PIPE_FORMAT_R32G32B32A32_UINT:
   case PIPE_FORMAT_R16G16B16A16_UINT:
   case PIPE_FORMAT_R8G8B8A8_UINT:
   case PIPE_FORMAT_R32_UINT:
   /* GL_NV_image_formats */
   case PIPE_FORMAT_R32G32_FLOAT:
   case PIPE_FORMAT_R16G16_FLOAT:
   case PIPE_FORMAT_R11G11B10_FLOAT:
   case PIPE_FORMAT_R16_FLOAT:
   case PIPE_FORMAT_R10G10B10A2_UINT:
   case PIPE_FORMAT_R32G32_UINT:
   case PIPE_FORMAT_R16G16_UINT:
   case PIPE_FORMAT_R8G8_UINT:
   case PIPE_FORMAT_R16_UINT:
   case PIPE_FORMAT_R8_UINT:
   case PIPE_FORMAT_R32G32_SINT:
   case PIPE_FORMAT_R16G16_SINT:
   case PIPE_FORMAT_R8G8_SINT:
   case PIPE_FORMAT_R16_SINT:
   case PIPE_FORMAT_R8_SINT:
   case PIPE_FORMAT_R16G16B16A16_UNORM:
   case PIPE_FORMAT_R10G10B10A2_UNORM:
   case PIPE_FORMAT_R16G16_UNORM:
   case PIPE_FORMAT_R8G8_UNORM:
   case PIPE_FORMAT_R16_UNORM:
   case PIPE_FORMAT_R8_UNORM:
   case PIPE_FORMAT_R16G16B16A16_SNORM:
   case PIPE_FORMAT_R16G16_SNORM:
   case PIPE_FORMAT_R8G8_SNORM:
   case PIPE_FORMAT_R16_SNORM:
   case PIPE_FORMAT_R8_SNORM:
      break;
   default:
      return false;
   }
   const struct util_format_description *d = util_format_description(f);
   out = {};
   out.n = d->nr_channels;
   for (unsigned i = 0; i < out.n; i++)
      out.bits[i] = d->channel[i].size;
   out.type = d->channel[0].type == UTIL_FORMAT_TYPE_FLOAT    ? nir_type_float
              : d->channel[0].type == UTIL_FORMAT_TYPE_SIGNED ? nir_type_int
                                                               : nir_type_uint;
   out.norm = d->channel[0].normalized;
   out.r11g11b10 = f == PIPE_FORMAT_R11G11B10_FLOAT;
   out.bpp = d->block.bits / 8;
   return true;
}

/** Texel dwords (1, 2 or 4; texels of 1 or 2 bytes in the low bits of one)
 *  -> vec4 in the shader's type (missing components 0, 0, 1). */
nir_ssa_def *
unpack_texel(nir_builder *b, const ImageFormat &f, nir_ssa_def *raw)
{
   nir_ssa_def *v;
   const bool is_float = f.type == nir_type_float || f.norm;
   if (f.r11g11b10) {
      v = nir_format_unpack_11f11f10f(b, nir_channel(b, raw, 0));
   } else if (f.bits[0] == 32) {
      v = raw;
   } else if (f.bits[0] == 16 && f.type == nir_type_float) {
      nir_ssa_def *lo = nir_unpack_half_2x16(b, nir_channel(b, raw, 0));
      if (f.n == 4) {
         nir_ssa_def *hi = nir_unpack_half_2x16(b, nir_channel(b, raw, 1));
         v = nir_vec4(b, nir_channel(b, lo, 0), nir_channel(b, lo, 1), nir_channel(b, hi, 0),
                      nir_channel(b, hi, 1));
      } else {
         v = nir_channels(b, lo, (1u << f.n) - 1);
      }
   } else if (f.type == nir_type_int) {
      v = nir_format_unpack_sint(b, raw, f.bits, f.n);
      if (f.norm)
         v = nir_format_snorm_to_float(b, v, f.bits);
   } else {
      v = nir_format_unpack_uint(b, raw, f.bits, f.n);
      if (f.norm)
         v = nir_format_unorm_to_float(b, v, f.bits);
   }
   if (v->num_components < 4) {
      nir_ssa_def *c[4];
      for (unsigned i = 0; i < 4; i++)
         c[i] = i < v->num_components ? nir_channel(b, v, i)
                : i == 3              ? (is_float ? nir_imm_float(b, 1.0f) : nir_imm_int(b, 1))
                                      : nir_imm_int(b, 0);
      v = nir_vec(b, c, 4);
   }
   return v;
}

/** vec4 in the shader's type -> texel dwords (max(1, f.bpp / 4) of them; a
 *  texel of 1 or 2 bytes in the low bits). */
nir_ssa_def *
pack_texel(nir_builder *b, const ImageFormat &f, nir_ssa_def *v)
{
   v = nir_channels(b, v, (1u << f.n) - 1);
   if (f.r11g11b10)
      return nir_format_pack_11f11f10f(b, v);
   if (f.bits[0] == 32)
      return v;
   if (f.bits[0] == 16 && f.type == nir_type_float) {
      if (f.n == 1)
         return nir_pack_half_2x16(b, nir_vec2(b, v, nir_imm_float(b, 0.0f)));
      if (f.n == 2)
         return nir_pack_half_2x16(b, v);
      return nir_vec2(b, nir_pack_half_2x16(b, nir_channels(b, v, 0x3)),
                      nir_pack_half_2x16(b, nir_channels(b, v, 0xc)));
   }
   if (f.norm) {
      v = f.type == nir_type_int ? nir_format_float_to_snorm(b, v, f.bits)
                                 : nir_format_float_to_unorm(b, v, f.bits);
   } else {
      /* integer formats: the value clamped to the format's range, as Mesa's
       * storage-image lowerings do (brw_nir_lower_storage_image.c) */
      v = f.type == nir_type_int ? nir_format_clamp_sint(b, v, f.bits)
                                 : nir_format_clamp_uint(b, v, f.bits);
   }
   if (f.bpp > 4) /* 4 x 16 bits: two dwords */
      return nir_format_bitcast_uvec_unmasked(b, nir_format_mask_uvec(b, v, f.bits), f.bits[0],
                                              32);
   return nir_format_pack_uint(b, v, f.bits, f.n);
}

/** Store the low @bits bits of @value at bit @shift of the dword at @addr
 *  without touching its other bits, which belong to neighbouring texels
 *  other invocations may store at the same time: a compare-and-swap loop
 *  (MEM has no byte masks). */
void
store_subdword(nir_builder *b, nir_ssa_def *addr, nir_ssa_def *value, nir_ssa_def *shift,
               unsigned bits)
{
   nir_ssa_def *mask = nir_ishl(b, nir_imm_int(b, (1u << bits) - 1), shift);
   nir_ssa_def *bits_in = nir_iand(b, nir_ishl(b, value, shift), mask);
   nir_loop *loop = nir_push_loop(b);
   {
      nir_ssa_def *old = nir_load_global(b, addr, 4, 1, 32);
      nir_ssa_def *upd = nir_ior(b, nir_iand(b, old, nir_inot(b, mask)), bits_in);
      nir_ssa_def *seen =
         global_atomic(b, nir_intrinsic_global_atomic_comp_swap, addr, old, upd);
      nir_push_if(b, nir_ieq(b, seen, old));
      nir_jump(b, nir_jump_break);
      nir_pop_if(b, nullptr);
   }
   nir_pop_loop(b, loop);
}

bool
lower_image(nir_builder *b, nir_intrinsic_instr *intr, State &st)
{
   const bool is_atomic = global_atomic_of(intr->intrinsic) != nir_num_intrinsics;
   if (intr->intrinsic != nir_intrinsic_image_load && intr->intrinsic != nir_intrinsic_image_store &&
       intr->intrinsic != nir_intrinsic_image_size && !is_atomic)
      return false;

   if (!nir_src_is_const(intr->src[0]))
      throw CompileError("images indexed by a non-constant expression are not supported");
   const unsigned index = nir_src_as_uint(intr->src[0]);
   if (index >= VLG_MAX_SHADER_IMAGES)
      throw CompileError("image unit " + std::to_string(index) + " beyond the " +
                         std::to_string(VLG_MAX_SHADER_IMAGES) + " slots");
   st.images_used |= 1u << index;
   const enum glsl_sampler_dim dim = nir_intrinsic_image_dim(intr);
   const bool array = nir_intrinsic_image_array(intr);
   if (dim != GLSL_SAMPLER_DIM_2D && dim != GLSL_SAMPLER_DIM_3D && dim != GLSL_SAMPLER_DIM_CUBE &&
       dim != GLSL_SAMPLER_DIM_BUF)
      throw CompileError("image dimension " + std::to_string((int)dim) +
                         " is not supported (2D, 3D, cube, buffer, and 2D and cube arrays only)");

   nir_ssa_def *d0 = driver_uniform(b, st, VLG_DU_IMAGE + 2 * index, nullptr, 1);
   nir_ssa_def *d1 = driver_uniform(b, st, VLG_DU_IMAGE + 2 * index + 1, nullptr, 1);

   if (intr->intrinsic == nir_intrinsic_image_size) {
      /* (width, height, depth or layers); cube: (width, height); cube
       * arrays (OES_texture_cube_map_array): the view's layer-faces / 6 */
      unsigned n = nir_dest_num_components(intr->dest);
      nir_ssa_def *size = nir_channels(b, d1, (1u << n) - 1);
      if (dim == GLSL_SAMPLER_DIM_CUBE && array && n == 3)
         size = nir_vec3(b, nir_channel(b, d1, 0), nir_channel(b, d1, 1),
                         nir_udiv_imm(b, nir_channel(b, d1, 2), 6));
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, size);
      nir_instr_remove(&intr->instr);
      return true;
   }

   ImageFormat f;
   enum pipe_format pf = nir_intrinsic_format(intr);
   if (!image_format(pf, f))
      throw CompileError(std::string("image format ") + util_format_name(pf) +
                         " is not supported (the GL ES 3.1 and GL_NV_image_formats image "
                         "formats only)");
   if (is_atomic && !(f.bpp == 4 && f.n == 1 &&
                      (f.type != nir_type_float ||
                       intr->intrinsic == nir_intrinsic_image_atomic_exchange)))
      throw CompileError("image atomics need r32i or r32ui (exchange: also r32f)");

   /* coordinates: x, y, and z = layer / cube face / 3D slice; image
    * buffers (OES_texture_buffer): x only, the driver's row pitch and
    * sizes beyond x are 0 and 1 */
   nir_ssa_def *coord = intr->src[1].ssa;
   const bool buffer = dim == GLSL_SAMPLER_DIM_BUF;
   const bool has_z = dim == GLSL_SAMPLER_DIM_3D || dim == GLSL_SAMPLER_DIM_CUBE || array;
   nir_ssa_def *x = nir_channel(b, coord, 0);
   nir_ssa_def *y = buffer ? nir_imm_int(b, 0) : nir_channel(b, coord, 1);
   nir_ssa_def *z = has_z ? nir_channel(b, coord, 2) : nir_imm_int(b, 0);
   /* in range: unsigned compares reject negative coordinates too; cube
    * faces 0..5 (d1.z holds 6 for a cube view) */
   nir_ssa_def *in_range = nir_ult(b, x, nir_channel(b, d1, 0));
   if (!buffer)
      in_range = nir_iand(b, in_range, nir_ult(b, y, nir_channel(b, d1, 1)));
   if (has_z)
      in_range = nir_iand(b, in_range, nir_ult(b, z, nir_channel(b, d1, 2)));
   nir_ssa_def *addr = nir_iadd(
      b, nir_channel(b, d0, 0),
      nir_iadd(b, nir_imul_imm(b, x, f.bpp),
               nir_iadd(b, nir_imul(b, y, nir_channel(b, d0, 1)),
                        nir_imul(b, z, nir_channel(b, d0, 2)))));
   const unsigned dwords = MAX2(f.bpp / 4, 1u);
   /* texels of 1 or 2 bytes: the dword holding them, and their bit offset
    * in it (MEM takes 4-byte aligned addresses) */
   nir_ssa_def *shift = nullptr;
   if (f.bpp < 4) {
      shift = nir_ishl_imm(b, nir_iand_imm(b, addr, 3), 3);
      addr = nir_iand_imm(b, addr, ~3u);
   }

   /* the value of an out-of-range load or atomic (defined before the if:
    * phis must start their block) */
   nir_ssa_def *zero = nir_imm_zero(b, intr->intrinsic == nir_intrinsic_image_load ? 4 : 1, 32);
   nir_push_if(b, in_range);
   nir_ssa_def *result = nullptr;
   if (intr->intrinsic == nir_intrinsic_image_load) {
      nir_ssa_def *raw = nir_load_global(b, addr, 4, dwords, 32);
      if (shift)
         raw = nir_ushr(b, raw, shift);
      result = unpack_texel(b, f, raw);
   } else if (intr->intrinsic == nir_intrinsic_image_store) {
      nir_ssa_def *packed = pack_texel(b, f, intr->src[3].ssa);
      if (shift)
         store_subdword(b, addr, packed, shift, f.bpp * 8);
      else
         nir_store_global(b, addr, 4, packed, (1u << dwords) - 1);
   } else {
      nir_intrinsic_op g = global_atomic_of(intr->intrinsic);
      result = global_atomic(b, g, addr, intr->src[3].ssa,
                             g == nir_intrinsic_global_atomic_comp_swap ? intr->src[4].ssa
                                                                          : nullptr);
   }
   nir_pop_if(b, nullptr);
   if (result) {
      nir_ssa_def *v = nir_if_phi(b, result, zero);
      if (intr->intrinsic == nir_intrinsic_image_load)
         v = nir_channels(b, v, (1u << nir_dest_num_components(intr->dest)) - 1);
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, v);
   }
   nir_instr_remove(&intr->instr);
   return true;
}

bool
lower_instr(nir_builder *b, nir_instr *instr, void *data)
{
   if (instr->type != nir_instr_type_intrinsic)
      return false;
   State &st = *(State *)data;
   nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
   b->cursor = nir_before_instr(instr);
   if (intr->intrinsic == nir_intrinsic_load_num_workgroups) {
      nir_ssa_def *n = nir_channels(b, driver_uniform(b, st, VLG_DU_NUM_WORKGROUPS, nullptr, 1),
                                    0x7);
      nir_ssa_def_rewrite_uses(&intr->dest.ssa, n);
      nir_instr_remove(instr);
      return true;
   }
   const char *name = nir_intrinsic_infos[intr->intrinsic].name;
   if (!strncmp(name, "image_deref", 11)) {
      /* what gl_nir_lower_images does (st/mesa leaves compute shaders'
       * image derefs to the driver): the image slot is the variable's
       * driver_location (st_nir_assign_uniform_locations) + the array
       * index, which must be constant here */
      nir_deref_instr *deref = nir_src_as_deref(intr->src[0]);
      nir_variable *var = nir_deref_instr_get_variable(deref);
      if (!var || var->data.bindless)
         throw CompileError("bindless images are not supported");
      unsigned index = var->data.driver_location;
      for (nir_deref_instr *d = deref; d->deref_type != nir_deref_type_var;
           d = nir_deref_instr_parent(d)) {
         if (d->deref_type != nir_deref_type_array || !nir_src_is_const(d->arr.index))
            throw CompileError("images indexed by a non-constant expression are not supported");
         unsigned stride = 1;
         if (glsl_type_is_array(d->type))
            stride = glsl_get_aoa_size(d->type);
         index += nir_src_as_uint(d->arr.index) * stride;
      }
      nir_rewrite_image_intrinsic(intr, nir_imm_int(b, index), false);
      name = nir_intrinsic_infos[intr->intrinsic].name;
   }
   if (!strncmp(name, "image_", 6))
      return lower_image(b, intr, st);
   if (!strncmp(name, "bindless_image", 14))
      throw CompileError(std::string("NIR intrinsic '") + name + "' is not supported");
   return lower_ssbo(b, intr, st);
}

/* nir_format_pack/unpack_11f11f10f use the split half-float ops; the
 * backend has the vector ones (vlg_isel.cpp pack/unpack_half_2x16). */
bool
lower_half_split(nir_builder *b, nir_instr *instr, void *)
{
   if (instr->type != nir_instr_type_alu)
      return false;
   nir_alu_instr *alu = nir_instr_as_alu(instr);
   if (alu->op != nir_op_pack_half_2x16_split && alu->op != nir_op_unpack_half_2x16_split_x &&
       alu->op != nir_op_unpack_half_2x16_split_y)
      return false;
   b->cursor = nir_before_instr(instr);
   nir_ssa_def *r;
   if (alu->op == nir_op_pack_half_2x16_split)
      r = nir_pack_half_2x16(b, nir_vec2(b, nir_ssa_for_alu_src(b, alu, 0),
                                         nir_ssa_for_alu_src(b, alu, 1)));
   else
      r = nir_channel(b, nir_unpack_half_2x16(b, nir_ssa_for_alu_src(b, alu, 0)),
                      alu->op == nir_op_unpack_half_2x16_split_y);
   nir_ssa_def_rewrite_uses(&alu->dest.dest.ssa, r);
   nir_instr_remove(instr);
   return true;
}

} // namespace

bool
lower_memory(nir_shader *nir, unsigned driver_base, uint32_t *ssbos_used, uint32_t *images_used)
{
   State st;
   st.driver_base = driver_base;
   bool progress = nir_shader_instructions_pass(nir, lower_instr, nir_metadata_none, &st);
   if (progress)
      nir_shader_instructions_pass(nir, lower_half_split,
                                   (nir_metadata)(nir_metadata_block_index |
                                                  nir_metadata_dominance),
                                   nullptr);
   *ssbos_used = st.ssbos_used;
   *images_used = st.images_used;
   return progress;
}

} // namespace vlgpu

bool
vlg_compiler_image_format_supported(unsigned pipe_format)
{
   vlgpu::ImageFormat f;
   return vlgpu::image_format((enum pipe_format)pipe_format, f);
}
