/*
 * vlgpu fuzz targets: the input format of the "cp" target, which its seed
 * maker (fuzz_cp_seeds.cpp) writes too.
 *
 *   bytes 0..3   queue address (u32 little-endian, VRAM byte address)
 *   bytes 4..7   queue length in dwords (u32 little-endian)
 *   bytes 8..    VRAM from address 0; the VRAM is this many bytes rounded up
 *                to 4 KiB (at least 4 KiB), the rest zero
 */
#pragma once

#include <cstdint>

namespace vlgpu::fuzz {

constexpr size_t kCpHeaderBytes = 8;
constexpr uint64_t kCpVramGranule = 4096;

/** VRAM size for @payload bytes of VRAM image (the rule above). */
inline uint64_t
cp_vram_size(size_t payload)
{
   const uint64_t n = (payload + kCpVramGranule - 1) / kCpVramGranule * kCpVramGranule;
   return n ? n : kCpVramGranule;
}

} // namespace vlgpu::fuzz
