/*
 * vlg_isa.h for code that also includes vlg_hw.h.
 *
 * Both generated headers declare `enum vlg_format` (the ISA's unit formats,
 * VLG_FMT_*, and the hardware's texel formats, VLG_FORMAT_*), so one
 * translation unit cannot include both as they are. Until one of them is
 * renamed in its generator (reported to the project lead), this wrapper
 * includes vlg_isa.h with its enum tag spelled vlg_isa_unit_format; nothing
 * of the ISA library's ABI uses the tag (vlg_opinfo::format is a uint8_t).
 * Include this instead of vlg_isa.h in src/vlgpu/sim/func/shader; it must
 * come before any direct #include "vlg_isa.h" of the same translation unit.
 */
#pragma once

#ifndef VLG_ISA_H
#define vlg_format vlg_isa_unit_format
#include "vlg_isa.h"
#undef vlg_format
#endif
