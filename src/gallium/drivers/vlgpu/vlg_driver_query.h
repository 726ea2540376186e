/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Driver queries (vlg_driver_query.cpp): the simulated GPU's counters as
 * Gallium driver-specific queries, for GALLIUM_HUD and
 * GL_AMD_performance_monitor.  docs/driver.md "Driver queries".
 */
#ifndef VLG_DRIVER_QUERY_H
#define VLG_DRIVER_QUERY_H

#include <stdbool.h>

#include "pipe/p_defines.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pipe_context;
struct pipe_query;
struct pipe_screen;
struct pipe_driver_query_info;
struct pipe_driver_query_group_info;
struct vlg_screen;

/** pipe_screen::get_driver_query_info: @info NULL -> the number of queries;
 *  else fills @info for query @index and returns 1 (0: no such query). */
int vlg_get_driver_query_info(struct pipe_screen *pscreen, unsigned index,
                              struct pipe_driver_query_info *info);
/** pipe_screen::get_driver_query_group_info: the groups "vlgpu frame"
 *  (per-frame counters) and "vlgpu modules" (cycle mode: percentages of
 *  the modules' cycles), as get_driver_query_info. */
int vlg_get_driver_query_group_info(struct pipe_screen *pscreen, unsigned index,
                                    struct pipe_driver_query_group_info *info);

/** True for the query types of get_driver_query_info. */
bool vlg_is_driver_query(unsigned query_type);
/** create_query of a driver query: NULL (with a warning) for a type that
 *  is none, or when out of host memory. */
struct pipe_query *vlg_driver_query_create(struct pipe_context *pctx, unsigned query_type);
void vlg_driver_query_destroy(struct pipe_query *pq);
/** begin/end_query: flush the context, then read the totals. */
bool vlg_driver_query_begin(struct pipe_context *pctx, struct pipe_query *pq);
bool vlg_driver_query_end(struct pipe_context *pctx, struct pipe_query *pq);
/** get_query_result: always ready (submits are synchronous); result->u64
 *  for counts and bytes, result->f for percentages (FLOAT queries). */
bool vlg_driver_query_result(struct pipe_query *pq, union pipe_query_result *result);

/** Free the query list the screen made on first use. */
void vlg_driver_queries_destroy(struct vlg_screen *screen);

#ifdef __cplusplus
}
#endif

#endif /* VLG_DRIVER_QUERY_H */
