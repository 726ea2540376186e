/*
 * vlgpu simulator, functional pipeline: the per-draw package.
 *
 * load_draw_package() is what the CP does for a DRAW command (seed 001 §3.2,
 * docs/hw.md "The per-draw package"): read the draw_info block at a VRAM
 * address and every block it points to, unpack them with the generated
 * vlg_hw.h functions and validate them, so that GE, PE, SPC and OMU work on
 * plain C++ structs and never see a malformed word.
 *
 * Everything here is read-only with respect to VRAM. A malformed package is a
 * GpuFault (module "CP") whose summary names the block and whose detail names
 * the field: a block outside VRAM, a set reserved bit or an unnamed enum value
 * (VLG_<STRUCT>_unpack / vlg_hw_describe_problems), a count beyond its limit,
 * a format not usable for its role (vlg_format_usage), a surface or buffer
 * that does not fit in VRAM, a shader I/O map that cannot work, or a state
 * value of a feature the simulator does not implement (multisampling, logic
 * ops, polygon modes other than FILL).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vlg_hw.h"
#include "vlg_limits.h"

#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"

namespace vlgpu::sim {

/** Limits of the package: the machine limits of the generated vlg_limits.h
 *  (isa.py, vlgpu_hw.xml; docs/hw.md "Limits") as unsigned constants. */
enum : unsigned {
   kMaxVertexElements = VLG_HW_MAX_VERTEX_ELEMENTS, /**< draw_info.num_vertex_elements */
   kMaxVertexBuffers = VLG_HW_MAX_VERTEX_BUFFERS,   /**< draw_info.num_vertex_buffers */
   kMaxTextures = VLG_NUM_TEX_UNITS, /**< per stage, draw_info.*_num_textures / *_num_samplers */
   kMaxBuffers = VLG_NUM_BUFFERS,    /**< shader_state.num_buffers (LDB slots B0..B15) */
   kMaxShaderIo = VLG_HW_MAX_SHADER_IO,   /**< shader_state inputs[] / outputs[] entries */
   kMaxRegs = VLG_NUM_REGS,               /**< shader_state.num_regs */
   kMaxColorBufs = VLG_HW_MAX_COLOR_BUFS, /**< framebuffer.cbufs[] */
   kMaxVaryings = VLG_HW_MAX_IO_INDICES,  /**< VARYING index range (shader_input.index) */
   kMaxGsInvocations = VLG_HW_MAX_GS_INVOCATIONS, /**< shader_state.gs_invocations */
};

/** One shader of the draw: its shader_state block, unpacked and validated. */
struct ShaderPackage {
   uint64_t address = 0;        /**< VRAM byte address of the shader_state block */
   VLG_SHADER_STATE state = {}; /**< unpacked; num_inputs/num_outputs entries are valid */
   std::vector<VLG_BUFFER> buffers; /**< [state.num_buffers]: LDB slots B0.. (docs/hw.md) */
};

/**
 * Everything one DRAW needs, unpacked. Arrays hold exactly the number of
 * entries draw_info declares. For draw_info.kind == CLEAR only @draw and @fb
 * are loaded (the other addresses are ignored, docs/hw.md).
 */
struct DrawPackage {
   uint64_t address = 0;     /**< VRAM byte address of the draw_info block */
   VLG_DRAW_INFO draw = {};  /**< draw_info */
   VLG_PIPE_STATE pipe = {}; /**< pipe_state (rasterizer, viewport, ... sample_mask) */
   ShaderPackage vs, fs;     /**< vertex and fragment shader */
   ShaderPackage gs;         /**< geometry shader (draw_info.gs != 0, else address 0) */
   VLG_FRAMEBUFFER fb = {};  /**< framebuffer with cbufs[0..nr_cbufs-1] and zsbuf */
   std::vector<VLG_VERTEX_ELEMENT> vertex_elements;   /**< [num_vertex_elements] */
   std::vector<VLG_VERTEX_BUFFER> vertex_buffers;     /**< [num_vertex_buffers] */
   std::vector<VLG_TEXTURE> vs_textures, fs_textures; /**< [*_num_textures] */
   std::vector<VLG_SAMPLER> vs_samplers, fs_samplers; /**< [*_num_samplers] */
   std::vector<VLG_TEXTURE> gs_textures; /**< [gs_num_textures] */
   std::vector<VLG_SAMPLER> gs_samplers; /**< [gs_num_samplers] */

   /** RESOLVE only: the destination surface block at draw_info.resolve_dst. */
   VLG_SURFACE resolve_dst = {};

   bool is_clear() const { return draw.kind == VLG_DRAW_KIND_CLEAR; }
   bool is_resolve() const { return draw.kind == VLG_DRAW_KIND_RESOLVE; }
   /** A draw of primitives (not CLEAR or RESOLVE). */
   bool is_primitives() const { return draw.kind == VLG_DRAW_KIND_PRIMITIVES; }
   bool indexed() const { return draw.index_size != VLG_INDEX_SIZE_NONE; }
   /** A draw with a geometry shader (docs/hw.md "Geometry shaders"). */
   bool has_gs() const { return is_primitives() && draw.gs != 0; }
};

/**
 * The CP's package fetch: read and validate every block of the draw whose
 * draw_info is at @draw_info_address.
 *
 * Errors: GpuFault, module "CP", summary "malformed draw package: <block>",
 * detail with the field, its value and the limit or the rule it breaks (see
 * the file comment for the list of checks). Never reads outside VRAM.
 */
DrawPackage load_draw_package(const Vram &vram, uint64_t draw_info_address);

/** Everything one DISPATCH needs, unpacked (docs/hw.md "Compute"). */
struct ComputePackage {
   uint64_t address = 0;       /**< VRAM byte address of the compute_info block */
   VLG_COMPUTE_INFO info = {}; /**< compute_info; grid_* already replaced by the indirect words */
   ShaderPackage cs;           /**< the compute shader (stage COMPUTE, no inputs/outputs) */
   std::vector<VLG_TEXTURE> textures; /**< [num_textures] */
   std::vector<VLG_SAMPLER> samplers; /**< [num_samplers] */
};

/**
 * The CP's fetch of a DISPATCH: compute_info (with the indirect grid read),
 * the cs shader_state, its uniform buffers, textures and samplers.
 * Errors: GpuFault "CP", summary "malformed draw package: <block>" as for
 * draws (zero block dimension, shared_size not a multiple of 4, a shader
 * that is not COMPUTE or has inputs/outputs, blocks outside VRAM, ...).
 * Workgroup limits (invocations, registers, shared memory) are the
 * dispatcher's, which knows the configuration.
 */
ComputePackage load_compute_package(const Vram &vram, uint64_t compute_info_address);

/**
 * The CP's end-of-draw occlusion-counter update (docs/hw.md
 * draw_info.occlusion_counter): adds @samples_passed (DrawStats::
 * samples_passed: samples that passed alpha, depth and stencil and were not
 * discarded; = fragments for single-sampled framebuffers) to the 64-bit
 * little-endian counter. No-op for a CLEAR or
 * a counter address of 0. Called by both simulator modes when a draw has
 * ended without a fault, in draw order. The address was checked by
 * load_draw_package.
 */
void cp_add_occlusion(Vram &vram, const DrawPackage &pkg, uint64_t samples_passed);

/**
 * Unpack one hardware block of type T (a VLG_<STRUCT>) from VRAM at @address
 * with full checking: the block must lie inside VRAM and unpack cleanly (no set
 * reserved bit, no unnamed enum value). @what names the block in the fault
 * ("vertex_element[3]"); @module is the faulting module ("CP", "GE", ...).
 * Exposed for the cycle-mode modules that fetch blocks themselves.
 */
template <typename T> struct HwBlock;

#define VLG_PIPE_HW_BLOCK(NAME)                                                                    \
   template <> struct HwBlock<VLG_##NAME> {                                                        \
      static constexpr unsigned length = VLG_##NAME##_LENGTH;                                      \
      static const vlg_hw_struct_info &info() { return VLG_##NAME##_info; }                        \
      static unsigned unpack(const uint32_t *dw, VLG_##NAME *v)                                    \
      {                                                                                            \
         return VLG_##NAME##_unpack(dw, v);                                                        \
      }                                                                                            \
   };
VLG_PIPE_HW_BLOCK(DRAW_INFO)
VLG_PIPE_HW_BLOCK(PIPE_STATE)
VLG_PIPE_HW_BLOCK(SHADER_STATE)
VLG_PIPE_HW_BLOCK(FRAMEBUFFER)
VLG_PIPE_HW_BLOCK(VERTEX_ELEMENT)
VLG_PIPE_HW_BLOCK(VERTEX_BUFFER)
VLG_PIPE_HW_BLOCK(TEXTURE)
VLG_PIPE_HW_BLOCK(SAMPLER)
VLG_PIPE_HW_BLOCK(SURFACE)
VLG_PIPE_HW_BLOCK(BUFFER)
VLG_PIPE_HW_BLOCK(COMPUTE_INFO)
#undef VLG_PIPE_HW_BLOCK

/** Implementation of read_hw_block (non-template part). */
void read_hw_block_words(const Vram &vram, uint64_t address, unsigned length_dw,
                         const vlg_hw_struct_info &info, const char *module,
                         const std::string &what, uint32_t *words);
[[noreturn]] void throw_hw_block_problems(const vlg_hw_struct_info &info, const uint32_t *words,
                                          uint64_t address, const char *module,
                                          const std::string &what);

template <typename T>
T
read_hw_block(const Vram &vram, uint64_t address, const char *module, const std::string &what)
{
   uint32_t words[HwBlock<T>::length];
   read_hw_block_words(vram, address, HwBlock<T>::length, HwBlock<T>::info(), module, what, words);
   T v;
   if (HwBlock<T>::unpack(words, &v))
      throw_hw_block_problems(HwBlock<T>::info(), words, address, module, what);
   return v;
}

/**
 * Bytes a linear surface occupies from its address: pitch * (height - 1) +
 * width * bytes per pixel * @samples (4-sample surfaces, docs/hw.md
 * "Multisampling"; 0 or 1: one), plus (layers - 1) * layer_stride for a
 * layered surface (docs/hw.md "Layered rendering") (0 for an empty surface).
 */
uint64_t surface_extent_bytes(const VLG_SURFACE &s, unsigned samples = 1);

} // namespace vlgpu::sim
