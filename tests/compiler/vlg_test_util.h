/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Helpers of the compiler tests: IR built with the Builder and compared as
 * text (ASSERT_SHADER_EQUAL, like asahi's agx tests), and GLSL ES compiled
 * through Mesa's front end (vlg_glsl.h) and vlg_compile_nir.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/nir/nir.h"

#include "vlg_builder.h"
#include "vlg_compiler.h"
#include "vlg_glsl.h"
#include "vlg_passes.h"
#include "vlg_sched.h"

namespace vlgpu::test {

/** Lines without leading/trailing blanks, empty lines dropped: the expected
 *  IR in a test can be indented freely. */
inline std::string
normalize_text(const std::string &s)
{
   std::istringstream in(s);
   std::string line, out;
   while (std::getline(in, line)) {
      size_t a = line.find_first_not_of(" \t");
      if (a == std::string::npos)
         continue;
      size_t b = line.find_last_not_of(" \t");
      out += line.substr(a, b - a + 1) + "\n";
   }
   return out;
}

#define ASSERT_SHADER_EQUAL(S, expected)                                                           \
   ASSERT_EQ(::vlgpu::test::normalize_text(::vlgpu::print_shader(S)),                              \
             ::vlgpu::test::normalize_text(expected))

#define EXPECT_SHADER_EQUAL(S, expected)                                                           \
   EXPECT_EQ(::vlgpu::test::normalize_text(::vlgpu::print_shader(S)),                              \
             ::vlgpu::test::normalize_text(expected))

/** A shader with @nblocks empty blocks and @nvregs vregs of width 1. */
inline Shader
make_shader(unsigned nvregs, unsigned nblocks = 1, unsigned stage = MESA_SHADER_VERTEX)
{
   Shader S;
   S.stage = stage;
   S.name = "test";
   for (unsigned i = 0; i < nblocks; i++)
      S.new_block();
   for (unsigned i = 0; i < nvregs; i++)
      S.new_vreg();
   return S;
}

inline uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

inline float
bitsf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

struct ShaderDeleter {
   void operator()(vlg_compiled_shader *cs) const { vlg_compiled_shader_free(cs); }
};
using CompiledPtr = std::unique_ptr<vlg_compiled_shader, ShaderDeleter>;

/** Compiled VS and FS of one GLSL ES program (either may be null on error). */
struct CompiledProgram {
   CompiledPtr vs, fs;
   std::string error; /**< front-end log or compiler message */
   /* What the front end decided, by variable name (before vlg_compile_nir):
    * uniform vec4 slot in constant buffer 0, VS attribute index (ATTRIBUTE
    * input index), VS output / FS input varying slot (gl_varying_slot). */
   std::map<std::string, unsigned> uniform_slot, attribute;
   std::map<std::string, int> vs_out, fs_in;
};

/**
 * Compile GLSL ES sources through the front end and vlg_compile_nir. Pass an
 * empty string for a stage that is absent (then the other one is compiled as
 * a separable program).
 */
inline CompiledProgram
compile_glsl(const std::string &vs, const std::string &fs, vlg_compile_options opts = {})
{
   CompiledProgram r;
   std::vector<GlslSource> srcs;
   if (!vs.empty())
      srcs.push_back({"test.vert", MESA_SHADER_VERTEX, vs});
   if (!fs.empty())
      srcs.push_back({"test.frag", MESA_SHADER_FRAGMENT, fs});
   std::vector<nir_shader *> nirs;
   if (!glsl_to_vlgpu_nir(srcs, nirs, r.error))
      return r;
   for (unsigned i = 0; i < nirs.size(); i++) {
      bool vs_stage = srcs[i].stage == MESA_SHADER_VERTEX;
      nir_foreach_variable_with_modes (var, nirs[i], nir_var_uniform)
         if (var->name)
            r.uniform_slot[var->name] = var->data.driver_location;
      nir_foreach_shader_in_variable(var, nirs[i]) if (var->name)
      {
         if (vs_stage)
            r.attribute[var->name] = var->data.driver_location;
         else
            r.fs_in[var->name] = var->data.location;
      }
      if (vs_stage)
         nir_foreach_shader_out_variable(var, nirs[i]) if (var->name) r.vs_out[var->name] =
            var->data.location;
      char *err = nullptr;
      opts.name = srcs[i].name.c_str();
      opts.validate = true; /* IR validation after every pass, in any build */
      vlg_compiled_shader *cs = vlg_compile_nir(nirs[i], &opts, &err);
      if (!cs) {
         r.error += err ? err : "compile failed";
         r.error += "\n";
      }
      free(err);
      (srcs[i].stage == MESA_SHADER_VERTEX ? r.vs : r.fs).reset(cs);
      ralloc_free(nirs[i]);
   }
   return r;
}

/** A compiled GLSL ES 3.10 compute shader (null on error, with the log). */
struct CompiledCompute {
   CompiledPtr cs;
   std::string error;
   std::map<std::string, unsigned> uniform_slot; /**< uniform vec4 slot in constant buffer 0 */
};

inline CompiledCompute
compile_compute(const std::string &src, vlg_compile_options opts = {})
{
   CompiledCompute r;
   std::vector<GlslSource> srcs = {{"test.comp", MESA_SHADER_COMPUTE, src}};
   std::vector<nir_shader *> nirs;
   if (!glsl_to_vlgpu_nir(srcs, nirs, r.error))
      return r;
   nir_foreach_variable_with_modes (var, nirs[0], nir_var_uniform)
      if (var->name)
         r.uniform_slot[var->name] = var->data.driver_location;
   char *err = nullptr;
   opts.name = "test.comp";
   opts.validate = true; /* IR validation after every pass, in any build */
   r.cs.reset(vlg_compile_nir(nirs[0], &opts, &err));
   if (!r.cs)
      r.error += err ? err : "compile failed";
   free(err);
   ralloc_free(nirs[0]);
   return r;
}

/** Disassembly lines of the code (no comments, no addresses). */
inline std::string
disasm_code(const vlg_compiled_shader *cs)
{
   char *buf = nullptr;
   size_t size = 0;
   FILE *fp = open_memstream(&buf, &size);
   vlg_isa_error err;
   int rc = vlg_disasm_program(fp, cs->code, cs->state.code_size, 0, &err);
   fclose(fp);
   std::string s(buf, size);
   free(buf);
   if (rc < 0)
      s += std::string("; error: ") + err.msg + "\n";
   return normalize_text(s);
}

} // namespace vlgpu::test
