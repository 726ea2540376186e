/*
 * Fuzz target "asm": the VL-IW assembler (src/vlgpu/isa/vlg_asm.c) on
 * arbitrary text (the input, NUL-terminated). Checks, besides ASan/UBSan:
 * a program vlg_assemble accepts disassembles (vlg_disasm_program), and the
 * disassembly assembles to the same units. Exception: an absolute branch
 * target that is no instruction start (BRC.JMP #12 alone, or #1 inside a
 * 2-unit instruction) assembles, since instructions are assembled on their
 * own too (tests/isa/golden.txt), but the program disassembler rejects it.
 * docs/fuzzing.md.
 */
#include "fuzz_isa_util.h"

using namespace vlgpu::fuzz;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const std::string text(reinterpret_cast<const char *>(data), size);
   vlg_program p = {};
   vlg_isa_error err = {};
   if (vlg_assemble(text.c_str(), "<fuzz>", &p, &err) != 0)
      return 0;
   const std::vector<uint32_t> units(p.units, p.units + p.count);
   vlg_program_free(&p);
   std::string dis;
   if (!disassemble(units, dis) && !jumps_astray(units))
      broken("an assembled program does not disassemble", dis + "\n--- source:\n" + text);
   if (!jumps_astray(units))
      check_reassembles(dis, units, true);
   return 0;
}
