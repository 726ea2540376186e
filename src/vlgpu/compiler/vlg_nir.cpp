/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_nir.cpp — NIR lowering and optimisation for the vec4 VL-IW target,
 * after etnaviv_compiler_nir.c, lima_program.c and v3d's pipeline (Mesa
 * 22.3.6): variables to io intrinsics with vec4 slots (nir_lower_io with
 * glsl_count_attribute_slots), indirect temporaries unrolled, textures
 * lowered to what TEX/TXB/TXL/TXD/TXF/TXQ take, the usual optimisation loop
 * with loop unrolling, booleans as 32-bit masks, float source modifiers
 * folded into ALU sources, and out of SSA (phi webs to registers, vecN to
 * write-masked MOVs) so instruction selection sees vec4 registers.
 */
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/nir_types.h"

#include "vlg_compiler.h"
#include "vlg_limits.h"
#include "vlg_passes.h"

namespace vlgpu {

static int
type_size_vec4(const struct glsl_type *type, bool bindless)
{
   (void)bindless;
   return glsl_count_attribute_slots(type, false);
}

static int
uniform_type_size_vec4(const struct glsl_type *type, bool bindless)
{
   /* st/mesa's st_unpacked_uniforms_type_size */
   return glsl_count_vec4_slots(type, false, bindless);
}

/* st/mesa's shared_type_info (st_glsl_to_nir.cpp): natural size, vec3
 * aligned like vec4, booleans 4 bytes. */
static void
shared_type_info(const struct glsl_type *type, unsigned *size, unsigned *align)
{
   uint32_t comp_size = glsl_type_is_boolean(type) ? 4 : glsl_get_bit_size(type) / 8;
   unsigned length = glsl_get_vector_elements(type);
   *size = comp_size * length;
   *align = comp_size * (length == 3 ? 4 : length);
}

bool
tex_unit_offsets(const nir_instr *instr, int8_t out[3])
{
   const nir_tex_instr *tex = nir_instr_as_tex(instr);
   out[0] = out[1] = out[2] = 0;
   const int i = nir_tex_instr_src_index(tex, nir_tex_src_offset);
   if (i < 0)
      return true;
   switch (tex->op) {
   case nir_texop_tex:
   case nir_texop_txb:
   case nir_texop_txl:
   case nir_texop_txd:
   case nir_texop_tg4:
      break;
   default: /* txf: added to its integer coordinates (lower_txf_offset) */
      return false;
   }
   const nir_src &src = tex->src[i].src;
   if (!nir_src_is_const(src))
      return false;
   const unsigned n = nir_src_num_components(src);
   if (n > 3)
      return false;
   for (unsigned c = 0; c < n; c++) {
      const int64_t v = nir_src_comp_as_int(src, c);
      if (v < VLG_MIN_TEXEL_OFFSET || v > VLG_MAX_TEXEL_OFFSET)
         return false;
      out[c] = (int8_t)v;
   }
   return true;
}

/* nir_lower_tex's offset filter: the offsets the texture unit cannot take
 * (tex_unit_offsets) are added to the coordinates instead, by the size of
 * level 0 for normalised coordinates; that is exact only where the op reads
 * the base level (tg4, whose run-time offsets GLSL 4.00 / ES 3.10 allow);
 * GLSL requires constant offsets everywhere else. */
static bool
lower_offset_in_coordinates(const nir_instr *instr, const void *data)
{
   (void)data;
   int8_t off[3];
   return !tex_unit_offsets(instr, off);
}

static unsigned
interp_of(const nir_variable *var)
{
   const struct glsl_type *t = glsl_without_array_or_matrix(var->type);
   enum glsl_base_type bt = glsl_get_base_type(t);
   if (bt == GLSL_TYPE_INT || bt == GLSL_TYPE_UINT || bt == GLSL_TYPE_BOOL)
      return VLG_INTERP_FLAT;
   switch (var->data.interpolation) {
   case INTERP_MODE_FLAT:
      return VLG_INTERP_FLAT;
   case INTERP_MODE_NOPERSPECTIVE:
      return VLG_INTERP_LINEAR;
   default:
      return VLG_INTERP_PERSPECTIVE;
   }
}

static void
collect_io_info(nir_shader *nir, IoInfo &io)
{
   if (nir->info.stage != MESA_SHADER_FRAGMENT)
      return;
   nir_foreach_shader_in_variable(var, nir)
   {
      unsigned slots = glsl_count_attribute_slots(var->type, false);
      for (unsigned i = 0; i < slots; i++)
         io.fs_interp[var->data.location + i] = interp_of(var);
   }
}

/*
 * Multisample textures (ARB_texture_multisample, GL ES 3.1 §8.8): a
 * 4-sample surface keeps the samples of a pixel side by side (docs/hw.md
 * "Multisampling": sample s of pixel x is texel 4x + s of a row; the OMU
 * writes it so, sim/func/pipe/func_omu.cpp omu_sample_view), and the driver
 * describes a 4-sample sampler view as a single-sample 2D texture 4 times as
 * wide (vlg_state.c). So:
 *   txf_ms (texelFetch(sampler2DMS, p, s)) -> txf at (4 p.x + s, p.y), lod 0;
 *   txs (textureSize)                      -> txs with x / 4;
 *   query_levels -> 1, texture_samples -> 4, samples_identical -> false
 *   (always allowed: "may return false").
 * Not handled: multisample textures created with one sample (st/mesa makes
 * them 1-sample resources, whose views are not 4 times as wide).
 */
static bool
lower_ms_tex(nir_builder *b, nir_instr *instr, void *data)
{
   (void)data;
   if (instr->type != nir_instr_type_tex)
      return false;
   nir_tex_instr *tex = nir_instr_as_tex(instr);
   if (tex->sampler_dim != GLSL_SAMPLER_DIM_MS)
      return false;
   b->cursor = nir_before_instr(instr);
   switch (tex->op) {
   case nir_texop_txf_ms: {
      int ci = nir_tex_instr_src_index(tex, nir_tex_src_coord);
      int si = nir_tex_instr_src_index(tex, nir_tex_src_ms_index);
      VLG_CHECK(ci >= 0 && si >= 0, "txf_ms without a coordinate or sample index");
      nir_ssa_def *coord = tex->src[ci].src.ssa;
      nir_ssa_def *x = nir_iadd(b, nir_ishl_imm(b, nir_channel(b, coord, 0), 2),
                                tex->src[si].src.ssa);
      nir_ssa_def *comps[4];
      for (unsigned c = 0; c < coord->num_components; c++)
         comps[c] = c == 0 ? x : nir_channel(b, coord, c);
      nir_instr_rewrite_src(&tex->instr, &tex->src[ci].src,
                            nir_src_for_ssa(nir_vec(b, comps, coord->num_components)));
      nir_tex_instr_remove_src(tex, si);
      if (nir_tex_instr_src_index(tex, nir_tex_src_lod) < 0)
         nir_tex_instr_add_src(tex, nir_tex_src_lod, nir_src_for_ssa(nir_imm_int(b, 0)));
      tex->op = nir_texop_txf;
      tex->sampler_dim = GLSL_SAMPLER_DIM_2D;
      return true;
   }
   case nir_texop_txs: {
      tex->sampler_dim = GLSL_SAMPLER_DIM_2D;
      b->cursor = nir_after_instr(instr);
      nir_ssa_def *size = &tex->dest.ssa;
      nir_ssa_def *comps[4];
      for (unsigned c = 0; c < size->num_components; c++)
         comps[c] = c == 0 ? nir_ushr_imm(b, nir_channel(b, size, 0), 2) : nir_channel(b, size, c);
      nir_ssa_def *v = nir_vec(b, comps, size->num_components);
      nir_ssa_def_rewrite_uses_after(size, v, v->parent_instr);
      return true;
   }
   case nir_texop_query_levels:
   case nir_texop_texture_samples:
   case nir_texop_samples_identical: {
      nir_ssa_def *v = tex->op == nir_texop_query_levels     ? nir_imm_int(b, 1)
                       : tex->op == nir_texop_texture_samples ? nir_imm_int(b, 4)
                                                               : nir_imm_false(b);
      nir_ssa_def_rewrite_uses(&tex->dest.ssa, v);
      nir_instr_remove(instr);
      return true;
   }
   default:
      return false;
   }
}

/* nir_opt_vectorize filter: vec4, except for values read by texture
 * instructions (a TEX reads its coordinates from R[c].xyz, so a
 * vectorised coordinate in .zw would need a MOV). */
static uint8_t
vectorize_filter(const nir_instr *instr, const void *data)
{
   (void)data;
   if (instr->type != nir_instr_type_alu)
      return 0;
   const nir_alu_instr *alu = nir_instr_as_alu(instr);
   nir_foreach_use(src,
                   &alu->dest.dest.ssa) if (src->parent_instr->type == nir_instr_type_tex) return 1;
   return 4;
}

#define OPT(pass, ...)                                                                             \
   ({                                                                                              \
      bool this_progress = false;                                                                  \
      NIR_PASS(this_progress, nir, pass, ##__VA_ARGS__);                                           \
      this_progress;                                                                               \
   })

/* Run @round (a round of passes; true when one of them made progress) again
 * until a round makes none, at most 1000 rounds: the cap stops passes that
 * keep undoing each other. */
template <typename Round>
static void
until_no_progress(Round round)
{
   for (unsigned rounds = 0; round() && ++rounds < 1000;)
      ;
}

static void
optimize_loop(nir_shader *nir)
{
   until_no_progress([nir] {
      bool progress = false;
      NIR_PASS_V(nir, nir_lower_vars_to_ssa);
      progress |= OPT(nir_opt_copy_prop_vars);
      progress |= OPT(nir_opt_dead_write_vars);
      progress |= OPT(nir_copy_prop);
      progress |= OPT(nir_opt_remove_phis);
      progress |= OPT(nir_opt_dce);
      progress |= OPT(nir_opt_dead_cf);
      progress |= OPT(nir_opt_cse);
      progress |= OPT(nir_opt_peephole_select, 16, true, true);
      /* 64-bit phis, bcsels and vecs the passes above make of int64 values */
      progress |= OPT(lower_64bit_alu);
      progress |= OPT(nir_opt_intrinsics);
      progress |= OPT(nir_opt_algebraic);
      progress |= OPT(nir_opt_constant_folding);
      progress |= OPT(nir_opt_undef);
      if (OPT(nir_opt_trivial_continues)) {
         progress = true;
         OPT(nir_copy_prop);
         OPT(nir_opt_dce);
      }
      progress |= OPT(nir_opt_if, nir_opt_if_optimize_phi_true_false);
      progress |= OPT(nir_opt_loop_unroll);
      progress |= OPT(nir_opt_shrink_vectors);
      return progress;
   });
}

/* Without the optimisation loop: only what the lowering options need
 * (they act through nir_opt_algebraic) and SSA construction. */
static void
mandatory_lowering(nir_shader *nir)
{
   until_no_progress([nir] {
      bool progress = false;
      NIR_PASS_V(nir, nir_lower_vars_to_ssa);
      progress |= OPT(nir_opt_algebraic);
      progress |= OPT(nir_copy_prop);
      progress |= OPT(nir_opt_dce);
      return progress;
   });
}

void
nir_prepare(nir_shader *nir, const PipelineOptions &o, IoInfo &io)
{
   const bool optimize = o.nir_opt;
   if (nir->info.stage != MESA_SHADER_VERTEX && nir->info.stage != MESA_SHADER_FRAGMENT &&
       nir->info.stage != MESA_SHADER_COMPUTE && nir->info.stage != MESA_SHADER_GEOMETRY)
      throw CompileError(std::string("stage ") + _mesa_shader_stage_to_string(nir->info.stage) +
                         " is not supported (vertex, geometry, fragment and compute shaders only)");
   if (nir->info.stage == MESA_SHADER_GEOMETRY) {
      /* vertex stream 0 only (the hardware has no streams, docs/hw.md
       * "Geometry shaders"; EmitStreamVertex is ARB_gpu_shader5 / GL 4);
       * layout(invocations) up to shader_state.gs_invocations' 32 */
      if (nir->info.gs.invocations > VLG_HW_MAX_GS_INVOCATIONS)
         throw CompileError("geometry shader invocations " +
                            std::to_string(nir->info.gs.invocations) + " above " +
                            std::to_string(VLG_HW_MAX_GS_INVOCATIONS));
      if (nir->info.gs.active_stream_mask & ~1u)
         throw CompileError("geometry shader vertex streams other than 0 are not supported");
      switch (nir->info.gs.output_primitive) {
      case SHADER_PRIM_POINTS:
      case SHADER_PRIM_LINE_STRIP:
      case SHADER_PRIM_TRIANGLE_STRIP:
         break;
      default:
         throw CompileError("geometry shader output primitive " +
                            std::to_string((int)nir->info.gs.output_primitive) +
                            " is not supported (points, line_strip, triangle_strip)");
      }
   }
   const bool compute = nir->info.stage == MESA_SHADER_COMPUTE;

   NIR_PASS_V(nir, nir_lower_global_vars_to_local);
   NIR_PASS_V(nir, nir_split_var_copies);
   NIR_PASS_V(nir, nir_lower_var_copies);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);
   /* No indirect register-file access: unroll into if-ladders. */
   NIR_PASS_V(nir, nir_lower_indirect_derefs,
              (nir_variable_mode)(nir_var_shader_in | nir_var_shader_out | nir_var_function_temp |
                                  nir_var_shader_temp),
              UINT32_MAX);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);

   collect_io_info(nir, io);
   /* 64-bit inputs, outputs and uniforms as pairs of 32-bit components
    * (ARB_gpu_shader_int64; vlg_nir_64bit.cpp does the rest) */
   NIR_PASS_V(nir, nir_lower_io, (nir_variable_mode)(nir_var_shader_in | nir_var_shader_out),
              type_size_vec4, nir_lower_io_lower_64bit_to_32);
   NIR_PASS_V(nir, nir_lower_io, nir_var_uniform, uniform_type_size_vec4,
              nir_lower_io_lower_64bit_to_32);
   NIR_PASS_V(nir, nir_lower_system_values);
   if (compute) {
      /* shared variables to 32-bit offsets as st/mesa does (a no-op on its
       * shaders, which arrive lowered) */
      NIR_PASS_V(nir, nir_lower_vars_to_explicit_types, nir_var_mem_shared, shared_type_info);
      NIR_PASS_V(nir, nir_lower_explicit_io, nir_var_mem_shared, nir_address_format_32bit_offset);
      /* global_invocation_id from the workgroup id and size; the size is a
       * compile-time constant (no variable group size in GL ES 3.1) */
      NIR_PASS_V(nir, nir_lower_compute_system_values, nullptr);
   }
   /* driver uniforms (SSBO and image descriptors, the grid size) follow the
    * shader's own uniform slots */
   io.driver_base = nir->num_uniforms;
   /* constant SSBO indices and image units visible as constants */
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_constant_folding);
   NIR_PASS_V(nir, nir_copy_prop);
   io.shared_size = compute ? nir->info.shared_size : 0;
   NIR_PASS_V(nir, lower_memory, io.driver_base, &io.ssbos_used, &io.images_used);
   /* sampler and uniform block arrays indexed at run time (EXT_gpu_shader5) */
   NIR_PASS_V(nir, lower_dynamic_indexing);
   /* what nir_lower_int64 left 64 bits wide: memory access and phis */
   NIR_PASS_V(nir, lower_64bit_access);
   NIR_PASS_V(nir, lower_64bit_alu);

   NIR_PASS_V(nir, nir_shader_instructions_pass, lower_ms_tex, nir_metadata_block_index |
              nir_metadata_dominance, nullptr);

   nir_lower_tex_options tex = {};
   tex.lower_txp = ~0u;
   tex.lower_txf_offset = true;
   /* texel offsets in the texture unit (TOFF), also on rectangle textures,
    * which it samples in texels (the driver's samplers say
    * normalized_coords = false for them, as st/mesa asks) */
   tex.lower_offset_filter = lower_offset_in_coordinates;
   tex.lower_invalid_implicit_lod = true;
   tex.lower_txd_clamp_bindless_sampler = true;
   tex.lower_txb_shadow_clamp = true;
   tex.lower_txd_shadow_clamp = true;
   tex.lower_txd_offset_clamp = true;
   tex.lower_tg4_offsets = true; /* textureGatherOffsets: four TG4 */
   NIR_PASS_V(nir, nir_lower_tex, &tex);

   nir_lower_idiv_options idiv = {};
   NIR_PASS_V(nir, nir_lower_idiv, &idiv);
   NIR_PASS_V(nir, nir_lower_alu); /* mul_high and the bit ops the options lower */
   NIR_PASS_V(nir, nir_lower_flrp, 16 | 32 | 64, false);

   if (optimize)
      optimize_loop(nir);
   else
      mandatory_lowering(nir);
   /* before algebraic_late fuses the products of the sums into MADs */
   if (o.reassoc && split_long_sums(nir, 8)) {
      NIR_PASS_V(nir, nir_copy_prop);
      NIR_PASS_V(nir, nir_opt_dce);
   }

   until_no_progress([nir, optimize, &o] {
      bool progress = false;
      progress |= OPT(nir_opt_algebraic_late);
      progress |= OPT(nir_opt_constant_folding);
      progress |= OPT(nir_copy_prop);
      progress |= OPT(nir_opt_dce);
      if (optimize)
         progress |= OPT(nir_opt_cse);
      /* after algebraic_late: MADs are fused per component first (a vec2
       * MUL merged early would no longer fuse with its two different ADDs) */
      if (optimize && o.vectorize)
         progress |= OPT(nir_opt_vectorize, vectorize_filter, nullptr);
      return progress;
   });

   NIR_PASS_V(nir, nir_lower_bool_to_int32);
   NIR_PASS_V(nir, nir_opt_constant_folding);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   NIR_PASS_V(nir, nir_lower_to_source_mods,
              (nir_lower_to_source_mods_flags)nir_lower_float_source_mods);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   NIR_PASS_V(nir, nir_remove_dead_variables, nir_var_function_temp, nullptr);

   check_no_64bit(nir);
   NIR_PASS_V(nir, nir_convert_from_ssa, true);
   NIR_PASS_V(nir, nir_lower_vec_to_movs, nullptr, nullptr);
   NIR_PASS_V(nir, nir_opt_dce);

   nir_foreach_function (func, nir) {
      if (!func->impl)
         continue;
      nir_index_ssa_defs(func->impl);
      nir_index_local_regs(func->impl);
      nir_index_blocks(func->impl);
   }
}

} // namespace vlgpu
