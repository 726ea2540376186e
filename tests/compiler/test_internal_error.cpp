/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Internal compiler errors (vlg_passes.h InternalError, VLG_ICE, VLG_CHECK;
 * docs/compiler.md "Internal errors"): a broken invariant of the compiler
 * is an exception with the file and line of the check, and vlg_compile_nir
 * turns it, or any other exception a pass throws, into a failed compile
 * whose message names the shader, the stage and the pass, never an abort;
 * with vlg_compile_options::abort_on_internal_error (VLGPU_DEBUG=ice_abort)
 * it aborts with that message instead (death tests).
 *
 * Failures are injected with vlgpu::pass_hook_for_tests, which
 * vlg_compile_nir calls after each pass while that pass is the current one.
 */
#include "vlg_test_util.h"

#include <new>
#include <stdexcept>

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

const char *const kPasses[] = {"nir",      "isel",  "pack", "legalize",
                               "coalesce", "sched", "ra",   "emit"};

/* A fragment shader that goes through every pass (coalesce included). */
const char *const kFs = "#version 300 es\n"
                        "precision highp float;\n"
                        "uniform vec4 u;\n"
                        "out vec4 color;\n"
                        "void main() { color = u * 2.0 + vec4(0.25); }\n";

/* What the hook does, set per test. */
const char *g_target_pass = nullptr;
void (*g_action)(Shader &S) = nullptr;
std::vector<std::string> g_passes_seen;

void
hook(const char *pass, Shader &S)
{
   g_passes_seen.push_back(pass);
   if (g_target_pass && strcmp(pass, g_target_pass) == 0 && g_action)
      g_action(S);
}

/* The line of the VLG_ICE below, for the expected "FILE:LINE". */
int g_ice_line = 0;
void
throw_ice(Shader &)
{
   g_ice_line = __LINE__ + 1;
   VLG_ICE("injected failure");
}

class InternalErrorTest : public ::testing::Test {
 protected:
   void SetUp() override
   {
      g_target_pass = nullptr;
      g_action = nullptr;
      g_passes_seen.clear();
      pass_hook_for_tests = hook;
   }
   void TearDown() override { pass_hook_for_tests = nullptr; }

   /* Compile kFs with @action run after @pass; the compiler's message. */
   static std::string fail_in(const char *pass, void (*action)(Shader &),
                              vlg_compile_options opts = {})
   {
      g_target_pass = pass;
      g_action = action;
      CompiledProgram p = compile_glsl("", kFs, opts);
      EXPECT_EQ(p.fs, nullptr) << "compiled although pass " << pass << " failed";
      return p.error;
   }
};

} // namespace

TEST_F(InternalErrorTest, CheckThrowsInternalErrorWithFileAndLine)
{
   int line = 0;
   try {
      line = __LINE__ + 1;
      VLG_CHECK(1 + 1 == 3, "arithmetic");
      FAIL() << "VLG_CHECK of a false condition returned";
   } catch (const CompileError &) {
      FAIL() << "an internal error must not be a CompileError";
   } catch (const InternalError &e) {
      EXPECT_STREQ(e.file, "test_internal_error.cpp");
      EXPECT_EQ(e.line, line);
      EXPECT_EQ(std::string(e.what()), "test_internal_error.cpp:" + std::to_string(line) +
                                          ": check '1 + 1 == 3' failed: arithmetic");
   }
   EXPECT_NO_THROW(VLG_CHECK(1 + 1 == 2, "arithmetic"));
}

/* Real invariants of the passes (not a hook): misuse is an InternalError
 * naming the pass's file, not an abort. */
TEST_F(InternalErrorTest, PassInvariantsAreInternalErrors)
{
   Shader S = make_shader(2);
   Builder b(S);
   b.alu(VLG_OP_ADD, reg(1), 0xf, reg(0), imm_f(1.0f));
   b.end();
   compute_cfg(S);
   try {
      register_allocate(S, true, true); /* before schedule() */
      FAIL() << "register allocation of an unscheduled shader succeeded";
   } catch (const InternalError &e) {
      EXPECT_STREQ(e.file, "vlg_ra.cpp");
      EXPECT_NE(std::string(e.what()).find("register allocation before scheduling"),
                std::string::npos)
         << e.what();
   }
   try {
      legalize(S); /* before pack_global_buffer(): the literal 1.0 is not placed */
      FAIL() << "legalize of an unpacked shader succeeded";
   } catch (const InternalError &e) {
      EXPECT_STREQ(e.file, "vlg_legalize.cpp");
   }
}

TEST_F(InternalErrorTest, HookSeesEveryPassOfACompile)
{
   CompiledProgram p = compile_glsl("", kFs);
   ASSERT_NE(p.fs, nullptr) << p.error;
   std::vector<std::string> expected(std::begin(kPasses), std::end(kPasses));
   EXPECT_EQ(g_passes_seen, expected);
}

TEST_F(InternalErrorTest, InternalErrorInEachPassFailsTheCompileWithItsMessage)
{
   for (const char *pass : kPasses) {
      SCOPED_TRACE(pass);
      const std::string msg = fail_in(pass, throw_ice);
      const std::string expected = std::string("vlgpu: FS 'test.frag': internal compiler error "
                                               "in pass '") +
                                   pass + "': test_internal_error.cpp:" +
                                   std::to_string(g_ice_line) + ": injected failure\n";
      EXPECT_EQ(msg, expected);
   }
   /* the compiler still works afterwards */
   g_action = nullptr;
   CompiledProgram p = compile_glsl("", kFs);
   EXPECT_NE(p.fs, nullptr) << p.error;
}

TEST_F(InternalErrorTest, ValidationFailureInThePipelineIsAnInternalError)
{
   /* isel's IR loses its blocks: validation after the next pass (pack) fails */
   const std::string msg = fail_in("isel", [](Shader &S) { S.blocks.clear(); });
   EXPECT_NE(msg.find("vlgpu: FS 'test.frag': internal compiler error in pass 'pack': "
                      "vlg_validate.cpp:"),
             std::string::npos)
      << msg;
   EXPECT_NE(msg.find("IR validation failed after pack: a program needs at least one block"),
             std::string::npos)
      << msg;
}

TEST_F(InternalErrorTest, OtherExceptionsAreInternalErrorsToo)
{
   EXPECT_EQ(fail_in("sched", [](Shader &) { throw std::out_of_range("map::at"); }),
             "vlgpu: FS 'test.frag': internal compiler error in pass 'sched': unexpected "
             "exception: map::at\n");
   EXPECT_EQ(fail_in("legalize", [](Shader &) { throw 42; }),
             "vlgpu: FS 'test.frag': internal compiler error in pass 'legalize': an exception "
             "of unknown type\n");
}

TEST_F(InternalErrorTest, OutOfMemoryAndCompileErrorsAreNotInternal)
{
   EXPECT_EQ(fail_in("ra", [](Shader &) { throw std::bad_alloc(); }),
             "vlgpu: FS 'test.frag': out of memory in pass 'ra'\n");
   EXPECT_EQ(fail_in("pack", [](Shader &) { throw CompileError("too many constants"); }),
             "vlgpu: FS 'test.frag': too many constants\n");
   /* not even with the abort flag: an unsupported shader is not a bug */
   vlg_compile_options o = {};
   o.abort_on_internal_error = true;
   EXPECT_EQ(fail_in("pack", [](Shader &) { throw CompileError("too many constants"); }, o),
             "vlgpu: FS 'test.frag': too many constants\n");
}

TEST_F(InternalErrorTest, NullShaderIsAnErrorNotACrash)
{
   char *err = nullptr;
   EXPECT_EQ(vlg_compile_nir(nullptr, nullptr, &err), nullptr);
   ASSERT_NE(err, nullptr);
   EXPECT_STREQ(err, "vlgpu: vlg_compile_nir: no shader (NULL)");
   free(err);
}

using InternalErrorDeathTest = InternalErrorTest;

TEST_F(InternalErrorDeathTest, AbortFlagAbortsAtTheCheckWithTheMessage)
{
   GTEST_FLAG_SET(death_test_style, "threadsafe");
   vlg_compile_options o = {};
   o.abort_on_internal_error = true;
   EXPECT_DEATH(fail_in("ra", throw_ice, o),
                "vlgpu: FS 'test.frag': internal compiler error in pass 'ra': "
                "test_internal_error.cpp:[0-9]+: injected failure");
   EXPECT_DEATH(fail_in("sched", [](Shader &) { throw std::runtime_error("boom"); }, o),
                "internal compiler error in pass 'sched': unexpected exception: boom");
}
