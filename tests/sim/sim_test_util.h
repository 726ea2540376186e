/*
 * Mock modules for the simulator-core tests.
 */
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/core/engine.h"

namespace vlgpu::sim::testing {

/** Sends the values 0..count-1 as fast as its output allows. */
class Producer : public Module {
 public:
   Producer(std::string name, int count) : Module(std::move(name)), count_(count) {}
   OutPort<int> out{*this, "out"};
   std::vector<Cycle> push_cycles;

   Activity tick(Cycle now) override
   {
      if (sent_ == count_)
         return Activity::Idle;
      if (!out.can_push())
         return Activity::Stalled;
      out.push(sent_++);
      push_cycles.push_back(now);
      return Activity::Busy;
   }
   bool drained() const override { return sent_ == count_; }

 private:
   int count_;
   int sent_ = 0;
};

/** Pops an entry as soon as one is visible, then works on it for
 *  `work_cycles` - 1 more cycles (Busy) before it can pop the next. */
class Consumer : public Module {
 public:
   Consumer(std::string name, int expect, unsigned work_cycles = 1)
       : Module(std::move(name)), expect_(expect), work_(work_cycles)
   {
   }
   InPort<int> in{*this, "in"};
   std::vector<std::pair<int, Cycle>> received; /* (value, pop cycle) */

   Activity tick(Cycle now) override
   {
      if (now < busy_until_)
         return Activity::Busy;
      if (int(received.size()) == expect_)
         return Activity::Idle;
      if (!in.can_pop())
         return Activity::Starved;
      received.emplace_back(in.pop(), now);
      busy_until_ = now + work_;
      return Activity::Busy;
   }
   bool drained() const override { return int(received.size()) == expect_; }

 private:
   int expect_;
   unsigned work_;
   Cycle busy_until_ = 0;
};

/** Forwards entries unchanged, one per cycle. */
class Relay : public Module {
 public:
   using Module::Module;
   InPort<int> in{*this, "in"};
   OutPort<int> out{*this, "out"};

   Activity tick(Cycle) override
   {
      if (!in.can_pop())
         return Activity::Starved;
      if (!out.can_push())
         return Activity::Stalled;
      out.push(in.pop());
      return Activity::Busy;
   }
};

} // namespace vlgpu::sim::testing
