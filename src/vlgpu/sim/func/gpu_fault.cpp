#include "gpu_fault.h"

#include <cinttypes>
#include <cstdio>

namespace vlgpu::sim {

void
Vram::check(uint64_t addr, uint64_t size, const char *who, const char *what) const
{
   if (contains(addr, size))
      return;
   char buf[160];
   std::snprintf(buf, sizeof(buf),
                 "%s of %" PRIu64 " bytes at VRAM address 0x%" PRIx64
                 " is outside VRAM (0x0..0x%" PRIx64 ")",
                 what, size, addr, size_);
   throw GpuFault(who, std::string("VRAM ") + what + " out of bounds", buf);
}

} // namespace vlgpu::sim
