/*
 * vlgpu simulator: VRAM, the simulated video memory every GPU unit reads and
 * writes (both modes). An out-of-bounds access is a GpuFault (gpu_fault.h)
 * naming the module that made it.
 */
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/core/gpu_fault.h"

namespace vlgpu::sim {

/**
 * Simulated video memory: one flat, zero-initialised byte array addressed by
 * 64-bit VRAM byte addresses 0..size-1. Little-endian words (the host order).
 * Every access through ptr()/read()/write() is bounds-checked and throws a
 * GpuFault naming the module on an out-of-bounds access.
 */
class Vram {
 public:
   /** @size bytes, zero-filled. The memory is an anonymous mapping, so a
    * large VRAM costs host memory only where it is written (independent of
    * malloc tuning such as MALLOC_PERTURB_). Throws std::bad_alloc. */
   explicit Vram(uint64_t size);
   ~Vram();
   Vram(const Vram &) = delete;
   Vram &operator=(const Vram &) = delete;
   /** Moves the mapping; the moved-from Vram is empty (size 0). */
   Vram(Vram &&o) noexcept : bytes_(o.bytes_), size_(o.size_)
   {
      o.bytes_ = nullptr;
      o.size_ = 0;
   }
   Vram &operator=(Vram &&o) noexcept;

   uint64_t size() const { return size_; }
   uint8_t *data() { return bytes_; }
   const uint8_t *data() const { return bytes_; }

   /** True if [addr, addr+size) lies inside VRAM. */
   bool contains(uint64_t addr, uint64_t size) const
   {
      return addr <= size_ && size <= size_ - addr;
   }

   /** Pointer to [addr, addr+size); GpuFault (module @who) if out of bounds. */
   const uint8_t *ptr(uint64_t addr, uint64_t size, const char *who) const
   {
      check(addr, size, who, "read");
      return bytes_ + addr;
   }
   uint8_t *ptr_mut(uint64_t addr, uint64_t size, const char *who)
   {
      check(addr, size, who, "write");
      return bytes_ + addr;
   }

   void read(uint64_t addr, void *dst, uint64_t size, const char *who) const
   {
      std::memcpy(dst, ptr(addr, size, who), size);
   }
   void write(uint64_t addr, const void *src, uint64_t size, const char *who)
   {
      std::memcpy(ptr_mut(addr, size, who), src, size);
   }
   uint32_t read32(uint64_t addr, const char *who) const
   {
      uint32_t v;
      read(addr, &v, 4, who);
      return v;
   }

 private:
   void check(uint64_t addr, uint64_t size, const char *who, const char *what) const;
   uint8_t *bytes_;
   uint64_t size_;
};

} // namespace vlgpu::sim
