/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_PUBLIC_H
#define VLG_PUBLIC_H

#ifdef __cplusplus
extern "C" {
#endif

struct pipe_screen;
struct sw_winsys;

/**
 * Create the vlgpu pipe_screen on top of a software winsys.
 *
 * Called from sw_screen_create_named() (target-helpers/sw_helper.h, patched
 * by patches/0001-register-vlgpu-driver.patch) when GALLIUM_DRIVER=vlgpu, so
 * vlgpu lives inside swrast_dri.so like softpipe (sp_public.h).
 *
 * \param winsys  the sw winsys that provides display targets (X11 via drisw,
 *                or the null winsys for surfaceless EGL); the screen takes
 *                ownership and destroys it with the screen.
 * \return the screen, or NULL when out of memory.
 */
struct pipe_screen *
vlgpu_create_screen(struct sw_winsys *winsys);

#ifdef __cplusplus
}
#endif

#endif /* VLG_PUBLIC_H */
