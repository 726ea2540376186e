/*
 * CLEAR and RESOLVE draws as OMU work through the L2 and the MC
 * (docs/simulator-modules.md "OMU", clear engine), on the whole cycle-mode
 * GPU. Expected values are computed here from the configuration and the
 * surfaces, never read back from the simulator:
 *  - a full CLEAR of a 1024x1024 RGBA8 surface (4 MiB) followed by a DUMP
 *    (which flushes the L2) costs at least bytes / memory.bandwidth cycles
 *    and at most max(bytes / bandwidth, bytes / omu.clear_bytes_per_cycle)
 *    plus the L2's size at the slower of the line and clear rates (a
 *    write-back L2 absorbs that much before its first write-back reaches
 *    the MC and writes it back at the flush) plus 2000 cycles of command,
 *    package and latency overhead; the MC writes exactly the surface's
 *    bytes; at bandwidth 8, 32 and 128 bytes per cycle;
 *  - a scissored clear writes only the lines of the rect's rows, once each;
 *  - a depth-only clear of Z24S8 reads every line before writing it;
 *  - a RESOLVE reads the 4-sample lines of each pixel and writes the
 *    single-sample lines, both through the MC.
 * The pixels of both modes are compared as everywhere (bit-identical).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** The configuration: default but the MC bandwidth @bw (bytes per cycle)
 *  and, if not 0, the clear rate @clear_rate (bytes per cycle). */
Config
with_bandwidth(uint32_t bw, uint32_t clear_rate = 0)
{
   Config cfg;
   cfg.apply_overrides("memory.bandwidth_bytes_per_cycle=" + std::to_string(bw));
   if (clear_rate)
      cfg.apply_overrides("omu.clear_bytes_per_cycle=" + std::to_string(clear_rate));
   cfg.validate();
   return cfg;
}

/** Append a DUMP of pixel (0, 0) of @surf: the CP flushes the L2 first
 *  (every dirty line to the MC) and reads 4 bytes. */
void
dump_one_pixel(Scene &s, const VLG_SURFACE &surf)
{
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &surf);
   cmd_dump(s.queue, s.t.put(sw, sizeof(sw)), 0, 1, 1);
}

struct BothRuns {
   ModeRun f, c;
};

/** Run @s on the functional GPU and on the cycle GPU with @p; both must
 *  agree on the framebuffer. */
BothRuns
run_both(const Scene &s, const Config &p)
{
   auto host = [] {
      RecordingHost h;
      static uint8_t px[4];
      h.displays.push_back(Display{px, 4, 1, 1, VLG_FORMAT_R8G8B8A8_UNORM});
      return h;
   };
   BothRuns r;
   auto fgpu = make_functional_gpu(Config{});
   RecordingHost hf = host(), hc = host();
   r.f = run_scene(s, *fgpu, &hf);
   CycleGpu cgpu{p};
   r.c = run_scene(s, cgpu, &hc);
   EXPECT_TRUE(r.c.res.faults.empty());
   EXPECT_EQ(compare_surfaces(s.t.fb, *r.f.vram, *r.c.vram, "functional vs cycle"), 0u);
   return r;
}

uint64_t
counter(const ModeRun &r, const std::string &module, const std::string &name)
{
   return r.res.stats["modules"][module]["counters"][name].get<uint64_t>();
}

/** Lines of @line_bytes that the rows y0..y1-1, bytes [x0 * bpp, x1 * bpp)
 *  of surface @s touch (a line shared by two rows counted once). */
uint64_t
rect_lines(const VLG_SURFACE &s, unsigned bpp, unsigned x0, unsigned y0, unsigned x1, unsigned y1,
           unsigned line_bytes)
{
   uint64_t n = 0, prev = ~uint64_t(0);
   for (unsigned y = y0; y < y1; y++) {
      const uint64_t a = s.address + uint64_t(y) * s.pitch + uint64_t(x0) * bpp;
      uint64_t first = a / line_bytes;
      const uint64_t last = (a + uint64_t(x1 - x0) * bpp - 1) / line_bytes;
      if (prev != ~uint64_t(0) && first <= prev)
         first = prev + 1;
      if (first <= last) {
         n += last - first + 1;
         prev = last;
      }
   }
   return n;
}

} // namespace

/* One 4 MiB colour clear at three MC bandwidths (and a slow clear engine
 * at the highest): bounded by the slower of the clear engine and the MC;
 * every byte reaches the MC once. Also eight clears (the issue's
 * measurement; printed). */
TEST(OmuClear, LargeClearIsBoundByTheMemory)
{
   constexpr unsigned kSide = 1024;
   const float color[4] = {0.25f, 0.5f, 0.75f, 1.0f};
   const struct {
      uint32_t bw, clear_rate; /* clear_rate 0: the default */
   } cases[] = {{8, 0}, {32, 0}, {128, 0}, {128, 16}};
   for (const auto &cs : cases) {
      const uint32_t bw = cs.bw;
      const Config p = with_bandwidth(bw, cs.clear_rate);
      for (unsigned clears : {1u, 8u}) {
         if (cs.clear_rate && clears > 1)
            continue;
         Scene s(16ull << 20);
         s.t.framebuffer(kSide, kSide);
         for (unsigned i = 0; i < clears; i++)
            s.clear(1u << 2, color);
         dump_one_pixel(s, s.t.fb.cbufs[0]);
         s.finish();
         const BothRuns r = run_both(s, p);
         const uint64_t bytes = uint64_t(kSide) * kSide * 4 * clears;
         const uint64_t lb = p.l2_line_bytes;
         const uint64_t rate = p.omu_clear_bytes_per_cycle;
         const uint64_t ideal = std::max(bytes / bw, bytes / rate);
         /* the L2 fills with dirty lines at the OMU's rate (a line per cycle
          * at most) before its first write-back: the MC idles that long;
          * and every draw ends with the OMU writing back its dirty cache
          * lines, one per cycle, before the next draw's clear starts */
         const uint64_t slack = p.l2_size_bytes / std::min(lb, rate) +
                                clears * (p.omu_cache_bytes / lb) + 2000;
         const uint64_t cycles = r.c.res.cycles;
         record_measurement(std::to_string(clears) + " x 4 MiB RGBA8 clear + L2 flush",
                            "memory.bandwidth_bytes_per_cycle=" + std::to_string(bw) +
                               (cs.clear_rate ? ",omu.clear_bytes_per_cycle=" +
                                                   std::to_string(cs.clear_rate)
                                              : ""),
                            cycles, double(ideal),
                            "max(bytes / bandwidth, bytes / omu.clear_bytes_per_cycle)");
         EXPECT_GE(cycles, bytes / bw) << "bandwidth " << bw;
         EXPECT_LE(cycles, ideal + slack) << "bandwidth " << bw;
         EXPECT_EQ(counter(r.c, "mc", "write_bytes"), bytes) << "bandwidth " << bw;
         EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_lines"), bytes / lb);
         EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_line_reads"), 0u);
         EXPECT_EQ(r.c.res.draws[0].counters.clear_pixels, uint64_t(kSide) * kSide);
      }
   }
}

/* A scissored clear writes the lines of its rect only (partial lines at
 * the edges are byte-masked writes: no read). */
TEST(OmuClear, ScissoredClearWritesOnlyItsLines)
{
   const Config p = with_bandwidth(32);
   Scene s(16ull << 20);
   s.t.framebuffer(1024, 512);
   const unsigned x0 = 3, y0 = 5, x1 = 517, y1 = 300;
   VLG_DRAW_INFO keep = s.t.draw;
   VLG_DRAW_INFO_init(&s.t.draw);
   s.t.draw.kind = VLG_DRAW_KIND_CLEAR;
   s.t.draw.clear_buffers = 1u << 2;
   s.t.draw.clear_color[1] = as_uint(1.0f);
   s.t.draw.clear_color[3] = as_uint(1.0f);
   s.t.draw.clear_rect.minx = x0;
   s.t.draw.clear_rect.miny = y0;
   s.t.draw.clear_rect.maxx = x1;
   s.t.draw.clear_rect.maxy = y1;
   s.draw();
   s.t.draw = keep;
   dump_one_pixel(s, s.t.fb.cbufs[0]);
   s.finish();
   const BothRuns r = run_both(s, p);
   const uint64_t lb = p.l2_line_bytes;
   const uint64_t lines = rect_lines(s.t.fb.cbufs[0], 4, x0, y0, x1, y1, unsigned(lb));
   EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_lines"), lines);
   EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_line_reads"), 0u);
   EXPECT_EQ(counter(r.c, "mc", "write_bytes"), lines * lb);
   EXPECT_EQ(r.c.res.draws[0].counters.clear_pixels, uint64_t(x1 - x0) * (y1 - y0));
}

/* Depth only of Z24S8 keeps the stencil bytes: each line is read first
 * (through the L2 from the MC: nothing holds it), then written. Depth and
 * stencil together: no read. */
TEST(OmuClear, MaskedDepthClearReadsEachLine)
{
   const Config p = with_bandwidth(32);
   for (unsigned bits : {1u, 3u}) {
      Scene s(8ull << 20);
      s.t.framebuffer(256, 256, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
      const float color[4] = {0, 0, 0, 0};
      s.clear(bits, color, 0.5f, 7);
      dump_one_pixel(s, s.t.fb.cbufs[0]);
      s.finish();
      const BothRuns r = run_both(s, p);
      const uint64_t lb = p.l2_line_bytes;
      const uint64_t lines = rect_lines(s.t.fb.zsbuf, 4, 0, 0, 256, 256, unsigned(lb));
      EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_lines"), lines) << bits;
      EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_line_reads"), bits == 1 ? lines : 0u) << bits;
      EXPECT_EQ(counter(r.c, "mc", "write_bytes"), lines * lb) << bits;
      if (bits == 1) {
         EXPECT_GE(counter(r.c, "mc", "read_bytes"), lines * lb);
      }
   }
}

/* A RESOLVE of a @w x @h 4-sample RGBA8 colour buffer (recognisable
 * samples) into a new single-sample surface (returned), then a DUMP of it. */
static VLG_SURFACE
resolve_scene(Scene &s, unsigned w, unsigned h)
{
   TestDraw &t = s.t;
   t.framebuffer(w, h);
   t.fb.samples = 4;
   t.fb.cbufs[0] = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, w * 4, h);
   t.fb.cbufs[0].width = w;
   /* recognisable samples, written by the test */
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w * 4; x++) {
         const uint8_t px[4] = {uint8_t(x * 7 + y), uint8_t(x >> 2), uint8_t(y * 3), 255};
         t.vram.write(t.fb.cbufs[0].address + uint64_t(y) * t.fb.cbufs[0].pitch + x * 4, px, 4,
                      "test");
      }
   VLG_SURFACE dst = t.surface(VLG_FORMAT_R8G8B8A8_UNORM, w, h);
   uint32_t sw[VLG_SURFACE_LENGTH];
   VLG_SURFACE_pack(sw, &dst);
   t.draw.kind = VLG_DRAW_KIND_RESOLVE;
   t.draw.resolve_dst = t.put(sw, sizeof(sw));
   s.draw();
   dump_one_pixel(s, dst);
   s.finish();
   return dst;
}

/* A RESOLVE reads the 4 samples of every pixel and writes the resolved
 * lines through the L2 to the MC: at least (source + destination bytes) /
 * bandwidth cycles. */
TEST(OmuClear, ResolveReadsSamplesAndWritesLines)
{
   constexpr unsigned kW = 256, kH = 64;
   for (uint32_t bw : {8u, 64u}) {
      const Config p = with_bandwidth(bw);
      Scene s(8ull << 20);
      TestDraw &t = s.t;
      const VLG_SURFACE dst = resolve_scene(s, kW, kH);
      const BothRuns r = run_both(s, p);
      EXPECT_EQ(std::memcmp(r.f.vram->data() + dst.address, r.c.vram->data() + dst.address,
                            uint64_t(dst.pitch) * kH),
                0);
      const uint64_t lb = p.l2_line_bytes;
      const uint64_t dst_lines = rect_lines(dst, 4, 0, 0, kW, kH, unsigned(lb));
      const uint64_t src_lines = rect_lines(t.fb.cbufs[0], 16, 0, 0, kW, kH, unsigned(lb));
      EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_lines"), dst_lines);
      EXPECT_EQ(counter(r.c, "gpc0.omu", "clear_line_reads"), src_lines);
      EXPECT_EQ(counter(r.c, "mc", "write_bytes"), dst_lines * lb);
      EXPECT_GE(counter(r.c, "mc", "read_bytes"), src_lines * lb);
      EXPECT_GE(r.c.res.cycles, (src_lines + dst_lines) * lb / bw) << bw;
      EXPECT_GE(r.c.res.cycles,
                (src_lines + dst_lines) * lb / with_bandwidth(bw).omu_clear_bytes_per_cycle);
   }
}

/* The MC sleeps (counted busy) while only its bus transfers, the OMU's
 * clear engine sleeps after a busy tick when its next ticks would only
 * wait: ticking every module every cycle instead must give the same
 * cycles and the same statistics (activity cycles, counters, queues) for
 * colour, masked depth/stencil and full clears and a resolve, at three
 * memory bandwidths and a slow clear engine; only the ticks differ. */
TEST(OmuClear, SleepingChangesNothing)
{
   auto clears = [](Scene &s) {
      s.t.framebuffer(320, 200, VLG_FORMAT_R8G8B8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
      const float color[4] = {0.25f, 0.5f, 0.75f, 1.0f};
      s.clear(1u << 2, color);
      s.clear(1u, color, 0.5f, 7); /* depth only: read-modify-write */
      s.clear(7u, color, 1.0f, 0);
      dump_one_pixel(s, s.t.fb.cbufs[0]);
      s.finish();
   };
   auto resolve = [](Scene &s) { resolve_scene(s, 128, 32); };
   const struct {
      uint32_t bw, clear_rate;
   } configs[] = {{8, 0}, {32, 0}, {128, 0}, {128, 16}};
   for (const auto &cfg : configs)
      for (int k = 0; k < 2; k++) {
         const std::string what = std::string(k ? "resolve" : "clears") + " at bandwidth " +
                                  std::to_string(cfg.bw) + " clear rate " +
                                  std::to_string(cfg.clear_rate);
         Scene s(8ull << 20);
         if (k)
            resolve(s);
         else
            clears(s);
         const Config p = with_bandwidth(cfg.bw, cfg.clear_rate);
         CycleGpu a{p}, b{p};
         b.never_sleep();
         static uint8_t px[4];
         RecordingHost ha, hb; /* the DUMP's display */
         ha.displays.push_back(Display{px, 4, 1, 1, VLG_FORMAT_R8G8B8A8_UNORM});
         hb.displays = ha.displays;
         const ModeRun ra = run_scene(s, a, &ha), rb = run_scene(s, b, &hb);
         ASSERT_TRUE(ra.res.faults.empty()) << what << ": " << ra.res.faults[0].text;
         ASSERT_TRUE(rb.res.faults.empty()) << what << ": " << rb.res.faults[0].text;
         EXPECT_EQ(ra.res.cycles, rb.res.cycles) << what;
         ASSERT_EQ(ra.res.draws.size(), rb.res.draws.size()) << what;
         for (size_t i = 0; i < ra.res.draws.size(); i++)
            EXPECT_EQ(ra.res.draws[i].cycles, rb.res.draws[i].cycles) << what << " draw " << i;
         EXPECT_EQ(ra.res.stats["bottleneck"], rb.res.stats["bottleneck"]) << what;
         uint64_t ticks_a = 0, ticks_b = 0;
         for (auto it = ra.res.stats["modules"].begin(); it != ra.res.stats["modules"].end();
              ++it) {
            const auto &ma = it.value(), &mb = rb.res.stats["modules"][it.key()];
            for (const char *key : {"busy", "stalled", "starved", "idle"})
               EXPECT_EQ(ma[key], mb[key]) << what << " " << it.key() << " " << key;
            EXPECT_EQ(ma["counters"], mb["counters"]) << what << " " << it.key();
            if (it.key() == "mc" || it.key() == "gpc0.omu") {
               ticks_a += ma["ticks"].get<uint64_t>();
               ticks_b += mb["ticks"].get<uint64_t>();
            }
         }
         EXPECT_EQ(ra.res.stats["queues"], rb.res.stats["queues"]) << what;
         EXPECT_LT(ticks_a, ticks_b) << what << ": the OMU and the MC sleep through part of it";
      }
}
