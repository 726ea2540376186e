/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_validate.cpp — IR validation: the invariants of vlg_ir.h that the
 * passes rely on, checked between passes (modelled on Mesa's
 * src/asahi/compiler/agx_validate.c: one function per rule, run after
 * every pass in debug builds). Which rules apply follows the state flags the
 * passes set (S.packed, S.legalized, S.scheduled, S.allocated):
 *
 *  - blocks: a branch (BRC.JMP) or BRC.END only as the last live op of its
 *    block, jump targets inside the program, the last block does not fall
 *    off the end, Block::succs/preds as compute_cfg() gives them;
 *  - operands per opcode (vlg_op_table, generated from isa.py): a defined
 *    opcode; an ALU op has exactly info->nsrc sources and writes a register
 *    with a non-empty write mask; TEX-family ops read a coordinate register;
 *    MEM ops have the data/address registers their kind needs; LDC reads a
 *    global-buffer operand;
 *  - operand files by stage: literals/uniform slots (File::Imm, File::Unif)
 *    only before packing, global-buffer entries (File::Const) only after it
 *    and inside S.consts; registers: a virtual register and a register of it
 *    (offset < width) before allocation, a physical register below
 *    S.num_regs (<= VLG_NUM_REGS) after it; a TEX coordinate group fits its
 *    virtual register; the input and output maps name valid registers;
 *  - after legalize(): ALU ops read C0..C127 only, no negate/abs on 'b'/'u'
 *    operand types, MAD/SEL operand limits (docs/compiler.md
 *    "Legalisation");
 *  - after schedule(): every live op in exactly one bundle phase, the phase
 *    legal for the op (vlg_opinfo::phases), the block's terminator in its
 *    last bundle.
 *
 * The IR is not in SSA form (nir_registers and write masks survive isel), so
 * there is no single-definition rule.
 */
#include <string>

#include "vlg_passes.h"

namespace vlgpu {

namespace {

struct Validator {
   const Shader &S;
   const char *pass;

   [[noreturn]] void fail(const std::string &rule, int block = -1, const Instr *I = nullptr)
   {
      std::string m = "IR validation failed after " + std::string(pass) + ": " + rule;
      if (block >= 0)
         m += " (block " + std::to_string(block) + ")";
      if (I)
         m += ": " + print_instr(S, *I);
      internal_error(__FILE__, __LINE__, m);
   }

   void check_blocks()
   {
      if (S.blocks.empty())
         fail("a program needs at least one block");
      for (unsigned b = 0; b < S.blocks.size(); b++) {
         const Block &B = S.blocks[b];
         const Instr *last = nullptr;
         for (const Instr &I : B.instrs) {
            if (I.dead)
               continue;
            if (last && last->is_terminator())
               fail("a branch or BRC.END that is not the last op of its block", b, last);
            if (I.is_jump() && I.target >= S.blocks.size())
               fail("jump target outside the program", b, &I);
            last = &I;
         }
         if (b + 1 == S.blocks.size() &&
             !(last && last->is_terminator() && last->cond == VLG_BRCOND_ALWAYS))
            fail("the last block falls off the end of the program", b, last);
      }
      Shader cfg;
      cfg.blocks = S.blocks;
      compute_cfg(cfg);
      for (unsigned b = 0; b < S.blocks.size(); b++)
         if (cfg.blocks[b].succs != S.blocks[b].succs || cfg.blocks[b].preds != S.blocks[b].preds)
            fail("successors/predecessors differ from the branches (compute_cfg)", b);
   }

   /* A register operand: virtual before allocation, physical after. */
   void check_reg(const Operand &o, unsigned b, const Instr &I)
   {
      if (!S.allocated) {
         if (o.index >= S.vregs.size())
            fail("virtual register %" + std::to_string(o.index) + " was never created", b, &I);
         if (o.offset >= S.vregs[o.index].width)
            fail("register offset beyond the virtual register's width", b, &I);
      } else {
         if (o.offset)
            fail("register offset left after register allocation", b, &I);
         if (o.index >= S.num_regs || S.num_regs > VLG_NUM_REGS)
            fail("physical register beyond num_regs / R" + std::to_string(VLG_NUM_REGS - 1), b, &I);
      }
   }

   void check_operand(const Operand &o, bool is_dst, unsigned b, const Instr &I)
   {
      switch (o.file) {
      case File::None:
         return;
      case File::Reg:
         check_reg(o, b, I);
         return;
      case File::Imm:
      case File::Unif:
         if (is_dst)
            fail("destination is not a register", b, &I);
         if (S.packed)
            fail("literal or uniform slot left after global-buffer packing", b, &I);
         return;
      case File::Const:
         if (is_dst)
            fail("destination is not a register", b, &I);
         if (!S.packed)
            fail("global-buffer entry before packing", b, &I);
         if (o.index >= S.consts.size())
            fail("global-buffer entry beyond the image (" + std::to_string(S.consts.size()) +
                    " entries)",
                 b, &I);
         return;
      }
      fail("operand of an unknown file", b, &I);
   }

   /* Operand count and kinds per opcode (vlg_op_table). */
   void check_shape(const Instr &I, unsigned b)
   {
      const vlg_opinfo *info = I.info();
      if (!info)
         fail("undefined opcode " + std::to_string(I.op), b, &I);
      if (I.wmask & ~0xfu)
         fail("write mask beyond xyzw", b, &I);
      if (I.is_alu()) {
         for (unsigned s = 0; s < 3; s++)
            if ((s < info->nsrc) != (I.src[s].file != File::None))
               fail(std::string(info->name) + " takes " + std::to_string(info->nsrc) + " source(s)",
                    b, &I);
         if (!I.dst.is_reg() || !I.wmask)
            fail("an ALU op writes a register with a non-empty write mask", b, &I);
      } else if (info->format == VLG_FMT_TEX) {
         if (!I.src[0].is_reg() || !I.dst.is_reg())
            fail("texture op without coordinate or destination register", b, &I);
         if (!S.allocated &&
             I.src[0].offset + tex_group_width(I.op, I.cube_array) >
                S.vregs[I.src[0].index].width)
            fail("texture coordinate group wider than its virtual register", b, &I);
      } else if (I.op == VLG_OP_MEM) {
         const bool none = I.is_mem_no_operands();
         const bool ld = I.kind == VLG_MEMKIND_LD, st = I.kind == VLG_MEMKIND_ST;
         if (none ? (I.dst.file != File::None || I.src[0].file != File::None ||
                     I.src[1].file != File::None)
                  : (!I.src[1].is_reg() || I.dst.is_reg() == st || I.src[0].is_reg() == ld))
            fail("MEM operands do not match its kind", b, &I);
      } else if (I.op == VLG_OP_LDC) {
         if (!I.dst.is_reg() || !I.src[0].is_gb())
            fail("LDC reads a global-buffer entry into a register", b, &I);
      }
   }

   /* legalize(): the operand rules of the encodings (docs/compiler.md "Legalisation"). */
   void check_legal(const Instr &I, unsigned b)
   {
      const vlg_opinfo *info = I.info();
      if (!I.is_alu())
         return;
      for (unsigned s = 0; s < info->nsrc; s++) {
         const Operand &o = I.src[s];
         if (o.file == File::Const && o.index >= VLG_DIRECT_GLOBAL)
            fail("ALU operand C" + std::to_string(o.index) + " beyond C" +
                    std::to_string(VLG_DIRECT_GLOBAL - 1) + " (needs LDC)",
                 b, &I);
         if ((info->otype == 'b' || info->otype == 'u') && (o.neg || o.abs))
            fail("negate/abs on a raw-bit or unsigned operand", b, &I);
      }
      if (I.op == VLG_OP_MAD || I.op == VLG_OP_SEL) {
         if (!swz_is_bcast_or_identity(I.src[0].swz, src_read_positions(I, 0)) ||
             !swz_is_identity(I.src[1].swz, src_read_positions(I, 1)))
            fail("MAD/SEL: A needs an identity or broadcast swizzle, B none", b, &I);
         if (I.src[0].abs || I.src[1].abs || I.src[2].abs)
            fail("MAD/SEL: absolute value on a source", b, &I);
      }
   }

   void check_instrs()
   {
      for (unsigned b = 0; b < S.blocks.size(); b++)
         for (const Instr &I : S.blocks[b].instrs) {
            if (I.dead)
               continue;
            check_shape(I, b);
            check_operand(I.dst, true, b, I);
            for (unsigned s = 0; s < 3; s++)
               check_operand(I.src[s], false, b, I);
            if (S.legalized)
               check_legal(I, b);
         }
   }

   void check_bundles()
   {
      for (unsigned b = 0; b < S.blocks.size(); b++) {
         const Block &B = S.blocks[b];
         std::vector<unsigned> seen(B.instrs.size(), 0);
         for (unsigned k = 0; k < B.bundles.size(); k++)
            for (unsigned p = 0; p < 2; p++) {
               int i = B.bundles[k].ph[p];
               if (i < 0)
                  continue;
               if ((unsigned)i >= B.instrs.size())
                  fail("bundle names an op outside its block", b);
               const Instr &I = B.instrs[i];
               seen[i]++;
               if (!I.dead && I.info() && !(I.info()->phases & (1u << p)))
                  fail("op in a phase vlg_op_table does not allow (phase " + std::to_string(p) +
                          ")",
                       b, &I);
               if (!I.dead && I.is_terminator() && k + 1 != B.bundles.size())
                  fail("terminator not in the block's last bundle", b, &I);
            }
         for (unsigned i = 0; i < B.instrs.size(); i++)
            if (!B.instrs[i].dead && seen[i] != 1)
               fail("op in " + std::to_string(seen[i]) + " bundle phases (must be 1)", b,
                    &B.instrs[i]);
      }
   }

   void check_io()
   {
      auto valid = [&](uint32_t r, unsigned offset) {
         return S.allocated ? r < S.num_regs && !offset
                            : r < S.vregs.size() && offset < S.vregs[r].width;
      };
      for (const InputDesc &in : S.inputs)
         if (in.mask && !valid(in.vreg, in.offset))
            fail("input map names an invalid register (" + std::to_string(in.vreg) + ")");
      for (const OutputDesc &o : S.outputs)
         if (o.mask && !valid(o.vreg, 0))
            fail("output map names an invalid register (" + std::to_string(o.vreg) + ")");
   }
};

} // anonymous namespace

void
validate(const Shader &S, const char *pass)
{
   Validator v{S, pass};
   v.check_blocks();
   v.check_instrs();
   if (S.scheduled)
      v.check_bundles();
   v.check_io();
}

} // namespace vlgpu
