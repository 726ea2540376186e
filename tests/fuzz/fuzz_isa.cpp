/*
 * Fuzz target "isa": the VL-IW decoder and disassembler (src/vlgpu/isa) on
 * arbitrary units. The input is little-endian 32-bit units (a trailing
 * partial unit is ignored). Checks, besides ASan/UBSan:
 *  - vlg_decode at every unit address returns 0 or 1..min(avail, 4) units;
 *    a decoded instruction is legal (vlg_instr_validate), encodes, and its
 *    encoding decodes to an equal instruction (vlg_instr_equal);
 *  - a program vlg_disasm_program accepts assembles again, to the same units
 *    when every instruction is in the shortest form (the encoder's choice,
 *    docs/isa.md "Which Sub unit, and when"); the decoder also accepts longer
 *    forms (an unneeded Sub unit), which reassemble shorter.
 * docs/fuzzing.md.
 */
#include <algorithm>
#include <cstring>

#include "fuzz_isa_util.h"

using namespace vlgpu::fuzz;

namespace {

void
check_decode_at(const std::vector<uint32_t> &units, unsigned at)
{
   const unsigned avail = unsigned(units.size()) - at;
   vlg_instr in;
   vlg_isa_error err = {};
   const unsigned n = vlg_decode(units.data() + at, avail, &in, &err);
   if (n == 0)
      return;
   if (n > std::min(avail, 4u))
      broken("vlg_decode returned more units than it may read", std::to_string(n));
   if (!vlg_instr_validate(&in, &err))
      broken("a decoded instruction is not legal", err.msg);
   uint32_t enc[VLG_MAX_UNITS] = {};
   const unsigned m = vlg_encode(&in, enc, &err);
   if (m == 0)
      broken("a decoded instruction does not encode", err.msg);
   vlg_instr again;
   if (vlg_decode(enc, m, &again, &err) != m || !vlg_instr_equal(&in, &again))
      broken("decode(encode(decoded)) differs from the decoded instruction", err.msg);
}

/** True if every instruction of @units, decoded from unit 0 on, is the
 *  encoder's (shortest) encoding of itself. */
bool
canonical(const std::vector<uint32_t> &units)
{
   for (unsigned pc = 0; pc < units.size();) {
      vlg_instr in;
      uint32_t enc[VLG_MAX_UNITS];
      const unsigned n = vlg_decode(units.data() + pc, unsigned(units.size()) - pc, &in, nullptr);
      if (n == 0 || vlg_encode(&in, enc, nullptr) != n ||
          !std::equal(enc, enc + n, units.begin() + pc))
         return false;
      pc += n;
   }
   return true;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   std::vector<uint32_t> units(size / 4);
   if (!units.empty())
      std::memcpy(units.data(), data, units.size() * 4);
   for (unsigned i = 0; i < units.size(); i++)
      check_decode_at(units, i);
   std::string text;
   if (!units.empty() && disassemble(units, text))
      check_reassembles(text, units, canonical(units));
   return 0;
}
