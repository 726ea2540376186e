/*
 * vlgpu fuzz targets: what the ISA targets share (fuzz_isa.cpp, fuzz_asm.cpp).
 * A broken property aborts with a message: libFuzzer keeps the input as a
 * crash.
 */
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vlg_isa.h"

namespace vlgpu::fuzz {

/** Print "fuzz property broken: @what" plus @detail to stderr and abort. */
[[noreturn]] inline void
broken(const char *what, const std::string &detail)
{
   std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what, detail.c_str());
   std::abort();
}

/** vlg_disasm_program() of @units into a string; false (text = the reason) if
 *  the program has an illegal instruction. */
inline bool
disassemble(const std::vector<uint32_t> &units, std::string &text)
{
   char *buf = nullptr;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   if (!f)
      std::abort();
   vlg_isa_error err = {};
   const int r = vlg_disasm_program(f, units.data(), unsigned(units.size()), 0, &err);
   std::fclose(f);
   text = r == 0 ? std::string(buf, len) : std::string(err.msg);
   std::free(buf);
   return r == 0;
}

/** True if an instruction of @units (decoded from unit 0 on) is a BRC.JMP
 *  to an address that is no instruction start of the program (past its end,
 *  or inside an instruction). */
inline bool
jumps_astray(const std::vector<uint32_t> &units)
{
   std::vector<bool> start(units.size() + 1, false);
   std::vector<uint32_t> targets;
   for (unsigned pc = 0; pc < units.size();) {
      vlg_instr in;
      const unsigned n = vlg_decode(units.data() + pc, unsigned(units.size()) - pc, &in, nullptr);
      if (n == 0)
         return false;
      start[pc] = true;
      for (const vlg_phase &ph : in.phase) {
         if (ph.present && ph.main.opcode == VLG_OP_BRC && ph.main.kind == VLG_BRKIND_JMP)
            targets.push_back(ph.main.target);
      }
      pc += n;
   }
   start[units.size()] = true; /* the end of the program */
   return std::any_of(targets.begin(), targets.end(),
                      [&](uint32_t t) { return t >= start.size() || !start[t]; });
}

/**
 * The disassembler's promise (vlg_isa.h, vlg_disasm_program): @text, the
 * disassembly of @units, assembles, and (@exact) back to exactly @units.
 * Aborts otherwise.
 */
inline void
check_reassembles(const std::string &text, const std::vector<uint32_t> &units, bool exact)
{
   vlg_program p = {};
   vlg_isa_error err = {};
   if (vlg_assemble(text.c_str(), "<disassembly>", &p, &err) != 0)
      broken("the disassembly does not assemble", std::string(err.msg) + "\n" + text);
   const bool same = !exact || (p.count == units.size() &&
                     std::equal(units.begin(), units.end(), p.units));
   vlg_program_free(&p);
   if (!same)
      broken("the disassembly assembles to other units", text);
}

} // namespace vlgpu::fuzz
