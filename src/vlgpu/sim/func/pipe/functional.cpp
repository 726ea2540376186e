/*
 * vlgpu simulator, functional pipeline: the functional draw (see
 * functional.h). Order of work, as the hardware orders it:
 *
 *   for each instance:
 *     GE: fetch the draw's indices (once per draw), find the distinct
 *         vertices (vertex reuse by index within the draw), shade them in VS
 *         thread groups of W lanes, post-VS (clip mask, window position);
 *     GE: assemble primitives in draw order;
 *     PE: for each primitive: clip, cull, set up, rasterise into quads;
 *     OMU (early): depth/stencil before the FS when allowed;
 *     SPC: pack quads (of any primitives, in order) into FS thread groups
 *          of W/4 quads, interpolate the inputs, run the FS;
 *     OMU: alpha, depth/stencil (late), blend and write, quad by quad in
 *          rasterisation order.
 */
#include "functional.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "dispatch.h"
#include "gs.h"
#include "func_omu.h"
#include "stage_resources.h"
#include "stream_output.h"
#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

namespace {

constexpr uint8_t kPop4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/** Covered lanes of a quad mask (4 bits). */
inline unsigned
pop4(unsigned m)
{
   return kPop4[m & 0xf];
}

inline unsigned
pop64(uint64_t m)
{
   unsigned n = 0;
   for (; m; m >>= 4)
      n += kPop4[m & 0xf];
   return n;
}

inline uint64_t
lane_bits(unsigned n)
{
   return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
}

/** Lanes of @samples (bit 4 * lane + s) with a sample. */
inline unsigned
sample_lanes_any(uint16_t samples)
{
   unsigned m = 0;
   for (unsigned l = 0; l < 4; l++)
      m |= unsigned((samples >> (4 * l) & 0xfu) != 0) << l;
   return m;
}

/** The 4 sample bits of each lane of @mask. */
inline uint16_t
lane_samples(unsigned mask)
{
   uint16_t s = 0;
   for (unsigned l = 0; l < 4; l++)
      if (mask >> l & 1)
         s |= uint16_t(0xfu << (4 * l));
   return s;
}

} // namespace

unsigned
frag_sample_coverage(const OmuState &o, Quad &q)
{
   if (o.samples != kMsaaSamples)
      return q.mask;
   const uint16_t m = o.sample_mask;
   q.samples &= uint16_t(m | m << 4 | m << 8 | m << 12);
   q.mask = uint8_t(sample_lanes_any(q.samples));
   return q.mask;
}

unsigned
frag_early_tests(const OmuState &omu, const PrimSetup &setup, int32_t run_x, int32_t run_y,
                 Quad &q, unsigned mask, DrawStats &st)
{
   /* layered rendering: the primitive's layer of every surface */
   OmuState layer_view;
   const OmuState &o = setup.layer ? (layer_view = omu_layer_view(omu, setup.layer)) : omu;
   st.early_z_quads++;
   unsigned pass;
   if (o.samples == kMsaaSamples) {
      float z[4][kMsaaSamples];
      pe_sample_depth(setup, q, z);
      q.samples = omu_depth_stencil_samples(o, q.x, q.y, q.samples & lane_samples(mask),
                                            setup.back_facing, z);
      pass = sample_lanes_any(q.samples);
   } else if (o.z16_fast) {
      pass = omu_depth_z16_run(o, setup, run_x, run_y, q, mask);
   } else {
      float z[4];
      pe_quad_depth(setup, q, z);
      pass = omu_depth_stencil(o, q.x, q.y, mask, setup.back_facing, z);
   }
   st.fragments_early_rejected += pop4(mask & ~pass);
   return pass;
}

void
frag_late_ops(const OmuState &omu, const FsOutputPlan &plan, const ThreadGroup &tg, unsigned slot,
              uint64_t killed, const PrimSetup &setup, int32_t run_x, int32_t run_y, const Quad &q,
              unsigned mask, bool any_blend, DrawStats &st, uint32_t (*color)[4][4])
{
   OmuState layer_view;
   const OmuState &o = setup.layer ? (layer_view = omu_layer_view(omu, setup.layer)) : omu;
   const unsigned base = 4 * slot;
   const unsigned kill = unsigned(killed >> base) & 0xfu;
   st.fragments_killed += pop4(mask & kill);
   mask &= ~kill;
   if (!mask)
      return;
   if (o.dsa.alpha_enable) {
      float a[4] = {0, 0, 0, 0};
      if (plan.color_reg[0] >= 0)
         for (unsigned l = 0; l < 4; l++)
            a[l] = tg.get_f(base + l, unsigned(plan.color_reg[0]), 3);
      const unsigned pass = omu_alpha_test(o, mask, a);
      st.fragments_alpha_failed += pop4(mask & ~pass);
      mask = pass;
      if (!mask)
         return;
   }
   const bool msaa = o.samples == kMsaaSamples;
   uint16_t samples = msaa ? uint16_t(q.samples & lane_samples(mask)) : 0;
   if (!o.early_z && o.any_zs) {
      unsigned pass;
      if (msaa) {
         float z[4][kMsaaSamples];
         if (plan.depth_reg >= 0) {
            /* the FS depth output is the depth of every sample */
            for (unsigned l = 0; l < 4; l++)
               for (unsigned smp = 0; smp < kMsaaSamples; smp++)
                  z[l][smp] = tg.get_f(base + l, unsigned(plan.depth_reg), 0);
         } else {
            pe_sample_depth(setup, q, z);
         }
         samples = omu_depth_stencil_samples(o, q.x, q.y, samples, setup.back_facing, z);
         pass = sample_lanes_any(samples);
      } else if (o.z16_fast) {
         pass = omu_depth_z16_run(o, setup, run_x, run_y, q, mask);
      } else {
         float z[4];
         if (plan.depth_reg >= 0)
            for (unsigned l = 0; l < 4; l++)
               z[l] = tg.get_f(base + l, unsigned(plan.depth_reg), 0);
         else
            pe_quad_depth(setup, q, z);
         pass = omu_depth_stencil(o, q.x, q.y, mask, setup.back_facing, z);
      }
      st.fragments_zs_failed += pop4(mask & ~pass);
      mask = pass;
      if (!mask)
         return;
   }
   const unsigned n = pop4(mask);
   st.fragments_passed += n;
   st.samples_passed += msaa ? unsigned(__builtin_popcount(samples)) : n;
   if (any_blend)
      st.fragments_blended += n;
   fs_read_quad_colors(plan, o, tg, slot, color);
   if (msaa)
      omu_write_color_samples(o, q.x, q.y, samples, color);
   else
      omu_write_color(o, q.x, q.y, mask, color);
}

namespace {

/** Everything after rasterisation: early tests, FS thread groups, OMU. */
class FragmentBackend final : public QuadSink {
 public:
   FragmentBackend(const PeState &pe, const OmuState &omu, const VLG_SHADER_STATE &fs,
                   const Program &prog, const ShaderResources &res, unsigned width, DrawStats &st)
       : pe_(pe), omu_(omu), fs_(fs), prog_(prog), res_(res), width_(width), max_quads_(width / 4),
         tg_(width, fs.num_regs, VLG_SHADER_STAGE_FRAGMENT, 0), st_(st)
   {
      setups_.resize(max_quads_);
      batch_.reserve(max_quads_);
      plan_ = fs_output_plan(fs);
   }

   void primitive(const PrimSetup &s) override
   {
      pending_ = &s;
      cur_ = -1;
   }

   void quads(const Quad *q, unsigned n) override
   {
      if (!omu_.sample_enabled)
         return; /* sample_mask bit 0 clear: no coverage at all */
      /* q[0..n-1] is one rasterisation run: softpipe's Z16 fast path steps
       * depths from its first quad */
      const int32_t run_x = n ? q[0].x : 0, run_y = n ? q[0].y : 0;
      for (unsigned i = 0; i < n; i++) {
         Quad qi = q[i];
         unsigned mask = frag_sample_coverage(omu_, qi);
         if (!mask)
            continue;
         if (omu_.early_z) {
            mask = frag_early_tests(omu_, *pending_, run_x, run_y, qi, mask, st_);
            if (!mask)
               continue;
         }
         if (cur_ < 0) {
            pe_copy_setup(setups_[nsetups_], *pending_, pe_.num_inputs);
            cur_ = int(nsetups_++);
         }
         batch_.push_back(Item{qi, run_x, run_y, uint16_t(cur_), uint8_t(mask)});
         if (batch_.size() == max_quads_)
            flush();
      }
   }

   /** Shade and merge the pending quads. */
   void flush()
   {
      if (batch_.empty())
         return;
      const unsigned nq = unsigned(batch_.size());
      tg_.reset(width_, fs_.num_regs, VLG_SHADER_STAGE_FRAGMENT, group_no_++);
      uint8_t masks[kMaxLanes / 4];
      for (unsigned k = 0; k < nq; k++)
         masks[k] = batch_[k].mask;
      const FsLaneMasks lm = fs_lane_masks(masks, nq, fs_.uses_derivatives);
      const uint64_t covered = lm.covered;
      tg_.set_live_mask(lm.live);
      tg_.set_helper_mask(lm.helper);
      st_.fs_helper_lanes += pop64(lm.helper);
      for (unsigned k = 0; k < nq; k++)
         fs_load_quad(pe_, setups_[batch_[k].setup], batch_[k].q, tg_, k);
      const RunResult r = run(tg_, prog_, res_);
      st_.fs_groups++;
      st_.fs_quads += nq;
      st_.fs_invocations += pop64((covered));
      st_.fs_instructions += r.instructions;
      st_.fs_lane_instructions += r.lane_instructions;
      st_.fs_dual_issued += r.dual_issued;

      const uint64_t killed = tg_.killed_mask();
      bool any_blend = false;
      for (unsigned i = 0; i < kMaxColorBufs; i++)
         any_blend |= omu_.rt[i].written && omu_.rt[i].blend;
      for (unsigned k = 0; k < nq; k++) {
         const Item &it = batch_[k];
         frag_late_ops(omu_, plan_, tg_, k, killed, setups_[it.setup], it.run_x, it.run_y, it.q,
                       it.mask, any_blend, st_, color_);
      }
      batch_.clear();
      nsetups_ = 0;
      cur_ = -1;
   }

 private:
   struct Item {
      Quad q;
      int32_t run_x, run_y; /* first quad of the rasterisation run */
      uint16_t setup;
      uint8_t mask;
   };
   const PeState &pe_;
   const OmuState &omu_;
   const VLG_SHADER_STATE &fs_;
   const Program &prog_;
   const ShaderResources &res_;
   unsigned width_, max_quads_;
   ThreadGroup tg_;
   DrawStats &st_;
   std::vector<PrimSetup> setups_;
   unsigned nsetups_ = 0;
   int cur_ = -1;
   const PrimSetup *pending_ = nullptr;
   std::vector<Item> batch_;
   FsOutputPlan plan_;
   uint32_t group_no_ = 0;
   uint32_t color_[kMaxColorBufs][4][4] = {};
};

} // namespace

namespace {

/* One instance of a draw with a geometry shader: input primitives in draw
 * order (GsAssembler; restarts end runs, PRIMITIVE_ID counts on), each as
 * gs.invocations lanes in invocation order, W lanes per GS thread group;
 * each output primitive to stream output and the PE. */
void
run_gs_instance(GsStage &gs, const GeState &ge, const VLG_DRAW_INFO &d,
                const std::vector<int64_t> &elem, const std::vector<uint32_t> &slot,
                const float *vdata, unsigned floats, StreamOutput &so, PrimitiveEngine &engine,
                QuadSink &backend, Vram &vram, DrawStats &st)
{
   constexpr int64_t kRestart = INT64_MIN;
   std::vector<GsPrim> prims;
   GsAssembler ga(d.prim, ge.flatshade_first);
   auto collect = [&](const GsPrim &p) { prims.push_back(p); };
   for (uint32_t i = 0; i < d.count; i++) {
      if (elem[i] == kRestart)
         ga.restart(collect);
      else
         ga.push(slot[i], collect);
   }
   ga.restart(collect);

   const GsStage::OutputFn out = [&](float *const *v, const uint32_t *clip, unsigned n) {
      if (so.enabled())
         so.primitive(vram, v, n);
      VertexRef refs[3];
      for (unsigned j = 0; j < n; j++)
         refs[j] = VertexRef{v[j], clip[j]};
      st.ge.primitives++;
      engine.process(refs, n, backend);
   };
   const float *verts[kMaxLanes][6];
   uint32_t ids[kMaxLanes], invocations[kMaxLanes];
   const unsigned width = gs.width(), per_prim = ge.gs.invocations;
   const size_t lanes = prims.size() * per_prim;
   for (size_t first = 0; first < lanes; first += width) {
      const unsigned n = unsigned(std::min<size_t>(width, lanes - first));
      for (unsigned l = 0; l < n; l++) {
         const size_t prim = (first + l) / per_prim;
         const GsPrim &p = prims[prim];
         for (unsigned j = 0; j < p.num_vertices; j++)
            verts[l][j] = vdata + size_t(p.v[j]) * floats;
         ids[l] = uint32_t(prim);
         invocations[l] = uint32_t((first + l) % per_prim);
      }
      gs.run_group(verts, ids, invocations, n, out, st);
   }
}

} // namespace

DrawStats
render_draw(Vram &vram, uint64_t draw_info_address, const FuncOptions &opt)
{
   const unsigned W = opt.thread_group_width;
   if (W < 4 || W > kMaxLanes || W % 4 != 0)
      throw std::invalid_argument("FuncOptions::thread_group_width must be 4..64, a multiple of 4");

   DrawStats st;
   const DrawPackage pkg = load_draw_package(vram, draw_info_address);
   if (pkg.is_clear()) {
      st.clear = true;
      st.clear_pixels = omu_clear(pkg, vram);
      return st;
   }
   if (pkg.is_resolve()) {
      st.resolve_pixels = omu_resolve_draw(pkg, vram);
      return st;
   }
   const VLG_DRAW_INFO &d = pkg.draw;

   const GeState ge = make_ge_state(pkg, vram);
   const PeState pe = make_pe_state(pkg, ge.layout);
   const OmuState omu = make_omu_state(pkg, vram, fs_color_outputs(pkg.fs.state));

   std::unique_ptr<ProgramCache> local_cache;
   ProgramCache *cache = opt.programs;
   if (!cache) {
      local_cache = std::make_unique<ProgramCache>(4);
      cache = local_cache.get();
   }
   const VLG_SHADER_STATE &vss = pkg.vs.state, &fss = pkg.fs.state;
   const auto vs_prog = cache->get(vram, vss.code, vss.code_size, vss.entry);
   const auto fs_prog = cache->get(vram, fss.code, fss.code_size, fss.entry);

   const std::vector<uint32_t> vs_consts = read_consts(vram, vss),
                               fs_consts = read_consts(vram, fss);
   const std::vector<TextureUnit> vs_units = texture_units(pkg.vs_textures, pkg.vs_samplers);
   const std::vector<TextureUnit> fs_units = texture_units(pkg.fs_textures, pkg.fs_samplers);
   /* images, SSBOs and atomic counters: MEM on global memory in every stage
    * (the GS's below) */
   const ShaderResources vs_res = stage_resources(VLG_SHADER_STAGE_VERTEX, pkg.vs, vs_consts,
                                                  vs_units, vram, opt.watchdog_instructions, &vram,
                                                  opt.submit_instructions_left);
   const ShaderResources fs_res = stage_resources(VLG_SHADER_STAGE_FRAGMENT, pkg.fs, fs_consts,
                                                  fs_units, vram, opt.watchdog_instructions, &vram,
                                                  opt.submit_instructions_left);

   /* geometry shader (docs/hw.md "Geometry shaders"): its program and
    * resources, and the stage that runs it (gs.h) */
   std::shared_ptr<const Program> gs_prog;
   std::vector<uint32_t> gs_consts;
   std::vector<TextureUnit> gs_units;
   std::unique_ptr<GsStage> gs;
   if (ge.gs.enabled) {
      const VLG_SHADER_STATE &gss = pkg.gs.state;
      gs_prog = cache->get(vram, gss.code, gss.code_size, gss.entry);
      gs_consts = read_consts(vram, gss);
      gs_units = texture_units(pkg.gs_textures, pkg.gs_samplers);
      gs = std::make_unique<GsStage>(ge, pe, gss, *gs_prog,
                                     stage_resources(VLG_SHADER_STAGE_GEOMETRY, pkg.gs, gs_consts,
                                                     gs_units, vram, opt.watchdog_instructions,
                                                     &vram, opt.submit_instructions_left),
                                     W);
   }

   if (d.count == 0 || d.instance_count == 0)
      return st;
   /* The functional model keeps every element and shaded vertex of a draw
    * in host memory (~100 bytes each); bound it so that a runaway count
    * stops the draw instead of exhausting the host. Indexed draws are bounded
    * by the index buffer anyway. */
   if (d.count > kMaxFunctionalDrawElements)
      throw GpuFault("GE", "draw too large for the functional model",
                     fmt::format("count = {} elements; the functional model processes at most {} "
                                 "per draw (docs/simulator-pipeline.md)",
                                 d.count, kMaxFunctionalDrawElements));

   /* GE: the draw's elements as vertex ids, restarts marked */
   constexpr int64_t kRestart = INT64_MIN;
   std::vector<int64_t> elem(d.count);
   if (pkg.indexed()) {
      for (uint32_t i = 0; i < d.count; i++) {
         const IndexFetch f = ge_fetch_index(ge, vram, i);
         elem[i] = f.restart ? kRestart : int64_t(f.index) + d.base_vertex;
         st.ge.restarts += f.restart;
      }
      st.ge.indices = d.count;
   } else {
      for (uint32_t i = 0; i < d.count; i++)
         elem[i] = int64_t(d.start) + i;
   }

   /* vertex reuse: element -> shaded vertex number, distinct vertex ids in
    * order of first use */
   std::vector<uint32_t> slot(d.count);
   std::vector<int64_t> vid;
   if (!pkg.indexed()) {
      vid = elem;
      for (uint32_t i = 0; i < d.count; i++)
         slot[i] = i;
   } else {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int64_t v : elem)
         if (v != kRestart)
            lo = std::min(lo, v), hi = std::max(hi, v);
      vid.reserve(d.count);
      if (lo <= hi && uint64_t(hi - lo) < uint64_t(d.count) * 4 + 65536) {
         std::vector<int32_t> map(size_t(hi - lo + 1), -1);
         for (uint32_t i = 0; i < d.count; i++) {
            if (elem[i] == kRestart)
               continue;
            int32_t &m = map[size_t(elem[i] - lo)];
            if (m < 0) {
               m = int32_t(vid.size());
               vid.push_back(elem[i]);
            }
            slot[i] = uint32_t(m);
         }
      } else {
         std::unordered_map<int64_t, uint32_t> map;
         for (uint32_t i = 0; i < d.count; i++) {
            if (elem[i] == kRestart)
               continue;
            auto ins = map.emplace(elem[i], uint32_t(vid.size()));
            if (ins.second)
               vid.push_back(elem[i]);
            slot[i] = ins.first->second;
         }
      }
   }
   const size_t nverts = vid.size();
   const unsigned floats = vs_vertex_floats(ge);
   std::vector<float> vdata(nverts * floats);
   std::vector<uint32_t> clipmask(nverts);

   StreamOutput so(ge.so, vram);
   PrimitiveEngine engine(pe);
   FragmentBackend backend(pe, omu, fss, *fs_prog, fs_res, W, st);
   ThreadGroup vtg(W, vss.num_regs, VLG_SHADER_STAGE_VERTEX, 0);
   uint32_t vs_group_no = 0;

   for (uint32_t inst = 0; inst < d.instance_count; inst++) {
      /* VS: distinct vertices in thread groups of W lanes */
      for (size_t first = 0; first < nverts; first += W) {
         const unsigned n = unsigned(std::min<size_t>(W, nverts - first));
         vtg.reset(W, vss.num_regs, VLG_SHADER_STAGE_VERTEX, vs_group_no++);
         vtg.set_live_mask(lane_bits(n));
         for (unsigned l = 0; l < n; l++)
            vs_load_lane(ge, vram, vid[first + l], inst, vtg, l);
         const RunResult r = run(vtg, *vs_prog, vs_res);
         st.vs_groups++;
         st.vs_invocations += n;
         st.vs_instructions += r.instructions;
         st.vs_lane_instructions += r.lane_instructions;
         st.vs_dual_issued += r.dual_issued;
         for (unsigned l = 0; l < n; l++) {
            float *v = &vdata[(first + l) * floats];
            vs_store_lane(ge, vtg, l, v);
            if (!gs) /* with a GS, the GS's output vertices are the PE's */
               clipmask[first + l] = pe_post_vs(pe, v);
         }
      }
      st.ge.vertices_fetched += nverts;
      st.ge.vs_groups = st.vs_groups;

      if (gs) {
         run_gs_instance(*gs, ge, d, elem, slot, vdata.data(), floats, so, engine, backend, vram,
                         st);
         continue;
      }

      /* GE primitive assembly -> PE -> FS/OMU; the instance's primitives
       * numbered for the FS input PRIMITIVE_ID */
      PrimitiveAssembler pa(d.prim, ge.flatshade_first);
      uint32_t prim_no = 0;
      auto emit = [&](const Primitive &p) {
         VertexRef refs[3];
         for (unsigned j = 0; j < p.num_vertices; j++)
            refs[j] = VertexRef{&vdata[size_t(p.v[j]) * floats], clipmask[p.v[j]]};
         st.ge.primitives++;
         engine.process(refs, p.num_vertices, backend, prim_no++, p.edges);
      };
      /* stream output: its own assembler in the provoking-vertex order
       * (stream_output.h); it writes no memory the draw reads */
      PrimitiveAssembler so_pa(d.prim, ge.flatshade_first);
      auto so_emit = [&](const Primitive &p) {
         const float *v[3];
         for (unsigned j = 0; j < p.num_vertices; j++)
            v[j] = &vdata[size_t(p.v[j]) * floats];
         so.primitive(vram, v, p.num_vertices);
      };
      for (uint32_t i = 0; i < d.count; i++) {
         if (elem[i] == kRestart) {
            pa.restart(emit);
            if (so.enabled())
               so_pa.restart(so_emit);
         } else {
            if (so.enabled())
               so_pa.push(slot[i], so_emit);
            pa.push(slot[i], emit);
         }
      }
      if (so.enabled())
         so_pa.restart(so_emit);
      pa.restart(emit);
   }
   backend.flush();
   uint64_t used = 0;
   for (int64_t v : elem)
      used += v != kRestart;
   st.ge.vertices_reused = used * d.instance_count - st.ge.vertices_fetched;
   st.pe = engine.stats();
   so.finish(vram);
   st.ge.so_generated = so.generated();
   st.ge.so_written = so.written();
   cp_add_occlusion(vram, pkg, st.samples_passed);
   return st;
}

} // namespace vlgpu::sim
