#include "vram.h"

#include <cinttypes>
#include <cstdio>
#include <new>
#include <string>

#include <sys/mman.h>

namespace vlgpu::sim {

Vram::Vram(uint64_t size) : size_(size)
{
   void *p = mmap(nullptr, size ? size : 1, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   if (p == MAP_FAILED)
      throw std::bad_alloc();
   bytes_ = static_cast<uint8_t *>(p);
}

Vram::~Vram()
{
   if (bytes_)
      munmap(bytes_, size_ ? size_ : 1);
}

Vram &
Vram::operator=(Vram &&o) noexcept
{
   if (this != &o) {
      if (bytes_)
         munmap(bytes_, size_ ? size_ : 1);
      bytes_ = o.bytes_;
      size_ = o.size_;
      o.bytes_ = nullptr;
      o.size_ = 0;
   }
   return *this;
}

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
