/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Driver queries: the simulated GPU's counters as Gallium driver-specific
 * queries (pipe_screen::get_driver_query_info / get_driver_query_group_info,
 * query types from PIPE_QUERY_DRIVER_SPECIFIC), so that GALLIUM_HUD graphs
 * them (GALLIUM_HUD=help lists them, GALLIUM_HUD_DUMP_DIR writes them) and
 * GL_AMD_performance_monitor reads them, as freedreno's fd_query.c and
 * radeonsi's si_query.c offer theirs.
 *
 * A query's value is the difference of the statistics' totals
 * (vlg_stats_sums.h, the same sums as the VLGPU_STATS frame rows) between
 * end_query and begin_query; both flush the context first, so the draws
 * queued before begin_query are outside and those queued before end_query
 * inside.  Submits are synchronous: a result is ready at end_query.
 * docs/driver.md "Driver queries" lists the queries.
 */

#include <algorithm>
#include <cctype>
#include <new>
#include <type_traits>
#include <string>
#include <vector>

#include "pipe/p_context.h"
#include "pipe/p_defines.h"
#include "pipe/p_screen.h"
#include "util/log.h"

#include "vlg_context.h"
#include "vlg_driver_query.h"
#include "vlg_screen.h"
#include "vlg_stats.h"
#include "vlg_stats_sums.h"
#include "vlgpu_drm.h"

using vlgpu::driver::json;
using vlgpu::driver::ModuleSums;
using vlgpu::driver::Sums;

namespace {

enum Group : unsigned { kFrameGroup, kModuleGroup };
const char *const kGroupNames[] = {"vlgpu frame", "vlgpu modules"};

/** Cycles of a module sum a module query reports as a percentage. */
enum class Part { Busy, Stalled, Starved };

/** One query: a frame counter (@value) or a module percentage (@modules
 *  summed, then @part over their period). */
struct QueryDef {
   std::string name;
   enum pipe_driver_query_type type;
   Group group;
   uint64_t (*count)(const Sums &d) = nullptr; /**< a count (not FLOAT) */
   double (*rate)(const Sums &d) = nullptr;    /**< a percentage (FLOAT) */
   std::vector<std::string> modules;           /**< a module query: their sum */
   Part part = Part::Busy;
};

/** A frame query whose value @f returns: a count, or a percentage. */
template <typename F>
QueryDef
frame_query(const char *name, enum pipe_driver_query_type type, F f)
{
   QueryDef d{name, type, kFrameGroup};
   if constexpr (std::is_floating_point_v<decltype(f(Sums{}))>)
      d.rate = f;
   else
      d.count = f;
   return d;
}

/* The frame group: X(name, type, value of the difference d). Percentages are
 * FLOAT (the HUD keeps three decimals of a float, an integer percentage
 * none). */
#define VLG_FRAME_QUERIES(X)                                                                       \
   X("vlgpu-cycles", PIPE_DRIVER_QUERY_TYPE_UINT64, d.cycles)                                      \
   X("vlgpu-submits", PIPE_DRIVER_QUERY_TYPE_UINT64, d.submits)                                    \
   X("vlgpu-draws", PIPE_DRIVER_QUERY_TYPE_UINT64, d.draws)                                        \
   X("vlgpu-clears", PIPE_DRIVER_QUERY_TYPE_UINT64, d.clears)                                      \
   X("vlgpu-vertices-shaded", PIPE_DRIVER_QUERY_TYPE_UINT64, d.vertices)                           \
   X("vlgpu-primitives", PIPE_DRIVER_QUERY_TYPE_UINT64, d.primitives)                              \
   X("vlgpu-fragments", PIPE_DRIVER_QUERY_TYPE_UINT64, d.fragments)                                \
   X("vlgpu-fragments-passed", PIPE_DRIVER_QUERY_TYPE_UINT64, d.passed)                            \
   X("vlgpu-vs-instructions", PIPE_DRIVER_QUERY_TYPE_UINT64, d.vs_instr)                           \
   X("vlgpu-fs-instructions", PIPE_DRIVER_QUERY_TYPE_UINT64, d.fs_instr)                           \
   X("vlgpu-dual-issue-rate", PIPE_DRIVER_QUERY_TYPE_FLOAT, 100.0 * d.dual_issue_rate())           \
   X("vlgpu-faults", PIPE_DRIVER_QUERY_TYPE_UINT64, d.faults)                                      \
   X("vlgpu-l1-hit-rate", PIPE_DRIVER_QUERY_TYPE_FLOAT, 100.0 * d.l1_hit_rate())                   \
   X("vlgpu-l2-hit-rate", PIPE_DRIVER_QUERY_TYPE_FLOAT, 100.0 * d.l2_hit_rate())                   \
   X("vlgpu-mc-bytes", PIPE_DRIVER_QUERY_TYPE_BYTES, d.mc_bytes())

const char *const kPartNames[] = {"busy", "stalled", "starved"};

/** "Spc" -> "spc" */
std::string
lower(std::string s)
{
   for (char &c : s)
      c = char(std::tolower(static_cast<unsigned char>(c)));
   return s;
}

/** Every query of the device: the frame counters, then per module class
 *  "vlgpu-PART-CLASS" (every module of the class) and, for a class of
 *  several modules, "vlgpu-PART-MODULE" per module, for PART busy, stalled,
 *  starved (cycle mode; the functional GPU has no modules). */
std::vector<QueryDef>
make_queries(const char *modules_json)
{
   std::vector<QueryDef> q;
#define VLG_DEF(name, type, expr)                                                                  \
   q.push_back(frame_query(name, type, [](const Sums &d) { return expr; }));
   VLG_FRAME_QUERIES(VLG_DEF)
#undef VLG_DEF
   std::vector<std::pair<std::string, std::vector<std::string>>> classes; /* in module order */
   try {
      for (const json &m : json::parse(modules_json)) {
         const std::string cls = lower(m.at("class").get<std::string>());
         const std::string name = m.at("name").get<std::string>();
         auto it = std::find_if(classes.begin(), classes.end(),
                                [&](const auto &c) { return c.first == cls; });
         if (it == classes.end())
            classes.push_back({cls, {name}});
         else
            it->second.push_back(name);
      }
   } catch (const std::exception &e) {
      mesa_loge("the device's module list is not valid JSON: %s", e.what());
   }
   for (unsigned p = 0; p < 3; p++) {
      for (const auto &[cls, names] : classes) {
         q.push_back({std::string("vlgpu-") + kPartNames[p] + "-" + cls,
                      PIPE_DRIVER_QUERY_TYPE_FLOAT, kModuleGroup, nullptr, nullptr, names,
                      Part(p)});
         if (names.size() > 1)
            for (const std::string &n : names)
               q.push_back({std::string("vlgpu-") + kPartNames[p] + "-" + n,
                            PIPE_DRIVER_QUERY_TYPE_FLOAT, kModuleGroup, nullptr, nullptr, {n},
                            Part(p)});
      }
   }
   return q;
}

using QueryList = std::vector<QueryDef>;

/** The queries of @screen, made on first use (under the device lock, which
 *  the module list needs too). Empty when out of memory. */
const QueryList &
queries(struct vlg_screen *screen)
{
   static const QueryList none;
   simple_mtx_lock(&screen->device_lock);
   if (!screen->driver_queries) {
      try {
         screen->driver_queries =
            new QueryList(make_queries(vlg_drm_get_modules_json(screen->dev)));
      } catch (const std::bad_alloc &) {
         mesa_loge("driver queries: out of host memory");
      }
   }
   const QueryList *q = static_cast<const QueryList *>(screen->driver_queries);
   simple_mtx_unlock(&screen->device_lock);
   return q ? *q : none;
}

/** The percentage @def reports over the difference @d (a rate or a module
 *  query). */
double
query_rate(const QueryDef &def, const Sums &d)
{
   if (def.rate)
      return def.rate(d);
   ModuleSums s;
   for (const std::string &n : def.modules) {
      auto it = d.modules.find(n);
      if (it != d.modules.end())
         s.add(it->second);
   }
   const uint64_t v = def.part == Part::Busy ? s.busy : def.part == Part::Stalled ? s.stalled
                                                                                  : s.starved;
   return 100.0 * s.fraction(v);
}

/** A driver query; `type` first, as in vlg_query.c's struct vlg_query, so
 *  that vlg_query.c can tell the two apart. */
struct DriverQuery {
   unsigned type;
   const QueryDef *def;
   Sums begin, end;
};

} // namespace

extern "C" {

int
vlg_get_driver_query_info(struct pipe_screen *pscreen, unsigned index,
                          struct pipe_driver_query_info *info)
{
   const QueryList &q = queries(vlg_screen(pscreen));
   if (!info)
      return int(q.size());
   if (index >= q.size())
      return 0;
   const QueryDef &d = q[index];
   info->name = d.name.c_str();
   info->query_type = PIPE_QUERY_DRIVER_SPECIFIC + index;
   /* No maximum (0): the HUD reads max_value as u64 and AMD_performance_
    * monitor a FLOAT's as float, so a percentage's 100 cannot be written for
    * both; the HUD scales its axis to the values (GALLIUM_HUD's c100
    * modifier fixes it at 100). */
   info->max_value.u64 = 0;
   info->type = d.type;
   info->result_type = PIPE_DRIVER_QUERY_RESULT_TYPE_AVERAGE;
   info->group_id = d.group;
   info->flags = 0;
   return 1;
}

int
vlg_get_driver_query_group_info(struct pipe_screen *pscreen, unsigned index,
                                struct pipe_driver_query_group_info *info)
{
   /* Only groups with queries: functional mode has no modules, and st/mesa's
    * AMD_performance_monitor fails on an empty group (performance_monitor.c
    * init_groups frees counter arrays it has not made yet). The frame group
    * is never empty and comes first, so group indices do not move. */
   const QueryList &q = queries(vlg_screen(pscreen));
   unsigned num_groups = 0;
   for (const QueryDef &d : q)
      num_groups = std::max(num_groups, unsigned(d.group) + 1);
   if (!info)
      return int(num_groups);
   if (index >= num_groups)
      return 0;
   unsigned n = 0;
   for (const QueryDef &d : q)
      n += d.group == index;
   info->name = kGroupNames[index];
   info->num_queries = n;
   info->max_active_queries = n; /* all at once: they only read totals */
   return 1;
}

bool
vlg_is_driver_query(unsigned query_type)
{
   return query_type >= PIPE_QUERY_DRIVER_SPECIFIC;
}

struct pipe_query *
vlg_driver_query_create(struct pipe_context *pctx, unsigned query_type)
{
   struct vlg_screen *screen = vlg_screen(pctx->screen);
   const QueryList &q = queries(screen);
   const unsigned index = query_type - PIPE_QUERY_DRIVER_SPECIFIC;
   if (index >= q.size()) {
      mesa_logw("driver query type %u does not exist (%zu queries)", query_type, q.size());
      return nullptr;
   }
   if (!vlg_screen_stats_for_queries(screen))
      return nullptr;
   try {
      return reinterpret_cast<struct pipe_query *>(new DriverQuery{query_type, &q[index], {}, {}});
   } catch (const std::bad_alloc &) {
      return nullptr;
   }
}

void
vlg_driver_query_destroy(struct pipe_query *pq)
{
   delete reinterpret_cast<DriverQuery *>(pq);
}

/* The totals once everything @pctx queued has run. */
static Sums
totals_after_flush(struct pipe_context *pctx)
{
   vlg_context_flush(vlg_context(pctx), NULL, 0);
   return vlg_stats_totals(vlg_screen(pctx->screen)->stats);
}

bool
vlg_driver_query_begin(struct pipe_context *pctx, struct pipe_query *pq)
{
   auto *dq = reinterpret_cast<DriverQuery *>(pq);
   dq->begin = dq->end = totals_after_flush(pctx);
   return true;
}

bool
vlg_driver_query_end(struct pipe_context *pctx, struct pipe_query *pq)
{
   reinterpret_cast<DriverQuery *>(pq)->end = totals_after_flush(pctx);
   return true;
}

bool
vlg_driver_query_result(struct pipe_query *pq, union pipe_query_result *result)
{
   const auto *dq = reinterpret_cast<const DriverQuery *>(pq);
   Sums d = dq->end;
   d.add(dq->begin, -1);
   if (dq->def->count)
      result->u64 = dq->def->count(d);
   else
      result->f = float(query_rate(*dq->def, d));
   return true;
}

void
vlg_driver_queries_destroy(struct vlg_screen *screen)
{
   delete static_cast<QueryList *>(screen->driver_queries);
   screen->driver_queries = nullptr;
}

} /* extern "C" */
