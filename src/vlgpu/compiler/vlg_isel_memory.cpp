/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel_memory.cpp — instruction selection of memory intrinsics
 * (vlg_isel.h): uniforms (global-buffer operands, or ADDR + LDC when
 * indirect), uniform blocks (LDB), global and shared memory loads, stores
 * and atomics (MEM), barriers and fences (docs/compiler.md "Compute
 * shaders", "Instruction selection").
 */
#include "vlg_isel.h"

namespace vlgpu {

bool
Isel::emit_memory_intrinsic(nir_intrinsic_instr *intr)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_load_uniform:
      emit_load_uniform(intr);
      return true;
   case nir_intrinsic_load_ubo:
      emit_load_ubo(intr);
      return true;
   case nir_intrinsic_control_barrier:
   case nir_intrinsic_memory_barrier:
   case nir_intrinsic_memory_barrier_buffer:
   case nir_intrinsic_memory_barrier_image:
   case nir_intrinsic_memory_barrier_shared:
   case nir_intrinsic_memory_barrier_atomic_counter:
   case nir_intrinsic_group_memory_barrier:
   case nir_intrinsic_scoped_barrier:
      emit_barrier(intr);
      return true;
   case nir_intrinsic_load_global:
   case nir_intrinsic_load_shared:
      emit_load_memory(intr);
      return true;
   case nir_intrinsic_store_global:
   case nir_intrinsic_store_shared:
      emit_store_memory(intr);
      return true;
   default: {
      int kind = atomic_kind(intr->intrinsic);
      if (kind < 0)
         return false;
      emit_atomic(intr, kind);
      return true;
   }
   }
}

Operand
Isel::mem_address(const nir_src &src, unsigned base)
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

void
Isel::emit_load_uniform(nir_intrinsic_instr *intr)
{
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
}

void
Isel::emit_load_ubo(nir_intrinsic_instr *intr)
{
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
}

void
Isel::emit_barrier(nir_intrinsic_instr *intr)
{
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
   b.mem(bar ? VLG_MEMKIND_BAR : VLG_MEMKIND_FENCE, false, Operand(), 0, Operand(), Operand());
}

void
Isel::emit_load_memory(nir_intrinsic_instr *intr)
{
   if (nir_dest_bit_size(intr->dest) != 32)
      unsupported(std::to_string(nir_dest_bit_size(intr->dest)) + "-bit memory loads");
   const bool sh = intr->intrinsic == nir_intrinsic_load_shared;
   unsigned n = nir_dest_num_components(intr->dest);
   Operand addr = mem_address(intr->src[0], sh ? nir_intrinsic_base(intr) : 0);
   uint32_t t = S.new_vreg();
   b.mem(VLG_MEMKIND_LD, sh, reg(t), (1u << n) - 1, Operand(), addr);
   Dst d = dest(intr->dest, (1u << n) - 1);
   b.mov(d.op, d.wmask, reg(t));
}

void
Isel::emit_store_memory(nir_intrinsic_instr *intr)
{
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
   b.mem(VLG_MEMKIND_ST, sh, Operand(), mask, data, addr);
}

/* @kind: enum vlg_memkind ATOM_* of @intr (atomic_kind). */
void
Isel::emit_atomic(nir_intrinsic_instr *intr, int kind)
{
   const nir_intrinsic_info &info = nir_intrinsic_infos[intr->intrinsic];
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
   b.mem(kind, sh, reg(t), 0x1, reg(t), addr);
   Dst d = dest(intr->dest, 0x1);
   b.mov(d.op, d.wmask, reg(t));
}

} // namespace vlgpu
