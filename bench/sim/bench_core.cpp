/*
 * Micro-benchmark of the simulator core: simulated cycles per host second
 * for a chain of 20 modules (source -> 18 relays -> sink) passing 64-bit
 * tokens through 19 queues (capacity 4, latency 1), i.e. a whole-GPU-sized
 * module graph with trivial per-module work. Not a test.
 *
 *   build/standalone/bench/sim/bench_core
 *
 * The "cycles_per_second" counter is the figure of merit (ATTILA: 12-20 k).
 *
 * BM_TwoThreadCycleBarrier measures what ticking the modules on two host
 * threads (issue "Speed", item 2) would pay per simulated cycle at the very
 * least: one barrier between the two threads at every cycle boundary (a
 * queue push of cycle t is visible to the other thread's modules at t + 1,
 * latency 1, so neither thread may start t + 1 before the other has ended t).
 * Its "ns_per_cycle" is the host time of that barrier alone, to compare with
 * the simulator's host time per simulated cycle (`./vlgpu bench sim`).
 */
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "sim/core/engine.h"

using namespace vlgpu::sim;

namespace {

constexpr int kChain = 20;

/* Emits one token every `period` cycles (1 = every cycle). */
class Source final : public Module {
 public:
   Source(std::string name, unsigned period) : Module(std::move(name)), period_(period) {}
   OutPort<uint64_t> out{*this, "out"};

   Activity tick(Cycle now) override
   {
      if (now < next_)
         return Activity::Idle; /* asleep until the alarm set below */
      if (!out.can_push())
         return Activity::Stalled;
      out.push(sent_++);
      next_ = now + period_;
      if (period_ > 1)
         wake_at(next_);
      return Activity::Busy;
   }

 private:
   unsigned period_;
   Cycle next_ = 0;
   uint64_t sent_ = 0;
};

class Relay final : public Module {
 public:
   using Module::Module;
   InPort<uint64_t> in{*this, "in"};
   OutPort<uint64_t> out{*this, "out"};

   Activity tick(Cycle) override
   {
      if (!in.can_pop())
         return Activity::Starved;
      if (!out.can_push())
         return Activity::Stalled;
      out.push(in.pop() + 1);
      return Activity::Busy;
   }
};

/* Accepts one token every `period` cycles. */
class Sink final : public Module {
 public:
   Sink(std::string name, unsigned period) : Module(std::move(name)), period_(period) {}
   InPort<uint64_t> in{*this, "in"};
   uint64_t received = 0;

   Activity tick(Cycle now) override
   {
      if (!in.can_pop())
         return Activity::Starved;
      if (now % period_)
         return Activity::Busy; /* "processing" the previous token */
      benchmark::DoNotOptimize(in.pop());
      received++;
      return Activity::Busy;
   }

 private:
   unsigned period_;
};

void
build(Engine &eng, unsigned source_period, unsigned sink_period)
{
   eng.add<Source>("m0", source_period);
   for (int i = 1; i < kChain - 1; i++)
      eng.add<Relay>("m" + std::to_string(i));
   eng.add<Sink>("m" + std::to_string(kChain - 1), sink_period);
   for (int i = 0; i < kChain - 1; i++)
      eng.connect("m" + std::to_string(i) + ".out", "m" + std::to_string(i + 1) + ".in");
   eng.set_deadlock_window(0);
   eng.finalize();
}

void
run_chain(benchmark::State &state, unsigned source_period, unsigned sink_period, bool trace)
{
   Engine eng;
   build(eng, source_period, sink_period);
   if (trace)
      eng.start_trace("/dev/null", TraceOptions{false});
   const Cycle step = 100000;
   uint64_t cycles = 0;
   const uint64_t ticks0 = eng.total_ticks();
   for (auto _ : state) {
      RunResult r = eng.run(step);
      cycles += r.cycles();
   }
   state.counters["cycles_per_second"] =
      benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
   state.counters["ticks_per_cycle"] = double(eng.total_ticks() - ticks0) / double(cycles);
   if (trace)
      eng.stop_trace();
}

/* Every module busy every cycle: the worst case for the engine. */
void
BM_Chain20_Streaming(benchmark::State &state)
{
   run_chain(state, 1, 1, false);
}
BENCHMARK(BM_Chain20_Streaming)->Unit(benchmark::kMillisecond);

/* Sink takes a token every 3rd cycle: back-pressure, modules stall and
 * sleep until their output queue frees a slot. */
void
BM_Chain20_Backpressure(benchmark::State &state)
{
   run_chain(state, 1, 3, false);
}
BENCHMARK(BM_Chain20_Backpressure)->Unit(benchmark::kMillisecond);

/* One token every 64 cycles: modules sleep between tokens (idle skipping). */
void
BM_Chain20_Sparse(benchmark::State &state)
{
   run_chain(state, 64, 1, false);
}
BENCHMARK(BM_Chain20_Sparse)->Unit(benchmark::kMillisecond);

/* Streaming with the trace writer on (to /dev/null): the cost of tracing. */
void
BM_Chain20_Streaming_Traced(benchmark::State &state)
{
   run_chain(state, 1, 1, true);
}
BENCHMARK(BM_Chain20_Streaming_Traced)->Unit(benchmark::kMillisecond);

/* Two threads meet at a barrier once per "cycle" and do nothing else: the
 * floor of a two-thread engine's cost per simulated cycle (see the header).
 * Each thread publishes the last cycle it finished in its own cache line and
 * spins until the other's reaches it: one cache-line transfer each way per
 * cycle, overlapped, the cheapest correct barrier for two threads. */
void
BM_TwoThreadCycleBarrier(benchmark::State &state)
{
   struct alignas(64) Line {
      std::atomic<uint64_t> done{0};
   };
   Line a, b;
   std::atomic<bool> stop{false};
   std::atomic<uint64_t> target{0};
   std::thread other([&] {
      uint64_t c = 0;
      for (;;) {
         while (target.load(std::memory_order_acquire) <= c)
            if (stop.load(std::memory_order_relaxed))
               return;
         const uint64_t end = target.load(std::memory_order_acquire);
         for (; c < end;) {
            b.done.store(++c, std::memory_order_release);
            while (a.done.load(std::memory_order_acquire) < c) {
            }
         }
      }
   });
   const uint64_t step = 100000;
   uint64_t c = 0;
   const auto t0 = std::chrono::steady_clock::now();
   for (auto _ : state) {
      target.store(c + step, std::memory_order_release);
      for (const uint64_t end = c + step; c < end;) {
         a.done.store(++c, std::memory_order_release);
         while (b.done.load(std::memory_order_acquire) < c) {
         }
      }
   }
   const std::chrono::duration<double, std::nano> ns = std::chrono::steady_clock::now() - t0;
   stop.store(true, std::memory_order_relaxed);
   other.join();
   state.counters["ns_per_cycle"] = c ? ns.count() / double(c) : 0.0;
}
BENCHMARK(BM_TwoThreadCycleBarrier)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
