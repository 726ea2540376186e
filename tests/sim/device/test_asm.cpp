/*
 * The assembler half of device_test_util.h, in its own translation unit
 * (vlg_isa.h and vlg_hw.h both declare an enum vlg_format).
 */
#include <stdexcept>
#include <string>
#include <vector>

#include "vlg_isa.h"

namespace vlgpu::test {

std::vector<uint32_t>
assemble(const std::string &text)
{
   vlg_program prog{};
   vlg_isa_error err{};
   if (vlg_assemble(text.c_str(), "test", &prog, &err) != 0)
      throw std::runtime_error(std::string("assembler: ") + err.msg);
   std::vector<uint32_t> units(prog.units, prog.units + prog.count);
   vlg_program_free(&prog);
   return units;
}

bool
decode_rejects(const uint32_t *units, unsigned avail)
{
   vlg_instr in;
   vlg_isa_error err{};
   return vlg_decode(units, avail, &in, &err) == 0;
}

} // namespace vlgpu::test
