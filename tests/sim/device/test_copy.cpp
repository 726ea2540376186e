/*
 * The COPY command (docs/hw.md "Copies") end to end through the vlgpu_drm.h
 * device, in functional and (when built) cycle mode:
 *  - copies of buffer ranges, 2D boxes with strides, 3D boxes, overlapping
 *    boxes (forward and backward) and fills of every fill_bytes size
 *    (pattern restarting at every row), all in one queue, against a
 *    reference computed here with plain loops on a host copy of the bytes;
 *    both modes must match the reference, hence each other;
 *  - faults: a box past the end of VRAM, a bad fill_bytes, an unknown
 *    mode, with the report's text;
 *    a faulting COPY skips only itself (the next COPY and SYNC still run);
 *  - the statistics JSON lists every COPY (mode, bytes, fault).
 */
#include "device_test_util.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace vlgpu::test {
namespace {

/** A copy or fill of a box (the test's description, packed by put()). */
struct Box {
   bool fill = false;
   uint32_t fill_bytes = 0;
   uint32_t fill_value[4] = {};
   uint64_t src = 0, dst = 0;
   uint32_t width = 0, height = 1, depth = 1;
   uint32_t src_row = 0, src_slice = 0, dst_row = 0, dst_slice = 0;
};

uint64_t
put_copy_info(Device &d, const Box &b)
{
   VLG_COPY_INFO ci;
   VLG_COPY_INFO_init(&ci);
   ci.mode = b.fill ? VLG_COPY_MODE_FILL : VLG_COPY_MODE_COPY;
   ci.fill_bytes = b.fill_bytes;
   for (unsigned i = 0; i < 4; i++)
      ci.fill_value[i] = b.fill_value[i];
   ci.src = b.src;
   ci.dst = b.dst;
   ci.width_bytes = b.width;
   ci.height = b.height;
   ci.depth = b.depth;
   ci.src_row_stride = b.src_row;
   ci.src_slice_stride = b.src_slice;
   ci.dst_row_stride = b.dst_row;
   ci.dst_slice_stride = b.dst_slice;
   uint32_t w[VLG_COPY_INFO_LENGTH];
   VLG_COPY_INFO_pack(w, &ci);
   return d.put(w, sizeof(w), 4);
}

/** The reference: @b applied to @mem, whose byte 0 is VRAM address @base.
 *  A copy reads every source byte before writing any (as the XML says for
 *  overlapping boxes); a fill repeats its pattern from every row start. */
void
apply(std::vector<uint8_t> &mem, uint64_t base, const Box &b)
{
   std::vector<uint8_t> tmp;
   uint8_t pat[16];
   std::memcpy(pat, b.fill_value, 16);
   for (uint32_t z = 0; z < b.depth; z++)
      for (uint32_t y = 0; y < b.height; y++)
         for (uint32_t x = 0; x < b.width; x++)
            tmp.push_back(b.fill ? pat[x % b.fill_bytes]
                                 : mem[b.src - base + uint64_t(z) * b.src_slice +
                                       uint64_t(y) * b.src_row + x]);
   size_t i = 0;
   for (uint32_t z = 0; z < b.depth; z++)
      for (uint32_t y = 0; y < b.height; y++)
         for (uint32_t x = 0; x < b.width; x++)
            mem[b.dst - base + uint64_t(z) * b.dst_slice + uint64_t(y) * b.dst_row + x] =
               tmp[i++];
}

class Copy : public ::testing::TestWithParam<uint32_t> {
 protected:
   std::unique_ptr<Device> dev(const char *overrides = nullptr)
   {
      return std::make_unique<Device>(nullptr, nullptr, nullptr, overrides, GetParam());
   }
   void SetUp() override
   {
      try {
         dev();
      } catch (const std::exception &e) {
         FAIL() << "cannot create the device in mode " << GetParam() << ": " << e.what();
      }
   }
};

/* Every kind of box in one queue over one 256 KiB buffer of arbitrary bytes;
 * the boxes overlap each other's results on purpose (order matters). */
TEST_P(Copy, BoxesAndFillsMatchTheReference)
{
   auto d = dev();
   const uint64_t kSize = 256 * 1024;
   auto bo = d->bo(kSize, 4096);
   const uint64_t B = bo.address;
   std::vector<uint8_t> ref(kSize);
   uint32_t s = 12345;
   for (uint8_t &v : ref) {
      s = s * 1103515245u + 12345u;
      v = uint8_t(s >> 16);
   }
   std::memcpy(bo.ptr, ref.data(), kSize);

   std::vector<Box> boxes;
   { /* a buffer range, unaligned both ends */
      Box b;
      b.src = B + 3;
      b.dst = B + 100000 + 5;
      b.width = 20001;
      boxes.push_back(b);
   }
   { /* a 2D box: 37 rows of 45 bytes, source pitch 64, destination pitch 100 */
      Box b;
      b.src = B + 1000;
      b.dst = B + 140000 + 1;
      b.width = 45;
      b.height = 37;
      b.src_row = 64;
      b.dst_row = 100;
      boxes.push_back(b);
   }
   { /* a 3D box: 5 slices of 9 rows of 12 bytes */
      Box b;
      b.src = B + 30000;
      b.dst = B + 160000;
      b.width = 12;
      b.height = 9;
      b.depth = 5;
      b.src_row = 16;
      b.src_slice = 160;
      b.dst_row = 40;
      b.dst_slice = 512;
      boxes.push_back(b);
   }
   { /* overlap, forward (destination above the source) in one buffer range */
      Box b;
      b.src = B + 50000;
      b.dst = B + 50000 + 777;
      b.width = 5000;
      boxes.push_back(b);
   }
   { /* overlap, backward */
      Box b;
      b.src = B + 60000 + 333;
      b.dst = B + 60000;
      b.width = 5000;
      boxes.push_back(b);
   }
   { /* overlapping 2D boxes: rows of one read rows the other writes */
      Box b;
      b.src = B + 70000;
      b.dst = B + 70000 + 64 + 8; /* one row down, 8 bytes right */
      b.width = 40;
      b.height = 20;
      b.src_row = 64;
      b.dst_row = 64;
      boxes.push_back(b);
   }
   { /* the same, backward */
      Box b;
      b.src = B + 80000 + 2 * 64 + 3;
      b.dst = B + 80000;
      b.width = 40;
      b.height = 20;
      b.src_row = 64;
      b.dst_row = 64;
      boxes.push_back(b);
   }
   /* fills of every size: 3 rows, a row pitch that is not a multiple of the
    * pattern (the pattern restarts at every row), a width that is not a
    * multiple of it either (the last repetition of a row is cut short) */
   uint64_t at = B + 200000;
   for (uint32_t fb : {1u, 2u, 4u, 8u, 12u, 16u}) {
      Box b;
      b.fill = true;
      b.fill_bytes = fb;
      b.fill_value[0] = 0x04030201u * fb;
      b.fill_value[1] = 0x0d0c0b0au + fb;
      b.fill_value[2] = 0xa1b2c3d4u ^ fb;
      b.fill_value[3] = 0x55667788u;
      b.dst = at + fb; /* unaligned */
      b.width = fb * 25 + fb / 2;
      b.height = 3;
      b.dst_row = fb * 26 + 7;
      boxes.push_back(b);
      at += 4096;
   }
   { /* a 3D fill */
      Box b;
      b.fill = true;
      b.fill_bytes = 4;
      b.fill_value[0] = 0xdeadbeefu;
      b.dst = B + 230001;
      b.width = 8;
      b.height = 3;
      b.depth = 4;
      b.dst_row = 10;
      b.dst_slice = 50;
      boxes.push_back(b);
   }
   { /* empty boxes copy nothing and do not fault */
      Box b;
      b.src = B;
      b.dst = B + 8;
      b.width = 0;
      b.height = 5;
      boxes.push_back(b);
   }

   std::vector<uint32_t> q;
   for (const Box &b : boxes) {
      cmd_copy(q, put_copy_info(*d, b));
      apply(ref, B, b);
   }
   cmd_halt(q);
   ASSERT_EQ(d->submit(q), 0) << vlg_drm_get_fault(d->dev);
   uint64_t bad = 0;
   for (uint64_t i = 0; i < kSize; i++)
      if (bo.ptr[i] != ref[i] && bad++ < 5)
         ADD_FAILURE() << "byte " << i << ": " << int(bo.ptr[i]) << ", expected " << int(ref[i]);
   EXPECT_EQ(bad, 0u);

   const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d->dev));
   ASSERT_EQ(j["copies"].size(), boxes.size()) << j.dump();
   for (size_t i = 0; i < boxes.size(); i++) {
      const nlohmann::json &c = j["copies"][i];
      const Box &b = boxes[i];
      EXPECT_EQ(c["index_in_queue"], i);
      EXPECT_EQ(c["cmd_offset_dw"], i * VLG_CMD_COPY_LENGTH);
      EXPECT_EQ(c["mode"], b.fill ? "FILL" : "COPY");
      EXPECT_EQ(c["bytes"], uint64_t(b.width) * b.height * b.depth);
      EXPECT_TRUE(c["fault"].is_null());
      if (GetParam() == VLG_DRM_MODE_CYCLE && b.width) {
         EXPECT_GE(c["cycles"].get<uint64_t>(), 1u);
      }
   }
}

/* An overlapping COPY whose rows overlap each other (row stride 0) holds far
 * more bytes than VRAM: 16384 rows of 64 KiB, 1 GiB, over a 128 KiB span. It
 * copies the same source row 16384 times, as the reference says (every
 * source byte read before any is written: the destination row is the
 * original source row), in a child whose address space may grow by 256 MiB:
 * the copy must not need a buffer of the box's size (found by the cp fuzz
 * target: 37 GB for a 206-byte input). Functional mode: cycle mode runs the
 * same cp_run_copy and would time 1 GiB of DMA. */
TEST(CopyBounded, OverlappingBoxLargerThanVramNeedsNoBufferOfItsSize)
{
   const std::string result = bounded_child(256u << 20, [] {
      Device d(nullptr, nullptr, nullptr, "vram.size_bytes=16M", VLG_DRM_MODE_FUNCTIONAL);
      const uint32_t kRow = 64 * 1024;
      auto bo = d.bo(2 * kRow, 4096);
      std::vector<uint8_t> ref(2 * kRow);
      for (size_t i = 0; i < ref.size(); i++)
         ref[i] = uint8_t(i * 7 + (i >> 9));
      std::memcpy(bo.ptr, ref.data(), ref.size());
      Box b;
      b.src = bo.address;
      b.dst = bo.address + 4; /* overlaps the source */
      b.width = kRow;
      b.height = 16384;
      std::vector<uint32_t> q;
      cmd_copy(q, put_copy_info(d, b));
      cmd_halt(q);
      if (d.submit(q) != 0)
         return std::string("submit failed: ") + vlg_drm_get_fault(d.dev);
      std::vector<uint8_t> want = ref;
      std::memcpy(want.data() + 4, ref.data(), kRow);
      return std::memcmp(bo.ptr, want.data(), want.size()) == 0 ? std::string("ok")
                                                                : std::string("wrong bytes");
   });
   EXPECT_EQ(result, "ok");
}

/* Bad copy_info blocks: each COPY faults with a readable report naming the
 * field, and only that COPY is skipped: the COPY after it and the SYNC run. */
TEST_P(Copy, FaultsSkipOnlyTheFaultingCopy)
{
   auto d = dev("vram.size_bytes=4M");
   const uint64_t kVram = 4ull << 20;
   auto a = d->bo(4096);
   auto b = d->bo(4096);
   auto fence = d->bo(16);
   for (unsigned i = 0; i < 4096; i++)
      a.ptr[i] = uint8_t(i * 7 + 1);

   struct Case {
      Box box;
      std::vector<std::string> want; /* substrings of the report */
   };
   std::vector<Case> cases;
   { /* destination past the end of VRAM by one byte, through the strides */
      Case c;
      c.box.src = a.address;
      c.box.dst = kVram - 3 * 1000 - 100;
      c.box.width = 101;
      c.box.height = 4;
      c.box.dst_row = 1000;
      c.box.src_row = 128;
      c.want = {"GPU fault in CP", "malformed COPY: destination box outside VRAM",
                "dst_row_stride = 1000", "height = 4", "VRAM ends at 0x400000",
                "last byte is at 0x400000"};
      cases.push_back(c);
   }
   { /* source past the end with huge strides that would wrap 64 bits */
      Case c;
      c.box.src = 0xfffffffff0000000ull;
      c.box.dst = b.address;
      c.box.width = 16;
      c.want = {"malformed COPY: source box outside VRAM", "src = 0xfffffffff0000000"};
      cases.push_back(c);
   }
   { /* fill_bytes 3 */
      Case c;
      c.box.fill = true;
      c.box.fill_bytes = 3;
      c.box.dst = b.address;
      c.box.width = 9;
      c.want = {"malformed COPY: bad fill_bytes", "fill_bytes = 3"};
      cases.push_back(c);
   }
   { /* fill_bytes 0 */
      Case c;
      c.box.fill = true;
      c.box.fill_bytes = 0;
      c.box.dst = b.address;
      c.box.width = 20;
      c.want = {"malformed COPY: bad fill_bytes", "fill_bytes = 0"};
      cases.push_back(c);
   }

   for (const Case &c : cases) {
      std::memset(b.ptr, 0, 4096);
      std::vector<uint32_t> q;
      cmd_copy(q, put_copy_info(*d, c.box));
      Box good;
      good.src = a.address;
      good.dst = b.address + 64;
      good.width = 100;
      cmd_copy(q, put_copy_info(*d, good));
      cmd_sync(q, fence.address, 77);
      cmd_halt(q);
      EXPECT_EQ(d->submit(q), -EIO);
      const std::string f = vlg_drm_get_fault(d->dev);
      for (const std::string &w : c.want)
         EXPECT_NE(f.find(w), std::string::npos) << "missing '" << w << "' in:\n" << f;
      EXPECT_NE(f.find("command at dword offset 0"), std::string::npos) << f;
      EXPECT_EQ(std::memcmp(b.ptr + 64, a.ptr, 100), 0) << "the COPY after the fault ran";
      uint32_t v;
      std::memcpy(&v, fence.ptr, 4);
      EXPECT_EQ(v, 77u) << "the SYNC after the fault ran";
      const nlohmann::json j = nlohmann::json::parse(vlg_drm_get_stats_json(d->dev));
      ASSERT_EQ(j["copies"].size(), 2u);
      EXPECT_FALSE(j["copies"][0]["fault"].is_null());
      EXPECT_EQ(j["copies"][0]["fault"]["module"], "CP");
      EXPECT_TRUE(j["copies"][1]["fault"].is_null());
      ASSERT_EQ(j["faults"].size(), 1u);
      EXPECT_EQ(j["faults"][0]["copy"], 0);
   }
}

/* An unknown mode value (not in enum copy_mode) is refused. */
TEST_P(Copy, UnknownModeFaults)
{
   auto d = dev();
   auto b = d->bo(256);
   Box box;
   box.dst = b.address;
   box.src = b.address;
   box.width = 4;
   const uint64_t ci = put_copy_info(*d, box);
   /* mode is bits 0..7 of dword 0 (vlgpu_hw.xml copy_info) */
   uint32_t w0;
   std::memcpy(&w0, d->at(ci), 4);
   w0 = (w0 & ~0xffu) | 0x7fu;
   std::memcpy(d->at(ci), &w0, 4);
   std::vector<uint32_t> q;
   cmd_copy(q, ci);
   cmd_halt(q);
   EXPECT_EQ(d->submit(q), -EIO);
   const std::string f = vlg_drm_get_fault(d->dev);
   EXPECT_NE(f.find("malformed COPY"), std::string::npos) << f;
   EXPECT_NE(f.find("mode"), std::string::npos) << f;
}

INSTANTIATE_TEST_SUITE_P(Modes, Copy,
                         ::testing::Values(uint32_t(VLG_DRM_MODE_FUNCTIONAL),
                                           uint32_t(VLG_DRM_MODE_CYCLE)),
                         [](const auto &i) {
                            return i.param == VLG_DRM_MODE_CYCLE ? "cycle" : "functional";
                         });

} // namespace
} // namespace vlgpu::test
