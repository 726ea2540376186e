/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_STATS_H
#define VLG_STATS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vlg_stats;

/** What the driver knows of each DRAW it queued, for the statistics
 *  (vlg_stats.h): the simulator's report says how it went. */
struct vlg_draw_record {
   uint8_t kind;         /**< enum vlg_draw_kind */
   uint8_t prim;         /**< enum pipe_prim_type (PRIMITIVES only) */
   uint8_t index_size;   /**< bytes, 0 = not indexed */
   uint32_t count;       /**< vertices or indices */
   uint32_t instances;   /**< instance count */
   uint32_t vs_id, fs_id; /**< vlg_shader_state::id, 0 for CLEAR */
};


/**
 * Per-frame and per-draw statistics of the simulated GPU, from the report
 * of every submit (vlg_drm_get_stats_json: per draw cycles, counters of
 * every stage, per-module busy/stalled/starved cycles in cycle mode).
 *
 * @path   VLGPU_STATS: "FILE.csv" writes one row per frame to FILE.csv and
 *         one row per draw to FILE.draws.csv; "FILE.jsonl" writes one JSON
 *         object per frame (its draws included) per line; anything else is
 *         a directory that gets frames.csv and draws.csv (and, from the
 *         device, submit-NNNNNN.json and config.json).  NULL: no files.
 * @print  VLGPU_DEBUG=stats: one line per draw and per frame on stderr.
 * @for_queries  create it even without @path and @print: the driver
 *         queries (vlg_driver_query.cpp) read its totals.
 * @modules_json  vlg_drm_get_modules_json: the module counters of
 *         VLG_STATS_DRIVER_COUNTERS are summed by the modules' class.
 *
 * Frames end at flush_frontbuffer (SwapBuffers), or, for programs that
 * never present, at glFinish (vlg_context_flush with
 * PIPE_FLUSH_HINT_FINISH).  \return NULL when there is nothing to do (no
 * @path, no @print, not @for_queries), or (with the reason logged) when a
 * file cannot be created.
 */
struct vlg_stats *vlg_stats_create(const char *path, bool print, bool cycle_mode,
                                   bool for_queries, const char *modules_json);

/** Write what the current frame has so far (as a last frame) and close. */
void vlg_stats_destroy(struct vlg_stats *stats);

/** Add the report of one submit: @json from vlg_drm_get_stats_json, and
 *  what the driver queued for each of its DRAW commands (@records[i] is the
 *  i-th DRAW of the queue). */
void vlg_stats_add_submit(struct vlg_stats *stats, const char *json,
                          const struct vlg_draw_record *records,
                          unsigned num_records);

/** The statistics JSON vlg_stats_add_submit needs from the device: the
 *  whole report (vlg_drm_get_stats_json) for VLGPU_STATS=FILE.jsonl, the
 *  cheaper vlg_drm_get_draw_stats_json for the CSV tables. */
struct vlg_drm_device;
const char *vlg_stats_submit_json(const struct vlg_stats *stats,
                                  struct vlg_drm_device *dev);

/** End the current frame: write its row(s). */
void vlg_stats_end_frame(struct vlg_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* VLG_STATS_H */
