/*
 * vlgpu: reinterpreting the bits of a value as another type of the same size
 * (the C++ side of the project: simulator, tools, tests, benchmarks).
 *
 * The simulated GPU keeps every register, VRAM word and descriptor field as
 * raw 32-bit words; an fp32 value is the IEEE-754 binary32 bit pattern of
 * such a word. as_float()/as_uint() are OpenCL C's names for the two casts
 * (OpenCL C 3.0 §6.4.4.2 "Reinterpreting Types Using as_type()"); bit_cast()
 * is C++20's std::bit_cast for this C++17 project. Driver C code uses Mesa's
 * uif()/fui() (util/u_math.h) instead.
 *
 * __builtin_bit_cast (GCC >= 11, clang >= 9) rather than memcpy: the same
 * bits, and the vectoriser handles it in the shader executor's lane loops.
 */
#pragma once

#include <cstdint>
#include <type_traits>

namespace vlgpu {

/** The bits of @from as a To (sizes must match; both trivially copyable). */
template <typename To, typename From>
constexpr To
bit_cast(const From &from) noexcept
{
   static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
   static_assert(std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>,
                 "bit_cast of a type that is not trivially copyable");
   return __builtin_bit_cast(To, from);
}

/** The fp32 whose binary32 bit pattern is @u (NaN payloads kept). */
constexpr float
as_float(uint32_t u) noexcept
{
   return bit_cast<float>(u);
}

/** The binary32 bit pattern of @f (sign of zero and NaN payloads kept). */
constexpr uint32_t
as_uint(float f) noexcept
{
   return bit_cast<uint32_t>(f);
}

} // namespace vlgpu
