/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isa.h for the compiler, whose C API also includes vlg_hw.h: both
 * generated headers declare `enum vlg_format` (the ISA's unit formats VLG_FMT_*
 * and the hardware's texel formats VLG_FORMAT_*). As in the simulator
 * (sim/func/shader/vlg_isa_compat.h), the ISA's tag is spelled
 * vlg_isa_unit_format here; no ISA library interface uses the tag
 * (vlg_opinfo::format is a uint8_t). Remove once a generator renames it.
 */
#pragma once

#ifndef VLG_ISA_H
#define vlg_format vlg_isa_unit_format
#include "vlg_isa.h"
#undef vlg_format
#endif
