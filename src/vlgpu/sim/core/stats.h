/*
 * vlgpu simulator core: statistics snapshot (per module, per queue), as
 * JSON and as a text table. Made by Engine::stats(); reset per draw or frame
 * with Engine::reset_stats().
 */
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/queue.h"
#include "sim/core/types.h"

namespace vlgpu::sim {

/** One module over the statistics period. busy + stalled + starved + idle =
 *  the period's length in cycles. */
struct ModuleStatsSnapshot {
   std::string name;
   uint64_t ticks = 0;   /**< tick() calls (sleeping cycles are not ticks) */
   uint64_t busy = 0;    /**< cycles */
   uint64_t stalled = 0; /**< cycles */
   uint64_t starved = 0; /**< cycles */
   uint64_t idle = 0;    /**< cycles */
   /** Module-defined counters (Module::add_counter), in registration order. */
   std::vector<std::pair<std::string, uint64_t>> counters;

   /** Value of a counter; @throws std::out_of_range if absent. */
   uint64_t counter(std::string_view name) const;
};

/** One queue over the statistics period (see QueueStats). */
struct QueueStatsSnapshot {
   std::string name;
   QueueParams params;
   QueueStats stats;
};

/** Statistics of every module and queue over cycles [begin, end). */
struct Stats {
   Cycle begin = 0;
   Cycle end = 0;
   std::vector<ModuleStatsSnapshot> modules;
   std::vector<QueueStatsSnapshot> queues;
   /** The period's cycles by cause, {name, cycles} in priority order, adding
    *  up to cycles() (Engine::set_attribution; empty without one). */
   std::vector<std::pair<std::string, uint64_t>> causes;

   Cycle cycles() const { return end - begin; }
   /** By name; nullptr if absent. */
   const ModuleStatsSnapshot *module(std::string_view name) const;
   const QueueStatsSnapshot *queue(std::string_view name) const;

   /**
    * {"cycles": {"begin", "end", "count"},
    *  "modules": {name: {"ticks", "busy", "stalled", "starved", "idle",
    *                     "counters": {name: value}}},
    *  "queues": {name: {"capacity", "latency", "bandwidth", "pushes",
    *                    "pops", "avg_occupancy", "max_occupancy",
    *                    "full_cycles", "empty_cycles", "violations"}},
    *  "bottleneck": {cause: cycles}}  (only with causes; priority order)
    * Module and queue objects keep registration order.
    */
   nlohmann::ordered_json to_json() const;
   /** Human-readable tables (percentages of the period). */
   std::string to_text() const;
};

} // namespace vlgpu::sim
