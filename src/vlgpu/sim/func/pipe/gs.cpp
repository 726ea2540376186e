/*
 * vlgpu simulator, functional pipeline: the geometry-shader stage (gs.h).
 */
#include "gs.h"

#include "dispatch.h"

namespace vlgpu::sim {

GsStage::GsStage(const GeState &ge, const PeState &pe, const VLG_SHADER_STATE &state,
                 const Program &prog, const ShaderResources &res, unsigned width)
    : ge_(ge), pe_(pe), state_(state), prog_(prog), res_(res), width_(width),
      tg_(width, state.num_regs, VLG_SHADER_STAGE_GEOMETRY, 0)
{
   res_.gs = this;
}

void
GsStage::run_group(const float *const (*verts)[6], const uint32_t *prim_ids,
                   const uint32_t *invocations, unsigned n, const OutputFn &out, DrawStats &st)
{
   tg_.reset(width_, state_.num_regs, VLG_SHADER_STAGE_GEOMETRY, group_no_++);
   tg_.set_live_mask(n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1);
   for (unsigned l = 0; l < n; l++)
      gs_load_lane(ge_, verts[l], prim_ids[l], invocations[l], tg_, l);
   out_.begin(n);
   const RunResult r = run(tg_, prog_, res_);
   st.gs_groups++;
   st.gs_invocations += n;
   st.gs_instructions += r.instructions;
   st.gs_lane_instructions += r.lane_instructions;
   st.gs_dual_issued += r.dual_issued;
   out_.decompose(ge_, out, st);
}

} // namespace vlgpu::sim
