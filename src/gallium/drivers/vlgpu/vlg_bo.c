/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Buffer objects in simulated VRAM, over vlgpu_drm.h.  The device is not
 * thread-safe, so every call goes through the screen's device lock.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "util/log.h"
#include "util/u_memory.h"

#include "vlg_bo.h"
#include "vlg_screen.h"
#include "vlgpu_drm.h"

struct vlg_bo *
vlg_bo_create(struct vlg_screen *screen, uint64_t size, uint32_t align,
              const char *name)
{
   struct vlg_bo *bo = CALLOC_STRUCT(vlg_bo);

   if (!bo)
      return NULL;

   struct vlg_drm_bo_create args = {
      .size = MAX2(size, 1),
      .align = align,
   };

   simple_mtx_lock(&screen->device_lock);
   int ret = vlg_drm_bo_create(screen->dev, &args);
   void *map = ret == 0 ? vlg_drm_bo_map(screen->dev, args.handle) : NULL;
   simple_mtx_unlock(&screen->device_lock);

   if (ret) {
      mesa_loge("cannot allocate %" PRIu64 " bytes of VRAM for %s: %s "
                "(VRAM is %" PRIu64 " MiB; VLGPU_SET=vram.size_bytes=N "
                "enlarges it)",
                size, name, ret == -ENOMEM ? "VRAM full" : strerror(-ret),
                screen->vram_size >> 20);
      FREE(bo);
      return NULL;
   }

   pipe_reference_init(&bo->reference, 1);
   bo->screen = screen;
   bo->handle = args.handle;
   bo->address = args.address;
   bo->size = args.size;
   bo->map = map;
   bo->name = name;
   return bo;
}

void
vlg_bo_set_label(struct vlg_bo *bo, const char *label)
{
   struct vlg_screen *screen = bo->screen;

   simple_mtx_lock(&screen->device_lock);
   vlg_drm_bo_set_label(screen->dev, bo->handle, label);
   simple_mtx_unlock(&screen->device_lock);
}

void
vlg_bo_destroy(struct vlg_bo *bo)
{
   struct vlg_screen *screen = bo->screen;

   simple_mtx_lock(&screen->device_lock);
   vlg_drm_bo_free(screen->dev, bo->handle);
   simple_mtx_unlock(&screen->device_lock);
   FREE(bo);
}
