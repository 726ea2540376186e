/*
 * vlgpu cycle-mode GPU: the CE (compute engine of a GPC, seed 001 §2 and
 * fig. 2: each GPC has a CE beside its GE, PE, LTS, SPCs and OMU).
 * docs/simulator-modules.md "CE".
 *
 * The CP sends every DISPATCH to the CE of every GPC (DispatchCmd). The
 * grid is split statically: the CE of GPC g of G takes workgroups g, g + G,
 * g + 2G, ... (x fastest, then y, then z, as in functional mode). For each,
 * one per cycle, it forms the workgroup's ceil(invocations /
 * thread_group_width) compute thread groups (ComputeSetup::init_thread_group),
 * its zeroed shared memory and its ShaderResources, and hands the workgroup
 * to its LTS (CsWorkgroup), which places all of its thread groups on one
 * SPC. When the LTS reports every workgroup it formed completed (Credit with
 * `workgroup` set), the CE reports the dispatch done to the CP (LastReport
 * with the dispatch's DrawState::seq). A dispatch that faulted (or whose
 * package the CP could not load) gets no more workgroups; the CE still
 * waits for the ones out and reports.
 *
 * Ports: in_dispatch (DispatchCmd, from the CP), out_lts (SpcTask, to the
 * LTS), in_done (Credit, from the LTS), out_done (LastReport, to the CP).
 * Counters: sim/units/counters.xml, <module class="Ce">.
 */
#pragma once

#include <string>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class Ce final : public Unit {
 public:
   /** @gpc: this CE's GPC (0 .. gpcs-1). */
   Ce(std::string name, const Config &p, uint32_t gpc, ThreadGroupPool &pool);

   InPort<DispatchCmd> in_dispatch{*this, "in_dispatch", "dispatches from the CP"};
   OutPort<SpcTask> out_lts{*this, "out_lts", "compute workgroups to the LTS"};
   InPort<Credit> in_done{*this, "in_done", "completed workgroups (from the LTS)"};
   OutPort<LastReport> out_done{*this, "out_done", "dispatch done (to the CP)"};

   Activity tick(Cycle now) override;
   bool drained() const override { return !disp_ && !wedged_; }

 private:
   std::string state_report() const override;

   /** Form workgroup @i of the current dispatch. */
   std::unique_ptr<CsWorkgroup> form(uint64_t i);

   uint32_t gpc_, gpcs_;
   uint64_t reg_file_bytes_; /* spc.register_file_bytes */
   ThreadGroupPool &pool_;
   DrawRef disp_;
   uint64_t next_ = 0;  /* next workgroup number to form */
   uint64_t issued_ = 0, done_ = 0;
   /** Statistics counters (counters.xml; count_.<key>). */
   CeCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
