/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Fences as sequence numbers of submissions (the shape of lima_fence.c and
 * v3d_fence.c, without a kernel syncobj: the simulator runs in-process).
 * Each submitted queue ends with a SYNC that writes its sequence number
 * (vlg_batch.c); vlg_drm_submit runs the queue synchronously, so a fence is
 * signalled by the time pipe_context::flush returns it.  fence_finish still
 * checks the number, so an asynchronous GPU can be plugged in behind
 * vlgpu_drm.h without changing the callers.
 */

#include "util/os_time.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vlg_fence.h"
#include "vlg_screen.h"

uint64_t
vlg_fence_next_seqno(struct vlg_screen *screen)
{
   simple_mtx_lock(&screen->fence_lock);
   uint64_t seqno = ++screen->last_submitted_seqno;
   simple_mtx_unlock(&screen->fence_lock);
   return seqno;
}

uint64_t
vlg_fence_last_submitted(struct vlg_screen *screen)
{
   simple_mtx_lock(&screen->fence_lock);
   uint64_t seqno = screen->last_submitted_seqno;
   simple_mtx_unlock(&screen->fence_lock);
   return seqno;
}

struct pipe_fence_handle *
vlg_fence_create(uint64_t seqno)
{
   struct pipe_fence_handle *fence = CALLOC_STRUCT(pipe_fence_handle);

   if (!fence)
      return NULL;
   pipe_reference_init(&fence->reference, 1);
   fence->seqno = seqno;
   return fence;
}

void
vlg_fence_signal(struct vlg_screen *screen, uint64_t seqno)
{
   simple_mtx_lock(&screen->fence_lock);
   if (seqno > screen->last_completed_seqno)
      screen->last_completed_seqno = seqno;
   simple_mtx_unlock(&screen->fence_lock);
}

static bool
vlg_fence_is_signalled(struct vlg_screen *screen,
                       const struct pipe_fence_handle *fence)
{
   simple_mtx_lock(&screen->fence_lock);
   bool done = screen->last_completed_seqno >= fence->seqno;
   simple_mtx_unlock(&screen->fence_lock);
   return done;
}

static void
vlg_fence_reference(struct pipe_screen *pscreen,
                    struct pipe_fence_handle **ptr,
                    struct pipe_fence_handle *fence)
{
   struct pipe_fence_handle *old = *ptr;

   if (pipe_reference(old ? &old->reference : NULL,
                      fence ? &fence->reference : NULL))
      FREE(old);
   *ptr = fence;
}

static bool
vlg_fence_finish(struct pipe_screen *pscreen, struct pipe_context *pctx,
                 struct pipe_fence_handle *fence, uint64_t timeout)
{
   struct vlg_screen *screen = vlg_screen(pscreen);
   int64_t abs_timeout = os_time_get_absolute_timeout(timeout);

   /* Submits are synchronous (vlg_drm_submit), so this returns at once. */
   while (!vlg_fence_is_signalled(screen, fence)) {
      if (timeout == 0 ||
          ((uint64_t)abs_timeout != OS_TIMEOUT_INFINITE &&
           os_time_get_nano() >= abs_timeout))
         return false;
      os_time_sleep(100);
   }
   return true;
}

void
vlg_init_screen_fence_functions(struct pipe_screen *pscreen)
{
   pscreen->fence_reference = vlg_fence_reference;
   pscreen->fence_finish = vlg_fence_finish;
}
