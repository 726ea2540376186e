/*
 * vlgpu simulator, functional pipeline: GE (see geometry.h).
 */
#include "geometry.h"

#include <cstring>

#include <fmt/format.h>

#include "sim/func/tex/format.h"

namespace vlgpu::sim {

GeState
make_ge_state(const DrawPackage &pkg)
{
   GeState s;
   s.draw = pkg.draw;
   s.flatshade_first = pkg.pipe.rasterizer.flatshade_first;
   s.attribs.resize(pkg.vertex_elements.size());
   for (size_t i = 0; i < pkg.vertex_elements.size(); i++) {
      const VLG_VERTEX_ELEMENT &ve = pkg.vertex_elements[i];
      const VLG_VERTEX_BUFFER &vb = pkg.vertex_buffers[ve.vertex_buffer_index];
      GeAttrib &a = s.attribs[i];
      a.format = ve.format;
      a.bytes = vlg_format_bytes(ve.format);
      a.vb_address = vb.address;
      a.vb_size = vb.size;
      a.stride = vb.stride;
      a.src_offset = ve.src_offset;
      a.divisor = ve.instance_divisor;
      a.vb_index = ve.vertex_buffer_index;
   }
   const VLG_SHADER_STATE &vs = pkg.vs.state;
   s.num_inputs = vs.num_inputs;
   for (unsigned i = 0; i < vs.num_inputs; i++) {
      s.inputs[i].reg = uint8_t(vs.inputs[i].reg);
      s.inputs[i].mask = uint8_t(vs.inputs[i].mask);
      s.inputs[i].semantic = vs.inputs[i].semantic;
      s.inputs[i].index = uint8_t(vs.inputs[i].index);
   }

   /* Which VARYINGs the FS reads */
   uint32_t fs_reads = 0;
   const VLG_SHADER_STATE &fs = pkg.fs.state;
   for (unsigned i = 0; i < fs.num_inputs; i++)
      if (fs.inputs[i].semantic == VLG_INPUT_SEMANTIC_VARYING)
         fs_reads |= 1u << fs.inputs[i].index;

   /* With a geometry shader the VS vertex keeps every POSITION, POINT_SIZE
    * and VARYING output (slot = output number), the GS inputs read them,
    * and the layout below is the GS's. */
   const bool has_gs = pkg.has_gs();
   if (has_gs) {
      const VLG_SHADER_STATE &gs = pkg.gs.state;
      GsPlan &g = s.gs;
      g.enabled = true;
      g.vertices_in = gs.gs_vertices_in;
      g.input_stride = gs.gs_input_stride;
      g.max_vertices = gs.gs_max_vertices;
      g.invocations = gs.gs_invocations;
      g.output_prim = gs.gs_output_prim;
      for (unsigned i = 0; i < vs.num_outputs; i++) {
         const VLG_SHADER_OUTPUT &o = vs.outputs[i];
         VsOutput &out = g.vs_outputs[g.num_vs_outputs++];
         out.reg = uint8_t(o.reg);
         out.mask = uint8_t(o.mask);
         out.slot = uint16_t(i);
      }
      g.vs_slots = vs.num_outputs;
      g.num_inputs = gs.num_inputs;
      for (unsigned i = 0; i < gs.num_inputs; i++) {
         const VLG_SHADER_INPUT &in = gs.inputs[i];
         GsInput &gi = g.inputs[i];
         gi.reg = uint8_t(in.reg);
         gi.mask = uint8_t(in.mask);
         gi.semantic = in.semantic;
         vlg_output_semantic want;
         switch (in.semantic) {
         case VLG_INPUT_SEMANTIC_POSITION:
            want = VLG_OUTPUT_SEMANTIC_POSITION;
            break;
         case VLG_INPUT_SEMANTIC_POINT_SIZE:
            want = VLG_OUTPUT_SEMANTIC_POINT_SIZE;
            break;
         case VLG_INPUT_SEMANTIC_VARYING:
            want = VLG_OUTPUT_SEMANTIC_VARYING;
            break;
         case VLG_INPUT_SEMANTIC_CLIP_DISTANCE:
            want = VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE;
            break;
         default:
            continue; /* PRIMITIVE_ID, INVOCATION_ID */
         }
         const bool indexed =
            want == VLG_OUTPUT_SEMANTIC_VARYING || want == VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE;
         for (unsigned k = 0; k < vs.num_outputs; k++)
            if (vs.outputs[k].semantic == want && (!indexed || vs.outputs[k].index == in.index))
               gi.vs_slot = int16_t(k);
      }
   }
   const VLG_SHADER_STATE &last = has_gs ? pkg.gs.state : vs;

   VertexLayout &L = s.layout;
   unsigned next = 3;
   for (unsigned i = 0; i < last.num_outputs; i++) {
      const VLG_SHADER_OUTPUT &o = last.outputs[i];
      int slot = -1;
      switch (o.semantic) {
      case VLG_OUTPUT_SEMANTIC_POSITION:
         slot = VertexLayout::kClipPos;
         break;
      case VLG_OUTPUT_SEMANTIC_POINT_SIZE:
         if (L.psize_slot < 0)
            L.psize_slot = int(next++);
         slot = L.psize_slot;
         break;
      case VLG_OUTPUT_SEMANTIC_VARYING:
         if (!(fs_reads >> o.index & 1))
            break;
         if (L.varying_slot[o.index] < 0)
            L.varying_slot[o.index] = int(next++);
         slot = L.varying_slot[o.index];
         break;
      case VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID:
         /* the FS input PRIMITIVE_ID reads it at the provoking vertex */
         if (L.primid_slot < 0)
            L.primid_slot = int(next++);
         slot = L.primid_slot;
         break;
      case VLG_OUTPUT_SEMANTIC_LAYER:
         /* the PE takes the primitive's layer at the provoking vertex */
         if (L.layer_slot < 0)
            L.layer_slot = int(next++);
         slot = L.layer_slot;
         break;
      case VLG_OUTPUT_SEMANTIC_EDGEFLAG:
         /* polygon mode LINE/POINT skips the edges its vertex starts
          * (docs/hw.md "Polygon modes"); a VS output only (package.cpp) */
         if (L.edgeflag_slot < 0)
            L.edgeflag_slot = int(next++);
         slot = L.edgeflag_slot;
         break;
      case VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE:
         /* the PE's user planes read them (docs/hw.md "Clip distances") */
         if (o.index < 2) {
            if (L.clipdist_slot[o.index] < 0)
               L.clipdist_slot[o.index] = int(next++);
            slot = L.clipdist_slot[o.index];
         }
         break;
      default:
         break;
      }
      if (slot < 0)
         continue;
      VsOutput &out = s.outputs[s.num_outputs++];
      out.reg = uint8_t(o.reg);
      out.mask = uint8_t(o.mask);
      out.slot = uint16_t(slot);
   }
   L.num_slots = next;
   return s;
}

IndexFetch
ge_fetch_index(const GeState &s, const Vram &vram, uint32_t i)
{
   const VLG_DRAW_INFO &d = s.draw;
   const unsigned size = unsigned(d.index_size);
   const uint64_t elem = uint64_t(d.start) + i;
   const uint64_t off = elem * size;
   if (off + size > d.index_buffer_size)
      throw GpuFault("GE", "index fetch out of bounds",
                     fmt::format("element {} of the draw (index_buffer[{}], {} bytes each at byte "
                                 "offset {}) is beyond index_buffer_size = {} bytes "
                                 "(index_buffer 0x{:x})",
                                 i, elem, size, off, d.index_buffer_size, d.index_buffer));
   const uint8_t *p = vram.ptr(d.index_buffer + off, size, "GE");
   uint32_t index;
   switch (size) {
   case 1:
      index = p[0];
      break;
   case 2:
      index = uint32_t(p[0]) | uint32_t(p[1]) << 8;
      break;
   default:
      std::memcpy(&index, p, 4);
      break;
   }
   return IndexFetch{index, d.primitive_restart && index == d.restart_index};
}

void
ge_fetch_vs_inputs(const GeState &s, const Vram &vram, int64_t vertex_id, uint32_t instance,
                   uint32_t (*out)[4])
{
   for (unsigned k = 0; k < s.num_inputs; k++) {
      const VsInput &in = s.inputs[k];
      uint32_t *o = out[k];
      switch (in.semantic) {
      case VLG_INPUT_SEMANTIC_VERTEX_ID:
         o[0] = uint32_t(vertex_id);
         o[1] = o[2] = o[3] = 0;
         break;
      case VLG_INPUT_SEMANTIC_INSTANCE_ID:
         o[0] = instance;
         o[1] = o[2] = o[3] = 0;
         break;
      default: {
         const GeAttrib &a = s.attribs[in.index];
         const int64_t elem =
            a.divisor ? int64_t(s.draw.start_instance) + instance / a.divisor : vertex_id;
         const int64_t off = elem * int64_t(a.stride) + a.src_offset;
         if (elem < 0 || off < 0 || uint64_t(off) + a.bytes > a.vb_size)
            throw GpuFault(
               "GE", "vertex fetch out of bounds",
               fmt::format("attribute {} ({}, {} bytes) of {} {} reads bytes [{}, {}) of "
                           "vertex_buffer[{}] (0x{:x}, size {} bytes, stride {})",
                           in.index, vlg_format_name(a.format), a.bytes,
                           a.divisor ? "instance" : "vertex", elem, off, off + int64_t(a.bytes),
                           a.vb_index, a.vb_address, a.vb_size, a.stride));
         format_fetch_vertex(a.format, vram.ptr(a.vb_address + uint64_t(off), a.bytes, "GE"), o);
         break;
      }
      }
   }
}

} // namespace vlgpu::sim
