/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_PROGRAM_H
#define VLG_PROGRAM_H

#include "pipe/p_defines.h"
#include "pipe/p_state.h"

#include "vlg_hw.h"
#include "vlg_limits.h"

struct pipe_context;
struct pipe_screen;
struct vlg_bo;
struct vlg_compiled_shader;

/**
 * A vertex or fragment shader CSO, compiled to VL-IW code when it is
 * created (src/vlgpu/compiler, docs/compiler.md).
 *
 * Nothing the shader does depends on other state, so there are no
 * variants: st/mesa already lowers what the GPU lacks into its own shader
 * variants (flat shading, two-sided colour, point size, user clip planes,
 * gl_FragCoord conventions), and the draw adapts the compiled shader's
 * output map to the framebuffer (gl_FragColor broadcast to every colour
 * buffer, vlg_draw.c).
 */
struct vlg_shader_state {
   enum pipe_shader_type stage;
   /** Unique id within the process, for messages, statistics and dumps. */
   unsigned id;
   /** The compiler's result, NULL when compilation failed (draws with
    *  this shader are skipped, with the compiler's message logged once). */
   struct vlg_compiled_shader *cs;
   /** The binary in VRAM (docs/hw.md shader_state.code); the rest of
    *  shader_state is cs->state and, per draw, vlg_emit.c's
    *  vlg_emit_shader. */
   struct vlg_bo *code_bo;
   /** VS stream output (vlg_so.c): the captured outputs resolved to VS
    *  output registers, and pipe_stream_output_info.stride (dwords). */
   struct VLG_SO_OUTPUT so_outputs[VLG_HW_MAX_SO_OUTPUTS];
   unsigned num_so_outputs;
   unsigned so_stride[PIPE_MAX_SO_BUFFERS];
};

/** NIR compiler options for \p shader (pipe_screen::get_compiler_options):
 *  the compiler's, vlg_compiler_nir_options(). */
const void *vlg_program_get_compiler_options(struct pipe_screen *pscreen,
                                             enum pipe_shader_ir ir,
                                             enum pipe_shader_type shader);

void vlg_init_program_functions(struct pipe_context *pctx);

#endif /* VLG_PROGRAM_H */
