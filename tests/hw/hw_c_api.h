/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/* C functions of hw_c_api.c, called from test_hw_c.cpp. */

#ifndef HW_C_API_H
#define HW_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t hw_c_pack_blend_rt0(void);
unsigned hw_c_unpack_problems(const uint32_t *dw);
unsigned hw_c_count_formats(void);
unsigned hw_c_parse_scissor(const char *text, uint32_t *dw);

#ifdef __cplusplus
}
#endif

#endif
