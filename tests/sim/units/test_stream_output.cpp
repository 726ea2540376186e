/*
 * Stream output (docs/hw.md "Stream output") on the whole GPU: the same
 * scene on the functional GPU and on CycleGpu (the configurations of
 * unit_configs.h and one more) must leave bit-identical VRAM (stream-output buffers,
 * filled sizes, query counters, pixels), and both must hold what GL ES 3.0
 * §2.15.2 says, computed here from the vertex data: a strip with a restart
 * and a fan decomposed in the order that keeps the provoking vertex where the
 * convention puts it (first vertex here: desktop glProvokingVertex; Gallium's
 * draw_so_emit_tmp.h, Piglit ext_transform_feedback-tessellation *
 * flat_first), a line loop closed, points, no partial primitive once a
 * buffer is full, a start offset, appending across draws, rasterizer
 * discard after stream output; in cycle mode the writes go to the L2.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"
#include "common/bits.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

using vlgpu::as_float;
using vlgpu::as_uint;

namespace {

struct SoScene {
   Scene s;
   uint64_t buf[3] = {}, filled[3] = {}, counters = 0;
   uint32_t size[3] = {240, 1024, 256};
   std::vector<float> strip, loop, fan, points; /* vertex data (8 floats each) */
};

void
build(SoScene &x)
{
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(64, 48);
   const float bg[4] = {0, 0, 0, 1};
   s.clear(1u << 2, bg);

   for (int b = 0; b < 3; b++) {
      std::vector<uint8_t> pattern(x.size[b], 0xab);
      x.buf[b] = t.put(pattern.data(), pattern.size(), 64);
      const uint32_t zero = 0;
      x.filled[b] = t.put(&zero, 4, 4);
   }
   const std::vector<uint64_t> zeros(4, 0);
   x.counters = t.put(zeros.data(), 32, 8);

   /* draw 1: indexed strip with a restart, provoking vertex first (the
    * stream-output order follows it); position -> buffer 0,
    * colour.yz -> buffer 1 dwords 1..2 */
   s.next_draw();
   for (int i = 0; i < 12; i++) {
      const float xx = -0.9f + 0.15f * float(i);
      x.strip.insert(x.strip.end(), {xx, (i & 1) ? 0.6f : -0.6f, 0.1f * float(i), 1.0f,
                                     0.01f * float(i), 100.0f + float(i), 200.0f + float(i), 1});
   }
   t.indices(std::vector<uint16_t>{0, 1, 2, 3, 4, 0xffff, 6, 7, 8, 9, 10, 11});
   t.draw.prim = VLG_PRIM_TRIANGLE_STRIP;
   t.draw.primitive_restart = true;
   t.draw.restart_index = 0xffff;
   t.pipe.rasterizer.flatshade_first = true;
   color_pipeline(t, x.strip);
   VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);
   so.num_counters = 1;
   so.counters = x.counters;
   for (int b = 0; b < 2; b++) {
      so.buffers[b].enable = true;
      so.buffers[b].stride = 16;
      so.buffers[b].address = x.buf[b];
      so.buffers[b].size = x.size[b];
      so.buffers[b].filled_size = x.filled[b];
   }
   so.num_outputs = 2;
   so.outputs[0].reg = 4;
   so.outputs[0].num_components = 4;
   so.outputs[1].reg = 5;
   so.outputs[1].start_component = 1;
   so.outputs[1].num_components = 2;
   so.outputs[1].buffer = 1;
   so.outputs[1].dst_offset = 1;
   t.draw.stream_output = put_so_block(t, so);
   s.draw();

   /* draw 2: a line loop appended to buffer 1 only, rasterizer discard,
    * two counter pairs */
   s.next_draw();
   t.pipe.rasterizer.flatshade_first = false;
   t.pipe.rasterizer.rasterizer_discard = true;
   for (int i = 0; i < 4; i++)
      x.loop.insert(x.loop.end(), {0.5f * float(i & 1), 0.5f * float(i >> 1), 0, 1, 0,
                                   300.0f + float(i), 400.0f + float(i), 1});
   t.draw.prim = VLG_PRIM_LINE_LOOP;
   t.draw.vertices_per_prim = 2;
   color_pipeline(t, x.loop);
   so.num_counters = 2;
   so.buffers[0].enable = false;
   so.buffers[1].append = true;
   so.buffers[1].offset = 4; /* ignored: append */
   so.num_outputs = 1;
   so.outputs[0] = so.outputs[1];
   t.draw.stream_output = put_so_block(t, so);
   s.draw();
   t.pipe.rasterizer.rasterizer_discard = false;

   /* draw 3: a fan, position.xy into buffer 2 from byte 32 (8-byte stride);
    * draw 4: points appended after it */
   s.next_draw();
   for (int i = 0; i < 5; i++)
      x.fan.insert(x.fan.end(), {0.1f * float(i), -0.2f * float(i * i), 0.5f, 1, 1, 1, 1, 1});
   t.draw.prim = VLG_PRIM_TRIANGLE_FAN;
   t.pipe.rasterizer.flatshade_first = true; /* (i+1, i+2, 0) order */
   color_pipeline(t, x.fan);
   VLG_STREAM_OUTPUT so2;
   VLG_STREAM_OUTPUT_init(&so2);
   so2.buffers[2].enable = true;
   so2.buffers[2].stride = 8;
   so2.buffers[2].address = x.buf[2];
   so2.buffers[2].size = x.size[2];
   so2.buffers[2].offset = 32;
   so2.buffers[2].filled_size = x.filled[2];
   so2.num_outputs = 1;
   so2.outputs[0].reg = 4;
   so2.outputs[0].num_components = 2;
   so2.outputs[0].buffer = 2;
   t.draw.stream_output = put_so_block(t, so2);
   s.draw();
   s.next_draw();
   for (int i = 0; i < 3; i++)
      x.points.insert(x.points.end(), {-0.5f - 0.1f * float(i), 0.7f, 0, 1, 1, 0, 0, 1});
   t.pipe.rasterizer.flatshade_first = false;
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, x.points);
   so2.buffers[2].append = true;
   t.draw.stream_output = put_so_block(t, so2);
   s.draw();
   s.sync(1);
   s.finish();
}

/* Order of a strip's triangles, restart = ~0u: GL ES 3.0 §2.15.2 (last
 * vertex provoking: odd triangles (k+1, k, k+2)) or, with the first vertex
 * provoking, odd triangles (k, k+2, k+1) (draw_decompose_tmp.h). */
std::vector<uint32_t>
strip_vertices(const std::vector<uint32_t> &idx, bool flatshade_first)
{
   std::vector<uint32_t> out, run;
   auto flush = [&] {
      for (size_t k = 0; k + 2 < run.size(); k++) {
         if (k % 2 == 0)
            out.insert(out.end(), {run[k], run[k + 1], run[k + 2]});
         else if (flatshade_first)
            out.insert(out.end(), {run[k], run[k + 2], run[k + 1]});
         else
            out.insert(out.end(), {run[k + 1], run[k], run[k + 2]});
      }
      run.clear();
   };
   for (uint32_t i : idx) {
      if (i == ~0u)
         flush();
      else
         run.push_back(i);
   }
   flush();
   return out;
}

/** What both buffers must hold, from the vertex data alone. */
void
expected(const SoScene &x, std::vector<uint32_t> &b0, std::vector<uint32_t> &b1)
{
   b0.assign(x.size[0] / 4, 0xabababab);
   b1.assign(x.size[1] / 4, 0xabababab);
   const std::vector<uint32_t> tri =
      strip_vertices({0, 1, 2, 3, 4, ~0u, 6, 7, 8, 9, 10, 11}, true);
   /* 16 bytes per vertex, 240 bytes in buffer 0: 15 vertices = 5 triangles */
   const size_t written = std::min<size_t>(tri.size(), 15);
   for (size_t k = 0; k < written; k++) {
      const float *v = &x.strip[tri[k] * 8];
      for (int c = 0; c < 4; c++)
         b0[k * 4 + c] = as_uint(v[c]);
      b1[k * 4 + 1] = as_uint(v[5]);
      b1[k * 4 + 2] = as_uint(v[6]);
   }
   const uint32_t lines[8] = {0, 1, 1, 2, 2, 3, 3, 0};
   for (size_t k = 0; k < 8; k++) {
      const float *v = &x.loop[lines[k] * 8];
      b1[(written + k) * 4 + 1] = as_uint(v[5]);
      b1[(written + k) * 4 + 2] = as_uint(v[6]);
   }
}

/** Buffer 2: the fan's triangles from byte 32 in the first-vertex order
 *  (i+1, i+2, 0), then the points. */
std::vector<uint32_t>
expected_b2(const SoScene &x)
{
   std::vector<uint32_t> b(x.size[2] / 4, 0xabababab);
   const uint32_t fan[9] = {1, 2, 0, 2, 3, 0, 3, 4, 0};
   size_t w = 32 / 4;
   for (uint32_t v : fan)
      for (int c = 0; c < 2; c++)
         b[w++] = as_uint(x.fan[v * 8 + c]);
   for (uint32_t v = 0; v < 3; v++)
      for (int c = 0; c < 2; c++)
         b[w++] = as_uint(x.points[v * 8 + c]);
   return b;
}

std::vector<uint32_t>
read_words(const Vram &v, uint64_t a, uint32_t bytes)
{
   std::vector<uint32_t> w(bytes / 4);
   v.read(a, w.data(), bytes, "test");
   return w;
}

/* The whole-GPU configurations (unit_configs.h) plus one whose small GTS
 * sub-blocks split the strips and fans across sub-blocks with many draws in
 * flight (stream output must still come out in GL order). */
std::vector<NamedConfig>
so_configs()
{
   std::vector<NamedConfig> v(std::begin(kConfigs), std::end(kConfigs));
   v.push_back({"small_sub_blocks", "cp.max_draws_in_flight=8,gts.sub_block_elements=3,l2.requests_per_cycle=4"});
   return v;
}
const std::vector<NamedConfig> kSoConfigs = so_configs();

class StreamOutputBothModes : public ::testing::TestWithParam<size_t> {};

TEST_P(StreamOutputBothModes, SameBuffersAsGl)
{
   const NamedConfig &cf = kSoConfigs[GetParam()];
   const Config p = params(cf);

   SoScene x;
   build(x);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   const ModeRun f = run_scene(x.s, *fgpu);
   const ModeRun c = run_scene(x.s, cgpu);
   ASSERT_TRUE(f.res.faults.empty()) << f.res.faults[0].text;
   ASSERT_TRUE(c.res.faults.empty()) << c.res.faults[0].text;
   ASSERT_EQ(f.res.draws.size(), 5u);
   ASSERT_EQ(c.res.draws.size(), 5u);

   std::vector<uint32_t> e0, e1;
   expected(x, e0, e1);
   for (const ModeRun *m : {&f, &c}) {
      const char *mode = m == &f ? "functional" : "cycle";
      EXPECT_EQ(read_words(*m->vram, x.buf[0], x.size[0]), e0) << mode << ": buffer 0";
      EXPECT_EQ(read_words(*m->vram, x.buf[1], x.size[1]), e1) << mode << ": buffer 1";
      EXPECT_EQ(m->vram->read32(x.filled[0], "test"), 240u) << mode;
      EXPECT_EQ(m->vram->read32(x.filled[1], "test"), 240u + 8 * 16) << mode;
      EXPECT_EQ(read_words(*m->vram, x.buf[2], x.size[2]), expected_b2(x)) << mode << ": buffer 2";
      EXPECT_EQ(m->vram->read32(x.filled[2], "test"), 32u + 9 * 8 + 3 * 8) << mode;
      uint64_t cnt[4];
      m->vram->read(x.counters, cnt, 32, "test");
      /* pair 0: 7 strip triangles generated, 5 written; + 4 loop lines */
      EXPECT_EQ(cnt[0], 7u + 4u) << mode;
      EXPECT_EQ(cnt[1], 5u + 4u) << mode;
      EXPECT_EQ(cnt[2], 4u) << mode;
      EXPECT_EQ(cnt[3], 4u) << mode;
      const DrawStats &d1 = m->res.draws[1].counters, &d2 = m->res.draws[2].counters;
      EXPECT_EQ(d1.ge.so_generated, 7u) << mode;
      EXPECT_EQ(d1.ge.so_written, 5u) << mode;
      EXPECT_GT(d1.pe.quads, 0u) << mode;
      EXPECT_EQ(d2.pe.quads, 0u) << mode << ": rasterizer discard";
   }
   EXPECT_EQ(read_words(*f.vram, 0, uint32_t(f.vram->size())),
             read_words(*c.vram, 0, uint32_t(c.vram->size())))
      << cf.name << ": VRAM differs between the modes";
   EXPECT_GT(c.res.cycles, 0u);
   /* cycle mode: the writes went to the L2 (posted line writes of GPC 0's PE):
    * 15 + 15 + 8 vertices of 16 bytes span at least 9 lines */
   const auto &pe = c.res.stats["modules"]["gpc0.pe"]["counters"];
   EXPECT_GE(pe["so_lines"].get<uint64_t>(), (15u + 15u + 8u) * 16u / p.l2_line_bytes);
}

INSTANTIATE_TEST_SUITE_P(Configs, StreamOutputBothModes,
                         ::testing::Range<size_t>(0, kSoConfigs.size()),
                         [](const ::testing::TestParamInfo<size_t> &i) {
                            return std::string(kSoConfigs[i.param].name);
                         });

/* A malformed block stops the draw with a GE fault in both modes. */
TEST(StreamOutput, BadRegisterFaults)
{
   SoScene x;
   Scene &s = x.s;
   TestDraw &t = s.t;
   t.framebuffer(16, 16);
   s.next_draw();
   color_pipeline(t, {-1, -1, 0, 1, 1, 1, 1, 1, 1, -1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1});
   x.buf[0] = t.alloc(256);
   x.filled[0] = t.alloc(4);
   VLG_STREAM_OUTPUT so;
   VLG_STREAM_OUTPUT_init(&so);
   so.buffers[0].enable = true;
   so.buffers[0].stride = 16;
   so.buffers[0].address = x.buf[0];
   so.buffers[0].size = 256;
   so.buffers[0].filled_size = x.filled[0];
   so.num_outputs = 1;
   so.outputs[0].reg = 9; /* not a VS output */
   so.outputs[0].num_components = 4;
   t.draw.stream_output = put_so_block(t, so);
   s.draw();
   s.finish();
   Config cfg;
   Config p(cfg);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const ModeRun r = run_scene(s, *g);
      ASSERT_EQ(r.res.faults.size(), 1u);
      EXPECT_EQ(r.res.faults[0].module, "GE");
      EXPECT_NE(r.res.faults[0].text.find("R9 is not an output register"), std::string::npos)
         << r.res.faults[0].text;
   }
}

} // namespace
