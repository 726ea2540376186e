/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_FORMAT_H
#define VLG_FORMAT_H

#include <stdbool.h>

#include "pipe/p_format.h"

/**
 * The vlgpu format of a Gallium format, by name: vlgpu_hw.xml's format enum
 * keeps Gallium's names (docs/hw.md, "Enum names and values follow
 * Gallium"), so the mapping is VLG_FORMAT_LIST expanded into a switch.
 * \return the enum vlg_format value, or 0 (VLG_FORMAT_NONE) when the GPU
 *         has no such format.
 */
unsigned vlg_format_from_pipe(enum pipe_format format);

/**
 * Whether the GPU supports \p format for every PIPE_BIND_* flag in \p bind,
 * from the usage column of vlgpu_hw.xml (vlg_format_usage(): rt, tex, zs,
 * vertex) plus the index sizes of draw_info (8, 16, 32-bit indices).
 *
 * \param is_buffer  true for PIPE_BUFFER targets (vertex/index/constant data).
 *
 * Display-target bind flags are not checked here (the caller asks the
 * winsys, as sp_screen.c does).
 */
bool vlg_format_supported(enum pipe_format format, unsigned bind,
                          bool is_buffer);

#endif /* VLG_FORMAT_H */
