/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel.h — instruction selection's shared state (internal to the
 * vlg_isel*.cpp files): the Isel context (builder, SSA values, io maps,
 * labels and loops) and the per-family emitters, one file each:
 *
 *   vlg_isel.cpp           driver, control flow, inputs/outputs bookkeeping, intrinsic dispatch
 *   vlg_isel_alu.cpp       NIR ALU ops
 *   vlg_isel_io.cpp        io intrinsics: inputs, outputs, system values, GS vertices
 *   vlg_isel_memory.cpp    uniforms, uniform blocks, global/shared memory, atomics, barriers
 *   vlg_isel_tex.cpp       texture instructions
 *
 * The pass's entry point is select_instructions() (vlg_passes.h).
 */
#pragma once

#include <cstring>
#include <map>

#include "compiler/nir/nir.h"

#include "vlg_builder.h"
#include "vlg_compiler.h"
#include "vlg_passes.h"

namespace vlgpu {

/** What an SSA value is. */
struct Value {
   enum Kind : uint8_t { None, VReg, Imm, Unif } kind = None;
   uint32_t vreg = 0;              /**< VReg */
   uint8_t offset = 0;             /**< VReg: register of a multi-register vreg */
   uint8_t swz = VLG_SWZ_IDENTITY; /**< VReg/Unif: component holding SSA component n */
   uint32_t imm[4] = {0, 0, 0, 0}; /**< Imm: value of SSA component n */
   uint32_t slot = 0;              /**< Unif: cb0 vec4 slot */
};

static inline uint8_t
swz_from(const uint8_t *s)
{
   return VLG_SWZ(s[0] & 3, s[1] & 3, s[2] & 3, s[3] & 3);
}

/** Swizzle reading components first, first+1, ... (clamped to w) at positions 0, 1, ... */
static inline uint8_t
swz_offset(unsigned first)
{
   unsigned c[4];
   for (unsigned n = 0; n < 4; n++)
      c[n] = first + n < 4 ? first + n : 3;
   return VLG_SWZ(c[0], c[1], c[2], c[3]);
}

/** The state of one selection run (select_instructions). */
class Isel {
 public:
   Isel(nir_shader *n, const IoInfo &io, Shader &s) : nir(n), io(io), S(s), b(s) {}

   void run();

 private:
   nir_shader *nir;
   const IoInfo &io;
   Shader &S;
   Builder b;

   std::vector<Value> ssa;
   std::vector<uint32_t> regs;          /**< nir_register index -> vreg */
   std::map<uint64_t, unsigned> in_map; /**< (semantic, index) -> S.inputs index */
   std::map<int, unsigned> out_map; /**< NIR output location (+dual-source) -> S.outputs index */

   /* Geometry shaders: the per-vertex input block, one vreg of
    * gs_vertices_in * gs_stride registers; slot j of vertex v is register
    * v * gs_stride + j (docs/hw.md input semantics POSITION/VARYING). */
   std::map<int, unsigned> gs_slot; /**< varying location -> slot j */
   uint32_t gs_block = 0;
   unsigned gs_stride = 0;
   void gs_collect_inputs(nir_function_impl *impl);

   /* Labels: jumps carry a label id in Instr::target until resolve(). */
   std::vector<int> label_block;
   bool terminated = false;
   /* The current point is unreachable: the last instruction was an
    * unconditional jump.  A conditional jump also ends its block
    * (terminated) but falls through, so loops and ifs must still emit
    * their back edge / jump over the else after it. */
   bool dead = false;
   struct Loop {
      unsigned head, exit;
   };
   std::vector<Loop> loops;

   [[noreturn]] void unsupported(const std::string &what)
   {
      throw CompileError(what + " is not supported");
   }

   /* ---- blocks and labels ---- */
   void open()
   {
      if (terminated) {
         b.block = S.new_block();
         terminated = false;
         dead = false;
      }
   }
   unsigned new_label()
   {
      label_block.push_back(-1);
      return label_block.size() - 1;
   }
   void bind(unsigned label)
   {
      if (terminated || !S.blocks[b.block].instrs.empty()) {
         b.block = S.new_block();
         terminated = false;
      }
      dead = false;
      label_block[label] = b.block;
   }
   void jump(unsigned label, unsigned cond = VLG_BRCOND_ALWAYS)
   {
      open();
      b.jump(label, cond, 0);
      terminated = true;
      dead = cond == VLG_BRCOND_ALWAYS;
   }

   /* ---- values and operands ---- */
   Value &value(const nir_ssa_def *def)
   {
      if (def->index >= ssa.size())
         ssa.resize(def->index + 1);
      return ssa[def->index];
   }

   Operand value_operand(const Value &v)
   {
      switch (v.kind) {
      case Value::VReg:
         return reg(v.vreg, v.swz, v.offset);
      case Value::Imm: {
         Operand o = imm_u(v.imm[0], v.imm[1], v.imm[2], v.imm[3]);
         return o;
      }
      case Value::Unif:
         return unif(v.slot, v.swz);
      default:
         throw CompileError("internal error: use of an SSA value that was never defined");
      }
   }

   /** Operand reading @src with SSA component n at position n. */
   Operand get_src(const nir_src &src)
   {
      if (src.is_ssa)
         return value_operand(value(src.ssa));
      if (src.reg.indirect || src.reg.base_offset)
         unsupported("indirect register access");
      return reg(regs[src.reg.reg->index]);
   }

   /** @o in a register (MOV from the global buffer if needed), positions @pos valid. */
   Operand as_reg(Operand o, unsigned pos)
   {
      if (o.file == File::Reg && !o.neg && !o.abs)
         return o;
      uint32_t t = S.new_vreg();
      b.mov(reg(t), pos, o);
      return reg(t);
   }

   Operand alu_src(nir_alu_instr *alu, unsigned i)
   {
      nir_alu_src &s = alu->src[i];
      Operand o = swz(get_src(s.src), swz_from(s.swizzle));
      if (s.abs) {
         o.abs = true;
         o.neg = s.negate;
      } else if (s.negate) {
         o.neg = !o.neg;
      }
      return o;
   }

   struct Dst {
      Operand op;
      unsigned wmask;
   };

   Dst new_ssa_dst(nir_ssa_def *def)
   {
      uint32_t v = S.new_vreg();
      Value &val = value(def);
      val.kind = Value::VReg;
      val.vreg = v;
      val.swz = VLG_SWZ_IDENTITY;
      return {reg(v), (1u << def->num_components) - 1};
   }

   Dst dest(nir_dest &d, unsigned write_mask)
   {
      if (d.is_ssa)
         return new_ssa_dst(&d.ssa);
      if (d.reg.indirect || d.reg.base_offset)
         unsupported("indirect register write");
      return {reg(regs[d.reg.reg->index]), write_mask};
   }

   Dst alu_dest(nir_alu_instr *alu) { return dest(alu->dest.dest, alu->dest.write_mask); }

   /* ---- emission (vlg_isel.cpp: control flow and dispatch) ---- */
   void emit_cf_list(struct exec_list *list);
   void emit_block(nir_block *block);
   void emit_if(nir_if *nif);
   void emit_loop(nir_loop *loop);
   void emit_instr(nir_instr *instr);
   void emit_jump(nir_jump_instr *jump);
   void emit_intrinsic(nir_intrinsic_instr *intr);
   unsigned pred_from(const nir_src &cond);
   unsigned input(unsigned semantic, unsigned index, int location, unsigned interp);
   unsigned output(unsigned semantic, unsigned index, int location, bool dual_source = false);

   /* ---- vlg_isel_alu.cpp ---- */
   void emit_alu(nir_alu_instr *alu);
   bool emit_alu_modifiers(nir_alu_instr *alu);
   bool emit_alu_bool_int(nir_alu_instr *alu);
   bool emit_alu_float_sequence(nir_alu_instr *alu);
   bool emit_alu_vector_pack(nir_alu_instr *alu);

   /* ---- vlg_isel_io.cpp: false if @intr is not an io intrinsic ---- */
   bool emit_io_intrinsic(nir_intrinsic_instr *intr);
   void set_value_from_input(nir_intrinsic_instr *intr, unsigned in, unsigned first_comp);
   void system_input(nir_intrinsic_instr *intr, unsigned semantic, int location, unsigned interp);
   void emit_gs_load_input(nir_intrinsic_instr *intr);
   void emit_gs_vertex_op(nir_intrinsic_instr *intr);
   void emit_load_input(nir_intrinsic_instr *intr);
   unsigned store_output_index(const nir_io_semantics &sem, int loc);
   void emit_store_output(nir_intrinsic_instr *intr);
   void emit_load_output(nir_intrinsic_instr *intr);
   void emit_compute_id(nir_intrinsic_instr *intr);

   /* ---- vlg_isel_memory.cpp: false if @intr is not a memory intrinsic ---- */
   bool emit_memory_intrinsic(nir_intrinsic_instr *intr);
   /** A register holding @src (+ @base) in component x, identity swizzle. */
   Operand mem_address(const nir_src &src, unsigned base);
   static int atomic_kind(nir_intrinsic_op op);
   void emit_load_uniform(nir_intrinsic_instr *intr);
   void emit_load_ubo(nir_intrinsic_instr *intr);
   void emit_barrier(nir_intrinsic_instr *intr);
   void emit_load_memory(nir_intrinsic_instr *intr);
   void emit_store_memory(nir_intrinsic_instr *intr);
   void emit_atomic(nir_intrinsic_instr *intr, int kind);

   /* ---- vlg_isel_tex.cpp ---- */
   struct TexSources {
      const nir_src *coord = nullptr, *comparator = nullptr, *bias = nullptr, *lod = nullptr,
                    *ddx = nullptr, *ddy = nullptr;
   };
   unsigned tex_opcode(nir_tex_instr *tex);
   void check_sampler_dim(nir_tex_instr *tex, unsigned op);
   TexSources tex_sources(nir_tex_instr *tex);
   Operand tex_group(nir_tex_instr *tex, unsigned op, const TexSources &t, uint8_t read[3]);
   void emit_tex(nir_tex_instr *tex);
};

} // namespace vlgpu
