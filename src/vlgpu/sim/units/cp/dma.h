/*
 * vlgpu cycle-mode GPU: the CP's DMA engine (module "cp.dma"), which runs
 * the COPY command (docs/hw.md "Copies", docs/simulator-modules.md "CP",
 * seed 002: the command processor's DMA engine).
 *
 * The CP hands it one checked copy_info at a time (in_job) once the COPY is
 * ordered with the draws around it, after moving the bytes in VRAM itself
 * (cp_run_copy, the functional CP's copy: both modes give the same VRAM; the
 * L2 and MC are timing-only). The DMA engine streams the box through the L2
 * for the time it takes:
 *  - COPY: reads of every source line (whole l2.line_bytes lines, also at
 *    the box edges), at most cp.dma_lines_in_flight outstanding, on port
 *    out_rd/in_rd; posted writes of every destination line on port out_wr
 *    (write-allocate in the L2; the bytes reach the MC when the L2 evicts
 *    the line or is flushed). Destination line i is written once
 *    floor(lines read x destination lines / source lines) > i, i.e. the
 *    writes follow the returned reads in proportion.
 *  - FILL: only the destination writes.
 * Each port takes one line request per cycle. The job is complete when
 * every read has returned and the L2 has taken every write from out_wr;
 * the DMA engine then answers on out_done.
 *
 * Ports: in_job (CopyJob, from the CP), out_done (CopyDone, to the CP),
 * out_rd/in_rd and out_wr/in_wr (MemReq/MemResp, to and from the L2).
 * Counters: sim/units/counters.xml, <module class="Dma">.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "vlg_hw.h"

#include "sim/units/common/unit.h"
#include "sim/units/unit_counters.h" /* generated from counters.xml */

namespace vlgpu::sim {

/** CP -> DMA: run one checked copy_info (docs/hw.md "Copies"). */
struct CopyJob {
   VLG_COPY_INFO info = {};
   uint32_t id = 0; /**< the CP's number of the COPY (echoed in CopyDone) */
};

/** DMA -> CP: job @id is complete. */
struct CopyDone {
   uint32_t id = 0;
   uint64_t lines_read = 0, lines_written = 0;
};

/**
 * The line numbers (byte address / @line_bytes) a box touches, row by row
 * in the order the copy walks them (slices, then rows), a line repeated by
 * the next row (rows sharing a line) listed once. @src: the source box
 * (COPY only), else the destination box.
 */
std::vector<uint64_t> copy_box_lines(const VLG_COPY_INFO &ci, bool src, uint32_t line_bytes);

/**
 * The end of the tick of a unit whose outputs are two memory clients (the
 * CP: mem and mc; its DMA engine: rd and wr): sends the oldest queued
 * request of each (one per cycle), then classifies the cycle
 * (docs/simulator-modules.md "Activity"): Busy if @busy or a request left,
 * Idle if @idle (the unit has nothing to do), Stalled if a queued request
 * waits for a full port, else Starved.
 */
Activity mem_tick_end(bool busy, bool idle, MemClient &a, MemClient &b);

class Dma final : public Unit {
 public:
   Dma(std::string name, const Config &p);

   InPort<CopyJob> in_job{*this, "in_job", "COPY commands from the CP"};
   OutPort<CopyDone> out_done{*this, "out_done", "completed COPY commands (to the CP)"};
   MemClient rd{*this, "rd"}; /**< source line reads through the L2 */
   MemClient wr{*this, "wr"}; /**< destination line writes (posted) through the L2 */

   Activity tick(Cycle now) override;
   bool drained() const override;
   std::string stall_report() const override;

 private:
   bool start_job();
   bool issue();
   bool complete() const;

   uint32_t line_bytes_, max_in_flight_;
   bool active_ = false;
   CopyJob job_;
   std::vector<uint64_t> src_, dst_; /* line numbers */
   size_t reads_issued_ = 0, reads_done_ = 0, writes_issued_ = 0;
   std::deque<uint32_t> read_txns_; /* one per read line, in issue order */

   /** Statistics counters (counters.xml; count_.<key>). */
   DmaCounters count_{counter_registrar()};
};

} // namespace vlgpu::sim
