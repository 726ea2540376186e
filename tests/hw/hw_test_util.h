/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/* Helpers shared by the hw tests: typed access to unpacked C structs through
 * the metadata, text capture, diagnostics capture. */

#ifndef HW_TEST_UTIL_H
#define HW_TEST_UTIL_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vlg_hw.h"

/* gtest prints parameters of failing tests with this: the struct's name. */
inline void
PrintTo(const vlg_hw_struct_info *s, std::ostream *os)
{
   *os << s->name;
}

namespace vlgpu {
namespace hwtest {

inline unsigned
width(const vlg_hw_field_info &f)
{
   return f.hi - f.lo + 1;
}

inline uint64_t
mask(const vlg_hw_field_info &f)
{
   return width(f) == 64 ? UINT64_MAX : (UINT64_C(1) << width(f)) - 1;
}

/* Store the raw (packed) value of field f into the unpacked C struct at base,
 * converted to the member's C type. */
inline void
store(void *base, const vlg_hw_field_info &f, uint64_t raw)
{
   char *p = static_cast<char *>(base) + f.offset;
   switch (f.type) {
   case VLG_HW_TYPE_BOOL: {
      ASSERT_EQ(f.size, sizeof(bool));
      bool b = raw != 0;
      memcpy(p, &b, sizeof(b));
      break;
   }
   case VLG_HW_TYPE_INT: {
      ASSERT_EQ(f.size, sizeof(int32_t));
      uint64_t sign = UINT64_C(1) << (width(f) - 1);
      int32_t v = (int32_t)(int64_t)((raw ^ sign) - sign);
      memcpy(p, &v, sizeof(v));
      break;
   }
   case VLG_HW_TYPE_ADDRESS: {
      ASSERT_EQ(f.size, sizeof(uint64_t));
      memcpy(p, &raw, sizeof(raw));
      break;
   }
   default: { /* uint, hex, float (bits), enum (int-sized) */
      ASSERT_EQ(f.size, sizeof(uint32_t)) << f.name;
      uint32_t v = (uint32_t)raw;
      memcpy(p, &v, sizeof(v));
      break;
   }
   }
}

/* Raw value of field f read back from the unpacked C struct at base. */
inline uint64_t
load(const void *base, const vlg_hw_field_info &f)
{
   const char *p = static_cast<const char *>(base) + f.offset;
   switch (f.type) {
   case VLG_HW_TYPE_BOOL: {
      bool b;
      memcpy(&b, p, sizeof(b));
      return b;
   }
   case VLG_HW_TYPE_INT: {
      int32_t v;
      memcpy(&v, p, sizeof(v));
      return (uint64_t)(int64_t)v & mask(f);
   }
   case VLG_HW_TYPE_ADDRESS: {
      uint64_t v;
      memcpy(&v, p, sizeof(v));
      return v;
   }
   default: {
      uint32_t v;
      memcpy(&v, p, sizeof(v));
      return v;
   }
   }
}

/* A random raw value valid for field f (enums: a named value). */
inline uint64_t
random_raw(std::mt19937_64 &rng, const vlg_hw_field_info &f)
{
   if (f.type == VLG_HW_TYPE_ENUM) {
      const vlg_hw_enum_info *e = f.enum_info;
      return e->values[rng() % e->num_values].value;
   }
   uint64_t r = rng();
   /* Bias towards the interesting edges: 0, all ones, the sign bit. */
   switch (rng() % 8) {
   case 0:
      r = 0;
      break;
   case 1:
      r = UINT64_MAX;
      break;
   case 2:
      r = UINT64_C(1) << (width(f) - 1);
      break;
   default:
      break;
   }
   return r & mask(f);
}

/* A C struct buffer with room and alignment for any generated struct. */
struct Unpacked {
   explicit Unpacked(const vlg_hw_struct_info *s, uint8_t fill = 0)
       : bytes(s->c_size / sizeof(uint64_t) + 1)
   {
      memset(bytes.data(), fill, bytes.size() * sizeof(uint64_t));
   }
   void *get() { return bytes.data(); }
   std::vector<uint64_t> bytes;
};

/* Everything written to a FILE by f. */
template <typename F>
std::string
capture(F f)
{
   char *buf = nullptr;
   size_t size = 0;
   FILE *fp = open_memstream(&buf, &size);
   f(fp);
   fclose(fp);
   std::string out(buf, size);
   free(buf);
   return out;
}

struct Diags {
   std::vector<std::string> messages;

   static void callback(void *user, const char *msg)
   {
      static_cast<Diags *>(user)->messages.push_back(msg);
   }

   std::string all() const
   {
      std::string out;
      for (const auto &m : messages)
         out += m + "\n";
      return out;
   }
};

inline std::vector<const vlg_hw_struct_info *>
all_structs()
{
   return std::vector<const vlg_hw_struct_info *>(vlg_hw_structs,
                                                  vlg_hw_structs + vlg_hw_num_structs);
}

} // namespace hwtest
} // namespace vlgpu

#endif
