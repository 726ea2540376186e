/*
 * vlgpu simulator: the output strips of one GS thread group (gs_output.h).
 */
#include "gs_output.h"

#include "dispatch.h"

namespace vlgpu::sim {

void
GsOutput::begin(unsigned lanes)
{
   n_ = lanes;
   if (lanes_.size() < lanes)
      lanes_.resize(lanes);
   for (unsigned l = 0; l < lanes; l++) {
      Lane &L = lanes_[l];
      L.data.clear();
      L.clip.clear();
      L.ends.clear();
      L.count = 0;
   }
   dropped_ = 0;
}

void
GsOutput::emit(const GeState &ge, const PeState &pe, const ThreadGroup &tg, uint64_t mask)
{
   const unsigned floats = ge.layout.floats();
   for (uint64_t m = mask; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctzll(m));
      if (l >= n_)
         continue; /* not a live lane */
      Lane &L = lanes_[l];
      if (L.count >= ge.gs.max_vertices) {
         dropped_++; /* GL 3.2 core §2.12.4: emits past max_vertices are undefined; dropped */
         continue;
      }
      const size_t at = L.data.size();
      L.data.resize(at + floats, 0.0f);
      float *v = &L.data[at];
      gs_store_vertex(ge, tg, l, v);
      L.clip.push_back(pe_post_vs(pe, v));
      L.count++;
   }
}

void
GsOutput::cut(uint64_t mask)
{
   for (uint64_t m = mask; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctzll(m));
      if (l >= n_)
         continue;
      Lane &L = lanes_[l];
      if (L.ends.empty() ? L.count > 0 : L.ends.back() != L.count)
         L.ends.push_back(L.count);
   }
}

void
GsOutput::decompose(const GeState &ge, const OutputFn &out, DrawStats &st)
{
   const unsigned floats = ge.layout.floats();
   cut(n_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << n_) - 1); /* the end of the thread */
   for (unsigned l = 0; l < n_; l++) {
      Lane &L = lanes_[l];
      st.gs_output_vertices += L.count;
      uint32_t start = 0;
      for (uint32_t end : L.ends) {
         PrimitiveAssembler pa(ge.gs.output_prim, ge.flatshade_first);
         auto em = [&](const Primitive &p) {
            float *v[3];
            uint32_t clip[3];
            for (unsigned j = 0; j < p.num_vertices; j++) {
               v[j] = &L.data[size_t(p.v[j]) * floats];
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
   st.gs_emits_dropped += dropped_;
   dropped_ = 0;
}

vlg_prim
gs_output_list_prim(vlg_prim output_prim)
{
   switch (output_prim) {
   case VLG_PRIM_LINE_STRIP:
      return VLG_PRIM_LINES;
   case VLG_PRIM_TRIANGLE_STRIP:
      return VLG_PRIM_TRIANGLES;
   default:
      return VLG_PRIM_POINTS;
   }
}

} // namespace vlgpu::sim
