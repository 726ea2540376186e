/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Mesa's utility shaders (TGSI) through tgsi_to_nir, as the driver does for
 * u_blitter's clears and blits and the HUD (vlg_program.c: tgsi_to_nir, then
 * vlg_compile_nir): the real shader builders of src/gallium/auxiliary
 * (util/u_simple_shaders.c, the HUD's TGSI text from hud/hud_context.c) with
 * a pipe_context whose create_*_state records the tokens and a pipe_screen
 * answering like vlgpu's. A few are also executed on the simulator.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir.h"
#include "nir/tgsi_to_nir.h"
#include "pipe/p_context.h"
#include "pipe/p_defines.h"
#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "sim/func/shader/executor.h"
#include "tgsi/tgsi_parse.h"
#include "tgsi/tgsi_text.h"
#include "util/u_simple_shaders.h"

#include "vlg_compiler.h"

namespace sim = vlgpu::sim;

namespace {

int
screen_get_param(struct pipe_screen *, enum pipe_cap cap)
{
   switch (cap) {
   case PIPE_CAP_TEXTURE_BUFFER_OBJECTS:
   case PIPE_CAP_TEXRECT:
   case PIPE_CAP_NIR_SAMPLERS_AS_DEREF:
   case PIPE_CAP_FS_FACE_IS_INTEGER_SYSVAL:
   case PIPE_CAP_FS_POSITION_IS_SYSVAL:
   case PIPE_CAP_FS_POINT_IS_SYSVAL:
   case PIPE_CAP_NIR_COMPACT_ARRAYS:
      return 0;
   default:
      return 0;
   }
}

int
screen_get_shader_param(struct pipe_screen *, enum pipe_shader_type, enum pipe_shader_cap cap)
{
   switch (cap) {
   case PIPE_SHADER_CAP_INTEGERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return 16;
   case PIPE_SHADER_CAP_PREFERRED_IR:
      return PIPE_SHADER_IR_NIR;
   default:
      return 0;
   }
}

const void *
screen_get_compiler_options(struct pipe_screen *, enum pipe_shader_ir, enum pipe_shader_type shader)
{
   return vlg_compiler_nir_options(shader == PIPE_SHADER_VERTEX ? MESA_SHADER_VERTEX
                                                                : MESA_SHADER_FRAGMENT);
}

struct pipe_screen fake_screen;

/* A "driver" that keeps the TGSI and compiles it like vlg_program.c will. */
struct Captured {
   std::vector<struct tgsi_token> tokens;
   struct vlg_compiled_shader *cs = nullptr;
   std::string error;
};
std::vector<Captured *> captured;

void *
create_shader(struct pipe_context *, const struct pipe_shader_state *state)
{
   Captured *c = new Captured;
   unsigned n = tgsi_num_tokens(state->tokens);
   c->tokens.assign(state->tokens, state->tokens + n);
   nir_shader *nir = tgsi_to_nir(state->tokens, &fake_screen, false);
   char *err = nullptr;
   c->cs = vlg_compile_nir(nir, nullptr, &err);
   if (err)
      c->error = err;
   free(err);
   ralloc_free(nir);
   captured.push_back(c);
   return c;
}

class Tgsi : public ::testing::Test {
 protected:
   struct pipe_context ctx = {};

   static void SetUpTestSuite() { glsl_type_singleton_init_or_ref(); }
   static void TearDownTestSuite() { glsl_type_singleton_decref(); }

   void SetUp() override
   {
      memset(&fake_screen, 0, sizeof(fake_screen));
      fake_screen.get_param = screen_get_param;
      fake_screen.get_shader_param = screen_get_shader_param;
      fake_screen.get_compiler_options = screen_get_compiler_options;
      ctx.screen = &fake_screen;
      ctx.create_vs_state = create_shader;
      ctx.create_fs_state = create_shader;
   }
   void TearDown() override
   {
      for (Captured *c : captured) {
         vlg_compiled_shader_free(c->cs);
         delete c;
      }
      captured.clear();
   }
   Captured *from_text(const char *text)
   {
      struct tgsi_token tokens[1000];
      EXPECT_TRUE(tgsi_text_translate(text, tokens, 1000));
      struct pipe_shader_state state = {};
      pipe_shader_state_from_tgsi(&state, tokens);
      return (Captured *)create_shader(&ctx, &state);
   }
};

#define EXPECT_COMPILED(c) EXPECT_TRUE((c)->cs) << (c)->error

} // namespace

TEST_F(Tgsi, BlitterVertexAndFragmentShaders)
{
   const enum tgsi_semantic sem[2] = {TGSI_SEMANTIC_POSITION, TGSI_SEMANTIC_GENERIC};
   const unsigned idx[2] = {0, 0};
   EXPECT_COMPILED((Captured *)util_make_vertex_passthrough_shader(&ctx, 2, sem, idx, false));
   const enum tgsi_texture_type targets[] = {
      TGSI_TEXTURE_1D,       TGSI_TEXTURE_2D,       TGSI_TEXTURE_3D,  TGSI_TEXTURE_CUBE,
      TGSI_TEXTURE_1D_ARRAY, TGSI_TEXTURE_2D_ARRAY, TGSI_TEXTURE_RECT};
   for (enum tgsi_texture_type t : targets)
      for (int txf = 0; txf < 2; txf++) {
         if (txf && t == TGSI_TEXTURE_CUBE)
            continue;
         for (enum tgsi_return_type rt : {TGSI_RETURN_TYPE_FLOAT, TGSI_RETURN_TYPE_UINT}) {
            Captured *c = (Captured *)util_make_fragment_tex_shader(&ctx, t, rt, rt, false, txf);
            EXPECT_TRUE(c->cs) << "target " << t << " txf " << txf << ": " << c->error;
         }
      }
   EXPECT_COMPILED((Captured *)util_make_fragment_passthrough_shader(
      &ctx, TGSI_SEMANTIC_GENERIC, TGSI_INTERPOLATE_LINEAR, true));
   EXPECT_COMPILED((Captured *)util_make_empty_fragment_shader(&ctx));
   EXPECT_COMPILED((Captured *)util_make_fragment_cloneinput_shader(&ctx, 4, TGSI_SEMANTIC_GENERIC,
                                                                    TGSI_INTERPOLATE_CONSTANT));
   EXPECT_COMPILED((Captured *)util_make_fs_clear_all_cbufs(&ctx));
}

TEST_F(Tgsi, DepthBlitWritesDepthAndStencilExportIsRefused)
{
   Captured *z = (Captured *)util_make_fs_blit_zs(&ctx, PIPE_MASK_Z, TGSI_TEXTURE_2D, false, false);
   ASSERT_TRUE(z->cs) << z->error;
   EXPECT_TRUE(z->cs->state.writes_depth);
   bool depth = false;
   for (unsigned k = 0; k < z->cs->state.num_outputs; k++)
      depth |= z->cs->state.outputs[k].semantic == VLG_OUTPUT_SEMANTIC_DEPTH &&
               z->cs->state.outputs[k].mask == 0x1;
   EXPECT_TRUE(depth);
   /* shader stencil export has no output semantic in shader_state */
   Captured *s = (Captured *)util_make_fs_blit_zs(&ctx, PIPE_MASK_S, TGSI_TEXTURE_2D, false, false);
   EXPECT_FALSE(s->cs);
   EXPECT_NE(s->error.find("FRAG_RESULT_STENCIL"), std::string::npos) << s->error;
}

TEST_F(Tgsi, HudShaders)
{
   /* the three shaders of src/gallium/auxiliary/hud/hud_context.c */
   Captured *fs = from_text("FRAG\n"
                            "DCL IN[0], GENERIC[0], LINEAR\n"
                            "DCL SAMP[0]\n"
                            "DCL SVIEW[0], 2D, FLOAT\n"
                            "DCL OUT[0], COLOR[0]\n"
                            "DCL TEMP[0]\n"
                            "TEX TEMP[0], IN[0], SAMP[0], 2D\n"
                            "MOV OUT[0], TEMP[0].xxxx\n"
                            "END\n");
   EXPECT_COMPILED(fs);
   Captured *vs_text = from_text("VERT\n"
                                 "DCL IN[0..1]\n"
                                 "DCL OUT[0], POSITION\n"
                                 "DCL OUT[1], GENERIC[0]\n"
                                 "DCL CONST[0][0..2]\n"
                                 "DCL TEMP[0]\n"
                                 "IMM[0] FLT32 { -1, 0, 0, 1 }\n"
                                 "IMM[1] FLT32 { 0.0078125, 0.00390625, 1, 1 }\n"
                                 "MAD TEMP[0].xy, IN[0], CONST[0][2].xyyy, CONST[0][1].zwww\n"
                                 "MAD OUT[0].xy, TEMP[0], CONST[0][1].xyyy, IMM[0].xxxx\n"
                                 "MOV OUT[0].zw, IMM[0]\n"
                                 "MUL OUT[1], IN[1], IMM[1]\n"
                                 "END\n");
   EXPECT_COMPILED(vs_text);
   Captured *vs = from_text("VERT\n"
                            "DCL IN[0..1]\n"
                            "DCL OUT[0], POSITION\n"
                            "DCL OUT[1], COLOR[0]\n"
                            "DCL OUT[2], GENERIC[0]\n"
                            "DCL CONST[0][0..2]\n"
                            "DCL TEMP[0]\n"
                            "IMM[0] FLT32 { -1, 0, 0, 1 }\n"
                            "MAD TEMP[0].xy, IN[0], CONST[0][2].xyyy, CONST[0][1].zwww\n"
                            "MAD OUT[0].xy, TEMP[0], CONST[0][1].xyyy, IMM[0].xxxx\n"
                            "MOV OUT[0].zw, IMM[0]\n"
                            "MOV OUT[1], CONST[0][0]\n"
                            "MOV OUT[2], IN[1]\n"
                            "END\n");
   ASSERT_TRUE(vs->cs) << vs->error;

   /* run the color VS on the simulator: values computed here by hand */
   const vlg_compiled_shader *cs = vs->cs;
   const unsigned lanes = 4;
   sim::ThreadGroup tg(lanes, cs->state.num_regs, VLG_SHADER_STAGE_VERTEX);
   const float cb0[12] = {0.1f,  0.2f,  0.3f, 0.4f,  /* color */
                          0.01f, 0.02f, 5.0f, 7.0f,  /* 2/w, 2/h, xoff, yoff */
                          3.0f,  4.0f,  0.0f, 0.0f}; /* xscale, yscale */
   std::vector<uint32_t> image(4 * cs->num_consts);
   for (unsigned e = 0; e < cs->num_consts; e++)
      memcpy(&image[4 * e], cs->consts[e], 16);
   for (unsigned i = 0; i < cs->num_uniform_copies; i++)
      for (unsigned k = 0; k < cs->uniform_copies[i].count; k++)
         memcpy(&image[cs->uniform_copies[i].dst + k], &cb0[cs->uniform_copies[i].src + k], 4);
   for (unsigned k = 0; k < cs->state.num_inputs; k++)
      for (unsigned l = 0; l < lanes; l++) {
         float v[4] = {cs->state.inputs[k].index == 0 ? 10.0f * l : 0.5f,
                       cs->state.inputs[k].index == 0 ? 2.0f : 0.25f, 0, 1};
         for (unsigned c = 0; c < 4; c++)
            if (cs->state.inputs[k].mask & (1u << c))
               tg.set_f(l, cs->state.inputs[k].reg, c, v[c]);
      }
   sim::Program prog(cs->code, cs->state.code_size, cs->state.entry);
   sim::ShaderResources res;
   res.stage = VLG_SHADER_STAGE_VERTEX;
   res.consts = reinterpret_cast<const uint32_t(*)[4]>(image.data());
   res.num_consts = cs->num_consts;
   sim::run(tg, prog, res);
   for (unsigned k = 0; k < cs->state.num_outputs; k++) {
      const auto &o = cs->state.outputs[k];
      for (unsigned l = 0; l < lanes; l++) {
         if (o.semantic == VLG_OUTPUT_SEMANTIC_POSITION) {
            float vx = 10.0f * l * 3.0f + 5.0f, vy = 2.0f * 4.0f + 7.0f;
            EXPECT_FLOAT_EQ(tg.get_f(l, o.reg, 0), vx * 0.01f - 1.0f);
            EXPECT_FLOAT_EQ(tg.get_f(l, o.reg, 1), vy * 0.02f - 1.0f);
            EXPECT_EQ(tg.get_f(l, o.reg, 2), 0.0f);
            EXPECT_EQ(tg.get_f(l, o.reg, 3), 1.0f);
         } else if ((int)o.index == vlg_varying_index(VARYING_SLOT_COL0)) {
            for (unsigned c = 0; c < 4; c++)
               EXPECT_EQ(tg.get_f(l, o.reg, c), cb0[c]);
         } else {
            EXPECT_EQ(tg.get_f(l, o.reg, 0), 0.5f);
            EXPECT_EQ(tg.get_f(l, o.reg, 1), 0.25f);
         }
      }
   }
}
