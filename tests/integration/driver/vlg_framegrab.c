/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_framegrab.so: an LD_PRELOAD shim that makes an animated EGL program
 * deterministic and saves its frames, so that the frames drawn by vlgpu and
 * by softpipe in one test run can be compared pixel for pixel
 * (tests/integration/driver/test_es2gears.py, test_glmark2.py).
 *
 *  - gettimeofday() and clock_gettime() return a clock that starts at
 *    1000 s and advances by exactly VLG_GRAB_STEP_MS milliseconds (default
 *    40) per frame, so animation depends on the frame number only, not on
 *    how fast the driver is.  clock_gettime() is faked only for calls from
 *    the program's own code; libraries (Mesa, Xlib) get the real clock.
 *  - A frame ends at eglSwapBuffers() (on-screen programs: es2gears_x11),
 *    or, with VLG_GRAB_AT_FINISH=1, at glFinish() (glmark2 --off-screen ends
 *    each frame with glFinish).  The shim reads the back buffer or the bound
 *    framebuffer (the GL viewport) with glReadPixels (RGBA8, bottom row
 *    first) and writes it to $VLG_GRAB_DIR/frame-NNN.rgba (a 16-byte header
 *    "VLGRGBA\0", width and height as little-endian uint32, then the
 *    pixels); after $VLG_GRAB_FRAMES frames (default 3; 0: never) the
 *    process exits with status 0.
 *  - Programs that look their GL functions up with dlsym() or with an
 *    eglGetProcAddress they got from dlsym() (glmark2's glad loader) get the
 *    shim's eglSwapBuffers/glFinish from them.
 *  - Under AddressSanitizer (./vlgpu test --sanitize) the ASan runtime
 *    comes first in LD_PRELOAD and intercepts clock_gettime(): it finds
 *    the shim's with dlsym(RTLD_NEXT), which is the shim's dlsym() (below:
 *    it answers such lookups from ahead of the shim with the shim's own
 *    clocks), and the shim then looks one frame further up for the caller
 *    (the interceptor keeps a frame pointer; the shim is built with
 *    -fno-omit-frame-pointer). ASan's start-up runs through the shim's
 *    dlsym() before its own interceptors are set up, so that path calls
 *    no function ASan intercepts (same_name() instead of strcmp()).
 *  - With VLG_GRAB_TIMES=FILE, each frame end appends a line "N WALL_NS
 *    CPU_NS" to FILE: frame number, the real CLOCK_MONOTONIC and
 *    CLOCK_PROCESS_CPUTIME_ID in nanoseconds, read by syscall so the fake
 *    clock above does not apply (scripts/bench.py times frames with it).
 *
 * Build: cc -shared -fPIC -fno-omit-frame-pointer vlg_framegrab.c -o vlg_framegrab.so -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
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

static void init_real(void);
static void *(*real_dlsym)(void *, const char *);

/* strcmp() == 0 without calling strcmp(): dlsym() below runs inside
 * AddressSanitizer's start-up, where ASan's strcmp interceptor has no real
 * strcmp yet and would jump to address 0 (header comment). */
static int
same_name(const char *a, const char *b)
{
   while (*a && *a == *b) {
      a++;
      b++;
   }
   return *a == *b;
}

/* The loaded object (link map) that holds the code at `addr`, or NULL. */
static struct link_map *
map_of(const void *addr)
{
   struct link_map *map = NULL;
   Dl_info info;

   if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP))
      return NULL;
   return map;
}

/* Whether `map` is AddressSanitizer's runtime (the object defining
 * __asan_init); never true without ASan. */
static int
is_sanitizer_runtime(const struct link_map *map)
{
   static const struct link_map *asan;
   static int looked;

   if (!looked) {
      init_real();
      void *p = real_dlsym ? real_dlsym(RTLD_DEFAULT, "__asan_init") : NULL;
      asan = p ? map_of(p) : NULL;
      looked = 1;
   }
   return map && map == asan;
}

/* Whether the code at `ra` belongs to the program itself (not to Mesa, Xlib,
 * libc...): only the program's own clock reads are faked.  Libraries keep
 * the real clock, because they turn it into absolute timeouts for real
 * waits (a faked clock made glmark2's canvas set-up fail now and then with
 * "Could not initialize canvas"). */
static int
called_from_program(const void *ra)
{
   static struct link_map *program;
   struct link_map *map;

   if (!program) {
      void *self = dlopen(NULL, RTLD_NOW);
      if (!self || dlinfo(self, RTLD_DI_LINKMAP, &program) != 0 || !program)
         return 1;
   }
   map = map_of(ra);
   return !map || map == program;
}

int
clock_gettime(clockid_t clk, struct timespec *tp)
{
   long long now = start_us + frames * step_us();
   const void *caller = __builtin_return_address(0);

   /* Through ASan's interceptor: its caller is the one that counts (header
    * comment; both frames keep frame pointers). */
   if (is_sanitizer_runtime(map_of(caller))) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wframe-address"
      caller = __builtin_return_address(1);
#pragma GCC diagnostic pop
   }
   if (!called_from_program(caller))
      return syscall(SYS_clock_gettime, clk, tp) == 0 ? 0 : -1;
   tp->tv_sec = now / 1000000;
   tp->tv_nsec = (now % 1000000) * 1000;
   return 0;
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

/* The shim's own clocks, bound inside the shim (a plain &clock_gettime
 * would be the first definition in the process: ASan's interceptor). */
extern __typeof__(clock_gettime) vlg_own_clock_gettime
   __attribute__((alias("clock_gettime"), copy(clock_gettime), visibility("hidden")));
extern __typeof__(gettimeofday) vlg_own_gettimeofday
   __attribute__((alias("gettimeofday"), copy(gettimeofday), visibility("hidden")));

typedef void (*vlg_proc)(void);
static vlg_proc (*real_get_proc_address)(const char *);

/* A GL function of the current context: through the eglGetProcAddress the
 * program looked up (glmark2 links no EGL library), or libEGL's. */
static vlg_proc
gl_proc(const char *name)
{
   init_real();
   if (!real_get_proc_address && real_dlsym)
      real_get_proc_address =
         (vlg_proc(*)(const char *))real_dlsym(RTLD_DEFAULT, "eglGetProcAddress");
   return real_get_proc_address ? real_get_proc_address(name) : NULL;
}

typedef void (*read_pixels_fn)(GLint, GLint, GLsizei, GLsizei, GLenum,
                               GLenum, void *);

static void
save_frame(int x, int y, int w, int h)
{
   const char *dir = getenv("VLG_GRAB_DIR");
   read_pixels_fn read_pixels =
      (read_pixels_fn)gl_proc("glReadPixels");

   if (!dir || w <= 0 || h <= 0 || !read_pixels)
      return;
   uint8_t *px = malloc((size_t)w * h * 4);
   if (!px)
      return;
   read_pixels(x, y, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);

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

static void
log_frame_time(void)
{
   const char *path = getenv("VLG_GRAB_TIMES");
   struct timespec wall, cpu;

   if (!path)
      return;
   syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &wall);
   syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &cpu);
   FILE *f = fopen(path, "a");
   if (f) {
      fprintf(f, "%u %lld %lld\n", frames,
              (long long)wall.tv_sec * 1000000000LL + wall.tv_nsec,
              (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
      fclose(f);
   }
}

static void
end_frame(void)
{
   const char *n = getenv("VLG_GRAB_FRAMES");
   const unsigned max_frames = n ? (unsigned)atoi(n) : 3;

   log_frame_time();
   frames++;
   if (max_frames && frames >= max_frames) {
      fflush(stdout);
      _exit(0);
   }
}

static EGLBoolean (*real_swap)(EGLDisplay, EGLSurface);
static void (*real_finish)(void);

static void
init_real(void)
{
   if (!real_dlsym)
      real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym",
                                                           "GLIBC_2.34");
   if (!real_dlsym)
      real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym",
                                                           "GLIBC_2.2.5");
}

EGLBoolean
eglSwapBuffers(EGLDisplay dpy, EGLSurface surf)
{
   EGLint w = 0, h = 0;

   init_real();
   if (!real_swap)
      real_swap = (EGLBoolean(*)(EGLDisplay, EGLSurface))real_dlsym(
         RTLD_NEXT, "eglSwapBuffers");
   eglQuerySurface(dpy, surf, EGL_WIDTH, &w);
   eglQuerySurface(dpy, surf, EGL_HEIGHT, &h);
   save_frame(0, 0, w, h);
   EGLBoolean ret = real_swap(dpy, surf);
   end_frame();
   return ret;
}

static void
grab_glFinish(void)
{
   real_finish();
   if (getenv("VLG_GRAB_AT_FINISH")) {
      void (*get_integerv)(GLenum, GLint *) =
         (void (*)(GLenum, GLint *))gl_proc("glGetIntegerv");
      GLint vp[4] = {0};
      if (get_integerv)
         get_integerv(GL_VIEWPORT, vp);
      save_frame(vp[0], vp[1], vp[2], vp[3]);
      end_frame();
   }
}

/* glmark2 (glad) asks eglGetProcAddress first, dlsym second, for every GL
 * function, so eglGetProcAddress must hand out the shim's glFinish too. */
static vlg_proc
grab_eglGetProcAddress(const char *name)
{
   vlg_proc p = real_get_proc_address(name);
   if (p && same_name(name, "glFinish")) {
      real_finish = (void (*)(void))p;
      return (vlg_proc)grab_glFinish;
   }
   if (p && same_name(name, "eglSwapBuffers")) {
      real_swap = (EGLBoolean(*)(EGLDisplay, EGLSurface))p;
      return (vlg_proc)eglSwapBuffers;
   }
   return p;
}

/* Whether the object `map` comes before the shim in the process's search
 * order (the link map chain). */
static int
precedes_shim(const struct link_map *map)
{
   const struct link_map *shim = map_of((const void *)same_name);

   for (const struct link_map *m = map ? map->l_next : NULL; m; m = m->l_next) {
      if (m == shim)
         return 1;
   }
   return 0;
}

void *
dlsym(void *restrict handle, const char *restrict name)
{
   init_real();
   /* dlsym(RTLD_NEXT) searches after its caller, but forwarded from here it
    * searches after the shim: a caller ahead of the shim (the ASan runtime
    * resolving its clock_gettime interceptor's target) gets the shim's own
    * clocks, which is what it would have found. */
   if (handle == RTLD_NEXT && precedes_shim(map_of(__builtin_return_address(0)))) {
      if (same_name(name, "clock_gettime"))
         return (void *)vlg_own_clock_gettime;
      if (same_name(name, "gettimeofday"))
         return (void *)vlg_own_gettimeofday;
   }
   void *p = real_dlsym(handle, name);
   if (p && same_name(name, "eglGetProcAddress")) {
      real_get_proc_address = (vlg_proc(*)(const char *))p;
      return (void *)grab_eglGetProcAddress;
   }
   if (p && same_name(name, "eglSwapBuffers")) {
      real_swap = (EGLBoolean(*)(EGLDisplay, EGLSurface))p;
      return (void *)eglSwapBuffers;
   }
   if (p && same_name(name, "glFinish")) {
      real_finish = (void (*)(void))p;
      return (void *)grab_glFinish;
   }
   return p;
}
