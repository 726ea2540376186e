/*
 * vlgpu simulator, per-draw dump: shader binaries as text and back.
 *
 * This header exposes only standard types (the ISA library stays behind it).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vlgpu::sim::dump {

/**
 * Canonical disassembly of @count units (vlg_disasm_program: labels L<unit>
 * for branch targets, docs/isa.md §7), each instruction followed by a
 * comment "; <unit address>: <units in hex>". Returns true when the whole
 * program disassembled; otherwise false, @error holds the decoder's reason
 * (with the unit address) and @text what could be printed followed by
 * comment lines listing the remaining units in hex.
 */
bool disassemble(const uint32_t *units, size_t count, std::string &text, std::string &error);

/**
 * Assemble @text (vlg_assemble). On error returns false and sets @error to
 * "NAME:LINE:COL: message" with NAME = @name (the file's path).
 */
bool assemble(const std::string &text, const std::string &name, std::vector<uint32_t> &units,
              std::string &error);

/**
 * @text without comments (';' and '//' to the end of the line) and without
 * blank space at line ends or blank lines: two listings that differ only in
 * comments compare equal.
 */
std::string strip_asm_comments(const std::string &text);

} // namespace vlgpu::sim::dump
