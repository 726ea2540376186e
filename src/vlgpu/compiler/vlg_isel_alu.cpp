/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel_alu.cpp — instruction selection of NIR ALU ops (vlg_isel.h): the
 * ops the ISA has map one to one (simple_op); the rest become short
 * sequences: negation/abs/saturate as operand modifiers, booleans as 32-bit
 * masks, unsigned min/max through UCMP + SEL, round-to-even, fdot2, vecN as
 * write-masked MOVs, half-float and byte packing (docs/compiler.md
 * "NIR lowering").
 */
#include "vlg_isel.h"

namespace vlgpu {

static int
simple_op(nir_op op)
{
   switch (op) {
   case nir_op_mov:
   case nir_op_f2f32:
   case nir_op_i2i32:
   case nir_op_u2u32:
      return VLG_OP_MOV;
   case nir_op_fadd:
      return VLG_OP_ADD;
   case nir_op_fmul:
      return VLG_OP_MUL;
   case nir_op_ffma:
      return VLG_OP_MAD;
   case nir_op_fmin:
      return VLG_OP_MIN;
   case nir_op_fmax:
      return VLG_OP_MAX;
   case nir_op_frcp:
      return VLG_OP_RCP;
   case nir_op_frsq:
      return VLG_OP_RSQ;
   case nir_op_fsqrt:
      return VLG_OP_SQRT;
   case nir_op_fexp2:
      return VLG_OP_EX2;
   case nir_op_flog2:
      return VLG_OP_LG2;
   case nir_op_fsin:
      return VLG_OP_SIN;
   case nir_op_fcos:
      return VLG_OP_COS;
   case nir_op_ffloor:
      return VLG_OP_FLR;
   case nir_op_ffract:
      return VLG_OP_FRC;
   case nir_op_frexp_sig:
      return VLG_OP_MAN;
   case nir_op_frexp_exp:
      return VLG_OP_EXP;
   case nir_op_f2i32:
      return VLG_OP_CONV_F2I;
   case nir_op_f2u32:
      return VLG_OP_CONV_F2U;
   case nir_op_i2f32:
      return VLG_OP_CONV_I2F;
   case nir_op_u2f32:
      return VLG_OP_CONV_U2F;
   case nir_op_flt32:
      return VLG_OP_CMP_LT;
   case nir_op_fge32:
      return VLG_OP_CMP_GE;
   case nir_op_feq32:
      return VLG_OP_CMP_EQ;
   case nir_op_fneu32:
      return VLG_OP_CMP_NE;
   case nir_op_ilt32:
      return VLG_OP_ICMP_LT;
   case nir_op_ige32:
      return VLG_OP_ICMP_GE;
   case nir_op_ieq32:
      return VLG_OP_ICMP_EQ;
   case nir_op_ine32:
      return VLG_OP_ICMP_NE;
   case nir_op_ult32:
      return VLG_OP_UCMP_LT;
   case nir_op_uge32:
      return VLG_OP_UCMP_GE;
   case nir_op_iadd:
      return VLG_OP_IADD;
   case nir_op_imul:
      return VLG_OP_IMUL;
   case nir_op_imin:
      return VLG_OP_IMIN;
   case nir_op_imax:
      return VLG_OP_IMAX;
   case nir_op_iand:
      return VLG_OP_AND;
   case nir_op_ior:
      return VLG_OP_OR;
   case nir_op_ixor:
      return VLG_OP_XOR;
   case nir_op_ishl:
      return VLG_OP_SHL;
   case nir_op_ishr:
      return VLG_OP_ASR;
   case nir_op_ushr:
      return VLG_OP_SHR;
   case nir_op_ufind_msb:
      return VLG_OP_FMSB;
   case nir_op_fddx:
   case nir_op_fddx_fine:
   case nir_op_fddx_coarse:
      return VLG_OP_DDX;
   case nir_op_fddy:
   case nir_op_fddy_fine:
   case nir_op_fddy_coarse:
      return VLG_OP_DDY;
   default:
      return -1;
   }
}

static const uint32_t F_ONE = 0x3f800000u;
static const uint32_t F_TWO_23 = 0x4b000000u;       /* 2^23 */
static const uint32_t F_MINUS_TWO_23 = 0xcb000000u; /* -2^23 */

void
Isel::emit_alu(nir_alu_instr *alu)
{
   const nir_op_info &info = nir_op_infos[alu->op];
   if (alu->dest.dest.is_ssa ? alu->dest.dest.ssa.bit_size > 32
                             : alu->dest.dest.reg.reg->bit_size > 32)
      unsupported(std::string("64-bit operation ") + info.name);
   for (unsigned i = 0; i < info.num_inputs; i++)
      if (nir_src_bit_size(alu->src[i].src) > 32)
         unsupported(std::string("64-bit operation ") + info.name);

   int op = simple_op(alu->op);
   if (op >= 0 && info.output_size == 0) {
      Dst d = alu_dest(alu);
      Instr &I = b.alu(op, d.op, d.wmask, alu_src(alu, 0),
                       info.num_inputs > 1 ? alu_src(alu, 1) : Operand(),
                       info.num_inputs > 2 ? alu_src(alu, 2) : Operand());
      I.sat = alu->dest.saturate;
      if (op == VLG_OP_DDX || op == VLG_OP_DDY)
         S.uses_derivatives = true;
      return;
   }

   if (emit_alu_modifiers(alu) || emit_alu_bool_int(alu) || emit_alu_float_sequence(alu) ||
       emit_alu_vector_pack(alu))
      return;
   unsupported(std::string("NIR operation '") + info.name + "'");
}

/* Negation, absolute value, saturate and subtraction as operand modifiers;
 * false if @alu is none of these. */
bool
Isel::emit_alu_modifiers(nir_alu_instr *alu)
{
   switch (alu->op) {
   case nir_op_fneg: {
      Dst d = alu_dest(alu);
      b.mov(d.op, d.wmask, neg(alu_src(alu, 0))).sat = alu->dest.saturate;
      return true;
   }
   case nir_op_fabs: {
      Dst d = alu_dest(alu);
      Operand a = alu_src(alu, 0);
      a.abs = true;
      a.neg = false;
      b.mov(d.op, d.wmask, a).sat = alu->dest.saturate;
      return true;
   }
   case nir_op_fsat: {
      Dst d = alu_dest(alu);
      b.mov(d.op, d.wmask, alu_src(alu, 0)).sat = true;
      return true;
   }
   case nir_op_fsub: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_ADD, d.op, d.wmask, alu_src(alu, 0), neg(alu_src(alu, 1))).sat =
         alu->dest.saturate;
      return true;
   }
   case nir_op_isub: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_IADD, d.op, d.wmask, alu_src(alu, 0), neg(alu_src(alu, 1)));
      return true;
   }
   case nir_op_ineg: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_IADD, d.op, d.wmask, imm_u(0), neg(alu_src(alu, 0)));
      return true;
   }
   case nir_op_iabs: {
      Dst d = alu_dest(alu);
      Operand a = alu_src(alu, 0);
      b.alu(VLG_OP_IMAX, d.op, d.wmask, a, neg(a));
      return true;
   }
   default:
      return false;
   }
}

/* Booleans (32-bit masks), bit negation, select, unsigned min/max. */
bool
Isel::emit_alu_bool_int(nir_alu_instr *alu)
{
   /* one op of source 0 and a constant B (replicated) */
   static const struct {
      nir_op nop;
      unsigned op;
      uint32_t b;
   } with_constant[] = {
      {nir_op_inot, VLG_OP_XOR, ~0u},    /* ~a = a ^ ~0 */
      {nir_op_b2f32, VLG_OP_AND, F_ONE}, /* true (~0) & 1.0f = 1.0f, false 0 */
      {nir_op_b2i32, VLG_OP_AND, 1},     /* true (~0) & 1 = 1, false 0 */
      {nir_op_f2b32, VLG_OP_CMP_NE, 0},  /* a != 0.0: false for -0.0, true for NaN */
      {nir_op_i2b32, VLG_OP_ICMP_NE, 0}, /* a != 0 */
   };
   for (const auto &w : with_constant)
      if (alu->op == w.nop) {
         Dst d = alu_dest(alu);
         b.alu(w.op, d.op, d.wmask, alu_src(alu, 0), imm_u(w.b));
         return true;
      }
   switch (alu->op) {
   case nir_op_b32csel: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_SEL, d.op, d.wmask, alu_src(alu, 1), alu_src(alu, 2), alu_src(alu, 0));
      return true;
   }
   case nir_op_umin:
   case nir_op_umax: {
      /* No UMIN/UMAX: t = a < b (unsigned); d = t ? a : b (min) / t ? b : a (max). */
      Dst d = alu_dest(alu);
      Operand a = alu_src(alu, 0), bb = alu_src(alu, 1);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_UCMP_LT, reg(t), d.wmask, a, bb);
      if (alu->op == nir_op_umin)
         b.alu(VLG_OP_SEL, d.op, d.wmask, a, bb, reg(t));
      else
         b.alu(VLG_OP_SEL, d.op, d.wmask, bb, a, reg(t));
      return true;
   }
   default:
      return false;
   }
}

/* Round-to-even and dot products. */
bool
Isel::emit_alu_float_sequence(nir_alu_instr *alu)
{
   switch (alu->op) {
   case nir_op_fround_even: {
      /* GLSL roundEven (and round, which Mesa lowers to it). For |x| < 2^23,
       * (|x| + 2^23) - 2^23 is |x| rounded to the nearest integer, ties to
       * even: the sum lies in [2^23, 2^24), where floats are the integers,
       * and ADD rounds to nearest even (2^23 + n and n have the same parity);
       * the subtraction is exact. Every float with |x| >= 2^23 (and inf) is
       * already an integer and stays as it is; NaN stays NaN. The sign of x
       * is put back last, so roundEven(-0.25) = -0. (The former floor(x + 0.5)
       * sequence was off by one for odd |x| in [2^23, 2^24), where x + 0.5
       * itself rounds: dEQP-GLES3 builtin_functions.common.round.) */
      Dst d = alu_dest(alu);
      unsigned m = d.wmask;
      /* in a register without modifiers: SEL and AND take raw bits */
      Operand x = as_reg(alu_src(alu, 0), m);
      uint32_t t = S.new_vreg(), big = S.new_vreg(), sign = S.new_vreg();
      b.alu(VLG_OP_ADD, reg(t), m, abs(x), imm_u(F_TWO_23));
      b.alu(VLG_OP_ADD, reg(t), m, reg(t), imm_u(F_MINUS_TWO_23));
      b.alu(VLG_OP_CMP_GE, reg(big), m, abs(x), imm_u(F_TWO_23));
      b.alu(VLG_OP_SEL, reg(t), m, x, reg(t), reg(big));
      b.alu(VLG_OP_AND, reg(sign), m, x, imm_u(0x80000000u));
      b.alu(VLG_OP_OR, d.op, m, reg(t), reg(sign));
      return true;
   }
   case nir_op_fdot2:
   case nir_op_fdot2_replicated: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_MUL, reg(t), 0x3, alu_src(alu, 0), alu_src(alu, 1));
      b.alu(VLG_OP_ADD, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1))).sat =
         alu->dest.saturate;
      return true;
   }
   case nir_op_fdot3:
   case nir_op_fdot4:
   case nir_op_fdot3_replicated:
   case nir_op_fdot4_replicated: {
      Dst d = alu_dest(alu);
      bool dp3 = alu->op == nir_op_fdot3 || alu->op == nir_op_fdot3_replicated;
      b.alu(dp3 ? VLG_OP_DP3 : VLG_OP_DP4, d.op, d.wmask, alu_src(alu, 0), alu_src(alu, 1)).sat =
         alu->dest.saturate;
      return true;
   }
   default:
      return false;
   }
}

/* vecN as write-masked MOVs; half-float and byte packing. */
bool
Isel::emit_alu_vector_pack(nir_alu_instr *alu)
{
   const nir_op_info &info = nir_op_infos[alu->op];
   switch (alu->op) {
   case nir_op_vec2:
   case nir_op_vec3:
   case nir_op_vec4: {
      Dst d = alu_dest(alu);
      for (unsigned i = 0; i < info.num_inputs; i++) {
         if (!(d.wmask & (1u << i)))
            continue;
         nir_alu_src &s = alu->src[i];
         Operand o = swz(get_src(s.src), VLG_SWZ_BCAST(s.swizzle[0] & 3));
         if (s.abs) {
            o.abs = true;
            o.neg = s.negate;
         } else if (s.negate) {
            o.neg = !o.neg;
         }
         b.mov(d.op, 1u << i, o).sat = alu->dest.saturate;
      }
      return true;
   }
   case nir_op_pack_half_2x16: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_CONV_F2H, reg(t), 0x3, alu_src(alu, 0));
      b.alu(VLG_OP_SHL, reg(t), 0x2, reg(t), imm_u(16));
      b.alu(VLG_OP_OR, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      return true;
   }
   case nir_op_unpack_half_2x16: {
      Dst d = alu_dest(alu);
      Operand s = swz(alu_src(alu, 0), VLG_SWZ_BCAST(0));
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_AND, reg(t), 0x1, s, imm_u(0xffffu));
      b.alu(VLG_OP_SHR, reg(t), 0x2, s, imm_u(16));
      b.alu(VLG_OP_CONV_H2F, d.op, d.wmask, reg(t));
      return true;
   }
   case nir_op_pack_uvec2_to_uint: {
      Dst d = alu_dest(alu);
      Operand s = alu_src(alu, 0);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_SHL, reg(t), 0x2, s, imm_u(16));
      b.alu(VLG_OP_OR, d.op, d.wmask, swz(s, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      return true;
   }
   case nir_op_pack_uvec4_to_uint: {
      Dst d = alu_dest(alu);
      Operand s = alu_src(alu, 0);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_SHL, reg(t), 0xe, s, imm_u(0, 8, 16, 24));
      b.alu(VLG_OP_OR, reg(t), 0x1, swz(s, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      b.alu(VLG_OP_OR, reg(t), 0x4, reg(t, VLG_SWZ_BCAST(2)), reg(t, VLG_SWZ_BCAST(3)));
      b.alu(VLG_OP_OR, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(2)));
      return true;
   }
   case nir_op_fquantize2f16: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_CONV_F2H, reg(t), d.wmask, alu_src(alu, 0));
      b.alu(VLG_OP_CONV_H2F, d.op, d.wmask, reg(t));
      return true;
   }
   default:
      return false;
   }
}

} // namespace vlgpu
