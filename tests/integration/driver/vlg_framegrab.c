/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_framegrab.so: an LD_PRELOAD shim that makes an animated EGL program
 * (es2gears_x11) deterministic and saves its frames, so that the frames
 * drawn by vlgpu and by softpipe in one test run can be compared pixel for
 * pixel (tests/integration/driver/test_es2gears.py).
 *
 *  - gettimeofday() returns a clock that starts at 1000 s and advances by
 *    exactly VLG_GRAB_STEP_MS milliseconds (default 40) per presented frame,
 *    so animation depends on the frame number only, not on how fast the
 *    driver is.
 *  - eglSwapBuffers() reads the back buffer with glReadPixels (RGBA8,
 *    bottom row first) before presenting and writes it to
 *    $VLG_GRAB_DIR/frame-NNN.rgba (a 16-byte header "VLGRGBA\0", width and
 *    height as little-endian uint32, then the pixels); after
 *    $VLG_GRAB_FRAMES frames (default 3) the process exits with status 0.
 *
 * Build: cc -shared -fPIC vlg_framegrab.c -o vlg_framegrab.so -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <EGL/egl.h>
#include <GLES2/gl2.h>

static unsigned frames;
static const long long start_us = 1000LL * 1000 * 1000;

static long long
step_us(void)
{
   const char *s = getenv("VLG_GRAB_STEP_MS");
   return (s ? atoll(s) : 40) * 1000;
}

int
gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
   long long now = start_us + frames * step_us();

   (void)tz;
   tv->tv_sec = now / 1000000;
   tv->tv_usec = now % 1000000;
   return 0;
}

static void
save_frame(EGLDisplay dpy, EGLSurface surf)
{
   const char *dir = getenv("VLG_GRAB_DIR");
   EGLint w = 0, h = 0;

   if (!dir)
      return;
   eglQuerySurface(dpy, surf, EGL_WIDTH, &w);
   eglQuerySurface(dpy, surf, EGL_HEIGHT, &h);
   if (w <= 0 || h <= 0)
      return;

   void (*read_pixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *) =
      (void (*)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *))
         eglGetProcAddress("glReadPixels");
   uint8_t *px = malloc((size_t)w * h * 4);
   if (!px || !read_pixels)
      return;
   read_pixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);

   char path[4096];
   snprintf(path, sizeof(path), "%s/frame-%03u.rgba", dir, frames);
   FILE *f = fopen(path, "wb");
   if (f) {
      uint32_t hdr[4] = {0, 0, (uint32_t)w, (uint32_t)h};
      memcpy(hdr, "VLGRGBA", 8);
      fwrite(hdr, sizeof(hdr), 1, f);
      fwrite(px, (size_t)w * h * 4, 1, f);
      fclose(f);
   }
   free(px);
}

EGLBoolean
eglSwapBuffers(EGLDisplay dpy, EGLSurface surf)
{
   static EGLBoolean (*real)(EGLDisplay, EGLSurface);
   const char *n = getenv("VLG_GRAB_FRAMES");
   const unsigned max_frames = n ? (unsigned)atoi(n) : 3;

   if (!real)
      real = (EGLBoolean(*)(EGLDisplay, EGLSurface))dlsym(RTLD_NEXT,
                                                          "eglSwapBuffers");
   save_frame(dpy, surf);
   EGLBoolean ret = real(dpy, surf);
   frames++;
   if (frames >= max_frames) {
      fflush(stdout);
      _exit(0);
   }
   return ret;
}
