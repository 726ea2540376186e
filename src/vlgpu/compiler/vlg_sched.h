/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_sched.h — dependency facts between two operations, shared by the
 * scheduler (vlg_sched.cpp), the cycle estimate (vlg_stats.cpp) and tests.
 */
#pragma once

#include "vlg_ir.h"

namespace vlgpu {

/** A dependency of operation b on an earlier operation a. */
struct Dep {
   bool exists = false;
   /** Cycles from a's issue until b may issue (0: b may share a's
    *  instruction, as a write after a read). Latencies from vlg_op_table. */
   unsigned lat = 0;
   /** The only dependencies are forwarded coordinate registers (PRED -> BRC,
    *  ADDR -> LDC/LDB): b may share a's instruction if a is phase 0 and b
    *  phase 1; otherwise b waits `lat` cycles. */
   bool fwd = false;
};

/** How operation @b (later in program order) depends on @a. Works on virtual
 *  registers (before RA) and physical ones (after). */
Dep dependency(const Shader &S, const Instr &a, const Instr &b);

/** Phases and classes allow @p0 in phase 0 and @p1 in phase 1 of one
 *  instruction (docs/isa.md §2, legality rules 5 and 6). */
bool can_pair(const Instr &p0, const Instr &p1);

} // namespace vlgpu
