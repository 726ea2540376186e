/*
 * vlgpu cycle-mode GPU: the LTS (local task scheduler of a GPC, seed 001
 * §3.2 and fig. 2). docs/simulator-modules.md "LTS".
 *
 * Dispatches VS and GS thread groups (from the GE) and FS thread groups
 * (from the PE) to the GPC's SPCs, one group per cycle, alternating between the two
 * inputs when both have work. A group goes to an SPC with a free resident
 * slot (thread_groups_per_spc) and enough free register file
 * (num_regs x thread_group_width x 16 bytes of spc.register_file_bytes):
 * the one with the most free slots, then the most free register bytes, then
 * the lowest index ("by load"). SPCs return a Credit when a group leaves.
 * When no SPC has room the input waits (back-pressure).
 *
 * A group whose shader can never fit (num_regs above
 * vec4_registers_per_lane, or more register bytes than an SPC has) faults
 * its draw (module "LTS") and goes to an SPC marked skip, so the GE/OMU
 * still see it in order.
 *
 * Compute workgroups (in_cs, from the GPC's CE; docs/simulator-modules.md
 * "CE"): all thread groups of one workgroup go to ONE SPC that has as many
 * free slots, their register bytes and the workgroup's shared_size bytes of
 * free shared memory (spc.shared_memory_bytes), chosen "by load" as above;
 * one workgroup per cycle, in the cycles no VS/FS group was dispatched.
 * The SPC gives everything back in one Credit when the whole workgroup has
 * left; the LTS then reports it to the CE (out_ce). A workgroup of an
 * aborted dispatch is not run: reported done at once.
 *
 * `last` tokens: the draw's token arrives on both inputs (after its VS and
 * after its FS groups); when both have passed, the LTS sends it to every SPC
 * and reports it to the CP.
 *
 * Ports: in_vs, in_fs, in_cs (SpcTask), out_spc<k> (SpcTask), in_credit<k>
 * (Credit), out_last, out_ce (Credit). Counters: sim/units/counters.xml,
 * <module class="Lts">.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class Lts final : public Unit {
 public:
   Lts(std::string name, const Config &p);

   InPort<SpcTask> in_vs{*this, "in_vs", "VS thread groups (and `last` tokens) from the GE"};
   InPort<SpcTask> in_fs{*this, "in_fs", "FS thread groups (and `last` tokens) from the PE"};
   InPort<SpcTask> in_cs{*this, "in_cs", "compute workgroups from the CE"};
   OutPort<Credit> out_ce{*this, "out_ce", "completed compute workgroups to the CE"};
   std::vector<std::unique_ptr<OutPort<SpcTask>>> out_spc;
   std::vector<std::unique_ptr<InPort<Credit>>> in_credit;
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};

   Activity tick(Cycle now) override;
   void on_finalize() override;
   bool drained() const override;

   /** Free slots / register bytes of SPC @k (tests). */
   uint32_t free_slots(unsigned k) const { return spc_[k].slots; }
   uint64_t free_reg_bytes(unsigned k) const { return spc_[k].reg_bytes; }

 private:
   /** Host speed: bit k set while in_credit<k>'s queue is not empty (kept by
    *  the queues, QueueBase::set_nonempty_mask): one word tells which
    *  inputs to poll. */
   uint64_t credit_nonempty_ = 0;
   std::string state_report() const override;

   struct Spc {
      uint32_t slots;
      uint64_t reg_bytes;
      uint64_t shared_bytes;
   };
   /** Try to dispatch the head of @in; 1 dispatched, 0 nothing to do, -1 no room. */
   int dispatch(InPort<SpcTask> &in, bool fs, Cycle now);
   int pick_spc(uint32_t slots, uint64_t reg_bytes, uint64_t shared) const;
   /** Same for the head of in_cs: a whole workgroup onto one SPC. */
   int place_workgroup(Cycle now);
   /** An SPC's Credit for SPC @k. */
   void credit(unsigned k, const Credit &c);

   Config p_;
   uint32_t width_;
   std::vector<Spc> spc_;
   bool fs_first_ = false;
   uint32_t ce_done_ = 0; /* completed workgroups not yet reported to the CE */
   /* last tokens: draws whose token passed each input, in order */
   std::deque<DrawRef> vs_last_, fs_last_;
   uint64_t last_sent_ = 0; /* bit k: token pushed to SPC k */
   /** Statistics counters (counters.xml; count_.<key>). */
   LtsCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
