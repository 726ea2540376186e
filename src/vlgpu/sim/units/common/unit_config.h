/*
 * vlgpu cycle-mode GPU: the architectural parameters of the modules
 * (docs/simulator-modules.md "Configuration").
 *
 * The sim core's Config (sim/core/config.h) already holds the GPU's top-level
 * numbers (GPCs, SPCs per GPC, thread-group width, resident thread groups,
 * registers per lane, L2 size/ways/line/hit latency, memory latency and
 * bandwidth, watchdog, deadlock window, queue sizes). The modules need more
 * (rates, cache sizes, register file size, ...). The core's key table cannot
 * be extended from outside yet, so these keys live in their own table here,
 * in the same X-macro format, ready to be moved into VLG_SIM_CONFIG_KEYS.
 * Until then they are set with UnitParams::apply_overrides() — the cycle GPU
 * reads the environment variable VLGPU_UNITS_CONFIG ("pe.quads_per_cycle=2,
 * omu.cache_bytes=8K") — and written out with UnitParams::to_json().
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/config.h"

namespace vlgpu::sim {

/* X(c_type, field, "json.key", default, min, max, "documentation") */
#define VLG_UNIT_CONFIG_KEYS(X)                                                                    \
   X(uint32_t, cp_max_draws_in_flight, "cp.max_draws_in_flight", 4, 1, 64,                         \
     "DRAW commands the CP lets into the pipeline before the oldest has completed (1: no "         \
     "overlap between draws). A draw that reads memory an in-flight draw writes (or writes "       \
     "memory it reads) waits for it regardless (the CP's draw interlock).")                        \
   X(uint32_t, cp_prefetch_lines, "cp.prefetch_lines", 4, 1, 64,                                   \
     "Command-queue lines (of l2.line_bytes) the CP keeps requested ahead of the command it "      \
     "decodes.")                                                                                   \
   X(uint32_t, cp_decode_cycles, "cp.decode_cycles", 1, 1, 1000,                                   \
     "Cycles the CP spends decoding one command once its dwords are in.")                          \
   X(uint32_t, gts_sub_block_elements, "gts.sub_block_elements", 128, 1, 65536,                    \
     "Draw elements (indices or vertices) per vertex sub-block the GTS hands to a GE; vertex "      \
     "reuse (post-transform cache) works within a sub-block.")                                     \
   X(uint32_t, ge_sub_blocks_in_flight, "ge.sub_blocks_in_flight", 4, 1, 64,                       \
     "Sub-blocks a GE works on at once (fetching, shading, waiting for VS results); results "      \
     "leave in sub-block order.")                                                                  \
   X(uint32_t, pe_prim_cycles, "pe.prim_cycles", 1, 1, 1000,                                       \
     "PE cycles per assembled primitive (clip test, culling) before setup.")                       \
   X(uint32_t, pe_setup_cycles, "pe.setup_cycles", 1, 0, 1000,                                     \
     "PE cycles per triangle, line or point set up (after clipping and point/line expansion).")    \
   X(uint32_t, pe_quads_per_cycle, "pe.quads_per_cycle", 1, 1, 16,                                 \
     "2x2 quads the PE's rasteriser emits per cycle.")                                             \
   X(uint32_t, pe_tile_pixels, "pe.tile_pixels", 16, 2, 4096,                                      \
     "With several GPCs: side of the square screen tiles that are distributed over the GPCs "      \
     "(tile (tx, ty) belongs to GPC (tx + ty) mod gpcs); a power of two. Unused with one GPC.")    \
   X(uint32_t, spc_register_file_bytes, "spc.register_file_bytes", 65536, 1024, 1073741824,        \
     "Bytes of vec4 registers in one SPC, shared by its resident thread groups: a group needs "     \
     "num_regs x thread_group_width x 16 bytes (64 KiB = 8 groups of 16 lanes x 32 registers).")  \
   X(uint32_t, spc_icache_bytes, "spc.icache_bytes", 8192, 256, 1048576,                           \
     "Instruction cache per SPC, in bytes (lines of l2.line_bytes); a miss fetches the line "      \
     "through the L2 and stalls the thread group.")                                                \
   X(uint32_t, spc_icache_ways, "spc.icache_ways", 4, 1, 64, "Associativity of the SPC "           \
                                                             "instruction cache.")                 \
   X(uint32_t, spc_l1_bytes, "spc.l1_bytes", 16384, 256, 1073741824,                               \
     "Read-only L1 cache per SPC for texels and LDB buffer reads, in bytes (lines of "             \
     "l2.line_bytes).")                                                                            \
   X(uint32_t, spc_l1_ways, "spc.l1_ways", 4, 1, 64, "Associativity of the SPC L1 cache.")         \
   X(uint32_t, spc_l1_hit_latency_cycles, "spc.l1_hit_latency_cycles", 4, 1, 100000,               \
     "Cycles from a memory instruction's issue to its data on an L1 hit (the result is ready "     \
     "after the larger of this and the op's latency in the ISA table).")                          \
   X(uint32_t, omu_quads_per_cycle, "omu.quads_per_cycle", 1, 1, 16,                               \
     "Quads the OMU's early depth/stencil stage and its late stage (alpha, depth/stencil, "        \
     "blend, write) each process per cycle.")                                                      \
   X(uint32_t, omu_cache_bytes, "omu.cache_bytes", 4096, 256, 1073741824,                          \
     "Colour/depth/stencil cache of the OMU in bytes (lines of l2.line_bytes), write-back to "     \
     "the L2; flushed at the end of every draw.")                                                  \
   X(uint32_t, omu_cache_ways, "omu.cache_ways", 4, 1, 64, "Associativity of the OMU cache.")      \
   X(uint32_t, omu_reorder_groups, "omu.reorder_groups", 64, 1, 65536,                             \
     "FS thread groups the OMU's reorder buffer holds: the PE keeps at most this many groups "     \
     "between itself and the OMU's in-order retirement.")                                          \
   X(uint32_t, omu_clear_bytes_per_cycle, "omu.clear_bytes_per_cycle", 64, 1, 65536,               \
     "Bytes per cycle the OMU's clear engine writes for a CLEAR draw.")                            \
   X(uint32_t, l2_requests_per_cycle, "l2.requests_per_cycle", 2, 1, 64,                           \
     "Requests the L2 looks up per cycle, taken round-robin from its clients.")                    \
   X(uint32_t, l2_mshrs, "l2.mshrs", 32, 1, 4096,                                                  \
     "Lines the L2 can have outstanding at the MC (miss status holding registers); a further "     \
     "read miss waits.")                                                                           \
   X(uint32_t, memory_queue_entries, "memory.queue_entries", 16, 1, 4096,                          \
     "Requests the MC accepts that have not started their transfer yet; when full its input "      \
     "queues back up.")

/**
 * The module parameters of one cycle-mode GPU: the core Config (top-level
 * numbers) plus the table above. Default-constructed = documented defaults.
 */
struct UnitParams {
#define VLG_UNIT_CONFIG_FIELD(type, field, key, def, min, max, doc) type field = def;
   VLG_UNIT_CONFIG_KEYS(VLG_UNIT_CONFIG_FIELD)
#undef VLG_UNIT_CONFIG_FIELD

   /** The sim core's configuration (gpcs, l2.*, memory.*, ...). */
   Config core;

   UnitParams() = default;
   explicit UnitParams(const Config &c) : core(c) {}

   /** Description of one key of the table. */
   struct KeyInfo {
      const char *key;
      uint64_t def, min, max;
      const char *doc;
      uint64_t (*get)(const UnitParams &);
      void (*set)(UnitParams &, uint64_t);
   };
   static const std::vector<KeyInfo> &keys();

   /**
    * "key=value[,key=value...]" over this table (same syntax as
    * Config::apply_overrides: decimal or 0x-hex with optional K/M/G).
    * @throws ConfigError naming the item (unknown key with "did you mean",
    * malformed value, out of range), leaving the parameters unchanged.
    */
   void apply_overrides(std::string_view spec);

   /**
    * Cross-key rules, with the core Config's: thread_group_width 4..64 (the
    * SPC's thread groups hold at most 64 lanes), pe.tile_pixels a power of
    * two, a thread group of the widest shader fitting the register file is
    * checked at dispatch (a fault), not here. @throws ConfigError.
    */
   void validate() const;

   /** Every key of this table as nested JSON (defaults included). */
   nlohmann::ordered_json to_json() const;
   /** The table as Markdown (docs/simulator-modules.md). */
   static std::string describe_markdown();
};

} // namespace vlgpu::sim
