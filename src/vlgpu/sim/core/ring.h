/*
 * vlgpu simulator core: Ring<T>, a FIFO of trivially copyable entries in a
 * power-of-two array that doubles when full.
 *
 * For the modules' internal request and response lists (MC, L2, OMU):
 * push_back / pop_front without allocation once the ring is large enough
 * (std::deque allocates and frees a block every few entries). A host-speed
 * container only: it holds what a std::deque held, in the same order.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace vlgpu::sim {

template <class T> class Ring {
   static_assert(std::is_trivially_copyable_v<T>, "Ring holds plain entries");

 public:
   /** Room for @capacity entries (rounded up to a power of two) before the
    *  first growth. */
   explicit Ring(size_t capacity = 16)
   {
      size_t c = 1;
      while (c < capacity)
         c *= 2;
      buf_.resize(c);
      mask_ = c - 1;
   }

   bool empty() const { return head_ == tail_; }
   size_t size() const { return size_t(tail_ - head_); }

   /** The oldest entry (not empty()). */
   T &front() { return buf_[head_ & mask_]; }
   const T &front() const { return buf_[head_ & mask_]; }
   /** The newest entry (not empty()). */
   T &back() { return buf_[(tail_ - 1) & mask_]; }
   const T &back() const { return buf_[(tail_ - 1) & mask_]; }
   /** Entry @i, 0 = the oldest (i < size()). */
   T &operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
   const T &operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }

   void push_back(const T &v) { push() = v; }
   /** A new newest entry, to fill in: its old contents are left (cheaper
    *  than push_back of an entry built field by field on the stack and
    *  copied whole). */
   T &push()
   {
      if (size() == buf_.size())
         grow();
      return buf_[tail_++ & mask_];
   }
   /** Remove the oldest entry (not empty()). */
   void pop_front() { head_++; }
   void clear() { head_ = tail_ = 0; }

   /**
    * Insert @v after every entry e with !(key(v) < key(e)), i.e. before the
    * first entry whose key is greater (std::upper_bound order): for a ring
    * kept sorted by @key, the same place std::deque::insert(upper_bound)
    * puts it. Linear from the back (entries mostly arrive in order).
    */
   template <typename Key> void insert_sorted(const T &v, Key &&key)
   {
      push_back(v);
      const auto k = key(v);
      uint64_t i = tail_ - 1;
      while (i != head_ && k < key(buf_[(i - 1) & mask_])) {
         buf_[i & mask_] = buf_[(i - 1) & mask_];
         i--;
      }
      buf_[i & mask_] = v;
   }

 private:
   void grow()
   {
      std::vector<T> b(buf_.size() * 2);
      const size_t n = size();
      for (size_t i = 0; i < n; i++)
         b[i] = (*this)[i];
      buf_.swap(b);
      mask_ = buf_.size() - 1;
      head_ = 0;
      tail_ = n;
   }

   std::vector<T> buf_;
   uint64_t mask_ = 0;
   uint64_t head_ = 0, tail_ = 0; /* running counts: entry n at buf_[n & mask_] */
};

} // namespace vlgpu::sim
