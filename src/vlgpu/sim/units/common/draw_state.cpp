/*
 * vlgpu cycle-mode GPU: per-draw shared state (draw_state.h).
 */
#include "sim/units/common/draw_state.h"
#include "sim/func/pipe/stage_resources.h"
#include "sim/func/pipe/stream_output.h"

#include <algorithm>

#include "sim/units/common/draw_shaders.h"

namespace vlgpu::sim {

DrawState::DrawState() = default;
DrawState::~DrawState() = default;

void
DrawState::raise(const GpuFault &f, Cycle now, uint32_t who)
{
   if (fault_cycle != kNever && (fault_cycle < now || (fault_cycle == now && fault_by <= who)))
      return;
   fault_cycle = now;
   fault_by = who;
   fault_module = f.module();
   fault_summary = f.summary();
   fault_text = f.what();
}

namespace {

/** Bytes a texture's levels span from its address (an upper bound: every
 *  level's offset plus its layer stride times the larger of depth and
 *  layers, or its rows when the layer stride is 0). */
MemRange
texture_range(const VLG_TEXTURE &t)
{
   uint64_t end = 0;
   const unsigned levels = std::min<unsigned>(t.num_levels, 15);
   for (unsigned i = 0; i < levels; i++) {
      const VLG_TEXTURE_LEVEL &l = t.level[i];
      const uint64_t h = t.target == VLG_TEXTURE_TARGET_BUFFER /* width | height << 16 texels */
                            ? 1
                            : std::max<uint64_t>(1, uint64_t(t.height) >> i);
      const uint64_t d = std::max<uint64_t>(1, uint64_t(t.depth) >> i);
      const uint64_t layers = std::max<uint64_t>({d, uint64_t(t.array_size), 1});
      const uint64_t bytes =
         l.layer_stride ? uint64_t(l.layer_stride) * layers : uint64_t(l.row_pitch) * h;
      end = std::max(end, uint64_t(l.offset) + bytes);
   }
   return MemRange{t.address, end};
}

} // namespace

void
draw_state_load(DrawState &d, const Vram &vram, ProgramCache &programs, uint64_t watchdog,
                uint64_t *submit_instructions_left)
{
   d.pkg = load_draw_package(vram, d.ctx.draw_info_address);
   const DrawPackage &pkg = d.pkg;
   d.clear = !pkg.is_primitives(); /* CLEAR or RESOLVE: the OMU alone */
   for (unsigned i = 0; i < pkg.fb.nr_cbufs && i < kMaxColorBufs; i++)
      if (pkg.fb.cbufs[i].format != VLG_FORMAT_NONE)
         d.writes.push_back(MemRange{pkg.fb.cbufs[i].address,
                                     surface_extent_bytes(pkg.fb.cbufs[i], pkg.fb.samples)});
   if (pkg.fb.zsbuf.format != VLG_FORMAT_NONE)
      d.writes.push_back(
         MemRange{pkg.fb.zsbuf.address, surface_extent_bytes(pkg.fb.zsbuf, pkg.fb.samples)});
   if (pkg.is_resolve()) {
      d.writes.push_back(MemRange{pkg.resolve_dst.address, surface_extent_bytes(pkg.resolve_dst)});
      d.loaded = true;
      return;
   }
   if (d.clear) {
      d.late_zs = (pkg.draw.clear_buffers & 3u) && pkg.fb.zsbuf.format != VLG_FORMAT_NONE;
      d.loaded = true;
      return;
   }

   d.ge = make_ge_state(pkg, vram); /* with the stream_output block */
   d.pe = make_pe_state(pkg, d.ge.layout);
   /* make_omu_state keeps host pointers into VRAM (the OMU writes through
    * them); the CP only reads, the OMU is the writer. */
   d.omu = make_omu_state(pkg, const_cast<Vram &>(vram), fs_color_outputs(pkg.fs.state));
   d.plan = fs_output_plan(pkg.fs.state);
   d.late_zs = d.omu.any_zs && !d.omu.early_z;

   auto sh = std::make_unique<DrawShaders>();
   const VLG_SHADER_STATE &vss = pkg.vs.state, &fss = pkg.fs.state;
   sh->vs_prog = programs.get(vram, vss.code, vss.code_size, vss.entry);
   sh->fs_prog = programs.get(vram, fss.code, fss.code_size, fss.entry);
   sh->vs_consts = read_consts(vram, vss);
   sh->fs_consts = read_consts(vram, fss);
   sh->vs_units = texture_units(pkg.vs_textures, pkg.vs_samplers);
   sh->fs_units = texture_units(pkg.fs_textures, pkg.fs_samplers);
   const uint64_t max_instructions = watchdog ? watchdog : UINT64_MAX;
   /* MEM (images, SSBOs, atomic counters) takes effect when the SPC issues
    * it, like compute in functional mode (docs/hw.md "Memory in vertex and
    * fragment shaders") */
   Vram *global = const_cast<Vram *>(&vram);
   sh->vs_res = stage_resources(VLG_SHADER_STAGE_VERTEX, pkg.vs, sh->vs_consts, sh->vs_units,
                                vram, max_instructions, global, submit_instructions_left);
   sh->fs_res = stage_resources(VLG_SHADER_STAGE_FRAGMENT, pkg.fs, sh->fs_consts, sh->fs_units,
                                vram, max_instructions, global, submit_instructions_left);
   if (pkg.has_gs()) { /* as render_draw: global MEM in the GS too */
      const VLG_SHADER_STATE &gss = pkg.gs.state;
      sh->gs_prog = programs.get(vram, gss.code, gss.code_size, gss.entry);
      sh->gs_consts = read_consts(vram, gss);
      sh->gs_units = texture_units(pkg.gs_textures, pkg.gs_samplers);
      sh->gs_res = stage_resources(VLG_SHADER_STAGE_GEOMETRY, pkg.gs, sh->gs_consts,
                                   sh->gs_units, vram, max_instructions, global,
                                   submit_instructions_left);
   }
   /* a shader with MEM reads or writes addresses it computes itself: the
    * draw interlocks with every in-flight draw, before and after it (a GS's
    * MEM.EMIT/MEM.CUT touch no memory) */
   for (const Program *p : {sh->vs_prog.get(), sh->fs_prog.get(), sh->gs_prog.get()})
      if (p && std::any_of(p->instrs().begin(), p->instrs().end(), [](const Instr &i) {
             return i.nops && std::any_of(i.ops, i.ops + i.nops, [](const DecodedOp &o) {
                       return o.kind == OpKind::Mem && o.memkind != VLG_MEMKIND_EMIT &&
                              o.memkind != VLG_MEMKIND_CUT;
                    });
          })) {
         d.reads.push_back(MemRange{0, vram.size()});
         d.writes.push_back(MemRange{0, vram.size()});
         break;
      }
   d.shaders = std::move(sh);

   for (const GeAttrib &a : d.ge.attribs)
      d.reads.push_back(MemRange{a.vb_address, a.vb_size});
   if (pkg.indexed())
      d.reads.push_back(MemRange{pkg.draw.index_buffer, pkg.draw.index_buffer_size});
   for (const ShaderPackage *sp : {&pkg.vs, &pkg.fs, &pkg.gs})
      for (const VLG_BUFFER &b : sp->buffers)
         if (b.size)
            d.reads.push_back(MemRange{b.address, b.size});
   for (const auto *units : {&pkg.vs_textures, &pkg.fs_textures, &pkg.gs_textures})
      for (const VLG_TEXTURE &t : *units)
         d.reads.push_back(texture_range(t));
   /* stream output reads (append) and writes its buffers, filled sizes and
    * counters */
   for (const SoRange &r : so_memory_ranges(d.ge.so)) {
      d.reads.push_back(MemRange{r.address, r.size});
      d.writes.push_back(MemRange{r.address, r.size});
   }
   d.loaded = true;
}

} // namespace vlgpu::sim
