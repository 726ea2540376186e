/*
 * Mock neighbours for the module tests: scripted sources, recording sinks,
 * a scripted memory client, a fixed-latency memory, and (module_test_util.cpp,
 * the one translation unit that includes the shader executor) draws whose
 * only content is a shader for the SPC tests.
 */
#pragma once

#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/engine.h"
#include "sim/units/common/messages.h"

namespace vlgpu::sim::test {

/** Pushes each scripted entry at (or after) its cycle, one per cycle. */
template <class T> class Source : public Module {
 public:
   explicit Source(std::string name) : Module(std::move(name)) {}
   OutPort<T> out{*this, "out"};
   std::deque<std::pair<Cycle, T>> script;

   Activity tick(Cycle now) override
   {
      if (script.empty())
         return Activity::Idle;
      if (script.front().first > now) {
         wake_at(script.front().first);
         return Activity::Idle;
      }
      if (!out.can_push())
         return Activity::Stalled;
      out.push(std::move(script.front().second));
      script.pop_front();
      return Activity::Busy;
   }
   bool drained() const override { return script.empty(); }
};

/** Records every entry with the cycle it was popped (always pops). */
template <class T> class Sink : public Module {
 public:
   explicit Sink(std::string name) : Module(std::move(name)) {}
   InPort<T> in{*this, "in"};
   std::vector<std::pair<Cycle, T>> got;

   Activity tick(Cycle now) override
   {
      if (!in.can_pop())
         return Activity::Idle;
      got.emplace_back(now, in.pop());
      return Activity::Busy;
   }
};

/** Sends scripted memory requests and records when each tag is answered. */
class MockMemClient : public Module {
 public:
   explicit MockMemClient(std::string name) : Module(std::move(name)) {}
   OutPort<MemReq> out{*this, "out_mem"};
   InPort<MemResp> in{*this, "in_mem"};
   std::deque<std::pair<Cycle, MemReq>> script;
   std::map<uint32_t, Cycle> answered;
   std::vector<Cycle> pushed_at;

   Activity tick(Cycle now) override
   {
      bool busy = false;
      if (in.can_pop()) {
         answered[in.pop().tag] = now;
         busy = true;
      }
      if (!script.empty() && script.front().first <= now && out.can_push()) {
         out.push(script.front().second);
         pushed_at.push_back(now);
         script.pop_front();
         busy = true;
      }
      if (busy)
         return Activity::Busy;
      if (!script.empty())
         wake_at(std::max(script.front().first, now + 1));
      return Activity::Idle;
   }
   bool drained() const override { return script.empty(); }
};

/** Answers every read @latency cycles after it arrived (writes: none). */
class MockMemory : public Module {
 public:
   MockMemory(std::string name, Cycle latency) : Module(std::move(name)), latency_(latency) {}
   InPort<MemReq> in{*this, "in_req"};
   OutPort<MemResp> out{*this, "out_resp"};
   std::vector<std::pair<Cycle, MemReq>> seen;

   Activity tick(Cycle now) override
   {
      bool busy = false;
      if (in.can_pop()) {
         const MemReq r = in.pop();
         seen.emplace_back(now, r);
         if (!r.write)
            due_.emplace_back(now + latency_, MemResp{r.tag, false});
         busy = true;
      }
      if (!due_.empty() && due_.front().first <= now && out.can_push()) {
         out.push(due_.front().second);
         due_.pop_front();
         busy = true;
      }
      if (busy)
         return Activity::Busy;
      if (!due_.empty())
         wake_at(std::max(due_.front().first, now + 1));
      return Activity::Idle;
   }
   bool drained() const override { return due_.empty(); }

 private:
   Cycle latency_;
   std::deque<std::pair<Cycle, MemResp>> due_;
};

/**
 * A loaded draw whose only content is one shader (vertex or fragment) of
 * @code with @num_regs registers at VRAM address @code_address, its
 * ShaderResources reading @vram, buffer slot B0 = [@buf, @buf + @buf_size).
 * (module_test_util.cpp: the executor's header stays out of this file.)
 */
DrawRef make_shader_draw(Vram &vram, bool fragment, const std::vector<uint32_t> &code,
                         unsigned num_regs, uint64_t code_address, uint64_t buf = 0,
                         uint32_t buf_size = 0);

/** Makes the vertex shader of a make_shader_draw() draw its geometry
 *  shader too (program, resources, state of stage GEOMETRY), with GS
 *  output POINTS and @max_vertices per lane. */
void make_geometry_shader(DrawState &d, unsigned max_vertices);

/** Lets the draw's shaders use MEM on global memory (@vram). */
void enable_global_memory(DrawState &d, Vram &vram);

/** Latency in cycles of the op @mnemonic in the ISA's op table (vlg_op_table). */
unsigned isa_latency(const std::string &mnemonic);

std::vector<uint32_t> assemble(const std::string &text);

} // namespace vlgpu::sim::test
