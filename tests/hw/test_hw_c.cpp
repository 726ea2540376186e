/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/* Results of the C11 user of vlg_hw.h (hw_c_api.c). */

#include "hw_c_api.h"
#include "hw_test_util.h"

namespace {

TEST(HwC, PackFromC)
{
   /* Same state as test_hw_golden.cpp BlendSrcAlphaInvSrcAlpha, alpha_src
    * left at its default ONE: hand-computed 0x7cc22631. */
   EXPECT_EQ(hw_c_pack_blend_rt0(), 0x7cc22631u);
}

TEST(HwC, UnpackReportsFromC)
{
   const uint32_t good[3] = {0x00030001u, 0x1000u, 0};
   const uint32_t bad[3] = {0x00030001u | (1u << 12), 0x1000u, 0};
   EXPECT_EQ(hw_c_unpack_problems(good), 0u);
   EXPECT_EQ(hw_c_unpack_problems(bad), (unsigned)VLG_HW_UNDESCRIBED_BITS);
}

TEST(HwC, FormatList)
{
   EXPECT_EQ(hw_c_count_formats(), vlg_format_info.num_values);
}

TEST(HwC, ParseFromC)
{
   uint32_t dw[2];
   EXPECT_EQ(hw_c_parse_scissor("minx = 1\nminy = 2\nmaxx = 3\nmaxy = 4\n", dw), 0u);
   EXPECT_EQ(dw[0], 0x00020001u);
   EXPECT_EQ(dw[1], 0x00040003u);
}

} // namespace
