/*
 * vlgpu simulator: the CP's command decoding, fence write and display copy
 * (see func_cp.h).
 */
#include "func_cp.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sim/func/pipe/package.h"

namespace vlgpu::sim {

namespace {

constexpr const char *kCP = "CP";

[[noreturn]] void
malformed(uint64_t queue_address, uint32_t offset_dw, const std::string &why)
{
   throw GpuFault(kCP, fmt::format("malformed command at dword offset {}", offset_dw),
                  fmt::format("command queue at VRAM 0x{:x}, command at 0x{:x}: {}", queue_address,
                              queue_address + uint64_t(offset_dw) * 4, why));
}

} // namespace

const vlg_hw_struct_info &
cp_command_info(vlg_cmd_opcode op)
{
   switch (op) {
   case VLG_CMD_OPCODE_DRAW:
      return VLG_CMD_DRAW_info;
   case VLG_CMD_OPCODE_SYNC:
      return VLG_CMD_SYNC_info;
   case VLG_CMD_OPCODE_DUMP:
      return VLG_CMD_DUMP_info;
   case VLG_CMD_OPCODE_DISPATCH:
      return VLG_CMD_DISPATCH_info;
   case VLG_CMD_OPCODE_COPY:
      return VLG_CMD_COPY_info;
   default:
      return VLG_CMD_HALT_info;
   }
}

unsigned
cp_unpack_command(Command &c)
{
   switch (c.opcode) {
   case VLG_CMD_OPCODE_DRAW:
      return VLG_CMD_DRAW_unpack(c.words, &c.draw);
   case VLG_CMD_OPCODE_SYNC:
      return VLG_CMD_SYNC_unpack(c.words, &c.sync);
   case VLG_CMD_OPCODE_DUMP:
      return VLG_CMD_DUMP_unpack(c.words, &c.dump);
   case VLG_CMD_OPCODE_DISPATCH:
      return VLG_CMD_DISPATCH_unpack(c.words, &c.dispatch);
   case VLG_CMD_OPCODE_COPY:
      return VLG_CMD_COPY_unpack(c.words, &c.copy);
   case VLG_CMD_OPCODE_HALT: {
      VLG_CMD_HALT halt;
      return VLG_CMD_HALT_unpack(c.words, &halt);
   }
   }
   return 0;
}

void
cp_check_queue(const Vram &vram, uint64_t queue_address, uint32_t queue_dwords)
{
   if (queue_address % 4 != 0)
      throw GpuFault(
         kCP, "misaligned command queue",
         fmt::format("command queue address 0x{:x} is not dword aligned", queue_address));
   if (!vram.contains(queue_address, uint64_t(queue_dwords) * 4))
      throw GpuFault(kCP, "command queue outside VRAM",
                     fmt::format("command queue [0x{:x}, +{} dwords) is outside VRAM (size 0x{:x})",
                                 queue_address, queue_dwords, vram.size()));
}

Command
cp_decode_command(const Vram &vram, uint64_t queue_address, uint32_t queue_dwords,
                  uint32_t offset_dw)
{
   cp_check_queue(vram, queue_address, queue_dwords);
   if (offset_dw >= queue_dwords)
      malformed(queue_address, offset_dw,
                fmt::format("offset is past the end of the queue ({} dwords)", queue_dwords));
   const uint64_t addr = queue_address + uint64_t(offset_dw) * 4;
   const uint32_t header = vram.read32(addr, kCP);

   VLG_CMD_HEADER h;
   const unsigned problems = VLG_CMD_HEADER_unpack(&header, &h);
   const uint32_t opcode = header & 0xffu;
   if (opcode == 0)
      malformed(queue_address, offset_dw,
                fmt::format("header 0x{:08x}: opcode 0 is not a command (zeroed memory, or a "
                            "length that skipped past the last command?)",
                            header));
   if (problems & VLG_HW_INVALID_ENUM)
      malformed(queue_address, offset_dw,
                fmt::format("header 0x{:08x}: opcode {} is not a command (DRAW=1 SYNC=2 DUMP=3 "
                            "HALT=4 DISPATCH=5 COPY=6)",
                            header, opcode));
   if (problems & VLG_HW_UNDESCRIBED_BITS)
      malformed(queue_address, offset_dw,
                fmt::format("header 0x{:08x}: reserved bits 0x{:08x} are set", header,
                            header & 0x0000ff00u));

   Command c;
   c.opcode = h.opcode;
   c.offset_dw = offset_dw;
   c.length = h.length;
   const char *name = vlg_cmd_opcode_name(h.opcode);
   const unsigned expect = cp_command_info(h.opcode).length;
   if (h.length == 0)
      malformed(queue_address, offset_dw,
                fmt::format("header 0x{:08x}: {} with length 0 (a {} is {} dwords)", header, name,
                            name, expect));
   if (uint64_t(offset_dw) + h.length > queue_dwords)
      malformed(queue_address, offset_dw,
                fmt::format("truncated command: {} of length {} dwords runs past the end of the "
                            "queue ({} dwords, {} left)",
                            name, h.length, queue_dwords, queue_dwords - offset_dw));
   if (h.length != expect)
      malformed(queue_address, offset_dw,
                fmt::format("header 0x{:08x}: {} with length {} dwords (a {} is {} dwords)", header,
                            name, h.length, name, expect));

   vram.read(addr, c.words, uint64_t(expect) * 4, kCP);
   const unsigned bad = cp_unpack_command(c);
   if (bad) {
      char why[512];
      vlg_hw_describe_problems(&cp_command_info(h.opcode), c.words, why, sizeof(why));
      std::string w = why;
      while (!w.empty() && w.back() == '\n')
         w.pop_back();
      malformed(queue_address, offset_dw, w);
   }
   return c;
}

void
cp_write_fence(Vram &vram, const VLG_CMD_SYNC &sync)
{
   if (sync.fence_address % 4 != 0)
      throw GpuFault(kCP, "SYNC fence address not dword aligned",
                     fmt::format("fence_address 0x{:x}", sync.fence_address));
   const uint32_t v = sync.fence_value; /* little-endian host: the VRAM byte order */
   vram.write(sync.fence_address, &v, 4, kCP);
}

uint64_t
cp_dump_to_display(const Vram &vram, const VLG_CMD_DUMP &cmd, const GpuHost &host)
{
   const Display *d = host.display(cmd.display_id);
   if (!d)
      throw GpuFault(
         kCP, fmt::format("DUMP to unknown display {}", cmd.display_id),
         fmt::format("no display is registered with id {} (vlg_drm_display_set)", cmd.display_id));
   VLG_SURFACE s;
   {
      uint32_t words[VLG_SURFACE_LENGTH];
      read_hw_block_words(vram, cmd.surface, VLG_SURFACE_LENGTH, VLG_SURFACE_info, kCP,
                          "DUMP surface", words);
      if (VLG_SURFACE_unpack(words, &s))
         throw_hw_block_problems(VLG_SURFACE_info, words, cmd.surface, kCP, "DUMP surface");
   }
   const char *sname = vlg_format_name(s.format);
   const char *dname = vlg_format_name(d->format);
   if (s.format == VLG_FORMAT_NONE)
      throw GpuFault(kCP, "DUMP of a surface with format NONE",
                     fmt::format("surface descriptor at 0x{:x}", cmd.surface));
   if (d->format != uint32_t(s.format))
      throw GpuFault(kCP, "DUMP format mismatch",
                     fmt::format("surface at 0x{:x} is {} but display {} is {} (DUMP copies "
                                 "pixels without conversion)",
                                 cmd.surface, sname ? sname : "?", cmd.display_id,
                                 dname ? dname : fmt::format("format {}", d->format)));
   const unsigned bpp = vlg_format_bytes(s.format);
   if (uint64_t(s.pitch) < uint64_t(s.width) * bpp)
      throw GpuFault(
         kCP, "DUMP surface pitch too small",
         fmt::format("pitch {} bytes < width {} x {} bytes per pixel", s.pitch, s.width, bpp));
   if (!vram.contains(s.address, surface_extent_bytes(s)))
      throw GpuFault(kCP, "DUMP surface outside VRAM",
                     fmt::format("surface pixels [0x{:x}, +{} bytes) are outside VRAM (size "
                                 "0x{:x})",
                                 s.address, surface_extent_bytes(s), vram.size()));
   if (!d->data && d->width && d->height)
      throw GpuFault(kCP, "DUMP to a display without memory",
                     fmt::format("display {} has no data pointer", cmd.display_id));
   if (uint64_t(d->stride) < uint64_t(d->width) * bpp && d->height > 1)
      throw GpuFault(kCP, "DUMP display stride too small",
                     fmt::format("display {}: stride {} bytes < width {} x {} bytes per pixel",
                                 cmd.display_id, d->stride, d->width, bpp));

   const uint32_t x0 = cmd.rect.minx, y0 = cmd.rect.miny;
   const uint32_t x1 = std::min<uint32_t>({cmd.rect.maxx, s.width, d->width});
   const uint32_t y1 = std::min<uint32_t>({cmd.rect.maxy, s.height, d->height});
   if (x0 >= x1 || y0 >= y1)
      return 0;
   const uint64_t row_bytes = uint64_t(x1 - x0) * bpp;
   for (uint32_t y = y0; y < y1; y++) {
      const uint8_t *src =
         vram.ptr(s.address + uint64_t(y) * s.pitch + uint64_t(x0) * bpp, row_bytes, kCP);
      std::memcpy(d->data + uint64_t(y) * d->stride + uint64_t(x0) * bpp, src, row_bytes);
   }
   return uint64_t(x1 - x0) * (y1 - y0);
}

} // namespace vlgpu::sim
