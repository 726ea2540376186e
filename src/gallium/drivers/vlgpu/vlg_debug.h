/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 */

#ifndef VLG_DEBUG_H
#define VLG_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

/**
 * VLGPU_DEBUG flags (comma-separated names; VLGPU_DEBUG=help lists them).
 * The names and one-line descriptions live in vlg_debug.c; keep both in sync
 * with docs/driver.md.
 */
enum vlg_debug_flag {
   VLG_DEBUG_NIR        = 1 << 0, /* print NIR as the driver receives it */
   VLG_DEBUG_SHADERS    = 1 << 1, /* print VL-IW disassembly of compiled shaders */
   VLG_DEBUG_STATS      = 1 << 2, /* print per-draw and per-frame statistics */
   VLG_DEBUG_FUNCTIONAL = 1 << 3, /* simulate in functional mode (no timing) */
   VLG_DEBUG_DUMP       = 1 << 4, /* per-draw dump into ./vlgpu-dump (VLGPU_DUMP) */
   VLG_DEBUG_ES2        = 1 << 5, /* report GL ES 2.0 / GLSL 1.20 caps only */
   VLG_DEBUG_ICE_ABORT  = 1 << 6, /* internal compiler error: abort, not a failed compile */
};

/**
 * VLGPU_DEBUG also takes the compiler's optimisation switches by name,
 * without the hyphen Mesa's flag parser does not allow ("nodual",
 * "nolowbank", ... for vlg_compile_switch_name()'s "no-dual", "no-lowbank":
 * one table in the compiler): switch i is bit VLG_DEBUG_COMPILER_SHIFT + i, and every
 * shader compiled afterwards has that optimisation off (ablation,
 * docs/compiler.md "Switches").
 */
#define VLG_DEBUG_COMPILER_SHIFT 32

/** The parsed VLGPU_DEBUG value; set once by vlg_debug_init(). */
extern uint64_t vlg_debug;

struct vlg_compile_options;
/** Set in @o the compiler switches VLGPU_DEBUG names. */
void vlg_debug_compile_options(struct vlg_compile_options *o);

/**
 * Parse VLGPU_DEBUG (once per process; Mesa's DEBUG_GET_ONCE_FLAGS_OPTION,
 * like SOFTPIPE_DEBUG in sp_screen.c and LIMA_DEBUG in lima_screen.c).
 */
void vlg_debug_init(void);

static inline bool
vlg_debug_enabled(enum vlg_debug_flag flag)
{
   return (vlg_debug & (uint64_t)flag) != 0;
}

#endif /* VLG_DEBUG_H */
