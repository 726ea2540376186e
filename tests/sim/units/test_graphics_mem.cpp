/*
 * MEM in vertex and fragment shaders (images, SSBOs and atomic counters of
 * GL ES 3.1 graphics stages; docs/hw.md "Memory in vertex and fragment
 * shaders") on the whole GPU in both modes:
 *  - an FS stores one word per fragment (at an address computed from
 *    FRAG_COORD) and counts its invocations with MEM.ATOM_ADD: the words and
 *    the count must match the covered pixels, computed here with the
 *    rasterisation rule (ref_covered), with helper lanes running
 *    (uses_derivatives) and with killed lanes (BRC.KILL before the MEM);
 *  - early depth: with writes_memory the FS runs for fragments that fail
 *    the depth test too (the count includes them), with
 *    early_fragment_tests it runs only for the passing ones;
 *  - a VS counts its invocations with an atomic;
 *  - MEM.S and MEM.BAR in an FS stop the draw with a GPU fault;
 *  - a draw that loads what the previous draw's FS stored sees all of it in
 *    every cycle-mode configuration (the CP interlock of draws using MEM;
 *    without it the two_gpcs configuration fails);
 *  - a geometry shader stores one word per invocation and counts them with
 *    an atomic, and the next draw sees all of it (the interlock covers the
 *    GS's MEM too).
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gs_scenes.h"
#include "scenes.h"
#include "unit_configs.h"
#include "sim/units/cycle_gpu.h"
#include "common/bits.h"

using namespace vlgpu::sim;
using namespace vlgpu::sim::test;

using vlgpu::as_float;
using vlgpu::as_uint;

namespace {

const unsigned kW = 32, kH = 16;

/* The functional GPU, then a cycle-mode GPU in every unit configuration
 * (unit_configs.h), each with its name for failure messages. */
struct EveryMode {
   std::unique_ptr<Gpu> functional = make_functional_gpu(params(kConfigs[0]));
   std::vector<std::unique_ptr<CycleGpu>> cycle;
   std::vector<std::pair<Gpu *, std::string>> gpus;

   EveryMode()
   {
      gpus.push_back({functional.get(), "functional"});
      for (const NamedConfig &c : kConfigs) {
         cycle.push_back(std::make_unique<CycleGpu>(params(c)));
         gpus.push_back({cycle.back().get(), std::string("cycle ") + c.name});
      }
   }
};

/* FS: R0 = FRAG_COORD. word[y * kW + x] of the buffer at C2.x = its own
 * address; counter at C4.x += 1; colour C5. With @kill_left, fragments with
 * x < 8 are killed before any MEM. */
std::string
store_count_fs(bool kill_left)
{
   std::string s;
   if (kill_left)
      s += "    MOV R8, C6\n    PRED.LT P1, R0.x, R8.x\n    BRC.KILL if P1\n";
   s += R"(
    CONV.F2U R2, R0
    IMUL R3, R2.yyyy, C0
    SHL R4, R2.xxxx, C1
    IADD R3, R3, R4
    IADD R3, R3, C2
    MEM.ST R3.x, [R3]
    MOV R6, C3
    MOV R7, C4
    MEM.ATOM_ADD R6.x, [R7]
    MOV R1, C5
    BRC.END
)";
   return s;
}

struct MemScene {
   Scene s;
   uint64_t buffer = 0, counter = 0, vs_counter = 0;
};

/* One triangle (or a full-screen pair at two depths when @depth_halves) whose
 * FS stores and counts. */
void
build(MemScene &m, const std::vector<float> &verts, bool kill_left, bool derivatives,
      bool depth_test, bool early_fragment_tests, bool vs_count = false)
{
   Scene &s = m.s;
   TestDraw &t = s.t;
   t.framebuffer(kW, kH, VLG_FORMAT_R8G8B8A8_UNORM,
                 depth_test ? VLG_FORMAT_Z32_FLOAT : VLG_FORMAT_NONE);
   m.buffer = t.alloc(kW * kH * 4);
   m.counter = t.alloc(16);
   m.vs_counter = t.alloc(16);
   const float bg[4] = {0, 0, 0, 1};
   s.clear(depth_test ? (1u << 2) | 1u : 1u << 2, bg, 0.5f);
   s.next_draw();
   if (depth_test) {
      VLG_DEPTH_STENCIL_ALPHA &dsa = t.pipe.depth_stencil_alpha;
      dsa.depth_enable = true;
      dsa.depth_writemask = true;
      dsa.depth_func = VLG_COMPARE_FUNC_LESS;
   }
   color_pipeline(t, verts);
   if (vs_count) {
      t.vs.code = assemble(R"(
    MOV R4, R0
    MOV R5, R1
    MOV R6, C0
    MOV R7, C1
    MEM.ATOM_ADD R6.x, [R7]
    BRC.END
)");
      t.vs.consts = {as_float(1), 0, 0, 0, as_float(uint32_t(m.vs_counter)), 0, 0, 0};
      t.vs.st.writes_memory = true;
   }
   t.fs = TestShader(VLG_SHADER_STAGE_FRAGMENT); /* no colour varying */
   t.fs.code = assemble(store_count_fs(kill_left));
   t.fs.input(0, VLG_INPUT_SEMANTIC_FRAG_COORD, 0, 0xf, VLG_INTERP_CONSTANT);
   t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
   t.fs.consts = {as_float(kW * 4), 0, 0, 0,                       /* C0 row pitch */
                  as_float(2), 0, 0, 0,                            /* C1 shift */
                  as_float(uint32_t(m.buffer)), 0, 0, 0,           /* C2 buffer */
                  as_float(1), 0, 0, 0,                            /* C3 operand */
                  as_float(uint32_t(m.counter)), 0, 0, 0,          /* C4 counter */
                  0, 1, 0, 1,                                     /* C5 colour */
                  8, 0, 0, 0};                                    /* C6 kill x < 8 */
   t.fs.st.writes_memory = true;
   t.fs.st.uses_discard = kill_left;
   t.fs.st.uses_derivatives = derivatives;
   t.fs.st.early_fragment_tests = early_fragment_tests;
   s.draw();
   s.sync(1);
   s.finish();
}

/* Window position of an NDC vertex (viewport covering kW x kH, y down). */
void
window(const float *v, double *out)
{
   out[0] = (double(v[0]) + 1.0) * 0.5 * kW;
   out[1] = (double(v[1]) + 1.0) * 0.5 * kH;
}

struct Result {
   uint32_t count = 0, vs_count = 0;
   std::vector<uint32_t> words;
};

std::vector<Result>
run_both(const MemScene &m)
{
   const Config p = params(kConfigs[0]);
   auto fgpu = make_functional_gpu(p);
   CycleGpu cgpu(p);
   std::vector<Result> out;
   for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
      const ModeRun r = run_scene(m.s, *g);
      EXPECT_TRUE(r.res.faults.empty())
         << (g == &cgpu ? "cycle: " : "functional: ") << r.res.faults[0].text;
      Result x;
      x.count = r.vram->read32(m.counter, "test");
      x.vs_count = r.vram->read32(m.vs_counter, "test");
      for (unsigned i = 0; i < kW * kH; i++)
         x.words.push_back(r.vram->read32(m.buffer + 4 * i, "test"));
      out.push_back(std::move(x));
   }
   return out;
}

/* x y z w r g b a per vertex */
std::vector<float>
triangle(float z = 0.0f)
{
   return {-0.9f, -0.8f, z, 1, 0, 0, 0, 1, 0.7f, -0.3f, z, 1, 0, 0, 0, 1,
           -0.2f, 0.85f, z, 1, 0, 0, 0, 1};
}

void
check_triangle(bool kill_left, bool derivatives)
{
   MemScene m;
   const std::vector<float> v = triangle();
   build(m, v, kill_left, derivatives, false, false, true);
   double win[3][2];
   for (int k = 0; k < 3; k++)
      window(&v[8 * k], win[k]);
   uint32_t want = 0;
   std::vector<uint32_t> words(kW * kH, 0);
   for (unsigned y = 0; y < kH; y++)
      for (unsigned x = 0; x < kW; x++)
         if (ref_covered(win, x, y) && !(kill_left && x < 8)) {
            want++;
            words[y * kW + x] = uint32_t(m.buffer + 4 * (y * kW + x));
         }
   ASSERT_GT(want, 40u);
   const char *modes[2] = {"functional", "cycle"};
   const std::vector<Result> r = run_both(m);
   for (size_t i = 0; i < r.size(); i++) {
      EXPECT_EQ(r[i].count, want) << modes[i] << ": FS invocations counted by MEM.ATOM_ADD";
      EXPECT_EQ(r[i].words, words) << modes[i] << ": words stored by the FS";
      EXPECT_EQ(r[i].vs_count, 3u) << modes[i] << ": VS invocations counted by MEM.ATOM_ADD";
   }
}

TEST(GraphicsMem, FragmentStoresAndAtomicsOncePerCoveredFragment)
{
   check_triangle(false, false);
}

TEST(GraphicsMem, HelperLanesNeverStore)
{
   check_triangle(false, true);
}

TEST(GraphicsMem, KilledLanesNeverStore)
{
   check_triangle(true, true);
}

/* Left half at window depth 0.25 (passes LESS against the cleared 0.5),
 * right half at 0.75 (fails): the FS counts. */
void
check_depth(bool early_fragment_tests, uint32_t want)
{
   MemScene m;
   std::vector<float> v;
   auto quad = [&v](float x0, float x1, float z) {
      const float p[6][2] = {{x0, -1}, {x1, -1}, {x1, 1}, {x0, -1}, {x1, 1}, {x0, 1}};
      for (auto &q : p)
         v.insert(v.end(), {q[0], q[1], z, 1, 0, 0, 0, 1});
   };
   quad(-1, 0, -0.5f);
   quad(0, 1, 0.5f);
   build(m, v, false, false, true, early_fragment_tests);
   const char *modes[2] = {"functional", "cycle"};
   const std::vector<Result> r = run_both(m);
   for (size_t i = 0; i < r.size(); i++) {
      EXPECT_EQ(r[i].count, want) << modes[i];
      unsigned left = 0, right = 0;
      for (unsigned y = 0; y < kH; y++)
         for (unsigned x = 0; x < kW; x++)
            (x < kW / 2 ? left : right) += r[i].words[y * kW + x] != 0;
      EXPECT_EQ(left, kW * kH / 2) << modes[i];
      EXPECT_EQ(right, want - kW * kH / 2) << modes[i];
   }
}

TEST(GraphicsMem, WritesMemoryTurnsEarlyDepthOff)
{
   check_depth(false, kW * kH); /* every fragment runs the FS (GL ES 3.1 §15.2.4) */
}

TEST(GraphicsMem, EarlyFragmentTestsRunDepthBeforeTheShader)
{
   check_depth(true, kW * kH / 2);
}

TEST(GraphicsMem, SharedMemoryAndBarrierFaultInAFragmentShader)
{
   for (const char *op : {"MEM.LD.S R6.x, [R7]", "MEM.BAR"}) {
      Scene s;
      s.t.framebuffer(kW, kH);
      s.next_draw();
      color_pipeline(s.t, triangle());
      s.t.fs.code =
         assemble(std::string("    MOV R7, C0\n    ") + op + "\n    MOV R1, R0\n    BRC.END\n");
      s.t.fs.consts = {0, 0, 0, 0};
      s.draw();
      s.sync(1);
      s.finish();
      const Config p = params(kConfigs[0]);
      auto fgpu = make_functional_gpu(p);
      CycleGpu cgpu(p);
      for (Gpu *g : {static_cast<Gpu *>(fgpu.get()), static_cast<Gpu *>(&cgpu)}) {
         const ModeRun r = run_scene(s, *g);
         ASSERT_FALSE(r.res.faults.empty()) << op;
         EXPECT_EQ(r.res.faults[0].summary, "MEM outside a compute shader") << op;
      }
   }
}

} // namespace

namespace {

/* Draw 1's FS counts its fragments with MEM.ATOM_ADD; draw 2, right after
 * it in the queue, loads the counter in its FS and stores what it saw for
 * every pixel. A draw whose shaders use MEM waits for the earlier draws
 * (docs/hw.md "Memory in vertex and fragment shaders"), so every pixel of
 * draw 2 sees draw 1's final count, in both modes. */
TEST(GraphicsMem, ALaterDrawSeesEveryStoreOfAnEarlierOne)
{
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(kW, kH);
   const uint64_t counter = t.alloc(16), seen = t.alloc(kW * kH * 4);
   const std::vector<float> quad = {-1, -1, 0, 1, 0, 0, 0, 1, 1, -1, 0, 1, 0, 0, 0, 1,
                                    1,  1,  0, 1, 0, 0, 0, 1, -1, -1, 0, 1, 0, 0, 0, 1,
                                    1,  1,  0, 1, 0, 0, 0, 1, -1, 1,  0, 1, 0, 0, 0, 1};
   for (int pass = 0; pass < 2; pass++) {
      s.next_draw();
      color_pipeline(t, quad);
      t.fs = TestShader(VLG_SHADER_STAGE_FRAGMENT);
      t.fs.input(0, VLG_INPUT_SEMANTIC_FRAG_COORD, 0, 0xf, VLG_INTERP_CONSTANT);
      t.fs.output(1, VLG_OUTPUT_SEMANTIC_COLOR, 0);
      t.fs.consts = {as_float(kW * 4), 0, 0, 0, as_float(2), 0, 0, 0, as_float(uint32_t(seen)), 0, 0, 0,
                     as_float(1), 0, 0, 0, as_float(uint32_t(counter)), 0, 0, 0, 0, 1, 0, 1};
      /* draw 1 spins 100 iterations first, so that without the interlock
       * draw 2's fragments would run (on other SPCs) before it ends */
      t.fs.code = assemble(pass == 0 ? R"(
    ADDR LC, #0
spin:
    PRED.ILT P0, ++LC, #100
    BRC.JMP spin if P0
    MOV R6, C3
    MOV R7, C4
    MEM.ATOM_ADD R6.x, [R7]
    MOV R1, C5
    BRC.END
)"
                                     : R"(
    CONV.F2U R2, R0
    IMUL R3, R2.yyyy, C0
    SHL R4, R2.xxxx, C1
    IADD R3, R3, R4
    IADD R3, R3, C2
    MOV R7, C4
    MEM.LD R6.x, [R7]
    MEM.ST R6.x, [R3]
    MOV R1, C5
    BRC.END
)");
      t.fs.st.writes_memory = true;
      s.draw();
   }
   s.sync(1);
   s.finish();
   /* functional, then cycle mode in every unit configuration (two_gpcs
    * and overlap, 8 draws in flight, are the ones that would overlap) */
   const EveryMode modes;
   for (auto &[g, mode] : modes.gpus) {
      const ModeRun r = run_scene(s, *g);
      ASSERT_TRUE(r.res.faults.empty()) << mode << ": " << r.res.faults[0].text;
      EXPECT_EQ(r.vram->read32(counter, "test"), kW * kH) << mode;
      unsigned wrong = 0;
      for (unsigned i = 0; i < kW * kH; i++)
         wrong += r.vram->read32(seen + 4 * i, "test") != kW * kH;
      EXPECT_EQ(wrong, 0u) << mode << ": pixels of draw 2 that saw another count than draw 1's";
   }
}

} // namespace

namespace {

/* Draw 1: a geometry shader with 3 invocations per input point (GL ES 3.2
 * section 11.3.4.2; OES_geometry_shader with SSBOs and atomic counters) over
 * kPoints points emits nothing; after spinning 100 iterations, lane
 * (PRIMITIVE_ID p, INVOCATION_ID i) stores 3 p + i + 1 into word 3 p + i and
 * adds 1 to a counter. Draw 2, without MEM, fetches the counter as a
 * stride-0 vertex attribute and streams it out for its 6 vertices: it must
 * wait for draw 1 (the interlock of draws whose shaders use MEM covers the
 * GS: without it every cycle-mode configuration fetched an earlier count).
 * Every word, the count
 * 3 kPoints and what draw 2 saw must be right in functional mode and in
 * every cycle-mode configuration. */
TEST(GraphicsMem, GeometryShaderStoresAndAtomicsOncePerInvocation)
{
   const unsigned kPoints = 11, kInvocations = 3, kLanes = kPoints * kInvocations;
   Scene s;
   TestDraw &t = s.t;
   t.framebuffer(kW, kH);
   const uint64_t counter = t.alloc(16), words = t.alloc(kLanes * 4);
   s.next_draw();
   std::vector<float> pts;
   for (unsigned i = 0; i < kPoints; i++)
      pts.insert(pts.end(), {-0.9f + 0.15f * float(i), 0, 0, 1, 0, 0, 0, 1});
   t.draw.prim = VLG_PRIM_POINTS;
   t.draw.vertices_per_prim = 1;
   color_pipeline(t, pts);
   gs_io(t, 1, 1);
   t.gs.input(2, VLG_INPUT_SEMANTIC_PRIMITIVE_ID, 0, 0x1);
   t.gs.input(3, VLG_INPUT_SEMANTIC_INVOCATION_ID, 0, 0x1);
   t.gs.st.gs_output_prim = VLG_PRIM_POINTS;
   t.gs.st.gs_invocations = kInvocations;
   t.gs.st.writes_memory = true;
   t.gs.code = assemble(R"(
    ADDR LC, #0
spin:
    PRED.ILT P0, ++LC, #100
    BRC.JMP spin if P0
    IMUL R4, R2.xxxx, C0
    IADD R4, R4, R3.xxxx
    SHL R5, R4, C1
    IADD R5, R5, C2
    IADD R6, R4, C3
    MEM.ST R6.x, [R5]
    MOV R6, C3
    MOV R7, C4
    MEM.ATOM_ADD R6.x, [R7]
    BRC.END
)");
   t.gs.consts = {as_float(kInvocations), 0, 0, 0, as_float(2), 0, 0, 0,
                  as_float(uint32_t(words)), 0, 0, 0, as_float(1), 0, 0, 0,
                  as_float(uint32_t(counter)), 0, 0, 0};
   s.draw();

   s.next_draw();
   const std::vector<float> quad = {-1, -1, 0, 1, 0, 0, 0, 1, 1, -1, 0, 1, 0, 0, 0, 1,
                                    1,  1,  0, 1, 0, 0, 0, 1, -1, -1, 0, 1, 0, 0, 0, 1,
                                    1,  1,  0, 1, 0, 0, 0, 1, -1, 1,  0, 1, 0, 0, 0, 1};
   color_pipeline(t, quad);
   VLG_VERTEX_BUFFER cb;
   VLG_VERTEX_BUFFER_init(&cb);
   cb.address = counter;
   cb.size = 16;
   cb.stride = 0;
   t.buffers.push_back(cb);
   t.elements[1].vertex_buffer_index = unsigned(t.buffers.size() - 1);
   t.elements[1].format = VLG_FORMAT_R32G32B32A32_UINT;
   t.elements[1].src_offset = 0;
   uint64_t so_buf = 0, so_filled = 0;
   gs_stream_out(t, 5 /* the VS's attribute 1 */, so_buf, so_filled, 16 * 6, 0xab);
   s.draw();
   s.sync(1);
   s.finish();

   const EveryMode modes;
   for (auto &[g, mode] : modes.gpus) {
      const ModeRun r = run_scene(s, *g);
      ASSERT_TRUE(r.res.faults.empty()) << mode << ": " << r.res.faults[0].text;
      EXPECT_EQ(r.res.draws.at(0).counters.gs_invocations, kLanes) << mode;
      EXPECT_EQ(r.vram->read32(counter, "test"), kLanes) << mode;
      for (unsigned w = 0; w < kLanes; w++)
         EXPECT_EQ(r.vram->read32(words + 4 * w, "test"), w + 1) << mode << " word " << w;
      EXPECT_EQ(r.vram->read32(so_filled, "test"), 16u * 6u) << mode;
      for (unsigned v = 0; v < 6; v++)
         EXPECT_EQ(r.vram->read32(so_buf + 16 * v, "test"), kLanes)
            << mode << ": draw 2's vertex " << v << " saw another count than draw 1's";
   }
}

} // namespace
