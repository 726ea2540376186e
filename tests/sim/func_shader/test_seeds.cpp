/*
 * The seed programs of tests/isa/seeds (seed 001 table 2, seed 004 figs.
 * 11-13) executed on the SPC, with results computed here in the order the
 * programs compute them (each MUL/MAD product rounded, then the sum).
 */
#include "shader_test_util.h"

#include <fstream>
#include <sstream>

namespace vlgpu::sim::test {
namespace {

std::string
seed(const char *name)
{
   const std::string path = std::string(VLG_SOURCE_ROOT) + "/tests/isa/seeds/" + name;
   std::ifstream f(path);
   EXPECT_TRUE(f.good()) << path;
   std::stringstream ss;
   ss << f.rdbuf();
   std::string text = ss.str();
   /* figs. 12 and 13 are fragments without a thread end */
   if (text.find("BRC.END") == std::string::npos)
      text += "\n    BRC.END\n";
   return text;
}

/* Matrix (columns C0..C3) times vector, as MUL then MADs: r = v.x*C0;
 * r = v.y*C1 + r; ... each product rounded before its add. */
void
mat_vec(const float m[4][4], const float v[4], unsigned n, float out[4])
{
   for (unsigned row = 0; row < 4; row++) {
      volatile float r = v[0] * m[0][row];
      for (unsigned col = 1; col < n; col++) {
         volatile float p = v[col] * m[col][row];
         r = p + r;
      }
      out[row] = r;
   }
}

const float kMat[4][4] = {/* columns */
                          {0.8f, -0.3f, 0.1f, 0.0f},
                          {0.25f, 1.1f, -0.7f, 0.0f},
                          {-0.6f, 0.45f, 0.9f, 0.0f},
                          {0.1f, 0.2f, -3.0f, 1.0f}};

TEST(ShaderSeeds, Seed004Fig12Mat4TimesVector)
{
   Shader s(seed("seed004_fig12_mat4vec.s"), 16, 2);
   for (unsigned c = 0; c < 4; c++)
      s.set_const_f(c, kMat[c][0], kMat[c][1], kMat[c][2], kMat[c][3]);
   for (unsigned l = 0; l < 16; l++)
      for (unsigned c = 0; c < 4; c++)
         s.tg->set_f(l, 0, c, 0.37f * float(l) - float(c) * 1.3f + 0.01f);
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      float v[4], want[4];
      for (unsigned c = 0; c < 4; c++)
         v[c] = s.f(l, 0, c);
      mat_vec(kMat, v, 4, want);
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(s.f(l, 1, c), want[c]) << "lane " << l << " row " << c;
   }
}

TEST(ShaderSeeds, Seed004Fig13Mat3TimesVector)
{
   Shader s(seed("seed004_fig13_mat3vec.s"), 16, 2);
   for (unsigned c = 0; c < 3; c++)
      s.set_const_f(c, kMat[c][0], kMat[c][1], kMat[c][2], 99.0f);
   for (unsigned l = 0; l < 16; l++) {
      for (unsigned c = 0; c < 3; c++)
         s.tg->set_f(l, 0, c, float(l) * 0.5f + float(c));
      s.tg->set_f(l, 1, 3, -5.0f);
   }
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      float v[4] = {s.f(l, 0, 0), s.f(l, 0, 1), s.f(l, 0, 2), 0}, want[4];
      mat_vec(kMat, v, 3, want);
      for (unsigned c = 0; c < 3; c++)
         EXPECT_EQ(s.f(l, 1, c), want[c]) << "lane " << l << " row " << c;
      EXPECT_EQ(s.f(l, 1, 3), -5.0f); /* .xyz only */
   }
}

TEST(ShaderSeeds, Seed001Table2VertexShader)
{
   Shader s(seed("seed001_table2_mat4.s"), 16, 5);
   for (unsigned c = 0; c < 4; c++)
      s.set_const_f(c, kMat[c][0], kMat[c][1], kMat[c][2], kMat[c][3]);
   for (unsigned l = 0; l < 16; l++) {
      const float pos[4] = {float(l % 2) - 0.5f, float(l / 2 % 2) - 0.5f, 0.0f, 1.0f};
      for (unsigned c = 0; c < 4; c++) {
         s.tg->set_f(l, 0, c, pos[c]);
         s.tg->set_f(l, 1, c, float(l) / 16.0f + float(c));
      }
   }
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      float v[4] = {s.f(l, 0, 0), s.f(l, 0, 1), s.f(l, 0, 2), s.f(l, 0, 3)}, want[4];
      mat_vec(kMat, v, 4, want);
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(s.f(l, 2, c), want[c]);
         EXPECT_EQ(s.f(l, 3, c), float(l) / 16.0f + float(c));
      }
   }
}

TEST(ShaderSeeds, Seed004Fig11Branch)
{
   Shader s(seed("seed004_fig11_branch.s"), 16, 6);
   for (unsigned l = 0; l < 16; l++) {
      s.tg->set_f(l, 1, 0, l == 7 ? kNaN : float(l));
      s.tg->set_f(l, 2, 0, 9.5f);
      for (unsigned c = 0; c < 4; c++) {
         s.tg->set_f(l, 4, c, 1.0f + float(c));
         s.tg->set_f(l, 5, c, -1.0f - float(c));
      }
   }
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      const bool less = float(l) < 9.5f && l != 7; /* NaN compares false: else */
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(s.f(l, 3, c), less ? 1.0f + float(c) : -1.0f - float(c)) << "lane " << l;
   }
}

TEST(ShaderSeeds, Seed004Fig11Indirect)
{
   Shader s(seed("seed004_fig11_indirect.s"), 16, 4);
   for (unsigned i = 0; i < 20; i++)
      s.set_const_f(i, float(i), float(i) * 2.0f, -float(i), 0.5f);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 3, 3, (l * 7) % 16); /* int index in R3.w */
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      const float e = float(4 + (l * 7) % 16);
      EXPECT_EQ(s.f(l, 1, 0), e);
      EXPECT_EQ(s.f(l, 1, 1), e * 2.0f);
      EXPECT_EQ(s.f(l, 1, 2), -e);
   }
}

TEST(ShaderSeeds, Seed004Fig11Loop)
{
   Shader s(seed("seed004_fig11_loop.s"), 16, 2);
   s.set_const_f(0, 0.1f, 1.0f / 3.0f, 1e-3f, 7.0f);
   RunResult rr = s.go();
   float want[4] = {0, 0, 0, 0};
   const float k[4] = {0.1f, 1.0f / 3.0f, 1e-3f, 7.0f};
   for (int i = 0; i < 100; i++)
      for (unsigned c = 0; c < 4; c++) {
         volatile float t = want[c] + k[c];
         want[c] = t;
      }
   for (unsigned l = 0; l < 16; l++)
      for (unsigned c = 0; c < 4; c++)
         EXPECT_EQ(s.f(l, 1, c), want[c]);
   EXPECT_EQ(rr.instructions, 202u);
}

} // namespace
} // namespace vlgpu::sim::test
