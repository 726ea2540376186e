/*
 * CP package loading and the GE's fetch faults: a malformed package is a
 * GpuFault whose module and message name the block and the field.
 */
#include <gtest/gtest.h>

#include <functional>

#include "pipe_test_util.h"
#include "sim/func/pipe/geometry.h"
#include "sim/func/pipe/package.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

namespace {

/** A valid triangle draw: one R32G32B32A32_FLOAT attribute, VS/FS trivial. */
void
valid_draw(TestDraw &t)
{
   t.framebuffer(16, 16, VLG_FORMAT_B8G8R8A8_UNORM, VLG_FORMAT_Z24_UNORM_S8_UINT);
   const std::vector<float> pos = {0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1};
   const unsigned vb = t.vertex_buffer(pos, 16);
   t.element(vb, VLG_FORMAT_R32G32B32A32_FLOAT);
   t.vs.code = assemble("BRC.END\n");
   t.vs.input(0, VLG_INPUT_SEMANTIC_ATTRIBUTE, 0);
   t.vs.output(0, VLG_OUTPUT_SEMANTIC_POSITION);
   t.fs.code = assemble("BRC.END\n");
   t.fs.output(0, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.draw.count = 3;
}

/** Expect a GpuFault from @f whose module is @module and whose what()
 * contains every string of @needles. */
void
expect_fault(const std::function<void()> &f, const char *module,
             std::initializer_list<const char *> needles)
{
   try {
      f();
      ADD_FAILURE() << "no GpuFault";
   } catch (const GpuFault &e) {
      EXPECT_EQ(e.module(), module) << e.what();
      for (const char *n : needles)
         EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
            << "'" << n << "' not in: " << e.what();
   }
}

} // namespace

TEST(Package, ValidDrawLoads)
{
   TestDraw t;
   valid_draw(t);
   const uint64_t a = t.write();
   const DrawPackage p = load_draw_package(t.vram, a);
   EXPECT_EQ(p.address, a);
   EXPECT_EQ(p.draw.count, 3u);
   ASSERT_EQ(p.vertex_elements.size(), 1u);
   EXPECT_EQ(p.vertex_elements[0].format, VLG_FORMAT_R32G32B32A32_FLOAT);
   ASSERT_EQ(p.vertex_buffers.size(), 1u);
   EXPECT_EQ(p.vertex_buffers[0].stride, 16u);
   EXPECT_EQ(p.fb.cbufs[0].format, VLG_FORMAT_B8G8R8A8_UNORM);
   EXPECT_EQ(p.vs.state.num_inputs, 1u);
   EXPECT_FALSE(p.is_clear());
}

TEST(Package, DrawInfoOutsideVram)
{
   TestDraw t;
   expect_fault([&] { load_draw_package(t.vram, t.vram.size() - 8); }, "CP",
                {"draw_info", "outside VRAM"});
}

TEST(Package, UndescribedBitInStateWord)
{
   TestDraw t;
   valid_draw(t);
   const uint64_t a = t.write();
   /* set a reserved bit of depth_stencil_alpha word 0 (bits 31:12 reserved),
    * pipe_state word 49 */
   uint32_t w = t.vram.read32(t.draw.pipe_state + 49 * 4, "test");
   w |= 1u << 20;
   t.vram.write(t.draw.pipe_state + 49 * 4, &w, 4, "test");
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"pipe_state", "0x00100000"});
}

TEST(Package, UnnamedEnumValue)
{
   TestDraw t;
   valid_draw(t);
   const uint64_t a = t.write();
   /* blend.rt[0] is pipe_state word 55; rgb_src_factor bits 8:4 = 0 (no name) */
   uint32_t w = t.vram.read32(t.draw.pipe_state + 55 * 4, "test");
   w &= ~(0x1fu << 4);
   t.vram.write(t.draw.pipe_state + 55 * 4, &w, 4, "test");
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"pipe_state", "rgb_src_factor"});
}

TEST(Package, BlockOutsideVram)
{
   TestDraw t;
   valid_draw(t);
   const uint64_t a = t.write();
   VLG_DRAW_INFO d = t.draw;
   d.vertex_buffers = t.vram.size() - 4;
   uint32_t dw[VLG_DRAW_INFO_LENGTH];
   VLG_DRAW_INFO_pack(dw, &d);
   t.vram.write(a, dw, sizeof(dw), "test");
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"vertex_buffer[0]", "outside VRAM"});
}

TEST(Package, SurfaceOutsideVram)
{
   TestDraw t(1 << 20);
   valid_draw(t);
   t.fb.cbufs[0].address = (1 << 20) - 512; /* 16 rows of 64 bytes do not fit */
   const uint64_t a = t.write();
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP",
                {"framebuffer.cbufs[0]", "outside VRAM"});
}

TEST(Package, LayeredSurfaces)
{
   /* docs/hw.md "Layered rendering": layers 1..4095, layers that do not
    * overlap, every layer inside VRAM (surface_extent_bytes counts them) */
   TestDraw t(1 << 20);
   valid_draw(t);
   VLG_SURFACE &cb = t.fb.cbufs[0];
   cb.layers = 3;
   cb.layer_stride = cb.pitch * 16;
   cb.address = t.alloc(uint64_t(cb.layer_stride) * 3);
   EXPECT_EQ(surface_extent_bytes(cb), 2ull * cb.layer_stride + cb.pitch * 15 + 16 * 4);
   load_draw_package(t.vram, t.write());

   cb.layers = 0;
   uint64_t a = t.write();
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"framebuffer.cbufs[0]", "layers = 0"});
   cb.layers = 3;
   cb.layer_stride = cb.pitch * 15;
   a = t.write();
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"framebuffer.cbufs[0]", "overlap"});
   cb.layer_stride = cb.pitch * 16;
   cb.address = (1 << 20) - 2 * uint64_t(cb.layer_stride); /* the third layer does not fit */
   a = t.write();
   expect_fault([&] { load_draw_package(t.vram, a); }, "CP",
                {"framebuffer.cbufs[0]", "outside VRAM"});
}

TEST(Package, FormatNotUsableForItsRole)
{
   {
      TestDraw t;
      valid_draw(t);
      t.elements[0].format = VLG_FORMAT_Z24_UNORM_S8_UINT; /* zs/tex only */
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP",
                   {"vertex_element[0]", "Z24_UNORM_S8_UINT"});
   }
   {
      TestDraw t;
      valid_draw(t);
      t.fb.cbufs[0].format = VLG_FORMAT_R8G8B8_UNORM; /* vertex only */
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"cbufs[0]", "render target"});
   }
   {
      TestDraw t;
      valid_draw(t);
      t.fb.zsbuf.format = VLG_FORMAT_R32_FLOAT;
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"zsbuf", "depth/stencil"});
   }
}

TEST(Package, CountsAndConsistency)
{
   {
      TestDraw t;
      valid_draw(t);
      t.draw.vertices_per_prim = 2;
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"vertices_per_prim"});
   }
   {
      TestDraw t;
      valid_draw(t);
      t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 3); /* only 1 element */
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"vs shader_state", "ATTRIBUTE 3"});
   }
   {
      TestDraw t;
      valid_draw(t);
      t.fs.st.num_regs = 4;
      t.fs.input(9, VLG_INPUT_SEMANTIC_VARYING, 0);
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"fs shader_state", "R9"});
   }
   {
      TestDraw t; /* multisample rasterisation loads (ignored with 1 sample) */
      valid_draw(t);
      t.pipe.rasterizer.multisample = true;
      EXPECT_NO_THROW(load_draw_package(t.vram, t.write()));
   }
   for (unsigned samples : {2u, 8u}) {
      TestDraw t; /* docs/hw.md "Multisampling": 1 and 4 only */
      valid_draw(t);
      t.fb.samples = samples;
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"framebuffer", "only 0, 1 and 4"});
   }
   {
      TestDraw t; /* 4 samples on single-sample surfaces: rows too short */
      valid_draw(t);
      t.fb.samples = 4;
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP",
                   {"framebuffer.cbufs[0]", "x 4 samples"});
   }
   {
      TestDraw t; /* 4-sample surfaces (pitch >= 4 x width x bytes) load */
      valid_draw(t);
      t.fb.samples = 4;
      t.fb.cbufs[0] = t.surface(VLG_FORMAT_B8G8R8A8_UNORM, 64, 16);
      t.fb.cbufs[0].width = 16;
      t.fb.zsbuf = t.surface(VLG_FORMAT_Z24_UNORM_S8_UINT, 64, 16);
      t.fb.zsbuf.width = 16;
      t.pipe.rasterizer.multisample = true;
      EXPECT_NO_THROW(load_draw_package(t.vram, t.write()));
   }
   {
      TestDraw t;
      valid_draw(t);
      t.fb.samples = 1;
      load_draw_package(t.vram, t.write());
   }
   {
      TestDraw t;
      valid_draw(t);
      t.pipe.blend.rt[0].blend_enable = true;
      t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_SRC1_ALPHA;
      t.fs.output(0, VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 1); /* only index 0 exists */
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP",
                   {"fs shader_state", "DUAL_SOURCE_COLOR 1"});
   }
   {
      TestDraw t; /* dual-source blending loads (docs/hw.md) */
      valid_draw(t);
      t.pipe.blend.rt[0].blend_enable = true;
      t.pipe.blend.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_SRC1_ALPHA;
      t.fs.output(0, VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR, 0);
      const uint64_t a = t.write();
      EXPECT_NO_THROW(load_draw_package(t.vram, a));
   }
   {
      TestDraw t;
      valid_draw(t);
      t.vs.st.num_outputs = 0; /* no POSITION */
      const uint64_t a = t.write();
      expect_fault([&] { load_draw_package(t.vram, a); }, "CP", {"POSITION"});
   }
}

TEST(Package, ClearLoadsOnlyTheFramebuffer)
{
   TestDraw t;
   t.framebuffer(4, 4);
   t.draw.kind = VLG_DRAW_KIND_CLEAR;
   t.draw.pipe_state = t.vram.size() + 4096; /* ignored for CLEAR */
   const uint64_t a = t.write();
   EXPECT_TRUE(load_draw_package(t.vram, a).is_clear());
}

TEST(GeFetch, IndexPastTheBuffer)
{
   TestDraw t;
   valid_draw(t);
   t.indices(std::vector<uint16_t>{0, 1, 2});
   t.draw.start = 1; /* elements 1, 2, 3: the last is beyond 6 bytes */
   const uint64_t a = t.write();
   const DrawPackage p = load_draw_package(t.vram, a);
   const GeState ge = make_ge_state(p);
   EXPECT_EQ(ge_fetch_index(ge, t.vram, 0).index, 1u);
   EXPECT_EQ(ge_fetch_index(ge, t.vram, 1).index, 2u);
   expect_fault([&] { ge_fetch_index(ge, t.vram, 2); }, "GE",
                {"index fetch out of bounds", "index_buffer_size = 6"});
}

TEST(GeFetch, IndexSizesAndRestart)
{
   for (unsigned size : {1u, 2u, 4u}) {
      TestDraw t;
      valid_draw(t);
      const std::vector<uint32_t> idx = {7, 0xff, 3, 0xffff, 0xffffffffu};
      if (size == 1)
         t.indices(std::vector<uint8_t>{7, 0xff, 3, 0xff, 0xff});
      else if (size == 2)
         t.indices(std::vector<uint16_t>{7, 0xff, 3, 0xffff, 0xffff});
      else
         t.indices(idx);
      t.draw.primitive_restart = true;
      t.draw.restart_index = size == 1 ? 0xff : size == 2 ? 0xffff : 0xffffffffu;
      const uint64_t a = t.write();
      const GeState ge = make_ge_state(load_draw_package(t.vram, a));
      EXPECT_EQ(ge_fetch_index(ge, t.vram, 0).index, 7u);
      EXPECT_EQ(ge_fetch_index(ge, t.vram, 1).restart, size == 1) << size;
      EXPECT_EQ(ge_fetch_index(ge, t.vram, 2).index, 3u);
      EXPECT_EQ(ge_fetch_index(ge, t.vram, 3).restart, size <= 2) << size;
      EXPECT_TRUE(ge_fetch_index(ge, t.vram, 4).restart);
   }
}

TEST(GeFetch, VertexPastTheBuffer)
{
   TestDraw t;
   valid_draw(t); /* 3 vertices of 16 bytes */
   const uint64_t a = t.write();
   const GeState ge = make_ge_state(load_draw_package(t.vram, a));
   uint32_t out[kMaxShaderIo][4];
   ge_fetch_vs_inputs(ge, t.vram, 2, 0, out);
   EXPECT_EQ(as_float(out[0][1]), 1.0f);
   expect_fault([&] { ge_fetch_vs_inputs(ge, t.vram, 3, 0, out); }, "GE",
                {"vertex fetch out of bounds", "vertex_buffer[0]"});
   expect_fault([&] { ge_fetch_vs_inputs(ge, t.vram, -1, 0, out); }, "GE",
                {"vertex fetch out of bounds"});
}

TEST(GeFetch, InstanceDivisorAndSystemValues)
{
   TestDraw t;
   valid_draw(t);
   const std::vector<float> per_inst = {10, 20, 30, 40};
   const unsigned vb = t.vertex_buffer(per_inst, 4);
   t.element(vb, VLG_FORMAT_R32_FLOAT, 0, 2); /* advances every 2 instances */
   t.vs.input(1, VLG_INPUT_SEMANTIC_ATTRIBUTE, 1);
   t.vs.input(2, VLG_INPUT_SEMANTIC_VERTEX_ID);
   t.vs.input(3, VLG_INPUT_SEMANTIC_INSTANCE_ID);
   t.draw.start_instance = 1;
   const uint64_t a = t.write();
   const GeState ge = make_ge_state(load_draw_package(t.vram, a));
   uint32_t out[kMaxShaderIo][4];
   const float want[] = {20, 20, 30, 30, 40, 40};
   for (uint32_t inst = 0; inst < 5; inst++) {
      ge_fetch_vs_inputs(ge, t.vram, 1, inst, out);
      EXPECT_EQ(as_float(out[1][0]), want[inst]) << inst; /* start_instance + inst / 2 */
      EXPECT_EQ(as_float(out[1][3]), 1.0f);               /* missing w reads 1 */
      EXPECT_EQ(out[2][0], 1u);
      EXPECT_EQ(out[3][0], inst);
   }
   expect_fault([&] { ge_fetch_vs_inputs(ge, t.vram, 1, 6, out); }, "GE", {"instance 4"});
}
