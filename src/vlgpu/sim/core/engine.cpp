/*
 * vlgpu simulator core: Engine (assembly, scheduling, run loop, deadlock
 * detection, statistics, trace control).
 */
#include "sim/core/engine.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace vlgpu::sim {

const char *
stop_reason_name(StopReason r)
{
   switch (r) {
   case StopReason::Idle:
      return "idle";
   case StopReason::Stopped:
      return "stopped";
   case StopReason::CycleLimit:
      return "cycle limit";
   case StopReason::Deadlock:
      return "deadlock";
   }
   return "?";
}

const DeadlockReport::ModuleState *
DeadlockReport::module(std::string_view name) const
{
   for (const ModuleState &m : modules) {
      if (m.name == name)
         return &m;
   }
   return nullptr;
}

std::string
DeadlockReport::to_string() const
{
   std::string s = fmt::format("deadlock at cycle {}: {}\n", cycle, cause);
   if (last_progress == kNever)
      s += "no progress since this run started\n";
   else
      s +=
         fmt::format("last progress (queue push/pop or busy module) at cycle {}\n", last_progress);
   size_t w = 6;
   for (const ModuleState &m : modules)
      w = std::max(w, m.name.size());
   s += "modules:\n";
   for (const ModuleState &m : modules) {
      s += fmt::format("  {:<{}} {:<6} {:<7} since cycle {}{}: {}\n", m.name, w,
                       m.asleep ? "asleep" : "awake", activity_name(m.activity), m.since,
                       m.drained ? "" : " [work left]", m.report);
   }
   if (queues.empty()) {
      s += "queues: all empty\n";
   } else {
      s += "non-empty queues:\n";
      for (const QueueState &q : queues) {
         s += fmt::format("  {}: {}/{} entries, {} readable", q.name, q.occupancy, q.capacity,
                          q.visible);
         if (q.head_ready != kNever)
            s += fmt::format(" (oldest readable from cycle {})", q.head_ready);
         s += "\n";
      }
   }
   return s;
}

/* ---- assembly ---- */

static bool
valid_name(std::string_view n, bool allow_dots)
{
   if (n.empty() || n.front() == '.' || n.back() == '.')
      return false;
   char prev = 0;
   for (char c : n) {
      if (c == '.') {
         if (!allow_dots || prev == '.')
            return false;
      } else if (!(std::isalnum((unsigned char)c) || c == '_')) {
         return false;
      }
      prev = c;
   }
   return true;
}

Engine::Engine(const Config &config)
    : config_(config), deadlock_window_(config.deadlock_window_cycles)
{
   config_.validate();
}

Engine::~Engine()
{
   if (tracer_) {
      try {
         stop_trace();
      } catch (...) {
      }
   }
}

Module &
Engine::add_module(std::unique_ptr<Module> m)
{
   if (finalized_)
      throw ConfigError(fmt::format("cannot add module '{}' after Engine::finalize()", m->name()));
   if (!valid_name(m->name(), true)) {
      throw ConfigError(fmt::format("invalid module name '{}' (use [A-Za-z0-9_] and dots for "
                                    "hierarchy, e.g. 'gpc0.spc1')",
                                    m->name()));
   }
   if (module_by_name_.count(m->name()))
      throw ConfigError(fmt::format("module '{}' added twice", m->name()));
   for (size_t i = 0; i < m->ports().size(); i++) {
      const PortBase *p = m->ports()[i];
      if (!valid_name(p->name(), false)) {
         throw ConfigError(fmt::format("module '{}': invalid port name '{}' (use [A-Za-z0-9_])",
                                       m->name(), p->name()));
      }
      for (size_t j = 0; j < i; j++) {
         if (m->ports()[j]->name() == p->name())
            throw ConfigError(
               fmt::format("module '{}': two ports named '{}'", m->name(), p->name()));
      }
   }

   Module &ref = *m;
   ref.engine_ = this;
   ref.ctx_ = &ctx_;
   ref.index_ = uint32_t(modules_.size());
   ref.last_activity_since_ = ctx_.now;
   ref.asleep_ = false;
   module_by_name_.emplace(ref.name(), &ref);
   module_ptrs_.push_back(&ref);
   modules_.push_back(std::move(m));
   if (awake_.size() * 64 < modules_.size())
      awake_.push_back(0);
   awake_[ref.index_ >> 6] |= uint64_t(1) << (ref.index_ & 63);
   awake_count_++;
   return ref;
}

PortBase &
Engine::resolve(std::string_view endpoint, PortDir want) const
{
   const char *role = want == PortDir::Out ? "producer (output)" : "consumer (input)";
   size_t dot = endpoint.rfind('.');
   if (dot == std::string_view::npos || dot == 0 || dot + 1 == endpoint.size()) {
      throw ConfigError(
         fmt::format("connect: '{}' is not a 'module.port' name for the {} end", endpoint, role));
   }
   std::string_view mod_name = endpoint.substr(0, dot), port_name = endpoint.substr(dot + 1);
   Module *m = module(mod_name);
   if (!m) {
      std::vector<std::string> names;
      for (const Module *x : module_ptrs_)
         names.push_back(x->name());
      throw ConfigError(fmt::format("connect: no module '{}' for port '{}'{}", mod_name, endpoint,
                                    did_you_mean(mod_name, names)));
   }
   PortBase *p = m->find_port(port_name);
   if (!p) {
      std::vector<std::string> names;
      std::string list;
      for (const PortBase *x : m->ports()) {
         names.push_back(x->name());
         list += (list.empty() ? "" : ", ") + x->name();
      }
      throw ConfigError(fmt::format("connect: module '{}' has no port '{}'{}; its ports: {}",
                                    mod_name, port_name, did_you_mean(port_name, names),
                                    list.empty() ? "none" : list));
   }
   if (p->dir() != want) {
      throw ConfigError(fmt::format("connect: port '{}' is an {} port but is used as the {} end",
                                    endpoint, p->dir() == PortDir::In ? "input" : "output", role));
   }
   return *p;
}

QueueBase &
Engine::connect(std::string_view from, std::string_view to)
{
   return connect(from, to, config_.default_queue());
}

QueueBase &
Engine::connect(std::string_view from, std::string_view to, const QueueParams &base)
{
   if (finalized_)
      throw ConfigError(fmt::format("connect '{}' -> '{}' after Engine::finalize()", from, to));
   PortBase &out = resolve(from, PortDir::Out);
   PortBase &in = resolve(to, PortDir::In);
   if (out.bound()) {
      throw ConfigError(fmt::format("port '{}' is bound twice: already bound to queue '{}'",
                                    out.full_name(), out.queue()->name()));
   }
   if (in.bound()) {
      throw ConfigError(fmt::format("port '{}' is bound twice: already bound to queue '{}'",
                                    in.full_name(), in.queue()->name()));
   }
   if (out.type() != in.type()) {
      throw ConfigError(fmt::format("connect: type mismatch: '{}' sends {} but '{}' receives {}",
                                    out.full_name(), out.type_name(), in.full_name(),
                                    in.type_name()));
   }
   std::string name = out.full_name() + "->" + in.full_name();
   QueueParams params =
      config_.queue_params(name, out.full_name(), in.full_name(), base, &used_overrides_);
   std::unique_ptr<QueueBase> q = out.make_queue(ctx_, name, params);
   q->index_ = uint32_t(queues_.size());
   q->writer_ = &out.module();
   q->reader_ = &in.module();
   out.attach(q.get());
   in.attach(q.get());
   queue_ptrs_.push_back(q.get());
   queues_.push_back(std::move(q));
   return *queue_ptrs_.back();
}

void
Engine::finalize()
{
   if (finalized_)
      return;
   std::string unbound;
   for (const Module *m : module_ptrs_) {
      for (const PortBase *p : m->ports()) {
         if (!p->bound()) {
            unbound += fmt::format("{}{} ({}, {})", unbound.empty() ? "" : ", ", p->full_name(),
                                   p->dir() == PortDir::In ? "input" : "output", p->type_name());
         }
      }
   }
   if (!unbound.empty())
      throw ConfigError("unbound ports: " + unbound);

   std::vector<std::string> names;
   for (const QueueBase *q : queue_ptrs_)
      names.push_back(q->name());
   for (const Module *m : module_ptrs_) {
      for (const PortBase *p : m->ports())
         names.push_back(p->full_name());
   }
   for (const auto &[key, ov] : config_.queues) {
      if (std::find(used_overrides_.begin(), used_overrides_.end(), key) == used_overrides_.end()) {
         throw ConfigError(fmt::format("configuration key 'queues.{}': no queue or port named "
                                       "'{}'{}",
                                       key, key, did_you_mean(key, names)));
      }
   }

   for (Module *m : module_ptrs_) {
      m->in_queues_.clear();
      m->out_queues_.clear();
      for (PortBase *p : m->ports())
         (p->dir() == PortDir::In ? m->in_queues_ : m->out_queues_).push_back(p->queue());
   }
   finalized_ = true;
   ring_ok_ = module_ptrs_.size() <= 64;
   if (attribution_) {
      for (Module *m : module_ptrs_)
         for (CauseFlag &f : m->cause_flags_)
            attribution_->bind(f, ctx_.now);
      attribution_->reset(ctx_.now);
   }
   for (Module *m : module_ptrs_)
      m->on_finalize();
}

Module *
Engine::module(std::string_view name) const
{
   auto it = module_by_name_.find(std::string(name));
   return it == module_by_name_.end() ? nullptr : it->second;
}

QueueBase *
Engine::queue(std::string_view name) const
{
   for (QueueBase *q : queue_ptrs_) {
      if (q->name() == name)
         return q;
   }
   return nullptr;
}

/* ---- scheduling ---- */

void
Engine::notify(Module &m, Cycle c)
{
   if (!m.asleep_)
      return;
   if (c < m.wake_cycle_) {
      m.wake_cycle_ = c;
      if (ring_ok_ && c > ctx_.now && c - ctx_.now < kRingCycles) {
         const unsigned slot = unsigned(c % kRingCycles);
         ring_[slot] |= uint64_t(1) << m.index_;
         ring_used_ |= uint64_t(1) << slot;
      } else {
         timers_.push(Timer{c, m.index_});
      }
   }
}

void
Engine::wake_ring(Cycle now)
{
   const unsigned slot = unsigned(now % kRingCycles);
   uint64_t bits = ring_[slot];
   ring_[slot] = 0;
   ring_used_ &= ~(uint64_t(1) << slot);
   for (; bits; bits &= bits - 1) {
      Module &m = *module_ptrs_[__builtin_ctzll(bits)];
      if (m.asleep_ && m.wake_cycle_ == now)
         wake_now(m, now);
   }
}

Cycle
Engine::next_ring()
{
   const Cycle now = ctx_.now;
   while (ring_used_) {
      const unsigned base = unsigned(now % kRingCycles);
      const uint64_t rot = base ? ring_used_ >> base | ring_used_ << (kRingCycles - base)
                                : ring_used_;
      const unsigned d = unsigned(__builtin_ctzll(rot));
      const Cycle c = now + d;
      const unsigned slot = unsigned(c % kRingCycles);
      for (uint64_t bits = ring_[slot]; bits; bits &= bits - 1) {
         const Module &m = *module_ptrs_[__builtin_ctzll(bits)];
         if (m.asleep_ && m.wake_cycle_ == c)
            return c;
      }
      ring_[slot] = 0; /* only stale entries */
      ring_used_ &= ~(uint64_t(1) << slot);
   }
   return kNever;
}

void
Engine::wake_now(Module &m, Cycle now)
{
   m.asleep_ = false;
   m.hard_sleep_ = false;
   awake_[m.index_ >> 6] |= uint64_t(1) << (m.index_ & 63);
   awake_count_++;
   m.stats_.cycles[unsigned(m.sleep_activity_)] += now - m.sleep_from_;
   if (m.sleep_activity_ == Activity::Busy)
      busy_sleepers_--;
   m.wake_cycle_ = kNever;
}

void
Engine::put_to_sleep(Module &m, Activity a, Cycle now)
{
   const bool hard = m.force_sleep_ && m.hold_until_ != kNever;
   m.force_sleep_ = false;
   if (m.sleep_as_set_) { /* sleep_as(): the cycles asleep count as it says */
      a = m.sleep_as_;
      m.sleep_as_set_ = false;
   }
   m.hold_until_ = kNever;

   /* When must it run again? Its alarm, the next entry becoming readable
    * on an input, or next cycle if a full output had a slot freed now;
    * after sleep_until(c), its alarm only. */
   Cycle w = m.alarm_;
   if (!hard) {
      for (const QueueBase *q : m.in_queues_) {
         Cycle c = q->next_arrival(now);
         if (c < w)
            w = c;
      }
   }
   if (!hard && w > now + 1) {
      for (const QueueBase *q : m.out_queues_) {
         if (q->freed_full_slot(now)) {
            w = now + 1;
            break;
         }
      }
   }
   /* Sleeping for zero cycles: stay awake (same ticks, same statistics). */
   if (w == now + 1)
      return;

   m.asleep_ = true;
   m.hard_sleep_ = hard;
   awake_[m.index_ >> 6] &= ~(uint64_t(1) << (m.index_ & 63));
   awake_count_--;
   m.sleep_activity_ = a;
   m.sleep_from_ = now + 1;
   if (a == Activity::Busy)
      busy_sleepers_++;
   m.wake_cycle_ = kNever;
   if (w != kNever)
      notify(m, w);
}

void
Engine::wake_due(Cycle now)
{
   while (!timers_.empty() && timers_.top().cycle <= now) {
      const Timer t = timers_.top();
      timers_.pop();
      Module &m = *module_ptrs_[t.module];
      if (m.asleep_ && m.wake_cycle_ == t.cycle)
         wake_now(m, now);
   }
}

Cycle
Engine::next_timer()
{
   while (!timers_.empty()) {
      const Timer &t = timers_.top();
      const Module &m = *module_ptrs_[t.module];
      if (m.asleep_ && m.wake_cycle_ == t.cycle)
         return t.cycle;
      timers_.pop();
   }
   return kNever;
}

void
Engine::wake(Module &m)
{
   if (m.engine_ != this)
      throw SimError(fmt::format("Engine::wake: module '{}' belongs to another engine", m.name()));
   if (in_run_) {
      /* Keep tick order irrelevant: the module runs from the next cycle. */
      if (m.asleep_)
         notify(m, ctx_.now + 1);
      else if (ctx_.now + 1 < m.alarm_)
         m.alarm_ = ctx_.now + 1;
   } else if (m.asleep_) {
      wake_now(m, ctx_.now);
   }
}

bool
Engine::all_done() const
{
   for (const QueueBase *q : queue_ptrs_) {
      if (!q->empty())
         return false;
   }
   for (const Module *m : module_ptrs_) {
      if (!m->drained())
         return false;
   }
   return true;
}

void
Engine::tick_awake(Cycle now)
{
   const size_t words = awake_.size();
   for (size_t w = 0; w < words; w++) {
      uint64_t bits = awake_[w];
      while (bits) {
         const unsigned b = unsigned(__builtin_ctzll(bits));
         bits &= bits - 1;
         Module &m = *module_ptrs_[(w << 6) | b];
         if (m.alarm_ <= now)
            m.alarm_ = kNever;
         const Activity a = m.tick(now);
         m.stats_.ticks++;
         m.stats_.cycles[unsigned(a)]++;
         total_ticks_++;
         if (a != m.last_activity_) {
            m.last_activity_ = a;
            m.last_activity_since_ = now;
            if (m.busy_flag_)
               m.busy_flag_->set(now, a == Activity::Busy);
            if (m.active_flag_)
               m.active_flag_->set(now, a != Activity::Idle);
         }
         if (a == Activity::Busy)
            ctx_.progress_end = now + 1;
         if (VLG_UNLIKELY(ctx_.tracer != nullptr))
            ctx_.tracer->activity(m, now, a);
         if (m.force_sleep_ || (a != Activity::Busy && m.auto_sleep_))
            put_to_sleep(m, a, now);
      }
   }
}

/* ---- run ---- */

RunResult
Engine::run(Cycle max_cycles)
{
   return run_loop(nullptr, max_cycles);
}

RunResult
Engine::run_until(const std::function<bool()> &done, Cycle max_cycles)
{
   return run_loop(done ? &done : nullptr, max_cycles);
}

RunResult
Engine::run_loop(const std::function<bool()> *done, Cycle max_cycles)
{
   if (in_run_)
      throw SimError("Engine::run called from inside a tick");
   finalize();

   struct RunGuard {
      bool &flag;
      explicit RunGuard(bool &f) : flag(f) { flag = true; }
      ~RunGuard() { flag = false; }
   } guard(in_run_);

   Cycle &now = ctx_.now;
   RunResult r;
   r.begin = now;
   stop_requested_ = false;
   ctx_.progress_end = now;
   run_begin_ = now;
   const Cycle limit = max_cycles >= kNever - now ? kNever : now + max_cycles;
   const Cycle window = deadlock_window_;

   auto finish = [&](StopReason reason) {
      r.reason = reason;
      r.end = now;
      return r;
   };
   auto deadlock = [&](std::string cause) {
      r.deadlock = make_report(std::move(cause));
      return finish(StopReason::Deadlock);
   };

   if (done && (*done)())
      return finish(StopReason::Stopped);

   for (;;) {
      if (now >= limit)
         return finish(StopReason::CycleLimit);
      if (ring_used_ >> (now % kRingCycles) & 1)
         wake_ring(now);
      if (!timers_.empty() && timers_.top().cycle <= now)
         wake_due(now);

      if (VLG_UNLIKELY(awake_count_ == 0)) {
         /* Everybody sleeps: jump to the earliest wake-up. */
         const Cycle next = std::min(next_timer(), next_ring());
         if (next == kNever) {
            if (all_done())
               return finish(StopReason::Idle);
            return deadlock("every module is asleep with no wake-up pending, but work is left "
                            "(a module is not drained or a queue is not empty)");
         }
         if (busy_sleepers_) {
            ctx_.progress_end = std::min(next, limit);
         } else if (window && next - ctx_.progress_end >= window &&
                    ctx_.progress_end + window <= limit) {
            now = ctx_.progress_end + window;
            return deadlock(
               fmt::format("no progress for {} cycles (deadlock.window_cycles)", window));
         }
         if (next >= limit) {
            now = limit;
            return finish(StopReason::CycleLimit);
         }
         now = next;
         continue;
      }

      tick_awake(now);
      if (busy_sleepers_)
         ctx_.progress_end = now + 1;
      ++now;
      if (stop_requested_)
         return finish(StopReason::Stopped);
      if (done && (*done)())
         return finish(StopReason::Stopped);
      if (window && now - ctx_.progress_end >= window)
         return deadlock(fmt::format("no progress for {} cycles (deadlock.window_cycles)", window));
   }
}

/* ---- statistics and reports ---- */

Stats
Engine::stats() const
{
   Stats s;
   s.begin = stats_begin_;
   s.end = ctx_.now;
   s.modules.reserve(module_ptrs_.size());
   /* lazily counted cycles up to now (changes no result: only counters) */
   for (Module *m : module_ptrs_)
      m->sync_counters(ctx_.now);
   for (const Module *m : module_ptrs_) {
      ModuleStatsSnapshot ms;
      ms.name = m->name();
      ms.ticks = m->stats_.ticks;
      uint64_t c[kActivityCount];
      std::copy(std::begin(m->stats_.cycles), std::end(m->stats_.cycles), c);
      if (m->asleep_ && ctx_.now > m->sleep_from_)
         c[unsigned(m->sleep_activity_)] += ctx_.now - m->sleep_from_;
      ms.idle = c[unsigned(Activity::Idle)];
      ms.busy = c[unsigned(Activity::Busy)];
      ms.stalled = c[unsigned(Activity::Stalled)];
      ms.starved = c[unsigned(Activity::Starved)];
      ms.counters.reserve(m->counters().size());
      for (const Counter &k : m->counters())
         ms.counters.emplace_back(k.name(), k.value());
      s.modules.push_back(std::move(ms));
   }
   s.queues.reserve(queue_ptrs_.size());
   for (const QueueBase *q : queue_ptrs_)
      s.queues.push_back(QueueStatsSnapshot{q->name(), q->params(), q->stats()});
   if (attribution_) {
      attribution_->sync(ctx_.now);
      s.causes = attribution_->totals();
   }
   return s;
}

void
Engine::reset_stats()
{
   stats_begin_ = ctx_.now;
   for (Module *m : module_ptrs_) {
      m->sync_counters(ctx_.now); /* a running cycle count restarts at now */
      m->stats_ = ModuleStats{};
      for (Counter &k : m->counters_)
         k.reset();
      if (m->asleep_)
         m->sleep_from_ = ctx_.now;
   }
   for (QueueBase *q : queue_ptrs_)
      q->reset_stats();
   if (attribution_)
      attribution_->reset(ctx_.now);
}

DeadlockReport
Engine::make_report(std::string cause) const
{
   DeadlockReport r;
   r.cycle = ctx_.now;
   r.last_progress = ctx_.progress_end > run_begin_ ? ctx_.progress_end - 1 : kNever;
   r.cause = std::move(cause);
   for (const Module *m : module_ptrs_) {
      DeadlockReport::ModuleState ms;
      ms.name = m->name();
      ms.asleep = m->asleep_;
      ms.activity = m->last_activity_;
      ms.since = m->last_activity_since_;
      ms.drained = m->drained();
      ms.report = m->stall_report();
      r.modules.push_back(std::move(ms));
   }
   for (const QueueBase *q : queue_ptrs_) {
      if (q->empty())
         continue;
      r.queues.push_back(DeadlockReport::QueueState{q->name(), q->occupancy(), q->capacity(),
                                                    q->visible(), q->head_ready()});
   }
   return r;
}

/* ---- trace ---- */

void
Engine::start_trace(const std::string &path, const TraceOptions &opts)
{
   finalize(); /* the trace needs the final set of modules and queues */
   if (tracer_)
      stop_trace();
   auto t = std::make_unique<Tracer>(path, opts);
   /* Roll every queue to now first so the trace starts from a clean state. */
   t->begin(module_ptrs_, queue_ptrs_, ctx_.now);
   for (QueueBase *q : queue_ptrs_)
      q->traced_size_ = q->size_;
   tracer_ = std::move(t);
   ctx_.tracer = tracer_.get();
}

bool
Engine::flush_queue_traces()
{
   if (!tracer_)
      return false;
   for (QueueBase *q : queue_ptrs_)
      q->trace_flush();
   return true;
}

void
Engine::checkpoint_trace()
{
   if (flush_queue_traces())
      tracer_->checkpoint(ctx_.now);
}

void
Engine::stop_trace()
{
   if (!flush_queue_traces())
      return;
   tracer_->finish(ctx_.now);
   ctx_.tracer = nullptr;
   tracer_.reset();
}

} // namespace vlgpu::sim
