/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Shader CSOs: NIR (or TGSI through tgsi_to_nir, for Mesa's utility
 * shaders: u_blitter, clears, HUD) compiled to VL-IW code by the vlgpu
 * compiler when the CSO is created, the binary placed in VRAM and the
 * shader_state block prepared (docs/compiler.md "The C API"; lima_program.c
 * and etnaviv do the same TGSI -> NIR step).
 *
 * VLGPU_DEBUG=nir prints the NIR as it arrives, VLGPU_DEBUG=shaders the
 * disassembly and statistics line of each compiled shader,
 * VLGPU_DEBUG=ice_abort aborts on an internal compiler error instead of
 * failing that shader's compile.
 */

#include <stdio.h>
#include <stdlib.h>

#include "compiler/nir/nir.h"
#include "nir/tgsi_to_nir.h"
#include "tgsi/tgsi_from_mesa.h"
#include "pipe/p_context.h"
#include "util/log.h"
#include "util/u_atomic.h"
#include "util/u_memory.h"

#include "vlg_bo.h"
#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_debug.h"
#include "vlg_program.h"
#include "vlg_screen.h"
#include "vlg_so.h"

/* PIPE_SHADER_* and MESA_SHADER_* are the same numbers in Mesa 22.3
 * (shader_enums.h); the hardware's shader_stage enum keeps them too. */
static_assert((int)VLG_SHADER_STAGE_VERTEX == (int)PIPE_SHADER_VERTEX,
              "shader_stage");
static_assert((int)VLG_SHADER_STAGE_FRAGMENT == (int)PIPE_SHADER_FRAGMENT,
              "shader_stage");
static_assert((int)VLG_SHADER_STAGE_COMPUTE == (int)PIPE_SHADER_COMPUTE,
              "shader_stage");
static_assert((int)VLG_SHADER_STAGE_GEOMETRY == (int)PIPE_SHADER_GEOMETRY,
              "shader_stage");

const void *
vlg_program_get_compiler_options(struct pipe_screen *pscreen,
                                 enum pipe_shader_ir ir,
                                 enum pipe_shader_type shader)
{
   assert(ir == PIPE_SHADER_IR_NIR);
   return vlg_compiler_nir_options((gl_shader_stage)shader);
}

static unsigned vlg_shader_next_id;

static const char *
vlg_stage_name(enum pipe_shader_type stage)
{
   return stage == PIPE_SHADER_VERTEX     ? "VS"
          : stage == PIPE_SHADER_GEOMETRY ? "GS"
          : stage == PIPE_SHADER_COMPUTE ? "CS"
                                         : "FS";
}

/* pipe_context::create_vs_state, create_fs_state and create_gs_state (and
 * through vlg_create_compute_state create_compute_state): the stage is the
 * shader's own, nir->info.stage (tgsi_to_nir takes it from the TGSI
 * header). */
static void *
vlg_create_shader_state(struct pipe_context *pctx, const struct pipe_shader_state *cso)
{
   struct vlg_screen *screen = vlg_screen(pctx->screen);
   struct vlg_shader_state *so = CALLOC_STRUCT(vlg_shader_state);
   nir_shader *nir;

   if (!so)
      return NULL;

   if (cso->type == PIPE_SHADER_IR_NIR) {
      /* st/mesa passes ownership of the NIR to the driver. */
      nir = cso->ir.nir;
   } else {
      assert(cso->type == PIPE_SHADER_IR_TGSI);
      nir = tgsi_to_nir(cso->tokens, pctx->screen, false);
   }

   const enum pipe_shader_type stage = pipe_shader_type_from_mesa(nir->info.stage);
   so->stage = stage;
   so->id = p_atomic_inc_return(&vlg_shader_next_id);

   if (vlg_debug_enabled(VLG_DEBUG_NIR)) {
      fprintf(stderr, "vlgpu: %s shader %u (NIR as received):\n",
              _mesa_shader_stage_to_string(nir->info.stage), so->id);
      nir_print_shader(nir, stderr);
   }

   /* "FS 3 GLSL5 (label)": stage, CSO number, Mesa's name of the GL program
    * (st/mesa: "GLSL" + the program object's name, as MESA_SHADER_CAPTURE_PATH
    * names its N.shader_test files) and its glObjectLabel, if any. */
   char name[128];
   snprintf(name, sizeof(name), "%s %u%s%s%s%s%s", vlg_stage_name(stage), so->id,
            nir->info.name ? " " : "", nir->info.name ? nir->info.name : "",
            nir->info.label ? " (" : "", nir->info.label ? nir->info.label : "",
            nir->info.label ? ")" : "");

   struct vlg_compile_options opts = {
      .disasm = vlg_debug_enabled(VLG_DEBUG_SHADERS),
      .abort_on_internal_error = vlg_debug_enabled(VLG_DEBUG_ICE_ABORT),
      .name = name,
   };
   vlg_debug_compile_options(&opts); /* VLGPU_DEBUG=no-dual,... (ablation) */
   char *error = NULL;
   so->cs = vlg_compile_nir(nir, &opts, &error);
   /* Transform feedback: which output registers of the last vertex stage
    * (VS, or the GS when one is bound) go where (vlg_so.c). */
   if (stage == PIPE_SHADER_VERTEX || stage == PIPE_SHADER_GEOMETRY)
      vlg_so_pack_shader(so, &cso->stream_output, nir);
   ralloc_free(nir);

   if (!so->cs) {
      /* Gallium's create_*_state cannot fail a GL link: st/mesa linked the
       * program already, so the CSO stays, without code, and every draw
       * (dispatch) with it is skipped (vlg_draw.c, vlg_compute.c). The
       * reason goes to stderr and, with GL_DEBUG_OUTPUT on, to the
       * application as a GL_DEBUG_TYPE_ERROR message (GL_KHR_debug). */
      mesa_loge("%s did not compile, draws with it are skipped: %s", name,
                error ? error : "(no message)");
      util_debug_message(&pctx->debug, ERROR,
                         "%s did not compile, draws with it are skipped: %s",
                         name, error ? error : "(no message)");
      free(error);
      return so;
   }
   if (so->cs->disasm)
      fprintf(stderr, "vlgpu: %s:\n%s\n", name, so->cs->disasm);

   so->code_bo = vlg_bo_create(screen, so->cs->state.code_size * 4, 256,
                               "shader binary");
   if (!so->code_bo) {
      vlg_compiled_shader_free(so->cs);
      so->cs = NULL;
      return so;
   }
   memcpy(so->code_bo->map, so->cs->code, so->cs->state.code_size * 4);
   vlg_bo_set_label(so->code_bo, name); /* the shader profile's name */
   return so;
}

static void
vlg_delete_shader_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_shader_state *so = hwcso;

   /* Queued draws hold their own reference to the binary. */
   vlg_bo_reference(&so->code_bo, NULL);
   if (so->cs)
      vlg_compiled_shader_free(so->cs);
   FREE(so);
}

/* Compute shaders (GL ES 3.1 §17): compiled like the other stages; the
 * workgroup size, shared memory and the SSBO/image slots come from the
 * compiler (vlg_compiled_shader), launch_grid is in vlg_compute.c. */
static void *
vlg_create_compute_state(struct pipe_context *pctx,
                         const struct pipe_compute_state *cso)
{
   if (cso->ir_type != PIPE_SHADER_IR_NIR) {
      mesa_loge("vlgpu: compute shaders must be NIR (got IR type %d)",
                cso->ir_type);
      return NULL;
   }
   struct pipe_shader_state s = {
      .type = PIPE_SHADER_IR_NIR,
      .ir.nir = (nir_shader *)cso->prog,
   };
   return vlg_create_shader_state(pctx, &s);
}

static void
vlg_bind_compute_state(struct pipe_context *pctx, void *hwcso)
{
   vlg_context(pctx)->cs = hwcso;
}

void
vlg_init_program_functions(struct pipe_context *pctx)
{
   pctx->create_compute_state = vlg_create_compute_state;
   pctx->bind_compute_state = vlg_bind_compute_state;
   pctx->delete_compute_state = vlg_delete_shader_state;
   pctx->create_vs_state = vlg_create_shader_state;
   pctx->delete_vs_state = vlg_delete_shader_state;
   pctx->create_fs_state = vlg_create_shader_state;
   pctx->delete_fs_state = vlg_delete_shader_state;
   /* Geometry shaders (GL 3.2 core §2.12): run by the GE once per
    * assembled primitive on the SPCs, EMIT/CUT build the output strips
    * (draw_info.gs, vlg_draw.c). */
   pctx->create_gs_state = vlg_create_shader_state;
   pctx->delete_gs_state = vlg_delete_shader_state;
   /* bind_vs_state / bind_fs_state / bind_gs_state are in vlg_state.c with
    * the rest of the bound state. */
}
