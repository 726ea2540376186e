/*
 * vlgpu simulator, functional pipeline: the geometry-shader stage of the GE
 * (docs/hw.md "Geometry shaders"; GL 3.2 core §2.12).
 *
 * One lane per input primitive (GsAssembler order, W lanes per thread group):
 * gs_load_lane preloads the per-vertex inputs from the VS vertices and
 * PRIMITIVE_ID; MEM.EMIT appends, per lane, a vertex made of the current
 * GS output-map registers (gs_store_vertex, then pe_post_vs) to the lane's
 * current strip, at most gs_max_vertices per lane (later EMITs are dropped);
 * MEM.CUT and the end of the thread end the strip. After the group has run,
 * each lane's strips, lane by lane (= input primitive order) and in emission
 * order, are decomposed by gs_output_prim with a PrimitiveAssembler
 * (POINTS, LINE_STRIP, TRIANGLE_STRIP with rasterizer.flatshade_first, as
 * Gallium's draw module decomposes GS output: draw_gs.c, draw_pt_so_emit
 * and the pipeline see the same order); incomplete strips give nothing.
 * The functional draw and cycle mode (which runs GS draws on the functional
 * pipeline, docs/hw.md) use this one implementation.
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
#include "raster.h"
#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

class GsStage final : public GsEmitSink {
 public:
   /** One output primitive: @n (1..3) vertices in the draw's VertexLayout
    *  (pe_post_vs done), their clip masks, in the PE's order. */
   using OutputFn = std::function<void(float *const *v, const uint32_t *clipmask, unsigned n)>;

   /** @res: the GS's resources (its gs pointer is set to this stage). */
   GsStage(const GeState &ge, const PeState &pe, const VLG_SHADER_STATE &state,
           const Program &prog, const ShaderResources &res, unsigned width);

   /**
    * Run one thread group over @n (1..width) input primitives: @verts[l] =
    * the VS vertices of lane l's primitive (ge.gs.vertices_in pointers into
    * vs_store_lane data), @prim_ids[l] = its PRIMITIVE_ID. Calls @out for
    * every output primitive in order and counts gs_* and ge.primitives in
    * @st. Throws GpuFault (SPC) as run().
    */
   void run_group(const float *const (*verts)[6], const uint32_t *prim_ids, unsigned n,
                  const OutputFn &out, DrawStats &st);

   unsigned width() const { return width_; }

   void emit(const ThreadGroup &tg, uint64_t lanes) override;
   void cut(uint64_t lanes) override;

 private:
   struct Lane {
      std::vector<float> data;       /* vertices, layout.floats() each */
      std::vector<uint32_t> clip;    /* clip mask per vertex */
      std::vector<uint32_t> ends;    /* vertex count at the end of each strip */
      uint32_t count = 0;            /* vertices kept */
   };
   const GeState &ge_;
   const PeState &pe_;
   const VLG_SHADER_STATE &state_;
   const Program &prog_;
   ShaderResources res_;
   unsigned width_, floats_;
   ThreadGroup tg_;
   std::vector<Lane> lanes_;
   uint32_t group_no_ = 0;
   uint64_t dropped_ = 0;
};

} // namespace vlgpu::sim
