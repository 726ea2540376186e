/*
 * vlgpu simulator, functional pipeline: the geometry-shader stage (gs.h).
 */
#include "gs.h"

#include "dispatch.h"

namespace vlgpu::sim {

GsStage::GsStage(const GeState &ge, const PeState &pe, const VLG_SHADER_STATE &state,
                 const Program &prog, const ShaderResources &res, unsigned width)
    : ge_(ge), pe_(pe), state_(state), prog_(prog), res_(res), width_(width),
      floats_(ge.layout.floats()), tg_(width, state.num_regs, VLG_SHADER_STAGE_GEOMETRY, 0),
      lanes_(width)
{
   res_.gs = this;
}

void
GsStage::emit(const ThreadGroup &tg, uint64_t lanes)
{
   for (uint64_t m = lanes; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctzll(m));
      Lane &L = lanes_[l];
      if (L.count >= ge_.gs.max_vertices) {
         dropped_++; /* GL 3.2 core §2.12.4: emits past max_vertices are undefined; dropped */
         continue;
      }
      const size_t at = L.data.size();
      L.data.resize(at + floats_, 0.0f);
      float *v = &L.data[at];
      gs_store_vertex(ge_, tg, l, v);
      L.clip.push_back(pe_post_vs(pe_, v));
      L.count++;
   }
}

void
GsStage::cut(uint64_t lanes)
{
   for (uint64_t m = lanes; m; m &= m - 1) {
      Lane &L = lanes_[unsigned(__builtin_ctzll(m))];
      if (L.ends.empty() ? L.count > 0 : L.ends.back() != L.count)
         L.ends.push_back(L.count);
   }
}

void
GsStage::run_group(const float *const (*verts)[6], const uint32_t *prim_ids, unsigned n,
                   const OutputFn &out, DrawStats &st)
{
   tg_.reset(width_, state_.num_regs, VLG_SHADER_STAGE_GEOMETRY, group_no_++);
   tg_.set_live_mask(n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1);
   for (unsigned l = 0; l < n; l++) {
      gs_load_lane(ge_, verts[l], prim_ids[l], tg_, l);
      Lane &L = lanes_[l];
      L.data.clear();
      L.clip.clear();
      L.ends.clear();
      L.count = 0;
   }
   const RunResult r = run(tg_, prog_, res_);
   st.gs_groups++;
   st.gs_invocations += n;
   st.gs_instructions += r.instructions;
   st.gs_lane_instructions += r.lane_instructions;
   st.gs_dual_issued += r.dual_issued;

   /* the end of the thread ends every lane's strip */
   cut(n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1);
   for (unsigned l = 0; l < n; l++) {
      Lane &L = lanes_[l];
      st.gs_output_vertices += L.count;
      uint32_t start = 0;
      for (uint32_t end : L.ends) {
         PrimitiveAssembler pa(ge_.gs.output_prim, ge_.flatshade_first);
         auto em = [&](const Primitive &p) {
            float *v[3];
            uint32_t clip[3];
            for (unsigned j = 0; j < p.num_vertices; j++) {
               v[j] = &L.data[size_t(p.v[j]) * floats_];
               clip[j] = L.clip[p.v[j]];
            }
            st.gs_output_primitives++;
            out(v, clip, p.num_vertices);
         };
         for (uint32_t k = start; k < end; k++)
            pa.push(k, em);
         pa.restart(em);
         start = end;
      }
   }
   st.gs_emits_dropped = dropped_;
}

} // namespace vlgpu::sim
