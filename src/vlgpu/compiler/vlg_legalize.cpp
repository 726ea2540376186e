/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_legalize.cpp — operand rules that depend on the global-buffer layout
 * chosen by vlg_pack.cpp (so they run after it):
 *
 *  - ALU ops read C0..C127 only (docs/isa.md §1): a higher entry is loaded
 *    with LDC into a register first;
 *  - source modifiers fit the operand type (§4): no negate/abs on raw-bit
 *    ('b') or unsigned ('u') ops — such a source is moved (MOV applies the
 *    float sign-bit modifier) first;
 *  - three-source ops (MAD, SEL; §3 "Which Sub unit"): A's swizzle is the
 *    identity or a broadcast, B has none, no source has an absolute value.
 *    MAD is commutative in A*B, so the operands are swapped when that fixes
 *    it; otherwise the operand goes through a MOV.
 */
#include "vlg_builder.h"
#include "vlg_passes.h"

namespace vlgpu {

void
legalize(Shader &S)
{
   for (Block &B : S.blocks) {
      std::vector<Instr> out;
      out.reserve(B.instrs.size());
      for (Instr I : B.instrs) {
         if (I.dead || !I.is_alu()) {
            out.push_back(I);
            continue;
         }
         const vlg_opinfo *info = I.info();
         /* Move operand s into a fresh register through MOV (with its swizzle and modifiers). */
         auto to_reg = [&](unsigned s, bool keep_neg) {
            unsigned pos = src_read_positions(I, s);
            uint32_t t = S.new_vreg();
            Instr m;
            m.op = VLG_OP_MOV;
            m.dst = reg(t);
            m.wmask = pos ? pos : 0xf;
            m.src[0] = I.src[s];
            bool n = I.src[s].neg;
            if (keep_neg && !I.src[s].abs)
               m.src[0].neg = false;
            out.push_back(m);
            Operand r = reg(t);
            r.neg = keep_neg && !I.src[s].abs ? n : false;
            I.src[s] = r;
         };

         for (unsigned s = 0; s < info->nsrc; s++) {
            Operand &o = I.src[s];
            if (o.file == File::Imm || o.file == File::Unif)
               VLG_ICE("operand not packed into the global buffer");
            if (o.file == File::Const && o.index >= VLG_DIRECT_GLOBAL) {
               uint32_t t = S.new_vreg();
               Instr l;
               l.op = VLG_OP_LDC;
               l.dst = reg(t);
               l.wmask = 0xf;
               l.src[0] = gbuf(o.index);
               out.push_back(l);
               o.file = File::Reg;
               o.index = t;
               o.offset = 0;
            }
         }
         if (info->otype == 'b' || info->otype == 'u')
            for (unsigned s = 0; s < info->nsrc; s++)
               if (I.src[s].neg || I.src[s].abs)
                  to_reg(s, false);

         if (I.op == VLG_OP_MAD || I.op == VLG_OP_SEL) {
            unsigned pa = src_read_positions(I, 0), pb = src_read_positions(I, 1);
            bool a_ok = swz_is_bcast_or_identity(I.src[0].swz, pa);
            bool b_ok = swz_is_identity(I.src[1].swz, pb);
            if (I.op == VLG_OP_MAD && !b_ok && swz_is_identity(I.src[0].swz, pa) &&
                swz_is_bcast_or_identity(I.src[1].swz, pb)) {
               std::swap(I.src[0], I.src[1]);
               a_ok = b_ok = true;
            }
            if (!a_ok || I.src[0].abs)
               to_reg(0, true);
            if (!b_ok || I.src[1].abs)
               to_reg(1, true);
            if (I.src[2].abs)
               to_reg(2, true);
         }
         out.push_back(I);
      }
      B.instrs = out;
   }
   S.legalized = true;
}

} // namespace vlgpu
