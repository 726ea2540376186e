/*
 * GE primitive assembly: every primitive type's vertex order and provoking
 * vertex, with primitive restart. Expected lists are written out by hand from
 * GL ES 3.0 §2.8.1 and Table 2.12 (provoking vertex = last vertex of each
 * primitive, except the first vertex with flatshade_first, which is how
 * Gallium orders vertices: draw_decompose_tmp.h).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <set>
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

namespace {

struct Tri {
   uint32_t v[3];
   unsigned edges;
   bool operator==(const Tri &o) const
   {
      return v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2] && edges == o.edges;
   }
};
std::ostream &
operator<<(std::ostream &os, const Tri &t)
{
   return os << "(" << t.v[0] << "," << t.v[1] << "," << t.v[2] << " edges " << t.edges << ")";
}

std::vector<Tri>
assemble_edges(vlg_prim prim, bool first, unsigned n)
{
   std::vector<Tri> out;
   PrimitiveAssembler pa(prim, first);
   auto emit = [&](const Primitive &p) { out.push_back({{p.v[0], p.v[1], p.v[2]}, p.edges}); };
   for (unsigned i = 0; i < n; i++)
      pa.push(i, emit);
   pa.restart(emit);
   return out;
}

/** The flagged edges (bit k: v[k] -> v[k+1]) as unordered vertex pairs. */
std::set<std::pair<uint32_t, uint32_t>>
flagged(const std::vector<Tri> &tris)
{
   std::set<std::pair<uint32_t, uint32_t>> s;
   for (const Tri &t : tris)
      for (unsigned k = 0; k < 3; k++)
         if (t.edges >> k & 1)
            s.insert(std::minmax(t.v[k], t.v[(k + 1) % 3]));
   return s;
}

} // namespace

TEST(Assembly, QuadsStripsAndPolygonsFlagOnlyTheirBoundaryEdges)
{
   /* Triangle orders of draw_decompose_tmp.h (quads_flatshade_last false);
    * provoking vertex (GL 4.6 compatibility Table 13.2): a quad's last
    * vertex, a quad strip's 2i+4th, a polygon's first, or with
    * flatshade_first a quad's first. Edge bit k: v[k] -> v[k+1]. */
   EXPECT_EQ(assemble_edges(VLG_PRIM_QUADS, false, 9),
             (std::vector<Tri>{{{0, 1, 3}, 5}, {{1, 2, 3}, 3}, {{4, 5, 7}, 5}, {{5, 6, 7}, 3}}));
   EXPECT_EQ(assemble_edges(VLG_PRIM_QUADS, true, 4),
             (std::vector<Tri>{{{0, 1, 2}, 3}, {{0, 2, 3}, 6}}));
   EXPECT_EQ(assemble_edges(VLG_PRIM_QUAD_STRIP, false, 7),
             (std::vector<Tri>{{{2, 0, 3}, 5}, {{0, 1, 3}, 3}, {{4, 2, 5}, 5}, {{2, 3, 5}, 3}}));
   /* draw_decompose_tmp.h flags these two E0|E1 and E1|E2, the diagonal
    * 0-3 instead of the side 2-0: the GE flags the outline */
   EXPECT_EQ(assemble_edges(VLG_PRIM_QUAD_STRIP, true, 4),
             (std::vector<Tri>{{{0, 3, 2}, 6}, {{0, 1, 3}, 3}}));
   EXPECT_EQ(assemble_edges(VLG_PRIM_POLYGON, false, 5),
             (std::vector<Tri>{{{1, 2, 0}, 5}, {{2, 3, 0}, 1}, {{3, 4, 0}, 3}}));
   EXPECT_EQ(assemble_edges(VLG_PRIM_POLYGON, true, 5),
             (std::vector<Tri>{{{0, 1, 2}, 3}, {{0, 2, 3}, 2}, {{0, 3, 4}, 6}}));
   EXPECT_EQ(assemble_edges(VLG_PRIM_POLYGON, false, 3), (std::vector<Tri>{{{1, 2, 0}, 7}}));

   /* whatever the order, the flagged edges are exactly the outline (GL 4.6
    * compatibility section 14.6.4: only boundary edges are drawn) */
   using Edges = std::set<std::pair<uint32_t, uint32_t>>;
   for (bool first : {false, true}) {
      EXPECT_EQ(flagged(assemble_edges(VLG_PRIM_QUADS, first, 4)),
                (Edges{{0, 1}, {1, 2}, {2, 3}, {0, 3}}));
      /* quads 0-1-3-2 and 2-3-5-4 */
      EXPECT_EQ(flagged(assemble_edges(VLG_PRIM_QUAD_STRIP, first, 6)),
                (Edges{{0, 1}, {1, 3}, {2, 3}, {0, 2}, {3, 5}, {4, 5}, {2, 4}}));
      EXPECT_EQ(flagged(assemble_edges(VLG_PRIM_POLYGON, first, 6)),
                (Edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 5}}));
      for (vlg_prim p : {VLG_PRIM_TRIANGLES, VLG_PRIM_TRIANGLE_STRIP, VLG_PRIM_TRIANGLE_FAN})
         for (const Tri &t : assemble_edges(p, first, 5))
            EXPECT_EQ(t.edges, 7u) << vlg_prim_name(p);
   }
}

TEST(Assembly, PolygonHoldsItsLastTriangleUntilRestart)
{
   /* restart before vertex 4: polygons 0-1-2-3 and 4-5-6; the closing edge
    * goes to each polygon's last triangle */
   std::vector<Tri> out;
   PrimitiveAssembler pa(VLG_PRIM_POLYGON, false);
   auto emit = [&](const Primitive &p) { out.push_back({{p.v[0], p.v[1], p.v[2]}, p.edges}); };
   for (unsigned i = 0; i < 7; i++) {
      if (i == 4)
         pa.restart(emit);
      pa.push(i, emit);
      if (i == 3)
         EXPECT_EQ(pa.oldest_kept(), 0u); /* the held triangle still needs vertex 0 */
   }
   pa.restart(emit);
   EXPECT_EQ(out, (std::vector<Tri>{{{1, 2, 0}, 5}, {{2, 3, 0}, 3}, {{5, 6, 4}, 7}}));
}
