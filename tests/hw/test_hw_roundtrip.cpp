/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Property tests over every struct of vlgpu_hw.xml (the list comes from the
 * generated metadata, so a new struct is tested without touching this file):
 *  - unpack(pack(x)) == x for every field, with random values;
 *  - every field lands at the word/bits the metadata (= the XML) gives;
 *  - print -> parse -> identical words;
 *  - a set bit that no field describes is reported with its word and bit;
 *  - an unnamed enum value is reported;
 *  - init() applies the XML defaults, and the parser uses them for missing
 *    fields.
 */

#include <type_traits>

#include "hw_test_util.h"

using namespace vlgpu::hwtest;

namespace {

class HwStruct : public testing::TestWithParam<const vlg_hw_struct_info *> {};

constexpr int kIterations = 200;

/* Fill a struct with random valid values; returns the raw value per field. */
std::vector<uint64_t>
randomize(std::mt19937_64 &rng, const vlg_hw_struct_info *s, void *v)
{
   std::vector<uint64_t> raw(s->num_fields);
   for (unsigned i = 0; i < s->num_fields; i++) {
      raw[i] = random_raw(rng, s->fields[i]);
      store(v, s->fields[i], raw[i]);
   }
   return raw;
}

TEST_P(HwStruct, PackUnpackRoundTrip)
{
   const vlg_hw_struct_info *s = GetParam();
   std::mt19937_64 rng(0x5eed0000u + s->length);

   for (int iter = 0; iter < kIterations; iter++) {
      Unpacked a(s, 0);
      std::vector<uint64_t> raw = randomize(rng, s, a.get());

      std::vector<uint32_t> dw(s->length, 0xdeadbeefu);
      s->pack(dw.data(), a.get());

      /* Every field's bits are where the description says. */
      for (unsigned i = 0; i < s->num_fields; i++) {
         ASSERT_EQ(vlg_hw_get_raw(&s->fields[i], dw.data()), raw[i])
            << s->name << "." << s->fields[i].name << " packed at the wrong place";
      }
      /* Nothing outside the fields is set (pack clears reserved bits). */
      for (unsigned w = 0; w < s->length; w++)
         ASSERT_EQ(dw[w] & ~s->described[w], 0u) << s->name << " word " << w;

      /* Unpack into garbage-filled memory: every field must be written. */
      Unpacked b(s, 0xab);
      ASSERT_EQ(s->unpack(dw.data(), b.get()), 0u) << s->name;
      for (unsigned i = 0; i < s->num_fields; i++) {
         ASSERT_EQ(load(b.get(), s->fields[i]), raw[i])
            << s->name << "." << s->fields[i].name << " (iteration " << iter << ")";
      }

      std::vector<uint32_t> dw2(s->length, 0x12345678u);
      s->pack(dw2.data(), b.get());
      ASSERT_EQ(dw, dw2) << s->name;
   }
}

TEST_P(HwStruct, PrintParseIdentity)
{
   const vlg_hw_struct_info *s = GetParam();
   std::mt19937_64 rng(0xfeed0000u + s->length);

   for (int iter = 0; iter < kIterations / 4; iter++) {
      Unpacked a(s, 0);
      randomize(rng, s, a.get());
      std::vector<uint32_t> dw(s->length);
      s->pack(dw.data(), a.get());

      for (unsigned flags : {0u, (unsigned)VLG_HW_PRINT_DOC}) {
         std::string text = capture([&](FILE *fp) { vlg_hw_print(fp, s, dw.data(), "  ", flags); });
         Diags diags;
         std::vector<uint32_t> parsed(s->length, 0xffffffffu);
         unsigned errors = vlg_hw_parse(s, text.c_str(), "roundtrip.txt", 1, parsed.data(),
                                        Diags::callback, &diags);
         ASSERT_EQ(errors, 0u) << diags.all() << text;
         ASSERT_TRUE(diags.messages.empty()) << diags.all();
         ASSERT_EQ(parsed, dw) << text;
      }
   }
}

TEST_P(HwStruct, UndescribedBitsReported)
{
   const vlg_hw_struct_info *s = GetParam();
   std::mt19937_64 rng(0xb175u);
   std::vector<uint32_t> dw(s->length);
   Unpacked v(s);

   for (unsigned w = 0; w < s->length; w++) {
      for (unsigned bit = 0; bit < 32; bit++) {
         /* Start from random valid words (a zeroed struct may hold unnamed
          * enum 0s, e.g. cmd_header.opcode). */
         randomize(rng, s, v.get());
         s->pack(dw.data(), v.get());
         const uint32_t m = 1u << bit;
         bool covered = false;
         for (unsigned i = 0; i < s->num_fields; i++) {
            const vlg_hw_field_info &f = s->fields[i];
            if (f.type == VLG_HW_TYPE_ADDRESS)
               covered |= w == f.word || w == f.word + 1;
            else
               covered |= w == f.word && bit >= f.lo && bit <= f.hi;
         }
         ASSERT_EQ(covered, (s->described[w] & m) != 0)
            << s->name << " word " << w << " bit " << bit;
         if (covered)
            continue;

         dw[w] |= m;
         Unpacked out(s);
         EXPECT_EQ(s->unpack(dw.data(), out.get()) & VLG_HW_UNDESCRIBED_BITS,
                   VLG_HW_UNDESCRIBED_BITS)
            << s->name << " word " << w << " bit " << bit;

         vlg_hw_problem problems[4];
         ASSERT_EQ(vlg_hw_check(s, dw.data(), problems, 4), 1u);
         EXPECT_EQ(problems[0].field, nullptr);
         EXPECT_EQ(problems[0].word, w);
         EXPECT_EQ(problems[0].bits, m);
      }
   }
}

TEST_P(HwStruct, DescribedBitsAreNotReported)
{
   const vlg_hw_struct_info *s = GetParam();
   std::vector<uint32_t> dw(s->length);
   Unpacked v(s);

   for (unsigned w = 0; w < s->length; w++) {
      for (unsigned bit = 0; bit < 32; bit++) {
         if (!(s->described[w] & (1u << bit)))
            continue;
         std::fill(dw.begin(), dw.end(), 0u);
         dw[w] = 1u << bit;
         EXPECT_EQ(s->unpack(dw.data(), v.get()) & VLG_HW_UNDESCRIBED_BITS, 0u)
            << s->name << " word " << w << " bit " << bit;
      }
   }
}

TEST_P(HwStruct, UnnamedEnumValueReported)
{
   const vlg_hw_struct_info *s = GetParam();
   std::mt19937_64 rng(0xe7u);
   Unpacked v(s);
   std::vector<uint32_t> dw(s->length);

   for (unsigned i = 0; i < s->num_fields; i++) {
      const vlg_hw_field_info &f = s->fields[i];
      if (f.type != VLG_HW_TYPE_ENUM)
         continue;
      /* Find an encoding of the field without a name, if there is one. */
      uint64_t bad = 0;
      bool found = false;
      for (uint64_t x = 0; x <= mask(f) && x < 4096; x++) {
         if (!vlg_hw_enum_name(f.enum_info, (uint32_t)x)) {
            bad = x;
            found = true;
            break;
         }
      }
      if (!found)
         continue;
      randomize(rng, s, v.get());
      s->pack(dw.data(), v.get());
      vlg_hw_set_raw(&f, dw.data(), bad);
      EXPECT_EQ(s->unpack(dw.data(), v.get()), (unsigned)VLG_HW_INVALID_ENUM) << f.name;

      vlg_hw_problem problems[4];
      ASSERT_EQ(vlg_hw_check(s, dw.data(), problems, 4), 1u) << f.name;
      EXPECT_EQ(problems[0].field, &f);
      EXPECT_EQ(problems[0].word, f.word);
      EXPECT_EQ(problems[0].value, bad);

      /* The printer flags it; the parser refuses it. */
      std::string text = capture([&](FILE *fp) { vlg_hw_print(fp, s, dw.data(), nullptr, 0); });
      EXPECT_NE(text.find("# ERROR: " + std::to_string(bad) + " is not a value of enum " +
                          f.enum_info->name),
                std::string::npos)
         << text;
      Diags diags;
      std::vector<uint32_t> parsed(s->length);
      EXPECT_EQ(vlg_hw_parse(s, text.c_str(), "bad.txt", 1, parsed.data(), Diags::callback, &diags),
                1u)
         << diags.all();
      EXPECT_NE(diags.all().find(std::string("for field '") + f.name + "'"), std::string::npos)
         << diags.all();
   }
}

TEST_P(HwStruct, InitAppliesDefaults)
{
   const vlg_hw_struct_info *s = GetParam();
   Unpacked v(s, 0x5a);
   s->init(v.get());
   /* Not packed: init() may leave an enum without default at an unnamed 0
    * (cmd_header.opcode), which pack() rightly refuses. */
   std::vector<uint32_t> dw(s->length, 0);
   for (unsigned i = 0; i < s->num_fields; i++) {
      EXPECT_EQ(load(v.get(), s->fields[i]), s->fields[i].default_raw)
         << s->name << "." << s->fields[i].name;
      vlg_hw_set_raw(&s->fields[i], dw.data(), s->fields[i].default_raw);
   }

   /* An empty text parses to the defaults, with warnings naming the fields;
    * an enum field whose default names no value has none to take, and is
    * an error each (docs/hw.md). */
   auto lacks_default = [](const vlg_hw_field_info &f) {
      return f.type == VLG_HW_TYPE_ENUM && !vlg_hw_enum_name(f.enum_info, f.default_raw);
   };
   unsigned no_default = 0;
   for (unsigned i = 0; i < s->num_fields; i++)
      no_default += lacks_default(s->fields[i]);
   Diags diags;
   std::vector<uint32_t> parsed(s->length, 0xffffffffu);
   EXPECT_EQ(vlg_hw_parse(s, "# nothing\n", "empty.txt", 7, parsed.data(), Diags::callback, &diags),
             no_default);
   for (unsigned i = 0; i < s->num_fields; i++) {
      if (!lacks_default(s->fields[i])) {
         EXPECT_EQ(vlg_hw_get_raw(&s->fields[i], parsed.data()), s->fields[i].default_raw)
            << s->name << "." << s->fields[i].name;
      }
   }
   if (no_default == 0) {
      EXPECT_EQ(parsed, dw); /* undescribed bits cleared too */
   }
   ASSERT_FALSE(diags.messages.empty());
   const char *first = lacks_default(s->fields[0]) ? "error" : "warning";
   EXPECT_EQ(diags.messages[0].rfind(std::string("empty.txt:7: ") + first + ": ", 0), 0u)
      << diags.all();
   EXPECT_NE(diags.messages[0].find(s->fields[0].name), std::string::npos) << diags.all();
}

TEST_P(HwStruct, MetadataIsConsistent)
{
   const vlg_hw_struct_info *s = GetParam();
   EXPECT_EQ(vlg_hw_struct_by_name(s->name), s);
   for (unsigned i = 0; i < s->num_fields; i++) {
      const vlg_hw_field_info &f = s->fields[i];
      EXPECT_EQ(vlg_hw_field_by_name(s, f.name, strlen(f.name)), &f) << f.name;
      EXPECT_LT(f.word + (f.type == VLG_HW_TYPE_ADDRESS ? 1 : 0), s->length) << f.name;
      EXPECT_NE(f.doc[0], '\0') << f.name;
      EXPECT_LE(f.offset + f.size, s->c_size) << f.name;
   }
   EXPECT_EQ(vlg_hw_field_by_name(s, "no_such_field", 13), nullptr);
}

std::string
struct_name(const testing::TestParamInfo<const vlg_hw_struct_info *> &info)
{
   return info.param->name;
}

INSTANTIATE_TEST_SUITE_P(AllStructs, HwStruct, testing::ValuesIn(all_structs()), struct_name);

TEST(HwEnums, NamesAndValuesRoundTrip)
{
   ASSERT_GT(vlg_hw_num_enums, 0u);
   for (unsigned i = 0; i < vlg_hw_num_enums; i++) {
      const vlg_hw_enum_info *e = vlg_hw_enums[i];
      EXPECT_EQ(vlg_hw_enum_by_name(e->name), e);
      for (unsigned j = 0; j < e->num_values; j++) {
         const vlg_hw_enum_entry &v = e->values[j];
         EXPECT_STREQ(vlg_hw_enum_name(e, v.value), v.name);
         uint32_t value = ~0u;
         EXPECT_TRUE(vlg_hw_enum_value(e, v.name, strlen(v.name), &value));
         EXPECT_EQ(value, v.value);
      }
      uint32_t dummy;
      EXPECT_FALSE(vlg_hw_enum_value(e, "NOT_A_VALUE", 11, &dummy));
   }
   EXPECT_EQ(vlg_hw_enum_by_name("nope"), nullptr);
   EXPECT_EQ(vlg_hw_struct_by_name("nope"), nullptr);
}

} // namespace

/* E{u} (direct-list-initialisation from an integer) is only well-formed for
 * an enum with a fixed underlying type ([dcl.init.list]/3.8). */
template <typename E, typename = void> struct HasFixedType : std::false_type {};
template <typename E>
struct HasFixedType<E, std::void_t<decltype(E{uint32_t{}})>> : std::true_type {};

/* Found by the fuzz target "cp" under UBSan (tests/fuzz): VLG_CMD_HEADER_unpack
 * of an unnamed opcode (95) stored a value outside enum vlg_cmd_opcode's range,
 * undefined behaviour in C++ for an enum without a fixed underlying type. The
 * generated enums have uint32_t as underlying type in C++, so every value an
 * unpack() stores is representable and comes back unchanged. */
TEST(HwEnums, UnnamedValuesAreRepresentable)
{
   EXPECT_TRUE(HasFixedType<vlg_cmd_opcode>::value);
   EXPECT_TRUE(HasFixedType<vlg_format>::value);
   const uint32_t dw = 95u | (3u << 16);
   VLG_CMD_HEADER h;
   EXPECT_EQ(VLG_CMD_HEADER_unpack(&dw, &h), unsigned(VLG_HW_INVALID_ENUM));
   EXPECT_EQ(uint32_t(h.opcode), 95u);
   EXPECT_EQ(h.length, 3u);
}
