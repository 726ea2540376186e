/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/*
 * The generated header used from C11, the way the Gallium driver uses it.
 * Compiled with -std=c11 -pedantic -Werror -Wmissing-prototypes (Mesa's
 * flags are a subset) by tests/hw/meson.build; the results are checked by
 * test_hw_c.cpp.
 */

#include "hw_c_api.h"

#include "vlg_hw.h"

uint32_t
hw_c_pack_blend_rt0(void)
{
   struct VLG_BLEND b;
   VLG_BLEND_init(&b);
   b.rt[0].blend_enable = true;
   b.rt[0].rgb_src_factor = VLG_BLEND_FACTOR_SRC_ALPHA;
   b.rt[0].rgb_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;
   b.rt[0].alpha_dst_factor = VLG_BLEND_FACTOR_INV_SRC_ALPHA;

   uint32_t dw[VLG_BLEND_LENGTH];
   VLG_BLEND_pack(dw, &b);
   return dw[1];
}

unsigned
hw_c_unpack_problems(const uint32_t *dw)
{
   struct VLG_CMD_DRAW c;
   return VLG_CMD_DRAW_unpack(dw, &c);
}

/* Driver-style mechanical mapping of Gallium names through the X-macros. */
unsigned
hw_c_count_formats(void)
{
#define COUNT(name, value) +1
   return 0 VLG_FORMAT_LIST(COUNT);
#undef COUNT
}

unsigned
hw_c_parse_scissor(const char *text, uint32_t *dw)
{
   return VLG_SCISSOR_parse(text, "c.txt", 1, dw, NULL, NULL);
}
