/*
 * vlgpu simulator, functional pipeline: loading and validating the per-draw
 * package (see package.h).
 */
#include "package.h"

#include <algorithm>
#include <cinttypes>
#include <initializer_list>

#include <fmt/format.h>

namespace vlgpu::sim {

namespace {

constexpr const char *kCP = "CP";

[[noreturn]] void
bad(const std::string &block, const std::string &detail)
{
   throw GpuFault(kCP, "malformed draw package: " + block, detail);
}

void
check_range(const Vram &vram, uint64_t addr, uint64_t size, const std::string &block,
            const char *what)
{
   if (!vram.contains(addr, size))
      bad(block, fmt::format("{} [0x{:x}, +{} bytes) is outside VRAM (size 0x{:x})", what, addr,
                             size, vram.size()));
}

const char *
name_or(const char *n, const char *fallback = "?")
{
   return n ? n : fallback;
}

/* @a v is one of @a set (the semantics a stage's inputs or outputs may have). */
template <typename T>
bool
one_of(T v, std::initializer_list<T> set)
{
   return std::find(set.begin(), set.end(), v) != set.end();
}

unsigned
prim_vertices(vlg_prim p)
{
   switch (p) {
   case VLG_PRIM_POINTS:
      return 1;
   case VLG_PRIM_LINES:
   case VLG_PRIM_LINE_LOOP:
   case VLG_PRIM_LINE_STRIP:
      return 2;
   case VLG_PRIM_LINES_ADJACENCY:
   case VLG_PRIM_LINE_STRIP_ADJACENCY:
      return 4;
   case VLG_PRIM_TRIANGLES_ADJACENCY:
   case VLG_PRIM_TRIANGLE_STRIP_ADJACENCY:
      return 6;
   default:
      return 3;
   }
}

bool
prim_is_adjacency(vlg_prim p)
{
   return p == VLG_PRIM_LINES_ADJACENCY || p == VLG_PRIM_LINE_STRIP_ADJACENCY ||
          p == VLG_PRIM_TRIANGLES_ADJACENCY || p == VLG_PRIM_TRIANGLE_STRIP_ADJACENCY;
}

/* The geometry-shader fields of a GEOMETRY shader_state (docs/hw.md
 * "Geometry shaders"). */
void
check_gs_fields(const VLG_SHADER_STATE &s, const std::string &block)
{
   const unsigned vin = s.gs_vertices_in;
   if (vin != 1 && vin != 2 && vin != 3 && vin != 4 && vin != 6)
      bad(block, fmt::format("gs_vertices_in = {} (must be 1, 2, 3, 4 or 6)", vin));
   if (s.gs_output_prim != VLG_PRIM_POINTS && s.gs_output_prim != VLG_PRIM_LINE_STRIP &&
       s.gs_output_prim != VLG_PRIM_TRIANGLE_STRIP)
      bad(block, fmt::format("gs_output_prim = {} (must be POINTS, LINE_STRIP or TRIANGLE_STRIP)",
                             name_or(vlg_prim_name(s.gs_output_prim))));
   if (s.gs_max_vertices < 1 || s.gs_max_vertices > 256)
      bad(block, fmt::format("gs_max_vertices = {} (must be 1..256)", s.gs_max_vertices));
   if (s.gs_invocations < 1 || s.gs_invocations > kMaxGsInvocations)
      bad(block, fmt::format("gs_invocations = {} (must be 1..{})", s.gs_invocations,
                             kMaxGsInvocations));
   for (unsigned i = 0; i < s.num_inputs; i++) {
      const VLG_SHADER_INPUT &in = s.inputs[i];
      if (in.semantic == VLG_INPUT_SEMANTIC_PRIMITIVE_ID ||
          in.semantic == VLG_INPUT_SEMANTIC_INVOCATION_ID)
         continue;
      const unsigned last = in.reg + (vin - 1) * s.gs_input_stride;
      if (last >= s.num_regs)
         bad(block, fmt::format("inputs[{}] ({} {}) of input vertex {} is R{} = R{} + {} x "
                                "gs_input_stride {}, beyond num_regs = {}",
                                i, name_or(vlg_input_semantic_name(in.semantic)), in.index,
                                vin - 1, last, in.reg, vin - 1, s.gs_input_stride, s.num_regs));
      if (vin > 1 && s.gs_input_stride == 0)
         bad(block, fmt::format("gs_input_stride = 0 with gs_vertices_in = {}: the input "
                                "vertices' copies of inputs[{}] would overlap",
                                vin, i));
   }
}

void
check_surface(const Vram &vram, const VLG_SURFACE &s, const VLG_FRAMEBUFFER &fb, unsigned usage,
              const std::string &block)
{
   const char *fname = name_or(vlg_format_name(s.format));
   if (!(vlg_format_usage(s.format) & usage))
      bad(block,
          fmt::format("format {} cannot be used as a {}", fname,
                      usage == VLG_FORMAT_USAGE_RT ? "render target" : "depth/stencil buffer"));
   const unsigned bpp = vlg_format_bytes(s.format);
   if (s.width < fb.width || s.height < fb.height)
      bad(block, fmt::format("surface is {}x{} pixels, smaller than the framebuffer ({}x{})",
                             s.width, s.height, fb.width, fb.height));
   const unsigned samples = fb.samples > 1 ? fb.samples : 1;
   if (uint64_t(s.pitch) < uint64_t(s.width) * bpp * samples)
      bad(block, fmt::format("pitch {} bytes is less than width {} x {} bytes per pixel x {} "
                             "samples",
                             s.pitch, s.width, bpp, samples));
   if ((bpp & (bpp - 1)) == 0 && s.address % bpp != 0)
      bad(block, fmt::format("address 0x{:x} is not aligned to the pixel size ({} bytes)",
                             s.address, bpp));
   /* docs/hw.md "Layered rendering": the layers of a surface do not overlap */
   if (s.layers == 0)
      bad(block, "layers = 0 (1 for a single layer)");
   if (s.layers > 1 && (bpp & (bpp - 1)) == 0 && s.layer_stride % bpp != 0)
      bad(block, fmt::format("layer_stride {} is not a multiple of the pixel size ({} bytes)",
                             s.layer_stride, bpp));
   if (s.layers > 1 && uint64_t(s.layer_stride) < uint64_t(s.pitch) * s.height)
      bad(block, fmt::format("layer_stride {} bytes is less than pitch {} x height {}: layers "
                             "would overlap",
                             s.layer_stride, s.pitch, s.height));
   check_range(vram, s.address, surface_extent_bytes(s, samples), block, "pixels");
}

void
check_texture(const Vram &vram, const VLG_TEXTURE &t, const std::string &block)
{
   if (!(vlg_format_usage(t.format) & VLG_FORMAT_USAGE_TEX))
      bad(block, fmt::format("format {} cannot be sampled", name_or(vlg_format_name(t.format))));
   if (t.num_levels < 1 || t.num_levels > VLG_HW_MAX_TEXTURE_LEVELS)
      bad(block,
          fmt::format("num_levels = {} (must be 1..{})", t.num_levels, VLG_HW_MAX_TEXTURE_LEVELS));
   if (t.first_level > t.last_level || t.last_level >= t.num_levels)
      bad(block, fmt::format("first_level = {}, last_level = {} with num_levels = {}",
                             t.first_level, t.last_level, t.num_levels));
   const bool buffer = t.target == VLG_TEXTURE_TARGET_BUFFER; /* width | height << 16 texels */
   if (!buffer && (t.width == 0 || t.height == 0 || t.depth == 0 || t.array_size == 0))
      bad(block, fmt::format("empty texture ({}x{}x{}, {} layers)", t.width, t.height, t.depth,
                             t.array_size));
   if (t.target == VLG_TEXTURE_TARGET_CUBE && t.array_size != 6)
      bad(block, fmt::format("CUBE texture with array_size = {} (must be 6)", t.array_size));
   const unsigned bpp = vlg_format_bytes(t.format);
   for (unsigned l = t.first_level; l <= t.last_level; l++) {
      const VLG_TEXTURE_LEVEL &lv = t.level[l];
      const uint64_t w = buffer ? uint64_t(t.width | t.height << 16) : std::max(1u, t.width >> l);
      const uint64_t h = buffer ? 1 : std::max(1u, t.height >> l);
      const uint64_t layers = buffer                               ? 1
                              : t.target == VLG_TEXTURE_TARGET_3D ? std::max(1u, t.depth >> l)
                                                                  : t.array_size;
      if (lv.row_pitch < w * bpp)
         bad(block, fmt::format("level[{}].row_pitch = {} < {} texels x {} bytes", l, lv.row_pitch,
                                w, bpp));
      const uint64_t extent = uint64_t(lv.offset) + uint64_t(lv.layer_stride) * (layers - 1) +
                              uint64_t(lv.row_pitch) * (h - 1) + w * bpp;
      if (t.address > UINT64_MAX - extent)
         bad(block, fmt::format("level[{}] wraps around the address space", l));
      check_range(vram, t.address, extent, block, fmt::format("level[{}] texels", l).c_str());
   }
}

void
check_shader(const Vram &vram, ShaderPackage &sp, vlg_shader_stage stage, unsigned ntex,
             unsigned num_vertex_elements, const std::string &block, bool vs_feeds_gs = false)
{
   const VLG_SHADER_STATE &s = sp.state;
   const bool vs = stage == VLG_SHADER_STAGE_VERTEX;
   const bool gs = stage == VLG_SHADER_STAGE_GEOMETRY;
   const char *stage_kind = vs ? "vertex" : gs ? "geometry" : "fragment";
   if (s.stage != stage)
      bad(block, fmt::format("stage = {}, expected {}", name_or(vlg_shader_stage_name(s.stage)),
                             name_or(vlg_shader_stage_name(stage))));
   if (s.num_regs < 1 || s.num_regs > kMaxRegs)
      bad(block, fmt::format("num_regs = {} (must be 1..{})", s.num_regs, unsigned(kMaxRegs)));
   if (s.num_inputs > kMaxShaderIo || s.num_outputs > kMaxShaderIo)
      bad(block, fmt::format("num_inputs = {}, num_outputs = {} (at most {} each)", s.num_inputs,
                             s.num_outputs, unsigned(kMaxShaderIo)));
   if (s.code % 4 != 0)
      bad(block, fmt::format("code address 0x{:x} is not 4-byte aligned", s.code));
   if (s.code_size == 0 || s.entry >= s.code_size)
      bad(block, fmt::format("entry = {} with code_size = {} units", s.entry, s.code_size));
   check_range(vram, s.code, uint64_t(s.code_size) * 4, block, "code");
   if (s.num_consts > VLG_NUM_GLOBAL)
      bad(block, fmt::format("num_consts = {} (the global buffer has C0..C{})", s.num_consts,
                             VLG_NUM_GLOBAL - 1));
   check_range(vram, s.consts, uint64_t(s.num_consts) * 16, block, "global-buffer image (consts)");

   if (s.num_buffers > kMaxBuffers)
      bad(block, fmt::format("num_buffers = {} (LDB slots B0..B{})", s.num_buffers,
                             unsigned(kMaxBuffers) - 1));
   sp.buffers.resize(s.num_buffers);
   for (unsigned i = 0; i < s.num_buffers; i++) {
      const std::string what = fmt::format("{} buffers[{}]", block, i);
      const VLG_BUFFER &b = sp.buffers[i] = read_hw_block<VLG_BUFFER>(
         vram, s.buffers + uint64_t(i) * VLG_BUFFER_LENGTH * 4, kCP, what);
      if (b.size && b.address % 16 != 0)
         bad(what, fmt::format("address 0x{:x} is not 16-byte aligned", b.address));
      check_range(vram, b.address, b.size, what, "uniform buffer");
   }

   if (s.num_samplers > ntex)
      bad(block, fmt::format("num_samplers = {} but the {} binds {} texture/sampler pairs",
                             s.num_samplers,
                             stage == VLG_SHADER_STAGE_COMPUTE ? "dispatch" : "draw", ntex));
   if (stage == VLG_SHADER_STAGE_COMPUTE) {
      /* compute shaders have no I/O maps: their system values come from MVS LID/WGID */
      if (s.num_inputs || s.num_outputs)
         bad(block, fmt::format("num_inputs = {}, num_outputs = {}: a compute shader has none",
                                s.num_inputs, s.num_outputs));
      return;
   }

   /* Unused entries must be zero (docs/hw.md); VLG_SHADER_STATE_init gives
    * them mask = 0xf (the XML default), which is accepted too. */
   for (unsigned i = s.num_inputs; i < kMaxShaderIo; i++) {
      const VLG_SHADER_INPUT &in = s.inputs[i];
      if (in.reg || (in.mask && in.mask != 0xf) || in.interp || in.semantic || in.index)
         bad(block,
             fmt::format("inputs[{}] is beyond num_inputs = {} but not zero", i, s.num_inputs));
   }
   for (unsigned i = s.num_outputs; i < kMaxShaderIo; i++) {
      const VLG_SHADER_OUTPUT &out = s.outputs[i];
      if (out.reg || (out.mask && out.mask != 0xf) || out.semantic || out.index)
         bad(block,
             fmt::format("outputs[{}] is beyond num_outputs = {} but not zero", i, s.num_outputs));
   }

   for (unsigned i = 0; i < s.num_inputs; i++) {
      const VLG_SHADER_INPUT &in = s.inputs[i];
      const char *sem = name_or(vlg_input_semantic_name(in.semantic));
      if (in.reg >= s.num_regs)
         bad(block, fmt::format("inputs[{}].reg = R{} but num_regs = {}", i, in.reg, s.num_regs));
      if (in.mask == 0)
         bad(block, fmt::format("inputs[{}].mask = 0 (writes no component)", i));
      const bool ok =
         vs   ? one_of(in.semantic, {VLG_INPUT_SEMANTIC_ATTRIBUTE, VLG_INPUT_SEMANTIC_VERTEX_ID,
                                     VLG_INPUT_SEMANTIC_INSTANCE_ID})
         : gs ? one_of(in.semantic, {VLG_INPUT_SEMANTIC_POSITION, VLG_INPUT_SEMANTIC_POINT_SIZE,
                                     VLG_INPUT_SEMANTIC_VARYING, VLG_INPUT_SEMANTIC_PRIMITIVE_ID,
                                     VLG_INPUT_SEMANTIC_CLIP_DISTANCE,
                                     VLG_INPUT_SEMANTIC_INVOCATION_ID})
              : one_of(in.semantic, {VLG_INPUT_SEMANTIC_VARYING, VLG_INPUT_SEMANTIC_FRAG_COORD,
                                     VLG_INPUT_SEMANTIC_FACE, VLG_INPUT_SEMANTIC_POINT_COORD,
                                     VLG_INPUT_SEMANTIC_CLIP_DISTANCE,
                                     VLG_INPUT_SEMANTIC_PRIMITIVE_ID, VLG_INPUT_SEMANTIC_LAYER});
      if (!ok)
         bad(block,
             fmt::format("inputs[{}].semantic = {} is not a {} shader input", i, sem, stage_kind));
      if (in.semantic == VLG_INPUT_SEMANTIC_ATTRIBUTE && in.index >= num_vertex_elements)
         bad(block, fmt::format("inputs[{}] reads ATTRIBUTE {} but the draw has {} vertex "
                                "elements",
                                i, in.index, num_vertex_elements));
      if (in.semantic == VLG_INPUT_SEMANTIC_CLIP_DISTANCE && in.index > 1)
         bad(block, fmt::format("inputs[{}] is CLIP_DISTANCE {} (index 0 or 1)", i, in.index));
      if (in.semantic == VLG_INPUT_SEMANTIC_VARYING && in.interp == VLG_INTERP_CONSTANT)
         bad(block, fmt::format("inputs[{}] is VARYING {} with interp CONSTANT (CONSTANT is "
                                "for system values)",
                                i, in.index));
   }
   bool has_position = false;
   for (unsigned i = 0; i < s.num_outputs; i++) {
      const VLG_SHADER_OUTPUT &out = s.outputs[i];
      const char *sem = name_or(vlg_output_semantic_name(out.semantic));
      if (out.reg >= s.num_regs)
         bad(block, fmt::format("outputs[{}].reg = R{} but num_regs = {}", i, out.reg, s.num_regs));
      const bool ok =
         vs || gs ? one_of(out.semantic, {VLG_OUTPUT_SEMANTIC_POSITION, VLG_OUTPUT_SEMANTIC_VARYING,
                                          VLG_OUTPUT_SEMANTIC_POINT_SIZE,
                                          VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE}) ||
                       (gs && (out.semantic == VLG_OUTPUT_SEMANTIC_PRIMITIVE_ID ||
                               out.semantic == VLG_OUTPUT_SEMANTIC_LAYER)) ||
                       (vs && out.semantic == VLG_OUTPUT_SEMANTIC_EDGEFLAG)
                  : one_of(out.semantic, {VLG_OUTPUT_SEMANTIC_COLOR, VLG_OUTPUT_SEMANTIC_DEPTH,
                                          VLG_OUTPUT_SEMANTIC_SAMPLE_MASK,
                                          VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR});
      if (!ok)
         bad(block, fmt::format("outputs[{}].semantic = {} is not a {} shader output", i, sem,
                                stage_kind));
      if (out.semantic == VLG_OUTPUT_SEMANTIC_COLOR && out.index >= kMaxColorBufs)
         bad(block, fmt::format("outputs[{}] is COLOR {} (render targets 0..{})", i, out.index,
                                kMaxColorBufs - 1));
      if (out.semantic == VLG_OUTPUT_SEMANTIC_DUAL_SOURCE_COLOR && out.index != 0)
         bad(block, fmt::format("outputs[{}] is DUAL_SOURCE_COLOR {} (only index 0: render target "
                                "0)",
                                i, out.index));
      if (out.semantic == VLG_OUTPUT_SEMANTIC_CLIP_DISTANCE && out.index > 1)
         bad(block, fmt::format("outputs[{}] is CLIP_DISTANCE {} (index 0: distances 0..3, 1: "
                                "4..7)",
                                i, out.index));
      if (out.semantic == VLG_OUTPUT_SEMANTIC_POSITION) {
         if (has_position)
            bad(block, fmt::format("outputs[{}] is a second POSITION output", i));
         has_position = true;
      }
   }
   /* with a geometry shader the VS position is only a GS input (the GS
    * may even write none, e.g. for rasterizer discard + stream output) */
   if (vs && !has_position && !vs_feeds_gs)
      bad(block, "the vertex shader has no POSITION output");
   if (gs)
      check_gs_fields(s, block);
}

/* ARB_draw_indirect: the CP takes the draw's parameters from the command at
 * draw_info.indirect (docs/hw.md "Indirect draws"), 4 words non-indexed
 * {count, instance_count, start, start_instance}, 5 words indexed {count,
 * instance_count, start, base_vertex, start_instance}. */
void
apply_draw_indirect(const Vram &vram, VLG_DRAW_INFO &d)
{
   const bool indexed = d.index_size != VLG_INDEX_SIZE_NONE;
   const uint64_t bytes = indexed ? 20 : 16;
   if (d.indirect % 4 != 0)
      bad("draw_info", fmt::format("indirect 0x{:x} is not 4-byte aligned", d.indirect));
   check_range(vram, d.indirect, bytes, "draw_info", "indirect draw command");
   uint32_t w[5] = {};
   vram.read(d.indirect, w, bytes, kCP);
   d.count = w[0];
   d.instance_count = w[1];
   d.start = w[2];
   if (indexed) {
      d.base_vertex = static_cast<int32_t>(w[3]);
      d.start_instance = w[4];
   } else {
      d.start_instance = w[3];
   }
}

} // namespace

uint64_t
surface_extent_bytes(const VLG_SURFACE &s, unsigned samples)
{
   if (s.width == 0 || s.height == 0)
      return 0;
   const uint64_t layers = std::max(s.layers, 1u);
   return (layers - 1) * s.layer_stride + uint64_t(s.pitch) * (s.height - 1) +
          uint64_t(s.width) * vlg_format_bytes(s.format) * std::max(samples, 1u);
}

void
read_hw_block_words(const Vram &vram, uint64_t address, unsigned length_dw,
                    const vlg_hw_struct_info &info, const char *module, const std::string &what,
                    uint32_t *words)
{
   const uint64_t bytes = uint64_t(length_dw) * 4;
   if (address % 4 != 0)
      throw GpuFault(
         module, "malformed draw package: " + what,
         fmt::format("{} block address 0x{:x} is not dword aligned", info.name, address));
   if (!vram.contains(address, bytes))
      throw GpuFault(module, "malformed draw package: " + what,
                     fmt::format("{} block [0x{:x}, +{} bytes) is outside VRAM (size 0x{:x})",
                                 info.name, address, bytes, vram.size()));
   vram.read(address, words, bytes, module);
}

void
throw_hw_block_problems(const vlg_hw_struct_info &info, const uint32_t *words, uint64_t address,
                        const char *module, const std::string &what)
{
   char buf[1024];
   vlg_hw_describe_problems(&info, words, buf, sizeof(buf));
   std::string detail = fmt::format("{} block at 0x{:x}:\n{}", info.name, address, buf);
   while (!detail.empty() && detail.back() == '\n')
      detail.pop_back();
   throw GpuFault(module, "malformed draw package: " + what, detail);
}

DrawPackage
load_draw_package(const Vram &vram, uint64_t draw_info_address)
{
   DrawPackage pkg;
   pkg.address = draw_info_address;
   pkg.draw = read_hw_block<VLG_DRAW_INFO>(vram, draw_info_address, kCP, "draw_info");
   const VLG_DRAW_INFO &d = pkg.draw;

   pkg.fb = read_hw_block<VLG_FRAMEBUFFER>(vram, d.framebuffer, kCP, "framebuffer");
   if (pkg.fb.nr_cbufs > kMaxColorBufs)
      bad("framebuffer", fmt::format("nr_cbufs = {} (at most 4)", pkg.fb.nr_cbufs));
   if (pkg.fb.samples > 1 && pkg.fb.samples != 4)
      bad("framebuffer", fmt::format("samples = {}: only 0, 1 and 4 are valid", pkg.fb.samples));
   for (unsigned i = 0; i < pkg.fb.nr_cbufs; i++)
      if (pkg.fb.cbufs[i].format != VLG_FORMAT_NONE)
         check_surface(vram, pkg.fb.cbufs[i], pkg.fb, VLG_FORMAT_USAGE_RT,
                       fmt::format("framebuffer.cbufs[{}]", i));
   if (pkg.fb.zsbuf.format != VLG_FORMAT_NONE)
      check_surface(vram, pkg.fb.zsbuf, pkg.fb, VLG_FORMAT_USAGE_ZS, "framebuffer.zsbuf");

   if (pkg.is_clear())
      return pkg;
   if (pkg.is_resolve()) {
      /* docs/hw.md "Multisampling": one 4-sample source, one destination */
      if (pkg.fb.samples != 4)
         bad("framebuffer",
             fmt::format("RESOLVE needs a 4-sample framebuffer (samples = {})", pkg.fb.samples));
      const bool color = pkg.fb.nr_cbufs >= 1 && pkg.fb.cbufs[0].format != VLG_FORMAT_NONE;
      if (!color && pkg.fb.zsbuf.format == VLG_FORMAT_NONE)
         bad("framebuffer", "RESOLVE without a colour buffer 0 or depth/stencil buffer");
      const VLG_SURFACE &src = color ? pkg.fb.cbufs[0] : pkg.fb.zsbuf;
      pkg.resolve_dst = read_hw_block<VLG_SURFACE>(vram, d.resolve_dst, kCP, "resolve_dst");
      if (pkg.resolve_dst.format != src.format)
         bad("resolve_dst", fmt::format("format {} differs from the source's {}",
                                        name_or(vlg_format_name(pkg.resolve_dst.format)),
                                        name_or(vlg_format_name(src.format))));
      VLG_FRAMEBUFFER one = pkg.fb;
      one.samples = 1;
      if (pkg.resolve_dst.layers != 1 || src.layers != 1)
         bad("resolve_dst", "RESOLVE of a layered surface (layers must be 1)");
      check_surface(vram, pkg.resolve_dst, one, color ? VLG_FORMAT_USAGE_RT : VLG_FORMAT_USAGE_ZS,
                    "resolve_dst");
      return pkg;
   }
   if (d.kind != VLG_DRAW_KIND_PRIMITIVES)
      bad("draw_info", fmt::format("kind = {} is not a draw kind", unsigned(d.kind)));

   if (d.indirect)
      apply_draw_indirect(vram, pkg.draw);
   if (d.occlusion_counter) {
      if (d.occlusion_counter % 8 != 0)
         bad("draw_info",
             fmt::format("occlusion_counter 0x{:x} is not 8-byte aligned", d.occlusion_counter));
      check_range(vram, d.occlusion_counter, 8, "draw_info", "occlusion_counter");
   }
   /* GL 3.2 core §2.12.1: adjacency primitives need a geometry shader */
   if (prim_is_adjacency(d.prim) && !d.gs)
      throw GpuFault("GE", "adjacency primitive without a geometry shader",
                     fmt::format("draw_info.prim = {} but draw_info.gs = 0 (adjacency primitives "
                                 "are only defined for draws with a geometry shader)",
                                 name_or(vlg_prim_name(d.prim))));
   /* GL 3.2 compatibility §2.12.1: a geometry shader takes points, lines
    * and triangles (and adjacency), never quads or polygons */
   if (d.gs && (d.prim == VLG_PRIM_QUADS || d.prim == VLG_PRIM_QUAD_STRIP ||
                d.prim == VLG_PRIM_POLYGON))
      bad("draw_info", fmt::format("prim = {} with a geometry shader (quads and polygons are no "
                                   "geometry-shader input)",
                                   name_or(vlg_prim_name(d.prim))));
   if (d.vertices_per_prim != prim_vertices(d.prim))
      bad("draw_info", fmt::format("vertices_per_prim = {} but prim {} has {}", d.vertices_per_prim,
                                   name_or(vlg_prim_name(d.prim)), prim_vertices(d.prim)));
   if (d.num_vertex_elements > kMaxVertexElements || d.num_vertex_buffers > kMaxVertexBuffers)
      bad("draw_info", fmt::format("num_vertex_elements = {}, num_vertex_buffers = {} (at "
                                   "most 32 each)",
                                   d.num_vertex_elements, d.num_vertex_buffers));
   if (d.vs_num_textures > kMaxTextures || d.vs_num_samplers > kMaxTextures ||
       d.fs_num_textures > kMaxTextures || d.fs_num_samplers > kMaxTextures ||
       d.gs_num_textures > kMaxTextures || d.gs_num_samplers > kMaxTextures)
      bad("draw_info",
          fmt::format("vs_num_textures = {}, vs_num_samplers = {}, fs_num_textures = {}, "
                      "fs_num_samplers = {}, gs_num_textures = {}, gs_num_samplers = {} (at most "
                      "16 each)",
                      d.vs_num_textures, d.vs_num_samplers, d.fs_num_textures, d.fs_num_samplers,
                      d.gs_num_textures, d.gs_num_samplers));
   if (d.index_size != VLG_INDEX_SIZE_NONE) {
      if (d.index_buffer % unsigned(d.index_size) != 0)
         bad("draw_info", fmt::format("index_buffer 0x{:x} is not aligned to the index size ({} "
                                      "bytes)",
                                      d.index_buffer, unsigned(d.index_size)));
      check_range(vram, d.index_buffer, d.index_buffer_size, "draw_info", "index buffer");
   }

   pkg.pipe = read_hw_block<VLG_PIPE_STATE>(vram, d.pipe_state, kCP, "pipe_state");
   const VLG_RASTERIZER &r = pkg.pipe.rasterizer;
   if (!vlg_polygon_mode_name(r.fill_front) || !vlg_polygon_mode_name(r.fill_back))
      bad("pipe_state", fmt::format("rasterizer.fill_front = {}, fill_back = {}: not a polygon mode",
                                    unsigned(r.fill_front), unsigned(r.fill_back)));

   pkg.vertex_elements.resize(d.num_vertex_elements);
   for (unsigned i = 0; i < d.num_vertex_elements; i++) {
      const std::string what = fmt::format("vertex_element[{}]", i);
      VLG_VERTEX_ELEMENT &ve = pkg.vertex_elements[i] = read_hw_block<VLG_VERTEX_ELEMENT>(
         vram, d.vertex_elements + uint64_t(i) * VLG_VERTEX_ELEMENT_LENGTH * 4, kCP, what);
      if (!(vlg_format_usage(ve.format) & VLG_FORMAT_USAGE_VERTEX))
         bad(what, fmt::format("format {} cannot be fetched as a vertex attribute",
                               name_or(vlg_format_name(ve.format))));
      if (ve.vertex_buffer_index >= d.num_vertex_buffers)
         bad(what, fmt::format("vertex_buffer_index = {} but the draw has {} vertex buffers",
                               ve.vertex_buffer_index, d.num_vertex_buffers));
   }
   pkg.vertex_buffers.resize(d.num_vertex_buffers);
   for (unsigned i = 0; i < d.num_vertex_buffers; i++) {
      const std::string what = fmt::format("vertex_buffer[{}]", i);
      VLG_VERTEX_BUFFER &vb = pkg.vertex_buffers[i] = read_hw_block<VLG_VERTEX_BUFFER>(
         vram, d.vertex_buffers + uint64_t(i) * VLG_VERTEX_BUFFER_LENGTH * 4, kCP, what);
      check_range(vram, vb.address, vb.size, what, "vertex data");
   }

   auto load_textures = [&](uint64_t tex_addr, unsigned ntex, uint64_t smp_addr, unsigned nsmp,
                            const char *stage, std::vector<VLG_TEXTURE> &tex,
                            std::vector<VLG_SAMPLER> &smp) {
      tex.resize(ntex);
      for (unsigned i = 0; i < ntex; i++) {
         const std::string what = fmt::format("{}_textures[{}]", stage, i);
         tex[i] = read_hw_block<VLG_TEXTURE>(vram, tex_addr + uint64_t(i) * VLG_TEXTURE_LENGTH * 4,
                                             kCP, what);
         check_texture(vram, tex[i], what);
      }
      smp.resize(nsmp);
      for (unsigned i = 0; i < nsmp; i++)
         smp[i] = read_hw_block<VLG_SAMPLER>(vram, smp_addr + uint64_t(i) * VLG_SAMPLER_LENGTH * 4,
                                             kCP, fmt::format("{}_samplers[{}]", stage, i));
   };
   load_textures(d.vs_textures, d.vs_num_textures, d.vs_samplers, d.vs_num_samplers, "vs",
                 pkg.vs_textures, pkg.vs_samplers);
   load_textures(d.fs_textures, d.fs_num_textures, d.fs_samplers, d.fs_num_samplers, "fs",
                 pkg.fs_textures, pkg.fs_samplers);

   pkg.vs.address = d.vs;
   pkg.vs.state = read_hw_block<VLG_SHADER_STATE>(vram, d.vs, kCP, "vs shader_state");
   check_shader(vram, pkg.vs, VLG_SHADER_STAGE_VERTEX, std::min(d.vs_num_textures, d.vs_num_samplers),
                d.num_vertex_elements, "vs shader_state", d.gs != 0);
   if (d.gs) {
      load_textures(d.gs_textures, d.gs_num_textures, d.gs_samplers, d.gs_num_samplers, "gs",
                    pkg.gs_textures, pkg.gs_samplers);
      pkg.gs.address = d.gs;
      pkg.gs.state = read_hw_block<VLG_SHADER_STATE>(vram, d.gs, kCP, "gs shader_state");
      check_shader(vram, pkg.gs, VLG_SHADER_STAGE_GEOMETRY,
                   std::min(d.gs_num_textures, d.gs_num_samplers), d.num_vertex_elements,
                   "gs shader_state");
      if (pkg.gs.state.gs_vertices_in != d.vertices_per_prim)
         throw GpuFault("GE", "geometry shader input primitive mismatch",
                        fmt::format("gs shader_state.gs_vertices_in = {} but the draw's prim {} "
                                    "has vertices_per_prim = {}",
                                    pkg.gs.state.gs_vertices_in, name_or(vlg_prim_name(d.prim)),
                                    d.vertices_per_prim));
   }
   pkg.fs.address = d.fs;
   pkg.fs.state = read_hw_block<VLG_SHADER_STATE>(vram, d.fs, kCP, "fs shader_state");
   check_shader(vram, pkg.fs, VLG_SHADER_STAGE_FRAGMENT, std::min(d.fs_num_textures, d.fs_num_samplers),
                d.num_vertex_elements, "fs shader_state");
   return pkg;
}

ComputePackage
load_compute_package(const Vram &vram, uint64_t compute_info_address)
{
   ComputePackage pkg;
   pkg.address = compute_info_address;
   if (compute_info_address % 4 != 0)
      bad("compute_info", fmt::format("address 0x{:x} is not dword aligned", compute_info_address));
   VLG_COMPUTE_INFO &c = pkg.info =
      read_hw_block<VLG_COMPUTE_INFO>(vram, compute_info_address, kCP, "compute_info");
   if (c.indirect) {
      /* glDispatchComputeIndirect: {x, y, z} replace grid_* (docs/hw.md "Compute") */
      if (c.indirect % 4 != 0)
         bad("compute_info", fmt::format("indirect 0x{:x} is not 4-byte aligned", c.indirect));
      check_range(vram, c.indirect, 12, "compute_info", "indirect dispatch");
      uint32_t w[3];
      vram.read(c.indirect, w, 12, kCP);
      c.grid_x = w[0];
      c.grid_y = w[1];
      c.grid_z = w[2];
   }
   if (c.block_x == 0 || c.block_y == 0 || c.block_z == 0)
      bad("compute_info", fmt::format("block {}x{}x{}: every dimension must be at least 1",
                                      c.block_x, c.block_y, c.block_z));
   if (c.shared_size % 4 != 0)
      bad("compute_info", fmt::format("shared_size = {} is not a multiple of 4", c.shared_size));
   if (c.num_textures > kMaxTextures || c.num_samplers > kMaxTextures)
      bad("compute_info", fmt::format("num_textures = {}, num_samplers = {} (at most {} each)",
                                      c.num_textures, c.num_samplers, kMaxTextures));
   pkg.textures.resize(c.num_textures);
   for (unsigned i = 0; i < c.num_textures; i++) {
      const std::string what = fmt::format("cs_textures[{}]", i);
      pkg.textures[i] = read_hw_block<VLG_TEXTURE>(
         vram, c.textures + uint64_t(i) * VLG_TEXTURE_LENGTH * 4, kCP, what);
      check_texture(vram, pkg.textures[i], what);
   }
   pkg.samplers.resize(c.num_samplers);
   for (unsigned i = 0; i < c.num_samplers; i++)
      pkg.samplers[i] = read_hw_block<VLG_SAMPLER>(
         vram, c.samplers + uint64_t(i) * VLG_SAMPLER_LENGTH * 4, kCP,
         fmt::format("cs_samplers[{}]", i));
   pkg.cs.address = c.cs;
   pkg.cs.state = read_hw_block<VLG_SHADER_STATE>(vram, c.cs, kCP, "cs shader_state");
   check_shader(vram, pkg.cs, VLG_SHADER_STAGE_COMPUTE, std::min(c.num_textures, c.num_samplers),
                0, "cs shader_state");
   return pkg;
}

void
cp_add_occlusion(Vram &vram, const DrawPackage &pkg, uint64_t samples_passed)
{
   if (!pkg.is_primitives() || !pkg.draw.occlusion_counter)
      return;
   uint64_t v;
   vram.read(pkg.draw.occlusion_counter, &v, 8, kCP);
   v += samples_passed;
   vram.write(pkg.draw.occlusion_counter, &v, 8, kCP);
}

} // namespace vlgpu::sim
