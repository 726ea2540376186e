/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_nir_indexing.cpp — run-time indices of sampler arrays and uniform
 * block arrays (GL ES 3.2 / EXT_gpu_shader5 §4.1.7.1 and §4.3.9: "indexed
 * with a dynamically uniform integral expression") turned into a binary
 * search of if/else over the constant indices the hardware takes.
 *
 * TEX's texture unit (tex.unit, 4 bits) and LDB's buffer slot (ldb.slot)
 * are fields of the instruction (docs/isa.md); no register can select
 * them. After st/mesa's gl_nir_lower_samplers a texture of a sampler array
 * is texture_index + the texture_offset source, a block of a uniform block
 * array load_ubo with a non-constant block index. For each such
 * instruction this pass emits
 *
 *     if (i < first + n/2) { if (i < ...) ... } else { ... }
 *
 * down to one copy of the instruction per possible index with that index
 * made constant, and a phi of their results: ceil(log2(n)) branches on the
 * way to the one copy that runs. The index is dynamically uniform (the
 * only indexing GL allows here), so every lane of a thread group takes the
 * same branches and an FS quad keeps its helper lanes together for the
 * derivatives of TEX/TXB. An index outside the array (undefined in GLSL ES
 * 3.20 §4.1.9) reads the first or the last element.
 *
 * The possible indices: for a texture, the run of texture units set in
 * shader_info.textures_used from texture_index up (gl_nir_lower_samplers
 * sets a sampler array's whole binding range there); for a uniform block,
 * blocks 0 .. shader_info.num_ubos - 1 (the linker's count).
 */
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"

#include "vlg_limits.h"
#include "vlg_passes.h"

#include <functional>
#include <vector>

namespace vlgpu {

namespace {

/** One copy of the instruction per index first..first+count-1 under a binary
 *  search on @index; returns the phi of their results. @copy emits the copy
 *  for one index at the builder's cursor and returns its result. */
nir_ssa_def *
search(nir_builder *b, nir_ssa_def *index, unsigned first, unsigned count,
       const std::function<nir_ssa_def *(unsigned)> &copy)
{
   if (count == 1)
      return copy(first);
   const unsigned half = count / 2;
   nir_push_if(b, nir_ilt(b, index, nir_imm_int(b, (int)(first + half))));
   nir_ssa_def *low = search(b, index, first, half, copy);
   nir_push_else(b, nullptr);
   nir_ssa_def *high = search(b, index, first + half, count - half, copy);
   nir_pop_if(b, nullptr);
   return nir_if_phi(b, low, high);
}

/** Units from @first up that are set in shader_info.textures_used (the
 *  sampler array's range);
 *  all units to the last one when @first is not set (a shader that did not
 *  record its textures, e.g. from TGSI). */
unsigned
texture_run(const nir_shader *nir, unsigned first)
{
   if (first >= VLG_NUM_TEX_UNITS)
      return 1;
   if (!BITSET_TEST(nir->info.textures_used, first))
      return VLG_NUM_TEX_UNITS - first;
   unsigned n = 1;
   while (first + n < VLG_NUM_TEX_UNITS && BITSET_TEST(nir->info.textures_used, first + n))
      n++;
   return n;
}

bool
lower_tex(nir_builder *b, nir_tex_instr *tex)
{
   const int ti = nir_tex_instr_src_index(tex, nir_tex_src_texture_offset);
   const int si = nir_tex_instr_src_index(tex, nir_tex_src_sampler_offset);
   if (ti < 0 && si < 0)
      return false;
   /* GLSL's samplers are combined: texture and sampler come from one
    * deref (glsl_to_nir.cpp), so they have one index; a TEX unit is such a
    * pair (docs/isa.md "tex.unit") and instruction selection takes the
    * texture's. An op without a sampler (txf, txs) may have no
    * sampler_offset. */
   if (ti >= 0 && si >= 0 && tex->texture_index != tex->sampler_index)
      throw CompileError("a texture indexed at run time with another sampler (texture " +
                         std::to_string(tex->texture_index) + ", sampler " +
                         std::to_string(tex->sampler_index) + ")");
   nir_ssa_def *index = (ti >= 0 ? tex->src[ti].src : tex->src[si].src).ssa;
   b->cursor = nir_before_instr(&tex->instr);
   const unsigned n = texture_run(b->shader, tex->texture_index);
   nir_ssa_def *r = search(b, index, 0, n, [&](unsigned k) {
      nir_tex_instr *c = nir_instr_as_tex(nir_instr_clone(b->shader, &tex->instr));
      /* inserted first: a source is rewritten only once its uses are linked */
      nir_builder_instr_insert(b, &c->instr);
      int i;
      while ((i = nir_tex_instr_src_index(c, nir_tex_src_texture_offset)) >= 0 ||
             (i = nir_tex_instr_src_index(c, nir_tex_src_sampler_offset)) >= 0)
         nir_tex_instr_remove_src(c, i);
      c->texture_index += k;
      c->sampler_index += k;
      return &c->dest.ssa;
   });
   nir_ssa_def_rewrite_uses(&tex->dest.ssa, r);
   nir_instr_remove(&tex->instr);
   return true;
}

bool
lower_ubo(nir_builder *b, nir_intrinsic_instr *intr)
{
   if (intr->intrinsic != nir_intrinsic_load_ubo || nir_src_is_const(intr->src[0]))
      return false;
   b->cursor = nir_before_instr(&intr->instr);
   const unsigned blocks = b->shader->info.num_ubos;
   const unsigned n = blocks ? blocks : VLG_NUM_BUFFERS - 1; /* blocks use B1..B15 */
   nir_ssa_def *r = search(b, intr->src[0].ssa, 0, n, [&](unsigned k) {
      nir_ssa_def *block = nir_imm_int(b, (int)k);
      nir_intrinsic_instr *c = nir_instr_as_intrinsic(nir_instr_clone(b->shader, &intr->instr));
      nir_builder_instr_insert(b, &c->instr);
      nir_instr_rewrite_src(&c->instr, &c->src[0], nir_src_for_ssa(block));
      return &c->dest.ssa;
   });
   nir_ssa_def_rewrite_uses(&intr->dest.ssa, r);
   nir_instr_remove(&intr->instr);
   return true;
}

} // namespace

bool
lower_dynamic_indexing(nir_shader *nir)
{
   bool progress = false;
   nir_foreach_function (func, nir) {
      if (!func->impl)
         continue;
      /* collected first: the lowering splits blocks */
      std::vector<nir_instr *> todo;
      nir_foreach_block (block, func->impl) {
         nir_foreach_instr (instr, block) {
            if (instr->type == nir_instr_type_tex)
               todo.push_back(instr);
            else if (instr->type == nir_instr_type_intrinsic &&
                     nir_instr_as_intrinsic(instr)->intrinsic == nir_intrinsic_load_ubo)
               todo.push_back(instr);
         }
      }
      nir_builder b;
      nir_builder_init(&b, func->impl);
      bool changed = false;
      for (nir_instr *instr : todo)
         changed |= instr->type == nir_instr_type_tex
                       ? lower_tex(&b, nir_instr_as_tex(instr))
                       : lower_ubo(&b, nir_instr_as_intrinsic(instr));
      nir_metadata_preserve(func->impl, changed ? nir_metadata_none : nir_metadata_all);
      progress |= changed;
   }
   return progress;
}

} // namespace vlgpu
