/*
 * Fuzz target "hw_text": the hardware-word text parser
 * (src/vlgpu/hw/vlg_hw_text.c, the `name = value` lines of draw.txt). The
 * input's first line names the struct of vlgpu_hw.xml ("rasterizer",
 * "draw_info", ...; an unknown name ends the run), the rest is its text.
 * Checks, besides ASan/UBSan, what vlg_hw_info.h promises of a text that
 * parses without errors (warnings allowed: a missing field gets its default,
 * and an enum field without a default that names a value, cmd_header.opcode,
 * is an error): only described bits and named enum values are set
 * (vlg_hw_check finds nothing), and vlg_hw_print's text of the words parses
 * back, without errors or warnings, to the same words. docs/fuzzing.md.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vlg_hw.h"

namespace {

/** Counts the parser's warnings ("file:line: warning: ..."); @user: unsigned. */
void
count_warnings(void *user, const char *message)
{
   if (std::strstr(message, ": warning: "))
      ++*static_cast<unsigned *>(user);
}

[[noreturn]] void
broken(const char *what, const std::string &detail)
{
   std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what, detail.c_str());
   std::abort();
}

std::string
print(const vlg_hw_struct_info *s, const uint32_t *dw)
{
   char *buf = nullptr;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   if (!f)
      std::abort();
   vlg_hw_print(f, s, dw, nullptr, 0);
   std::fclose(f);
   std::string text(buf, len);
   std::free(buf);
   return text;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const std::string input(reinterpret_cast<const char *>(data), size);
   const size_t nl = input.find('\n');
   if (nl == std::string::npos)
      return 0;
   const vlg_hw_struct_info *s = vlg_hw_struct_by_name(input.substr(0, nl).c_str());
   if (!s)
      return 0;
   const std::string text = input.substr(nl + 1);
   std::vector<uint32_t> dw(s->length, 0xdeadbeef);
   unsigned warnings = 0;
   if (vlg_hw_parse(s, text.c_str(), "<fuzz>", 2, dw.data(), count_warnings, &warnings) != 0)
      return 0;
   char why[1024];
   if (vlg_hw_check(s, dw.data(), nullptr, 0) != 0) {
      vlg_hw_describe_problems(s, dw.data(), why, sizeof(why));
      broken("a text without errors packed undescribed bits or unnamed enum values", why);
   }
   const std::string printed = print(s, dw.data());
   std::vector<uint32_t> again(s->length, 0x12345678);
   warnings = 0;
   if (vlg_hw_parse(s, printed.c_str(), "<printed>", 1, again.data(), count_warnings,
                    &warnings) != 0 ||
       warnings || again != dw)
      broken("vlg_hw_print's text does not parse back to the same words", printed);
   return 0;
}
