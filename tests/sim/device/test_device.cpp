/*
 * The device through its C API (vlgpu_drm.h), end to end: creation errors,
 * parameters, buffer objects, displays, command queues with DRAW / SYNC /
 * DUMP / HALT on the functional GPU, faults that stop one draw or one queue
 * but never the host, statistics. Packages are built in buffer objects with
 * the VLG_*_pack functions and assembled shaders (device_test_util.h);
 * expected pixels come from edge functions in double precision.
 */
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device_test_util.h"

using namespace vlgpu::test;

namespace {

bool
contains(const std::string &s, const std::string &needle)
{
   return s.find(needle) != std::string::npos;
}

/** The unorm8 value GL stores for float @f (f in [0, 1], no ties here). */
uint8_t
u8(float f)
{
   return uint8_t(std::lround(double(f) * 255.0));
}

/** Check the square's pixels against the reference: @inside where the
 *  square covers the pixel centre, @outside elsewhere. @get returns the
 *  RGBA8 pixel (x, y). Returns the number of covered pixels. */
template <typename Get>
unsigned
check_square(const Square &sq, Get &&get, const uint8_t inside[4], const uint8_t outside[4])
{
   unsigned covered = 0, ambiguous = 0, bad = 0;
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++) {
         const int c = sq.covered(x, y);
         if (c < 0) {
            ambiguous++;
            continue;
         }
         covered += c;
         const uint8_t *want = c ? inside : outside;
         const uint8_t *got = get(x, y);
         if (std::memcmp(got, want, 4) != 0 && bad++ < 5)
            ADD_FAILURE() << "pixel (" << x << ", " << y << ") " << (c ? "inside" : "outside")
                          << ": got " << int(got[0]) << "," << int(got[1]) << "," << int(got[2])
                          << "," << int(got[3]) << " want " << int(want[0]) << "," << int(want[1])
                          << "," << int(want[2]) << "," << int(want[3]);
      }
   EXPECT_EQ(ambiguous, 0u) << "the test geometry puts pixel centres on edges";
   EXPECT_GT(covered, 200u);
   return covered;
}

} // namespace

TEST(Device, CreateErrorsAreReadable)
{
   vlg_drm_device *dev = reinterpret_cast<vlg_drm_device *>(1);
   char err[512];
   vlg_drm_create_args a{};
   a.mode = VLG_DRM_MODE_FUNCTIONAL;

   a.config_overrides = "gpcs=2,l2.sise_bytes=4K";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_EQ(dev, nullptr);
   EXPECT_TRUE(contains(err, "l2.sise_bytes")) << err;
   EXPECT_TRUE(contains(err, "did you mean 'l2.size_bytes'")) << err;

   a.config_overrides = nullptr;
   a.config_path = "/nonexistent/gpu.json";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_TRUE(contains(err, "/nonexistent/gpu.json")) << err;

   a.config_path = nullptr;
   a.dump_draws = "1,x";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_TRUE(contains(err, "dump_draws '1,x': character 3")) << err;

   a.dump_draws = nullptr;
   a.config_overrides = "thread_group_width=128";
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_TRUE(contains(err, "thread_group_width = 128")) << err;

   a.config_overrides = nullptr;
   a.mode = 7;
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_TRUE(contains(err, "unknown mode 7")) << err;

   /* cycle mode: the cycle-mode GPU is not in this build yet */
   a.mode = VLG_DRM_MODE_CYCLE;
   const int r = vlg_drm_device_create(&a, &dev, err, sizeof(err));
   if (r == 0) {
      vlg_drm_device_destroy(dev);
   } else {
      EXPECT_EQ(r, -ENOTSUP);
      EXPECT_TRUE(contains(err, "cycle mode is not available")) << err;
      EXPECT_TRUE(contains(err, "VLGPU_DEBUG=functional")) << err;
   }

   EXPECT_EQ(vlg_drm_device_create(nullptr, &dev, err, sizeof(err)), -EINVAL);
   /* a file where the dump directory should be */
   const std::string f = fresh_dir("notadir");
   std::ofstream(f) << "x";
   a.mode = VLG_DRM_MODE_FUNCTIONAL;
   const std::string sub = f + "/dump";
   a.dump_dir = sub.c_str();
   EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), -EINVAL);
   EXPECT_TRUE(contains(err, "dump_dir")) << err;
   std::filesystem::remove(f);
}

TEST(Device, Parameters)
{
   Device d(nullptr, nullptr, nullptr,
            "gpcs=3,spcs_per_gpc=5,thread_group_width=32,"
            "vram.size_bytes=64M");
   uint64_t v = 0;
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_VRAM_SIZE, &v), 0);
   EXPECT_EQ(v, 64u << 20);
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_NUM_GPCS, &v), 0);
   EXPECT_EQ(v, 3u);
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_SPCS_PER_GPC, &v), 0);
   EXPECT_EQ(v, 5u);
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_THREADGROUP_WIDTH, &v), 0);
   EXPECT_EQ(v, 32u);
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_MAX_TEXTURE_SIZE, &v), 0);
   EXPECT_EQ(v, 16384u); /* 15 mip levels */
   ASSERT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_MODE, &v), 0);
   EXPECT_EQ(v, uint64_t(VLG_DRM_MODE_FUNCTIONAL));
   EXPECT_EQ(vlg_drm_get_param(d.dev, 999, &v), -EINVAL);
   EXPECT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_MODE, nullptr), -EINVAL);
}

TEST(Device, BufferObjects)
{
   Device d(nullptr, nullptr, nullptr, "vram.size_bytes=1M");
   struct vlg_drm_bo_create c {};
   c.size = 100;
   ASSERT_EQ(vlg_drm_bo_create(d.dev, &c), 0);
   EXPECT_NE(c.handle, 0u);
   EXPECT_EQ(c.address % 256, 0u); /* align 0 = 256 */
   EXPECT_GE(c.address, 4096u);    /* the first page is never handed out */
   uint8_t *p = static_cast<uint8_t *>(vlg_drm_bo_map(d.dev, c.handle));
   ASSERT_NE(p, nullptr);
   for (int i = 0; i < 100; i++)
      EXPECT_EQ(p[i], 0) << "new buffers are zero-filled";
   std::memset(p, 0xab, 100);

   struct vlg_drm_bo_create c2 {};
   c2.size = 10;
   c2.align = 65536;
   ASSERT_EQ(vlg_drm_bo_create(d.dev, &c2), 0);
   EXPECT_EQ(c2.address % 65536, 0u);
   EXPECT_NE(c2.handle, c.handle);
   /* both mappings point into one VRAM */
   EXPECT_EQ(static_cast<uint8_t *>(vlg_drm_bo_map(d.dev, c2.handle)) - p,
             int64_t(c2.address - c.address));

   /* free, then the same place comes back zeroed */
   ASSERT_EQ(vlg_drm_bo_free(d.dev, c.handle), 0);
   EXPECT_EQ(vlg_drm_bo_map(d.dev, c.handle), nullptr);
   EXPECT_EQ(vlg_drm_bo_free(d.dev, c.handle), -ENOENT); /* double free */
   struct vlg_drm_bo_create c3 {};
   c3.size = 100;
   ASSERT_EQ(vlg_drm_bo_create(d.dev, &c3), 0);
   EXPECT_EQ(c3.address, c.address);
   EXPECT_EQ(static_cast<uint8_t *>(vlg_drm_bo_map(d.dev, c3.handle))[5], 0);

   /* bad arguments */
   struct vlg_drm_bo_create bad {};
   EXPECT_EQ(vlg_drm_bo_create(d.dev, &bad), -EINVAL); /* size 0 */
   bad.size = 16;
   bad.align = 48;
   EXPECT_EQ(vlg_drm_bo_create(d.dev, &bad), -EINVAL); /* not a power of two */
   EXPECT_EQ(vlg_drm_bo_free(d.dev, 12345), -ENOENT);
   EXPECT_EQ(vlg_drm_bo_map(d.dev, 12345), nullptr);

   /* exhaustion: 1 MiB of VRAM, 4 KiB reserved */
   struct vlg_drm_bo_create big {};
   big.size = 1 << 20;
   EXPECT_EQ(vlg_drm_bo_create(d.dev, &big), -ENOMEM);
   std::vector<uint32_t> handles;
   for (;;) {
      struct vlg_drm_bo_create b {};
      b.size = 64 << 10;
      const int r = vlg_drm_bo_create(d.dev, &b);
      if (r != 0) {
         EXPECT_EQ(r, -ENOMEM);
         break;
      }
      handles.push_back(b.handle);
      ASSERT_LT(handles.size(), 100u);
   }
   EXPECT_GE(handles.size(), 14u);
   /* freeing one makes room again */
   ASSERT_EQ(vlg_drm_bo_free(d.dev, handles.back()), 0);
   struct vlg_drm_bo_create again {};
   again.size = 64 << 10;
   EXPECT_EQ(vlg_drm_bo_create(d.dev, &again), 0);
}

/* vlg_drm_bo_set_label (vlgpu_drm.h): its errors; what the label does is
 * ShaderProfile.ShadersAreNamedByTheLabelOfTheirCode's. */
TEST(Device, BufferLabels)
{
   Device d(nullptr, nullptr, nullptr, "vram.size_bytes=1M");
   struct vlg_drm_bo_create c {};
   c.size = 64;
   ASSERT_EQ(vlg_drm_bo_create(d.dev, &c), 0);
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, c.handle, "FS 1 GLSL3"), 0);
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, c.handle, std::string(1000, 'x').c_str()), 0);
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, c.handle, nullptr), 0); /* removes it */
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, c.handle + 1000, "x"), -ENOENT);
   EXPECT_EQ(vlg_drm_bo_set_label(nullptr, c.handle, "x"), -EINVAL);
   ASSERT_EQ(vlg_drm_bo_free(d.dev, c.handle), 0);
   EXPECT_EQ(vlg_drm_bo_set_label(d.dev, c.handle, "x"), -ENOENT); /* freed */
}

TEST(Device, Displays)
{
   Device d;
   std::vector<uint8_t> mem(16 * 16 * 4);
   vlg_drm_display disp{mem.data(), 64, 16, 16, VLG_FORMAT_R8G8B8A8_UNORM};
   EXPECT_EQ(vlg_drm_display_set(d.dev, 0, &disp), -EINVAL); /* id 0 */
   EXPECT_EQ(vlg_drm_display_set(d.dev, 1, nullptr), -EINVAL);
   disp.stride = 32;
   EXPECT_EQ(vlg_drm_display_set(d.dev, 1, &disp), -EINVAL); /* stride < width * 4 */
   disp.stride = 64;
   disp.format = 250;
   EXPECT_EQ(vlg_drm_display_set(d.dev, 1, &disp), -EINVAL); /* unknown format */
   disp.format = VLG_FORMAT_R8G8B8A8_UNORM;
   EXPECT_EQ(vlg_drm_display_set(d.dev, 1, &disp), 0);
   EXPECT_EQ(vlg_drm_display_set(d.dev, 1, &disp), 0); /* re-register */
   EXPECT_EQ(vlg_drm_display_remove(d.dev, 1), 0);
   EXPECT_EQ(vlg_drm_display_remove(d.dev, 1), -ENOENT);
}

/* The seed 001 coloured square: DRAW + SYNC + DUMP + HALT, the fence in
 * VRAM and the pixels on the display against the edge-function reference. */
TEST(Device, Seed001SquareDrawSyncDumpHalt)
{
   Device d;
   Square sq;
   sq.build(d);
   const uint8_t bg[4] = {10, 20, 30, 40};
   sq.fill_rt(d, bg);
   const uint64_t fence_addr = d.bo(16).address;

   const unsigned dw = sq.width + 3, dh = sq.height + 2;
   std::vector<uint8_t> screen(size_t(dw * 4 + 12) * dh, 0x5a);
   vlg_drm_display disp{screen.data(), dw * 4 + 12, dw, dh, VLG_FORMAT_R8G8B8A8_UNORM};
   ASSERT_EQ(vlg_drm_display_set(d.dev, 3, &disp), 0);

   std::vector<uint32_t> q;
   cmd_draw(q, sq.draw_info);
   cmd_sync(q, fence_addr, 0xcafe0001u);
   cmd_dump(q, sq.rt_surface_block, 3, 0, 0, sq.width, sq.height);
   cmd_halt(q);
   uint64_t fence = 0;
   ASSERT_EQ(d.submit(q, &fence), 0) << vlg_drm_get_fault(d.dev);
   EXPECT_EQ(std::string(vlg_drm_get_fault(d.dev)), "");
   EXPECT_GT(fence, 0u);
   EXPECT_EQ(vlg_drm_wait(d.dev, fence, 0), 0);

   uint32_t fv;
   std::memcpy(&fv, d.at(fence_addr), 4);
   EXPECT_EQ(fv, 0xcafe0001u);

   const uint8_t in[4] = {u8(0.2f), u8(0.6f), u8(1.0f), u8(1.0f)};
   const unsigned n = check_square(
      sq, [&](unsigned x, unsigned y) { return &screen[size_t(y) * disp.stride + x * 4]; }, in, bg);
   /* the display outside the copied rectangle is untouched */
   for (unsigned y = 0; y < dh; y++)
      for (unsigned x = (y < sq.height ? sq.width : 0); x < dw; x++)
         ASSERT_EQ(screen[size_t(y) * disp.stride + x * 4], 0x5a) << x << "," << y;

   /* statistics of the submit */
   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   EXPECT_EQ(j["mode"], "functional");
   EXPECT_EQ(j["halted"], true);
   EXPECT_EQ(j["commands"], 4);
   ASSERT_EQ(j["draws"].size(), 1u);
   const auto &dj = j["draws"][0];
   EXPECT_EQ(dj["draw"], 0);
   EXPECT_EQ(dj["cycles"], 0);
   EXPECT_EQ(dj["counters"]["vs"]["invocations"], 4);
   EXPECT_EQ(dj["counters"]["ge"]["primitives"], 2);
   EXPECT_EQ(dj["counters"]["omu"]["fragments_passed"], n);
   EXPECT_TRUE(dj["fault"].is_null());
}

/* Edges through pixel centres: a rectangle with window x in [10.5, 20.5] and
 * y in [5.5, 15.5] (exact binary fractions all the way through the VS and the
 * viewport), drawn as two triangles whose shared diagonal also passes
 * through pixel centres. Reference: the pipeline's fill convention
 * (docs/simulator-pipeline.md, softpipe's): a centre on a top or right edge
 * is in, on a bottom or left edge out; every centre on the diagonal is
 * covered exactly once. */
TEST(Device, EdgesThroughPixelCentresFollowTheFillConvention)
{
   Device d;
   Square sq;
   sq.width = 64;
   sq.height = 64;
   const double m[4][4] = {{0.15625, 0, 0, 0},
                           {0, 0.15625, 0, 0},
                           {0, 0, 1, 0},
                           {-0.515625, -0.671875, 0, 1}};
   std::memcpy(sq.matrix, m, sizeof(m));
   double w0[2], w2[2];
   sq.window(0, w0);
   sq.window(2, w2);
   ASSERT_EQ(w0[0], 10.5);
   ASSERT_EQ(w0[1], 5.5);
   ASSERT_EQ(w2[0], 20.5);
   ASSERT_EQ(w2[1], 15.5);
   sq.build(d);
   const uint8_t bg[4] = {1, 2, 3, 4};
   sq.fill_rt(d, bg);
   std::vector<uint32_t> q;
   cmd_draw(q, sq.draw_info);
   ASSERT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
   const uint8_t in[4] = {u8(0.2f), u8(0.6f), u8(1.0f), u8(1.0f)};
   unsigned n = 0;
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++) {
         const double cx = x + 0.5, cy = y + 0.5;
         /* left edge x = 10.5 out, right edge x = 20.5 in; top y = 5.5 in, bottom y = 15.5 out */
         const bool inside = cx > w0[0] && cx <= w2[0] && cy >= w0[1] && cy < w2[1];
         n += inside;
         ASSERT_EQ(std::memcmp(sq.pixel(d, x, y), inside ? in : bg, 4), 0)
            << "(" << x << ", " << y << ") " << (inside ? "inside" : "outside");
      }
   EXPECT_EQ(n, 100u);
   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   EXPECT_EQ(j["draws"][0]["counters"]["omu"]["fragments_passed"], 100)
      << "a centre on the shared diagonal must be covered exactly once";
}

TEST(Device, FencesAreMonotonic)
{
   Device d;
   const uint64_t fa = d.bo(4).address;
   uint64_t prev = 0;
   for (uint32_t i = 1; i <= 5; i++) {
      std::vector<uint32_t> q;
      cmd_sync(q, fa, i * 7);
      uint64_t f = 0;
      ASSERT_EQ(d.submit(q, &f), 0); /* no HALT: the end of the queue ends it */
      EXPECT_GT(f, prev);
      prev = f;
      uint32_t v;
      std::memcpy(&v, d.at(fa), 4);
      EXPECT_EQ(v, i * 7);
   }
   EXPECT_EQ(vlg_drm_wait(d.dev, prev, 1000), 0);
   EXPECT_EQ(vlg_drm_wait(d.dev, prev + 1, 1000), -EINVAL); /* never issued */
   EXPECT_EQ(vlg_drm_wait(d.dev, 0, 1000), -EINVAL);
}

TEST(Device, DumpClipsToSurfaceAndDisplay)
{
   Device d;
   Square sq;
   sq.width = 20;
   sq.height = 10;
   sq.build(d);
   /* a gradient in the render target */
   for (unsigned y = 0; y < sq.height; y++)
      for (unsigned x = 0; x < sq.width; x++) {
         uint8_t *p = d.at(sq.rt.address + uint64_t(y) * sq.rt.pitch + x * 4);
         p[0] = uint8_t(x), p[1] = uint8_t(y), p[2] = 7, p[3] = 9;
      }
   /* display 12 x 16: narrower and taller than the surface */
   std::vector<uint8_t> screen(12 * 4 * 16, 0xee);
   vlg_drm_display disp{screen.data(), 48, 12, 16, VLG_FORMAT_R8G8B8A8_UNORM};
   ASSERT_EQ(vlg_drm_display_set(d.dev, 1, &disp), 0);
   std::vector<uint32_t> q;
   cmd_dump(q, sq.rt_surface_block, 1, 5, 2, 100, 100); /* clipped to x < 12, y < 10 */
   ASSERT_EQ(d.submit(q), 0) << vlg_drm_get_fault(d.dev);
   for (unsigned y = 0; y < 16; y++)
      for (unsigned x = 0; x < 12; x++) {
         const uint8_t *p = &screen[y * 48 + x * 4];
         if (x >= 5 && y >= 2 && y < 10) {
            EXPECT_EQ(p[0], x);
            EXPECT_EQ(p[1], y);
            EXPECT_EQ(p[2], 7);
         } else {
            EXPECT_EQ(p[0], 0xee) << x << "," << y;
         }
      }
}

TEST(Device, DumpFaultsSkipOnlyThatCommand)
{
   Device d;
   Square sq;
   sq.build(d);
   const uint64_t fa = d.bo(4).address;
   std::vector<uint8_t> screen(sq.width * sq.height * 2);
   vlg_drm_display disp{screen.data(), sq.width * 2, sq.width, sq.height, VLG_FORMAT_B5G6R5_UNORM};
   ASSERT_EQ(vlg_drm_display_set(d.dev, 2, &disp), 0);
   std::vector<uint32_t> q;
   cmd_dump(q, sq.rt_surface_block, 7, 0, 0, 4, 4); /* unknown display */
   cmd_dump(q, sq.rt_surface_block, 2, 0, 0, 4, 4); /* format mismatch */
   cmd_dump(q, 0xfffffff0ull, 2, 0, 0, 4, 4);       /* surface outside VRAM */
   cmd_sync(q, fa, 77);                             /* still runs */
   cmd_halt(q);
   EXPECT_EQ(d.submit(q), -EIO);
   const std::string f = vlg_drm_get_fault(d.dev);
   EXPECT_TRUE(contains(f, "submit 1: 3 faults")) << f;
   EXPECT_TRUE(contains(f, "GPU fault in CP: DUMP to unknown display 7")) << f;
   EXPECT_TRUE(contains(f, "DUMP format mismatch")) << f;
   EXPECT_TRUE(contains(f, "R8G8B8A8_UNORM but display 2 is B5G6R5_UNORM")) << f;
   EXPECT_TRUE(contains(f, "command at dword offset 12 of the queue")) << f;
   EXPECT_TRUE(contains(f, "outside VRAM")) << f;
   uint32_t v;
   std::memcpy(&v, d.at(fa), 4);
   EXPECT_EQ(v, 77u);
}

/* Malformed command queues: -EIO with a readable fault naming the dword
 * offset, the rest of that queue skipped, and the next submit works. */
TEST(Device, MalformedQueuesFaultAndTheNextSubmitWorks)
{
   Device d;
   const uint64_t fa = d.bo(4).address;
   struct Case {
      const char *name;
      std::vector<uint32_t> queue;
      const char *needle;
   };
   std::vector<uint32_t> good;
   cmd_sync(good, fa, 1);
   std::vector<Case> cases;
   {
      std::vector<uint32_t> q = good;
      q.push_back(0); /* zeroed memory */
      cases.push_back({"opcode 0", q, "malformed command at dword offset 4"});
   }
   {
      std::vector<uint32_t> q = {0x00010009u}; /* opcode 9, length 1 */
      cases.push_back({"unknown opcode", q, "opcode 9 is not a command"});
   }
   {
      std::vector<uint32_t> q = good;
      q.resize(3); /* SYNC cut short */
      cases.push_back({"truncated", q, "truncated command: SYNC of length 4"});
   }
   {
      std::vector<uint32_t> q = {0x00050004u}; /* HALT with length 5 */
      q.resize(5);
      cases.push_back({"wrong length", q, "HALT with length 5 dwords (a HALT is 1 dwords)"});
   }
   {
      std::vector<uint32_t> q = {0x00010104u}; /* HALT with a reserved header bit */
      cases.push_back({"reserved bits", q, "reserved bits 0x00000100 are set"});
   }
   for (const Case &c : cases) {
      SCOPED_TRACE(c.name);
      uint32_t zero = 0;
      std::memcpy(d.at(fa), &zero, 4);
      EXPECT_EQ(d.submit(c.queue), -EIO);
      const std::string f = vlg_drm_get_fault(d.dev);
      EXPECT_TRUE(contains(f, "GPU fault in CP: malformed command at dword offset")) << f;
      EXPECT_TRUE(contains(f, c.needle)) << f;

      /* the device is fine: the next queue runs */
      std::vector<uint32_t> q;
      cmd_sync(q, fa, 0x1234);
      cmd_halt(q);
      EXPECT_EQ(d.submit(q), 0);
      EXPECT_EQ(std::string(vlg_drm_get_fault(d.dev)), "");
      uint32_t v;
      std::memcpy(&v, d.at(fa), 4);
      EXPECT_EQ(v, 0x1234u);
   }
   /* commands after HALT are not read */
   std::vector<uint32_t> q;
   cmd_halt(q);
   q.push_back(0);
   EXPECT_EQ(d.submit(q), 0);

   /* bad submit arguments are -EINVAL, not faults */
   struct vlg_drm_submit s {};
   EXPECT_EQ(vlg_drm_submit(d.dev, &s), -EINVAL); /* 0 dwords */
   s.cmd_address = 2;
   s.cmd_dwords = 1;
   EXPECT_EQ(vlg_drm_submit(d.dev, &s), -EINVAL); /* misaligned */
   s.cmd_address = 1ull << 40;
   EXPECT_EQ(vlg_drm_submit(d.dev, &s), -EINVAL); /* outside VRAM */
   s.cmd_address = fa;
   s.flags = 1;
   EXPECT_EQ(vlg_drm_submit(d.dev, &s), -EINVAL); /* flags must be 0 */
}

/* An illegal instruction word in the FS of draw 1 of 3: draws 0 and 2 still
 * render, the fault report names the module, draw, PC and disassembly. */
TEST(Device, GpuFaultInDrawOneOfThree)
{
   Device d;
   Square sq[3];
   const float colors[3][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
   for (int i = 0; i < 3; i++) {
      std::memcpy(sq[i].color, colors[i], 16);
      sq[i].build(d);
   }
   /* corrupt the FS of draw 1: its first unit becomes an illegal word */
   {
      VLG_DRAW_INFO di;
      VLG_DRAW_INFO_unpack(reinterpret_cast<const uint32_t *>(d.at(sq[1].draw_info)), &di);
      VLG_SHADER_STATE fs;
      VLG_SHADER_STATE_unpack(reinterpret_cast<const uint32_t *>(d.at(di.fs)), &fs);
      const uint32_t bad = 0xffffffffu;
      ASSERT_TRUE(decode_rejects(&bad, 1));
      std::memcpy(d.at(fs.code), &bad, 4);
   }
   const uint8_t bg[4] = {0, 0, 0, 0};
   for (auto &s : sq)
      s.fill_rt(d, bg);
   std::vector<uint32_t> q;
   for (auto &s : sq)
      cmd_draw(q, s.draw_info);
   cmd_halt(q);
   EXPECT_EQ(d.submit(q), -EIO);
   const std::string f = vlg_drm_get_fault(d.dev);
   EXPECT_TRUE(contains(f, "submit 1: 1 fault")) << f;
   EXPECT_TRUE(contains(f, "draw 1 (DRAW command at dword offset 3 of the queue")) << f;
   EXPECT_TRUE(contains(f, "GPU fault in SPC")) << f;
   EXPECT_TRUE(contains(f, "PC 0")) << f;
   EXPECT_TRUE(contains(f, "illegal")) << f;
   EXPECT_TRUE(contains(f, "0xFFFFFFFF")) << f; /* the units in hex */
   EXPECT_TRUE(contains(f, "thread group")) << f;

   const uint8_t red[4] = {255, 0, 0, 255}, blue[4] = {0, 0, 255, 255};
   check_square(
      sq[0], [&](unsigned x, unsigned y) { return sq[0].pixel(d, x, y); }, red, bg);
   check_square(
      sq[2], [&](unsigned x, unsigned y) { return sq[2].pixel(d, x, y); }, blue, bg);
   /* draw 1 wrote nothing */
   for (unsigned y = 0; y < sq[1].height; y++)
      for (unsigned x = 0; x < sq[1].width; x++)
         ASSERT_EQ(std::memcmp(sq[1].pixel(d, x, y), bg, 4), 0);

   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   ASSERT_EQ(j["draws"].size(), 3u);
   EXPECT_TRUE(j["draws"][0]["fault"].is_null());
   EXPECT_EQ(j["draws"][1]["fault"]["module"], "SPC");
   EXPECT_TRUE(j["draws"][2]["fault"].is_null());
   ASSERT_EQ(j["faults"].size(), 1u);
   EXPECT_EQ(j["faults"][0]["draw"], 1);

   /* draws keep counting over submits */
   std::vector<uint32_t> q2;
   cmd_draw(q2, sq[0].draw_info);
   ASSERT_EQ(d.submit(q2), 0);
   const nlohmann::json j2 = nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   EXPECT_EQ(j2["draws"][0]["draw"], 3);
   EXPECT_EQ(j2["submit"], 2);
}

TEST(Device, StatsDirHasConfigAndOneFilePerSubmit)
{
   const std::string dir = fresh_dir("stats");
   {
      Device d(nullptr, nullptr, dir.c_str(), "spcs_per_gpc=6");
      Square sq;
      sq.build(d);
      std::vector<uint32_t> q;
      cmd_draw(q, sq.draw_info);
      ASSERT_EQ(d.submit(q), 0);
      ASSERT_EQ(d.submit(q), 0);
   }
   namespace fs = std::filesystem;
   ASSERT_TRUE(fs::exists(fs::path(dir) / "config.json"));
   std::ifstream cf(fs::path(dir) / "config.json");
   const nlohmann::json cfg = nlohmann::json::parse(cf);
   EXPECT_EQ(cfg["spcs_per_gpc"], 6);
   for (const char *f : {"submit-000001.json", "submit-000002.json"}) {
      ASSERT_TRUE(fs::exists(fs::path(dir) / f)) << f;
      std::ifstream in(fs::path(dir) / f);
      const nlohmann::json j = nlohmann::json::parse(in);
      ASSERT_EQ(j["draws"].size(), 1u);
      EXPECT_EQ(j["draws"][0]["counters"]["ge"]["primitives"], 2);
   }
   fs::remove_all(dir);
}
