/*
 * The COPY command in cycle mode (docs/hw.md "Copies", the CP's DMA engine
 * cp.dma, docs/simulator-modules.md "CP"):
 *  - timing: a 4 MiB buffer COPY followed by a DUMP (whose L2 flush writes
 *    back the destination lines still dirty) costs at least (bytes read +
 *    bytes written) / memory.bandwidth_bytes_per_cycle cycles and at most
 *    15 % more, at bandwidths 8 and 32 (ratio of the two about 4); a 4 MiB
 *    FILL costs about bytes / bandwidth; the MC's read_bytes / write_bytes
 *    are exactly the lines the test computes (source and destination lines,
 *    the command-queue and copy_info lines, the DUMP's pixel); the DMA
 *    engine's counters and the CopyReport agree with them;
 *  - ordering: a draw samples a texture, a COPY overwrites the texture, a
 *    second draw samples it again, a COPY reads the render target back; in
 *    every configuration (also with 8 draws in flight) the first draw sees
 *    the old texels, the second the copied ones, the read-back both, as
 *    computed here; and the VRAM equals the functional GPU's;
 *  - at bandwidth 128 the L2 binds: one line per cycle to the MC, or the
 *    l2.mshrs outstanding reads over memory.latency_cycles.
 * VLG_TEST_COPY_MIB=N (environment) sets the size of the timed copy (default
 * 4; `./vlgpu bench memory` runs them at 32); the tests record their cycles
 * (record_measurement: printed, and written into docs/fidelity.md).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "scenes.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** A linear copy_info: @bytes from @src to @dst (or a FILL of @dst with the
 *  4-byte pattern @fill when @fill_mode). */
std::vector<uint32_t>
linear_copy_info(uint64_t src, uint64_t dst, uint32_t bytes, bool fill_mode = false,
                 uint32_t fill = 0)
{
   VLG_COPY_INFO ci;
   VLG_COPY_INFO_init(&ci);
   ci.mode = fill_mode ? VLG_COPY_MODE_FILL : VLG_COPY_MODE_COPY;
   ci.fill_bytes = fill_mode ? 4 : 0;
   ci.fill_value[0] = fill;
   ci.src = fill_mode ? 0 : src;
   ci.dst = dst;
   ci.width_bytes = bytes;
   ci.height = 1;
   ci.depth = 1;
   std::vector<uint32_t> w(VLG_COPY_INFO_LENGTH);
   VLG_COPY_INFO_pack(w.data(), &ci);
   return w;
}

uint64_t
lines_of(uint64_t addr, uint64_t bytes, uint64_t line)
{
   return bytes ? (addr + bytes - 1) / line - addr / line + 1 : 0;
}

struct Timed {
   uint64_t cycles = 0, mc_read = 0, mc_write = 0, expect_read = 0, expect_write = 0;
   SubmitResult res;
};

/* COPY (or FILL) of @mib MiB, then DUMP of one pixel (its L2 flush writes
 * the dirty destination lines back), then HALT, on a cycle-mode GPU with
 * memory bandwidth @bw. */
Timed
timed_copy(uint32_t bw, uint64_t mib, bool fill, const std::string &more = "")
{
   Config cfg;
   cfg.apply_overrides("memory.bandwidth_bytes_per_cycle=" + std::to_string(bw) +
                       ",vram.size_bytes=" + std::to_string(2 * mib + 2) + "M" + more);
   const uint64_t line = cfg.l2_line_bytes;
   const uint64_t bytes = mib << 20;
   Vram vram(cfg.vram_size_bytes);
   const uint64_t info_at = 0x10000, surf_at = 0x20000, pixel_at = 0x30000, queue_at = 0x40000;
   const uint64_t src = 1ull << 20, dst = src + bytes;
   for (uint64_t i = 0; i < bytes; i += 4096)
      vram.data()[src + i] = uint8_t(i >> 12 | 1);
   const std::vector<uint32_t> info = linear_copy_info(src, dst, uint32_t(bytes), fill, 0x5a5a5a5au);
   vram.write(info_at, info.data(), info.size() * 4, "test");
   VLG_SURFACE s;
   VLG_SURFACE_init(&s);
   s.format = VLG_FORMAT_R8G8B8A8_UNORM;
   s.width = s.height = 1;
   s.pitch = 4;
   s.address = pixel_at;
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &s);
   vram.write(surf_at, sw, sizeof(sw), "test");
   std::vector<uint32_t> q;
   cmd_copy(q, info_at);
   cmd_dump(q, surf_at, 0, 1, 1);
   cmd_halt(q);
   vram.write(queue_at, q.data(), q.size() * 4, "test");

   uint8_t pixel[4] = {};
   RecordingHost host;
   host.displays.push_back(Display{pixel, 4, 1, 1, VLG_FORMAT_R8G8B8A8_UNORM});
   auto gpu = make_cycle_gpu(cfg);
   Timed t;
   t.res = gpu->execute(vram, queue_at, uint32_t(q.size()), host);
   t.cycles = t.res.cycles;
   const auto &mc = t.res.stats["modules"]["mc"]["counters"];
   t.mc_read = mc["read_bytes"].get<uint64_t>();
   t.mc_write = mc["write_bytes"].get<uint64_t>();
   /* every line once: source lines (COPY), the queue's and copy_info's lines
    * through the L2, the DUMP's 4 bytes straight from the MC; every
    * destination line written back once (evicted or flushed) */
   t.expect_read = (fill ? 0 : bytes) + line * (lines_of(queue_at, q.size() * 4, line) +
                                                 lines_of(info_at, info.size() * 4, line)) +
                   4;
   t.expect_write = bytes;
   /* the copy itself is there */
   if (fill)
      EXPECT_EQ(vram.data()[dst + bytes - 1], 0x5a);
   else
      EXPECT_EQ(std::memcmp(vram.data() + src, vram.data() + dst, bytes), 0);
   return t;
}

uint64_t
copy_mib()
{
   const char *e = std::getenv("VLG_TEST_COPY_MIB");
   return e && std::atoi(e) > 0 ? uint64_t(std::atoi(e)) : 4;
}

TEST(CopyTiming, BufferCopyRunsAtTheMemoryBandwidth)
{
   const uint64_t mib = copy_mib();
   uint64_t at[2] = {};
   const uint32_t bws[2] = {8, 32};
   for (int k = 0; k < 2; k++) {
      const uint32_t bw = bws[k];
      const Timed t = timed_copy(bw, mib, false);
      ASSERT_TRUE(t.res.faults.empty()) << t.res.faults[0].text;
      EXPECT_EQ(t.mc_read, t.expect_read) << "bandwidth " << bw;
      EXPECT_EQ(t.mc_write, t.expect_write) << "bandwidth " << bw;
      const double bound = double(t.expect_read + t.expect_write) / bw;
      record_measurement(std::to_string(mib) + " MiB buffer COPY + DUMP flush",
                         "memory.bandwidth_bytes_per_cycle=" + std::to_string(bw), t.cycles,
                         bound, "(bytes read + written) / bandwidth");
      EXPECT_GE(double(t.cycles), bound) << "bandwidth " << bw;
      EXPECT_LE(double(t.cycles), 1.15 * bound) << "bandwidth " << bw;
      ASSERT_EQ(t.res.copies.size(), 1u);
      const CopyReport &c = t.res.copies[0];
      const uint64_t lines = (mib << 20) / 64;
      EXPECT_EQ(c.bytes, mib << 20);
      EXPECT_EQ(c.lines_read, lines);
      EXPECT_EQ(c.lines_written, lines);
      EXPECT_FALSE(c.faulted);
      const auto &dma = t.res.stats["modules"]["cp.dma"]["counters"];
      EXPECT_EQ(dma["copies"], 1);
      EXPECT_EQ(dma["fills"], 0);
      EXPECT_EQ(dma["copy_bytes_read"], mib << 20);
      EXPECT_EQ(dma["copy_bytes_written"], mib << 20);
      /* the COPY alone: its reads and the write-backs of the lines the L2
       * could not keep (at most l2.size_bytes stay dirty) crossed the bus */
      const double copy_bound = double(2 * (mib << 20) - Config{}.l2_size_bytes) / bw;
      EXPECT_GE(double(c.cycles), copy_bound);
      EXPECT_LE(c.cycles, t.cycles);
      at[k] = t.cycles;
   }
   const double ratio = double(at[0]) / double(at[1]);
   EXPECT_GT(ratio, 3.6);
   EXPECT_LT(ratio, 4.4);
}

/* Above one line per cycle the L2 binds, not the MC bus: the L2 sends one
 * request per cycle to the MC and the bus takes at least a cycle per line
 * (64 B/cycle with 64-byte lines), and every source line holds one of the
 * l2.mshrs for at least memory.latency_cycles, so reads run at most at
 * mshrs x line / latency bytes per cycle (Little's law). At bandwidth 128
 * the copy costs the larger of the two bounds, within 15 %: the MSHR bound
 * with 32 MSHRs, the line-per-cycle bound with the default 64. */
TEST(CopyTiming, AboveOneLinePerCycleTheL2Binds)
{
   const uint64_t mib = copy_mib();
   for (const char *more : {",l2.mshrs=32", ""}) {
      const uint32_t bw = 128;
      const Timed t = timed_copy(bw, mib, false, more);
      ASSERT_TRUE(t.res.faults.empty()) << t.res.faults[0].text;
      Config cfg;
      cfg.apply_overrides(std::string("memory.bandwidth_bytes_per_cycle=128") + more);
      const double line = cfg.l2_line_bytes;
      const double per_cycle = std::min<double>(bw, line);
      const double lines_bound = double(t.expect_read + t.expect_write) / per_cycle;
      const double mshr_bound =
         double(mib << 20) * cfg.memory_latency_cycles / (double(cfg.l2_mshrs) * line);
      const double bound = std::max(lines_bound, mshr_bound);
      record_measurement(std::to_string(mib) + " MiB buffer COPY + DUMP flush",
                         "memory.bandwidth_bytes_per_cycle=128" + std::string(more), t.cycles,
                         bound,
                         lines_bound >= mshr_bound
                            ? "one L2 line per cycle to the MC: (bytes read + written) / line"
                            : "l2.mshrs reads per memory.latency_cycles: bytes x latency / "
                              "(mshrs x line)");
      EXPECT_GE(double(t.cycles), bound) << more;
      EXPECT_LE(double(t.cycles), 1.15 * bound) << more;
   }
}

TEST(CopyTiming, FillWritesAtTheMemoryBandwidth)
{
   const uint64_t mib = copy_mib();
   for (uint32_t bw : {8u, 32u}) {
      const Timed t = timed_copy(bw, mib, true);
      ASSERT_TRUE(t.res.faults.empty()) << t.res.faults[0].text;
      EXPECT_EQ(t.mc_read, t.expect_read) << "bandwidth " << bw;
      EXPECT_EQ(t.mc_write, t.expect_write) << "bandwidth " << bw;
      const double bound = double(t.expect_read + t.expect_write) / bw;
      record_measurement(std::to_string(mib) + " MiB FILL + DUMP flush",
                         "memory.bandwidth_bytes_per_cycle=" + std::to_string(bw), t.cycles,
                         bound, "bytes written / bandwidth");
      EXPECT_GE(double(t.cycles), bound);
      EXPECT_LE(double(t.cycles), 1.15 * bound);
      ASSERT_EQ(t.res.copies.size(), 1u);
      EXPECT_EQ(t.res.copies[0].lines_read, 0u);
      EXPECT_EQ(t.res.stats["modules"]["cp.dma"]["counters"]["fills"], 1);
   }
}

/* ---- ordering with draws ------------------------------------------------ */

const unsigned kW = 32, kH = 16, kT = 8; /* framebuffer, texture side */
const uint8_t kOld[4] = {200, 10, 20, 255}, kNew[4] = {5, 180, 60, 255};

/* The scene: CLEAR; DRAW (left half) samples T; COPY staging -> T; DRAW
 * (right half) samples T; COPY the render target -> readback. Returns the
 * readback address. */
uint64_t
ordering_scene(Scene &s)
{
   TestDraw &t = s.t;
   t.framebuffer(kW, kH);
   const float black[4] = {0, 0, 0, 1};
   s.clear(1u << 2, black);
   VLG_TEXTURE tex;
   VLG_TEXTURE_init(&tex);
   tex.target = VLG_TEXTURE_TARGET_2D;
   tex.format = VLG_FORMAT_R8G8B8A8_UNORM;
   tex.width = tex.height = kT;
   tex.num_levels = 1;
   tex.level[0].row_pitch = kT * 4;
   tex.level[0].layer_stride = kT * kT * 4;
   std::vector<uint8_t> old_texels, new_texels;
   for (unsigned i = 0; i < kT * kT; i++) {
      old_texels.insert(old_texels.end(), kOld, kOld + 4);
      new_texels.insert(new_texels.end(), kNew, kNew + 4);
   }
   tex.address = t.put(old_texels.data(), old_texels.size());
   const uint64_t staging = t.put(new_texels.data(), new_texels.size());
   VLG_SAMPLER smp;
   VLG_SAMPLER_init(&smp);
   smp.wrap_s = smp.wrap_t = smp.wrap_r = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   smp.min_img_filter = smp.mag_img_filter = VLG_TEX_FILTER_NEAREST;
   uint32_t tw[VLG_TEXTURE_LENGTH], sw[VLG_SAMPLER_LENGTH];
   VLG_TEXTURE_pack(tw, &tex);
   VLG_SAMPLER_pack(sw, &smp);
   const uint64_t textures = t.put(tw, sizeof(tw)), samplers = t.put(sw, sizeof(sw));

   const auto textured_rect = [&](float x0, float x1) {
      s.next_draw();
      const std::vector<float> v = {x0, -1, 0.5f, 1, 0, 0, 0, 1, x1, -1, 0.5f, 1, 1, 0, 0, 1,
                                    x1, 1,  0.5f, 1, 1, 1, 0, 1, x0, 1,  0.5f, 1, 0, 1, 0, 1};
      t.indices(std::vector<uint8_t>{0, 1, 2, 0, 2, 3});
      color_pipeline(t, v);
      t.draw.count = 6;
      t.fs.code = assemble("TEX R1, R0, T0\nBRC.END\n");
      t.fs.st.num_samplers = 1;
      t.draw.fs_textures = textures;
      t.draw.fs_samplers = samplers;
      t.draw.fs_num_textures = t.draw.fs_num_samplers = 1;
      s.draw();
   };
   textured_rect(-1, 0);
   const std::vector<uint32_t> up = linear_copy_info(staging, tex.address, kT * kT * 4);
   cmd_copy(s.queue, t.put(up.data(), up.size() * 4));
   textured_rect(0, 1);
   const uint64_t readback = t.alloc(uint64_t(kW) * kH * 4);
   const VLG_SURFACE &rt = t.fb.cbufs[0];
   const std::vector<uint32_t> back =
      linear_copy_info(rt.address, readback, uint32_t(rt.pitch) * kH);
   cmd_copy(s.queue, t.put(back.data(), back.size() * 4));
   s.finish();
   return readback;
}

TEST(CopyOrdering, DrawsSeeCopiesInQueueOrder)
{
   for (const char *over : {"", "cp.max_draws_in_flight=8,l2.requests_per_cycle=4",
                            "gpcs=2,spcs_per_gpc=2,cp.max_draws_in_flight=8"}) {
      SCOPED_TRACE(std::string("configuration: ") + over);
      Scene s;
      const uint64_t readback = ordering_scene(s);
      Config cfg;
      cfg.apply_overrides(over);
      auto cycle = make_cycle_gpu(cfg);
      auto func = make_functional_gpu(cfg);
      const ModeRun c = run_scene(s, *cycle), f = run_scene(s, *func);
      ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
      ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
      ASSERT_EQ(c.res.copies.size(), 2u);
      const VLG_SURFACE &rt = s.t.fb.cbufs[0];
      for (const Vram *v : {c.vram.get(), f.vram.get()})
         for (unsigned y = 0; y < kH; y++)
            for (unsigned x = 0; x < kW; x++) {
               const uint8_t *want = x < kW / 2 ? kOld : kNew;
               const uint8_t *px = v->data() + rt.address + (uint64_t(y) * kW + x) * 4;
               const uint8_t *rb = v->data() + readback + (uint64_t(y) * kW + x) * 4;
               ASSERT_EQ(std::memcmp(px, want, 4), 0)
                  << (v == c.vram.get() ? "cycle" : "functional") << " pixel (" << x << ", "
                  << y << "): " << int(px[0]) << "," << int(px[1]) << "," << int(px[2]);
               ASSERT_EQ(std::memcmp(rb, want, 4), 0)
                  << (v == c.vram.get() ? "cycle" : "functional") << " readback (" << x << ", "
                  << y << ")";
            }
      EXPECT_EQ(std::memcmp(c.vram->data(), f.vram->data(), c.vram->size()), 0)
         << "cycle and functional VRAM differ";
   }
}

} // namespace

namespace {

/* A DMA engine that hangs (fault injection): the deadlock report becomes the
 * COPY's fault (module "simulator", FaultRecord::copy_index 0), the COPY is
 * skipped, not run again, and the SYNC after it still writes its fence. */
TEST(CopyFaults, AHungDmaEngineFaultsOnlyItsCopy)
{
   Config cfg;
   cfg.apply_overrides("deadlock.window_cycles=2000");
   Vram vram(4u << 20);
   const uint64_t src = 0x10000, dst = 0x20000, info_at = 0x30000, fence = 0x31000,
                  queue_at = 0x32000;
   const std::vector<uint32_t> info = linear_copy_info(src, dst, 4096);
   vram.write(info_at, info.data(), info.size() * 4, "test");
   std::vector<uint32_t> q;
   cmd_copy(q, info_at);
   cmd_sync(q, fence, 99);
   cmd_halt(q);
   vram.write(queue_at, q.data(), q.size() * 4, "test");
   CycleGpu gpu(cfg);
   gpu.wedge("cp.dma");
   RecordingHost host;
   const SubmitResult r = gpu.execute(vram, queue_at, uint32_t(q.size()), host);
   ASSERT_EQ(r.faults.size(), 1u);
   EXPECT_EQ(r.faults[0].module, "simulator");
   EXPECT_EQ(r.faults[0].summary, "deadlock");
   EXPECT_EQ(r.faults[0].copy_index, 0);
   EXPECT_NE(r.faults[0].text.find("cp.dma"), std::string::npos) << r.faults[0].text;
   ASSERT_EQ(r.copies.size(), 1u);
   EXPECT_TRUE(r.copies[0].faulted);
   EXPECT_EQ(gpu.resets(), 1u);
   EXPECT_EQ(vram.read32(fence, "test"), 99u);
}

} // namespace
