/*
 * vlgpu simulator core: state shared by an Engine, its modules and queues.
 */
#pragma once

#include "sim/core/types.h"

namespace vlgpu::sim {

class Tracer;

/**
 * The clock and global flags of one simulated GPU. Owned by the Engine;
 * queues and modules keep a pointer to it. Tests of a lone Queue may create
 * one and advance `now` by hand.
 */
struct SimContext {
   /** The cycle being simulated (during a tick) or the next cycle to
    *  simulate (between runs). */
   Cycle now = 0;
   /** One past the last cycle in which something made progress (a queue
    *  push or pop, a Busy tick); used by the deadlock detector. */
   Cycle progress_end = 0;
   /** Non-null while a trace is being written (see trace.h). */
   Tracer *tracer = nullptr;
   /**
    * Strict queue checking: a second read or write in one cycle (beyond the
    * bandwidth), or a push into a slot freed in the same cycle, throws
    * SimError. When false these are counted (QueueStats::violations) and
    * allowed. Pushing into a physically full queue or popping with no visible
    * entry always throws. Default: strict in debug builds (NDEBUG unset).
    */
#ifdef NDEBUG
   bool strict = false;
#else
   bool strict = true;
#endif
};

} // namespace vlgpu::sim
