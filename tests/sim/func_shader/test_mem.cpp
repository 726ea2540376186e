/*
 * Memory ops on the SPC executor: LDC (direct, indirect with A0 in one
 * instruction, out of range), LDB (VRAM buffers, past the size, A0), the
 * texture family through a test double (operand gathering, op mapping,
 * lane masks, write masks, faults) and through the real texture unit
 * (texture.h) on a small float texture.
 */
#include "shader_test_util.h"

namespace vlgpu::sim::test {
namespace {

TEST(ShaderMem, LdcDirectIndirectAndOutOfRange)
{
   Shader s(R"(
    ADDR A0, R0.x | LDC R1, C[A0+4]
    LDC R2, C[300]
    LDC R3.yw, C[A0]
    LDC R4, C[A0+500]
    BRC.END
)",
            16, 8);
   for (unsigned i = 0; i < 400; i++)
      s.set_const_f(i, float(i), float(i) + 0.25f, float(i) + 0.5f, float(i) + 0.75f);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 0, 0, uint32_t(int32_t(l) - 2)); /* A0 = -2 .. 13 */
   s.set_all_f(3, -1.0f, -1.0f, -1.0f, -1.0f);
   s.res.consts_address = 0x10000;
   StepResult r = s.next();
   EXPECT_EQ(r.mem, MemKind::Ldc);
   ASSERT_EQ(r.mem_addresses.size(), 16u);
   EXPECT_EQ(r.mem_addresses[0], 0x10000u + 16u * 2u);
   EXPECT_EQ(r.mem_addresses[15], 0x10000u + 16u * 17u);
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      const int a0 = int(l) - 2;
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(s.f(l, 1, c), float(a0 + 4) + 0.25f * float(c));
         EXPECT_EQ(s.f(l, 2, c), 300.0f + 0.25f * float(c));
         const bool written = c == 1 || c == 3;
         const float want3 = !written ? -1.0f : a0 < 0 ? 0.0f : float(a0) + 0.25f * float(c);
         EXPECT_EQ(s.f(l, 3, c), want3) << "lane " << l << " comp " << c;
         EXPECT_EQ(s.r(l, 4, c), 0u); /* 498..513 are beyond the 400 entries */
      }
   }
}

class ShaderLdb : public ::testing::Test {
 protected:
   Vram vram{1 << 16};
   void SetUp() override
   {
      for (uint32_t i = 0; i < 10; i++)
         vram.write(0x1000 + 4 * i, &i, 4, "test");
      const uint32_t poison = 0xBADBAD;
      for (uint32_t i = 10; i < 16; i++) /* past the buffer's 40 bytes */
         vram.write(0x1000 + 4 * i, &poison, 4, "test");
   }
};

TEST_F(ShaderLdb, ReadsVramAndZeroPastTheSize)
{
   Shader s(R"(
    LDB R1, B2[0]
    LDB R2, B2[2]
    ADDR A0, R0.x | LDB R3, B2[A0+1]
    LDB R4, B5[0]
    BRC.END
)",
            16, 8);
   s.res.vram = &vram;
   s.res.buffers[2] = BufferSlot{0x1000, 40};
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 0, 0, uint32_t(int32_t(l % 4) - 2)); /* A0+1 = -1, 0, 1, 2 */
   StepResult r = s.next();
   EXPECT_EQ(r.mem, MemKind::Ldb);
   ASSERT_EQ(r.mem_addresses.size(), 16u);
   for (uint64_t a : r.mem_addresses)
      EXPECT_EQ(a, 0x1000u);
   s.go();
   for (unsigned l = 0; l < 16; l++) {
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(s.r(l, 1, c), c);
         EXPECT_EQ(s.r(l, 2, c), c < 2 ? 8 + c : 0u); /* bytes 40..47 are past the size */
         const int off = int(l % 4) - 1;
         const uint32_t w = off < 0 ? 0u : uint32_t(4 * off) + c;
         EXPECT_EQ(s.r(l, 3, c), w < 10 && off >= 0 ? w : 0u) << "lane " << l;
         EXPECT_EQ(s.r(l, 4, c), 0u);
      }
   }
}

TEST_F(ShaderLdb, BufferOutsideVramIsAFaultWithThePc)
{
   Shader s("NOP\nLDB R1, B0[0]\nBRC.END\n", 4, 4);
   s.res.vram = &vram;
   s.res.buffers[0] = BufferSlot{vram.size() - 8, 64};
   const std::string what = expect_fault(s);
   EXPECT_NE(what.find("VRAM read out of bounds"), std::string::npos) << what;
   EXPECT_NE(what.find("PC 1 "), std::string::npos) << what;
   EXPECT_NE(what.find("LDB R1, B0[0]"), std::string::npos) << what;
}

/* ------------------------------------------------------------------------ */
/* Texture ops through a test double of texture_sample                       */
/* ------------------------------------------------------------------------ */

struct TexCall {
   TexOp op;
   bool shadow, quads;
   std::array<int8_t, 3> offset;
   unsigned num_lanes;
   uint64_t mask;
   uint32_t width; /* identifies the descriptor */
   std::vector<TexLaneIn> in;
};
std::vector<TexCall> g_calls;
bool g_fail = false;

uint32_t
fake_sample(const Vram &, const VLG_TEXTURE &tex, const VLG_SAMPLER &, const TexInstr &ins,
            bool quads, unsigned n, uint64_t mask, const TexLaneIn *in, uint32_t (*out)[4],
            std::vector<uint64_t> *trace)
{
   const TexOp op = ins.op;
   const bool shadow = ins.shadow;
   if (g_fail)
      throw GpuFault("TEX", "texture format not usable", "format 0 has no TEX usage");
   const std::array<int8_t, 3> offset = {ins.offset[0], ins.offset[1], ins.offset[2]};
   g_calls.push_back({op, shadow, quads, offset, n, mask, tex.width, {in, in + n}});
   for (unsigned l = 0; l < n; l++) {
      if (!(mask >> l & 1))
         continue;
      for (unsigned c = 0; c < 4; c++)
         out[l][c] = in[l].coord[c] + 1000 * in[l].extra[c] + 100000 * in[l].extra2[c] + tex.width;
      if (trace)
         trace->push_back(0x5000 + l);
   }
   return uint32_t(__builtin_popcountll(mask));
}

class ShaderTexDouble : public ::testing::Test {
 protected:
   Vram vram{4096};
   TextureUnit units[3];
   void SetUp() override
   {
      g_calls.clear();
      g_fail = false;
      for (unsigned i = 0; i < 3; i++) {
         units[i].valid = true;
         VLG_TEXTURE_init(&units[i].tex);
         VLG_SAMPLER_init(&units[i].samp);
         units[i].tex.width = 10000000u * (i + 1);
      }
   }
   void bind(Shader &s)
   {
      s.res.vram = &vram;
      s.res.textures = units;
      s.res.num_textures = 3;
      s.res.sample = fake_sample;
      for (unsigned l = 0; l < s.tg->width(); l++)
         for (unsigned c = 0; c < 4; c++) {
            s.tg->set(l, 1, c, 10 * l + c); /* R[coord] */
            s.tg->set(l, 2, c, 1 + c);      /* R[coord+1] */
            s.tg->set(l, 3, c, 5 + c);      /* R[coord+2] */
            for (unsigned r = 10; r < 17 && r < s.tg->num_regs(); r++)
               s.tg->set(l, r, c, 0xEEEEEEEEu);
         }
   }
};

TEST_F(ShaderTexDouble, OperandsOpsMasksAndWriteMasks)
{
   Shader s(R"(
    TEX R10, R1, T0
    TXB R11.xy, R1, T1
    TXL R12, R1, T0
    TXD R13, R1, T2
    TXF R14, R1, T0
    TXQ R15, R1, T0
    TEX.SHADOW R16.w, R1, T1
    BRC.END
)",
            8, 20, VLG_SHADER_STAGE_FRAGMENT);
   bind(s);
   s.tg->set_helper_mask(0x80);
   StepResult r = s.next();
   EXPECT_EQ(r.mem, MemKind::Tex);
   EXPECT_EQ(r.mem_addresses.size(), 8u);
   s.go();
   ASSERT_EQ(g_calls.size(), 7u);
   const TexOp ops[7] = {TexOp::Tex, TexOp::Txb, TexOp::Txl, TexOp::Txd,
                         TexOp::Txf, TexOp::Txq, TexOp::Tex};
   const uint32_t widths[7] = {10000000u, 20000000u, 10000000u, 30000000u,
                               10000000u, 10000000u, 20000000u};
   for (unsigned i = 0; i < 7; i++) {
      const TexCall &c = g_calls[i];
      EXPECT_EQ(c.op, ops[i]) << i;
      EXPECT_EQ(c.shadow, i == 6) << i;
      EXPECT_TRUE(c.quads);
      EXPECT_EQ(c.num_lanes, 8u);
      EXPECT_EQ(c.mask, 0xFFu) << "helper lanes sample too";
      EXPECT_EQ(c.width, widths[i]);
      const bool extra = i == 1 || i == 2 || i == 3, extra2 = i == 3;
      for (unsigned l = 0; l < 8; l++)
         for (unsigned k = 0; k < 4; k++) {
            EXPECT_EQ(c.in[l].coord[k], 10 * l + k);
            EXPECT_EQ(c.in[l].extra[k], extra ? 1 + k : 0u);
            EXPECT_EQ(c.in[l].extra2[k], extra2 ? 5 + k : 0u);
         }
   }
   for (unsigned l = 0; l < 8; l++) {
      for (unsigned k = 0; k < 4; k++) {
         const uint32_t base = 10 * l + k;
         EXPECT_EQ(s.r(l, 10, k), base + 10000000u);
         EXPECT_EQ(s.r(l, 11, k), k < 2 ? base + 1000 * (1 + k) + 20000000u : 0xEEEEEEEEu);
         EXPECT_EQ(s.r(l, 13, k), base + 1000 * (1 + k) + 100000 * (5 + k) + 30000000u);
         EXPECT_EQ(s.r(l, 16, k), k == 3 ? base + 20000000u : 0xEEEEEEEEu);
      }
   }
}

TEST_F(ShaderTexDouble, CubeArrayOperandsReadTheNextRegister)
{
   /* .CUBEARRAY: R[coord+1] is read (its .w holds the reference or the
    * gather component) for TEX and TG4 too; the descriptor must be
    * CUBE_ARRAY, and a CUBE_ARRAY texture refuses the plain operands. */
   units[0].tex.target = VLG_TEXTURE_TARGET_CUBE_ARRAY;
   units[0].tex.array_size = 12;
   Shader s("TEX.SHADOW.CUBEARRAY R10.x, R1, T0\nTG4.CUBEARRAY R11, R1, T0\nBRC.END\n", 4, 12,
            VLG_SHADER_STAGE_FRAGMENT);
   bind(s);
   s.go();
   ASSERT_EQ(g_calls.size(), 2u);
   EXPECT_TRUE(g_calls[0].shadow);
   EXPECT_EQ(g_calls[1].op, TexOp::Tg4);
   for (const TexCall &c : g_calls)
      for (unsigned l = 0; l < 4; l++)
         for (unsigned k = 0; k < 4; k++) {
            EXPECT_EQ(c.in[l].coord[k], 10 * l + k);
            EXPECT_EQ(c.in[l].extra[k], 1 + k);
            EXPECT_EQ(c.in[l].extra2[k], 0u);
         }

   Shader plain("TEX R10, R1, T0\nBRC.END\n", 4, 12);
   bind(plain);
   std::string what = expect_fault(plain);
   EXPECT_NE(what.find("cube-map-array operands do not match"), std::string::npos) << what;
   EXPECT_NE(what.find("CUBE_ARRAY texture, the op lacks .CUBEARRAY"), std::string::npos) << what;

   Shader wrong("TEX.CUBEARRAY R10, R1, T1\nBRC.END\n", 4, 12);
   bind(wrong);
   what = expect_fault(wrong);
   EXPECT_NE(what.find("the op has .CUBEARRAY"), std::string::npos) << what;

   /* size queries and fetches take no .CUBEARRAY */
   g_calls.clear();
   Shader q("TXQ R10, R1, T0\nBRC.END\n", 4, 12);
   bind(q);
   q.go();
   EXPECT_EQ(g_calls.size(), 1u);
}

/* The TOFF Sub unit's texel offsets reach the texture unit with the op
 * (docs/isa.md "toff"); an op without one samples with (0, 0, 0). */
TEST_F(ShaderTexDouble, TexelOffsetsReachTheTextureUnit)
{
   Shader s(R"(
    TXL R10, R1, T0, (3, -1, 2)
    TEX.SHADOW R11.x, R1, T1, (-8, 7, 0)
    TG4 R12, R1, T0, (0, 0, -5)
    TXD R13, R1, T2
    BRC.END
)",
            4, 20, VLG_SHADER_STAGE_FRAGMENT);
   bind(s);
   s.go();
   ASSERT_EQ(g_calls.size(), 4u);
   const std::array<int8_t, 3> want[4] = {{3, -1, 2}, {-8, 7, 0}, {0, 0, -5}, {0, 0, 0}};
   const TexOp ops[4] = {TexOp::Txl, TexOp::Tex, TexOp::Tg4, TexOp::Txd};
   for (unsigned i = 0; i < 4; i++) {
      EXPECT_EQ(g_calls[i].op, ops[i]) << i;
      EXPECT_EQ(g_calls[i].offset, want[i]) << i;
   }
   EXPECT_TRUE(g_calls[1].shadow);
}

TEST_F(ShaderTexDouble, DivergentLanesSampleWithTheirMask)
{
   Shader s(R"(
    PRED.ILT P0, R0.x, #5 | BRC.JMP skip if P0
    TEX R10, R1, T0
skip:
    BRC.END
)",
            16, 12);
   bind(s);
   for (unsigned l = 0; l < 16; l++)
      s.tg->set(l, 0, 0, l);
   s.go();
   ASSERT_EQ(g_calls.size(), 1u);
   EXPECT_FALSE(g_calls[0].quads);
   EXPECT_EQ(g_calls[0].mask, 0xFFE0u);
   EXPECT_EQ(s.r(3, 10, 0), 0xEEEEEEEEu);
   EXPECT_EQ(s.r(5, 10, 0), 50u + 10000000u);
}

TEST_F(ShaderTexDouble, UnboundUnitsAndSamplerFaults)
{
   Shader s("TEX R10, R1, T3\nBRC.END\n", 4, 12);
   bind(s);
   std::string what = expect_fault(s);
   EXPECT_NE(what.find("unbound texture unit"), std::string::npos) << what;
   EXPECT_NE(what.find("T3"), std::string::npos) << what;
   EXPECT_NE(what.find("PC 0"), std::string::npos) << what;

   Shader s2("TEX R10, R1, T1\nBRC.END\n", 4, 12);
   bind(s2);
   units[1].valid = false;
   what = expect_fault(s2);
   EXPECT_NE(what.find("unbound texture unit"), std::string::npos) << what;

   Shader s3("NOP\nNOP\nTXL R10.xy, R1, T2\nBRC.END\n", 4, 12, VLG_SHADER_STAGE_VERTEX, 77);
   bind(s3);
   g_fail = true;
   what = expect_fault(s3);
   EXPECT_NE(what.find("TEX: texture format not usable"), std::string::npos) << what;
   EXPECT_NE(what.find("PC 2 "), std::string::npos) << what;
   EXPECT_NE(what.find("TXL R10.xy, R1, T2"), std::string::npos) << what;
   EXPECT_NE(what.find("group 77"), std::string::npos) << what;
}

/* ------------------------------------------------------------------------ */
/* The real texture unit                                                     */
/* ------------------------------------------------------------------------ */

TEST(ShaderTexReal, SampleFetchAndQueryAFloatTexture)
{
   Vram vram(1 << 16);
   const uint64_t base = 0x2000;
   /* 2x2 RGBA32F: texel (x, y) = (x, y, 10x + y, 1 + x + 2y) */
   for (unsigned y = 0; y < 2; y++)
      for (unsigned x = 0; x < 2; x++) {
         const float t[4] = {float(x), float(y), float(10 * x + y), float(1 + x + 2 * y)};
         vram.write(base + y * 32 + x * 16, t, 16, "test");
      }
   TextureUnit unit;
   unit.valid = true;
   VLG_TEXTURE_init(&unit.tex);
   unit.tex.target = VLG_TEXTURE_TARGET_2D;
   unit.tex.format = VLG_FORMAT_R32G32B32A32_FLOAT;
   unit.tex.width = 2;
   unit.tex.height = 2;
   unit.tex.address = base;
   unit.tex.level[0].offset = 0;
   unit.tex.level[0].row_pitch = 32;
   unit.tex.level[0].layer_stride = 64;
   VLG_SAMPLER_init(&unit.samp);
   unit.samp.wrap_s = unit.samp.wrap_t = unit.samp.wrap_r = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   unit.samp.min_img_filter = unit.samp.mag_img_filter = VLG_TEX_FILTER_NEAREST;

   Shader s("TEX R2, R0, T0\nTXF R3, R1, T0\nTXQ R4, R5, T0\nBRC.END\n", 4, 8,
            VLG_SHADER_STAGE_FRAGMENT);
   s.res.vram = &vram;
   s.res.textures = &unit;
   s.res.num_textures = 1;
   for (unsigned l = 0; l < 4; l++) {
      /* the quad covers the 4 texel centres */
      s.tg->set_f(l, 0, 0, (l & 1) ? 0.75f : 0.25f);
      s.tg->set_f(l, 0, 1, (l & 2) ? 0.75f : 0.25f);
      /* TXF: lane 3 reads outside the texture */
      s.tg->set(l, 1, 0, l == 3 ? 5u : (l & 1));
      s.tg->set(l, 1, 1, (l >> 1) & 1);
      s.tg->set(l, 1, 2, 0);
      s.tg->set(l, 1, 3, 0);
   }
   s.go();
   for (unsigned l = 0; l < 4; l++) {
      const unsigned x = l & 1, y = (l >> 1) & 1;
      const float t[4] = {float(x), float(y), float(10 * x + y), float(1 + x + 2 * y)};
      for (unsigned c = 0; c < 4; c++) {
         EXPECT_EQ(s.f(l, 2, c), t[c]) << "TEX lane " << l << " comp " << c;
         EXPECT_EQ(s.f(l, 3, c), l == 3 ? 0.0f : t[c]) << "TXF lane " << l;
      }
      EXPECT_EQ(s.r(l, 4, 0), 2u);
      EXPECT_EQ(s.r(l, 4, 1), 2u);
      EXPECT_EQ(s.r(l, 4, 3), 1u);
   }
   /* The TXF texel addresses for the cache model. */
   Shader t("TXF R3, R1, T0\nBRC.END\n", 4, 8, VLG_SHADER_STAGE_FRAGMENT);
   t.res.vram = &vram;
   t.res.textures = &unit;
   t.res.num_textures = 1;
   for (unsigned l = 0; l < 4; l++) {
      t.tg->set(l, 1, 0, l & 1);
      t.tg->set(l, 1, 1, l >> 1);
   }
   StepResult r = t.next();
   EXPECT_EQ(r.mem, MemKind::Tex);
   ASSERT_EQ(r.mem_addresses.size(), 4u);
   for (unsigned l = 0; l < 4; l++)
      EXPECT_EQ(r.mem_addresses[l], base + (l >> 1) * 32 + (l & 1) * 16);
}

} // namespace
} // namespace vlgpu::sim::test
