/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_FORMAT_H
#define VLG_FORMAT_H

#include <stdbool.h>

#include "pipe/p_format.h"

/**
 * Which PIPE_BIND_* usages vlgpu supports for a format, from the format
 * table in vlg_format.c (one table, like lima_format.c / v3d_formats.c).
 *
 * \param bind  a mask of PIPE_BIND_* flags; every flag must be supported
 *              (display-target flags are checked by the caller against the
 *              winsys).
 * \param is_buffer  true for PIPE_BUFFER targets (vertex/index/constant data).
 */
bool vlg_format_supported(enum pipe_format format, unsigned bind,
                          bool is_buffer);

#endif /* VLG_FORMAT_H */
