/*
 * vlgpu simulator core: the GPU configuration.
 *
 * Every architectural parameter of the simulated GPU, with its default, its
 * range and its documentation, is one row of VLG_SIM_CONFIG_KEYS below: that
 * table generates the Config fields, the JSON reader/writer, the override
 * parser and Config::describe(); docs/simulator.md carries the same table
 * (checked by tests/sim/test_config.cpp).
 *
 * JSON layout: dotted keys are nested objects ("l2.size_bytes" is
 * {"l2": {"size_bytes": ...}}). Comments (// and block comments) are allowed.
 * Per-queue sizes: "queues": {"default": {...}, "<port or queue name>":
 * {"capacity": .., "latency": .., "bandwidth": ..}}.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.h"
#include "sim/core/queue.h"
#include "vlg_limits.h" /* VLG_NUM_REGS */

namespace vlgpu::sim {

/* X(c_type, field, "json.key", default, min, max, "documentation") */
#define VLG_SIM_CONFIG_KEYS(X)                                                                     \
   X(uint32_t, gpcs, "gpcs", 1, 1, 64,                                                             \
     "Graphics processing clusters (GPC = GE + PE + LTS + SPCs + OMU) behind the GTS "             \
     "(seed 001 fig. 2).")                                                                         \
   X(uint32_t, spcs_per_gpc, "spcs_per_gpc", 4, 1, 64,                                             \
     "Stream processor clusters (SPC) per GPC; each runs VL-IW shader code for thread groups.")    \
   X(uint32_t, thread_group_width, "thread_group_width", 16, 4, 256,                               \
     "Lanes (threads) per thread group, executed in lock-step; a multiple of 4 because fragment "  \
     "thread groups are made of 2x2 quads (16 lanes = 4 quads).")                                  \
   X(uint32_t, thread_groups_per_spc, "thread_groups_per_spc", 8, 1, 256,                          \
     "Thread groups resident in one SPC at a time; the LTS dispatches a thread group only to an "  \
     "SPC with a free slot.")                                                                      \
   X(uint32_t, shared_memory_bytes, "spc.shared_memory_bytes", 32768, 16384, 16777216,             \
     "Shared memory of one SPC in bytes (compute shaders: a workgroup's compute_info.shared_size " \
     "must fit; GL ES 3.1 MAX_COMPUTE_SHARED_MEMORY_SIZE is at least 16384). A workgroup also "    \
     "needs ceil(invocations / thread_group_width) <= thread_groups_per_spc.")                     \
   X(uint32_t, spc_register_file_bytes, "spc.register_file_bytes", 65536, 1024, 1073741824,        \
     "Bytes of vec4 registers in one SPC, shared by its resident thread groups: a group needs "    \
     "num_regs x thread_group_width x 16 bytes (64 KiB = 8 groups of 16 lanes x 32 registers).")   \
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
     "after the larger of this and the op's latency in the ISA table).")                           \
   X(uint32_t, spc_tex_bilinear_per_cycle, "spc.tex_bilinear_per_cycle", 4, 1, 256,                \
     "Bilinear samples the texture unit of one SPC filters per cycle: a texture instruction "      \
     "holds it ceil(units / rate) cycles, the units from the texture unit (1 per lane and level "  \
     "filtered, 2 for a LINEAR 3D level; trilinear = 2, TXF = 1; docs/simulator-texture.md "       \
     "\"Filter rate\"). Model default after a 4-texture-unit SM (NVIDIA GF100 whitepaper: 4 "      \
     "texture units per SM, one bilinear sample each per clock).")                                \
   X(uint32_t, cp_max_draws_in_flight, "cp.max_draws_in_flight", 4, 1, 64,                         \
     "DRAW commands the CP lets into the pipeline before the oldest has completed (1: no "         \
     "overlap between draws). A draw that reads memory an in-flight draw writes (or writes "       \
     "memory it reads) waits for it regardless (the CP's draw interlock).")                        \
   X(uint32_t, cp_prefetch_lines, "cp.prefetch_lines", 4, 1, 64,                                   \
     "Command-queue lines (of l2.line_bytes) the CP keeps requested ahead of the command it "      \
     "decodes.")                                                                                   \
   X(uint32_t, cp_decode_cycles, "cp.decode_cycles", 1, 1, 1000,                                   \
     "Cycles the CP spends decoding one command once its dwords are in.")                          \
   X(uint32_t, cp_dma_lines_in_flight, "cp.dma_lines_in_flight", 64, 1, 4096,                      \
     "Source-line reads (of l2.line_bytes) the CP's DMA engine keeps outstanding at the L2 "       \
     "while it runs a COPY (docs/hw.md, Copies); with l2.mshrs they bound how much of the "        \
     "memory latency a copy hides. Model guess sized by Little's law as l2.mshrs (docs/hw.md "     \
     "\"Balanced defaults\"): a copy reads half its bytes, so 64 lines cover more than the "      \
     "32 x 102 / 64 = 51 needed to read at the whole default bandwidth.")                          \
   X(uint32_t, gts_sub_block_elements, "gts.sub_block_elements", 128, 1, 65536,                    \
     "Draw elements (indices or vertices) per vertex sub-block the GTS hands to a GE; vertex "     \
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
   X(uint32_t, omu_quads_per_cycle, "omu.quads_per_cycle", 1, 1, 16,                               \
     "Quads the OMU's early depth/stencil stage and its late stage (alpha, depth/stencil, "        \
     "blend, write) each process per cycle.")                                                      \
   X(uint32_t, omu_cache_bytes, "omu.cache_bytes", 16384, 256, 1073741824,                         \
     "Colour/depth/stencil cache of the OMU in bytes (lines of l2.line_bytes), write-back to "     \
     "the L2; flushed at the end of every draw. 16 KiB as GCN's render back-end colour cache "     \
     "(seed 002; its separate 4 KB depth cache is not modelled apart); it must hold the lines "    \
     "the groups of a full reorder buffer prefetch (omu.reorder_groups 64 x 2 lines of a "         \
     "16-lane group's 8x2 pixels x 2 surfaces x 64 B = 16 KiB), or they evict each other's "      \
     "half-written lines (docs/hw.md \"Balanced defaults\").")                                      \
   X(uint32_t, omu_cache_ways, "omu.cache_ways", 4, 1, 64, "Associativity of the OMU cache.")      \
   X(uint32_t, omu_reorder_groups, "omu.reorder_groups", 64, 1, 65536,                             \
     "FS thread groups the OMU's reorder buffer holds: the PE keeps at most this many groups "     \
     "between itself and the OMU's in-order retirement.")                                          \
   X(uint32_t, omu_clear_bytes_per_cycle, "omu.clear_bytes_per_cycle", 64, 1, 65536,               \
     "Bytes per cycle the OMU's clear engine moves for a CLEAR or RESOLVE draw: lines written "    \
     "(and read: masked depth/stencil clears, a resolve's samples) through the OMU cache and the " \
     "L2, so the MC bandwidth bounds it too.")                                                     \
   X(uint32_t, omu_clear_lines_in_flight, "omu.clear_lines_in_flight", 64, 1, 65536,               \
     "Lines the OMU's clear engine has in flight (read requested, not yet written): masked "       \
     "depth/stencil clears read each line first, resolves read the samples of each line they "    \
     "write; covers the L2/MC latency at the clear rate. Model guess sized by Little's law as "    \
     "l2.mshrs (docs/hw.md \"Balanced defaults\"): >= 51 lines read at 32 bytes per cycle.")       \
   X(uint32_t, shared_memory_banks, "spc.shared_memory_banks", 32, 1, 64,                          \
     "Banks of an SPC's shared memory, 4-byte words interleaved (bank = (byte offset / 4) mod "    \
     "banks). A MEM on shared memory takes as many issue cycles as the most distinct words one "   \
     "bank serves (same word: broadcast); docs/hw.md \"Compute\". 32 as GCN's LDS (seed 002).")    \
   X(uint32_t, shared_memory_latency_cycles, "spc.shared_memory_latency_cycles", 24, 1, 100000,   \
     "Cycles from the last issue cycle of a shared-memory load or atomic to its data being "       \
     "readable (model default, not from a seed; at least the op's ISA latency).")                  \
   X(uint32_t, vec4_registers_per_lane, "vec4_registers_per_lane", VLG_NUM_REGS, 1, VLG_NUM_REGS,  \
     "Registers R0..R(n-1) available to each lane, each a vec4 of 32-bit values (the stream "      \
     "buffer: 128 in seed 003; the ISA's 7-bit register numbers address at most 128). A shader "   \
     "needing more cannot be dispatched.")                                                         \
   X(uint64_t, l2_size_bytes, "l2.size_bytes", 262144, 1024, 1073741824,                           \
     "Capacity of the shared L2 cache in bytes (256 KiB). size / (ways * line_bytes) sets must "   \
     "be a power of two.")                                                                         \
   X(uint32_t, l2_ways, "l2.ways", 8, 1, 64, "Associativity of the L2 cache (ways per set).")      \
   X(uint32_t, l2_line_bytes, "l2.line_bytes", 64, 16, 4096,                                       \
     "L2 cache line size in bytes; a power of two.")                                               \
   X(uint32_t, l2_hit_latency_cycles, "l2.hit_latency_cycles", 20, 1, 100000,                      \
     "Cycles from a request entering the L2 to its data leaving it on a hit (model default, "      \
     "not from a seed).")                                                                          \
   X(uint32_t, l2_requests_per_cycle, "l2.requests_per_cycle", 2, 1, 64,                           \
     "Requests the L2 looks up per cycle, taken round-robin from its clients.")                    \
   X(uint32_t, l2_mshrs, "l2.mshrs", 64, 1, 4096,                                                  \
     "Lines the L2 can have outstanding at the MC (miss status holding registers); a further "     \
     "read miss waits. Model guess sized by Little's law (docs/hw.md \"Balanced defaults\"): "     \
     "reading at memory.bandwidth_bytes_per_cycle needs bandwidth x (latency + line / "           \
     "bandwidth) / line = 32 x 102 / 64 = 51 fills outstanding; 64 allow 40 bytes per cycle of "  \
     "reads at the default latency (10 at memory.latency_cycles=400).")                            \
   X(uint64_t, vram_size_bytes, "vram.size_bytes", 268435456, 1048576, 17179869184ull,             \
     "Size of the simulated VRAM in bytes (256 MiB): every buffer object, texture, shader "        \
     "binary and command queue lives in it. An access outside it is a GPU fault.")                 \
   X(uint32_t, memory_latency_cycles, "memory.latency_cycles", 100, 1, 100000,                     \
     "Cycles from the MC issuing a VRAM access to its data returning, excluding queueing "         \
     "(model default, not from a seed).")                                                          \
   X(uint32_t, memory_bandwidth_bytes_per_cycle, "memory.bandwidth_bytes_per_cycle", 32, 1, 65536, \
     "Bytes the MC moves to or from VRAM per cycle (model default, not from a seed).")             \
   X(uint32_t, memory_queue_entries, "memory.queue_entries", 16, 1, 4096,                          \
     "Requests the MC accepts that have not started their transfer yet; when full its input "      \
     "queues back up. Requests in their latency do not count: this bounds no Little's-law "       \
     "window, it only has to keep the bus fed (model guess: 16 transfers = 32 bus cycles of "      \
     "64-byte lines at 32 bytes per cycle; docs/hw.md \"Balanced defaults\").")                      \
   X(uint64_t, watchdog_instructions_per_thread_group, "watchdog.instructions_per_thread_group",   \
     1000000, 0, 1000000000000ull,                                                                 \
     "Instructions one thread group may issue (a VL-IW instruction counts 1, both phases) before " \
     "its draw or dispatch stops with a 'shader did not end' fault report; counted the same way "  \
     "in functional and cycle mode, so a shader faults in both or in neither. 0 disables it.")      \
   X(uint64_t, watchdog_instructions_per_submit, "watchdog.instructions_per_submit", 4294967296ull, \
     0, 1000000000000000ull,                                                                       \
     "Thread-group instructions one submit (command queue) may issue over all its draws and "      \
     "dispatches, in both modes; past it the draw or dispatch running faults ('submit budget "     \
     "exceeded') and so does every later one in the queue (SYNC and DUMP still run), instead of "  \
     "the host computing for hours. 0 disables it.")                                               \
   X(uint64_t, deadlock_window_cycles, "deadlock.window_cycles", 100000, 0, 1000000000000ull,      \
     "Cycles without progress (no queue push or pop, no busy module) after which Engine::run "     \
     "stops with a deadlock report; 0 disables this check (modules all asleep with work left "     \
     "are reported at once regardless).")                                                          \
   X(uint32_t, queue_default_capacity, "queues.default.capacity", 4, 1, 1048576,                   \
     "Entries per queue unless overridden (queues.<name>.capacity). A queue sustains bandwidth "   \
     "entries per cycle when capacity >= bandwidth * (latency + 1).")                              \
   X(uint32_t, queue_default_latency, "queues.default.latency", 1, 1, 1048576,                     \
     "Cycles from a push to the entry being readable, unless overridden "                          \
     "(queues.<name>.latency); at least 1.")                                                       \
   X(uint32_t, queue_default_bandwidth, "queues.default.bandwidth", 1, 1, 64,                      \
     "Pushes and pops allowed per cycle per queue, unless overridden (queues.<name>.bandwidth); "  \
     "seed 001: one write and one read per cycle.")

/** Per-queue override, "queues.<name>": unset fields keep the defaults. */
struct QueueOverride {
   std::optional<uint32_t> capacity;
   std::optional<uint32_t> latency;
   std::optional<uint32_t> bandwidth;
};

/** The configuration of one simulated GPU. Default-constructed = the
 *  documented defaults. */
struct Config {
#define VLG_SIM_CONFIG_FIELD(type, field, key, def, min, max, doc) type field = def;
   VLG_SIM_CONFIG_KEYS(VLG_SIM_CONFIG_FIELD)
#undef VLG_SIM_CONFIG_FIELD

   /** queues.<name> overrides, by queue name or by either end's port name
    *  ("cp.out_draw", "gts.in_draw" or "cp.out_draw->gts.in_draw"). */
   std::map<std::string, QueueOverride> queues;

   /** Description of one key of the table. */
   struct KeyInfo {
      const char *key;
      const char *type; /**< "uint32" or "uint64" */
      uint64_t def, min, max;
      const char *doc;
      uint64_t (*get)(const Config &);
      void (*set)(Config &, uint64_t);
   };
   /** The table, in documentation order. */
   static const std::vector<KeyInfo> &keys();

   /** Defaults, then the JSON file. @throws ConfigError (file:line:col for
    *  malformed JSON; key names for unknown keys, wrong types, ranges). */
   static Config load(const std::string &path);
   /** Apply a JSON document on top of this configuration; `origin` names it
    *  in messages. @throws ConfigError, leaving the configuration unchanged.
    *  Does not call validate(). */
   void merge_json_text(std::string_view text, std::string_view origin = "<config>");
   /** Apply an already parsed JSON object; `origin` names it in messages. */
   void merge_json(const nlohmann::json &j, std::string_view origin = "<config>");
   /**
    * Apply "key=value[,key=value...]" (e.g. "gpcs=2,spcs_per_gpc=8",
    * "queues.cp.out_draw.capacity=8"); integers are decimal or 0x-hex with
    * an optional K/M/G suffix (x1024). Whitespace around items is ignored.
    * @throws ConfigError naming the item, leaving the configuration
    * unchanged. Does not call validate().
    */
   void apply_overrides(std::string_view spec);
   /** Set one key from its text value. @throws ConfigError */
   void set(std::string_view key, std::string_view value);
   /** Value of a table key by name. @throws ConfigError for unknown keys */
   uint64_t get(std::string_view key) const;

   /** Cross-key rules (multiples, powers of two, bandwidth <= capacity).
    *  @throws ConfigError naming the keys. */
   void validate() const;

   /** Every key (defaults included) as nested JSON, in table order. */
   nlohmann::ordered_json to_json() const;
   std::string to_json_string() const;
   /** Write to_json_string() to `path`. @throws ConfigError on I/O error. */
   void write_json(const std::string &path) const;

   /** queues.default.* */
   QueueParams default_queue() const;
   /**
    * Parameters of the queue `queue_name` between ports `from` and `to`:
    * `base` with the fields of the matching overrides applied: producer
    * port's, then consumer port's, then the queue name's (the more specific
    * wins per field). `matched` receives the override names used.
    * @throws ConfigError if the result is invalid (naming the queue).
    */
   QueueParams queue_params(std::string_view queue_name, std::string_view from, std::string_view to,
                            const QueueParams &base,
                            std::vector<std::string> *matched = nullptr) const;

   /** Plain-text table of every key: name, type, default, range, doc. */
   static std::string describe();
   /** The same as a Markdown table (the one in docs/simulator.md). */
   static std::string describe_markdown();
};

/**
 * A range setting of decimal numbers: "LO-HI", "LO-" (HI = UINT64_MAX, no
 * end) and, when @single, "N" (N-N); HI > LO, or HI >= LO when @single (an
 * inclusive range, e.g. frames). Used by VLGPU_TRACE_CYCLES,
 * VLGPU_TRACE_FRAMES and VLGPU_CAPTURE_FRAMES. @throws ConfigError
 * "WHAT 'RANGE': expected EXPECTED" when malformed, or when a number does
 * not fit 64 bits.
 */
std::pair<uint64_t, uint64_t> parse_range(const std::string &range, bool single, const char *what,
                                          const char *expected);

} // namespace vlgpu::sim
