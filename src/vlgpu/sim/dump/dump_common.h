/*
 * vlgpu simulator, per-draw dump: what the writer and the reader share
 * (section names, file names, texture level geometry). Internal header.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vlg_hw.h"

namespace vlgpu::sim::dump {

/** One sub-block of pipe_state printed as its own draw.txt section
 *  "[pipe_state.<name>]" (rasterizer, viewport, ..., sample_mask). */
struct PipeSubBlock {
   std::string name;               /**< "blend" */
   const vlg_hw_struct_info *info; /**< its struct */
   unsigned offset;                /**< first dword inside pipe_state */
};

/**
 * The sub-blocks of pipe_state, in order, derived from the generated field
 * tables (each field path "<sub>.<field>" of pipe_state is field <field> of
 * struct <sub>). They cover every described word of pipe_state.
 */
const std::vector<PipeSubBlock> &pipe_sub_blocks();

/** Size and layer count of one texture level (docs/hw.md texture). */
struct TexLevel {
   uint32_t width = 0, height = 0, layers = 0;
   uint64_t bytes_per_layer_row = 0; /**< width * bytes per texel */
};
TexLevel texture_level_size(const VLG_TEXTURE &t, unsigned level);

/** "tex-fs0-level1-layer0" (no extension). */
std::string texture_file_base(const char *stage, unsigned unit, unsigned level, unsigned layer);

/** Section names: "vertex_elements[2]", "fs_textures[0]", ... */
std::string array_section(const char *array, unsigned i);

/**
 * A framebuffer surface as the dump's image of it: for a 4-sample
 * framebuffer (framebuffer.samples = 4, docs/hw.md "Multisampling": the 4
 * samples of a pixel are adjacent, pixel step = 4 x bytes per pixel) an
 * image 4 x width pixels wide, samples 0..3 of each pixel side by side; a
 * single-sample surface unchanged.
 */
inline VLG_SURFACE
surface_image(const VLG_SURFACE &s, unsigned fb_samples)
{
   VLG_SURFACE r = s;
   if (fb_samples == 4)
      r.width = s.width * 4;
   return r;
}

/** Draw kinds without the vertex/fragment pipeline (no pipe_state, shaders,
 *  vertex data in the package): CLEAR and RESOLVE. */
inline bool
fixed_function_kind(uint32_t kind)
{
   return kind == VLG_DRAW_KIND_CLEAR || kind == VLG_DRAW_KIND_RESOLVE;
}

/** Bytes of the rectangle of @h rows of @row_bytes bytes at @pitch (0 if empty). */
inline uint64_t
rows_extent(uint64_t pitch, uint64_t row_bytes, uint64_t h)
{
   return h == 0 || row_bytes == 0 ? 0 : pitch * (h - 1) + row_bytes;
}

/**
 * shader_state: if @f is a field of an I/O entry beyond the used ones
 * (inputs[i] with i >= num_inputs, outputs[i] with i >= num_outputs),
 * returns true and the entry as "inputs[5]". draw.txt leaves such entries
 * out when every field holds its default (the reader restores them), so the
 * 64 entries do not drown the used ones.
 */
bool shader_io_unused(const vlg_hw_field_info &f, unsigned num_inputs, unsigned num_outputs,
                      std::string *entry = nullptr);

/** The used entries of the 64-entry I/O arrays of a block (shader_io_unused). */
struct ShaderIo {
   unsigned num_inputs = 0, num_outputs = 0;
   bool has_inputs = false; /**< the struct has an inputs[] array */
};

/**
 * The used I/O entries of the block @words of @info if draw.txt elides its
 * unused ones: a shader_state (num_inputs, num_outputs) or a stream_output
 * (num_outputs; no inputs[] array); std::nullopt for every other struct.
 */
std::optional<ShaderIo> shader_io(const vlg_hw_struct_info &info, const uint32_t *words);

constexpr const char *kCommandFile = "command.txt";
constexpr const char *kDrawFile = "draw.txt";

} // namespace vlgpu::sim::dump
