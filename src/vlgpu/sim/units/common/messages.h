/*
 * vlgpu cycle-mode GPU: what travels in the queues between the modules
 * (docs/simulator-modules.md "Ports and queues").
 *
 * Every message that belongs to a draw carries its DrawRef. A message with
 * `last` set is the draw's `last` token (seed 001 §3.2): it follows the
 * draw's work down the pipe; every module passes it on after the draw's
 * work and reports it to the CP (LastReport).
 *
 * Memory requests carry addresses and sizes only ("timing-only memory"):
 * the data is read or written functionally in VRAM when the functional unit
 * runs; the requests make the time it takes.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/func/pipe/gs_output.h"
#include "sim/func/pipe/pipe_types.h"
#include "sim/func/shader/thread_group.h"
#include "sim/units/common/draw_state.h"

namespace vlgpu::sim {

/* ---- memory ---------------------------------------------------------- */

/** A read or write of @bytes bytes at VRAM byte address @addr (a whole L2
 *  line from the caches; any size to the MC). @tag is the client's. */
struct MemReq {
   uint64_t addr = 0;
   uint32_t bytes = 0;
   uint32_t tag = 0;
   bool write = false;
};

/** The answer to a MemReq: its data arrived (read) or was taken (write, MC
 *  only: the L2 does not acknowledge writes; they are posted). */
struct MemResp {
   uint32_t tag = 0;
   bool write = false;
};

/** CP -> L2: write every dirty line back to VRAM (before DUMP). */
struct FlushReq {
   uint32_t tag = 0;
};
/** L2 -> CP: the flush is complete; @lines lines were written back. */
struct FlushDone {
   uint32_t tag = 0;
   uint32_t lines = 0;
};

/* ---- draw protocol ----------------------------------------------------- */

/** A module -> CP: "I passed the `last` token of draw @draw" (DrawState::seq). */
struct LastReport {
   uint32_t draw = 0;
};

/** CP -> GTS: one DRAW (its work and, implicitly, its `last` token). */
struct DrawCmd {
   DrawRef draw;
};

/** GTS -> GE: a vertex sub-block (elements [first, first + count) of
 *  @instance), or the draw's `last` token. */
struct GeTask {
   DrawRef draw;
   bool last = false;
   bool end_of_instance = false; /**< the instance's last sub-block */
   uint32_t instance = 0;
   uint32_t first = 0, count = 0;
};

/** A thread group the GE makes: a vertex-shader group (up to W distinct
 *  vertices of one GE sub-block), or, with @gs set, a geometry-shader group
 *  (up to W input primitives of one instance, in draw order; docs/hw.md
 *  "Geometry shaders"). The ThreadGroup travels GE -> LTS -> SPC -> GE. */
struct VsGroup {
   DrawRef draw;
   std::unique_ptr<ThreadGroup> tg;
   uint32_t block = 0;  /**< VS: GE sub-block id */
   uint32_t first = 0;  /**< VS: index of lane 0's vertex in the sub-block's vertex list */
   uint32_t lanes = 0;  /**< live lanes */
   bool skip = false;   /**< do not run (aborted draw, or a fault): pass back as is */
   /** GS group: the output strips its MEM.EMIT/CUT build on the SPC (begun
    *  for @lanes by the GE), null for a VS group. */
   std::unique_ptr<GsOutput> gs;
   uint64_t gs_seq = 0; /**< GS group: the GE's number for it (output order) */
};

/** One quad of a fragment thread group, with the primitive it belongs to. */
struct FsQuad {
   Quad q;
   int32_t run_x = 0, run_y = 0; /**< first quad of its rasterisation run (Z16 path) */
   uint8_t mask = 0;             /**< covered lanes still alive after the early tests */
   std::shared_ptr<const PrimSetup> setup;
};

/** A fragment-shader thread group of up to W/4 quads, numbered per GPC in
 *  rasterisation order (@seq). Travels PE -> LTS -> SPC -> OMU. */
struct FsGroup {
   DrawRef draw;
   std::unique_ptr<ThreadGroup> tg;
   uint64_t seq = 0;
   unsigned nquads = 0;
   bool skip = false;
   FsQuad quads[kMaxLanes / 4];
};

/* ---- compute (docs/simulator-modules.md "CE") -------------------------- */

/** CP -> every CE: run DISPATCH @dispatch (DrawState::compute set, or
 *  faulted: then nothing to run, only the report back). */
struct DispatchCmd {
   DrawRef dispatch;
};

/** One workgroup of a dispatch, CE -> LTS -> SPC: its thread groups (all
 *  resident on one SPC together), its shared memory (zeroed) and its
 *  ShaderResources (the dispatch's, with this workgroup's id and shared
 *  memory). The SPC keeps it while its thread groups run. */
struct CsWorkgroup {
   CsWorkgroup();
   ~CsWorkgroup(); /* spc_compute.cpp: ShaderResources is complete there */
   DrawRef dispatch;
   uint64_t index = 0; /**< workgroup number in the grid, x fastest */
   uint32_t ce = 0;    /**< GPC of the CE that formed it (the done report goes back there) */
   std::vector<std::unique_ptr<ThreadGroup>> tgs;
   std::vector<uint32_t> shared;
   std::unique_ptr<ShaderResources> res;
   uint32_t reg_bytes = 0; /**< register file charged for all its thread groups (at most one
                                SPC's spc.register_file_bytes: a bigger one runs alone) */
};

/** GE/PE -> LTS -> SPC: a thread group to run, or a draw's `last` token
 *  (@last_of set, nothing else); CE -> LTS -> SPC: a compute workgroup
 *  (@cs). */
struct SpcTask {
   std::unique_ptr<VsGroup> vs;
   std::unique_ptr<FsGroup> fs;
   std::unique_ptr<CsWorkgroup> cs;
   DrawRef last_of;
};

/** Resources given back: SPC -> LTS, a thread group (or a compute
 *  workgroup: @slots thread groups, @shared_bytes of shared memory,
 *  @workgroup set) left the SPC and its slots and @amount register bytes
 *  are free; OMU -> PE, @amount FS groups were retired (reorder-buffer
 *  entries); LTS -> CE, a workgroup the CE formed completed. */
struct Credit {
   uint32_t amount = 0;
   uint32_t slots = 1;
   uint32_t shared_bytes = 0;
   bool workgroup = false;
   uint32_t ce = 0; /**< @workgroup: the CE it came from */
};

/** The shaded vertices of one sub-block in draw order (GE -> every PE). */
struct VertexBatch {
   static constexpr uint32_t kRestart = ~0u;
   DrawRef draw;
   bool last = false;            /**< the draw's `last` token: nothing else is valid */
   bool skip = false;            /**< aborted draw: no vertices */
   bool end_of_instance = false; /**< the primitive assembler restarts after this batch */
   uint32_t instance = 0;
   unsigned floats = 0;          /**< floats per vertex (VertexLayout) */
   std::vector<uint32_t> elems;  /**< per element: vertex number in this batch, or kRestart */
   std::vector<float> vdata;     /**< vertices, `floats` each */
   std::vector<uint32_t> clipmask;
};
using BatchRef = std::shared_ptr<const VertexBatch>;

/** One rasterisation run (up to 8 quads of one primitive), PE -> OMU (early
 *  tests) -> PE (FS thread-group packing); or the draw's `last` token. */
struct QuadRun {
   DrawRef draw;
   bool last = false;
   uint8_t n = 0;
   int32_t run_x = 0, run_y = 0;
   Quad q[8];
   std::shared_ptr<const PrimSetup> setup;
};

/** PE -> OMU: the FS thread groups of @draw end before sequence number
 *  @end_seq (the OMU's late stage finishes the draw there). */
struct DrawMark {
   DrawRef draw;
   uint64_t end_seq = 0;
};

} // namespace vlgpu::sim
