/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_scenes: renders a fixed set of small OpenGL ES 2.0 scenes (and the ES 3.0
 * scenes "uboxfb", "msaa", "clipcontrol", "zsblit", "srgbtex" and "halffloat"
 * when the context is ES 3.0) through EGL
 * surfaceless (a pbuffer; no X server) and writes each one as
 * OUT_DIR/<scene>.png (RGBA, top row first), so that the same scenes drawn
 * by vlgpu and by softpipe in one test run can be compared
 * (tests/integration/driver/test_scenes.py).
 *
 *    vlg_scenes OUT_DIR [SCENE...]        (default: every scene but msaa, which
 *                                          softpipe 22.3 cannot draw: GL_MAX_SAMPLES 1)
 *    vlg_scenes --list
 *
 * Everything a scene draws is computed here from constants (no time, no
 * randomness), so two drivers get exactly the same GL calls.  Exit status:
 * 0 when every scene ran without a GL error, 1 otherwise, 2 for usage or
 * EGL errors.
 *
 * Build: cc vlg_scenes.c -o vlg_scenes -lEGL -lGLESv2 -lpng -lm
 * The context is OpenGL ES 3.0 when the driver offers it, else 2.0 (the ES 2.0
 * scenes draw the same either way; the ES 3.0 ones then fail with exit status 1).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#include <png.h>

#define W 160
#define H 120

static int gl_errors;

static void
check_gl(const char *where)
{
   GLenum e;
   while ((e = glGetError()) != GL_NO_ERROR) {
      fprintf(stderr, "vlg_scenes: GL error 0x%04x in %s\n", e, where);
      gl_errors++;
   }
}

static GLuint
compile(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   GLint ok = 0;

   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[2048];
      glGetShaderInfoLog(s, sizeof(log), NULL, log);
      fprintf(stderr, "vlg_scenes: shader does not compile:\n%s\n%s\n", src, log);
      exit(2);
   }
   return s;
}

/* Attributes: 0 a_pos (vec4), 1 a_color (vec4), 2 a_tc (vec2). */
static GLuint
program(const char *vs, const char *fs)
{
   GLuint p = glCreateProgram();
   GLint ok = 0;

   glAttachShader(p, compile(GL_VERTEX_SHADER, vs));
   glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
   glBindAttribLocation(p, 0, "a_pos");
   glBindAttribLocation(p, 1, "a_color");
   glBindAttribLocation(p, 2, "a_tc");
   glLinkProgram(p);
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      char log[2048];
      glGetProgramInfoLog(p, sizeof(log), NULL, log);
      fprintf(stderr, "vlg_scenes: program does not link: %s\n", log);
      exit(2);
   }
   glUseProgram(p);
   return p;
}

static const char *vs_color =
   "attribute vec4 a_pos;\n"
   "attribute vec4 a_color;\n"
   "uniform mat4 u_mvp;\n"
   "varying vec4 v_color;\n"
   "void main() {\n"
   "   gl_Position = u_mvp * a_pos;\n"
   "   v_color = a_color;\n"
   "   gl_PointSize = 1.0;\n"
   "}\n";

static const char *fs_color =
   "precision mediump float;\n"
   "varying vec4 v_color;\n"
   "void main() { gl_FragColor = v_color; }\n";

static const char *vs_tex =
   "attribute vec4 a_pos;\n"
   "attribute vec2 a_tc;\n"
   "uniform mat4 u_mvp;\n"
   "varying vec2 v_tc;\n"
   "void main() {\n"
   "   gl_Position = u_mvp * a_pos;\n"
   "   v_tc = a_tc;\n"
   "}\n";

static const char *fs_tex =
   "precision mediump float;\n"
   "uniform sampler2D u_tex;\n"
   "varying vec2 v_tc;\n"
   "void main() { gl_FragColor = texture2D(u_tex, v_tc); }\n";

static void
identity(float *m)
{
   memset(m, 0, 16 * sizeof(float));
   m[0] = m[5] = m[10] = m[15] = 1.0f;
}

/* Column-major perspective * translate(0, 0, -dist) * rotate_x(ax). */
static void
perspective_view(float *m, float fovy_deg, float dist, float ax_deg)
{
   const float aspect = (float)W / H, n = 0.5f, f = 20.0f;
   const float t = 1.0f / tanf(fovy_deg * (float)M_PI / 360.0f);
   const float c = cosf(ax_deg * (float)M_PI / 180.0f);
   const float s = sinf(ax_deg * (float)M_PI / 180.0f);
   float p[16] = {0}, v[16];

   p[0] = t / aspect;
   p[5] = t;
   p[10] = (f + n) / (n - f);
   p[11] = -1.0f;
   p[14] = 2.0f * f * n / (n - f);
   identity(v);
   v[5] = c;
   v[6] = s;
   v[9] = -s;
   v[10] = c;
   v[14] = -dist;
   for (int col = 0; col < 4; col++)
      for (int row = 0; row < 4; row++) {
         float acc = 0;
         for (int k = 0; k < 4; k++)
            acc += p[k * 4 + row] * v[col * 4 + k];
         m[col * 4 + row] = acc;
      }
}

static void
set_mvp(GLuint prog, const float *m)
{
   glUniformMatrix4fv(glGetUniformLocation(prog, "u_mvp"), 1, GL_FALSE, m);
}

static void
set_identity_mvp(GLuint prog)
{
   float m[16];
   identity(m);
   set_mvp(prog, m);
}

/* Client-side arrays: pos (xyzw) and colour (rgba) interleaved. */
static void
draw_pc(GLenum mode, const float *v, int n)
{
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glDisableVertexAttribArray(2);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 8 * sizeof(float), v);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 8 * sizeof(float), v + 4);
   glDrawArrays(mode, 0, n);
}

/* pos (xyzw) and texcoord (st) interleaved. */
static void
draw_pt(GLenum mode, const float *v, int n)
{
   glEnableVertexAttribArray(0);
   glDisableVertexAttribArray(1);
   glEnableVertexAttribArray(2);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 6 * sizeof(float), v);
   glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 6 * sizeof(float), v + 4);
   glDrawArrays(mode, 0, n);
}

static void
quad_pt(float x0, float y0, float x1, float y1, float s0, float t0, float s1,
        float t1)
{
   const float v[] = {
      x0, y0, 0, 1, s0, t0, x1, y0, 0, 1, s1, t0,
      x0, y1, 0, 1, s0, t1, x1, y1, 0, 1, s1, t1,
   };
   draw_pt(GL_TRIANGLE_STRIP, v, 4);
}

/* A 2^n checkerboard with coloured corners, RGBA8. */
static GLuint
checker_texture(int size, int cells)
{
   unsigned char *px = malloc(size * size * 4);
   GLuint tex;

   for (int y = 0; y < size; y++)
      for (int x = 0; x < size; x++) {
         unsigned char *p = px + (y * size + x) * 4;
         int on = ((x * cells / size) + (y * cells / size)) & 1;
         p[0] = on ? 255 : (unsigned char)(x * 255 / (size - 1));
         p[1] = on ? 255 : (unsigned char)(y * 255 / (size - 1));
         p[2] = on ? 255 : 64;
         p[3] = 255;
      }
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, size, size, 0, GL_RGBA,
                GL_UNSIGNED_BYTE, px);
   free(px);
   return tex;
}

/* ------------------------------------------------------------ scenes -- */

/* Smooth-shaded triangles, a strip and a fan; culling of back faces. */
static void
scene_triangles(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0.1f, 0.1f, 0.2f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);

   const float tri[] = {
      -0.9f, -0.9f, 0, 1, 1, 0, 0, 1,  -0.1f, -0.8f, 0, 1, 0, 1, 0, 1,
      -0.6f, -0.05f, 0, 1, 0, 0, 1, 1, /* second: thin sliver */
      -0.95f, 0.1f, 0, 1, 1, 1, 0, 1,  -0.05f, 0.12f, 0, 1, 0, 1, 1, 1,
      -0.5f, 0.2f, 0, 1, 1, 0, 1, 1,
   };
   draw_pc(GL_TRIANGLES, tri, 6);

   const float strip[] = {
      0.1f, -0.9f, 0, 1, 1, 0, 0, 1, 0.1f, -0.3f, 0, 1, 0, 1, 0, 1,
      0.4f, -0.9f, 0, 1, 0, 0, 1, 1, 0.4f, -0.3f, 0, 1, 1, 1, 1, 1,
      0.9f, -0.8f, 0, 1, 1, 1, 0, 1, 0.9f, -0.2f, 0, 1, 0, 1, 1, 1,
   };
   draw_pc(GL_TRIANGLE_STRIP, strip, 6);

   float fan[8 * 10];
   for (int i = 0; i < 10; i++) {
      float a = i * 2.0f * (float)M_PI / 8.0f;
      float *v = fan + i * 8;
      v[0] = i ? 0.55f + 0.35f * cosf(a) : 0.55f;
      v[1] = i ? 0.5f + 0.4f * sinf(a) : 0.5f;
      v[2] = 0;
      v[3] = 1;
      v[4] = (i % 3) == 0;
      v[5] = (i % 3) == 1;
      v[6] = (i % 3) == 2;
      v[7] = 1;
   }
   glEnable(GL_CULL_FACE);
   glCullFace(GL_BACK);
   draw_pc(GL_TRIANGLE_FAN, fan, 10);
   /* Clockwise: culled. */
   const float back[] = {
      0.1f, 0.9f, 0, 1, 1, 0, 0, 1, 0.3f, 0.5f, 0, 1, 1, 0, 0, 1,
      0.1f, 0.5f, 0, 1, 1, 0, 0, 1,
   };
   draw_pc(GL_TRIANGLES, back, 3);
   glDisable(GL_CULL_FACE);
}

/* Indexed draws: 8-, 16- and 32-bit indices from a buffer object and from
 * client memory; gl_FragCoord. */
static void
scene_indexed(void)
{
   GLuint p = program(vs_color,
                      "precision mediump float;\n"
                      "varying vec4 v_color;\n"
                      "void main() {\n"
                      "   gl_FragColor = v_color * (0.5 + 0.5 * fract(gl_FragCoord.x / 16.0));\n"
                      "}\n");
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);

   float grid[9 * 8];
   for (int i = 0; i < 9; i++) {
      float *v = grid + i * 8;
      v[0] = -0.9f + 0.6f * (i % 3);
      v[1] = -0.9f + 0.6f * (i / 3);
      v[2] = 0;
      v[3] = 1;
      v[4] = (i & 1) ? 1.0f : 0.2f;
      v[5] = (i & 2) ? 1.0f : 0.2f;
      v[6] = (i & 4) ? 1.0f : 0.2f;
      v[7] = 1;
   }
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(grid), grid, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 32, (void *)0);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 32, (void *)16);

   const GLubyte i8[] = {0, 1, 3, 1, 4, 3};
   glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_BYTE, i8);

   const GLushort i16[] = {1, 2, 4, 5};
   GLuint ibo;
   glGenBuffers(1, &ibo);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(i16), i16, GL_STATIC_DRAW);
   glDrawElements(GL_TRIANGLE_STRIP, 4, GL_UNSIGNED_SHORT, 0);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);

   const GLuint i32[] = {3, 4, 7, 6};
   glDrawElements(GL_TRIANGLE_FAN, 4, GL_UNSIGNED_INT, i32);

   /* A second grid drawn with a vertex offset into the buffer. */
   const GLushort lines[] = {6, 8, 8, 2, 2, 6};
   glLineWidth(2.0f);
   glDrawElements(GL_LINES, 6, GL_UNSIGNED_SHORT, lines);
   glLineWidth(1.0f);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteBuffers(1, &vbo);
   glDeleteBuffers(1, &ibo);
}

/* Depth test: interpenetrating triangles, LESS then LEQUAL without writes,
 * and polygon offset. */
static void
scene_depth(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0.2f, 0.2f, 0.2f, 1);
   glClearDepthf(1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);

   const float a[] = {
      -0.9f, -0.8f, -0.5f, 1, 1, 0, 0, 1, 0.9f, -0.6f, 0.5f, 1, 1, 0, 0, 1,
      0.0f, 0.9f, 0.0f, 1, 1, 0.5f, 0, 1,
   };
   const float b[] = {
      -0.9f, 0.7f, 0.6f, 1, 0, 0, 1, 1, 0.8f, 0.8f, -0.6f, 1, 0, 1, 1, 1,
      0.1f, -0.9f, 0.0f, 1, 0, 0.5f, 1, 1,
   };
   draw_pc(GL_TRIANGLES, a, 3);
   draw_pc(GL_TRIANGLES, b, 3);

   /* Coplanar with a, pulled forward by polygon offset. */
   glDepthMask(GL_FALSE);
   glDepthFunc(GL_LEQUAL);
   glEnable(GL_POLYGON_OFFSET_FILL);
   glPolygonOffset(-1.0f, -2.0f);
   const float c[] = {
      -0.3f, -0.4f, -0.14f, 1, 0, 1, 0, 1, 0.3f, -0.4f, 0.0f, 1, 0, 1, 0, 1,
      0.0f, 0.2f, 0.0f, 1, 0, 1, 0, 1,
   };
   draw_pc(GL_TRIANGLES, c, 3);
   glDisable(GL_POLYGON_OFFSET_FILL);
   glDepthMask(GL_TRUE);
   glDisable(GL_DEPTH_TEST);
}

/* Blending: alpha, additive, constant colour, subtract, min/max. */
static void
scene_blend(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0.3f, 0.3f, 0.3f, 0.5f);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_BLEND);

   struct {
      GLenum eq, src, dst;
      float x, y;
   } modes[] = {
      {GL_FUNC_ADD, GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, -0.95f, 0.05f},
      {GL_FUNC_ADD, GL_ONE, GL_ONE, -0.3f, 0.05f},
      {GL_FUNC_ADD, GL_CONSTANT_COLOR, GL_ONE_MINUS_CONSTANT_COLOR, 0.35f, 0.05f},
      {GL_FUNC_SUBTRACT, GL_ONE, GL_ONE, -0.95f, -0.9f},
      {GL_FUNC_REVERSE_SUBTRACT, GL_DST_COLOR, GL_ONE, -0.3f, -0.9f},
      {GL_MIN_EXT, GL_ONE, GL_ONE, 0.35f, -0.9f},
   };
   glBlendColor(0.2f, 0.6f, 0.9f, 0.5f);
   for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
      float x = modes[i].x, y = modes[i].y;
      glBlendEquation(modes[i].eq);
      glBlendFunc(modes[i].src, modes[i].dst);
      for (int k = 0; k < 2; k++) {
         float ox = 0.2f * k, oy = 0.25f * k;
         const float q[] = {
            x + ox, y + oy, 0, 1, 1, 0.5f * k, 0, 0.6f,
            x + ox + 0.4f, y + oy, 0, 1, 0, 1, 0.5f, 0.6f,
            x + ox, y + oy + 0.55f, 0, 1, 0.2f, 0.3f, 1, 0.4f,
            x + ox + 0.4f, y + oy + 0.55f, 0, 1, 1, 1, 1, 0.9f,
         };
         draw_pc(GL_TRIANGLE_STRIP, q, 4);
      }
   }
   /* Separate alpha factors. */
   glBlendEquationSeparate(GL_FUNC_ADD, GL_FUNC_ADD);
   glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
   glDisable(GL_BLEND);
   glBlendEquation(GL_FUNC_ADD);
   glBlendFunc(GL_ONE, GL_ZERO);
}

/* Mipmapped texture (glGenerateMipmap) on a plane in perspective: every
 * minification level, trilinear and nearest-mipmap filtering, REPEAT. */
static void
scene_mipmap(void)
{
   GLuint p = program(vs_tex, fs_tex);
   float m[16];
   perspective_view(m, 60.0f, 3.0f, -70.0f);
   set_mvp(p, m);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);

   GLuint tex = checker_texture(64, 8);
   glGenerateMipmap(GL_TEXTURE_2D);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   quad_pt(-3.0f, -1.0f, 0.0f, 8.0f, 0, 0, 6, 16);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   quad_pt(0.0f, -1.0f, 3.0f, 8.0f, 0, 0, 6, 16);
   glDeleteTextures(1, &tex);
}

/* Wrap modes and filters: texture coordinates -1..2 on six quads. */
static void
scene_wrap(void)
{
   GLuint p = program(vs_tex, fs_tex);
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);

   GLuint tex = checker_texture(16, 4);
   const GLenum wraps[] = {GL_REPEAT, GL_MIRRORED_REPEAT, GL_CLAMP_TO_EDGE};
   for (int f = 0; f < 2; f++) {
      GLenum filter = f ? GL_LINEAR : GL_NEAREST;
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
      for (int w = 0; w < 3; w++) {
         glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wraps[w]);
         glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wraps[(w + 1) % 3]);
         float x = -0.98f + 0.66f * w, y = f ? 0.02f : -0.98f;
         quad_pt(x, y, x + 0.62f, y + 0.94f, -1.0f, -1.0f, 2.0f, 2.0f);
      }
   }
   glDeleteTextures(1, &tex);
}

/* Luminance, alpha and luminance-alpha textures of odd sizes (NPOT),
 * blended; a texture updated with glTexSubImage2D. */
static void
scene_formats(void)
{
   GLuint p = program(vs_tex, fs_tex);
   set_identity_mvp(p);
   glClearColor(0.2f, 0.4f, 0.6f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

   unsigned char px[13 * 7 * 2];
   for (int i = 0; i < 13 * 7 * 2; i++)
      px[i] = (unsigned char)((i * 37) & 0xff);
   const GLenum fmts[] = {GL_LUMINANCE, GL_ALPHA, GL_LUMINANCE_ALPHA};
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   for (int i = 0; i < 3; i++) {
      glTexImage2D(GL_TEXTURE_2D, 0, fmts[i], 13, 7, 0, fmts[i],
                   GL_UNSIGNED_BYTE, px);
      float x = -0.95f + 0.65f * i;
      quad_pt(x, -0.95f, x + 0.6f, -0.05f, 0, 0, 1, 1);
   }
   /* RGB 565 texture with a sub-image update. */
   unsigned short rgb565[5 * 3];
   for (int i = 0; i < 15; i++)
      rgb565[i] = (unsigned short)(i * 4421u);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 5, 3, 0, GL_RGB,
                GL_UNSIGNED_SHORT_5_6_5, rgb565);
   const unsigned short sub[2] = {0xf800, 0x07e0};
   glTexSubImage2D(GL_TEXTURE_2D, 0, 1, 1, 2, 1, GL_RGB,
                   GL_UNSIGNED_SHORT_5_6_5, sub);
   quad_pt(-0.95f, 0.05f, 0.0f, 0.95f, 0, 0, 1, 1);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
   glDisable(GL_BLEND);
   glDeleteTextures(1, &tex);
}

/* Clears: full, scissored, colour-masked. */
static void
scene_clear(void)
{
   glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_SCISSOR_TEST);
   glScissor(10, 10, 60, 40);
   glClearColor(1, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glScissor(40, 30, 100, 70);
   glColorMask(GL_FALSE, GL_TRUE, GL_FALSE, GL_TRUE);
   glClearColor(0, 1, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glScissor(150, 110, 30, 30);
   glClearColor(1, 1, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glDisable(GL_SCISSOR_TEST);

   /* A scissored draw too. */
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glEnable(GL_SCISSOR_TEST);
   glScissor(90, 5, 50, 50);
   const float tri[] = {
      -1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1,
   };
   draw_pc(GL_TRIANGLES, tri, 3);
   glDisable(GL_SCISSOR_TEST);
}

/* Point sprites: sizes from the vertex shader, gl_PointCoord. */
static void
scene_points(void)
{
   program(
      "attribute vec4 a_pos;\n"
      "attribute vec4 a_color;\n"
      "varying vec4 v_color;\n"
      "void main() {\n"
      "   gl_Position = vec4(a_pos.xy, 0.0, 1.0);\n"
      "   gl_PointSize = a_pos.z;\n"
      "   v_color = a_color;\n"
      "}\n",
      "precision mediump float;\n"
      "varying vec4 v_color;\n"
      "void main() {\n"
      "   vec2 d = gl_PointCoord - vec2(0.5);\n"
      "   if (dot(d, d) > 0.25) discard;\n"
      "   gl_FragColor = vec4(v_color.rgb * (1.0 - gl_PointCoord.y), 1.0) + vec4(0.0, 0.0, gl_PointCoord.x, 0.0);\n"
      "}\n");
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   float v[12 * 8];
   for (int i = 0; i < 12; i++) {
      float *q = v + i * 8;
      q[0] = -0.85f + 0.15f * i;
      q[1] = (i & 1) ? 0.4f : -0.3f;
      q[2] = 1.0f + 3.0f * i; /* size */
      q[3] = 1;
      q[4] = (i % 3) == 0;
      q[5] = (i % 3) == 1;
      q[6] = (i % 3) == 2 ? 1.0f : 0.3f;
      q[7] = 1;
   }
   draw_pc(GL_POINTS, v, 12);
}

/* Lines: widths 1 and 3, strips and loops, all directions. */
static void
scene_lines(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   float star[16 * 8];
   for (int i = 0; i < 16; i++) {
      float a = i * (float)M_PI / 8.0f + 0.1f;
      float *v = star + i * 8;
      v[0] = (i & 1) ? -0.5f : -0.5f + 0.45f * cosf(a);
      v[1] = (i & 1) ? 0.0f : 0.6f * sinf(a);
      v[2] = 0;
      v[3] = 1;
      v[4] = 1;
      v[5] = (float)i / 16.0f;
      v[6] = 1.0f - (float)i / 16.0f;
      v[7] = 1;
   }
   draw_pc(GL_LINES, star, 16);
   glLineWidth(3.0f);
   float loop[5 * 8];
   for (int i = 0; i < 5; i++) {
      float a = i * 4.0f * (float)M_PI / 5.0f;
      float *v = loop + i * 8;
      v[0] = 0.5f + 0.4f * sinf(a);
      v[1] = 0.4f * cosf(a);
      v[2] = 0;
      v[3] = 1;
      v[4] = 0;
      v[5] = 1;
      v[6] = (float)i / 5.0f;
      v[7] = 1;
   }
   draw_pc(GL_LINE_LOOP, loop, 5);
   glLineWidth(1.0f);
   const float strip[] = {
      -0.9f, -0.9f, 0, 1, 1, 1, 0, 1, -0.2f, -0.7f, 0, 1, 1, 0, 1, 1,
      0.3f, -0.95f, 0, 1, 0, 1, 1, 1, 0.9f, -0.6f, 0, 1, 1, 1, 1, 1,
   };
   draw_pc(GL_LINE_STRIP, strip, 4);
}

/* Stencil: write a shape, then draw only where (and where not) it is. */
static void
scene_stencil(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
   glEnable(GL_STENCIL_TEST);
   glStencilFunc(GL_ALWAYS, 1, 0xff);
   glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
   glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
   const float shape[] = {
      -0.6f, -0.7f, 0, 1, 1, 1, 1, 1, 0.7f, -0.5f, 0, 1, 1, 1, 1, 1,
      0.0f, 0.8f, 0, 1, 1, 1, 1, 1,
   };
   draw_pc(GL_TRIANGLES, shape, 3);
   glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
   const float shape2[] = {
      -0.9f, 0.2f, 0, 1, 1, 1, 1, 1, 0.9f, 0.1f, 0, 1, 1, 1, 1, 1,
      0.0f, -0.2f, 0, 1, 1, 1, 1, 1,
   };
   draw_pc(GL_TRIANGLES, shape2, 3);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
   const float full[] = {
      -1, -1, 0, 1, 1, 0, 0, 1, 1, -1, 0, 1, 1, 0, 0, 1,
      -1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1,
   };
   float full2[32], full3[32];
   memcpy(full2, full, sizeof(full));
   memcpy(full3, full, sizeof(full));
   for (int i = 0; i < 4; i++) {
      full2[i * 8 + 4] = 0;
      full2[i * 8 + 5] = 1;
      full3[i * 8 + 4] = 0;
      full3[i * 8 + 6] = 1;
   }
   glStencilFunc(GL_EQUAL, 1, 0xff);
   draw_pc(GL_TRIANGLE_STRIP, full, 4);
   glStencilFunc(GL_EQUAL, 2, 0xff);
   draw_pc(GL_TRIANGLE_STRIP, full2, 4);
   glStencilFunc(GL_EQUAL, 0, 0x03);
   draw_pc(GL_TRIANGLE_STRIP, full3, 4);
   glDisable(GL_STENCIL_TEST);
}

/* A cube map sampled with reflection-like directions. */
static void
scene_cube(void)
{
   program(
      "attribute vec4 a_pos;\n"
      "varying vec3 v_dir;\n"
      "void main() {\n"
      "   gl_Position = vec4(a_pos.xy, 0.0, 1.0);\n"
      "   v_dir = vec3(a_pos.x * 1.3, a_pos.y, 1.0 - abs(a_pos.x));\n"
      "}\n",
      "precision mediump float;\n"
      "uniform samplerCube u_tex;\n"
      "varying vec3 v_dir;\n"
      "void main() { gl_FragColor = textureCube(u_tex, v_dir); }\n");
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_CUBE_MAP, tex);
   for (int f = 0; f < 6; f++) {
      unsigned char px[8 * 8 * 4];
      for (int i = 0; i < 64; i++) {
         int on = ((i % 8) / 2 + (i / 16)) & 1;
         px[i * 4 + 0] = (f == 0 || f == 1 || f == 4) ? (on ? 255 : 120) : 30;
         px[i * 4 + 1] = (f == 2 || f == 3 || f == 4) ? (on ? 255 : 120) : 30;
         px[i * 4 + 2] = (f & 1) ? (on ? 255 : 90) : 20;
         px[i * 4 + 3] = 255;
      }
      glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, GL_RGBA, 8, 8, 0,
                   GL_RGBA, GL_UNSIGNED_BYTE, px);
   }
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   const float q[] = {
      -1, -1, 0, 1, 0, 0, 1, -1, 0, 1, 0, 0, -1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0,
   };
   draw_pt(GL_TRIANGLE_STRIP, q, 4);
   glDeleteTextures(1, &tex);
}

/* Render to a texture (user framebuffer object, depth renderbuffer), then
 * draw it: st/mesa flips y and face orientation for user framebuffers. */
static void
scene_fbo(void)
{
   GLuint tex, fbo, rb;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 64, 64, 0, GL_RGBA,
                GL_UNSIGNED_BYTE, NULL);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                          tex, 0);
   glGenRenderbuffers(1, &rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, 64, 64);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
                             GL_RENDERBUFFER, rb);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      fprintf(stderr, "vlg_scenes: framebuffer incomplete\n");
      gl_errors++;
   }
   glViewport(0, 0, 64, 64);
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0.5f, 0, 0.5f, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glEnable(GL_CULL_FACE);
   const float tri[] = {
      -0.8f, -0.8f, 0.2f, 1, 1, 1, 0, 1, 0.8f, -0.8f, 0.2f, 1, 0, 1, 1, 1,
      -0.8f, 0.8f, -0.5f, 1, 1, 0, 1, 1, /* front (CCW) */
      0.9f, 0.9f, 0.0f, 1, 1, 0, 0, 1, -0.2f, 0.9f, 0.9f, 1, 1, 0, 0, 1,
      0.9f, -0.2f, -0.9f, 1, 1, 0, 0, 1, /* front, crosses the first */
   };
   draw_pc(GL_TRIANGLES, tri, 6);
   glDisable(GL_CULL_FACE);
   glDisable(GL_DEPTH_TEST);

   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glViewport(0, 0, W, H);
   p = program(vs_tex, fs_tex);
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glBindTexture(GL_TEXTURE_2D, tex);
   quad_pt(-0.9f, -0.9f, 0.1f, 0.9f, 0, 0, 1, 1);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   quad_pt(0.2f, -0.5f, 0.9f, 0.2f, 0, 0, 1, 1);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(1, &rb);
   glDeleteTextures(1, &tex);
}

/* Dynamic vertex buffers rewritten between draws in one frame, uniform
 * arrays indexed dynamically, a loop and a branch in the shaders. */
static void
scene_dynamic(void)
{
   GLuint p = program(
      "attribute vec4 a_pos;\n"
      "attribute vec4 a_color;\n"
      "uniform vec4 u_offset[4];\n"
      "uniform int u_which;\n"
      "varying vec4 v_color;\n"
      "void main() {\n"
      "   gl_Position = a_pos + u_offset[u_which];\n"
      "   v_color = a_color;\n"
      "}\n",
      "precision mediump float;\n"
      "varying vec4 v_color;\n"
      "uniform float u_steps;\n"
      "void main() {\n"
      "   vec3 c = vec3(0.0);\n"
      "   for (int i = 0; i < 8; i++) {\n"
      "      if (float(i) >= u_steps) break;\n"
      "      c += v_color.rgb / 8.0;\n"
      "   }\n"
      "   if (gl_FragCoord.y < 30.0) c = c.bgr;\n"
      "   gl_FragColor = vec4(c, 1.0);\n"
      "}\n");
   glClearColor(0.1f, 0.1f, 0.1f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   const float offs[16] = {-0.5f, -0.5f, 0, 0, 0.5f, -0.5f, 0, 0,
                           -0.5f, 0.5f,  0, 0, 0.5f, 0.5f,  0, 0};
   glUniform4fv(glGetUniformLocation(p, "u_offset"), 4, offs);
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   for (int i = 0; i < 4; i++) {
      const float t[] = {
         -0.4f, -0.4f, 0, 1, 1, (float)i / 3, 0, 1, 0.4f, -0.4f, 0, 1, 0, 1, (float)i / 3, 1,
         0.0f, 0.4f, 0, 1, (float)i / 3, 0, 1, 1,
      };
      glBufferData(GL_ARRAY_BUFFER, sizeof(t), t, GL_STREAM_DRAW);
      glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 32, (void *)0);
      glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 32, (void *)16);
      glUniform1i(glGetUniformLocation(p, "u_which"), i);
      glUniform1f(glGetUniformLocation(p, "u_steps"), 2.0f + 2.0f * i);
      glDrawArrays(GL_TRIANGLES, 0, 3);
   }
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteBuffers(1, &vbo);
}

/* One blended quad of a constant colour over a constant clear colour: the
 * dump test edits this draw's blend factors (test_dump.py knows these
 * numbers). */
static void
scene_blendedit(void)
{
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   float q[4 * 8];
   for (int i = 0; i < 4; i++) {
      float *v = q + i * 8;
      v[0] = (i & 1) ? 0.5f : -0.5f;
      v[1] = (i & 2) ? 0.5f : -0.5f;
      v[2] = 0;
      v[3] = 1;
      v[4] = 0.8f;
      v[5] = 0.2f;
      v[6] = 0.4f;
      v[7] = 0.5f;
   }
   draw_pc(GL_TRIANGLE_STRIP, q, 4);
   glDisable(GL_BLEND);
}

/* OpenGL ES 3.0: one uniform block "Params" read by both shaders, and the
 * vertex shader's "tf_pos" captured by transform feedback with a
 * primitives-written query: two triangles of a quad, offset by
 * Params.offset, coloured Params.color. The dump test (test_dump.py
 * UniformBlockAndStreamOutputDumpTest) knows these numbers. The captured
 * positions and the query result are checked here (a mismatch is counted as
 * a GL error). */
static const char *vs_ubo =
   "#version 300 es\n"
   "layout(location = 0) in vec4 a_pos;\n"
   "layout(std140) uniform Params { vec4 offset; vec4 color; };\n"
   "out vec4 tf_pos;\n"
   "void main() {\n"
   "   gl_Position = a_pos + offset;\n"
   "   tf_pos = a_pos * 2.0 + offset;\n"
   "}\n";

static const char *fs_ubo =
   "#version 300 es\n"
   "precision mediump float;\n"
   "layout(std140) uniform Params { vec4 offset; vec4 color; };\n"
   "out vec4 o_color;\n"
   "void main() { o_color = color; }\n";

static void
scene_uboxfb(void)
{
   const char *major = (const char *)glGetString(GL_VERSION);
   if (!major || strncmp(major, "OpenGL ES 3", 11) != 0) {
      fprintf(stderr, "vlg_scenes: uboxfb needs OpenGL ES 3.0 (have %s)\n",
              major ? major : "?");
      gl_errors++;
      return;
   }
   GLuint p = glCreateProgram();
   GLint ok = 0;
   glAttachShader(p, compile(GL_VERTEX_SHADER, vs_ubo));
   glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs_ubo));
   const char *varyings[] = {"tf_pos"};
   glTransformFeedbackVaryings(p, 1, varyings, GL_INTERLEAVED_ATTRIBS);
   glLinkProgram(p);
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      fprintf(stderr, "vlg_scenes: uboxfb program does not link\n");
      exit(2);
   }
   glUseProgram(p);

   const float params[8] = {0.125f, -0.25f, 0.0f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
   GLuint bufs[3], query, occlusion;
   glGenBuffers(3, bufs);
   glBindBuffer(GL_UNIFORM_BUFFER, bufs[0]);
   glBufferData(GL_UNIFORM_BUFFER, sizeof(params), params, GL_STATIC_DRAW);
   glUniformBlockBinding(p, glGetUniformBlockIndex(p, "Params"), 2);
   glBindBufferBase(GL_UNIFORM_BUFFER, 2, bufs[0]);

   /* two triangles of the quad [-0.5, 0.5]^2 */
   const float quad[6][4] = {{-0.5f, -0.5f, 0, 1}, {0.5f, -0.5f, 0, 1}, {-0.5f, 0.5f, 0, 1},
                             {-0.5f, 0.5f, 0, 1},  {0.5f, -0.5f, 0, 1}, {0.5f, 0.5f, 0, 1}};
   glBindBuffer(GL_ARRAY_BUFFER, bufs[1]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glDisableVertexAttribArray(1);
   glDisableVertexAttribArray(2);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, 0);

   float init[6][4];
   for (int i = 0; i < 24; i++)
      init[i / 4][i % 4] = -7.0f; /* bytes the capture must overwrite */
   glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, bufs[2]);
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, sizeof(init), init, GL_STATIC_READ);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, bufs[2]);
   glGenQueries(1, &query);
   glGenQueries(1, &occlusion);
   glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query);
   glBeginQuery(GL_ANY_SAMPLES_PASSED, occlusion);
   glBeginTransformFeedback(GL_TRIANGLES);
   glDrawArrays(GL_TRIANGLES, 0, 6);
   glEndTransformFeedback();
   glEndQuery(GL_ANY_SAMPLES_PASSED);
   glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
   check_gl("uboxfb draw");

   GLuint any = 0;
   glGetQueryObjectuiv(occlusion, GL_QUERY_RESULT, &any);
   if (any != GL_TRUE) {
      fprintf(stderr, "vlg_scenes: uboxfb: GL_ANY_SAMPLES_PASSED is false\n");
      gl_errors++;
   }

   GLuint written = 0;
   glGetQueryObjectuiv(query, GL_QUERY_RESULT, &written);
   if (written != 2) {
      fprintf(stderr, "vlg_scenes: uboxfb: %u primitives written, expected 2\n", written);
      gl_errors++;
   }
   const float *got = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, sizeof(init),
                                       GL_MAP_READ_BIT);
   for (int i = 0; got && i < 24; i++) {
      const float want = quad[i / 4][i % 4] * 2.0f + params[i % 4];
      if (got[i] != want) {
         fprintf(stderr, "vlg_scenes: uboxfb: captured component %d is %g, expected %g\n", i,
                 got[i], want);
         gl_errors++;
         break;
      }
   }
   if (!got)
      gl_errors++;
   glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
   glBindBufferBase(GL_UNIFORM_BUFFER, 2, 0);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteQueries(1, &query);
   glDeleteQueries(1, &occlusion);
   glDeleteBuffers(3, bufs);
}

/* OpenGL ES 3.0 multisampling: one triangle of colour (1, 1, 1) drawn into a
 * 4-sample RGBA8 renderbuffer (with a 4-sample depth buffer, depth test on),
 * resolved with glBlitFramebuffer into the window: edge pixels get
 * intermediate values (GL ES 3.0 §3.3.1, §4.3.3). */
static void
scene_msaa(void)
{
   GLint max_samples = 0;
   glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
   if (max_samples < 4) {
      fprintf(stderr, "vlg_scenes: msaa needs GL_MAX_SAMPLES >= 4 (have %d)\n", max_samples);
      gl_errors++;
      return;
   }
   GLuint fbo, rb[2];
   glGenFramebuffers(1, &fbo);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, W, H);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_DEPTH24_STENCIL8, W, H);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                             rb[1]);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      fprintf(stderr, "vlg_scenes: msaa: 4-sample framebuffer incomplete\n");
      gl_errors++;
   } else {
      GLuint p = program(vs_color, fs_color);
      set_identity_mvp(p);
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      glEnable(GL_DEPTH_TEST);
      const float tri[3 * 8] = {-0.8f, -0.7f, 0, 1, 1, 1, 1, 1,
                                0.9f,  -0.3f, 0, 1, 1, 1, 1, 1,
                                -0.2f, 0.85f, 0, 1, 1, 1, 1, 1};
      draw_pc(GL_TRIANGLES, tri, 3);
      glDisable(GL_DEPTH_TEST);
      glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
      glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
      glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(2, rb);
}

/* The scenes below need OpenGL ES 3.0 and, unless @ext is NULL, an extension. */
static int
need_es3_extension(const char *scene, const char *ext)
{
   const char *version = (const char *)glGetString(GL_VERSION);
   GLint n = 0;

   if (!version || strncmp(version, "OpenGL ES 3", 11) != 0) {
      fprintf(stderr, "vlg_scenes: %s needs OpenGL ES 3.0 (have %s)\n", scene,
              version ? version : "?");
      gl_errors++;
      return 0;
   }
   if (!ext)
      return 1;
   glGetIntegerv(GL_NUM_EXTENSIONS, &n);
   for (GLint i = 0; i < n; i++)
      if (strcmp((const char *)glGetStringi(GL_EXTENSIONS, i), ext) == 0)
         return 1;
   fprintf(stderr, "vlg_scenes: %s needs %s\n", scene, ext);
   gl_errors++;
   return 0;
}

/* GL_EXT_clip_control: with GL_ZERO_TO_ONE the near plane is z = 0 (triangle
 * A's corner with z_ndc < 0 is cut off, the -1..1 mode would keep it) and
 * window z = z_ndc * (f - n) + n, shown in blue; GL_UPPER_LEFT (right half)
 * flips y and with it the winding, so the clockwise triangle C stays culled
 * in both halves. */
static void
scene_clipcontrol(void)
{
   if (!need_es3_extension("clipcontrol", "GL_EXT_clip_control"))
      return;
   PFNGLCLIPCONTROLEXTPROC clip_control =
      (PFNGLCLIPCONTROLEXTPROC)eglGetProcAddress("glClipControlEXT");
   GLuint p = program(vs_color, "precision highp float;\n"
                                "varying vec4 v_color;\n"
                                "void main() {\n"
                                "   gl_FragColor = vec4(v_color.rg, gl_FragCoord.z, 1.0);\n"
                                "}\n");
   set_identity_mvp(p);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   glEnable(GL_CULL_FACE);
   glDepthRangef(0.1f, 0.9f);
   const float tri[] = {
      /* A: counter-clockwise, z from -0.6 to 0.8 */
      -0.8f, -0.8f, -0.6f, 1, 1, 0, 0, 1, 0.8f, -0.6f, 0.8f, 1, 1, 0.5f, 0, 1,
      0.0f, 0.8f, 0.3f, 1, 0.5f, 0, 0, 1,
      /* B: counter-clockwise, z 0.4, crossing A */
      -0.9f, 0.1f, 0.4f, 1, 0, 1, 0, 1, 0.9f, -0.2f, 0.4f, 1, 0, 1, 0, 1,
      0.9f, 0.5f, 0.4f, 1, 0, 0.5f, 0, 1,
      /* C: clockwise, culled */
      -0.9f, 0.9f, 0.2f, 1, 1, 1, 0, 1, -0.3f, 0.9f, 0.2f, 1, 1, 1, 0, 1,
      -0.9f, 0.3f, 0.2f, 1, 1, 1, 0, 1,
   };
   for (int half = 0; half < 2; half++) {
      clip_control(half ? GL_UPPER_LEFT_EXT : GL_LOWER_LEFT_EXT, GL_ZERO_TO_ONE_EXT);
      glViewport(half * W / 2, 0, W / 2, H);
      draw_pc(GL_TRIANGLES, tri, 9);
   }
   clip_control(GL_LOWER_LEFT_EXT, GL_NEGATIVE_ONE_TO_ONE_EXT);
   glDepthRangef(0, 1);
   glDisable(GL_CULL_FACE);
   glDisable(GL_DEPTH_TEST);
}

/* A framebuffer of an RGBA8 colour renderbuffer and a depth/stencil one. */
static GLuint
zs_framebuffer(GLenum zs_format, int w, int h, GLuint rb[2])
{
   GLuint fbo;
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, zs_format, w, h);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                             rb[1]);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      fprintf(stderr, "vlg_scenes: zsblit: framebuffer 0x%x incomplete\n", zs_format);
      gl_errors++;
   }
   return fbo;
}

/* A quad over the whole viewport at z_ndc @z in colour (r, g, b, 1). */
static void
full_quad(float z, float r, float g, float b)
{
   float q[4 * 8];
   for (int i = 0; i < 4; i++) {
      float *v = q + i * 8;
      v[0] = (i & 1) ? 1.0f : -1.0f;
      v[1] = (i & 2) ? 1.0f : -1.0f;
      v[2] = z;
      v[3] = 1;
      v[4] = r;
      v[5] = g;
      v[6] = b;
      v[7] = 1;
   }
   draw_pc(GL_TRIANGLE_STRIP, q, 4);
}

/* Depth/stencil blits (GL ES 3.0 §4.3.3, NEAREST): a 40x30 buffer gets
 * stencil = number of overlapping triangles (1..3) and their depth; it is
 * blitted scaled into an 80x120 one cleared to stencil 7, depth 0.3: left
 * half D24S8 stencil only (depth must stay 0.3), right half D32F_S8 depth
 * and stencil, flipped in x and y.  Red shows the stencil (0, 1, 2, 3, 7 ->
 * 0, .25, .5, .75, 1), green depth > 0.4, blue depth > 0.7. */
static void
scene_zsblit(void)
{
   if (!need_es3_extension("zsblit", NULL))
      return;
   GLuint p = program(vs_color, fs_color);
   set_identity_mvp(p);
   const float tris[] = {
      -0.9f, -0.8f, 0.5f, 1, 1, 1, 1, 1, 0.6f, -0.9f, 0.5f, 1, 1, 1, 1, 1,
      -0.2f, 0.9f, 0.5f, 1, 1, 1, 1, 1,  -0.5f, -0.3f, 0.0f, 1, 1, 1, 1, 1,
      0.9f, -0.1f, 0.0f, 1, 1, 1, 1, 1,  0.1f, 0.8f, 0.0f, 1, 1, 1, 1, 1,
      -0.7f, 0.6f, -0.5f, 1, 1, 1, 1, 1, 0.3f, -0.6f, -0.5f, 1, 1, 1, 1, 1,
      0.8f, 0.7f, -0.5f, 1, 1, 1, 1, 1,
   };
   for (int k = 0; k < 2; k++) {
      const GLenum fmt = k ? GL_DEPTH32F_STENCIL8 : GL_DEPTH24_STENCIL8;
      GLuint src_rb[2], dst_rb[2];
      GLuint dst = zs_framebuffer(fmt, W / 2, H, dst_rb);
      GLuint src = zs_framebuffer(fmt, 40, 30, src_rb);
      glViewport(0, 0, 40, 30);
      glClearDepthf(1);
      glClearStencil(0);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_LESS);
      glEnable(GL_STENCIL_TEST);
      glStencilFunc(GL_ALWAYS, 0, 0xff);
      glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
      glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
      draw_pc(GL_TRIANGLES, tris, 9);
      glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
      glDisable(GL_STENCIL_TEST);
      glDisable(GL_DEPTH_TEST);

      glBindFramebuffer(GL_DRAW_FRAMEBUFFER, dst);
      glClearColor(0, 0, 0, 1);
      glClearDepthf(0.3f);
      glClearStencil(7);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
      glBindFramebuffer(GL_READ_FRAMEBUFFER, src);
      if (k == 0)
         glBlitFramebuffer(0, 0, 40, 30, 4, 6, 76, 114, GL_STENCIL_BUFFER_BIT, GL_NEAREST);
      else
         glBlitFramebuffer(0, 0, 40, 30, 76, 114, 4, 6,
                           GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT, GL_NEAREST);
      check_gl("zsblit blit");

      glBindFramebuffer(GL_FRAMEBUFFER, dst);
      glViewport(0, 0, W / 2, H);
      glEnable(GL_STENCIL_TEST);
      glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
      glColorMask(GL_TRUE, GL_FALSE, GL_FALSE, GL_FALSE);
      const int levels[5] = {0, 1, 2, 3, 7};
      for (int i = 0; i < 5; i++) {
         glStencilFunc(GL_EQUAL, levels[i], 0xff);
         full_quad(0, i * 0.25f, 0, 0);
      }
      glDisable(GL_STENCIL_TEST);
      glEnable(GL_DEPTH_TEST);
      glDepthMask(GL_FALSE);
      glDepthFunc(GL_LESS);
      glColorMask(GL_FALSE, GL_TRUE, GL_FALSE, GL_FALSE);
      full_quad(-0.2f, 0, 1, 0); /* window z 0.4 */
      glColorMask(GL_FALSE, GL_FALSE, GL_TRUE, GL_FALSE);
      full_quad(0.4f, 0, 0, 1); /* window z 0.7 */
      glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
      glDepthMask(GL_TRUE);
      glDisable(GL_DEPTH_TEST);

      glBindFramebuffer(GL_READ_FRAMEBUFFER, dst);
      glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
      glBlitFramebuffer(0, 0, W / 2, H, k * W / 2, 0, (k + 1) * W / 2, H,
                        GL_COLOR_BUFFER_BIT, GL_NEAREST);
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glDeleteFramebuffers(1, &src);
      glDeleteFramebuffers(1, &dst);
      glDeleteRenderbuffers(2, src_rb);
      glDeleteRenderbuffers(2, dst_rb);
   }
   glClearDepthf(1);
   glClearStencil(0);
   glViewport(0, 0, W, H);
}

/* GL_EXT_texture_sRGB_R8 / _RG8: 4x4 GL_SR8_EXT (left) and GL_SRG8_EXT
 * (right) textures magnified with LINEAR filtering: the texture unit decodes
 * sRGB before filtering, blue stays 0 and alpha 1. */
static void
scene_srgbtex(void)
{
   if (!need_es3_extension("srgbtex", "GL_EXT_texture_sRGB_R8") ||
       !need_es3_extension("srgbtex", "GL_EXT_texture_sRGB_RG8"))
      return;
   GLuint p = program(vs_tex, fs_tex);
   set_identity_mvp(p);
   glClearColor(0, 0, 0.5f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   unsigned char r[16], rg[32];
   for (int i = 0; i < 16; i++) {
      r[i] = (unsigned char)(i * 17);
      rg[2 * i] = (unsigned char)((i % 4) * 85);
      rg[2 * i + 1] = (unsigned char)(255 - (i / 4) * 60);
   }
   GLuint tex[2];
   glGenTextures(2, tex);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
   for (int k = 0; k < 2; k++) {
      glBindTexture(GL_TEXTURE_2D, tex[k]);
      if (k == 0)
         glTexImage2D(GL_TEXTURE_2D, 0, GL_SR8_EXT, 4, 4, 0, GL_RED, GL_UNSIGNED_BYTE, r);
      else
         glTexImage2D(GL_TEXTURE_2D, 0, GL_SRG8_EXT, 4, 4, 0, GL_RG, GL_UNSIGNED_BYTE, rg);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      quad_pt(k ? 0.05f : -0.95f, -0.9f, k ? 0.95f : -0.05f, 0.9f, 0, 0, 1, 1);
   }
   glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
   glDeleteTextures(2, tex);
}

/* GL_EXT_color_buffer_half_float: GL_RGB16F (left) and GL_RGBA16F (right)
 * textures rendered with blending src * DST_ALPHA + dst * (1 - src alpha)
 * of flat colours beyond [0, 1] (DST_ALPHA is 1 for RGB16F, the cleared 0.5
 * for RGBA16F; every value is exact in half precision), then drawn as
 * (c + 1) / 6. */
static void
scene_halffloat(void)
{
   if (!need_es3_extension("halffloat", "GL_EXT_color_buffer_half_float"))
      return;
   GLuint pc = program(vs_color, "precision highp float;\n"
                                 "uniform vec4 u_color;\n"
                                 "varying vec4 v_color;\n"
                                 "void main() { gl_FragColor = u_color; }\n");
   set_identity_mvp(pc);
   const float tri[] = {
      -0.9f, -0.9f, 0, 1, 0, 0, 0, 0, 0.7f, -0.8f, 0, 1, 0, 0, 0, 0,
      -0.1f, 0.9f,  0, 1, 0, 0, 0, 0, -0.6f, 0.6f, 0, 1, 0, 0, 0, 0,
      0.2f, -0.7f,  0, 1, 0, 0, 0, 0, 0.9f,  0.9f, 0, 1, 0, 0, 0, 0,
   };
   const float colors[2][4] = {{1.5f, 0.25f, 4.0f, 0.5f}, {-0.75f, 3.0f, 0.125f, 0.25f}};
   GLuint tex[2], fbo;
   glGenTextures(2, tex);
   glGenFramebuffers(1, &fbo);
   for (int k = 0; k < 2; k++) {
      glBindTexture(GL_TEXTURE_2D, tex[k]);
      glTexImage2D(GL_TEXTURE_2D, 0, k ? GL_RGBA16F : GL_RGB16F, W / 2, H, 0,
                   k ? GL_RGBA : GL_RGB, GL_HALF_FLOAT, NULL);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[k], 0);
      if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
         fprintf(stderr, "vlg_scenes: halffloat: %s framebuffer incomplete\n",
                 k ? "RGBA16F" : "RGB16F");
         gl_errors++;
      }
      glViewport(0, 0, W / 2, H);
      glClearColor(0.25f, 0.5f, 2.0f, 0.5f);
      glClear(GL_COLOR_BUFFER_BIT);
      glEnable(GL_BLEND);
      glBlendFunc(GL_DST_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      for (int t = 0; t < 2; t++) {
         glUniform4fv(glGetUniformLocation(pc, "u_color"), 1, colors[t]);
         draw_pc(GL_TRIANGLES, tri + t * 24, 3);
      }
      glDisable(GL_BLEND);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glViewport(0, 0, W, H);
   GLuint pt = program(vs_tex, "precision highp float;\n"
                               "uniform sampler2D u_tex;\n"
                               "varying vec2 v_tc;\n"
                               "void main() { gl_FragColor = (texture2D(u_tex, v_tc) + 1.0) / 6.0; }\n");
   set_identity_mvp(pt);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   for (int k = 0; k < 2; k++) {
      glBindTexture(GL_TEXTURE_2D, tex[k]);
      quad_pt(k ? 0 : -1, -1, k ? 1 : 0, 1, 0, 0, 1, 1);
   }
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(2, tex);
   glClearColor(0, 0, 0, 0);
}

static const struct {
   const char *name;
   void (*draw)(void);
   int only_when_named; /* not in the default list nor --list (softpipe lacks it) */
} scenes[] = {
   {"triangles", scene_triangles}, {"indexed", scene_indexed},
   {"depth", scene_depth},         {"blend", scene_blend},
   {"mipmap", scene_mipmap},       {"wrap", scene_wrap},
   {"formats", scene_formats},     {"clear", scene_clear},
   {"points", scene_points},       {"lines", scene_lines},
   {"stencil", scene_stencil},     {"cube", scene_cube},
   {"fbo", scene_fbo},             {"dynamic", scene_dynamic},
   {"blendedit", scene_blendedit}, {"uboxfb", scene_uboxfb},
   {"clipcontrol", scene_clipcontrol}, {"zsblit", scene_zsblit},
   {"srgbtex", scene_srgbtex},     {"halffloat", scene_halffloat},
   {"msaa", scene_msaa, 1},
};
#define NUM_SCENES (sizeof(scenes) / sizeof(scenes[0]))

static int
write_png(const char *path, const unsigned char *rgba_bottom_up)
{
   FILE *f = fopen(path, "wb");
   if (!f) {
      perror(path);
      return -1;
   }
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
   png_infop info = png_create_info_struct(png);
   if (setjmp(png_jmpbuf(png))) {
      fclose(f);
      return -1;
   }
   png_init_io(png, f);
   png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(png, info);
   for (int y = H - 1; y >= 0; y--)
      png_write_row(png, (png_bytep)(rgba_bottom_up + (size_t)y * W * 4));
   png_write_end(png, NULL);
   png_destroy_write_struct(&png, &info);
   fclose(f);
   return 0;
}

static void
reset_state(void)
{
   glViewport(0, 0, W, H);
   glDisable(GL_BLEND);
   glDisable(GL_DEPTH_TEST);
   glDisable(GL_STENCIL_TEST);
   glDisable(GL_SCISSOR_TEST);
   glDisable(GL_CULL_FACE);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glDepthMask(GL_TRUE);
   glStencilMask(0xff);
   glClearColor(0, 0, 0, 0);
   glClearDepthf(1);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
}

int
main(int argc, char **argv)
{
   if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
      for (unsigned i = 0; i < NUM_SCENES; i++)
         if (!scenes[i].only_when_named)
            printf("%s\n", scenes[i].name);
      return 0;
   }
   if (argc < 2) {
      fprintf(stderr, "usage: vlg_scenes OUT_DIR [SCENE...] | --list\n");
      return 2;
   }

   EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
   EGLint major, minor;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      fprintf(stderr, "vlg_scenes: no EGL display (EGL_PLATFORM=surfaceless?)\n");
      return 2;
   }
   const EGLint cfg_attr[] = {
      EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
      EGL_DEPTH_SIZE, 24, EGL_STENCIL_SIZE, 8, EGL_NONE,
   };
   EGLConfig cfg;
   EGLint n = 0;
   if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
      fprintf(stderr, "vlg_scenes: no RGBA8 + Z24S8 pbuffer config\n");
      return 2;
   }
   const EGLint pb_attr[] = {EGL_WIDTH, W, EGL_HEIGHT, H, EGL_NONE};
   EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pb_attr);
   eglBindAPI(EGL_OPENGL_ES_API);
   const EGLint ctx3_attr[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
   const EGLint ctx_attr[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx3_attr);
   if (ctx == EGL_NO_CONTEXT)
      ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
   if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT ||
       !eglMakeCurrent(dpy, surf, surf, ctx)) {
      fprintf(stderr, "vlg_scenes: cannot create a GLES2 pbuffer context\n");
      return 2;
   }
   fprintf(stderr, "vlg_scenes: GL_RENDERER %s\n", glGetString(GL_RENDERER));

   unsigned char *px = malloc(W * H * 4);
   int ran = 0;
   for (unsigned i = 0; i < NUM_SCENES; i++) {
      int wanted = argc == 2 && !scenes[i].only_when_named;
      for (int a = 2; a < argc; a++)
         wanted |= strcmp(argv[a], scenes[i].name) == 0;
      if (!wanted)
         continue;
      reset_state();
      scenes[i].draw();
      check_gl(scenes[i].name);
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      check_gl("glReadPixels");
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s.png", argv[1], scenes[i].name);
      if (write_png(path, px))
         return 2;
      ran++;
   }
   free(px);
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, ctx);
   eglDestroySurface(dpy, surf);
   eglTerminate(dpy);
   if (!ran) {
      fprintf(stderr, "vlg_scenes: no such scene\n");
      return 2;
   }
   return gl_errors ? 1 : 0;
}
