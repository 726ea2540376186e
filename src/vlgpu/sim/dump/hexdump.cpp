/*
 * vlgpu simulator, per-draw dump: hex dumps and constant lines (see
 * hexdump.h).
 */
#include "hexdump.h"

#include <charconv>
#include <cstring>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/dump/dump.h"
#include "common/bits.h"

namespace vlgpu::sim::dump {

namespace {

int
hexval(char c)
{
   if (c >= '0' && c <= '9')
      return c - '0';
   if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
   if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
   return -1;
}

/** Lines of @text with their numbers, comment ('#') removed, trimmed. */
template <typename F>
void
for_each_line(const std::string &text, F &&f)
{
   std::istringstream in(text);
   std::string line;
   unsigned no = 0;
   while (std::getline(in, line)) {
      no++;
      const size_t hash = line.find('#');
      if (hash != std::string::npos)
         line.resize(hash);
      size_t b = 0, e = line.size();
      while (b < e && (line[b] == ' ' || line[b] == '\t'))
         b++;
      while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r'))
         e--;
      if (b == e)
         continue;
      f(no, line.substr(b, e - b));
   }
}

void
throw_errors(const std::vector<std::string> &errors)
{
   if (errors.empty())
      return;
   std::string m;
   for (const std::string &e : errors)
      m += (m.empty() ? "" : "\n") + e;
   throw DumpError(m);
}

/** Split on blanks. */
std::vector<std::string>
tokens(const std::string &s)
{
   std::vector<std::string> t;
   std::istringstream in(s);
   std::string w;
   while (in >> w)
      t.push_back(w);
   return t;
}

} // namespace

std::string
hexdump(uint64_t address, const uint8_t *data, uint64_t size, HexComment comment)
{
   std::string out;
   uint64_t a = address;
   const uint64_t end = address + size;
   while (a < end) {
      const uint64_t line_end = std::min(end, (a | 15) + 1);
      out += fmt::format("0x{:08x}:", a);
      /* pad a line that starts mid-row so the columns stay aligned */
      for (uint64_t p = a & ~uint64_t(15); p < a; p++)
         out += "   ";
      for (uint64_t p = a; p < line_end; p++)
         out += fmt::format(" {:02x}", data[p - address]);
      for (uint64_t p = line_end; p < ((a | 15) + 1); p++)
         out += "   ";
      if (comment != HexComment::None) {
         std::string c;
         const unsigned w = comment == HexComment::Index8    ? 1
                            : comment == HexComment::Index16 ? 2
                                                             : 4;
         for (uint64_t p = (a + w - 1) / w * w; p + w <= line_end; p += w) {
            uint32_t v = 0;
            std::memcpy(&v, data + (p - address), w);
            if (comment == HexComment::Float32)
               c += fmt::format(" {:g}", as_float(v));
            else
               c += fmt::format(" {}", v);
         }
         if (!c.empty())
            out += "  #" + c;
      }
      out += '\n';
      a = line_end;
   }
   return out;
}

std::vector<Segment>
parse_hexdump(const std::string &text, const std::string &file)
{
   std::vector<Segment> segs;
   std::vector<std::string> errors;
   for_each_line(text, [&](unsigned no, const std::string &line) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
         errors.push_back(
            fmt::format("{}:{}: expected 'ADDRESS: bytes', got '{}'", file, no, line));
         return;
      }
      std::string as = line.substr(0, colon);
      while (!as.empty() && (as.back() == ' ' || as.back() == '\t'))
         as.pop_back();
      if (as.rfind("0x", 0) == 0 || as.rfind("0X", 0) == 0)
         as = as.substr(2);
      uint64_t addr = 0;
      const auto r = std::from_chars(as.data(), as.data() + as.size(), addr, 16);
      if (as.empty() || r.ec != std::errc() || r.ptr != as.data() + as.size()) {
         errors.push_back(fmt::format("{}:{}: bad address '{}' (expected a hex VRAM address)", file,
                                      no, line.substr(0, colon)));
         return;
      }
      Segment s;
      s.address = addr;
      s.line = no;
      for (const std::string &t : tokens(line.substr(colon + 1))) {
         if (t.size() != 2 || hexval(t[0]) < 0 || hexval(t[1]) < 0) {
            errors.push_back(
               fmt::format("{}:{}: bad byte '{}' (expected two hex digits)", file, no, t));
            return;
         }
         s.bytes.push_back(uint8_t(hexval(t[0]) << 4 | hexval(t[1])));
      }
      if (!s.bytes.empty() && s.address > UINT64_MAX - s.bytes.size()) {
         errors.push_back(
            fmt::format("{}:{}: bytes run past the end of the address space", file, no));
         return;
      }
      /* merge with the previous line when contiguous */
      if (!segs.empty() && segs.back().address + segs.back().bytes.size() == s.address)
         segs.back().bytes.insert(segs.back().bytes.end(), s.bytes.begin(), s.bytes.end());
      else if (!s.bytes.empty())
         segs.push_back(std::move(s));
   });
   throw_errors(errors);
   return segs;
}

std::string
consts_text(const uint32_t *words, unsigned num)
{
   std::string out;
   for (unsigned i = 0; i < num; i++) {
      const uint32_t *w = words + 4 * i;
      out += fmt::format("C{:<3} = 0x{:08x} 0x{:08x} 0x{:08x} 0x{:08x}   # {:g} {:g} {:g} {:g}\n",
                         i, w[0], w[1], w[2], w[3], as_float(w[0]), as_float(w[1]), as_float(w[2]),
                         as_float(w[3]));
   }
   return out;
}

std::vector<uint32_t>
parse_consts(const std::string &text, const std::string &file, unsigned max_entries)
{
   std::map<unsigned, std::array<uint32_t, 4>> entries;
   std::map<unsigned, unsigned> first_line;
   std::vector<std::string> errors;
   for_each_line(text, [&](unsigned no, const std::string &line) {
      const size_t eq = line.find('=');
      std::string name = line.substr(0, eq == std::string::npos ? line.size() : eq);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t'))
         name.pop_back();
      unsigned idx = 0;
      if (eq == std::string::npos || name.size() < 2 || (name[0] != 'C' && name[0] != 'c') ||
          std::from_chars(name.data() + 1, name.data() + name.size(), idx).ptr !=
             name.data() + name.size()) {
         errors.push_back(
            fmt::format("{}:{}: expected 'C<n> = w0 w1 w2 w3', got '{}'", file, no, line));
         return;
      }
      if (idx >= max_entries) {
         errors.push_back(fmt::format("{}:{}: C{} is beyond the global buffer (C0..C{})", file, no,
                                      idx, max_entries - 1));
         return;
      }
      if (first_line.count(idx)) {
         errors.push_back(fmt::format("{}:{}: C{} is listed twice (first at line {})", file, no,
                                      idx, first_line[idx]));
         return;
      }
      const std::vector<std::string> t = tokens(line.substr(eq + 1));
      if (t.size() != 4) {
         errors.push_back(fmt::format("{}:{}: C{} needs 4 words, got {}", file, no, idx, t.size()));
         return;
      }
      std::array<uint32_t, 4> w{};
      for (unsigned c = 0; c < 4; c++) {
         const std::string &s = t[c];
         const bool hexbits = (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) &&
                              s.find_first_of(".pP") == std::string::npos;
         if (hexbits) {
            uint64_t v = 0;
            const auto r = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
            if (s.size() == 2 || r.ec != std::errc() || r.ptr != s.data() + s.size() ||
                v > 0xffffffffu) {
               errors.push_back(fmt::format("{}:{}: C{} word {}: bad 32-bit hex value '{}'", file,
                                            no, idx, c, s));
               return;
            }
            w[c] = uint32_t(v);
            continue;
         }
         float f = 0;
         const char *b = s.data(), *e = s.data() + s.size();
         std::from_chars_result r;
         if (s.rfind("0x", 0) == 0 || s.rfind("-0x", 0) == 0) {
            const bool neg = s[0] == '-';
            r = std::from_chars(b + (neg ? 3 : 2), e, f, std::chars_format::hex);
            if (neg)
               f = -f;
         } else {
            r = std::from_chars(b + (s[0] == '+'), e, f);
         }
         if (r.ec != std::errc() || r.ptr != e || std::isnan(f)) {
            errors.push_back(fmt::format("{}:{}: C{} word {}: bad value '{}' (a float, or raw "
                                         "bits as 0x followed by up to 8 hex digits)",
                                         file, no, idx, c, s));
            return;
         }
         w[c] = as_uint(f);
      }
      entries[idx] = w;
      first_line[idx] = no;
   });
   throw_errors(errors);
   std::vector<uint32_t> words;
   if (!entries.empty())
      words.resize(size_t(entries.rbegin()->first + 1) * 4, 0);
   for (const auto &[i, w] : entries)
      std::memcpy(&words[size_t(i) * 4], w.data(), 16);
   return words;
}

} // namespace vlgpu::sim::dump
