/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The emission layer (vlg_emit.c): package blocks shared by draws
 * (vlg_draw.c), dispatches (vlg_compute.c) and clears/resolves
 * (vlg_blit.c). Every function writes into ctx->batch; the ones returning
 * bool return false when VRAM is full (the batch could not allocate), and
 * then the caller drops its work with an error.
 */
#ifndef VLG_EMIT_H
#define VLG_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "vlg_context.h"

/** The pipe_state block (VLG_PIPE_STATE_LENGTH dwords, 64-byte aligned)
 *  of the bound CSOs and state; its VRAM address in @address. */
bool vlg_emit_pipe_state(struct vlg_context *ctx, uint64_t *address);

/** shader_state of @so with its global-buffer image (@driver_uniforms:
 *  VLG_DU_SLOTS vec4s, or NULL for a shader without them) and its LDB
 *  buffers; its VRAM address in @address. Adds the code BO to the batch. */
bool vlg_emit_shader(struct vlg_context *ctx, struct vlg_shader_state *so,
                     const uint32_t *driver_uniforms, uint64_t *address);

/** The texture and sampler descriptor arrays of @so's stage: units 0 ..
 *  num_samplers-1 of its shader (*@num of them; unbound units read the
 *  screen's 1x1 (0, 0, 0, 1) texture, GL ES 2.0 §3.8.2). */
bool vlg_emit_stage_textures(struct vlg_context *ctx,
                             struct vlg_shader_state *so, uint64_t *textures,
                             uint64_t *samplers, unsigned *num);

/** Driver uniforms (vlg_compiler.h VLG_DU_*: per shader buffer (address,
 *  size, 0, 0), per image unit two vec4s of layout) of the shader buffers
 *  and images @cs reads, for @stage, into @du (VLG_DU_SLOTS vec4s); adds
 *  their BOs to the batch. Buffers above 4 GiB of VRAM (MEM addresses are
 *  32-bit) are left 0 with an error logged. */
void vlg_memory_uniforms(struct vlg_context *ctx, enum pipe_shader_type stage,
                         const struct vlg_compiled_shader *cs, uint32_t *du);

/** The driver uniforms of a vertex or fragment shader @so that reads
 *  shader buffers or images, in @du (zeroed first), for vlg_emit_shader;
 *  NULL when it reads none. */
const uint32_t *vlg_graphics_driver_uniforms(struct vlg_context *ctx,
                                             const struct vlg_shader_state *so,
                                             uint32_t *du);

/** Add the BOs of the @n surfaces (NULL entries skipped) to the batch. */
void vlg_emit_framebuffer_bos(struct vlg_context *ctx,
                              struct pipe_surface *const *surfaces, unsigned n);

/** Initialise @di for a draw without the vertex/fragment pipeline (CLEAR,
 *  RESOLVE: docs/hw.md "draw_info"): VLG_DRAW_INFO_init, @kind, one
 *  point-list "vertex" per primitive; the caller fills the kind's fields. */
void vlg_fixed_draw_info(struct VLG_DRAW_INFO *di, enum vlg_draw_kind kind);

/**
 * Queue a CLEAR draw (draw_info.kind = CLEAR, docs/hw.md) of the buffers
 * in \p buffers (PIPE_CLEAR_* bits) of the framebuffer block \p fb_words
 * inside \p rect.  Clears are draw calls on this GPU (seed 001 table 3).
 * \return false when VRAM is full.
 */
bool vlg_emit_clear(struct vlg_context *ctx, const uint32_t *fb_words,
                    struct pipe_surface *const *surfaces, unsigned num_surfaces,
                    unsigned buffers, const struct VLG_SCISSOR *rect,
                    const union pipe_color_union *color, double depth,
                    unsigned stencil);

/**
 * Queue a draw: \p di packed into the batch (64-byte aligned) and a DRAW
 * command for it.  The caller records the draw for the statistics and adds
 * the buffer objects it touches.  \return false when VRAM is full.
 */
bool vlg_emit_draw(struct vlg_context *ctx, const struct VLG_DRAW_INFO *di);

/**
 * Queue a draw without the vertex/fragment pipeline (CLEAR, RESOLVE):
 * \p di packed into the batch, a DRAW command for it, the draw recorded
 * for the statistics.  The caller adds the buffer objects it touches.
 * \return false when VRAM is full.
 */
bool vlg_emit_fixed_draw(struct vlg_context *ctx,
                         const struct VLG_DRAW_INFO *di);

#endif
