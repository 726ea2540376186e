/*
 * vlgpu simulator core: statistics output (JSON and text).
 */
#include "sim/core/stats.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace vlgpu::sim {

uint64_t
ModuleStatsSnapshot::counter(std::string_view n) const
{
   for (const auto &[k, v] : counters) {
      if (k == n)
         return v;
   }
   throw std::out_of_range(fmt::format("module '{}' has no counter '{}'", name, n));
}

const ModuleStatsSnapshot *
Stats::module(std::string_view n) const
{
   for (const ModuleStatsSnapshot &m : modules) {
      if (m.name == n)
         return &m;
   }
   return nullptr;
}

const QueueStatsSnapshot *
Stats::queue(std::string_view n) const
{
   for (const QueueStatsSnapshot &q : queues) {
      if (q.name == n)
         return &q;
   }
   return nullptr;
}

nlohmann::ordered_json
Stats::to_json() const
{
   nlohmann::ordered_json j;
   j["cycles"] = {{"begin", begin}, {"end", end}, {"count", cycles()}};
   nlohmann::ordered_json mods = nlohmann::ordered_json::object();
   for (const ModuleStatsSnapshot &m : modules) {
      nlohmann::ordered_json o;
      o["ticks"] = m.ticks;
      o["busy"] = m.busy;
      o["stalled"] = m.stalled;
      o["starved"] = m.starved;
      o["idle"] = m.idle;
      nlohmann::ordered_json c = nlohmann::ordered_json::object();
      for (const auto &[k, v] : m.counters)
         c[k] = v;
      o["counters"] = std::move(c);
      mods[m.name] = std::move(o);
   }
   j["modules"] = std::move(mods);
   nlohmann::ordered_json qs = nlohmann::ordered_json::object();
   for (const QueueStatsSnapshot &q : queues) {
      nlohmann::ordered_json o;
      o["capacity"] = q.params.capacity;
      o["latency"] = q.params.latency;
      o["bandwidth"] = q.params.bandwidth;
      o["pushes"] = q.stats.pushes;
      o["pops"] = q.stats.pops;
      o["avg_occupancy"] = q.stats.avg_occupancy();
      o["max_occupancy"] = q.stats.max_occupancy;
      o["full_cycles"] = q.stats.full_cycles;
      o["empty_cycles"] = q.stats.empty_cycles;
      o["violations"] = q.stats.violations;
      qs[q.name] = std::move(o);
   }
   j["queues"] = std::move(qs);
   return j;
}

static double
pct(uint64_t part, uint64_t whole)
{
   return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

std::string
Stats::to_text() const
{
   std::string s;
   auto out = std::back_inserter(s);
   const uint64_t n = cycles();
   fmt::format_to(out, "statistics for cycles {}..{} ({} cycles)\n\n", begin, end, n);

   size_t w = 6;
   for (const ModuleStatsSnapshot &m : modules)
      w = std::max(w, m.name.size());
   fmt::format_to(out, "{:<{}} {:>12} {:>7} {:>8} {:>8} {:>7}  (% of cycles)\n", "module", w,
                  "ticks", "busy", "stalled", "starved", "idle");
   for (const ModuleStatsSnapshot &m : modules) {
      fmt::format_to(out, "{:<{}} {:>12} {:>6.1f}% {:>7.1f}% {:>7.1f}% {:>6.1f}%\n", m.name, w,
                     m.ticks, pct(m.busy, n), pct(m.stalled, n), pct(m.starved, n), pct(m.idle, n));
      for (const auto &[k, v] : m.counters)
         fmt::format_to(out, "{:<{}}   {} = {}\n", "", w, k, v);
   }

   if (!queues.empty()) {
      size_t qw = 5;
      for (const QueueStatsSnapshot &q : queues)
         qw = std::max(qw, q.name.size());
      fmt::format_to(out, "\n{:<{}} {:>5} {:>4} {:>3} {:>12} {:>8} {:>4} {:>7} {:>7} {:>5}\n",
                     "queue", qw, "cap", "lat", "bw", "pushes", "avg occ", "max", "full", "empty",
                     "viol");
      for (const QueueStatsSnapshot &q : queues) {
         fmt::format_to(
            out, "{:<{}} {:>5} {:>4} {:>3} {:>12} {:>8.2f} {:>4} {:>6.1f}% {:>6.1f}% {:>5}\n",
            q.name, qw, q.params.capacity, q.params.latency, q.params.bandwidth, q.stats.pushes,
            q.stats.avg_occupancy(), q.stats.max_occupancy,
            pct(q.stats.full_cycles, q.stats.cycles), pct(q.stats.empty_cycles, q.stats.cycles),
            q.stats.violations);
      }
   }
   return s;
}

} // namespace vlgpu::sim
