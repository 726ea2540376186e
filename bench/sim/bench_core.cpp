/*
 * Micro-benchmark of the simulator core: simulated cycles per host second
 * for a chain of 20 modules (source -> 18 relays -> sink) passing 64-bit
 * tokens through 19 queues (capacity 4, latency 1), i.e. a whole-GPU-sized
 * module graph with trivial per-module work. Not a test.
 *
 *   build/standalone/bench/sim/bench_core
 *
 * The "cycles_per_second" counter is the figure of merit (ATTILA: 12-20 k).
 */
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

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

} // namespace

BENCHMARK_MAIN();
