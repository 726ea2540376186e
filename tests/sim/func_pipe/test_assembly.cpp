/*
 * GE primitive assembly: every primitive type's vertex order and provoking
 * vertex, with primitive restart. Expected lists are written out by hand from
 * GL ES 3.0 §2.8.1 and Table 2.12 (provoking vertex = last vertex of each
 * primitive, except the first vertex with flatshade_first, which is how
 * Gallium orders vertices: draw_decompose_tmp.h).
 */
#include <gtest/gtest.h>

#include <vector>

#include "sim/func/pipe/geometry.h"

using namespace vlgpu::sim;

namespace {

using Prims = std::vector<std::vector<uint32_t>>;

/** Feed 0..n-1 (with restarts where @restart_at says), collect primitives. */
Prims
assemble(vlg_prim prim, bool first, unsigned n, std::vector<unsigned> restart_at = {})
{
   Prims out;
   PrimitiveAssembler pa(prim, first);
   auto emit = [&](const Primitive &p) { out.emplace_back(p.v, p.v + p.num_vertices); };
   unsigned r = 0;
   for (unsigned i = 0; i < n; i++) {
      if (r < restart_at.size() && restart_at[r] == i) {
         pa.restart(emit);
         r++;
      }
      pa.push(i, emit);
   }
   pa.restart(emit);
   return out;
}

} // namespace

TEST(Assembly, Points)
{
   EXPECT_EQ(assemble(VLG_PRIM_POINTS, false, 3), (Prims{{0}, {1}, {2}}));
}

TEST(Assembly, LinesDropIncomplete)
{
   EXPECT_EQ(assemble(VLG_PRIM_LINES, false, 5), (Prims{{0, 1}, {2, 3}}));
}

TEST(Assembly, LineStrip)
{
   EXPECT_EQ(assemble(VLG_PRIM_LINE_STRIP, false, 4), (Prims{{0, 1}, {1, 2}, {2, 3}}));
   EXPECT_EQ(assemble(VLG_PRIM_LINE_STRIP, false, 1), (Prims{}));
}

TEST(Assembly, LineLoopClosesAtEndAndRestart)
{
   EXPECT_EQ(assemble(VLG_PRIM_LINE_LOOP, false, 3), (Prims{{0, 1}, {1, 2}, {2, 0}}));
   /* restart before vertex 3: two loops 0-1-2 and 3-4 */
   EXPECT_EQ(assemble(VLG_PRIM_LINE_LOOP, false, 5, {3}),
             (Prims{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 3}}));
}

TEST(Assembly, Triangles)
{
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLES, false, 7), (Prims{{0, 1, 2}, {3, 4, 5}}));
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLES, true, 6), (Prims{{0, 1, 2}, {3, 4, 5}}));
}

TEST(Assembly, TriangleStripLastProvoking)
{
   /* GL: triangle i = (i, i+1, i+2) for even i, (i+1, i, i+2) for odd i:
    * winding kept, provoking vertex i+2 last */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_STRIP, false, 6),
             (Prims{{0, 1, 2}, {2, 1, 3}, {2, 3, 4}, {4, 3, 5}}));
}

TEST(Assembly, TriangleStripFirstProvoking)
{
   /* provoking vertex i first: odd triangles (i, i+2, i+1) */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_STRIP, true, 6),
             (Prims{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {3, 5, 4}}));
}

TEST(Assembly, TriangleFan)
{
   /* GL: triangle i = (0, i+1, i+2), provoking i+2 (last) */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_FAN, false, 5), (Prims{{0, 1, 2}, {0, 2, 3}, {0, 3, 4}}));
   /* first-vertex convention: provoking i+1 first, hub last */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_FAN, true, 5), (Prims{{1, 2, 0}, {2, 3, 0}, {3, 4, 0}}));
}

TEST(Assembly, RestartStartsNewStripAndFan)
{
   /* strip 0,1,2,3 | 4,5,6: parity restarts with the new strip */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_STRIP, false, 7, {4}),
             (Prims{{0, 1, 2}, {2, 1, 3}, {4, 5, 6}}));
   /* fan 0,1,2,3 | 4,5 (incomplete, dropped) */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLE_FAN, false, 6, {4}), (Prims{{0, 1, 2}, {0, 2, 3}}));
   /* triangles with a restart in the middle of a triangle: 0,1 dropped */
   EXPECT_EQ(assemble(VLG_PRIM_TRIANGLES, false, 5, {2}), (Prims{{2, 3, 4}}));
}
