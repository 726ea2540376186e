/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_FENCE_H
#define VLG_FENCE_H

#include <stdint.h>

#include "pipe/p_state.h"

struct pipe_screen;
struct vlg_screen;

/**
 * A fence: the sequence number of one submission to the (simulated) GPU.
 * It is signalled once the screen's last completed sequence number reaches
 * it.  Reference-counted like every gallium fence.
 */
struct pipe_fence_handle {
   struct pipe_reference reference;
   uint64_t seqno;
};

/** Record a new submission and return a fence for it (refcount 1). */
struct pipe_fence_handle *vlg_fence_create(struct vlg_screen *screen);

/** Mark every submission up to and including \p seqno as completed. */
void vlg_fence_signal(struct vlg_screen *screen, uint64_t seqno);

void vlg_init_screen_fence_functions(struct pipe_screen *pscreen);

#endif /* VLG_FENCE_H */
