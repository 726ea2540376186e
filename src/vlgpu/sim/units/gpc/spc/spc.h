/*
 * vlgpu cycle-mode GPU: the SPC (stream processor cluster, seed 001 fig. 2;
 * compute units with several resident wavefronts, seed 002).
 * docs/simulator-modules.md "SPC".
 *
 * Holds up to thread_groups_per_spc resident thread groups (the LTS checks
 * slots and register file). Each cycle it issues at most one instruction,
 * from the oldest resident group that can issue (oldest-first), by calling
 * the functional executor's step() (docs/simulator-spc.md): both phases of
 * a VL-IW instruction issue in that one cycle (dual issue, counted).
 *
 * Texture unit: a texture instruction holds it ceil(units /
 * spc.tex_bilinear_per_cycle) cycles, the units being the bilinear samples
 * the functional texture unit took (StepResult::tex_filter_units); the next
 * texture instruction of any group waits until it is free
 * (cycles_wait_texture), and the destination is ready no earlier than the
 * end of the filtering.
 *
 * A group can issue its next instruction when
 *  - its instruction is in the instruction cache (spc.icache_bytes,
 *    spc.icache_ways, lines of l2.line_bytes; a miss requests the missing
 *    lines through the L2 and the group waits for them; the ISA's 4-bank
 *    fetch delivers one instruction per cycle otherwise);
 *  - the scoreboard allows it: every register component it reads or writes,
 *    and every coordinate register (P0-P3, A0, LC) it reads, is ready. An
 *    instruction issued at cycle t makes its written components ready at
 *    t + latency (the op's latency from the ISA table, Instr::writes); PRED,
 *    ADDR and ++LC at t + 1. A dependent instruction therefore issues
 *    exactly `latency` cycles after its producer when nothing else stops it.
 *  - Memory instructions (LDB, texture ops) read VRAM functionally at issue;
 *    their addresses (StepResult::mem_addresses, the texture unit's texel
 *    trace) are reduced to lines, looked up in the SPC's read-only L1
 *    (spc.l1_bytes, spc.l1_ways); missing lines are requested from the L2.
 *    The destination registers are ready at the later of issue + the op's
 *    latency and the arrival of the last line (hits: issue +
 *    max(latency, spc.l1_hit_latency_cycles)). Other groups, and
 *    independent instructions of the same group, keep issuing meanwhile.
 *    LDC reads the on-chip global buffer: ISA latency only.
 * Compute workgroups (from the CE through the LTS; docs/simulator-modules.md
 * "CE", docs/hw.md "Compute"): all thread groups of a workgroup become
 * resident together and issue like VS/FS groups (same scoreboard,
 * instruction cache, oldest first). A MEM.BAR holds its group until every
 * group of the workgroup is at the barrier or done (barrier_wait_cycles:
 * group-cycles waited). A MEM on shared memory issues for as many cycles as
 * the most distinct 4-byte words one of spc.shared_memory_banks banks serves
 * (bank = word mod banks; lanes reading the same word share it), during
 * which no other instruction issues on the SPC; its loaded data is ready
 * spc.shared_memory_latency_cycles after the last of those cycles. Global
 * MEM loads go through the L1 (as LDB), stores write their lines to the
 * L2, atomics read each line from the L2 (a round trip: the L2 does the
 * read-modify-write) and write it. A store's last line is acknowledged by
 * the L2 (post_writes). The workgroup leaves in one piece once all its
 * groups ended, their results are ready and their stores acknowledged:
 * one Credit (its slots, registers and shared memory) to the LTS, so a
 * dispatch is complete only once its stores are in the L2.
 *
 * Geometry-shader groups (from the GE through the LTS; docs/hw.md "Geometry
 * shaders") issue like VS groups; their MEM.EMIT and MEM.CUT append to the
 * group's output strips (GsOutput) at issue. A MEM.EMIT reads the whole
 * output map, so it issues only once every register write of its group is
 * complete (scoreboard and memory).
 *
 * A finished group leaves once its last results are ready: VS and GS groups
 * go back to the GE, FS groups to the OMU, and a Credit to the LTS. Any GpuFault of
 * step() faults the draw (among them the watchdog's "shader did not end" and
 * "submit budget exceeded", counted in instructions as in functional mode:
 * ShaderResources::max_instructions, submit_instructions_left); groups of an aborted
 * draw stop issuing and leave marked skip.
 *
 * Ports: in_task (SpcTask from the LTS), out_vs (to the GE), out_fs (to the
 * OMU), out_credit (to the LTS), out_last (CP), out_mem/in_mem (L2).
 * Counters: sim/units/counters.xml, <module class="Spc">; of its cycles_*
 * counters (the reason of every cycle, Reason) exactly one holds each
 * cycle: they add up to the statistics period.
 */
#pragma once

#include <algorithm>
#include <deque>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/common/unit.h"
#include "sim/units/gpc/spc/shader_profile.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class Program;
struct Instr;
struct ShaderResources;
struct StepResult;

class Spc final : public Unit {
 public:
   Spc(std::string name, const Config &p, ThreadGroupPool &pool);
   ~Spc() override;

   InPort<SpcTask> in_task{*this, "in_task", "thread groups and `last` tokens from the LTS"};
   OutPort<std::unique_ptr<VsGroup>> out_vs{*this, "out_vs", "finished VS groups to the GE"};
   OutPort<std::unique_ptr<FsGroup>> out_fs{*this, "out_fs", "finished FS groups to the OMU"};
   OutPort<Credit> out_credit{*this, "out_credit", "freed slot/registers to the LTS"};
   OutPort<LastReport> out_last{*this, "out_last", "`last` token reports to the CP"};
   MemClient mem{*this, "mem"};

   Activity tick(Cycle now) override;
   bool drained() const override;

   /** Resident thread groups. */
   unsigned resident() const;

   /** One issued instruction (tests and tools). */
   struct IssueRecord {
      Cycle cycle;
      uint32_t pc;      /**< unit address */
      uint32_t group;   /**< ThreadGroup::group_id */
      bool fragment;    /**< FS group */
      bool dual;        /**< both phases issued */
   };
   /** Record every issue into @log (nullptr: stop); costs one test per issue. */
   void set_issue_log(std::vector<IssueRecord> *log) { log_ = log; }
   /** Add this SPC's per-instruction figures to @profile (nullptr: stop;
    *  shader_profile.h); costs one test per issue and per cycle. */
   void set_profile(ShaderProfile *profile) { profile_ = profile; }
   /** Also charges the running stall of the profile up to @now. */
   void sync_counters(Cycle now) override;

 private:
   std::string state_report() const override;

   enum Reason : uint8_t { kIssue, kScoreboard, kMemory, kOutput, kEmpty, kTexture, kReasons };
   struct GsSink;
   /** Transaction ids, the first four without a heap allocation (host
    *  speed: most instructions wait for one or two). */
   class TxnList {
    public:
      void push_back(uint32_t t)
      {
         if (n_ < kInline) {
            in_[n_++] = t;
            return;
         }
         if (n_ == kInline)
            more_.assign(in_, in_ + kInline);
         more_.push_back(t);
         n_++;
      }
      const uint32_t *begin() const { return n_ <= kInline ? in_ : more_.data(); }
      const uint32_t *end() const { return begin() + n_; }
      bool empty() const { return n_ == 0; }
      uint32_t front() const { return *begin(); }

    private:
      static constexpr uint32_t kInline = 4;
      uint32_t in_[kInline] = {};
      uint32_t n_ = 0;
      std::vector<uint32_t> more_; /* all of them once there are more than kInline */
   };
   struct PendingMem {
      uint32_t txn;  /* first of `waits` (non-zero: pending) */
      TxnList waits; /* fills the instruction waits for */
      Cycle ready_min;
      uint8_t nwrites;
      uint8_t reg[4], mask[4];
   };
   /** An L1 fill in flight and the lines it brings. */
   struct Fill {
      uint32_t txn;
      std::vector<uint64_t> lines;
   };
   struct Slot {
      bool used = false;
      uint64_t age = 0;
      std::unique_ptr<VsGroup> vs;
      std::unique_ptr<FsGroup> fs;
      ThreadGroup *tg = nullptr;
      const Program *prog = nullptr;
      ProgramProfile *prof = nullptr; /* with a profile (set_profile): its program's */
      const ShaderResources *res = nullptr;
      DrawState *draw = nullptr;
      CsWorkgroup *wg = nullptr; /* a compute thread group: its workgroup */
      bool gs = false;           /* a geometry-shader group (vs->gs) */
      /* GS: the group's ShaderResources pointing at its output strips
       * (spc.cpp; shared_ptr: the type is complete only there) */
      std::shared_ptr<GsSink> gs_sink;
      Cycle bar_since = 0;       /* compute: cycle it reached MEM.BAR */
      uint64_t code = 0; /* VRAM byte address of the program's code */
      uint32_t reg_bytes = 0;
      Cycle start = 0;
      std::vector<Cycle> ready;     /* per register component: cycle it may be read */
      std::vector<Cycle> reg_ready; /* per register: >= its components' `ready` (their latest) */
      Cycle coord_ready[6] = {};
      int64_t next = -1;
      bool divergent = false;
      bool ended = false, dead = false;
      bool wait_mem = false; /* its next instruction reads a register a memory op fills */
      Cycle wait_until = 0;
      Cycle max_ready = 0;
      std::vector<PendingMem> pend;
      uint32_t ifetch_txn = 0;
      std::vector<uint64_t> ifetch_lines;
      uint64_t iline_ok = ~uint64_t(0);
      /* the scoreboard and the instruction fetch let instruction `next`
       * issue from cycle wait_until on (checked in an earlier cycle: the
       * slot lost to an older one, or its registers were due at a known
       * cycle): nothing but its own issue changes that */
      bool next_ok = false;
      uint64_t instructions = 0, lane_instructions = 0, dual = 0;

      /** The issue state of a group that becomes resident at @now (VS/FS
       *  accept, compute workgroups): not ended, no waits, no pending memory,
       *  counters zero; the caller sets what the group is. */
      void start_issue(Cycle now)
      {
         ended = false;
         wait_mem = false;
         divergent = false;
         start = now;
         wait_until = now + 1; /* dispatch takes the cycle */
         max_ready = 0;
         pend.clear();
         ifetch_txn = 0;
         iline_ok = ~uint64_t(0);
         next_ok = false;
         instructions = lane_instructions = dual = 0;
         std::fill(std::begin(coord_ready), std::end(coord_ready), Cycle(0));
      }
   };
   struct DrawTrack {
      DrawState *draw;
      uint32_t resident;
      bool last;
   };

   void accept(SpcTask t, Cycle now);
   DrawTrack &track(DrawState *d);
   bool ready_to_issue(Slot &s, Cycle now, Reason &why);
   bool check_next(Slot &s, Cycle now, Reason &why);
   void issue(Slot &s, Cycle now);
   void issue_lines(Slot &s, const Instr &in, Cycle now, bool mem_load = false,
                    Cycle tex_done = 0);
   /* the texture unit's filter rate (docs/simulator-texture.md "Filter rate") */
   bool waits_for_texture(const Slot &s, Cycle now) const;
   Cycle occupy_texture(uint32_t units, Cycle now);
   void issue_global_mem(Slot &s, const Instr &in, const StepResult &r, Cycle now);
   void post_writes(Slot &s, const std::vector<uint64_t> &lines, Cycle now);
   template <typename IsMemOp>
   Cycle note_writes(Slot &s, const Instr &in, Cycle now, Cycle min_at, PendingMem &pm,
                     IsMemOp is_mem_op);
   bool retire(Slot &s, Cycle now);
   /* compute workgroups (spc_compute.cpp) */
   void accept_workgroup(std::unique_ptr<CsWorkgroup> wg, Cycle now);
   void issue_cs_mem(Slot &s, const Instr &in, const StepResult &r, Cycle now);
   void issue_shared_mem(Slot &s, const Instr &in, const StepResult &r, Cycle now);
   void issue_atomic(Slot &s, const Instr &in, const StepResult &r, Cycle now);
   void plain_writes(Slot &s, const Instr &in, Cycle now, Cycle min_at);
   void cs_after_issue(Slot &s, Cycle now);
   bool wg_can_leave(const CsWorkgroup &wg, Cycle now) const;
   bool retire_workgroup(CsWorkgroup &wg);
   void complete_memory(Cycle now);
   void count(Reason r, Cycle now);
   /* the profile: the stall cycles from @now on go to instruction @at (nullptr: none) */
   void profile_stall(InstrProfile *at, StallReason r, Cycle now);
   /* the profile of @prog (stage 'v', 'g', 'f', 'c'); nullptr without a profile */
   ProgramProfile *profile_of(const std::shared_ptr<const Program> &prog, uint64_t code,
                              char stage);

   Config p_;
   ThreadGroupPool &pool_;
   uint32_t width_, line_bytes_, line_shift_;
   Reason reason_now_ = kEmpty; /* the reason counted since the last change */
   std::vector<Slot> slots_;
   std::vector<uint32_t> live_; /* indexes of the used slots, ascending */
   uint64_t age_ = 0;
   LineCache icache_, l1_;
   std::unique_ptr<StepResult> step_;
   std::vector<uint64_t> lines_;
   std::vector<Fill> fills_; /* a pending L1 line's fill: its way's `fill` */
   /* host speed: mem.completed() when complete_memory() last ran */
   uint64_t completed_seen_ = 0;
   /* host speed: the line lists of finished fills, reused by the next ones */
   std::vector<std::vector<uint64_t>> spare_lines_;
   std::deque<DrawTrack> draws_;
   std::vector<std::unique_ptr<CsWorkgroup>> wgs_; /* resident compute workgroups */
   Cycle issue_free_ = 0; /* a shared-memory access holds the issue until this cycle */
   std::vector<IssueRecord> *log_ = nullptr;
   ShaderProfile *profile_ = nullptr;
   InstrProfile *stall_at_ = nullptr; /* the profile's running stall charge, since stall_since_ */
   StallReason stall_reason_ = StallReason::Operand;
   Cycle stall_since_ = 0;
   /** The texture unit filters until this cycle; no texture instruction
    *  issues before it. */
   Cycle tex_free_ = 0;

   /** Statistics counters (counters.xml; count_.<key>). */
   SpcCounters count_{counter_registrar()};
   /** The counter of each Reason. */
   CycleCounter *reason_[kReasons] = {
      &count_.cycles_issue,       &count_.cycles_wait_scoreboard, &count_.cycles_wait_memory,
      &count_.cycles_output_full, &count_.cycles_empty,           &count_.cycles_wait_texture,
   };
   /** The bottleneck-report cause of each Reason (nullptr: none of its own;
    *  a full output is charged to whatever its consumer is doing). */
   CauseFlag *reason_cause_[kReasons] = {
      &add_cause_flag(Cause::SpcIssue),      &add_cause_flag(Cause::ShaderLatency),
      &add_cause_flag(Cause::MemoryLatency), nullptr,
      nullptr,                               &add_cause_flag(Cause::Texture),
   };
};

} // namespace vlgpu::sim
