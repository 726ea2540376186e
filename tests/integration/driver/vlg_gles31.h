/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_gles31.h: what the GL ES 3.1 programs run on EGL surfaceless share
 * (vlg_es31.c here, bench/ubench/vlg_ubench.c): the failure count and
 * FAIL(), check_gl(), shader() / link() that exit on a compile or link
 * error, and vlg_es31_context() that makes an ES 3.1 pbuffer context
 * current. Define VLG_PROG (the program's name, a string literal, used in
 * every message) before including it. driverlib.build_helper compiles with
 * -I on this folder.
 */
#ifndef VLG_GLES31_H
#define VLG_GLES31_H

#include <stdio.h>
#include <stdlib.h>

#include <EGL/egl.h>
#include <GLES3/gl31.h>

#ifndef VLG_PROG
#error "define VLG_PROG (the program's name) before including vlg_gles31.h"
#endif

/** Checks that failed so far (the exit status is 1 when non-zero). */
static int failures;

#define FAIL(...)                                                              \
   do {                                                                        \
      fprintf(stderr, VLG_PROG ": FAIL: " __VA_ARGS__);                        \
      fprintf(stderr, "\n");                                                   \
      failures++;                                                              \
   } while (0)

/** FAIL() for every pending GL error; returns how many there were. */
static int
check_gl(const char *where)
{
   GLenum e;
   int n = 0;
   while ((e = glGetError()) != GL_NO_ERROR) {
      FAIL("GL error 0x%04x in %s", e, where);
      n++;
   }
   return n;
}

/** A compiled shader; exits with status 1 (source and log on stderr) if
 *  it does not compile. */
static GLuint
shader(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   GLint ok = 0;
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[4096];
      glGetShaderInfoLog(s, sizeof(log), NULL, log);
      fprintf(stderr, VLG_PROG ": shader does not compile:\n%s\n%s\n", src, log);
      exit(1);
   }
   return s;
}

/** A linked program of shader @a and, if not 0, @b; exits with status 1
 *  (log on stderr) if it does not link. */
static GLuint
link(GLuint a, GLuint b)
{
   GLuint p = glCreateProgram();
   GLint ok = 0;
   glAttachShader(p, a);
   if (b)
      glAttachShader(p, b);
   glLinkProgram(p);
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      char log[4096];
      glGetProgramInfoLog(p, sizeof(log), NULL, log);
      fprintf(stderr, VLG_PROG ": program does not link:\n%s\n", log);
      exit(1);
   }
   return p;
}

/** Make an OpenGL ES 3.1 context with a 16x16 RGBA8 pbuffer current on
 *  the default EGL display. Returns 0, or 2 with the reason on stderr (no
 *  display: EGL_PLATFORM=surfaceless unset?; no config; no ES 3.1). */
static int
vlg_es31_context(void)
{
   EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
   EGLint major, minor;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      fprintf(stderr, VLG_PROG ": no EGL display (EGL_PLATFORM=surfaceless?)\n");
      return 2;
   }
   const EGLint cfg_attr[] = {
      EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE,
   };
   EGLConfig cfg;
   EGLint n = 0;
   if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
      fprintf(stderr, VLG_PROG ": no RGBA8 ES3 pbuffer config\n");
      return 2;
   }
   const EGLint pb_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
   EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pb_attr);
   eglBindAPI(EGL_OPENGL_ES_API);
   const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                              EGL_NONE};
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
   if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx)) {
      fprintf(stderr, VLG_PROG ": cannot create an OpenGL ES 3.1 pbuffer context\n");
      return 2;
   }
   return 0;
}

#endif /* VLG_GLES31_H */
