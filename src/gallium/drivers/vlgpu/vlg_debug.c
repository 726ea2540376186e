/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * VLGPU_DEBUG parsing, the Mesa way (DEBUG_GET_ONCE_FLAGS_OPTION with a
 * debug_named_value table, as softpipe's SOFTPIPE_DEBUG in sp_screen.c and
 * lima's LIMA_DEBUG in lima_screen.c).  VLGPU_DEBUG=help makes Mesa's
 * debug_get_flags_option() (util/u_debug.c) print the table to stderr.
 */

#include "util/log.h"
#include "util/u_debug.h"

#include "vlg_debug.h"

static const struct debug_named_value vlg_debug_options[] = {
   {"nir",        VLG_DEBUG_NIR,
    "print each shader's NIR to stderr when the driver receives it"},
   {"shaders",    VLG_DEBUG_SHADERS,
    "print the VL-IW disassembly of each compiled shader (needs the compiler)"},
   {"stats",      VLG_DEBUG_STATS,
    "print simulator statistics (cycles, per-module busy/stall) per frame"},
   {"functional", VLG_DEBUG_FUNCTIONAL,
    "run the simulator in functional mode (same pixels, no timing)"},
   {"dump",       VLG_DEBUG_DUMP,
    "write the readable per-draw interface files (commands, state, data)"},
   DEBUG_NAMED_VALUE_END
};

DEBUG_GET_ONCE_FLAGS_OPTION(vlgpu_debug, "VLGPU_DEBUG", vlg_debug_options, 0)

uint32_t vlg_debug;

void
vlg_debug_init(void)
{
   vlg_debug = debug_get_option_vlgpu_debug();

   /* Flags whose consumers do not exist yet: say so instead of silently
    * ignoring them (draw_vbo, the compiler and the simulator are not wired
    * into the driver yet).
    */
   const uint32_t not_yet = VLG_DEBUG_SHADERS | VLG_DEBUG_STATS |
                            VLG_DEBUG_FUNCTIONAL | VLG_DEBUG_DUMP;
   for (const struct debug_named_value *opt = vlg_debug_options; opt->name;
        opt++) {
      if (vlg_debug & not_yet & opt->value)
         mesa_logw("VLGPU_DEBUG=%s has no effect yet: the driver does not "
                   "compile shaders or run the simulator yet", opt->name);
   }
}
