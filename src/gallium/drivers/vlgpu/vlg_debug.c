/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * VLGPU_DEBUG parsing, the Mesa way (debug_get_flags_option with a
 * debug_named_value table, as softpipe's SOFTPIPE_DEBUG in sp_screen.c and
 * lima's LIMA_DEBUG in lima_screen.c; compiler switches in the driver's
 * debug variable as ir3's IR3_SHADER_DEBUG "nouboopt", "nosched").
 * VLGPU_DEBUG=help makes Mesa's debug_get_flags_option() (util/u_debug.c)
 * print the table to stderr.
 * The other environment variables (VLGPU_CONFIG, VLGPU_SET, VLGPU_STATS,
 * VLGPU_DUMP, VLGPU_DUMP_DRAWS) are read in vlg_screen.c.
 */

#include "util/u_debug.h"

#include "vlg_debug.h"

#include <stdio.h>

#include "vlg_compiler.h"

/* the driver's flags; the compiler's switches are appended at run time */
static const struct debug_named_value vlg_debug_flags[] = {
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
   {"ice_abort",  VLG_DEBUG_ICE_ABORT,
    "an internal compiler error (a compiler bug) prints its message and "
    "aborts where it is detected, for a debugger, instead of failing that "
    "shader's compile; see docs/compiler.md \"Internal errors\""},
};

#define VLG_NUM_DEBUG_FLAGS (sizeof(vlg_debug_flags) / sizeof(vlg_debug_flags[0]))
#define VLG_MAX_COMPILE_SWITCHES 24

uint64_t vlg_debug;

void
vlg_debug_init(void)
{
   static struct debug_named_value table[VLG_NUM_DEBUG_FLAGS + VLG_MAX_COMPILE_SWITCHES + 1];
   static char help[VLG_MAX_COMPILE_SWITCHES][160];
   static char names[VLG_MAX_COMPILE_SWITCHES][32];
   static bool done;
   if (done)
      return;
   done = true;
   unsigned n = 0;
   for (unsigned i = 0; i < VLG_NUM_DEBUG_FLAGS; i++)
      table[n++] = vlg_debug_flags[i];
   for (unsigned i = 0; i < vlg_compile_switch_count() && i < VLG_MAX_COMPILE_SWITCHES; i++) {
      snprintf(help[i], sizeof(help[i]), "compiler: %s (ablation; docs/compiler.md)",
               vlg_compile_switch_help(i));
      /* Mesa's flag names are words of letters, digits and '_'
       * (util/u_debug.c str_has_option): "no-dual" is "nodual" here */
      const char *from = vlg_compile_switch_name(i);
      unsigned k = 0;
      for (; *from && k + 1 < sizeof(names[i]); from++)
         if (*from != '-')
            names[i][k++] = *from;
      names[i][k] = 0;
      table[n].name = names[i];
      table[n].value = UINT64_C(1) << (VLG_DEBUG_COMPILER_SHIFT + i);
      table[n].desc = help[i];
      n++;
   }
   table[n] = (struct debug_named_value)DEBUG_NAMED_VALUE_END;
   /* VLGPU_DEBUG=help prints the table (util/u_debug.c) */
   vlg_debug = debug_get_flags_option("VLGPU_DEBUG", table, 0);
}

void
vlg_debug_compile_options(struct vlg_compile_options *o)
{
   for (unsigned i = 0; i < vlg_compile_switch_count() && i < VLG_MAX_COMPILE_SWITCHES; i++)
      if (vlg_debug >> (VLG_DEBUG_COMPILER_SHIFT + i) & 1)
         vlg_compile_options_set_switch(o, i, true);
}
