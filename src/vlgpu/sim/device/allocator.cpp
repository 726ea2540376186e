/*
 * vlgpu simulator: best-fit VRAM allocator (see allocator.h).
 */
#include "allocator.h"

#include <stdexcept>

namespace vlgpu::sim {

VramAllocator::VramAllocator(uint64_t base, uint64_t size)
    : base_(base), size_(size), free_bytes_(0)
{
   if (size && base > UINT64_MAX - size)
      throw std::invalid_argument("VramAllocator: range wraps around the address space");
   if (size)
      insert_free(base, size);
}

void
VramAllocator::insert_free(uint64_t addr, uint64_t size)
{
   free_.emplace(addr, size);
   free_by_size_.emplace(size, addr);
   free_bytes_ += size;
}

void
VramAllocator::erase_free(std::map<uint64_t, uint64_t>::iterator it)
{
   free_by_size_.erase({it->second, it->first});
   free_bytes_ -= it->second;
   free_.erase(it);
}

std::optional<uint64_t>
VramAllocator::alloc(uint64_t size, uint64_t align)
{
   if (size == 0)
      throw std::invalid_argument("VramAllocator::alloc: size 0");
   if (align == 0 || (align & (align - 1)) != 0)
      throw std::invalid_argument("VramAllocator::alloc: alignment is not a power of two");

   /* best fit: the smallest block that holds the aligned allocation */
   for (auto it = free_by_size_.lower_bound({size, 0}); it != free_by_size_.end(); ++it) {
      const uint64_t bsize = it->first, baddr = it->second;
      const uint64_t pad = (align - baddr % align) % align;
      if (pad > bsize || bsize - pad < size)
         continue;
      const uint64_t addr = baddr + pad;
      erase_free(free_.find(baddr));
      if (pad)
         insert_free(baddr, pad);
      const uint64_t tail = bsize - pad - size;
      if (tail)
         insert_free(addr + size, tail);
      used_.emplace(addr, size);
      return addr;
   }
   return std::nullopt;
}

bool
VramAllocator::free(uint64_t address)
{
   auto u = used_.find(address);
   if (u == used_.end())
      return false;
   uint64_t addr = u->first, size = u->second;
   used_.erase(u);

   /* merge with the free neighbours */
   auto next = free_.lower_bound(addr);
   if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == addr) {
         addr = prev->first;
         size += prev->second;
         erase_free(prev);
      }
   }
   next = free_.lower_bound(addr);
   if (next != free_.end() && addr + size == next->first) {
      size += next->second;
      erase_free(next);
   }
   insert_free(addr, size);
   return true;
}

uint64_t
VramAllocator::allocation_size(uint64_t address) const
{
   auto u = used_.find(address);
   return u == used_.end() ? 0 : u->second;
}

uint64_t
VramAllocator::largest_free_block() const
{
   return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

bool
VramAllocator::check() const
{
   if (free_.size() != free_by_size_.size())
      return false;
   uint64_t total = 0, end = 0;
   bool first = true;
   for (const auto &[addr, size] : free_) {
      if (size == 0 || addr < base_ || addr + size > base_ + size_)
         return false;
      if (!first && addr <= end) /* overlapping or adjacent (not merged) */
         return false;
      if (!free_by_size_.count({size, addr}))
         return false;
      end = addr + size;
      first = false;
      total += size;
   }
   if (total != free_bytes_)
      return false;
   uint64_t used = 0;
   for (const auto &[addr, size] : used_) {
      used += size;
      /* an allocation must not overlap a free block */
      auto f = free_.upper_bound(addr);
      if (f != free_.end() && f->first < addr + size)
         return false;
      if (f != free_.begin()) {
         auto p = std::prev(f);
         if (p->first + p->second > addr)
            return false;
      }
   }
   return used + free_bytes_ <= size_;
}

} // namespace vlgpu::sim
