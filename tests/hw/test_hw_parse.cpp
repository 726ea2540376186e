/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/* The text parser: accepted syntax, and errors that name file and line. */

#include <clocale>
#include <cmath>
#include <locale.h>

#include "hw_test_util.h"

using namespace vlgpu::hwtest;

namespace {

struct Parsed {
   unsigned errors;
   std::vector<uint32_t> dw;
   Diags diags;
};

Parsed
parse(const vlg_hw_struct_info *s, const char *text, unsigned first_line = 1)
{
   Parsed p;
   p.dw.assign(s->length, 0xeeeeeeeeu);
   p.errors = vlg_hw_parse(s, text, "draw_0003/pipe_state.txt", first_line, p.dw.data(),
                           Diags::callback, &p.diags);
   return p;
}

bool
has_message(const Parsed &p, const std::string &msg)
{
   for (const auto &m : p.diags.messages) {
      if (m == msg)
         return true;
   }
   return false;
}

TEST(HwParse, ErrorsNameFileAndLine)
{
   Parsed p = parse(&VLG_BLEND_RT_info,
                    "# blend of render target 0\n"
                    "blend_enable = true\n"
                    "rgb_func = ADDD\n"
                    "colour_mask = 0xf\n"
                    "colormask = 0x1f\n"
                    "blend_enable = false\n"
                    "rgb_src_factor\n"
                    "alpha_func =\n",
                    10);
   EXPECT_EQ(p.errors, 6u) << p.diags.all();
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:12: error: bad value 'ADDD' for field "
                              "'rgb_func': not a name of enum blend_func (ADD SUBTRACT "
                              "REVERSE_SUBTRACT MIN MAX)"))
      << p.diags.all();
   EXPECT_TRUE(
      has_message(p, "draw_0003/pipe_state.txt:13: error: unknown field 'colour_mask' in blend_rt"))
      << p.diags.all();
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:14: error: value 0x1f out of range for "
                              "4-bit hex field 'colormask' (0..0xf)"))
      << p.diags.all();
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:15: error: duplicate field "
                              "'blend_enable' (first set on line 11)"))
      << p.diags.all();
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:16: error: expected 'name = value', got "
                              "'rgb_src_factor'"))
      << p.diags.all();
   EXPECT_TRUE(
      has_message(p, "draw_0003/pipe_state.txt:17: error: missing value for field 'alpha_func'"))
      << p.diags.all();
   /* The fields that never appeared are named, at the last line. */
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:17: warning: 2 fields 'rgb_src_factor' "
                              ".. 'rgb_dst_factor' missing in blend_rt, using their defaults"))
      << p.diags.all();
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:17: warning: 2 fields 'alpha_src_factor' "
                              ".. 'alpha_dst_factor' missing in blend_rt, using their defaults"))
      << p.diags.all();
   EXPECT_EQ(p.diags.messages.size(), 8u) << p.diags.all();
}

TEST(HwParse, MissingFieldGetsDefault)
{
   Parsed p = parse(&VLG_BLEND_RT_info, "blend_enable = true\n"
                                        "rgb_func = ADD\n"
                                        "rgb_src_factor = SRC_ALPHA\n"
                                        "rgb_dst_factor = INV_SRC_ALPHA\n"
                                        "alpha_func = ADD\n"
                                        "alpha_src_factor = ONE\n"
                                        "alpha_dst_factor = INV_SRC_ALPHA\n");
   EXPECT_EQ(p.errors, 0u);
   ASSERT_EQ(p.diags.messages.size(), 1u);
   EXPECT_EQ(p.diags.messages[0], "draw_0003/pipe_state.txt:7: warning: field 'colormask' missing "
                                  "in blend_rt, using default 0xf");
   EXPECT_EQ(p.dw[0], 0x7cc22631u); /* see test_hw_golden.cpp */
}

/* An enum field whose default names no value cannot be left out: it would
 * pack a word vlg_hw_check() rejects (cmd_opcode has no value 0: docs/hw.md,
 * "Values"; found by the hw-text fuzz target). Its neighbours still get
 * their defaults with a warning. */
TEST(HwParse, MissingEnumWithoutDefaultIsAnError)
{
   Parsed p = parse(&VLG_CMD_HEADER_info, "# no opcode\n", 5);
   EXPECT_EQ(p.errors, 1u);
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:5: error: field 'opcode' missing in "
                              "cmd_header, which has no default (0 is no cmd_opcode value)"));
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:5: warning: field 'length' missing in "
                              "cmd_header, using default 0"));

   /* Given, it parses clean and the words pass vlg_hw_check. */
   Parsed q = parse(&VLG_CMD_HEADER_info, "opcode = HALT\nlength = 1\n");
   EXPECT_EQ(q.errors, 0u);
   EXPECT_TRUE(q.diags.messages.empty());
   EXPECT_EQ(vlg_hw_check(&VLG_CMD_HEADER_info, q.dw.data(), nullptr, 0), 0u);
   EXPECT_EQ(q.dw[0], (1u << 16) | 4u); /* length in bits 16..31, HALT = 4: vlgpu_hw.xml */
}

TEST(HwParse, ValueSyntax)
{
   const vlg_hw_struct_info *s = &VLG_DRAW_INFO_info;
   std::string text = capture([&](FILE *fp) {
      struct VLG_DRAW_INFO d;
      VLG_DRAW_INFO_init(&d);
      uint32_t dw[VLG_DRAW_INFO_LENGTH];
      VLG_DRAW_INFO_pack(dw, &d);
      vlg_hw_print(fp, s, dw, nullptr, 0);
   });
   /* Replace a few lines with other spellings of values. */
   auto replace = [&](const std::string &field, const std::string &line) {
      size_t at = text.find("\n" + field + " ");
      ASSERT_NE(at, std::string::npos) << field;
      at++;
      size_t end = text.find('\n', at);
      text.replace(at, end - at, line);
   };
   replace("start", "   start=0b101   # binary, no spaces around '='");
   replace("count", "count = 0xFFFFFFFF");
   replace("base_vertex", "\tbase_vertex = -2147483648\r");
   replace("clear_depth", "clear_depth = 0x1.8p-1");
   replace("index_buffer", "index_buffer = 0xffffffff00000004");
   replace("prim", "prim = TRIANGLE_FAN");
   replace("primitive_restart", "primitive_restart = true");

   Parsed p = parse(s, text.c_str());
   ASSERT_EQ(p.errors, 0u) << p.diags.all() << text;
   EXPECT_TRUE(p.diags.messages.empty()) << p.diags.all();
   struct VLG_DRAW_INFO d;
   EXPECT_EQ(VLG_DRAW_INFO_unpack(p.dw.data(), &d), 0u);
   EXPECT_EQ(d.start, 5u);
   EXPECT_EQ(d.count, 0xffffffffu);
   EXPECT_EQ(d.base_vertex, INT32_MIN);
   EXPECT_EQ(d.clear_depth, 0.75f);
   EXPECT_EQ(d.index_buffer, UINT64_C(0xffffffff00000004));
   EXPECT_EQ(d.prim, VLG_PRIM_TRIANGLE_FAN);
   EXPECT_TRUE(d.primitive_restart);
}

TEST(HwParse, RangeAndSyntaxErrors)
{
   const vlg_hw_struct_info *s = &VLG_DRAW_INFO_info;
   struct Case {
      const char *line;
      const char *message;
   } cases[] = {
      {"count = 4294967296",
       "value 4294967296 out of range for 32-bit uint field 'count' (0..0xffffffff)"},
      {"count = -1", "bad value '-1' for uint field 'count': expected an unsigned integer "
                     "(decimal, 0x hex or 0b binary) of at most 64 bits"},
      {"count = 12abc", "bad value '12abc' for uint field 'count': expected an unsigned integer "
                        "(decimal, 0x hex or 0b binary) of at most 64 bits"},
      {"base_vertex = 2147483648",
       "value 2147483648 out of range for 32-bit int field 'base_vertex' "
       "(-2147483648..2147483647)"},
      {"vertices_per_prim = 16",
       "value 16 out of range for 4-bit uint field 'vertices_per_prim' (0..0xf)"},
      {"primitive_restart = yes",
       "bad value 'yes' for bool field 'primitive_restart': expected true or false"},
      {"clear_depth = 1e39", "value 1e39 out of range for fp32 field 'clear_depth'"},
      {"clear_depth = 1.0f",
       "bad value '1.0f' for float field 'clear_depth': expected a number such as 1.5, -2e-3, "
       "inf or bits(0x3f800000)"},
      {"clear_depth = bits(0x100000000)",
       "bad value 'bits(0x100000000)' for float field 'clear_depth': bits() takes a 32-bit "
       "integer"},
      {"index_buffer = 0x10000000000000000",
       "bad value '0x10000000000000000' for address field 'index_buffer': expected an unsigned "
       "integer (decimal, 0x hex or 0b binary) of at most 64 bits"},
      {"index_size = 2", "bad value '2' for field 'index_size': not a name of enum index_size "
                         "(NONE U8 U16 U32)"},
      {"clear_rect.maxx = 65536",
       "value 65536 out of range for 16-bit uint field 'clear_rect.maxx' (0..0xffff)"},
      {"= 3", "missing field name before '='"},
   };
   for (const Case &c : cases) {
      Parsed p = parse(s, c.line, 40);
      EXPECT_EQ(p.errors, 1u) << c.line << "\n" << p.diags.all();
      EXPECT_TRUE(has_message(p, std::string("draw_0003/pipe_state.txt:40: error: ") + c.message))
         << c.line << "\n"
         << p.diags.all();
   }
}

TEST(HwParse, FormatEnumErrorPointsToDocs)
{
   Parsed p = parse(&VLG_SURFACE_info, "format = RGBA8\n");
   EXPECT_EQ(p.errors, 1u);
   EXPECT_TRUE(has_message(p, "draw_0003/pipe_state.txt:1: error: bad value 'RGBA8' for field "
                              "'format': not a name of enum format (see docs/hw.md)"))
      << p.diags.all();
}

TEST(HwParse, StreamingParser)
{
   /* The dump reader feeds lines of one section at a time. */
   Diags diags;
   vlg_hw_parser *p = vlg_hw_parser_create(&VLG_SCISSOR_info, "dump.txt", Diags::callback, &diags);
   ASSERT_NE(p, nullptr);
   const char *lines[] = {"minx = 1", "miny = 2", "maxx = 3", "maxy = 4x"};
   for (unsigned i = 0; i < 4; i++)
      vlg_hw_parser_line(p, 100 + i, lines[i], strlen(lines[i]));
   uint32_t dw[2];
   unsigned warnings = 99;
   EXPECT_EQ(vlg_hw_parser_finish(p, 104, dw, &warnings), 1u);
   EXPECT_EQ(warnings, 0u);
   ASSERT_EQ(diags.messages.size(), 1u);
   EXPECT_EQ(diags.messages[0].rfind("dump.txt:103: error: bad value '4x'", 0), 0u);
   EXPECT_EQ(dw[0], 0x00020001u); /* the fields that parsed are kept */
}

TEST(HwParse, NoDiagCallbackGoesToStderr)
{
   uint32_t dw[2];
   testing::internal::CaptureStderr();
   unsigned errors =
      vlg_hw_parse(&VLG_SCISSOR_info, "minx = nope\n", "f.txt", 1, dw, nullptr, nullptr);
   std::string err = testing::internal::GetCapturedStderr();
   EXPECT_EQ(errors, 1u);
   EXPECT_NE(err.find("f.txt:1: error: bad value 'nope'"), std::string::npos) << err;
}

TEST(HwParse, FloatsAreExact)
{
   /* Every fp32 class round-trips bit for bit through the text. */
   const uint32_t values[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x3f800001u,
                              0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                              0xffffffffu, 0x3eaaaaabu, 0x4b800001u};
   for (uint32_t bits : values) {
      uint32_t dw[VLG_BLEND_COLOR_LENGTH] = {bits, bits, bits, bits};
      std::string text = capture([&](FILE *fp) { VLG_BLEND_COLOR_print(fp, dw, "", 0); });
      uint32_t back[VLG_BLEND_COLOR_LENGTH];
      Diags diags;
      ASSERT_EQ(VLG_BLEND_COLOR_parse(text.c_str(), "c.txt", 1, back, Diags::callback, &diags), 0u)
         << text << diags.all();
      EXPECT_EQ(back[0], bits) << text;
   }
}

/* A locale with a decimal comma: installed, or compiled into a temporary
 * directory with localedef (the glibc locale sources are usually there). */
class DecimalCommaLocale {
 public:
   DecimalCommaLocale()
   {
      loc_ = newlocale(LC_ALL_MASK, "de_DE.UTF-8", (locale_t)0);
      if (loc_)
         return;
      char tmpl[] = "/tmp/vlg_hw_locale_XXXXXX";
      if (!mkdtemp(tmpl))
         return;
      dir_ = tmpl;
      std::string cmd = "localedef -i de_DE -f UTF-8 " + dir_ + "/de_DE.UTF-8 >/dev/null 2>&1";
      if (system(cmd.c_str()) != 0)
         return;
      setenv("LOCPATH", dir_.c_str(), 1);
      loc_ = newlocale(LC_ALL_MASK, "de_DE.UTF-8", (locale_t)0);
   }
   ~DecimalCommaLocale()
   {
      if (loc_)
         freelocale(loc_);
      if (!dir_.empty()) {
         unsetenv("LOCPATH");
         std::string cmd = "rm -rf " + dir_;
         if (system(cmd.c_str()) != 0)
            fprintf(stderr, "could not remove %s\n", dir_.c_str());
      }
   }
   locale_t get() const { return loc_; }

 private:
   locale_t loc_ = (locale_t)0;
   std::string dir_;
};

TEST(HwParse, LocaleIndependent)
{
   /* A decimal-comma locale must change neither the printer nor the parser. */
   DecimalCommaLocale de;
   if (!de.get())
      GTEST_SKIP() << "no de_DE locale and localedef could not build one";
   locale_t old = uselocale(de.get());
   char check[16];
   snprintf(check, sizeof(check), "%.1f", 0.5);
   uint32_t dw[VLG_BLEND_COLOR_LENGTH] = {0x3f000000u, 0, 0, 0};
   std::string text = capture([&](FILE *fp) { VLG_BLEND_COLOR_print(fp, dw, "", 0); });
   uint32_t back[VLG_BLEND_COLOR_LENGTH];
   unsigned errors =
      VLG_BLEND_COLOR_parse("r = 0.25\ng = 0\nb = 0\na = 0\n", "c.txt", 1, back, nullptr, nullptr);
   uselocale(old);
   ASSERT_STREQ(check, "0,5") << "the test locale does not use a decimal comma";
   EXPECT_NE(text.find("r = 0.5\n"), std::string::npos) << text;
   EXPECT_EQ(errors, 0u);
   EXPECT_EQ(back[0], 0x3e800000u);
}

TEST(HwCheck, DescribeProblems)
{
   uint32_t dw[VLG_CMD_DRAW_LENGTH] = {0x00030001u | 0x0000ff00u, 0, 0};
   char buf[512];
   size_t n = vlg_hw_describe_problems(&VLG_CMD_DRAW_info, dw, buf, sizeof(buf));
   EXPECT_EQ(n, strlen(buf));
   EXPECT_STREQ(buf, "cmd_draw: word 0 bits 0x0000ff00 are set but no field describes them\n");

   dw[0] = 0x00030009u; /* opcode 9 */
   n = vlg_hw_describe_problems(&VLG_CMD_DRAW_info, dw, buf, sizeof(buf));
   EXPECT_STREQ(buf, "cmd_draw: field opcode (word 0 bits 0..7) holds 9, which is not a value of "
                     "enum cmd_opcode\n");
   /* Truncation keeps the needed length, like snprintf. */
   char small[8];
   EXPECT_EQ(vlg_hw_describe_problems(&VLG_CMD_DRAW_info, dw, small, sizeof(small)), n);
   EXPECT_STREQ(small, "cmd_dra");

   dw[0] = 0x00030001u;
   EXPECT_EQ(vlg_hw_describe_problems(&VLG_CMD_DRAW_info, dw, buf, sizeof(buf)), 0u);
   EXPECT_STREQ(buf, "");
}

TEST(HwPrint, UndescribedBitsWarnedInText)
{
   uint32_t cmd[VLG_CMD_HALT_LENGTH] = {0x00010004u | 0x00008000u};
   std::string text = capture([&](FILE *fp) { VLG_CMD_HALT_print(fp, cmd, "", 0); });
   EXPECT_EQ(text, "opcode = HALT\n"
                   "length = 1\n"
                   "# WARNING: cmd_halt word 0 bits 0x00008000 are set but no field describes "
                   "them (not shown, lost on re-parse)\n");
}

TEST(HwPrint, DocComments)
{
   uint32_t dw[VLG_SAMPLE_MASK_LENGTH] = {0xffffffffu};
   std::string text =
      capture([&](FILE *fp) { VLG_SAMPLE_MASK_print(fp, dw, "", VLG_HW_PRINT_DOC); });
   EXPECT_EQ(text, "mask = 0xffffffff    # bit i enables sample i\n");
}

} // namespace
