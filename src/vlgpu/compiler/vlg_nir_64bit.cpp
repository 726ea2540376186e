/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_nir_64bit.cpp — 64-bit integers (ARB_gpu_shader_int64) on 32-bit
 * registers. st/mesa runs nir_lower_int64 (lower_int64_options: every option,
 * vlg_nir_options.c), which turns every 64-bit ALU op into 32-bit ones on
 * the halves (unpack_64_2x32_split_x/y in, pack_64_2x32_split out); what it
 * leaves are the 64-bit values that memory gives and takes. This pass splits
 * those:
 *
 *  - load_uniform of n 64-bit components: vec4 slot s holds components
 *    2s, 2s+1 as dword pairs (st/mesa's unpacked uniform layout,
 *    glsl_count_vec4_slots: a 64-bit vec3/vec4 takes two slots), so one
 *    32-bit load of up to 4 dwords per slot;
 *  - load_ubo / load_global / load_shared of n 64-bit components: one
 *    2-dword load per component at byte offset + 8i (LDB and MEM never cross
 *    a vec4 then: std140/std430 align 64-bit scalars to 8 bytes);
 *  - store_global / store_shared: one 2-dword store per written component;
 *
 * each result packed again with pack_64_2x32_split, which nir_opt_algebraic
 * then cancels against the unpacks of nir_lower_int64. Shader inputs and
 * outputs (flat 64-bit varyings) are split by nir_lower_io's
 * nir_lower_io_lower_64bit_to_32 (vlg_nir.cpp). lower_64bit_alu, in the
 * optimisation loop, handles what the loop makes of 64-bit values again
 * (peephole_select's bcsels, vecNs, phis): scalarised, looked through,
 * nir_lower_64bit_phis and nir_lower_int64;
 * check_no_64bit reports a shader that still has a 64-bit value after the
 * optimisation loop as a CompileError naming the instruction.
 */
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"

#include "vlg_passes.h"

#include <string>

namespace vlgpu {

namespace {

/** Byte-offset (or address) source of a load/store, -1 if none. */
int
offset_src(const nir_intrinsic_instr *intr)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_load_ubo:
      return 1;
   case nir_intrinsic_load_global:
   case nir_intrinsic_load_shared:
      return 0;
   case nir_intrinsic_store_global:
   case nir_intrinsic_store_shared:
      return 1;
   default:
      return -1;
   }
}

/** A copy of @intr at the cursor reading or writing @comps dwords, its
 *  offset source advanced by @add (bytes, or vec4 slots for load_uniform). */
nir_intrinsic_instr *
narrow_copy(nir_builder *b, nir_intrinsic_instr *intr, unsigned comps, unsigned add)
{
   const int s = intr->intrinsic == nir_intrinsic_load_uniform ? 0 : offset_src(intr);
   nir_ssa_def *off = add ? nir_iadd_imm(b, intr->src[s].ssa, add) : nullptr;
   nir_intrinsic_instr *c = nir_instr_as_intrinsic(nir_instr_clone(b->shader, &intr->instr));
   c->num_components = uint8_t(comps);
   if (nir_intrinsic_infos[intr->intrinsic].has_dest) {
      c->dest.ssa.num_components = uint8_t(comps);
      c->dest.ssa.bit_size = 32;
   }
   if (nir_intrinsic_has_align_mul(c)) {
      const unsigned mul = nir_intrinsic_align_mul(c);
      nir_intrinsic_set_align(c, mul, (nir_intrinsic_align_offset(c) + add) % mul);
   }
   if (nir_intrinsic_has_dest_type(c))
      nir_intrinsic_set_dest_type(c, nir_type_uint32);
   /* inserted before its sources change: a source is rewritten only once its
    * uses are linked */
   nir_builder_instr_insert(b, &c->instr);
   if (off)
      nir_instr_rewrite_src(&c->instr, &c->src[s], nir_src_for_ssa(off));
   return c;
}

bool
lower_load(nir_builder *b, nir_intrinsic_instr *intr)
{
   const unsigned n = intr->dest.ssa.num_components;
   nir_ssa_def *comp[NIR_MAX_VEC_COMPONENTS];
   if (intr->intrinsic == nir_intrinsic_load_uniform) {
      for (unsigned j = 0; 2 * j < n; j++) {
         const unsigned k = MIN2(2u, n - 2 * j);
         nir_intrinsic_instr *c = narrow_copy(b, intr, 2 * k, j);
         for (unsigned i = 0; i < k; i++)
            comp[2 * j + i] = nir_pack_64_2x32_split(b, nir_channel(b, &c->dest.ssa, 2 * i),
                                                     nir_channel(b, &c->dest.ssa, 2 * i + 1));
      }
   } else {
      for (unsigned i = 0; i < n; i++) {
         nir_intrinsic_instr *c = narrow_copy(b, intr, 2, 8 * i);
         comp[i] = nir_pack_64_2x32_split(b, nir_channel(b, &c->dest.ssa, 0),
                                          nir_channel(b, &c->dest.ssa, 1));
      }
   }
   nir_ssa_def_rewrite_uses(&intr->dest.ssa, nir_vec(b, comp, n));
   nir_instr_remove(&intr->instr);
   return true;
}

bool
lower_store(nir_builder *b, nir_intrinsic_instr *intr)
{
   nir_ssa_def *value = intr->src[0].ssa;
   const unsigned wrmask = nir_intrinsic_write_mask(intr);
   for (unsigned i = 0; i < value->num_components; i++) {
      if (!(wrmask >> i & 1))
         continue;
      nir_ssa_def *v = nir_channel(b, value, i);
      nir_ssa_def *halves =
         nir_vec2(b, nir_unpack_64_2x32_split_x(b, v), nir_unpack_64_2x32_split_y(b, v));
      nir_intrinsic_instr *c = narrow_copy(b, intr, 2, 8 * i);
      nir_intrinsic_set_write_mask(c, 0x3);
      nir_instr_rewrite_src(&c->instr, &c->src[0], nir_src_for_ssa(halves));
   }
   nir_instr_remove(&intr->instr);
   return true;
}

bool
lower_instr(nir_builder *b, nir_instr *instr, void *)
{
   if (instr->type != nir_instr_type_intrinsic)
      return false;
   nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
   b->cursor = nir_before_instr(instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_load_uniform:
   case nir_intrinsic_load_ubo:
   case nir_intrinsic_load_global:
   case nir_intrinsic_load_shared:
      return intr->dest.ssa.bit_size == 64 && lower_load(b, intr);
   case nir_intrinsic_store_global:
   case nir_intrinsic_store_shared:
      return intr->src[0].ssa->bit_size == 64 && lower_store(b, intr);
   default:
      return false;
   }
}

bool
is_64bit_alu(const nir_instr *instr, const void *)
{
   if (instr->type != nir_instr_type_alu)
      return false;
   const nir_alu_instr *alu = nir_instr_as_alu(instr);
   if (alu->dest.dest.ssa.bit_size == 64)
      return true;
   for (unsigned i = 0; i < nir_op_infos[alu->op].num_inputs; i++)
      if (nir_src_bit_size(alu->src[i].src) == 64)
         return true;
   return false;
}

/* A 64-bit source that reads channels of a vecN which all come from one
 * value reads that value instead (nir_opt_copy_propagate only looks
 * through vecNs that are plain moves): unpack_64_2x32_split_x(vec.y) meets
 * the pack_64_2x32_split it can cancel against. */
bool
forward_vec64(nir_builder *, nir_instr *instr, void *)
{
   if (instr->type != nir_instr_type_alu)
      return false;
   nir_alu_instr *alu = nir_instr_as_alu(instr);
   bool progress = false;
   for (unsigned i = 0; i < nir_op_infos[alu->op].num_inputs; i++) {
      nir_alu_src &src = alu->src[i];
      if (nir_src_bit_size(src.src) != 64 || src.src.ssa->parent_instr->type != nir_instr_type_alu)
         continue;
      nir_alu_instr *vec = nir_instr_as_alu(src.src.ssa->parent_instr);
      if (!nir_op_is_vec(vec->op))
         continue;
      const unsigned n = nir_ssa_alu_instr_src_components(alu, i);
      nir_ssa_def *def = vec->src[src.swizzle[0]].src.ssa;
      bool same = true;
      for (unsigned c = 1; c < n; c++)
         same &= vec->src[src.swizzle[c]].src.ssa == def;
      if (!same)
         continue;
      for (unsigned c = 0; c < n; c++)
         src.swizzle[c] = vec->src[src.swizzle[c]].swizzle[0];
      nir_instr_rewrite_src_ssa(instr, &src.src, def);
      progress = true;
   }
   return progress;
}

bool
report_64bit(nir_ssa_def *def, void *state)
{
   if (def->bit_size != 64)
      return true;
   *static_cast<nir_instr **>(state) = def->parent_instr;
   return false;
}

} // namespace

bool
lower_64bit_access(nir_shader *nir)
{
   return nir_shader_instructions_pass(
      nir, lower_instr, (nir_metadata)(nir_metadata_block_index | nir_metadata_dominance), nullptr);
}

bool
lower_64bit_alu(nir_shader *nir)
{
   if (!nir->options->lower_int64_options)
      return false;
   bool progress = false;
   NIR_PASS(progress, nir, nir_lower_alu_to_scalar, is_64bit_alu, nullptr);
   NIR_PASS(progress, nir, nir_shader_instructions_pass, forward_vec64,
            (nir_metadata)(nir_metadata_block_index | nir_metadata_dominance), nullptr);
   NIR_PASS(progress, nir, nir_lower_64bit_phis);
   NIR_PASS(progress, nir, nir_lower_int64);
   return progress;
}

void
check_no_64bit(nir_shader *nir)
{
   nir_foreach_function (func, nir) {
      if (!func->impl)
         continue;
      nir_foreach_block (block, func->impl) {
         nir_foreach_instr (instr, block) {
            nir_instr *bad = nullptr;
            if (nir_foreach_ssa_def(instr, report_64bit, &bad))
               continue;
            char *text = nir_instr_as_str(bad, nullptr);
            const std::string what(text);
            ralloc_free(text);
            throw CompileError("a 64-bit value the compiler does not split: " + what);
         }
      }
   }
}

} // namespace vlgpu
