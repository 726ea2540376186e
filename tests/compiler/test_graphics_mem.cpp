/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Images, SSBOs and atomic counters in vertex and fragment shaders (GLSL ES
 * 3.10): the same lowering to MEM as compute shaders (vlg_nir_memory.cpp),
 * the driver-uniform slots reported for the driver, and the
 * shader_state flags writes_memory / early_fragment_tests
 * (docs/compiler.md "Memory in vertex and fragment shaders").
 */
#include "vlg_test_util.h"

using namespace vlgpu;
using namespace vlgpu::test;

namespace {

bool
has(const std::string &text, const std::string &what)
{
   return text.find(what) != std::string::npos;
}

const char *const kPassVs = R"(#version 310 es
in vec4 piglit_vertex;
void main() { gl_Position = piglit_vertex; }
)";

} // namespace

/* nv_image_formats-gles3's fragment shader, for every format it tries */
TEST(GraphicsMem, FragmentImageCopyCompilesForEveryNvImageFormat)
{
   const char *formats[][2] = {
      {"rg32f", ""},  {"rg16f", ""},     {"r11f_g11f_b10f", ""}, {"r16f", ""},  {"rgb10_a2ui", "u"},
      {"rg32ui", "u"}, {"rg16ui", "u"},  {"rg8ui", "u"},         {"r16ui", "u"}, {"r8ui", "u"},
      {"rg32i", "i"}, {"rg16i", "i"},    {"rg8i", "i"},          {"r16i", "i"}, {"r8i", "i"},
      {"rgba16", ""}, {"rgb10_a2", ""},  {"rg16", ""},           {"rg8", ""},   {"r16", ""},
      {"r8", ""},     {"rgba16_snorm", ""}, {"rg16_snorm", ""},  {"rg8_snorm", ""},
      {"r16_snorm", ""}, {"r8_snorm", ""}};
   for (auto &f : formats) {
      SCOPED_TRACE(f[0]);
      const std::string p = f[1];
      const std::string type = p == "u" ? "uvec4" : p == "i" ? "ivec4" : "vec4";
      const std::string fs = std::string("#version 310 es\n#extension GL_NV_image_formats : require\n") +
                             "layout(" + f[0] + ") readonly uniform highp " + p + "image2D img_src;\n" +
                             "layout(" + f[0] + ") writeonly uniform highp " + p + "image2D img_dst;\n" +
                             "void main() {\n  highp " + type +
                             " v = imageLoad(img_src, ivec2(gl_FragCoord));\n"
                             "  imageStore(img_dst, ivec2(gl_FragCoord), v);\n}\n";
      CompiledProgram c = compile_glsl(kPassVs, fs);
      ASSERT_TRUE(c.fs) << c.error;
      EXPECT_EQ(c.fs->images_used, 0x3u);
      EXPECT_TRUE(c.fs->state.writes_memory);
      EXPECT_FALSE(c.fs->state.early_fragment_tests);
      EXPECT_FALSE(c.vs->state.writes_memory);
      const std::string d = disasm_code(c.fs.get());
      EXPECT_TRUE(has(d, "MEM.LD")) << d;
      EXPECT_TRUE(has(d, "MEM.ST") || has(d, "MEM.ATOM_CMPXCHG")) << d;
   }
}

TEST(GraphicsMem, EarlyFragmentTestsAndReadOnlyImages)
{
   CompiledProgram c = compile_glsl(kPassVs, R"(#version 310 es
layout(early_fragment_tests) in;
layout(r32ui, binding = 2) readonly uniform highp uimage2D img;
out highp vec4 color;
void main() { color = vec4(imageLoad(img, ivec2(gl_FragCoord)).x); }
)");
   ASSERT_TRUE(c.fs) << c.error;
   EXPECT_TRUE(c.fs->state.early_fragment_tests);
   EXPECT_FALSE(c.fs->state.writes_memory); /* loads only */
   EXPECT_EQ(c.fs->images_used, 0x1u); /* slot = the shader's image index, not the binding */
}

/* vs-simple-atomic-counter-inc-dec-read: atomic counters in a vertex shader
 * are SSBO atomics (no hardware counters), in the buffers after the SSBOs */
TEST(GraphicsMem, VertexAtomicCountersAndFragmentSsbo)
{
   CompiledProgram c = compile_glsl(R"(#version 310 es
layout(binding = 0) uniform atomic_uint a0;
in vec4 piglit_vertex;
out vec4 vcolor;
void main() {
   uint v0 = atomicCounterIncrement(a0);
   uint v1 = atomicCounter(a0);
   vcolor = v1 > v0 ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1);
   gl_Position = piglit_vertex;
}
)",
                                    R"(#version 310 es
precision highp float;
layout(std430, binding = 1) buffer B { uint hits; float last; } b;
in vec4 vcolor;
out vec4 fcolor;
void main() {
   atomicAdd(b.hits, 1u);
   b.last = vcolor.g;
   memoryBarrierBuffer();
   fcolor = vcolor;
}
)");
   ASSERT_TRUE(c.vs && c.fs) << c.error;
   EXPECT_TRUE(c.vs->state.writes_memory);
   EXPECT_NE(c.vs->ssbos_used, 0u);
   EXPECT_TRUE(has(disasm_code(c.vs.get()), "MEM.ATOM_ADD"));
   EXPECT_TRUE(c.fs->state.writes_memory);
   EXPECT_EQ(c.fs->ssbos_used, 0x1u); /* slot = the shader's block index, not the binding */
   const std::string d = disasm_code(c.fs.get());
   EXPECT_TRUE(has(d, "MEM.ATOM_ADD")) << d;
   EXPECT_TRUE(has(d, "MEM.ST")) << d;
   EXPECT_TRUE(has(d, "MEM.FENCE")) << d; /* memoryBarrierBuffer(): no BAR outside compute */
   EXPECT_FALSE(has(d, "MEM.BAR")) << d;
}

/* arb_shader_atomic_counters-fragment-discard's shader: the second atomic
 * must stay after the BRC.KILL of the discard (it was scheduled before it,
 * so discarded fragments incremented y) */
TEST(GraphicsMem, AtomicsKeepTheirOrderWithDiscard)
{
   CompiledProgram c = compile_glsl(kPassVs, R"(#version 310 es
layout(binding = 0, offset = 0) uniform atomic_uint x;
layout(binding = 0, offset = 4) uniform atomic_uint y;
out highp ivec4 fcolor;
void main() {
   if ((atomicCounterIncrement(x) & 0x3u) == 0u)
      discard;
   fcolor.x = int(atomicCounterIncrement(y));
}
)");
   ASSERT_TRUE(c.fs) << c.error;
   const std::string d = disasm_code(c.fs.get());
   const size_t first = d.find("MEM.ATOM_ADD"), kill = d.find("BRC.KILL"),
                second = d.find("MEM.ATOM_ADD", first + 1);
   ASSERT_NE(first, std::string::npos) << d;
   ASSERT_NE(kill, std::string::npos) << d;
   ASSERT_NE(second, std::string::npos) << d;
   EXPECT_LT(first, kill) << d;
   EXPECT_LT(kill, second) << d;
}
