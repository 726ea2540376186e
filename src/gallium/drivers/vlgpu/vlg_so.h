/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Stream output (transform feedback): targets, the VS's captured outputs
 * and the per-draw stream_output block (docs/hw.md "Stream output").
 */

#ifndef VLG_SO_H
#define VLG_SO_H

#include "pipe/p_state.h"

#include "vlg_hw.h"

struct nir_shader;
struct vlg_context;
struct vlg_shader_state;

/** A stream-output target: the buffer range and the 4-byte filled_size
 *  word the GPU stores the end offset of every draw in. */
struct vlg_so_target {
   struct pipe_stream_output_target base;
   /** filled_size (docs/hw.md so_buffer.filled_size). */
   struct vlg_bo *filled;
   /** Next draw starts at *filled (append) instead of start_offset. */
   bool append;
   /** Byte offset set_stream_output_targets asked for (not append). */
   unsigned start_offset;
   /** Bytes per vertex of the last draw that wrote it (draw auto). */
   unsigned stride;
};

static inline struct vlg_so_target *
vlg_so_target(struct pipe_stream_output_target *t)
{
   return (struct vlg_so_target *)t;
}

/** The VS's captured outputs (VLG_SO_OUTPUT words resolved to VS output
 *  registers), from cso->stream_output and the NIR's output slots: fills
 *  so->so_outputs / num_so_outputs / so_stride. */
void vlg_so_pack_shader(struct vlg_shader_state *so,
                        const struct pipe_stream_output_info *info,
                        const struct nir_shader *nir);

/** Whether the next draw needs a stream_output block (targets bound or a
 *  primitive query active). */
bool vlg_so_active(const struct vlg_context *ctx);

/** Write this draw's stream_output block into the batch (*address, 0 if
 *  none is needed); false when the batch is out of memory. */
bool vlg_so_emit(struct vlg_context *ctx, uint64_t *address);

/** After a draw with the block: bound targets append from now on. */
void vlg_so_draw_done(struct vlg_context *ctx);

/** glDrawTransformFeedback: vertices written to the target so far
 *  (filled_size / the stride its last draw used), after flushing. */
unsigned vlg_so_vertex_count(struct vlg_context *ctx,
                             struct pipe_stream_output_target *t);

void vlg_init_so_functions(struct pipe_context *pctx);

#endif
