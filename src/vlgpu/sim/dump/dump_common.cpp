/*
 * vlgpu simulator, per-draw dump: shared helpers (see dump_common.h).
 */
#include "dump_common.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/dump/dump.h"

namespace vlgpu::sim {

std::string
dump_draw_dir_name(uint64_t draw_number)
{
   return fmt::format("draw-{:06}", draw_number);
}

namespace dump {

const std::vector<PipeSubBlock> &
pipe_sub_blocks()
{
   static const std::vector<PipeSubBlock> blocks = [] {
      std::vector<PipeSubBlock> r;
      const vlg_hw_struct_info &ps = VLG_PIPE_STATE_info;
      for (unsigned i = 0; i < ps.num_fields; i++) {
         const vlg_hw_field_info &f = ps.fields[i];
         const char *dot = std::strchr(f.name, '.');
         if (!dot)
            throw std::logic_error(
               fmt::format("pipe_state field '{}' is not in a sub-block", f.name));
         const std::string sub(f.name, size_t(dot - f.name));
         if (!r.empty() && r.back().name == sub)
            continue;
         const vlg_hw_struct_info *si = vlg_hw_struct_by_name(sub.c_str());
         if (!si)
            throw std::logic_error(fmt::format("pipe_state sub-block '{}' is not a struct", sub));
         const vlg_hw_field_info *sf = vlg_hw_field_by_name(si, dot + 1, std::strlen(dot + 1));
         if (!sf || sf->word > f.word)
            throw std::logic_error(
               fmt::format("pipe_state field '{}' not found in struct {}", f.name, sub));
         r.push_back(PipeSubBlock{sub, si, f.word - sf->word});
      }
      return r;
   }();
   return blocks;
}

TexLevel
texture_level_size(const VLG_TEXTURE &t, unsigned level)
{
   TexLevel l;
   if (t.target == VLG_TEXTURE_TARGET_BUFFER) { /* one row of width | height << 16 texels */
      l.width = std::max(1u, unsigned(t.width) | unsigned(t.height) << 16);
      l.height = l.layers = 1;
      l.bytes_per_layer_row = uint64_t(l.width) * vlg_format_bytes(t.format);
      return l;
   }
   l.width = std::max(1u, unsigned(t.width) >> level);
   l.height = std::max(1u, unsigned(t.height) >> level);
   l.layers = t.target == VLG_TEXTURE_TARGET_3D ? std::max(1u, unsigned(t.depth) >> level)
                                                : std::max(1u, unsigned(t.array_size));
   l.bytes_per_layer_row = uint64_t(l.width) * vlg_format_bytes(t.format);
   return l;
}

std::string
texture_file_base(const char *stage, unsigned unit, unsigned level, unsigned layer)
{
   return fmt::format("tex-{}{}-level{}-layer{}", stage, unit, level, layer);
}

bool
shader_io_unused(const vlg_hw_field_info &f, unsigned num_inputs, unsigned num_outputs,
                 std::string *entry)
{
   const char *name = f.name;
   unsigned limit;
   if (std::strncmp(name, "inputs[", 7) == 0)
      limit = num_inputs;
   else if (std::strncmp(name, "outputs[", 8) == 0)
      limit = num_outputs;
   else
      return false;
   const char *open = std::strchr(name, '[');
   const char *close = std::strchr(open, ']');
   const unsigned idx = unsigned(std::strtoul(open + 1, nullptr, 10));
   if (idx < limit)
      return false;
   if (entry)
      entry->assign(name, size_t(close - name + 1));
   return true;
}

std::optional<ShaderIo>
shader_io(const vlg_hw_struct_info &info, const uint32_t *words)
{
   if (&info == &VLG_SHADER_STATE_info) {
      VLG_SHADER_STATE ss;
      VLG_SHADER_STATE_unpack(words, &ss);
      return ShaderIo{ss.num_inputs, ss.num_outputs, true};
   }
   if (&info == &VLG_STREAM_OUTPUT_info) {
      VLG_STREAM_OUTPUT so;
      VLG_STREAM_OUTPUT_unpack(words, &so);
      return ShaderIo{0, so.num_outputs, false};
   }
   return std::nullopt;
}

std::string
array_section(const char *array, unsigned i)
{
   return fmt::format("{}[{}]", array, i);
}

} // namespace dump
} // namespace vlgpu::sim
