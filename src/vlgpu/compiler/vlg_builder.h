/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_builder.h — appends operations to a block of the backend IR (like
 * asahi's agx_builder.h). Instruction selection and the unit tests build IR
 * only through this.
 */
#pragma once

#include "vlg_ir.h"

namespace vlgpu {

class Builder {
 public:
   explicit Builder(Shader &s, unsigned block = 0) : S(s), block(block) {}

   Shader &S;
   unsigned block; /**< block that receives new operations */

   Instr &emit(const Instr &I)
   {
      S.blocks[block].instrs.push_back(I);
      return S.blocks[block].instrs.back();
   }

   /** ALU op: dst.wmask = op(a, b, c). */
   Instr &alu(unsigned op, Operand dst, unsigned wmask, Operand a, Operand b = Operand(),
              Operand c = Operand())
   {
      Instr I = make(op, dst, wmask);
      I.src[0] = a;
      I.src[1] = b;
      I.src[2] = c;
      return emit(I);
   }

   Instr &mov(Operand dst, unsigned wmask, Operand a) { return alu(VLG_OP_MOV, dst, wmask, a); }

   /** PRED.cond Pp, a.acomp, #imm_b */
   Instr &pred_imm(unsigned cond, unsigned p, Operand a, unsigned acomp, int imm_b)
   {
      Instr I = pred(cond, p, a, acomp);
      I.bimm = true;
      I.imm = imm_b;
      return emit(I);
   }

   /** PRED.cond Pp, a.acomp, b.bcomp */
   Instr &pred_reg(unsigned cond, unsigned p, Operand a, unsigned acomp, Operand b, unsigned bcomp)
   {
      Instr I = pred(cond, p, a, acomp);
      I.src[1] = b;
      I.bcomp = bcomp;
      return emit(I);
   }

   /** ADDR A0, a.acomp, #imm (A0 = int32(a.acomp) + imm) */
   Instr &addr_a0(Operand a, unsigned acomp, int imm = 0)
   {
      Instr I = make(VLG_OP_ADDR);
      I.adst = VLG_ADST_A0;
      I.akind = VLG_AKIND_INT;
      I.src[0] = a;
      I.acomp = acomp;
      I.imm = imm;
      return emit(I);
   }

   Instr &brc(unsigned kind, unsigned cond, unsigned p, unsigned target_block = 0)
   {
      Instr I = make(VLG_OP_BRC);
      I.kind = kind;
      I.cond = cond;
      I.pred = p;
      I.target = target_block;
      return emit(I);
   }
   Instr &jump(unsigned target_block, unsigned cond = VLG_BRCOND_ALWAYS, unsigned p = 0)
   {
      return brc(VLG_BRKIND_JMP, cond, p, target_block);
   }
   Instr &kill(unsigned cond = VLG_BRCOND_ALWAYS, unsigned p = 0)
   {
      return brc(VLG_BRKIND_KILL, cond, p);
   }
   Instr &end() { return brc(VLG_BRKIND_END, VLG_BRCOND_ALWAYS, 0); }

   /** LDC dst.wmask, C[index (+ extra) (+ A0)]; index is File::Unif or File::Const. */
   Instr &ldc(Operand dst, unsigned wmask, Operand index, int extra = 0, bool rel = false)
   {
      Instr I = make(VLG_OP_LDC, dst, wmask);
      I.src[0] = index;
      I.imm = extra;
      I.rel = rel;
      return emit(I);
   }

   /** TEX-family op: dst.wmask = sample of unit with the coordinate group @group. */
   Instr &tex(unsigned op, Operand dst, unsigned wmask, Operand group, unsigned unit, bool shadow,
              bool cube_array, uint8_t read0, uint8_t read1 = 0, uint8_t read2 = 0)
   {
      Instr I = make(op, dst, wmask);
      I.src[0] = group;
      I.slot = unit;
      I.shadow = shadow;
      I.cube_array = cube_array;
      I.grp_read[0] = read0;
      I.grp_read[1] = read1;
      I.grp_read[2] = read2;
      return emit(I);
   }

   /** MEM.kind(.S) with data register @data and the address in @addr.x; @dst is the register
    *  a load or atomic writes (the same register as @data for an atomic), File::None else. */
   Instr &mem(unsigned kind, bool shared, Operand dst, unsigned wmask, Operand data, Operand addr)
   {
      Instr I = make(VLG_OP_MEM, dst, wmask);
      I.kind = kind;
      I.shared = shared;
      I.src[0] = data;
      I.src[1] = addr;
      return emit(I);
   }

   Instr &mvs(Operand dst, unsigned wmask, unsigned sreg)
   {
      Instr I = make(VLG_OP_MVS, dst, wmask);
      I.sreg = sreg;
      return emit(I);
   }

 private:
   /** Operation @op writing dst.wmask (no register and wmask 0 by default: PRED, ADDR, BRC),
    *  every other field at its default. */
   static Instr make(unsigned op, Operand dst = Operand(), unsigned wmask = 0)
   {
      Instr I;
      I.op = op;
      I.dst = dst;
      I.wmask = wmask;
      return I;
   }

   /** What both PRED forms share: Pp = a.acomp cond B (B still to be set). */
   static Instr pred(unsigned cond, unsigned p, Operand a, unsigned acomp)
   {
      Instr I = make(VLG_OP_PRED);
      I.cond = cond;
      I.pred = p;
      I.asel = VLG_ASEL_R;
      I.src[0] = a;
      I.acomp = acomp;
      return I;
   }
};

} // namespace vlgpu
