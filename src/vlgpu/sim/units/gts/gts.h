/*
 * vlgpu cycle-mode GPU: the GTS (global task scheduler, seed 001 §3.2 and
 * fig. 2). docs/simulator-modules.md "GTS".
 *
 * Splits each draw's element stream, instance by instance, into vertex
 * sub-blocks of gts.sub_block_elements elements and hands them to the GPCs'
 * GEs round-robin, one per cycle (the rotation continues across draws; the
 * PEs merge the GEs' results in the same rotation). A draw with a geometry
 * shader is the exception (DrawState::has_gs): all its sub-blocks go to the
 * GE whose turn it is, because the GE's GS input assembly needs every vertex
 * of a strip, fan or adjacency run, and the rotation moves one GPC on after
 * the draw (so consecutive GS draws use different GPCs). After a draw's
 * sub-blocks it sends the draw's `last` token to every GE and reports it to
 * the CP. CLEAR draws, empty draws and draws whose package faulted carry
 * only their `last` token.
 *
 * Ports: in_draw (DrawCmd, from the CP), out_ge<g> (GeTask, per GPC),
 * out_last (LastReport). Counters: sim/units/counters.xml, <module class="Gts">.
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class Gts final : public Unit {
 public:
   Gts(std::string name, const Config &p);

   InPort<DrawCmd> in_draw{*this, "in_draw", "draws from the CP"};
   std::vector<std::unique_ptr<OutPort<GeTask>>> out_ge; /**< out_ge0.. per GPC */
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};

   Activity tick(Cycle now) override;
   bool drained() const override { return !draw_ && !wedged_; }

 private:
   std::string state_report() const override;

   uint32_t sub_block_;
   DrawRef draw_;
   uint32_t instance_ = 0, first_ = 0;
   bool sending_last_ = false;
   uint64_t last_sent_ = 0; /* bit g: last token pushed to GE g */
   uint32_t rr_ = 0;
   /** Statistics counters (counters.xml; count_.<key>). */
   GtsCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
