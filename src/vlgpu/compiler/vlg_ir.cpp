/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_ir.cpp — operand constructors and the read/write facts of an operation
 * that liveness, scheduling and register allocation share.
 */
#include "vlg_ir.h"

#include "compiler/shader_enums.h"

#include <cstring>

namespace vlgpu {

/* Operand @index of @file read through swizzle @s, no modifiers. */
static Operand
indexed(File file, uint32_t index, uint8_t s)
{
   Operand o;
   o.file = file;
   o.index = index;
   o.swz = s;
   return o;
}

Operand
reg(uint32_t vreg, uint8_t s, uint8_t offset)
{
   Operand o = indexed(File::Reg, vreg, s);
   o.offset = offset;
   return o;
}

Operand
unif(uint32_t slot, uint8_t s)
{
   return indexed(File::Unif, slot, s);
}

Operand
gbuf(uint32_t entry, uint8_t s)
{
   return indexed(File::Const, entry, s);
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

Operand
imm_u(uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
   Operand o;
   o.file = File::Imm;
   o.imm[0] = x;
   o.imm[1] = y;
   o.imm[2] = z;
   o.imm[3] = w;
   return o;
}

Operand
imm_u(uint32_t x)
{
   return imm_u(x, x, x, x);
}

Operand
imm_f(float x, float y, float z, float w)
{
   return imm_u(fbits(x), fbits(y), fbits(z), fbits(w));
}

Operand
imm_f(float x)
{
   return imm_u(fbits(x));
}

Operand
neg(Operand o)
{
   o.neg = !o.neg;
   return o;
}

Operand
abs(Operand o)
{
   o.abs = true;
   o.neg = false;
   return o;
}

Operand
swz(Operand o, uint8_t s)
{
   if (o.file == File::Imm) {
      uint32_t v[4];
      for (unsigned n = 0; n < 4; n++)
         v[n] = o.imm[VLG_SWZ_GET(s, n)];
      memcpy(o.imm, v, sizeof(v));
      return o;
   }
   uint8_t r = 0;
   for (unsigned n = 0; n < 4; n++)
      r |= VLG_SWZ_GET(o.swz, VLG_SWZ_GET(s, n)) << (2 * n);
   o.swz = r;
   return o;
}

bool
Instr::is_alu() const
{
   const vlg_opinfo *i = info();
   return i && (i->format == VLG_FMT_ALU1 || i->format == VLG_FMT_ALU2);
}

unsigned
Instr::nsrc() const
{
   const vlg_opinfo *i = info();
   if (!i)
      return 0;
   switch (i->format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      return i->nsrc;
   case VLG_FMT_PRED:
      return bimm ? 1 : 2;
   case VLG_FMT_ADDR:
      return a_is_reg() ? 1 : 0;
   case VLG_FMT_TEX:
      return 1;
   default:
      return 0;
   }
}

unsigned
tex_group_width(unsigned op, bool cube_array)
{
   switch (op) {
   case VLG_OP_TXB:
   case VLG_OP_TXL:
      return 2;
   case VLG_OP_TXD:
      return 3;
   default:
      /* .CUBEARRAY: the reference or gather component in R[coord+1].w */
      return cube_array ? 2 : 1;
   }
}

unsigned
src_read_positions(const Instr &I, unsigned s)
{
   const vlg_opinfo *info = I.info();
   if (!info)
      return 0;
   switch (info->format) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2:
      if (s >= info->nsrc)
         return 0;
      if (I.op == VLG_OP_DP3)
         return 0x7;
      if (I.op == VLG_OP_DP4)
         return 0xf;
      return I.wmask;
   case VLG_FMT_PRED:
   case VLG_FMT_ADDR:
      if (s == 0 && I.a_is_reg())
         return 1u << I.acomp;
      if (s == 1 && I.b_is_reg())
         return 1u << I.bcomp;
      return 0;
   case VLG_FMT_MEM:
      if (I.is_mem_no_operands())
         return 0;
      if (s == 1)
         return 0x1; /* address in .x */
      if (s == 0 && I.kind == VLG_MEMKIND_ST)
         return I.wmask;
      if (s == 0 && I.kind != VLG_MEMKIND_LD)
         return I.kind == VLG_MEMKIND_ATOM_CMPXCHG ? 0x3 : 0x1;
      return 0;
   default:
      return 0;
   }
}

unsigned
src_read_components(const Instr &I, unsigned s)
{
   const vlg_opinfo *info = I.info();
   if (info && (info->format == VLG_FMT_PRED || info->format == VLG_FMT_ADDR))
      return src_read_positions(I, s); /* component fields, no swizzle */
   unsigned pos = src_read_positions(I, s), comps = 0;
   for (unsigned n = 0; n < 4; n++)
      if (pos & (1u << n))
         comps |= 1u << VLG_SWZ_GET(I.src[s].swz, n);
   return comps;
}

void
instr_reads(const Shader &S, const Instr &I, std::vector<RegAccess> &out)
{
   out.clear();
   if (I.dead)
      return;
   const vlg_opinfo *info = I.info();
   if (!info)
      return;
   if (info->format == VLG_FMT_TEX) {
      if (I.src[0].is_reg()) {
         for (unsigned r = 0; r < 3; r++)
            if (I.grp_read[r])
               out.push_back({I.src[0].index, (uint8_t)(I.src[0].offset + r), I.grp_read[r]});
      }
      return;
   }
   /* the hardware reads the output map at the end of a VS/FS thread, at each
    * EMIT of a GS (a GS thread's end emits nothing) */
   if ((I.is_end() && S.stage != MESA_SHADER_GEOMETRY) || I.is_emit()) {
      for (const OutputDesc &o : S.outputs)
         if (o.mask)
            out.push_back({o.vreg, 0, o.mask});
      return;
   }
   for (unsigned s = 0; s < 3; s++) {
      if (!I.src[s].is_reg())
         continue;
      unsigned c = src_read_components(I, s);
      if (c)
         out.push_back({I.src[s].index, I.src[s].offset, (uint8_t)c});
   }
}

void
instr_writes(const Shader &S, const Instr &I, std::vector<RegAccess> &out)
{
   (void)S;
   out.clear();
   if (I.dead || !I.dst.is_reg())
      return;
   out.push_back({I.dst.index, I.dst.offset, I.wmask});
}

unsigned
coord_reads(const Instr &I)
{
   if (I.dead)
      return 0;
   switch (I.op) {
   case VLG_OP_BRC:
      return I.cond != VLG_BRCOND_ALWAYS ? VLG_CR_PRED : 0;
   case VLG_OP_LDC:
   case VLG_OP_LDB:
      return I.rel ? VLG_CR_A0 : 0;
   case VLG_OP_PRED:
      return (I.asel == VLG_ASEL_LC || I.asel == VLG_ASEL_INCLC ? VLG_CR_LC : 0) |
             (I.asel == VLG_ASEL_A0 ? VLG_CR_A0 : 0);
   case VLG_OP_ADDR:
      return I.akind == VLG_AKIND_INC ? (I.adst == VLG_ADST_A0 ? VLG_CR_A0 : VLG_CR_LC) : 0;
   case VLG_OP_MVS:
      return I.sreg == VLG_SREG_LC     ? VLG_CR_LC
             : I.sreg == VLG_SREG_A0   ? VLG_CR_A0
             : I.sreg == VLG_SREG_PRED ? VLG_CR_PRED
                                       : 0;
   default:
      return 0;
   }
}

unsigned
coord_writes(const Instr &I)
{
   if (I.dead)
      return 0;
   switch (I.op) {
   case VLG_OP_PRED:
      return VLG_CR_PRED | (I.asel == VLG_ASEL_INCLC ? VLG_CR_LC : 0);
   case VLG_OP_ADDR:
      return I.adst == VLG_ADST_A0 ? VLG_CR_A0 : VLG_CR_LC;
   default:
      return 0;
   }
}

uint32_t
Shader::new_vreg(unsigned width)
{
   VRegInfo v;
   v.width = width;
   vregs.push_back(v);
   return vregs.size() - 1;
}

unsigned
Shader::new_block()
{
   blocks.emplace_back();
   return blocks.size() - 1;
}

bool
swz_is_identity(uint8_t s, unsigned pos)
{
   for (unsigned n = 0; n < 4; n++)
      if ((pos & (1u << n)) && VLG_SWZ_GET(s, n) != n)
         return false;
   return true;
}

bool
swz_is_bcast_or_identity(uint8_t s, unsigned pos)
{
   if (swz_is_identity(s, pos))
      return true;
   int c = -1;
   for (unsigned n = 0; n < 4; n++) {
      if (!(pos & (1u << n)))
         continue;
      if (c < 0)
         c = VLG_SWZ_GET(s, n);
      else if ((int)VLG_SWZ_GET(s, n) != c)
         return false;
   }
   return true;
}

void
compute_cfg(Shader &S)
{
   for (Block &b : S.blocks) {
      b.succs.clear();
      b.preds.clear();
   }
   for (unsigned i = 0; i < S.blocks.size(); i++) {
      Block &b = S.blocks[i];
      const Instr *last = nullptr;
      for (auto it = b.instrs.rbegin(); it != b.instrs.rend(); ++it)
         if (!it->dead) {
            last = &*it;
            break;
         }
      bool falls = true;
      if (last && last->is_jump()) {
         b.succs.push_back(last->target);
         if (last->cond == VLG_BRCOND_ALWAYS)
            falls = false;
      } else if (last && last->is_end() && last->cond == VLG_BRCOND_ALWAYS) {
         falls = false;
      }
      if (falls && i + 1 < S.blocks.size() && (b.succs.empty() || b.succs[0] != i + 1))
         b.succs.push_back(i + 1);
   }
   for (unsigned i = 0; i < S.blocks.size(); i++)
      for (unsigned s : S.blocks[i].succs)
         S.blocks[s].preds.push_back(i);
}

} // namespace vlgpu
