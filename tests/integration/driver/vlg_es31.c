/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_es31: OpenGL ES 3.1 checks through EGL surfaceless (a pbuffer), every
 * expected value computed here on the host from the inputs (never read back
 * from the driver first):
 *
 *   info     GL_VERSION, GLSL version and the compute limits (printed)
 *   compute  a compute shader with an SSBO, shared memory + barrier(), an
 *            atomic counter and imageStore into an rgba8 texture; then a draw
 *            that samples the texture (texelFetch) into the pbuffer, read back
 *   indirect glDispatchComputeIndirect: gl_NumWorkGroups and the grid come
 *            from a buffer
 *   msaa     a triangle drawn into a 4-sample texture (glTexStorage2D-
 *            Multisample), then a shader that counts, per pixel, the samples
 *            texelFetch(sampler2DMS) finds covered, compared with the coverage
 *            of the standard 4x sample positions computed here; textureSize
 *
 *   copies   glCopyBufferSubData, a same-format glBlitFramebuffer and a
 *            glBufferSubData into a buffer a queued draw reads: GPU COPY
 *            commands (test_copies)
 *   vertex2101010  the (UNSIGNED_)INT_2_10_10_10_REV vertex types: their
 *            size check, and their fetch read back with transform feedback
 *   copyimage  glCopyImageSubDataOES between formats of one size class, mip
 *            levels, array layers, 3D slices and cube faces, and out of an
 *            ETC2 texture (test_copyimage)
 *   tfseparate  transform feedback in GL_SEPARATE_ATTRIBS mode with varyings
 *            of more than 4 components (mat4, vec4[3], mat2x3, gl_Position),
 *            one buffer each, one of them bound at an offset
 *
 *    vlg_es31 [TEST...]      (default: every test)
 *
 * Exit status: 0 when every test passed, 1 when one failed (the reason on
 * stderr), 2 for EGL/usage errors or a context below ES 3.1.
 * Build: cc vlg_es31.c -o vlg_es31 -lEGL -lGLESv2 -lm (vlg_gles31.h beside it)
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLG_PROG "vlg_es31"
#include "vlg_gles31.h"
#include <GLES2/gl2ext.h>

/* A deterministic input: a small LCG. */
static uint32_t
lcg(uint32_t *s)
{
   *s = *s * 1664525u + 1013904223u;
   return *s >> 8;
}

static void
test_info(void)
{
   GLint v[3];
   printf("GL_VERSION %s\n", glGetString(GL_VERSION));
   printf("GL_SHADING_LANGUAGE_VERSION %s\n", glGetString(GL_SHADING_LANGUAGE_VERSION));
   glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, v);
   printf("MAX_COMPUTE_WORK_GROUP_INVOCATIONS %d\n", v[0]);
   for (int i = 0; i < 3; i++)
      glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &v[i]);
   printf("MAX_COMPUTE_WORK_GROUP_SIZE %d %d %d\n", v[0], v[1], v[2]);
   for (int i = 0; i < 3; i++)
      glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &v[i]);
   printf("MAX_COMPUTE_WORK_GROUP_COUNT %d %d %d\n", v[0], v[1], v[2]);
   glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, v);
   printf("MAX_COMPUTE_SHARED_MEMORY_SIZE %d\n", v[0]);
   glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, v);
   printf("MAX_COMPUTE_SHADER_STORAGE_BLOCKS %d\n", v[0]);
   glGetIntegerv(GL_MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS, v);
   printf("MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS %d\n", v[0]);
   glGetIntegerv(GL_MAX_COMPUTE_IMAGE_UNIFORMS, v);
   printf("MAX_COMPUTE_IMAGE_UNIFORMS %d\n", v[0]);
   glGetIntegerv(GL_MAX_COLOR_TEXTURE_SAMPLES, v);
   printf("MAX_COLOR_TEXTURE_SAMPLES %d\n", v[0]);
   glGetIntegerv(GL_MAX_DEPTH_TEXTURE_SAMPLES, v);
   printf("MAX_DEPTH_TEXTURE_SAMPLES %d\n", v[0]);
   glGetIntegerv(GL_MAX_INTEGER_SAMPLES, v);
   printf("MAX_INTEGER_SAMPLES %d\n", v[0]);
   check_gl("info");
}

/*
 * compute: 4 workgroups of 64 invocations over 256 uints d[i]:
 *   SSBO sums[wg] = sum of the workgroup's d (shared-memory tree reduction
 *   with barrier()), big = atomic counter of the d[i] >= 2^23, out[i] =
 *   d[i] * 3 + gl_LocalInvocationIndex, and the 16x16 rgba8 image pixel
 *   (i % 16, i / 16) = (d & 255, d >> 8 & 255, wg * 64, 255) / 255.
 * Then a full-pbuffer draw shows the image (texelFetch) and is read back.
 */
static const char *compute_src =
   "#version 310 es\n"
   "layout(local_size_x = 64) in;\n"
   "layout(std430, binding = 0) buffer In { uint d[]; } inp;\n"
   "layout(std430, binding = 1) buffer Out { uint sums[4]; uint o[]; } res;\n"
   "layout(binding = 0) uniform atomic_uint big;\n"
   "layout(rgba8, binding = 0) writeonly uniform highp image2D img;\n"
   "shared uint partial[64];\n"
   "void main() {\n"
   "   uint l = gl_LocalInvocationIndex;\n"
   "   uint i = gl_GlobalInvocationID.x;\n"
   "   uint d = inp.d[i];\n"
   "   partial[l] = d;\n"
   "   barrier();\n"
   "   for (uint s = 32u; s > 0u; s >>= 1) {\n"
   "      if (l < s)\n"
   "         partial[l] += partial[l + s];\n"
   "      barrier();\n"
   "   }\n"
   "   if (l == 0u)\n"
   "      res.sums[gl_WorkGroupID.x] = partial[0];\n"
   "   if (d >= 8388608u)\n"
   "      atomicCounterIncrement(big);\n"
   "   res.o[i] = d * 3u + l;\n"
   "   imageStore(img, ivec2(int(i % 16u), int(i / 16u)),\n"
   "              vec4(float(d & 255u), float((d >> 8) & 255u), float(gl_WorkGroupID.x * 64u), 255.0) / 255.0);\n"
   "}\n";

static const char *show_vs =
   "#version 310 es\n"
   "in vec4 a_pos;\n"
   "void main() { gl_Position = a_pos; }\n";
static const char *show_fs =
   "#version 310 es\n"
   "precision highp float;\n"
   "uniform highp sampler2D t;\n"
   "out vec4 color;\n"
   "void main() { color = texelFetch(t, ivec2(gl_FragCoord.xy), 0); }\n";

/* Draw @count 2D vertices (x, y pairs in NDC) of @xy as @mode with @prog,
 * whose position attribute is "a_pos", from a temporary vertex buffer. */
static void
draw_2d(GLuint prog, GLenum mode, const float *xy, GLsizei count)
{
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, count * 2 * sizeof(float), xy, GL_STATIC_DRAW);
   glUseProgram(prog);
   GLint loc = glGetAttribLocation(prog, "a_pos");
   glVertexAttribPointer(loc, 2, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(loc);
   glDrawArrays(mode, 0, count);
   glDisableVertexAttribArray(loc);
   glDeleteBuffers(1, &vbo);
}

static void
draw_fullscreen(GLuint prog)
{
   static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
   draw_2d(prog, GL_TRIANGLE_STRIP, quad, 4);
}

static void
test_compute(void)
{
   enum { N = 256 };
   uint32_t d[N], seed = 12345;
   for (int i = 0; i < N; i++)
      d[i] = lcg(&seed) & 0xffffff;

   GLuint prog = link(shader(GL_COMPUTE_SHADER, compute_src), 0);
   GLuint bufs[3];
   glGenBuffers(3, bufs);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[0]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(d), d, GL_STATIC_DRAW);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bufs[1]);
   uint32_t fill[4 + N];
   memset(fill, 0xee, sizeof(fill));
   glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(fill), fill, GL_DYNAMIC_READ);
   uint32_t zero = 0;
   glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0, bufs[2]);
   glBufferData(GL_ATOMIC_COUNTER_BUFFER, 4, &zero, GL_DYNAMIC_READ);

   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 16, 16);
   glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
   glUseProgram(prog);
   glDispatchCompute(4, 1, 1);
   glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_ATOMIC_COUNTER_BARRIER_BIT |
                   GL_TEXTURE_FETCH_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
   if (check_gl("dispatch"))
      return;

   /* expected values */
   uint32_t sums[4] = {0}, big = 0;
   for (int i = 0; i < N; i++) {
      sums[i / 64] += d[i];
      big += d[i] >= 8388608u;
   }
   glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[1]);
   const uint32_t *r = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, sizeof(fill), GL_MAP_READ_BIT);
   if (!r) {
      FAIL("cannot map the result SSBO");
      return;
   }
   for (int w = 0; w < 4; w++)
      if (r[w] != sums[w])
         FAIL("compute: workgroup %d sum %u, expected %u", w, r[w], sums[w]);
   int bad = 0;
   for (int i = 0; i < N; i++)
      if (r[4 + i] != d[i] * 3u + (uint32_t)(i % 64) && bad++ < 5)
         FAIL("compute: o[%d] = %u, expected %u", i, r[4 + i], d[i] * 3u + (uint32_t)(i % 64));
   glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
   glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, bufs[2]);
   const uint32_t *c = glMapBufferRange(GL_ATOMIC_COUNTER_BUFFER, 0, 4, GL_MAP_READ_BIT);
   if (!c || *c != big)
      FAIL("compute: atomic counter %u, expected %u", c ? *c : 0u, big);
   glUnmapBuffer(GL_ATOMIC_COUNTER_BUFFER);

   /* the image as a texture in a draw */
   GLuint show = link(shader(GL_VERTEX_SHADER, show_vs), shader(GL_FRAGMENT_SHADER, show_fs));
   glViewport(0, 0, 16, 16);
   glBindTexture(GL_TEXTURE_2D, tex);
   glUseProgram(show);
   glUniform1i(glGetUniformLocation(show, "t"), 0);
   draw_fullscreen(show);
   uint8_t px[16 * 16 * 4];
   glReadPixels(0, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, px);
   check_gl("draw with the image");
   bad = 0;
   for (int i = 0; i < N; i++) {
      const uint8_t *p = &px[4 * i]; /* row i / 16 from the bottom = image row i / 16 */
      uint8_t e[4] = {d[i] & 255, (d[i] >> 8) & 255, (uint8_t)((i / 64) * 64), 255};
      if (memcmp(p, e, 4) && bad++ < 5)
         FAIL("compute: pixel (%d, %d) = (%u %u %u %u), expected (%u %u %u %u)", i % 16, i / 16,
              p[0], p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
   }
   glDeleteTextures(1, &tex);
   glDeleteBuffers(3, bufs);
}

/*
 * fragmem: images, an SSBO and atomic counters in the vertex and fragment
 * shaders of one draw (GL ES 3.1 graphics stages, GL_NV_image_formats): a
 * full-pbuffer quad whose FS copies texel (x, y) of a 16x16 rg8 image into
 * another with its channels swapped (1-byte components sharing dwords with
 * the neighbours), writes x * 100 + y into an SSBO slot and counts itself
 * with an atomic counter; the VS counts its invocations. The results are
 * read back with glMapBufferRange and, for the image, a draw that samples it.
 */
static const char *fragmem_vs =
   "#version 310 es\n"
   "layout(binding = 0, offset = 4) uniform atomic_uint vs_count;\n"
   "in vec4 a_pos;\n"
   "void main() { atomicCounterIncrement(vs_count); gl_Position = a_pos; }\n";
static const char *fragmem_fs =
   "#version 310 es\n"
   "#extension GL_NV_image_formats : require\n"
   "precision highp float;\n"
   "layout(rg8, binding = 0) readonly uniform highp image2D src;\n"
   "layout(rg8, binding = 1) writeonly uniform highp image2D dst;\n"
   "layout(binding = 0, offset = 0) uniform atomic_uint fs_count;\n"
   "layout(std430, binding = 0) buffer Out { uint v[256]; } o;\n"
   "out vec4 color;\n"
   "void main() {\n"
   "   ivec2 p = ivec2(gl_FragCoord.xy);\n"
   "   imageStore(dst, p, imageLoad(src, p).yxzw);\n"
   "   o.v[p.y * 16 + p.x] = uint(p.x * 100 + p.y);\n"
   "   atomicCounterIncrement(fs_count);\n"
   "   color = vec4(0.0, 1.0, 0.0, 1.0);\n"
   "}\n";

static void
test_fragmem(void)
{
   enum { N = 256 };
   uint8_t src[N * 2];
   uint32_t seed = 777;
   for (int i = 0; i < N * 2; i++)
      src[i] = (uint8_t)lcg(&seed);
   GLuint tex[2];
   glGenTextures(2, tex);
   for (int i = 0; i < 2; i++) {
      glBindTexture(GL_TEXTURE_2D, tex[i]);
      glTexStorage2D(GL_TEXTURE_2D, 1, GL_RG8, 16, 16);
   }
   glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 16, 16, GL_RG, GL_UNSIGNED_BYTE, src);
   glBindImageTexture(0, tex[0], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RG8);
   glBindImageTexture(1, tex[1], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG8);
   GLuint bufs[2];
   glGenBuffers(2, bufs);
   uint32_t fill[N];
   memset(fill, 0xee, sizeof(fill));
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[0]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(fill), fill, GL_DYNAMIC_READ);
   const uint32_t zero[2] = {0, 0};
   glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0, bufs[1]);
   glBufferData(GL_ATOMIC_COUNTER_BUFFER, sizeof(zero), zero, GL_DYNAMIC_READ);
   GLuint prog = link(shader(GL_VERTEX_SHADER, fragmem_vs), shader(GL_FRAGMENT_SHADER, fragmem_fs));
   glViewport(0, 0, 16, 16);
   draw_fullscreen(prog);
   glMemoryBarrier(GL_ALL_BARRIER_BITS);
   if (check_gl("draw with images"))
      return;

   glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, bufs[1]);
   const uint32_t *c = glMapBufferRange(GL_ATOMIC_COUNTER_BUFFER, 0, 8, GL_MAP_READ_BIT);
   if (!c) {
      FAIL("fragmem: cannot map the atomic counters");
      return;
   }
   if (c[0] != N)
      FAIL("fragmem: FS atomic counter %u, expected %u (one per fragment)", c[0], N);
   if (c[1] < 4 || c[1] > 6) /* 4 vertices, each shaded once or once per triangle */
      FAIL("fragmem: VS atomic counter %u, expected 4..6", c[1]);
   glUnmapBuffer(GL_ATOMIC_COUNTER_BUFFER);
   glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[0]);
   const uint32_t *r = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, sizeof(fill), GL_MAP_READ_BIT);
   if (!r) {
      FAIL("fragmem: cannot map the SSBO");
      return;
   }
   int bad = 0;
   for (int i = 0; i < N; i++)
      if (r[i] != (uint32_t)((i % 16) * 100 + i / 16) && bad++ < 5)
         FAIL("fragmem: o[%d] = %u, expected %u", i, r[i], (uint32_t)((i % 16) * 100 + i / 16));
   glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);

   GLuint show = link(shader(GL_VERTEX_SHADER, show_vs), shader(GL_FRAGMENT_SHADER, show_fs));
   glBindTexture(GL_TEXTURE_2D, tex[1]);
   glUseProgram(show);
   glUniform1i(glGetUniformLocation(show, "t"), 0);
   draw_fullscreen(show);
   uint8_t px[N * 4];
   glReadPixels(0, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, px);
   check_gl("draw with the stored image");
   bad = 0;
   for (int i = 0; i < N; i++) {
      const uint8_t *p = &px[4 * i];
      const uint8_t e[4] = {src[2 * i + 1], src[2 * i], 0, 255};
      if (memcmp(p, e, 4) && bad++ < 5)
         FAIL("fragmem: texel (%d, %d) = (%u %u %u %u), expected (%u %u %u %u)", i % 16, i / 16,
              p[0], p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
   }
   glDeleteTextures(2, tex);
   glDeleteBuffers(2, bufs);
}

/* indirect: grid (3, 2, 1) from a buffer at offset 4; every invocation writes
 * gl_NumWorkGroups and its workgroup id into its slot. */
static const char *indirect_src =
   "#version 310 es\n"
   "layout(local_size_x = 2, local_size_y = 2) in;\n"
   "layout(std430, binding = 0) buffer Out { uvec4 v[]; } o;\n"
   "void main() {\n"
   "   uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n"
   "   uint i = wg * 4u + gl_LocalInvocationIndex;\n"
   "   o.v[i] = uvec4(gl_NumWorkGroups.xy, wg, gl_LocalInvocationID.x + 10u * gl_LocalInvocationID.y);\n"
   "}\n";

static void
test_indirect(void)
{
   GLuint prog = link(shader(GL_COMPUTE_SHADER, indirect_src), 0);
   GLuint bufs[2];
   glGenBuffers(2, bufs);
   const uint32_t grid[4] = {99, 3, 2, 1};
   glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, bufs[0]);
   glBufferData(GL_DISPATCH_INDIRECT_BUFFER, sizeof(grid), grid, GL_STATIC_DRAW);
   enum { N = 3 * 2 * 4 + 4 };
   uint32_t fill[4 * N];
   memset(fill, 0xee, sizeof(fill));
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[1]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(fill), fill, GL_DYNAMIC_READ);
   glUseProgram(prog);
   glDispatchComputeIndirect(4);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
   if (check_gl("indirect dispatch"))
      return;
   const uint32_t *r = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, sizeof(fill), GL_MAP_READ_BIT);
   if (!r) {
      FAIL("indirect: cannot map");
      return;
   }
   for (unsigned i = 0; i < N; i++) {
      uint32_t e[4] = {0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee};
      if (i < 24) {
         unsigned l = i % 4;
         e[0] = 3;
         e[1] = 2;
         e[2] = i / 4;
         e[3] = (l % 2) + 10 * (l / 2);
      }
      if (memcmp(&r[4 * i], e, 16))
         FAIL("indirect: v[%u] = (%u %u %u %u), expected (%u %u %u %u)", i, r[4 * i],
              r[4 * i + 1], r[4 * i + 2], r[4 * i + 3], e[0], e[1], e[2], e[3]);
   }
   glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
   glDeleteBuffers(2, bufs);
}

/*
 * msaa: a W x H 4-sample RGBA8 texture cleared to black, one triangle in
 * white; a second pass writes, per pixel, 64 * (number of samples whose
 * texelFetch is white) and textureSize into the pbuffer. Expected coverage:
 * the 4x standard pattern (docs/hw.md "Multisampling", D3D 4x: (0.375,
 * 0.125) (0.875, 0.375) (0.125, 0.625) (0.625, 0.875) from the pixel's
 * corner in memory order: the lower-left corner in GL window coordinates of
 * a texture attachment), evaluated here against the triangle in window
 * coordinates (no sample lies on an edge for these vertices).
 */
enum { MW = 16, MH = 16 };
static const char *ms_fs =
   "#version 310 es\n"
   "precision highp float;\n"
   "uniform highp sampler2DMS t;\n"
   "out vec4 color;\n"
   "void main() {\n"
   "   ivec2 p = ivec2(gl_FragCoord.xy);\n"
   "   int n = 0;\n"
   "   for (int s = 0; s < 4; s++)\n"
   "      n += texelFetch(t, p, s).r > 0.5 ? 1 : 0;\n"
   "   ivec2 size = textureSize(t);\n"
   "   color = vec4(float(n) * 64.0, float(size.x), float(size.y), 255.0) / 255.0;\n"
   "}\n";
static const char *white_fs =
   "#version 310 es\n"
   "precision highp float;\n"
   "out vec4 color;\n"
   "void main() { color = vec4(1.0); }\n";

static double
edge(double ax, double ay, double bx, double by, double px, double py)
{
   return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

static void
test_msaa(void)
{
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, tex);
   glTexStorage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, 4, GL_RGBA8, MW, MH, GL_TRUE);
   GLint samples = 0;
   glGetTexLevelParameteriv(GL_TEXTURE_2D_MULTISAMPLE, 0, GL_TEXTURE_SAMPLES, &samples);
   if (samples != 4) {
      FAIL("msaa: texture has %d samples, expected 4", samples);
      return;
   }
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D_MULTISAMPLE, tex, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      FAIL("msaa: framebuffer incomplete");
      return;
   }
   glViewport(0, 0, MW, MH);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   /* triangle in NDC; window x = (ndc + 1) * 8, window y (GL, up) likewise */
   const float tri[] = {-0.93f, -0.81f, 0.87f, -0.41f, -0.23f, 0.89f};
   GLuint white = link(shader(GL_VERTEX_SHADER, show_vs), shader(GL_FRAGMENT_SHADER, white_fs));
   draw_2d(white, GL_TRIANGLES, tri, 3);
   check_gl("msaa draw");

   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   GLuint ms = link(shader(GL_VERTEX_SHADER, show_vs), shader(GL_FRAGMENT_SHADER, ms_fs));
   glUseProgram(ms);
   glUniform1i(glGetUniformLocation(ms, "t"), 0);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, tex);
   draw_fullscreen(ms);
   uint8_t px[MW * MH * 4];
   glReadPixels(0, 0, MW, MH, GL_RGBA, GL_UNSIGNED_BYTE, px);
   check_gl("msaa read");

   static const double pos[4][2] = {{0.375, 0.125}, {0.875, 0.375}, {0.125, 0.625}, {0.625, 0.875}};
   double wx[3], wy[3];
   for (int v = 0; v < 3; v++) {
      wx[v] = (tri[2 * v] + 1.0) * MW / 2;
      wy[v] = (tri[2 * v + 1] + 1.0) * MH / 2; /* GL window y, up */
   }
   int bad = 0, partial = 0;
   for (int y = 0; y < MH; y++)
      for (int x = 0; x < MW; x++) {
         int n = 0;
         for (int s = 0; s < 4; s++) {
            /* a texture attachment has row 0 at GL window y 0 and the
             * GPU's rows go "down" in memory order: the pattern's y offset
             * is added to the row's lower GL y */
            double sx = x + pos[s][0], sy = y + pos[s][1];
            double e0 = edge(wx[0], wy[0], wx[1], wy[1], sx, sy);
            double e1 = edge(wx[1], wy[1], wx[2], wy[2], sx, sy);
            double e2 = edge(wx[2], wy[2], wx[0], wy[0], sx, sy);
            n += (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
         }
         partial += n > 0 && n < 4;
         const uint8_t *p = &px[4 * (y * MW + x)];
         int e = n * 64 > 255 ? 255 : n * 64;
         if ((p[0] != e || p[1] != MW || p[2] != MH) && bad++ < 8)
            FAIL("msaa: pixel (%d, %d) = (%u %u %u), expected (%d %d %d)", x, y, p[0], p[1], p[2],
                 e, MW, MH);
      }
   printf("msaa: %d pixels partly covered\n", partial);
   if (!partial)
      FAIL("msaa: no partly covered pixel: the test checks nothing per sample");
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
}

/*
 * copies: GPU copies (COPY commands, docs/hw.md "Copies"), every expected
 * byte computed here:
 *   - glCopyBufferSubData of 4 MiB - 100 bytes between two buffers, at odd
 *     offsets, then both buffers mapped and compared with the host's copy;
 *   - a same-format, unscaled glBlitFramebuffer between two RGBA8 textures
 *     (u_blitter hands it to resource_copy_region), read back;
 *   - glBufferSubData into a vertex buffer a queued draw still reads: the
 *     first draw must see the old colour, the second the new one (the
 *     driver stages the upload and copies it in queue order).
 */
static const char *copy_vs =
   "#version 310 es\n"
   "layout(location = 0) in vec2 pos;\n"
   "layout(location = 1) in vec4 col;\n"
   "out vec4 c;\n"
   "void main() { c = col; gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *copy_fs =
   "#version 310 es\n"
   "precision mediump float;\n"
   "in vec4 c;\n"
   "out vec4 o;\n"
   "void main() { o = c; }\n";

static void
test_copies(void)
{
   /* 1. buffer to buffer */
   const GLsizeiptr size = 4 << 20, len = size - 100, src_off = 13, dst_off = 40;
   uint8_t *data = malloc(size), *want = malloc(size);
   uint32_t seed = 7;
   for (GLsizeiptr i = 0; i < size; i++)
      data[i] = (uint8_t)lcg(&seed);
   for (GLsizeiptr i = 0; i < size; i++)
      want[i] = (uint8_t)(i * 31 + 5);
   GLuint buf[2];
   glGenBuffers(2, buf);
   glBindBuffer(GL_COPY_READ_BUFFER, buf[0]);
   glBufferData(GL_COPY_READ_BUFFER, size, data, GL_STATIC_DRAW);
   glBindBuffer(GL_COPY_WRITE_BUFFER, buf[1]);
   glBufferData(GL_COPY_WRITE_BUFFER, size, want, GL_STATIC_DRAW);
   glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, src_off, dst_off, len);
   memcpy(want + dst_off, data + src_off, len);
   const uint8_t *m = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, size, GL_MAP_READ_BIT);
   if (!m) {
      FAIL("copies: cannot map the destination buffer");
   } else {
      for (GLsizeiptr i = 0; i < size; i++)
         if (m[i] != want[i]) {
            FAIL("copies: destination byte %ld is %u, expected %u", (long)i, m[i], want[i]);
            break;
         }
      glUnmapBuffer(GL_COPY_WRITE_BUFFER);
   }
   m = glMapBufferRange(GL_COPY_READ_BUFFER, 0, size, GL_MAP_READ_BIT);
   if (m && memcmp(m, data, size) != 0)
      FAIL("copies: the source buffer changed");
   if (m)
      glUnmapBuffer(GL_COPY_READ_BUFFER);
   glDeleteBuffers(2, buf);
   check_gl("copies: buffers");

   /* 2. a same-format unscaled blit between RGBA8 textures */
   enum { W = 16, H = 16 };
   uint8_t texels[W * H * 4], got[W * H * 4];
   for (int i = 0; i < W * H * 4; i++)
      texels[i] = (uint8_t)lcg(&seed);
   GLuint tex[2], fbo[2];
   glGenTextures(2, tex);
   glGenFramebuffers(2, fbo);
   for (int i = 0; i < 2; i++) {
      glBindTexture(GL_TEXTURE_2D, tex[i]);
      glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, W, H);
      if (i == 0)
         glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, texels);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo[i]);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[i], 0);
   }
   glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[0]);
   glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo[1]);
   glBlitFramebuffer(2, 3, 12, 15, 4, 1, 14, 13, GL_COLOR_BUFFER_BIT, GL_NEAREST);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const int inside = x >= 4 && x < 14 && y >= 1 && y < 13;
         const uint8_t *e = inside ? &texels[((y + 2) * W + (x - 2)) * 4] : NULL;
         for (int c = 0; c < 4; c++) {
            const uint8_t ev = e ? e[c] : 0;
            if (got[(y * W + x) * 4 + c] != ev) {
               FAIL("copies: blit pixel (%d, %d) channel %d is %u, expected %u", x, y, c,
                    got[(y * W + x) * 4 + c], ev);
               y = H;
               x = W;
               break;
            }
         }
      }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(2, fbo);
   glDeleteTextures(2, tex);
   check_gl("copies: blit");

   /* 3. an upload into a vertex buffer a queued draw reads */
   const GLuint prog = link(shader(GL_VERTEX_SHADER, copy_vs), shader(GL_FRAGMENT_SHADER, copy_fs));
   glUseProgram(prog);
   /* two triangles covering x < 0 (first draw) and x >= 0 (second draw) */
   const float pos[12] = {-1, -1, 0, -1, 0, 1, -1, -1, 0, 1, -1, 1};
   float col[24];
   for (int v = 0; v < 6; v++) {
      col[v * 4 + 0] = 1, col[v * 4 + 1] = 0, col[v * 4 + 2] = 0, col[v * 4 + 3] = 1;
   }
   /* buffers larger than what is updated: a glBufferSubData of part of a
    * buffer is a discard-range write (u_default_buffer_subdata), which the
    * driver stages while a queued draw uses the buffer; a whole-buffer one
    * would rename the buffer instead */
   GLuint vb[2];
   glGenBuffers(2, vb);
   glBindBuffer(GL_ARRAY_BUFFER, vb[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(pos) + 64, NULL, GL_DYNAMIC_DRAW);
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(pos), pos);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(0);
   glBindBuffer(GL_ARRAY_BUFFER, vb[1]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(col) + 64, NULL, GL_DYNAMIC_DRAW);
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(col), col);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(1);
   glViewport(0, 0, 16, 16);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glDrawArrays(GL_TRIANGLES, 0, 6); /* left half, red */
   for (int v = 0; v < 6; v++) {
      col[v * 4 + 0] = 0, col[v * 4 + 1] = 1;
   }
   glBindBuffer(GL_ARRAY_BUFFER, vb[0]);
   float moved[12];
   for (int i = 0; i < 12; i++)
      moved[i] = i % 2 == 0 ? pos[i] + 1 : pos[i];
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(moved), moved);
   glBindBuffer(GL_ARRAY_BUFFER, vb[1]);
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(col), col);
   glDrawArrays(GL_TRIANGLES, 0, 6); /* right half, green */
   uint8_t px[16 * 16 * 4];
   glReadPixels(0, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (int y = 0; y < 16; y++)
      for (int x = 0; x < 16; x++) {
         const uint8_t *p = &px[(y * 16 + x) * 4];
         const int left = x < 8;
         if (p[0] != (left ? 255 : 0) || p[1] != (left ? 0 : 255) || p[2] != 0) {
            FAIL("copies: upload pixel (%d, %d) is %u,%u,%u, expected %s", x, y, p[0], p[1], p[2],
                 left ? "red (the draw before the upload)" : "green (the draw after it)");
            y = 16;
            break;
         }
      }
   glDisableVertexAttribArray(0);
   glDisableVertexAttribArray(1);
   glDeleteBuffers(2, vb);
   glDeleteProgram(prog);
   check_gl("copies: upload");
   free(data);
   free(want);
}

/*
 * vertex2101010: GL_UNSIGNED_INT_2_10_10_10_REV and GL_INT_2_10_10_10_REV
 * vertex attributes (GL ES 3.0.6 section 2.9, table 2.5).
 *  - The size check (ES 3.0.6 section 2.9, ES 3.1 section 10.3.2): size 3 is
 *    INVALID_OPERATION for glVertexAttribPointer and glVertexAttribFormat
 *    (dEQP-GLES31 debug.negative_coverage.get_error.vertex_array.
 *    vertex_attrib_format, which hit an assertion in Mesa's varray.c while
 *    vlgpu did not report the formats that ARB_vertex_type_2_10_10_10_rev
 *    needs); size 4 is no error.
 *  - The fetch: N points, each word read as four attributes (unsigned and
 *    signed, normalized and not), captured with transform feedback and
 *    compared with the spec's conversion (ES 3.0.6 section 2.1.6.1 and table
 *    2.9): unsigned normalized c / (2^b - 1), signed normalized
 *    max(c / (2^(b-1) - 1), -1), otherwise c; R in bits 0-9, G 10-19,
 *    B 20-29, A 30-31.
 */
static const char *v2101010_vs =
   "#version 300 es\n"
   "in vec4 a0; in vec4 a1; in vec4 a2; in vec4 a3;\n"
   "out vec4 v0; out vec4 v1; out vec4 v2; out vec4 v3;\n"
   "void main() {\n"
   "   v0 = a0; v1 = a1; v2 = a2; v3 = a3;\n"
   "   gl_Position = vec4(0.0, 0.0, 0.0, 1.0);\n"
   "   gl_PointSize = 1.0;\n"
   "}\n";
static const char *v2101010_fs =
   "#version 300 es\n"
   "precision mediump float;\n"
   "out vec4 color;\n"
   "void main() { color = vec4(1.0); }\n";

static void
test_vertex2101010(void)
{
   static const GLenum types[2] = {GL_UNSIGNED_INT_2_10_10_10_REV, GL_INT_2_10_10_10_REV};
   GLuint vao, vbo, xfb;
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);

   /* the size check */
   for (int t = 0; t < 2; t++) {
      glVertexAttribPointer(0, 3, types[t], GL_TRUE, 0, 0);
      GLenum e = glGetError();
      if (e != GL_INVALID_OPERATION)
         FAIL("vertex2101010: glVertexAttribPointer(size 3, 0x%04x): error 0x%04x, want "
              "GL_INVALID_OPERATION",
              types[t], e);
      glVertexAttribFormat(0, 3, types[t], GL_FALSE, 0);
      e = glGetError();
      if (e != GL_INVALID_OPERATION)
         FAIL("vertex2101010: glVertexAttribFormat(size 3, 0x%04x): error 0x%04x, want "
              "GL_INVALID_OPERATION",
              types[t], e);
      glVertexAttribFormat(0, 4, types[t], GL_FALSE, 0);
      glVertexAttribPointer(0, 4, types[t], GL_TRUE, 0, 0);
      check_gl("vertex2101010: size 4");
   }

   /* the fetch */
   enum { N = 64, FLOATS = 16 };
   uint32_t words[N], seed = 2101010;
   words[0] = 0;
   words[1] = 0xffffffffu;
   words[2] = 0x200u | 0x1ffu << 10 | 0x3ffu << 20 | 2u << 30; /* -512, 511, -1, -2 */
   words[3] = 0x1ffu | 0x200u << 10 | 0x001u << 20 | 1u << 30; /* 511, -512, 1, 1 */
   for (int i = 4; i < N; i++) {
      const uint32_t hi = lcg(&seed) << 8;
      words[i] = hi ^ lcg(&seed);
   }
   glBufferData(GL_ARRAY_BUFFER, sizeof(words), words, GL_STATIC_DRAW);

   GLuint prog = glCreateProgram();
   glAttachShader(prog, shader(GL_VERTEX_SHADER, v2101010_vs));
   glAttachShader(prog, shader(GL_FRAGMENT_SHADER, v2101010_fs));
   static const char *const varyings[] = {"v0", "v1", "v2", "v3"};
   glTransformFeedbackVaryings(prog, 4, varyings, GL_INTERLEAVED_ATTRIBS);
   glLinkProgram(prog);
   GLint ok = 0;
   glGetProgramiv(prog, GL_LINK_STATUS, &ok);
   if (!ok) {
      FAIL("vertex2101010: program does not link");
      return;
   }
   glUseProgram(prog);
   /* a0 unsigned normalized, a1 signed normalized, a2 unsigned, a3 signed */
   for (int k = 0; k < 4; k++) {
      char name[4] = {'a', (char)('0' + k), 0};
      GLint loc = glGetAttribLocation(prog, name);
      glVertexAttribPointer(loc, 4, types[k & 1], k < 2 ? GL_TRUE : GL_FALSE, 4, 0);
      glEnableVertexAttribArray(loc);
   }
   glGenBuffers(1, &xfb);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, xfb);
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, N * FLOATS * sizeof(float), NULL, GL_STREAM_READ);
   glEnable(GL_RASTERIZER_DISCARD);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, N);
   glEndTransformFeedback();
   glDisable(GL_RASTERIZER_DISCARD);
   check_gl("vertex2101010: draw");

   const float *got = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0,
                                       N * FLOATS * sizeof(float), GL_MAP_READ_BIT);
   if (!got) {
      FAIL("vertex2101010: cannot map the transform feedback buffer");
      return;
   }
   int bad = 0;
   for (int i = 0; i < N; i++)
      for (int k = 0; k < 4; k++)
         for (int c = 0; c < 4; c++) {
            const int b = c == 3 ? 2 : 10;
            const uint32_t u = words[i] >> (10 * c) & ((1u << b) - 1);
            const int32_t s = u >= 1u << (b - 1) ? (int32_t)u - (1 << b) : (int32_t)u;
            const double want = k == 0   ? u / (double)((1u << b) - 1)
                                : k == 1 ? fmax(s / (double)((1 << (b - 1)) - 1), -1.0)
                                : k == 2 ? (double)u
                                         : (double)s;
            const double g = got[i * FLOATS + 4 * k + c];
            /* normalized: within one float ulp of the exact quotient */
            if (fabs(g - want) > (k < 2 ? 1.2e-7 : 0.0) && bad++ < 10)
               FAIL("vertex2101010: word 0x%08x, a%d.%c = %.9g, want %.9g", words[i], k,
                    "xyzw"[c], g, want);
         }
   glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
   check_gl("vertex2101010: read back");
   glDeleteBuffers(1, &xfb);
   glDeleteBuffers(1, &vbo);
   glDeleteVertexArrays(1, &vao);
   glDeleteProgram(prog);
}

/*
 * copyimage: GL_OES_copy_image (GL ES 3.2 section 8.3 "Copying between
 * images", the same rules): texel bytes copied unchanged between images of
 * formats whose texels have the same size, every expected byte computed here.
 *   - RGBA8 2D array, level 1, layers 1..2 -> RGBA8UI 3D texture, level 0,
 *     slices 2..3 at (3, 1): another format of the 32-bit class, levels,
 *     layers and slices (st/mesa blits these with one view format on both
 *     sides; vlgpu copies the bytes, vlg_blit.c);
 *   - RGBA8 cube map, face 3 (-Y), level 0 -> RG16UI 2D at (5, 6): a cube
 *     face, and another channel layout of the 32-bit class (st/mesa views
 *     both sides as R16G16_UNORM, no render target of vlgpu: before the
 *     blit became a COPY the destination was left unchanged);
 *   - ETC2 RGBA8 (16-byte 4x4 blocks) 8x8 texels at (4, 8) -> RGBA32UI 2D at
 *     (1, 2): one compressed block per RGBA32UI texel, its 16 bytes unchanged
 *     (st/mesa decompresses ETC2 for vlgpu and copies the compressed bytes on
 *     the CPU: st_cb_copyimage.c fallback_copy_image).
 * Each destination is read back with glReadPixels through a framebuffer (the
 * integer formats as GL_RGBA_INTEGER); texels outside the copied box keep
 * the values they were created with.
 */
typedef void (*copy_image_fn)(GLuint, GLenum, GLint, GLint, GLint, GLint, GLuint, GLenum,
                              GLint, GLint, GLint, GLint, GLsizei, GLsizei, GLsizei);

/* Reads layer/slice @layer (-1: a 2D texture) of @tex level 0 into @out
 * (w * h texels of @texel_bytes bytes) with glReadPixels(@fmt, @type). */
static void
read_layer(GLuint tex, int layer, int w, int h, GLenum fmt, GLenum type, void *out)
{
   GLuint fbo;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   if (layer < 0)
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
   else
      glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, 0, layer);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      FAIL("copyimage: framebuffer of layer %d incomplete", layer);
   glReadPixels(0, 0, w, h, fmt, type, out);
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
}

/* Compares @n bytes; FAIL with the first differing byte's texel. */
static void
expect_bytes(const char *what, const uint8_t *got, const uint8_t *want, int n, int texel_bytes,
             int w)
{
   for (int i = 0; i < n; i++)
      if (got[i] != want[i]) {
         const int t = i / texel_bytes;
         FAIL("copyimage: %s texel (%d, %d) byte %d is %u, expected %u", what, t % w, t / w,
              i % texel_bytes, got[i], want[i]);
         return;
      }
}

static void
test_copyimage(void)
{
   if (!strstr((const char *)glGetString(GL_EXTENSIONS), "GL_OES_copy_image")) {
      FAIL("copyimage: GL_OES_copy_image is not exposed");
      return;
   }
   const copy_image_fn copy_image =
      (copy_image_fn)eglGetProcAddress("glCopyImageSubDataOES");
   uint32_t seed = 11;

   /* 1. RGBA8 2D array level 1 layers 1..2 -> RGBA8UI 3D slices 2..3 */
   enum { AW = 12, AH = 10, AL = 3, W1 = AW / 2, H1 = AH / 2, DW = 10, DH = 8, DD = 5 };
   static uint8_t arr[AL][H1][W1][4], vol[DD][DH][DW][4], got[DH][DW][4];
   GLuint t[2];
   glGenTextures(2, t);
   glBindTexture(GL_TEXTURE_2D_ARRAY, t[0]);
   glTexStorage3D(GL_TEXTURE_2D_ARRAY, 2, GL_RGBA8, AW, AH, AL);
   for (unsigned i = 0; i < sizeof(arr); i++)
      ((uint8_t *)arr)[i] = (uint8_t)lcg(&seed);
   glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 1, 0, 0, 0, W1, H1, AL, GL_RGBA, GL_UNSIGNED_BYTE, arr);
   glBindTexture(GL_TEXTURE_3D, t[1]);
   glTexStorage3D(GL_TEXTURE_3D, 1, GL_RGBA8UI, DW, DH, DD);
   for (unsigned i = 0; i < sizeof(vol); i++)
      ((uint8_t *)vol)[i] = (uint8_t)lcg(&seed);
   glTexSubImage3D(GL_TEXTURE_3D, 0, 0, 0, 0, DW, DH, DD, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, vol);
   /* a 5x4x2 box from (1, 1, layer 1) of level 1 to (3, 1, slice 2) */
   copy_image(t[0], GL_TEXTURE_2D_ARRAY, 1, 1, 1, 1, t[1], GL_TEXTURE_3D, 0, 3, 1, 2, 5, 4, 2);
   check_gl("copyimage: array -> 3D");
   for (int z = 0; z < 2; z++)
      for (int y = 0; y < 4; y++)
         for (int x = 0; x < 5; x++)
            memcpy(vol[2 + z][1 + y][3 + x], arr[1 + z][1 + y][1 + x], 4);
   for (int z = 0; z < DD; z++) {
      /* RGBA_INTEGER/UNSIGNED_INT is the read format of an RGBA8UI buffer */
      static uint32_t wide[DH][DW][4];
      read_layer(t[1], z, DW, DH, GL_RGBA_INTEGER, GL_UNSIGNED_INT, wide);
      for (int i = 0; i < DW * DH * 4; i++)
         ((uint8_t *)got)[i] = (uint8_t)((uint32_t *)wide)[i];
      char what[32];
      snprintf(what, sizeof(what), "3D slice %d", z);
      expect_bytes(what, &got[0][0][0], &vol[z][0][0][0], DW * DH * 4, 4, DW);
   }
   glDeleteTextures(2, t);

   /* 2. RGBA8 cube face 3 (-Y) -> RG16UI 2D; r32 holds each texel's 4 bytes */
   enum { CS = 8, RW = 16, RH = 12 };
   static uint8_t face[CS][CS][4];
   static uint32_t r32[RH][RW], r32got[RH][RW][4];
   glGenTextures(2, t);
   glBindTexture(GL_TEXTURE_CUBE_MAP, t[0]);
   glTexStorage2D(GL_TEXTURE_CUBE_MAP, 1, GL_RGBA8, CS, CS);
   for (int f = 0; f < 6; f++) {
      for (unsigned i = 0; i < sizeof(face); i++)
         ((uint8_t *)face)[i] = (uint8_t)lcg(&seed);
      glTexSubImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, 0, 0, CS, CS, GL_RGBA,
                      GL_UNSIGNED_BYTE, face);
      if (f == 3)
         break; /* face 3 keeps these bytes; faces 4, 5 stay undefined */
   }
   glBindTexture(GL_TEXTURE_2D, t[1]);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RG16UI, RW, RH);
   for (int i = 0; i < RW * RH; i++)
      ((uint32_t *)r32)[i] = lcg(&seed) * 2654435761u;
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, RW, RH, GL_RG_INTEGER, GL_UNSIGNED_SHORT, r32);
   /* a 7x6 box from (1, 2) of face 3 to (5, 6) */
   copy_image(t[0], GL_TEXTURE_CUBE_MAP, 0, 1, 2, 3, t[1], GL_TEXTURE_2D, 0, 5, 6, 0, 7, 6, 1);
   check_gl("copyimage: cube -> RG16UI");
   for (int y = 0; y < 6; y++)
      for (int x = 0; x < 7; x++)
         memcpy(&r32[6 + y][5 + x], face[2 + y][1 + x], 4);
   read_layer(t[1], -1, RW, RH, GL_RGBA_INTEGER, GL_UNSIGNED_INT, r32got);
   for (int y = 0; y < RH; y++)
      for (int x = 0; x < RW; x++)
         if ((r32got[y][x][1] << 16 | r32got[y][x][0]) != r32[y][x]) {
            /* R is the low 16 bits (GL ES 3.2 table 8.2: a texel's bytes in order) */
            FAIL("copyimage: RG16UI texel (%d, %d) is (0x%04x, 0x%04x), expected 0x%08x as "
                 "G << 16 | R", x, y, r32got[y][x][0], r32got[y][x][1], r32[y][x]);
            y = RH;
            break;
         }
   glDeleteTextures(2, t);

   /* 3. ETC2 RGBA8 blocks -> RGBA32UI texels */
   enum { EW = 16, EH = 16, BX = EW / 4, BY = EH / 4, QW = 4, QH = 5 };
   static uint8_t etc[BY][BX][16];
   static uint32_t q[QH][QW][4], qgot[QH][QW][4];
   for (unsigned i = 0; i < sizeof(etc); i++)
      ((uint8_t *)etc)[i] = (uint8_t)lcg(&seed);
   for (unsigned i = 0; i < sizeof(q) / 4; i++)
      ((uint32_t *)q)[i] = lcg(&seed);
   glGenTextures(2, t);
   glBindTexture(GL_TEXTURE_2D, t[0]);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_COMPRESSED_RGBA8_ETC2_EAC, EW, EH);
   glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, EW, EH, GL_COMPRESSED_RGBA8_ETC2_EAC,
                             sizeof(etc), etc);
   glBindTexture(GL_TEXTURE_2D, t[1]);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32UI, QW, QH);
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, QW, QH, GL_RGBA_INTEGER, GL_UNSIGNED_INT, q);
   /* texels (4, 8)..(11, 15): blocks (1, 2)..(2, 3), to texels (1, 2)..(2, 3) */
   copy_image(t[0], GL_TEXTURE_2D, 0, 4, 8, 0, t[1], GL_TEXTURE_2D, 0, 1, 2, 0, 8, 8, 1);
   check_gl("copyimage: ETC2 -> RGBA32UI");
   for (int y = 0; y < 2; y++)
      for (int x = 0; x < 2; x++)
         memcpy(q[2 + y][1 + x], etc[2 + y][1 + x], 16);
   read_layer(t[1], -1, QW, QH, GL_RGBA_INTEGER, GL_UNSIGNED_INT, qgot);
   expect_bytes("RGBA32UI", (const uint8_t *)qgot, (const uint8_t *)q, sizeof(q), 16, QW);
   glDeleteTextures(2, t);
   check_gl("copyimage");
}

/*
 * tfseparate: GL_SEPARATE_ATTRIBS writes each varying into its own buffer
 * (GL ES 3.0.6 section 2.15.2), whatever its size up to
 * GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS; ES 3.0 only guarantees 4,
 * vlgpu offers 64 like softpipe. Four varyings of 16, 12, 6 and 4
 * components, values from gl_VertexID that fp32 holds exactly, 2 triangles
 * (6 vertices in draw order); buffer 2 bound at a 64-byte offset. Expected
 * values: the same formulas evaluated here.
 */
static const char *tfsep_vs =
   "#version 300 es\n"
   "out mat4 m; out vec4 arr[3]; out mat2x3 n;\n"
   "void main() {\n"
   "   float id = float(gl_VertexID);\n"
   "   for (int c = 0; c < 4; c++)\n"
   "      for (int r = 0; r < 4; r++)\n"
   "         m[c][r] = id * 100.0 + float(c * 4 + r);\n"
   "   for (int i = 0; i < 3; i++)\n"
   "      arr[i] = vec4(id * 10.0 + float(i), -id, id * 0.5, float(i) - 7.0);\n"
   "   n = mat2x3(id + 1000.0, id + 2000.0, id + 3000.0, -id, -2.0 * id, -3.0 * id);\n"
   "   gl_Position = vec4(id * 0.25, -id * 0.125, 0.5, 1.0);\n"
   "}\n";

static float
tfsep_want(int b, int id, int k)
{
   const float f = (float)id;
   switch (b) {
   case 0: /* m: column-major, c * 4 + r */
      return f * 100.0f + (float)k;
   case 1: {
      const int i = k / 4, c = k % 4;
      const float v[4] = {f * 10.0f + (float)i, -f, f * 0.5f, (float)i - 7.0f};
      return v[c];
   }
   case 2: {
      const float v[6] = {f + 1000.0f, f + 2000.0f, f + 3000.0f, -f, -2.0f * f, -3.0f * f};
      return v[k];
   }
   default: {
      const float v[4] = {f * 0.25f, -f * 0.125f, 0.5f, 1.0f};
      return v[k];
   }
   }
}

static void
test_tfseparate(void)
{
   enum { N = 6, OFFSET = 64 };
   static const int comps[4] = {16, 12, 6, 4};
   static const char *const varyings[4] = {"m", "arr", "n", "gl_Position"};
   GLint max_sep = 0, max_attribs = 0;
   glGetIntegerv(GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS, &max_sep);
   glGetIntegerv(GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS, &max_attribs);
   printf("MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS %d\n", max_sep);
   if (max_sep < 16 || max_attribs < 4) {
      FAIL("tfseparate: MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS %d, _ATTRIBS %d: a mat4 "
           "cannot be captured alone",
           max_sep, max_attribs);
      return;
   }
   GLuint prog = glCreateProgram();
   glAttachShader(prog, shader(GL_VERTEX_SHADER, tfsep_vs));
   glAttachShader(prog, shader(GL_FRAGMENT_SHADER, v2101010_fs));
   glTransformFeedbackVaryings(prog, 4, varyings, GL_SEPARATE_ATTRIBS);
   glLinkProgram(prog);
   GLint ok = 0;
   glGetProgramiv(prog, GL_LINK_STATUS, &ok);
   if (!ok) {
      FAIL("tfseparate: program does not link");
      return;
   }
   glUseProgram(prog);
   GLuint vao, bufs[4];
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   glGenBuffers(4, bufs);
   for (int b = 0; b < 4; b++) {
      const GLsizeiptr size = N * comps[b] * sizeof(float);
      glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, bufs[b]);
      glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, size + OFFSET, NULL, GL_STREAM_READ);
      if (b == 2)
         glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, b, bufs[b], OFFSET, size);
      else
         glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, b, bufs[b]);
   }
   glEnable(GL_RASTERIZER_DISCARD);
   glBeginTransformFeedback(GL_TRIANGLES);
   glDrawArrays(GL_TRIANGLES, 0, N);
   glEndTransformFeedback();
   glDisable(GL_RASTERIZER_DISCARD);
   check_gl("tfseparate: draw");

   int bad = 0;
   for (int b = 0; b < 4; b++) {
      const GLintptr at = b == 2 ? OFFSET : 0;
      glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, bufs[b]);
      const float *got = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, at,
                                          N * comps[b] * sizeof(float), GL_MAP_READ_BIT);
      if (!got) {
         FAIL("tfseparate: cannot map buffer %d", b);
         return;
      }
      for (int id = 0; id < N; id++)
         for (int k = 0; k < comps[b]; k++) {
            const float want = tfsep_want(b, id, k);
            const float g = got[id * comps[b] + k];
            if (g != want && bad++ < 10)
               FAIL("tfseparate: buffer %d (%s), vertex %d, component %d = %g, want %g", b,
                    varyings[b], id, k, g, want);
         }
      glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
   }
   check_gl("tfseparate: read back");
   glDeleteBuffers(4, bufs);
   glDeleteVertexArrays(1, &vao);
   glDeleteProgram(prog);
}

int
main(int argc, char **argv)
{
   const int ctx_err = vlg_es31_context();
   if (ctx_err)
      return ctx_err;
   fprintf(stderr, "vlg_es31: GL_RENDERER %s\n", glGetString(GL_RENDERER));

   static const struct {
      const char *name;
      void (*run)(void);
   } tests[] = {
      {"info", test_info},
      {"compute", test_compute},
      {"indirect", test_indirect},
      {"msaa", test_msaa},
      {"fragmem", test_fragmem},
      {"copies", test_copies},
      {"vertex2101010", test_vertex2101010},
      {"copyimage", test_copyimage},
      {"tfseparate", test_tfseparate},
   };
   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      int wanted = argc == 1;
      for (int a = 1; a < argc; a++)
         wanted |= strcmp(argv[a], tests[i].name) == 0;
      if (!wanted)
         continue;
      int before = failures;
      tests[i].run();
      printf("%s: %s\n", tests[i].name, failures == before ? "pass" : "FAIL");
   }
   return failures ? 1 : 0;
}
