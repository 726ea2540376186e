/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_emit.cpp — from scheduled, allocated IR to VL-IW units through the ISA
 * library (vlg_encode picks the shortest legal form and validates it).
 *
 * Operand canonicalisation, so more operations fit one Main unit
 * (docs/isa.md §3: a two-source Main holds A with an identity or broadcast
 * swizzle, B possibly from C0..C31 and negated, no modifier on A, no
 * saturate): positions an op does not read are don't-care in a swizzle and
 * are filled to make an identity or a broadcast; commutative operands are
 * swapped (vlg_op_table.commutative; MAD and the dot products in A*B); a
 * negation moves between the factors of a product. Every variant is encoded
 * and the shortest kept.
 *
 * Branch targets are unit addresses: instruction sizes do not depend on the
 * target (16-bit field), so sizes are computed first, then addresses, then
 * the units.
 */
#include <cstdio>
#include <cstring>

#include "vlg_passes.h"

namespace vlgpu {

static uint8_t
fill_dont_care(uint8_t s, unsigned pos)
{
   if (pos == 0xf || pos == 0)
      return s;
   bool ident = true;
   int bc = -1;
   bool bcast = true;
   for (unsigned n = 0; n < 4; n++) {
      if (!(pos & (1u << n)))
         continue;
      unsigned c = VLG_SWZ_GET(s, n);
      if (c != n)
         ident = false;
      if (bc < 0)
         bc = c;
      else if ((int)c != bc)
         bcast = false;
   }
   if (ident)
      return VLG_SWZ_IDENTITY;
   if (bcast)
      return VLG_SWZ_BCAST(bc);
   return s;
}

static vlg_src
to_src(const Operand &o)
{
   vlg_src s = {};
   s.index = o.index;
   s.file = o.file == File::Const ? VLG_FILE_C : VLG_FILE_R;
   s.swz = o.swz;
   s.neg = o.neg;
   s.abs = o.abs;
   return s;
}

/* The coordinate unit's register operands (PRED A and B, ADDR A): register
 * and component. */
static void
lower_coord_operands(vlg_op &op, const Instr &I)
{
   if (I.a_is_reg()) {
      op.src[0].index = I.src[0].index;
      op.acomp = I.acomp;
   }
   if (I.b_is_reg()) {
      op.src[1].index = I.src[1].index;
      op.bcomp = I.bcomp;
   }
}

static vlg_op
lower_plain(const Instr &I)
{
   vlg_op op;
   vlg_op_init(&op, I.op);
   const vlg_opinfo *info = I.info();
   switch (info->format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      op.dst = I.dst.index;
      op.wmask = I.wmask;
      op.sat = I.sat;
      for (unsigned s = 0; s < info->nsrc; s++) {
         op.src[s] = to_src(I.src[s]);
         op.src[s].swz = fill_dont_care(I.src[s].swz, src_read_positions(I, s));
      }
      break;
   case VLG_FMT_MVS:
      op.dst = I.dst.index;
      op.wmask = I.wmask;
      op.sreg = I.sreg;
      break;
   case VLG_FMT_PRED:
      op.wmask = 0;
      op.cond = I.cond;
      op.pred = I.pred;
      op.asel = I.asel;
      op.bimm = I.bimm;
      if (I.bimm)
         op.imm = I.imm;
      lower_coord_operands(op, I);
      break;
   case VLG_FMT_ADDR:
      op.wmask = 0;
      op.adst = I.adst;
      op.akind = I.akind;
      op.imm = I.imm;
      lower_coord_operands(op, I);
      break;
   case VLG_FMT_BRC:
      op.wmask = 0;
      op.kind = I.kind;
      op.cond = I.cond;
      op.pred = I.cond == VLG_BRCOND_ALWAYS ? 0 : I.pred;
      op.target = 0;
      break;
   case VLG_FMT_LDC:
      op.dst = I.dst.index;
      op.wmask = I.wmask;
      op.rel = I.rel;
      op.index = I.src[0].index + I.imm;
      break;
   case VLG_FMT_LDB:
      op.dst = I.dst.index;
      op.wmask = I.wmask;
      op.rel = I.rel;
      op.slot = I.slot;
      op.index = I.ldb_offset;
      break;
   case VLG_FMT_TEX:
      op.dst = I.dst.index;
      op.wmask = I.wmask;
      op.src[0].index = I.src[0].index;
      op.slot = I.slot;
      op.shadow = I.shadow;
      op.cube_array = I.cube_array;
      std::memcpy(op.toff, I.toff, sizeof(op.toff));
      break;
   case VLG_FMT_MEM:
      op.kind = I.kind;
      if (I.is_mem_no_operands()) {
         op.wmask = 0;
         break;
      }
      op.shared = I.shared;
      op.dst = I.kind == VLG_MEMKIND_LD ? I.dst.index : I.src[0].index; /* data register */
      op.src[0].index = I.src[1].index;                                 /* address register */
      op.wmask = I.wmask;
      break;
   default:
      op.wmask = 0;
      break;
   }
   return op;
}

static unsigned
op_size(const vlg_op &op, unsigned phase)
{
   vlg_instr in;
   vlg_instr_init(&in);
   in.phase[phase].present = true;
   in.phase[phase].main = op;
   return vlg_instr_size(&in);
}

vlg_op
lower_op(const Shader &S, const Instr &I, unsigned phase)
{
   (void)S;
   vlg_op base = lower_plain(I);
   const vlg_opinfo *info = I.info();
   if (info->format != VLG_FMT_ALU2 || info->nsrc < 2)
      return base;

   bool product =
      I.op == VLG_OP_MUL || I.op == VLG_OP_MAD || I.op == VLG_OP_DP3 || I.op == VLG_OP_DP4;
   bool can_swap = info->commutative || product;

   vlg_op best = base;
   unsigned best_size = op_size(base, phase);
   auto consider = [&](const vlg_op &v) {
      unsigned s = op_size(v, phase);
      if (s && (!best_size || s < best_size)) {
         best = v;
         best_size = s;
      }
   };
   for (unsigned swap = 0; swap < (can_swap ? 2u : 1u); swap++)
      for (unsigned negmove = 0; negmove < (product ? 2u : 1u); negmove++) {
         vlg_op v = base;
         if (swap)
            std::swap(v.src[0], v.src[1]);
         if (negmove) {
            /* (-a) * b == a * (-b): the single negation goes to B (Main nb) */
            if (v.src[0].neg == v.src[1].neg || v.src[0].abs || v.src[1].abs)
               continue;
            v.src[0].neg = false;
            v.src[1].neg = true;
         }
         consider(v);
      }
   return best;
}

static vlg_instr
bundle_instr(const Shader &S, const Block &B, const Bundle &bu, bool &empty)
{
   vlg_instr in;
   vlg_instr_init(&in);
   empty = true;
   for (unsigned p = 0; p < 2; p++) {
      if (bu.ph[p] < 0 || B.instrs[bu.ph[p]].dead)
         continue;
      in.phase[p].present = true;
      in.phase[p].main = lower_op(S, B.instrs[bu.ph[p]], p);
      empty = false;
   }
   /* A lone op that may issue in phase 0 goes there (the shorter P-bit
    * pattern is the same size; phase 0 is the canonical place). */
   if (!in.phase[0].present && in.phase[1].present) {
      const Instr &I = B.instrs[bu.ph[1]];
      if (I.info()->phases & 1) {
         in.phase[0] = in.phase[1];
         in.phase[0].main = lower_op(S, I, 0);
         in.phase[1].present = false;
      }
   }
   return in;
}

Binary
emit_program(const Shader &S)
{
   Binary bin;
   /* pass 1: sizes and block addresses */
   unsigned addr = 0;
   std::vector<std::vector<vlg_instr>> code(S.blocks.size());
   std::vector<std::vector<int>> jump_target(S.blocks.size());
   for (unsigned b = 0; b < S.blocks.size(); b++) {
      const Block &B = S.blocks[b];
      bin.block_address.push_back(addr);
      for (const Bundle &bu : B.bundles) {
         bool empty;
         vlg_instr in = bundle_instr(S, B, bu, empty);
         if (empty)
            continue;
         int target = -1;
         for (unsigned p = 0; p < 2; p++)
            if (bu.ph[p] >= 0 && !B.instrs[bu.ph[p]].dead && B.instrs[bu.ph[p]].is_jump())
               target = B.instrs[bu.ph[p]].target;
         vlg_isa_error err;
         unsigned size = vlg_instr_size(&in);
         if (!size) {
            vlg_instr_validate(&in, &err);
            std::string text;
            for (unsigned p = 0; p < 2; p++)
               if (bu.ph[p] >= 0 && !B.instrs[bu.ph[p]].dead)
                  text += (text.empty() ? "" : " | ") + print_instr(S, B.instrs[bu.ph[p]]);
            VLG_ICE("cannot encode '" + text + "': " + err.msg);
         }
         code[b].push_back(in);
         jump_target[b].push_back(target);
         addr += size;
         bin.instructions++;
         bin.ops += in.phase[0].present + in.phase[1].present;
         bin.dual += in.phase[0].present && in.phase[1].present;
      }
   }
   if (addr > VLG_MAX_PROGRAM_UNITS)
      throw CompileError("program of " + std::to_string(addr) + " units exceeds the " +
                         std::to_string(VLG_MAX_PROGRAM_UNITS) + "-unit address range");
   /* pass 2: targets and units */
   for (unsigned b = 0; b < S.blocks.size(); b++)
      for (unsigned i = 0; i < code[b].size(); i++) {
         vlg_instr &in = code[b][i];
         if (jump_target[b][i] >= 0)
            in.phase[1].main.target = bin.block_address[jump_target[b][i]];
         uint32_t units[VLG_MAX_UNITS];
         vlg_isa_error err;
         unsigned n = vlg_encode(&in, units, &err);
         if (!n)
            VLG_ICE(std::string("encoding failed: ") + err.msg);
         bin.units.insert(bin.units.end(), units, units + n);
      }
   return bin;
}

} // namespace vlgpu
