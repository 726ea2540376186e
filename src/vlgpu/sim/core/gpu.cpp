/*
 * vlgpu simulator: the parts of the Gpu interface (gpu.h) both GPU modes
 * share: mode names, the compute limits a Config implies, and the JSON form
 * of the per-command reports (the device's draw statistics, the dump, the
 * replay tool).
 */
#include <fmt/format.h>

#include "sim/core/gpu.h"
#include "vlgpu_stats_keys.h"

namespace vlgpu::sim {

namespace K = vlgpu::stats_key;

ComputeLimits
compute_limits(const Config &cfg)
{
   ComputeLimits l;
   l.width = cfg.thread_group_width;
   l.max_thread_groups = cfg.thread_groups_per_spc;
   l.max_regs = cfg.vec4_registers_per_lane;
   l.shared_memory_bytes = cfg.shared_memory_bytes;
   return l;
}

const char *
gpu_mode_name(GpuMode m)
{
   return m == GpuMode::Cycle ? "cycle" : "functional";
}

/** Appends a shader stage's issue counts to its object @j: instructions
 *  (issued), lane_instructions, dual_issued and dual_issue_rate
 *  (dual_issued / instructions, 0 without instructions). */
static void
add_issue_json(nlohmann::ordered_json &j, uint64_t instructions, uint64_t lane_instructions,
               uint64_t dual_issued)
{
   j[K::instructions] = instructions;
   j["lane_instructions"] = lane_instructions;
   j[K::dual_issued] = dual_issued;
   j["dual_issue_rate"] = instructions ? double(dual_issued) / double(instructions) : 0.0;
}

nlohmann::ordered_json
draw_stats_json(const DrawStats &s)
{
   nlohmann::ordered_json j;
   j[K::clear] = s.clear;
   if (s.resolve_pixels)
      j["resolve_pixels"] = s.resolve_pixels;
   j[K::clear_pixels] = s.clear_pixels;
   j[K::ge] = {{"indices", s.ge.indices},
              {"restarts", s.ge.restarts},
              {"vertices_fetched", s.ge.vertices_fetched},
              {"vertices_reused", s.ge.vertices_reused},
              {K::primitives, s.ge.primitives},
              {"vs_groups", s.ge.vs_groups}};
   j[K::pe] = {{"prims_in", s.pe.prims_in},
              {"prims_clipped", s.pe.prims_clipped},
              {"prims_trivially_rejected", s.pe.prims_trivially_rejected},
              {K::prims_culled, s.pe.prims_culled},
              {"triangles_setup", s.pe.triangles_setup},
              {"lines_setup", s.pe.lines_setup},
              {"points_setup", s.pe.points_setup},
              {"quads", s.pe.quads},
              {K::fragments, s.pe.fragments}};
   j[K::vs] = {{K::invocations, s.vs_invocations}, {"groups", s.vs_groups}};
   add_issue_json(j[K::vs], s.vs_instructions, s.vs_lane_instructions, s.vs_dual_issued);
   /* geometry shader (docs/hw.md "Geometry shaders"); zeros without one */
   j[K::gs] = {{K::invocations, s.gs_invocations},
              {"groups", s.gs_groups},
              {K::instructions, s.gs_instructions},
              {"lane_instructions", s.gs_lane_instructions},
              {K::dual_issued, s.gs_dual_issued},
              {"output_vertices", s.gs_output_vertices},
              {"output_primitives", s.gs_output_primitives},
              {"emits_dropped", s.gs_emits_dropped}};
   j[K::fs] = {{"groups", s.fs_groups},
              {"quads", s.fs_quads},
              {K::invocations, s.fs_invocations},
              {"helper_lanes", s.fs_helper_lanes}};
   add_issue_json(j[K::fs], s.fs_instructions, s.fs_lane_instructions, s.fs_dual_issued);
   j[K::omu] = {{"early_z_quads", s.early_z_quads},
               {"fragments_early_rejected", s.fragments_early_rejected},
               {K::fragments_killed, s.fragments_killed},
               {"fragments_alpha_failed", s.fragments_alpha_failed},
               {"fragments_zs_failed", s.fragments_zs_failed},
               {K::fragments_passed, s.fragments_passed},
               {"fragments_blended", s.fragments_blended},
               {"samples_passed", s.samples_passed}};
   return j;
}

/** The "fault" member of a command's report: {module, report}, or null. */
static nlohmann::ordered_json
fault_json(bool faulted, const std::string &module, const std::string &report)
{
   if (!faulted)
      return nullptr;
   return {{"module", module}, {"report", report}};
}

/** The members every command's report starts with: its index among the
 *  commands of its kind, its dword offset in the queue and the VRAM address
 *  of the block it names (as "0x..." under @a block_key). */
static nlohmann::ordered_json
command_json(uint32_t index_in_queue, uint32_t cmd_offset_dw, const char *block_key,
             uint64_t block_address)
{
   nlohmann::ordered_json j;
   j[K::index_in_queue] = index_in_queue;
   j["cmd_offset_dw"] = cmd_offset_dw;
   j[block_key] = fmt::format("0x{:x}", block_address);
   return j;
}

nlohmann::ordered_json
dispatch_report_json(const DispatchReport &r)
{
   nlohmann::ordered_json j =
      command_json(r.index_in_queue, r.cmd_offset_dw, "compute_info", r.compute_info_address);
   j[K::cycles] = r.cycles;
   if (r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   const ComputeStats &c = r.counters;
   j[K::counters] = {{"workgroups", c.workgroups},
                    {"thread_groups", c.thread_groups},
                    {"invocations", c.invocations},
                    {"instructions", c.instructions},
                    {"lane_instructions", c.lane_instructions},
                    {"dual_issued", c.dual_issued},
                    {"barriers", c.barriers},
                    {"mem_ops", c.mem_ops}};
   j[K::fault] = fault_json(r.faulted, r.fault_module, r.fault);
   if (!r.modules.is_null())
      j[K::modules] = r.modules;
   return j;
}

nlohmann::ordered_json
copy_report_json(const CopyReport &r)
{
   nlohmann::ordered_json j =
      command_json(r.index_in_queue, r.cmd_offset_dw, "copy_info", r.copy_info_address);
   const char *m = vlg_copy_mode_name(vlg_copy_mode(r.mode));
   j["mode"] = m ? m : "?";
   j["bytes"] = r.bytes;
   j[K::cycles] = r.cycles;
   if (r.cycles || r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   j["lines_read"] = r.lines_read;
   j["lines_written"] = r.lines_written;
   j[K::fault] = fault_json(r.faulted, r.fault_module, r.fault);
   return j;
}

nlohmann::ordered_json
draw_report_json(const DrawReport &r)
{
   nlohmann::ordered_json j =
      command_json(r.ctx.index_in_queue, r.ctx.cmd_offset_dw, "draw_info", r.ctx.draw_info_address);
   j[K::cycles] = r.cycles;
   if (r.cycles || r.end_cycle)
      j["cycle_range"] = {r.begin_cycle, r.end_cycle};
   j[K::counters] = draw_stats_json(r.counters);
   j[K::modules] = r.modules;
   j[K::fault] = fault_json(r.faulted, r.fault_module, r.fault);
   return j;
}

void
Gpu::set_label(uint64_t address, uint64_t size, std::string label)
{
   if (label.empty())
      labels_.erase(address);
   else
      labels_[address] = Label{size, std::move(label)};
}

std::string
Gpu::label_at(uint64_t address) const
{
   auto it = labels_.upper_bound(address);
   if (it == labels_.begin())
      return {};
   --it;
   return address - it->first < it->second.size ? it->second.text : std::string();
}

} // namespace vlgpu::sim
