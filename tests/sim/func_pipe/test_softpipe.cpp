/*
 * The functional pipeline against softpipe, the reference renderer: the same
 * scene is drawn with OpenGL ES 3 on Mesa's softpipe (EGL surfaceless,
 * GALLIUM_DRIVER=softpipe, into a user FBO) and with render_draw on a
 * package written here the way the driver will write it (st/mesa's state
 * translation for a user FBO: y not flipped, so front_ccw is inverted and the
 * sprite origin is LOWER_LEFT), and the pixels are compared. The target is bit-exactness.
 *
 * Skipped (GTEST_SKIP) when no EGL/GLES softpipe context can be made, or
 * when softpipe is not Mesa 22.3.6 (the version vlgpu mirrors); `./vlgpu
 * test` counts such a skip as a failure (tests/skips.py) and its setup
 * installs Debian's Mesa EGL (libegl-mesa0), so there it runs.
 *
 * softpipe keeps colour tiles as floats and quantizes them only when a tile
 * leaves its cache; the OMU quantizes every write. Scenes where blending
 * reads a pixel written in the same frame use destination values that are
 * exactly k/255 so that both agree (see docs/simulator-pipeline.md).
 */
#include <gtest/gtest.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "pipe_test_util.h"
#include "sim/func/pipe/functional.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** One GLES context on softpipe for the whole test program. */
struct Softpipe {
   bool ok = false;
   std::string why;
   EGLDisplay dpy = EGL_NO_DISPLAY;
   EGLContext ctx = EGL_NO_CONTEXT;

   Softpipe()
   {
      setenv("GALLIUM_DRIVER", "softpipe", 1);
      setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
      auto gpd = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
         eglGetProcAddress("eglGetPlatformDisplayEXT"));
      if (!gpd) {
         why = "no eglGetPlatformDisplayEXT";
         return;
      }
      dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
      EGLint maj, min;
      if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &maj, &min)) {
         why = "no surfaceless EGL display";
         return;
      }
      eglBindAPI(EGL_OPENGL_ES_API);
      const EGLint cattr[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
      ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, cattr);
      if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
         why = "no GLES 3 context";
         return;
      }
      const std::string r = reinterpret_cast<const char *>(glGetString(GL_RENDERER));
      const std::string v = reinterpret_cast<const char *>(glGetString(GL_VERSION));
      if (r.find("softpipe") == std::string::npos || v.find("Mesa 22.3.6") == std::string::npos) {
         why = "renderer is '" + r + "', '" + v + "', not softpipe of Mesa 22.3.6";
         return;
      }
      ok = true;
   }
};

Softpipe &
softpipe()
{
   static Softpipe s;
   return s;
}

GLuint
compile(GLenum type, const char *src)
{
   const GLuint s = glCreateShader(type);
   glShaderSource(s, 1, &src, nullptr);
   glCompileShader(s);
   GLint ok = 0;
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[1024];
      glGetShaderInfoLog(s, sizeof(log), nullptr, log);
      ADD_FAILURE() << log;
   }
   return s;
}

/** What a scene draws; both renderers get the same description. */
struct Scene {
   unsigned w = 64, h = 64;
   std::vector<float> verts; /* x, y, z, w (clip), r, g, b, a per vertex */
   GLenum prim = GL_TRIANGLES;
   float clear[4] = {0, 0, 0, 0};
   float clear_depth = 1.0f;
   bool depth = false;
   GLenum depth_func = GL_LESS;
   bool cull = false;
   bool blend = false;
   GLenum bsrc = GL_ONE, bdst = GL_ZERO, bfunc = GL_FUNC_ADD;
   float blend_color[4] = {0, 0, 0, 0};
   float point_size = 1.0f;
   float line_width = 1.0f;
   bool point_coord = false; /* FS colour = (gl_PointCoord, 0, 1) */
   bool offset = false;
   float offset_factor = 0, offset_units = 0;
   bool flat = false;
   /** drawn before verts with the same state but without polygon offset */
   std::vector<float> first_verts;
   /** FS colour = texture(tex, v_col.xy) of an RGBA8 mipmapped texture, trilinear, REPEAT */
   bool textured = false;
   /** 16-bit depth buffer (softpipe's Z16 fast path) instead of Z24S8 */
   bool z16 = false;
};

/** The texture of textured scenes: 64x64 RGBA8, 7 levels of distinct patterns. */
struct TestTexture {
   static constexpr unsigned kSize = 64, kLevels = 7;
   std::vector<std::vector<uint8_t>> level;
   TestTexture()
   {
      for (unsigned l = 0; l < kLevels; l++) {
         const unsigned n = kSize >> l;
         std::vector<uint8_t> px(size_t(n) * n * 4);
         for (unsigned y = 0; y < n; y++)
            for (unsigned x = 0; x < n; x++) {
               uint8_t *p = &px[(size_t(y) * n + x) * 4];
               p[0] = uint8_t((x * 37 + y * 11 + l * 50) & 0xff);
               p[1] = uint8_t(((x ^ y) * 23 + l * 90) & 0xff);
               p[2] = uint8_t((((x / 4 + y / 4) & 1) ? 230 : 20) - l * 10);
               p[3] = 255;
            }
         level.push_back(std::move(px));
      }
   }
};

const TestTexture &
test_texture()
{
   static TestTexture t;
   return t;
}

/** Render on softpipe; returns RGBA8 rows bottom-up (= Gallium row order of a user FBO). */
std::vector<uint8_t>
render_gl(const Scene &s)
{
   GLuint fbo, rb[2];
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, GLsizei(s.w), GLsizei(s.h));
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, s.z16 ? GL_DEPTH_COMPONENT16 : GL_DEPTH24_STENCIL8,
                         GLsizei(s.w), GLsizei(s.h));
   glFramebufferRenderbuffer(GL_FRAMEBUFFER,
                             s.z16 ? GL_DEPTH_ATTACHMENT : GL_DEPTH_STENCIL_ATTACHMENT,
                             GL_RENDERBUFFER, rb[1]);
   EXPECT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), GLenum(GL_FRAMEBUFFER_COMPLETE));
   glViewport(0, 0, GLsizei(s.w), GLsizei(s.h));

   const char *vs =
      s.flat ? "#version 300 es\n"
               "in vec4 a_pos; in vec4 a_col; flat out vec4 v_col;\n"
               "uniform float u_ps;\n"
               "void main() { gl_Position = a_pos; v_col = a_col; gl_PointSize = u_ps; }\n"
             : "#version 300 es\n"
               "in vec4 a_pos; in vec4 a_col; out vec4 v_col;\n"
               "uniform float u_ps;\n"
               "void main() { gl_Position = a_pos; v_col = a_col; gl_PointSize = u_ps; }\n";
   const char *fs = s.textured      ? "#version 300 es\nprecision highp float;\n"
                                      "in vec4 v_col; out vec4 o; uniform sampler2D u_tex;\n"
                                      "void main() { o = texture(u_tex, v_col.xy); }\n"
                    : s.point_coord ? "#version 300 es\nprecision highp float;\n"
                                      "in vec4 v_col; out vec4 o;\n"
                                      "void main() { o = vec4(gl_PointCoord, 0.0, 1.0); }\n"
                    : s.flat        ? "#version 300 es\nprecision highp float;\n"
                                      "flat in vec4 v_col; out vec4 o;\n"
                                      "void main() { o = v_col; }\n"
                                    : "#version 300 es\nprecision highp float;\n"
                                      "in vec4 v_col; out vec4 o;\n"
                                      "void main() { o = v_col; }\n";
   const GLuint prog = glCreateProgram();
   glAttachShader(prog, compile(GL_VERTEX_SHADER, vs));
   glAttachShader(prog, compile(GL_FRAGMENT_SHADER, fs));
   glBindAttribLocation(prog, 0, "a_pos");
   glBindAttribLocation(prog, 1, "a_col");
   glLinkProgram(prog);
   glUseProgram(prog);
   glUniform1f(glGetUniformLocation(prog, "u_ps"), s.point_size);
   GLuint tex = 0;
   if (s.textured) {
      glGenTextures(1, &tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      const TestTexture &tt = test_texture();
      for (unsigned l = 0; l < TestTexture::kLevels; l++) {
         const GLsizei n = GLsizei(TestTexture::kSize >> l);
         glTexImage2D(GL_TEXTURE_2D, GLint(l), GL_RGBA8, n, n, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                      tt.level[l].data());
      }
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
      glUniform1i(glGetUniformLocation(prog, "u_tex"), 0);
   }

   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(s.verts.size() * 4), s.verts.data(), GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 32, nullptr);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 32, reinterpret_cast<void *>(16));

   glClearColor(s.clear[0], s.clear[1], s.clear[2], s.clear[3]);
   glClearDepthf(s.clear_depth);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
   if (s.depth) {
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(s.depth_func);
   } else {
      glDisable(GL_DEPTH_TEST);
   }
   if (s.cull)
      glEnable(GL_CULL_FACE);
   else
      glDisable(GL_CULL_FACE);
   if (s.blend) {
      glEnable(GL_BLEND);
      glBlendFunc(s.bsrc, s.bdst);
      glBlendEquation(s.bfunc);
      glBlendColor(s.blend_color[0], s.blend_color[1], s.blend_color[2], s.blend_color[3]);
   } else {
      glDisable(GL_BLEND);
   }
   glLineWidth(s.line_width);
   if (!s.first_verts.empty()) {
      glDisable(GL_POLYGON_OFFSET_FILL);
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(s.first_verts.size() * 4), s.first_verts.data(),
                   GL_STATIC_DRAW);
      glDrawArrays(s.prim, 0, GLsizei(s.first_verts.size() / 8));
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(s.verts.size() * 4), s.verts.data(), GL_STATIC_DRAW);
   }
   if (s.offset) {
      glEnable(GL_POLYGON_OFFSET_FILL);
      glPolygonOffset(s.offset_factor, s.offset_units);
   } else {
      glDisable(GL_POLYGON_OFFSET_FILL);
   }
   glDrawArrays(s.prim, 0, GLsizei(s.verts.size() / 8));
   std::vector<uint8_t> px(size_t(s.w) * s.h * 4);
   glReadPixels(0, 0, GLsizei(s.w), GLsizei(s.h), GL_RGBA, GL_UNSIGNED_BYTE, px.data());
   EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
   glDeleteBuffers(1, &vbo);
   if (tex)
      glDeleteTextures(1, &tex);
   glDeleteProgram(prog);
   glDeleteRenderbuffers(2, rb);
   glDeleteFramebuffers(1, &fbo);
   return px;
}

vlg_blend_factor
factor(GLenum f)
{
   switch (f) {
   case GL_ZERO:
      return VLG_BLEND_FACTOR_ZERO;
   case GL_ONE:
      return VLG_BLEND_FACTOR_ONE;
   case GL_SRC_COLOR:
      return VLG_BLEND_FACTOR_SRC_COLOR;
   case GL_ONE_MINUS_SRC_COLOR:
      return VLG_BLEND_FACTOR_INV_SRC_COLOR;
   case GL_DST_COLOR:
      return VLG_BLEND_FACTOR_DST_COLOR;
   case GL_ONE_MINUS_DST_COLOR:
      return VLG_BLEND_FACTOR_INV_DST_COLOR;
   case GL_SRC_ALPHA:
      return VLG_BLEND_FACTOR_SRC_ALPHA;
   case GL_ONE_MINUS_SRC_ALPHA:
      return VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   case GL_DST_ALPHA:
      return VLG_BLEND_FACTOR_DST_ALPHA;
   case GL_ONE_MINUS_DST_ALPHA:
      return VLG_BLEND_FACTOR_INV_DST_ALPHA;
   case GL_CONSTANT_COLOR:
      return VLG_BLEND_FACTOR_CONST_COLOR;
   case GL_ONE_MINUS_CONSTANT_COLOR:
      return VLG_BLEND_FACTOR_INV_CONST_COLOR;
   case GL_CONSTANT_ALPHA:
      return VLG_BLEND_FACTOR_CONST_ALPHA;
   case GL_ONE_MINUS_CONSTANT_ALPHA:
      return VLG_BLEND_FACTOR_INV_CONST_ALPHA;
   default:
      return VLG_BLEND_FACTOR_SRC_ALPHA_SATURATE;
   }
}

/** One draw of the scene's primitives with render_draw. */
void
vlgpu_pass(TestDraw &t, const Scene &s, const std::vector<float> &verts, bool offset)
{
   VLG_DRAW_INFO_init(&t.draw);
   t.draw.kind = VLG_DRAW_KIND_PRIMITIVES;
   t.draw.vertices_per_prim = 3;
   t.elements.clear();
   t.buffers.clear();
   t.vs = TestShader(VLG_SHADER_STAGE_VERTEX);
   t.fs = TestShader(VLG_SHADER_STAGE_FRAGMENT);
   switch (s.prim) {
   case GL_POINTS:
      t.draw.prim = VLG_PRIM_POINTS, t.draw.vertices_per_prim = 1;
      break;
   case GL_LINES:
      t.draw.prim = VLG_PRIM_LINES, t.draw.vertices_per_prim = 2;
      break;
   case GL_LINE_STRIP:
      t.draw.prim = VLG_PRIM_LINE_STRIP, t.draw.vertices_per_prim = 2;
      break;
   case GL_TRIANGLE_STRIP:
      t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
      break;
   case GL_TRIANGLE_FAN:
      t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
      break;
   default:
      t.draw.prim = VLG_PRIM_TRIANGLES;
      break;
   }
   t.draw.count = uint32_t(verts.size() / 8);
   const unsigned vb = t.vertex_buffer(verts, 32);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 0);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT, 16);
   t.vs.code = assemble("MOV R4, R0\nMOV R5, R1\nMOV R6.x, C0.xxxx\nBRC.END\n");
   t.vs.consts = {s.point_size, 0, 0, 0};
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
   t.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
   t.vs.output(6, VLG_OUTPUT_SEMANTIC_POINT_SIZE, 0, 0x1);
   if (s.textured) {
      /* coordinates computed in the shader: helper lanes must execute */
      t.fs.code = assemble("MUL R2, R0, C0\nTEX R1, R2, T0\nBRC.END\n");
      t.fs.consts = {1, 1, 1, 1};
      t.fs.st.uses_derivatives = true;
      t.fs.st.num_samplers = 1;
      t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0xf, VLG_INTERP_PERSPECTIVE);
      const TestTexture &tt = test_texture();
      VLG_TEXTURE tex;
      VLG_TEXTURE_init(&tex);
      tex.target = VLG_TEXTURE_TARGET_2D;
      tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
      tex.width = tex.height = TestTexture::kSize;
      tex.num_levels = TestTexture::kLevels;
      tex.first_level = 0;
      tex.last_level = TestTexture::kLevels - 1;
      uint64_t total = 0;
      for (unsigned l = 0; l < TestTexture::kLevels; l++)
         total += tt.level[l].size();
      tex.address = t.alloc(total);
      uint64_t off = 0;
      for (unsigned l = 0; l < TestTexture::kLevels; l++) {
         const unsigned n = TestTexture::kSize >> l;
         tex.level[l].offset = uint32_t(off);
         tex.level[l].row_pitch = n * 4;
         tex.level[l].layer_stride = n * n * 4;
         t.vram.write(tex.address + off, tt.level[l].data(), tt.level[l].size(), "test");
         off += tt.level[l].size();
      }
      VLG_SAMPLER smp;
      VLG_SAMPLER_init(&smp);
      smp.wrap_s = smp.wrap_t = smp.wrap_r = VLG_TEX_WRAP_REPEAT;
      smp.min_img_filter = smp.mag_img_filter = VLG_TEX_FILTER_LINEAR;
      smp.min_mip_filter = VLG_MIP_FILTER_LINEAR;
      t.fs_texture(tex, smp);
   } else if (s.point_coord) {
      t.fs.code = assemble("MOV R1.xy, R0\nMOV R1.zw, C0\nBRC.END\n");
      t.fs.consts = {0, 0, 0, 1};
      t.fs.input(0, VLG_INPUT_SEMANTIC_POINT_COORD, 0, 0x3, VLG_INTERP_CONSTANT);
   } else {
      t.fs.code = assemble("MOV R1, R0\nBRC.END\n");
      t.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0, 0xf,
                 s.flat ? VLG_INTERP_FLAT : VLG_INTERP_PERSPECTIVE);
   }
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);

   /* st/mesa's state for a user FBO (st_atom_rasterizer.c, st_atom_blend.c):
    * Y_0_BOTTOM orientation, so GL_CCW front faces become front_ccw = false */
   VLG_PIPE_STATE_init(&t.pipe);
   t.viewport(0, 0, float(s.w), float(s.h));
   VLG_RASTERIZER &r = t.pipe.rasterizer;
   r.half_pixel_center = true;
   r.depth_clip_near = r.depth_clip_far = true;
   r.front_ccw = false;
   r.cull_face = s.cull ? VLG_FACE_BACK : VLG_FACE_NONE;
   r.point_size_per_vertex = true;
   r.point_quad_rasterization = true;
   r.sprite_coord_mode = VLG_SPRITE_COORD_MODE_LOWER_LEFT;
   r.line_width = s.line_width;
   r.offset_tri = offset;
   r.offset_scale = s.offset_factor;
   r.offset_units = s.offset_units;
   VLG_DEPTH_STENCIL_ALPHA &dsa = t.pipe.depth_stencil_alpha;
   dsa.depth_enable = s.depth;
   dsa.depth_writemask = s.depth;
   dsa.depth_func = vlg_compare_func(s.depth_func - GL_NEVER); /* same order as PIPE_FUNC_* */
   VLG_BLEND_RT &b = t.pipe.blend.rt[0];
   b.blend_enable = s.blend;
   b.rgb_src_factor = b.alpha_src_factor = factor(s.bsrc);
   b.rgb_dst_factor = b.alpha_dst_factor = factor(s.bdst);
   const vlg_blend_func fn = s.bfunc == GL_FUNC_SUBTRACT           ? VLG_BLEND_FUNC_SUBTRACT
                             : s.bfunc == GL_FUNC_REVERSE_SUBTRACT ? VLG_BLEND_FUNC_REVERSE_SUBTRACT
                             : s.bfunc == GL_MIN                   ? VLG_BLEND_FUNC_MIN
                             : s.bfunc == GL_MAX                   ? VLG_BLEND_FUNC_MAX
                                                                   : VLG_BLEND_FUNC_ADD;
   b.rgb_func = b.alpha_func = fn;
   if (fn == VLG_BLEND_FUNC_MIN || fn == VLG_BLEND_FUNC_MAX) /* st/mesa: factors ONE */
      b.rgb_src_factor = b.alpha_src_factor = b.rgb_dst_factor = b.alpha_dst_factor =
         VLG_BLEND_FACTOR_ONE;
   t.pipe.blend_color.r = s.blend_color[0];
   t.pipe.blend_color.g = s.blend_color[1];
   t.pipe.blend_color.b = s.blend_color[2];
   t.pipe.blend_color.a = s.blend_color[3];
   render_draw(t.vram, t.write());
}

/** Render with render_draw: a CLEAR draw, then the scene's draw(s). */
std::vector<uint8_t>
render_vlgpu(const Scene &s)
{
   TestDraw t;
   t.framebuffer(s.w, s.h, VLG_FORMAT_R8G8B8A8_UNORM,
                 s.z16 ? VLG_FORMAT_Z16_UNORM : VLG_FORMAT_Z24_UNORM_S8_UINT);
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.clear_buffers = 0x7;
   for (int i = 0; i < 4; i++)
      t.draw.clear_color[i] = as_uint(s.clear[i]);
   t.draw.clear_depth = s.clear_depth;
   t.draw.clear_rect.maxx = s.w;
   t.draw.clear_rect.maxy = s.h;
   render_draw(t.vram, t.write());
   if (!s.first_verts.empty())
      vlgpu_pass(t, s, s.first_verts, false);
   vlgpu_pass(t, s, s.verts, s.offset);
   const uint8_t *p = t.rgba8(0, 0);
   return std::vector<uint8_t>(p, p + size_t(s.w) * s.h * 4);
}

/** Compare; report the first mismatches. */
void
expect_same(const Scene &s, const char *what, unsigned max_diff = 0)
{
   if (!softpipe().ok)
      GTEST_SKIP() << softpipe().why;
   const std::vector<uint8_t> ref = render_gl(s);
   const std::vector<uint8_t> got = render_vlgpu(s);
   unsigned bad = 0, written = 0;
   int worst = 0;
   std::string first;
   for (unsigned y = 0; y < s.h; y++)
      for (unsigned x = 0; x < s.w; x++) {
         const size_t o = (size_t(y) * s.w + x) * 4;
         int d = 0;
         for (int c = 0; c < 4; c++)
            d = std::max(d, std::abs(int(ref[o + c]) - int(got[o + c])));
         for (int c = 0; c < 4; c++)
            if (std::abs(int(ref[o + c]) - int(std::lround(s.clear[c] * 255))) > 1) {
               written++;
               break;
            }
         worst = std::max(worst, d);
         if (d > int(max_diff)) {
            if (bad < 5)
               first += "\n  (" + std::to_string(x) + "," + std::to_string(y) + ") softpipe " +
                        std::to_string(ref[o]) + "," + std::to_string(ref[o + 1]) + "," +
                        std::to_string(ref[o + 2]) + "," + std::to_string(ref[o + 3]) + " vlgpu " +
                        std::to_string(got[o]) + "," + std::to_string(got[o + 1]) + "," +
                        std::to_string(got[o + 2]) + "," + std::to_string(got[o + 3]);
            bad++;
         }
      }
   EXPECT_EQ(bad, 0u) << what << ": " << bad << " pixels differ (worst " << worst << ")" << first;
   if (!s.blend) {
      EXPECT_GT(written, 0u) << what << ": softpipe drew nothing";
   }
}

float
rnd(std::mt19937 &g, float a, float b)
{
   return std::uniform_real_distribution<float>(a, b)(g);
}

} // namespace

TEST(Softpipe, PerspectiveTrianglesWithDepthAndClipping)
{
   Scene s;
   s.w = 128, s.h = 96;
   s.depth = true;
   std::mt19937 g(11);
   for (int t = 0; t < 150; t++) {
      const float cx = rnd(g, -1.2f, 1.2f), cy = rnd(g, -1.2f, 1.2f), cz = rnd(g, -1.1f, 1.1f);
      for (int k = 0; k < 3; k++) {
         const float w = rnd(g, 0.4f, 3.0f);
         s.verts.insert(s.verts.end(),
                        {(cx + rnd(g, -0.4f, 0.4f)) * w, (cy + rnd(g, -0.4f, 0.4f)) * w,
                         (cz + rnd(g, -0.3f, 0.3f)) * w, w});
         s.verts.insert(s.verts.end(), {rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1), 1.0f});
      }
   }
   expect_same(s, "triangles");
}

TEST(Softpipe, Z16DepthBufferFastPath)
{
   /* overlapping triangles of every depth func on a 16-bit depth buffer:
    * softpipe steps depths in 16-bit integers per span run */
   for (GLenum func : {GL_LESS, GL_LEQUAL, GL_GREATER, GL_GEQUAL, GL_NOTEQUAL, GL_ALWAYS}) {
      Scene s;
      s.w = 128, s.h = 64;
      s.depth = true;
      s.depth_func = func;
      s.z16 = true;
      std::mt19937 g(func);
      for (int t = 0; t < 60; t++) {
         const float cx = rnd(g, -1, 1), cy = rnd(g, -1, 1), cz = rnd(g, -0.9f, 0.9f);
         for (int k = 0; k < 3; k++) {
            const float w = rnd(g, 0.5f, 2.0f);
            s.verts.insert(s.verts.end(),
                           {(cx + rnd(g, -0.5f, 0.5f)) * w, (cy + rnd(g, -0.5f, 0.5f)) * w,
                            (cz + rnd(g, -0.5f, 0.5f)) * w, w});
            s.verts.insert(s.verts.end(), {rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1), 1.0f});
         }
      }
      /* GREATER on a buffer cleared to 1 would draw nothing */
      if (func == GL_GREATER || func == GL_GEQUAL)
         s.clear_depth = 0.0f;
      expect_same(s, "z16");
   }
}

TEST(Softpipe, StripFanAndCulling)
{
   for (GLenum prim : {GL_TRIANGLE_STRIP, GL_TRIANGLE_FAN}) {
      Scene s;
      s.prim = prim;
      s.cull = true;
      std::mt19937 g(prim);
      for (int i = 0; i < 40; i++) {
         s.verts.insert(s.verts.end(), {rnd(g, -1, 1), rnd(g, -1, 1), rnd(g, -0.5f, 0.5f), 1.0f});
         s.verts.insert(s.verts.end(), {rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1), 1.0f});
      }
      expect_same(s, prim == GL_TRIANGLE_STRIP ? "strip" : "fan");
      s.flat = true;
      expect_same(s, prim == GL_TRIANGLE_STRIP ? "flat strip" : "flat fan");
   }
}

TEST(Softpipe, BlendFactorsAndFunctions)
{
   /* non-overlapping quads on a background of exact k/255 values */
   const GLenum factors[] = {GL_ZERO,
                             GL_ONE,
                             GL_SRC_COLOR,
                             GL_ONE_MINUS_SRC_COLOR,
                             GL_DST_COLOR,
                             GL_ONE_MINUS_DST_COLOR,
                             GL_SRC_ALPHA,
                             GL_ONE_MINUS_SRC_ALPHA,
                             GL_DST_ALPHA,
                             GL_ONE_MINUS_DST_ALPHA,
                             GL_CONSTANT_COLOR,
                             GL_ONE_MINUS_CONSTANT_COLOR,
                             GL_CONSTANT_ALPHA,
                             GL_ONE_MINUS_CONSTANT_ALPHA,
                             GL_SRC_ALPHA_SATURATE};
   const GLenum funcs[] = {GL_FUNC_ADD, GL_FUNC_SUBTRACT, GL_FUNC_REVERSE_SUBTRACT, GL_MIN, GL_MAX};
   std::mt19937 g(5);
   unsigned n = 0;
   for (GLenum fn : funcs) {
      for (GLenum sf : factors) {
         for (GLenum df : factors) {
            if (sf == GL_SRC_ALPHA_SATURATE && df == GL_SRC_ALPHA_SATURATE)
               continue;
            if ((n++ % 7) != 0) /* a seventh of the combinations keeps it fast */
               continue;
            Scene s;
            s.w = s.h = 16;
            for (int c = 0; c < 4; c++)
               s.clear[c] = float(int(rnd(g, 0, 255.99f))) * (1.0f / 255.0f);
            s.blend = true;
            s.bsrc = sf;
            s.bdst = df;
            s.bfunc = fn;
            for (int c = 0; c < 4; c++)
               s.blend_color[c] = rnd(g, 0, 1);
            const float q[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
            for (auto &p : q) {
               s.verts.insert(s.verts.end(), {p[0], p[1], 0, 1});
               s.verts.insert(s.verts.end(),
                              {rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1)});
            }
            expect_same(s, "blend");
         }
      }
   }
}

TEST(Softpipe, PointSpritesAndSizes)
{
   Scene s;
   s.prim = GL_POINTS;
   s.point_coord = true;
   std::mt19937 g(9);
   for (float size : {1.0f, 2.0f, 3.5f, 7.0f, 12.0f}) {
      s.point_size = size;
      s.verts.clear();
      for (int i = 0; i < 12; i++) {
         s.verts.insert(s.verts.end(), {rnd(g, -1, 1), rnd(g, -1, 1), 0, 1});
         s.verts.insert(s.verts.end(), {1, 1, 1, 1});
      }
      expect_same(s, ("points of size " + std::to_string(size)).c_str());
   }
}

TEST(Softpipe, LinesOfSeveralWidths)
{
   for (float width : {1.0f, 2.0f, 3.5f}) {
      Scene s;
      s.prim = GL_LINES;
      s.line_width = width;
      std::mt19937 g(unsigned(width * 10));
      for (int i = 0; i < 30; i++) {
         s.verts.insert(s.verts.end(), {rnd(g, -1.2f, 1.2f), rnd(g, -1.2f, 1.2f), 0, 1});
         s.verts.insert(s.verts.end(), {rnd(g, 0, 1), rnd(g, 0, 1), rnd(g, 0, 1), 1});
      }
      expect_same(s, ("lines of width " + std::to_string(width)).c_str());
   }
}

TEST(Softpipe, PolygonOffset)
{
   /* a sloped triangle, then the same triangle offset towards the viewer in
    * another colour with LESS: what shows depends on the offset */
   Scene s;
   s.depth = true;
   s.offset = true;
   s.offset_factor = -1.0f;
   s.offset_units = -2.0f;
   const float tri[3][3] = {{-0.9f, -0.8f, -0.6f}, {0.9f, -0.7f, 0.3f}, {0.0f, 0.9f, 0.8f}};
   const float other[3][3] = {{-0.7f, 0.9f, -0.2f}, {-0.8f, -0.9f, 0.5f}, {0.8f, 0.1f, 0.1f}};
   for (auto &p : tri) {
      s.first_verts.insert(s.first_verts.end(), {p[0], p[1], p[2], 1});
      s.first_verts.insert(s.first_verts.end(), {1, 0, 0.5f, 1});
   }
   for (int pass = 0; pass < 2; pass++)
      for (auto &p : pass ? other : tri) {
         s.verts.insert(s.verts.end(), {p[0], p[1], p[2], 1});
         s.verts.insert(s.verts.end(), {0, 1, float(pass), 1});
      }
   for (float units : {-2.0f, 2.0f, -300.0f}) {
      s.offset_units = units;
      expect_same(s, "polygon offset");
   }
}

TEST(Softpipe, TexturedPerspectiveQuadsWithHelperLanes)
{
   /* trilinear sampling with the LOD from 2x2-quad derivatives: quads on
    * triangle edges have helper lanes that must hold interpolated inputs */
   Scene s;
   s.w = 96, s.h = 80;
   s.textured = true;
   std::mt19937 g(21);
   for (int q = 0; q < 6; q++) {
      const float cx = rnd(g, -0.6f, 0.6f), cy = rnd(g, -0.6f, 0.6f), sz = rnd(g, 0.2f, 0.5f);
      const float w[4] = {rnd(g, 0.5f, 3), rnd(g, 0.5f, 3), rnd(g, 0.5f, 3), rnd(g, 0.5f, 3)};
      const float c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      const float rep = rnd(g, 0.5f, 6.0f);
      const int tri[6] = {0, 1, 2, 0, 2, 3};
      for (int k : tri) {
         s.verts.insert(s.verts.end(),
                        {(cx + c[k][0] * sz) * w[k], (cy + c[k][1] * sz) * w[k], 0.0f, w[k]});
         s.verts.insert(s.verts.end(), {(c[k][0] + 1) * rep + 0.1f, (c[k][1] + 1) * rep, 0, 1});
      }
   }
   expect_same(s, "textured");
}
