/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_exit: draws a known number of frames and draws, then ends the process
 * in one of the ways a GL program ends, so a test can check what the driver
 * leaves behind (tests/integration/driver/test_trace.py: the VLGPU_TRACE
 * file must be a complete JSON document however the program ends).
 *
 *    vlg_exit HOW FRAMES DRAWS
 *
 * Every frame: glClear (one CLEAR draw on vlgpu) and DRAWS glDrawArrays of
 * one triangle (GL_TRIANGLES, 3 vertices), then the end of the frame:
 * glFinish with EGL (a pbuffer is never presented; the driver ends a frame
 * at glFinish, docs/driver.md "Statistics"), glXSwapBuffers with GLX.
 *
 * Built twice from this file: without VLG_GLX for EGL surfaceless (a 64x64
 * pbuffer, OpenGL ES 2.0), with -DVLG_GLX for GLX (a 64x64 window on
 * $DISPLAY, OpenGL 2.0 compatibility). HOW:
 *
 *    exit            exit(0) with the context current, nothing destroyed
 *    return          return 0 from main with the context current
 *    release-exit    make nothing current, destroy context and surface
 *                    (window), no eglTerminate / XCloseDisplay, exit(0)
 *    terminate-exit  as release-exit, then eglTerminate / XCloseDisplay, exit(0)
 *    terminate-return as terminate-exit, but return 0 from main
 *
 * Exit status: 0, or 2 for usage, EGL/GLX or GL errors.
 *
 * Build: cc vlg_exit.c -o vlg_exit -lEGL -lGLESv2
 *        cc -DVLG_GLX vlg_exit.c -o vlg_exit_glx -lGL -lX11
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef VLG_GLX
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#else
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#endif

#define SIZE 64

static const char *vs_src = "attribute vec4 a_pos;\n"
                            "void main() { gl_Position = a_pos; }\n";
static const char *fs_src = "#ifdef GL_ES\n"
                            "precision mediump float;\n"
                            "#endif\n"
                            "void main() { gl_FragColor = vec4(1.0, 0.5, 0.0, 1.0); }\n";

static void
fail(const char *what)
{
   fprintf(stderr, "vlg_exit: %s\n", what);
   exit(2);
}

static GLuint
compile(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   GLint ok = 0;
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok)
      fail("shader does not compile");
   return s;
}

static void
setup_gl(void)
{
   static const GLfloat tri[] = {-0.5f, -0.5f, 0.0f, 1.0f, 0.5f, -0.5f,
                                 0.0f,  1.0f,  0.0f, 0.5f, 0.0f, 1.0f};
   GLuint p = glCreateProgram();
   GLint ok = 0;
   glAttachShader(p, compile(GL_VERTEX_SHADER, vs_src));
   glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs_src));
   glBindAttribLocation(p, 0, "a_pos");
   glLinkProgram(p);
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok)
      fail("program does not link");
   glUseProgram(p);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, tri);
   glEnableVertexAttribArray(0);
   glViewport(0, 0, SIZE, SIZE);
   glClearColor(0.0f, 0.0f, 0.25f, 1.0f);
}

static void
draw_frame(unsigned draws)
{
   glClear(GL_COLOR_BUFFER_BIT);
   for (unsigned d = 0; d < draws; d++)
      glDrawArrays(GL_TRIANGLES, 0, 3);
   if (glGetError() != GL_NO_ERROR)
      fail("GL error while drawing");
}

int
main(int argc, char **argv)
{
   if (argc != 4) {
      fprintf(stderr, "usage: vlg_exit exit|return|release-exit|terminate-exit|"
                      "terminate-return FRAMES DRAWS\n");
      return 2;
   }
   const char *how = argv[1];
   const unsigned frames = (unsigned)strtoul(argv[2], NULL, 10);
   const unsigned draws = (unsigned)strtoul(argv[3], NULL, 10);
   const int release = strcmp(how, "release-exit") == 0 || strncmp(how, "terminate-", 10) == 0;
   const int terminate = strncmp(how, "terminate-", 10) == 0;
   const int ret = strcmp(how, "return") == 0 || strcmp(how, "terminate-return") == 0;
   if (!ret && !release && strcmp(how, "exit") != 0) {
      fprintf(stderr, "vlg_exit: unknown HOW '%s'\n", how);
      return 2;
   }

#ifdef VLG_GLX
   Display *dpy = XOpenDisplay(NULL);
   if (!dpy)
      fail("cannot open the X display");
   int attr[] = {GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8,
                 GLX_BLUE_SIZE, 8, None};
   XVisualInfo *vi = glXChooseVisual(dpy, DefaultScreen(dpy), attr);
   if (!vi)
      fail("no double-buffered RGB8 visual");
   Window root = RootWindow(dpy, vi->screen);
   XSetWindowAttributes swa = {
      .colormap = XCreateColormap(dpy, root, vi->visual, AllocNone),
   };
   Window win = XCreateWindow(dpy, root, 0, 0, SIZE, SIZE, 0, vi->depth, InputOutput,
                              vi->visual, CWColormap, &swa);
   XMapWindow(dpy, win);
   GLXContext ctx = glXCreateContext(dpy, vi, NULL, True);
   if (!ctx || !glXMakeCurrent(dpy, win, ctx))
      fail("cannot make a GLX context current");
#else
   EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL))
      fail("no EGL display (EGL_PLATFORM=surfaceless?)");
   const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                              EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                              EGL_BLUE_SIZE, 8, EGL_NONE};
   EGLConfig cfg;
   EGLint n = 0;
   if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n) || n < 1)
      fail("no RGB8 pbuffer config");
   const EGLint pb_attr[] = {EGL_WIDTH, SIZE, EGL_HEIGHT, SIZE, EGL_NONE};
   EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pb_attr);
   eglBindAPI(EGL_OPENGL_ES_API);
   const EGLint ctx_attr[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
   if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT ||
       !eglMakeCurrent(dpy, surf, surf, ctx))
      fail("cannot make a GLES2 pbuffer context current");
#endif

   setup_gl();
   for (unsigned f = 0; f < frames; f++) {
      draw_frame(draws);
#ifdef VLG_GLX
      glXSwapBuffers(dpy, win);
#else
      glFinish();
#endif
   }
   fprintf(stderr, "vlg_exit: %u frames of %u draws, then %s\n", frames, draws + 1, how);

   if (release) {
#ifdef VLG_GLX
      glXMakeCurrent(dpy, None, NULL);
      glXDestroyContext(dpy, ctx);
      XDestroyWindow(dpy, win);
      XFree(vi);
      if (terminate)
         XCloseDisplay(dpy);
#else
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(dpy, ctx);
      eglDestroySurface(dpy, surf);
      if (terminate)
         eglTerminate(dpy);
#endif
   }
   if (!ret)
      exit(0);
   return 0;
}
