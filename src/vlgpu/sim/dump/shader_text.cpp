/*
 * vlgpu simulator, per-draw dump: shader disassembly and assembly (see
 * shader_text.h). The only translation unit of the dump that includes
 * vlg_isa.h.
 */
#include "shader_text.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "vlg_isa.h"

namespace vlgpu::sim::dump {

namespace {

/** vlg_disasm_program into a string (open_memstream). */
int
disasm_to_string(const uint32_t *units, unsigned count, std::string &out, vlg_isa_error &err)
{
   char *buf = nullptr;
   size_t len = 0;
   FILE *fp = open_memstream(&buf, &len);
   if (!fp)
      throw std::bad_alloc();
   const int r = vlg_disasm_program(fp, units, count, VLG_DISASM_HEX, &err);
   std::fclose(fp);
   out.assign(buf ? buf : "", len);
   std::free(buf);
   return r;
}

} // namespace

bool
disassemble(const uint32_t *units, size_t count, std::string &text, std::string &error)
{
   vlg_isa_error err{};
   std::string raw;
   const int r = disasm_to_string(units, unsigned(count), raw, err);

   /* Put the unit address in front of each instruction's hex comment:
    * "    ADD R1, R2, R3 ; 0C2045E6" -> "    ADD R1, R2, R3 ; 12: 0C2045E6".
    * Instruction lines start with four spaces; the number of hex words is
    * the instruction's size in units. */
   std::istringstream in(raw);
   std::string line, outtext;
   size_t pc = 0;
   while (std::getline(in, line)) {
      const size_t semi = line.rfind(" ; ");
      if (line.rfind("    ", 0) == 0 && semi != std::string::npos) {
         const std::string hex = line.substr(semi + 3);
         size_t words = 0;
         std::istringstream hs(hex);
         std::string w;
         while (hs >> w)
            words++;
         line = line.substr(0, semi) + " ; " + std::to_string(pc) + ": " + hex;
         pc += words;
      }
      outtext += line;
      outtext += '\n';
   }
   if (r == 0) {
      text = outtext;
      error.clear();
      return true;
   }
   error = err.msg;
   outtext += "; ERROR: " + error + "\n";
   if (pc < count) {
      outtext += "; the units from " + std::to_string(pc) +
                 " on cannot be disassembled; the .bin file next to this one holds every unit:\n";
      char buf[64];
      for (size_t i = pc; i < count; i++) {
         std::snprintf(buf, sizeof(buf), "; %zu: %08X\n", i, units[i]);
         outtext += buf;
      }
   }
   text = outtext;
   return false;
}

bool
assemble(const std::string &text, const std::string &name, std::vector<uint32_t> &units,
         std::string &error)
{
   vlg_program prog{};
   vlg_isa_error err{};
   if (vlg_assemble(text.c_str(), name.c_str(), &prog, &err) != 0) {
      error = err.msg;
      return false;
   }
   units.assign(prog.units, prog.units + prog.count);
   vlg_program_free(&prog);
   error.clear();
   return true;
}

std::string
strip_asm_comments(const std::string &text)
{
   std::istringstream in(text);
   std::string line, out;
   while (std::getline(in, line)) {
      size_t c = line.find(';');
      const size_t c2 = line.find("//");
      if (c2 != std::string::npos && (c == std::string::npos || c2 < c))
         c = c2;
      if (c != std::string::npos)
         line.resize(c);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
         line.pop_back();
      size_t b = 0;
      while (b < line.size() && (line[b] == ' ' || line[b] == '\t'))
         b++;
      if (b == line.size())
         continue;
      out += line.substr(b);
      out += '\n';
   }
   return out;
}

} // namespace vlgpu::sim::dump
