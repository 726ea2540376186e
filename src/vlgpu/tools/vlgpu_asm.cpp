/*
 * vlgpu-asm — VL-IW assembler and disassembler (./vlgpu asm, ./vlgpu disasm).
 *
 *   vlgpu-asm FILE.s [-o OUT.bin]     assemble; without -o print the units in hex
 *   vlgpu-asm --disasm FILE.bin       disassemble a binary (little-endian 32-bit units)
 *   vlgpu-asm --disasm --hex-input FILE.txt   disassemble hex words (whitespace separated)
 *
 * Exit status: 0 on success, 1 on an error in the input (reported as
 * FILE:LINE:COL: message, or FILE: unit N: message for binaries), 2 on usage
 * or I/O errors.
 */
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/read_file.h"
#include "vlg_isa.h"

namespace {

int
assemble(const std::string &path, const std::string &out_path, bool stats)
{
   std::string text, why;
   if (!vlgpu::read_file(path, text, &why)) {
      std::fprintf(stderr, "vlgpu-asm: cannot read %s: %s\n", path.c_str(), why.c_str());
      return 2;
   }
   vlg_program prog;
   vlg_isa_error err;
   if (vlg_assemble(text.c_str(), path.c_str(), &prog, &err) != 0) {
      std::fprintf(stderr, "%s\n", err.msg);
      return 1;
   }
   if (!out_path.empty()) {
      std::ofstream f(out_path, std::ios::binary);
      for (unsigned i = 0; i < prog.count; i++) {
         uint32_t u = prog.units[i];
         unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                               (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
         f.write(reinterpret_cast<const char *>(b), 4);
      }
      if (!f) {
         std::fprintf(stderr, "vlgpu-asm: cannot write %s\n", out_path.c_str());
         vlg_program_free(&prog);
         return 2;
      }
   } else {
      for (unsigned i = 0; i < prog.count; i++)
         std::printf("%08X%s", prog.units[i], (i + 1) % 8 == 0 || i + 1 == prog.count ? "\n" : " ");
   }
   if (stats)
      std::fprintf(stderr, "%s: %u instructions, %u units, %u bytes\n", path.c_str(), prog.ninstr,
                   prog.count, prog.count * 4);
   vlg_program_free(&prog);
   return 0;
}

int
disassemble(const std::string &path, bool hex_input, unsigned flags)
{
   std::string data, why;
   if (!vlgpu::read_file(path, data, &why)) {
      std::fprintf(stderr, "vlgpu-asm: cannot read %s: %s\n", path.c_str(), why.c_str());
      return 2;
   }
   std::vector<uint32_t> units;
   if (hex_input) {
      std::istringstream ss(data);
      std::string tok;
      unsigned n = 0;
      while (ss >> tok) {
         n++;
         try {
            size_t used = 0;
            unsigned long v = std::stoul(tok, &used, 16);
            if (used != tok.size() || v > 0xFFFFFFFFul)
               throw std::invalid_argument(tok);
            units.push_back(static_cast<uint32_t>(v));
         } catch (const std::exception &) {
            std::fprintf(stderr, "%s: word %u: '%s' is not a 32-bit hex word\n", path.c_str(), n,
                         tok.c_str());
            return 1;
         }
      }
   } else {
      if (data.size() % 4) {
         std::fprintf(stderr, "%s: size %zu bytes is not a multiple of 4 (one unit = 4 bytes)\n",
                      path.c_str(), data.size());
         return 1;
      }
      for (size_t i = 0; i < data.size(); i += 4) {
         const unsigned char *b = reinterpret_cast<const unsigned char *>(data.data() + i);
         units.push_back(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24);
      }
   }
   vlg_isa_error err;
   fflush(stdout);
   if (vlg_disasm_program(stdout, units.data(), (unsigned)units.size(), flags, &err) != 0) {
      fflush(stdout);
      std::fprintf(stderr, "%s: %s\n", path.c_str(), err.msg);
      return 1;
   }
   return 0;
}

} // namespace

int
main(int argc, char **argv)
{
   CLI::App app{"VL-IW assembler / disassembler (docs/isa.md)"};
   std::string input, output;
   bool disasm = false, hex_input = false, addresses = false, hex = false, stats = false;
   app.add_option("FILE", input, "assembly source (.s), or with --disasm a binary")->required();
   app.add_option("-o,--output", output, "write the binary (little-endian 32-bit units) here; "
                                         "default: print the units in hex");
   app.add_flag("-d,--disasm", disasm, "disassemble FILE instead of assembling it");
   app.add_flag("--hex-input", hex_input, "with --disasm: FILE holds hex words, not binary");
   app.add_flag("-a,--addresses", addresses, "with --disasm: print unit addresses");
   app.add_flag("-x,--hex", hex, "with --disasm: print each instruction's units in hex");
   app.add_flag("-s,--stats", stats, "print instruction/unit/byte counts to stderr");
   CLI11_PARSE(app, argc, argv);

   if (disasm)
      return disassemble(input, hex_input,
                         (addresses ? VLG_DISASM_ADDRESS : 0) | (hex ? VLG_DISASM_HEX : 0));
   return assemble(input, output, stats);
}
