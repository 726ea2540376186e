/*
 * vlgpu simulator, functional pipeline: thread-group loading and readback
 * (see dispatch.h).
 */
#include "dispatch.h"

namespace vlgpu::sim {

void
vs_load_lane(const GeState &ge, const Vram &vram, int64_t vertex_id, uint32_t instance,
             ThreadGroup &tg, unsigned lane)
{
   uint32_t vin[kMaxShaderIo][4];
   ge_fetch_vs_inputs(ge, vram, vertex_id, instance, vin);
   for (unsigned k = 0; k < ge.num_inputs; k++) {
      const VsInput &in = ge.inputs[k];
      for (unsigned c = 0; c < 4; c++)
         if (in.mask >> c & 1)
            tg.set(lane, in.reg, c, vin[k][c]);
   }
}

void
vs_store_lane(const GeState &ge, const ThreadGroup &tg, unsigned lane, float *vertex)
{
   uint32_t tmp[4];
   auto reg = [&](unsigned r) -> const uint32_t * {
      for (unsigned c = 0; c < 4; c++)
         tmp[c] = tg.get(lane, r, c);
      return tmp;
   };
   if (ge.gs.enabled) /* a VS vertex for the geometry shader (GsPlan) */
      ge_store_outputs(ge.gs.vs_outputs, ge.gs.num_vs_outputs, reg, vertex);
   else
      ge_store_vs_outputs(ge, reg, vertex);
}

unsigned
vs_vertex_floats(const GeState &ge)
{
   return ge.gs.enabled ? ge.gs.vs_slots * 4 : ge.layout.floats();
}

void
gs_load_lane(const GeState &ge, const float *const *verts, uint32_t primitive_id,
             uint32_t invocation, ThreadGroup &tg, unsigned lane)
{
   const GsPlan &g = ge.gs;
   for (unsigned k = 0; k < g.num_inputs; k++) {
      const GsInput &in = g.inputs[k];
      if (in.semantic == VLG_INPUT_SEMANTIC_PRIMITIVE_ID ||
          in.semantic == VLG_INPUT_SEMANTIC_INVOCATION_ID) {
         const uint32_t v[4] = {
            in.semantic == VLG_INPUT_SEMANTIC_PRIMITIVE_ID ? primitive_id : invocation, 0, 0, 0};
         for (unsigned c = 0; c < 4; c++)
            if (in.mask >> c & 1)
               tg.set(lane, in.reg, c, v[c]);
         continue;
      }
      for (unsigned v = 0; v < g.vertices_in; v++) {
         const unsigned reg = in.reg + v * g.input_stride;
         const uint32_t *src =
            in.vs_slot >= 0 ? reinterpret_cast<const uint32_t *>(verts[v] + in.vs_slot * 4)
                            : nullptr;
         for (unsigned c = 0; c < 4; c++)
            if (in.mask >> c & 1)
               tg.set(lane, reg, c, src ? src[c] : 0u);
      }
   }
}

void
gs_store_vertex(const GeState &ge, const ThreadGroup &tg, unsigned lane, float *vertex)
{
   uint32_t tmp[4];
   ge_store_vs_outputs(
      ge,
      [&](unsigned r) -> const uint32_t * {
         for (unsigned c = 0; c < 4; c++)
            tmp[c] = tg.get(lane, r, c);
         return tmp;
      },
      vertex);
}

FsLaneMasks
fs_lane_masks(const uint8_t *masks, unsigned nquads, bool derivatives)
{
   FsLaneMasks m{0, 0, 0};
   for (unsigned k = 0; k < nquads; k++)
      m.covered |= uint64_t(masks[k] & 0xf) << (4 * k);
   const uint64_t quad_lanes = nquads >= 16 ? ~uint64_t(0) : (uint64_t(1) << (4 * nquads)) - 1;
   if (derivatives) {
      m.live = quad_lanes;
      m.helper = quad_lanes & ~m.covered;
   } else {
      m.live = m.covered;
   }
   return m;
}

void
fs_load_quad(const PeState &pe, const PrimSetup &setup, const Quad &q, ThreadGroup &tg,
             unsigned slot)
{
   uint32_t vals[kMaxShaderIo][4][4];
   pe_interpolate_quad(pe, setup, q, vals);
   for (unsigned i = 0; i < pe.num_inputs; i++) {
      const FsInput &in = pe.inputs[i];
      for (unsigned c = 0; c < 4; c++) {
         if (!(in.mask >> c & 1))
            continue;
         uint32_t *dst = tg.lanes(in.reg, c) + 4 * slot;
         for (unsigned l = 0; l < 4; l++)
            dst[l] = vals[i][l][c];
      }
   }
}

FsOutputPlan
fs_output_plan(const VLG_SHADER_STATE &fs)
{
   FsOutputPlan p;
   for (unsigned i = 0; i < fs.num_outputs; i++) {
      const VLG_SHADER_OUTPUT &o = fs.outputs[i];
      if (o.semantic == VLG_OUTPUT_SEMANTIC_COLOR && o.index < kMaxColorBufs) {
         p.color_reg[o.index] = int(o.reg);
         p.color_mask |= 1u << o.index;
      } else if (o.semantic == VLG_OUTPUT_SEMANTIC_DEPTH) {
         p.depth_reg = int(o.reg);
      } else if (o.semantic == VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR) {
         p.dual_source_reg = int(o.reg);
      }
   }
   return p;
}

void
fs_read_quad_colors(const FsOutputPlan &plan, const OmuState &omu, const ThreadGroup &tg,
                    unsigned slot, uint32_t (*color)[4][4])
{
   for (unsigned rt = 0; rt < omu.nr_cbufs && rt < kMaxColorBufs; rt++) {
      if (!omu.rt[rt].written || plan.color_reg[rt] < 0)
         continue;
      const unsigned reg = unsigned(plan.color_reg[rt]);
      for (unsigned c = 0; c < 4; c++) {
         const uint32_t *src = tg.lanes(reg, c) + 4 * slot;
         for (unsigned l = 0; l < 4; l++)
            color[rt][l][c] = src[l];
      }
   }
   if (omu.dual_source) {
      for (unsigned c = 0; c < 4; c++) {
         const uint32_t *src = plan.dual_source_reg >= 0
                                  ? tg.lanes(unsigned(plan.dual_source_reg), c) + 4 * slot
                                  : nullptr;
         for (unsigned l = 0; l < 4; l++)
            color[kDualSourceSlot][l][c] = src ? src[l] : 0u;
      }
   }
}

} // namespace vlgpu::sim
