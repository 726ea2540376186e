/*
 * Ring<T> (sim/core/ring.h): the same entries in the same order as a
 * std::deque under random pushes and pops across growth, and insert_sorted
 * where std::deque::insert at std::upper_bound puts an entry.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "sim/core/ring.h"

using namespace vlgpu::sim;

namespace {

struct Entry {
   uint64_t key;
   uint32_t id;
};

void
expect_same(const Ring<Entry> &r, const std::deque<Entry> &d)
{
   ASSERT_EQ(r.size(), d.size());
   ASSERT_EQ(r.empty(), d.empty());
   for (size_t i = 0; i < d.size(); i++) {
      EXPECT_EQ(r[i].key, d[i].key) << i;
      EXPECT_EQ(r[i].id, d[i].id) << i;
   }
   if (!d.empty()) {
      EXPECT_EQ(r.front().id, d.front().id);
      EXPECT_EQ(r.back().id, d.back().id);
   }
}

TEST(Ring, FifoLikeADequeAcrossGrowth)
{
   std::mt19937 rng(7);
   Ring<Entry> r(2);
   std::deque<Entry> d;
   uint32_t id = 0;
   for (int step = 0; step < 20000; step++) {
      /* phases that mostly push, then mostly pop: the ring grows and wraps */
      const bool push = (step / 1000) % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0;
      if (push) {
         const Entry e{rng() % 100, id++};
         if (id % 2)
            r.push_back(e);
         else
            r.push() = e;
         d.push_back(e);
      } else if (!d.empty()) {
         r.pop_front();
         d.pop_front();
      }
      if (step % 97 == 0)
         expect_same(r, d);
   }
   expect_same(r, d);
   r.clear();
   EXPECT_TRUE(r.empty());
}

TEST(Ring, InsertSortedIsUpperBound)
{
   std::mt19937 rng(11);
   Ring<Entry> r(4);
   std::deque<Entry> d;
   auto key = [](const Entry &e) { return e.key; };
   for (uint32_t id = 0; id < 3000; id++) {
      /* mostly increasing keys, some earlier ones, many equal */
      const Entry e{id / 3 + (rng() % 5 == 0 ? 0 : rng() % 8), id};
      r.insert_sorted(e, key);
      d.insert(std::upper_bound(d.begin(), d.end(), e.key,
                                [](uint64_t k, const Entry &x) { return k < x.key; }),
               e);
      if (rng() % 3 == 0) {
         r.pop_front();
         d.pop_front();
      }
   }
   expect_same(r, d);
}

} // namespace
