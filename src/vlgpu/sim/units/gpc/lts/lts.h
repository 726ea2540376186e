/*
 * vlgpu cycle-mode GPU: the LTS (local task scheduler of a GPC, seed 001
 * §3.2 and fig. 2). docs/simulator-modules.md "LTS".
 *
 * Dispatches VS thread groups (from the GE) and FS thread groups (from the
 * PE) to the GPC's SPCs, one group per cycle, alternating between the two
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
 * `last` tokens: the draw's token arrives on both inputs (after its VS and
 * after its FS groups); when both have passed, the LTS sends it to every SPC
 * and reports it to the CP.
 *
 * Ports: in_vs, in_fs (SpcTask), out_spc<k> (SpcTask), in_credit<k>
 * (Credit), out_last. Counters: vs_dispatched, fs_dispatched,
 * no_room_cycles.
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/core/config.h"

namespace vlgpu::sim {

class Lts final : public Unit {
 public:
   Lts(std::string name, const Config &p);

   InPort<SpcTask> in_vs{*this, "in_vs", "VS thread groups (and `last` tokens) from the GE"};
   InPort<SpcTask> in_fs{*this, "in_fs", "FS thread groups (and `last` tokens) from the PE"};
   std::vector<std::unique_ptr<OutPort<SpcTask>>> out_spc;
   std::vector<std::unique_ptr<InPort<Credit>>> in_credit;
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};

   Activity tick(Cycle now) override;
   bool drained() const override;
   std::string stall_report() const override;

   /** Free slots / register bytes of SPC @k (tests). */
   uint32_t free_slots(unsigned k) const { return spc_[k].slots; }
   uint64_t free_reg_bytes(unsigned k) const { return spc_[k].reg_bytes; }

 private:
   struct Spc {
      uint32_t slots;
      uint64_t reg_bytes;
   };
   /** Try to dispatch the head of @in; 1 dispatched, 0 nothing to do, -1 no room. */
   int dispatch(InPort<SpcTask> &in, bool fs, Cycle now);

   Config p_;
   uint32_t width_;
   std::vector<Spc> spc_;
   bool fs_first_ = false;
   /* last tokens: draws whose token passed each input, in order */
   std::deque<DrawRef> vs_last_, fs_last_;
   uint64_t last_sent_ = 0; /* bit k: token pushed to SPC k */
   Counter &vs_dispatched_ = add_counter("vs_dispatched", "VS thread groups dispatched");
   Counter &fs_dispatched_ = add_counter("fs_dispatched", "FS thread groups dispatched");
   CycleCounter &no_room_ = add_cycle_counter(
      "no_room_cycles", "cycles a thread group waited for a free SPC slot/registers");
};

} // namespace vlgpu::sim
