/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_PROGRAM_H
#define VLG_PROGRAM_H

#include "pipe/p_defines.h"
#include "pipe/p_state.h"

struct nir_shader;
struct pipe_context;
struct pipe_screen;

/**
 * A vertex or fragment shader CSO.
 *
 * Holds the NIR the driver received (st/mesa hands over ownership; TGSI from
 * Mesa's utility shaders is converted with tgsi_to_nir, as lima_program.c
 * does).  Compiling it to VL-IW code is the compiler's job
 * (src/vlgpu/compiler) and is not wired in yet.
 */
struct vlg_shader_state {
   enum pipe_shader_type stage;
   /** Owned NIR (ralloc'ed), freed with the CSO. */
   struct nir_shader *nir;
   /** Unique id within the process, for debug output and dumps. */
   unsigned id;
   struct pipe_stream_output_info stream_output;
};

/** NIR compiler options for \p shader (pipe_screen::get_compiler_options). */
const void *vlg_program_get_compiler_options(struct pipe_screen *pscreen,
                                             enum pipe_shader_ir ir,
                                             enum pipe_shader_type shader);

void vlg_init_program_functions(struct pipe_context *pctx);

#endif /* VLG_PROGRAM_H */
