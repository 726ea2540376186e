/*
 * The VRAM allocator behind buffer objects (sim/device/allocator.h) and the
 * draw selection of the dump (sim/device/draw_set.h).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>

#include "sim/device/allocator.h"
#include "sim/device/draw_set.h"

using namespace vlgpu::sim;

TEST(Allocator, AlignmentAndNoOverlap)
{
   VramAllocator a(0x1000, 1 << 20);
   std::map<uint64_t, uint64_t> live;
   const uint64_t aligns[] = {1, 4, 16, 256, 4096, 65536};
   for (unsigned i = 0; i < 60; i++) {
      const uint64_t size = 1 + (i * 977) % 5000, align = aligns[i % 6];
      auto r = a.alloc(size, align);
      ASSERT_TRUE(r) << i;
      EXPECT_EQ(*r % align, 0u) << "alignment " << align;
      EXPECT_GE(*r, 0x1000u);
      EXPECT_LE(*r + size, 0x1000u + (1 << 20));
      /* no overlap with any live allocation */
      auto next = live.lower_bound(*r);
      if (next != live.end()) {
         EXPECT_LE(*r + size, next->first);
      }
      if (next != live.begin()) {
         EXPECT_LE(std::prev(next)->first + std::prev(next)->second, *r);
      }
      live[*r] = size;
      EXPECT_EQ(a.allocation_size(*r), size);
   }
   EXPECT_TRUE(a.check());
   uint64_t used = 0;
   for (auto &[addr, size] : live)
      used += size;
   EXPECT_EQ(a.used_bytes(), used);
}

TEST(Allocator, BestFitReusesTheSmallestHole)
{
   VramAllocator a(0, 10000);
   const uint64_t b0 = *a.alloc(1000, 1); /* [0, 1000) */
   const uint64_t b1 = *a.alloc(100, 1);  /* [1000, 1100) */
   const uint64_t b2 = *a.alloc(300, 1);  /* [1100, 1400) */
   const uint64_t b3 = *a.alloc(100, 1);  /* [1400, 1500) */
   EXPECT_EQ(b0, 0u);
   EXPECT_EQ(b3, 1400u);
   ASSERT_TRUE(a.free(b0));        /* hole of 1000 at 0 */
   ASSERT_TRUE(a.free(b2));        /* hole of 300 at 1100 */
   EXPECT_EQ(a.free_blocks(), 3u); /* 0, 1100 and the tail at 1500 */
   /* 250 bytes: the 300-byte hole is the best fit, not the first (0) */
   EXPECT_EQ(*a.alloc(250, 1), 1100u);
   /* 900 bytes: the 1000-byte hole at 0 */
   EXPECT_EQ(*a.alloc(900, 1), 0u);
   /* 2000 bytes: only the tail */
   EXPECT_EQ(*a.alloc(2000, 1), 1500u);
   EXPECT_TRUE(a.check());
   (void)b1;
}

TEST(Allocator, AlignmentSkipsABlockThatIsTooSmallOnceAligned)
{
   VramAllocator a(0, 0x10000);
   const uint64_t x = *a.alloc(0x10, 1);  /* [0, 0x10) */
   const uint64_t y = *a.alloc(0x100, 1); /* [0x10, 0x110) */
   *a.alloc(0x10, 1);                     /* [0x110, 0x120) */
   a.free(y);                             /* hole [0x10, 0x110): 256 bytes */
   /* 0x100 bytes at 256 alignment do not fit the hole (first aligned address 0x100) */
   const uint64_t z = *a.alloc(0x100, 0x100);
   EXPECT_EQ(z % 0x100, 0u);
   EXPECT_GE(z, 0x120u);
   /* the padding before z is a free block again */
   EXPECT_TRUE(a.check());
   (void)x;
}

TEST(Allocator, FreeMergesNeighboursAndEverythingComesBack)
{
   VramAllocator a(0x1000, 0x100000);
   std::vector<uint64_t> blocks;
   for (int i = 0; i < 100; i++)
      blocks.push_back(*a.alloc(0x100 + i * 16, 64));
   std::mt19937 rng(7);
   std::shuffle(blocks.begin(), blocks.end(), rng);
   for (uint64_t b : blocks) {
      ASSERT_TRUE(a.free(b));
      ASSERT_TRUE(a.check());
   }
   EXPECT_EQ(a.free_blocks(), 1u);
   EXPECT_EQ(a.free_bytes(), 0x100000u);
   EXPECT_EQ(a.largest_free_block(), 0x100000u);
   EXPECT_EQ(*a.alloc(0x100000, 1), 0x1000u); /* the whole range in one piece */
}

TEST(Allocator, ExhaustionAndFragmentation)
{
   VramAllocator a(0, 4096);
   std::vector<uint64_t> b;
   for (int i = 0; i < 16; i++)
      b.push_back(*a.alloc(256, 256));
   EXPECT_FALSE(a.alloc(1, 1)); /* full */
   EXPECT_EQ(a.free_bytes(), 0u);
   /* free every other block: 2048 bytes free but no 512-byte block */
   for (int i = 0; i < 16; i += 2)
      a.free(b[i]);
   EXPECT_EQ(a.free_bytes(), 2048u);
   EXPECT_EQ(a.largest_free_block(), 256u);
   EXPECT_FALSE(a.alloc(512, 1));
   EXPECT_TRUE(a.alloc(256, 256));
   EXPECT_TRUE(a.check());
}

TEST(Allocator, DoubleFreeAndBadArguments)
{
   VramAllocator a(0, 4096);
   const uint64_t x = *a.alloc(100, 4);
   EXPECT_TRUE(a.free(x));
   EXPECT_FALSE(a.free(x));      /* double free */
   EXPECT_FALSE(a.free(x + 4));  /* not the start of an allocation */
   EXPECT_FALSE(a.free(123456)); /* never allocated */
   EXPECT_TRUE(a.check());
   EXPECT_THROW(a.alloc(0, 4), std::invalid_argument);
   EXPECT_THROW(a.alloc(16, 3), std::invalid_argument);
   EXPECT_THROW(a.alloc(16, 0), std::invalid_argument);
   EXPECT_FALSE(a.alloc(4097, 1)); /* larger than the range */
}

TEST(Allocator, RandomAgainstABitmap)
{
   /* random alloc/free against an independent byte map of the range */
   const uint64_t base = 0x2000, size = 1 << 16;
   VramAllocator a(base, size);
   std::vector<uint8_t> owner(size, 0);
   std::map<uint64_t, uint64_t> live;
   std::mt19937 rng(12345);
   for (int step = 0; step < 3000; step++) {
      if (live.empty() || rng() % 3) {
         const uint64_t sz = 1 + rng() % 2000, al = uint64_t(1) << (rng() % 10);
         auto r = a.alloc(sz, al);
         if (!r)
            continue;
         ASSERT_EQ(*r % al, 0u);
         for (uint64_t i = 0; i < sz; i++) {
            ASSERT_EQ(owner[*r - base + i], 0) << "overlap at step " << step;
            owner[*r - base + i] = 1;
         }
         live[*r] = sz;
      } else {
         auto it = live.begin();
         std::advance(it, rng() % live.size());
         ASSERT_TRUE(a.free(it->first));
         for (uint64_t i = 0; i < it->second; i++)
            owner[it->first - base + i] = 0;
         live.erase(it);
      }
   }
   EXPECT_TRUE(a.check());
   uint64_t used = 0;
   for (uint8_t o : owner)
      used += o;
   EXPECT_EQ(a.used_bytes(), used);
}

TEST(DrawSet, ParsesListsAndRanges)
{
   const DrawSet s = DrawSet::parse("0,5, 10-20 ,7");
   EXPECT_FALSE(s.all());
   for (uint64_t d : {0u, 5u, 7u, 10u, 15u, 20u})
      EXPECT_TRUE(s.contains(d)) << d;
   for (uint64_t d : {1u, 4u, 6u, 8u, 9u, 21u, 1000u})
      EXPECT_FALSE(s.contains(d)) << d;
   EXPECT_EQ(s.to_string(), "0,5,7,10-20");
   EXPECT_EQ(DrawSet::parse("3-4,5,1-2").to_string(), "1-5"); /* merged */
   EXPECT_TRUE(DrawSet::parse("").all());
   EXPECT_TRUE(DrawSet::parse("  ").contains(123456));
}

TEST(DrawSet, ErrorsNameThePosition)
{
   auto msg = [](const char *spec) {
      try {
         DrawSet::parse(spec);
      } catch (const std::invalid_argument &e) {
         return std::string(e.what());
      }
      return std::string("no error");
   };
   EXPECT_EQ(msg("3,x"), "dump_draws '3,x': character 3: expected a draw number, got 'x'");
   EXPECT_EQ(msg("5-"), "dump_draws '5-': character 3: expected a draw number, got the end");
   EXPECT_EQ(msg("1;2"), "dump_draws '1;2': character 2: expected ',' or '-', got ';'");
   EXPECT_EQ(msg("9-3"), "dump_draws '9-3': range 9-3 ends before it starts");
   EXPECT_NE(msg("1,,2").find("character 3"), std::string::npos);
}
