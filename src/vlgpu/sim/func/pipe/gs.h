/*
 * vlgpu simulator, functional pipeline: the geometry-shader stage of the GE
 * (docs/hw.md "Geometry shaders"; GL 3.2 core §2.12).
 *
 * One lane per input primitive and invocation (GsAssembler order, the
 * gs_invocations lanes of a primitive next to each other, W lanes per
 * thread group): gs_load_lane preloads the per-vertex inputs from the VS
 * vertices, PRIMITIVE_ID and INVOCATION_ID; MEM.EMIT, MEM.CUT and the end of the thread build the
 * lanes' output strips, decomposed into the PE's primitives after the group
 * has run (GsOutput, gs_output.h, which the cycle-mode GE and SPC use too).
 *
 * Reference: Mesa's draw module as softpipe uses it (draw_gs.c
 * gs_fetch_inputs / gs_flush, draw_prim_assembler.c, draw_decompose_tmp.h).
 */
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "functional.h"
#include "geometry.h"
#include "gs_output.h"
#include "raster.h"
#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

class GsStage final : public GsEmitSink {
 public:
   using OutputFn = GsOutput::OutputFn;

   /** @res: the GS's resources (its gs pointer is set to this stage). */
   GsStage(const GeState &ge, const PeState &pe, const VLG_SHADER_STATE &state,
           const Program &prog, const ShaderResources &res, unsigned width);

   /**
    * Run one thread group over @n (1..width) lanes: @verts[l] = the VS
    * vertices of lane l's primitive (ge.gs.vertices_in pointers into
    * vs_store_lane data), @prim_ids[l] = its PRIMITIVE_ID, @invocations[l]
    * its INVOCATION_ID. Calls @out for every output primitive in order and
    * counts gs_* in @st. Throws GpuFault (SPC) as run().
    */
   void run_group(const float *const (*verts)[6], const uint32_t *prim_ids,
                  const uint32_t *invocations, unsigned n, const OutputFn &out, DrawStats &st);

   unsigned width() const { return width_; }

   void emit(const ThreadGroup &tg, uint64_t lanes) override { out_.emit(ge_, pe_, tg, lanes); }
   void cut(uint64_t lanes) override { out_.cut(lanes); }

 private:
   const GeState &ge_;
   const PeState &pe_;
   const VLG_SHADER_STATE &state_;
   const Program &prog_;
   ShaderResources res_;
   unsigned width_;
   ThreadGroup tg_;
   GsOutput out_;
   uint32_t group_no_ = 0;
};

} // namespace vlgpu::sim
