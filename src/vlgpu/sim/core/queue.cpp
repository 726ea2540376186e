/*
 * vlgpu simulator core: QueueBase (the type-independent part of Queue<T>).
 */
#include "sim/core/queue.h"

#include <fmt/format.h>

#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/core/trace.h"

namespace vlgpu::sim {

namespace {

/* A use of a queue that its rules forbid but non-strict mode tolerates (a
 * slot reused in the cycle it was freed, more pushes or pops in a cycle than
 * the bandwidth): counted in @a violations (QueueStats::violations), and
 * with SimContext::strict a SimError saying @a f. */
template <typename... Args>
void
violation(const SimContext &ctx, uint64_t &violations, fmt::format_string<Args...> f,
          Args &&...args)
{
   ++violations;
   if (ctx.strict)
      throw SimError(fmt::format(f, std::forward<Args>(args)...));
}

} // namespace

QueueBase::QueueBase(SimContext &ctx, std::string name, const QueueParams &params)
    : ctx_(&ctx), name_(std::move(name)), params_(params)
{
   if (params.capacity < 1)
      throw ConfigError(fmt::format("queue '{}': capacity must be >= 1", name_));
   if (params.latency < 1)
      throw ConfigError(fmt::format("queue '{}': latency must be >= 1 cycle", name_));
   if (params.bandwidth < 1 || params.bandwidth > params.capacity)
      throw ConfigError(fmt::format("queue '{}': bandwidth {} must be in 1..capacity ({})", name_,
                                    params.bandwidth, params.capacity));
   ready_.resize(params.capacity);
   cycle_ = ctx.now;
   stats_.begin = ctx.now;
}

QueueBase::~QueueBase() = default;

uint32_t
QueueBase::visible() const
{
   uint32_t n = 0, i = head_;
   while (n < size_ && ready_[i] <= ctx_->now) {
      n++;
      if (++i == params_.capacity)
         i = 0;
   }
   return n;
}

Cycle
QueueBase::next_arrival_stored(Cycle now) const
{
   uint32_t i = head_;
   for (uint32_t n = 0; n < size_; n++) {
      if (ready_[i] > now)
         return ready_[i];
      if (++i == params_.capacity)
         i = 0;
   }
   return kNever;
}

void
QueueBase::trace_size()
{
   ctx_->tracer->counter(*this, cycle_, size_);
   traced_size_ = size_;
}

QueueStats
QueueBase::stats() const
{
   QueueStats s = stats_;
   const Cycle now = ctx_->now;
   if (now > cycle_)
      charge_cycles(s, now - cycle_);
   s.cycles = now - s.begin;
   return s;
}

void
QueueBase::reset_stats()
{
   const Cycle now = ctx_->now;
   if (now != cycle_)
      advance(now);
   const uint64_t traced = traced_size_;
   stats_ = QueueStats{};
   stats_.begin = now;
   traced_size_ = traced;
}

void
QueueBase::trace_flush()
{
   if (ctx_->tracer && size_ != traced_size_) {
      ctx_->tracer->counter(*this, cycle_, size_);
      traced_size_ = size_;
   }
}

void
QueueBase::push_check(Cycle now)
{
   if (size_ >= params_.capacity) {
      throw SimError(fmt::format("queue '{}': push into a full queue ({}/{} entries) at cycle {} "
                                 "(the writer must check can_push())",
                                 name_, size_, params_.capacity, now));
   }
   if (size_ + pops_ >= params_.capacity) {
      violation(*ctx_, stats_.violations,
                "queue '{}': push at cycle {} into a slot freed in the same cycle (freed slots "
                "are reusable from the next cycle; check can_push())",
                name_, now);
   }
   if (pushes_ >= params_.bandwidth) {
      violation(*ctx_, stats_.violations,
                "queue '{}': more than {} push(es) in cycle {} (bandwidth {}; check can_push())",
                name_, params_.bandwidth, now, params_.bandwidth);
   }
}

void
QueueBase::pop_check(Cycle now, const char *what)
{
   if (!size_) {
      throw SimError(fmt::format("queue '{}': {} from an empty queue at cycle {} (the reader "
                                 "must check can_pop())",
                                 name_, what, now));
   }
   if (ready_[head_] > now) {
      throw SimError(fmt::format("queue '{}': {} at cycle {} but the oldest entry is readable "
                                 "only from cycle {} (latency {})",
                                 name_, what, now, ready_[head_], params_.latency));
   }
   if (pops_ >= params_.bandwidth) {
      violation(*ctx_, stats_.violations,
                "queue '{}': more than {} pop(s) in cycle {} (bandwidth {}; check can_pop())",
                name_, params_.bandwidth, now, params_.bandwidth);
   }
}

void
QueueBase::notify_reader(Cycle c)
{
   if (reader_->engine_)
      reader_->engine_->notify_queue(*reader_, c);
}

void
QueueBase::notify_writer(Cycle c)
{
   if (writer_->engine_)
      writer_->engine_->notify_queue(*writer_, c);
}

} // namespace vlgpu::sim
