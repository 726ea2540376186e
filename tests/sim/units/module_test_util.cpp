/*
 * The parts of the module-test helpers that need the shader executor's
 * header (it cannot share a translation unit with sim/core/engine.h, whose
 * RunResult has the same name).
 */
#include <cstring>
#include <stdexcept>

#include "sim/units/common/draw_shaders.h"
#include "sim/units/common/draw_state.h"

namespace vlgpu::sim::test {

DrawRef
make_shader_draw(Vram &vram, bool fragment, const std::vector<uint32_t> &code, unsigned num_regs,
                 uint64_t code_address, uint64_t buf, uint32_t buf_size)
{
   auto d = std::make_shared<DrawState>();
   d->vram = &vram;
   d->loaded = true;
   vram.write(code_address, code.data(), code.size() * 4, "test");
   VLG_SHADER_STATE &st = fragment ? d->pkg.fs.state : d->pkg.vs.state;
   VLG_SHADER_STATE_init(&st);
   st.stage = fragment ? VLG_SHADER_STAGE_FRAGMENT : VLG_SHADER_STAGE_VERTEX;
   st.num_regs = num_regs;
   st.code = code_address;
   st.code_size = uint32_t(code.size());
   auto sh = std::make_unique<DrawShaders>();
   auto prog = std::make_shared<const Program>(code.data(), uint32_t(code.size()), 0);
   ShaderResources &res = fragment ? sh->fs_res : sh->vs_res;
   res.stage = st.stage;
   res.vram = &vram;
   res.buffers[0] = BufferSlot{buf, buf_size};
   if (fragment)
      sh->fs_prog = prog;
   else
      sh->vs_prog = prog;
   d->shaders = std::move(sh);
   return d;
}

void
make_geometry_shader(DrawState &d, unsigned max_vertices)
{
   d.pkg.gs.state = d.pkg.vs.state;
   d.pkg.gs.state.stage = VLG_SHADER_STAGE_GEOMETRY;
   d.shaders->gs_prog = d.shaders->vs_prog;
   d.shaders->gs_res = d.shaders->vs_res;
   d.shaders->gs_res.stage = VLG_SHADER_STAGE_GEOMETRY;
   d.ge.gs.enabled = true;
   d.ge.gs.max_vertices = max_vertices;
   d.ge.gs.output_prim = VLG_PRIM_POINTS;
}

void
enable_global_memory(DrawState &d, Vram &vram)
{
   d.shaders->vs_res.global = &vram;
   d.shaders->fs_res.global = &vram;
}

unsigned
isa_latency(const std::string &mnemonic)
{
   for (unsigned op = 0; op < 64; op++)
      if (vlg_op_table[op].name && mnemonic == vlg_op_table[op].name)
         return vlg_op_table[op].latency;
   throw std::invalid_argument("no op " + mnemonic);
}

} // namespace vlgpu::sim::test
