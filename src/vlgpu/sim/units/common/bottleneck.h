/*
 * vlgpu cycle-mode GPU: the causes of the bottleneck report, in priority
 * order (the one list: CycleGpu builds the CycleAttribution from it, the
 * modules name their flags by it, docs/simulator.md "Bottleneck report"
 * explains it).
 *
 * Every simulated cycle is charged to the first cause of this list that
 * holds in that cycle (sim/core/attribution.h), so the causes of a frame,
 * draw or submit add up to its cycles. The order is top-down:
 *  1. throughput limits, downstream first: a resource working at its
 *     configured rate while more work waits for it (the memory system, then
 *     the fixed-function engines, texture and issue);
 *  2. units that work without a backlog (the PE, LTS, GE, CE, CP/GTS);
 *  3. latencies: nothing works at its limit and something waits for memory
 *     or for a result;
 *  4. "pipeline": a command is in flight but no cause above holds (queue
 *     transit, a unit blocked by a full output whose consumer is not at its
 *     limit); "idle": the CP has nothing to do.
 * A cause high in the list wins a cycle in which several hold: a cycle in
 * which the MC's bus has a backlog is a bandwidth cycle even if an SPC
 * issued in it.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vlgpu::sim {

/* X(id, "name", "what holds") in priority order. */
#define VLG_BOTTLENECK_CAUSES(X)                                                                   \
   X(McBandwidth, "mc_bandwidth",                                                                  \
     "the MC's VRAM bus is transferring and another request waits for it "                        \
     "(memory.bandwidth_bytes_per_cycle)")                                                         \
   X(L2Mshrs, "l2_mshrs",                                                                          \
     "an L2 read miss waits for a free MSHR, or the L2 holds requests back because its queue to "  \
     "the MC is long (l2.mshrs)")                                                                  \
   X(L2Lookups, "l2_lookups",                                                                      \
     "the L2 looked up l2.requests_per_cycle requests and more are waiting")                       \
   X(Clear, "clear",                                                                               \
     "the OMU's clear engine is moving a CLEAR or RESOLVE's lines (omu.clear_bytes_per_cycle)")    \
   X(Copy, "copy", "the CP's DMA engine is running a COPY (cp.dma_lines_in_flight)")               \
   X(OmuQuads, "omu_quads",                                                                        \
     "the OMU's early or late stage is processing quads at omu.quads_per_cycle and its next run "  \
     "or thread group is already waiting")                                                         \
   X(Texture, "texture",                                                                           \
     "an SPC's thread group waits for the SPC's texture unit, busy with an earlier instruction "   \
     "(spc.tex_bilinear_per_cycle)")                                                               \
   X(SpcIssue, "spc_issue", "an SPC issued an instruction (one per SPC per cycle)")                \
   X(Pe, "pe", "the PE is busy: primitive assembly, clipping, culling, setup, rasterisation")      \
   X(Lts, "lts", "the LTS is busy: thread-group dispatch to the SPCs")                            \
   X(Ge, "ge", "the GE is busy: index and attribute fetch, vertex reuse, VS/GS thread groups")     \
   X(Ce, "ce", "a CE is busy: compute workgroups to the LTS")                                     \
   X(Cp, "cp", "the CP or the GTS is busy: command fetch and decode, draw distribution")           \
   X(OmuMemory, "omu_memory",                                                                      \
     "the OMU's next run or group waits for its colour/depth lines from the L2")                  \
   X(MemoryLatency, "memory_latency",                                                              \
     "an SPC's thread groups wait for memory (LDB, texture or global lines), or the L2 has a "     \
     "fill outstanding at the MC")                                                                 \
   X(ShaderLatency, "shader_latency",                                                              \
     "an SPC's thread groups wait for results of their earlier instructions (scoreboard)")         \
   X(Pipeline, "pipeline",                                                                         \
     "the CP has a command in flight, no cause above holds: work in transit between units, or a "  \
     "unit waiting for a full output whose consumer is not at its limit")                          \
   X(Idle, "idle", "the CP has nothing to do (no cause above holds)")

enum class Cause : uint32_t {
#define VLG_BOTTLENECK_ENUM(id, name, doc) id,
   VLG_BOTTLENECK_CAUSES(VLG_BOTTLENECK_ENUM)
#undef VLG_BOTTLENECK_ENUM
};

/** The cause's name ("mc_bandwidth"). */
const char *cause_name(Cause c);
/** Every cause name, in priority order (CycleAttribution's list). */
std::vector<std::string> cause_names();
/** The list as a markdown table (| # | cause | holds when |), one row per
 *  cause in priority order: docs/simulator.md "Bottleneck report" holds it
 *  between markers (a test keeps it up to date). */
std::string causes_markdown();

} // namespace vlgpu::sim
