/*
 * vlgpu simulator, per-draw dump: byte ranges of VRAM as readable hex dumps
 * (vertex and index buffers) and global-buffer images as vec4 lines.
 *
 * Hex dump lines:   0x00012340: 00 00 80 3f 00 00 00 00   # 1 0
 *   an absolute VRAM byte address (hex, "0x" optional), a colon, bytes as
 *   two hex digits each; '#' starts a comment (the writer puts the words'
 *   interpretation there: fp32 values for vertex data, indices for index
 *   buffers). Blank and comment-only lines are ignored.
 *
 * Constant lines:   C3 = 0x3f800000 0x00000000 0.5 -2   # 1 0 0.5 -2
 *   entry C<n> of the global buffer, four 32-bit words, each either raw
 *   bits in hex ("0x" and up to 8 hex digits) or a float literal (decimal
 *   or hex-float, inf, -inf; parsed exactly, locale independent). Entries
 *   not listed are 0.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vlgpu::sim::dump {

/** A run of bytes at a VRAM address. */
struct Segment {
   uint64_t address = 0;
   std::vector<uint8_t> bytes;
   unsigned line = 0; /**< line of the file the segment starts on (parse_hexdump) */
};

/** How the writer comments each line. */
enum class HexComment {
   None,
   Float32, /**< the dword-aligned 32-bit words as fp32 (%g) */
   Index8,
   Index16,
   Index32,
};

/** Hex dump of @size bytes at VRAM address @address (their contents at
 *  @data), 16 bytes per line aligned to 16-byte addresses. */
std::string hexdump(uint64_t address, const uint8_t *data, uint64_t size, HexComment comment);

/** Parse a hex dump; @file names it in errors. @throws DumpError
 *  "FILE:LINE: message" listing every bad line. */
std::vector<Segment> parse_hexdump(const std::string &text, const std::string &file);

/** Constant lines of @num entries (4 words each). */
std::string consts_text(const uint32_t *words, unsigned num);

/** Parse constant lines into words (4 per entry, entries up to the highest
 *  listed, at most @max_entries). @throws DumpError "FILE:LINE: message". */
std::vector<uint32_t> parse_consts(const std::string &text, const std::string &file,
                                   unsigned max_entries);

} // namespace vlgpu::sim::dump
