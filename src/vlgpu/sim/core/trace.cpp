/*
 * vlgpu simulator core: Chrome/Perfetto Trace Event Format writer.
 * Format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
 */
#include "sim/core/trace.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.h"
#include "sim/core/queue.h"
#include "sim/core/stats.h"

namespace vlgpu::sim {

static constexpr int kModulePid = 1;
static constexpr int kQueuePid = 2;
static constexpr int kCommandPid = 3;
static constexpr int kCounterPid = 4;
/* what ends the file: the traceEvents array and the top-level object */
static constexpr std::string_view kFileEnd = "\n]}\n";

static std::string
json_quoted(std::string_view s)
{
   return nlohmann::json(std::string(s)).dump();
}

Tracer::Tracer(const std::string &path, const TraceOptions &opts) : path_(path), opts_(opts)
{
   f_ = std::fopen(path.c_str(), "w");
   if (!f_)
      throw ConfigError(
         fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));
   seekable_ = std::fseek(f_, 0, SEEK_CUR) == 0;
   buf_ = "{\"otherData\":{\"vlgpu_time_unit\":\"ts and dur are simulated GPU cycles: 1 us in "
          "the viewer = 1 cycle\"},\n\"traceEvents\":[\n";
}

Tracer::~Tracer()
{
   if (f_) {
      buf_ += kFileEnd;
      flush(true);
      std::fclose(f_);
   }
}

void
Tracer::event_prefix()
{
   if (!first_)
      buf_ += ",\n";
   first_ = false;
}

void
Tracer::flush(bool force)
{
   if (force || buf_.size() >= (1u << 16)) {
      std::fwrite(buf_.data(), 1, buf_.size(), f_);
      buf_.clear();
   }
}

void
Tracer::begin(const std::vector<Module *> &modules, const std::vector<QueueBase *> &queues,
              Cycle now)
{
   auto out = std::back_inserter(buf_);
   event_prefix();
   fmt::format_to(out,
                  "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":"
                  "\"vlgpu modules\"}}}},\n"
                  "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{"
                  "\"sort_index\":1}}}},\n"
                  "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":"
                  "\"vlgpu queues (occupancy)\"}}}},\n"
                  "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{"
                  "\"sort_index\":2}}}}",
                  kModulePid, kModulePid, kQueuePid, kQueuePid);
   for (const auto &[pid, name] :
        {std::pair<int, const char *>{kCommandPid, "vlgpu GPU render stages"},
         {kCounterPid, "vlgpu module counters (totals)"}}) {
      event_prefix();
      fmt::format_to(out,
                     "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":"
                     "\"{}\"}}}},\n"
                     "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{"
                     "\"sort_index\":{}}}}}",
                     pid, name, pid, pid == kCommandPid ? 0 : pid);
   }
   lane_end_.clear();
   module_names_.clear();
   spans_.assign(modules.size(), Span{});
   for (const Module *m : modules) {
      module_names_.push_back(json_quoted(m->name()));
      const unsigned tid = m->index() + 1;
      event_prefix();
      fmt::format_to(out,
                     "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{"
                     "\"name\":{}}}}},\n"
                     "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},"
                     "\"args\":{{\"sort_index\":{}}}}}",
                     kModulePid, tid, module_names_.back(), kModulePid, tid, tid);
      Span &s = spans_[m->index()];
      s.activity = m->last_activity();
      s.start = now;
      if (opts_.stall_reasons &&
          (s.activity == Activity::Stalled || s.activity == Activity::Starved))
         s.reason = m->stall_report();
   }
   queue_names_.clear();
   before_window_.assign(queues.size(), -1);
   for (const QueueBase *q : queues) {
      queue_names_.push_back(json_quoted(q->name()));
      counter(*q, now, q->occupancy());
   }
   flush(false);
}

void
Tracer::close_span(uint32_t tid, Span &s, Cycle end)
{
   const Cycle start = std::max(s.start, opts_.window_begin);
   end = std::min(end, opts_.window_end);
   if (s.activity == Activity::Idle || end <= start)
      return;
   auto out = std::back_inserter(buf_);
   event_prefix();
   fmt::format_to(out, "{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{}",
                  activity_name(s.activity), kModulePid, tid, start, end - start);
   if (!s.reason.empty())
      fmt::format_to(out, ",\"args\":{{\"waiting_for\":{}}}", json_quoted(s.reason));
   buf_ += '}';
   flush(false);
}

void
Tracer::change(const Module &m, Cycle now, Activity a)
{
   Span &s = spans_[m.index()];
   close_span(m.index() + 1, s, now);
   s.activity = a;
   s.start = now;
   s.reason.clear();
   if (opts_.stall_reasons && (a == Activity::Stalled || a == Activity::Starved))
      s.reason = m.stall_report();
}

void
Tracer::counter(const QueueBase &q, Cycle ts, uint64_t value)
{
   const uint32_t i = q.index();
   if (ts < opts_.window_begin) {
      before_window_[i] = int64_t(value);
      return;
   }
   if (ts >= opts_.window_end)
      return;
   if (before_window_[i] >= 0) {
      if (ts > opts_.window_begin)
         write_counter(i, opts_.window_begin, uint64_t(before_window_[i]));
      before_window_[i] = -1;
   }
   write_counter(i, ts, value);
}

void
Tracer::write_counter(uint32_t q, Cycle ts, uint64_t value)
{
   event_prefix();
   fmt::format_to(std::back_inserter(buf_),
                  "{{\"name\":{},\"ph\":\"C\",\"pid\":{},\"ts\":{},\"args\":{{\"occupancy\":{}}}}}",
                  queue_names_[q], kQueuePid, ts, value);
   flush(false);
}

void
Tracer::instant(const Module &m, Cycle ts, std::string_view name)
{
   if (ts < opts_.window_begin || ts >= opts_.window_end)
      return;
   event_prefix();
   fmt::format_to(std::back_inserter(buf_),
                  "{{\"name\":{},\"ph\":\"i\",\"s\":\"t\",\"pid\":{},\"tid\":{},\"ts\":{}}}",
                  json_quoted(name), kModulePid, m.index() + 1, ts);
   flush(false);
}

void
Tracer::command(std::string_view name, Cycle begin, Cycle end, std::string_view args_json)
{
   begin = std::max(begin, opts_.window_begin);
   end = std::min(end, opts_.window_end);
   if (end <= begin)
      return;
   size_t lane = 0;
   while (lane < lane_end_.size() && lane_end_[lane] > begin)
      lane++;
   auto out = std::back_inserter(buf_);
   if (lane == lane_end_.size()) {
      lane_end_.push_back(0);
      event_prefix();
      fmt::format_to(out,
                     "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{"
                     "\"name\":\"commands {}\"}}}}",
                     kCommandPid, lane + 1, lane);
   }
   lane_end_[lane] = end;
   event_prefix();
   fmt::format_to(out, "{{\"name\":{},\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{}",
                  json_quoted(name), kCommandPid, lane + 1, begin, end - begin);
   if (!args_json.empty())
      fmt::format_to(out, ",\"args\":{}", args_json);
   buf_ += '}';
   flush(false);
}

void
Tracer::module_counters(const Stats &stats, Cycle ts)
{
   if (ts < opts_.window_begin || ts >= opts_.window_end)
      return;
   auto out = std::back_inserter(buf_);
   for (const ModuleStatsSnapshot &m : stats.modules) {
      if (m.counters.empty())
         continue;
      event_prefix();
      fmt::format_to(out, "{{\"name\":{},\"ph\":\"C\",\"pid\":{},\"ts\":{},\"args\":{{",
                     json_quoted(m.name), kCounterPid, ts);
      for (size_t i = 0; i < m.counters.size(); i++)
         fmt::format_to(out, "{}{}:{}", i ? "," : "", json_quoted(m.counters[i].first),
                        m.counters[i].second);
      buf_ += "}}";
   }
   flush(false);
}

void
Tracer::close_all(Cycle now)
{
   for (uint32_t i = 0; i < spans_.size(); i++)
      close_span(i + 1, spans_[i], now);
   for (uint32_t q = 0; q < before_window_.size(); q++) /* unchanged in the window */
      if (before_window_[q] >= 0 && opts_.window_begin < now) {
         write_counter(q, opts_.window_begin, uint64_t(before_window_[q]));
         before_window_[q] = -1;
      }
}

void
Tracer::checkpoint(Cycle now)
{
   if (!f_)
      return;
   close_all(now);
   for (Span &s : spans_) /* the open spans go on from now */
      s.start = now;
   if (seekable_)
      buf_ += kFileEnd;
   flush(true);
   /* the next event (or finish) writes over the end of the file; finish()
    * reports an error. A pipe cannot be rewound: it only gets flushed. */
   if (std::fflush(f_) != 0 || (seekable_ && std::fseek(f_, -long(kFileEnd.size()), SEEK_CUR) != 0))
      failed_ = true;
}

void
Tracer::finish(Cycle now)
{
   if (!f_)
      return;
   close_all(now);
   buf_ += kFileEnd;
   flush(true);
   const bool failed = failed_ || std::ferror(f_) != 0;
   std::fclose(f_);
   f_ = nullptr;
   if (failed)
      throw ConfigError(fmt::format("error writing trace file '{}'", path_));
}

} // namespace vlgpu::sim
