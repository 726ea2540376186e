/*
 * vlgpu simulator, functional pipeline: stream output (see stream_output.h).
 */
#include "stream_output.h"

#include <fmt/format.h>

namespace vlgpu::sim {

template <> struct HwBlock<VLG_STREAM_OUTPUT> {
   static constexpr unsigned length = VLG_STREAM_OUTPUT_LENGTH;
   static const vlg_hw_struct_info &info() { return VLG_STREAM_OUTPUT_info; }
   static unsigned unpack(const uint32_t *dw, VLG_STREAM_OUTPUT *v)
   {
      return VLG_STREAM_OUTPUT_unpack(dw, v);
   }
};

namespace {

[[noreturn]] void
bad(const std::string &detail)
{
   throw GpuFault("GE", "malformed stream_output", detail);
}

void
check_vram(const Vram &vram, uint64_t address, uint64_t size, unsigned align, const char *what)
{
   if (address % align != 0)
      bad(fmt::format("{} 0x{:x} is not {}-byte aligned", what, address, align));
   if (!vram.contains(address, size))
      bad(fmt::format("{} [0x{:x}, +{} bytes) is outside VRAM (size 0x{:x})", what, address, size,
                      vram.size()));
}

} // namespace

void
ge_load_stream_output(GeState &ge, const DrawPackage &pkg, const Vram &vram)
{
   SoPlan &p = ge.so;
   p = SoPlan{};
   if (!pkg.is_primitives() || !pkg.draw.stream_output)
      return;
   p.enabled = true;
   p.block = read_hw_block<VLG_STREAM_OUTPUT>(vram, pkg.draw.stream_output, "CP",
                                              "stream_output");
   const VLG_STREAM_OUTPUT &so = p.block;
   if (so.num_outputs > kMaxSoOutputs)
      bad(fmt::format("num_outputs = {} (at most {})", so.num_outputs, kMaxSoOutputs));
   if (so.num_counters > 4)
      bad(fmt::format("num_counters = {} (at most 4)", so.num_counters));
   if (so.num_counters)
      check_vram(vram, so.counters, 16u * so.num_counters, 8, "counters");
   for (unsigned b = 0; b < kMaxSoBuffers; b++) {
      const VLG_SO_BUFFER &buf = so.buffers[b];
      if (!buf.enable)
         continue;
      const std::string what = fmt::format("buffers[{}]", b);
      if (buf.stride % 4 != 0 || buf.offset % 4 != 0)
         bad(fmt::format("{}: stride = {}, offset = {} (multiples of 4)", what, buf.stride,
                         buf.offset));
      check_vram(vram, buf.address, buf.size, 4, (what + ".address").c_str());
      check_vram(vram, buf.filled_size, 4, 4, (what + ".filled_size").c_str());
   }

   /* so_output.reg names a register of the last stage's output map: the
    * VS, or the GS when the draw has one (docs/hw.md "Geometry shaders") */
   const bool gs = pkg.has_gs();
   const VLG_SHADER_STATE &vs = gs ? pkg.gs.state : pkg.vs.state;
   VertexLayout &L = ge.layout;
   for (unsigned i = 0; i < so.num_outputs; i++) {
      const VLG_SO_OUTPUT &o = so.outputs[i];
      const std::string what = fmt::format("outputs[{}]", i);
      if (o.num_components < 1 || o.start_component + o.num_components > 4)
         bad(fmt::format("{}: start_component = {}, num_components = {} (1..4 components within "
                         "x..w)",
                         what, o.start_component, o.num_components));
      const VLG_SO_BUFFER &buf = so.buffers[o.buffer];
      if (!buf.enable)
         continue; /* not written (docs/hw.md so_buffer.enable) */
      if (4u * (o.dst_offset + o.num_components) > buf.stride)
         bad(fmt::format("{}: dst_offset = {} + {} components is beyond buffers[{}].stride = {} "
                         "bytes",
                         what, o.dst_offset, o.num_components, o.buffer, buf.stride));
      /* the VS output register -> vertex slot */
      int out = -1;
      for (unsigned k = 0; k < vs.num_outputs; k++)
         if (vs.outputs[k].reg == o.reg)
            out = int(k);
      if (out < 0)
         bad(fmt::format("{}: R{} is not an output register of the {} shader", what, o.reg,
                         gs ? "geometry" : "vertex"));
      int slot = -1;
      for (unsigned k = 0; k < ge.num_outputs; k++)
         if (ge.outputs[k].reg == o.reg)
            slot = ge.outputs[k].slot;
      if (slot < 0) {
         if (ge.num_outputs >= kMaxShaderIo)
            bad(fmt::format("{}: more than {} vertex outputs kept", what, kMaxShaderIo));
         slot = int(L.num_slots++);
         VsOutput &v = ge.outputs[ge.num_outputs++];
         v.reg = uint8_t(o.reg);
         v.mask = uint8_t(vs.outputs[out].mask);
         v.slot = uint16_t(slot);
      }
      SoOutput &s = p.outputs[p.num_outputs++];
      s.slot = uint16_t(slot);
      s.start = uint8_t(o.start_component);
      s.count = uint8_t(o.num_components);
      s.buffer = uint8_t(o.buffer);
      s.dst = uint16_t(o.dst_offset);
      p.used_buffers |= 1u << o.buffer;
   }
}

GeState
make_ge_state(const DrawPackage &pkg, const Vram &vram)
{
   GeState s = make_ge_state(pkg);
   ge_load_stream_output(s, pkg, vram);
   return s;
}

std::vector<SoRange>
so_memory_ranges(const SoPlan &plan)
{
   std::vector<SoRange> r;
   if (!plan.enabled)
      return r;
   if (plan.block.num_counters)
      r.push_back({plan.block.counters, 16u * plan.block.num_counters});
   for (const VLG_SO_BUFFER &b : plan.block.buffers) {
      if (!b.enable)
         continue;
      r.push_back({b.address, b.size});
      r.push_back({b.filled_size, 4});
   }
   return r;
}

StreamOutput::StreamOutput(const SoPlan &plan, const Vram &vram) : plan_(plan)
{
   if (!plan.enabled)
      return;
   for (unsigned b = 0; b < kMaxSoBuffers; b++) {
      const VLG_SO_BUFFER &buf = plan.block.buffers[b];
      if (!buf.enable)
         continue;
      offset_[b] = buf.offset;
      if (buf.append)
         vram.read(buf.filled_size, &offset_[b], 4, "GE");
   }
}

void
StreamOutput::finish(Vram &vram) const
{
   if (!plan_.enabled)
      return;
   for (unsigned b = 0; b < kMaxSoBuffers; b++)
      if (plan_.block.buffers[b].enable)
         vram.write(plan_.block.buffers[b].filled_size, &offset_[b], 4, "GE");
   for (unsigned i = 0; i < plan_.block.num_counters; i++) {
      uint64_t c[2];
      const uint64_t a = plan_.block.counters + 16u * i;
      vram.read(a, c, 16, "GE");
      c[0] += generated_;
      c[1] += written_;
      vram.write(a, c, 16, "GE");
   }
}

} // namespace vlgpu::sim
