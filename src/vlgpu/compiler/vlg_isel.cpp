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
 *
 * This file: the driver (run), control flow, the input/output maps and the
 * intrinsic dispatch; the instruction families are in vlg_isel_*.cpp
 * (vlg_isel.h).
 */
#include "vlg_isel.h"

namespace vlgpu {

/* Index in @descs of the I/O slot @key, first added as make() (a new descriptor) if @map does
 * not have it yet; at most VLG_HW_MAX_SHADER_IO inputs and as many outputs (@what), the size of
 * the hardware's input and output maps (docs/hw.md shader_state). */
template <typename Map, typename Desc, typename Make>
static unsigned
io_slot(Map &map, typename Map::key_type key, std::vector<Desc> &descs, const char *what, Make make)
{
   auto it = map.find(key);
   if (it != map.end())
      return it->second;
   if (descs.size() >= VLG_HW_MAX_SHADER_IO)
      throw CompileError("more than " + std::to_string(VLG_HW_MAX_SHADER_IO) + " " + what);
   descs.push_back(make());
   map[key] = descs.size() - 1;
   return descs.size() - 1;
}

/* Key of an input in Isel::in_map. */
static uint64_t
input_key(unsigned semantic, unsigned index)
{
   return (uint64_t)semantic << 32 | index;
}

unsigned
Isel::input(unsigned semantic, unsigned index, int location, unsigned interp)
{
   return io_slot(in_map, input_key(semantic, index), S.inputs, "inputs", [&] {
      return InputDesc{S.new_vreg(),   0,       (uint8_t)interp, (uint8_t)semantic,
                       (uint8_t)index, location};
   });
}

unsigned
Isel::output(unsigned semantic, unsigned index, int location, bool dual_source)
{
   /* the dual-source output shares FRAG_RESULT_DATA0 with COLOR 0 */
   const int key = dual_source ? -1 - location : location;
   return io_slot(out_map, key, S.outputs, "outputs", [&] {
      return OutputDesc{S.new_vreg(), 0, (uint8_t)semantic, (uint8_t)index, location};
   });
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
               VLG_ICE("unbound label");
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
      } else if (loc == VARYING_SLOT_CLIP_DIST0 || loc == VARYING_SLOT_CLIP_DIST1) {
         semantic = VLG_INPUT_SEMANTIC_CLIP_DISTANCE; /* gl_in[v].gl_ClipDistance */
         index = loc - VARYING_SLOT_CLIP_DIST0;
      } else {
         int vi = vlg_varying_index(loc);
         if (vi < 0)
            unsupported(std::string("geometry shader input ") +
                        gl_varying_slot_name_for_stage((gl_varying_slot)loc, MESA_SHADER_GEOMETRY));
         semantic = VLG_INPUT_SEMANTIC_VARYING;
         index = vi;
      }
      io_slot(in_map, input_key(semantic, index), S.inputs, "inputs", [&] {
         /* vertex 0's register of the slot; offset + v * gs_stride for vertex v */
         return InputDesc{gs_block,       0,   VLG_INTERP_PERSPECTIVE, (uint8_t)semantic,
                          (uint8_t)index, loc, (uint8_t)s.second};
      });
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
         VLG_ICE("break outside a loop");
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

/* break leaves the innermost loop, continue goes back to its head. */
void
Isel::emit_jump(nir_jump_instr *jump_instr)
{
   const bool brk = jump_instr->type == nir_jump_break;
   if (!brk && jump_instr->type != nir_jump_continue)
      unsupported("a return/halt jump");
   if (loops.empty())
      VLG_ICE(brk ? "break outside a loop" : "continue outside a loop");
   jump(brk ? loops.back().exit : loops.back().head);
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
      VLG_ICE("phi or parallel copy left after out-of-SSA");
   default:
      unsupported("a NIR instruction of this type (call/deref)");
   }
}

/* Intrinsics: the few that change control (discard) here, the families in
 * vlg_isel_io.cpp and vlg_isel_memory.cpp. */
void
Isel::emit_intrinsic(nir_intrinsic_instr *intr)
{
   switch (intr->intrinsic) {
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
   default:
      break;
   }
   if (emit_io_intrinsic(intr) || emit_memory_intrinsic(intr))
      return;
   unsupported(std::string("NIR intrinsic '") + nir_intrinsic_infos[intr->intrinsic].name + "'");
}

void
select_instructions(nir_shader *nir, const IoInfo &io, Shader &S)
{
   Isel isel(nir, io, S);
   isel.run();
}

} // namespace vlgpu
