/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Golden words: every expected dword below was computed by hand from the bit
 * positions and enum values written in src/vlgpu/hw/vlgpu_hw.xml (the
 * arithmetic is in the comments), never by calling the packer. If the XML
 * changes a position, these tests must be updated by hand too: that is the
 * point.
 */

#include "hw_test_util.h"

using namespace vlgpu::hwtest;

namespace {

TEST(HwGolden, EnumValuesMatchTheXml)
{
   /* <value name="SRC_ALPHA" value="0x3"/>, <value name="INV_SRC_ALPHA" value="0x13"/> */
   EXPECT_EQ(VLG_BLEND_FACTOR_SRC_ALPHA, 0x3);
   EXPECT_EQ(VLG_BLEND_FACTOR_INV_SRC_ALPHA, 0x13);
   EXPECT_EQ(VLG_BLEND_FACTOR_ZERO, 0x11);
   EXPECT_EQ(VLG_COMPARE_FUNC_LEQUAL, 3);
   EXPECT_EQ(VLG_CMD_OPCODE_DRAW, 1);
   EXPECT_EQ(VLG_CMD_OPCODE_HALT, 4);
   EXPECT_EQ(VLG_SHADER_STAGE_FRAGMENT, 4); /* = PIPE_SHADER_FRAGMENT */
   EXPECT_EQ(VLG_TEXTURE_TARGET_2D_ARRAY, 7); /* = PIPE_TEXTURE_2D_ARRAY */
   EXPECT_EQ(VLG_FORMAT_R8G8B8A8_UNORM, 3);
   EXPECT_EQ(vlg_format_bytes(VLG_FORMAT_R32G32B32_FLOAT), 12u);
   EXPECT_EQ(vlg_format_bytes(VLG_FORMAT_Z32_FLOAT_S8X24_UINT), 8u);
   EXPECT_EQ(vlg_format_usage(VLG_FORMAT_B5G6R5_UNORM), VLG_FORMAT_USAGE_RT | VLG_FORMAT_USAGE_TEX);
   EXPECT_EQ(vlg_format_usage(VLG_FORMAT_R32G32_FIXED), VLG_FORMAT_USAGE_VERTEX);
   EXPECT_STREQ(vlg_blend_factor_name(0x13), "INV_SRC_ALPHA");
   EXPECT_EQ(vlg_blend_factor_name(0x16), nullptr); /* 1 - SRC_ALPHA_SATURATE: not a factor */
   EXPECT_FALSE(vlg_blend_factor_is_valid(0));
   EXPECT_TRUE(vlg_compare_func_is_valid(7));
   EXPECT_FALSE(vlg_compare_func_is_valid(8));
}

TEST(HwGolden, BlendSrcAlphaInvSrcAlpha)
{
   struct VLG_BLEND b;
   VLG_BLEND_init(&b);
   b.rt[0].blend_enable = true;
   b.rt[0].rgb_func = VLG_BLEND_FUNC_ADD;
   b.rt[0].rgb_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
   b.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   b.rt[0].alpha_func = VLG_BLEND_FUNC_ADD;
   b.rt[0].alpha_src_factor = VLG_BLEND_FACTOR_ONE;
   b.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   b.rt[0].colormask = 0xf;

   uint32_t dw[VLG_BLEND_LENGTH];
   ASSERT_EQ(VLG_BLEND_LENGTH, 9); /* word 0 + rt[0..7] */
   VLG_BLEND_pack(dw, &b);

   /* word 0: logicop_func default COPY = 12 at bits 5:2 -> 0x30 */
   EXPECT_EQ(dw[0], 0x00000030u);
   /* rt[0] at word 1:
    *   blend_enable     1    << 0  = 0x00000001
    *   rgb_func         ADD  << 1  = 0
    *   rgb_src_factor   0x3  << 4  = 0x00000030
    *   rgb_dst_factor   0x13 << 9  = 0x00002600
    *   alpha_func       ADD  << 14 = 0
    *   alpha_src_factor 0x1  << 17 = 0x00020000
    *   alpha_dst_factor 0x13 << 22 = 0x04c00000
    *   colormask        0xf  << 27 = 0x78000000
    */
   EXPECT_EQ(dw[1], 0x7cc22631u);
   /* rt[1..3] keep the defaults: ONE (0x1 << 4, 0x1 << 17), ZERO (0x11 << 9,
    * 0x11 << 22), colormask 0xf << 27:
    * 0x10 + 0x2200 + 0x20000 + 0x4400000 + 0x78000000 */
   EXPECT_EQ(dw[2], 0x7c422210u);
   EXPECT_EQ(dw[3], 0x7c422210u);
   EXPECT_EQ(dw[4], 0x7c422210u);

   struct VLG_BLEND back;
   EXPECT_EQ(VLG_BLEND_unpack(dw, &back), 0u);
   EXPECT_EQ(back.rt[0].rgb_dst_factor, VLG_BLEND_FACTOR_INV_SRC_ALPHA);
   EXPECT_EQ(back.logicop_func, VLG_LOGICOP_COPY);
}

TEST(HwGolden, DepthStencilAlpha)
{
   struct VLG_DEPTH_STENCIL_ALPHA d;
   VLG_DEPTH_STENCIL_ALPHA_init(&d);
   d.depth_enable = true;
   d.depth_writemask = true;
   d.depth_func = VLG_COMPARE_FUNC_LEQUAL;
   d.stencil[0].enabled = true;
   d.stencil[0].func = VLG_COMPARE_FUNC_EQUAL;
   d.stencil[0].fail_op = VLG_STENCIL_OP_KEEP;
   d.stencil[0].zfail_op = VLG_STENCIL_OP_INCR;
   d.stencil[0].zpass_op = VLG_STENCIL_OP_REPLACE;
   d.stencil[0].valuemask = 0xff;
   d.stencil[0].writemask = 0x0f;
   d.alpha_ref = 0.5f;

   uint32_t dw[VLG_DEPTH_STENCIL_ALPHA_LENGTH];
   ASSERT_EQ(VLG_DEPTH_STENCIL_ALPHA_LENGTH, 4);
   VLG_DEPTH_STENCIL_ALPHA_pack(dw, &d);
   /* depth_enable 1<<0, depth_writemask 1<<1, depth_func LEQUAL 3<<2 = 0xc,
    * alpha_func default ALWAYS 7<<9 = 0xe00 */
   EXPECT_EQ(dw[0], 0x00000e0fu);
   /* enabled 1, func EQUAL 2<<1 = 0x4, zfail INCR 3<<7 = 0x180, zpass REPLACE
    * 2<<10 = 0x800, valuemask 0xff<<16, writemask 0x0f<<24 */
   EXPECT_EQ(dw[1], 0x0fff0985u);
   /* back face defaults: func ALWAYS 7<<1 = 0xe, both masks 0xff */
   EXPECT_EQ(dw[2], 0xffff000eu);
   /* 0.5f */
   EXPECT_EQ(dw[3], 0x3f000000u);
}

TEST(HwGolden, CmdDraw)
{
   struct VLG_CMD_DRAW c;
   VLG_CMD_DRAW_init(&c);
   c.draw_info = UINT64_C(0x0000000123456780);
   uint32_t dw[VLG_CMD_DRAW_LENGTH];
   ASSERT_EQ(VLG_CMD_DRAW_LENGTH, 3);
   VLG_CMD_DRAW_pack(dw, &c);
   /* opcode DRAW = 1 at bits 7:0, length default 3 at bits 31:16 */
   EXPECT_EQ(dw[0], 0x00030001u);
   /* address: low word first */
   EXPECT_EQ(dw[1], 0x23456780u);
   EXPECT_EQ(dw[2], 0x00000001u);

   /* The CP decodes the header alone first. */
   struct VLG_CMD_HEADER h;
   EXPECT_EQ(VLG_CMD_HEADER_unpack(dw, &h), 0u);
   EXPECT_EQ(h.opcode, VLG_CMD_OPCODE_DRAW);
   EXPECT_EQ(h.length, 3u);
}

TEST(HwGolden, CmdSyncDumpHaltHeaders)
{
   uint32_t dw[8];
   struct VLG_CMD_SYNC s;
   VLG_CMD_SYNC_init(&s);
   s.fence_value = 42;
   VLG_CMD_SYNC_pack(dw, &s);
   EXPECT_EQ(dw[0], 0x00040002u); /* SYNC = 2, length 4 */
   EXPECT_EQ(dw[3], 42u);

   struct VLG_CMD_DUMP d;
   VLG_CMD_DUMP_init(&d);
   d.display_id = 7;
   d.rect.maxx = 800;
   d.rect.maxy = 600;
   VLG_CMD_DUMP_pack(dw, &d);
   EXPECT_EQ(dw[0], 0x00060003u); /* DUMP = 3, length 6 */
   EXPECT_EQ(dw[3], 7u);
   EXPECT_EQ(dw[4], 0u);
   EXPECT_EQ(dw[5], 0x02580320u); /* 800 | 600 << 16 */

   struct VLG_CMD_HALT h;
   VLG_CMD_HALT_init(&h);
   VLG_CMD_HALT_pack(dw, &h);
   EXPECT_EQ(dw[0], 0x00010004u); /* HALT = 4, length 1 */
}

TEST(HwGolden, DrawInfoIndexedTriangles)
{
   struct VLG_DRAW_INFO d;
   VLG_DRAW_INFO_init(&d);
   d.prim = VLG_PRIM_TRIANGLES;
   d.vertices_per_prim = 3;
   d.index_size = VLG_INDEX_SIZE_U16;
   d.primitive_restart = true;
   d.base_vertex = -5;
   d.count = 36;
   d.occlusion_counter = 0x123456780ull;
   d.stream_output = 0xabcdef00ull;
   d.resolve_dst = 0x2000000040ull;
   d.gs = 0x3000000080ull;
   d.gs_num_textures = 2;
   d.gs_num_samplers = 3;
   uint32_t dw[VLG_DRAW_INFO_LENGTH];
   ASSERT_EQ(VLG_DRAW_INFO_LENGTH, 55); /* ... resolve_dst 44-45, indirect 46-47, gs 48-54 */
   VLG_DRAW_INFO_pack(dw, &d);
   /* prim TRIANGLES 4<<4 = 0x40, vertices_per_prim 3<<8 = 0x300,
    * index_size U16 2<<12 = 0x2000, primitive_restart 1<<15 = 0x8000 */
   EXPECT_EQ(dw[0], 0x0000a340u);
   EXPECT_EQ(dw[2], 36u);
   EXPECT_EQ(dw[3], 1u);          /* instance_count default 1 */
   EXPECT_EQ(dw[5], 0xfffffffbu); /* base_vertex -5, two's complement */
   EXPECT_EQ(dw[40], 0x23456780u); /* occlusion_counter, low word first */
   EXPECT_EQ(dw[41], 0x1u);
   EXPECT_EQ(dw[42], 0xabcdef00u); /* stream_output */
   EXPECT_EQ(dw[43], 0u);
   EXPECT_EQ(dw[44], 0x40u); /* resolve_dst, low word first */
   EXPECT_EQ(dw[45], 0x20u);
   EXPECT_EQ(dw[46], 0u); /* indirect */
   EXPECT_EQ(dw[48], 0x80u); /* gs, low word first */
   EXPECT_EQ(dw[49], 0x30u);
   EXPECT_EQ(dw[54], 0x0302u); /* gs_num_textures 2, gs_num_samplers 3 << 8 */
}

TEST(HwGolden, SamplerAndTexture)
{
   struct VLG_SAMPLER s;
   VLG_SAMPLER_init(&s);
   s.wrap_s = VLG_TEX_WRAP_REPEAT;
   s.wrap_t = VLG_TEX_WRAP_CLAMP_TO_EDGE;
   s.wrap_r = VLG_TEX_WRAP_MIRROR_REPEAT;
   s.min_img_filter = VLG_TEX_FILTER_LINEAR;
   s.mag_img_filter = VLG_TEX_FILTER_LINEAR;
   s.min_mip_filter = VLG_MIP_FILTER_LINEAR;
   s.seamless_cube_map = true;
   uint32_t dw[VLG_TEXTURE_LENGTH];
   VLG_SAMPLER_pack(dw, &s);
   /* wrap_t 2<<3 = 0x10, wrap_r 4<<6 = 0x100, min 1<<9 = 0x200, mag 1<<10 =
    * 0x400, mip LINEAR 1<<11 = 0x800, seamless 1<<17, normalized (default
    * true) 1<<18 */
   EXPECT_EQ(dw[0], 0x00060f10u);
   EXPECT_EQ(dw[3], 0x447a0000u); /* max_lod default 1000.0f */

   struct VLG_TEXTURE t;
   VLG_TEXTURE_init(&t);
   ASSERT_EQ(VLG_TEXTURE_LENGTH, 51);
   t.target = VLG_TEXTURE_TARGET_CUBE;
   t.format = VLG_FORMAT_R8G8B8A8_UNORM;
   t.swizzle_a = VLG_SWIZZLE_ONE;
   t.width = 256;
   t.height = 128;
   t.num_levels = 9;
   t.last_level = 8;
   t.level[1].offset = 0x40000;
   VLG_TEXTURE_pack(dw, &t);
   /* target CUBE 4, format 3<<4 = 0x30, swizzle_g Y 1<<19 = 0x80000,
    * swizzle_b Z 2<<22 = 0x800000, swizzle_a ONE 5<<25 = 0xa000000 */
   EXPECT_EQ(dw[0], 0x0a880034u);
   EXPECT_EQ(dw[1], 0x00800100u);  /* 256 | 128 << 16 */
   EXPECT_EQ(dw[2], 0x00010001u);  /* depth 1, array_size 1 (defaults) */
   EXPECT_EQ(dw[3], 0x00008009u);  /* num_levels 9, last_level 8 << 12 */
   EXPECT_EQ(dw[6 + 3], 0x40000u); /* level[1] = words 9..11, offset first */
}

TEST(HwGolden, ShaderInputAndScissor)
{
   struct VLG_SHADER_INPUT in;
   VLG_SHADER_INPUT_init(&in);
   in.reg = 5;
   in.mask = 0x3;
   in.interp = VLG_INTERP_FLAT;
   in.semantic = VLG_INPUT_SEMANTIC_VARYING;
   in.index = 7;
   uint32_t dw[2];
   VLG_SHADER_INPUT_pack(dw, &in);
   /* reg 5, mask 3<<8 = 0x300, FLAT 2<<12 = 0x2000, VARYING 1<<16, index 7<<20 */
   EXPECT_EQ(dw[0], 0x00712305u);

   struct VLG_SCISSOR sc = {};
   sc.minx = 10;
   sc.miny = 20;
   sc.maxx = 300;
   sc.maxy = 200;
   VLG_SCISSOR_pack(dw, &sc);
   EXPECT_EQ(dw[0], 0x0014000au);
   EXPECT_EQ(dw[1], 0x00c8012cu);
}

TEST(HwGolden, PipeStateBlockOffsets)
{
   /* pipe_state: blend at word 54, rt[1] one word after rt[0] at 55 -> 56;
    * viewport at 7, scale[1] at 8; stencil_ref at 53; blend is 1 + 8 words
    * (8 render targets), so blend_color is at 63 and sample_mask at 67. */
   ASSERT_EQ(VLG_PIPE_STATE_LENGTH, 68);
   struct VLG_PIPE_STATE p;
   VLG_PIPE_STATE_init(&p);
   p.blend.rt[1].colormask = 0x5;
   p.viewport.scale[1] = -1.0f;
   p.stencil_ref.ref_value[1] = 0x80;
   uint32_t dw[VLG_PIPE_STATE_LENGTH];
   VLG_PIPE_STATE_pack(dw, &p);
   EXPECT_EQ(dw[56] >> 27, 0x5u);
   EXPECT_EQ(dw[8], 0xbf800000u);
   EXPECT_EQ(dw[53], 0x00008000u); /* ref_value[1] at bits 15:8 */
   EXPECT_EQ(dw[67], 0xffffffffu); /* sample_mask default */
}

TEST(HwGolden, PrintedText)
{
   uint32_t dw[1] = {0x7cc22631u}; /* rt[0] of BlendSrcAlphaInvSrcAlpha */
   std::string text = capture([&](FILE *fp) { VLG_BLEND_RT_print(fp, dw, "", 0); });
   EXPECT_EQ(text, "blend_enable     = true\n"
                   "rgb_func         = ADD\n"
                   "rgb_src_factor   = SRC_ALPHA\n"
                   "rgb_dst_factor   = INV_SRC_ALPHA\n"
                   "alpha_func       = ADD\n"
                   "alpha_src_factor = ONE\n"
                   "alpha_dst_factor = INV_SRC_ALPHA\n"
                   "colormask        = 0xf\n");

   uint32_t vp[VLG_VIEWPORT_LENGTH] = {0x43480000u, 0xc3160000u, 0x3f000000u, 0x43480000u,
                                       0x43160000u, 0x3f000000u, 0x00000000u, 0x7fc00001u};
   text = capture([&](FILE *fp) { VLG_VIEWPORT_print(fp, vp, "  ", 0); });
   EXPECT_EQ(text, "  scale[0]     = 200\n"
                   "  scale[1]     = -150\n"
                   "  scale[2]     = 0.5\n"
                   "  translate[0] = 200\n"
                   "  translate[1] = 150\n"
                   "  translate[2] = 0.5\n"
                   "  depth_near   = 0\n"
                   "  depth_far    = bits(0x7fc00001)\n");
}

} // namespace
