/*
 * ALU ops of the VL-IW ISA on the SPC executor: every opcode of docs/isa.md
 * section 5 against references written out here with host arithmetic, the
 * corner cases the ISA documents (as literal expected values), source
 * modifiers by operand type, saturate, swizzles, write masks, PAIR ops.
 */
#include "shader_test_util.h"

#include <cfloat>
#include <climits>
#include <functional>
#include <random>
#if defined(__clang__) && __clang_major__ < 15
#include <immintrin.h>
#endif

namespace vlgpu::sim::test {
namespace {

/* The host's IEEE binary16 conversions, the reference of CONV.F2H/H2F: _Float16 (GCC 12,
 * clang >= 15 on x86-64). Clang 14, which builds build/sanitize, has no _Float16 on
 * x86-64, nor the runtime helpers of its __fp16 in libgcc; there the x86 F16C
 * instructions convert (VCVTPS2PH with round-to-nearest-even, VCVTPH2PS exact). */
#if defined(__clang__) && __clang_major__ < 15
__attribute__((target("f16c"))) uint16_t
host_f2h(float f)
{
   return uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

__attribute__((target("f16c"))) float
host_h2f(uint16_t h)
{
   return _cvtsh_ss(h);
}
#else
uint16_t
host_f2h(float f)
{
   const _Float16 h = (_Float16)f;
   uint16_t u;
   std::memcpy(&u, &h, 2);
   return u;
}

float
host_h2f(uint16_t u)
{
   _Float16 h;
   std::memcpy(&h, &u, 2);
   return float(h);
}
#endif

/* Interesting binary32 inputs: signed zeros, denormals, huge, inf, NaN,
 * halves for rounding, integers beyond 2^24, values around the int32 range. */
std::vector<uint32_t>
float_inputs()
{
   const float v[] = {
      0.0f,        -0.0f,    1.0f,     -1.0f,       0.5f,    -0.5f,         0.25f,
      -0.25f,      1.5f,     -1.5f,    2.5f,        -2.5f,   0.1f,          -0.1f,
      3.0f,        100.0f,   -100.0f,  1e-45f,      -1e-45f, 1e-40f,        1.17549435e-38f,
      1e10f,       -1e10f,   3e9f,     -3e9f,       5e9f,    2147483520.0f, -2147483648.0f,
      16777217.0f, 65504.0f, 65520.0f, 1e-7f,       1e-10f,  -1e-10f,       FLT_MAX,
      -FLT_MAX,    kInf,     -kInf,    kNaN,        -kNaN,   7.75f,         -7.75f,
      0.7f,        1e30f,    -1e30f,   3.14159265f, 1e-30f,  123456.789f};
   std::vector<uint32_t> r;
   for (float f : v)
      r.push_back(as_uint(f));
   return r;
}

std::vector<uint32_t>
int_inputs()
{
   return {0u,          1u,          2u,          3u,
           31u,         32u,         33u,         0xFFFFFFFFu,
           0xFFFFFFFEu, 0x7FFFFFFFu, 0x80000000u, 0x80000001u,
           0x12345678u, 0xDEADBEEFu, 100u,        uint32_t(-100),
           16777217u,   0x55555555u};
}

/* Runs "OP R2, R0" (one source) or "OP R2, R0, R1" over all inputs (64 per
 * run: 16 lanes x 4 components) and compares every result with @ref. */
void
check_unary(const std::string &op, const std::vector<uint32_t> &xs,
            const std::function<uint32_t(uint32_t)> &ref, bool float_result = true)
{
   for (size_t base = 0; base < xs.size(); base += 64) {
      Shader s(op + " R2, R0\nBRC.END\n", 16, 4);
      for (unsigned i = 0; i < 64; i++) {
         const uint32_t x = xs[(base + i) % xs.size()];
         s.tg->set(i / 4, 0, i % 4, x);
      }
      s.go();
      for (unsigned i = 0; i < 64 && base + i < xs.size(); i++) {
         const uint32_t x = xs[base + i];
         const uint32_t got = s.r(i / 4, 2, i % 4), want = ref(x);
         if (float_result)
            EXPECT_TRUE(same_float(got, want))
               << op << " of 0x" << std::hex << x << " (" << as_float(x) << ")";
         else
            EXPECT_EQ(got, want) << op << " of 0x" << std::hex << x << " (" << as_float(x) << ")";
      }
   }
}

void
check_binary(const std::string &op, const std::vector<uint32_t> &xs,
             const std::function<uint32_t(uint32_t, uint32_t)> &ref, bool float_result = true)
{
   /* All pairs (a, b) of the inputs. */
   std::vector<std::pair<uint32_t, uint32_t>> pairs;
   for (uint32_t a : xs)
      for (uint32_t b : xs)
         pairs.push_back({a, b});
   for (size_t base = 0; base < pairs.size(); base += 64) {
      Shader s(op + " R2, R0, R1\nBRC.END\n", 16, 4);
      for (unsigned i = 0; i < 64; i++) {
         const auto &p = pairs[(base + i) % pairs.size()];
         s.tg->set(i / 4, 0, i % 4, p.first);
         s.tg->set(i / 4, 1, i % 4, p.second);
      }
      s.go();
      for (unsigned i = 0; i < 64 && base + i < pairs.size(); i++) {
         const auto &p = pairs[base + i];
         const uint32_t got = s.r(i / 4, 2, i % 4), want = ref(p.first, p.second);
         if (float_result)
            EXPECT_TRUE(same_float(got, want))
               << op << " of (" << as_float(p.first) << ", " << as_float(p.second) << ") bits 0x" << std::hex
               << p.first << " 0x" << p.second;
         else
            EXPECT_EQ(got, want) << op << " of 0x" << std::hex << p.first << ", 0x" << p.second
                                 << " (" << as_float(p.first) << ", " << as_float(p.second) << ")";
         if (::testing::Test::HasFailure())
            return; /* one report per op is enough */
      }
   }
}

uint32_t
boolmask(bool b)
{
   return b ? 0xFFFFFFFFu : 0u;
}

TEST(ShaderAlu, FloatArithmetic)
{
   const auto xs = float_inputs();
   check_binary("ADD", xs, [](uint32_t a, uint32_t b) { return as_uint(as_float(a) + as_float(b)); });
   check_binary("MUL", xs, [](uint32_t a, uint32_t b) { return as_uint(as_float(a) * as_float(b)); });
   check_unary("RCP", xs, [](uint32_t a) { return as_uint(1.0f / as_float(a)); });
   check_unary("SQRT", xs, [](uint32_t a) { return as_uint(std::sqrt(as_float(a))); });
   check_unary("FLR", xs, [](uint32_t a) { return as_uint(std::floor(as_float(a))); });
   check_unary("FRC", xs, [](uint32_t a) {
      volatile float fl = std::floor(as_float(a));
      return as_uint(as_float(a) - fl);
   });
   check_unary(
      "MOV", xs, [](uint32_t a) { return a; }, false);
}

TEST(ShaderAlu, MinMaxAreIeeeMinNumMaxNum)
{
   const auto xs = float_inputs();
   /* minNum: a NaN operand loses; among equal zeros -0 is the smaller. */
   check_binary("MIN", xs, [](uint32_t a, uint32_t b) {
      const float x = as_float(a), y = as_float(b);
      if (std::isnan(x))
         return b;
      if (std::isnan(y))
         return a;
      if (x == 0.0f && y == 0.0f)
         return std::signbit(x) ? a : b;
      return x <= y ? a : b;
   });
   check_binary("MAX", xs, [](uint32_t a, uint32_t b) {
      const float x = as_float(a), y = as_float(b);
      if (std::isnan(x))
         return b;
      if (std::isnan(y))
         return a;
      if (x == 0.0f && y == 0.0f)
         return std::signbit(x) ? b : a;
      return x >= y ? a : b;
   });
}

TEST(ShaderAlu, FloatCompares)
{
   const auto xs = float_inputs();
   check_binary(
      "CMP.LT", xs, [](uint32_t a, uint32_t b) { return boolmask(as_float(a) < as_float(b)); }, false);
   check_binary(
      "CMP.GE", xs, [](uint32_t a, uint32_t b) { return boolmask(as_float(a) >= as_float(b)); }, false);
   check_binary(
      "CMP.EQ", xs, [](uint32_t a, uint32_t b) { return boolmask(as_float(a) == as_float(b)); }, false);
   /* Unordered: true when either operand is NaN. */
   check_binary(
      "CMP.NE", xs,
      [](uint32_t a, uint32_t b) {
         return boolmask(std::isnan(as_float(a)) || std::isnan(as_float(b)) || as_float(a) < as_float(b) || as_float(a) > as_float(b));
      },
      false);
}

TEST(ShaderAlu, SpecialFunctions)
{
   const auto xs = float_inputs();
   /* RSQ is specified to within 1 ulp; exact for the special values. */
   for (size_t base = 0; base < xs.size(); base += 64) {
      Shader s("RSQ R2, R0\nBRC.END\n", 16, 4);
      for (unsigned i = 0; i < 64; i++)
         s.tg->set(i / 4, 0, i % 4, xs[(base + i) % xs.size()]);
      s.go();
      for (unsigned i = 0; i < 64 && base + i < xs.size(); i++) {
         const float x = as_float(xs[base + i]);
         const float got = s.f(i / 4, 2, i % 4);
         const double want = 1.0 / std::sqrt(double(x));
         if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << "RSQ(" << x << ")";
         } else if (std::isinf(want) || want == 0.0) {
            EXPECT_EQ(as_uint(got), as_uint(float(want))) << "RSQ(" << x << ")";
         } else {
            EXPECT_LE(std::fabs(double(got) - want), std::fabs(want) * 1.2e-7)
               << "RSQ(" << x << ")";
         }
      }
   }
   check_unary("EX2", xs, [](uint32_t a) { return as_uint(std::exp2(as_float(a))); });
   check_unary("LG2", xs, [](uint32_t a) { return as_uint(std::log2(as_float(a))); });
   check_unary("SIN", xs, [](uint32_t a) { return as_uint(std::sin(as_float(a))); });
   check_unary("COS", xs, [](uint32_t a) { return as_uint(std::cos(as_float(a))); });
   check_unary("MAN", xs, [](uint32_t a) {
      int e;
      const float x = as_float(a);
      if (x == 0.0f || std::isinf(x) || std::isnan(x))
         return a;
      return as_uint(std::frexp(x, &e));
   });
   check_unary(
      "EXP", xs,
      [](uint32_t a) {
         int e = 0;
         const float x = as_float(a);
         if (std::isinf(x) || std::isnan(x))
            return 0u;
         std::frexp(x, &e);
         return uint32_t(e);
      },
      false);
}

TEST(ShaderAlu, Conversions)
{
   const auto xs = float_inputs();
   check_unary(
      "CONV.F2I", xs,
      [](uint32_t a) {
         const double d = std::trunc(double(as_float(a)));
         if (std::isnan(d))
            return 0u;
         if (d >= 2147483647.0)
            return 0x7FFFFFFFu;
         if (d <= -2147483648.0)
            return 0x80000000u;
         return uint32_t(int32_t(int64_t(d)));
      },
      false);
   check_unary(
      "CONV.F2U", xs,
      [](uint32_t a) {
         const double d = std::trunc(double(as_float(a)));
         if (std::isnan(d) || d <= 0.0)
            return 0u;
         if (d >= 4294967295.0)
            return 0xFFFFFFFFu;
         return uint32_t(uint64_t(d));
      },
      false);
   const auto is = int_inputs();
   check_unary("CONV.I2F", is, [](uint32_t a) { return as_uint(float(int32_t(a))); });
   check_unary("CONV.U2F", is, [](uint32_t a) { return as_uint(float(a)); });
}

TEST(ShaderAlu, HalfFloatConversionsMatchTheHostsFloat16)
{
   /* The host's binary16 conversions (host_f2h) round to nearest even. */
   std::mt19937 rng(12345);
   /* NaN results are checked in CornerCasesOfTheIsaDocument (only "stays NaN" is specified). */
   std::vector<uint32_t> xs;
   for (uint32_t x : float_inputs())
      if (!std::isnan(as_float(x)))
         xs.push_back(x);
   for (int i = 0; i < 2000; i++) {
      /* Exponents around the half range, random mantissas and signs. */
      const uint32_t sign = (rng() & 1) << 31;
      const uint32_t exp = 127 - 30 + rng() % 50;
      xs.push_back(sign | (exp << 23) | (rng() & 0x7FFFFF));
   }
   check_unary(
      "CONV.F2H", xs,
      [](uint32_t a) {
         return uint32_t(host_f2h(as_float(a)));
      },
      false);
   std::vector<uint32_t> hs;
   for (uint32_t h = 0; h < 0x10000; h += 7)
      hs.push_back(h | 0xABCD0000u); /* high bits are ignored */
   hs.push_back(0x7C00u);
   hs.push_back(0xFC00u);
   hs.push_back(0x0001u);
   hs.push_back(0x03FFu);
   check_unary("CONV.H2F", hs, [](uint32_t a) {
      return as_uint(host_h2f(uint16_t(a)));
   });
}

TEST(ShaderAlu, IntegerAndBitOps)
{
   const auto is = int_inputs();
   auto I = [](uint32_t x) { return int32_t(x); };
   check_binary(
      "AND", is, [](uint32_t a, uint32_t b) { return a & b; }, false);
   check_binary(
      "OR", is, [](uint32_t a, uint32_t b) { return a | b; }, false);
   check_binary(
      "XOR", is, [](uint32_t a, uint32_t b) { return a ^ b; }, false);
   check_binary(
      "SHL", is, [](uint32_t a, uint32_t b) { return a << (b % 32); }, false);
   check_binary(
      "SHR", is, [](uint32_t a, uint32_t b) { return a >> (b % 32); }, false);
   check_binary(
      "ASR", is,
      [](uint32_t a, uint32_t b) {
         /* sign-filling shift written out as a division-free loop */
         uint32_t r = a;
         for (unsigned i = 0; i < b % 32; i++)
            r = (r >> 1) | (r & 0x80000000u);
         return r;
      },
      false);
   check_binary(
      "IADD", is, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) + b) & 0xFFFFFFFFu); },
      false);
   check_binary(
      "IMUL", is, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) & 0xFFFFFFFFu); },
      false);
   check_binary(
      "IMIN", is, [&](uint32_t a, uint32_t b) { return I(a) < I(b) ? a : b; }, false);
   check_binary(
      "IMAX", is, [&](uint32_t a, uint32_t b) { return I(a) > I(b) ? a : b; }, false);
   check_binary(
      "ICMP.LT", is, [&](uint32_t a, uint32_t b) { return boolmask(I(a) < I(b)); }, false);
   check_binary(
      "ICMP.GE", is, [&](uint32_t a, uint32_t b) { return boolmask(I(a) >= I(b)); }, false);
   check_binary(
      "ICMP.EQ", is, [](uint32_t a, uint32_t b) { return boolmask(a == b); }, false);
   check_binary(
      "ICMP.NE", is, [](uint32_t a, uint32_t b) { return boolmask(a != b); }, false);
   check_binary(
      "UCMP.LT", is, [](uint32_t a, uint32_t b) { return boolmask(a < b); }, false);
   check_binary(
      "UCMP.GE", is, [](uint32_t a, uint32_t b) { return boolmask(a >= b); }, false);
}

/* The corner cases docs/isa.md section 5 states, with the literal results it gives. */
TEST(ShaderAlu, CornerCasesOfTheIsaDocument)
{
   struct Case {
      const char *op;
      float a, b;
      uint32_t want;
   };
   const uint32_t INF = 0x7F800000u, NINF = 0xFF800000u, NAN_ = 0x7FC00000u;
   const Case cases[] = {
      {"RCP", 0.0f, 0, INF},
      {"RCP", -0.0f, 0, NINF},
      {"RCP", kInf, 0, 0x00000000u},
      {"RCP", -kInf, 0, 0x80000000u},
      {"RCP", 4.0f, 0, as_uint(0.25f)},
      {"RSQ", -1.0f, 0, NAN_},
      {"RSQ", 0.0f, 0, INF},
      {"RSQ", -0.0f, 0, NINF},
      {"RSQ", kInf, 0, 0x00000000u},
      {"RSQ", 4.0f, 0, as_uint(0.5f)},
      {"SQRT", -0.0f, 0, 0x80000000u},
      {"SQRT", -1.0f, 0, NAN_},
      {"MIN", kNaN, 1.0f, as_uint(1.0f)},
      {"MIN", 1.0f, kNaN, as_uint(1.0f)},
      {"MIN", -0.0f, 0.0f, 0x80000000u},
      {"MIN", 0.0f, -0.0f, 0x80000000u},
      {"MAX", kNaN, 1.0f, as_uint(1.0f)},
      {"MAX", -0.0f, 0.0f, 0x00000000u},
      {"MAX", 0.0f, -0.0f, 0x00000000u},
      {"FLR", -0.5f, 0, as_uint(-1.0f)},
      {"FLR", -0.0f, 0, 0x80000000u},
      {"FLR", kInf, 0, INF},
      {"FRC", -0.25f, 0, as_uint(0.75f)},
      {"FRC", -1e-10f, 0, as_uint(1.0f)},
      {"FRC", kInf, 0, NAN_},
      {"FRC", 2.5f, 0, as_uint(0.5f)},
      {"CONV.F2I", 3e9f, 0, 0x7FFFFFFFu},
      {"CONV.F2I", -3e9f, 0, 0x80000000u},
      {"CONV.F2I", kNaN, 0, 0u},
      {"CONV.F2I", -1.7f, 0, uint32_t(-1)},
      {"CONV.F2I", 2.9f, 0, 2u},
      {"CONV.F2U", -1.0f, 0, 0u},
      {"CONV.F2U", 5e9f, 0, 0xFFFFFFFFu},
      {"CONV.F2U", kNaN, 0, 0u},
      {"CONV.F2U", 3e9f, 0, 3000000000u},
      {"CMP.NE", kNaN, 1.0f, ~0u},
      {"CMP.NE", kNaN, kNaN, ~0u},
      {"CMP.EQ", kNaN, kNaN, 0u},
      {"CMP.EQ", -0.0f, 0.0f, ~0u},
      {"CMP.LT", kNaN, 1.0f, 0u},
      {"CMP.GE", kNaN, 1.0f, 0u},
      {"CMP.GE", 1.0f, 1.0f, ~0u},
      {"ADD", kInf, -kInf, NAN_},
      {"ADD", 1e-45f, 1e-45f, 2u}, /* denormals kept: 2 x the smallest */
      {"MUL", 0.0f, kInf, NAN_},
      {"MUL", 1e-20f, 1e-20f, 0x000116C2u},  /* 1e-40: a denormal, kept */
      {"MUL", 1e-30f, -1e-30f, 0x80000000u}, /* underflow to -0 */
      {"EX2", -kInf, 0, 0u},
      {"EX2", kInf, 0, INF},
      {"EX2", 200.0f, 0, INF},
      {"EX2", 3.0f, 0, as_uint(8.0f)},
      {"LG2", 0.0f, 0, NINF},
      {"LG2", -0.0f, 0, NINF},
      {"LG2", -1.0f, 0, NAN_},
      {"LG2", kInf, 0, INF},
      {"LG2", 8.0f, 0, as_uint(3.0f)},
      {"SIN", kInf, 0, NAN_},
      {"COS", -kInf, 0, NAN_},
      {"SIN", 0.0f, 0, 0u},
      {"COS", 0.0f, 0, as_uint(1.0f)},
      {"MAN", 8.0f, 0, as_uint(0.5f)},
      {"MAN", -12.0f, 0, as_uint(-0.75f)},
      {"MAN", -0.0f, 0, 0x80000000u},
      {"MAN", -kInf, 0, NINF},
      {"MAN", kNaN, 0, NAN_},
      {"EXP", 8.0f, 0, 4u},
      {"EXP", 0.25f, 0, uint32_t(-1)},
      {"EXP", 0.0f, 0, 0u},
      {"EXP", kInf, 0, 0u},
      {"EXP", kNaN, 0, 0u},
      {"CONV.F2H", 1.0f, 0, 0x3C00u},
      {"CONV.F2H", -2.0f, 0, 0xC000u},
      {"CONV.F2H", 65504.0f, 0, 0x7BFFu},
      {"CONV.F2H", 65520.0f, 0, 0x7C00u}, /* tie rounds to even = overflow to inf */
      {"CONV.F2H", 1e6f, 0, 0x7C00u},
      {"CONV.F2H", -1e6f, 0, 0xFC00u},
      {"CONV.F2H", 0x1p-24f, 0, 0x0001u},        /* smallest subnormal half */
      {"CONV.F2H", 0x1p-25f, 0, 0x0000u},        /* tie to even: 0 */
      {"CONV.F2H", 0x3p-25f, 0, 0x0002u},        /* 1.5 ulp: tie to even 2 */
      {"CONV.F2H", 1.0f + 0x1p-11f, 0, 0x3C00u}, /* tie to even */
      {"CONV.F2H", 1.0f + 0x3p-11f, 0, 0x3C02u}, /* tie to even (up) */
   };
   for (const Case &c : cases) {
      const bool two = std::string(c.op) != "RCP" && std::string(c.op) != "RSQ" &&
                       std::string(c.op) != "SQRT" && std::string(c.op) != "FLR" &&
                       std::string(c.op) != "FRC" && std::string(c.op).rfind("CONV", 0) != 0 &&
                       std::string(c.op) != "EX2" && std::string(c.op) != "LG2" &&
                       std::string(c.op) != "SIN" && std::string(c.op) != "COS" &&
                       std::string(c.op) != "MAN" && std::string(c.op) != "EXP";
      Shader s(std::string(c.op) + (two ? " R2, R0, R1" : " R2, R0") + "\nBRC.END\n", 4, 4);
      s.set_all_f(0, c.a, c.a, c.a, c.a);
      s.set_all_f(1, c.b, c.b, c.b, c.b);
      s.go();
      const uint32_t got = s.r(3, 2, 2);
      if (c.want == NAN_)
         EXPECT_TRUE(std::isnan(as_float(got))) << c.op << "(" << c.a << ", " << c.b << ") = " << as_float(got);
      else
         EXPECT_EQ(got, c.want) << c.op << "(" << c.a << ", " << c.b << ") = 0x" << std::hex << got
                                << " (" << as_float(got) << ")";
   }
   /* Integer conversions round to nearest even. */
   Shader s("CONV.I2F R2, R0\nCONV.U2F R3, R0\nBRC.END\n", 4, 4);
   s.tg->set(0, 0, 0, 16777217u);   /* 2^24 + 1: tie, even is 2^24 */
   s.tg->set(0, 0, 1, 16777219u);   /* tie, even is 2^24 + 4 */
   s.tg->set(0, 0, 2, 0xFFFFFFFFu); /* I2F: -1; U2F: 2^32 */
   s.go();
   EXPECT_EQ(s.f(0, 2, 0), 16777216.0f);
   EXPECT_EQ(s.f(0, 2, 1), 16777220.0f);
   EXPECT_EQ(s.f(0, 2, 2), -1.0f);
   EXPECT_EQ(s.f(0, 3, 2), 4294967296.0f);
   /* Half NaN stays NaN; half to float of inf and the subnormal. */
   Shader h("CONV.F2H R2, R0\nCONV.H2F R3, R1\nBRC.END\n", 4, 4);
   h.set_all_f(0, kNaN, -kNaN, kInf, -kInf);
   h.tg->set(0, 1, 0, 0x7C00u);
   h.tg->set(0, 1, 1, 0x0001u);
   h.tg->set(0, 1, 2, 0xFFFF3C00u);
   h.tg->set(0, 1, 3, 0x8000u);
   h.go();
   EXPECT_EQ(h.r(0, 2, 0) & 0x7C00u, 0x7C00u);
   EXPECT_NE(h.r(0, 2, 0) & 0x3FFu, 0u);
   EXPECT_EQ(h.r(0, 2, 1) & 0x8000u, 0x8000u);
   EXPECT_EQ(h.r(0, 2, 2), 0x7C00u);
   EXPECT_EQ(h.r(0, 2, 3), 0xFC00u);
   EXPECT_EQ(h.f(0, 3, 0), kInf);
   EXPECT_EQ(h.f(0, 3, 1), 0x1p-24f);
   EXPECT_EQ(h.f(0, 3, 2), 1.0f);
   EXPECT_EQ(h.r(0, 3, 3), 0x80000000u);
}

TEST(ShaderAlu, MadRoundsTheProductBeforeTheAdd)
{
   /* a*b = 1 + 2^-11 + 2^-24 exactly; rounded to binary32 it is 1 + 2^-11
    * (a tie, to even). With c = -(1 + 2^-11) an unfused MAD gives 0, a
    * fused one 2^-24. */
   const float a = 1.0f + 0x1p-12f;
   const float c = -(1.0f + 0x1p-11f);
   volatile float product = a * a;
   const float want = product + c;
   ASSERT_EQ(want, 0.0f);
   ASSERT_NE(std::fma(a, a, c), 0.0f); /* the case does tell fused from unfused */
   Shader s("MAD R3, R0, R1, R2\nBRC.END\n", 4, 4);
   s.set_all_f(0, a, a, 2.0f, -kInf);
   s.set_all_f(1, a, a, 3.0f, 0.0f);
   s.set_all_f(2, c, 1.0f, 0.5f, 1.0f);
   s.go();
   for (unsigned l = 0; l < 4; l++) {
      EXPECT_EQ(s.r(l, 3, 0), as_uint(want));
      volatile float p = a * a;
      EXPECT_EQ(s.f(l, 3, 1), p + 1.0f);
      EXPECT_EQ(s.f(l, 3, 2), 6.5f);
      EXPECT_TRUE(std::isnan(s.f(l, 3, 3))); /* -inf * 0 */
   }
}

TEST(ShaderAlu, DotProductsSumLeftToRight)
{
   /* (1e20 + 1) + -1e20 = 0 left to right; any other order gives 1 or 0
    * differently; the 4th term checks DP4 adds last. */
   Shader s("DP3 R2, R0, R1\nDP4 R3, R0, R1\nDP3 R4.yw, R0, C0\nBRC.END\n", 4, 8);
   s.set_all_f(0, 1e20f, 1.0f, -1e20f, 1.0f);
   s.set_all_f(1, 1.0f, 1.0f, 1.0f, 3.0f);
   s.set_const_f(0, 0.5f, 2.0f, 4.0f, 100.0f);
   s.tg->set_f(2, 0, 0, 1.0f); /* lane 2 differs: (1, 1, -1e20, 1) */
   s.go();
   volatile float t;
   for (unsigned l = 0; l < 4; l++) {
      const float x = s.f(l, 0, 0), y = s.f(l, 0, 1), z = s.f(l, 0, 2), w = s.f(l, 0, 3);
      t = x * 1.0f;
      t = t + y * 1.0f;
      t = t + z * 1.0f;
      const float dp3 = t;
      t = t + w * 3.0f;
      const float dp4 = t;
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(s.f(l, 2, c), dp3) << "lane " << l;
         EXPECT_EQ(s.f(l, 3, c), dp4) << "lane " << l;
      }
      t = x * 0.5f;
      t = t + y * 2.0f;
      t = t + z * 4.0f;
      EXPECT_EQ(s.f(l, 4, 1), float(t));
      EXPECT_EQ(s.f(l, 4, 3), float(t));
      EXPECT_EQ(s.r(l, 4, 0), 0u); /* not written */
   }
   EXPECT_EQ(s.f(0, 2, 0), 0.0f);
}

TEST(ShaderAlu, FloatModifiersActOnTheSignBit)
{
   Shader s("MOV R2, -R0\nMOV R3, |R0|\nMOV R4, -|R0|\nADD R5, -R0, -R1\nMUL R6, |R0|, -|R1|\n"
            "BRC.END\n",
            4, 8);
   s.set_all_f(0, -0.0f, 2.0f, -kInf, kNaN);
   s.set_all_f(1, 1.0f, -3.0f, 0.5f, 1.0f);
   s.go();
   EXPECT_EQ(s.r(1, 2, 0), 0x00000000u);
   EXPECT_EQ(s.f(1, 2, 1), -2.0f);
   EXPECT_EQ(s.f(1, 2, 2), kInf);
   EXPECT_EQ(s.r(1, 2, 3), as_uint(kNaN) ^ 0x80000000u); /* raw: sign of the NaN flips */
   EXPECT_EQ(s.r(1, 3, 0), 0x00000000u);
   EXPECT_EQ(s.f(1, 3, 2), kInf);
   EXPECT_EQ(s.r(1, 4, 0), 0x80000000u);
   EXPECT_EQ(s.f(1, 4, 1), -2.0f);
   EXPECT_EQ(s.f(1, 5, 1), -2.0f + 3.0f);
   EXPECT_EQ(s.f(1, 5, 0), 0.0f + -1.0f);
   EXPECT_EQ(s.f(1, 6, 1), 2.0f * -3.0f);
   EXPECT_EQ(s.f(1, 6, 2), -kInf);
}

TEST(ShaderAlu, IntegerModifiersAreTwosComplement)
{
   Shader s("IADD R2, -R0, |R1|\nCONV.I2F R3, -|R0|\nIMUL R4, -|R0|, R1\nBRC.END\n", 4, 8);
   const uint32_t a[4] = {5u, uint32_t(-7), 0x80000000u, 0u};
   const uint32_t b[4] = {uint32_t(-3), 4u, 0x80000000u, 0x7FFFFFFFu};
   for (unsigned c = 0; c < 4; c++) {
      s.tg->set(0, 0, c, a[c]);
      s.tg->set(0, 1, c, b[c]);
   }
   s.go();
   for (unsigned c = 0; c < 4; c++) {
      const int64_t ia = int32_t(a[c]), ib = int32_t(b[c]);
      const int64_t absb = ib < 0 ? -ib : ib, absa = ia < 0 ? -ia : ia;
      EXPECT_EQ(s.r(0, 2, c), uint32_t(uint64_t(-ia + absb))) << c;
      EXPECT_EQ(s.r(0, 3, c), as_uint(float(int32_t(uint32_t(uint64_t(-absa)))))) << c;
      EXPECT_EQ(s.r(0, 4, c), uint32_t(uint64_t(-absa) * uint64_t(b[c]))) << c;
   }
   /* |INT_MIN| wraps to INT_MIN: -|INT_MIN| = INT_MIN again, as a float -2^31. */
   EXPECT_EQ(s.f(0, 3, 2), -2147483648.0f);
}

TEST(ShaderAlu, SaturateClampsToZeroOne)
{
   Shader s("ADD.SAT R2, R0, R1\nMOV.SAT R3, R0\nMAD.SAT R4, R0, R1, R1\nCONV.I2F.SAT R5, R6\n"
            "BRC.END\n",
            4, 8);
   s.set_all_f(0, 1.5f, -0.5f, kNaN, 0.25f);
   s.set_all_f(1, 0.0f, 0.0f, 0.0f, 0.5f);
   for (unsigned l = 0; l < 4; l++) {
      s.tg->set(l, 6, 0, uint32_t(-4));
      s.tg->set(l, 6, 1, 3u);
      s.tg->set(l, 6, 2, 0u);
      s.tg->set(l, 6, 3, 1u);
   }
   s.tg->set(0, 0, 1, 0x80000000u); /* -0 saturates to +0 */
   s.go();
   EXPECT_EQ(s.f(1, 2, 0), 1.0f);
   EXPECT_EQ(s.r(1, 2, 1), 0u);
   EXPECT_EQ(s.r(1, 2, 2), 0u); /* NaN -> 0 */
   EXPECT_EQ(s.f(1, 2, 3), 0.75f);
   EXPECT_EQ(s.r(0, 3, 1), 0u);
   EXPECT_EQ(s.f(1, 3, 3), 0.25f);
   EXPECT_EQ(s.r(1, 4, 0), 0u);
   EXPECT_EQ(s.f(1, 4, 3), 0.25f * 0.5f + 0.5f);
   EXPECT_EQ(s.r(1, 5, 0), 0u);
   EXPECT_EQ(s.f(1, 5, 1), 1.0f);
   EXPECT_EQ(s.f(1, 5, 3), 1.0f);
}

TEST(ShaderAlu, SwizzlesAndWriteMasks)
{
   Shader s("MOV R2, R0.wzyx\nADD R3, R0.yyyy, R1\nADD R4, R0.wzyx, R1.yzxw\n"
            "MOV R5.xz, R0\nADD R6.w, R0.xxxx, C1.wwww\nMOV R7, C1.y\nBRC.END\n",
            4, 8);
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++) {
         s.tg->set_f(l, 0, c, float(10 * l + c));
         s.tg->set_f(l, 1, c, float(100 * (c + 1)));
         s.tg->set_f(l, 5, c, -1.0f);
         s.tg->set_f(l, 6, c, -2.0f);
      }
   }
   s.set_const_f(1, 0.5f, 0.25f, 0.125f, 1000.0f);
   s.go();
   const unsigned wzyx[4] = {3, 2, 1, 0}, yzxw[4] = {1, 2, 0, 3};
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++) {
         const float r0 = float(10 * l + c);
         EXPECT_EQ(s.f(l, 2, c), float(10 * l + wzyx[c]));
         EXPECT_EQ(s.f(l, 3, c), float(10 * l + 1) + float(100 * (c + 1)));
         EXPECT_EQ(s.f(l, 4, c), float(10 * l + wzyx[c]) + float(100 * (yzxw[c] + 1)));
         EXPECT_EQ(s.f(l, 5, c), (c == 0 || c == 2) ? r0 : -1.0f);
         EXPECT_EQ(s.f(l, 6, c), c == 3 ? float(10 * l) + 1000.0f : -2.0f);
         EXPECT_EQ(s.f(l, 7, c), 0.25f);
      }
   }
}

TEST(ShaderAlu, SelectPicksPerComponentOnNonZero)
{
   Shader s("SEL R3, R0, R1, R2\nSEL R4, R0.zzzz, C0, R2.wzyx\nBRC.END\n", 4, 8);
   s.set_all_f(0, 1.0f, 2.0f, 3.0f, 4.0f);
   s.set_all_f(1, -1.0f, -2.0f, -3.0f, -4.0f);
   s.set_const_f(0, 10.0f, 20.0f, 30.0f, 40.0f);
   for (unsigned l = 0; l < 4; l++) {
      s.tg->set(l, 2, 0, ~0u);
      s.tg->set(l, 2, 1, 0u);
      s.tg->set(l, 2, 2, 0x80000000u); /* -0.0f is not zero bits: selects A */
      s.tg->set(l, 2, 3, 1u);
   }
   s.go();
   EXPECT_EQ(s.f(2, 3, 0), 1.0f);
   EXPECT_EQ(s.f(2, 3, 1), -2.0f);
   EXPECT_EQ(s.f(2, 3, 2), 3.0f);
   EXPECT_EQ(s.f(2, 3, 3), 4.0f);
   /* C swizzled .wzyx: conditions (1, -0, 0, ~0) */
   EXPECT_EQ(s.f(2, 4, 0), 3.0f);
   EXPECT_EQ(s.f(2, 4, 1), 3.0f);
   EXPECT_EQ(s.f(2, 4, 2), 30.0f);
   EXPECT_EQ(s.f(2, 4, 3), 3.0f);
}

TEST(ShaderAlu, PairOpsWorkOnTheOtherComponents)
{
   /* Two-source pair: dst.zw = op(Main's A, src); one-source pair: op(src).
    * The pair reads the Main's destination register before the Main writes it. */
   Shader s("ADD R1.xy, R1.yyyy, R3 & MUL R1.zw, R1.yyyy, R4\n"
            "ADD R5.x, R2, R3 & RCP R5.yzw, C0.zzzz\n"
            "BRC.END\n",
            4, 8);
   s.set_all_f(1, 1.0f, 2.0f, 3.0f, 4.0f);
   s.set_all_f(2, 5.0f, 5.0f, 5.0f, 5.0f);
   s.set_all_f(3, 10.0f, 20.0f, 30.0f, 40.0f);
   s.set_all_f(4, 0.5f, 0.25f, 0.125f, 8.0f);
   s.set_all_f(5, -9.0f, -9.0f, -9.0f, -9.0f);
   s.set_const_f(0, 0.0f, 0.0f, 4.0f, 0.0f);
   s.go();
   EXPECT_EQ(s.f(0, 1, 0), 2.0f + 10.0f);
   EXPECT_EQ(s.f(0, 1, 1), 2.0f + 20.0f);
   EXPECT_EQ(s.f(0, 1, 2), 2.0f * 0.125f);
   EXPECT_EQ(s.f(0, 1, 3), 2.0f * 8.0f);
   EXPECT_EQ(s.f(3, 5, 0), 15.0f);
   EXPECT_EQ(s.f(3, 5, 1), 0.25f);
   EXPECT_EQ(s.f(3, 5, 3), 0.25f);
}

TEST(ShaderAlu, GlobalBufferReadsBeyondItsSizeAreZero)
{
   Shader s("ADD R2, R0, C3\nMOV R3, C1\nMOV R4, C100.wzyx\nBRC.END\n", 4, 8);
   s.set_all_f(0, 1.0f, 2.0f, 3.0f, 4.0f);
   s.set_const_f(1, 7.0f, 8.0f, 9.0f, 10.0f); /* 2 entries: C0, C1 */
   s.go();
   EXPECT_EQ(s.f(0, 2, 3), 4.0f);
   EXPECT_EQ(s.f(0, 3, 2), 9.0f);
   EXPECT_EQ(s.r(0, 4, 0), 0u);
}

TEST(ShaderAlu, LanesComputeIndependentlyAtFullWidth)
{
   /* 64 lanes, each with its own values (SoA layout). */
   Shader s("MAD R2, R0.xxxx, C0, R1\nBRC.END\n", 64, 4);
   s.set_const_f(0, 1.0f, -1.0f, 0.5f, 3.0f);
   for (unsigned l = 0; l < 64; l++) {
      s.tg->set_f(l, 0, 0, float(l));
      for (unsigned c = 0; c < 4; c++)
         s.tg->set_f(l, 1, c, float(c * 1000 + l));
   }
   RunResult rr = s.go();
   const float k[4] = {1.0f, -1.0f, 0.5f, 3.0f};
   for (unsigned l = 0; l < 64; l++)
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(s.f(l, 2, c), float(l) * k[c] + float(c * 1000 + l));
   EXPECT_EQ(rr.instructions, 2u);
   EXPECT_EQ(rr.lane_instructions, 128u);
}

} // namespace
} // namespace vlgpu::sim::test
