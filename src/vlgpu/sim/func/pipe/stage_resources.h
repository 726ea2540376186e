/*
 * What the shader stages of one draw read besides their registers, built
 * from a loaded draw package (package.h) the same way by the functional GPU
 * (functional.cpp render_draw) and by the cycle-mode CP (units/common/
 * draw_state.cpp): the constant image, the texture units, the LDB buffer
 * slots (docs/hw.md "Uniform buffers"), and which FS outputs are colours.
 */
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/func/pipe/package.h"
#include "sim/func/shader/executor.h"

namespace vlgpu::sim {

/** A shader's global-buffer image C0...: num_consts vec4 of 32-bit words read
 *  from shader_state.consts, plus one zero vec4 (so an empty image still has
 *  a valid pointer). Throws GpuFault (Vram::read) on an out-of-range address. */
inline std::vector<uint32_t>
read_consts(const Vram &vram, const VLG_SHADER_STATE &s)
{
   std::vector<uint32_t> c(size_t(s.num_consts) * 4 + 4, 0);
   if (s.num_consts)
      vram.read(s.consts, c.data(), uint64_t(s.num_consts) * 16, "CP");
   return c;
}

/** Texture units T0..: one per texture/sampler pair bound to the stage. */
inline std::vector<TextureUnit>
texture_units(const std::vector<VLG_TEXTURE> &tex, const std::vector<VLG_SAMPLER> &smp)
{
   std::vector<TextureUnit> u(std::min(tex.size(), smp.size()));
   for (size_t i = 0; i < u.size(); i++) {
      u[i].valid = true;
      u[i].tex = tex[i];
      u[i].samp = smp[i];
   }
   return u;
}

/** The ShaderResources of one stage; `consts` and `units` must outlive it
 *  (it points into them). @global: writable VRAM for MEM (the same memory
 *  as @vram), null when the stage may not use MEM (a global MEM faults).
 *  @max_instructions, @submit_instructions_left: the watchdog
 *  (ShaderResources). */
inline ShaderResources
stage_resources(vlg_shader_stage stage, const ShaderPackage &sp,
                const std::vector<uint32_t> &consts, const std::vector<TextureUnit> &units,
                const Vram &vram, uint64_t max_instructions, Vram *global = nullptr,
                uint64_t *submit_instructions_left = nullptr)
{
   ShaderResources r;
   r.stage = stage;
   r.consts = reinterpret_cast<const uint32_t(*)[4]>(consts.data());
   r.num_consts = sp.state.num_consts;
   r.consts_address = sp.state.consts;
   r.textures = units.data();
   r.num_textures = unsigned(units.size());
   r.vram = &vram;
   r.global = global; /* MEM on global memory (docs/isa.md "Memory (MEM)") */
   r.max_instructions = max_instructions;
   r.submit_instructions_left = submit_instructions_left;
   /* LDB slots: shader_state.buffers (docs/hw.md "Uniform buffers"). */
   for (unsigned i = 0; i < VLG_NUM_BUFFERS; i++)
      r.buffers[i] = i < sp.buffers.size()
                        ? BufferSlot{sp.buffers[i].address, sp.buffers[i].size}
                        : BufferSlot{};
   return r;
}

/** Bit i set when the fragment shader writes COLOR output i. */
inline unsigned
fs_color_outputs(const VLG_SHADER_STATE &fss)
{
   unsigned colors = 0;
   for (unsigned i = 0; i < fss.num_outputs; i++)
      if (fss.outputs[i].semantic == VLG_OUTPUT_SEMANTIC_COLOR)
         colors |= 1u << fss.outputs[i].index;
   return colors;
}

} // namespace vlgpu::sim
