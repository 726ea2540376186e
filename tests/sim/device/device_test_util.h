/*
 * Test helpers for the device (vlgpu_drm.h) and the per-draw dump: build
 * real packages in buffer objects through the C API with the generated
 * VLG_<STRUCT>_pack functions (the driver's side of docs/hw.md) and shaders
 * assembled with vlg_assemble, then submit command queues.
 *
 * Nothing here calls the code under test to compute an expected value:
 * references are computed in the tests from the inputs (edge functions in
 * double precision, the GL blend equation).
 */
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cmd_test_util.h"
#include "vlg_hw.h"
#include "vlgpu_drm.h"
#include "common/bits.h"
#include "sim/func/pipe/package_writer.h"

namespace vlgpu::test {

using vlgpu::as_float;
using vlgpu::as_uint;
using sim::PackageBuilder;
using sim::PackagePut;
using sim::PackageShader;
using sim::put_block;
using sim::put_data;

/** Assemble VL-IW text (vlg_assemble); throws std::runtime_error with the
 *  assembler's message. In test_asm.cpp (vlg_isa.h and vlg_hw.h cannot
 *  share a translation unit). */
std::vector<uint32_t> assemble(const std::string &text);
/** True if vlg_decode rejects the instruction starting at @units[0]. */
bool decode_rejects(const uint32_t *units, unsigned avail);

/** A fresh directory under the build's temporary area, removed first. */
inline std::string
fresh_dir(const std::string &name)
{
   const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                   ("vlgpu-test-" + std::to_string(::getpid()) + "-" + name);
   std::filesystem::remove_all(p);
   return p.string();
}

/** A device plus bookkeeping of the buffer objects the test made. */
struct Device {
   vlg_drm_device *dev = nullptr;

   explicit Device(const char *dump_dir = nullptr, const char *dump_draws = nullptr,
                   const char *stats_dir = nullptr, const char *overrides = nullptr,
                   uint32_t mode = VLG_DRM_MODE_FUNCTIONAL)
      : Device(args(dump_dir, dump_draws, stats_dir, overrides, mode))
   {
   }
   /** A device made with @a (every field vlg_drm_create_args has);
    *  @throws std::runtime_error with the device's reason. */
   explicit Device(const vlg_drm_create_args &a)
   {
      char err[512] = "";
      const int r = vlg_drm_device_create(&a, &dev, err, sizeof(err));
      if (r != 0)
         throw std::runtime_error(std::string("vlg_drm_device_create: ") + err);
   }
   ~Device() { vlg_drm_device_destroy(dev); }
   static vlg_drm_create_args args(const char *dump_dir, const char *dump_draws,
                                   const char *stats_dir, const char *overrides, uint32_t mode)
   {
      vlg_drm_create_args a{};
      a.mode = mode;
      a.dump_dir = dump_dir;
      a.dump_draws = dump_draws;
      a.stats_dir = stats_dir;
      a.config_overrides = overrides;
      return a;
   }
   Device(const Device &) = delete;
   Device &operator=(const Device &) = delete;

   struct Bo {
      uint32_t handle = 0;
      uint64_t address = 0;
      uint8_t *ptr = nullptr;
   };
   Bo bo(uint64_t size, uint32_t align = 256)
   {
      struct vlg_drm_bo_create c {};
      c.size = size;
      c.align = align;
      const int r = vlg_drm_bo_create(dev, &c);
      if (r != 0)
         throw std::runtime_error("vlg_drm_bo_create failed: " + std::to_string(r));
      return Bo{c.handle, c.address, static_cast<uint8_t *>(vlg_drm_bo_map(dev, c.handle))};
   }
   /** A buffer object holding @data; returns its VRAM address. */
   uint64_t put(const void *data, uint64_t size, uint32_t align = 256)
   {
      Bo b = bo(size ? size : 1, align);
      std::memcpy(b.ptr, data, size);
      return b.address;
   }
   template <typename T> uint64_t put(const std::vector<T> &v)
   {
      return put(v.data(), v.size() * sizeof(T));
   }
   /** put() as the package builder's callback (sim/func/pipe/package_writer.h). */
   sim::PackagePut putter()
   {
      return [this](const void *data, uint64_t size, uint64_t align) {
         return put(data, size, uint32_t(align));
      };
   }
   /** Pointer to VRAM address @a (through the buffer object's mapping). */
   uint8_t *at(uint64_t a)
   {
      /* VRAM is one block in the simulator: map the first buffer and offset */
      if (!base_.ptr)
         base_ = bo(4, 4);
      return base_.ptr - base_.address + a;
   }

   int submit(const std::vector<uint32_t> &queue, uint64_t *fence = nullptr)
   {
      const uint64_t a = put(queue.data(), queue.size() * 4, 4);
      struct vlg_drm_submit s {};
      s.cmd_address = a;
      s.cmd_dwords = uint32_t(queue.size());
      const int r = vlg_drm_submit(dev, &s);
      if (fence)
         *fence = s.fence;
      return r;
   }

 private:
   Bo base_;
};

/* ---- commands: the shared packers (tests/sim/cmd_test_util.h) --------- */

using sim::test::cmd_copy;
using sim::test::cmd_dispatch;
using sim::test::cmd_draw;
using sim::test::cmd_dump;
using sim::test::cmd_halt;
using sim::test::cmd_sync;

/* ---- the seed 001 coloured square ---------------------------------------- */

/** VS of seed 001 table 1/2: position = matrix (columns C0..C3) x R0, the
 *  colour (R1) and texture coordinate (R2) passed through as VARYING 0, 1. */
constexpr const char *kMatrixVs = R"(
   MUL R4, R0.xxxx, C0
   MAD R4, R0.yyyy, C1, R4
   MAD R4, R0.zzzz, C2, R4
   MAD R4, R0.wwww, C3, R4
   MOV R5, R1
   MOV R6, R2
   BRC.END
)";
/** GS: the input triangle (POSITION R0/R3/R6, VARYING 0 R1/R4/R7, VARYING
 *  1 R2/R5/R8: gs_input_stride 3) emitted again as a strip of 3, position
 *  offset by C0. */
constexpr const char *kPassGs = R"(
   ADD R10, R0, C0
   MOV R11, R1
   MOV R12, R2
   MEM.EMIT
   ADD R10, R3, C0
   MOV R11, R4
   MOV R12, R5
   MEM.EMIT
   ADD R10, R6, C0
   MOV R11, R7
   MOV R12, R8
   MEM.EMIT
   BRC.END
)";
/** FS: constant colour C0 of the FS global buffer. */
constexpr const char *kConstFs = R"(
   MOV R1, C0
   BRC.END
)";
/** FS: interpolated colour (VARYING 0 in R0). */
constexpr const char *kColorFs = R"(
   MOV R1, R0
   BRC.END
)";
/** FS: texture T0 at VARYING 1 (R2) times the interpolated colour (R0). */
constexpr const char *kTexFs = R"(
   TEX R3, R2, T0
   MUL R1, R3, R0
   BRC.END
)";

/** A square drawn with the seed 001 pipeline, and what the test needs to
 *  compute its reference image. */
struct Square {
   unsigned width = 64, height = 48;
   vlg_format rt_format = VLG_FORMAT_R8G8B8A8_UNORM;
   vlg_format zs_format = VLG_FORMAT_NONE;
   double matrix[4][4]; /**< column-major: matrix[col][row], C_col of the VS */
   float color[4] = {0.2f, 0.6f, 1.0f, 1.0f}; /**< FS C0 (kConstFs) */
   const char *fs = kConstFs;
   bool blend = false;
   vlg_blend_factor rgb_src = VLG_BLEND_FACTOR_ONE, rgb_dst = VLG_BLEND_FACTOR_ZERO;
   /** A texture for kTexFs: 8x8 RGBA8 with 2 mip levels. */
   bool texture = false;
   float depth_z = 0.25f; /**< object z of every vertex */
   /** A pass-through geometry shader (kPassGs: each triangle re-emitted
    *  as a strip, position + GS C0 = gs_offset). */
   bool gs = false;
   float gs_offset[4] = {0, 0, 0, 0};

   /* filled by build() */
   VLG_SURFACE rt = {}, zs = {};
   uint64_t rt_surface_block = 0; /**< VRAM address of a surface block (for DUMP) */
   uint64_t draw_info = 0;

   Square()
   {
      /* rotate by 30 degrees, scale 0.55, translate (0.1, -0.05): no pixel
       * centre lies on an edge of the square */
      const double c = std::cos(M_PI / 6) * 0.55, s = std::sin(M_PI / 6) * 0.55;
      const double m[4][4] = {{c, s, 0, 0}, {-s, c, 0, 0}, {0, 0, 1, 0}, {0.1, -0.05, 0, 1}};
      std::memcpy(matrix, m, sizeof(m));
   }

   static constexpr double kObj[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
   static constexpr float kCol[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 0.5f}};

   /** Window position (x, y in pixels, y down) of corner @i: viewport
    *  scale (w/2, h/2), translate (w/2, h/2), as the package says. */
   void window(int i, double out[2]) const
   {
      const double p[4] = {kObj[i][0], kObj[i][1], depth_z, 1};
      double clip[4] = {0, 0, 0, 0};
      for (int r = 0; r < 4; r++)
         for (int col = 0; col < 4; col++)
            clip[r] += matrix[col][r] * p[col];
      out[0] = clip[0] / clip[3] * width / 2.0 + width / 2.0;
      out[1] = clip[1] / clip[3] * height / 2.0 + height / 2.0;
   }

   /** Write every block of the draw into buffer objects of @d (the package
    *  builder, sim/func/pipe/package_writer.h). */
   void build(Device &d)
   {
      const PackagePut put = d.putter();
      PackageBuilder p;
      p.fb.width = width;
      p.fb.height = height;
      p.fb.nr_cbufs = 1;
      VLG_SURFACE_init(&rt);
      rt.format = rt_format;
      rt.width = width;
      rt.height = height;
      rt.pitch = width * vlg_format_bytes(rt_format) + 32; /* padded rows */
      rt.address = d.bo(uint64_t(rt.pitch) * height).address;
      p.fb.cbufs[0] = rt;
      if (zs_format != VLG_FORMAT_NONE) {
         VLG_SURFACE_init(&zs);
         zs.format = zs_format;
         zs.width = width;
         zs.height = height;
         zs.pitch = width * vlg_format_bytes(zs_format);
         zs.address = d.bo(uint64_t(zs.pitch) * height).address;
         p.fb.zsbuf = zs;
      }
      rt_surface_block = put_block(put, rt);

      VLG_PIPE_STATE &ps = p.pipe;
      ps.rasterizer.half_pixel_center = true;
      ps.viewport.scale[0] = width / 2.0f;
      ps.viewport.scale[1] = height / 2.0f;
      ps.viewport.scale[2] = 0.5f;
      ps.viewport.translate[0] = width / 2.0f;
      ps.viewport.translate[1] = height / 2.0f;
      ps.viewport.translate[2] = 0.5f;
      ps.viewport.depth_far = 1.0f;
      ps.blend.rt[0].blend_enable = blend;
      ps.blend.rt[0].rgb_func = VLG_BLEND_FUNC_ADD;
      ps.blend.rt[0].rgb_src_factor = rgb_src;
      ps.blend.rt[0].rgb_dst_factor = rgb_dst;
      ps.blend.rt[0].alpha_func = VLG_BLEND_FUNC_ADD;
      ps.blend.rt[0].alpha_src_factor = VLG_BLEND_FACTOR_ONE;
      ps.blend.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_ZERO;
      if (zs_format != VLG_FORMAT_NONE) {
         ps.depth_stencil_alpha.depth_enable = true;
         ps.depth_stencil_alpha.depth_writemask = true;
         ps.depth_stencil_alpha.depth_func = VLG_COMPARE_FUNC_LESS;
      }

      /* vertices: position vec4, colour vec4, texcoord vec4 */
      std::vector<float> v;
      for (int i = 0; i < 4; i++) {
         v.insert(v.end(), {float(kObj[i][0]), float(kObj[i][1]), depth_z, 1.0f});
         v.insert(v.end(), kCol[i], kCol[i] + 4);
         v.insert(v.end(), {float(kObj[i][0] * 0.5 + 0.5), float(kObj[i][1] * 0.5 + 0.5), 0, 1});
      }
      VLG_VERTEX_BUFFER vb;
      VLG_VERTEX_BUFFER_init(&vb);
      vb.address = put_data(put, v);
      vb.size = uint32_t(v.size() * 4);
      vb.stride = 48;
      p.buffers.push_back(vb);
      p.elements.resize(3);
      for (unsigned i = 0; i < 3; i++) {
         VLG_VERTEX_ELEMENT_init(&p.elements[i]);
         p.elements[i].format = VLG_FORMAT_R32G32B32A32_FLOAT;
         p.elements[i].src_offset = 16 * i;
      }
      const std::vector<uint16_t> idx = {0, 1, 2, 0, 2, 3};
      p.draw.index_size = VLG_INDEX_SIZE_U16;
      p.draw.count = 6;
      p.draw.index_buffer = put_data(put, idx);
      p.draw.index_buffer_size = 12;

      /* VS */
      p.vs = PackageShader(VLG_SHADER_STAGE_VERTEX, 8);
      p.vs.code = assemble(kMatrixVs);
      for (int col = 0; col < 4; col++)
         for (int r = 0; r < 4; r++)
            p.vs.consts.push_back(float(matrix[col][r]));
      for (unsigned i = 0; i < 3; i++)
         p.vs.input(i, VLG_INPUT_SEMANTIC_ATTRIBUTE, i);
      p.vs.output(4, VLG_OUTPUT_SEMANTIC_POSITION);
      p.vs.output(5, VLG_OUTPUT_SEMANTIC_VARYING, 0);
      p.vs.output(6, VLG_OUTPUT_SEMANTIC_VARYING, 1);

      /* FS */
      p.fs = PackageShader(VLG_SHADER_STAGE_FRAGMENT, 4);
      fs_code = p.fs.code = assemble(fs);
      p.fs.consts.assign(color, color + 4);
      p.fs.input(0, VLG_INPUT_SEMANTIC_VARYING, 0);
      p.fs.input(2, VLG_INPUT_SEMANTIC_VARYING, 1);
      p.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      p.fs.st.uses_derivatives = texture;
      p.fs.st.num_samplers = texture ? 1 : 0;

      if (gs) {
         p.use_gs = true;
         p.gs.code = assemble(kPassGs);
         p.gs.consts.assign(gs_offset, gs_offset + 4);
         p.gs.input(0, VLG_INPUT_SEMANTIC_POSITION, 0);
         p.gs.input(1, VLG_INPUT_SEMANTIC_VARYING, 0);
         p.gs.input(2, VLG_INPUT_SEMANTIC_VARYING, 1);
         p.gs.output(10, VLG_OUTPUT_SEMANTIC_POSITION);
         p.gs.output(11, VLG_OUTPUT_SEMANTIC_VARYING, 0);
         p.gs.output(12, VLG_OUTPUT_SEMANTIC_VARYING, 1);
         p.gs.st.gs_vertices_in = 3;
         p.gs.st.gs_input_stride = 3;
         p.gs.st.gs_output_prim = VLG_PRIM_TRIANGLE_STRIP;
         p.gs.st.gs_max_vertices = 3;
      }

      if (texture) {
         /* 8x8 RGBA8 texture, 2 levels: level 0 a checker of two colours, level 1 grey */
         const unsigned tw = 8;
         std::vector<uint8_t> texels(tw * tw * 4 + 4 * 4 * 4);
         for (unsigned y = 0; y < tw; y++)
            for (unsigned x = 0; x < tw; x++) {
               uint8_t *px = &texels[(y * tw + x) * 4];
               const bool on = (x / 2 + y / 2) % 2;
               px[0] = on ? 250 : 30, px[1] = on ? 120 : 200, px[2] = uint8_t(x * 30), px[3] = 255;
            }
         for (unsigned i = tw * tw * 4; i < texels.size(); i++)
            texels[i] = 128;
         VLG_TEXTURE t;
         VLG_TEXTURE_init(&t);
         t.target = VLG_TEXTURE_TARGET_2D;
         t.format = VLG_FORMAT_R8G8B8A8_UNORM;
         t.width = tw;
         t.height = tw;
         t.num_levels = 2;
         t.last_level = 0;
         t.address = put_data(put, texels);
         t.level[0] = {0, tw * 4, tw * tw * 4};
         t.level[1] = {tw * tw * 4, 16, 64};
         VLG_SAMPLER smp;
         VLG_SAMPLER_init(&smp);
         smp.wrap_s = VLG_TEX_WRAP_REPEAT;
         smp.wrap_t = VLG_TEX_WRAP_REPEAT;
         p.draw.fs_textures = put_block(put, t);
         p.draw.fs_samplers = put_block(put, smp);
         p.draw.fs_num_textures = 1;
         p.draw.fs_num_samplers = 1;
      }
      draw_info = p.write(put);
   }

   /** Fill the render target with @rgba8 (R8G8B8A8 bytes). */
   void fill_rt(Device &d, const uint8_t rgba[4]) const
   {
      for (unsigned y = 0; y < height; y++)
         for (unsigned x = 0; x < width; x++)
            std::memcpy(d.at(rt.address + uint64_t(y) * rt.pitch + x * 4), rgba, 4);
   }
   /** Fill a Z16/Z24 depth buffer with the all-ones value (depth 1.0). */
   void fill_zs(Device &d) const
   {
      for (unsigned y = 0; y < height; y++)
         std::memset(d.at(zs.address + uint64_t(y) * zs.pitch), 0xff, zs.pitch);
   }
   const uint8_t *pixel(Device &d, unsigned x, unsigned y) const
   {
      return d.at(rt.address + uint64_t(y) * rt.pitch + x * vlg_format_bytes(rt.format));
   }

   /** Coverage of pixel (x, y) by the square: 1 inside, 0 outside, -1 when
    *  the centre is within 1e-3 pixels of an edge (fp32 may go either way). */
   int covered(unsigned x, unsigned y) const
   {
      double w[4][2];
      for (int i = 0; i < 4; i++)
         window(i, w[i]);
      const double cx = x + 0.5, cy = y + 0.5;
      /* convex quad: inside if on the inner side of all four edges; the
       * edge functions are normalised to pixels */
      const double area =
         (w[1][0] - w[0][0]) * (w[2][1] - w[0][1]) - (w[2][0] - w[0][0]) * (w[1][1] - w[0][1]);
      double minv = 1e300;
      for (int i = 0; i < 4; i++) {
         const double *a = w[i], *b = w[(i + 1) % 4];
         const double len = std::hypot(b[0] - a[0], b[1] - a[1]);
         double e = ((b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0])) / len;
         if (area < 0)
            e = -e;
         minv = std::min(minv, e);
      }
      if (std::fabs(minv) < 1e-3)
         return -1;
      return minv > 0 ? 1 : 0;
   }

   std::vector<uint32_t> fs_code;
};

#if defined(__SANITIZE_ADDRESS__)
#define VLG_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VLG_TEST_ASAN 1
#endif
#endif
#ifndef VLG_TEST_ASAN
#define VLG_TEST_ASAN 0
#endif

/** Bytes of address space the process maps now (/proc/self/statm). */
inline uint64_t
address_space_bytes()
{
   std::ifstream f("/proc/self/statm");
   uint64_t pages = 0;
   f >> pages;
   return pages * uint64_t(sysconf(_SC_PAGESIZE));
}

/**
 * @fn() run in a child process whose address space may grow by at most
 * @headroom bytes (RLIMIT_AS); returns its string, "bad_alloc" when it asked
 * for more, "exception: WHAT" for another exception and "crash (signal N)"
 * when it crashed; the parent never dies. Under AddressSanitizer, which
 * reserves terabytes of shadow memory, the limit is not set (ASan's own
 * allocation limits apply) and only the result is checked: GCC says so with
 * __SANITIZE_ADDRESS__, clang 14 (build/sanitize) only with
 * __has_feature(address_sanitizer).
 */
template <typename Fn>
std::string
bounded_child(uint64_t headroom, Fn fn)
{
   int fds[2];
   if (pipe(fds) != 0)
      return "pipe failed";
   std::fflush(nullptr);
   const pid_t pid = fork();
   if (pid == 0) {
      close(fds[0]);
#if !VLG_TEST_ASAN
      const rlimit rl{address_space_bytes() + headroom, RLIM_INFINITY};
      setrlimit(RLIMIT_AS, &rl);
#endif
      std::string msg;
      try {
         msg = fn();
      } catch (const std::bad_alloc &) {
         msg = "bad_alloc";
      } catch (const std::exception &e) {
         msg = std::string("exception: ") + e.what();
      }
      const ssize_t n = write(fds[1], msg.data(), msg.size());
      _exit(n == ssize_t(msg.size()) ? 0 : 1);
   }
   close(fds[1]);
   std::string out;
   char buf[4096];
   ssize_t n;
   while ((n = read(fds[0], buf, sizeof(buf))) > 0)
      out.append(buf, size_t(n));
   close(fds[0]);
   int st = 0;
   waitpid(pid, &st, 0);
   if (WIFSIGNALED(st))
      return "crash (signal " + std::to_string(WTERMSIG(st)) + ")";
   return out;
}

} // namespace vlgpu::test
