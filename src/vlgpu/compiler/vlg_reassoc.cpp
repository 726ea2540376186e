/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_reassoc.cpp — split long floating-point sums into parallel partial
 * sums (switch no_reassoc / --no-reassoc).
 *
 * A GLSL sum a0 + a1 + ... + a(n-1) is a left-leaning chain of fadds: every
 * add waits for the previous one (ADD: 2 cycles, MAD: 4 once
 * nir_opt_algebraic_late has fused the products in), so a 441-tap blur
 * (glmark2 desktop, blur-radius=10, separable=false) is a 441 x 4-cycle
 * chain however the scheduler orders the texture fetches around it. This
 * pass rewrites such a chain of n terms as k = min(4, n / 4) interleaved
 * partial sums (term i goes to partial sum i mod k, in order) added
 * together at the end: the same number of adds (n - 1), k times shorter,
 * and the products still fuse into MADs, one chain of MADs per partial sum.
 *
 * Reassociation changes the rounding of the sum. Mesa allows it for ALU
 * instructions that are not `exact` (nir_opt_algebraic's `~` patterns
 * reassociate the same way); exact ones (GLSL `precise`/`invariant`) are
 * left alone. A chain is the root fadd plus every fadd operand that is
 * itself an inexact, unsaturated fadd of the same width used only there, in
 * the same block, read without a swizzle; everything else is a term.
 */
#include <vector>

#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"

#include "vlg_passes.h"

namespace vlgpu {

namespace {

/* Can the fadd reading @src be merged with the fadd that produces it? */
nir_alu_instr *
inner_fadd(const nir_alu_instr *user, unsigned s)
{
   const nir_alu_src &src = user->src[s];
   if (!src.src.is_ssa || src.negate || src.abs)
      return nullptr;
   nir_instr *p = src.src.ssa->parent_instr;
   if (p->type != nir_instr_type_alu || p->block != user->instr.block)
      return nullptr;
   nir_alu_instr *a = nir_instr_as_alu(p);
   if (a->op != nir_op_fadd || a->exact || a->dest.saturate || !a->dest.dest.is_ssa)
      return nullptr;
   const nir_ssa_def *d = &a->dest.dest.ssa;
   if (d->num_components != user->dest.dest.ssa.num_components ||
       d->bit_size != user->dest.dest.ssa.bit_size)
      return nullptr;
   if (!list_is_singular(&d->uses) || !list_is_empty(&d->if_uses))
      return nullptr;
   for (unsigned c = 0; c < d->num_components; c++)
      if (src.swizzle[c] != c)
         return nullptr;
   return a;
}

/* Terms of the chain rooted at @root, in source order; @depth: longest
 * path of fadds. */
void
collect(nir_alu_instr *alu, std::vector<std::pair<nir_alu_instr *, unsigned>> &terms,
        unsigned &depth, unsigned level)
{
   depth = std::max(depth, level);
   for (unsigned s = 0; s < 2; s++) {
      nir_alu_instr *in = inner_fadd(alu, s);
      if (in)
         collect(in, terms, depth, level + 1);
      else
         terms.push_back({alu, s});
   }
}

/* Is @alu the root of a chain (not itself merged into a user)? */
bool
is_root(nir_alu_instr *alu)
{
   if (alu->op != nir_op_fadd || alu->exact || !alu->dest.dest.is_ssa)
      return false;
   nir_ssa_def *d = &alu->dest.dest.ssa;
   if (list_is_singular(&d->uses) && list_is_empty(&d->if_uses)) {
      nir_src *use = list_first_entry(&d->uses, nir_src, use_link);
      nir_instr *u = use->parent_instr;
      if (u->type == nir_instr_type_alu && nir_instr_as_alu(u)->op == nir_op_fadd) {
         nir_alu_instr *ua = nir_instr_as_alu(u);
         for (unsigned s = 0; s < 2; s++)
            if (&ua->src[s].src == use && inner_fadd(ua, s) == alu && !ua->exact)
               return false; /* part of its user's chain */
      }
   }
   return true;
}

} // anonymous namespace

bool
split_long_sums(nir_shader *nir, unsigned min_terms)
{
   bool progress = false;
   nir_foreach_function (func, nir) {
      if (!func->impl)
         continue;
      nir_builder b;
      nir_builder_init(&b, func->impl);
      std::vector<nir_alu_instr *> roots;
      nir_foreach_block (block, func->impl)
         nir_foreach_instr (instr, block)
            if (instr->type == nir_instr_type_alu && is_root(nir_instr_as_alu(instr)))
               roots.push_back(nir_instr_as_alu(instr));
      for (nir_alu_instr *root : roots) {
         std::vector<std::pair<nir_alu_instr *, unsigned>> terms;
         unsigned depth = 0;
         collect(root, terms, depth, 1);
         unsigned n = terms.size();
         unsigned k = std::min(4u, n / 4);
         if (n < min_terms || k < 2 || depth < n / 2)
            continue; /* short, or already balanced */
         b.cursor = nir_before_instr(&root->instr);
         std::vector<nir_ssa_def *> part(k, nullptr);
         for (unsigned i = 0; i < n; i++) {
            nir_ssa_def *t = nir_ssa_for_alu_src(&b, terms[i].first, terms[i].second);
            nir_ssa_def *&p = part[i % k];
            p = p ? nir_fadd(&b, p, t) : t;
         }
         /* (p0 + p1) + (p2 + p3) */
         while (part.size() > 1) {
            std::vector<nir_ssa_def *> next;
            for (unsigned i = 0; i + 1 < part.size(); i += 2)
               next.push_back(nir_fadd(&b, part[i], part[i + 1]));
            if (part.size() & 1)
               next.push_back(part.back());
            part = next;
         }
         nir_ssa_def *sum = part[0];
         if (root->dest.saturate)
            sum = nir_fsat(&b, sum);
         nir_ssa_def_rewrite_uses(&root->dest.dest.ssa, sum);
         nir_instr_remove(&root->instr);
         progress = true;
      }
      if (progress)
         nir_metadata_preserve(func->impl, nir_metadata_block_index | nir_metadata_dominance);
   }
   return progress;
}

} // namespace vlgpu
