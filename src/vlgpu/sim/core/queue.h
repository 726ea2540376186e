/*
 * vlgpu simulator core: Queue, the only channel between modules.
 *
 * Seed 001 §2: "a Queue is a circular buffer with one write and one read per
 * cycle". Here a queue has
 *  - capacity  C entries (entries in flight and entries waiting to be read),
 *  - latency   L >= 1 cycles: an entry pushed in cycle t can be read from
 *              cycle t + L on,
 *  - bandwidth B entries per cycle (default 1): at most B pushes and at most
 *              B pops per cycle.
 * A slot freed by a pop in cycle t can be pushed again from cycle t + 1 on.
 * Together with L >= 1 this makes every result independent of the order in
 * which modules tick within a cycle. Sustaining B entries per cycle needs
 * C >= B * (L + 1).
 */
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/context.h"
#include "sim/core/module.h"
#include "sim/core/types.h"

namespace vlgpu::sim {

/** Size and timing of one queue (configuration "queues.*"). */
struct QueueParams {
   uint32_t capacity = 4;  /**< entries, >= 1 */
   uint32_t latency = 1;   /**< cycles from push to visibility, >= 1 */
   uint32_t bandwidth = 1; /**< pushes and pops allowed per cycle, 1..capacity */

   bool operator==(const QueueParams &o) const
   {
      return capacity == o.capacity && latency == o.latency && bandwidth == o.bandwidth;
   }
};

/**
 * Raw queue statistics over cycles [begin, now). "Occupancy" of a cycle is
 * the number of entries (in flight or visible) at the end of that cycle,
 * after all of its pushes and pops.
 */
struct QueueStats {
   Cycle begin = 0;            /**< first cycle covered */
   Cycle cycles = 0;           /**< cycles covered */
   uint64_t pushes = 0;        /**< entries written */
   uint64_t pops = 0;          /**< entries read */
   uint64_t occupancy_sum = 0; /**< sum over cycles of end-of-cycle occupancy */
   uint64_t max_occupancy = 0; /**< maximum end-of-cycle occupancy */
   uint64_t full_cycles = 0;   /**< cycles that ended with occupancy == capacity */
   uint64_t empty_cycles = 0;  /**< cycles that ended with occupancy == 0 */
   uint64_t violations = 0;    /**< rule violations allowed in non-strict mode */

   double avg_occupancy() const { return cycles ? double(occupancy_sum) / double(cycles) : 0.0; }
};

/**
 * Type-independent part of a queue: name, timing, ring indices, statistics,
 * reader/writer modules. Created by Engine::connect(); see Queue<T>.
 */
class QueueBase {
 public:
   QueueBase(SimContext &ctx, std::string name, const QueueParams &params);
   virtual ~QueueBase();
   QueueBase(const QueueBase &) = delete;
   QueueBase &operator=(const QueueBase &) = delete;

   /** "producer.port->consumer.port" when made by Engine::connect(). */
   const std::string &name() const { return name_; }
   const QueueParams &params() const { return params_; }
   uint32_t capacity() const { return params_.capacity; }
   uint32_t latency() const { return params_.latency; }
   uint32_t bandwidth() const { return params_.bandwidth; }
   /** Index in the engine (trace counter order). */
   uint32_t index() const { return index_; }
   Module *reader() const { return reader_; }
   Module *writer() const { return writer_; }

   /** Entries stored (in flight + visible). */
   uint32_t occupancy() const { return size_; }
   bool empty() const { return size_ == 0; }
   /** Entries readable now (ready cycle <= now). */
   uint32_t visible() const;
   /** Cycle at which the oldest entry becomes (or became) readable; kNever
    *  when empty. */
   Cycle head_ready() const { return size_ ? ready_[head_] : kNever; }

   /** A push is allowed this cycle: fewer than `bandwidth` pushes so far and
    *  a free slot (slots popped this cycle are free from the next cycle). */
   bool can_push() const
   {
      const Cycle now = ctx_->now;
      const uint32_t pushes = cycle_ == now ? pushes_ : 0;
      const uint32_t pops = cycle_ == now ? pops_ : 0;
      return pushes < params_.bandwidth && size_ + pops < params_.capacity;
   }

   /** A pop is allowed this cycle: fewer than `bandwidth` pops so far and the
    *  oldest entry is visible. */
   bool can_pop() const
   {
      /* empty first: most polls find nothing (L2 clients, SPC inputs) */
      if (!size_)
         return false;
      const Cycle now = ctx_->now;
      return ready_[head_] <= now && (cycle_ != now || pops_ < params_.bandwidth);
   }

   /** Statistics over [begin, now) (does not modify the queue). */
   QueueStats stats() const;
   /** Start a new statistics period at the current cycle. */
   void reset_stats();

   /** Earliest ready cycle > now among stored entries (kNever if none):
    *  when a sleeping reader must be woken. */
   Cycle next_arrival(Cycle now) const
   {
      /* inline test: most inputs of a module going to sleep are empty */
      return size_ ? next_arrival_stored(now) : kNever;
   }
   /** next_arrival() of a non-empty queue. */
   Cycle next_arrival_stored(Cycle now) const;
   /** A slot was freed this cycle in a queue that was full for the writer:
    *  the writer must be ticked next cycle. */
   bool freed_full_slot(Cycle now) const
   {
      return cycle_ == now && pops_ && size_ + pops_ >= params_.capacity;
   }

   /** Emit the current occupancy to the trace if it changed (engine use). */
   void trace_flush();

   /**
    * Host speed, for a reader that polls many inputs: @bit of *@mask is set
    * while the queue is not empty (set now if it is, by every push, cleared
    * by the pop that empties it; nullptr: none), so the reader finds its
    * non-empty inputs in one word.
    */
   void set_nonempty_mask(uint64_t *mask, uint64_t bit)
   {
      nonempty_mask_ = mask;
      nonempty_bit_ = bit;
      if (mask)
         *mask = size_ ? *mask | bit : *mask & ~bit;
   }

 protected:
   friend class Engine;

   /** Charge @n cycles that all ended with size_ entries to the occupancy
    *  statistics @s (advance(), and stats() up to now on a copy). */
   void charge_cycles(QueueStats &s, uint64_t n) const
   {
      s.occupancy_sum += uint64_t(size_) * n;
      if (size_ == params_.capacity)
         s.full_cycles += n;
      if (size_ == 0)
         s.empty_cycles += n;
      if (size_ > s.max_occupancy)
         s.max_occupancy = size_;
   }
   /** Roll the per-cycle counters and statistics forward to `now` (inline:
    *  the first push or pop of a queue in every cycle it moves). */
   void advance(Cycle now)
   {
      /* Cycles [cycle_, now) all ended with size_ entries. */
      charge_cycles(stats_, now - cycle_);
      if (VLG_UNLIKELY(ctx_->tracer != nullptr) && size_ != traced_size_)
         trace_size();
      cycle_ = now;
      pushes_ = 0;
      pops_ = 0;
   }
   /** advance(): the occupancy changed since it was last traced. */
   void trace_size();
   /** Slow path of push: check the rules; throws or counts. */
   void push_check(Cycle now);
   /** Slow path of pop/peek: check the rules; throws or counts. */
   void pop_check(Cycle now, const char *what);
   void notify_reader(Cycle c);
   void notify_writer(Cycle c);

   /** Common bookkeeping after storing an entry at tail_. */
   void pushed(Cycle now)
   {
      ready_[tail_] = now + params_.latency;
      if (++tail_ == params_.capacity)
         tail_ = 0;
      ++size_;
      ++pushes_;
      ++stats_.pushes;
      ctx_->progress_end = now + 1;
      if (nonempty_mask_)
         *nonempty_mask_ |= nonempty_bit_;
      if (reader_ && reader_->asleep_)
         notify_reader(now + params_.latency);
   }

   /** Common bookkeeping after removing the entry at head_. */
   void popped(Cycle now)
   {
      if (++head_ == params_.capacity)
         head_ = 0;
      --size_;
      if (VLG_UNLIKELY(nonempty_mask_ != nullptr) && !size_)
         *nonempty_mask_ &= ~nonempty_bit_;
      ++pops_;
      ++stats_.pops;
      ctx_->progress_end = now + 1;
      if (writer_ && writer_->asleep_ && size_ + pops_ >= params_.capacity)
         notify_writer(now + 1);
   }

   SimContext *ctx_;
   std::string name_;
   QueueParams params_;
   uint32_t index_ = 0;
   Module *reader_ = nullptr;
   Module *writer_ = nullptr;

   std::vector<Cycle> ready_; /* per slot: cycle the entry becomes visible */
   uint32_t head_ = 0, tail_ = 0, size_ = 0;
   Cycle cycle_ = 0; /* cycle of pushes_/pops_ */
   uint32_t pushes_ = 0, pops_ = 0;
   QueueStats stats_;
   uint64_t traced_size_ = ~uint64_t(0);
   uint64_t *nonempty_mask_ = nullptr;
   uint64_t nonempty_bit_ = 0;
};

/**
 * A queue of entries of type T (default-constructible and movable; entries
 * are moved in and out). Normally used through InPort<T>/OutPort<T>.
 */
template <class T> class Queue final : public QueueBase {
 public:
   Queue(SimContext &ctx, std::string name, const QueueParams &params)
       : QueueBase(ctx, std::move(name), params), values_(params_.capacity)
   {
   }

   /** Write an entry; visible to the reader at now + latency.
    *  @throws SimError if !can_push() (strict mode; a full queue always). */
   void push(T v)
   {
      const Cycle now = ctx_->now;
      if (VLG_UNLIKELY(now != cycle_))
         advance(now);
      if (VLG_UNLIKELY(pushes_ >= params_.bandwidth || size_ + pops_ >= params_.capacity))
         push_check(now);
      values_[tail_] = std::move(v);
      pushed(now);
   }

   /** The oldest entry. @throws SimError if none is visible. */
   const T &peek() const
   {
      if (VLG_UNLIKELY(!size_ || ready_[head_] > ctx_->now))
         const_cast<Queue *>(this)->pop_check(ctx_->now, "peek");
      return values_[head_];
   }

   /** Remove and return the oldest entry.
    *  @throws SimError if !can_pop() (strict mode; no visible entry always). */
   T pop()
   {
      const Cycle now = ctx_->now;
      if (VLG_UNLIKELY(now != cycle_))
         advance(now);
      if (VLG_UNLIKELY(pops_ >= params_.bandwidth || !size_ || ready_[head_] > now))
         pop_check(now, "pop");
      T v = std::move(values_[head_]);
      popped(now);
      return v;
   }

 private:
   std::vector<T> values_;
};

} // namespace vlgpu::sim
