/*
 * Helpers for the SPC executor tests: assemble a program with the project's
 * assembler (vlg_assemble), build a thread group, run it. Expected values are
 * computed in the tests themselves with host arithmetic written out there,
 * never with the executor's own helpers (alu_ops.h is not included here).
 */
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/func/shader/executor.h"
#include "common/bits.h"

namespace vlgpu::sim::test {

using vlgpu::as_float;
using vlgpu::as_uint;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/** Assembles @text; fails the test (fatal) with the assembler's message on error. */
inline std::vector<uint32_t>
assemble(const std::string &text)
{
   vlg_program p{};
   vlg_isa_error err{};
   if (vlg_assemble(text.c_str(), "test.s", &p, &err) != 0) {
      ADD_FAILURE() << "assembler: " << err.msg << "\n" << text;
      return {};
   }
   std::vector<uint32_t> units(p.units, p.units + p.count);
   vlg_program_free(&p);
   return units;
}

inline std::shared_ptr<const Program>
program(const std::string &text, uint32_t entry = 0)
{
   std::vector<uint32_t> u = assemble(text);
   return std::make_shared<const Program>(u.data(), uint32_t(u.size()), entry);
}

/** A program, a thread group and the resources, for one shader run. */
struct Shader {
   std::shared_ptr<const Program> prog;
   std::unique_ptr<ThreadGroup> tg;
   ShaderResources res;
   std::vector<std::array<uint32_t, 4>> consts;

   explicit Shader(const std::string &text, unsigned width = 16, unsigned num_regs = 32,
                   vlg_shader_stage stage = VLG_SHADER_STAGE_VERTEX, uint32_t group_id = 0)
       : prog(program(text)), tg(std::make_unique<ThreadGroup>(width, num_regs, stage, group_id))
   {
      res.stage = stage;
   }

   /** Sets C[i] (raw words); grows the global buffer as needed. */
   void set_const(unsigned i, std::array<uint32_t, 4> v)
   {
      if (consts.size() <= i)
         consts.resize(i + 1, {0, 0, 0, 0});
      consts[i] = v;
   }
   void set_const_f(unsigned i, float x, float y, float z, float w)
   {
      set_const(i, {as_uint(x), as_uint(y), as_uint(z), as_uint(w)});
   }
   /** R[reg] of every lane = (x, y, z, w). */
   void set_all_f(unsigned reg, float x, float y, float z, float w)
   {
      for (unsigned l = 0; l < tg->width(); l++) {
         tg->set_f(l, reg, 0, x);
         tg->set_f(l, reg, 1, y);
         tg->set_f(l, reg, 2, z);
         tg->set_f(l, reg, 3, w);
      }
   }

   void bind()
   {
      res.consts = reinterpret_cast<const uint32_t(*)[4]>(consts.data());
      res.num_consts = uint32_t(consts.size());
   }

   RunResult go()
   {
      bind();
      return run(*tg, *prog, res);
   }

   StepResult next()
   {
      bind();
      return step(*tg, *prog, res);
   }

   uint32_t r(unsigned lane, unsigned reg, unsigned comp) const { return tg->get(lane, reg, comp); }
   float f(unsigned lane, unsigned reg, unsigned comp) const { return tg->get_f(lane, reg, comp); }
};

/** Runs the shader expecting a GpuFault; returns its report (what()). */
inline std::string
expect_fault(Shader &s)
{
   try {
      s.go();
   } catch (const GpuFault &f) {
      EXPECT_EQ(f.module(), "SPC");
      return f.what();
   }
   ADD_FAILURE() << "expected a GpuFault";
   return {};
}

/** Bitwise float equality, with every NaN equal to every NaN. */
inline ::testing::AssertionResult
same_float(uint32_t got, uint32_t want)
{
   if (got == want || (std::isnan(as_float(got)) && std::isnan(as_float(want))))
      return ::testing::AssertionSuccess();
   char buf[160];
   std::snprintf(buf, sizeof(buf), "got 0x%08X (%.9g), want 0x%08X (%.9g)", got, as_float(got), want,
                 as_float(want));
   return ::testing::AssertionFailure() << buf;
}

} // namespace vlgpu::sim::test
