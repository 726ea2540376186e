/*
 * vlgpu cycle-mode GPU: the shader side of a draw (decoded programs, global
 * buffers, texture units, ShaderResources), made by draw_state_load() exactly
 * as render_draw() makes them.
 *
 * Kept apart from draw_state.h because sim/func/shader/executor.h and
 * sim/core/engine.h both declare a vlgpu::sim::RunResult and cannot meet in
 * one translation unit: include this only where the executor is used (SPC,
 * CP), never next to engine.h.
 */
#pragma once

#include <memory>
#include <vector>

#include "sim/func/shader/executor.h"
#include "sim/func/shader/program.h"

namespace vlgpu::sim {

struct DrawShaders {
   std::shared_ptr<const Program> vs_prog, fs_prog;
   std::vector<uint32_t> vs_consts, fs_consts;
   std::vector<TextureUnit> vs_units, fs_units;
   ShaderResources vs_res, fs_res;
   /** Geometry shader (pkg.has_gs(), else null/empty). gs_res has no
    *  output sink (ShaderResources::gs): the SPC runs each GS group with a
    *  copy pointing at the group's GsOutput. Global MEM as in the VS
    *  and FS (and functional mode). */
   std::shared_ptr<const Program> gs_prog;
   std::vector<uint32_t> gs_consts;
   std::vector<TextureUnit> gs_units;
   ShaderResources gs_res;
};

} // namespace vlgpu::sim
