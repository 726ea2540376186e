/*
 * vlgpu simulator: the VRAM allocator behind buffer objects (vlgpu_drm.h
 * vlg_drm_bo_create/free).
 *
 * Best fit over free intervals of the managed range [base, end): the free
 * block that leaves the least space after an aligned placement wins (ties:
 * the lowest address), so small buffers fill holes and large ones keep the
 * big blocks. Freed blocks merge with free neighbours at once, so freeing
 * everything gives back one block. Bookkeeping is two ordered maps (free
 * blocks by address and by size) plus the live allocations by address:
 * O(log n) to free, O(log n + k) to allocate where k is the number of free
 * blocks large enough for the size but too small once aligned.
 *
 * Mesa has util/vma_heap.c for the same job; it is not available in the
 * standalone build (no Mesa util), hence this small allocator.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace vlgpu::sim {

class VramAllocator {
 public:
   /** Manage the bytes [@base, @base + @size). */
   VramAllocator(uint64_t base, uint64_t size);

   /**
    * Allocate @size bytes (> 0) at an address that is a multiple of @align
    * (a power of two, >= 1). Returns the address, or std::nullopt when no
    * free block can hold it (out of VRAM, or too fragmented).
    * @throws std::invalid_argument for size 0 or an alignment that is not a
    * power of two.
    */
   std::optional<uint64_t> alloc(uint64_t size, uint64_t align);

   /**
    * Free the allocation that starts at @address. Returns false (and changes
    * nothing) if no allocation starts there: a double free or a wrong
    * address.
    */
   bool free(uint64_t address);

   /** Size of the allocation at @address, 0 if none starts there. */
   uint64_t allocation_size(uint64_t address) const;

   uint64_t base() const { return base_; }
   uint64_t size() const { return size_; }
   uint64_t free_bytes() const { return free_bytes_; }
   uint64_t used_bytes() const { return size_ - free_bytes_; }
   /** Largest free block in bytes (an upper bound of what one alloc can get). */
   uint64_t largest_free_block() const;
   /** Number of free blocks (1 when nothing is allocated). */
   size_t free_blocks() const { return free_.size(); }
   size_t allocations() const { return used_.size(); }

   /** Internal consistency check for tests: free blocks sorted, disjoint,
    *  never adjacent (merged), both maps agree, byte counts add up. */
   bool check() const;

 private:
   void insert_free(uint64_t addr, uint64_t size);
   void erase_free(std::map<uint64_t, uint64_t>::iterator it);

   uint64_t base_, size_, free_bytes_;
   std::map<uint64_t, uint64_t> free_;                    /* address -> size */
   std::set<std::pair<uint64_t, uint64_t>> free_by_size_; /* (size, address) */
   std::map<uint64_t, uint64_t> used_;                    /* address -> size */
};

} // namespace vlgpu::sim
