/*
 * vlgpu cycle-mode GPU: the CP (command processor, seed 001 §3.2 and fig. 2).
 * docs/simulator-modules.md "CP".
 *
 * The CP reads the command queue from VRAM through the L2 (cp.prefetch_lines
 * lines ahead), decodes each command with the functional CP's decoder
 * (cp_decode_command, so both modes fault on the same queues with the same
 * reports) after cp.decode_cycles cycles, and:
 *  - DRAW: asks the host hooks (through the CycleGpu, between cycles),
 *    fetches draw_info, then pipe_state, both shader_states, framebuffer,
 *    vertex element/buffer arrays, texture/sampler arrays, then both global
 *    buffers (line requests through the L2), loads and validates the
 *    package (draw_state_load = load_draw_package + the stage states) and
 *    sends the draw to the GTS. Before sending it waits while
 *    cp.max_draws_in_flight draws are in the pipe, and while an earlier
 *    in-flight draw writes memory this draw reads or reads memory it writes
 *    (the draw interlock: the modules use VRAM functionally when they run,
 *    so a draw must not overtake one it depends on; same pixels as the
 *    functional GPU, which runs draws one after the other).
 *  - SYNC: waits until every module has reported the `last` token of every
 *    earlier draw, then writes the fence (cp_write_fence; a posted write
 *    through the L2 for the timing).
 *  - DUMP: waits like SYNC, has the L2 write back its dirty lines, copies
 *    the surface to the display (cp_dump_to_display, by the CycleGpu
 *    between cycles) and reads the copied bytes through the MC in 256-byte
 *    requests (bandwidth-limited).
 *  - DISPATCH: waits like SYNC, has the CycleGpu prepare the dispatch
 *    (Call::Dispatch: package, limits, host hook), sends it to the CE of
 *    every GPC (out_ce<g>), waits until every CE reported it done (in_ce<g>,
 *    all its workgroups left the SPCs) and has the CycleGpu finish its
 *    DispatchReport (Call::DispatchEnd). docs/simulator-modules.md "CE".
 *  - COPY (docs/hw.md "Copies"): fetches copy_info through the L2, checks
 *    it (cp_load_copy_info), waits while an earlier in-flight draw writes
 *    the copy_info block or the source span, or reads or writes the
 *    destination span (the draw interlock, with the draws' ranges plus
 *    their occlusion counter), performs the copy in VRAM (cp_run_copy) and
 *    hands it to the DMA engine (cp.dma, dma.h), which streams its lines
 *    through the L2; the CP reads no further command until the DMA engine
 *    reports it complete (copy_step; states Copy*).
 *  - HALT (or the end of the queue): waits like SYNC and stops the engine.
 * A malformed command is a CP fault; the rest of the queue is skipped (the
 * CP cannot know where the next command starts).
 *
 * The `last` token protocol: every draw-carrying module (GTS, GE, PE, LTS,
 * SPC, OMU) sends a LastReport to the CP when the draw's `last` token has
 * passed it (in draw order). A draw is complete when every reporter has
 * reported it; the CP then asks the CycleGpu to finish its DrawReport
 * (statistics, after_draw hook).
 */
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/func/cp/func_cp.h"
#include "sim/units/cp/dma.h"
#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */
#include "sim/core/config.h"

namespace vlgpu::sim {

class ProgramCache;

/**
 * One execute() call, shared by the CP module and the CycleGpu that runs
 * it. The CP asks for host interactions through `call`; the CycleGpu stops
 * the engine at the end of that cycle, services the call, clears it and
 * wakes the CP. Survives a pipeline reset (deadlock): the new CP resumes at
 * `next_offset`.
 */
struct SubmitState {
   enum class Call {
      None,
      DrawBegin,  /**< a DRAW was read: statistics snapshot, snapshot_draw() (-> snapshot), and
                       before_draw() unless snapshot */
      BeforeDraw, /**< a snapshot draw: the pipeline is drained, call before_draw() */
      DrawEnd,    /**< inflight.front() completed: DrawReport, after_draw() */
      Dump,       /**< DUMP `dump`: cp_dump_to_display (-> dump_bytes or a fault) */
      Dispatch,   /**< DISPATCH `dispatch` (pipeline drained): prepare it (-> dispatch_state) */
      DispatchEnd, /**< every CE reported dispatch_state done: its DispatchReport
                        (-> dispatch_mem_ops) */
   };

   Vram *vram = nullptr;
   GpuHost *host = nullptr;
   SubmitResult *result = nullptr;
   uint64_t queue_address = 0;
   uint32_t queue_dwords = 0;

   /** Dword offset of the first command not yet completed or in flight. */
   uint32_t next_offset = 0;
   /** DRAW commands read so far (index_in_queue of the next). */
   uint32_t draws = 0;
   /** DRAWs read and not yet completed, in queue order. */
   std::deque<DrawRef> inflight;
   /** HALT, the end of the queue or a malformed command was reached and
    *  every draw completed: execute() returns. */
   bool finished = false;

   Call call = Call::None;
   DrawRef call_draw;
   bool snapshot = false; /**< DrawBegin's answer */
   Command dump;          /**< Dump's command */
   uint32_t dump_offset = 0;
   uint64_t dump_bytes = 0; /**< Dump's answer: bytes copied (0 after a fault) */
   Command dispatch;        /**< Dispatch's command */
   uint32_t dispatch_offset = 0;
   uint32_t dispatches = 0;      /**< DISPATCH commands read so far (index_in_queue of the next) */
   uint64_t dispatch_mem_ops = 0; /**< DispatchEnd's answer: MEM ops issued */
   /** Dispatch's answer: the dispatch for the CEs (DrawState::compute set,
    *  or faulted); seq = its index in the queue. */
   DrawRef dispatch_state;
   /** watchdog.instructions_per_submit left (ShaderResources::
    *  submit_instructions_left); unused when the budget is 0 (off). */
   uint64_t instructions_left = 0;
   uint32_t copies = 0; /**< COPY commands read so far (index_in_queue of the next) */
};

class Cp final : public Unit {
 public:
   /**
    * @reporters: names of the modules that report `last` tokens (ports
    * in_last_<name>). @programs: decoded-program cache shared over draws.
    */
   Cp(std::string name, const Config &p, const std::vector<std::string> &reporters,
      ProgramCache &programs);

   OutPort<DrawCmd> out_draw{*this, "out_draw", "draws to the GTS"};
   std::vector<std::unique_ptr<OutPort<DispatchCmd>>> out_ce; /**< out_ce<g>: per GPC's CE */
   std::vector<std::unique_ptr<InPort<LastReport>>> in_ce;    /**< in_ce<g>: dispatch done */
   MemClient mem{*this, "mem"}; /**< command queue, package and fence through the L2 */
   MemClient mc{*this, "mc"};   /**< DUMP reads straight from the MC */
   OutPort<FlushReq> out_flush{*this, "out_flush", "L2 flush before DUMP"};
   InPort<FlushDone> in_flush{*this, "in_flush", "L2 flush complete"};
   OutPort<CopyJob> out_copy{*this, "out_copy", "COPY commands to the DMA engine"};
   InPort<CopyDone> in_copy_done{*this, "in_copy_done", "COPY commands the DMA engine completed"};

   /** Start (or resume) running @ss's queue at ss.next_offset. */
   void start(SubmitState &ss);

   Activity tick(Cycle now) override;
   bool drained() const override;
   std::string stall_report() const override;

 private:
   /* the CP's states; kStates (cp.cpp) has a row per state, in this order */
   enum class St {
      Idle,
      Fetch,       /* waiting for the command's dwords */
      Decode,      /* decode latency */
      HostWait,    /* a host call is pending */
      DrainBefore, /* snapshot draw: waiting for earlier draws */
      PkgInfo,     /* waiting for draw_info */
      PkgBlocks,   /* waiting for the blocks draw_info points to */
      PkgConsts,   /* waiting for the global buffers */
      Interlock,   /* waiting for a free slot / a conflicting draw */
      Send,        /* pushing the draw to the GTS */
      DrainAfter,  /* snapshot draw: waiting for it to complete */
      SyncWait,    /* SYNC/DUMP/HALT/end: waiting for every draw */
      FlushWait,   /* DUMP: waiting for the L2 flush */
      DumpRead,    /* DUMP: waiting for the MC reads */
      DispatchRun, /* DISPATCH: sent to the CEs, waiting for them (docs/simulator.md "Compute") */
      DispatchEnd, /* DISPATCH: the DispatchEnd call */
      Done,
      CopyInfo,  /* COPY: waiting for the copy_info lines */
      CopyOrder, /* COPY: waiting for conflicting earlier draws, or the DMA engine's queue */
      CopyRun,   /* COPY: waiting for the DMA engine */
   };

   /** What one state's handler did this cycle (step() turns it into the tick's Activity). */
   enum class Progress {
      Waiting, /* nothing: waits for an input (memory, `last` reports, the host, a draw) */
      Moved,   /* advanced: the cycle is busy */
      Blocked, /* an output queue (out_draw, out_flush) is full: the tick returns Stalled at
                  once, without sending this cycle's memory requests */
   };

   /** One row of kStates (cp.cpp), the table of the states. */
   struct StateRow {
      St st;
      Progress (Cp::*step)(); /* its handler (step() calls it once a cycle) */
      const char *waiting;    /* what the CP waits for in it (stall_report) */
   };
   static const StateRow kStates[];

   /** The state machine of one tick: the handler of the state (kStates). */
   Activity step(bool busy);
   Progress nothing_to_do();
   /* reading and decoding the queue */
   Progress fetch_command();
   Progress decode_command();
   void prefetch();
   void implicit_halt();
   void next_command();
   void fault(const GpuFault &f, uint32_t offset);
   /* DRAW */
   void draw_begin();
   Progress draw_begun();
   Progress snapshot_drain();
   void fetch_draw_info();
   Progress package_step();
   void fetch_package_blocks();
   void fetch_globals();
   void load_package();
   void fetch_range(uint32_t txn, uint64_t addr, uint64_t bytes);
   Progress enter_draw();
   bool draw_may_enter();
   bool interlocked(const DrawState &d) const;
   Progress send_draw();
   /* draw completion and the waits for it */
   void retire_draws();
   bool all_reported(uint32_t seq) const;
   bool draws_drained(size_t own);
   /* SYNC, DUMP, DISPATCH, HALT: after every earlier draw completed */
   Progress run_drained_command();
   void write_fence();
   Progress dump_begin();
   Progress dump_flushed();
   Progress dump_read();
   void dispatch_begin();
   Progress dispatch_run();
   Progress dispatch_end();
   void halt();
   void finish();
   /* COPY (cp_copy.cpp) */
   void copy_begin(Cycle now);
   Progress copy_step();
   bool copy_conflicts() const;
   void copy_end(Cycle now);

   Config p_;
   ProgramCache &programs_;
   uint32_t line_bytes_;
   SubmitState *ss_ = nullptr;
   St st_ = St::Idle;
   uint32_t off_ = 0; /* dword offset of the command being processed */
   Command cmd_;
   DrawRef draw_;
   uint32_t txn_ = 0;
   Cycle until_ = 0;
   /* command-queue prefetch: requested lines, in order */
   struct QLine {
      uint32_t txn;
      uint64_t end; /* byte address one past the line */
   };
   std::deque<QLine> qlines_;
   uint64_t q_requested_ = 0; /* byte address up to which lines were requested */
   uint64_t q_arrived_ = 0;   /* byte address up to which data arrived */

   struct Reporter {
      std::string name;
      std::unique_ptr<InPort<LastReport>> in;
      int64_t last = -1; /* highest draw seq reported in this submit */
   };
   std::vector<Reporter> reporters_;

   /** Statistics counters (counters.xml; count_.<key>). */
   CpCounters count_{counter_registrar()};
   bool w_interlock_ = false, w_full_ = false, w_drain_ = false; /* this tick's waits */
   uint64_t ce_sent_ = 0;  /* bit g: the dispatch was pushed to CE g */
   uint32_t ce_done_ = 0;  /* CEs that reported the dispatch done */
   /* the COPY being processed: its report (index in result->copies), its
    * copy_info as loaded when it arrived (ok: it loaded without a fault),
    * the memory it reads and writes (byte spans of its boxes) */
   size_t copy_rep_ = 0;
   bool copy_info_ok_ = false;
   VLG_COPY_INFO copy_ci_ = {};
   std::vector<MemRange> copy_reads_, copy_writes_;
};

} // namespace vlgpu::sim
