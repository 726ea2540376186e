/*
 * vlgpu simulator core: statistics output (JSON and text).
 */
#include "sim/core/stats.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vlgpu_stats_keys.h"

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

namespace {

/** The first entry of @v named @n, nullptr if none. */
template <typename T>
const T *
find_named(const std::vector<T> &v, std::string_view n)
{
   for (const T &e : v) {
      if (e.name == n)
         return &e;
   }
   return nullptr;
}

} // namespace

const ModuleStatsSnapshot *
Stats::module(std::string_view n) const
{
   return find_named(modules, n);
}

const QueueStatsSnapshot *
Stats::queue(std::string_view n) const
{
   return find_named(queues, n);
}

/* Append `value` under `key`, which the caller knows is new in `obj`: skips
 * ordered_map's linear key search (module, queue and counter names are
 * unique, see Engine::add and Module::add_counter). The object must have been
 * reserve()d for all its keys: ordered_map's keys are const strings, so a
 * reallocation copies every one of them. Same JSON as obj[key] = value. */
template <class V>
static void
append_new(nlohmann::ordered_json::object_t &obj, const std::string &key, V &&value)
{
   obj.std::vector<nlohmann::ordered_json::object_t::value_type>::emplace_back(
      key, std::forward<V>(value));
}

static nlohmann::ordered_json
new_object(size_t keys)
{
   nlohmann::ordered_json o = nlohmann::ordered_json::object();
   o.get_ref<nlohmann::ordered_json::object_t &>().reserve(keys);
   return o;
}

/** The key of a member of object_of(): a snapshot's name, a pair's first. */
template <class T>
static const std::string &
key_of(const T &e)
{
   return e.name;
}

static const std::string &
key_of(const std::pair<std::string, uint64_t> &e)
{
   return e.first;
}

static uint64_t
second(const std::pair<std::string, uint64_t> &e)
{
   return e.second;
}

/** An object with one member per element e of @v, in order: key_of(e) =
 *  @value_of(e) (the keys are unique: append_new). */
template <class T, class F>
static nlohmann::ordered_json
object_of(const std::vector<T> &v, F &&value_of)
{
   nlohmann::ordered_json j = new_object(v.size());
   auto &o = j.get_ref<nlohmann::ordered_json::object_t &>();
   for (const T &e : v)
      append_new(o, key_of(e), value_of(e));
   return j;
}

nlohmann::ordered_json
Stats::to_json() const
{
   /* Per draw in cycle mode (DrawReport::modules): built directly, without
    * operator[] lookups or reallocations (docs/perf/README.md). */
   using object_t = nlohmann::ordered_json::object_t;
   namespace K = vlgpu::stats_key;
   static const std::string k_begin = "begin", k_end = "end", k_count = "count",
                            k_ticks = K::ticks, k_busy = K::busy, k_stalled = K::stalled,
                            k_starved = K::starved, k_idle = K::idle, k_counters = "counters",
                            k_capacity = "capacity", k_latency = "latency",
                            k_bandwidth = "bandwidth", k_pushes = "pushes", k_pops = "pops",
                            k_avg = "avg_occupancy", k_max = "max_occupancy",
                            k_full = "full_cycles", k_empty = "empty_cycles",
                            k_viol = "violations", k_cycles = K::cycles, k_modules = K::modules,
                            k_queues = K::queues, k_bottleneck = K::bottleneck;
   nlohmann::ordered_json j = new_object(causes.empty() ? 3 : 4);
   object_t &jo = j.get_ref<object_t &>();
   nlohmann::ordered_json cyc = new_object(3);
   object_t &co = cyc.get_ref<object_t &>();
   append_new(co, k_begin, begin);
   append_new(co, k_end, end);
   append_new(co, k_count, cycles());
   append_new(jo, k_cycles, std::move(cyc));

   append_new(jo, k_modules, object_of(modules, [&](const ModuleStatsSnapshot &m) {
                 nlohmann::ordered_json o = new_object(6);
                 object_t &oo = o.get_ref<object_t &>();
                 append_new(oo, k_ticks, m.ticks);
                 append_new(oo, k_busy, m.busy);
                 append_new(oo, k_stalled, m.stalled);
                 append_new(oo, k_starved, m.starved);
                 append_new(oo, k_idle, m.idle);
                 append_new(oo, k_counters, object_of(m.counters, second));
                 return o;
              }));
   append_new(jo, k_queues, object_of(queues, [&](const QueueStatsSnapshot &q) {
                 nlohmann::ordered_json o = new_object(10);
                 object_t &oo = o.get_ref<object_t &>();
                 append_new(oo, k_capacity, q.params.capacity);
                 append_new(oo, k_latency, q.params.latency);
                 append_new(oo, k_bandwidth, q.params.bandwidth);
                 append_new(oo, k_pushes, q.stats.pushes);
                 append_new(oo, k_pops, q.stats.pops);
                 append_new(oo, k_avg, q.stats.avg_occupancy());
                 append_new(oo, k_max, q.stats.max_occupancy);
                 append_new(oo, k_full, q.stats.full_cycles);
                 append_new(oo, k_empty, q.stats.empty_cycles);
                 append_new(oo, k_viol, q.stats.violations);
                 return o;
              }));
   if (!causes.empty())
      append_new(jo, k_bottleneck, object_of(causes, second));
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

   if (!causes.empty()) {
      fmt::format_to(out, "\nbottleneck (each cycle charged to one cause, in priority order)\n");
      for (const auto &[k, v] : causes)
         if (v)
            fmt::format_to(out, "  {:<16} {:>12} {:>6.1f}%\n", k, v, pct(v, n));
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
