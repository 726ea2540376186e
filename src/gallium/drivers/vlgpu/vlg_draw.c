/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Draw calls.
 *
 * NOT IMPLEMENTED YET: draw_vbo drops the draw and warns once.  The plan
 * (brief §1, §5): pack the bound state (vlg_context) into pipe_state and
 * shader_state words, compile the shaders to VL-IW code, place vertex data,
 * uniforms, textures and binaries in simulated VRAM, append DRAW to the
 * command queue, and let the simulator render it.
 */

#include "util/log.h"

#include "vlg_context.h"

static void
vlg_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
             unsigned drawid_offset,
             const struct pipe_draw_indirect_info *indirect,
             const struct pipe_draw_start_count_bias *draws,
             unsigned num_draws)
{
   struct vlg_context *ctx = vlg_context(pctx);

   ctx->draws_dropped += num_draws;
   mesa_logw_once("draw_vbo not implemented yet: draw calls are dropped, "
                  "only clears reach the render target");
}

void
vlg_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = vlg_draw_vbo;
}
