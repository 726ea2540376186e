/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * VLGPU_DEBUG parsing, the Mesa way (DEBUG_GET_ONCE_FLAGS_OPTION with a
 * debug_named_value table, as softpipe's SOFTPIPE_DEBUG in sp_screen.c and
 * lima's LIMA_DEBUG in lima_screen.c).  VLGPU_DEBUG=help makes Mesa's
 * debug_get_flags_option() (util/u_debug.c) print the table to stderr.
 * The other environment variables (VLGPU_CONFIG, VLGPU_SET, VLGPU_STATS,
 * VLGPU_DUMP, VLGPU_DUMP_DRAWS) are read in vlg_screen.c.
 */

#include "util/u_debug.h"

#include "vlg_debug.h"

static const struct debug_named_value vlg_debug_options[] = {
   {"nir",        VLG_DEBUG_NIR,
    "print each shader's NIR to stderr when the driver receives it"},
   {"shaders",    VLG_DEBUG_SHADERS,
    "print the VL-IW disassembly and statistics of each compiled shader"},
   {"stats",      VLG_DEBUG_STATS,
    "print per-draw and per-frame GPU statistics (cycles, vertices, "
    "fragments, instructions, dual-issue rate) to stderr"},
   {"functional", VLG_DEBUG_FUNCTIONAL,
    "run the simulator in functional mode (same pixels, no timing)"},
   {"dump",       VLG_DEBUG_DUMP,
    "write the readable per-draw dump into ./vlgpu-dump (same as "
    "VLGPU_DUMP=vlgpu-dump)"},
   {"es2",        VLG_DEBUG_ES2,
    "report the OpenGL ES 2.0 configuration (GLSL 1.20, no transform "
    "feedback, no array textures) instead of ES 3.0, for comparisons; "
    "see docs/driver.md"},
   DEBUG_NAMED_VALUE_END
};

DEBUG_GET_ONCE_FLAGS_OPTION(vlgpu_debug, "VLGPU_DEBUG", vlg_debug_options, 0)

uint32_t vlg_debug;

void
vlg_debug_init(void)
{
   vlg_debug = debug_get_option_vlgpu_debug();
}
