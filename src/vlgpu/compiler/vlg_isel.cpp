/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel.cpp — instruction selection: NIR after vlg_nir.cpp (out of SSA:
 * phi webs and vectors are write-masked nir_registers; float source
 * modifiers and saturate folded into ALU sources/destinations) to the
 * backend IR on virtual registers.
 *
 *  - Every SSA def and nir_register gets a vreg (a whole vec4 register; the
 *    SSA value in components 0..n-1). Constants (load_const, undef) and
 *    direct uniform loads are not materialised: they are folded into ALU
 *    operands as File::Imm / File::Unif, which vlg_pack.cpp turns into
 *    global-buffer entries C0..; other uses get a MOV from the global buffer.
 *  - Inputs: one vreg per input slot, preloaded by the hardware (input map);
 *    outputs: one vreg per output slot, written by MOVs that register
 *    allocation coalesces, read by the hardware at BRC.END (output map).
 *  - Indirect uniform loads: ADDR A0 + LDC C[A0 + base] (seed 004 fig. 11).
 *  - Control flow: structured NIR, blocks in program order; if/else and
 *    loops with break/continue become PRED + BRC.JMP, which is correct for
 *    divergent lanes because every lane has its own PC and the group issues
 *    the lowest PC (docs/isa.md §1). `if (c) break;` is one conditional
 *    jump. Loops do not use the seed-004 LC loop step (see docs/compiler.md).
 *  - discard(_if) / demote(_if) -> [PRED] + BRC.KILL; thread end BRC.END.
 */
#include <cstring>
#include <map>

#include "compiler/nir/nir.h"

#include "vlg_builder.h"
#include "vlg_compiler.h"
#include "vlg_passes.h"

namespace vlgpu {

namespace {

/** What an SSA value is. */
struct Value {
   enum Kind : uint8_t { None, VReg, Imm, Unif } kind = None;
   uint32_t vreg = 0;              /**< VReg */
   uint8_t offset = 0;             /**< VReg: register of a multi-register vreg */
   uint8_t swz = VLG_SWZ_IDENTITY; /**< VReg/Unif: component holding SSA component n */
   uint32_t imm[4] = {0, 0, 0, 0}; /**< Imm: value of SSA component n */
   uint32_t slot = 0;              /**< Unif: cb0 vec4 slot */
};

static uint8_t
swz_from(const uint8_t *s)
{
   return VLG_SWZ(s[0] & 3, s[1] & 3, s[2] & 3, s[3] & 3);
}

static uint8_t
swz_offset(unsigned first)
{
   unsigned c[4];
   for (unsigned n = 0; n < 4; n++)
      c[n] = first + n < 4 ? first + n : 3;
   return VLG_SWZ(c[0], c[1], c[2], c[3]);
}

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

   /* ---- emission ---- */
   void emit_cf_list(struct exec_list *list);
   void emit_block(nir_block *block);
   void emit_if(nir_if *nif);
   void emit_loop(nir_loop *loop);
   void emit_instr(nir_instr *instr);
   void emit_alu(nir_alu_instr *alu);
   void emit_intrinsic(nir_intrinsic_instr *intr);
   void emit_tex(nir_tex_instr *tex);
   void emit_jump(nir_jump_instr *jump);

   unsigned pred_from(const nir_src &cond);
   /** MEM op: dst (LD/ATOM), data source src[0] (ST/ATOM), address src[1]. */
   void mem(unsigned kind, bool shared, Operand dst, unsigned wmask, Operand data, Operand addr)
   {
      Instr I;
      I.op = VLG_OP_MEM;
      I.kind = kind;
      I.shared = shared;
      I.dst = dst;
      I.wmask = wmask;
      I.src[0] = data;
      I.src[1] = addr;
      b.emit(I);
   }
   /** A register holding @src (+ @base) in component x, identity swizzle. */
   Operand mem_address(const nir_src &src, unsigned base)
   {
      Operand o = get_src(src);
      if (base) {
         uint32_t t = S.new_vreg();
         b.alu(VLG_OP_IADD, reg(t), 0x1, swz(o, VLG_SWZ_BCAST(0)), imm_u(base));
         return reg(t);
      }
      if (o.file == File::Reg && !o.neg && !o.abs && VLG_SWZ_GET(o.swz, 0) == 0)
         return reg(o.index, VLG_SWZ_IDENTITY, o.offset);
      uint32_t t = S.new_vreg();
      b.mov(reg(t), 0x1, swz(o, VLG_SWZ_BCAST(0)));
      return reg(t);
   }
   static int atomic_kind(nir_intrinsic_op op);
   unsigned input(unsigned semantic, unsigned index, int location, unsigned interp);
   unsigned output(unsigned semantic, unsigned index, int location, bool dual_source = false);
};

int
Isel::atomic_kind(nir_intrinsic_op op)
{
   switch (op) {
#define CASE(x, k)                                                                                 \
   case nir_intrinsic_global_atomic_##x:                                                           \
   case nir_intrinsic_shared_atomic_##x:                                                           \
      return VLG_MEMKIND_ATOM_##k;
      CASE(add, ADD)
      CASE(imin, IMIN)
      CASE(umin, UMIN)
      CASE(imax, IMAX)
      CASE(umax, UMAX)
      CASE(and, AND)
      CASE(or, OR)
      CASE(xor, XOR)
      CASE(exchange, XCHG)
      CASE(comp_swap, CMPXCHG)
#undef CASE
   default:
      return -1;
   }
}

unsigned
Isel::input(unsigned semantic, unsigned index, int location, unsigned interp)
{
   uint64_t key = (uint64_t)semantic << 32 | index;
   auto it = in_map.find(key);
   if (it != in_map.end())
      return it->second;
   if (S.inputs.size() >= VLG_COMPILER_MAX_IO)
      throw CompileError("more than 32 inputs");
   InputDesc d;
   d.vreg = S.new_vreg();
   d.mask = 0;
   d.interp = interp;
   d.semantic = semantic;
   d.index = index;
   d.location = location;
   S.inputs.push_back(d);
   in_map[key] = S.inputs.size() - 1;
   return S.inputs.size() - 1;
}

unsigned
Isel::output(unsigned semantic, unsigned index, int location, bool dual_source)
{
   /* the dual-source output shares FRAG_RESULT_DATA0 with COLOR 0 */
   const int key = dual_source ? -1 - location : location;
   auto it = out_map.find(key);
   if (it != out_map.end())
      return it->second;
   if (S.outputs.size() >= VLG_COMPILER_MAX_IO)
      throw CompileError("more than 32 outputs");
   OutputDesc d;
   d.vreg = S.new_vreg();
   d.mask = 0;
   d.semantic = semantic;
   d.index = index;
   d.location = location;
   S.outputs.push_back(d);
   out_map[key] = S.outputs.size() - 1;
   return S.outputs.size() - 1;
}

/** PRED.INE P0, cond.x, #0; returns the predicate (always P0). */
unsigned
Isel::pred_from(const nir_src &cond)
{
   Operand c = as_reg(get_src(cond), 0x1);
   open();
   b.pred_imm(VLG_COND_INE, 0, reg(c.index, VLG_SWZ_IDENTITY, c.offset), VLG_SWZ_GET(c.swz, 0), 0);
   return 0;
}

void
Isel::run()
{
   nir_function_impl *impl = nir_shader_get_entrypoint(nir);
   if (!impl)
      throw CompileError("shader has no entry point");

   S.stage = nir->info.stage;
   regs.resize(impl->reg_alloc);
   foreach_list_typed(nir_register, r, node, &impl->registers)
   {
      if (r->num_array_elems)
         unsupported("register arrays (indirectly indexed temporaries)");
      if (r->bit_size != 32 && r->bit_size != 1)
         unsupported(std::to_string(r->bit_size) + "-bit registers");
      regs[r->index] = S.new_vreg();
   }
   ssa.resize(impl->ssa_alloc);

   if (S.stage == MESA_SHADER_GEOMETRY)
      gs_collect_inputs(impl);

   b.block = S.new_block();
   terminated = false;
   emit_cf_list(&impl->body);
   open();
   b.end();
   terminated = true;

   /* Resolve label ids to block indices. */
   for (Block &blk : S.blocks)
      for (Instr &I : blk.instrs)
         if (I.is_jump()) {
            int bl = label_block[I.target];
            if (bl < 0)
               throw CompileError("internal error: unbound label");
            I.target = bl;
         }

   compute_cfg(S);
}

/* The per-vertex input slots a geometry shader reads (constant offsets:
 * vlg_nir.cpp unrolled indirect ones), numbered in location order; one
 * input-map entry per slot (vertex 0's register), the stride is their
 * count. */
void
Isel::gs_collect_inputs(nir_function_impl *impl)
{
   nir_foreach_block (block, impl) {
      nir_foreach_instr (instr, block) {
         if (instr->type != nir_instr_type_intrinsic)
            continue;
         nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
         if (intr->intrinsic != nir_intrinsic_load_per_vertex_input)
            continue;
         if (!nir_src_is_const(intr->src[1]))
            unsupported("indirect geometry shader input access");
         int loc = nir_intrinsic_io_semantics(intr).location + nir_src_as_uint(intr->src[1]);
         gs_slot[loc] = 0;
      }
   }
   unsigned vertices = nir->info.gs.vertices_in;
   if (gs_slot.empty() || !vertices)
      return;
   unsigned j = 0;
   for (auto &s : gs_slot)
      s.second = j++;
   gs_stride = j;
   S.gs_input_stride = j;
   if ((uint64_t)vertices * gs_stride > VLG_NUM_REGS)
      throw CompileError("geometry shader inputs need " + std::to_string(vertices * gs_stride) +
                         " registers (" + std::to_string(vertices) + " vertices x " +
                         std::to_string(gs_stride) + " slots), R0-R127 hold " +
                         std::to_string(VLG_NUM_REGS));
   gs_block = S.new_vreg(vertices * gs_stride);
   for (auto &s : gs_slot) {
      int loc = s.first;
      unsigned semantic, index = 0;
      if (loc == VARYING_SLOT_POS) {
         semantic = VLG_INPUT_SEMANTIC_POSITION;
      } else if (loc == VARYING_SLOT_PSIZ) {
         semantic = VLG_INPUT_SEMANTIC_POINT_SIZE;
      } else {
         int vi = vlg_varying_index(loc);
         if (vi < 0)
            unsupported(std::string("geometry shader input ") +
                        gl_varying_slot_name_for_stage((gl_varying_slot)loc, MESA_SHADER_GEOMETRY));
         semantic = VLG_INPUT_SEMANTIC_VARYING;
         index = vi;
      }
      if (S.inputs.size() >= VLG_COMPILER_MAX_IO)
         throw CompileError("more than 32 inputs");
      InputDesc d;
      d.vreg = gs_block;
      d.offset = s.second;
      d.mask = 0;
      d.interp = VLG_INTERP_PERSPECTIVE;
      d.semantic = semantic;
      d.index = index;
      d.location = loc;
      S.inputs.push_back(d);
      in_map[(uint64_t)semantic << 32 | index] = S.inputs.size() - 1;
   }
}

void
Isel::emit_cf_list(struct exec_list *list)
{
   foreach_list_typed(nir_cf_node, node, node, list)
   {
      switch (node->type) {
      case nir_cf_node_block:
         emit_block(nir_cf_node_as_block(node));
         break;
      case nir_cf_node_if:
         emit_if(nir_cf_node_as_if(node));
         break;
      case nir_cf_node_loop:
         emit_loop(nir_cf_node_as_loop(node));
         break;
      default:
         unsupported("a function control-flow node");
      }
   }
}

void
Isel::emit_block(nir_block *block)
{
   nir_foreach_instr (instr, block) {
      emit_instr(instr);
   }
}

/** The jump a list consists of, if it is a single block holding only a jump. */
static nir_jump_instr *
only_jump(struct exec_list *list)
{
   if (!exec_list_is_singular(list))
      return nullptr;
   nir_cf_node *n = exec_node_data(nir_cf_node, exec_list_get_head(list), node);
   if (n->type != nir_cf_node_block)
      return nullptr;
   nir_block *blk = nir_cf_node_as_block(n);
   nir_instr *first = nir_block_first_instr(blk);
   if (!first || first != nir_block_last_instr(blk) || first->type != nir_instr_type_jump)
      return nullptr;
   nir_jump_instr *j = nir_instr_as_jump(first);
   return (j->type == nir_jump_break || j->type == nir_jump_continue) ? j : nullptr;
}

static bool
list_is_empty_block(struct exec_list *list)
{
   if (!exec_list_is_singular(list))
      return false;
   nir_cf_node *n = exec_node_data(nir_cf_node, exec_list_get_head(list), node);
   return n->type == nir_cf_node_block && exec_list_is_empty(&nir_cf_node_as_block(n)->instr_list);
}

void
Isel::emit_if(nir_if *nif)
{
   nir_jump_instr *jt = only_jump(&nif->then_list);
   nir_jump_instr *je = only_jump(&nif->else_list);
   bool then_empty = list_is_empty_block(&nif->then_list);
   bool else_empty = list_is_empty_block(&nif->else_list);

   /* if (c) break/continue;  ->  PRED | BRC.JMP target if P0 */
   if ((jt && else_empty) || (je && then_empty)) {
      if (loops.empty())
         throw CompileError("internal error: break outside a loop");
      nir_jump_instr *j = jt ? jt : je;
      unsigned target = j->type == nir_jump_break ? loops.back().exit : loops.back().head;
      pred_from(nif->condition);
      jump(target, jt ? VLG_BRCOND_P : VLG_BRCOND_NP);
      return;
   }

   unsigned l_else = new_label(), l_end = new_label();
   pred_from(nif->condition);
   jump(else_empty ? l_end : l_else, VLG_BRCOND_NP);
   emit_cf_list(&nif->then_list);
   if (!else_empty) {
      if (!dead)
         jump(l_end);
      bind(l_else);
      emit_cf_list(&nif->else_list);
   }
   bind(l_end);
}

void
Isel::emit_loop(nir_loop *loop)
{
   Loop l;
   l.head = new_label();
   l.exit = new_label();
   bind(l.head);
   loops.push_back(l);
   unsigned first_block = b.block;
   emit_cf_list(&loop->body);
   if (!dead)
      jump(l.head);
   loops.pop_back();
   for (unsigned i = first_block; i < S.blocks.size(); i++)
      S.blocks[i].loop_depth++;
   bind(l.exit);
}

void
Isel::emit_jump(nir_jump_instr *jump_instr)
{
   switch (jump_instr->type) {
   case nir_jump_break:
      if (loops.empty())
         throw CompileError("internal error: break outside a loop");
      jump(loops.back().exit);
      break;
   case nir_jump_continue:
      if (loops.empty())
         throw CompileError("internal error: continue outside a loop");
      jump(loops.back().head);
      break;
   default:
      unsupported("a return/halt jump");
   }
}

void
Isel::emit_instr(nir_instr *instr)
{
   switch (instr->type) {
   case nir_instr_type_alu:
      open();
      emit_alu(nir_instr_as_alu(instr));
      break;
   case nir_instr_type_intrinsic:
      open();
      emit_intrinsic(nir_instr_as_intrinsic(instr));
      break;
   case nir_instr_type_tex:
      open();
      emit_tex(nir_instr_as_tex(instr));
      break;
   case nir_instr_type_load_const: {
      nir_load_const_instr *lc = nir_instr_as_load_const(instr);
      if (lc->def.bit_size != 32 && lc->def.bit_size != 1)
         unsupported(std::to_string(lc->def.bit_size) + "-bit constants");
      Value &v = value(&lc->def);
      v.kind = Value::Imm;
      for (unsigned n = 0; n < lc->def.num_components && n < 4; n++)
         v.imm[n] = lc->def.bit_size == 1 ? (lc->value[n].b ? ~0u : 0u) : lc->value[n].u32;
      break;
   }
   case nir_instr_type_ssa_undef: {
      Value &v = value(&nir_instr_as_ssa_undef(instr)->def);
      v.kind = Value::Imm; /* undefined: any value, 0 costs nothing */
      break;
   }
   case nir_instr_type_jump:
      emit_jump(nir_instr_as_jump(instr));
      break;
   case nir_instr_type_phi:
   case nir_instr_type_parallel_copy:
      throw CompileError("internal error: phi or parallel copy left after out-of-SSA");
   default:
      unsupported("a NIR instruction of this type (call/deref)");
   }
}

/* ---------------------------------------------------------------------- */
/* ALU                                                                      */
/* ---------------------------------------------------------------------- */

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
static const uint32_t F_HALF = 0x3f000000u;
static const uint32_t F_MINUS_ONE = 0xbf800000u;

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

   switch (alu->op) {
   case nir_op_fneg: {
      Dst d = alu_dest(alu);
      b.mov(d.op, d.wmask, neg(alu_src(alu, 0))).sat = alu->dest.saturate;
      return;
   }
   case nir_op_fabs: {
      Dst d = alu_dest(alu);
      Operand a = alu_src(alu, 0);
      a.abs = true;
      a.neg = false;
      b.mov(d.op, d.wmask, a).sat = alu->dest.saturate;
      return;
   }
   case nir_op_fsat: {
      Dst d = alu_dest(alu);
      b.mov(d.op, d.wmask, alu_src(alu, 0)).sat = true;
      return;
   }
   case nir_op_fsub: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_ADD, d.op, d.wmask, alu_src(alu, 0), neg(alu_src(alu, 1))).sat =
         alu->dest.saturate;
      return;
   }
   case nir_op_isub: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_IADD, d.op, d.wmask, alu_src(alu, 0), neg(alu_src(alu, 1)));
      return;
   }
   case nir_op_ineg: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_IADD, d.op, d.wmask, imm_u(0), neg(alu_src(alu, 0)));
      return;
   }
   case nir_op_iabs: {
      Dst d = alu_dest(alu);
      Operand a = alu_src(alu, 0);
      b.alu(VLG_OP_IMAX, d.op, d.wmask, a, neg(a));
      return;
   }
   case nir_op_inot: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_XOR, d.op, d.wmask, alu_src(alu, 0), imm_u(~0u));
      return;
   }
   case nir_op_b2f32: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_AND, d.op, d.wmask, alu_src(alu, 0), imm_u(F_ONE));
      return;
   }
   case nir_op_b2i32: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_AND, d.op, d.wmask, alu_src(alu, 0), imm_u(1));
      return;
   }
   case nir_op_f2b32: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_CMP_NE, d.op, d.wmask, alu_src(alu, 0), imm_u(0));
      return;
   }
   case nir_op_i2b32: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_ICMP_NE, d.op, d.wmask, alu_src(alu, 0), imm_u(0));
      return;
   }
   case nir_op_b32csel: {
      Dst d = alu_dest(alu);
      b.alu(VLG_OP_SEL, d.op, d.wmask, alu_src(alu, 1), alu_src(alu, 2), alu_src(alu, 0));
      return;
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
      return;
   }
   case nir_op_fround_even: {
      /* f = floor(x + 0.5); if f - x == 0.5 exactly (a tie) and f is odd, f - 1. */
      Dst d = alu_dest(alu);
      unsigned m = d.wmask;
      Operand x = alu_src(alu, 0);
      uint32_t t = S.new_vreg(), f = S.new_vreg(), tie = S.new_vreg(), h = S.new_vreg(),
               odd = S.new_vreg(), fm1 = S.new_vreg();
      b.alu(VLG_OP_ADD, reg(t), m, x, imm_u(F_HALF));
      b.alu(VLG_OP_FLR, reg(f), m, reg(t));
      b.alu(VLG_OP_CMP_EQ, reg(tie), m, reg(f), reg(t));
      b.alu(VLG_OP_MUL, reg(h), m, reg(f), imm_u(F_HALF));
      b.alu(VLG_OP_FRC, reg(h), m, reg(h));
      b.alu(VLG_OP_CMP_NE, reg(odd), m, reg(h), imm_u(0));
      b.alu(VLG_OP_AND, reg(tie), m, reg(tie), reg(odd));
      b.alu(VLG_OP_ADD, reg(fm1), m, reg(f), imm_u(F_MINUS_ONE));
      b.alu(VLG_OP_SEL, d.op, m, reg(fm1), reg(f), reg(tie));
      return;
   }
   case nir_op_fdot2:
   case nir_op_fdot2_replicated: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_MUL, reg(t), 0x3, alu_src(alu, 0), alu_src(alu, 1));
      b.alu(VLG_OP_ADD, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1))).sat =
         alu->dest.saturate;
      return;
   }
   case nir_op_fdot3:
   case nir_op_fdot4:
   case nir_op_fdot3_replicated:
   case nir_op_fdot4_replicated: {
      Dst d = alu_dest(alu);
      bool dp3 = alu->op == nir_op_fdot3 || alu->op == nir_op_fdot3_replicated;
      b.alu(dp3 ? VLG_OP_DP3 : VLG_OP_DP4, d.op, d.wmask, alu_src(alu, 0), alu_src(alu, 1)).sat =
         alu->dest.saturate;
      return;
   }
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
      return;
   }
   case nir_op_pack_half_2x16: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_CONV_F2H, reg(t), 0x3, alu_src(alu, 0));
      b.alu(VLG_OP_SHL, reg(t), 0x2, reg(t), imm_u(16));
      b.alu(VLG_OP_OR, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      return;
   }
   case nir_op_unpack_half_2x16: {
      Dst d = alu_dest(alu);
      Operand s = swz(alu_src(alu, 0), VLG_SWZ_BCAST(0));
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_AND, reg(t), 0x1, s, imm_u(0xffffu));
      b.alu(VLG_OP_SHR, reg(t), 0x2, s, imm_u(16));
      b.alu(VLG_OP_CONV_H2F, d.op, d.wmask, reg(t));
      return;
   }
   case nir_op_pack_uvec2_to_uint: {
      Dst d = alu_dest(alu);
      Operand s = alu_src(alu, 0);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_SHL, reg(t), 0x2, s, imm_u(16));
      b.alu(VLG_OP_OR, d.op, d.wmask, swz(s, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      return;
   }
   case nir_op_pack_uvec4_to_uint: {
      Dst d = alu_dest(alu);
      Operand s = alu_src(alu, 0);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_SHL, reg(t), 0xe, s, imm_u(0, 8, 16, 24));
      b.alu(VLG_OP_OR, reg(t), 0x1, swz(s, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(1)));
      b.alu(VLG_OP_OR, reg(t), 0x4, reg(t, VLG_SWZ_BCAST(2)), reg(t, VLG_SWZ_BCAST(3)));
      b.alu(VLG_OP_OR, d.op, d.wmask, reg(t, VLG_SWZ_BCAST(0)), reg(t, VLG_SWZ_BCAST(2)));
      return;
   }
   case nir_op_fquantize2f16: {
      Dst d = alu_dest(alu);
      uint32_t t = S.new_vreg();
      b.alu(VLG_OP_CONV_F2H, reg(t), d.wmask, alu_src(alu, 0));
      b.alu(VLG_OP_CONV_H2F, d.op, d.wmask, reg(t));
      return;
   }
   default:
      unsupported(std::string("NIR operation '") + info.name + "'");
   }
}

/* ---------------------------------------------------------------------- */
/* Intrinsics                                                               */
/* ---------------------------------------------------------------------- */

void
Isel::emit_intrinsic(nir_intrinsic_instr *intr)
{
   const nir_intrinsic_info &info = nir_intrinsic_infos[intr->intrinsic];
   bool fs = nir->info.stage == MESA_SHADER_FRAGMENT;

   auto set_value_from_input = [&](unsigned in, unsigned first_comp) {
      InputDesc &d = S.inputs[in];
      unsigned n = nir_dest_num_components(intr->dest);
      d.mask |= ((1u << n) - 1) << first_comp;
      if (intr->dest.is_ssa) {
         Value &v = value(&intr->dest.ssa);
         v.kind = Value::VReg;
         v.vreg = d.vreg;
         v.swz = swz_offset(first_comp);
      } else {
         Dst dd = dest(intr->dest, (1u << n) - 1);
         b.mov(dd.op, dd.wmask, reg(d.vreg, swz_offset(first_comp)));
      }
   };
   auto system_input = [&](unsigned semantic, int location, unsigned interp) {
      unsigned in = input(semantic, 0, location, interp);
      set_value_from_input(in, 0);
   };

   switch (intr->intrinsic) {
   case nir_intrinsic_load_per_vertex_input: {
      /* GS: gl_in[v].x -> register v * stride + j of the input block */
      if (nir->info.stage != MESA_SHADER_GEOMETRY)
         unsupported("per-vertex inputs outside a geometry shader");
      if (!nir_src_is_const(intr->src[0]))
         unsupported("indirect geometry shader vertex index");
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit inputs");
      unsigned vtx = nir_src_as_uint(intr->src[0]);
      int loc = nir_intrinsic_io_semantics(intr).location + nir_src_as_uint(intr->src[1]);
      unsigned comp = nir_intrinsic_component(intr);
      unsigned n = nir_dest_num_components(intr->dest);
      auto it = gs_slot.find(loc);
      assert(it != gs_slot.end());
      if (vtx >= nir->info.gs.vertices_in) {
         /* gl_in[] beyond the input primitive: undefined, 0 */
         Dst dd = dest(intr->dest, (1u << n) - 1);
         b.mov(dd.op, dd.wmask, imm_u(0));
         return;
      }
      for (InputDesc &d : S.inputs)
         if (d.vreg == gs_block && d.offset == it->second)
            d.mask |= ((1u << n) - 1) << comp;
      unsigned off = vtx * gs_stride + it->second;
      if (intr->dest.is_ssa) {
         /* read in place (the MOV dest() planned is not emitted) */
         Value &v = value(&intr->dest.ssa);
         v.kind = Value::VReg;
         v.vreg = gs_block;
         v.offset = off;
         v.swz = swz_offset(comp);
      } else {
         Dst dd = dest(intr->dest, (1u << n) - 1);
         b.mov(dd.op, dd.wmask, reg(gs_block, swz_offset(comp), off));
      }
      return;
   }
   case nir_intrinsic_load_primitive_id:
      if (nir->info.stage != MESA_SHADER_GEOMETRY)
         unsupported("gl_PrimitiveID outside a geometry shader");
      system_input(VLG_INPUT_SEMANTIC_PRIMITIVE_ID, SYSTEM_VALUE_PRIMITIVE_ID,
                   VLG_INTERP_PERSPECTIVE);
      return;
   case nir_intrinsic_emit_vertex:
   case nir_intrinsic_emit_vertex_with_counter:
   case nir_intrinsic_end_primitive:
   case nir_intrinsic_end_primitive_with_counter: {
      /* EmitVertex() -> MEM.EMIT (reads the output-map registers: they are
       * live up to here, vlg_ir.cpp instr_reads); EndPrimitive() -> MEM.CUT.
       * The hardware counts the vertices (drops those past max_vertices)
       * and drops incomplete strips: the counters are not needed. */
      if (nir_intrinsic_stream_id(intr) != 0)
         unsupported("geometry shader vertex stream " +
                     std::to_string(nir_intrinsic_stream_id(intr)));
      bool emit = intr->intrinsic == nir_intrinsic_emit_vertex ||
                  intr->intrinsic == nir_intrinsic_emit_vertex_with_counter;
      /* layout(max_vertices = 0): every EMIT would be dropped (the
       * hardware's gs_max_vertices is at least 1, vlg_compiler.cpp reports 1) */
      if (nir->info.gs.vertices_out == 0)
         return;
      open();
      mem(emit ? VLG_MEMKIND_EMIT : VLG_MEMKIND_CUT, false, Operand(), 0, Operand(), Operand());
      return;
   }
   case nir_intrinsic_set_vertex_and_primitive_count:
      return; /* nir_lower_gs_intrinsics' totals: the hardware counts itself */
   case nir_intrinsic_load_input: {
      if (nir->info.stage == MESA_SHADER_GEOMETRY)
         unsupported("geometry shader inputs that are not per-vertex");
      if (!nir_src_is_const(intr->src[0]))
         unsupported("indirect input access");
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit inputs");
      unsigned comp = nir_intrinsic_component(intr);
      nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
      int loc = sem.location + nir_src_as_uint(intr->src[0]);
      unsigned in;
      if (!fs) {
         unsigned index = nir_intrinsic_base(intr) + nir_src_as_uint(intr->src[0]);
         if (index >= 32)
            throw CompileError("vertex attribute index " + std::to_string(index) + " above 31");
         in = input(VLG_INPUT_SEMANTIC_ATTRIBUTE, index, loc, VLG_INTERP_PERSPECTIVE);
      } else if (loc == VARYING_SLOT_POS) {
         in = input(VLG_INPUT_SEMANTIC_FRAG_COORD, 0, loc, VLG_INTERP_CONSTANT);
      } else if (loc == VARYING_SLOT_FACE) {
         in = input(VLG_INPUT_SEMANTIC_FACE, 0, loc, VLG_INTERP_CONSTANT);
      } else if (loc == VARYING_SLOT_PNTC) {
         in = input(VLG_INPUT_SEMANTIC_POINT_COORD, 0, loc, VLG_INTERP_CONSTANT);
      } else {
         int index = vlg_varying_index(loc);
         if (index < 0)
            unsupported(std::string("fragment shader input ") +
                        gl_varying_slot_name_for_stage((gl_varying_slot)loc, MESA_SHADER_FRAGMENT));
         auto it = io.fs_interp.find(loc);
         unsigned interp = it != io.fs_interp.end() ? it->second : VLG_INTERP_PERSPECTIVE;
         in = input(VLG_INPUT_SEMANTIC_VARYING, index, loc, interp);
      }
      set_value_from_input(in, comp);
      return;
   }
   case nir_intrinsic_load_frag_coord:
      system_input(VLG_INPUT_SEMANTIC_FRAG_COORD, VARYING_SLOT_POS, VLG_INTERP_CONSTANT);
      return;
   case nir_intrinsic_load_front_face:
      system_input(VLG_INPUT_SEMANTIC_FACE, VARYING_SLOT_FACE, VLG_INTERP_CONSTANT);
      return;
   case nir_intrinsic_load_point_coord:
      system_input(VLG_INPUT_SEMANTIC_POINT_COORD, VARYING_SLOT_PNTC, VLG_INTERP_CONSTANT);
      return;
   case nir_intrinsic_load_vertex_id:
      system_input(VLG_INPUT_SEMANTIC_VERTEX_ID, SYSTEM_VALUE_VERTEX_ID, VLG_INTERP_PERSPECTIVE);
      return;
   case nir_intrinsic_load_instance_id:
      system_input(VLG_INPUT_SEMANTIC_INSTANCE_ID, SYSTEM_VALUE_INSTANCE_ID,
                   VLG_INTERP_PERSPECTIVE);
      return;
   case nir_intrinsic_load_helper_invocation:
   case nir_intrinsic_is_helper_invocation: {
      Dst d = dest(intr->dest, 0x1);
      b.mvs(d.op, d.wmask, VLG_SREG_HELPER);
      return;
   }
   case nir_intrinsic_store_output: {
      if (!nir_src_is_const(intr->src[1]))
         unsupported("indirect output access");
      if (nir_src_bit_size(intr->src[0]) != 32)
         unsupported(std::to_string(nir_src_bit_size(intr->src[0])) + "-bit outputs");
      nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
      int loc = sem.location + nir_src_as_uint(intr->src[1]);
      unsigned comp = nir_intrinsic_component(intr);
      unsigned wrmask = nir_intrinsic_write_mask(intr);
      unsigned out;
      if (fs) {
         if (loc == FRAG_RESULT_COLOR && sem.dual_source_blend_index) {
            /* gl_SecondaryFragColorEXT (EXT_blend_func_extended) */
            out = output(VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0, loc, true);
         } else if (loc == FRAG_RESULT_COLOR) {
            out = output(VLG_OUTPUT_SEMANTIC_COLOR, 0, loc);
            S.color_broadcast = true;
         } else if (loc >= FRAG_RESULT_DATA0 && loc < FRAG_RESULT_DATA0 + 8) {
            /* EXT_blend_func_extended index 1 (layout(location = 0,
             * index = 1) or gl_SecondaryFragColorEXT): the second source
             * colour of the SRC1_* blend factors, docs/hw.md */
            if (sem.dual_source_blend_index) {
               if (loc != FRAG_RESULT_DATA0)
                  unsupported("dual-source output for colour buffer " +
                              std::to_string(loc - FRAG_RESULT_DATA0) +
                              " (MAX_DUAL_SOURCE_DRAW_BUFFERS is 1)");
               out = output(VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0, loc, true);
            } else {
               out = output(VLG_OUTPUT_SEMANTIC_COLOR, loc - FRAG_RESULT_DATA0, loc);
            }
         } else if (loc == FRAG_RESULT_DEPTH) {
            out = output(VLG_OUTPUT_SEMANTIC_DEPTH, 0, loc);
            S.writes_depth = true;
         } else if (loc == FRAG_RESULT_SAMPLE_MASK) {
            out = output(VLG_OUTPUT_SEMANTIC_SAMPLE_MASK, 0, loc);
         } else {
            unsupported(std::string("fragment output ") + gl_frag_result_name((gl_frag_result)loc));
         }
      } else {
         if (loc == VARYING_SLOT_POS) {
            out = output(VLG_OUTPUT_SEMANTIC_POSITION, 0, loc);
         } else if (loc == VARYING_SLOT_PSIZ) {
            out = output(VLG_OUTPUT_SEMANTIC_POINT_SIZE, 0, loc);
         } else {
            int index = vlg_varying_index(loc);
            if (index < 0)
               unsupported(std::string(nir->info.stage == MESA_SHADER_GEOMETRY ? "geometry"
                                                                                : "vertex") +
                           " shader output " +
                           gl_varying_slot_name_for_stage((gl_varying_slot)loc,
                                                          (gl_shader_stage)nir->info.stage));
            out = output(VLG_OUTPUT_SEMANTIC_VARYING, index, loc);
         }
      }
      OutputDesc &o = S.outputs[out];
      unsigned mask = (wrmask << comp) & 0xf;
      /* position n + comp of the output reads component n of the value */
      uint8_t s = 0;
      for (unsigned n = 0; n < 4; n++)
         s |= (n >= comp ? (n - comp) & 3 : 0) << (2 * n);
      Operand v = swz(get_src(intr->src[0]), s);
      b.mov(reg(o.vreg), mask, v);
      o.mask |= mask;
      return;
   }
   case nir_intrinsic_load_output: {
      /* reading back an output written earlier (the output register) */
      if (!nir_src_is_const(intr->src[0]))
         unsupported("indirect output access");
      nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
      int loc = sem.location + nir_src_as_uint(intr->src[0]);
      auto it = out_map.find(loc);
      unsigned n = nir_dest_num_components(intr->dest);
      /* a copy: the output register may be written again later; an output
       * never written is undefined, read as 0 */
      Dst d = dest(intr->dest, (1u << n) - 1);
      if (it == out_map.end())
         b.mov(d.op, d.wmask, imm_u(0));
      else
         b.mov(d.op, d.wmask,
               reg(S.outputs[it->second].vreg, swz_offset(nir_intrinsic_component(intr))));
      return;
   }
   case nir_intrinsic_load_uniform: {
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit uniforms");
      unsigned base = nir_intrinsic_base(intr);
      unsigned n = nir_dest_num_components(intr->dest);
      if (nir_src_is_const(intr->src[0])) {
         unsigned slot = base + nir_src_as_uint(intr->src[0]);
         if (intr->dest.is_ssa) {
            Value &v = value(&intr->dest.ssa);
            v.kind = Value::Unif;
            v.slot = slot;
            v.swz = VLG_SWZ_IDENTITY;
         } else {
            Dst d = dest(intr->dest, (1u << n) - 1);
            b.mov(d.op, d.wmask, unif(slot));
         }
         return;
      }
      /* Indirect: the whole range stays one contiguous block of entries. */
      unsigned range = nir_intrinsic_range(intr);
      unsigned limit = MAX2(nir->num_uniforms, base + 1);
      if (range == 0 || range > limit - base)
         range = limit - base;
      S.indirect_uniforms.push_back({base, range});
      Operand off = as_reg(get_src(intr->src[0]), 0x1);
      b.addr_a0(reg(off.index, VLG_SWZ_IDENTITY, off.offset), VLG_SWZ_GET(off.swz, 0), 0);
      Dst d = dest(intr->dest, (1u << n) - 1);
      b.ldc(d.op, d.wmask, unif(base), 0, true);
      return;
   }
   case nir_intrinsic_load_ubo: {
      /* Uniform block k (load_ubo index k; st/mesa binds it as Gallium
       * constant buffer k + 1, tgsi_to_nir reads CONST[k + 1] this way) is
       * read with LDB from buffer slot B(k + 1): byte offset / 16 is the vec4
       * offset, a MOV picks the components. The default uniform block
       * (constant buffer 0) is never a load_ubo here (lower_uniforms_to_ubo
       * is off). */
      if (!nir_src_is_const(intr->src[0]))
         unsupported("indirectly indexed uniform blocks");
      unsigned slot = nir_src_as_uint(intr->src[0]) + 1;
      unsigned n = nir_dest_num_components(intr->dest);
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit uniform block loads");
      if (slot >= VLG_NUM_BUFFERS)
         throw CompileError("uniform block " + std::to_string(slot - 1) + " beyond slot B15");
      unsigned first_comp;
      bool direct = nir_src_is_const(intr->src[1]);
      if (direct) {
         first_comp = (nir_src_as_uint(intr->src[1]) % 16) / 4;
      } else {
         unsigned align = nir_intrinsic_align_mul(intr);
         if (align < 16)
            unsupported("a uniform block load whose component is not known at compile time");
         first_comp = (nir_intrinsic_align_offset(intr) % 16) / 4;
      }
      if (first_comp + n > 4)
         unsupported("a uniform block load crossing a vec4");
      unsigned offset = 0;
      bool rel = !direct;
      if (direct) {
         offset = nir_src_as_uint(intr->src[1]) / 16;
         if (offset > VLG_MAX(LDB_OFFSET)) {
            /* beyond the instruction's 4 KiB: A0 = vec4 offset */
            uint32_t q = S.new_vreg();
            b.mov(reg(q), 0x1, imm_u(offset));
            b.addr_a0(reg(q), 0, 0);
            offset = 0;
            rel = true;
         }
      } else {
         /* A0 = byte offset >> 4 */
         Operand off = as_reg(get_src(intr->src[1]), 0x1);
         uint32_t q = S.new_vreg();
         b.alu(VLG_OP_SHR, reg(q), 0x1, swz(off, VLG_SWZ_BCAST(0)), imm_u(4));
         b.addr_a0(reg(q), 0, 0);
      }
      uint32_t t = S.new_vreg();
      Instr I;
      I.op = VLG_OP_LDB;
      I.dst = reg(t);
      I.wmask = (((1u << n) - 1) << first_comp) & 0xf;
      I.rel = rel;
      I.slot = slot;
      I.ldb_offset = offset;
      b.emit(I);
      S.buffers_used |= 1u << slot;
      Dst d = dest(intr->dest, (1u << n) - 1);
      b.mov(d.op, d.wmask, reg(t, swz_offset(first_comp)));
      return;
   }
   case nir_intrinsic_discard:
   case nir_intrinsic_demote:
   case nir_intrinsic_terminate:
      b.kill();
      S.uses_discard = true;
      return;
   case nir_intrinsic_discard_if:
   case nir_intrinsic_demote_if:
   case nir_intrinsic_terminate_if: {
      unsigned p = pred_from(intr->src[0]);
      b.kill(VLG_BRCOND_P, p);
      S.uses_discard = true;
      return;
   }
   case nir_intrinsic_nop:
      return;
   case nir_intrinsic_control_barrier:
   case nir_intrinsic_memory_barrier:
   case nir_intrinsic_memory_barrier_buffer:
   case nir_intrinsic_memory_barrier_image:
   case nir_intrinsic_memory_barrier_shared:
   case nir_intrinsic_memory_barrier_atomic_counter:
   case nir_intrinsic_group_memory_barrier:
   case nir_intrinsic_scoped_barrier: {
      /* barrier() -> MEM.BAR (also orders memory); memoryBarrier*() ->
       * MEM.FENCE. Outside compute there is no workgroup: no BAR, and the
       * memory barriers of images/SSBOs in other stages are MEM.FENCE. */
      const bool compute = nir->info.stage == MESA_SHADER_COMPUTE;
      if (!compute && intr->intrinsic == nir_intrinsic_control_barrier)
         return;
      bool bar = compute && (intr->intrinsic == nir_intrinsic_control_barrier ||
                             (intr->intrinsic == nir_intrinsic_scoped_barrier &&
                              nir_intrinsic_execution_scope(intr) >= NIR_SCOPE_WORKGROUP));
      if (intr->intrinsic == nir_intrinsic_scoped_barrier && !bar &&
          !nir_intrinsic_memory_semantics(intr))
         return;
      mem(bar ? VLG_MEMKIND_BAR : VLG_MEMKIND_FENCE, false, Operand(), 0, Operand(), Operand());
      return;
   }
   case nir_intrinsic_load_local_invocation_id:
   case nir_intrinsic_load_workgroup_id: {
      Dst d = dest(intr->dest, 0x7);
      b.mvs(d.op, d.wmask, intr->intrinsic == nir_intrinsic_load_workgroup_id ? VLG_SREG_WGID
                                                                             : VLG_SREG_LID);
      return;
   }
   case nir_intrinsic_load_local_invocation_index: {
      uint32_t t = S.new_vreg();
      b.mvs(reg(t), 0x8, VLG_SREG_LID);
      Dst d = dest(intr->dest, 0x1);
      b.mov(d.op, d.wmask, reg(t, VLG_SWZ_BCAST(3)));
      return;
   }
   case nir_intrinsic_load_global:
   case nir_intrinsic_load_shared: {
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit memory loads");
      const bool sh = intr->intrinsic == nir_intrinsic_load_shared;
      unsigned n = nir_dest_num_components(intr->dest);
      Operand addr = mem_address(intr->src[0], sh ? nir_intrinsic_base(intr) : 0);
      uint32_t t = S.new_vreg();
      mem(VLG_MEMKIND_LD, sh, reg(t), (1u << n) - 1, Operand(), addr);
      Dst d = dest(intr->dest, (1u << n) - 1);
      b.mov(d.op, d.wmask, reg(t));
      return;
   }
   case nir_intrinsic_store_global:
   case nir_intrinsic_store_shared: {
      if (nir_src_bit_size(intr->src[0]) != 32)
         unsupported(std::to_string(nir_src_bit_size(intr->src[0])) + "-bit memory stores");
      const bool sh = intr->intrinsic == nir_intrinsic_store_shared;
      unsigned mask = nir_intrinsic_write_mask(intr) & 0xf;
      Operand addr = mem_address(intr->src[1], sh ? nir_intrinsic_base(intr) : 0);
      Operand data = get_src(intr->src[0]);
      bool direct = data.file == File::Reg && !data.neg && !data.abs;
      for (unsigned c = 0; c < 4 && direct; c++)
         if ((mask & (1u << c)) && VLG_SWZ_GET(data.swz, c) != c)
            direct = false;
      if (!direct) {
         uint32_t t = S.new_vreg();
         b.mov(reg(t), mask, data);
         data = reg(t);
      }
      data.swz = VLG_SWZ_IDENTITY;
      mem(VLG_MEMKIND_ST, sh, Operand(), mask, data, addr);
      return;
   }
   default: {
      int kind = atomic_kind(intr->intrinsic);
      if (kind < 0)
         unsupported(std::string("NIR intrinsic '") + info.name + "'");
      if (nir_dest_bit_size(intr->dest) != 32)
         unsupported("64-bit atomics");
      const bool sh = !strncmp(info.name, "shared_", 7);
      Operand addr = mem_address(intr->src[0], sh ? nir_intrinsic_base(intr) : 0);
      /* R[data].x = operand (CMPXCHG: new value; .y the comparison value,
       * NIR's src[1]); MEM writes the old value to R[data].x */
      uint32_t t = S.new_vreg();
      if (kind == VLG_MEMKIND_ATOM_CMPXCHG) {
         b.mov(reg(t), 0x1, swz(get_src(intr->src[2]), VLG_SWZ_BCAST(0)));
         b.mov(reg(t), 0x2, swz(get_src(intr->src[1]), VLG_SWZ_BCAST(0)));
      } else {
         b.mov(reg(t), 0x1, get_src(intr->src[1]));
      }
      mem(kind, sh, reg(t), 0x1, reg(t), addr);
      Dst d = dest(intr->dest, 0x1);
      b.mov(d.op, d.wmask, reg(t));
      return;
   }
   }
}

/* ---------------------------------------------------------------------- */
/* Textures                                                                 */
/* ---------------------------------------------------------------------- */

void
Isel::emit_tex(nir_tex_instr *tex)
{
   unsigned op;
   switch (tex->op) {
   case nir_texop_tex:
      op = VLG_OP_TEX;
      break;
   case nir_texop_txb:
      op = VLG_OP_TXB;
      break;
   case nir_texop_txl:
      op = VLG_OP_TXL;
      break;
   case nir_texop_txd:
      op = VLG_OP_TXD;
      break;
   case nir_texop_txf:
      op = VLG_OP_TXF;
      break;
   case nir_texop_txs:
   case nir_texop_query_levels:
      op = VLG_OP_TXQ;
      break;
   case nir_texop_tg4:
      op = VLG_OP_TG4;
      break;
   default:
      unsupported("texture operation " + std::to_string((int)tex->op) + " (lod, txf_ms, ...)");
   }
   switch (tex->sampler_dim) {
   case GLSL_SAMPLER_DIM_1D:
   case GLSL_SAMPLER_DIM_2D:
   case GLSL_SAMPLER_DIM_3D:
      break;
   case GLSL_SAMPLER_DIM_RECT:
      /* nir_lower_tex normalised every sampling op; fetches and size
       * queries of a rectangle texture are those of a 2D one */
      if (op != VLG_OP_TXF && op != VLG_OP_TXQ)
         unsupported("unnormalised sampling of a rectangle texture");
      break;
   case GLSL_SAMPLER_DIM_CUBE:
      if (tex->is_array)
         unsupported("cube map arrays");
      break;
   case GLSL_SAMPLER_DIM_BUF:
      /* samplerBuffer (GL 3.1): texelFetch and textureSize only, on the
       * texture unit's BUFFER target (docs/hw.md texture_target) */
      if (op != VLG_OP_TXF && op != VLG_OP_TXQ)
         unsupported("sampling a buffer texture");
      break;
   default:
      unsupported("this sampler dimension (MS, external)");
   }
   if (tex->texture_index >= VLG_NUM_TEX_UNITS)
      throw CompileError("texture unit " + std::to_string(tex->texture_index) + " above 15");
   unsigned unit = tex->texture_index;
   S.samplers_used |= 1u << unit;
   if (nir->info.stage == MESA_SHADER_FRAGMENT && (op == VLG_OP_TEX || op == VLG_OP_TXB))
      S.uses_derivatives = true;

   const nir_src *coord = nullptr, *comparator = nullptr, *bias = nullptr, *lod = nullptr,
                 *ddx = nullptr, *ddy = nullptr;
   for (unsigned i = 0; i < tex->num_srcs; i++) {
      const nir_src *s = &tex->src[i].src;
      switch (tex->src[i].src_type) {
      case nir_tex_src_coord:
         coord = s;
         break;
      case nir_tex_src_comparator:
         comparator = s;
         break;
      case nir_tex_src_bias:
         bias = s;
         break;
      case nir_tex_src_lod:
         lod = s;
         break;
      case nir_tex_src_ddx:
         ddx = s;
         break;
      case nir_tex_src_ddy:
         ddy = s;
         break;
      case nir_tex_src_texture_deref:
      case nir_tex_src_sampler_deref:
         unsupported("texture derefs (samplers not lowered)");
      default:
         unsupported(std::string("texture source ") + std::to_string((int)tex->src[i].src_type) +
                     " (offsets, indirect units, ...)");
      }
   }

   unsigned ncoord = tex->coord_components;
   uint8_t cmask = (1u << ncoord) - 1;
   unsigned width = tex_group_width(op);
   bool shadow = comparator != nullptr;
   uint8_t read[3] = {0, 0, 0};
   Operand group;

   bool direct = op == VLG_OP_TEX && !shadow && coord;
   if (direct) {
      Operand c = get_src(*coord);
      if (c.file == File::Reg && c.swz == VLG_SWZ_IDENTITY && !c.neg && !c.abs) {
         group = c;
         read[0] = cmask;
      } else {
         direct = false;
      }
   }
   if (!direct) {
      uint32_t g = S.new_vreg(width);
      group = reg(g);
      if (op == VLG_OP_TXQ) {
         if (tex->op == nir_texop_txs && lod)
            b.mov(reg(g), 0x1, get_src(*lod));
         else
            b.mov(reg(g), 0x1, imm_u(0));
         read[0] = 0x1;
      } else {
         if (!coord)
            throw CompileError("internal error: texture op without coordinates");
         b.mov(reg(g), cmask, get_src(*coord));
         read[0] = cmask;
         if (shadow) {
            b.mov(reg(g), 0x8, swz(get_src(*comparator), VLG_SWZ_BCAST(0)));
            read[0] |= 0x8;
         } else if (op == VLG_OP_TG4) {
            /* the gathered component (textureGather's comp) */
            b.mov(reg(g), 0x8, imm_u(tex->component));
            read[0] |= 0x8;
         }
         if (op == VLG_OP_TXF) {
            b.mov(reg(g), 0x8, lod ? swz(get_src(*lod), VLG_SWZ_BCAST(0)) : imm_u(0));
            read[0] |= 0x8;
         } else if (op == VLG_OP_TXB || op == VLG_OP_TXL) {
            const nir_src *l = op == VLG_OP_TXB ? bias : lod;
            b.mov(reg(g, VLG_SWZ_IDENTITY, 1), 0x1, l ? get_src(*l) : imm_u(0));
            read[1] = 0x1;
         } else if (op == VLG_OP_TXD) {
            if (!ddx || !ddy)
               throw CompileError("internal error: txd without gradients");
            unsigned gm = (1u << nir_src_num_components(*ddx)) - 1;
            b.mov(reg(g, VLG_SWZ_IDENTITY, 1), gm, get_src(*ddx));
            b.mov(reg(g, VLG_SWZ_IDENTITY, 2), gm, get_src(*ddy));
            read[1] = read[2] = gm;
         }
      }
   }

   unsigned n = nir_tex_instr_dest_size(tex);
   if (tex->op == nir_texop_query_levels) {
      uint32_t t = S.new_vreg();
      b.tex(op, reg(t), 0x8, group, unit, false, read[0], read[1], read[2]);
      Dst d = dest(tex->dest, 0x1);
      b.mov(d.op, d.wmask, reg(t, VLG_SWZ_BCAST(3)));
      return;
   }
   Dst d = dest(tex->dest, (1u << n) - 1);
   b.tex(op, d.op, d.wmask, group, unit, shadow && op != VLG_OP_TXF && op != VLG_OP_TXQ, read[0],
         read[1], read[2]);
}

} // anonymous namespace

void
select_instructions(nir_shader *nir, const IoInfo &io, Shader &S)
{
   Isel isel(nir, io, S);
   isel.run();
}

} // namespace vlgpu
