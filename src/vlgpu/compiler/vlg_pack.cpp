/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_pack.cpp — global-buffer layout (seed 003 §III.B, seed 000 §3.2:
 * "packs uniform and constant variables with a knapsack-like algorithm").
 *
 * Items:
 *  - indirectly addressed uniform ranges (arrays read with ADDR + LDC): one
 *    block of whole vec4 entries in st/mesa's layout, never split, so
 *    C[A0 + base] addresses element A0;
 *  - every other uniform slot the shader reads: only the components it reads;
 *  - every literal operand: its distinct 32-bit values.
 *
 * With packing on, items are placed first-fit-decreasing into the four
 * component slots of entries: whole vec4 uniforms get an entry, smaller
 * uniforms share entries (at their own component positions when free),
 * literals are deduplicated (a literal whose values an entry already holds
 * reuses it; otherwise it goes where it shares the most values) and placed at
 * the position they are read from when possible, so the operand keeps an
 * identity swizzle (one-unit Main encodings need that for B). Directly read
 * entries are then renumbered by reference count, most used first, so the
 * busiest land in C0..C31 (reachable from a Main unit alone); indirect blocks
 * follow. With packing off: uniform slot s is entry s, and every literal
 * operand gets an entry of its own (no deduplication), after the uniforms.
 *
 * Operands become File::Const with the swizzle rewritten; S.consts holds the
 * image (literals baked in, uniform dwords 0) and S.copies the uniform copy
 * map for the driver (vlg_compiler.h).
 */
#include <algorithm>
#include <map>
#include <set>

#include "vlg_passes.h"

namespace vlgpu {

namespace {

enum SlotKind : uint8_t { FREE = 0, LIT = 1, UNI = 2 };

struct Entry {
   uint32_t val[4] = {0, 0, 0, 0};
   SlotKind kind[4] = {FREE, FREE, FREE, FREE};
   uint32_t uslot[4] = {0, 0, 0, 0}, ucomp[4] = {0, 0, 0, 0};
   unsigned refs = 0;
   bool block = false; /* part of an indirect block: fixed position */

   unsigned free_count() const
   {
      unsigned n = 0;
      for (unsigned c = 0; c < 4; c++)
         n += kind[c] == FREE;
      return n;
   }
   int find_lit(uint32_t v) const
   {
      for (unsigned c = 0; c < 4; c++)
         if (kind[c] == LIT && val[c] == v)
            return c;
      return -1;
   }
   int first_free(int prefer) const
   {
      if (prefer >= 0 && kind[prefer] == FREE)
         return prefer;
      for (unsigned c = 0; c < 4; c++)
         if (kind[c] == FREE)
            return c;
      return -1;
   }
};

struct OperandRef {
   Instr *I;
   unsigned s;
};

struct Packer {
   Shader &S;
   bool pack;
   std::vector<Entry> entries;
   /* uniform (slot, comp) -> (entry, position) */
   std::map<std::pair<uint32_t, uint32_t>, std::pair<unsigned, unsigned>> uplace;
   /* blocks: first slot -> (count, entry of the first slot, assigned later) */
   std::vector<UniformRange> blocks;
   std::vector<unsigned> block_entry;

   explicit Packer(Shader &s, bool p) : S(s), pack(p) {}

   int block_of(uint32_t slot) const
   {
      for (unsigned i = 0; i < blocks.size(); i++)
         if (slot >= blocks[i].first && slot < blocks[i].first + blocks[i].count)
            return i;
      return -1;
   }

   void merge_blocks()
   {
      std::vector<UniformRange> r = S.indirect_uniforms;
      std::sort(r.begin(), r.end(),
                [](const UniformRange &a, const UniformRange &b) { return a.first < b.first; });
      for (const UniformRange &u : r) {
         if (!blocks.empty() && u.first <= blocks.back().first + blocks.back().count) {
            uint32_t end = std::max(blocks.back().first + blocks.back().count, u.first + u.count);
            blocks.back().count = end - blocks.back().first;
         } else {
            blocks.push_back(u);
         }
      }
   }

   void run();
   unsigned place_uniform(uint32_t slot, unsigned mask);
   std::pair<unsigned, std::vector<int>> place_literal(const Operand &o, unsigned positions);
};

unsigned
Packer::place_uniform(uint32_t slot, unsigned mask)
{
   unsigned n = __builtin_popcount(mask);
   int chosen = -1;
   bool identity = false;
   if (n < 4) {
      /* same positions free in an existing entry? */
      for (unsigned e = 0; e < entries.size() && chosen < 0; e++) {
         if (entries[e].block)
            continue;
         bool ok = true;
         for (unsigned c = 0; c < 4; c++)
            if ((mask & (1u << c)) && entries[e].kind[c] != FREE)
               ok = false;
         if (ok) {
            chosen = e;
            identity = true;
         }
      }
      for (unsigned e = 0; e < entries.size() && chosen < 0; e++)
         if (!entries[e].block && entries[e].free_count() >= n)
            chosen = e;
   }
   if (chosen < 0) {
      entries.emplace_back();
      chosen = entries.size() - 1;
      identity = true;
   }
   Entry &E = entries[chosen];
   for (unsigned c = 0; c < 4; c++) {
      if (!(mask & (1u << c)))
         continue;
      int pos = identity ? (int)c : E.first_free(c);
      E.kind[pos] = UNI;
      E.uslot[pos] = slot;
      E.ucomp[pos] = c;
      uplace[{slot, c}] = {(unsigned)chosen, (unsigned)pos};
   }
   return chosen;
}

/* Returns the entry and, per position n, the component holding imm[n]. */
std::pair<unsigned, std::vector<int>>
Packer::place_literal(const Operand &o, unsigned positions)
{
   /* distinct values, each with the first position that reads it */
   std::vector<std::pair<uint32_t, int>> vals;
   for (unsigned n = 0; n < 4; n++) {
      if (!(positions & (1u << n)))
         continue;
      bool seen = false;
      for (auto &v : vals)
         seen |= v.first == o.imm[n];
      if (!seen)
         vals.push_back({o.imm[n], (int)n});
   }
   int chosen = -1;
   if (pack) {
      /* Most shared values first; among those, an entry where the missing
       * values can sit at the positions they are read from (so the operand
       * keeps an identity swizzle). */
      int best_score = -1;
      for (unsigned e = 0; e < entries.size(); e++) {
         if (entries[e].block)
            continue;
         int overlap = 0, in_place = 0;
         for (auto &v : vals) {
            if (entries[e].find_lit(v.first) >= 0)
               overlap++;
            else if (entries[e].kind[v.second] == FREE)
               in_place++;
         }
         unsigned missing = vals.size() - overlap;
         if (missing > entries[e].free_count())
            continue;
         int score = overlap * 8 + in_place;
         if (score > best_score) {
            best_score = score;
            chosen = e;
         }
      }
   }
   if (chosen < 0) {
      /* a new entry: every position read gets its value in place, repeats
       * included, so the operand needs no swizzle */
      entries.emplace_back();
      chosen = entries.size() - 1;
      for (unsigned n = 0; n < 4; n++)
         if (positions & (1u << n)) {
            entries[chosen].kind[n] = LIT;
            entries[chosen].val[n] = o.imm[n];
         }
   }
   Entry &E = entries[chosen];
   for (auto &v : vals) {
      if (E.find_lit(v.first) >= 0)
         continue;
      int pos = E.first_free(v.second);
      E.kind[pos] = LIT;
      E.val[pos] = v.first;
   }
   std::vector<int> map(4, 0);
   for (unsigned n = 0; n < 4; n++) {
      if (!(positions & (1u << n)))
         map[n] = n;
      else if (E.kind[n] == LIT && E.val[n] == o.imm[n])
         map[n] = n; /* in place */
      else
         map[n] = E.find_lit(o.imm[n]);
   }
   return {(unsigned)chosen, map};
}

void
Packer::run()
{
   merge_blocks();

   /* Gather the operands that live in the global buffer. */
   std::vector<OperandRef> refs;
   std::map<uint32_t, unsigned> umask, urefs; /* direct uniform slot -> components, references */
   for (Block &B : S.blocks)
      for (Instr &I : B.instrs) {
         if (I.dead)
            continue;
         if (I.op == VLG_OP_LDC) {
            if (I.src[0].file == File::Unif && block_of(I.src[0].index) < 0)
               VLG_ICE("LDC of a uniform outside an indirect range");
            refs.push_back({&I, 0});
            continue;
         }
         if (!I.is_alu())
            continue;
         for (unsigned s = 0; s < I.info()->nsrc; s++) {
            Operand &o = I.src[s];
            if (o.file == File::Unif) {
               if (block_of(o.index) < 0) {
                  umask[o.index] |= src_read_components(I, s);
                  urefs[o.index]++;
               }
               refs.push_back({&I, s});
            } else if (o.file == File::Imm) {
               refs.push_back({&I, s});
            }
         }
      }

   if (pack) {
      /* uniforms: largest first, then most referenced */
      std::vector<uint32_t> slots;
      for (auto &u : umask)
         slots.push_back(u.first);
      std::stable_sort(slots.begin(), slots.end(), [&](uint32_t a, uint32_t b) {
         unsigned na = __builtin_popcount(umask[a]), nb = __builtin_popcount(umask[b]);
         if (na != nb)
            return na > nb;
         return urefs[a] > urefs[b];
      });
      for (uint32_t slot : slots)
         place_uniform(slot, umask[slot]);
   } else {
      /* st/mesa's layout: uniform slot s is entry s (blocks included). */
      uint32_t end = 0;
      for (auto &u : umask)
         end = std::max(end, u.first + 1);
      for (auto &b : blocks)
         end = std::max(end, b.first + b.count);
      entries.resize(end);
      for (auto &u : umask)
         for (unsigned c = 0; c < 4; c++)
            if (u.second & (1u << c)) {
               entries[u.first].kind[c] = UNI;
               entries[u.first].uslot[c] = u.first;
               entries[u.first].ucomp[c] = c;
               uplace[{u.first, c}] = {u.first, c};
            }
      for (unsigned i = 0; i < blocks.size(); i++) {
         block_entry.push_back(blocks[i].first);
         for (uint32_t s = 0; s < blocks[i].count; s++) {
            Entry &E = entries[blocks[i].first + s];
            E.block = true;
            for (unsigned c = 0; c < 4; c++) {
               E.kind[c] = UNI;
               E.uslot[c] = blocks[i].first + s;
               E.ucomp[c] = c;
            }
         }
      }
   }

   /* literals: largest sets first so smaller ones can reuse their values */
   std::vector<OperandRef> lits;
   for (auto &r : refs)
      if (r.I->src[r.s].file == File::Imm)
         lits.push_back(r);
   if (pack) {
      std::stable_sort(lits.begin(), lits.end(), [](const OperandRef &a, const OperandRef &b) {
         auto distinct = [](const OperandRef &r) {
            std::set<uint32_t> v;
            unsigned pos = src_read_positions(*r.I, r.s);
            for (unsigned n = 0; n < 4; n++)
               if (pos & (1u << n))
                  v.insert(r.I->src[r.s].imm[n]);
            return v.size();
         };
         return distinct(a) > distinct(b);
      });
   }
   struct LitPlace {
      OperandRef r;
      unsigned entry;
      std::vector<int> map;
   };
   std::vector<LitPlace> lit_places;
   for (auto &r : lits) {
      unsigned pos = src_read_positions(*r.I, r.s);
      auto p = place_literal(r.I->src[r.s], pos ? pos : 0x1);
      lit_places.push_back({r, p.first, p.second});
   }

   /* Renumber: direct entries by references (packing only), then blocks. */
   std::vector<unsigned> order; /* new index -> old index */
   if (pack) {
      std::vector<unsigned> ref_count(entries.size(), 0);
      for (auto &r : refs) {
         const Operand &o = r.I->src[r.s];
         if (o.file == File::Unif && block_of(o.index) < 0) {
            for (unsigned c = 0; c < 4; c++)
               if (uplace.count({o.index, c})) {
                  ref_count[uplace[{o.index, c}].first]++;
                  break;
               }
         }
      }
      for (auto &lp : lit_places)
         ref_count[lp.entry]++;
      for (unsigned e = 0; e < entries.size(); e++)
         order.push_back(e);
      std::stable_sort(order.begin(), order.end(),
                       [&](unsigned a, unsigned b) { return ref_count[a] > ref_count[b]; });
      std::vector<Entry> sorted;
      std::vector<unsigned> old_to_new(entries.size());
      for (unsigned i = 0; i < order.size(); i++) {
         sorted.push_back(entries[order[i]]);
         old_to_new[order[i]] = i;
      }
      entries = sorted;
      for (auto &u : uplace)
         u.second.first = old_to_new[u.second.first];
      for (auto &lp : lit_places)
         lp.entry = old_to_new[lp.entry];
      /* indirect blocks after the direct entries */
      for (auto &b : blocks) {
         block_entry.push_back(entries.size());
         for (uint32_t s = 0; s < b.count; s++) {
            Entry E;
            E.block = true;
            for (unsigned c = 0; c < 4; c++) {
               E.kind[c] = UNI;
               E.uslot[c] = b.first + s;
               E.ucomp[c] = c;
            }
            entries.push_back(E);
         }
      }
   }

   if (entries.size() > VLG_NUM_GLOBAL)
      throw CompileError("the global buffer needs " + std::to_string(entries.size()) +
                         " vec4 entries (uniforms and constants), more than " +
                         std::to_string(VLG_NUM_GLOBAL));

   /* Rewrite operands. */
   for (auto &lp : lit_places) {
      Operand &o = lp.r.I->src[lp.r.s];
      unsigned pos = src_read_positions(*lp.r.I, lp.r.s);
      uint8_t s = 0;
      for (unsigned n = 0; n < 4; n++)
         s |= ((pos & (1u << n)) ? lp.map[n] : n) << (2 * n);
      o.file = File::Const;
      o.index = lp.entry;
      o.swz = s;
   }
   for (auto &r : refs) {
      Operand &o = r.I->src[r.s];
      if (o.file != File::Unif)
         continue;
      int bl = block_of(o.index);
      if (r.I->op == VLG_OP_LDC) {
         o.index = block_entry[bl] + (o.index - blocks[bl].first);
         o.file = File::Const;
         continue;
      }
      if (bl >= 0) {
         o.index = block_entry[bl] + (o.index - blocks[bl].first);
         o.file = File::Const;
         continue;
      }
      unsigned pos = src_read_positions(*r.I, r.s);
      unsigned entry = 0;
      uint8_t s = 0;
      for (unsigned n = 0; n < 4; n++) {
         unsigned c = VLG_SWZ_GET(o.swz, n);
         if (pos & (1u << n)) {
            auto it = uplace.find({o.index, c});
            if (it == uplace.end())
               VLG_ICE("uniform component not placed");
            entry = it->second.first;
            s |= it->second.second << (2 * n);
         } else {
            s |= n << (2 * n);
         }
      }
      o.file = File::Const;
      o.index = entry;
      o.swz = s;
   }

   /* The image and the copy map. */
   S.consts.assign(entries.size(), {0, 0, 0, 0});
   S.entry_is_uniform.assign(entries.size(), false);
   std::vector<std::pair<uint32_t, uint32_t>> dwords; /* (dst, src) */
   for (unsigned e = 0; e < entries.size(); e++)
      for (unsigned c = 0; c < 4; c++) {
         if (entries[e].kind[c] == LIT)
            S.consts[e][c] = entries[e].val[c];
         else if (entries[e].kind[c] == UNI) {
            S.entry_is_uniform[e] = true;
            dwords.push_back({e * 4 + c, entries[e].uslot[c] * 4 + entries[e].ucomp[c]});
         }
      }
   std::sort(dwords.begin(), dwords.end());
   S.copies.clear();
   for (auto &d : dwords) {
      if (!S.copies.empty()) {
         UniformCopy &last = S.copies.back();
         if (last.dst + last.count == d.first && last.src + last.count == d.second) {
            last.count++;
            continue;
         }
      }
      S.copies.push_back({d.first, d.second, 1});
   }
   S.packed = true;
}

} // anonymous namespace

void
pack_global_buffer(Shader &S, bool pack)
{
   Packer p(S, pack);
   p.run();
}

} // namespace vlgpu
