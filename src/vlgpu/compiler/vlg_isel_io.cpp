/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel_io.cpp — instruction selection of io intrinsics (vlg_isel.h):
 * inputs read in place from the preloaded input registers (VS attributes,
 * FS varyings and system values, the GS per-vertex block), outputs written
 * by MOVs into one register per output slot, special registers (helper
 * lane, compute ids), geometry-shader EMIT/CUT (docs/compiler.md
 * "Instruction selection", docs/hw.md input/output semantics).
 */
#include "vlg_isel.h"

namespace vlgpu {

bool
Isel::emit_io_intrinsic(nir_intrinsic_instr *intr)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_load_per_vertex_input:
      emit_gs_load_input(intr);
      return true;
   case nir_intrinsic_load_primitive_id:
      /* GS: gl_PrimitiveIDIn; FS: gl_PrimitiveID (the GS output at the
       * provoking vertex, else the GE's count: docs/hw.md input semantics) */
      if (nir->info.stage != MESA_SHADER_GEOMETRY && nir->info.stage != MESA_SHADER_FRAGMENT)
         unsupported("gl_PrimitiveID outside geometry and fragment shaders");
      system_input(intr, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, SYSTEM_VALUE_PRIMITIVE_ID,
                   nir->info.stage == MESA_SHADER_FRAGMENT ? VLG_INTERP_CONSTANT
                                                            : VLG_INTERP_PERSPECTIVE);
      return true;
   case nir_intrinsic_load_invocation_id:
      /* gl_InvocationID of an instanced geometry shader (layout(invocations)) */
      if (nir->info.stage != MESA_SHADER_GEOMETRY)
         unsupported("gl_InvocationID outside a geometry shader");
      system_input(intr, VLG_INPUT_SEMANTIC_INVOCATION_ID, SYSTEM_VALUE_INVOCATION_ID,
                   VLG_INTERP_PERSPECTIVE);
      return true;
   case nir_intrinsic_emit_vertex:
   case nir_intrinsic_emit_vertex_with_counter:
   case nir_intrinsic_end_primitive:
   case nir_intrinsic_end_primitive_with_counter:
      emit_gs_vertex_op(intr);
      return true;
   case nir_intrinsic_set_vertex_and_primitive_count:
      return true; /* nir_lower_gs_intrinsics' totals: the hardware counts itself */
   case nir_intrinsic_load_input:
      emit_load_input(intr);
      return true;
   case nir_intrinsic_load_frag_coord:
      system_input(intr, VLG_INPUT_SEMANTIC_FRAG_COORD, VARYING_SLOT_POS, VLG_INTERP_CONSTANT);
      return true;
   case nir_intrinsic_load_layer_id:
      /* gl_Layer in the FS (GLSL ES 3.20 / OES_geometry_shader) */
      system_input(intr, VLG_INPUT_SEMANTIC_LAYER, VARYING_SLOT_LAYER, VLG_INTERP_CONSTANT);
      return true;
   case nir_intrinsic_load_front_face:
      system_input(intr, VLG_INPUT_SEMANTIC_FACE, VARYING_SLOT_FACE, VLG_INTERP_CONSTANT);
      return true;
   case nir_intrinsic_load_point_coord:
      system_input(intr, VLG_INPUT_SEMANTIC_POINT_COORD, VARYING_SLOT_PNTC, VLG_INTERP_CONSTANT);
      return true;
   case nir_intrinsic_load_vertex_id:
      system_input(intr, VLG_INPUT_SEMANTIC_VERTEX_ID, SYSTEM_VALUE_VERTEX_ID,
                   VLG_INTERP_PERSPECTIVE);
      return true;
   case nir_intrinsic_load_instance_id:
      system_input(intr, VLG_INPUT_SEMANTIC_INSTANCE_ID, SYSTEM_VALUE_INSTANCE_ID,
                   VLG_INTERP_PERSPECTIVE);
      return true;
   case nir_intrinsic_load_helper_invocation:
   case nir_intrinsic_is_helper_invocation: {
      Dst d = dest(intr->dest, 0x1);
      b.mvs(d.op, d.wmask, VLG_SREG_HELPER);
      return true;
   }
   case nir_intrinsic_load_local_invocation_id:
   case nir_intrinsic_load_workgroup_id: {
      Dst d = dest(intr->dest, 0x7);
      b.mvs(d.op, d.wmask,
            intr->intrinsic == nir_intrinsic_load_workgroup_id ? VLG_SREG_WGID : VLG_SREG_LID);
      return true;
   }
   case nir_intrinsic_load_local_invocation_index: {
      uint32_t t = S.new_vreg();
      b.mvs(reg(t), 0x8, VLG_SREG_LID);
      Dst d = dest(intr->dest, 0x1);
      b.mov(d.op, d.wmask, reg(t, VLG_SWZ_BCAST(3)));
      return true;
   }
   case nir_intrinsic_store_output:
      emit_store_output(intr);
      return true;
   case nir_intrinsic_load_output:
      emit_load_output(intr);
      return true;
   default:
      return false;
   }
}

/* The value of @intr's destination is input @in from component @first_comp
 * on: read in place (SSA) or copied (a nir_register). */
void
Isel::set_value_from_input(nir_intrinsic_instr *intr, unsigned in, unsigned first_comp)
{
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
}

/* A system value preloaded as an input (one register, components from x). */
void
Isel::system_input(nir_intrinsic_instr *intr, unsigned semantic, int location, unsigned interp)
{
   unsigned in = input(semantic, 0, location, interp);
   set_value_from_input(intr, in, 0);
}

/* GS: gl_in[v].x -> register v * stride + j of the input block */
void
Isel::emit_gs_load_input(nir_intrinsic_instr *intr)
{
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
   VLG_CHECK(it != gs_slot.end(), "geometry shader input slot " + std::to_string(loc) +
                                     " missing from the input stride table");
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
}

void
Isel::emit_gs_vertex_op(nir_intrinsic_instr *intr)
{
   /* EmitVertex() -> MEM.EMIT (reads the output-map registers: they are
    * live up to here, vlg_ir.cpp instr_reads); EndPrimitive() -> MEM.CUT.
    * The hardware counts the vertices (drops those past max_vertices)
    * and drops incomplete strips: the counters are not needed. */
   if (nir_intrinsic_stream_id(intr) != 0)
      unsupported("geometry shader vertex stream " + std::to_string(nir_intrinsic_stream_id(intr)));
   bool emit = intr->intrinsic == nir_intrinsic_emit_vertex ||
               intr->intrinsic == nir_intrinsic_emit_vertex_with_counter;
   /* layout(max_vertices = 0): every EMIT would be dropped (the
    * hardware's gs_max_vertices is at least 1, vlg_compiler.cpp reports 1) */
   if (nir->info.gs.vertices_out == 0)
      return;
   open();
   b.mem(emit ? VLG_MEMKIND_EMIT : VLG_MEMKIND_CUT, false, Operand(), 0, Operand(), Operand());
}

void
Isel::emit_load_input(nir_intrinsic_instr *intr)
{
   const bool fs = nir->info.stage == MESA_SHADER_FRAGMENT;
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
      if (index >= VLG_HW_MAX_IO_INDICES)
         throw CompileError("vertex attribute index " + std::to_string(index) + " above " +
                            std::to_string(VLG_HW_MAX_IO_INDICES - 1));
      in = input(VLG_INPUT_SEMANTIC_ATTRIBUTE, index, loc, VLG_INTERP_PERSPECTIVE);
   } else if (loc == VARYING_SLOT_POS) {
      in = input(VLG_INPUT_SEMANTIC_FRAG_COORD, 0, loc, VLG_INTERP_CONSTANT);
   } else if (loc == VARYING_SLOT_FACE) {
      in = input(VLG_INPUT_SEMANTIC_FACE, 0, loc, VLG_INTERP_CONSTANT);
   } else if (loc == VARYING_SLOT_PNTC) {
      in = input(VLG_INPUT_SEMANTIC_POINT_COORD, 0, loc, VLG_INTERP_CONSTANT);
   } else if (loc == VARYING_SLOT_PRIMITIVE_ID) {
      in = input(VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, loc, VLG_INTERP_CONSTANT);
   } else if (loc == VARYING_SLOT_LAYER) {
      in = input(VLG_INPUT_SEMANTIC_LAYER, 0, loc, VLG_INTERP_CONSTANT);
   } else if (loc == VARYING_SLOT_CLIP_DIST0 || loc == VARYING_SLOT_CLIP_DIST1) {
      /* gl_ClipDistance in the FS (GLSL 1.30), vec4s after st/mesa's
       * LowerCombinedClipCullDistance */
      auto it = io.fs_interp.find(loc);
      unsigned interp = it != io.fs_interp.end() ? it->second : VLG_INTERP_PERSPECTIVE;
      in = input(VLG_INPUT_SEMANTIC_CLIP_DISTANCE, loc - VARYING_SLOT_CLIP_DIST0, loc, interp);
   } else {
      int index = vlg_varying_index(loc);
      if (index < 0)
         unsupported(std::string("fragment shader input ") +
                     gl_varying_slot_name_for_stage((gl_varying_slot)loc, MESA_SHADER_FRAGMENT));
      auto it = io.fs_interp.find(loc);
      unsigned interp = it != io.fs_interp.end() ? it->second : VLG_INTERP_PERSPECTIVE;
      in = input(VLG_INPUT_SEMANTIC_VARYING, index, loc, interp);
   }
   set_value_from_input(intr, in, comp);
}

/* The output a store_output of location @loc (+ its io semantics) writes:
 * its index in S.outputs (created on first use), by stage and slot. */
unsigned
Isel::store_output_index(const nir_io_semantics &sem, int loc)
{
   const bool fs = nir->info.stage == MESA_SHADER_FRAGMENT;
   unsigned out;
   if (fs) {
      if (loc == FRAG_RESULT_COLOR && sem.dual_source_blend_index) {
         /* gl_SecondaryFragColorEXT (EXT_blend_func_extended) */
         out = output(VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0, loc, true);
      } else if (loc == FRAG_RESULT_COLOR) {
         out = output(VLG_OUTPUT_SEMANTIC_COLOR, 0, loc);
         S.color_broadcast = true;
      } else if (loc >= FRAG_RESULT_DATA0 && loc < FRAG_RESULT_DATA0 + VLG_HW_MAX_COLOR_BUFS) {
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
      } else if (loc == VARYING_SLOT_PRIMITIVE_ID &&
                 nir->info.stage == MESA_SHADER_GEOMETRY) {
         /* gl_PrimitiveID for the FS (GLSL 1.50, EXT_geometry_shader) */
         out = output(VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID, 0, loc);
      } else if (loc == VARYING_SLOT_LAYER && nir->info.stage == MESA_SHADER_GEOMETRY) {
         /* gl_Layer: the primitive's framebuffer layer (docs/hw.md
          * "Layered rendering") */
         out = output(VLG_OUTPUT_SEMANTIC_LAYER, 0, loc);
      } else if (loc == VARYING_SLOT_EDGE && nir->info.stage == MESA_SHADER_VERTEX) {
         /* glEdgeFlag passed through by st/mesa (nir_lower_passthrough_
          * edgeflags) for polygon mode LINE/POINT: docs/hw.md "Polygon modes" */
         out = output(VLG_OUTPUT_SEMANTIC_EDGEFLAG, 0, loc);
      } else if (loc == VARYING_SLOT_CLIP_DIST0 || loc == VARYING_SLOT_CLIP_DIST1) {
         /* gl_ClipDistance (and st/mesa's lowered user clip planes) as two
          * vec4s: docs/hw.md "Clip distances" */
         out = output(VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE, loc - VARYING_SLOT_CLIP_DIST0, loc);
      } else {
         int index = vlg_varying_index(loc);
         if (index < 0)
            unsupported(
               std::string(nir->info.stage == MESA_SHADER_GEOMETRY ? "geometry" : "vertex") +
               " shader output " +
               gl_varying_slot_name_for_stage((gl_varying_slot)loc,
                                              (gl_shader_stage)nir->info.stage));
         out = output(VLG_OUTPUT_SEMANTIC_VARYING, index, loc);
      }
   }
   return out;
}

void
Isel::emit_store_output(nir_intrinsic_instr *intr)
{
   if (!nir_src_is_const(intr->src[1]))
      unsupported("indirect output access");
   if (nir_src_bit_size(intr->src[0]) != 32)
      unsupported(std::to_string(nir_src_bit_size(intr->src[0])) + "-bit outputs");
   nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   int loc = sem.location + nir_src_as_uint(intr->src[1]);
   unsigned comp = nir_intrinsic_component(intr);
   unsigned wrmask = nir_intrinsic_write_mask(intr);
   unsigned out = store_output_index(sem, loc);
   OutputDesc &o = S.outputs[out];
   unsigned mask = (wrmask << comp) & 0xf;
   /* position n + comp of the output reads component n of the value */
   uint8_t s = 0;
   for (unsigned n = 0; n < 4; n++)
      s |= (n >= comp ? (n - comp) & 3 : 0) << (2 * n);
   Operand v = swz(get_src(intr->src[0]), s);
   b.mov(reg(o.vreg), mask, v);
   o.mask |= mask;
}

/* reading back an output written earlier (the output register) */
void
Isel::emit_load_output(nir_intrinsic_instr *intr)
{
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
}

} // namespace vlgpu
