/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Stream output (transform feedback, GL ES 3.0 §2.15; docs/hw.md "Stream
 * output").
 *
 *  - create_stream_output_target: the buffer range plus a 4-byte VRAM word
 *    (filled_size) in which the GPU stores where each draw stopped writing.
 *  - set_stream_output_targets: offsets[i] == (unsigned)-1 means append
 *    (resume after pause, or keep going): the next draw reads its start
 *    offset from filled_size; any other offset is where the next draw
 *    starts.  After a draw every bound target appends.
 *  - The VS's pipe_stream_output_info is resolved to VS output registers
 *    when the VS is created (vlg_so_pack_shader); a draw copies those words
 *    and the targets' into its stream_output block (vlg_so_emit).
 *  - glDrawTransformFeedback (count_from_stream_output): the driver flushes
 *    and reads filled_size (submits are synchronous), vlg_so_vertex_count.
 *  - Primitive queries (vlg_query.c) get counter pairs the GPU adds the
 *    draw's generated and written primitives to.
 */

#include <string.h>

#include "compiler/nir/nir.h"
#include "util/log.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vlg_bo.h"
#include "vlg_compiler.h"
#include "vlg_context.h"
#include "vlg_program.h"
#include "vlg_resource.h"
#include "vlg_screen.h"
#include "vlg_so.h"

void
vlg_so_pack_shader(struct vlg_shader_state *so,
                   const struct pipe_stream_output_info *info,
                   const struct nir_shader *nir)
{
   so->num_so_outputs = 0;
   for (unsigned b = 0; b < PIPE_MAX_SO_BUFFERS; b++)
      so->so_stride[b] = info->stride[b];
   if (!info->num_outputs || !so->cs)
      return;

   /* pipe_stream_output::register_index is the rank of the output slot
    * among the shader's written outputs (st_program.c
    * st_translate_stream_output_info), PSIZ left out when st/mesa added it
    * (no explicit location). */
   bool skip_psiz = false;
   nir_foreach_shader_out_variable(var, nir) {
      if (var->data.location == VARYING_SLOT_PSIZ &&
          !var->data.explicit_location)
         skip_psiz = true;
   }
   int slot_of_rank[VARYING_SLOT_MAX];
   unsigned n = 0;
   for (unsigned s = 0; s < VARYING_SLOT_MAX && s < 64; s++) {
      if (skip_psiz && s == VARYING_SLOT_PSIZ)
         continue;
      if (nir->info.outputs_written & BITFIELD64_BIT(s))
         slot_of_rank[n++] = s;
   }

   /* GL's limits keep a linked program within the so_output entries:
    * interleaved, at most 64 components in entries of at least one;
    * separate, 4 varyings spanning at most the 18 VS output registers. */
   const struct vlg_compiled_shader *cs = so->cs;
   if (info->num_outputs > VLG_HW_MAX_SO_OUTPUTS)
      mesa_loge("stream output: %u captured ranges, only the first %u are "
                "written (so_output entries)",
                info->num_outputs, VLG_HW_MAX_SO_OUTPUTS);
   for (unsigned i = 0; i < info->num_outputs && i < VLG_HW_MAX_SO_OUTPUTS;
        i++) {
      const struct pipe_stream_output *o = &info->output[i];
      if (o->register_index >= n || o->stream != 0) {
         mesa_logw("stream output %u: register %u / stream %u not captured",
                   i, o->register_index, o->stream);
         continue;
      }
      const int slot = slot_of_rank[o->register_index];
      enum vlg_output_semantic sem;
      int index = 0;
      if (slot == VARYING_SLOT_POS) {
         sem = VLG_OUTPUT_SEMANTIC_POSITION;
      } else if (slot == VARYING_SLOT_PSIZ) {
         sem = VLG_OUTPUT_SEMANTIC_POINT_SIZE;
      } else {
         sem = VLG_OUTPUT_SEMANTIC_VARYING;
         index = vlg_varying_index(slot);
      }
      int reg = -1;
      for (unsigned k = 0; k < cs->state.num_outputs; k++) {
         if (cs->state.outputs[k].semantic == sem &&
             (sem != VLG_OUTPUT_SEMANTIC_VARYING ||
              (int)cs->state.outputs[k].index == index))
            reg = cs->state.outputs[k].reg;
      }
      if (reg < 0) {
         /* The VS never writes it: GL leaves the captured value undefined;
          * the GPU then writes nothing for it. */
         continue;
      }
      struct VLG_SO_OUTPUT *w = &so->so_outputs[so->num_so_outputs++];
      VLG_SO_OUTPUT_init(w);
      w->reg = reg;
      w->start_component = o->start_component;
      w->num_components = o->num_components;
      w->buffer = o->output_buffer;
      w->dst_offset = o->dst_offset;
   }
}

static struct pipe_stream_output_target *
vlg_create_stream_output_target(struct pipe_context *pctx,
                                struct pipe_resource *prsc,
                                unsigned buffer_offset, unsigned buffer_size)
{
   struct vlg_so_target *t = CALLOC_STRUCT(vlg_so_target);

   if (!t)
      return NULL;
   t->filled = vlg_bo_create(vlg_screen(pctx->screen), 4, 4,
                             "stream-output filled size");
   if (!t->filled) {
      FREE(t);
      return NULL;
   }
   memset(t->filled->map, 0, 4);
   pipe_reference_init(&t->base.reference, 1);
   pipe_resource_reference(&t->base.buffer, prsc);
   t->base.context = pctx;
   t->base.buffer_offset = buffer_offset;
   t->base.buffer_size = buffer_size;
   return &t->base;
}

static void
vlg_stream_output_target_destroy(struct pipe_context *pctx,
                                 struct pipe_stream_output_target *pt)
{
   struct vlg_so_target *t = vlg_so_target(pt);

   pipe_resource_reference(&t->base.buffer, NULL);
   /* Queued draws hold their own reference to the word. */
   vlg_bo_reference(&t->filled, NULL);
   FREE(t);
}

static void
vlg_set_stream_output_targets(struct pipe_context *pctx, unsigned num_targets,
                              struct pipe_stream_output_target **targets,
                              const unsigned *offsets)
{
   struct vlg_context *ctx = vlg_context(pctx);

   for (unsigned i = 0; i < PIPE_MAX_SO_BUFFERS; i++) {
      struct pipe_stream_output_target *t =
         i < num_targets ? targets[i] : NULL;
      pipe_so_target_reference(&ctx->so_targets[i], t);
      /* (unsigned)-1 keeps the target where it is: appending after a draw,
       * or still at the offset given at an earlier bind (u_blitter
       * restores targets with -1). */
      if (t && offsets[i] != (unsigned)-1) {
         struct vlg_so_target *st = vlg_so_target(t);
         st->append = false;
         st->start_offset = offsets[i];
      }
   }
   ctx->num_so_targets = num_targets;
}

bool
vlg_so_active(const struct vlg_context *ctx)
{
   if (ctx->num_so_queries)
      return true;
   for (unsigned i = 0; i < ctx->num_so_targets; i++)
      if (ctx->so_targets[i])
         return true;
   return false;
}

bool
vlg_so_emit(struct vlg_context *ctx, uint64_t *address)
{
   *address = 0;
   if (!vlg_so_active(ctx))
      return true;

   /* The last vertex stage's outputs are captured: the GS's when one is
    * bound (GL 3.2 core §2.16). */
   const struct vlg_shader_state *vs = ctx->gs ? ctx->gs : ctx->vs;
   struct VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);

   so.num_counters = vlg_query_so_counters(ctx, &so.counters);
   bool any_target = false;
   for (unsigned b = 0; b < ctx->num_so_targets && b < VLG_HW_MAX_SO_BUFFERS;
        b++) {
      struct pipe_stream_output_target *pt = ctx->so_targets[b];
      if (!pt || !pt->buffer)
         continue;
      struct vlg_so_target *t = vlg_so_target(pt);
      struct vlg_resource *rsc = vlg_resource(pt->buffer);
      struct VLG_SO_BUFFER *buf = &so.buffers[b];
      const uint64_t end = MIN2((uint64_t)pt->buffer_offset + pt->buffer_size,
                                rsc->size);

      buf->enable = true;
      buf->append = t->append;
      buf->stride = vs->so_stride[b] * 4;
      buf->address = rsc->bo->address + pt->buffer_offset;
      buf->size = end > pt->buffer_offset ? end - pt->buffer_offset : 0;
      buf->offset = t->start_offset;
      buf->filled_size = t->filled->address;
      t->stride = buf->stride;
      vlg_batch_add_bo(&ctx->batch, rsc->bo);
      vlg_batch_add_bo(&ctx->batch, t->filled);
      any_target = true;
   }
   if (any_target) {
      so.num_outputs = vs->num_so_outputs;
      memcpy(so.outputs, vs->so_outputs,
             vs->num_so_outputs * sizeof(vs->so_outputs[0]));
   }

   uint32_t *w = vlg_batch_alloc(&ctx->batch, VLG_STREAM_OUTPUT_LENGTH * 4, 16,
                                 address);
   if (!w)
      return false;
   VLG_STREAM_OUTPUT_pack(w, &so);
   return true;
}

void
vlg_so_draw_done(struct vlg_context *ctx)
{
   for (unsigned i = 0; i < ctx->num_so_targets; i++)
      if (ctx->so_targets[i])
         vlg_so_target(ctx->so_targets[i])->append = true;
}

unsigned
vlg_so_vertex_count(struct vlg_context *ctx, struct pipe_stream_output_target *pt)
{
   const unsigned stride_bytes = vlg_so_target(pt)->stride;
   struct vlg_so_target *t = vlg_so_target(pt);
   uint32_t filled;

   if (vlg_batch_uses_bo(&ctx->batch, t->filled))
      vlg_context_flush(ctx, NULL, 0);
   memcpy(&filled, t->filled->map, 4);
   return stride_bytes ? filled / stride_bytes : 0;
}

void
vlg_init_so_functions(struct pipe_context *pctx)
{
   pctx->create_stream_output_target = vlg_create_stream_output_target;
   pctx->stream_output_target_destroy = vlg_stream_output_target_destroy;
   pctx->set_stream_output_targets = vlg_set_stream_output_targets;
}
