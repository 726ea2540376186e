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

static bool
lower_all_offsets(const nir_instr *instr, const void *data)
{
   (void)instr;
   (void)data;
   return true;
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

static void
optimize_loop(nir_shader *nir)
{
   bool progress;
   unsigned iterations = 0;
   do {
      progress = false;
      NIR_PASS_V(nir, nir_lower_vars_to_ssa);
      progress |= OPT(nir_opt_copy_prop_vars);
      progress |= OPT(nir_opt_dead_write_vars);
      progress |= OPT(nir_copy_prop);
      progress |= OPT(nir_opt_remove_phis);
      progress |= OPT(nir_opt_dce);
      progress |= OPT(nir_opt_dead_cf);
      progress |= OPT(nir_opt_cse);
      progress |= OPT(nir_opt_peephole_select, 16, true, true);
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
   } while (progress && ++iterations < 1000);
}

/* Without the optimisation loop: only what the lowering options need
 * (they act through nir_opt_algebraic) and SSA construction. */
static void
mandatory_lowering(nir_shader *nir)
{
   bool progress;
   unsigned iterations = 0;
   do {
      progress = false;
      NIR_PASS_V(nir, nir_lower_vars_to_ssa);
      progress |= OPT(nir_opt_algebraic);
      progress |= OPT(nir_copy_prop);
      progress |= OPT(nir_opt_dce);
   } while (progress && ++iterations < 1000);
}

void
nir_prepare(nir_shader *nir, const PipelineOptions &o, IoInfo &io)
{
   const bool optimize = o.nir_opt;
   if (nir->info.stage != MESA_SHADER_VERTEX && nir->info.stage != MESA_SHADER_FRAGMENT)
      throw CompileError(std::string("stage ") + _mesa_shader_stage_to_string(nir->info.stage) +
                         " is not supported (vertex and fragment shaders only)");

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
   NIR_PASS_V(nir, nir_lower_io, (nir_variable_mode)(nir_var_shader_in | nir_var_shader_out),
              type_size_vec4, (nir_lower_io_options)0);
   NIR_PASS_V(nir, nir_lower_io, nir_var_uniform, uniform_type_size_vec4, (nir_lower_io_options)0);
   NIR_PASS_V(nir, nir_lower_system_values);

   nir_lower_tex_options tex = {};
   tex.lower_txp = ~0u;
   tex.lower_txf_offset = true;
   tex.lower_rect_offset = true;
   tex.lower_offset_filter = lower_all_offsets;
   tex.lower_rect = true;
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

   bool progress;
   unsigned iterations = 0;
   do {
      progress = false;
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
   } while (progress && ++iterations < 1000);

   NIR_PASS_V(nir, nir_lower_bool_to_int32);
   NIR_PASS_V(nir, nir_opt_constant_folding);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   NIR_PASS_V(nir, nir_lower_to_source_mods,
              (nir_lower_to_source_mods_flags)nir_lower_float_source_mods);
   NIR_PASS_V(nir, nir_copy_prop);
   NIR_PASS_V(nir, nir_opt_dce);
   NIR_PASS_V(nir, nir_remove_dead_variables, nir_var_function_temp, nullptr);

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
