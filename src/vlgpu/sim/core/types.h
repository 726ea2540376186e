/*
 * vlgpu simulator core: basic types.
 *
 * Time is counted in simulated GPU clock cycles (Cycle). Cycle 0 is the
 * first simulated cycle of an Engine. See docs/simulator.md.
 */
#pragma once

#include <cstdint>
#include <limits>

#if defined(__GNUC__)
#define VLG_LIKELY(x)   __builtin_expect(!!(x), 1)
#define VLG_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define VLG_LIKELY(x)   (x)
#define VLG_UNLIKELY(x) (x)
#endif

namespace vlgpu::sim {

/** Simulated time, in GPU clock cycles (not seconds). */
using Cycle = uint64_t;

/** "No cycle": an alarm that is not set, a wake-up that is not scheduled. */
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

/**
 * What a module did in one cycle (returned by Module::tick()).
 *
 * - Busy:    did useful work (consumed or produced an entry, advanced an
 *            internal pipeline, computed). Counts as progress for the
 *            deadlock detector.
 * - Stalled: had work but could not continue because an output queue is full
 *            (back-pressure).
 * - Starved: is in the middle of a task but waits for an input queue that is
 *            empty (a pipeline bubble).
 * - Idle:    has nothing to do at all (no work in flight).
 *
 * Stalled/Starved/Idle are the module's own classification; the engine only
 * uses Busy vs. not-Busy (not-Busy modules may be put to sleep) and keeps
 * one counter per value.
 */
enum class Activity : uint8_t {
   Idle = 0,
   Busy = 1,
   Stalled = 2,
   Starved = 3,
};

inline constexpr unsigned kActivityCount = 4;

/** "idle", "busy", "stalled", "starved". */
const char *activity_name(Activity a);

} // namespace vlgpu::sim
