/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * What the driver's statistics add up (C++, vlg_stats.cpp and
 * vlg_driver_query.cpp): over a frame for the VLGPU_STATS rows, and over the
 * device's life for the driver queries (GALLIUM_HUD, AMD_performance_monitor),
 * which report the difference between the totals at end_query and at
 * begin_query.  docs/driver.md "Statistics" and "Driver queries".
 */
#ifndef VLG_STATS_SUMS_H
#define VLG_STATS_SUMS_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vlgpu_stats_keys.h"

namespace vlgpu::driver {

using json = nlohmann::ordered_json;

/** Sums of one module's cycles (cycle mode).  busy + stalled + starved +
 *  idle is the period the module was simulated over (docs/simulator.md
 *  "Statistics"); ticks counts tick calls, fewer when the module sleeps, so
 *  it is not the denominator of a fraction. */
struct ModuleSums {
#define VLG_FIELD(k) uint64_t k = 0;
   VLG_STATS_MODULE_CYCLE_KEYS(VLG_FIELD)
#undef VLG_FIELD
   uint64_t period() const { return busy + stalled + starved + idle; }
   /** @v cycles as a fraction of the period (0 for an empty period). */
   double fraction(uint64_t v) const { return period() ? double(v) / double(period()) : 0.0; }
   void add(const ModuleSums &o, int sign = 1)
   {
#define VLG_ADD(k) k += sign * o.k;
      VLG_STATS_MODULE_CYCLE_KEYS(VLG_ADD)
#undef VLG_ADD
   }
};

/** A bottleneck breakdown (the "bottleneck" object of the simulator's
 *  statistics, docs/simulator.md "Bottleneck report"): cycles per cause in
 *  the simulator's priority order; they add up to the period's cycles. */
struct Causes {
   std::vector<std::pair<std::string, uint64_t>> cycles;

   /** Add the cycles of another breakdown, cause by cause (@sign -1:
    *  subtract an earlier total of the same breakdown). */
   void add(const Causes &o, int sign = 1)
   {
      for (const auto &[k, v] : o.cycles) {
         auto it = std::find_if(cycles.begin(), cycles.end(),
                                [&k = k](const auto &c) { return c.first == k; });
         if (it == cycles.end())
            cycles.emplace_back(k, sign * v);
         else
            it->second += sign * v;
      }
   }

   void add(const json &b)
   {
      if (!b.is_object())
         return;
      size_t i = 0;
      for (const auto &[k, v] : b.items()) {
         const uint64_t n = v.is_number() ? v.get<uint64_t>() : 0;
         if (i < cycles.size() && cycles[i].first == k)
            cycles[i].second += n;
         else
            cycles.emplace_back(k, n); /* first use (same order every submit) */
         i++;
      }
   }
   uint64_t total() const
   {
      uint64_t t = 0;
      for (const auto &c : cycles)
         t += c.second;
      return t;
   }
   /** @v cycles as a fraction of the total (0 when there are none). */
   double fraction(uint64_t v) const
   {
      const uint64_t t = total();
      return t ? double(v) / double(t) : 0.0;
   }
   /** The cycles of cause @name (0 if absent). */
   uint64_t of(const std::string &name) const
   {
      for (const auto &c : cycles)
         if (c.first == name)
            return c.second;
      return 0;
   }
   /** The cause with the most cycles, nullptr if none has any. */
   const std::pair<std::string, uint64_t> *top() const
   {
      const std::pair<std::string, uint64_t> *t = nullptr;
      for (const auto &c : cycles)
         if (!t || c.second > t->second)
            t = &c;
      return t && t->second ? t : nullptr;
   }
   /** "omu_quads 61.2%, spc_issue 20.3%, pe 9.9%": the @n largest. */
   std::string text(size_t n) const
   {
      std::vector<std::pair<std::string, uint64_t>> v = cycles;
      std::stable_sort(v.begin(), v.end(),
                       [](const auto &a, const auto &b) { return a.second > b.second; });
      std::string s;
      char buf[96];
      for (size_t i = 0; i < v.size() && i < n && v[i].second; i++) {
         std::snprintf(buf, sizeof(buf), "%s%s %.1f%%", s.empty() ? "" : ", ", v[i].first.c_str(),
                       100.0 * fraction(v[i].second));
         s += buf;
      }
      return s;
   }
};

/**
 * Sums over a period of the simulator's per-submit reports (vlg_stats_add_submit).
 * Per draw (both modes): the counters of docs/driver.md "Statistics".  Cycle
 * mode, per submit (the whole queue: draws overlap, so their windows are not
 * added): each module's cycles, the module counters of
 * VLG_STATS_DRIVER_COUNTERS (field <Class>_<key>, e.g. Spc_l1_hits, summed over
 * the modules of that class) and the cycles by bottleneck cause.
 */
/* The counts of a Sums: submits, DRAW commands, CLEAR draws, cycles, draws
 * that faulted, vertices shaded, primitives, fragments, fragments passed, VS
 * and FS instructions issued, dual-issued instructions. */
#define VLG_SUMS_COUNTS(X)                                                                         \
   X(submits) X(draws) X(clears) X(cycles) X(faults) X(vertices) X(primitives) X(fragments)       \
   X(passed) X(vs_instr) X(fs_instr) X(dual)

struct Sums {
#define VLG_FIELD(k) uint64_t k = 0;
   VLG_SUMS_COUNTS(VLG_FIELD)
#undef VLG_FIELD
#define VLG_FIELD(cls, key) uint64_t cls##_##key = 0;
   VLG_STATS_DRIVER_COUNTERS(VLG_FIELD)
#undef VLG_FIELD
   std::map<std::string, ModuleSums> modules; /**< by module name ("gpc0.spc1") */
   Causes causes;

   /** Add @o (@sign -1: subtract @o, an earlier total of the same sums). */
   void add(const Sums &o, int sign = 1)
   {
#define VLG_ADD(k) k += sign * o.k;
      VLG_SUMS_COUNTS(VLG_ADD)
#undef VLG_ADD
#define VLG_ADD(cls, key) cls##_##key += sign * o.cls##_##key;
      VLG_STATS_DRIVER_COUNTERS(VLG_ADD)
#undef VLG_ADD
      for (const auto &[name, m] : o.modules)
         modules[name].add(m, sign);
      causes.add(o.causes, sign);
   }

   /** Dual-issued / issued instructions (VS and FS), 0 without any. */
   double dual_issue_rate() const
   {
      const uint64_t n = vs_instr + fs_instr;
      return n ? double(dual) / double(n) : 0.0;
   }
   /** L1 line hits / (hits + misses) of the SPCs' LDB and texture
    *  instructions (counters.xml Spc), 0 without any access. */
   double l1_hit_rate() const
   {
      const uint64_t n = Spc_l1_hits + Spc_l1_misses;
      return n ? double(Spc_l1_hits) / double(n) : 0.0;
   }
   /** L2 reads served from a valid line / all reads (hits, misses, and
    *  reads merged into a fill already under way: counters.xml L2), 0
    *  without any read. */
   double l2_hit_rate() const
   {
      const uint64_t n = L2_read_hits + L2_read_misses + L2_read_merged;
      return n ? double(L2_read_hits) / double(n) : 0.0;
   }
   /** Bytes the memory controller read from and wrote to VRAM. */
   uint64_t mc_bytes() const { return Mc_read_bytes + Mc_write_bytes; }
};

} // namespace vlgpu::driver

struct vlg_stats;
/** The sums over the device's life so far (a copy, taken under the
 *  statistics' lock): what the driver queries subtract. */
vlgpu::driver::Sums vlg_stats_totals(struct vlg_stats *stats);

#endif /* VLG_STATS_SUMS_H */
