/*
 * vlgpu simulator: the output strips of one geometry-shader thread group
 * (docs/hw.md "Geometry shaders"; GL 3.2 core §2.12.2 and §2.12.4).
 *
 * Plain data, without the executor, so that the cycle-mode GE and SPC can
 * carry it in their messages (sim/units/common/messages.h) while the
 * functional GS stage (gs.h) uses the same code: one implementation of
 * what MEM.EMIT, MEM.CUT and the end of the thread do, and of the
 * decomposition of the strips into the PE's primitives.
 *
 * Per lane (= input primitive): MEM.EMIT appends a vertex made of the GS
 * output-map registers (gs_store_vertex, then pe_post_vs: the draw's
 * VertexLayout, layout.floats() floats) to the lane's current strip, at
 * most gs.max_vertices per lane (later EMITs are dropped and counted:
 * GL leaves them undefined); MEM.CUT and the end of the thread end the
 * strip. decompose() then gives the output primitives lane by lane (input
 * primitive order) and in emission order, decomposed by gs.output_prim
 * with a PrimitiveAssembler (POINTS, LINE_STRIP, TRIANGLE_STRIP with
 * flatshade_first), as Gallium's draw module does (draw_gs.c gs_flush,
 * draw_decompose_tmp.h); incomplete strips give nothing.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "functional.h"
#include "geometry.h"
#include "raster.h"
#include "sim/func/shader/thread_group.h"

namespace vlgpu::sim {

class GsOutput {
 public:
   /** One output primitive: @n (1..3) vertices in the draw's VertexLayout
    *  (pe_post_vs done), their clip masks, in the PE's order. */
   using OutputFn = std::function<void(float *const *v, const uint32_t *clipmask, unsigned n)>;

   /** Start a thread group of @lanes (1..kMaxLanes) input primitives: no
    *  strips. */
   void begin(unsigned lanes);
   /** MEM.EMIT of the lanes in @mask: a vertex from @tg's output map. */
   void emit(const GeState &ge, const PeState &pe, const ThreadGroup &tg, uint64_t mask);
   /** MEM.CUT of the lanes in @mask (an empty strip stays unopened). */
   void cut(uint64_t mask);
   /**
    * The thread group ended: end every lane's strip, then call @out for
    * every output primitive (lane order, then emission order) and add the
    * group's gs_output_vertices, gs_output_primitives and gs_emits_dropped
    * to @st. Call once per begin().
    */
   void decompose(const GeState &ge, const OutputFn &out, DrawStats &st);

   /** Input primitives (lanes) of the group. */
   unsigned lanes() const { return n_; }

 private:
   struct Lane {
      std::vector<float> data;    /* vertices, layout.floats() each */
      std::vector<uint32_t> clip; /* clip mask per vertex */
      std::vector<uint32_t> ends; /* vertex count at the end of each strip */
      uint32_t count = 0;         /* vertices kept */
   };
   std::vector<Lane> lanes_;
   unsigned n_ = 0;
   uint64_t dropped_ = 0;
};

/** The list type the PE assembles a geometry shader's decomposed output as:
 *  POINTS, LINES, TRIANGLES for an output_prim of POINTS, LINE_STRIP,
 *  TRIANGLE_STRIP (the only GS output types, GL 3.2 core §2.12.1). */
vlg_prim gs_output_list_prim(vlg_prim output_prim);

} // namespace vlgpu::sim
