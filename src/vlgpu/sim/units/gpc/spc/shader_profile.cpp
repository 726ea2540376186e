/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * The per-instruction shader profile (shader_profile.h).
 */
#include "sim/units/gpc/spc/shader_profile.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/func/shader/program.h"

namespace vlgpu::sim {

const char *
stall_reason_name(StallReason r)
{
   switch (r) {
   case StallReason::Operand:
      return "operand";
   case StallReason::Memory:
      return "memory";
   case StallReason::Texture:
      return "texture";
   case StallReason::Barrier:
      return "barrier";
   case StallReason::Count:
      break;
   }
   return "?";
}

ProgramProfile &
ShaderProfile::of(const std::shared_ptr<const Program> &prog, uint64_t code, char stage)
{
   auto it = index_.find(prog.get());
   if (it != index_.end())
      return *it->second;
   auto p = std::make_unique<ProgramProfile>();
   p->program = prog;
   p->code = code;
   p->stage = stage;
   if (namer_)
      p->name = namer_(code);
   p->instrs.resize(prog->num_instrs());
   ProgramProfile &ref = *p;
   index_[prog.get()] = &ref;
   programs_.push_back(std::move(p));
   return ref;
}

namespace {

uint64_t
cycles_of(const InstrProfile &i)
{
   uint64_t c = i.issues;
   for (uint64_t s : i.stalls)
      c += s;
   return c;
}

const char *
stage_name(char stage)
{
   switch (stage) {
   case 'v':
      return "vs";
   case 'g':
      return "gs";
   case 'f':
      return "fs";
   case 'c':
      return "cs";
   default:
      return "?";
   }
}

} // namespace

nlohmann::ordered_json
ShaderProfile::to_json() const
{
   std::vector<std::pair<uint64_t, const ProgramProfile *>> order;
   for (const auto &p : programs_) {
      uint64_t c = 0;
      for (const InstrProfile &i : p->instrs)
         c += cycles_of(i);
      order.emplace_back(c, p.get());
   }
   std::stable_sort(order.begin(), order.end(),
                    [](const auto &a, const auto &b) { return a.first > b.first; });
   nlohmann::ordered_json shaders = nlohmann::ordered_json::array();
   for (const auto &[cycles, p] : order) {
      nlohmann::ordered_json instrs = nlohmann::ordered_json::array();
      uint64_t issues = 0;
      const Program &prog = *p->program;
      /* the last slot is the out-of-program one (program.h) */
      for (uint32_t k = 0; k + 1 < prog.num_instrs(); k++) {
         const InstrProfile &i = p->instrs[k];
         nlohmann::ordered_json stalls = nlohmann::ordered_json::object();
         for (size_t r = 0; r < i.stalls.size(); r++)
            stalls[stall_reason_name(StallReason(r))] = i.stalls[r];
         instrs.push_back({{"pc", prog.instr(k).pc},
                           {"text", prog.disassemble(k)},
                           {"issues", i.issues},
                           {"lanes", i.lanes},
                           {"dual_issued", i.dual_issued},
                           {"stalls", std::move(stalls)}});
         issues += i.issues;
      }
      nlohmann::ordered_json shader = {{"code", fmt::format("0x{:x}", p->code)},
                                       {"stage", stage_name(p->stage)}};
      if (!p->name.empty())
         shader["name"] = p->name;
      shader["cycles"] = cycles;
      shader["issues"] = issues;
      shader["instructions"] = std::move(instrs);
      shaders.push_back(std::move(shader));
   }
   return {{"shaders", std::move(shaders)}};
}

void
ShaderProfile::write(const std::string &path) const
{
   std::ofstream f(path, std::ios::binary | std::ios::trunc);
   f << to_json().dump(1) << "\n";
   if (!f)
      throw std::runtime_error(fmt::format("VLGPU_PROFILE: cannot write {}", path));
}

} // namespace vlgpu::sim
