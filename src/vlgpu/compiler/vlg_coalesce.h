/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_coalesce.h — the interference graph and copy coalescing, shared by the
 * coalescing pass (vlg_coalesce.cpp: coalesce_copies, before scheduling) and
 * register allocation (vlg_ra.cpp, which coalesces again on the scheduled
 * code before colouring). Internal to the compiler.
 */
#pragma once

#include "vlg_passes.h"

namespace vlgpu {

/** Symmetric adjacency bit matrix over vreg numbers 0..n-1. */
struct InterferenceGraph {
   unsigned n = 0, words = 0;
   std::vector<uint64_t> m;
   void init(unsigned nv)
   {
      n = nv;
      words = (nv + 63) / 64;
      m.assign((size_t)n * words, 0);
   }
   bool test(unsigned a, unsigned b) const { return m[(size_t)a * words + b / 64] >> (b % 64) & 1; }
   void add(unsigned a, unsigned b)
   {
      if (a == b)
         return;
      m[(size_t)a * words + b / 64] |= 1ull << (b % 64);
      m[(size_t)b * words + a / 64] |= 1ull << (a % 64);
   }
   template <typename F> void foreach_neighbour(unsigned a, F f) const
   {
      for (unsigned w = 0; w < words; w++) {
         uint64_t x = m[(size_t)a * words + w];
         while (x) {
            unsigned b = __builtin_ctzll(x);
            x &= x - 1;
            f(w * 64 + b);
         }
      }
   }
};

/**
 * Interference of the vregs over the bundles of a shader (S.scheduled: one
 * bundle per instruction before scheduling) and the union-find of the vregs
 * merged by coalescing. A MOV between whole registers (identity swizzle over
 * every component either end ever uses, no modifiers) does not make its ends
 * interfere when @coalesce; do_coalesce() then merges the ends that still do
 * not interfere (vregs stay numbered; find() gives the representative).
 */
struct Coalescer {
   Shader &S;
   bool coalesce;
   unsigned nv;
   InterferenceGraph G;
   std::vector<unsigned> parent;   /* union-find for coalescing */
   std::vector<unsigned> compmask; /* components a vreg is ever written or read at */
   unsigned pressure = 0;          /* most vec4 registers live at once (build) */

   Coalescer(Shader &s, bool c) : S(s), coalesce(c), nv(s.vregs.size()) {}

   unsigned find(unsigned v)
   {
      while (parent[v] != v)
         v = parent[v] = parent[parent[v]];
      return v;
   }

   /** A whole-register MOV that does not make its ends interfere. */
   bool move_exception(const Instr &I);
   /** Fill compmask, G and pressure from the liveness of S's bundles. */
   void build();
   /** Merge vreg @b into @a (a survives, with b's neighbours). */
   void merge(unsigned a, unsigned b);
   /** Reset the union-find, then merge the ends of every move exception that do not interfere. */
   void do_coalesce();
   /** The pass before scheduling: build + do_coalesce on one-op bundles, rename every operand,
    *  input and output to its representative, delete the MOVs that became self-moves. */
   void coalesce_only();
   static bool is_self_move(const Instr &I);
};

} // namespace vlgpu
