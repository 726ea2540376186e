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
 * A fence: the sequence number of one submitted command queue, whose SYNC
 * command makes the CP write the number into VRAM once every draw before
 * it has completed (docs/hw.md cmd_sync).  Signalled once the screen's last
 * completed sequence number reaches it.  Reference-counted like every
 * gallium fence.
 */
struct pipe_fence_handle {
   struct pipe_reference reference;
   uint64_t seqno;
};

/** Reserve the sequence number of the next submit. */
uint64_t vlg_fence_next_seqno(struct vlg_screen *screen);

/** The sequence number of the last submit (0 before the first). */
uint64_t vlg_fence_last_submitted(struct vlg_screen *screen);

/** Mark every submission up to and including \p seqno as completed. */
void vlg_fence_signal(struct vlg_screen *screen, uint64_t seqno);

/** A fence for sequence number \p seqno (refcount 1), NULL without memory. */
struct pipe_fence_handle *vlg_fence_create(uint64_t seqno);

void vlg_init_screen_fence_functions(struct pipe_screen *pscreen);

#endif /* VLG_FENCE_H */
