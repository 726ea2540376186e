/*
 * vlgpu cycle-mode GPU: the PE (primitive engine of a GPC, seed 001 §3.2
 * and fig. 2). docs/simulator-modules.md "PE".
 *
 * Three stages, each working every cycle:
 *  1. primitive assembly and rasterisation: merges the GEs' vertex batches
 *     in sub-block order (the GTS's rotation), assembles primitives with the
 *     functional PrimitiveAssembler, and runs the functional PrimitiveEngine
 *     (clip, cull, offset, point/line expansion, setup, rasterisation into
 *     2x2 quads) on each; a primitive costs pe.prim_cycles plus
 *     pe.setup_cycles per triangle/line/point set up. With several GPCs the
 *     PE keeps the quads of its own screen tiles (pe.tile_pixels).
 *  2. the rasterisation runs (up to 8 quads of one 2-row band) go to the
 *     OMU's early depth/stencil stage at pe.quads_per_cycle quads per cycle,
 *     and come back (with the quads that passed) in the same order;
 *  3. FS thread-group packing: surviving quads are packed W/4 per group in
 *     order, across primitive boundaries (as the functional pipeline packs
 *     them), their inputs interpolated into the group's registers
 *     (fs_load_quad), and the group goes to the LTS numbered with a
 *     per-GPC sequence number (one group per cycle: a full group leaves in
 *     the cycle the next one is packed); the OMU retires groups in that order, which
 *     keeps every OMU operation in the functional order whatever order the
 *     SPCs finish in. At the end of a draw the partial group is sent, then
 *     the draw's `last` token to the LTS, a DrawMark to the OMU and a
 *     report to the CP.
 *
 * Stream output (docs/hw.md "Stream output"): GPC 0's PE, which assembles
 * every primitive of the draw, also runs a second PrimitiveAssembler in
 * GL's last-vertex order and feeds the functional StreamOutput; the lines
 * it writes go to the L2 as posted writes (ports out_mem / in_mem, GPC 0
 * only). The draw's StreamOutput lives in DrawState::so; the CycleGpu
 * stores the filled sizes and counters when the draw has ended.
 *
 * Ports: in_ge<g> (BatchRef from GPC g's GE), out_early / in_early
 * (QuadRun to/from the OMU), out_fs (SpcTask to the LTS), out_mark
 * (DrawMark to the OMU), out_last, out_mem / in_mem (GPC 0). Counters:
 * sim/units/counters.xml, <module class="Pe">.
 */
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/func/pipe/geometry.h"
#include "sim/func/pipe/raster.h"
#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class Pe final : public Unit, private QuadSink {
 public:
   /** @gpc: this PE's GPC (tile ownership). */
   Pe(std::string name, const Config &p, uint32_t gpc, ThreadGroupPool &pool);

   std::vector<std::unique_ptr<InPort<BatchRef>>> in_ge; /**< from GPC g's GE */
   OutPort<QuadRun> out_early{*this, "out_early", "rasterisation runs to the OMU's early tests"};
   InPort<QuadRun> in_early{*this, "in_early", "runs back from the early tests"};
   OutPort<SpcTask> out_fs{*this, "out_fs", "FS thread groups to the LTS"};
   OutPort<DrawMark> out_mark{*this, "out_mark", "draw boundaries to the OMU"};
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};
   InPort<Credit> in_credit{*this, "in_credit", "FS groups the OMU retired (reorder-buffer space)"};

   Activity tick(Cycle now) override;
   bool drained() const override;

 private:
   std::string state_report() const override;

   /* QuadSink, called by the PrimitiveEngine */
   void primitive(const PrimSetup &setup) override;
   void quads(const Quad *q, unsigned n) override;

   struct VRef {
      BatchRef batch;
      uint32_t index = 0;
   };
   bool assemble(Cycle now);
   void begin_draw(const DrawRef &d);
   void end_draw();
   void emit(const Primitive &prim);
   void so_emit(const Primitive &prim);
   VRef &vref(uint32_t n) { return n == first_n_ ? first_ : ring_[n & 3]; }
   bool pack(Cycle now);
   bool send_group();

   Config p_;
   ThreadGroupPool &pool_;
   uint32_t gpc_, gpcs_, width_, quads_per_group_;

   /* stage 1 */
   uint32_t rr_ = 0;
   BatchRef batch_;
   size_t elem_ = 0;
   DrawRef draw_;
   std::unique_ptr<PrimitiveEngine> engine_;
   std::optional<PrimitiveAssembler> pa_;
   uint32_t inst_prims_ = 0; /* primitives of the instance so far (FS PRIMITIVE_ID) */
   std::optional<PrimitiveAssembler> so_pa_; /* GPC 0, draws with stream output */
   std::unique_ptr<MemClient> mem_;          /* GPC 0: stream-output writes */
   uint64_t so_last_line_ = ~uint64_t(0);
   uint32_t vn_ = 0, first_n_ = ~0u;
   bool at_first_ = true;
   VRef ring_[4], first_;
   uint64_t last_mask_ = 0;
   Cycle raster_until_ = 0;
   uint32_t setups_now_ = 0;
   std::shared_ptr<PrimSetup> setup_;
   uint64_t owned_quads_ = 0, owned_frags_ = 0;
   std::deque<QuadRun> runs_;

   /* stage 2 */
   Cycle emit_until_ = 0;

   /* stage 3 */
   enum class End { None, Flush, Token, Mark, Report };
   QuadRun cur_;
   bool have_cur_ = false;
   unsigned cur_pos_ = 0;
   std::unique_ptr<FsGroup> group_;
   uint64_t seq_ = 0;
   uint32_t group_no_ = 0;
   uint32_t rob_free_; /* FS groups the OMU's reorder buffer can still take */
   End end_ = End::None;

   /** Statistics counters (counters.xml; count_.<key>). */
   PeCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
