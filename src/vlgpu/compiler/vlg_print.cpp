/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_print.cpp — text form of the backend IR, for debugging (VLGPU_DEBUG /
 * vlgpu-cc --ir) and for the expected-IR comparisons of the unit tests. The
 * syntax follows the assembler's (docs/isa.md §7) where it can; virtual
 * registers are %N, uniform slots UN, literals #value or #(x,y,z,w) with '_'
 * for positions the op does not read.
 */
#include <cmath>
#include <cstdio>
#include <cstring>

#include "vlg_hw.h"
#include "vlg_ir.h"

namespace vlgpu {

static std::string
fmt_word(uint32_t u)
{
   char buf[48];
   float f;
   memcpy(&f, &u, 4);
   bool small_int_pattern = (u & 0x7f800000u) == 0 && u != 0;
   if (!small_int_pattern && std::isfinite(f)) {
      snprintf(buf, sizeof(buf), "%.9g", f);
      float back = strtof(buf, nullptr);
      uint32_t ub;
      memcpy(&ub, &back, 4);
      if (ub == u) {
         /* shortest form that still round-trips */
         for (int prec = 1; prec <= 9; prec++) {
            snprintf(buf, sizeof(buf), "%.*g", prec, f);
            back = strtof(buf, nullptr);
            memcpy(&ub, &back, 4);
            if (ub == u)
               break;
         }
         if (!strchr(buf, '.') && !strchr(buf, 'e') && !strchr(buf, 'n') && !strchr(buf, 'i'))
            strcat(buf, ".0");
         return buf;
      }
   }
   snprintf(buf, sizeof(buf), "0x%x", u);
   return buf;
}

static const char comp_name[] = "xyzw";

static std::string
fmt_swz(uint8_t s, unsigned positions)
{
   if (s == VLG_SWZ_IDENTITY)
      return "";
   std::string r = ".";
   for (unsigned n = 0; n < 4; n++)
      r += (positions & (1u << n)) ? comp_name[VLG_SWZ_GET(s, n)] : '_';
   return r;
}

static std::string
fmt_mask(unsigned m)
{
   if (m == 0xf)
      return "";
   std::string r = ".";
   for (unsigned n = 0; n < 4; n++)
      if (m & (1u << n))
         r += comp_name[n];
   return r;
}

static std::string
fmt_reg(const Shader &S, uint32_t index, unsigned offset)
{
   char buf[32];
   if (S.allocated)
      snprintf(buf, sizeof(buf), "R%u", index + offset);
   else if (offset)
      snprintf(buf, sizeof(buf), "%%%u+%u", index, offset);
   else
      snprintf(buf, sizeof(buf), "%%%u", index);
   return buf;
}

static std::string
fmt_operand(const Shader &S, const Operand &o, unsigned positions)
{
   std::string body;
   switch (o.file) {
   case File::None:
      return "-";
   case File::Reg:
      body = fmt_reg(S, o.index, o.offset) + fmt_swz(o.swz, positions ? positions : 0xf);
      break;
   case File::Unif:
      body = "U" + std::to_string(o.index) + fmt_swz(o.swz, positions ? positions : 0xf);
      break;
   case File::Const:
      body = "C" + std::to_string(o.index) + fmt_swz(o.swz, positions ? positions : 0xf);
      break;
   case File::Imm: {
      unsigned pos = positions ? positions : 0xf;
      bool same = true;
      int first = -1;
      for (unsigned n = 0; n < 4; n++) {
         if (!(pos & (1u << n)))
            continue;
         if (first < 0)
            first = n;
         else if (o.imm[n] != o.imm[first])
            same = false;
      }
      if (same && first >= 0) {
         body = "#" + fmt_word(o.imm[first]);
      } else {
         body = "#(";
         for (unsigned n = 0; n < 4; n++) {
            if (n)
               body += ",";
            body += (pos & (1u << n)) ? fmt_word(o.imm[n]) : "_";
         }
         body += ")";
      }
      break;
   }
   }
   if (o.abs)
      body = "|" + body + "|";
   if (o.neg)
      body = "-" + body;
   return body;
}

std::string
print_operand(const Shader &S, const Operand &o)
{
   return fmt_operand(S, o, 0xf);
}

static const char *const cond_names[] = {"LT", "GE", "EQ", "NE", "ILT", "IGE", "IEQ", "INE"};

std::string
print_instr(const Shader &S, const Instr &I)
{
   const vlg_opinfo *info = I.info();
   std::string s = info ? info->name : "???";
   char buf[96];

   switch (info ? info->format : VLG_FMT_NONE) {
   case VLG_FMT_ALU1:
   case VLG_FMT_ALU2: {
      if (I.sat)
         s += ".SAT";
      s += " " + fmt_reg(S, I.dst.index, I.dst.offset) + fmt_mask(I.wmask);
      for (unsigned k = 0; k < info->nsrc; k++)
         s += ", " + fmt_operand(S, I.src[k], src_read_positions(I, k));
      break;
   }
   case VLG_FMT_MVS:
      s += " " + fmt_reg(S, I.dst.index, I.dst.offset) + fmt_mask(I.wmask) + ", " +
           vlg_sreg_names[I.sreg];
      break;
   case VLG_FMT_PRED: {
      s += std::string(".") + cond_names[I.cond & 7];
      snprintf(buf, sizeof(buf), " P%u, ", I.pred);
      s += buf;
      switch (I.asel) {
      case VLG_ASEL_R:
         s += fmt_reg(S, I.src[0].index, I.src[0].offset) + "." + comp_name[I.acomp & 3];
         break;
      case VLG_ASEL_LC:
         s += "LC";
         break;
      case VLG_ASEL_INCLC:
         s += "++LC";
         break;
      default:
         s += "A0";
         break;
      }
      if (I.bimm)
         s += ", #" + std::to_string(I.imm);
      else
         s += ", " + fmt_reg(S, I.src[1].index, I.src[1].offset) + "." + comp_name[I.bcomp & 3];
      break;
   }
   case VLG_FMT_ADDR:
      s += I.akind == VLG_AKIND_FLOOR ? ".FLOOR" : I.akind == VLG_AKIND_INC ? ".INC" : "";
      s += I.adst == VLG_ADST_A0 ? " A0" : " LC";
      if (I.akind == VLG_AKIND_INT || I.akind == VLG_AKIND_FLOOR)
         s += ", " + fmt_reg(S, I.src[0].index, I.src[0].offset) + "." + comp_name[I.acomp & 3];
      s += ", #" + std::to_string(I.imm);
      break;
   case VLG_FMT_BRC:
      s += I.kind == VLG_BRKIND_JMP ? ".JMP" : I.kind == VLG_BRKIND_END ? ".END" : ".KILL";
      if (I.kind == VLG_BRKIND_JMP)
         s += " B" + std::to_string(I.target);
      if (I.cond != VLG_BRCOND_ALWAYS) {
         snprintf(buf, sizeof(buf), " if %sP%u", I.cond == VLG_BRCOND_NP ? "!" : "", I.pred);
         s += buf;
      }
      break;
   case VLG_FMT_LDC: {
      s += " " + fmt_reg(S, I.dst.index, I.dst.offset) + fmt_mask(I.wmask) + ", ";
      std::string base = I.src[0].file == File::Unif ? "U" : "C";
      s += base + "[";
      if (I.rel)
         s += "A0+";
      s += std::to_string(I.src[0].index + I.imm) + "]";
      break;
   }
   case VLG_FMT_LDB:
      snprintf(buf, sizeof(buf), ", B%u[%s%u]", I.slot, I.rel ? "A0+" : "", I.ldb_offset);
      s += " " + fmt_reg(S, I.dst.index, I.dst.offset) + fmt_mask(I.wmask) + buf;
      break;
   case VLG_FMT_TEX:
      if (I.shadow)
         s += ".SHADOW";
      if (I.cube_array)
         s += ".CUBEARRAY";
      snprintf(buf, sizeof(buf), ", T%u", I.slot);
      s += " " + fmt_reg(S, I.dst.index, I.dst.offset) + fmt_mask(I.wmask) + ", " +
           fmt_reg(S, I.src[0].index, I.src[0].offset) + buf;
      if (I.toff[0] || I.toff[1] || I.toff[2]) {
         snprintf(buf, sizeof(buf), ", (%d, %d, %d)", I.toff[0], I.toff[1], I.toff[2]);
         s += buf;
      }
      break;
   case VLG_FMT_MEM:
      s += std::string(".") + (I.kind < VLG_MEMKIND_COUNT ? vlg_memkind_names[I.kind] : "?");
      if (I.shared)
         s += ".S";
      if (!I.is_mem_no_operands()) {
         const Operand &data = I.kind == VLG_MEMKIND_LD ? I.dst : I.src[0];
         s += " " + fmt_reg(S, data.index, data.offset) + fmt_mask(I.wmask) + ", [" +
              fmt_reg(S, I.src[1].index, I.src[1].offset) + "]";
      }
      break;
   default:
      break;
   }
   return s;
}

/* a name of the generated vlg_hw.h enums, "?" for a value they do not name */
static const char *
or_unknown(const char *name)
{
   return name ? name : "?";
}

std::string
print_shader(const Shader &S)
{
   std::string out;
   char buf[128];
   for (const InputDesc &in : S.inputs) {
      snprintf(buf, sizeof(buf), "; in  %s%s <- %s %u\n", fmt_reg(S, in.vreg, in.offset).c_str(),
               fmt_mask(in.mask).c_str(), or_unknown(vlg_input_semantic_name(in.semantic)),
               in.index);
      out += buf;
   }
   for (const OutputDesc &o : S.outputs) {
      snprintf(buf, sizeof(buf), "; out %s%s -> %s %u\n", fmt_reg(S, o.vreg, 0).c_str(),
               fmt_mask(o.mask).c_str(), or_unknown(vlg_output_semantic_name(o.semantic)),
               o.index);
      out += buf;
   }
   for (unsigned b = 0; b < S.blocks.size(); b++) {
      const Block &B = S.blocks[b];
      out += "B" + std::to_string(b) + ":\n";
      if (S.scheduled) {
         for (const Bundle &bu : B.bundles) {
            std::string line;
            const Instr *p0 = bu.ph[0] >= 0 ? &B.instrs[bu.ph[0]] : nullptr;
            const Instr *p1 = bu.ph[1] >= 0 ? &B.instrs[bu.ph[1]] : nullptr;
            if (p0 && p0->dead)
               p0 = nullptr;
            if (p1 && p1->dead)
               p1 = nullptr;
            if (!p0 && !p1)
               continue;
            if (p0)
               line = print_instr(S, *p0);
            if (p1)
               line += (p0 ? " | " : "| ") + print_instr(S, *p1);
            out += "   " + line + "\n";
         }
      } else {
         for (const Instr &I : B.instrs)
            if (!I.dead)
               out += "   " + print_instr(S, I) + "\n";
      }
   }
   return out;
}

} // namespace vlgpu
