/*
 * vlgpu simulator: the COPY command's copy_info (copy.h).
 */
#include "copy.h"

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace vlgpu::sim {

namespace {

constexpr const char *kCP = "CP";

using u128 = unsigned __int128;

[[noreturn]] void
bad(uint64_t address, const std::string &why, const std::string &detail)
{
   throw GpuFault(kCP, "malformed COPY: " + why,
                  fmt::format("copy_info at VRAM 0x{:x}: {}", address, detail));
}

/** Last byte + 1 of a box at @base (128 bits: no wrap for any field values). */
u128
box_end(uint64_t base, const VLG_COPY_INFO &ci, uint64_t row_stride, uint64_t slice_stride)
{
   return u128(base) + (u128(ci.depth) - 1) * slice_stride + (u128(ci.height) - 1) * row_stride +
          ci.width_bytes;
}

std::string
hex128(u128 v)
{
   if (v >> 64)
      return fmt::format("0x{:x}{:016x}", uint64_t(v >> 64), uint64_t(v));
   return fmt::format("0x{:x}", uint64_t(v));
}

void
check_box(const Vram &vram, uint64_t address, const VLG_COPY_INFO &ci, bool src)
{
   const char *which = src ? "src" : "dst";
   const uint64_t base = src ? ci.src : ci.dst;
   const uint64_t rs = src ? ci.src_row_stride : ci.dst_row_stride;
   const uint64_t ss = src ? ci.src_slice_stride : ci.dst_slice_stride;
   const u128 end = box_end(base, ci, rs, ss);
   if (end <= vram.size())
      return;
   bad(address, fmt::format("{} box outside VRAM", src ? "source" : "destination"),
       fmt::format("{} = 0x{:x}, width_bytes = {}, height = {}, depth = {}, {}_row_stride = {}, "
                   "{}_slice_stride = {}: the box's last byte is at {} but VRAM ends at 0x{:x}",
                   which, base, ci.width_bytes, ci.height, ci.depth, which, rs, which, ss,
                   hex128(end - 1), vram.size()));
}

} // namespace

VLG_COPY_INFO
cp_load_copy_info(const Vram &vram, uint64_t address)
{
   constexpr uint64_t bytes = uint64_t(VLG_COPY_INFO_LENGTH) * 4;
   if (address % 4 != 0)
      bad(address, "copy_info not dword aligned",
          fmt::format("cmd_copy.copy_info 0x{:x} is not a multiple of 4", address));
   if (!vram.contains(address, bytes))
      bad(address, "copy_info outside VRAM",
          fmt::format("the block [0x{:x}, +{} bytes) is outside VRAM (size 0x{:x})", address,
                      bytes, vram.size()));
   uint32_t words[VLG_COPY_INFO_LENGTH];
   vram.read(address, words, bytes, kCP);
   VLG_COPY_INFO ci;
   if (VLG_COPY_INFO_unpack(words, &ci)) {
      char buf[1024];
      vlg_hw_describe_problems(&VLG_COPY_INFO_info, words, buf, sizeof(buf));
      std::string d = buf;
      while (!d.empty() && d.back() == '\n')
         d.pop_back();
      bad(address, "bad copy_info fields", d);
   }
   if (ci.mode != VLG_COPY_MODE_COPY && ci.mode != VLG_COPY_MODE_FILL)
      bad(address, "unknown mode", fmt::format("mode = {} (COPY = {}, FILL = {})", unsigned(ci.mode),
                                               unsigned(VLG_COPY_MODE_COPY),
                                               unsigned(VLG_COPY_MODE_FILL)));
   const bool fill = ci.mode == VLG_COPY_MODE_FILL;
   if (fill) {
      const unsigned fb = ci.fill_bytes;
      if (fb != 1 && fb != 2 && fb != 4 && fb != 8 && fb != 12 && fb != 16)
         bad(address, "bad fill_bytes",
             fmt::format("fill_bytes = {}: a FILL pattern is 1, 2, 4, 8, 12 or 16 bytes", fb));
   }
   if (!ci.width_bytes || !ci.height || !ci.depth)
      return ci; /* empty: touches nothing */
   if (!fill)
      check_box(vram, address, ci, true);
   check_box(vram, address, ci, false);
   return ci;
}

uint64_t
cp_run_copy(Vram &vram, const VLG_COPY_INFO &ci)
{
   if (!ci.width_bytes || !ci.height || !ci.depth)
      return 0;
   const uint64_t w = ci.width_bytes;
   if (ci.mode == VLG_COPY_MODE_FILL) {
      uint8_t pat[16];
      std::memcpy(pat, ci.fill_value, sizeof(pat)); /* little-endian host: VRAM byte order */
      const unsigned fb = ci.fill_bytes;
      std::vector<uint8_t> row(w);
      for (uint64_t i = 0; i < w; i++)
         row[i] = pat[i % fb];
      copy_for_each_row(ci, [&](uint64_t, uint64_t d) { vram.write(d, row.data(), w, kCP); });
      return copy_box_bytes(ci);
   }
   const u128 s_end = box_end(ci.src, ci, ci.src_row_stride, ci.src_slice_stride);
   const u128 d_end = box_end(ci.dst, ci, ci.dst_row_stride, ci.dst_slice_stride);
   const bool overlap = ci.src < d_end && ci.dst < s_end;
   if (!overlap || (ci.height == 1 && ci.depth == 1)) {
      /* disjoint spans, or one row (memmove handles its overlap) */
      copy_for_each_row(ci, [&](uint64_t s, uint64_t d) {
         const uint8_t *p = vram.ptr(s, w, kCP);
         std::memmove(vram.ptr_mut(d, w, kCP), p, w);
      });
      return copy_box_bytes(ci);
   }
   /* Overlapping boxes: every source byte is read before any is written
    * (vlgpu_hw.xml copy_info). A snapshot of the source's span, not of the
    * box: rows may overlap each other (a stride below the width, 0 included),
    * so the box can hold many times more bytes than VRAM (a 37 GB buffer
    * for a 206-byte input of the cp fuzz target), while the span lies inside
    * VRAM (cp_load_copy_info checked it). */
   const uint64_t span = uint64_t(s_end - ci.src);
   std::vector<uint8_t> snapshot(span);
   vram.read(ci.src, snapshot.data(), span, kCP);
   copy_for_each_row(ci, [&](uint64_t s, uint64_t d) {
      vram.write(d, snapshot.data() + (s - ci.src), w, kCP);
   });
   return copy_box_bytes(ci);
}

bool
cp_copy_command(Vram &vram, CopyReport &rep, SubmitResult &res, VLG_COPY_INFO &ci)
{
   bool done = false;
   run_command(
      rep,
      [&] {
         ci = cp_load_copy_info(vram, rep.copy_info_address);
         rep.mode = uint32_t(ci.mode);
         rep.bytes = cp_run_copy(vram, ci);
         done = true;
      },
      [&](const GpuFault &f) {
         rep.bytes = 0;
         FaultRecord fr{f.module(), f.summary(), f.what(), rep.cmd_offset_dw, -1};
         fr.copy_index = int32_t(rep.index_in_queue);
         res.faults.push_back(fr);
      });
   return done;
}

} // namespace vlgpu::sim
