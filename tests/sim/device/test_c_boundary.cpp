/*
 * The C boundary of the device (vlgpu_drm.h, device.cpp): no C++ exception
 * leaves an entry point. An exception thrown from inside each one (the test
 * hook of sim/device/device_hooks.h) comes back as the documented error
 * result: -ENOMEM for std::bad_alloc, -EIO for anything else, with
 * "ENTRY: out of host memory" / "ENTRY: internal error: WHAT" in
 * vlg_drm_get_fault; NULL from vlg_drm_bo_map; {"error": ...} from the
 * statistics; the err text of vlg_drm_device_create. The device keeps
 * working afterwards.
 */
#include <cerrno>
#include <functional>
#include <new>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "device_test_util.h"
#include "sim/device/device_hooks.h"

using namespace vlgpu::test;

namespace {

/* What the hook throws, and where. */
enum class Throw { BadAlloc, RuntimeError, Int };
const char *g_entry = nullptr;
Throw g_throw = Throw::RuntimeError;
int g_calls = 0;

void
hook(const char *entry)
{
   if (!g_entry || strcmp(entry, g_entry) != 0)
      return;
   g_calls++;
   switch (g_throw) {
   case Throw::BadAlloc:
      throw std::bad_alloc();
   case Throw::RuntimeError:
      throw std::runtime_error("boom");
   case Throw::Int:
      throw 42;
   }
}

/* The error code and fault text each kind must give (vlgpu_drm.h). */
struct Expected {
   Throw kind;
   int code;
   const char *fault; /* after "ENTRY: " */
};
const Expected kKinds[] = {
   {Throw::BadAlloc, -ENOMEM, "out of host memory"},
   {Throw::RuntimeError, -EIO, "internal error: boom"},
   {Throw::Int, -EIO, "internal error: unknown exception"},
};

class CBoundary : public ::testing::Test {
 protected:
   void SetUp() override
   {
      g_entry = nullptr;
      g_calls = 0;
      vlgpu::sim::set_device_entry_hook_for_tests(hook);
   }
   void TearDown() override { vlgpu::sim::set_device_entry_hook_for_tests(nullptr); }

   /* Each kind thrown inside @entry: @call gives the error code and the
    * fault text names the entry and the reason. */
   void expect_error_codes(Device &d, const char *entry, const std::function<int()> &call)
   {
      for (const Expected &k : kKinds) {
         SCOPED_TRACE(std::string(entry) + " kind " + std::to_string(int(k.kind)));
         g_entry = entry;
         g_throw = k.kind;
         g_calls = 0;
         EXPECT_EQ(call(), k.code);
         EXPECT_EQ(g_calls, 1) << "the hook did not run inside " << entry;
         EXPECT_EQ(std::string(vlg_drm_get_fault(d.dev)), std::string(entry) + ": " + k.fault);
         g_entry = nullptr;
      }
   }
};

} // namespace

TEST_F(CBoundary, DeviceCreate)
{
   for (const Expected &k : kKinds) {
      g_entry = "vlg_drm_device_create";
      g_throw = k.kind;
      vlg_drm_create_args a{};
      a.mode = VLG_DRM_MODE_FUNCTIONAL;
      vlg_drm_device *dev = reinterpret_cast<vlg_drm_device *>(1);
      char err[256] = "";
      EXPECT_EQ(vlg_drm_device_create(&a, &dev, err, sizeof(err)), k.code);
      EXPECT_EQ(dev, nullptr);
      EXPECT_EQ(std::string(err).rfind(std::string("vlg_drm_device_create: ") + k.fault, 0), 0u)
         << err;
   }
   g_entry = nullptr;
   Device d; /* and creating works again */
   EXPECT_NE(d.dev, nullptr);
}

TEST_F(CBoundary, Parameters)
{
   Device d;
   uint64_t v = 0;
   expect_error_codes(d, "vlg_drm_get_param",
                      [&] { return vlg_drm_get_param(d.dev, VLG_DRM_PARAM_VRAM_SIZE, &v); });
   EXPECT_EQ(vlg_drm_get_param(d.dev, VLG_DRM_PARAM_VRAM_SIZE, &v), 0);
   EXPECT_GT(v, 0u);
}

TEST_F(CBoundary, BufferObjects)
{
   Device d;
   struct vlg_drm_bo_create c {};
   c.size = 64;
   expect_error_codes(d, "vlg_drm_bo_create", [&] { return vlg_drm_bo_create(d.dev, &c); });
   ASSERT_EQ(vlg_drm_bo_create(d.dev, &c), 0);
   expect_error_codes(d, "vlg_drm_bo_free", [&] { return vlg_drm_bo_free(d.dev, c.handle); });
   /* vlg_drm_bo_map returns a pointer: NULL for every kind */
   for (const Expected &k : kKinds) {
      g_entry = "vlg_drm_bo_map";
      g_throw = k.kind;
      EXPECT_EQ(vlg_drm_bo_map(d.dev, c.handle), nullptr);
      EXPECT_EQ(std::string(vlg_drm_get_fault(d.dev)), std::string("vlg_drm_bo_map: ") + k.fault);
   }
   g_entry = nullptr;
   EXPECT_NE(vlg_drm_bo_map(d.dev, c.handle), nullptr);
   EXPECT_EQ(vlg_drm_bo_free(d.dev, c.handle), 0); /* the failed frees kept the buffer */
}

TEST_F(CBoundary, Displays)
{
   Device d;
   uint32_t pixels[4] = {};
   struct vlg_drm_display disp {};
   disp.data = pixels;
   disp.stride = 8;
   disp.width = 2;
   disp.height = 2;
   disp.format = VLG_FORMAT_R8G8B8A8_UNORM;
   expect_error_codes(d, "vlg_drm_display_set",
                      [&] { return vlg_drm_display_set(d.dev, 1, &disp); });
   ASSERT_EQ(vlg_drm_display_set(d.dev, 1, &disp), 0);
   expect_error_codes(d, "vlg_drm_display_remove",
                      [&] { return vlg_drm_display_remove(d.dev, 1); });
   EXPECT_EQ(vlg_drm_display_remove(d.dev, 1), 0);
}

TEST_F(CBoundary, SubmitAndWait)
{
   Device d;
   const uint64_t fa = d.bo(4).address;
   std::vector<uint32_t> q;
   cmd_sync(q, fa, 7);
   expect_error_codes(d, "vlg_drm_submit", [&] { return d.submit(q); });
   uint64_t fence = 0;
   ASSERT_EQ(d.submit(q, &fence), 0) << vlg_drm_get_fault(d.dev);
   uint32_t v;
   std::memcpy(&v, d.at(fa), 4);
   EXPECT_EQ(v, 7u);
   expect_error_codes(d, "vlg_drm_wait", [&] { return vlg_drm_wait(d.dev, fence, 0); });
   EXPECT_EQ(vlg_drm_wait(d.dev, fence, 0), 0);
}

TEST_F(CBoundary, Statistics)
{
   Device d;
   std::vector<uint32_t> q;
   cmd_sync(q, d.bo(4).address, 1);
   ASSERT_EQ(d.submit(q), 0);
   for (const char *entry : {"vlg_drm_get_stats_json", "vlg_drm_get_draw_stats_json"}) {
      const bool full = strcmp(entry, "vlg_drm_get_stats_json") == 0;
      for (const Expected &k : kKinds) {
         SCOPED_TRACE(std::string(entry) + " kind " + std::to_string(int(k.kind)));
         g_entry = entry;
         g_throw = k.kind;
         const char *text = full ? vlg_drm_get_stats_json(d.dev) : vlg_drm_get_draw_stats_json(d.dev);
         const nlohmann::json j = nlohmann::json::parse(text);
         EXPECT_EQ(j, nlohmann::json({{"error", std::string(entry) + ": " + k.fault}}));
      }
   }
   g_entry = nullptr;
   /* the next submit's statistics are made again */
   ASSERT_EQ(d.submit(q), 0);
   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d.dev));
   EXPECT_FALSE(j.contains("error")) << j.dump();
   EXPECT_EQ(j["submit"], 2);
}
