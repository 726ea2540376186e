/*
 * Test helpers for the cycle-mode GPU: scenes made of several draws built in
 * a Vram with the generated VLG_<STRUCT>_pack functions and assembled
 * shaders (TestDraw of tests/sim/func_pipe/pipe_test_util.h), a command
 * queue in the same Vram, a GpuHost that records its calls, and running one
 * scene on a Gpu over a private copy of the Vram.
 *
 * Expected pixels come from the functional GPU (FunctionalGpu), which is
 * tested on its own against references computed from the inputs and
 * against softpipe (tests/sim/func_pipe); the cycle-mode GPU must match it
 * bit for bit.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../cmd_test_util.h"
#include "../func_pipe/pipe_test_util.h"
#include "sim/core/gpu.h"
#include "sim/func/pipe/package.h"

#include <nlohmann/json.hpp>

namespace vlgpu::sim::test {

/* ---- a deterministic random source (same numbers on every host) -------- */

struct Lcg {
   uint64_t s;
   explicit Lcg(uint64_t seed) : s(seed) {}
   uint32_t next()
   {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return uint32_t(s >> 33);
   }
   /** Uniform in [lo, hi) with 2^-24 resolution. */
   float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 7) / 16777216.0f; }
};

/* ---- scenes --------------------------------------------------------------- */

/**
 * A command queue of several draws over one TestDraw: set up TestDraw's
 * state, call draw() (writes every block, appends DRAW), next_draw() to
 * start the next one (framebuffer and pipe state kept), then finish().
 */
struct Scene {
   TestDraw t;
   std::vector<uint32_t> queue;
   std::vector<uint64_t> draw_infos;
   uint64_t fence = 0;
   uint64_t queue_address = 0;

   explicit Scene(uint64_t vram_size = 8ull << 20) : t(vram_size) { fence = t.alloc(16); }

   /** Write the current draw's blocks and append its DRAW command. */
   uint64_t draw()
   {
      const uint64_t a = t.write();
      draw_infos.push_back(a);
      cmd_draw(queue, a);
      return a;
   }
   /** Forget the vertex buffers, elements, shaders and draw_info of the
    *  last draw (framebuffer and pipe_state stay). */
   void next_draw()
   {
      t.buffers.clear();
      t.elements.clear();
      t.vs = TestShader(VLG_SHADER_STAGE_VERTEX);
      t.fs = TestShader(VLG_SHADER_STAGE_FRAGMENT);
      t.gs = TestShader(VLG_SHADER_STAGE_GEOMETRY);
      t.use_gs = false;
      const VLG_DRAW_INFO old = t.draw;
      VLG_DRAW_INFO_init(&t.draw);
      t.draw.kind = VLG_DRAW_KIND_PRIMITIVES;
      t.draw.prim = VLG_PRIM_TRIANGLES;
      t.draw.vertices_per_prim = 3;
      (void)old;
   }
   /** A CLEAR draw of @buffers (PIPE_CLEAR_* bits) over the framebuffer. */
   void clear(unsigned buffers, const float rgba[4], float depth = 1.0f, unsigned stencil = 0)
   {
      const VLG_DRAW_INFO keep = t.draw;
      VLG_DRAW_INFO_init(&t.draw);
      t.draw.kind = VLG_DRAW_KIND_CLEAR;
      t.draw.clear_buffers = buffers;
      for (unsigned i = 0; i < 4; i++)
         t.draw.clear_color[i] = as_uint(rgba[i]);
      t.draw.clear_depth = depth;
      t.draw.clear_stencil = stencil;
      t.draw.clear_rect.maxx = t.fb.width;
      t.draw.clear_rect.maxy = t.fb.height;
      draw();
      t.draw = keep;
   }
   void sync(uint32_t value) { cmd_sync(queue, fence, value); }
   /** Append HALT (unless @halt is false) and write the queue into VRAM. */
   void finish(bool halt = true)
   {
      if (halt)
         cmd_halt(queue);
      queue_address = t.put(queue.data(), queue.size() * 4, 4);
   }
   uint32_t dwords() const { return uint32_t(queue.size()); }
};

/** A fresh Vram holding a copy of @v. */
inline std::unique_ptr<Vram>
clone_vram(const Vram &v)
{
   auto c = std::make_unique<Vram>(v.size());
   std::memcpy(c->data(), v.data(), v.size());
   return c;
}

/** A GpuHost that records its calls ("snapshot 0", "before 0", "after 0")
 *  and can run checks in them. */
struct RecordingHost : GpuHost {
   std::vector<std::string> calls;
   std::function<bool(const DrawContext &)> snapshot = [](const DrawContext &) { return false; };
   std::function<void(const DrawContext &, const Vram &)> on_before;
   std::function<void(const DrawContext &, const Vram &, const DrawReport &)> on_after;
   std::vector<Display> displays;

   const Display *display(uint32_t id) const override
   {
      return id < displays.size() ? &displays[id] : nullptr;
   }
   bool snapshot_draw(const DrawContext &ctx) override
   {
      calls.push_back("snapshot " + std::to_string(ctx.index_in_queue));
      return snapshot(ctx);
   }
   void before_draw(const DrawContext &ctx, const Vram &vram) override
   {
      calls.push_back("before " + std::to_string(ctx.index_in_queue));
      if (on_before)
         on_before(ctx, vram);
   }
   void after_draw(const DrawContext &ctx, const Vram &vram, const DrawReport &r) override
   {
      calls.push_back("after " + std::to_string(ctx.index_in_queue));
      if (on_after)
         on_after(ctx, vram, r);
   }
};

/** The scene run on one GPU over its own copy of the scene's VRAM. */
struct ModeRun {
   std::unique_ptr<Vram> vram;
   SubmitResult res;
};

inline ModeRun
run_scene(const Scene &s, Gpu &gpu, GpuHost *host = nullptr)
{
   ModeRun r;
   r.vram = clone_vram(s.t.vram);
   RecordingHost def;
   r.res = gpu.execute(*r.vram, s.queue_address, s.dwords(), host ? *host : def);
   return r;
}

/** Bytes of every render target and the depth/stencil buffer of @fb that
 *  differ between @a and @b; adds a failure naming the first difference. */
inline uint64_t
compare_surfaces(const VLG_FRAMEBUFFER &fb, const Vram &a, const Vram &b, const std::string &what)
{
   uint64_t bad = 0;
   auto cmp = [&](const VLG_SURFACE &s, const std::string &name) {
      if (s.format == VLG_FORMAT_NONE)
         return;
      const uint64_t n = surface_extent_bytes(s);
      const uint8_t *pa = a.data() + s.address, *pb = b.data() + s.address;
      for (uint64_t i = 0; i < n; i++) {
         if (pa[i] == pb[i])
            continue;
         if (bad++ == 0) {
            const unsigned bpp = vlg_format_bytes(s.format);
            ADD_FAILURE() << what << ": " << name << " differs first at pixel ("
                          << (i % s.pitch) / bpp << ", " << i / s.pitch << ") byte " << i % bpp
                          << ": " << int(pa[i]) << " vs " << int(pb[i]);
         }
      }
   };
   for (unsigned i = 0; i < fb.nr_cbufs; i++)
      cmp(fb.cbufs[i], "cbuf " + std::to_string(i));
   cmp(fb.zsbuf, "zsbuf");
   return bad;
}

/** Pixels of colour buffer 0 that differ from their value in @before
 *  (the scene must change something for an equality test to mean much). */
inline uint64_t
changed_pixels(const VLG_SURFACE &s, const Vram &before, const Vram &after)
{
   uint64_t n = 0;
   const unsigned bpp = vlg_format_bytes(s.format);
   for (unsigned y = 0; y < s.height; y++)
      for (unsigned x = 0; x < s.width; x++) {
         const uint64_t o = s.address + uint64_t(y) * s.pitch + uint64_t(x) * bpp;
         n += std::memcmp(before.data() + o, after.data() + o, bpp) != 0;
      }
   return n;
}

/** The default configuration with "key=value,..." @overrides applied
 *  (Config::apply_overrides), validated; throws ConfigError. */
inline Config
params_with(const std::string &overrides)
{
   Config p;
   p.apply_overrides(overrides);
   p.validate();
   return p;
}

/* ---- measurements for the docs ------------------------------------------ */

/** Records one measurement of a timing test: printed as "[ measure  ] WHAT,
 *  CONFIG: CYCLES cycles (BOUND_IS = BOUND, ratio R)" and kept as a gtest
 *  property (key "measure: WHAT @ CONFIG", value the JSON object {"cycles",
 *  "bound", "bound_is"}), which `./vlgpu bench memory` reads from
 *  --gtest_output=json and writes into docs/fidelity.md, so the docs quote
 *  what the test measured. cycles: simulated cycles of the submit or
 *  command named in WHAT; bound: the cycles the configuration implies, from
 *  the test's own arithmetic (not from the simulator); CONFIG: the
 *  VLGPU_SET-style overrides of the run. */
inline void
record_measurement(const std::string &what, const std::string &config, uint64_t cycles,
                   double bound, const std::string &bound_is)
{
   std::printf("[ measure  ] %s, %s: %llu cycles (%s = %.0f, ratio %.3f)\n", what.c_str(),
               config.c_str(), (unsigned long long)cycles, bound_is.c_str(), bound,
               double(cycles) / bound);
   const nlohmann::json v = {{"cycles", cycles}, {"bound", bound}, {"bound_is", bound_is}};
   ::testing::Test::RecordProperty("measure: " + what + " @ " + config, v.dump());
}

} // namespace vlgpu::sim::test
