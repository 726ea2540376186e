/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Key names of the statistics JSON of a submit (vlg_drm_get_stats_json,
 * vlg_drm_get_draw_stats_json in vlgpu_drm.h) that the driver reads, in one
 * place for both sides: the simulator writes them (src/vlgpu/sim/core/
 * gpu.cpp draw_stats_json/draw_report_json, sim/core/stats.cpp
 * Stats::to_json, sim/device/device.cpp stats_json) and the driver's
 * statistics tables read them (src/gallium/drivers/vlgpu/vlg_stats.cpp), so
 * a key renamed here is renamed for both. The layout of the JSON is in
 * docs/driver.md "Statistics" and docs/simulator.md "Statistics"; keys only
 * the JSON's readers see (JSONL output, replay, the dump) are written where
 * they are made.
 *
 * C++17 (both sides that use it are C++); constants, no code.
 */
#pragma once

namespace vlgpu::stats_key {

/* ---- the submit (device.cpp stats_json) -------------------------------- */
constexpr const char submit[] = "submit"; /**< submit number, from 0 */
constexpr const char cycles[] = "cycles"; /**< simulated cycles (0 in functional mode) */
constexpr const char draws[] = "draws";   /**< array of draw reports */
constexpr const char stats[] = "stats";   /**< the submit's engine statistics */

/* ---- a draw report (gpu.cpp draw_report_json, device.cpp) --------------- */
constexpr const char draw[] = "draw";                     /**< draw number over the device's life */
constexpr const char index_in_queue[] = "index_in_queue"; /**< command index in the queue */
constexpr const char counters[] = "counters"; /**< the draw's counters (draw_stats_json) */
constexpr const char modules[] = "modules";   /**< engine statistics (Stats::to_json), and
                                                   in them the per-module object */
constexpr const char fault[] = "fault";       /**< null, or {module, report} */

/* ---- engine statistics (stats.cpp Stats::to_json) ----------------------- */
constexpr const char bottleneck[] = "bottleneck"; /**< {cause: cycles}, priority order */
constexpr const char queues[] = "queues";         /**< per-queue statistics */
/** A module's cycle counts (Stats::to_json, and what vlg_drm_get_draw_stats_json
 *  keeps of a module): X(name) per key, in the order written. */
#define VLG_STATS_MODULE_CYCLE_KEYS(X) X(ticks) X(busy) X(stalled) X(starved) X(idle)
#define VLG_STATS_KEY_(name)           constexpr const char name[] = #name;
VLG_STATS_MODULE_CYCLE_KEYS(VLG_STATS_KEY_)

/* ---- a draw's counters (gpu.cpp draw_stats_json) ------------------------ */
/* groups */
VLG_STATS_KEY_(ge)
VLG_STATS_KEY_(pe)
VLG_STATS_KEY_(vs)
VLG_STATS_KEY_(gs)
VLG_STATS_KEY_(fs)
VLG_STATS_KEY_(omu)
/* top level: bool, pixels */
VLG_STATS_KEY_(clear)
VLG_STATS_KEY_(clear_pixels)
/* in the groups: vs/fs invocations, instructions, dual_issued; ge primitives;
 * pe prims_culled, fragments; omu fragments_passed, fragments_killed */
VLG_STATS_KEY_(invocations)
VLG_STATS_KEY_(instructions)
VLG_STATS_KEY_(dual_issued)
VLG_STATS_KEY_(primitives)
VLG_STATS_KEY_(prims_culled)
VLG_STATS_KEY_(fragments)
VLG_STATS_KEY_(fragments_passed)
VLG_STATS_KEY_(fragments_killed)

/* ---- module counters the driver reads --------------------------------------
 * In the "counters" object of a module of a submit's "stats" (Stats::to_json),
 * X(module class, key) for each: the class and key of sim/units/counters.xml
 * (test SimUnitCounters.DriverReadsDescribedCounters checks them). */
#define VLG_STATS_DRIVER_COUNTERS(X)                                                               \
   X(Spc, l1_hits)                                                                                 \
   X(Spc, l1_misses)                                                                               \
   X(L2, read_hits)                                                                                \
   X(L2, read_misses)                                                                              \
   X(L2, read_merged)                                                                              \
   X(Mc, read_bytes)                                                                               \
   X(Mc, write_bytes)
#undef VLG_STATS_KEY_

} // namespace vlgpu::stats_key
