/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_ubench: microbenchmarks of the simulated GPU (`./vlgpu ubench`,
 * scripts/ubench.py, docs/fidelity.md). Each test does GL ES 3.1 work
 * through EGL surfaceless whose simulated cycles scripts/ubench.py reads
 * from VLGPU_STATS; this program only does the work and checks its result
 * (every expected value computed here on the host from the inputs), it
 * measures nothing itself.
 *
 * Every measured operation is one draw, clear or dispatch alone in its
 * submit (glFinish before and after), and is announced on stdout, in
 * order, as
 *
 *    measure KIND NAME KEY=VALUE...
 *
 * KIND is dispatch (in the submit JSONs' "dispatches"), draw or clear
 * (draws.csv kind CLEAR). Every operation of a kind after the first one
 * announced is announced too (NAME warmup or drain for the unmeasured ones
 * in between), so the announced operations are the last ones of their kind;
 * readbacks are maps, not draws.
 *
 *   chase  line=B l1=B l2=B    pointer chase, 1 lane, in a compute shader: a
 *          random cycle over lines of B bytes (one uint per line read) whose
 *          footprint is l1/4 (L1 hits after a warm-up pass), l2/4 (L1
 *          misses, L2 hits after a warm-up pass) and 4*l2 (misses in both);
 *          each footprint with two step counts (8 dependent loads per loop
 *          iteration)
 *   stream bytes=N             compute: read, write and copy N and 2N bytes
 *                              (uvec4 per invocation, 64 per workgroup); an
 *                              unmeasured write of N bytes first (the L2 full
 *                              of dirty lines before either measured write);
 *                              after a write or copy an unmeasured one-lane
 *                              dispatch lets the L2's write-backs drain
 *   alu    groups=G            compute: G workgroups of 64 invocations, 16
 *                              independent vec4 chains x 2 per loop iteration
 *                              of one functional class (add mul mad sfu frac
 *                              conv logic int), and add+mul pairs (dual), each
 *                              with two iteration counts
 *   latency groups=G shared=B  compute: G and 3G workgroups of 16 invocations
 *                              (one thread group) holding B bytes of shared
 *                              memory each, each lane one chain of 256
 *                              dependent RSQ (16 per loop iteration)
 *   fill   size=S              draws of 2 and 6 full-screen layers into an
 *                              SxS RGBA8 + depth24 framebuffer: plain, with
 *                              additive blending, with a LESS depth test
 *   tex    size=S              draws of SxS pixels sampling a 64x64 RGBA8
 *                              texture 4 and 12 times per pixel: nearest,
 *                              bilinear (LOD 0), trilinear (LOD 0.5)
 *   setup  tris=T              indexed draws of T and 3T small triangles
 *                              (three vertices, covering no pixel centre)
 *   vertex verts=V             draws of V and 3V vertices (no attributes,
 *                              positions from gl_VertexID), all triangles
 *                              back-facing and culled
 *   clear  width=W             glClear of W x 256 and W x 768 RGBA8 targets,
 *                              after an unmeasured clear of W x 768 (the L2
 *                              full of dirty lines before either)
 *   info                       nothing measured (the driver writes config.json)
 *
 *    vlg_ubench TEST [KEY=VALUE...]
 *
 * Exit status: 0 when the test ran and its results were right, 1 when a
 * result was wrong or GL failed (the reason on stderr), 2 for usage or
 * EGL errors or a context below ES 3.1.
 * Build: cc -I ../../tests/integration/driver vlg_ubench.c -o vlg_ubench -lEGL -lGLESv2 -lm
 */

#define _GNU_SOURCE /* vasprintf */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLG_PROG "vlg_ubench"
#include "vlg_gles31.h" /* tests/integration/driver: FAIL, check_gl, shader, link, context */

/* A shader from a printf format (the benchmarks' sizes and operations). */
static GLuint
shaderf(GLenum type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static GLuint
shaderf(GLenum type, const char *fmt, ...)
{
   char *src = NULL;
   va_list ap;
   va_start(ap, fmt);
   if (vasprintf(&src, fmt, ap) < 0) {
      fprintf(stderr, "vlg_ubench: out of memory\n");
      exit(2);
   }
   va_end(ap);
   GLuint s = shader(type, src);
   free(src);
   return s;
}

/* A deterministic input: a small LCG. */
static uint32_t
lcg(uint32_t *s)
{
   *s = *s * 1664525u + 1013904223u;
   return *s >> 8;
}

/* The KEY=VALUE arguments of a test. */
static int g_argc;
static char **g_argv;

static long
arg(const char *key, long def)
{
   size_t n = strlen(key);
   for (int i = 0; i < g_argc; i++)
      if (strncmp(g_argv[i], key, n) == 0 && g_argv[i][n] == '=') {
         char *end;
         long v = strtol(g_argv[i] + n + 1, &end, 0);
         if (*end || v <= 0) {
            fprintf(stderr, "vlg_ubench: %s: expected a positive integer\n", g_argv[i]);
            exit(2);
         }
         return v;
      }
   return def;
}

/* Everything queued so far is done: a measured operation is alone in its
 * submit between two of these. */
static void
finish(void)
{
   glFinish();
}

static void *
map_read(GLenum target, GLuint buf, size_t bytes)
{
   glBindBuffer(target, buf);
   void *p = glMapBufferRange(target, 0, bytes, GL_MAP_READ_BIT);
   if (!p)
      FAIL("cannot map a result buffer");
   return p;
}

/* ----------------------------------------------------------------------
 * chase: load-to-use latency
 * ---------------------------------------------------------------------- */

static const char *chase_src =
   "#version 310 es\n"
   "layout(local_size_x = 1) in;\n"
   "layout(std430, binding = 0) readonly buffer Next { uint next[]; };\n"
   "layout(std430, binding = 1) writeonly buffer Out { uint result; };\n"
   "uniform uint iterations, start;\n"
   "void main() {\n"
   "   uint i = start;\n"
   "   for (uint k = 0u; k < iterations; k++) {\n"
   "      i = next[i]; i = next[i]; i = next[i]; i = next[i];\n"
   "      i = next[i]; i = next[i]; i = next[i]; i = next[i];\n"
   "   }\n"
   "   result = i;\n"
   "}\n";

static void
test_chase(void)
{
   const long line = arg("line", 64), l1 = arg("l1", 16384), l2 = arg("l2", 262144);
   const long words = line / 4;
   struct {
      const char *name;
      long lines;
      int warm;
   } levels[] = {
      {"l1", l1 / 4 / line, 1},
      {"l2", l2 / 4 / line, 1},
      {"vram", 4 * l2 / line, 0},
   };
   GLuint prog = link(shader(GL_COMPUTE_SHADER, chase_src), 0);
   GLint loc = glGetUniformLocation(prog, "iterations");
   GLint loc_start = glGetUniformLocation(prog, "start");
   glUseProgram(prog);
   /* one buffer per level, all alive until the end: no level reads
    * memory another one brought into a cache */
   GLuint bufs[4];
   glGenBuffers(4, bufs);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bufs[3]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_READ);
   for (unsigned v = 0; v < 3; v++) {
      const long n = levels[v].lines;
      /* a random cyclic order of the n lines (Sattolo's shuffle: one cycle
       * through all of them); word 0 of line order[k] holds the word index
       * of line order[k+1], so every load depends on the one before */
      uint32_t *order = malloc(n * sizeof(uint32_t));
      uint32_t *next = calloc(n * words, sizeof(uint32_t));
      uint32_t seed = 777 + v;
      for (long k = 0; k < n; k++)
         order[k] = k;
      for (long k = n - 1; k > 0; k--) {
         long j = lcg(&seed) % k;
         uint32_t t = order[k];
         order[k] = order[j];
         order[j] = t;
      }
      for (long k = 0; k < n; k++)
         next[order[k] * words] = order[(k + 1) % n] * words;
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[v]);
      glBufferData(GL_SHADER_STORAGE_BUFFER, n * words * 4, next, GL_STATIC_DRAW);
      finish();
      /* warm-up: one pass over every line (a whole number of iterations) */
      const long warm_iter = (n + 7) / 8;
      if (levels[v].warm) {
         glUniform1ui(loc, warm_iter);
         glUniform1ui(loc_start, order[0] * words);
         printf("measure dispatch warmup level=%s\n", levels[v].name);
         fflush(stdout);
         glDispatchCompute(1, 1, 1);
         finish();
      }
      /* measured: the L1 and L2 chases go around their cycle 2 and 4
       * times from order[0]; the VRAM ones visit n/6 and n/2 lines from
       * order[0] and order[n/2]: distinct lines, never loaded before */
      long iters[2], from[2] = {0, 0};
      if (levels[v].warm) {
         iters[0] = 2 * warm_iter;
         iters[1] = 4 * warm_iter;
      } else {
         iters[0] = n / 8 / 6;
         iters[1] = n / 8 / 2;
         from[1] = n / 2;
      }
      for (int r = 0; r < 2; r++) {
         glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
         glUniform1ui(loc, iters[r]);
         glUniform1ui(loc_start, order[from[r]] * words);
         printf("measure dispatch chase level=%s footprint_bytes=%ld lines=%ld loads=%ld\n",
                levels[v].name, n * line, n, iters[r] * 8);
         fflush(stdout);
         glDispatchCompute(1, 1, 1);
         finish();
         glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
         /* expected: the line 8*iters steps along the cycle */
         const uint32_t want = order[(from[r] + iters[r] * 8) % n] * words;
         const uint32_t *res = map_read(GL_SHADER_STORAGE_BUFFER, bufs[3], 4);
         if (res && *res != want)
            FAIL("chase %s: ended at word %u, expected %u", levels[v].name, *res, want);
         glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
      }
      free(order);
      free(next);
   }
   glDeleteBuffers(4, bufs);
   glDeleteProgram(prog);
   check_gl("chase");
}

/* ----------------------------------------------------------------------
 * stream: VRAM bandwidth
 * ---------------------------------------------------------------------- */

static const char *stream_src =
   "#version 310 es\n"
   "layout(local_size_x = 64) in;\n"
   "layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };\n"
   "layout(std430, binding = 1) buffer Dst { uvec4 dst[]; };\n"
   "uniform uint mode;\n" /* 0 read, 1 write, 2 copy */
   "void main() {\n"
   "   uint i = gl_GlobalInvocationID.x;\n"
   "   if (mode == 0u) {\n"
   "      uvec4 v = src[i];\n"
   /* never true for the host's data: the loads must happen, nothing is written */
   "      if (v.x == 0xffffffffu && v.y == 0u)\n"
   "         dst[0] = v;\n"
   "   } else if (mode == 1u) {\n"
   "      dst[i] = uvec4(i, i ^ 0x5555u, 7u, i * 3u);\n"
   "   } else {\n"
   "      dst[i] = src[i];\n"
   "   }\n"
   "}\n";

/* One lane spinning on a dependent chain, about 6 cycles per step: run
 * after a measured dispatch that stores, so that its posted writes reach
 * VRAM before the next measurement starts (not measured). */
static const char *spin_src =
   "#version 310 es\n"
   "layout(local_size_x = 1) in;\n"
   "layout(std430, binding = 2) writeonly buffer Spin { float spin; };\n"
   "uniform uint steps;\n"
   "void main() {\n"
   "   float a = 2.0;\n"
   "   for (uint n = 0u; n < steps; n++)\n"
   "      a = inversesqrt(a);\n"
   "   spin = a;\n"
   "}\n";

static void
test_stream(void)
{
   const long bytes = arg("bytes", 1 << 20);
   const long max = 2 * bytes;
   uint32_t *data = malloc(max);
   uint32_t seed = 99;
   for (long k = 0; k < max / 4; k++)
      data[k] = lcg(&seed) & 0x7fffffff; /* never 0xffffffff */
   GLuint prog = link(shader(GL_COMPUTE_SHADER, stream_src), 0);
   GLint loc = glGetUniformLocation(prog, "mode");
   GLuint spin = link(shader(GL_COMPUTE_SHADER, spin_src), 0);
   glUseProgram(spin);
   /* the drain: long enough for the L2's write-backs of 2N bytes at 4
    * bytes per cycle */
   glUniform1ui(glGetUniformLocation(spin, "steps"), max / 4 / 6);
   GLuint bufs[3];
   glGenBuffers(3, bufs);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, bufs[2]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_READ);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[0]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, max, data, GL_STATIC_DRAW);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bufs[1]);
   glBufferData(GL_SHADER_STORAGE_BUFFER, max, NULL, GL_DYNAMIC_READ);
   finish();
   static const char *modes[] = {"read", "write", "copy"};
   for (int m = 0; m < 3; m++) {
      if (m == 1) {
         /* warm-up (not measured): both measured writes must find the L2
          * full of dirty lines (the first would otherwise find the reads'
          * clean lines and write back an L2's worth less: the slope would
          * charge that to the second) */
         glUseProgram(prog);
         glUniform1ui(loc, m);
         printf("measure dispatch warmup mode=write\n");
         fflush(stdout);
         glDispatchCompute(bytes / 16 / 64, 1, 1);
         finish();
         glUseProgram(spin);
         printf("measure dispatch drain\n");
         fflush(stdout);
         glDispatchCompute(1, 1, 1);
         finish();
      }
      for (int r = 0; r < 2; r++) {
         const long b = r ? max : bytes;
         glUseProgram(prog);
         glUniform1ui(loc, m);
         printf("measure dispatch stream mode=%s bytes=%ld\n", modes[m], b);
         fflush(stdout);
         glDispatchCompute(b / 16 / 64, 1, 1);
         finish();
         if (m) {
            glUseProgram(spin);
            printf("measure dispatch drain\n");
            fflush(stdout);
            glDispatchCompute(1, 1, 1);
            finish();
         }
         glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
         const uint32_t *res = map_read(GL_SHADER_STORAGE_BUFFER, bufs[1], max);
         if (!res)
            continue;
         if (m == 0 && res[0] == 0xffffffffu)
            FAIL("stream read wrote its destination");
         for (long i = 0; m && i < b / 16; i++) {
            uint32_t w[4] = {i, i ^ 0x5555u, 7u, i * 3u};
            const uint32_t *want = m == 1 ? w : &data[i * 4];
            if (memcmp(&res[i * 4], want, 16)) {
               FAIL("stream %s: element %ld is %u %u %u %u, expected %u %u %u %u", modes[m], i,
                    res[i * 4], res[i * 4 + 1], res[i * 4 + 2], res[i * 4 + 3], want[0], want[1],
                    want[2], want[3]);
               break;
            }
         }
         glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
      }
   }
   free(data);
   glDeleteBuffers(3, bufs);
   glDeleteProgram(prog);
   glDeleteProgram(spin);
   check_gl("stream");
}

/* ----------------------------------------------------------------------
 * alu: throughput per functional class, dual issue
 * ---------------------------------------------------------------------- */

/* One functional class: the type T of the 16 chains, INIT(j) the start
 * value of chain j from x (the invocation's input), STEP(a) one step of a
 * chain (ops_per_step ops of that class; c and d are uniforms, so nothing
 * folds); scalar chains, so that each step is one instruction whatever the
 * compiler does with vec4 loop values,
 * FOLD(a) a chain as a vec4 for the output. "dual": the even chains add,
 * the odd ones multiply, so the compiler can pair them (different classes). */
static const struct alu_class {
   const char *name, *type, *init, *step_even, *step_odd, *fold;
   int ops_per_step;
} alu_classes[] = {
   {"add", "float", "(x + float(j))", "a = a + c;", "a = a + c;", "(a)", 1},
   {"mul", "float", "(x + float(j))", "a = a * c;", "a = a * c;", "(a)", 1},
   {"mad", "float", "(x + float(j))", "a = a * c + d;", "a = a * c + d;", "(a)", 1},
   {"sfu", "float", "(x + float(j + 1))", "a = inversesqrt(a);", "a = inversesqrt(a);", "(a)", 1},
   {"frac", "float", "(x + float(j))", "a = fract(a);", "a = fract(a);", "(a)", 1},
   /* U2F, then the bits back as uint (a bitcast: no instruction) */
   {"conv", "uint", "(uint(x) + uint(j))", "a = floatBitsToUint(float(a));",
    "a = floatBitsToUint(float(a));", "float(a)", 1},
   {"logic", "uint", "(uint(x) + uint(j))", "a = a ^ (a >> 1u);", "a = a ^ (a >> 1u);", "float(a)",
    2},
   {"int", "uint", "(uint(x) + uint(j))", "a = a + uint(c);", "a = a + uint(c);", "float(a)", 1},
   {"dual", "float", "(x + float(j))", "a = a + c;", "a = a * c;", "(a)", 1},
};

static GLuint
alu_program(const struct alu_class *k)
{
   /* 16 chains a0..a15, two steps of each per loop iteration */
   char decl[2048] = "", body[4096] = "", fold[2048] = "";
   for (int j = 0; j < 16; j++) {
      char tmp[128];
      snprintf(tmp, sizeof(tmp), "   T a%d = INIT(%d);\n", j, j);
      strcat(decl, tmp);
      snprintf(tmp, sizeof(tmp), "   s += FOLD(a%d);\n", j);
      strcat(fold, tmp);
   }
   for (int rep = 0; rep < 2; rep++)
      for (int j = 0; j < 16; j++) {
         char tmp[128];
         snprintf(tmp, sizeof(tmp), "      STEP_%s(a%d)\n", j % 2 ? "ODD" : "EVEN", j);
         strcat(body, tmp);
      }
   return link(shaderf(GL_COMPUTE_SHADER,
                       "#version 310 es\n"
                       "precision highp float;\n"
                       "#define T %s\n"
                       "#define INIT(j) %s\n"
                       "#define STEP_EVEN(a) %s\n"
                       "#define STEP_ODD(a) %s\n"
                       "#define FOLD(a) %s\n"
                       "layout(local_size_x = 64) in;\n"
                       "layout(std430, binding = 0) buffer Data { float data[]; };\n"
                       "uniform uint iterations;\n"
                       "uniform float c, d;\n"
                       "void main() {\n"
                       "   uint i = gl_GlobalInvocationID.x;\n"
                       "   float x = data[i];\n"
                       "%s"
                       "   for (uint n = 0u; n < iterations; n++) {\n"
                       "%s"
                       "   }\n"
                       "   float s = 0.0;\n"
                       "%s"
                       "   data[i] = s;\n"
                       "}\n",
                       k->type, k->init, k->step_even, k->step_odd, k->fold, decl, body, fold),
               0);
}

static void
test_alu(void)
{
   const long groups = arg("groups", 8);
   const long n = groups * 64;
   float *in = malloc(n * 4);
   for (long i = 0; i < n; i++)
      in[i] = 1.0f + (float)(i % 7);
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
   for (unsigned k = 0; k < sizeof(alu_classes) / sizeof(alu_classes[0]); k++) {
      const struct alu_class *cl = &alu_classes[k];
      GLuint prog = alu_program(cl);
      glUseProgram(prog);
      /* c = 1: the add chains stay exact, the mul chains stay finite */
      glUniform1f(glGetUniformLocation(prog, "c"), 1.0f);
      glUniform1f(glGetUniformLocation(prog, "d"), 0.5f);
      GLint loc = glGetUniformLocation(prog, "iterations");
      static const long iters[2] = {8, 24};
      /* warm-up (not measured): the program's code into the caches */
      glUniform1ui(loc, 1);
      printf("measure dispatch warmup class=%s\n", cl->name);
      fflush(stdout);
      glDispatchCompute(groups, 1, 1);
      finish();
      for (int r = 0; r < 2; r++) {
         glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
         glBufferData(GL_SHADER_STORAGE_BUFFER, n * 4, in, GL_DYNAMIC_READ);
         finish();
         glUniform1ui(loc, iters[r]);
         printf("measure dispatch alu class=%s invocations=%ld iterations=%ld "
                "ops_per_invocation=%ld\n",
                cl->name, n, iters[r], iters[r] * 2 * 16 * cl->ops_per_step);
         fflush(stdout);
         glDispatchCompute(groups, 1, 1);
         finish();
         glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
         /* the classes whose host arithmetic is exact: add (c = 1, small
          * integers), int, logic */
         const float *res = map_read(GL_SHADER_STORAGE_BUFFER, buf, n * 4);
         const int add = !strcmp(cl->name, "add"), integer = !strcmp(cl->name, "int"),
                   logic = !strcmp(cl->name, "logic");
         for (long i = 0; res && (add || integer || logic) && i < n; i++) {
            float want = 0;
            for (int j = 0; j < 16; j++) {
               uint32_t a = (uint32_t)in[i] + j;
               if (add)
                  want += in[i] + j + iters[r] * 2;
               else if (integer)
                  want += (float)(a + iters[r] * 2);
               else {
                  for (long s = 0; s < iters[r] * 2; s++)
                     a ^= a >> 1;
                  want += (float)a;
               }
            }
            if (res[i] != want) {
               FAIL("alu %s: invocation %ld gave %g, expected %g", cl->name, i, res[i], want);
               break;
            }
         }
         glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
      }
      glDeleteProgram(prog);
   }
   free(in);
   glDeleteBuffers(1, &buf);
   check_gl("alu");
}

/* ----------------------------------------------------------------------
 * latency: a dependent chain per thread group, for latency hiding
 * ---------------------------------------------------------------------- */

/* %d: the floats of shared memory each workgroup holds (at least 16): the
 * LTS places a workgroup only on an SPC with that much free, so it bounds
 * the workgroups resident per SPC */
static const char *latency_fmt =
   "#version 310 es\n"
   "precision highp float;\n"
   "layout(local_size_x = 16) in;\n"
   "layout(std430, binding = 0) writeonly buffer Data { float data[]; };\n"
   "uniform uint iterations;\n"
   "shared float pad[%d];\n"
   "void main() {\n"
   "   uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationIndex;\n"
   /* no load: a group's time is its chain, not a memory latency */
   "   float a = 2.0 + float(i %% 5u);\n"
   "   for (uint n = 0u; n < iterations; n++) {\n"
   "      a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a);\n"
   "      a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a);\n"
   "      a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a);\n"
   "      a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a); a = inversesqrt(a);\n"
   "   }\n"
   "   pad[l] = a;\n"
   "   barrier();\n"
   "   data[i] = pad[l];\n"
   "}\n";

static void
test_latency(void)
{
   const long groups = arg("groups", 64);
   const long shared_bytes = arg("shared", 64);
   const long iterations = 16;
   GLuint prog =
      link(shaderf(GL_COMPUTE_SHADER, latency_fmt, (int)(shared_bytes < 64 ? 16 : shared_bytes / 4)),
           0);
   glUseProgram(prog);
   GLint loc = glGetUniformLocation(prog, "iterations");
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
   glBufferData(GL_SHADER_STORAGE_BUFFER, 3 * groups * 16 * 4, NULL, GL_DYNAMIC_READ);
   /* warm-up (not measured): the program's code into the caches */
   glUniform1ui(loc, 1);
   glDispatchCompute(1, 1, 1);
   finish();
   glUniform1ui(loc, iterations);
   /* G and 3G workgroups of one thread group each: the difference is 2G
    * groups in the steady state (the tail of the last wave cancels) */
   for (int r = 0; r < 2; r++) {
      const long wg = r ? 3 * groups : groups, n = wg * 16;
      printf("measure dispatch latency workgroups=%ld invocations=%ld iterations=%ld "
             "chain_ops=%ld shared_bytes=%ld\n",
             wg, n, iterations, iterations * 16, shared_bytes < 64 ? 64 : shared_bytes);
      fflush(stdout);
      glDispatchCompute(wg, 1, 1);
      finish();
      glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
      const float *res = map_read(GL_SHADER_STORAGE_BUFFER, buf, n * 4);
      for (long i = 0; res && i < n; i++) {
         /* RSQ: 1 / sqrt in double precision, rounded once (docs/isa.md) */
         float want = 2.0f + i % 5;
         for (long k = 0; k < iterations * 16; k++)
            want = (float)(1.0 / sqrt((double)want));
         if (fabsf(res[i] - want) > 1e-6f * fabsf(want)) {
            FAIL("latency: invocation %ld gave %.9g, expected %.9g", i, res[i], want);
            break;
         }
      }
      glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
   }
   glDeleteBuffers(1, &buf);
   glDeleteProgram(prog);
   check_gl("latency");
}

/* ----------------------------------------------------------------------
 * graphics helpers
 * ---------------------------------------------------------------------- */

/* An SxS (W x H) RGBA8 texture render target, with a depth24 renderbuffer
 * when @depth; bound as the draw framebuffer, viewport set. */
static GLuint
target(int w, int h, int depth, GLuint *tex, GLuint *rb)
{
   GLuint fb;
   glGenFramebuffers(1, &fb);
   glBindFramebuffer(GL_FRAMEBUFFER, fb);
   glGenTextures(1, tex);
   glBindTexture(GL_TEXTURE_2D, *tex);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
   *rb = 0;
   if (depth) {
      glGenRenderbuffers(1, rb);
      glBindRenderbuffer(GL_RENDERBUFFER, *rb);
      glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, *rb);
   }
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      fprintf(stderr, "vlg_ubench: framebuffer %dx%d incomplete\n", w, h);
      exit(1);
   }
   glViewport(0, 0, w, h);
   return fb;
}

static void
free_target(GLuint fb, GLuint tex, GLuint rb)
{
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fb);
   glDeleteTextures(1, &tex);
   if (rb)
      glDeleteRenderbuffers(1, &rb);
}

/* Read pixel (x, y) of the bound framebuffer. */
static void
pixel(int x, int y, uint8_t px[4])
{
   glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
}

static int
near(int a, int b)
{
   return abs(a - b) <= 1;
}

/* ----------------------------------------------------------------------
 * fill: pixels per cycle
 * ---------------------------------------------------------------------- */

static void
test_fill(void)
{
   const int size = arg("size", 128);
   GLuint tex, rb;
   GLuint fb = target(size, size, 1, &tex, &rb);
   GLuint prog = link(shader(GL_VERTEX_SHADER, "#version 310 es\n"
                                               "in vec3 a_pos;\n"
                                               "void main() { gl_Position = vec4(a_pos, 1.0); }\n"),
                      shader(GL_FRAGMENT_SHADER, "#version 310 es\n"
                                                 "precision mediump float;\n"
                                                 "uniform vec4 color;\n"
                                                 "out vec4 o;\n"
                                                 "void main() { o = color; }\n"));
   glUseProgram(prog);
   /* 6 full-screen layers (two triangles each), nearest last: depth
    * 0.5 - 0.1 * layer, so a LESS test passes every layer */
   enum { MAX_LAYERS = 6 };
   float v[MAX_LAYERS * 6 * 3];
   static const float quad[6][2] = {{-1, -1}, {1, -1}, {-1, 1}, {-1, 1}, {1, -1}, {1, 1}};
   for (int l = 0; l < MAX_LAYERS; l++)
      for (int k = 0; k < 6; k++) {
         v[(l * 6 + k) * 3 + 0] = quad[k][0];
         v[(l * 6 + k) * 3 + 1] = quad[k][1];
         v[(l * 6 + k) * 3 + 2] = 0.5f - 0.1f * l;
      }
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
   GLint loc = glGetAttribLocation(prog, "a_pos");
   glVertexAttribPointer(loc, 3, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(loc);
   GLint color = glGetUniformLocation(prog, "color");
   static const char *modes[] = {"plain", "blend", "depth"};
   static const int layers[2] = {2, MAX_LAYERS};
   /* warm-up (not measured): the program's code into the caches */
   glDrawArrays(GL_TRIANGLES, 0, 6);
   finish();
   for (int m = 0; m < 3; m++)
      for (int r = 0; r < 2; r++) {
         glDisable(GL_BLEND);
         glDisable(GL_DEPTH_TEST);
         glClearColor(0, 0, 0, 0);
         glClearDepthf(1.0f);
         glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
         finish();
         /* blend: each layer adds (16, 8, 4) / 255 */
         if (m == 1)
            glUniform4f(color, 16 / 255.0f, 8 / 255.0f, 4 / 255.0f, 1.0f);
         else
            glUniform4f(color, 0.25f, 0.5f, 0.75f, 1.0f);
         if (m == 1) {
            glEnable(GL_BLEND);
            glBlendFunc(GL_ONE, GL_ONE);
         } else if (m == 2) {
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LESS);
            glDepthMask(GL_TRUE);
         }
         printf("measure draw fill mode=%s layers=%d pixels=%d vertices=%d\n", modes[m],
                layers[r], layers[r] * size * size, layers[r] * 6);
         fflush(stdout);
         glDrawArrays(GL_TRIANGLES, 0, layers[r] * 6);
         finish();
         uint8_t px[4];
         pixel(size / 3, size / 2, px);
         const int want[3] = {m == 1 ? 16 * layers[r] : 64, m == 1 ? 8 * layers[r] : 128,
                              m == 1 ? 4 * layers[r] : 191};
         if (!near(px[0], want[0]) || !near(px[1], want[1]) || !near(px[2], want[2]))
            FAIL("fill %s, %d layers: pixel %u,%u,%u, expected %d,%d,%d", modes[m], layers[r],
                 px[0], px[1], px[2], want[0], want[1], want[2]);
      }
   glDisable(GL_BLEND);
   glDisable(GL_DEPTH_TEST);
   glDisableVertexAttribArray(loc);
   glDeleteBuffers(1, &vbo);
   glDeleteProgram(prog);
   free_target(fb, tex, rb);
   check_gl("fill");
}

/* ----------------------------------------------------------------------
 * tex: texels per cycle per filter mode
 * ---------------------------------------------------------------------- */

static void
test_tex(void)
{
   const int size = arg("size", 64);
   enum { T = 64 };
   GLuint rt, rb;
   GLuint fb = target(size, size, 0, &rt, &rb);
   /* a 64x64 texture with its mipmaps, every texel of every level the
    * same grey, so every filter returns it exactly */
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexStorage2D(GL_TEXTURE_2D, 7, GL_RGBA8, T, T);
   uint8_t *texels = malloc(T * T * 4);
   memset(texels, 96, T * T * 4);
   for (int l = 0; l < 7; l++)
      glTexSubImage2D(GL_TEXTURE_2D, l, 0, 0, T >> l, T >> l, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   free(texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
   static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
   GLuint vs = shader(GL_VERTEX_SHADER, "#version 310 es\n"
                                        "in vec2 a_pos;\n"
                                        "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n");
   static const int samples[2] = {4, 12};
   GLuint progs[2];
   for (int r = 0; r < 2; r++)
      /* K samples at coordinates shifted by 1/16 texel each (the same
       * footprint size, so the same LOD and filter work) */
      progs[r] = link(vs, shaderf(GL_FRAGMENT_SHADER,
                                  "#version 310 es\n"
                                  "precision highp float;\n"
                                  "uniform sampler2D t;\n"
                                  "uniform float scale;\n"
                                  "out vec4 o;\n"
                                  "void main() {\n"
                                  "   vec2 uv = gl_FragCoord.xy * scale;\n"
                                  "   vec4 s = vec4(0.0);\n"
                                  "   for (int k = 0; k < %d; k++)\n"
                                  "      s += texture(t, uv + float(k) * vec2(1.0 / 1024.0));\n"
                                  "   o = s / %d.0;\n"
                                  "}\n",
                                  samples[r], samples[r]));
   static const struct {
      const char *name;
      GLenum min, mag;
      float texels_per_pixel;
   } modes[] = {
      {"nearest", GL_NEAREST, GL_NEAREST, 1.0f},
      {"bilinear", GL_LINEAR, GL_LINEAR, 1.0f},
      /* LOD log2(sqrt 2) = 0.5: halfway between levels 0 and 1 */
      {"trilinear", GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, 1.41421356f},
   };
   /* warm-up (not measured): both programs' code into the caches */
   for (int r = 0; r < 2; r++) {
      glUseProgram(progs[r]);
      GLint loc = glGetAttribLocation(progs[r], "a_pos");
      glBindBuffer(GL_ARRAY_BUFFER, vbo);
      glVertexAttribPointer(loc, 2, GL_FLOAT, GL_FALSE, 0, 0);
      glEnableVertexAttribArray(loc);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      glDisableVertexAttribArray(loc);
      finish();
   }
   for (int m = 0; m < 3; m++) {
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, modes[m].min);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, modes[m].mag);
      for (int r = 0; r < 2; r++) {
         glUseProgram(progs[r]);
         glUniform1i(glGetUniformLocation(progs[r], "t"), 0);
         glUniform1f(glGetUniformLocation(progs[r], "scale"), modes[m].texels_per_pixel / T);
         GLint loc = glGetAttribLocation(progs[r], "a_pos");
         glBindBuffer(GL_ARRAY_BUFFER, vbo);
         glVertexAttribPointer(loc, 2, GL_FLOAT, GL_FALSE, 0, 0);
         glEnableVertexAttribArray(loc);
         glClearColor(0, 0, 0, 0);
         glClear(GL_COLOR_BUFFER_BIT);
         finish();
         printf("measure draw tex filter=%s samples_per_pixel=%d pixels=%d samples=%d\n",
                modes[m].name, samples[r], size * size, samples[r] * size * size);
         fflush(stdout);
         glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
         finish();
         uint8_t px[4];
         pixel(size / 2, size / 3, px);
         if (!near(px[0], 96) || !near(px[1], 96) || !near(px[3], 96))
            FAIL("tex %s: pixel %u,%u,%u,%u, expected 96 everywhere", modes[m].name, px[0], px[1],
                 px[2], px[3]);
         glDisableVertexAttribArray(loc);
      }
   }
   glDeleteProgram(progs[0]);
   glDeleteProgram(progs[1]);
   glDeleteBuffers(1, &vbo);
   glDeleteTextures(1, &tex);
   free_target(fb, rt, rb);
   check_gl("tex");
}

/* ----------------------------------------------------------------------
 * setup: triangles per cycle; vertex: vertices per cycle
 * ---------------------------------------------------------------------- */

static void
test_setup(void)
{
   const long tris = arg("tris", 2048);
   enum { S = 64 };
   GLuint rt, rb;
   GLuint fb = target(S, S, 0, &rt, &rb);
   /* one small triangle inside pixel (10, 10), clear of its centre
    * (10.5, 10.5): set up, no quad; in NDC of the SxS viewport */
   const float px[3][2] = {{10.1f, 10.1f}, {10.4f, 10.1f}, {10.1f, 10.4f}};
   float v[6];
   for (int k = 0; k < 3; k++) {
      v[k * 2] = px[k][0] / S * 2 - 1;
      v[k * 2 + 1] = px[k][1] / S * 2 - 1;
   }
   uint16_t *idx = malloc(3 * 3 * tris * sizeof(uint16_t));
   for (long i = 0; i < 3 * 3 * tris; i++)
      idx[i] = i % 3;
   GLuint bufs[2];
   glGenBuffers(2, bufs);
   glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bufs[1]);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, 3 * 3 * tris * sizeof(uint16_t), idx, GL_STATIC_DRAW);
   free(idx);
   GLuint prog = link(shader(GL_VERTEX_SHADER, "#version 310 es\n"
                                               "in vec2 a_pos;\n"
                                               "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n"),
                      shader(GL_FRAGMENT_SHADER, "#version 310 es\n"
                                                 "precision mediump float;\n"
                                                 "out vec4 o;\n"
                                                 "void main() { o = vec4(1.0); }\n"));
   glUseProgram(prog);
   GLint loc = glGetAttribLocation(prog, "a_pos");
   glVertexAttribPointer(loc, 2, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(loc);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   /* warm-up (not measured): the program's code into the caches */
   glDrawElements(GL_TRIANGLES, 3 * 128, GL_UNSIGNED_SHORT, 0);
   finish();
   for (int r = 0; r < 2; r++) {
      const long t = r ? 3 * tris : tris;
      printf("measure draw setup triangles=%ld\n", t);
      fflush(stdout);
      glDrawElements(GL_TRIANGLES, 3 * t, GL_UNSIGNED_SHORT, 0);
      finish();
   }
   uint8_t p[4];
   pixel(10, 10, p);
   if (p[0] || p[1] || p[2])
      FAIL("setup: pixel (10, 10) is %u,%u,%u: a small triangle covered its centre", p[0], p[1],
           p[2]);
   glDisableVertexAttribArray(loc);
   glDeleteBuffers(2, bufs);
   glDeleteProgram(prog);
   free_target(fb, rt, rb);
   check_gl("setup");
}

static void
test_vertex(void)
{
   const long verts = arg("verts", 3072);
   enum { S = 64 };
   GLuint rt, rb;
   GLuint fb = target(S, S, 0, &rt, &rb);
   /* clockwise (back-facing) triangles over the whole viewport: culled */
   GLuint prog = link(shader(GL_VERTEX_SHADER,
                             "#version 310 es\n"
                             "void main() {\n"
                             "   int k = gl_VertexID % 3;\n"
                             "   gl_Position = vec4(k == 2 ? 1.0 : -1.0, k == 1 ? 1.0 : -1.0, 0.0, 1.0);\n"
                             "}\n"),
                      shader(GL_FRAGMENT_SHADER, "#version 310 es\n"
                                                 "precision mediump float;\n"
                                                 "out vec4 o;\n"
                                                 "void main() { o = vec4(1.0); }\n"));
   glUseProgram(prog);
   GLuint vao;
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   glEnable(GL_CULL_FACE);
   glCullFace(GL_BACK);
   glFrontFace(GL_CCW);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   /* warm-up (not measured): the program's code into the caches */
   glDrawArrays(GL_TRIANGLES, 0, 3 * 128);
   finish();
   for (int r = 0; r < 2; r++) {
      const long n = r ? 3 * verts : verts;
      printf("measure draw vertex vertices=%ld\n", n);
      fflush(stdout);
      glDrawArrays(GL_TRIANGLES, 0, n);
      finish();
   }
   uint8_t p[4];
   pixel(S - 2, 1, p);
   if (p[0] || p[1] || p[2])
      FAIL("vertex: pixel (%d, 1) is %u,%u,%u: a back-facing triangle was drawn", S - 2, p[0],
           p[1], p[2]);
   glDisable(GL_CULL_FACE);
   glBindVertexArray(0);
   glDeleteVertexArrays(1, &vao);
   glDeleteProgram(prog);
   free_target(fb, rt, rb);
   check_gl("vertex");
}

/* ----------------------------------------------------------------------
 * clear: bytes per cycle
 * ---------------------------------------------------------------------- */

static void
test_clear(void)
{
   const int width = arg("width", 512);
   static const int heights[2] = {256, 768};
   glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
   {
      /* warm-up (not measured): both measured clears must find the L2 full
       * of dirty lines, as the second finds the first's (else the first
       * writes back an L2's worth less and the slope charges it to the
       * second) */
      GLuint tex, rb;
      GLuint fb = target(width, heights[1], 0, &tex, &rb);
      finish();
      printf("measure clear warmup\n");
      fflush(stdout);
      glClear(GL_COLOR_BUFFER_BIT);
      finish();
      free_target(fb, tex, rb);
   }
   for (int r = 0; r < 2; r++) {
      GLuint tex, rb;
      GLuint fb = target(width, heights[r], 0, &tex, &rb);
      finish();
      glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
      printf("measure clear clear width=%d height=%d bytes=%d\n", width, heights[r],
             width * heights[r] * 4);
      fflush(stdout);
      glClear(GL_COLOR_BUFFER_BIT);
      finish();
      uint8_t px[4];
      pixel(width - 1, heights[r] - 1, px);
      if (!near(px[0], 64) || !near(px[1], 128) || !near(px[2], 191))
         FAIL("clear: pixel %u,%u,%u, expected 64,128,191", px[0], px[1], px[2]);
      free_target(fb, tex, rb);
   }
   check_gl("clear");
}

static void
test_info(void)
{
   printf("GL_RENDERER %s\n", glGetString(GL_RENDERER));
}

int
main(int argc, char **argv)
{
   static const struct {
      const char *name;
      void (*run)(void);
   } tests[] = {
      {"info", test_info},     {"chase", test_chase}, {"stream", test_stream},
      {"alu", test_alu},       {"latency", test_latency}, {"fill", test_fill},
      {"tex", test_tex},       {"setup", test_setup}, {"vertex", test_vertex},
      {"clear", test_clear},
   };
   const unsigned ntests = sizeof(tests) / sizeof(tests[0]);
   unsigned t = ntests;
   for (unsigned i = 0; argc >= 2 && i < ntests; i++)
      if (!strcmp(argv[1], tests[i].name))
         t = i;
   if (t == ntests) {
      fprintf(stderr, "usage: vlg_ubench TEST [KEY=VALUE...]; TEST is one of");
      for (unsigned i = 0; i < ntests; i++)
         fprintf(stderr, " %s", tests[i].name);
      fprintf(stderr, " (see the comment at the top of vlg_ubench.c)\n");
      return 2;
   }
   g_argc = argc - 2;
   g_argv = argv + 2;

   const int ctx_err = vlg_es31_context();
   if (ctx_err)
      return ctx_err;
   tests[t].run();
   printf("%s: %s\n", tests[t].name, failures ? "FAIL" : "pass");
   return failures ? 1 : 0;
}
