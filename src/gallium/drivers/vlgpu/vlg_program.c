/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Shader CSOs and the NIR options st/mesa uses when it builds NIR for vlgpu.
 *
 * The driver receives NIR (PIPE_SHADER_CAP_PREFERRED_IR = NIR); Mesa's
 * utility shaders (u_blitter, clears, HUD) still arrive as TGSI and go
 * through tgsi_to_nir, like lima_program.c and etnaviv.  Compilation to
 * VL-IW code (src/vlgpu/compiler) is not wired in yet: the CSO keeps the NIR
 * for it.  VLGPU_DEBUG=nir prints what arrives.
 */

#include <stdio.h>

#include "compiler/nir/nir.h"
#include "nir/tgsi_to_nir.h"
#include "pipe/p_context.h"
#include "util/u_atomic.h"
#include "util/u_memory.h"

#include "vlg_debug.h"
#include "vlg_program.h"

/*
 * What st/mesa should lower before the driver sees a shader, from the VL-IW
 * op set (brief §4.5, seed 004): vec4 registers with DP3/DP4, MAD, RCP, RSQ,
 * EX2/LG2, SIN/COS, FLR/FRC, MIN/MAX, integer AND/OR/XOR/SHF, CMP/SEL, no
 * divide, no square root, no pow, no stack (so no indirect temporaries).
 * The compiler (src/vlgpu/compiler) owns these once it exists and may move
 * them; keep this one table in sync with its instruction selection.
 */
static const nir_shader_compiler_options vlg_nir_options = {
   .lower_fdiv = true,        /* RCP + MUL */
   .lower_fsqrt = true,       /* RSQ + RCP */
   .lower_fpow = true,        /* EX2(LG2(x) * y) */
   .lower_fmod = true,
   .lower_flrp32 = true,
   .lower_flrp64 = true,
   .lower_fdph = true,
   .lower_fsign = true,
   .lower_fceil = true,       /* -FLR(-x) */
   .lower_ldexp = true,
   .lower_rotate = true,
   .lower_bitfield_extract_to_shifts = true,
   .lower_bitfield_insert_to_shifts = true,
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_insert_byte = true,
   .lower_insert_word = true,
   .lower_pack_half_2x16 = true,
   .lower_unpack_half_2x16 = true,
   .lower_pack_snorm_2x16 = true,
   .lower_pack_unorm_2x16 = true,
   .lower_pack_snorm_4x8 = true,
   .lower_pack_unorm_4x8 = true,
   .lower_unpack_snorm_2x16 = true,
   .lower_unpack_unorm_2x16 = true,
   .lower_unpack_snorm_4x8 = true,
   .lower_unpack_unorm_4x8 = true,
   .fuse_ffma32 = true,       /* MAD = MUL + ADD in one instruction */
   .fdot_replicates = true,   /* DP3/DP4 write the result to every component */
   .lower_int64_options = ~0,
   .lower_doubles_options = ~0,
   .force_indirect_unrolling = nir_var_shader_in | nir_var_shader_out |
                               nir_var_function_temp,
   .force_indirect_unrolling_sampler = true,
   .max_unroll_iterations = 32,
};

const void *
vlg_program_get_compiler_options(struct pipe_screen *pscreen,
                                 enum pipe_shader_ir ir,
                                 enum pipe_shader_type shader)
{
   assert(ir == PIPE_SHADER_IR_NIR);
   return &vlg_nir_options;
}

static unsigned vlg_shader_next_id;

static void *
vlg_create_shader_state(struct pipe_context *pctx,
                        const struct pipe_shader_state *cso,
                        enum pipe_shader_type stage)
{
   struct vlg_shader_state *so = CALLOC_STRUCT(vlg_shader_state);

   if (!so)
      return NULL;

   if (cso->type == PIPE_SHADER_IR_NIR) {
      /* st/mesa passes ownership of the NIR to the driver. */
      so->nir = cso->ir.nir;
   } else {
      assert(cso->type == PIPE_SHADER_IR_TGSI);
      so->nir = tgsi_to_nir(cso->tokens, pctx->screen, false);
   }

   so->stage = stage;
   so->id = p_atomic_inc_return(&vlg_shader_next_id);
   so->stream_output = cso->stream_output;

   if (vlg_debug_enabled(VLG_DEBUG_NIR)) {
      fprintf(stderr, "vlgpu: %s shader %u (NIR as received):\n",
              _mesa_shader_stage_to_string(so->nir->info.stage), so->id);
      nir_print_shader(so->nir, stderr);
   }

   return so;
}

static void
vlg_delete_shader_state(struct pipe_context *pctx, void *hwcso)
{
   struct vlg_shader_state *so = hwcso;

   ralloc_free(so->nir);
   FREE(so);
}

static void *
vlg_create_vs_state(struct pipe_context *pctx,
                    const struct pipe_shader_state *cso)
{
   return vlg_create_shader_state(pctx, cso, PIPE_SHADER_VERTEX);
}

static void *
vlg_create_fs_state(struct pipe_context *pctx,
                    const struct pipe_shader_state *cso)
{
   return vlg_create_shader_state(pctx, cso, PIPE_SHADER_FRAGMENT);
}

void
vlg_init_program_functions(struct pipe_context *pctx)
{
   pctx->create_vs_state = vlg_create_vs_state;
   pctx->delete_vs_state = vlg_delete_shader_state;
   pctx->create_fs_state = vlg_create_fs_state;
   pctx->delete_fs_state = vlg_delete_shader_state;
   /* bind_vs_state / bind_fs_state are in vlg_state.c with the rest of the
    * bound state. */
}
